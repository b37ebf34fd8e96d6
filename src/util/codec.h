/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Decompression: one magic table and one decoder object, with the formats in a file
 * each (codec-gzip.c, codec-xz.c, codec-zstd.c), as libkmod-file.c and trace-compress.c
 * do. The libraries decode; this only drives them the same way for every caller (saved
 * logs, module files, the kernel image, /proc/config.gz) and gives one set of errors.
 */

enum codec_type {
	CODEC_NONE,	/* no magic this build decodes: plain bytes */
	CODEC_GZIP,
	CODEC_XZ,
	CODEC_ZSTD,
	_CODEC_TYPE_MAX,
};

/* Enough bytes to tell every decoded and refused format apart. */
#define CODEC_SNIFF_LEN 10

/* "none", "gzip", "xz", "zstd" */
const char *codec_name(enum codec_type t);

/*
 * The format of a file from its first @n bytes (CODEC_SNIFF_LEN suffice): 0 and *ret
 * (CODEC_NONE when no magic matches); -EPROTONOSUPPORT for a format people compress
 * with that this build has no library for (bzip2, lz4, lzma), *reterr_what naming it.
 */
int codec_detect(const void *head, size_t n, enum codec_type *ret, const char **reterr_what);

/* --- the decoder ------------------------------------------------------------------- */

/*
 * Members (gzip), streams (xz) or frames (zstd) one after another are one text, as
 * gzip(1), xz(1) and zstd(1) read "cat a.gz b.gz"; anything else after the last one is
 * corrupt. Without it, decoding ends with the first and what follows is not looked at
 * (the kernel decompresses a module or its own image so).
 */
#define CODEC_CONCATENATED (1u << 0)
/*
 * gzip: a member ends with its deflate data, as the kernel's module_gzip_decompress()
 * reads it: the CRC and size trailer are neither needed nor checked, and the header
 * must be within the first KiB of the first input given. Not with
 * CODEC_CONCATENATED (where the next member starts is in the trailer's place).
 */
#define CODEC_NO_TRAILER (1u << 1)
/*
 * With CODEC_CONCATENATED, gzip: bytes after a member that do not start with the gzip
 * magic end the text instead of being corrupt, as zlib's gzread() ignores them.
 */
#define CODEC_TRAILING_IGNORED (1u << 2)

struct codec_options {
	unsigned int flags;		/* CODEC_* above */
	uint64_t max_out;		/* -EFBIG once more comes out; 0: no cap */
	uint64_t xz_memlimit;		/* liblzma's memory limit; 0: none */
	int zstd_window_log_max;	/* ZSTD_d_windowLogMax; 0: libzstd's default */
};

struct codec_decoder;

/*
 * A decoder of @type (not CODEC_NONE); @o NULL: no flags, no caps. 0, -EINVAL (a
 * combination of flags the format has no meaning for), -ENOMEM.
 */
int codec_decoder_new(enum codec_type type, const struct codec_options *o,
		      struct codec_decoder **ret);
struct codec_decoder *codec_decoder_free(struct codec_decoder *d);

/*
 * Decodes from *@in (*@in_len bytes; both move past what was taken) into @out (@cap
 * bytes), *@ret_n the bytes written; it returns as soon as some are. @in_end: nothing
 * follows the input given. Call again with more input or room until it returns 1.
 *   1: the end (of the first member, or of the input with CODEC_CONCATENATED)
 *   0: more to come; a call that took and gave nothing wants more input
 *   -EBADMSG  corrupt data, or the input ended inside a member (truncated)
 *   -EFBIG    more output than o->max_out
 *   -ERANGE   the data asks for more memory than xz_memlimit or a zstd window larger
 *             than zstd_window_log_max allows
 *   -ENOMEM
 * On an error *@ret_n still counts what the call wrote, which callers may drop. After
 * it the decoder is done: it returns that error again.
 */
int codec_decode(struct codec_decoder *d, const uint8_t **in, size_t *in_len, bool in_end,
		 uint8_t *out, size_t cap, size_t *ret_n);

/* Bytes written so far. */
uint64_t codec_decoder_out(const struct codec_decoder *d);

/*
 * One call for input all in memory: the text of @data (@len bytes) in a buffer the
 * caller frees (*ret_len bytes, a NUL after them not counted). Errors as codec_decode()
 * (-EFBIG past o->max_out, nothing returned).
 */
int codec_decode_buffer(enum codec_type type, const struct codec_options *o,
			const void *data, size_t len, uint8_t **ret, size_t *ret_len);

/*
 * All of @fd (read from where it is) as text: decoded when its magic is one of @types
 * (a mask of 1u << CODEC_*), else its bytes as they are. The buffer is the caller's
 * (*ret_len bytes, NUL after them). -EFBIG past o->max_out of text (plain or decoded),
 * errors as codec_decode(), -errno of read(). Does not close @fd.
 */
int codec_read_fd(int fd, unsigned int types, const struct codec_options *o, uint8_t **ret,
		  size_t *ret_len);
