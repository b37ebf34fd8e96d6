/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gelf.h>
#include <libelf.h>
#include <lzma.h>
#define ZSTD_STATIC_LINKING_ONLY	/* ZSTD_getFrameHeader(): the window size */
#include <zstd.h>

#include "util/codec.h"
#include "util/io.h"
#include "util/macro.h"
#include "modfile.h"

/* What the kernel's layout works in (see modfile.h for the configuration assumed). */
#define KPAGE 4096u
/* include/linux/elf.h: the kernel-internal flag layout_and_allocate() sets */
#define KSHF_RO_AFTER_INIT 0x00200000ull
/* SH_ENTSIZE_TYPE_SHIFT is BITS_PER_LONG - 4: an unplaced section's ~0UL reads as type 15 */
#define KMEMT_UNPLACED 15

/* The index of a .ko.xz is a few dozen bytes; this only stops hostile ones. */
#define XZ_INDEX_MEMLIMIT (64ull << 20)
/* Decoding: real modules use a 1 MiB dictionary (scripts/Makefile.modinst). */
#define XZ_DECODE_MEMLIMIT (512ull << 20)

#define CHUNK (64u * 1024u)
/* The xz index reader seeks to the header, the footer and the index: read little. */
#define XZ_CHUNK 4096u

static void *mfree(void *p)
{
	free(p);
	return NULL;
}

/* ---- input: an open file or a buffer ------------------------------------------------ */

struct input {
	int fd;			/* -1: @mem */
	const uint8_t *mem;
	uint64_t size;
};

/* Up to @len bytes at @off into @buf; *ret_n is short only at end of input. */
static int input_pread(const struct input *in, uint64_t off, void *buf, size_t len,
		       size_t *ret_n)
{
	size_t done = 0;

	if (off >= in->size) {
		*ret_n = 0;
		return 0;
	}
	if (len > in->size - off)
		len = (size_t)(in->size - off);
	if (in->fd < 0) {
		memcpy(buf, in->mem + off, len);
		*ret_n = len;
		return 0;
	}
	while (done < len) {
		ssize_t n = pread(in->fd, (uint8_t *)buf + done, len - done, (off_t)(off + done));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	*ret_n = done;
	return 0;
}

/* Sequential chunks of an input, from @pos on. */
struct reader {
	const struct input *in;
	uint64_t pos;
	uint8_t *buf;		/* CHUNK bytes, for files only */
};

static int reader_init(struct reader *r, const struct input *in, uint64_t pos)
{
	r->in = in;
	r->pos = pos;
	r->buf = NULL;
	if (in->fd >= 0) {
		r->buf = malloc(CHUNK);
		if (!r->buf)
			return -ENOMEM;
	}
	return 0;
}

static void reader_done(struct reader *r)
{
	r->buf = mfree(r->buf);
}

/* The next chunk; *ret_n == 0 at the end. */
static int reader_next(struct reader *r, const uint8_t **ret_p, size_t *ret_n)
{
	size_t n;
	int err;

	if (r->pos >= r->in->size) {
		*ret_n = 0;
		return 0;
	}
	if (r->in->fd < 0) {
		*ret_p = r->in->mem + r->pos;
		n = (size_t)(r->in->size - r->pos);
	} else {
		err = input_pread(r->in, r->pos, r->buf, CHUNK, &n);
		if (err < 0)
			return err;
		if (n == 0)
			return -EIO;	/* shrank under us */
		*ret_p = r->buf;
	}
	r->pos += n;
	*ret_n = n;
	return 0;
}

static int read_whole(int fd, uint64_t size, uint8_t **ret)
{
	struct input in = { .fd = fd, .size = size };
	uint8_t *buf;
	size_t n;
	int err;

	if (size > SIZE_MAX - 1)
		return -EFBIG;
	buf = malloc(size ? (size_t)size : 1);
	if (!buf)
		return -ENOMEM;
	err = input_pread(&in, 0, buf, (size_t)size, &n);
	if (err == 0 && n != size)
		err = -EIO;
	if (err < 0) {
		free(buf);
		return err;
	}
	*ret = buf;
	return 0;
}

/* ---- output: keep the decompressed image, or only count it -------------------------- */

static const uint8_t elf_magic[] = { 0x7f, 'E', 'L', 'F' };

struct sink {
	bool keep;
	bool not_elf;		/* kept, but no ELF magic: only counted from then on */
	uint8_t *p;		/* keep: the image so far; count: CHUNK bytes of scratch */
	size_t cap;
	uint64_t n;		/* bytes produced */
	uint64_t max;
	uint64_t hint;		/* the size expected, allocated once the magic is seen */
};

static int sink_init(struct sink *s, bool keep, uint64_t hint, uint64_t max)
{
	memset(s, 0, sizeof(*s));
	s->keep = keep;
	s->max = max;
	s->hint = hint <= max ? hint : 0;
	/* a keeping sink starts small: an image that is no ELF file is never kept */
	s->cap = CHUNK;
	if (keep && s->cap > max + 1)
		s->cap = (size_t)max + 1;
	s->p = malloc(s->cap ? s->cap : 1);
	return s->p ? 0 : -ENOMEM;
}

static void sink_done(struct sink *s)
{
	s->p = mfree(s->p);
}

/* Where the next output goes, and how much fits there. */
static int sink_room(struct sink *s, uint8_t **ret_at, size_t *ret_room)
{
	if (!s->keep) {
		*ret_at = s->p;
		*ret_room = s->cap;
		return 0;
	}
	if (s->n == s->cap) {
		/* one byte past max tells "too big" from "exactly max" */
		size_t ncap = s->cap < SIZE_MAX / 2 ? s->cap * 2 : SIZE_MAX;
		uint8_t *np;

		if (s->n > s->max)
			return -EFBIG;
		if (ncap < s->hint)
			ncap = (size_t)s->hint;
		if (ncap > s->max + 1)
			ncap = (size_t)s->max + 1;
		np = realloc(s->p, ncap);
		if (!np)
			return -ENOMEM;
		s->p = np;
		s->cap = ncap;
	}
	*ret_at = s->p + s->n;
	*ret_room = s->cap - (size_t)s->n;
	return 0;
}

/* Counts @produced bytes (the decoder holds the cap); drops an image that is no ELF. */
static int sink_add(struct sink *s, size_t produced)
{
	uint64_t before = s->n;

	s->n += produced;
	/*
	 * No layout without the ELF magic (-ENOEXEC): the rest is only counted, so a bomb
	 * of zeros costs CHUNK bytes, not its size.
	 */
	if (s->keep && before < sizeof(elf_magic) && s->n >= sizeof(elf_magic) &&
	    memcmp(s->p, elf_magic, sizeof(elf_magic)) != 0) {
		uint8_t *np = realloc(s->p, CHUNK);

		if (!np)
			return -ENOMEM;
		s->p = np;
		s->cap = CHUNK;
		s->keep = false;
		s->not_elf = true;
	}
	return 0;
}

/* ---- format detection -------------------------------------------------------------- */

/* The format by magic (util/codec.c's table); one this build cannot decode is plain. */
static int sniff(const uint8_t *head, size_t n)
{
	enum codec_type t;

	if (codec_detect(head, n, &t, NULL) < 0)
		return MODFILE_PLAIN;
	switch (t) {
	case CODEC_XZ:
		return MODFILE_XZ;
	case CODEC_ZSTD:
		return MODFILE_ZSTD;
	case CODEC_GZIP:
		return MODFILE_GZIP;
	default:
		return MODFILE_PLAIN;
	}
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* The compression a file name promises, or -1 for none. */
static int comp_by_name(const char *path)
{
	if (ends_with(path, ".xz"))
		return MODFILE_XZ;
	if (ends_with(path, ".zst"))
		return MODFILE_ZSTD;
	if (ends_with(path, ".gz"))
		return MODFILE_GZIP;
	return -1;
}

/* kmod's name for a file: basename without .ko[.ext], '-' as '_' (modname_normalize). */
static void name_from_path(const char *path, char name[64])
{
	const char *b = strrchr(path, '/');
	size_t i;

	b = b ? b + 1 : path;
	for (i = 0; i < 63 && b[i] && b[i] != '.'; i++)
		name[i] = b[i] == '-' ? '_' : b[i];
	name[i] = '\0';
}

/* ---- xz ------------------------------------------------------------------------------ */

static int lzma_errno(lzma_ret lr)
{
	switch (lr) {
	case LZMA_MEM_ERROR:
		return -ENOMEM;
	case LZMA_MEMLIMIT_ERROR:
		return -EFBIG;
	default:
		return -EBADMSG;
	}
}

/* The LZMA2 dictionary in the block header at @off, 0 when the block has none. */
static int xz_block_dict(const struct input *in, uint64_t off, lzma_check check,
			 uint64_t *ret_dict)
{
	uint8_t hdr[LZMA_BLOCK_HEADER_SIZE_MAX];
	lzma_filter filters[LZMA_FILTERS_MAX + 1];
	lzma_block block = { 0 };
	size_t n, i;
	lzma_ret lr;
	int err;

	err = input_pread(in, off, hdr, sizeof(hdr), &n);
	if (err < 0)
		return err;
	if (n < 1 || hdr[0] == 0x00)	/* 0x00 starts the index, not a block */
		return -EBADMSG;
	block.version = 1;
	block.check = check;
	block.filters = filters;
	block.header_size = lzma_block_header_size_decode(hdr[0]);
	if (n < block.header_size)
		return -EBADMSG;
	lr = lzma_block_header_decode(&block, NULL, hdr);
	if (lr != LZMA_OK)
		return lzma_errno(lr);
	*ret_dict = 0;
	for (i = 0; filters[i].id != LZMA_VLI_UNKNOWN; i++) {
		/*
		 * xz_dec_lzma2_reset() vmallocs the size the props byte encodes; liblzma
		 * decodes the byte the same way (props 40, "4 GiB - 1", the kernel refuses).
		 */
		if (filters[i].id == LZMA_FILTER_LZMA2 && filters[i].options)
			*ret_dict = ((const lzma_options_lzma *)filters[i].options)->dict_size;
		free(filters[i].options);
	}
	return 0;
}

/*
 * Sizes of a .xz from its index, footer and block headers, decompressing nothing.
 * The kernel's module_xz_decompress() decodes the first stream only (it stops at
 * XZ_STREAM_END), so that is the stream measured; liblzma checks the index CRC.
 */
static int xz_sizes(const struct input *in, uint64_t *ret_size, uint64_t *ret_dict)
{
	lzma_stream strm = LZMA_STREAM_INIT;
	lzma_index *idx = NULL;
	lzma_index_iter it;
	uint8_t *buf = NULL;
	uint64_t pos = 0, size, dict = 0;
	lzma_check check;
	lzma_ret lr;
	int err = 0;

	lr = lzma_file_info_decoder(&strm, &idx, XZ_INDEX_MEMLIMIT, in->size);
	if (lr != LZMA_OK)
		return lzma_errno(lr);
	if (in->fd >= 0) {
		buf = malloc(XZ_CHUNK);
		if (!buf) {
			err = -ENOMEM;
			goto out;
		}
	}
	for (;;) {
		lzma_action action = LZMA_RUN;

		if (strm.avail_in == 0) {
			if (pos >= in->size) {
				action = LZMA_FINISH;
			} else if (in->fd < 0) {
				strm.next_in = in->mem + pos;
				strm.avail_in = (size_t)(in->size - pos);
				pos = in->size;
			} else {
				size_t n;

				err = input_pread(in, pos, buf, XZ_CHUNK, &n);
				if (err < 0)
					goto out;
				if (n == 0) {
					err = -EIO;
					goto out;
				}
				strm.next_in = buf;
				strm.avail_in = n;
				pos += n;
			}
		}
		lr = lzma_code(&strm, action);
		if (lr == LZMA_STREAM_END)
			break;
		if (lr == LZMA_SEEK_NEEDED) {
			pos = strm.seek_pos;
			strm.avail_in = 0;
			continue;
		}
		if (lr != LZMA_OK) {
			err = lzma_errno(lr);
			goto out;
		}
	}

	lzma_index_iter_init(&it, idx);
	if (lzma_index_iter_next(&it, LZMA_INDEX_ITER_STREAM)) {
		err = -EBADMSG;
		goto out;
	}
	size = it.stream.uncompressed_size;
	check = it.stream.flags ? it.stream.flags->check : LZMA_CHECK_NONE;
	lzma_index_iter_rewind(&it);
	while (!lzma_index_iter_next(&it, LZMA_INDEX_ITER_BLOCK) && it.stream.number == 1) {
		uint64_t d;

		err = xz_block_dict(in, it.block.compressed_file_offset, check, &d);
		if (err < 0)
			goto out;
		/* DYNALLOC reallocates only for a larger dictionary: the largest stays */
		if (d > dict)
			dict = d;
	}
	*ret_size = size;
	*ret_dict = dict;
out:
	lzma_end(&strm);
	lzma_index_end(idx, NULL);
	free(buf);
	return err;
}

/* ---- zstd ---------------------------------------------------------------------------- */

static int zstd_header(const struct input *in, ZSTD_frameHeader *ret)
{
	uint8_t hdr[ZSTD_FRAMEHEADERSIZE_MAX];
	size_t n, zr;
	int err;

	err = input_pread(in, 0, hdr, sizeof(hdr), &n);
	if (err < 0)
		return err;
	zr = ZSTD_getFrameHeader(ret, hdr, n);
	if (ZSTD_isError(zr) || zr > 0)		/* > 0: truncated header */
		return -EBADMSG;
	if (ret->frameType != ZSTD_frame)
		return -EBADMSG;
	return 0;
}

/* ---- gzip ---------------------------------------------------------------------------- */

/* ---- decoding (util/codec.c) ---------------------------------------------------------- */

/*
 * Streams the first stream, frame or member of @in into @s: module_xz_decompress(),
 * module_zstd_decompress() and module_gzip_decompress() stop at its end, and the gzip
 * one reads the deflate data after the header without checking the trailer's CRC or
 * ISIZE (which is the size mod 2^32, and a file can lie). The output is capped at
 * @s->max: -EFBIG past it. xz, zstd and gzip check what their format checks.
 */
static int decode_first(const struct input *in, int comp, struct sink *s)
{
	static const enum codec_type types[] = {
		[MODFILE_XZ] = CODEC_XZ, [MODFILE_ZSTD] = CODEC_ZSTD, [MODFILE_GZIP] = CODEC_GZIP,
	};
	struct codec_options o = { .max_out = s->max, .xz_memlimit = XZ_DECODE_MEMLIMIT,
				   .flags = comp == MODFILE_GZIP ? CODEC_NO_TRAILER : 0 };
	struct codec_decoder *dec = NULL;
	const uint8_t *p = NULL;
	struct reader r;
	size_t n = 0;
	bool end = false;
	int err;

	err = reader_init(&r, in, 0);
	if (err < 0)
		return err;
	err = codec_decoder_new(types[comp], &o, &dec);
	while (err == 0) {
		uint8_t *at;
		size_t room, got;

		if (n == 0 && !end) {
			err = reader_next(&r, &p, &n);
			if (err < 0)
				break;
			end = r.pos >= in->size;
		}
		err = sink_room(s, &at, &room);
		if (err < 0)
			break;
		err = codec_decode(dec, &p, &n, end, at, room, &got);
		if (err >= 0 && sink_add(s, got) < 0)
			err = -ENOMEM;
	}
	codec_decoder_free(dec);
	reader_done(&r);
	return err == 1 ? 0 : err;
}

/* ISIZE, the trailer's size hint (mod 2^32): only used to size the first buffer. */
static uint64_t gzip_isize_hint(const struct input *in)
{
	uint8_t t[4];
	size_t n;

	if (in->size < 18 || input_pread(in, in->size - 4, t, 4, &n) < 0 || n != 4)
		return 0;
	return (uint64_t)t[0] | (uint64_t)t[1] << 8 | (uint64_t)t[2] << 16 |
	       (uint64_t)t[3] << 24;
}

/* ---- the kernel's layout ------------------------------------------------------------- */

struct ksec {
	uint64_t flags;		/* as the kernel has rewritten them before layout */
	uint64_t size, align;
	const char *name;
	int type64;		/* 6.4+: mod_mem_type placed in, KMEMT_UNPLACED */
	bool placed_pre, init_pre;	/* <=6.3: sh_entsize set, INIT_OFFSET_MASK in it */
};

/* ALIGN() as the kernel computes it: in typeof(size), unsigned int. */
static uint32_t kalign(uint32_t x, uint64_t a)
{
	uint32_t mask = (uint32_t)(a ? a : 1) - 1;

	return (x + mask) & ~mask;
}

/* module_get_offset() / module_get_offset_and_type() with arch_mod_section_prepend() 0 */
static void kplace(uint32_t *size, const struct ksec *s)
{
	*size = (uint32_t)(kalign(*size, s->align) + s->size);
}

static bool module_init_layout_section(const char *name)
{
	/* CONFIG_MODULE_UNLOAD=y: .exit* is core; module_init_section() is ".init" */
	return name && strncmp(name, ".init", 5) == 0;
}

static const uint64_t layout_masks[5][2] = {
	/* executable code first: the text size finder depends on it */
	{ SHF_EXECINSTR | SHF_ALLOC, 0 },
	{ SHF_ALLOC, SHF_WRITE },
	{ KSHF_RO_AFTER_INIT | SHF_ALLOC, 0 },
	{ SHF_WRITE | SHF_ALLOC, 0 },
	{ SHF_ALLOC, 0 },	/* ARCH_SHF_SMALL | SHF_ALLOC, ARCH_SHF_SMALL being 0 */
};

static bool mask_matches(const struct ksec *s, unsigned int m)
{
	return (s->flags & layout_masks[m][0]) == layout_masks[m][0] &&
	       !(s->flags & layout_masks[m][1]);
}

/* 6.4+ __layout_sections() (ac3b43283923), both passes. */
static void layout_sections_64(struct ksec *sec, size_t n, uint32_t sz[_MEMT_MAX])
{
	static const int core_m_to_mem_type[] = {
		MEMT_TEXT, MEMT_RODATA, MEMT_RO_AFTER_INIT, MEMT_DATA, MEMT_DATA,
	};
	static const int init_m_to_mem_type[] = {
		MEMT_INIT_TEXT, MEMT_INIT_RODATA, -1, MEMT_INIT_DATA, MEMT_INIT_DATA,
	};

	for (int is_init = 0; is_init <= 1; is_init++) {
		for (unsigned int m = 0; m < ARRAY_SIZE(layout_masks); m++) {
			int type = is_init ? init_m_to_mem_type[m] : core_m_to_mem_type[m];

			for (size_t i = 0; i < n; i++) {
				struct ksec *s = &sec[i];

				if (!mask_matches(s, m) || s->type64 != KMEMT_UNPLACED ||
				    is_init != module_init_layout_section(s->name))
					continue;
				/* WARN_ON_ONCE(type == MOD_INVALID): left unplaced */
				if (type < 0)
					continue;
				kplace(&sz[type], s);
				s->type64 = type;
			}
		}
	}
}

static uint32_t strict_align(uint32_t x)
{
	return kalign(x, KPAGE);	/* CONFIG_STRICT_MODULE_RWX=y */
}

/*
 * <=6.3 layout_sections() (5.19-6.3 text; data_layout is core_layout without
 * CONFIG_ARCH_WANTS_MODULES_DATA_IN_VMALLOC): strict_align() after text, rodata,
 * ro_after_init and the whole, nothing after writable data.
 */
static void layout_sections_pre(struct ksec *sec, size_t n, uint32_t *core, uint32_t *init)
{
	for (int is_init = 0; is_init <= 1; is_init++) {
		uint32_t *size = is_init ? init : core;

		for (unsigned int m = 0; m < ARRAY_SIZE(layout_masks); m++) {
			for (size_t i = 0; i < n; i++) {
				struct ksec *s = &sec[i];

				if (!mask_matches(s, m) || s->placed_pre ||
				    is_init != module_init_layout_section(s->name))
					continue;
				kplace(size, s);
				s->placed_pre = true;
				s->init_pre = is_init;
			}
			/* case 2 of the init pass only copies ro_size: no alignment */
			if (m == 0 || m == 1 || (m == 2 && !is_init) || m == 4)
				*size = strict_align(*size);
		}
	}
}

static bool mem_type_is_init(int t)
{
	return t == MEMT_INIT_TEXT || t == MEMT_INIT_DATA || t == MEMT_INIT_RODATA;
}

/*
 * is_core_symbol() with CONFIG_KALLSYMS_ALL: defined in an allocated section that is
 * not init, or per-CPU. The generations differ for a section left unplaced (init
 * ro_after_init data): ~0UL has INIT_OFFSET_MASK (not core before 6.4), but reads as
 * type 15, not an init type, since 6.4.
 */
static void is_core_symbol(const GElf_Sym *sym, const struct ksec *sec, size_t shnum,
			   size_t pcpundx, bool *ret_64, bool *ret_pre)
{
	const struct ksec *s;

	*ret_64 = *ret_pre = false;
	if (sym->st_shndx == SHN_UNDEF || sym->st_shndx >= shnum || !sym->st_name)
		return;
	if (sym->st_shndx == pcpundx) {
		*ret_64 = *ret_pre = true;
		return;
	}
	s = &sec[sym->st_shndx];
	if (!(s->flags & SHF_ALLOC))
		return;
	*ret_64 = !mem_type_is_init(s->type64);
	*ret_pre = s->placed_pre && !s->init_pre;
}

/* get_modinfo(): the value of @tag in .modinfo, or NULL. */
static const char *modinfo_get(const char *p, size_t n, const char *tag)
{
	size_t tl = strlen(tag);
	const char *end = p + n;

	while (p < end) {
		const char *z = memchr(p, '\0', end - p);
		size_t l = z ? (size_t)(z - p) : (size_t)(end - p);

		if (z && l > tl && memcmp(p, tag, tl) == 0 && p[tl] == '=')
			return p + tl + 1;
		p += l + 1;
	}
	return NULL;
}

static Elf_Data *section_data(Elf *elf, size_t i)
{
	Elf_Scn *scn = elf_getscn(elf, i);

	return scn ? elf_getdata(scn, NULL) : NULL;
}

static void set_name(char *dst, const char *src, size_t max)
{
	size_t i;

	for (i = 0; i < max && i < 63 && src[i]; i++)
		dst[i] = src[i];
	dst[i] = '\0';
}

/*
 * The kernel's layout of the ELF image @img. The load checks that decide whether the
 * kernel lays the module out at all (elf_validity_cache_copy()) are mirrored as far
 * as they do not depend on the running kernel (struct module's size, vermagic, arch).
 *
 * Checked against sys/module/NAME/coresize of every loaded module of the three
 * fixtures (Debian 6.1 .ko, Debian 6.12 and a defconfig 6.12 .ko.xz) and against every
 * module memory area their traces allocate (alloc_vmap_area under module_alloc() or
 * execmem_alloc(), failed loads and duplicates included, init areas too): exact, no
 * difference to explain. What it does not model, because those kernels do not do it:
 * CONFIG_MEM_ALLOC_PROFILING on 6.13+ (alloc_tags sections go to separate memory,
 * codetag_needs_module_section()), later kernels' longer ro_after_init list
 * (module_mark_ro_after_init()), and architectures with module_frob_arch_sections()
 * or arch_mod_section_prepend() (PLTs, GOTs: not x86).
 */
static int layout_image(uint8_t *img, size_t len, struct modfile_layout *ret, char *name,
			enum modfile_name_source *ret_source)
{
	size_t shnum, shstrndx, symidx = 0, stridx, modidx = 0, infoidx = 0, pcpuidx = 0;
	size_t nsym_secs = 0, nmod_secs = 0, nsrc, symsz, ksz, kalignment;
	uint32_t sz64[_MEMT_MAX] = { 0 }, core = 0, init = 0;
	uint32_t ndst64 = 0, ndst_pre = 0, str64 = 0, str_pre = 0, symoffs;
	const char *modinfo = NULL, *strtab = NULL;
	size_t modinfo_len = 0, strtab_len = 0;
	struct ksec *sec = NULL;
	Elf_Data *symdata, *d;
	GElf_Ehdr eh;
	bool livepatch;
	Elf *elf;
	int err = -ENOEXEC, cls;

	elf_version(EV_CURRENT);
	elf = elf_memory((char *)img, len);
	if (!elf)
		return -ENOEXEC;
	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) || eh.e_type != ET_REL)
		goto out;
	cls = gelf_getclass(elf);
	if (cls != ELFCLASS64 && cls != ELFCLASS32)
		goto out;
	/* sizeof(Elf_Sym), sizeof and __alignof__(struct mod_kallsyms) */
	symsz = cls == ELFCLASS64 ? 24 : 16;
	ksz = cls == ELFCLASS64 ? 32 : 16;
	kalignment = cls == ELFCLASS64 ? 8 : 4;
	if (elf_getshdrnum(elf, &shnum) < 0 || elf_getshdrstrndx(elf, &shstrndx) < 0 ||
	    shnum == 0 || shstrndx == SHN_UNDEF || shstrndx >= shnum)
		goto out;
	sec = calloc(shnum, sizeof(*sec));
	if (!sec) {
		err = -ENOMEM;
		goto out;
	}

	for (size_t i = 0; i < shnum; i++) {
		Elf_Scn *scn = elf_getscn(elf, i);
		GElf_Shdr sh;

		if (!scn || !gelf_getshdr(scn, &sh))
			goto out;
		sec[i].flags = sh.sh_flags;
		sec[i].size = sh.sh_size;
		sec[i].align = sh.sh_addralign;
		sec[i].type64 = KMEMT_UNPLACED;
		if (i == 0 || sh.sh_type == SHT_NULL || sh.sh_type == SHT_NOBITS) {
			if (i == 0 && (sh.sh_type != SHT_NULL || sh.sh_size || sh.sh_addr))
				goto out;
			sec[i].name = elf_strptr(elf, shstrndx, sh.sh_name);
			continue;
		}
		sec[i].name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!sec[i].name && (sh.sh_flags & SHF_ALLOC))
			goto out;	/* "Invalid ELF section name in module" */
		if (sh.sh_type == SHT_SYMTAB) {
			if (sh.sh_link == SHN_UNDEF || sh.sh_link >= shnum)
				goto out;
			nsym_secs++;
			symidx = i;
		}
		if (!sec[i].name)
			continue;
		if (strcmp(sec[i].name, ".gnu.linkonce.this_module") == 0) {
			nmod_secs++;
			modidx = i;
		} else if (strcmp(sec[i].name, ".modinfo") == 0) {
			infoidx = i;
		}
	}
	/* exactly one symbol table and one struct module, allocated (6.12's checks) */
	if (nsym_secs != 1 || nmod_secs != 1 || !(sec[modidx].flags & SHF_ALLOC))
		goto out;
	stridx = 0;
	{
		GElf_Shdr sh;

		if (!gelf_getshdr(elf_getscn(elf, symidx), &sh))
			goto out;
		stridx = sh.sh_link;
	}

	if (infoidx && (d = section_data(elf, infoidx)) && d->d_buf) {
		modinfo = d->d_buf;
		modinfo_len = d->d_size;
	}
	livepatch = modinfo && modinfo_get(modinfo, modinfo_len, "livepatch");

	if (name) {
		/* struct module { enum module_state state; struct list_head list; char name[]; } */
		size_t off = cls == ELFCLASS64 ? 24 : 12, max = cls == ELFCLASS64 ? 56 : 60;
		const char *mi;

		memset(name, 0, 64);
		d = section_data(elf, modidx);
		if (d && d->d_buf && d->d_size > off) {
			size_t avail = d->d_size - off;

			set_name(name, (const char *)d->d_buf + off, avail < max ? avail : max);
			if (ret_source)
				*ret_source = MODFILE_NAME_THIS_MODULE;
		}
		if (!name[0] && modinfo && (mi = modinfo_get(modinfo, modinfo_len, "name"))) {
			set_name(name, mi, (size_t)(modinfo + modinfo_len - mi));
			if (ret_source)
				*ret_source = MODFILE_NAME_MODINFO;
		}
	}

	/*
	 * rewrite_section_headers(): .modinfo and __versions are not kept (find_sec()
	 * needs SHF_ALLOC). layout_and_allocate(): per-CPU data is allocated apart;
	 * .data..ro_after_init and __jump_table become ro_after_init (6.12's list).
	 */
	for (size_t i = 1; i < shnum; i++) {
		const char *n = sec[i].name;

		if (!n || !(sec[i].flags & SHF_ALLOC))
			continue;
		if (strcmp(n, "__versions") == 0) {
			sec[i].flags &= ~(uint64_t)SHF_ALLOC;
			break;
		}
	}
	if (infoidx)
		sec[infoidx].flags &= ~(uint64_t)SHF_ALLOC;
	for (size_t i = 1; i < shnum; i++) {
		if (sec[i].name && (sec[i].flags & SHF_ALLOC) &&
		    strcmp(sec[i].name, ".data..percpu") == 0) {
			pcpuidx = i;
			sec[i].flags &= ~(uint64_t)SHF_ALLOC;
			break;
		}
	}
	{
		static const char *const ro_after_init[] = { ".data..ro_after_init", "__jump_table" };

		for (size_t k = 0; k < ARRAY_SIZE(ro_after_init); k++)
			for (size_t i = 1; i < shnum; i++)
				if (sec[i].name && (sec[i].flags & SHF_ALLOC) &&
				    strcmp(sec[i].name, ro_after_init[k]) == 0) {
					sec[i].flags |= KSHF_RO_AFTER_INIT;
					break;
				}
	}

	layout_sections_64(sec, shnum, sz64);
	layout_sections_pre(sec, shnum, &core, &init);

	/* layout_symtab(): the whole symbol table goes to the end of init (data) */
	sec[symidx].flags |= SHF_ALLOC;
	kplace(&sz64[MEMT_INIT_DATA], &sec[symidx]);
	sec[symidx].type64 = MEMT_INIT_DATA;
	kplace(&init, &sec[symidx]);
	sec[symidx].placed_pre = sec[symidx].init_pre = true;

	symdata = section_data(elf, symidx);
	if (!symdata)
		goto out;
	d = section_data(elf, stridx);
	if (d && d->d_buf) {
		strtab = d->d_buf;
		strtab_len = d->d_size;
	}
	nsrc = (uint32_t)(sec[symidx].size / symsz);
	for (size_t i = 0; i < nsrc; i++) {
		GElf_Sym sym;
		bool c64, cpre;
		uint32_t l = 1;

		if (!gelf_getsym(symdata, (int)i, &sym))
			goto out;
		if (strtab && sym.st_name < strtab_len)
			l += (uint32_t)strnlen(strtab + sym.st_name, strtab_len - sym.st_name);
		is_core_symbol(&sym, sec, shnum, pcpuidx, &c64, &cpre);
		if (i == 0 || livepatch || c64) {
			str64 += l;
			ndst64++;
		}
		if (i == 0 || livepatch || cpre) {
			str_pre += l;
			ndst_pre++;
		}
	}

	/* the core symbols, their names and types are appended to core data */
	symoffs = kalign(sz64[MEMT_DATA], sec[symidx].align);
	sz64[MEMT_DATA] = (uint32_t)(symoffs + ndst64 * symsz) + str64 + ndst64;
	symoffs = kalign(core, sec[symidx].align);
	core = (uint32_t)(symoffs + ndst_pre * symsz) + str_pre + ndst_pre;
	core = strict_align(core);

	/* then the string table, the temporary struct mod_kallsyms and all types to init */
	sec[stridx].flags |= SHF_ALLOC;
	kplace(&sz64[MEMT_INIT_DATA], &sec[stridx]);
	sz64[MEMT_INIT_DATA] = kalign(sz64[MEMT_INIT_DATA], kalignment) + (uint32_t)ksz;
	sz64[MEMT_INIT_DATA] += (uint32_t)nsrc;
	kplace(&init, &sec[stridx]);
	init = kalign(init, kalignment) + (uint32_t)ksz;
	init += (uint32_t)nsrc;
	init = strict_align(init);

	memset(ret, 0, sizeof(*ret));
	for (int t = 0; t < _MEMT_MAX; t++) {
		/* module_memory_alloc(): PAGE_ALIGN, written back to mod->mem[type].size */
		ret->mem[t] = kalign(sz64[t], KPAGE);
	}
	ret->core_size = core;
	ret->init_size = init;
	/*
	 * show_coresize() 6.4+: text plus the core data types (no
	 * CONFIG_ARCH_WANTS_MODULES_DATA_IN_VMALLOC); show_initsize(): the init types.
	 * Both are unsigned int sums of the page-aligned sizes. Before 6.4 they print
	 * core_layout.size and init_layout.size.
	 */
	ret->sysfs_coresize_64 = (uint32_t)(ret->mem[MEMT_TEXT] + ret->mem[MEMT_DATA] +
					    ret->mem[MEMT_RODATA] + ret->mem[MEMT_RO_AFTER_INIT]);
	ret->sysfs_initsize_64 = (uint32_t)(ret->mem[MEMT_INIT_TEXT] + ret->mem[MEMT_INIT_DATA] +
					    ret->mem[MEMT_INIT_RODATA]);
	ret->sysfs_coresize_pre64 = core;
	ret->sysfs_initsize_pre64 = init;
	err = 0;
out:
	free(sec);
	elf_end(elf);
	return err;
}

int modfile_layout_elf(const void *image, size_t len, struct modfile_layout *ret, char *name,
		       enum modfile_name_source *ret_source)
{
	struct modfile_layout l;
	char n[64] = { 0 };
	enum modfile_name_source src = MODFILE_NAME_FILE;
	uint8_t *copy;
	int err;

	/* libelf may convert a foreign-endian image in place: give it our own copy */
	copy = malloc(len ? len : 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, image, len);
	err = layout_image(copy, len, &l, n, &src);
	free(copy);
	if (err < 0)
		return err;
	*ret = l;
	if (name)
		memcpy(name, n, sizeof(n));
	if (ret_source)
		*ret_source = src;
	return 0;
}

/* ---- one file ------------------------------------------------------------------------ */

/* Sizes (and with MODFILE_LAYOUT the layout) of @in, whose compression is @comp. */
static int analyze_input(const struct input *in, int comp, unsigned int flags,
			 uint64_t max_image, struct modfile_info *ret)
{
	bool layout = flags & MODFILE_LAYOUT;
	uint8_t *img = NULL;
	size_t img_len = 0;
	bool own_img = false, not_elf = false, have_sink = false;
	struct sink s;
	int err = 0;

	ret->comp = comp;
	ret->file_size = in->size;
	ret->decompressed_exact = true;

	switch (comp) {
	case MODFILE_PLAIN:
		if (in->size > max_image)
			return -EFBIG;
		ret->decompressed_size = in->size;
		if (layout) {
			img = (uint8_t *)in->mem;	/* analyze_path() reads plain files whole */
			img_len = (size_t)in->size;
		}
		break;
	case MODFILE_XZ:
		err = xz_sizes(in, &ret->decompressed_size, &ret->xz_dict_size);
		if (err < 0)
			return err;
		if (ret->decompressed_size > max_image)
			return -EFBIG;
		if (!layout)
			break;
		err = sink_init(&s, true, ret->decompressed_size, ret->decompressed_size);
		if (err == 0)
			err = decode_first(in, comp, &s);
		/* a memory limit hit or more than the index said: the data lies */
		if (err == -EFBIG || err == -ERANGE)
			err = -EBADMSG;
		if (err == 0 && s.n != ret->decompressed_size)
			err = -EBADMSG;	/* less than the index said */
		if (err < 0) {
			sink_done(&s);
			return err;
		}
		have_sink = true;
		break;
	case MODFILE_ZSTD: {
		ZSTD_frameHeader zfh;
		bool known;

		err = zstd_header(in, &zfh);
		if (err < 0)
			return err;
		ret->zstd_window_size = zfh.windowSize;
		known = zfh.frameContentSize != ZSTD_CONTENTSIZE_UNKNOWN;
		if (known) {
			if (zfh.frameContentSize > max_image)
				return -EFBIG;
			ret->decompressed_size = zfh.frameContentSize;
			if (!layout)
				break;
		}
		/* no content size in the header: stream the frame and count */
		err = sink_init(&s, layout, known ? zfh.frameContentSize : 4 * in->size,
				known ? zfh.frameContentSize : max_image);
		if (err == 0)
			err = decode_first(in, comp, &s);
		if (err == -ERANGE)
			err = -EFBIG;	/* a window past libzstd's default limit */
		if (known && (err == -EFBIG || (err == 0 && s.n != zfh.frameContentSize)))
			err = -EBADMSG;	/* not the size the header promised */
		if (err < 0) {
			sink_done(&s);
			return err;
		}
		ret->decompressed_size = s.n;
		have_sink = true;
		break;
	}
	case MODFILE_GZIP:
		err = sink_init(&s, layout, gzip_isize_hint(in), max_image);
		if (err == 0)
			err = decode_first(in, comp, &s);
		if (err < 0) {
			sink_done(&s);
			return err;
		}
		ret->decompressed_size = s.n;
		have_sink = true;
		break;
	default:
		return -EINVAL;
	}
	if (have_sink && layout) {
		not_elf = s.not_elf;
		img = s.p;
		img_len = (size_t)s.n;
		own_img = true;
	} else if (have_sink) {
		sink_done(&s);
	}

	if (layout && not_elf) {
		ret->layout_err = -ENOEXEC;
	} else if (layout) {
		enum modfile_name_source src = MODFILE_NAME_FILE;
		char name[64] = { 0 };

		err = layout_image(img, img_len, &ret->layout, name, &src);
		if (err == 0) {
			ret->has_layout = true;
			if (name[0]) {
				memcpy(ret->name, name, sizeof(name));
				ret->name_source = src;
			}
		} else if (err == -ENOEXEC) {
			ret->layout_err = err;
			err = 0;
		}
	}
	if (own_img)
		free(img);
	return err;
}

int modfile_analyze_buffer(const void *data, size_t len, unsigned int flags,
			   uint64_t max_image, struct modfile_info *ret)
{
	struct input in = { .fd = -1, .mem = data, .size = len };
	struct modfile_info info = { 0 };
	uint8_t *copy = NULL;
	int comp, err;

	comp = sniff(data, len);
	if (comp == MODFILE_PLAIN && (flags & MODFILE_LAYOUT)) {
		/* the image is handed to libelf, which wants it writable */
		copy = malloc(len ? len : 1);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, data, len);
		in.mem = copy;
	}
	err = analyze_input(&in, comp, flags, max_image ? max_image : MODFILE_MAX_IMAGE, &info);
	free(copy);
	if (err < 0)
		return err;
	*ret = info;
	return 0;
}

/* The analysis of the open file @fd (regular, @st from fstat()). */
static int analyze_fd(int fd, const struct stat *st, const char *path, unsigned int flags,
		      struct modfile_info *ret)
{
	struct input in = { .fd = fd, .size = (uint64_t)st->st_size };
	struct modfile_info info = { 0 };
	uint8_t head[8], *whole = NULL;
	int comp, want, err;
	size_t n;

	err = input_pread(&in, 0, head, sizeof(head), &n);
	if (err < 0)
		return err;
	comp = sniff(head, n);
	/* the kernel decompresses by the flag, not the name: a lying name fails there */
	want = comp_by_name(path);
	if (want >= 0 && want != comp)
		return -EBADMSG;

	name_from_path(path, info.name);
	info.name_source = MODFILE_NAME_FILE;
	if (comp == MODFILE_PLAIN && in.size > MODFILE_MAX_IMAGE)
		return -EFBIG;	/* not read whole, as a compressed one is not decompressed */
	if ((flags & MODFILE_LAYOUT) || comp == MODFILE_GZIP) {
		/* it will be read whole anyway: once, then from memory */
		err = read_whole(fd, in.size, &whole);
		if (err < 0)
			return err;
		in.fd = -1;
		in.mem = whole;
	}
	err = analyze_input(&in, comp, flags, MODFILE_MAX_IMAGE, &info);
	free(whole);
	if (err < 0)
		return err;
	*ret = info;
	return 0;
}

static int open_module(const char *path, int *ret_fd, struct stat *ret_st)
{
	/* O_NONBLOCK: a FIFO in the tree must not hang open(); refused below */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0)
		return -errno;
	if (fstat(fd, ret_st) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	if (!S_ISREG(ret_st->st_mode)) {	/* kernel_read_file(): -EINVAL */
		close(fd);
		return -EINVAL;
	}
	*ret_fd = fd;
	return 0;
}

int modfile_analyze_flags(const char *path, unsigned int flags, struct modfile_info *ret)
{
	struct stat st;
	int fd, err;

	err = open_module(path, &fd, &st);
	if (err < 0)
		return err;
	err = analyze_fd(fd, &st, path, flags, ret);
	close(fd);
	return err;
}

int modfile_analyze(const char *path, struct modfile_info *ret)
{
	return modfile_analyze_flags(path, MODFILE_LAYOUT, ret);
}

/* ---- cache --------------------------------------------------------------------------- */

/*
 * One cache file per module directory (a "pack"), holding one record per module file
 * of that directory, each keyed by the file's name, device, inode, size and mtime. A
 * scan walks the tree directory by directory, so a warm scan reads one pack per
 * directory (954 for Debian's 4,230 modules) instead of one file per module; a
 * changed record is written back, temp file and rename, when the scan leaves the
 * directory. All little-endian. Bump CACHE_VERSION whenever the analysis changes what
 * it computes: old packs then read as foreign and are rebuilt.
 */
#define CACHE_MAGIC "KMTMODD\n"
#define CACHE_VERSION 1u
#define CACHE_HEAD (8 + 4 + 4 + 4)	/* magic, version, records, directory length */
#define CACHE_REC_FIXED (4 + 8 * 4 + 4 + 4 + 4 + 8 * 5 + 4 + 4 + 64 + 4 + 8 * 13)
#define CACHE_NAME_MAX 4096u
#define CACHE_PACK_MAX (64u << 20)
#define CACHE_RECS_MAX 65536u

struct key {
	uint64_t dev, ino, size, mtime_sec;
	uint32_t mtime_nsec;
};

struct pack_rec {
	char *base;
	struct key k;
	unsigned int flags;	/* what was analysed: MODFILE_LAYOUT or not */
	struct modfile_info info;
};

struct modfile_cache {
	int dfd;		/* -1: caching disabled */
	int err;		/* why */
	const char *why;	/* and in words, when err alone does not say it */
	char *cache_dir;	/* the directory opened (or refused); NULL: none named */
	char *dir;		/* the module directory whose pack is loaded, or NULL */
	bool invalid;		/* that pack was corrupt or foreign: read as empty */
	bool dirty;
	struct pack_rec *recs;
	size_t n, cap;
};

bool modfile_cache_enabled(const struct modfile_cache *c)
{
	return c && c->dfd >= 0;
}

int modfile_cache_error(const struct modfile_cache *c)
{
	return c ? c->err : -EINVAL;
}

const char *modfile_cache_dir(const struct modfile_cache *c)
{
	return c ? c->cache_dir : NULL;
}

const char *modfile_cache_why(const struct modfile_cache *c)
{
	return c ? c->why : NULL;
}

int modfile_cache_default_dir(char **ret)
{
	const char *x = secure_getenv("XDG_CACHE_HOME"), *h;
	char *d;

	/* the XDG base directory spec: relative paths are invalid and ignored */
	if (x && x[0] == '/') {
		if (asprintf(&d, "%s/kmodtop", x) < 0)
			return -ENOMEM;
	} else {
		h = secure_getenv("HOME");
		if (!h || h[0] != '/')
			return -ENOENT;
		if (asprintf(&d, "%s/.cache/kmodtop", h) < 0)
			return -ENOMEM;
	}
	*ret = d;
	return 0;
}

/* mkdir -p with 0700 for what is missing; existing components are left as they are. */
static int mkdir_parents(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0700) < 0 && errno != EEXIST) {
			int err = -errno;

			*p = '/';
			return err;
		}
		*p = '/';
	}
	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int modfile_cache_open(const char *dir, struct modfile_cache **ret)
{
	struct modfile_cache *c;
	_cleanup_free_ char *def = NULL, *d = NULL;
	int err;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->dfd = -1;
	*ret = c;

	if (!dir) {
		err = modfile_cache_default_dir(&def);
		if (err < 0) {
			c->err = err;
			if (err == -ENOENT)
				c->why = "neither $XDG_CACHE_HOME nor $HOME names a directory";
			return 0;
		}
		dir = def;
	}
	d = strdup(dir);
	c->cache_dir = strdup(dir);
	if (!d || !c->cache_dir) {
		c->err = -ENOMEM;
		return 0;
	}
	err = mkdir_parents(d);
	if (err < 0) {
		c->err = err;
		return 0;
	}
	/* packs then need no owner check */
	c->dfd = dir_open_private(dir, &c->why);
	if (c->dfd < 0) {
		c->err = c->dfd;
		c->dfd = -1;
	}
	return 0;
}

static void pack_clear(struct modfile_cache *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->recs[i].base);
	c->n = 0;
	c->dir = mfree(c->dir);
	c->invalid = c->dirty = false;
}

static uint64_t fnv1a64(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h;
}

static void pack_name(const char *dir, char buf[32])
{
	snprintf(buf, 32, "%016llx.mfc", (unsigned long long)fnv1a64(dir));
}

static void key_from_stat(const struct stat *st, struct key *k)
{
	k->dev = (uint64_t)st->st_dev;
	k->ino = (uint64_t)st->st_ino;
	k->size = (uint64_t)st->st_size;
	k->mtime_sec = (uint64_t)st->st_mtim.tv_sec;
	k->mtime_nsec = (uint32_t)st->st_mtim.tv_nsec;
}

static bool key_eq(const struct key *a, const struct key *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_sec == b->mtime_sec && a->mtime_nsec == b->mtime_nsec;
}

/* A bounds-checked little-endian reader: once past the end, it reads zeros, !ok. */
struct cur {
	const uint8_t *p, *end;
	bool ok;
};

static const uint8_t *cur_take(struct cur *c, size_t n)
{
	const uint8_t *p = c->p;

	if (!c->ok || (size_t)(c->end - c->p) < n) {
		c->ok = false;
		return NULL;
	}
	c->p += n;
	return p;
}

static uint32_t get32(struct cur *c)
{
	const uint8_t *p = cur_take(c, 4);
	uint32_t v = 0;

	for (int i = 0; p && i < 4; i++)
		v |= (uint32_t)p[i] << (8 * i);
	return v;
}

static uint64_t get64(struct cur *c)
{
	const uint8_t *p = cur_take(c, 8);
	uint64_t v = 0;

	for (int i = 0; p && i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* The writer: a growing buffer. */
struct out {
	uint8_t *p;
	size_t len, cap;
	bool ok;
};

static uint8_t *out_take(struct out *o, size_t n)
{
	if (!o->ok)
		return NULL;
	if (o->cap - o->len < n) {
		size_t ncap = o->cap ? o->cap : 4096;
		uint8_t *np;

		while (ncap - o->len < n)
			ncap *= 2;
		np = realloc(o->p, ncap);
		if (!np) {
			o->ok = false;
			return NULL;
		}
		o->p = np;
		o->cap = ncap;
	}
	o->len += n;
	return o->p + o->len - n;
}

static void put32(struct out *o, uint32_t v)
{
	uint8_t *p = out_take(o, 4);

	for (int i = 0; p && i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(struct out *o, uint64_t v)
{
	uint8_t *p = out_take(o, 8);

	for (int i = 0; p && i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put_bytes(struct out *o, const void *b, size_t n)
{
	uint8_t *p = out_take(o, n);

	if (p)
		memcpy(p, b, n);
}

static void rec_encode(struct out *o, const struct pack_rec *r)
{
	const struct modfile_info *i = &r->info;
	size_t bl = strlen(r->base);

	put32(o, (uint32_t)bl);
	put_bytes(o, r->base, bl);
	put64(o, r->k.dev);
	put64(o, r->k.ino);
	put64(o, r->k.size);
	put64(o, r->k.mtime_sec);
	put32(o, r->k.mtime_nsec);
	put32(o, r->flags);
	put32(o, (uint32_t)i->comp);
	put64(o, i->file_size);
	put64(o, i->decompressed_size);
	put64(o, i->xz_dict_size);
	put64(o, i->zstd_window_size);
	put64(o, 0);	/* reserved */
	put32(o, (i->decompressed_exact ? 1u : 0) | (i->has_layout ? 2u : 0));
	put32(o, (uint32_t)i->name_source);
	put_bytes(o, i->name, 64);
	put32(o, (uint32_t)i->layout_err);
	for (int t = 0; t < _MEMT_MAX; t++)
		put64(o, i->layout.mem[t]);
	put64(o, i->layout.core_size);
	put64(o, i->layout.init_size);
	put64(o, i->layout.sysfs_coresize_64);
	put64(o, i->layout.sysfs_initsize_64);
	put64(o, i->layout.sysfs_coresize_pre64);
	put64(o, i->layout.sysfs_initsize_pre64);
}

/* false: corrupt (the caller frees r->base either way). */
static bool rec_decode(struct cur *c, struct pack_rec *r)
{
	struct modfile_info *i = &r->info;
	uint32_t bl, comp, bits, src;
	const uint8_t *b;

	memset(r, 0, sizeof(*r));
	bl = get32(c);
	if (bl == 0 || bl > CACHE_NAME_MAX || !(b = cur_take(c, bl)) || memchr(b, '\0', bl) ||
	    memchr(b, '/', bl))
		return false;
	r->base = strndup((const char *)b, bl);
	if (!r->base)
		return false;
	r->k.dev = get64(c);
	r->k.ino = get64(c);
	r->k.size = get64(c);
	r->k.mtime_sec = get64(c);
	r->k.mtime_nsec = get32(c);
	r->flags = get32(c);
	comp = get32(c);
	i->file_size = get64(c);
	i->decompressed_size = get64(c);
	i->xz_dict_size = get64(c);
	i->zstd_window_size = get64(c);
	(void)get64(c);
	bits = get32(c);
	src = get32(c);
	b = cur_take(c, 64);
	if (b)
		memcpy(i->name, b, 64);
	i->layout_err = (int32_t)get32(c);
	for (int t = 0; t < _MEMT_MAX; t++)
		i->layout.mem[t] = get64(c);
	i->layout.core_size = get64(c);
	i->layout.init_size = get64(c);
	i->layout.sysfs_coresize_64 = get64(c);
	i->layout.sysfs_initsize_64 = get64(c);
	i->layout.sysfs_coresize_pre64 = get64(c);
	i->layout.sysfs_initsize_pre64 = get64(c);
	if (!c->ok || comp > MODFILE_GZIP || src > MODFILE_NAME_MODINFO || i->name[63] != '\0' ||
	    (bits & ~3u) || (r->flags & ~MODFILE_LAYOUT))
		return false;
	i->comp = comp;
	i->name_source = src;
	i->decompressed_exact = bits & 1;
	i->has_layout = bits & 2;
	return true;
}

static int pack_reserve(struct modfile_cache *c)
{
	if (c->n == c->cap) {
		size_t ncap = c->cap ? 2 * c->cap : 16;
		struct pack_rec *nr = realloc(c->recs, ncap * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		c->recs = nr;
		c->cap = ncap;
	}
	return 0;
}

/* Parses a pack for @dir; false when it is corrupt or another directory's. */
static bool pack_decode(struct modfile_cache *c, const uint8_t *buf, size_t len, const char *dir)
{
	struct cur cu = { buf, buf + len - 4, len >= CACHE_HEAD + 4 };
	size_t dl = strlen(dir);
	uint32_t nrec, crc = 0;
	const uint8_t *b;

	if (!cu.ok || memcmp(buf, CACHE_MAGIC, 8) != 0)
		return false;
	for (int i = 0; i < 4; i++)
		crc |= (uint32_t)buf[len - 4 + i] << (8 * i);
	if (crc != lzma_crc32(buf, len - 4, 0))
		return false;
	cur_take(&cu, 8);
	if (get32(&cu) != CACHE_VERSION)
		return false;
	nrec = get32(&cu);
	if (nrec > CACHE_RECS_MAX || get32(&cu) != dl || !(b = cur_take(&cu, dl)) ||
	    memcmp(b, dir, dl) != 0)
		return false;	/* another directory with the same hash */
	for (uint32_t i = 0; i < nrec; i++) {
		if (pack_reserve(c) < 0)
			return false;
		if (!rec_decode(&cu, &c->recs[c->n])) {
			free(c->recs[c->n].base);
			return false;
		}
		c->n++;
	}
	return cu.ok && cu.p == cu.end;
}

/* Makes @dir's pack the loaded one (writing back the previous one first). */
static void pack_load(struct modfile_cache *c, const char *dir)
{
	uint8_t *buf = NULL;
	char pname[32];
	struct stat st;
	ssize_t n;
	int fd;

	modfile_cache_flush(c);
	pack_clear(c);
	c->dir = strdup(dir);
	if (!c->dir)
		return;
	pack_name(dir, pname);
	fd = openat(c->dfd, pname, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		c->invalid = errno != ENOENT;	/* ELOOP: a symlink is foreign */
		return;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < CACHE_HEAD + 4 ||
	    st.st_size > CACHE_PACK_MAX || !(buf = malloc((size_t)st.st_size))) {
		c->invalid = true;
		goto out;
	}
	do
		n = read(fd, buf, (size_t)st.st_size);
	while (n < 0 && errno == EINTR);
	if (n != st.st_size || !pack_decode(c, buf, (size_t)n, dir)) {
		for (size_t i = 0; i < c->n; i++)
			free(c->recs[i].base);
		c->n = 0;
		c->invalid = true;
	}
out:
	free(buf);
	close(fd);
}

/* The loaded pack's bytes, into @o (o->ok false: out of memory) */
static void pack_encode(const struct modfile_cache *c, struct out *o)
{
	size_t dl = strlen(c->dir);

	put_bytes(o, CACHE_MAGIC, 8);
	put32(o, CACHE_VERSION);
	put32(o, (uint32_t)c->n);
	put32(o, (uint32_t)dl);
	put_bytes(o, c->dir, dl);
	for (size_t i = 0; i < c->n; i++)
		rec_encode(o, &c->recs[i]);
	if (o->ok)
		put32(o, lzma_crc32(o->p, o->len, 0));
}

int modfile_cache_pack_recode(const uint8_t *buf, size_t len, const char *dir,
			      uint8_t **ret_buf, size_t *ret_len)
{
	struct modfile_cache c = { .dfd = -1 };
	struct out o = { .ok = true };
	bool ok;

	*ret_buf = NULL;
	*ret_len = 0;
	c.dir = strdup(dir);
	if (!c.dir)
		return -ENOMEM;
	ok = len >= CACHE_HEAD + 4 && len <= CACHE_PACK_MAX && pack_decode(&c, buf, len, dir);
	if (ok)
		pack_encode(&c, &o);
	pack_clear(&c);
	free(c.recs);
	if (!ok)
		return 0;
	if (!o.ok) {
		free(o.p);
		return -ENOMEM;
	}
	*ret_buf = o.p;
	*ret_len = o.len;
	return 1;
}

int modfile_cache_flush(struct modfile_cache *c)
{
	struct out o = { .ok = true };
	char pname[32], tmp[64];
	size_t done = 0;
	int fd = -1, err = 0;

	if (!modfile_cache_enabled(c) || !c->dir || !c->dirty)
		return 0;
	pack_encode(c, &o);
	if (!o.ok) {
		free(o.p);
		return -ENOMEM;
	}

	pack_name(c->dir, pname);
	for (int tries = 0; tries < 16 && fd < 0; tries++) {
		uint64_t rnd = 0;

		if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
			rnd = ((uint64_t)getpid() << 20) ^ (uint64_t)tries ^ fnv1a64(c->dir);
		snprintf(tmp, sizeof(tmp), ".tmp-%016llx", (unsigned long long)rnd);
		/* O_EXCL|O_NOFOLLOW: never through a symlink someone planted */
		fd = openat(c->dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	while (done < o.len) {
		ssize_t n = write(fd, o.p + done, o.len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			break;
		}
		done += (size_t)n;
	}
	if (close(fd) < 0 && err == 0)
		err = -errno;
	/* rename() replaces a symlink at the pack's name itself, not its target */
	if (err == 0 && renameat(c->dfd, tmp, c->dfd, pname) < 0)
		err = -errno;
	if (err < 0)
		unlinkat(c->dfd, tmp, 0);
	else
		c->dirty = c->invalid = false;
out:
	free(o.p);
	return err;
}

struct modfile_cache *modfile_cache_free(struct modfile_cache *c)
{
	if (!c)
		return NULL;
	modfile_cache_flush(c);
	pack_clear(c);
	free(c->recs);
	free(c->cache_dir);
	if (c->dfd >= 0)
		close(c->dfd);
	free(c);
	return NULL;
}

static struct pack_rec *pack_find(struct modfile_cache *c, const char *base)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->recs[i].base, base) == 0)
			return &c->recs[i];
	return NULL;
}

static void pack_put(struct modfile_cache *c, const char *base, const struct key *k,
		     unsigned int flags, const struct modfile_info *info)
{
	struct pack_rec *r = pack_find(c, base);

	if (!r) {
		char *b;

		if (c->n >= CACHE_RECS_MAX || pack_reserve(c) < 0 || !(b = strdup(base)))
			return;
		r = &c->recs[c->n++];
		r->base = b;
	}
	r->k = *k;
	r->flags = flags;
	r->info = *info;
	c->dirty = true;
}

int modfile_cache_analyze_stat(struct modfile_cache *c, const char *path,
			       const struct stat *st, unsigned int flags, struct modfile_info *ret,
			       enum modfile_cache_status *ret_status)
{
	enum modfile_cache_status status = MODFILE_CACHE_MISS;
	_cleanup_free_ char *dir = NULL;
	struct modfile_info info;
	struct stat own, fst;
	struct pack_rec *r;
	const char *slash, *base;
	struct key k;
	int fd, err;

	flags &= MODFILE_LAYOUT;
	slash = strrchr(path, '/');
	base = slash ? slash + 1 : path;
	if (!modfile_cache_enabled(c) || !*base || strlen(base) > CACHE_NAME_MAX) {
		err = modfile_analyze_flags(path, flags, ret);
		if (err == 0 && ret_status)
			*ret_status = MODFILE_CACHE_OFF;
		return err;
	}
	if (!st) {
		if (stat(path, &own) < 0)
			return -errno;
		st = &own;
	}
	if (!c->dir || strncmp(c->dir, path, (size_t)(base - path)) != 0 ||
	    c->dir[base - path] != '\0') {
		dir = strndup(path, (size_t)(base - path));
		if (!dir)
			return -ENOMEM;
		pack_load(c, dir);
	}
	if (c->invalid)
		status = MODFILE_CACHE_INVALID;
	key_from_stat(st, &k);
	r = c->dir ? pack_find(c, base) : NULL;
	if (r && S_ISREG(st->st_mode)) {
		if (!key_eq(&r->k, &k)) {
			status = MODFILE_CACHE_STALE;
		} else if (r->info.decompressed_size > MODFILE_MAX_IMAGE) {
			return -EFBIG;	/* recorded under a larger cap */
		} else if (!(flags & MODFILE_LAYOUT) || (r->flags & MODFILE_LAYOUT)) {
			*ret = r->info;
			if (ret_status)
				*ret_status = MODFILE_CACHE_HIT;
			return 0;
		}
	}

	err = open_module(path, &fd, &fst);
	if (err < 0)
		return err;
	/* the key is the file analysed, should it have been replaced meanwhile */
	key_from_stat(&fst, &k);
	err = analyze_fd(fd, &fst, path, flags, &info);
	close(fd);
	if (err < 0)
		return err;
	if (c->dir)
		pack_put(c, base, &k, flags, &info);
	*ret = info;
	if (ret_status)
		*ret_status = status;
	return 0;
}

int modfile_cache_analyze(struct modfile_cache *c, const char *path, unsigned int flags,
			  struct modfile_info *ret, enum modfile_cache_status *ret_status)
{
	return modfile_cache_analyze_stat(c, path, NULL, flags, ret, ret_status);
}

int modfile_analyze_cached(const char *path, const char *cache_dir, struct modfile_info *ret)
{
	struct modfile_cache *c = NULL;
	int err;

	err = modfile_cache_open(cache_dir, &c);
	if (err < 0)
		return err;
	err = modfile_cache_analyze(c, path, MODFILE_LAYOUT, ret, NULL);
	modfile_cache_free(c);
	return err;
}

const char *modfile_comp_name(enum modfile_comp c)
{
	static const char *const names[] = { "none", "xz", "zstd", "gzip" };

	return (unsigned int)c < ARRAY_SIZE(names) ? names[c] : "unknown";
}

const char *modfile_mem_type_name(enum mod_mem_type_idx t)
{
	static const char *const names[] = {
		"text", "data", "rodata", "ro_after_init", "init_text", "init_data", "init_rodata",
	};

	return (unsigned int)t < ARRAY_SIZE(names) ? names[t] : "unknown";
}
