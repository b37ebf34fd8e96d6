/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <zlib.h>

#include "codec-internal.h"

/* CODEC_NO_TRAILER looks for the member header in the first bytes only. */
#define HEADER_MAX 1024u

struct gzip_state {
	z_stream z;
	bool member_open;
	bool header_done;	/* CODEC_NO_TRAILER: the header is skipped */
	int held;		/* CODEC_TRAILING_IGNORED: a 0x1f kept to see the next byte, or -1 */
};

/*
 * Length of the RFC 1952 member header, 0 if invalid. module_gzip_header_len() only
 * knows FNAME (the one flag gzip(1) sets); a module with FEXTRA, FCOMMENT or FHCRC
 * would fail to decompress in the kernel, but it still has a size, measured here.
 */
static size_t header_len(const uint8_t *p, size_t n)
{
	size_t len = 10;
	uint8_t flg;

	if (n < len || p[0] != 0x1f || p[1] != 0x8b || p[2] != 0x08)
		return 0;
	flg = p[3];
	if (flg & 0x04) {	/* FEXTRA */
		if (n < len + 2)
			return 0;
		len += 2 + (size_t)(p[len] | p[len + 1] << 8);
	}
	for (unsigned int f = 0x08; f <= 0x10; f <<= 1) {	/* FNAME, FCOMMENT */
		if (!(flg & f))
			continue;
		while (len < n && p[len])
			len++;
		if (len >= n)
			return 0;
		len++;
	}
	if (flg & 0x02)		/* FHCRC */
		len += 2;
	return len <= n ? len : 0;
}

static int gzip_init(struct codec_decoder *d)
{
	bool raw = d->o.flags & CODEC_NO_TRAILER;
	struct gzip_state *st;

	if (raw && (d->o.flags & CODEC_CONCATENATED))
		return -EINVAL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	/*
	 * 16 + MAX_WBITS: zlib reads the gzip wrapper and checks its CRC and length;
	 * -MAX_WBITS: raw deflate after a header skipped here, as the kernel's loader does
	 */
	if (inflateInit2(&st->z, raw ? -MAX_WBITS : 16 + MAX_WBITS) != Z_OK) {
		free(st);
		return -ENOMEM;
	}
	st->member_open = true;
	st->held = -1;
	d->state = st;
	return 0;
}

static void gzip_done(struct codec_decoder *d)
{
	struct gzip_state *st = d->state;

	if (!st)
		return;
	inflateEnd(&st->z);
	free(st);
	d->state = NULL;
}

/*
 * After a member, with CODEC_TRAILING_IGNORED: 1 when a next member starts (after
 * @st->held, if any), 0 when the text is over, -EAGAIN when one more byte must be seen.
 */
static int next_member(struct gzip_state *st, struct codec_io *io)
{
	const uint8_t *p = io->in + io->in_used;
	size_t n = io->in_len - io->in_used;

	if (st->held >= 0)
		return n == 0 ? (io->in_end ? 0 : -EAGAIN) : p[0] == 0x8b;
	if (n == 0)
		return io->in_end ? 0 : -EAGAIN;
	if (p[0] != 0x1f)
		return 0;
	if (n >= 2)
		return p[1] == 0x8b;
	if (io->in_end)
		return 0;
	/* a lone 0x1f at the end of this input: keep it until the next byte comes */
	st->held = 0x1f;
	io->in_used++;
	return -EAGAIN;
}

static int inflate_some(struct gzip_state *st, const uint8_t *in, size_t n, struct codec_io *io,
			size_t *ret_used)
{
	size_t room = io->cap - io->out_n;
	int zr;

	st->z.next_in = (Bytef *)in;
	st->z.avail_in = n > UINT_MAX ? UINT_MAX : (uInt)n;
	st->z.next_out = io->out + io->out_n;
	st->z.avail_out = room > UINT_MAX ? UINT_MAX : (uInt)room;
	zr = inflate(&st->z, Z_NO_FLUSH);
	*ret_used = (n > UINT_MAX ? UINT_MAX : n) - st->z.avail_in;
	io->out_n += (room > UINT_MAX ? UINT_MAX : room) - st->z.avail_out;
	return zr;
}

static int gzip_decode(struct codec_decoder *d, struct codec_io *io)
{
	struct gzip_state *st = d->state;
	bool raw = d->o.flags & CODEC_NO_TRAILER;

	if (raw && !st->header_done) {
		size_t hlen = header_len(io->in, io->in_len < HEADER_MAX ? io->in_len : HEADER_MAX);

		if (!hlen)
			return -EBADMSG;
		io->in_used = hlen;
		st->header_done = true;
	}
	/* back as soon as some text came out: the callers loop, and a stream stays short */
	while (io->out_n == 0 && io->cap) {
		size_t used;
		int zr;

		if (!st->member_open) {
			int r = 1;

			if (!(d->o.flags & CODEC_CONCATENATED))
				return 1;
			if (d->o.flags & CODEC_TRAILING_IGNORED) {
				r = next_member(st, io);
				if (r == -EAGAIN)
					return 0;
				if (r == 0) {
					io->in_used = io->in_len;	/* ignored */
					return 1;
				}
			} else if (io->in_used == io->in_len) {
				return io->in_end ? 1 : 0;
			}
			if (inflateReset(&st->z) != Z_OK)
				return -EBADMSG;
			st->member_open = true;
			if (st->held >= 0) {
				uint8_t b = (uint8_t)st->held;

				st->held = -1;
				zr = inflate_some(st, &b, 1, io, &used);
				if (zr != Z_OK)
					return -EBADMSG;
			}
		}
		if (io->in_used == io->in_len && !io->in_end)
			return 0;
		zr = inflate_some(st, io->in + io->in_used, io->in_len - io->in_used, io, &used);
		io->in_used += used;
		if (zr == Z_STREAM_END) {
			st->member_open = false;
		} else if (zr == Z_MEM_ERROR) {
			return -ENOMEM;
		} else if (zr == Z_BUF_ERROR) {
			/* no progress: the input ended inside a member, or more is to come */
			if (io->in_used == io->in_len)
				return io->in_end ? -EBADMSG : 0;
		} else if (zr != Z_OK) {
			return -EBADMSG;
		}
	}
	return 0;
}

const struct codec_ops codec_gzip_ops = {
	.init = gzip_init,
	.decode = gzip_decode,
	.done = gzip_done,
};
