/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lzma.h>
#define ZSTD_STATIC_LINKING_ONLY	/* ZSTD_getFrameHeader(): the window size */
#include <zstd.h>

#include "util/codec.h"
#include "util/macro.h"
#include "modfile.h"
#include "modfile-internal.h"

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

		err = modfile_layout_image(img, img_len, &ret->layout, name, &src);
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
int modfile_analyze_fd(int fd, const struct stat *st, const char *path, unsigned int flags,
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

int modfile_open(const char *path, int *ret_fd, struct stat *ret_st)
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

	err = modfile_open(path, &fd, &st);
	if (err < 0)
		return err;
	err = modfile_analyze_fd(fd, &st, path, flags, ret);
	close(fd);
	return err;
}

int modfile_analyze(const char *path, struct modfile_info *ret)
{
	return modfile_analyze_flags(path, MODFILE_LAYOUT, ret);
}

const char *modfile_comp_name(enum modfile_comp c)
{
	static const char *const names[] = { "none", "xz", "zstd", "gzip" };

	return (unsigned int)c < ARRAY_SIZE(names) ? names[c] : "unknown";
}
