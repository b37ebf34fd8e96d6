/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "codec-internal.h"

struct zstd_state {
	ZSTD_DStream *z;
	bool frame_open;	/* inside a frame, or the first one not begun */
};

static int zstd_init(struct codec_decoder *d)
{
	struct zstd_state *st;

	if (d->o.flags & (CODEC_NO_TRAILER | CODEC_TRAILING_IGNORED))
		return -EINVAL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->z = ZSTD_createDStream();
	if (!st->z) {
		free(st);
		return -ENOMEM;
	}
	if (d->o.zstd_window_log_max &&
	    ZSTD_isError(ZSTD_DCtx_setParameter(st->z, ZSTD_d_windowLogMax,
						d->o.zstd_window_log_max))) {
		ZSTD_freeDStream(st->z);
		free(st);
		return -EINVAL;
	}
	st->frame_open = true;
	d->state = st;
	return 0;
}

static void zstd_done(struct codec_decoder *d)
{
	struct zstd_state *st = d->state;

	if (!st)
		return;
	ZSTD_freeDStream(st->z);
	free(st);
	d->state = NULL;
}

static int zstd_errno(size_t zr)
{
	switch (ZSTD_getErrorCode(zr)) {
	case ZSTD_error_memory_allocation:
		return -ENOMEM;
	case ZSTD_error_frameParameter_windowTooLarge:
		return -ERANGE;
	default:
		return -EBADMSG;
	}
}

static int zstd_decode(struct codec_decoder *d, struct codec_io *io)
{
	struct zstd_state *st = d->state;
	ZSTD_outBuffer out = { io->out, io->cap, 0 };
	ZSTD_inBuffer in = { io->in, io->in_len, 0 };
	int r = 0;

	/* back as soon as some text came out, as codec-gzip.c */
	while (out.pos == 0 && out.size) {
		size_t in_before = in.pos, out_before = out.pos, zr;

		if (in.pos == in.size) {
			/* the input may only end between frames */
			if (!io->in_end)
				break;
			if (!st->frame_open) {
				r = 1;
				break;
			}
		}
		/* with no input left this flushes what the decoder still holds */
		zr = ZSTD_decompressStream(st->z, &out, &in);
		if (ZSTD_isError(zr)) {
			r = zstd_errno(zr);
			break;
		}
		/* 0: a frame is complete and flushed */
		st->frame_open = zr != 0;
		if (!st->frame_open && !(d->o.flags & CODEC_CONCATENATED)) {
			r = 1;
			break;
		}
		if (in.pos == in_before && out.pos == out_before && in.pos == in.size) {
			if (io->in_end)
				r = -EBADMSG;	/* truncated inside a frame */
			break;
		}
	}
	io->in_used = in.pos;
	io->out_n = out.pos;
	return r;
}

const struct codec_ops codec_zstd_ops = {
	.init = zstd_init,
	.decode = zstd_decode,
	.done = zstd_done,
};
