/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include "sources/trace/text.h"
#include "helpers.h"

FILE *mem_file(const void *data, size_t len)
{
	/* fmemopen() refuses a zero size before glibc 2.22; an empty file is /dev/null */
	FILE *f = len ? fmemopen((void *)data, len, "r") : fopen("/dev/null", "re");

	assert_non_null(f);
	return f;
}

static int remove_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(p);
}

char *make_tmpdir(void)
{
	const char *t = getenv("TMPDIR");
	char *d;

	assert_true(asprintf(&d, "%s/kmodtop-test-XXXXXX", t && t[0] ? t : "/tmp") > 0);
	assert_non_null(mkdtemp(d));
	return d;
}

void remove_tree(char *d)
{
	nftw(d, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	free(d);
}

char *path_join(const char *a, const char *b)
{
	char *p;

	assert_true(asprintf(&p, "%s/%s", a, b) > 0);
	return p;
}

char *prepare_path(const char *dir, const char *rel)
{
	char *p = path_join(dir, rel), *s;

	for (s = p + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		assert_true(mkdir(p, 0755) == 0 || errno == EEXIST);
		*s = '/';
	}
	return p;
}

void write_file(const char *dir, const char *rel, const void *data, size_t len)
{
	char *p = prepare_path(dir, rel);
	FILE *f = fopen(p, "we");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	free(p);
}

void write_str(const char *dir, const char *rel, const char *s)
{
	write_file(dir, rel, s, strlen(s));
}

void *read_file(const char *path, size_t *ret_len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0, len = 0, n;

	assert_non_null(f);
	do {
		if (len + 4096 > cap) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap + 1);
			assert_non_null(buf);
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	buf[len] = '\0';
	*ret_len = len;
	return buf;
}

void *gzip_of(const void *in, size_t len, size_t *ret_len)
{
	z_stream z = { 0 };
	size_t cap = compressBound(len) + 64;
	uint8_t *out = malloc(cap);

	assert_non_null(out);
	/* 16 + 15: a gzip wrapper */
	assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), Z_OK);
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
	*ret_len = z.total_out;
	deflateEnd(&z);
	return out;
}

void *xz_of(const void *in, size_t len, size_t *ret_len)
{
	size_t cap = lzma_stream_buffer_bound(len), pos = 0;
	uint8_t *out = malloc(cap);

	assert_non_null(out);
	assert_int_equal(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, in, len, out, &pos,
						 cap),
			 LZMA_OK);
	*ret_len = pos;
	return out;
}

void *zstd_of(const void *in, size_t len, size_t *ret_len)
{
	size_t cap = ZSTD_compressBound(len);
	uint8_t *out = malloc(cap);
	size_t n;

	assert_non_null(out);
	n = ZSTD_compress(out, cap, in, len, 3);
	assert_false(ZSTD_isError(n));
	*ret_len = n;
	return out;
}

int feed_ledger(void *userdata, const struct ktrace_event *ev)
{
	return ledger_feed_trace(userdata, ev);
}

struct ledger *ledger_from_lines_kernel(const char *const *lines, const struct ledger_ops *lops,
					bool idempotent)
{
	struct ktrace_parser_ops ops = { .event = feed_ledger };
	struct ktrace_parser *p = NULL;
	struct ledger *l = NULL;

	assert_int_equal(ledger_new(lops, idempotent, &l), 0);
	assert_int_equal(ktrace_parser_new("test", &ops, l, &p), 0);
	for (size_t i = 0; lines[i]; i++)
		assert_int_equal(ktrace_parser_feed(p, lines[i], strlen(lines[i])), 0);
	assert_int_equal(ktrace_parser_finish(p), 0);
	ktrace_parser_free(p);
	assert_int_equal(ledger_finish(l), 0);
	return l;
}

struct ledger *ledger_from_lines(const char *const *lines)
{
	return ledger_from_lines_kernel(lines, &(struct ledger_ops){ 0 }, true);
}
