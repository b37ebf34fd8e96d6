/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/macro.h"
#include "codec-internal.h"

/* Read and decoded in pieces of this size by codec_read_fd(). */
#define FD_CHUNK (64u * 1024u)
/* Calls in a row that take and give nothing before the input counts as truncated. */
#define STALLS_MAX 4

const char *codec_name(enum codec_type t)
{
	static const char *const names[_CODEC_TYPE_MAX] = {
		[CODEC_NONE] = "none",
		[CODEC_GZIP] = "gzip",
		[CODEC_XZ] = "xz",
		[CODEC_ZSTD] = "zstd",
	};

	return (unsigned int)t < _CODEC_TYPE_MAX ? names[t] : "?";
}

static const struct {
	enum codec_type type;	/* _CODEC_TYPE_MAX: refused */
	const char *name;
	const char *magic;
	size_t len;
	const struct codec_ops *ops;
} magics[] = {
	{ CODEC_GZIP, "gzip", "\x1f\x8b", 2, &codec_gzip_ops },
	{ CODEC_XZ, "xz", "\xfd" "7zXZ\0", 6, &codec_xz_ops },
	{ CODEC_ZSTD, "zstd", "\x28\xb5\x2f\xfd", 4, &codec_zstd_ops },
	/* formats people compress with that this build has no library for */
	{ _CODEC_TYPE_MAX, "bzip2", "BZh", 3, NULL },
	{ _CODEC_TYPE_MAX, "lz4", "\x04\x22\x4d\x18", 4, NULL },
	{ _CODEC_TYPE_MAX, "lzma", "\x5d\x00\x00", 3, NULL },
};

/* bzip2 is "BZh" + block size digit + the block magic 0x314159265359 (pi) */
static bool magic_matches(size_t i, const uint8_t *p, size_t n)
{
	if (n < magics[i].len || memcmp(p, magics[i].magic, magics[i].len) != 0)
		return false;
	if (strcmp(magics[i].name, "bzip2") == 0)
		return n >= 10 && p[3] >= '1' && p[3] <= '9' &&
		       memcmp(p + 4, "\x31\x41\x59\x26\x53\x59", 6) == 0;
	return true;
}

int codec_detect(const void *head, size_t n, enum codec_type *ret, const char **reterr_what)
{
	for (size_t i = 0; i < ARRAY_SIZE(magics); i++) {
		if (!magic_matches(i, head, n))
			continue;
		if (magics[i].type == _CODEC_TYPE_MAX) {
			if (reterr_what)
				*reterr_what = magics[i].name;
			return -EPROTONOSUPPORT;
		}
		*ret = magics[i].type;
		return 0;
	}
	*ret = CODEC_NONE;
	return 0;
}

int codec_decoder_new(enum codec_type type, const struct codec_options *o,
		      struct codec_decoder **ret)
{
	const struct codec_ops *ops = NULL;
	struct codec_decoder *d;
	int r;

	for (size_t i = 0; i < ARRAY_SIZE(magics); i++)
		if (magics[i].type == type)
			ops = magics[i].ops;
	if (!ops)
		return -EINVAL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->type = type;
	if (o)
		d->o = *o;
	d->ops = ops;
	r = ops->init(d);
	if (r < 0) {
		free(d);
		return r;
	}
	*ret = d;
	return 0;
}

struct codec_decoder *codec_decoder_free(struct codec_decoder *d)
{
	if (!d)
		return NULL;
	d->ops->done(d);
	free(d);
	return NULL;
}

uint64_t codec_decoder_out(const struct codec_decoder *d)
{
	return d->out;
}

int codec_decode(struct codec_decoder *d, const uint8_t **in, size_t *in_len, bool in_end,
		 uint8_t *out, size_t cap, size_t *ret_n)
{
	struct codec_io io = { .in = *in, .in_len = *in_len, .in_end = in_end, .out = out };
	int r;

	*ret_n = 0;
	if (d->result)
		return d->result;
	/*
	 * The room is not cut to the cap: a call decodes as far as it would without one,
	 * so corrupt data is told as corrupt whatever the cap (a caller that keeps the
	 * text gives no more room than the cap and one byte).
	 */
	io.cap = cap;
	r = d->ops->decode(d, &io);
	*in += io.in_used;
	*in_len -= io.in_used;
	d->out += io.out_n;
	*ret_n = io.out_n;
	if (r >= 0 && d->o.max_out && d->out > d->o.max_out)
		r = -EFBIG;
	if (r != 0)
		d->result = r;
	return r;
}

/* *@cap of at least @need bytes, doubling; -EFBIG for more than @limit (0: none). */
static int grow(uint8_t **buf, size_t *cap, size_t need, size_t limit)
{
	size_t ncap = *cap;
	uint8_t *nb;

	if (need <= *cap)
		return 0;
	if (limit && need > limit)
		return -EFBIG;
	while (ncap < need)
		ncap = ncap < 32u * 1024u ? 64u * 1024u : ncap < SIZE_MAX / 2 ? ncap * 2 : SIZE_MAX;
	if (limit && ncap > limit)
		ncap = limit;
	nb = realloc(*buf, ncap);
	if (!nb)
		return -ENOMEM;
	*buf = nb;
	*cap = ncap;
	return 0;
}

/* What a text of at most @max_out bytes needs: one byte past it (to see it) and a NUL. */
static size_t buffer_limit(uint64_t max_out)
{
	return max_out && max_out < SIZE_MAX - 2 ? (size_t)max_out + 2 : 0;
}

/*
 * Feeds @p (@n bytes) to @d, growing *@buf. 1 at the end of the text, 0 when @d wants
 * more input, <0.
 */
static int decode_into(struct codec_decoder *d, const uint8_t *p, size_t n, bool in_end,
		       uint8_t **buf, size_t *cap, size_t *len)
{
	unsigned int stalls = 0;
	int r;

	for (;;) {
		size_t got, before = n;

		r = grow(buf, cap, *len + 2, buffer_limit(d->o.max_out));
		if (r < 0)
			return r;
		r = codec_decode(d, &p, &n, in_end, *buf + *len, *cap - 1 - *len, &got);
		*len += got;
		if (r != 0)
			return r;
		if (got || n != before) {
			stalls = 0;
			continue;
		}
		if (!in_end && n == 0)
			return 0;
		/* the formats answer a stall at the end with -EBADMSG; this only bounds it */
		if (++stalls >= STALLS_MAX)
			return -EBADMSG;
	}
}

int codec_decode_buffer(enum codec_type type, const struct codec_options *o,
			const void *data, size_t len, uint8_t **ret, size_t *ret_len)
{
	struct codec_decoder *d = NULL;
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0;
	int r;

	r = codec_decoder_new(type, o, &d);
	if (r < 0)
		return r;
	r = decode_into(d, data, len, true, &buf, &cap, &n);
	codec_decoder_free(d);
	if (r < 0) {
		free(buf);
		return r;
	}
	buf[n] = '\0';
	*ret = buf;
	*ret_len = n;
	return 0;
}

/* Up to @n bytes, short only at the end. */
static ssize_t read_full(int fd, uint8_t *p, size_t n)
{
	size_t have = 0;

	while (have < n) {
		ssize_t k = read(fd, p + have, n - have);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			break;
		have += (size_t)k;
	}
	return (ssize_t)have;
}

int codec_read_fd(int fd, unsigned int types, const struct codec_options *o, uint8_t **ret,
		  size_t *ret_len)
{
	struct codec_decoder *d = NULL;
	enum codec_type type = CODEC_NONE;
	uint8_t *chunk, *buf = NULL;
	size_t cap = 0, len = 0;
	uint64_t max_out = o ? o->max_out : 0;
	ssize_t n;
	int r;

	chunk = malloc(FD_CHUNK);
	if (!chunk)
		return -ENOMEM;
	n = read_full(fd, chunk, FD_CHUNK);
	if (n < 0) {
		r = (int)n;
		goto out;
	}
	if (codec_detect(chunk, (size_t)n, &type, NULL) < 0 || !(types & (1u << type)))
		type = CODEC_NONE;
	if (type != CODEC_NONE) {
		r = codec_decoder_new(type, o, &d);
		if (r < 0)
			goto out;
	}
	for (;;) {
		bool end = (size_t)n < FD_CHUNK;

		if (d) {
			r = decode_into(d, chunk, (size_t)n, end, &buf, &cap, &len);
			if (r != 0)
				break;
		} else {
			if (max_out && len + (size_t)n > max_out) {
				r = -EFBIG;
				break;
			}
			r = grow(&buf, &cap, len + (size_t)n + 1, 0);
			if (r < 0)
				break;
			memcpy(buf + len, chunk, (size_t)n);
			len += (size_t)n;
			r = 1;
			if (end)
				break;
		}
		n = read_full(fd, chunk, FD_CHUNK);
		if (n < 0) {
			r = (int)n;
			break;
		}
	}
	if (r == 1)
		r = grow(&buf, &cap, len + 1, 0);
out:
	codec_decoder_free(d);
	free(chunk);
	if (r < 0) {
		free(buf);
		return r;
	}
	buf[len] = '\0';
	*ret = buf;
	*ret_len = len;
	return 0;
}
