/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "helpers.h"
#include "output/table.h"
#include "output/units.h"
#include "util/array.h"
#include "util/hindex.h"
#include "util/escape.h"
#include "util/linereader.h"
#include "util/macro.h"
#include "util/linecache.h"
#include "util/parse-num.h"
#include "util/root.h"
#include "util/version.h"

/* ---- linereader ------------------------------------------------------------------ */

static void test_linereader_lines(void **state)
{
	static const char text[] = "first\n\nthird line\n";
	struct linereader lr;
	FILE *f = mem_file(text, sizeof(text) - 1);
	char *line;
	size_t len;

	linereader_init(&lr, f, 0);
	assert_int_equal(lr.max, LINEREADER_DEFAULT_MAX);
	assert_int_equal(linereader_next(&lr, &line, &len), 1);
	assert_string_equal(line, "first");
	assert_int_equal(len, 5);
	assert_int_equal(lr.lineno, 1);
	assert_int_equal(linereader_next(&lr, &line, &len), 1);
	assert_string_equal(line, "");
	assert_int_equal(len, 0);
	assert_int_equal(lr.lineno, 2);
	assert_int_equal(linereader_next(&lr, &line, &len), 1);
	assert_string_equal(line, "third line");
	assert_int_equal(len, 10);
	assert_int_equal(lr.lineno, 3);
	assert_int_equal(linereader_next(&lr, &line, &len), 0);
	assert_int_equal(linereader_next(&lr, &line, &len), 0);
	assert_int_equal(lr.lineno, 3);
	assert_false(lr.missing_newline);
	linereader_done(&lr);
	linereader_done(&lr);	/* idempotent */
	fclose(f);
}

static void test_linereader_missing_newline(void **state)
{
	static const char text[] = "a\nlast";
	struct linereader lr;
	FILE *f = mem_file(text, sizeof(text) - 1);
	char *line;
	size_t len;

	linereader_init(&lr, f, 0);
	assert_int_equal(linereader_next(&lr, &line, &len), 1);
	assert_string_equal(line, "a");
	assert_false(lr.missing_newline);
	assert_int_equal(linereader_next(&lr, &line, &len), 1);
	assert_string_equal(line, "last");
	assert_int_equal(len, 4);
	assert_int_equal(lr.lineno, 2);
	assert_true(lr.missing_newline);
	assert_int_equal(linereader_next(&lr, &line, &len), 0);
	linereader_done(&lr);
	fclose(f);
}

static void test_linereader_empty(void **state)
{
	struct linereader lr;
	FILE *f = mem_file("", 0);
	char *line = NULL;
	size_t len = 99;

	linereader_init(&lr, f, 0);
	assert_int_equal(linereader_next(&lr, &line, &len), 0);
	assert_int_equal(lr.lineno, 0);
	assert_null(line);
	assert_int_equal(len, 99);
	linereader_done(&lr);
	fclose(f);
}

static void test_linereader_long_line(void **state)
{
	size_t big = 1 << 20, n = 0;
	char *text = malloc(big + 64);
	struct linereader lr;
	char *line;
	size_t len;
	FILE *f;

	assert_non_null(text);
	n += sprintf(text, "short\n");
	memset(text + n, 'x', big);
	n += big;
	n += sprintf(text + n, "\nnext\n");
	f = mem_file(text, n);

	linereader_init(&lr, f, 0);
	assert_int_equal(linereader_next(&lr, &line, &len), 1);
	assert_string_equal(line, "short");
	assert_int_equal(linereader_next(&lr, &line, &len), -E2BIG);
	assert_int_equal(lr.lineno, 2);
	/* the rest of the long line was skipped, not returned as lines */
	assert_int_equal(linereader_next(&lr, &line, &len), 1);
	assert_string_equal(line, "next");
	assert_int_equal(lr.lineno, 3);
	assert_int_equal(linereader_next(&lr, &line, &len), 0);
	/* the buffer never grew past the bound */
	assert_true(lr.cap <= LINEREADER_DEFAULT_MAX + 1);
	linereader_done(&lr);
	fclose(f);
	free(text);
}

static void test_linereader_max_boundary(void **state)
{
	static const char text[] = "abcd\nabcde\nab";
	struct linereader lr;
	FILE *f = mem_file(text, sizeof(text) - 1);
	char *line;
	size_t len;

	linereader_init(&lr, f, 4);
	assert_int_equal(linereader_next(&lr, &line, &len), 1);
	assert_string_equal(line, "abcd");
	assert_int_equal(linereader_next(&lr, &line, &len), -E2BIG);
	assert_int_equal(lr.lineno, 2);
	assert_int_equal(linereader_next(&lr, &line, &len), 1);
	assert_string_equal(line, "ab");
	assert_int_equal(linereader_next(&lr, &line, &len), 0);
	linereader_done(&lr);
	fclose(f);

	/* an over-long last line without newline is still reported once */
	f = mem_file("abcdefgh", 8);
	linereader_init(&lr, f, 4);
	assert_int_equal(linereader_next(&lr, &line, &len), -E2BIG);
	assert_int_equal(lr.lineno, 1);
	assert_int_equal(linereader_next(&lr, &line, &len), 0);
	linereader_done(&lr);
	fclose(f);
}

static void test_linereader_nul(void **state)
{
	static const char text[] = "ok\nbad\0byte\nafter\n\0";
	struct linereader lr;
	FILE *f = mem_file(text, sizeof(text) - 1);
	char *line;
	size_t len;

	linereader_init(&lr, f, 0);
	assert_int_equal(linereader_next(&lr, &line, &len), 1);
	assert_string_equal(line, "ok");
	assert_int_equal(linereader_next(&lr, &line, &len), -EBADMSG);
	assert_int_equal(lr.lineno, 2);
	assert_int_equal(linereader_next(&lr, &line, &len), 1);
	assert_string_equal(line, "after");
	assert_int_equal(lr.lineno, 3);
	/* a lone NUL as the unterminated last line */
	assert_int_equal(linereader_next(&lr, &line, &len), -EBADMSG);
	assert_int_equal(lr.lineno, 4);
	assert_int_equal(linereader_next(&lr, &line, &len), 0);
	linereader_done(&lr);
	fclose(f);
}

static void test_linereader_crlf(void **state)
{
	static const char text[] = "dos\r\n\r\n";
	struct linereader lr;
	FILE *f = mem_file(text, sizeof(text) - 1);
	char *line;
	size_t len;

	linereader_init(&lr, f, 0);
	assert_int_equal(linereader_next(&lr, &line, &len), 1);
	assert_int_equal(len, 4);
	assert_memory_equal(line, "dos\r", 5);
	assert_int_equal(linereader_next(&lr, &line, &len), 1);
	assert_int_equal(len, 1);
	assert_string_equal(line, "\r");
	assert_int_equal(linereader_next(&lr, &line, &len), 0);
	linereader_done(&lr);
	fclose(f);
}

/* What linereader_feed() hands a sink, as one string: "s<line>:<what>", "f<line>:<text>", "end" */
struct feed_log {
	char text[256];
	unsigned int fail_at;	/* the call (1-based) that fails, 0 for none */
	unsigned int calls;
};

static int feed_log_add(struct feed_log *l, const char *fmt, ...)
{
	size_t n = strlen(l->text);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(l->text + n, sizeof(l->text) - n, fmt, ap);
	va_end(ap);
	return ++l->calls == l->fail_at ? -EPROTO : 0;
}

static int log_skip(void *ctx, const char *what, unsigned int lineno)
{
	return feed_log_add(ctx, "s%u:%s|", lineno, what);
}

static int log_feed(void *ctx, char *line, size_t len, unsigned int lineno)
{
	return feed_log_add(ctx, "f%u:%.*s|", lineno, (int)len, line);
}

static int log_finish(void *ctx)
{
	return feed_log_add(ctx, "end");
}

static const struct linereader_sink log_sink = {
	.skip = log_skip,
	.feed = log_feed,
	.finish = log_finish,
	.failed = "sink failed",
};

static void test_linereader_feed(void **state)
{
	static const char text[] = "one\ntoo long\nn\0l\nfour";
	struct feed_log l = { 0 };
	struct kt_err err = { 0 };
	FILE *f = mem_file(text, sizeof(text) - 1);

	/* refused lines are skipped and reading goes on; the last line needs no newline */
	assert_int_equal(linereader_feed(f, "log", 5, &log_sink, &l, &err), 0);
	assert_string_equal(l.text, "f1:one|s2:line too long|s3:line contains a NUL byte|"
			    "f4:four|end");
	assert_int_equal(err.line, 0);
	fclose(f);

	/* the first failure stops the read, and names the line it stood at */
	for (unsigned int fail = 1; fail <= 5; fail++) {
		memset(&l, 0, sizeof(l));
		l.fail_at = fail;
		f = mem_file(text, sizeof(text) - 1);
		assert_int_equal(linereader_feed(f, "log", 5, &log_sink, &l, &err), -EPROTO);
		assert_int_equal(l.calls, fail);
		assert_string_equal(err.path, "log");
		assert_int_equal(err.line, fail < 5 ? fail : 4);
		assert_string_equal(err.what, "sink failed");
		fclose(f);
	}
}

/* ---- parse-num ------------------------------------------------------------------- */

static void test_parse_u64(void **state)
{
	uint64_t v = 7;

	assert_int_equal(parse_u64("0", 10, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(parse_u64("24576", 10, &v), 0);
	assert_int_equal(v, 24576);
	assert_int_equal(parse_u64("18446744073709551615", 10, &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(parse_u64(" \t42 \t", 10, &v), 0);
	assert_int_equal(v, 42);

	v = 7;
	assert_int_equal(parse_u64("18446744073709551616", 10, &v), -ERANGE);
	assert_int_equal(parse_u64("99999999999999999999999", 10, &v), -ERANGE);
	assert_int_equal(parse_u64("", 10, &v), -EINVAL);
	assert_int_equal(parse_u64("   ", 10, &v), -EINVAL);
	assert_int_equal(parse_u64("-", 10, &v), -EINVAL);
	assert_int_equal(parse_u64("-1", 10, &v), -EINVAL);
	assert_int_equal(parse_u64(" -1", 10, &v), -EINVAL);
	assert_int_equal(parse_u64("+1", 10, &v), -EINVAL);
	assert_int_equal(parse_u64("abc", 10, &v), -EINVAL);
	assert_int_equal(parse_u64("12abc", 10, &v), -EINVAL);
	assert_int_equal(parse_u64("1 2", 10, &v), -EINVAL);
	assert_int_equal(parse_u64("12\n", 10, &v), -EINVAL);
	assert_int_equal(parse_u64("1.5", 10, &v), -EINVAL);
	/* strtoull() skips \n, \v, \f, \r itself: a '-' behind them must not wrap around */
	assert_int_equal(parse_u64("\n-1", 10, &v), -EINVAL);
	assert_int_equal(parse_u64("\v-1", 16, &v), -EINVAL);
	assert_int_equal(parse_u64("\r\f-5", 0, &v), -EINVAL);
	assert_int_equal(v, 7);	/* untouched on failure */

	/* base 10 does not take a prefix, base 0 and 16 do */
	assert_int_equal(parse_u64("0x10", 10, &v), -EINVAL);
	assert_int_equal(parse_u64("0x10", 0, &v), 0);
	assert_int_equal(v, 16);
	assert_int_equal(parse_u64("010", 0, &v), 0);
	assert_int_equal(v, 8);
	assert_int_equal(parse_u64("0x10", 16, &v), 0);
	assert_int_equal(v, 16);
	assert_int_equal(parse_u64("ffffffffc0476000", 16, &v), 0);
	assert_true(v == 0xffffffffc0476000ull);
	assert_int_equal(parse_u64("0xffffffffffffffff", 16, &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(parse_u64("0x10000000000000000", 16, &v), -ERANGE);
	assert_int_equal(parse_u64("0x", 16, &v), -EINVAL);
	assert_int_equal(parse_u64("0xg", 16, &v), -EINVAL);
	assert_int_equal(parse_u64("0x-1", 16, &v), -EINVAL);
}

static void test_parse_i64(void **state)
{
	int64_t v = 7;

	assert_int_equal(parse_i64("-1", 10, &v), 0);
	assert_int_equal(v, -1);
	assert_int_equal(parse_i64(" 123 ", 10, &v), 0);
	assert_int_equal(v, 123);
	assert_int_equal(parse_i64("9223372036854775807", 10, &v), 0);
	assert_true(v == INT64_MAX);
	assert_int_equal(parse_i64("-9223372036854775808", 10, &v), 0);
	assert_true(v == INT64_MIN);
	assert_int_equal(parse_i64("-0x10", 0, &v), 0);
	assert_int_equal(v, -16);

	v = 7;
	assert_int_equal(parse_i64("9223372036854775808", 10, &v), -ERANGE);
	assert_int_equal(parse_i64("-9223372036854775809", 10, &v), -ERANGE);
	assert_int_equal(parse_i64("18446744073709551616", 10, &v), -ERANGE);
	assert_int_equal(parse_i64("", 10, &v), -EINVAL);
	assert_int_equal(parse_i64("-", 10, &v), -EINVAL);
	assert_int_equal(parse_i64("--1", 10, &v), -EINVAL);
	assert_int_equal(parse_i64("+1", 10, &v), -EINVAL);
	assert_int_equal(parse_i64("\n+1", 10, &v), -EINVAL);
	assert_int_equal(parse_i64("1x", 10, &v), -EINVAL);
	assert_int_equal(parse_i64("0x10", 10, &v), -EINVAL);
	assert_int_equal(v, 7);
}

/* the in-place parsers give what the NUL-terminated ones give on a copy, for any bytes */
static void test_parse_n_matches_copy(void **state)
{
	static const char alphabet[] = "0123456789abcdefABCDEFxX -+\t\n\r\0zg";
	static const char *const fixed[] = {
		"", " ", "0", "0x", "0x1", "0X1f", "0xg", "-0x5", "- 5", "+5", "  42  ",
		"18446744073709551615", "18446744073709551616", "99999999999999999999x",
		"ffffffffffffffff", "10000000000000000", "9223372036854775807",
		"9223372036854775808", "-9223372036854775808", "-9223372036854775809",
		"1\t", "\t1", "1 2", "--1", "0x0x5",
	};
	unsigned int seed = 12345;
	char buf[40], copy[41];

	(void)state;
	for (size_t k = 0; k < 200000 + ARRAY_SIZE(fixed); k++) {
		size_t n;
		int bases[] = { 10, 16, 8 };

		if (k < ARRAY_SIZE(fixed)) {
			n = strlen(fixed[k]);
			memcpy(buf, fixed[k], n);
		} else {
			n = (size_t)(rand_r(&seed) % 24);
			for (size_t i = 0; i < n; i++) {
				unsigned int r = (unsigned int)rand_r(&seed);

				/* mostly digits, so long numbers (and overflows) occur */
				buf[i] = r % 4 ? "0123456789abcdef"[(r >> 3) % (r % 3 ? 10 : 16)]
					       : alphabet[(r >> 3) % (sizeof(alphabet) - 1)];
			}
		}
		memcpy(copy, buf, n);
		copy[n] = '\0';
		for (size_t b = 0; b < ARRAY_SIZE(bases); b++) {
			uint64_t u1 = 7, u2 = 7;
			int64_t i1 = 7, i2 = 7;
			int r1, r2;

			r1 = parse_u64(copy, bases[b], &u1);
			r2 = parse_u64_n(buf, n, bases[b], &u2);
			if (r1 != r2 || u1 != u2)
				fail_msg("parse_u64_n(\"%s\", %d): %d %llu, want %d %llu", copy,
					 bases[b], r2, (unsigned long long)u2, r1,
					 (unsigned long long)u1);
			r1 = parse_i64(copy, bases[b], &i1);
			r2 = parse_i64_n(buf, n, bases[b], &i2);
			if (r1 != r2 || i1 != i2)
				fail_msg("parse_i64_n(\"%s\", %d): %d %lld, want %d %lld", copy,
					 bases[b], r2, (long long)i2, r1, (long long)i1);
		}
	}
}

static void test_parse_u32_int(void **state)
{
	uint32_t u = 7;
	int i = 7;

	assert_int_equal(parse_u32("4294967295", 10, &u), 0);
	assert_true(u == UINT32_MAX);
	assert_int_equal(parse_u32("0x1f", 16, &u), 0);
	assert_int_equal(u, 31);
	u = 7;
	assert_int_equal(parse_u32("4294967296", 10, &u), -ERANGE);
	assert_int_equal(parse_u32("18446744073709551616", 10, &u), -ERANGE);
	assert_int_equal(parse_u32("-1", 10, &u), -EINVAL);
	assert_int_equal(parse_u32("", 10, &u), -EINVAL);
	assert_int_equal(parse_u32("1k", 10, &u), -EINVAL);
	assert_int_equal(u, 7);

	assert_int_equal(parse_int("2147483647", &i), 0);
	assert_int_equal(i, INT_MAX);
	assert_int_equal(parse_int("-2147483648", &i), 0);
	assert_int_equal(i, INT_MIN);
	assert_int_equal(parse_int(" -3 ", &i), 0);
	assert_int_equal(i, -3);
	i = 7;
	assert_int_equal(parse_int("2147483648", &i), -ERANGE);
	assert_int_equal(parse_int("-2147483649", &i), -ERANGE);
	assert_int_equal(parse_int("9223372036854775808", &i), -ERANGE);
	assert_int_equal(parse_int("0x10", &i), -EINVAL);	/* base 10 only */
	assert_int_equal(parse_int("-", &i), -EINVAL);
	assert_int_equal(parse_int("", &i), -EINVAL);
	assert_int_equal(parse_int("two", &i), -EINVAL);
	assert_int_equal(i, 7);
}

/* ---- escape ---------------------------------------------------------------------- */

/* Columns of escaped text: one a UTF-8 lead byte */
static size_t columns(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void check_escape(const char *in, size_t len, const char *want)
{
	char *out = escape_dup(in, len), *written = NULL;
	size_t n_written = 0;
	FILE *f = open_memstream(&written, &n_written);

	assert_non_null(out);
	assert_string_equal(out, want);
	assert_int_equal(escape_needed(in, len), strlen(want) != len || memcmp(want, in, len) != 0);
	assert_int_equal(escape_width(in, len), columns(want));
	assert_non_null(f);
	escape_fputs(in, len, f);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(written, want);
	free(written);
	free(out);
}

#define CHECK_ESCAPE(lit, want) check_escape(lit, sizeof(lit) - 1, want)

static void test_escape_terminal_sequences(void **state)
{
	CHECK_ESCAPE("\033[2J", "\\x1b[2J");
	CHECK_ESCAPE("x\033[31mred\033[0m", "x\\x1b[31mred\\x1b[0m");
	/* OSC 52 would write the clipboard */
	CHECK_ESCAPE("\033]52;c;aGVsbG8=\007", "\\x1b]52;c;aGVsbG8=\\x07");
	CHECK_ESCAPE("a\tb\nc\rd", "a\\x09b\\x0ac\\x0dd");
	CHECK_ESCAPE("\x7f", "\\x7f");
	CHECK_ESCAPE("nul\0in", "nul\\x00in");
	/* C1 CSI as UTF-8 (U+009B) and as a raw byte */
	CHECK_ESCAPE("\xc2\x9b" "2J", "\\xc2\\x9b2J");
	CHECK_ESCAPE("\xc2\x80", "\\xc2\\x80");
	CHECK_ESCAPE("\xc2\x9f", "\\xc2\\x9f");
	CHECK_ESCAPE("\x9b" "2J", "\\x9b2J");
	/* U+00A0 is the first code point after C1: kept */
	CHECK_ESCAPE("\xc2\xa0", "\xc2\xa0");
}

/* A name that reads as "none" ("-") or as the unnamed row is shown escaped; no other */
static void test_escape_name_placeholders(void **state)
{
	static const struct {
		const char *in, *want;
	} t[] = {
		{ "-", "\\x2d" }, { "(unnamed)", "\\x28unnamed)" }, { "--", "--" },
		{ "(unnamed", "(unnamed" }, { "xfs", "xfs" }, { "a\033b", "a\\x1bb" }, { "", "" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *e = escape_name_dup(t[i].in, strlen(t[i].in));

		assert_non_null(e);
		assert_string_equal(e, t[i].want);
		assert_int_equal(escape_name_is_placeholder(t[i].in, strlen(t[i].in)),
				 strcmp(t[i].in, "-") == 0 || strcmp(t[i].in, "(unnamed)") == 0);
		free(e);
	}
}

static void test_escape_invalid_utf8(void **state)
{
	CHECK_ESCAPE("\xff", "\\xff");
	CHECK_ESCAPE("\xfe\xfe", "\\xfe\\xfe");
	CHECK_ESCAPE("\x80", "\\x80");
	CHECK_ESCAPE("\xc3(", "\\xc3(");
	CHECK_ESCAPE("\xe2\x82", "\\xe2\\x82");		/* truncated at the end */
	CHECK_ESCAPE("\xe2\x82x", "\\xe2\\x82x");
	CHECK_ESCAPE("\xf0\x9f\x98", "\\xf0\\x9f\\x98");
	/* overlong encodings of '/' and NUL */
	CHECK_ESCAPE("\xc0\xaf", "\\xc0\\xaf");
	CHECK_ESCAPE("\xc1\xbf", "\\xc1\\xbf");
	CHECK_ESCAPE("\xc0\x80", "\\xc0\\x80");
	CHECK_ESCAPE("\xe0\x80\xaf", "\\xe0\\x80\\xaf");
	CHECK_ESCAPE("\xf0\x80\x80\xaf", "\\xf0\\x80\\x80\\xaf");
	/* surrogates, beyond U+10FFFF, 5-byte forms */
	CHECK_ESCAPE("\xed\xa0\x80", "\\xed\\xa0\\x80");
	CHECK_ESCAPE("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");
	CHECK_ESCAPE("\xf8\x88\x80\x80\x80", "\\xf8\\x88\\x80\\x80\\x80");
}

static void test_escape_bidi_backslash(void **state)
{
	/* RIGHT-TO-LEFT OVERRIDE, LEFT-TO-RIGHT EMBEDDING, FIRST STRONG ISOLATE, PDI */
	CHECK_ESCAPE("ab\xe2\x80\xae" "cd", "ab\\xe2\\x80\\xaecd");
	CHECK_ESCAPE("\xe2\x80\xaa", "\\xe2\\x80\\xaa");
	CHECK_ESCAPE("\xe2\x81\xa8", "\\xe2\\x81\\xa8");
	CHECK_ESCAPE("\xe2\x81\xa9", "\\xe2\\x81\\xa9");
	/* neighbours of the ranges are ordinary punctuation */
	CHECK_ESCAPE("\xe2\x80\xaf", "\xe2\x80\xaf");
	CHECK_ESCAPE("\xe2\x81\xa5", "\xe2\x81\xa5");
	/* a backslash is doubled, so "\x1b" in a name cannot pose as an escape */
	CHECK_ESCAPE("a\\b", "a\\\\b");
	CHECK_ESCAPE("\\x1b", "\\\\x1b");
}

static void test_escape_valid_utf8(void **state)
{
	CHECK_ESCAPE("", "");
	CHECK_ESCAPE("xfs", "xfs");
	CHECK_ESCAPE("nls_iso8859-1 [permanent],", "nls_iso8859-1 [permanent],");
	CHECK_ESCAPE("caf\xc3\xa9", "caf\xc3\xa9");
	CHECK_ESCAPE("\xe2\x82\xac", "\xe2\x82\xac");
	CHECK_ESCAPE("\xe6\xa8\xa1\xe5\x9d\x97", "\xe6\xa8\xa1\xe5\x9d\x97");
	CHECK_ESCAPE("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80");
	CHECK_ESCAPE("\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf");	/* U+10FFFF */
	/* only @len bytes are looked at */
	check_escape("ab\033", 2, "ab");
}

static void test_escape_every_byte(void **state)
{
	/* whatever a single byte is, the output holds no control byte and no lone >= 0x80 */
	for (unsigned int b = 0; b < 256; b++) {
		char in = (char)b, *out = escape_dup(&in, 1);

		assert_non_null(out);
		for (const unsigned char *p = (const unsigned char *)out; *p; p++)
			assert_true(*p >= 0x20 && *p < 0x7f);
		if (b >= 0x20 && b < 0x7f && b != '\\')
			assert_false(escape_needed(&in, 1));
		else
			assert_true(escape_needed(&in, 1));
		free(out);
	}
}

/* cell_text_width() and cell_fputs(): as cell_to_text()'s text, for every kind of cell */
static void test_cell_text_width(void **state)
{
	static const struct col_desc cols[] = {
		{ "S", "s", COL_STR, 0, NULL },	    { "U", "u", COL_U64, 0, NULL },
		{ "I", "i", COL_I64, 0, NULL },	    { "B", "b", COL_BYTES, 0, NULL },
		{ "F", "f", COL_FLOAT, 0, NULL },   { "C", "c", COL_COUNTS, 0, NULL },
		{ "V", "v", COL_STRV, 0, NULL },
	};
	static const uint64_t nums[] = { 0, 9, 10, 99, 100, 12345, UINT64_MAX / 10, UINT64_MAX };
	static const char *const strs[] = { "", "a", "a\\b", "\033[2J", "caf\xc3\xa9", "\xff\xfe",
					    "\xe2\x80\xae", "nfs: Unknown symbol x (err -2)" };
	struct table *t;
	size_t row, w;
	char buf[16];

	assert_int_equal(table_new(cols, ARRAY_SIZE(cols), &t), 0);
	/* unset cells first */
	assert_int_equal(table_add_row(t, &row), 0);
	for (size_t i = 0; i < ARRAY_SIZE(nums); i++) {
		assert_int_equal(table_add_row(t, &row), 0);
		table_set_u64(t, row, 1, nums[i]);
		table_set_i64(t, row, 2, -(int64_t)(nums[i] / 2));
		table_set_u64(t, row, 3, nums[i]);
		table_set_float(t, row, 4, (double)nums[i] / 3);
		assert_int_equal(table_add_count(t, row, 5, strs[i % ARRAY_SIZE(strs)], nums[i]), 0);
	}
	for (size_t i = 0; i < ARRAY_SIZE(strs); i++) {
		assert_int_equal(table_add_row(t, &row), 0);
		assert_int_equal(table_set_str(t, row, 0, strs[i]), 0);
		assert_int_equal(table_set_strv(t, row, 6, (char *const *)strs, i), 0);
	}
	/* and random bytes */
	srand(7);
	for (int i = 0; i < 2000; i++) {
		size_t len = (size_t)(rand() % 12);

		for (size_t k = 0; k < len; k++)
			buf[k] = (char)(rand() % 255 + 1);
		buf[len] = '\0';
		assert_int_equal(table_add_row(t, &row), 0);
		assert_int_equal(table_set_str(t, row, 0, buf), 0);
	}
	for (size_t r = 0; r <= row; r++)
		for (size_t c = 0; c < ARRAY_SIZE(cols); c++) {
			const struct cell *cell = table_cell(t, r, c);
			char *text = cell_to_text(&cols[c], cell), *written = NULL;
			size_t n_written = 0;
			FILE *f = open_memstream(&written, &n_written);

			assert_non_null(text);
			assert_int_equal(cell_text_width(&cols[c], cell, &w), 0);
			assert_int_equal(w, columns(text));
			assert_non_null(f);
			assert_int_equal(cell_fputs(&cols[c], cell, f), 0);
			assert_int_equal(fclose(f), 0);
			assert_string_equal(written, text);
			free(written);
			free(text);
		}
	table_free(t);
}

/* ---- units ----------------------------------------------------------------------- */

static void test_format_bytes(void **state)
{
	char buf[32];

	assert_string_equal(format_bytes(0, buf, sizeof(buf)), "0 B");
	assert_string_equal(format_bytes(1023, buf, sizeof(buf)), "1023 B");
	assert_string_equal(format_bytes(1024, buf, sizeof(buf)), "1.00 KiB");
	assert_string_equal(format_bytes(1536, buf, sizeof(buf)), "1.50 KiB");
	assert_string_equal(format_bytes(24576, buf, sizeof(buf)), "24.0 KiB");
	assert_string_equal(format_bytes(102400, buf, sizeof(buf)), "100 KiB");
	/* 1023.999 KiB must not print as "1024 KiB" */
	assert_string_equal(format_bytes(1048575, buf, sizeof(buf)), "1.00 MiB");
	assert_string_equal(format_bytes(1048576, buf, sizeof(buf)), "1.00 MiB");
	assert_string_equal(format_bytes(2592768, buf, sizeof(buf)), "2.47 MiB");
	assert_string_equal(format_bytes(UINT64_MAX, buf, sizeof(buf)), "16.0 EiB");
	/* a short buffer is truncated, not overrun */
	memset(buf, 'z', sizeof(buf));
	format_bytes(1536, buf, 4);
	assert_string_equal(buf, "1.5");
	assert_int_equal(buf[4], 'z');
}

/* ---- version --------------------------------------------------------------------- */

static void test_kver_parse(void **state)
{
	struct kver v = { 9, 9, 9 };

	assert_int_equal(kver_parse("6.12.118+deb12-amd64", &v), 0);
	assert_int_equal(v.major, 6);
	assert_int_equal(v.minor, 12);
	assert_int_equal(v.patch, 118);
	assert_int_equal(kver_parse("6.1.0-57-amd64", &v), 0);
	assert_int_equal(v.major, 6);
	assert_int_equal(v.minor, 1);
	assert_int_equal(v.patch, 0);
	assert_int_equal(kver_parse("6.12.118", &v), 0);
	assert_int_equal(v.patch, 118);
	assert_int_equal(kver_parse("5.4", &v), 0);
	assert_int_equal(v.major, 5);
	assert_int_equal(v.minor, 4);
	assert_int_equal(v.patch, 0);
	assert_int_equal(kver_parse("6.10-rc1", &v), 0);
	assert_int_equal(v.minor, 10);
	assert_int_equal(v.patch, 0);
	assert_int_equal(kver_parse("6.9.x", &v), 0);
	assert_int_equal(v.minor, 9);
	assert_int_equal(v.patch, 0);

	v = (struct kver){ 9, 9, 9 };
	assert_int_equal(kver_parse("", &v), -EINVAL);
	assert_int_equal(kver_parse("6", &v), -EINVAL);
	assert_int_equal(kver_parse("6.", &v), -EINVAL);
	assert_int_equal(kver_parse("6.x", &v), -EINVAL);
	assert_int_equal(kver_parse("v6.1", &v), -EINVAL);
	assert_int_equal(kver_parse("-6.1", &v), -EINVAL);
	assert_int_equal(kver_parse(" 6.1", &v), -EINVAL);
	assert_int_equal(kver_parse("6.-1", &v), -EINVAL);
	assert_int_equal(kver_parse("99999999999999999999.1", &v), -EINVAL);
	assert_int_equal(v.major, 9);

	assert_int_equal(kver_parse("6.4.0", &v), 0);
	assert_int_equal(kver_cmp_mm(&v, 6, 4), 0);
	assert_true(kver_cmp_mm(&v, 6, 5) < 0);
	assert_true(kver_cmp_mm(&v, 6, 3) > 0);
	assert_true(kver_cmp_mm(&v, 5, 17) > 0);
	assert_true(kver_cmp_mm(&v, 7, 0) < 0);
}

/* ---- root ------------------------------------------------------------------------ */

static void test_root_open(void **state)
{
	struct kt_root *root = NULL;
	char *dir = make_tmpdir(), *p = NULL, buf[16];
	FILE *f = NULL;
	int fd;

	write_file(dir, "file", "hello\n", 6);
	assert_int_equal(root_new(dir, &root), 0);
	assert_string_equal(root_dir(root), dir);

	fd = root_open(root, "file", O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, sizeof(buf)), 6);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);

	/* absolute paths would escape the root */
	assert_int_equal(root_open(root, "/etc/passwd", O_RDONLY), -EINVAL);
	assert_int_equal(root_open(root, "/", O_RDONLY), -EINVAL);
	assert_false(root_exists(root, "/etc/passwd"));
	assert_false(root_exists(root, "/"));
	assert_true(root_exists(root, "file"));
	assert_false(root_exists(root, "nope"));
	assert_int_equal(root_open(root, "nope", O_RDONLY), -ENOENT);
	assert_int_equal(root_fopen(root, "nope", &f), -ENOENT);
	assert_null(f);
	assert_int_equal(root_fopen(root, "/etc/passwd", &f), -EINVAL);
	assert_null(f);
	assert_int_equal(root_fopen(root, "file", &f), 0);
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	assert_string_equal(buf, "hello\n");
	fclose(f);

	assert_int_equal(root_abspath(root, "proc/modules", &p), 0);
	assert_true(strncmp(p, dir, strlen(dir)) == 0);
	assert_string_equal(p + strlen(dir), "/proc/modules");
	free(p);

	root_free(root);
	remove_tree(dir);

	assert_int_equal(root_new("/nonexistent-kmodtop-root", &root), -ENOENT);
	assert_int_equal(root_new("/dev/null", &root), -ENOTDIR);
	assert_null(root_free(NULL));
}

static void test_root_abspath_slash(void **state)
{
	struct kt_root *root = NULL;
	char *p = NULL;

	assert_int_equal(root_new("/", &root), 0);
	assert_int_equal(root_abspath(root, "proc/modules", &p), 0);
	assert_string_equal(p, "/proc/modules");
	free(p);
	root_free(root);

	assert_int_equal(root_new(FIXTURES_DIR "/debian-6.1-plain///", &root), 0);
	assert_int_equal(root_abspath(root, "proc/modules", &p), 0);
	assert_string_equal(p, FIXTURES_DIR "/debian-6.1-plain/proc/modules");
	free(p);
	root_free(root);
}

/* the file's first bytes through @fd, or "" */
static void assert_fd_reads(int fd, const char *want)
{
	char buf[64];
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	assert_true(n >= 0);
	buf[n] = '\0';
	assert_string_equal(buf, want);
	close(fd);
}

static int walk_at(const char *dir, const char *rel, int flags)
{
	int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC), fd;

	assert_true(dfd >= 0);
	fd = root_walk_open(dfd, rel, flags);
	close(dfd);
	return fd;
}

/*
 * A root is read beneath itself, by openat2() and by the walk of kernels without it
 * alike: symlinks inside it work, ones that climb out or are absolute are -EXDEV.
 */
static void test_root_beneath(void **state)
{
	static const struct {
		const char *rel;
		int err;	/* 0: reads "in" */
	} cases[] = {
		{ "f", 0 },
		{ "up", 0 },		/* sub/up -> ../f, seen from the top */
		{ "sub/up", 0 },
		{ "dlink/up", 0 },	/* a symlinked directory inside */
		{ "sub/../f", 0 },
		{ "sub/chain", 0 },	/* chain -> up -> ../f */
		{ "out", -EXDEV },	/* ../outside/secret */
		{ "sub/out2", -EXDEV },	/* ../../outside/secret */
		{ "abs", -EXDEV },	/* an absolute target */
		{ "../outside/secret", -EXDEV },
		{ "sub/../../outside/secret", -EXDEV },
		{ "outdir/secret", -EXDEV },	/* a directory symlink out */
		{ "loop", -ELOOP },	/* loop -> loop2 -> loop */
		{ "nope", -ENOENT },
		{ "f/x", -ENOTDIR },
	};
	struct kt_root *root = NULL;
	char *top = make_tmpdir(), *dir, *p = NULL;

	assert_true(asprintf(&dir, "%s/root", top) > 0);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_true(asprintf(&p, "%s/outside", top) > 0);
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
	p = NULL;
	write_file(top, "outside/secret", "leak", 4);
	write_file(dir, "f", "in", 2);
	assert_int_equal(root_new(dir, &root), 0);
	{
		int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		char abs[PATH_MAX];

		assert_true(dfd >= 0);
		assert_int_equal(mkdirat(dfd, "sub", 0755), 0);
		snprintf(abs, sizeof(abs), "%s/outside/secret", top);
		assert_int_equal(symlinkat("../f", dfd, "sub/up"), 0);
		assert_int_equal(symlinkat("sub/up", dfd, "up"), 0);
		assert_int_equal(symlinkat("sub", dfd, "dlink"), 0);
		assert_int_equal(symlinkat("up", dfd, "sub/chain"), 0);
		assert_int_equal(symlinkat("../outside/secret", dfd, "out"), 0);
		assert_int_equal(symlinkat("../../outside/secret", dfd, "sub/out2"), 0);
		assert_int_equal(symlinkat(abs, dfd, "abs"), 0);
		assert_int_equal(symlinkat("../outside", dfd, "outdir"), 0);
		assert_int_equal(symlinkat("loop2", dfd, "loop"), 0);
		assert_int_equal(symlinkat("loop", dfd, "loop2"), 0);
		close(dfd);
	}
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int a = root_open(root, cases[i].rel, O_RDONLY);
		int b = walk_at(dir, cases[i].rel, O_RDONLY);

		if (cases[i].err) {
			if (a != cases[i].err || b != cases[i].err)
				fail_msg("%s: %d and %d, not %d", cases[i].rel, a, b, cases[i].err);
			assert_false(root_exists(root, cases[i].rel) && cases[i].err != -ENOTDIR);
		} else {
			assert_fd_reads(a, "in");
			assert_fd_reads(b, "in");
			assert_true(root_exists(root, cases[i].rel));
		}
	}
	/* a library given the path would follow the symlink out */
	assert_int_equal(root_abspath(root, "out", &p), -EXDEV);
	assert_int_equal(root_abspath(root, "sub/up", &p), 0);
	free(p);
	root_free(root);
	free(dir);
	remove_tree(top);
}

/* only regular files are read; a FIFO's open() must not wait for a writer */
static void test_root_not_regular(void **state)
{
	struct kt_root *root = NULL;
	char *dir = make_tmpdir(), *fifo, *buf = NULL;
	FILE *f = NULL;
	size_t len;
	int fd;

	assert_true(asprintf(&fifo, "%s/fifo", dir) > 0);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(root_new(dir, &root), 0);
	fd = root_open(root, ".", O_PATH | O_DIRECTORY);
	assert_int_equal(symlinkat("/dev/zero", fd, "zero"), 0);
	close(fd);
	assert_int_equal(root_open(root, "fifo", O_RDONLY), -ENXIO);
	assert_int_equal(root_fopen(root, "fifo", &f), -ENXIO);
	assert_int_equal(root_read_file(root, "fifo", 64, &buf, &len), -ENXIO);
	/* an absolute symlink is refused before /dev/zero is reached */
	assert_int_equal(root_open(root, "zero", O_RDONLY), -EXDEV);
	assert_int_equal(root_open(root, ".", O_RDONLY), -EISDIR);
	fd = root_open(root, ".", O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	close(fd);
	root_free(root);

	/* the live root: the same refusals, no symlink rules */
	assert_int_equal(root_new("/", &root), 0);
	assert_int_equal(root_open(root, fifo + 1, O_RDONLY), -ENXIO);
	assert_int_equal(root_open(root, "dev/zero", O_RDONLY), -ENXIO);
	assert_int_equal(root_open(root, "tmp", O_RDONLY), -EISDIR);
	root_free(root);
	free(fifo);
	remove_tree(dir);
}

static void test_root_read_file(void **state)
{
	struct kt_root *root = NULL;
	char *dir = make_tmpdir(), *data, *buf = NULL;
	size_t len = 0, n = 10000;

	data = malloc(n);
	assert_non_null(data);
	for (size_t i = 0; i < n; i++)
		data[i] = (char)('a' + i % 26);
	write_file(dir, "big", data, n);
	write_file(dir, "empty", "", 0);
	write_file(dir, "small", "42\n", 3);
	assert_int_equal(root_new(dir, &root), 0);

	assert_int_equal(root_read_file(root, "big", n, &buf, &len), 0);
	assert_int_equal(len, n);
	assert_memory_equal(buf, data, n);
	assert_int_equal(buf[n], '\0');
	free(buf);
	buf = NULL;

	assert_int_equal(root_read_file(root, "big", n - 1, &buf, &len), -EFBIG);
	assert_null(buf);
	assert_int_equal(root_read_file(root, "big", 100, &buf, &len), -EFBIG);
	assert_int_equal(root_read_file(root, "big", 4096, &buf, &len), -EFBIG);
	assert_null(buf);

	assert_int_equal(root_read_file(root, "small", 3, &buf, &len), 0);
	assert_int_equal(len, 3);
	assert_string_equal(buf, "42\n");
	free(buf);
	buf = NULL;
	assert_int_equal(root_read_file(root, "small", 2, &buf, &len), -EFBIG);

	assert_int_equal(root_read_file(root, "empty", 64, &buf, &len), 0);
	assert_int_equal(len, 0);
	assert_string_equal(buf, "");
	free(buf);
	buf = NULL;

	assert_int_equal(root_read_file(root, "missing", 64, &buf, &len), -ENOENT);
	assert_int_equal(root_read_file(root, "/etc/hostname", 64, &buf, &len), -EINVAL);
	assert_int_equal(root_read_file(root, ".", 64, &buf, &len), -EISDIR);
	assert_null(buf);

	root_free(root);
	remove_tree(dir);
	free(data);
}

static void test_root_live(void **state)
{
	struct kt_root *root = NULL;
	char *dir = make_tmpdir();

	assert_int_equal(root_new("/", &root), 0);
	assert_true(root_is_live_system(root));
	root_free(root);
	/* by identity, not by spelling */
	assert_int_equal(root_new("//.", &root), 0);
	assert_true(root_is_live_system(root));
	root_free(root);

	assert_int_equal(root_new(dir, &root), 0);
	assert_false(root_is_live_system(root));
	root_free(root);
	assert_int_equal(root_new(FIXTURES_DIR "/debian-6.12-xz", &root), 0);
	assert_false(root_is_live_system(root));
	root_free(root);
	remove_tree(dir);
}

/* array_grow: doubles, zeroes what it adds, refuses a byte count that would wrap */
static void test_array_grow(void **state)
{
	uint32_t *a = NULL;
	size_t cap = 0;
	void *p;

	(void)state;
	for (size_t i = 0; i < 1000; i++) {
		assert_int_equal(array_grow((void **)&a, i, &cap, sizeof(*a)), 0);
		assert_true(cap > i);
		assert_int_equal(a[i], 0);
		a[i] = (uint32_t)i + 1;
	}
	assert_int_equal(cap, 1024);
	for (size_t i = 0; i < 1000; i++)
		assert_int_equal(a[i], i + 1);
	/* room already there: nothing moves */
	p = a;
	assert_int_equal(array_grow((void **)&a, 1000, &cap, sizeof(*a)), 0);
	assert_ptr_equal(a, p);
	assert_int_equal(cap, 1024);
	free(a);

	/* SIZE_MAX / 4 elements of 8 bytes would wrap: refused, nothing changed */
	a = NULL;
	cap = 0;
	assert_int_equal(array_grow((void **)&a, SIZE_MAX / 4, &cap, 8), -ENOMEM);
	assert_null(a);
	assert_int_equal(cap, 0);
	assert_int_equal(array_grow((void **)&a, SIZE_MAX, &cap, 1), -ENOMEM);
	assert_int_equal(cap, 0);
}

/*
 * array_prefault: the first element of a chunk maps the next chunk, and only that
 * (mincore says which pages are in memory), never past the capacity; what was written
 * stays. Skipped where the kernel has no MADV_POPULATE_WRITE (before 5.14).
 */
static void test_array_prefault(void **state)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), size = 24, cap, chunks = 4;
	size_t len = chunks * ARRAY_PREFAULT;
	unsigned char vec[4 * ARRAY_PREFAULT / 4096];
	uint64_t *a;
	char *m;

	(void)state;
	assert_true(len / page <= sizeof(vec));
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(m != MAP_FAILED);
	if (madvise(m, page, 23 /* MADV_POPULATE_WRITE */) < 0) {
		munmap(m, len);
		skip();
	}
	munmap(m, len);
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(m != MAP_FAILED);
	a = (uint64_t *)(void *)m;
	/* three chunks of capacity in the mapping of four, elements of three words */
	cap = 3 * ARRAY_PREFAULT / size;

	/* not the first element of a chunk: nothing */
	array_prefault(a, 5, cap, size);
	assert_int_equal(mincore(m, len, vec), 0);
	for (size_t i = 0; i < len / page; i++)
		assert_int_equal(vec[i] & 1, 0);

	/* the first element of chunk 0 maps chunk 1, whole, and nothing else */
	a[0] = 42;
	array_prefault(a, 0, cap, size);
	assert_int_equal(mincore(m, len, vec), 0);
	for (size_t i = 1; i < len / page; i++)
		assert_int_equal(vec[i] & 1,
				 i >= ARRAY_PREFAULT / page && i < 2 * ARRAY_PREFAULT / page);

	/* the first element in chunk 2 would map chunk 3: past the capacity, nothing */
	array_prefault(a, (2 * ARRAY_PREFAULT + size - 1) / size, cap, size);
	assert_int_equal(mincore(m, len, vec), 0);
	for (size_t i = 3 * ARRAY_PREFAULT / page; i < len / page; i++)
		assert_int_equal(vec[i] & 1, 0);
	/* n at or past the capacity: nothing to make room for */
	array_prefault(a, cap, cap, size);
	array_prefault(NULL, 0, cap, size);
	assert_int_equal(a[0], 42);
	munmap(m, len);
}

struct names {
	char (*name)[16];
};

static bool name_eq(size_t pos, const void *key, const void *userdata)
{
	const struct names *n = userdata;

	return strcmp(n->name[pos], key) == 0;
}

/*
 * hindex: every name added is found at its position through growth from 64 slots to
 * 32768, also when 200 of them share one hash (the probe sequence walks past the
 * others); names never added are not found, a NULL string hashes apart from "".
 */
static void test_hindex(void **state)
{
	enum { N = 10000, SAME = 200 };
	struct names n = { calloc(N, sizeof(*n.name)) };
	struct hindex *h = NULL;
	char key[16];

	(void)state;
	assert_non_null(n.name);
	assert_int_equal(hindex_new(&h), 0);
	assert_int_equal(hindex_find(h, 1, name_eq, "mod0", &n), HINDEX_NONE);
	for (size_t i = 0; i < N; i++) {
		snprintf(n.name[i], sizeof(n.name[i]), "mod%zu", i);
		assert_int_equal(hindex_add(h, i < SAME ? 42 : hash_str(HASH_INIT, n.name[i]), i),
				 0);
	}
	for (size_t i = 0; i < N; i++)
		assert_int_equal(hindex_find(h, i < SAME ? 42 : hash_str(HASH_INIT, n.name[i]),
					     name_eq, n.name[i], &n),
				 i);
	for (size_t i = N; i < N + 100; i++) {
		snprintf(key, sizeof(key), "mod%zu", i);
		assert_int_equal(hindex_find(h, hash_str(HASH_INIT, key), name_eq, key, &n),
				 HINDEX_NONE);
		assert_int_equal(hindex_find(h, 42, name_eq, key, &n), HINDEX_NONE);
	}
	assert_true(hash_str(HASH_INIT, NULL) != hash_str(HASH_INIT, ""));
	assert_true(hash_str(hash_str(HASH_INIT, "ab"), "c") !=
		    hash_str(hash_str(HASH_INIT, "a"), "bc"));
	hindex_free(h);
	free(n.name);
}

/*
 * hash_words(): every byte of every length up to 64 counts (the tails are read with
 * overlapping fixed-size loads, three bytes under four), the length and the seed count,
 * and it reads only the bytes given (each key at the end of a heap block, for ASan and
 * valgrind).
 */
static void test_hash_words(void **state)
{
	enum { MAX = 64 };

	(void)state;
	for (size_t n = 0; n <= MAX; n++) {
		char *k = malloc(n ? n : 1);
		uint64_t h;

		assert_non_null(k);
		for (size_t i = 0; i < n; i++)
			k[i] = (char)('a' + i % 26);
		h = hash_words(k, n, 1);
		assert_true(hash_words(k, n, 1) == h);
		assert_true(hash_words(k, n, 2) != h);
		if (n)
			assert_true(hash_words(k, n - 1, 1) != h);
		for (size_t i = 0; i < n; i++) {
			k[i] ^= 0x20;
			assert_true(hash_words(k, n, 1) != h);
			k[i] ^= 0x20;
		}
		free(k);
	}
}

static void test_linecache(void **state)
{
	struct linecache *lc;
	char key[LINECACHE_KEY_MAX + 2];
	uint64_t h, h2;
	int *v, hits = 0;

	(void)state;
	assert_int_equal(linecache_new(sizeof(int), 64, &lc), 0);
	/* empty: nothing, and the hash is the key's */
	assert_null(linecache_get(lc, "abc", 3, &h));
	assert_null(linecache_get(lc, "abc", 3, &h2));
	assert_int_equal(h, h2);
	v = linecache_put(lc, "abc", 3, h);
	assert_non_null(v);
	*v = 7;
	v = (int *)linecache_get(lc, "abc", 3, &h);
	assert_non_null(v);
	assert_int_equal(*v, 7);
	/* a prefix, a longer key, another byte: not the same key */
	assert_null(linecache_get(lc, "ab", 2, &h));
	assert_null(linecache_get(lc, "abcd", 4, &h));
	assert_null(linecache_get(lc, "abd", 3, &h));
	/* too long to keep, the longest kept */
	memset(key, 'k', sizeof(key));
	assert_null(linecache_get(lc, key, LINECACHE_KEY_MAX + 1, &h));
	assert_null(linecache_put(lc, key, LINECACHE_KEY_MAX + 1, h));
	assert_null(linecache_get(lc, key, LINECACHE_KEY_MAX, &h));
	v = linecache_put(lc, key, LINECACHE_KEY_MAX, h);
	assert_non_null(v);
	*v = 9;
	v = (int *)linecache_get(lc, key, LINECACHE_KEY_MAX, &h);
	assert_non_null(v);
	assert_int_equal(*v, 9);
	/* 1,000 keys through 64 places: what is found has its own value */
	for (int i = 0; i < 1000; i++) {
		int n = snprintf(key, sizeof(key), "key %d", i);

		assert_null(linecache_get(lc, key, (size_t)n, &h));
		v = linecache_put(lc, key, (size_t)n, h);
		*v = i;
	}
	for (int i = 0; i < 1000; i++) {
		int n = snprintf(key, sizeof(key), "key %d", i);
		const int *g = linecache_get(lc, key, (size_t)n, &h);

		if (g) {
			assert_int_equal(*g, i);
			hits++;
		}
	}
	/* the last ones put are there; no more than fit */
	assert_true(hits > 0 && hits <= 64);
	/* of a set's two, the one asked for last stays */
	{
		uint64_t hs[3];
		char k[3][16];
		int n = 0;

		/* three keys of one set: found by their hashes */
		for (int i = 0; n < 3 && i < 100000; i++) {
			snprintf(k[n], sizeof(k[n]), "s%d", i);
			linecache_get(lc, k[n], strlen(k[n]), &hs[n]);
			if (n == 0 || (hs[n] & 31) == (hs[0] & 31))
				n++;
		}
		assert_int_equal(n, 3);
		v = linecache_put(lc, k[0], strlen(k[0]), hs[0]);
		*v = 0;
		v = linecache_put(lc, k[1], strlen(k[1]), hs[1]);
		*v = 1;
		assert_non_null(linecache_get(lc, k[0], strlen(k[0]), &h));
		v = linecache_put(lc, k[2], strlen(k[2]), hs[2]);
		*v = 2;
		assert_non_null(linecache_get(lc, k[0], strlen(k[0]), &h));
		assert_null(linecache_get(lc, k[1], strlen(k[1]), &h));
		assert_non_null(linecache_get(lc, k[2], strlen(k[2]), &h));
		/* k[1] came after k[0] once, and is gone: that is no answer for it */
		assert_non_null(linecache_get(lc, k[0], strlen(k[0]), &h));
		assert_null(linecache_get(lc, k[1], strlen(k[1]), &h));
	}
	linecache_free(lc);

	/* a sequence asked for again and again, as a log's boots: the values stay right,
	 * with the key that came next last time tried first */
	assert_int_equal(linecache_new(sizeof(int), 1024, &lc), 0);
	for (int round = 0; round < 4; round++)
		for (int i = 0; i < 40; i++) {
			int n = snprintf(key, sizeof(key), "line %d", round == 3 ? 39 - i : i);
			const int *g = linecache_get(lc, key, (size_t)n, &h);

			if (round == 0) {
				assert_null(g);
				v = linecache_put(lc, key, (size_t)n, h);
				*v = i;
			} else {
				assert_non_null(g);
				assert_int_equal(*g, round == 3 ? 39 - i : i);
				assert_int_equal(h, hash_words(key, (size_t)n, 5));
			}
		}
	/* a key that differs in its last byte from the one expected next */
	assert_non_null(linecache_get(lc, "line 5", 6, &h));
	assert_null(linecache_get(lc, "line 7x", 7, &h));
	assert_null(linecache_get(lc, "line ", 5, &h));
	linecache_free(lc);

	/* "A" followed by "B", then by "C": both are predicted, the latest first */
	{
		static const char *const seq[] = { "A", "B", "A", "C", "A" };
		struct linecache_entry *e;

		assert_int_equal(linecache_new(sizeof(int), 64, &lc), 0);
		for (size_t i = 0; i < ARRAY_SIZE(seq); i++)
			if (!linecache_get(lc, seq[i], 1, &h))
				*(int *)linecache_put(lc, seq[i], 1, h) = seq[i][0];
		e = linecache_predict(lc);
		assert_non_null(e);
		assert_true(linecache_is_key(e, "C", 1));
		e = linecache_predict2(lc);
		assert_non_null(e);
		assert_true(linecache_is_key(e, "B", 1));
		assert_int_equal(*(int *)linecache_value(lc, e), 'B');
		/* "B" again, by the second guess: after "A" it is now the first */
		linecache_follows(lc, e);
		linecache_hit(lc, e);
		assert_non_null(linecache_get(lc, "A", 1, &h));
		assert_true(linecache_is_key(linecache_predict(lc), "B", 1));
		assert_true(linecache_is_key(linecache_predict2(lc), "C", 1));
		/* linecache_get() takes the second guess the same way */
		assert_non_null(linecache_get(lc, "C", 1, &h));
		assert_non_null(linecache_get(lc, "A", 1, &h));
		assert_true(linecache_is_key(linecache_predict(lc), "C", 1));
		assert_true(linecache_is_key(linecache_predict2(lc), "B", 1));
		linecache_free(lc);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hindex),
		cmocka_unit_test(test_hash_words),
		cmocka_unit_test(test_linecache),
		cmocka_unit_test(test_array_grow),
		cmocka_unit_test(test_array_prefault),
		cmocka_unit_test(test_linereader_lines),
		cmocka_unit_test(test_linereader_missing_newline),
		cmocka_unit_test(test_linereader_empty),
		cmocka_unit_test(test_linereader_long_line),
		cmocka_unit_test(test_linereader_max_boundary),
		cmocka_unit_test(test_linereader_nul),
		cmocka_unit_test(test_linereader_crlf),
		cmocka_unit_test(test_linereader_feed),
		cmocka_unit_test(test_parse_u64),
		cmocka_unit_test(test_parse_i64),
		cmocka_unit_test(test_parse_u32_int),
		cmocka_unit_test(test_parse_n_matches_copy),
		cmocka_unit_test(test_escape_terminal_sequences),
		cmocka_unit_test(test_escape_invalid_utf8),
		cmocka_unit_test(test_escape_bidi_backslash),
		cmocka_unit_test(test_escape_name_placeholders),
		cmocka_unit_test(test_escape_valid_utf8),
		cmocka_unit_test(test_escape_every_byte),
		cmocka_unit_test(test_cell_text_width),
		cmocka_unit_test(test_format_bytes),
		cmocka_unit_test(test_kver_parse),
		cmocka_unit_test(test_root_open),
		cmocka_unit_test(test_root_abspath_slash),
		cmocka_unit_test(test_root_beneath),
		cmocka_unit_test(test_root_not_regular),
		cmocka_unit_test(test_root_read_file),
		cmocka_unit_test(test_root_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
