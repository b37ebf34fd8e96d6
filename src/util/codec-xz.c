/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <lzma.h>
#include <stdlib.h>

#include "codec-internal.h"

static int xz_init(struct codec_decoder *d)
{
	lzma_stream init = LZMA_STREAM_INIT, *x;
	uint64_t memlimit = d->o.xz_memlimit ? d->o.xz_memlimit : UINT64_MAX;
	lzma_ret lr;

	if (d->o.flags & (CODEC_NO_TRAILER | CODEC_TRAILING_IGNORED))
		return -EINVAL;
	x = malloc(sizeof(*x));
	if (!x)
		return -ENOMEM;
	*x = init;
	/* LZMA_CONCATENATED: "cat a.xz b.xz" is read as xz(1) reads it */
	lr = lzma_stream_decoder(x, memlimit,
				 d->o.flags & CODEC_CONCATENATED ? LZMA_CONCATENATED : 0);
	if (lr != LZMA_OK) {
		free(x);
		return lr == LZMA_MEM_ERROR ? -ENOMEM : -EINVAL;
	}
	d->state = x;
	return 0;
}

static void xz_done(struct codec_decoder *d)
{
	lzma_stream *x = d->state;

	if (!x)
		return;
	lzma_end(x);
	free(x);
	d->state = NULL;
}

static int xz_decode(struct codec_decoder *d, struct codec_io *io)
{
	lzma_stream *x = d->state;
	lzma_ret lr;

	x->next_in = io->in;
	x->avail_in = io->in_len;
	x->next_out = io->out;
	x->avail_out = io->cap;
	/* LZMA_FINISH: the input ends here, so a stream cut short is an error */
	lr = lzma_code(x, io->in_end ? LZMA_FINISH : LZMA_RUN);
	io->in_used = io->in_len - x->avail_in;
	io->out_n = io->cap - x->avail_out;
	switch (lr) {
	case LZMA_OK:
		return 0;
	case LZMA_STREAM_END:
		return 1;
	case LZMA_MEM_ERROR:
		return -ENOMEM;
	case LZMA_MEMLIMIT_ERROR:
		return -ERANGE;
	default:
		/* LZMA_BUF_ERROR: no progress at the end of the input, a truncated file */
		return -EBADMSG;
	}
}

const struct codec_ops codec_xz_ops = {
	.init = xz_init,
	.decode = xz_decode,
	.done = xz_done,
};
