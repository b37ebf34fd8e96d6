/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <tracefs.h>

#include "util/macro.h"
#include "instance.h"
#include "raw.h"
#include "text.h"

/* --- reading the buffers ------------------------------------------------------------ */

struct ktrace_raw {
	struct tep_handle *tep;
	unsigned int ncpus;
	struct tracefs_cpu **cpu;
	int *fd;
	int subbuf;
	void *buf;
	bool *behind;
};

/* One event's format ("syscalls/sys_enter_finit_module") into @tep; a bad one is skipped */
static void load_format(struct tep_handle *tep, int tfd, const char *sys, const char *event)
{
	char rel[300], *buf = NULL;
	size_t len;

	snprintf(rel, sizeof(rel), "events/%s/%s/format", sys, event);
	if (ktrace_read_file(tfd, rel, 1u << 20, &buf, &len) == 0 && len)
		tep_parse_event(tep, buf, len, sys);
	free(buf);
}

/* Every event of a system (ftrace's, a kprobe group's: a few dozen at most) */
static void load_system(struct tep_handle *tep, int tfd, const char *sys)
{
	char rel[300];
	struct dirent *de;
	DIR *d;
	int fd;

	snprintf(rel, sizeof(rel), "events/%s", sys);
	fd = openat(tfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && (de->d_type == DT_DIR || de->d_type == DT_UNKNOWN))
			load_format(tep, tfd, sys, de->d_name);
	closedir(d);
}

/*
 * The formats of what is traced, and no more: libtracefs' loader takes every event of
 * each system (the syscalls system alone has some 700, seconds to read and parse under
 * emulation) and /proc/kallsyms, which the caller reads once itself
 */
static struct tep_handle *load_formats(int tfd, const char *tracefs_path, unsigned int ncpus,
				       const char *const *formats)
{
	struct tep_handle *tep = tep_alloc();
	char *buf = NULL;
	size_t len;

	if (!tep)
		return NULL;
	/* the sub-buffer's layout: without it no page can be read */
	if (ktrace_read_file(tfd, "events/header_page", 1u << 20, &buf, &len) < 0 || !len ||
	    tep_parse_header_page(tep, buf, len, sizeof(long)) < 0) {
		free(buf);
		tep_free(tep);
		return NULL;
	}
	free(buf);
	for (size_t i = 0; formats[i]; i++) {
		const char *sl = strchr(formats[i], '/');
		char sys[64];

		if (!sl) {
			load_system(tep, tfd, formats[i]);
			continue;
		}
		if ((size_t)(sl - formats[i]) >= sizeof(sys))
			continue;
		snprintf(sys, sizeof(sys), "%.*s", (int)(sl - formats[i]), formats[i]);
		load_format(tep, tfd, sys, sl + 1);
	}
	/* best effort, as libtracefs: task names and trace_printk()'s formats */
	tracefs_load_cmdlines(tracefs_path, tep);
	buf = NULL;
	if (ktrace_read_file(tfd, "printk_formats", 16u << 20, &buf, &len) == 0 && len)
		tep_parse_printk_formats(tep, buf);
	free(buf);
	tep_set_cpus(tep, (int)ncpus);
	tep_set_long_size(tep, tep_get_header_page_size(tep));
	return tep;
}

int ktrace_raw_open(int tfd, const char *tracefs_path, const char *inst_path,
		     unsigned int ncpus, const char *const *formats, struct ktrace_raw **ret,
		     const char **reterr_why)
{
	struct ktrace_raw *r;
	char rel[300];

	if (!ncpus || ncpus > 65536) {
		*reterr_why = "no per-CPU buffers";
		return -ENOENT;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->ncpus = ncpus;
	/* the formats (and header_page, the sub-buffer's layout) of what is traced */
	r->tep = load_formats(tfd, tracefs_path, ncpus, formats);
	if (!r->tep) {
		*reterr_why = "the event formats cannot be read";
		free(r);
		return -EINVAL;
	}
	r->subbuf = tep_get_sub_buffer_size(r->tep);
	if (r->subbuf <= 0)
		r->subbuf = tep_get_page_size(r->tep);
	if (r->subbuf <= 0 || r->subbuf > (1 << 20))
		r->subbuf = getpagesize();
	r->cpu = calloc(ncpus, sizeof(*r->cpu));
	r->fd = calloc(ncpus, sizeof(*r->fd));
	r->buf = malloc((size_t)r->subbuf);
	r->behind = calloc(ncpus, sizeof(*r->behind));
	if (!r->cpu || !r->fd || !r->buf || !r->behind) {
		ktrace_raw_free(r);
		return -ENOMEM;
	}
	for (unsigned int c = 0; c < ncpus; c++) {
		snprintf(rel, sizeof(rel), "%s/per_cpu/cpu%u/trace_pipe_raw", inst_path, c);
		r->fd[c] = openat(tfd, rel, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		/* a gap in the CPU numbers (offline, not possible): nothing to read there */
		if (r->fd[c] < 0)
			continue;
		r->cpu[c] = tracefs_cpu_alloc_fd(r->fd[c], r->subbuf, true);
		if (!r->cpu[c]) {
			ktrace_raw_free(r);
			return -ENOMEM;
		}
	}
	*ret = r;
	return 0;
}

struct ktrace_raw *ktrace_raw_free(struct ktrace_raw *r)
{
	if (!r)
		return NULL;
	for (unsigned int c = 0; c < r->ncpus && r->cpu; c++) {
		if (r->cpu[c])
			tracefs_cpu_free_fd(r->cpu[c]);
		if (r->fd && r->fd[c] > 0)
			close(r->fd[c]);
	}
	free(r->cpu);
	free(r->fd);
	free(r->buf);
	free(r->behind);
	tep_free(r->tep);
	free(r);
	return NULL;
}

struct tep_handle *ktrace_raw_tep(const struct ktrace_raw *r)
{
	return r->tep;
}

unsigned int ktrace_raw_ncpus(const struct ktrace_raw *r)
{
	return r->ncpus;
}

int ktrace_raw_kallsyms(struct ktrace_raw *r, const char *text)
{
	return tep_parse_kallsyms(r->tep, text) < 0 ? -EINVAL : 0;
}

const bool *ktrace_raw_behind(const struct ktrace_raw *r)
{
	return r->behind;
}

int ktrace_raw_read(struct ktrace_raw *r, ktrace_raw_page_fn page, void *userdata,
		     unsigned int max_pages)
{
	int any = 0;

	for (unsigned int c = 0; c < r->ncpus; c++) {
		unsigned int i;

		for (i = 0; r->cpu[c] && i < max_pages; i++) {
			int n = tracefs_cpu_read(r->cpu[c], r->buf, true);
			int q;

			if (n < 0) {
				if (errno == EINTR || errno == EAGAIN)
					break;
				return -errno;
			}
			if (n == 0)
				break;
			any = 1;
			q = page(userdata, c, r->buf, (size_t)n);
			if (q < 0)
				return q;
		}
		r->behind[c] = r->cpu[c] && i == max_pages;
	}
	return any;
}

/* --- decoding pages ------------------------------------------------------------------ */

struct raw_page {
	unsigned int refs;
	size_t len;
	unsigned char data[];
};

/*
 * A record waiting for its turn: its page held, decoded again when it goes out (what
 * the decoder gives points into the decoder, valid until its next call)
 */
struct raw_item {
	struct tep_record rec;
	struct raw_page *page;		/* NULL: a LOST item */
	struct ktrace_frame *frames;
	size_t n_frames;
	int pid;
	bool may_get_stack;		/* a vmap allocation: a stack entry may follow */
	uint64_t lost;
	bool lost_uncounted;
};

struct raw_cpu {
	struct raw_item *q;
	size_t head, n, cap;
	uint64_t last;			/* ns of the last record decoded */
};

struct raw_stream {
	struct tep_handle *tep;
	struct ktrace_decoder *d;
	struct kbuffer *kbuf;
	bool long8, big;		/* the kernel's long and byte order, as kbuf reads them */
	struct raw_cpu *cpus;
	unsigned int ncpus;
	struct raw_stream_ops ops;
	void *userdata;
	struct ktrace_stats st;
	uint64_t newest;		/* ns */
	/* the newest before the last round of reads began (raw_stream_round()) */
	uint64_t round_mark;
	bool rounds;
};

int raw_stream_new(struct tep_handle *tep, ktrace_comm_fn comm, void *comm_userdata,
		   unsigned int ncpus, const struct raw_stream_ops *ops, void *userdata,
		   struct raw_stream **ret)
{
	struct raw_stream *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	s->tep = tep;
	s->ncpus = ncpus ? ncpus : 1;
	s->ops = *ops;
	s->userdata = userdata;
	s->st.ncpus = (int)ncpus;
	s->st.entries = s->st.written = -1;
	s->cpus = calloc(s->ncpus, sizeof(*s->cpus));
	s->long8 = tep_get_long_size(tep) != 4;
	s->big = tep_is_file_bigendian(tep);
	s->kbuf = kbuffer_alloc(s->long8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
				s->big ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
	r = s->cpus && s->kbuf ? ktrace_decoder_new(tep, comm, comm_userdata, &s->d) : -ENOMEM;
	if (r < 0) {
		raw_stream_free(s);
		return r;
	}
	if (tep_is_old_format(tep))
		kbuffer_set_old_format(s->kbuf);
	*ret = s;
	return 0;
}

static void item_done(struct raw_item *it)
{
	if (it->page && --it->page->refs == 0)
		free(it->page);
	free(it->frames);
	memset(it, 0, sizeof(*it));
}

struct raw_stream *raw_stream_free(struct raw_stream *s)
{
	if (!s)
		return NULL;
	for (unsigned int c = 0; s->cpus && c < s->ncpus; c++) {
		struct raw_cpu *q = &s->cpus[c];

		for (size_t i = 0; i < q->n; i++)
			item_done(&q->q[(q->head + i) % q->cap]);
		free(q->q);
	}
	free(s->cpus);
	if (s->kbuf)
		kbuffer_free(s->kbuf);
	ktrace_decoder_free(s->d);
	free(s);
	return NULL;
}

const struct ktrace_stats *raw_stream_stats(const struct raw_stream *s)
{
	return &s->st;
}

static struct raw_item *push(struct raw_cpu *q)
{
	if (q->n == q->cap) {
		size_t ncap = q->cap ? q->cap * 2 : 64;
		struct raw_item *nq = malloc(ncap * sizeof(*nq));

		if (!nq)
			return NULL;
		for (size_t i = 0; i < q->n; i++)
			nq[i] = q->q[(q->head + i) % q->cap];
		free(q->q);
		q->q = nq;
		q->head = 0;
		q->cap = ncap;
	}
	return &q->q[(q->head + q->n++) % q->cap];
}

static struct raw_item *last(struct raw_cpu *q)
{
	return q->n ? &q->q[(q->head + q->n - 1) % q->cap] : NULL;
}

static int emit_item(struct raw_stream *s, struct raw_item *it)
{
	struct ktrace_event ev;

	if (it->page) {
		/* it decoded once: the same record decodes the same */
		ktrace_decoder_decode(s->d, &it->rec, &ev);
		ev.frames = it->frames;
		ev.n_frames = it->n_frames;
	} else {
		memset(&ev, 0, sizeof(ev));
		ev.kind = KTRACE_EV_LOST;
		ev.cpu = (unsigned int)it->rec.cpu;
		ev.ts_ns = it->rec.ts;
		ev.lost.count = it->lost;
		ev.lost.uncounted = it->lost_uncounted;
		s->st.lost_events += it->lost;
		s->st.lost_uncounted += it->lost_uncounted;
	}
	s->st.events++;
	s->st.by_kind[ev.kind]++;
	if (ev.kind == KTRACE_EV_UNKNOWN)
		s->st.unknown++;
	return s->ops.event ? s->ops.event(s->userdata, &ev, it->page ? &it->rec : NULL) : 0;
}

/* Emits in time order what is older than @until (all: everything). */
static int emit(struct raw_stream *s, bool all, uint64_t until)
{
	for (;;) {
		struct raw_cpu *best = NULL;
		struct raw_item *it;
		int r;

		for (unsigned int c = 0; c < s->ncpus; c++) {
			struct raw_cpu *q = &s->cpus[c];

			if (q->n && (!best || q->q[q->head].rec.ts < best->q[best->head].rec.ts))
				best = q;
		}
		if (!best)
			return 0;
		it = &best->q[best->head];
		if (!all && it->rec.ts >= until)
			return 0;
		r = emit_item(s, it);
		item_done(it);
		best->head = (best->head + 1) % best->cap;
		best->n--;
		if (r < 0)
			return r;
	}
}

static int attach_stack(struct raw_stream *s, struct raw_cpu *q, int pid)
{
	struct raw_item *prev = last(q);
	const struct ktrace_frame *fr;
	size_t n;

	fr = ktrace_decoder_frames(s->d, &n);
	if (!prev || prev->frames || prev->pid != pid || !prev->may_get_stack) {
		s->st.orphan_stacks++;
		return 0;
	}
	prev->frames = n ? malloc(n * sizeof(*fr)) : NULL;
	if (n && !prev->frames)
		return -ENOMEM;
	if (n)
		memcpy(prev->frames, fr, n * sizeof(*fr));
	prev->n_frames = n;
	prev->may_get_stack = false;
	s->st.stacks++;
	s->st.frames += n;
	return 0;
}

/* kbuffer's reading of a page header (kbuffer-parse.c): the flags beside the size */
#define PAGE_COMMIT_MASK ((1u << 27) - 1)
#define PAGE_MISSED_EVENTS (1ull << 31)
#define PAGE_MISSED_STORED (1ull << 30)
/* the most a record's header (type_len_ts, then a 32-bit length) is read past its start */
#define PAGE_SLACK 8

/*
 * kbuffer_load_subbuffer() is given no length: it trusts the page's commit size and
 * reads the lost-event count stored after the data. Both must lie inside @len first.
 */
static bool page_header_fits(const struct raw_stream *s, const unsigned char *p, size_t len)
{
	size_t lsize = s->long8 ? 8 : 4, start = 8 + lsize, size;
	uint64_t flags = 0;

	if (len < start)
		return false;
	for (size_t i = 0; i < lsize; i++) {
		unsigned int b = s->big ? p[8 + i] : p[8 + lsize - 1 - i];

		flags = flags << 8 | b;
	}
	size = (size_t)(flags & PAGE_COMMIT_MASK);
	if (size > len - start)
		return false;
	if ((flags & PAGE_MISSED_EVENTS) && (flags & PAGE_MISSED_STORED) &&
	    lsize > len - start - size)
		return false;
	return true;
}

/*
 * libtraceevent reads a record's fields where its format puts them, whatever the
 * record's size: a field past the end is read past it, and a string's length comes out
 * negative (malloc(4 GiB) in tep_print_event()). Every field, and what a __data_loc or
 * __rel_loc one points to, must lie inside the record.
 */
static bool fields_fit(const struct tep_handle *tep, struct tep_format_field *f,
		       const struct tep_record *rec)
{
	for (; f; f = f->next) {
		unsigned long long v, off, dlen;

		if (f->offset < 0 || f->size < 0 || f->offset > rec->size)
			return false;
		/*
		 * the last field, an array, holds what the record has room for: a stack of
		 * fewer frames than caller[8], a marker's text
		 */
		if (f->offset + f->size > rec->size && !(!f->next && (f->flags & TEP_FIELD_IS_ARRAY)))
			return false;
		if (!(f->flags & TEP_FIELD_IS_DYNAMIC))
			continue;
		if (f->size != 4)
			return false;
		v = tep_read_number((struct tep_handle *)tep, (char *)rec->data + f->offset, 4);
		off = v & 0xffff;
		dlen = v >> 16;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += (unsigned long long)(f->offset + f->size);
		if (off + dlen > (unsigned long long)rec->size)
			return false;
	}
	return true;
}

static bool record_fits(struct tep_handle *tep, const struct tep_record *rec)
{
	struct tep_event *e = tep_find_event_by_record(tep, (struct tep_record *)rec);

	/* an id the formats do not have: tep-decode counts it, nothing reads its fields */
	if (!e)
		return true;
	return fields_fit(tep, e->format.common_fields, rec) &&
	       fields_fit(tep, e->format.fields, rec);
}

int raw_stream_page(struct raw_stream *s, unsigned int cpu, const void *data, size_t len)
{
	struct raw_page *pg;
	struct raw_cpu *q;
	unsigned long long ts;
	void *rd;
	int missed, r = 0;

	if (cpu >= s->ncpus || len < 16) {
		s->st.malformed++;
		if (s->ops.bad)
			s->ops.bad(s->userdata, "a page of a CPU the trace does not have, or cut short");
		return 0;
	}
	q = &s->cpus[cpu];
	if (!page_header_fits(s, data, len)) {
		s->st.malformed++;
		if (s->ops.bad)
			s->ops.bad(s->userdata, "a page whose header claims more than it holds");
		return 0;
	}
	/* zeros past the page: a record header at its very end is read whole, as zeros */
	pg = malloc(sizeof(*pg) + len + PAGE_SLACK);
	if (!pg)
		return -ENOMEM;
	pg->refs = 1;
	pg->len = len;
	memcpy(pg->data, data, len);
	memset(pg->data + len, 0, PAGE_SLACK);
	if (kbuffer_load_subbuffer(s->kbuf, pg->data) < 0 ||
	    (size_t)kbuffer_subbuffer_size(s->kbuf) > len) {
		s->st.malformed++;
		if (s->ops.bad)
			s->ops.bad(s->userdata, "a page the ring buffer's format does not read");
		free(pg);
		return 0;
	}
	missed = kbuffer_missed_events(s->kbuf);
	if (missed) {
		struct raw_item *it = push(q);

		if (!it) {
			free(pg);
			return -ENOMEM;
		}
		memset(it, 0, sizeof(*it));
		it->rec.cpu = (int)cpu;
		it->lost = missed > 0 ? (uint64_t)missed : 0;
		it->lost_uncounted = missed < 0;
		it->rec.ts = kbuffer_timestamp(s->kbuf);
	}
	for (rd = kbuffer_read_event(s->kbuf, &ts); rd; rd = kbuffer_next_event(s->kbuf, &ts)) {
		struct tep_record rec = { .ts = ts, .data = rd, .cpu = (int)cpu };
		struct ktrace_event ev;
		struct raw_item *it;
		int k;

		rec.size = kbuffer_event_size(s->kbuf);
		if (rec.size <= 0 || (unsigned char *)rd + rec.size > pg->data + len) {
			s->st.malformed++;
			break;
		}
		s->st.lines++;
		if (!record_fits(s->tep, &rec)) {
			s->st.malformed++;
			if (s->ops.bad)
				s->ops.bad(s->userdata, "a record shorter than its event's format");
			continue;
		}
		k = ktrace_decoder_decode(s->d, &rec, &ev);
		if (k == 1) {
			/* not an item: the frames of the one before */
			r = attach_stack(s, q, ev.pid);
			if (r < 0)
				break;
			continue;
		}
		if (k < 0 && s->ops.bad)
			s->ops.bad(s->userdata, "a record its event format does not decode");
		it = push(q);
		if (!it) {
			r = -ENOMEM;
			break;
		}
		memset(it, 0, sizeof(*it));
		it->rec = rec;
		it->page = pg;
		pg->refs++;
		it->pid = ev.pid;
		it->may_get_stack = ev.kind == KTRACE_EV_ALLOC_VMAP_AREA ||
				    ev.kind == KTRACE_EV_ALLOC_VMAP_AREA_KPROBE;
		if (ts > s->newest)
			s->newest = ts;
		if (ts > q->last)
			q->last = ts;
		if (s->ops.decoded) {
			r = s->ops.decoded(s->userdata, &ev);
			if (r < 0)
				break;
		}
	}
	if (--pg->refs == 0)
		free(pg);
	return r;
}

void raw_stream_round(struct raw_stream *s)
{
	s->round_mark = s->newest;
	s->rounds = true;
}

int raw_stream_flush(struct raw_stream *s, double age, const bool *behind)
{
	uint64_t margin = age > 0 ? (uint64_t)(age * 1e9) : 0, until;

	if (age < 0)
		return emit(s, true, 0);
	until = s->newest > margin ? s->newest - margin : 0;
	/*
	 * A CPU drained in the last round can only give events written after it was read,
	 * so after the round began: newer than anything seen before it. Newer ones may
	 * still come from a CPU read before a later one's events were written, however
	 * long the round took (a busy boot: seconds).
	 */
	if (s->rounds && s->round_mark < until)
		until = s->round_mark;
	for (unsigned int c = 0; behind && c < s->ncpus; c++)
		if (behind[c] && s->cpus[c].last < until)
			until = s->cpus[c].last;
	return emit(s, false, until);
}

/* --- back to text -------------------------------------------------------------------- */

/* @v in hex, at least @width digits, zero padded; returns the end */
static char *put_hex(char *p, uint64_t v, unsigned int width)
{
	char tmp[16];
	unsigned int n = 0;

	do {
		tmp[n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	while (n < width && n < sizeof(tmp))
		tmp[n++] = '0';
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* @v in decimal, at least @width columns: zero padded, or space padded on the @left */
static char *put_dec(char *p, uint64_t v, unsigned int width, char pad, bool left)
{
	char tmp[24];
	unsigned int n = 0, w;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	w = n;
	if (!left)
		for (; w < width; w++)
			*p++ = pad;
	while (n)
		*p++ = tmp[--n];
	if (left)
		for (; w < width; w++)
			*p++ = ' ';
	return p;
}

/*
 * "%16s-%-7d [%03u] %5llu.%06llu: " (trace_pipe's context columns), by hand: printf is
 * most of the cost of a line
 */
static char *put_context(char *p, const char *comm, int pid, unsigned int cpu,
			 unsigned long long us)
{
	size_t n = strlen(comm);

	for (size_t i = n; i < 16; i++)
		*p++ = ' ';
	memcpy(p, comm, n);
	p += n;
	*p++ = '-';
	if (pid < 0) {
		*p++ = '-';
		p = put_dec(p, (uint64_t)-(int64_t)pid, 6, ' ', true);
	} else {
		p = put_dec(p, (uint64_t)pid, 7, ' ', true);
	}
	*p++ = ' ';
	*p++ = '[';
	p = put_dec(p, cpu, 3, '0', false);
	*p++ = ']';
	*p++ = ' ';
	p = put_dec(p, us / 1000000, 5, ' ', false);
	*p++ = '.';
	p = put_dec(p, us % 1000000, 6, '0', false);
	*p++ = ':';
	*p++ = ' ';
	return p;
}

/* "REC->name" or "((unsigned long)(REC->name))": the field named, or NULL */
static const struct tep_format_field *arg_field(const struct tep_print_arg *a, bool cast)
{
	if (cast) {
		if (!a || a->type != TEP_PRINT_TYPE || !a->typecast.type ||
		    strcmp(a->typecast.type, "unsigned long") != 0)
			return NULL;
		a = a->typecast.item;
	}
	return a && a->type == TEP_PRINT_FIELD ? a->field.field : NULL;
}

static bool field_value(const struct tep_format_field *f, const struct tep_record *rec,
			uint64_t *ret)
{
	unsigned long long v;

	if (!f || f->size > 8 || (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING)) ||
	    tep_read_number_field((struct tep_format_field *)f, rec->data, &v) < 0)
		return false;
	/* a negative number would be widened as libtraceevent widens it: left to it */
	if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size < 8 && (v >> (f->size * 8 - 1)) & 1)
		return false;
	*ret = v;
	return true;
}

/*
 * The body of a syscall event as tep_print_event() prints it, where its format is the
 * one the kernel makes for every syscall (trace_syscalls.c): enter "a: 0x%08lx, b:
 * 0x%08lx" of ((unsigned long)(REC->a)), ..., exit "0x%lx" of REC->ret. Anything else
 * (a kernel that prints user strings, a plugin's handler): false, nothing written.
 */
static char *put_syscall(char *p, size_t room, const struct tep_event *e, const struct tep_record *rec)
{
	const char *f = e->print_fmt.format;
	const struct tep_print_arg *a = e->print_fmt.args;
	size_t n = strlen(e->name);
	uint64_t v;

	if (!f || e->handler || (e->flags & TEP_EVENT_FL_FAILED) || !e->system ||
	    strcmp(e->system, "syscalls") != 0 || n + 2 > room)
		return NULL;
	memcpy(p, e->name, n);
	p += n;
	*p++ = ':';
	*p++ = ' ';
	room -= n + 2;
	if (strcmp(f, "0x%lx") == 0) {
		if (!a || a->next || !field_value(arg_field(a, false), rec, &v) || room < 18)
			return NULL;
		*p++ = '0';
		*p++ = 'x';
		return put_hex(p, v, 1);
	}
	while (*f) {
		const char *colon = strchr(f, ':');
		const struct tep_format_field *fld;

		if (!colon || strncmp(colon, ": 0x%08lx", 9) != 0 || !a)
			return NULL;
		fld = arg_field(a, true);
		if (!fld || strlen(fld->name) != (size_t)(colon - f) ||
		    memcmp(fld->name, f, (size_t)(colon - f)) != 0 || !field_value(fld, rec, &v) ||
		    room < (size_t)(colon - f) + 24)
			return NULL;
		memcpy(p, f, (size_t)(colon - f) + 2);
		p += (colon - f) + 2;
		*p++ = '0';
		*p++ = 'x';
		p = put_hex(p, v, 8);
		room -= (size_t)(colon - f) + 24;
		f = colon + 9;
		a = a->next;
		if (!*f)
			break;
		if (strncmp(f, ", ", 2) != 0 || room < 2)
			return NULL;
		*p++ = ',';
		*p++ = ' ';
		room -= 2;
		f += 2;
	}
	return a ? NULL : p;
}

int raw_format_event(struct tep_handle *tep, struct trace_seq *s, const struct ktrace_event *ev,
		     const struct tep_record *rec, const char *comm)
{
	struct tep_event *e;
	char line[512], *p;
	unsigned long long us;
	unsigned int from;

	if (ev->kind == KTRACE_EV_LOST || !rec) {
		if (ev->lost.uncounted)
			trace_seq_printf(s, "CPU:%u [LOST EVENTS]\n", ev->cpu);
		else
			trace_seq_printf(s, "CPU:%u [LOST %" PRIu64 " EVENTS]\n", ev->cpu,
					 ev->lost.count);
		return s->state == TRACE_SEQ__MEM_ALLOC_FAILED ? -ENOMEM : 0;
	}
	/* ns2usecs(): trace_pipe rounds to the nearest microsecond */
	us = ((unsigned long long)rec->ts + 500) / 1000;
	if (!comm)
		comm = "<...>";
	/* the events of a storm (syscalls) written by hand, the rest by libtraceevent */
	e = !ev->n_frames && strlen(comm) <= 32 ? tep_find_event(tep, tep_data_type(tep, (struct tep_record *)rec))
						: NULL;
	if (e) {
		p = put_context(line, comm, ev->pid, ev->cpu, us);
		p = put_syscall(p, sizeof(line) - 1 - (size_t)(p - line), e, rec);
		if (p) {
			*p++ = '\n';
			*p = '\0';
			trace_seq_puts(s, line);
			return s->state == TRACE_SEQ__MEM_ALLOC_FAILED ? -ENOMEM : 0;
		}
	}
	trace_seq_printf(s, "%16s-%-7d [%03u] %5llu.%06llu: ", comm, ev->pid,
			 ev->cpu, us / 1000000, us % 1000000);
	from = s->len;
	tep_print_event(tep, s, (struct tep_record *)rec, "%s: %s", TEP_PRINT_NAME, TEP_PRINT_INFO);
	/*
	 * A marker's text ends in the newline trace_marker gave it; one inside it would
	 * end the line early (trace_pipe prints it as it is, a line the parser skips)
	 */
	while (s->len > from && (s->buffer[s->len - 1] == '\n' || s->buffer[s->len - 1] == '\r'))
		s->len--;
	for (unsigned int i = from; i < s->len; i++)
		if (s->buffer[i] == '\n' || s->buffer[i] == '\r')
			s->buffer[i] = ' ';
	trace_seq_putc(s, '\n');
	if (ev->n_frames) {
		trace_seq_printf(s, "%16s-%-7d [%03u] %5llu.%06llu: <stack trace>\n",
				 comm, ev->pid, ev->cpu, us / 1000000, us % 1000000);
		for (size_t i = 0; i < ev->n_frames; i++) {
			const struct ktrace_frame *fr = &ev->frames[i];

			if (fr->fn.text.len)
				trace_seq_printf(s, " => %.*s\n", (int)fr->fn.text.len, fr->fn.text.s);
			else
				trace_seq_printf(s, " => 0x%" PRIx64 "\n", fr->addr);
		}
	}
	return s->state == TRACE_SEQ__MEM_ALLOC_FAILED ? -ENOMEM : 0;
}

void raw_event_as_text(struct ktrace_event *ev, const char *comm, char *buf, size_t len)
{
	unsigned long long us;
	const struct ktrace_str *t = &ev->marker.text;

	if (ev->kind == KTRACE_EV_LOST) {
		/* "CPU:N [LOST M EVENTS]": the line has no time and no task */
		ev->pid = ev->tgid = -1;
		ev->ts_ns = 0;
		ev->ts = 0;
		return;
	}
	/* as raw_format_event() prints it: ns2usecs(), rounded */
	us = ((unsigned long long)ev->ts_ns + 500) / 1000;
	ev->ts_ns = us * 1000;
	ev->ts = (double)(ev->ts_ns / 1000000000ULL) + (double)(ev->ts_ns % 1000000000ULL) / 1e9;
	ev->ts_digits = 6;
	if (!comm)
		comm = "<...>";
	ev->comm = (struct ktrace_str){ comm, strlen(comm) };
	if (ev->kind == KTRACE_EV_MARKER && len &&
	    (memchr(t->s, '\n', t->len) || memchr(t->s, '\r', t->len))) {
		size_t n = t->len < len ? t->len : len - 1;

		memcpy(buf, t->s, n);
		buf[n] = '\0';
		for (size_t i = 0; i < n; i++)
			if (buf[i] == '\n' || buf[i] == '\r')
				buf[i] = ' ';
		ktrace_marker_set(ev, buf, n);
	}
}
