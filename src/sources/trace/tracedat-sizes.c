/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/param.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event-parse.h>
#include <zstd.h>

#include "tracedat.h"

/*
 * The sizes libtracecmd will trust. libtracecmd 1.3 allocates what a size field in the
 * file declares before it reads that many bytes, and keeps the allocation when the read
 * comes up short: an option's 4-byte size (128 MiB from one flipped byte of a 1 MB
 * file, twice a file as it is opened twice), a section's, a compressed block's, a CPU
 * count. So before libtracecmd sees the file, every such size on the way to the events
 * must fit in the file: in the bytes left after it, in its section or option, or, for a
 * compressed block, in what its compressed bytes can inflate to. A compressed section's
 * own sizes are checked in it, inflated. And what makes its opening fail after it has
 * set up a CPU's tables but not the next one's (a CPU's data past the end, a first page
 * fuller than a page, a chunk that does not inflate) is refused too: closing such a
 * handle dereferences NULL.
 */
#define DAT_MAX_CPUS 65536
/*
 * The most a compressed block may inflate to, for each byte of it: trace-cmd's sections
 * (kallsyms, formats) reach ~10:1 and its event chunks ~100:1; a bound on what one
 * byte of a hostile file makes anyone allocate
 */
#define DAT_MAX_RATIO 1100u
#define DAT_MAX_HOPS 4096
/* libtracecmd divides by the page size; the kernel's sub-buffers are 4 KiB to a few MiB */
#define DAT_MIN_PAGE 256u
#define DAT_MAX_PAGE (64u << 20)

enum dat_codec { DAT_PLAIN, DAT_ZSTD, DAT_UNKNOWN };

struct dat_walk {
	int fd;
	const unsigned char *mem;	/* an inflated section, read instead of @fd */
	uint64_t size;
	enum dat_codec codec;
	bool big_endian;
	uint64_t cpus;		/* version 6: the CPU count its buffers have */
	uint64_t page_size;	/* of the buffer being walked */
	unsigned int long_size;	/* 8 or 4: a page header's commit word */
	bool packed;		/* the buffer being walked is compressed */
	int depth;		/* version 6: options within a buffer's options */
	const char *why;
};

static int walk_fail(struct dat_walk *w, const char *why)
{
	w->why = why;
	return -EINVAL;
}

static int walk_read(struct dat_walk *w, uint64_t off, void *buf, size_t n)
{
	if (off > w->size || n > w->size - off ||
	    (!w->mem && pread(w->fd, buf, n, (off_t)off) != (ssize_t)n))
		return walk_fail(w, "truncated: a size or offset in it points past its end");
	if (w->mem)
		memcpy(buf, w->mem + off, n);
	return 0;
}

static int walk_num(struct dat_walk *w, uint64_t off, size_t n, uint64_t *ret)
{
	unsigned char b[8];
	uint64_t v = 0;
	int r = walk_read(w, off, b, n);

	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)b[w->big_endian ? i : n - 1 - i] << (8 * (n - 1 - i));
	*ret = v;
	return 0;
}

static int walk_page_size(struct dat_walk *w, uint64_t off)
{
	uint64_t v;
	int r = walk_num(w, off, 4, &v);

	if (r < 0)
		return r;
	if (v < DAT_MIN_PAGE || v > DAT_MAX_PAGE || (v & (v - 1)))
		return walk_fail(w, "its page size is not one a kernel has");
	return 0;
}

/* A NUL-terminated string at @off: its length with the NUL in *ret_len */
static int walk_str(struct dat_walk *w, uint64_t off, size_t *ret_len)
{
	char b[256];
	size_t n = off < w->size ? (size_t)MIN(w->size - off, sizeof(b)) : 0;
	const char *nul;

	if (n == 0 || walk_read(w, off, b, n) < 0 || !(nul = memchr(b, '\0', n)))
		return walk_fail(w, "a name in its header has no end");
	*ret_len = (size_t)(nul - b) + 1;
	return 0;
}

/* @n bytes declared at @off: they must be in the file */
static int walk_fits(struct dat_walk *w, uint64_t off, uint64_t n)
{
	if (off > w->size || n > w->size - off)
		return walk_fail(w, w->mem ? "a size in a compressed section of it is larger than the section"
					   : "a size in it is larger than the file");
	return 0;
}

static uint64_t page_word(const struct dat_walk *w, const unsigned char *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[w->big_endian ? i : n - 1 - i] << (8 * (n - 1 - i));
	return v;
}

/*
 * A page (@len bytes): its 8-byte time stamp, then the commit word, whose low 27 bits
 * are the size used, no more than a page. Then its records as kbuffer steps through
 * them: a 32-bit header whose type_len (5 bits) says how long the record is; 0: a
 * 32-bit length follows, counting itself. kbuffer keeps its place in 32 bits and does
 * not check that a step moves on: a length below 4, or one that wraps, loops forever.
 */
static int walk_page(struct dat_walk *w, const unsigned char *page, size_t len)
{
	uint64_t size, pos = 8 + w->long_size, step, word, tl;

	if (len < pos)
		return 0;
	size = page_word(w, page + 8, w->long_size) & ((1u << 27) - 1);
	if (size > w->page_size)
		return walk_fail(w, "a CPU's page in it says it holds more than a page");
	size = MIN(pos + size, len);
	while (pos + 4 <= size) {
		word = page_word(w, page + pos, 4);
		tl = w->big_endian ? word >> 27 : word & 31;
		if (tl == 0 || tl == 29) {
			if (pos + 8 > size)
				break;
			word = page_word(w, page + pos + 4, 4);
			if (tl == 0 && word < 4)
				return walk_fail(w, "a record in it is shorter than its own length word");
			/* padding: its length after the header; a record: data after the word */
			step = tl == 29 ? 4 + word : 8 + ((word - 4 + 3) & ~3ull);
		} else {
			step = tl >= 30 ? 8 : 4 + 4 * tl;
		}
		if (pos + step > UINT32_MAX)
			return walk_fail(w, "a record in it is longer than a page");
		pos += step;
	}
	return 0;
}

/*
 * A compressed CPU's chunks at @off (a count, then each chunk's compressed and inflated
 * sizes and its bytes), inflated as libtracecmd will: all of them, before any is read;
 * their pages walked
 */
/*
 * The @csize bytes at @off, one zstd frame, inflated into at most @rsize bytes: a buffer
 * the caller frees (*ret_n bytes), or the walk failed with @why
 */
static int walk_zstd_frame(struct dat_walk *w, uint64_t off, uint64_t csize, uint64_t rsize,
			   const char *why, unsigned char **ret, size_t *ret_n)
{
	unsigned char *src = malloc(csize ? csize : 1), *dst = malloc(rsize ? rsize : 1);
	size_t n = 0;
	int r = src && dst ? walk_read(w, off, src, csize) : -ENOMEM;

	if (r == 0) {
		n = ZSTD_decompress(dst, rsize, src, csize);
		if (ZSTD_isError(n))
			r = walk_fail(w, why);
	}
	free(src);
	if (r < 0) {
		free(dst);
		return r;
	}
	*ret = dst;
	*ret_n = n;
	return 0;
}

static int walk_chunks(struct dat_walk *w, uint64_t off)
{
	uint64_t count, csize, rsize;
	unsigned char *dst;
	size_t n;
	int r = 0;

	if (w->codec != DAT_ZSTD)
		return 0;	/* see walk_inflated() */
	if ((r = walk_num(w, off, 4, &count)) < 0)
		return r;
	off += 4;
	if (count > (w->size - MIN(off, w->size)) / 8)
		return walk_fail(w, "a CPU in it declares more chunks than it holds");
	for (uint64_t i = 0; i < count; i++) {
		if ((r = walk_num(w, off, 4, &csize)) < 0 || (r = walk_num(w, off + 4, 4, &rsize)) < 0 ||
		    (r = walk_fits(w, off + 8, csize)) < 0)
			break;
		if (rsize > (csize + 64) * DAT_MAX_RATIO) {
			r = walk_fail(w, "a CPU's compressed events in it inflate beyond what they hold");
			break;
		}
		r = walk_zstd_frame(w, off + 8, csize, rsize,
				    "a CPU's compressed events in it do not inflate", &dst, &n);
		if (r < 0)
			break;
		for (size_t p = 0; r == 0 && p < n; p += w->page_size)
			r = walk_page(w, dst + p, MIN(n - p, w->page_size));
		free(dst);
		if (r < 0)
			break;
		off += 8 + csize;
	}
	return r;
}

/*
 * A CPU's data: @n bytes at @off. libtracecmd 1.3 checks that it is in the file, that
 * a compressed one inflates and that its first page's header says no more than a page
 * is used, but if any fails for a CPU but the last it then closes a handle whose later
 * CPUs' lists it has not set up yet (a NULL dereference). Every page is walked.
 */
static int walk_cpu_data(struct dat_walk *w, uint64_t off, uint64_t n)
{
	unsigned char *page;
	int r = 0;

	if (off > w->size || n > w->size - off)
		return walk_fail(w, "a CPU's events in it lie past its end");
	if (w->packed)
		return walk_chunks(w, off);
	page = malloc(w->page_size);
	if (!page)
		return -ENOMEM;
	for (uint64_t p = 0; r == 0 && p < n; p += w->page_size) {
		size_t len = (size_t)MIN(n - p, w->page_size);

		r = walk_read(w, off + p, page, len);
		if (r == 0)
			r = walk_page(w, page, len);
	}
	free(page);
	return r;
}

static int walk_options(struct dat_walk *w, uint64_t off, uint64_t end, bool sections,
			uint64_t *ret_next);

/*
 * Version 6: what a buffer's offset points at, options then "flyrecord" and each CPU's
 * offset and size (or "latency"), the way libtracecmd reads it
 */
static int walk_v6_data(struct dat_walk *w, uint64_t off)
{
	char tag[10];
	uint64_t at, n;
	int r;

	if (++w->depth > 2)
		return walk_fail(w, "its buffers point back at its options");
	if ((r = walk_read(w, off, tag, sizeof(tag))) < 0)
		return r;
	if (memcmp(tag, "options", 7) == 0) {
		if ((r = walk_options(w, off + 10, w->size, false, &off)) < 0 ||
		    (r = walk_read(w, off, tag, sizeof(tag))) < 0)
			return r;
	}
	w->depth--;
	if (memcmp(tag, "flyrecord", 9) != 0)
		return 0;
	for (uint64_t c = 0; c < w->cpus; c++) {
		if ((r = walk_num(w, off + 10 + 16 * c, 8, &at)) < 0 ||
		    (r = walk_num(w, off + 18 + 16 * c, 8, &n)) < 0)
			return r;
		if (n && (r = walk_cpu_data(w, at, n)) < 0)
			return r;
	}
	/* then the trace clock's name, with its 8-byte size */
	off += 10 + 16 * w->cpus;
	if ((r = walk_num(w, off, 8, &n)) < 0 || (r = walk_fits(w, off + 8, n)) < 0)
		return r;
	return 0;
}

/* The options of one run (version 6's list, version 7's options section) at @off, @end */
static int walk_options(struct dat_walk *w, uint64_t off, uint64_t end, bool sections,
			uint64_t *ret_next)
{
	uint64_t id, len, v;
	int r;

	*ret_next = 0;
	for (;;) {
		if ((r = walk_num(w, off, 2, &id)) < 0)
			return r;
		/* version 6's end of options: where its CPU data begins */
		if (id == 0 && !sections) {
			*ret_next = off + 2;
			return 0;
		}
		if ((r = walk_num(w, off + 2, 4, &len)) < 0)
			return r;
		off += 6;
		if (off > end || len > end - off)
			return walk_fail(w, "an option in it is larger than its section");
		/* TRACECMD_OPTION_DONE: the next options section's offset, 0 for none */
		if (id == 0)
			return len >= 8 ? walk_num(w, off, 8, ret_next) : 0;
		/* TRACECMD_OPTION_UNAME, _VERSION: libtracecmd strdup()s them, so a NUL must end them */
		if (id == 5 || id == 9) {
			unsigned char last = 1;

			if (len && (r = walk_read(w, off + len - 1, &last, 1)) < 0)
				return r;
			if (last != '\0')
				return walk_fail(w, "a name in its options has no end");
		}
		/* TRACECMD_OPTION_CPUCOUNT: what libtracecmd makes per-CPU tables for */
		if (id == 8 && len >= 4 && ((r = walk_num(w, off, 4, &v)) < 0 || v > DAT_MAX_CPUS))
			return r < 0 ? r : walk_fail(w, "it declares more CPUs than a kernel has");
		if (id == 8 && len >= 4)
			w->cpus = v;
		/* TRACECMD_OPTION_BUFFER (version 6): where the buffer's CPU data is */
		if (id == 3 && !sections && len >= 8) {
			uint64_t at;

			if ((r = walk_num(w, off, 8, &at)) < 0 || (r = walk_v6_data(w, at)) < 0)
				return r;
		}
		/*
		 * TRACECMD_OPTION_BUFFER (version 7): offset, name, clock, page size, CPU
		 * count, then per CPU its number, offset and size (20 bytes)
		 */
		if (id == 3 && sections) {
			uint64_t p = off + 8;
			size_t n1, n2;

			if ((r = walk_str(w, p, &n1)) < 0 || (r = walk_str(w, p + n1, &n2)) < 0)
				return r;
			p += n1 + n2;
			if (p + 4 <= off + len && ((r = walk_page_size(w, p)) < 0 ||
						   (r = walk_num(w, p, 4, &w->page_size)) < 0))
				return r;
			p += 4;
			/* its data's section: TRACECMD_SEC_FL_COMPRESS in its flags */
			if ((r = walk_num(w, off, 8, &v)) < 0 || (r = walk_num(w, v + 2, 2, &v)) < 0)
				return r;
			w->packed = v & 1;
			if (p + 4 <= off + len) {
				if ((r = walk_num(w, p, 4, &v)) < 0)
					return r;
				if (v > DAT_MAX_CPUS || v * 20 > off + len - (p + 4))
					return walk_fail(w, "a buffer in it declares more CPUs than it holds");
				for (uint64_t i = 0; i < v; i++) {
					uint64_t cpu, at, n;

					if ((r = walk_num(w, p + 4 + 20 * i, 4, &cpu)) < 0 ||
					    (r = walk_num(w, p + 8 + 20 * i, 8, &at)) < 0 ||
					    (r = walk_num(w, p + 16 + 20 * i, 8, &n)) < 0)
						return r;
					if (cpu >= DAT_MAX_CPUS)
						return walk_fail(w, "it declares more CPUs than a kernel has");
					if (n && (r = walk_cpu_data(w, at, n)) < 0)
						return r;
				}
			}
		}
		off += len;
	}
}

/*
 * The page header's format, @len bytes at @off: libtracecmd refuses a page whose time
 * stamp is not 8 bytes, on the same bad path as walk_cpu_data()'s, so it is parsed here
 * the way libtracecmd will (libtraceevent), before.
 */
static int walk_page_header(struct dat_walk *w, uint64_t off, uint64_t len)
{
	struct tep_handle *tep;
	char *text;
	int r, ts;

	if (len == 0)
		return 0;	/* none: libtraceevent takes the kernel's default, 8 */
	text = malloc(len + 1);
	tep = tep_alloc();
	r = text && tep ? walk_read(w, off, text, len) : -ENOMEM;
	if (r == 0) {
		text[len] = '\0';
		ts = tep_parse_header_page(tep, text, len, w->long_size) < 0 ? 0
			: tep_get_header_timestamp_size(tep);
		if (ts != 8)
			r = walk_fail(w, "its page header's format has no 8-byte time stamp");
	}
	tep_free(tep);
	free(text);
	return r;
}

static size_t ident_len(const char *p, const char *end)
{
	const char *q = p;

	while (q < end && (*q == '_' || (*q >= '0' && *q <= '9') ||
			   ((*q | 0x20) >= 'a' && (*q | 0x20) <= 'z')))
		q++;
	return (size_t)(q - p);
}

/*
 * An event's format, @len bytes at @off: libtraceevent 1.7.1's parser dereferences NULL
 * on a byte outside printable ASCII in a field's declaration, and when __print_flags()
 * in the print format names a field the event does not have, so
 * every "REC->name" there must be one of its "field:... name;" lines, as the kernel
 * writes them (the print format is made from the same struct).
 */
static int walk_format(struct dat_walk *w, uint64_t off, uint64_t len)
{
	struct { const char *s; size_t n; } names[256];
	size_t nnames = 0;
	char *text = malloc(len + 1), *end, *fmt, *p;
	int r = text ? walk_read(w, off, text, len) : -ENOMEM;

	if (r < 0)
		goto out;
	/* the kernel writes formats in printable ASCII; libtraceevent's tokenizer trips on
	 * other bytes */
	for (size_t i = 0; i < len; i++)
		if (((unsigned char)text[i] < 0x20 || (unsigned char)text[i] > 0x7e) &&
		    text[i] != '\t' && text[i] != '\n') {
			r = walk_fail(w, "an event's format in it has bytes no kernel writes");
			goto out;
		}
	text[len] = '\0';
	fmt = strstr(text, "print fmt:");
	if (!fmt)
		goto out;
	for (p = text; (p = strstr(p, "field:")) && p < fmt; p++) {
		char *semi = memchr(p, ';', (size_t)(fmt - p)), *q;

		if (!semi)
			break;
		/* "field:TYPE NAME;" or "NAME[N];" ("__data_loc char[] NAME;" too) */
		q = semi;
		if (q[-1] == ']')
			while (q > p && *q != '[')
				q--;
		end = q;
		while (q > p && ident_len(q - 1, end) > 0)
			q--;
		if (nnames == sizeof(names) / sizeof(names[0]))
			goto out;	/* more than an event has: not checked */
		names[nnames].s = q;
		names[nnames++].n = (size_t)(end - q);
	}
	end = text + strlen(text);
	for (p = fmt; (p = strstr(p, "REC->")); p++) {
		size_t n = ident_len(p + 5, end), i;

		for (i = 0; i < nnames; i++)
			if (names[i].n == n && memcmp(names[i].s, p + 5, n) == 0)
				break;
		if (i == nnames) {
			r = walk_fail(w, "an event's print format in it names a field the event does not have");
			goto out;
		}
	}
out:
	free(text);
	return r;
}

/*
 * The metadata section @id (15 to 21; version 6 has them one after another, without
 * section headers) at @off: every size in it must fit. *ret_end: where it ends.
 */
static int walk_meta(struct dat_walk *w, uint64_t off, uint64_t id, uint64_t *ret_end)
{
	uint64_t n, m, len;
	size_t sl;
	int r;

	switch (id) {
	case 16:	/* "header_page", "header_event", each with its 8-byte size */
		for (size_t i = 0; i < 2; i++) {
			if ((r = walk_str(w, off, &sl)) < 0 || (r = walk_num(w, off + sl, 8, &len)) < 0 ||
			    (r = walk_fits(w, off + sl + 8, len)) < 0 ||
			    (i == 0 && (r = walk_page_header(w, off + sl + 8, len)) < 0))
				return r;
			off += sl + 8 + len;
		}
		break;
	case 17:	/* ftrace's formats: a count, each with its 8-byte size */
	case 18:	/* the systems: a count, each a name and a count of formats as above */
		if ((r = walk_num(w, off, 4, &n)) < 0)
			return r;
		off += 4;
		for (uint64_t i = 0; i < n; i++) {
			m = 1;
			if (id == 18) {
				if ((r = walk_str(w, off, &sl)) < 0 || (r = walk_num(w, off + sl, 4, &m)) < 0)
					return r;
				off += sl + 4;
			}
			for (uint64_t j = 0; j < m; j++) {
				if ((r = walk_num(w, off, 8, &len)) < 0 ||
				    (r = walk_fits(w, off + 8, len)) < 0 || (r = walk_format(w, off + 8, len)) < 0)
					return r;
				off += 8 + len;
			}
		}
		break;
	case 19:	/* kallsyms and trace_printk's formats: 4-byte sizes */
	case 20:
	case 21:	/* the command lines: 8 */
		sl = id == 21 ? 8 : 4;
		if ((r = walk_num(w, off, sl, &len)) < 0 || (r = walk_fits(w, off + sl, len)) < 0)
			return r;
		off += sl + len;
		break;
	}
	*ret_end = off;
	return 0;
}

/* Version 7's compressed section @id: @csize bytes at @off inflated to @rsize, walked */
static int walk_inflated(struct dat_walk *w, uint64_t off, uint64_t csize, uint64_t rsize,
			 uint64_t id)
{
	struct dat_walk in = { .codec = DAT_PLAIN, .long_size = w->long_size };
	unsigned char *dst;
	uint64_t end;
	size_t n;
	int r;

	/*
	 * Debian's libtracecmd inflates zstd only (trace-cmd list -c); one built with zlib
	 * too would read a zlib section's sizes unchecked here
	 */
	if (w->codec != DAT_ZSTD)
		return 0;
	r = walk_zstd_frame(w, off, csize, rsize, "a compressed section in it does not inflate",
			    &dst, &n);
	if (r < 0)
		return r;
	in.mem = dst;
	in.size = n;
	r = walk_meta(&in, 0, id, &end);
	if (r < 0)
		w->why = in.why;
	free(dst);
	return r;
}

/* Version 7's section at @off: its size, and a compressed one's inflated size */
static int walk_section(struct dat_walk *w, uint64_t off, uint64_t *ret_id, uint64_t *ret_flags,
			uint64_t *ret_size)
{
	uint64_t csize, rsize;
	int r;

	if ((r = walk_num(w, off, 2, ret_id)) < 0 || (r = walk_num(w, off + 2, 2, ret_flags)) < 0 ||
	    (r = walk_num(w, off + 8, 8, ret_size)) < 0)
		return r;
	if ((r = walk_fits(w, off + 16, *ret_size)) < 0)
		return r;
	/*
	 * TRACECMD_SEC_FL_COMPRESS on a section that is one compressed block (the strings,
	 * headers, formats, kallsyms, printk formats, command lines: ids 15 to 21; a
	 * buffer's data is in chunks of its own): compressed and inflated sizes, 4 bytes each
	 */
	if ((*ret_flags & 1) && *ret_id >= 15 && *ret_id <= 21) {
		if ((r = walk_num(w, off + 16, 4, &csize)) < 0 ||
		    (r = walk_num(w, off + 20, 4, &rsize)) < 0)
			return r;
		if (csize > *ret_size || rsize > (csize + 64) * DAT_MAX_RATIO)
			return walk_fail(w, "a compressed section in it inflates beyond what it holds");
		return walk_inflated(w, off + 24, csize, rsize, *ret_id);
	}
	if (*ret_id >= 15 && *ret_id <= 21)
		return walk_meta(w, off + 16, *ret_id, &csize);
	return 0;
}

/*
 * Version 7: the sections one after another from @off (libtracecmd looks for its
 * strings that way), then the chain of options sections from @options, as libtracecmd
 * follows it.
 */
static int walk_v7(struct dat_walk *w, uint64_t off, uint64_t options)
{
	uint64_t id, flags, size;
	int r;

	while (off + 16 <= w->size) {
		if ((r = walk_section(w, off, &id, &flags, &size)) < 0)
			return r;
		off += 16 + size;
	}
	for (int hops = 0; options; hops++) {
		if (hops == DAT_MAX_HOPS)
			return walk_fail(w, "its options sections go round in a circle");
		if ((r = walk_section(w, options, &id, &flags, &size)) < 0)
			return r;
		/* trace-cmd never compresses options, whose sizes could not be checked then */
		if (flags & 1)
			return walk_fail(w, "its options are compressed (trace-cmd writes them plain)");
		if ((r = walk_options(w, options + 16, options + 16 + size, true, &options)) < 0)
			return r;
	}
	return 0;
}

/* Versions up to 6: the metadata one after another, then the CPU count and the options */
static int walk_v6(struct dat_walk *w, uint64_t off)
{
	uint64_t n;
	int r;

	for (uint64_t id = 16; id <= 21; id++)
		if ((r = walk_meta(w, off, id, &off)) < 0)
			return r;
	/* the CPUs: each has its offset and size (16 bytes) in the flyrecord */
	if ((r = walk_num(w, off, 4, &n)) < 0)
		return r;
	if (n > DAT_MAX_CPUS || n * 16 > w->size)
		return walk_fail(w, "it declares more CPUs than it holds");
	w->cpus = n;
	/* "options  \0", the options, "flyrecord\0" and each CPU's offset and size */
	return walk_v6_data(w, off + 4);
}

int tracedat_check_sizes(int fd, const char **ret_why)
{
	struct dat_walk w = { .fd = fd };
	unsigned char head[TRACEDAT_MAGIC_LEN], ver[16] = { 0 }, order;
	char name[8] = { 0 };
	uint64_t off, options;
	struct stat sb;
	size_t n;
	int r;

	if (fstat(fd, &sb) < 0)
		return -errno;
	w.size = (uint64_t)sb.st_size;
	if (walk_read(&w, 0, head, sizeof(head)) < 0 || !tracedat_sniff(head, sizeof(head)))
		return 0;	/* libtracecmd refuses it, with nothing allocated */
	off = TRACEDAT_MAGIC_LEN;
	/* the version as a string, the byte order (1: big endian), long size, page size */
	if ((r = walk_str(&w, off, &n)) < 0 || (r = walk_read(&w, off, ver, MIN(n, sizeof(ver) - 1))) < 0)
		goto out;
	off += n;
	if ((r = walk_read(&w, off, &order, 1)) < 0)
		goto out;
	w.big_endian = order != 0;
	if ((r = walk_read(&w, off + 1, &order, 1)) < 0 || (r = walk_page_size(&w, off + 2)) < 0 ||
	    (r = walk_num(&w, off + 2, 4, &w.page_size)) < 0)
		goto out;
	w.long_size = order == 8 ? 8 : 4;
	off += 6;
	if (strtol((const char *)ver, NULL, 10) < 7) {
		r = walk_v6(&w, off);
		goto out;
	}
	/* the compression's name and version, then the first options section's offset */
	if ((r = walk_str(&w, off, &n)) < 0 || (r = walk_read(&w, off, name, MIN(n, sizeof(name)))) < 0)
		goto out;
	w.codec = strcmp(name, "zstd") == 0 ? DAT_ZSTD : strcmp(name, "none") == 0 ? DAT_PLAIN
									: DAT_UNKNOWN;
	off += n;
	if ((r = walk_str(&w, off, &n)) < 0)
		goto out;
	off += n;
	if ((r = walk_num(&w, off, 8, &options)) < 0)
		goto out;
	r = walk_v7(&w, off + 8, options);
out:
	if (r < 0)
		*ret_why = w.why ? w.why : "unreadable";
	return r;
}
