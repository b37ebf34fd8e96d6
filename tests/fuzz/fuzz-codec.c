/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/codec.h"
#include "fuzz.h"

/*
 * The dispatcher: the first byte picks the options (flags, the cap, the format when the
 * magic names none), the rest is the input. Decoded whole and again in pieces of a few
 * bytes into a few bytes of room: both must end the same way with the same text, and
 * never past the cap.
 */
#define PIECE 7
#define ROOM 13

static int trickle(enum codec_type t, const struct codec_options *o, const uint8_t *z,
		   size_t zlen, uint8_t *out, size_t cap, size_t *ret_n)
{
	struct codec_decoder *d = NULL;
	size_t pos = 0, n = 0;
	unsigned int idle = 0;
	int r;

	r = codec_decoder_new(t, o, &d);
	if (r < 0)
		return r;
	for (;;) {
		const uint8_t *p = z + pos;
		/* gzip without its trailer wants the whole header in the first input */
		size_t piece = pos == 0 && (o->flags & CODEC_NO_TRAILER) ? 1024 : PIECE;
		size_t avail = zlen - pos < piece ? zlen - pos : piece, before = avail, got;
		size_t room = cap - n < ROOM ? cap - n : ROOM;

		r = codec_decode(d, &p, &avail, pos + before >= zlen, out + n, room, &got);
		pos += before - avail;
		n += got;
		if (r != 0)
			break;
		CHECK(n < cap);		/* the cap says -EFBIG first */
		idle = got || before != avail ? 0 : idle + 1;
		CHECK(idle < 8);	/* it ends, or takes the input it asks for */
	}
	CHECK(codec_decoder_out(d) == n);
	codec_decoder_free(d);
	*ret_n = n;
	return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct codec_options o = { 0 };
	enum codec_type t;
	uint8_t *whole = NULL, *out;
	size_t whole_len = 0, n = 0;
	int r, rt;
	uint8_t sel;

	if (size < 1)
		return 0;
	sel = data[0];
	data++;
	size--;
	if (codec_detect(data, size, &t, NULL) < 0 || t == CODEC_NONE)
		t = (enum codec_type)(CODEC_GZIP + sel % 3);
	if (sel & 0x04)
		o.flags |= CODEC_CONCATENATED;
	if (t == CODEC_GZIP && (sel & 0x08))
		o.flags |= (o.flags & CODEC_CONCATENATED) ? CODEC_TRAILING_IGNORED : CODEC_NO_TRAILER;
	o.max_out = sel & 0x10 ? 4096 : 256u << 10;
	o.xz_memlimit = 64u << 20;
	o.zstd_window_log_max = sel & 0x20 ? 20 : 0;

	r = codec_decode_buffer(t, &o, data, size, &whole, &whole_len);
	CHECK(r == 0 || r == -EBADMSG || r == -EFBIG || r == -ERANGE || r == -ENOMEM);
	CHECK(r == 0 ? whole && whole_len <= o.max_out && whole[whole_len] == '\0' : !whole);

	out = malloc(o.max_out + 1);
	if (!out) {
		free(whole);
		return 0;
	}
	rt = trickle(t, &o, data, size, out, o.max_out + 1, &n);
	CHECK(rt == 1 || rt == -EBADMSG || rt == -EFBIG || rt == -ERANGE || rt == -ENOMEM);
	/*
	 * A text read whole is read the same in pieces, and the other way round; but
	 * libzstd holds a frame to the content size its header names when it decodes the
	 * frame in one pass, not always when the frame comes in pieces (a caller that
	 * trusts that size checks it, as modfile.c does).
	 */
	if ((r == 0 || rt == 1) && t != CODEC_ZSTD)
		CHECK(r == 0 && rt == 1);
	if (r == 0 && rt == 1)
		CHECK(n == whole_len && memcmp(out, whole, n) == 0);
	free(out);
	free(whole);
	return 0;
}
