/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "codec.h"

/* One call of a format's decode: the input and room it gets, what it took and gave. */
struct codec_io {
	const uint8_t *in;
	size_t in_len;
	bool in_end;
	uint8_t *out;
	size_t cap;
	size_t in_used, out_n;	/* set by decode */
};

/*
 * A format: init (0, -EINVAL, -ENOMEM) sets d->state; decode returns as codec_decode()
 * but for -EFBIG, which the dispatcher judges; done frees d->state.
 */
struct codec_ops {
	int (*init)(struct codec_decoder *d);
	int (*decode)(struct codec_decoder *d, struct codec_io *io);
	void (*done)(struct codec_decoder *d);
};

struct codec_decoder {
	enum codec_type type;
	struct codec_options o;
	const struct codec_ops *ops;
	void *state;
	uint64_t out;		/* bytes written so far */
	int result;		/* 1 once at the end, <0 after an error; 0 while decoding */
};

extern const struct codec_ops codec_gzip_ops;
extern const struct codec_ops codec_xz_ops;
extern const struct codec_ops codec_zstd_ops;
