/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "helpers.h"
#include "util/codec.h"

/* Text that compresses but is not one byte repeated: a decoder that skips fails. */
static uint8_t *sample(size_t len)
{
	uint8_t *p = malloc(len ? len : 1);
	uint32_t x = 12345;

	assert_non_null(p);
	for (size_t i = 0; i < len; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = (i % 61 == 60) ? '\n' : (uint8_t)('a' + (x >> 16) % 7);
	}
	return p;
}

typedef void *(*compress_fn)(const void *, size_t, size_t *);

static const struct {
	enum codec_type type;
	compress_fn fn;
} formats[] = {
	{ CODEC_GZIP, gzip_of },
	{ CODEC_XZ, xz_of },
	{ CODEC_ZSTD, zstd_of },
};

/* @a then @b, in one buffer */
static uint8_t *cat(const uint8_t *a, size_t la, const void *b, size_t lb, size_t *ret_len)
{
	uint8_t *p = malloc(la + lb);

	assert_non_null(p);
	memcpy(p, a, la);
	memcpy(p + la, b, lb);
	*ret_len = la + lb;
	return p;
}

static void test_detect(void **state)
{
	static const struct {
		const char *head;
		size_t len;
		int want_r;
		enum codec_type want;
		const char *what;
	} cases[] = {
		{ "\x1f\x8b\x08\0\0\0\0\0\0\3", 10, 0, CODEC_GZIP, NULL },
		{ "\xfd" "7zXZ\0\0\4", 9, 0, CODEC_XZ, NULL },
		{ "\x28\xb5\x2f\xfd\x20\x10", 6, 0, CODEC_ZSTD, NULL },
		{ "BZh91AY&SY", 10, -EPROTONOSUPPORT, CODEC_NONE, "bzip2" },
		{ "BZh is a word", 13, 0, CODEC_NONE, NULL },	/* no block magic */
		{ "\x04\x22\x4d\x18\x64", 5, -EPROTONOSUPPORT, CODEC_NONE, "lz4" },
		{ "\x5d\x00\x00\x80\x00", 5, -EPROTONOSUPPORT, CODEC_NONE, "lzma" },
		{ "[    0.000000] Linux", 20, 0, CODEC_NONE, NULL },
		{ "\x1f", 1, 0, CODEC_NONE, NULL },		/* too short for a magic */
		{ "\xfd" "7zX", 4, 0, CODEC_NONE, NULL },
		{ "", 0, 0, CODEC_NONE, NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum codec_type t = _CODEC_TYPE_MAX;
		const char *what = NULL;
		int r = codec_detect(cases[i].head, cases[i].len, &t, &what);

		assert_int_equal(r, cases[i].want_r);
		if (r == 0)
			assert_int_equal(t, cases[i].want);
		if (cases[i].what)
			assert_string_equal(what, cases[i].what);
	}
	assert_string_equal(codec_name(CODEC_NONE), "none");
	assert_string_equal(codec_name(CODEC_GZIP), "gzip");
	assert_string_equal(codec_name(CODEC_XZ), "xz");
	assert_string_equal(codec_name(CODEC_ZSTD), "zstd");
}

/* Each format compressed by its library here, detected and decoded back, whole. */
static void test_roundtrip_buffer(void **state)
{
	static const size_t sizes[] = { 0, 1, 4096, 300000 };

	(void)state;
	for (size_t f = 0; f < 3; f++) {
		for (size_t k = 0; k < 4; k++) {
			uint8_t *text = sample(sizes[k]), *z, *got = NULL;
			size_t zlen, got_len = 0;
			enum codec_type t;

			z = formats[f].fn(text, sizes[k], &zlen);
			assert_int_equal(codec_detect(z, zlen, &t, NULL), 0);
			assert_int_equal(t, formats[f].type);
			assert_int_equal(codec_decode_buffer(t, NULL, z, zlen, &got, &got_len), 0);
			assert_int_equal(got_len, sizes[k]);
			if (sizes[k])
				assert_memory_equal(got, text, sizes[k]);
			assert_int_equal(got[got_len], '\0');
			free(got);
			free(z);
			free(text);
		}
	}
}

/*
 * Streamed a byte of input at a time into 7 bytes of room: every state of the decoders
 * is crossed between calls. Returns codec_decode()'s last result; *@ret_n the text.
 */
static int decode_trickle(enum codec_type t, const struct codec_options *o, const uint8_t *z,
			  size_t zlen, uint8_t *out, size_t cap, size_t *ret_n)
{
	struct codec_decoder *d = NULL;
	size_t pos = 0, n = 0;
	unsigned int idle = 0;
	int r;

	assert_int_equal(codec_decoder_new(t, o, &d), 0);
	for (;;) {
		const uint8_t *p = z + pos;
		size_t avail = pos < zlen ? 1 : 0, before = avail, got;
		size_t room = cap - n < 7 ? cap - n : 7;

		r = codec_decode(d, &p, &avail, pos + 1 >= zlen, out + n, room, &got);
		pos += before - avail;
		n += got;
		if (r != 0)
			break;
		idle = got || before != avail ? 0 : idle + 1;
		assert_true(idle < 8);	/* it must end, or ask for input it then takes */
	}
	assert_int_equal(codec_decoder_out(d), n);
	/* done: the same answer again, and nothing more */
	{
		const uint8_t *p = z;
		size_t avail = zlen, got = 1;

		assert_int_equal(codec_decode(d, &p, &avail, true, out, cap, &got), r);
		assert_int_equal(got, 0);
	}
	codec_decoder_free(d);
	*ret_n = n;
	return r;
}

static void test_roundtrip_trickle(void **state)
{
	const size_t len = 5000;

	(void)state;
	for (size_t f = 0; f < 3; f++) {
		uint8_t *text = sample(len), *z, *out = malloc(len + 64);
		size_t zlen, n;

		z = formats[f].fn(text, len, &zlen);
		assert_int_equal(decode_trickle(formats[f].type, NULL, z, zlen, out, len + 64, &n), 1);
		assert_int_equal(n, len);
		assert_memory_equal(out, text, len);
		free(out);
		free(z);
		free(text);
	}
}

/* Cut anywhere before its end, every format says so: never a shorter text. */
static void test_truncated(void **state)
{
	const size_t len = 20000;

	(void)state;
	for (size_t f = 0; f < 3; f++) {
		uint8_t *text = sample(len), *z, *got = NULL, *out = malloc(len + 64);
		size_t zlen, got_len, n;
		const size_t cuts[] = { 1, 3, 2 };

		z = formats[f].fn(text, len, &zlen);
		for (size_t c = 0; c < 3; c++) {
			size_t cut = c == 2 ? zlen / 2 : zlen - cuts[c];

			assert_int_equal(codec_decode_buffer(formats[f].type, NULL, z, cut, &got,
							     &got_len),
					 -EBADMSG);
			assert_int_equal(decode_trickle(formats[f].type, NULL, z, cut, out, len + 64,
							&n),
					 -EBADMSG);
		}
		free(out);
		free(z);
		free(text);
	}
}

static void test_cap(void **state)
{
	const size_t len = 100000;

	(void)state;
	for (size_t f = 0; f < 3; f++) {
		uint8_t *text = sample(len), *z, *got = NULL;
		size_t zlen, got_len = 0;
		struct codec_options o = { .max_out = len - 1 };

		z = formats[f].fn(text, len, &zlen);
		/* one byte over: -EFBIG and nothing handed out */
		assert_int_equal(codec_decode_buffer(formats[f].type, &o, z, zlen, &got, &got_len),
				 -EFBIG);
		assert_null(got);
		/* exactly the cap: the text */
		o.max_out = len;
		assert_int_equal(codec_decode_buffer(formats[f].type, &o, z, zlen, &got, &got_len),
				 0);
		assert_int_equal(got_len, len);
		assert_memory_equal(got, text, len);
		free(got);
		free(z);
		free(text);
	}
}

/* One member by default, all of them with CODEC_CONCATENATED; garbage after is corrupt. */
static void test_concatenated(void **state)
{
	(void)state;
	for (size_t f = 0; f < 3; f++) {
		uint8_t *a = sample(3000), *b = sample(700), *za, *zb, *both, *junk, *got = NULL;
		size_t la, lb, lboth, ljunk, got_len;
		struct codec_options cat_o = { .flags = CODEC_CONCATENATED };

		memset(b, 'z', 700);
		za = formats[f].fn(a, 3000, &la);
		zb = formats[f].fn(b, 700, &lb);
		both = cat(za, la, zb, lb, &lboth);
		assert_int_equal(codec_decode_buffer(formats[f].type, NULL, both, lboth, &got,
						     &got_len), 0);
		assert_int_equal(got_len, 3000);
		free(got);
		assert_int_equal(codec_decode_buffer(formats[f].type, &cat_o, both, lboth, &got,
						     &got_len), 0);
		assert_int_equal(got_len, 3700);
		assert_memory_equal(got, a, 3000);
		assert_memory_equal(got + 3000, b, 700);
		free(got);
		junk = cat(za, la, "garbage!", 8, &ljunk);
		got = NULL;
		assert_int_equal(codec_decode_buffer(formats[f].type, &cat_o, junk, ljunk, &got,
						     &got_len), -EBADMSG);
		assert_null(got);
		/* the first member alone does not look past its end */
		assert_int_equal(codec_decode_buffer(formats[f].type, NULL, junk, ljunk, &got,
						     &got_len), 0);
		assert_int_equal(got_len, 3000);
		free(got);
		free(junk);
		free(both);
		free(za);
		free(zb);
		free(a);
		free(b);
	}
}

/* gzip as gzread() reads it: bytes after a member that start none are ignored. */
static void test_gzip_trailing_ignored(void **state)
{
	struct codec_options o = { .flags = CODEC_CONCATENATED | CODEC_TRAILING_IGNORED };
	static const struct {
		const char *tail;
		size_t len;
		size_t want;	/* text length; 0: -EBADMSG */
	} cases[] = {
		{ "garbage!", 8, 2000 },
		{ "\x1f", 1, 2000 },		/* a lone first magic byte at the end */
		{ "\x1f" "x", 2, 2000 },
		{ "\0\0\0\0", 4, 2000 },
		{ "\x1f\x8b" "junkjunkjunk", 14, 0 },	/* the magic: a member, a corrupt one */
	};
	uint8_t *text = sample(2000), *z, *z2, *out = malloc(4100);
	size_t zlen, z2len;

	(void)state;
	z = gzip_of(text, 2000, &zlen);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t *in, *got = NULL;
		size_t len, got_len, n;
		int r;

		in = cat(z, zlen, cases[i].tail, cases[i].len, &len);
		r = codec_decode_buffer(CODEC_GZIP, &o, in, len, &got, &got_len);
		assert_int_equal(r, cases[i].want ? 0 : -EBADMSG);
		if (r == 0)
			assert_int_equal(got_len, cases[i].want);
		/* the same a byte at a time: the lone 0x1f is kept across calls */
		r = decode_trickle(CODEC_GZIP, &o, in, len, out, 4100, &n);
		assert_int_equal(r, cases[i].want ? 1 : -EBADMSG);
		if (r == 1)
			assert_int_equal(n, cases[i].want);
		free(got);
		free(in);
	}
	/* a second member read a byte at a time, its 0x1f held over */
	z2 = cat(z, zlen, z, zlen, &z2len);
	{
		size_t n;

		assert_int_equal(decode_trickle(CODEC_GZIP, &o, z2, z2len, out, 4100, &n), 1);
		assert_int_equal(n, 4000);
		assert_memory_equal(out + 2000, text, 2000);
	}
	free(z2);
	free(z);
	free(out);
	free(text);
}

/* The kernel's module gzip: the trailer is not checked, not even needed. */
static void test_gzip_no_trailer(void **state)
{
	struct codec_options raw = { .flags = CODEC_NO_TRAILER };
	uint8_t *text = sample(5000), *z, *got = NULL;
	size_t zlen, got_len;

	(void)state;
	z = gzip_of(text, 5000, &zlen);
	z[zlen - 8] ^= 0xff;	/* the CRC */
	assert_int_equal(codec_decode_buffer(CODEC_GZIP, NULL, z, zlen, &got, &got_len), -EBADMSG);
	assert_int_equal(codec_decode_buffer(CODEC_GZIP, &raw, z, zlen, &got, &got_len), 0);
	assert_int_equal(got_len, 5000);
	assert_memory_equal(got, text, 5000);
	free(got);
	/* no trailer at all */
	assert_int_equal(codec_decode_buffer(CODEC_GZIP, &raw, z, zlen - 8, &got, &got_len), 0);
	assert_int_equal(got_len, 5000);
	free(got);
	/* a header it cannot read is corrupt */
	z[2] = 0x07;
	assert_int_equal(codec_decode_buffer(CODEC_GZIP, &raw, z, zlen, &got, &got_len), -EBADMSG);
	/* it has no meaning with members one after another */
	raw.flags |= CODEC_CONCATENATED;
	{
		struct codec_decoder *d = NULL;

		assert_int_equal(codec_decoder_new(CODEC_GZIP, &raw, &d), -EINVAL);
		assert_int_equal(codec_decoder_new(CODEC_NONE, NULL, &d), -EINVAL);
		assert_int_equal(codec_decoder_new(_CODEC_TYPE_MAX, NULL, &d), -EINVAL);
		assert_null(d);
	}
	free(z);
	free(text);
}

/* Memory the data asks for past the limits: -ERANGE, not an allocation. */
static void test_memory_limits(void **state)
{
	uint8_t *text = sample(70000), *z, *got = NULL;
	size_t zlen, got_len;
	struct codec_options o = { .xz_memlimit = 4096 };
	ZSTD_CCtx *cc = ZSTD_createCCtx();

	(void)state;
	z = xz_of(text, 70000, &zlen);	/* preset 6: an 8 MiB dictionary */
	assert_int_equal(codec_decode_buffer(CODEC_XZ, &o, z, zlen, &got, &got_len), -ERANGE);
	free(z);

	/*
	 * A frame with a 64 MiB window: streamed with no size known beforehand, so the
	 * encoder keeps the window asked for whatever the input's size.
	 */
	assert_non_null(cc);
	assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_windowLog, 26)));
	zlen = ZSTD_compressBound(70000) + 1024;
	z = malloc(zlen);
	{
		ZSTD_inBuffer zi = { text, 1000, 0 };
		ZSTD_outBuffer zo = { z, zlen, 0 };
		size_t left;

		assert_false(ZSTD_isError(ZSTD_compressStream2(cc, &zo, &zi, ZSTD_e_continue)));
		zi.size = 70000;
		left = ZSTD_compressStream2(cc, &zo, &zi, ZSTD_e_end);
		assert_int_equal(left, 0);
		zlen = zo.pos;
	}
	o = (struct codec_options){ .zstd_window_log_max = 20 };
	assert_int_equal(codec_decode_buffer(CODEC_ZSTD, &o, z, zlen, &got, &got_len), -ERANGE);
	o.zstd_window_log_max = 26;
	assert_int_equal(codec_decode_buffer(CODEC_ZSTD, &o, z, zlen, &got, &got_len), 0);
	assert_int_equal(got_len, 70000);
	free(got);
	ZSTD_freeCCtx(cc);
	free(z);
	free(text);
}

/* A file: decoded when its format is asked for, else its bytes; capped either way. */
static void test_read_fd(void **state)
{
	const size_t len = 200000;
	uint8_t *text = sample(len), *z, *got = NULL;
	size_t zlen, got_len;
	struct codec_options o = { .flags = CODEC_CONCATENATED };
	char path[] = "/tmp/test-codec-XXXXXX";
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	unlink(path);
	z = gzip_of(text, len, &zlen);
	assert_int_equal(write(fd, z, zlen), (ssize_t)zlen);

	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	assert_int_equal(codec_read_fd(fd, 1u << CODEC_GZIP, &o, &got, &got_len), 0);
	assert_int_equal(got_len, len);
	assert_memory_equal(got, text, len);
	free(got);
	/* gzip not asked for: the bytes as they are */
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	assert_int_equal(codec_read_fd(fd, 1u << CODEC_XZ, &o, &got, &got_len), 0);
	assert_int_equal(got_len, zlen);
	assert_memory_equal(got, z, zlen);
	free(got);
	/* the cap holds for decoded and plain text alike */
	o.max_out = len - 1;
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	assert_int_equal(codec_read_fd(fd, 1u << CODEC_GZIP, &o, &got, &got_len), -EFBIG);
	o.max_out = zlen - 1;
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	assert_int_equal(codec_read_fd(fd, 0, &o, &got, &got_len), -EFBIG);
	/* truncated */
	o.max_out = 0;
	assert_int_equal(ftruncate(fd, (off_t)(zlen - 5)), 0);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	assert_int_equal(codec_read_fd(fd, 1u << CODEC_GZIP, &o, &got, &got_len), -EBADMSG);
	/* empty */
	assert_int_equal(ftruncate(fd, 0), 0);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	assert_int_equal(codec_read_fd(fd, 1u << CODEC_GZIP, &o, &got, &got_len), 0);
	assert_int_equal(got_len, 0);
	assert_int_equal(got[0], '\0');
	free(got);
	close(fd);
	free(z);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_roundtrip_buffer),
		cmocka_unit_test(test_roundtrip_trickle),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_concatenated),
		cmocka_unit_test(test_gzip_trailing_ignored),
		cmocka_unit_test(test_gzip_no_trailer),
		cmocka_unit_test(test_memory_limits),
		cmocka_unit_test(test_read_fd),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
