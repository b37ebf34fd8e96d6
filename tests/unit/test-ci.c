/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/wait.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "helpers.h"
#include "ledger/klog-findings.h"
#include "ledger/ledger.h"
#include "output/ci-formats.h"
#include "sources/journal-json.h"
#include "sources/stream.h"
#include "output/output.h"
#include "session/ci-input.h"
#include "views/ci.h"

/*
 * `kmodtop ci` below the command: the stream readers (every compression, line
 * splitting, the needle search), the finding classes and needles against the kernel
 * formats, the XML escaper, sizes, the baseline reader.
 *
 * Run with --format-lines, it prints one kernel log line per klog_formats() entry as
 * "CLASS<TAB>[    1.000000] MESSAGE", for tests/cli/ci.sh.
 */

/* --- helpers --------------------------------------------------------------------------- */

/* A stream over @len bytes of @data through a pipe, written by a child: read() in pieces */
static struct stream *stream_over(const void *data, size_t len, const char **what)
{
	/* the child's data stays reachable at its _exit() (valgrind's leak check): the
	 * caller's pointer to it may live in a register the optimiser reused */
	static const void *volatile writing;
	struct stream *s = NULL;
	int fds[2];
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		const char *p = data;
		size_t off = 0;

		writing = data;
		close(fds[0]);
		/* odd-sized writes: the reader sees short reads at every boundary */
		while (off < len) {
			size_t k = len - off < 4093 ? len - off : 4093;
			ssize_t n = write(fds[1], p + off, k);

			if (n <= 0)
				_exit(1);
			off += (size_t)n;
		}
		_exit(writing == data ? 0 : 1);
	}
	close(fds[1]);
	*what = NULL;
	if (stream_new(fds[0], 0, &s, what) < 0)
		return NULL;
	return s;
}

static char *read_all_lines(struct stream *s, size_t *ret_len, int *ret_err, uint64_t *ret_lines)
{
	size_t cap = 1 << 16, len = 0;
	char *out = malloc(cap), *line;
	size_t n;
	int r;

	assert_non_null(out);
	while ((r = stream_next_line(s, &line, &n)) > 0) {
		while (len + n + 2 > cap) {
			cap *= 2;
			out = realloc(out, cap);
			assert_non_null(out);
		}
		memcpy(out + len, line, n);
		len += n;
		out[len++] = '\n';
	}
	*ret_err = r;
	*ret_len = len;
	*ret_lines = stream_lineno(s);
	return out;
}

static void reap(void)
{
	while (wait(NULL) > 0)
		;
}

/* A text of @n lines of varying length, each ending in '\n' */
static char *sample_text(size_t n, size_t *ret_len)
{
	size_t cap = n * 80 + 1, len = 0;
	char *t = malloc(cap);

	assert_non_null(t);
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(t + len, cap - len, "[%5zu.%06zu] line %zu %.*s\n", i / 100,
					i % 1000000, i, (int)(i % 37), "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
	*ret_len = len;
	return t;
}

typedef void *(*compress_fn)(const void *, size_t, size_t *);

/* --- streams --------------------------------------------------------------------------- */

static void check_roundtrip(compress_fn fn, enum stream_compression want, size_t n_lines)
{
	size_t len, clen, got_len;
	char *text = sample_text(n_lines, &len), *got;
	void *c = fn ? fn(text, len, &clen) : text;
	const char *what;
	struct stream *s;
	uint64_t lines;
	int err;

	if (!fn)
		clen = len;
	s = stream_over(c, clen, &what);
	assert_non_null(s);
	assert_int_equal(stream_compression(s), want);
	got = read_all_lines(s, &got_len, &err, &lines);
	assert_int_equal(err, 0);
	assert_int_equal(lines, n_lines);
	assert_int_equal(got_len, len);
	assert_memory_equal(got, text, len);
	assert_int_equal(stream_bytes(s), len);
	assert_false(stream_missing_newline(s));
	stream_free(s);
	reap();
	free(got);
	if (fn)
		free(c);
	free(text);
}

static void test_stream_formats(void **state)
{
	check_roundtrip(NULL, STREAM_PLAIN, 20000);
	check_roundtrip(gzip_of, STREAM_GZIP, 20000);
	check_roundtrip(xz_of, STREAM_XZ, 20000);
	check_roundtrip(zstd_of, STREAM_ZSTD, 20000);
	check_roundtrip(NULL, STREAM_PLAIN, 1);
	check_roundtrip(gzip_of, STREAM_GZIP, 1);
	assert_string_equal(stream_compression_name(STREAM_ZSTD), "zstd");
	assert_string_equal(stream_compression_name(STREAM_PLAIN), "none");
}

/* "cat a.gz b.gz": one stream of both, for every format that allows it */
static void test_stream_concatenated(void **state)
{
	compress_fn fns[] = { gzip_of, xz_of, zstd_of };

	for (size_t k = 0; k < 3; k++) {
		size_t la, lb, ca, cb, got_len;
		char *a = sample_text(3000, &la), *b = sample_text(500, &lb), *got;
		char *za = fns[k](a, la, &ca), *zb = fns[k](b, lb, &cb), *both = malloc(ca + cb);
		const char *what;
		struct stream *s;
		uint64_t lines;
		int err;

		memcpy(both, za, ca);
		memcpy(both + ca, zb, cb);
		s = stream_over(both, ca + cb, &what);
		assert_non_null(s);
		got = read_all_lines(s, &got_len, &err, &lines);
		assert_int_equal(err, 0);
		assert_int_equal(lines, 3500);
		assert_int_equal(got_len, la + lb);
		assert_memory_equal(got, a, la);
		assert_memory_equal(got + la, b, lb);
		stream_free(s);
		reap();
		free(got);
		free(both);
		free(za);
		free(zb);
		free(a);
		free(b);
	}
}

/* A truncated or corrupt file is an error, never a quiet short read */
static void test_stream_corrupt(void **state)
{
	compress_fn fns[] = { gzip_of, xz_of, zstd_of };

	for (size_t k = 0; k < 3; k++) {
		size_t len, clen, got_len;
		char *text = sample_text(5000, &len), *got;
		char *c = fns[k](text, len, &clen);
		const char *what;
		struct stream *s;
		uint64_t lines;
		int err;

		/* cut in the middle */
		s = stream_over(c, clen / 2, &what);
		assert_non_null(s);
		got = read_all_lines(s, &got_len, &err, &lines);
		assert_int_equal(err, -EBADMSG);
		assert_true(lines < 5000);
		/* sticky */
		assert_int_equal(stream_next_line(s, &got, &got_len), -EBADMSG);
		stream_free(s);
		reap();
		free(got);

		/* garbage in the middle */
		memset(c + clen / 2, 0x55, 64 < clen / 4 ? 64 : clen / 4);
		s = stream_over(c, clen, &what);
		assert_non_null(s);
		got = read_all_lines(s, &got_len, &err, &lines);
		assert_int_equal(err, -EBADMSG);
		stream_free(s);
		reap();
		free(got);
		free(c);
		free(text);
	}
}

static void test_stream_refused(void **state)
{
	static const char bz2[] = "BZh91AY&SY\x01\x02\x03";
	static const char lz4[] = "\x04\x22\x4d\x18rest";
	static const char text[] = "BZh is just text\n";
	const char *what;
	struct stream *s;
	int fds[2];

	s = stream_over(bz2, sizeof(bz2) - 1, &what);
	assert_null(s);
	assert_string_equal(what, "bzip2");
	reap();
	s = stream_over(lz4, sizeof(lz4) - 1, &what);
	assert_null(s);
	assert_string_equal(what, "lz4");
	reap();
	s = stream_over(text, sizeof(text) - 1, &what);
	assert_non_null(s);
	assert_int_equal(stream_compression(s), STREAM_PLAIN);
	stream_free(s);
	reap();
	/* an empty input is a plain, empty stream */
	assert_int_equal(pipe(fds), 0);
	close(fds[1]);
	assert_int_equal(stream_new(fds[0], 0, &s, &what), 0);
	{
		char *line;
		size_t len;

		assert_int_equal(stream_next_line(s, &line, &len), 0);
		assert_int_equal(stream_lineno(s), 0);
	}
	stream_free(s);
}

static void test_stream_long_lines(void **state)
{
	size_t big = STREAM_LINE_MAX_DEFAULT * 5 / 2, len = 0;
	char *t = malloc(big * 3 + 100), *line;
	const char *what;
	struct stream *s;
	size_t n;

	/* short, over-long (longer than the buffer), short, over-long without '\n' */
	len += (size_t)sprintf(t + len, "first\n");
	memset(t + len, 'a', big);
	len += big;
	t[len++] = '\n';
	len += (size_t)sprintf(t + len, "third\r\n");
	memset(t + len, 'b', STREAM_LINE_MAX_DEFAULT + 1);
	len += STREAM_LINE_MAX_DEFAULT + 1;
	s = stream_over(t, len, &what);
	assert_non_null(s);
	assert_int_equal(stream_next_line(s, &line, &n), 1);
	assert_string_equal(line, "first");
	assert_int_equal(stream_next_line(s, &line, &n), -E2BIG);
	assert_int_equal(stream_lineno(s), 2);
	assert_int_equal(stream_next_line(s, &line, &n), 1);
	/* the '\r' is the parsers' business */
	assert_string_equal(line, "third\r");
	assert_int_equal(stream_lineno(s), 3);
	assert_int_equal(stream_next_line(s, &line, &n), -E2BIG);
	assert_int_equal(stream_lineno(s), 4);
	assert_true(stream_missing_newline(s));
	assert_int_equal(stream_next_line(s, &line, &n), 0);
	stream_free(s);
	reap();
	free(t);
}

/* --- needles ----------------------------------------------------------------------------- */

/* Is @r a needle's start such that no needle starting before it ends before it? */
static void check_find(const char *const *nd, size_t n_nd, const char *buf, size_t len,
		       size_t r)
{
	bool at_r = false;

	for (size_t i = 0; i < n_nd; i++) {
		size_t l = strlen(nd[i]);

		for (const char *p = buf; (p = memmem(p, (size_t)(buf + len - p), nd[i], l)); p++) {
			size_t s = (size_t)(p - buf);

			if (s == r)
				at_r = true;
			if (r == len || s < r)
				assert_true(s + l > r);	/* missed: it lies wholly before */
		}
	}
	assert_true(r == len || at_r);
}

static void test_needles_find(void **state)
{
	static const char *const nd[] = { "odule", "symbol", "ELF", "vmalloc", "-- Boot ",
					   "Linux version ", "abc", "abd", "xyz", "PKCS#7", "vmap",
					   "section", "version", "->init ", ".init_array",
					   "initialize ZSTD", "percpu", "per-cpu" };
	static const char alphabet[] = "abcdelmosuvyxzELF-# \nPKCS7Blinuxvr>.tip";
	const size_t n_nd = sizeof(nd) / sizeof(nd[0]);
	char buf[600];

	srand(8);
	/* every code path: AVX2, SSSE3, scalar, as far as this CPU has them */
	for (int level = 2; level >= 0; level--) {
		struct stream_needles *s;

		assert_int_equal(stream_needles_new(nd, n_nd, &s), 0);
		stream_needles_limit_simd(s, level);
		for (int round = 0; round < 20000; round++) {
			size_t len = (size_t)rand() % sizeof(buf), off = (size_t)rand() % 16;

			for (size_t i = 0; i < len; i++)
				buf[i] = alphabet[rand() % (int)(sizeof(alphabet) - 1)];
			for (int k = 0; k < round % 4 && len > 20; k++) {
				const char *w = nd[rand() % (int)n_nd];
				size_t at = (size_t)rand() % (len - strlen(w));

				memcpy(buf + at, w, strlen(w));
			}
			if (off > len)
				off = len;
			/* unaligned starts, every length: the SIMD loop and its scalar tail */
			check_find(nd, n_nd, buf + off, len - off,
				   stream_needles_find(s, buf + off, len - off));
		}
		stream_needles_free(s);
	}
	{
		static const char *const bad[] = { "ab" };
		static const char *const nl[] = { "a\nb" };
		struct stream_needles *s;

		assert_int_equal(stream_needles_new(bad, 1, &s), -EINVAL);
		assert_int_equal(stream_needles_new(nl, 1, &s), -EINVAL);
	}
}

/* stream_next_match() returns exactly the lines holding a needle, with their numbers */
static void test_stream_next_match(void **state)
{
	static const char *const nd[] = { "odule", "Unknown symbol" };
	size_t cap = 8 << 20, len = 0, n_want = 0;
	char *t = malloc(cap), *line;
	uint64_t *want = calloc(200000, sizeof(uint64_t));
	struct stream_needles *s_nd;
	const char *what;
	struct stream *s;
	size_t n, got = 0;
	int r;

	assert_int_equal(stream_needles_new(nd, 2, &s_nd), 0);
	for (uint64_t i = 1; i <= 120000; i++) {
		int k = (int)(i % 97);

		if (k == 3 || k == 50) {
			len += (size_t)snprintf(t + len, cap - len, "[ %" PRIu64 ".000000] nfs: Unknown symbol s%d (err -2)\n",
						i, k);
			want[n_want++] = i;
		} else if (i % 1013 == 0) {
			len += (size_t)snprintf(t + len, cap - len, "module %" PRIu64 "\n", i);
			want[n_want++] = i;
		} else {
			len += (size_t)snprintf(t + len, cap - len, "noise line %" PRIu64 " Unknown symbo\n", i);
		}
	}
	/* and a last line without newline that matches */
	len += (size_t)snprintf(t + len, cap - len, "last module");
	want[n_want++] = 120001;
	s = stream_over(t, len, &what);
	assert_non_null(s);
	while ((r = stream_next_match(s, s_nd, &line, &n)) > 0) {
		assert_true(got < n_want);
		assert_int_equal(stream_lineno(s), want[got]);
		assert_non_null(memmem(line, n, "odule", 5) ? line : memmem(line, n, "Unknown symbol", 14));
		assert_null(memchr(line, '\n', n));
		got++;
	}
	assert_int_equal(r, 0);
	assert_int_equal(got, n_want);
	assert_int_equal(stream_lineno(s), 120001);
	stream_free(s);
	reap();
	stream_needles_free(s_nd);
	free(want);
	free(t);
}

/* --- stream_scan(): the same lines, numbers and order on any number of threads ------- */

struct scan_want {
	uint64_t lineno;
	int err;
	size_t off, len;	/* into the text, for err == 0 */
};

struct scan_check {
	const char *text;
	const struct scan_want *want;
	size_t n_want, got;
	/* non-matching over-long lines may or may not be reported: their numbers */
	const uint64_t *maybe;
	size_t n_maybe;
	int fail_at;		/* reduce fails at this block (1-based); 0: never */
	int blocks;
	/* for the line op: the needles, and how many lines it was given */
	const struct stream_needles *nd;
	unsigned long lined;
	unsigned long ran;		/* lines the run op took */
};

struct scan_result {
	size_t len;
	size_t prev_len;		/* of the result before it, as the line op sees it */
	char first;
};

/* the line op leaves these lines' results unwritten, and tags them */
#define SCAN_TAG 0x5a5au
static bool scan_tagged(size_t len)
{
	return len % 5 == 3;
}

/* The line op's prev: the last result written before line @i, unless a refused line came after */
static size_t scan_prev_len(const struct stream_match *m, const struct scan_result *r, size_t i)
{
	while (i--) {
		if (m[i].err)
			return SIZE_MAX;
		if (!m[i].tag)
			return r[i].len;
	}
	return SIZE_MAX;
}

static void scan_map_fn(void *userdata, void *state, struct stream_match *m, size_t n,
			void *results)
{
	struct scan_result *r = results;

	assert_non_null(state);
	for (size_t i = 0; i < n; i++) {
		r[i].len = m[i].len;
		r[i].first = m[i].line && m[i].len ? m[i].line[0] : 0;
		r[i].prev_len = scan_prev_len(m, r, i);
	}
}

static int scan_reduce_fn(void *userdata, const struct stream_match *m, size_t n, void *results)
{
	struct scan_check *c = userdata;
	const struct scan_result *r = results;

	if (++c->blocks == c->fail_at)
		return -EIO;
	for (size_t i = 0; i < n; i++) {
		const struct scan_want *w;
		bool maybe = false;

		for (size_t k = 0; k < c->n_maybe; k++)
			maybe |= m[i].err == -E2BIG && m[i].lineno == c->maybe[k];
		if (maybe)
			continue;
		assert_true(c->got < c->n_want);
		w = &c->want[c->got++];
		assert_int_equal(m[i].lineno, w->lineno);
		assert_int_equal(m[i].err, w->err);
		if (w->err)
			continue;
		assert_int_equal(m[i].len, w->len);
		assert_memory_equal(m[i].line, c->text + w->off, w->len);
		assert_int_equal(m[i].line[w->len], '\0');
		if (m[i].tag) {
			/* only ops tag; the map does not */
			assert_int_equal(m[i].tag, SCAN_TAG);
			assert_true(scan_tagged(w->len));
			continue;
		}
		assert_int_equal(r[i].len, w->len);
		assert_int_equal(r[i].first, w->len ? c->text[w->off] : 0);
		assert_int_equal(r[i].prev_len, scan_prev_len(m, r, i));
	}
	return 0;
}

/* stream_scan_ops.line: the search map's caller does, and map's result, or a tag */
static int scan_keep(struct scan_check *c, struct stream_match *m, const void *prev,
		     void *result)
{
	struct scan_result *r = result;

	if (stream_needles_find(c->nd, m->line, m->len) >= m->len)
		return 0;
	if (scan_tagged(m->len)) {
		m->tag = SCAN_TAG;
		return 2;
	}
	r->len = m->len;
	r->first = m->len ? m->line[0] : 0;
	r->prev_len = prev ? ((const struct scan_result *)prev)->len : SIZE_MAX;
	return 1;
}

static int scan_line_fn(void *userdata, void *state, struct stream_match *m,
			const void *prev, void *result)
{
	struct scan_check *c = userdata;

	assert_non_null(state);
	assert_int_equal(m->tag, 0);
	__atomic_add_fetch(&c->lined, 1, __ATOMIC_RELAXED);
	return scan_keep(c, m, prev, result);
}

/* stream_scan_ops.run: whole lines up to one that starts with 'x' or the seventh */
static size_t scan_run_fn(void *userdata, void *state, struct stream_run *run)
{
	struct scan_check *c = userdata;
	char *p = run->text, *end = run->text + run->len;
	char *res = run->results;

	assert_non_null(state);
	run->kept = 0;
	run->lines = 0;
	while (run->lines < 7 && p < end && *p != 'x') {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		struct stream_match *m = &run->m[run->kept];
		int kept;

		if (!nl || (size_t)(nl - p) > run->max_line || run->kept == run->room)
			break;
		*nl = '\0';
		*m = (struct stream_match){ p, (size_t)(nl - p), run->lines, 0, 0, run->text };
		kept = scan_keep(c, m, run->prev, res);
		if (kept == 1)
			run->prev = res;
		if (kept) {
			run->kept++;
			res += sizeof(struct scan_result);
		}
		run->lines++;
		p = nl + 1;
	}
	__atomic_add_fetch(&c->ran, run->lines, __ATOMIC_RELAXED);
	return (size_t)(p - run->text);
}

static void *scan_state_new(void *userdata)
{
	return malloc(16);
}

static void test_stream_scan(void **state)
{
	static const char *const nd[] = { "odule", "Unknown symbol" };
	const size_t big = STREAM_LINE_MAX_DEFAULT * 5 / 2;
	size_t cap = 12 << 20, len = 0, n_want = 0, n_maybe = 0, n_lines = 0;
	char *t = malloc(cap);
	struct scan_want *want = calloc(300000, sizeof(*want));
	uint64_t maybe[64];
	bool burst = false;
	struct stream_needles *s_nd;
	struct stream_scan_ops ops = { .result_size = sizeof(struct scan_result),
				       .state_new = scan_state_new, .state_free = free,
				       .map = scan_map_fn, .reduce = scan_reduce_fn };

	assert_int_equal(stream_needles_new(nd, 2, &s_nd), 0);
	/* three lines read one by one before the scan */
	len += (size_t)sprintf(t + len, "head module\nhead\nhead module\n");
	n_lines = 3;
	srand(20);
	while (len < (size_t)(9 << 20)) {
		int k = rand() % 1000;
		size_t from = len;

		if (!burst && len > (size_t)(4 << 20)) {
			/* blocks of short lines, each with a needle: more than a worker maps */
			for (int i = 0; i < 60000; i++) {
				from = len;
				len += (size_t)sprintf(t + len, "%s", i % 7 ? "odule" : "x odule y");
				want[n_want++] = (struct scan_want){ ++n_lines, 0, from, len - from };
				t[len++] = '\n';
			}
			burst = true;
			continue;
		}
		n_lines++;
		if (k < 2) {
			/* over-long with a needle: refused wherever it falls */
			memset(t + len, 'a', big);
			memcpy(t + len + big / 2, "module", 6);
			len += big;
			want[n_want++] = (struct scan_want){ n_lines, -E2BIG, 0, 0 };
		} else if (k < 4 && n_maybe < 64) {
			/* over-long without one: refused if it does not fit in a block */
			memset(t + len, 'b', big);
			len += big;
			maybe[n_maybe++] = n_lines;
		} else if (k < 300) {
			len += (size_t)sprintf(t + len, "[ %d.000000] nfs: Unknown symbol s%d (err -2)", k,
					       rand());
			want[n_want++] = (struct scan_want){ n_lines, 0, from, len - from };
		} else if (k < 310) {
			/* a needle cut by a NUL still counts where the bytes are */
			len += (size_t)sprintf(t + len, "x\x01y module");
			t[from + 1] = '\0';
			want[n_want++] = (struct scan_want){ n_lines, 0, from, len - from };
		} else if (k < 320) {
			/* empty */
		} else {
			len += (size_t)sprintf(t + len, "noise line %d Unknown symbo odul", k);
		}
		t[len++] = '\n';
	}
	/* the last line matches and has no newline */
	len += (size_t)sprintf(t + len, "last module");
	want[n_want++] = (struct scan_want){ ++n_lines, 0, len - 11, 11 };
	assert_true(n_maybe > 0);

	/* with a line op, then a run op too: the burst goes line by line, the same comes out */
	for (int comp = 0; comp < 9; comp++) {
		size_t clen = len;
		void *c = comp % 3 == 0 ? t : comp % 3 == 1 ? xz_of(t, len, &clen)
							    : zstd_of(t, len, &clen);

		ops.line = comp >= 3 ? scan_line_fn : NULL;
		ops.run = comp >= 6 ? scan_run_fn : NULL;
		for (unsigned int workers = 0; workers <= 3; workers += workers ? 2 : 1) {
			struct scan_check ck = { t, want, n_want, 0, maybe, n_maybe, 0, 0, s_nd, 0, 0 };
			const char *what;
			struct stream *s = stream_over(c, clen, &what);
			char *line;
			size_t n;

			assert_non_null(s);
			assert_int_equal(stream_next_line(s, &line, &n), 1);
			assert_int_equal(stream_next_line(s, &line, &n), 1);
			assert_int_equal(stream_next_line(s, &line, &n), 1);
			assert_int_equal(stream_scan(s, s_nd, workers, &ops, &ck), 0);
			assert_int_equal(ck.got, n_want);
			assert_int_equal(stream_lineno(s), n_lines);
			assert_true(stream_missing_newline(s));
			assert_int_equal(stream_bytes(s), len);
			assert_true(ck.blocks > 8);
			/* the burst's 60,000 lines, most of them at least */
			if (ops.run)
				assert_true(ck.ran > 30000 && ck.lined > 5000);
			else if (ops.line)
				assert_true(ck.lined > 30000);
			else
				assert_int_equal(ck.lined + ck.ran, 0);
			stream_free(s);
			reap();

			/* reduce's error ends the scan, the threads with it */
			ck = (struct scan_check){ t, want, n_want, 0, maybe, n_maybe, 5, 0, s_nd, 0, 0 };
			s = stream_over(c, clen, &what);
			assert_non_null(s);
			assert_int_equal(stream_next_line(s, &line, &n), 1);
			assert_int_equal(stream_next_line(s, &line, &n), 1);
			assert_int_equal(stream_next_line(s, &line, &n), 1);
			assert_int_equal(stream_scan(s, s_nd, workers, &ops, &ck), -EIO);
			stream_free(s);
			reap();
		}
		if (comp % 3)
			free(c);
	}
	ops.line = NULL;
	ops.run = NULL;
	/* a truncated xz stream: the error, not a hang */
	{
		size_t clen;
		void *c = xz_of(t, len, &clen);
		struct scan_check ck = { t, want, n_want, 0, maybe, n_maybe, 0, 0, s_nd, 0, 0 };
		const char *what;
		struct stream *s = stream_over(c, clen / 2, &what);
		char *line;
		size_t n;

		assert_non_null(s);
		for (int i = 0; i < 3; i++)
			assert_int_equal(stream_next_line(s, &line, &n), 1);
		assert_int_equal(stream_scan(s, s_nd, 2, &ops, &ck), -EBADMSG);
		/* what came before the damage was handed out in order */
		assert_true(ck.got > 0 && ck.got < n_want);
		stream_free(s);
		reap();
		free(c);
	}
	stream_needles_free(s_nd);
	free(want);
	free(t);
}

/* --- classes and needles against the kernel's formats ---------------------------------- */

/* A sample message for @e: each conversion replaced by a value its slot names (as
 * tests/unit/test-klog.c does); only its first line, as dmesg prints it. */
static void build_sample(const struct klog_format_entry *e, char *buf, size_t size)
{
	const char *f = e->format, *slot = e->slots;
	size_t n = 0;

	while (*f && *f != '\n' && n + 64 < size) {
		const char *v;
		char conv, num[32];
		bool alt = false;

		if (*f != '%') {
			buf[n++] = *f++;
			continue;
		}
		f++;
		if (*f == '%') {
			buf[n++] = *f++;
			continue;
		}
		while (strchr("-+ #0", *f)) {
			alt |= *f == '#';
			f++;
		}
		while (*f == '*' || *f == '.' || (*f >= '0' && *f <= '9'))
			f++;
		while (strchr("hlzjtL", *f))
			f++;
		conv = *f++;
		if (conv == 'p')
			while ((*f >= 'a' && *f <= 'z') || (*f >= 'A' && *f <= 'Z'))
				f++;
		switch (*slot ? *slot++ : '-') {
		case 'm':
			/* a module file where only one is taken */
			v = e->flags & KLOG_FORMAT_KO_FILE  ? "mod_a.ko" :
			    e->flags & KLOG_FORMAT_OBJ_FILE ? "mod_a.o" : "mod_a";
			break;
		case 's':
			v = "sym_b";
			break;
		case 't':
			/* a vmalloc failure is a load's in a loader's task */
			v = e->kind == KLOG_FINDING_VMALLOC_ERROR ? "modprobe" : "text c";
			break;
		case 'u':
			v = e->text2_is ? e->text2_is : "text d";
			break;
		default:
			/* modutils' object file, before its message */
			v = (e->flags & KLOG_FORMAT_OBJ_FILE) && !n ? "mod_a.o" : "dash";
			break;
		}
		if (conv == 'd' || conv == 'i')
			v = "-17";
		else if (conv == 'u')
			v = "4096";
		else if (conv == 'x' || conv == 'X') {
			snprintf(num, sizeof(num), "%s1f", alt ? "0x" : "");
			v = num;
		}
		n += (size_t)snprintf(buf + n, size - n, "%s", v);
	}
	buf[n] = '\0';
}

static void test_classes(void **state)
{
	/* every kernel log kind and every outcome but "loaded" is a class of its own name */
	for (int k = KLOG_FINDING_NONE + 1; k < KLOG_FINDING__MAX; k++) {
		int cls = ci_class_find(klog_finding_kind_name(k));

		if (cls < 0)
			fail_msg("no class for kernel log finding %s", klog_finding_kind_name(k));
	}
	for (int o = 0; o < _OUTCOME_MAX; o++) {
		if (o == OUTCOME_LOADED)
			continue;
		if (ci_class_find(attempt_outcome_name(o)) < 0)
			fail_msg("no class for outcome %s", attempt_outcome_name(o));
	}
	assert_true(ci_class_find("needless-autoload") >= 0);
	assert_true(ci_class_find("autoload-unresolved") >= 0);
	assert_int_equal(ci_class_find("no-such-class"), -1);
	assert_true(ci_class_count() <= 64);
	for (size_t i = 0; i < ci_class_count(); i++) {
		assert_true(strlen(ci_class_help(i)) > 10);
		assert_true(ci_class_group(i) < _CI_GROUP_MAX);
		for (size_t k = i + 1; k < ci_class_count(); k++)
			assert_string_not_equal(ci_class_name(i), ci_class_name(k));
	}
	assert_int_equal(ci_class_group((size_t)ci_class_find("unknown-symbol")), CI_GROUP_FAILURE);
	assert_int_equal(ci_class_group((size_t)ci_class_find("duplicate-live")), CI_GROUP_DUPLICATE);
}

static struct ci_findings *new_ci(struct ci_options *o)
{
	struct ci_findings *c;

	memset(o, 0, sizeof(*o));
	o->max_duplicates = o->max_failures = o->max_wasted = -1;
	assert_int_equal(ci_new(o, NULL, &c), 0);
	return c;
}

#ifndef FIXTURES_DIR
#define FIXTURES_DIR "tests/fixtures"
#endif

/*
 * A kernel log alone: a failed load logs each symbol it misses once, so the attempts of
 * a module are the most lines of one (module, symbol) pair, whatever the lines; over the
 * fixtures' real logs (concurrent loads interleave their lines).
 */
static void test_log_attempts(void **state)
{
	static const char *const names[] = { "debian-6.1-plain", "debian-6.12-xz",
					     "custom-6.12-modstats" };

	(void)state;
	for (size_t fx = 0; fx < sizeof(names) / sizeof(names[0]); fx++) {
		char path[256], buf[512], (*seen)[160] = calloc(4096, sizeof(*seen));
		uint64_t *n = calloc(4096, sizeof(*n)), lines = 0, want = 0, lineno = 0;
		struct ci_input_stats st = { 0 };
		struct ci_finding_info fi;
		struct ci_options o;
		struct ci_findings *c = new_ci(&o);
		enum ci_result res;
		size_t n_seen = 0;
		FILE *f;

		assert_non_null(seen);
		assert_non_null(n);
		snprintf(path, sizeof(path), "%s/%s/capture/dmesg.txt", FIXTURES_DIR, names[fx]);
		f = fopen(path, "re");
		assert_non_null(f);
		assert_int_equal(ci_begin_input(c, path, NULL), 0);
		while (fgets(buf, sizeof(buf), f)) {
			char *msg = strstr(buf, "] ");
			struct klog_rec rec = { 0 };
			size_t k;

			lineno++;
			if (!msg || !strstr(msg, ": Unknown symbol "))
				continue;
			msg += 2;
			msg[strcspn(msg, "\n")] = '\0';
			rec.msg = msg;
			rec.msg_len = strlen(msg);
			assert_int_equal(ci_klog(c, lineno, &rec), 0);
			lines++;
			/* the oracle: the lines of each message, by a scan */
			for (k = 0; k < n_seen && strcmp(seen[k], msg) != 0; k++)
				;
			if (k == n_seen) {
				assert_true(n_seen < 4096);
				snprintf(seen[n_seen++], sizeof(seen[0]), "%s", msg);
			}
			if (++n[k] > want)
				want = n[k];
		}
		fclose(f);
		st.records = st.lines = lineno;
		assert_int_equal(ci_end_input(c, &st), 0);
		assert_int_equal(ci_finish(c, &res), 0);
		assert_int_equal(ci_finding_count(c), 1);
		ci_finding_get(c, 0, &fi);
		assert_string_equal(fi.module, "nfs");
		assert_int_equal(fi.count, lines);
		assert_int_equal(fi.attempts, want);
		/* many symbols a load: the lines are not the loads */
		assert_true(fi.attempts * 10 < fi.count);
		ci_free(c);
		free(seen);
		free(n);
	}
}

/*
 * Rows are found again by (input, class, module) however many there are: every module
 * seen twice is one row of two lines; past the cap of names and rows the rest are
 * counted under "(other)", and no line is lost.
 */
static void test_rows_indexed(void **state)
{
	const size_t n_mod = 70000;
	struct ci_input_stats st = { 0 };
	struct ci_finding_info fi;
	struct ci_options o;
	struct ci_findings *c = new_ci(&o);
	uint64_t lineno = 0, sum = 0;
	bool other = false;
	enum ci_result res;

	(void)state;
	assert_int_equal(ci_begin_input(c, "rows", NULL), 0);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n_mod; i++) {
			char msg[64];
			struct klog_rec rec = { 0 };

			snprintf(msg, sizeof(msg), "m%06zu: Unknown symbol s%d (err -2)", i, pass);
			rec.msg = msg;
			rec.msg_len = strlen(msg);
			assert_int_equal(ci_klog(c, ++lineno, &rec), 0);
		}
	st.records = st.lines = lineno;
	assert_int_equal(ci_end_input(c, &st), 0);
	assert_int_equal(ci_finish(c, &res), 0);
	assert_true(ci_finding_count(c) < n_mod);
	for (size_t i = 0; i < ci_finding_count(c); i++) {
		ci_finding_get(c, i, &fi);
		sum += fi.count;
		if (strcmp(fi.module, "(other)") == 0) {
			other = true;
			continue;
		}
		assert_int_equal(fi.count, 2);
		assert_int_equal(fi.attempts, 1);
	}
	assert_true(other);
	assert_int_equal(sum, lineno);
	ci_free(c);
}

/* --- session/ci-input: what it tells the command instead of printing ----------------- */

struct notes {
	unsigned int n[CI_NOTE_NO_NEWLINE + 1];
	uint64_t last_line;
};

static void on_note(void *userdata, const struct ci_input_note *n)
{
	struct notes *ns = userdata;

	assert_true(n->kind <= CI_NOTE_NO_NEWLINE);
	assert_non_null(n->path);
	ns->n[n->kind]++;
	ns->last_line = n->line;
}

static char *write_temp(const void *data, size_t len)
{
	char *path = strdup("/tmp/kmodtop-test-ci-XXXXXX");
	int fd;

	assert_non_null(path);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
	return path;
}

static void test_input_faults(void **state)
{
	struct notes ns = { 0 };
	struct ci_input_opts io = { .filter = true, .threads = 1, .note = on_note,
				    .userdata = &ns };
	struct ci_input_err err;
	struct ci_input *in;
	struct ci_options o;
	struct ci_findings *c = new_ci(&o);
	char text[4096], *path;
	size_t len = 0, zlen;
	void *z;

	(void)state;
	assert_int_equal(ci_input_new(&io, &in, &err), 0);

	/* a file that is not there: the file, and why */
	assert_true(ci_input_read(in, c, "/nonexistent/kmodtop/dmesg", &err) < 0);
	assert_int_equal(err.fault, CI_FAULT_FILE);
	assert_string_equal(err.path, "/nonexistent/kmodtop/dmesg");
	assert_non_null(err.what);

	/* a log whose last line is cut: a note with its line, not a failure */
	len += (size_t)snprintf(text + len, sizeof(text) - len,
				"[    0.000000] Linux version 6.12.1 (gcc)\n");
	len += (size_t)snprintf(text + len, sizeof(text) - len,
				"[    1.000000] nfs: Unknown symbol a (err -2)");
	path = write_temp(text, len);
	assert_int_equal(ci_input_read(in, c, path, &err), 0);
	assert_int_equal(ns.n[CI_NOTE_NO_NEWLINE], 1);
	assert_int_equal(ns.last_line, 2);
	unlink(path);
	free(path);

	/* xz that breaks off: corrupt, said with the codec's name */
	z = xz_of(text, len, &zlen);
	path = write_temp(z, zlen / 2);
	assert_int_equal(ci_input_read(in, c, path, &err), -EBADMSG);
	assert_int_equal(err.fault, CI_FAULT_CORRUPT);
	assert_string_equal(err.what, "xz");
	unlink(path);
	free(path);
	free(z);

	ci_input_free(in);
	ci_free(c);
}

/* A loader's text lines, one by one: a modprobe-error where .module says, else nothing */
struct loader_line {
	const char *line, *module;	/* NULL: no finding */
};

static void check_loader_lines(const char *file, const struct loader_line *lines, size_t n)
{
	struct ci_options o;
	struct ci_findings *c = new_ci(&o);
	size_t want = 0;

	assert_int_equal(ci_begin_input(c, file, NULL), 0);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(ci_text(c, i + 1, lines[i].line, strlen(lines[i].line)), 0);
		want += lines[i].module != NULL;
		assert_int_equal(ci_finding_count(c), want);
		if (lines[i].module) {
			struct ci_finding_info f;

			ci_finding_get(c, want - 1, &f);
			assert_string_equal(f.cls, "modprobe-error");
			assert_non_null(f.module);
			assert_string_equal(f.module, lines[i].module);
			assert_int_equal(f.first_line, i + 1);
		}
	}
	ci_free(c);
}

/*
 * Loaders' lines as a journal or syslog has them, "ident[pid]: message" after the head
 * the input reader takes off (tests/corpus 014-017, 044), and other programs' lines
 * that only look alike
 */
static void test_text_loader_lines(void **state)
{
	static const struct loader_line lines[] = {
		{ "systemd-modules-load[198]: modprobe: FATAL: Module snd-seq not found in "
		  "directory /lib/modules/6.18.6-200.nobara.fc43.x86_64", "snd_seq" },
		{ "systemd-modules-load[174]: Error running install command '/sbin/modprobe "
		  "--ignore-install snd-pcm && /sbin/modprobe snd-seq' for module snd_pcm: retcode 1",
		  "snd_pcm" },
		{ "systemd-modules-load[112]: Failed to find module 'dm-multipath'", "dm_multipath" },
		{ "WARNING: Error inserting spl (/lib/modules/2.6.32-bpo.4-686/addon/spl/spl/spl.ko):"
		  " Unknown symbol in module, or unknown parameter (see dmesg)", "spl" },
		{ "systemd-modules-load[168]: Failed to insert 'vboxguest': No such device",
		  "vboxguest" },
		{ "systemd[1]: systemd-modules-load.service: Failed with result 'exit-code'.", NULL },
		{ "myapp[7]: Failed to insert 'row': File exists", NULL },
		{ "sshd[12]: Failed to find module 'x' said the attacker", NULL },
		{ "a b: modprobe: FATAL: Module x not found.", NULL },
	};
	(void)state;
	check_loader_lines("j.log", lines, sizeof(lines) / sizeof(lines[0]));
}

/* ci_klog_repeat() over runs counts what ci_klog() line by line counts */
static void test_klog_repeat(void **state)
{
	static const char *const msgs[] = {
		"Linux version 6.1.0-9-amd64 (x@y) #1",
		/* a run is of one message: a load failing alike on every CPU */
		"nfs: Unknown symbol a (err -2)",
		"nfs: Unknown symbol a (err -2)",
		"nfs: Unknown symbol a (err -2)",
		"xfs: Unknown symbol d (err -2)",
		"module: module-autoload: duplicate request for module net-pf-31",
		"module: module-autoload: duplicate request for module net-pf-31",
		/* no finding, and the boot's last lines */
		"EXT4-fs (vda1): mounted filesystem",
		"EXT4-fs (vda1): mounted filesystem",
		"Linux version 6.12.1 (x@y) #3",
		"nfs: Unknown symbol e (err -2)",
		"nfs: Unknown symbol e (err -2)",
	};
	/* a run: from this message on, the next ones say the same */
	static const size_t runs[][2] = { { 1, 3 }, { 5, 6 }, { 7, 8 }, { 10, 11 } };
	const size_t n_msgs = sizeof(msgs) / sizeof(msgs[0]);
	struct ci_options o1, o2;
	struct ci_findings *one = new_ci(&o1), *rep = new_ci(&o2);
	struct ci_input_stats st = { .records = n_msgs, .lines = 3 * n_msgs };
	struct klog_rec rec = { 0 };
	enum ci_result res;

	(void)state;
	assert_int_equal(ci_begin_input(one, "a.log", NULL), 0);
	assert_int_equal(ci_begin_input(rep, "a.log", NULL), 0);
	/* nothing to repeat yet */
	assert_int_equal(ci_klog_repeat(rep, 1, 1, 1), -EINVAL);
	for (size_t i = 0, r = 0; i < n_msgs; i++) {
		/* a run's lines are adjacent (the reader's runs are), so its lines are listed */
		uint64_t line = i + 1;

		rec.msg = msgs[i];
		rec.msg_len = strlen(msgs[i]);
		assert_int_equal(ci_klog(one, line, &rec), 0);
		if (r < 4 && i == runs[r][0]) {
			size_t last = runs[r][1];

			assert_int_equal(ci_klog(rep, line, &rec), 0);
			/* lines that are not after it, or fewer than the records */
			assert_int_equal(ci_klog_repeat(rep, line, last + 1, last - i), -EINVAL);
			assert_int_equal(ci_klog_repeat(rep, line + 1, line + 1, 2), -EINVAL);
			assert_int_equal(ci_klog_repeat(rep, line + 1, last + 1, last - i), 0);
			for (i++; i <= last; i++) {
				rec.msg = msgs[i];
				rec.msg_len = strlen(msgs[i]);
				assert_int_equal(ci_klog(one, i + 1, &rec), 0);
			}
			i--;
			r++;
		} else {
			assert_int_equal(ci_klog(rep, line, &rec), 0);
		}
	}
	/* after other text, nothing to repeat */
	assert_int_equal(ci_text(rep, 100, "x", 1), 0);
	assert_int_equal(ci_klog_repeat(rep, 101, 101, 1), -EINVAL);
	assert_int_equal(ci_text(one, 100, "x", 1), 0);
	assert_int_equal(ci_end_input(one, &st), 0);
	assert_int_equal(ci_end_input(rep, &st), 0);
	assert_int_equal(ci_finish(one, &res), 0);
	assert_int_equal(ci_finish(rep, &res), 0);
	assert_int_equal(ci_boot_count(rep), ci_boot_count(one));
	assert_int_equal(ci_finding_count(rep), ci_finding_count(one));
	assert_true(ci_finding_count(one) >= 3);
	for (size_t i = 0; i < ci_finding_count(one); i++) {
		struct ci_finding_info a, b;

		ci_finding_get(one, i, &a);
		ci_finding_get(rep, i, &b);
		assert_string_equal(a.cls, b.cls);
		assert_true((!a.module && !b.module) || strcmp(a.module, b.module) == 0);
		assert_int_equal(a.count, b.count);
		assert_int_equal(a.attempts, b.attempts);
		assert_int_equal(a.first_line, b.first_line);
		assert_int_equal(a.last_line, b.last_line);
		assert_int_equal(a.n_ranges, b.n_ranges);
		assert_memory_equal(a.ranges, b.ranges, a.n_ranges * sizeof(*a.ranges));
		assert_false(b.ranges_truncated);
		assert_int_equal(a.boots, b.boots);
	}
	{
		/* the whole report, boots' ends too */
		char *t1 = NULL, *t2 = NULL;
		size_t l1 = 0, l2 = 0;
		FILE *f1 = open_memstream(&t1, &l1), *f2 = open_memstream(&t2, &l2);
		struct out *o;

		assert_int_equal(out_new(OUT_JSON, true, f1, &o), 0);
		assert_int_equal(ci_render(one, o), 0);
		assert_int_equal(out_finish(o), 0);
		out_free(o);
		assert_int_equal(out_new(OUT_JSON, true, f2, &o), 0);
		assert_int_equal(ci_render(rep, o), 0);
		assert_int_equal(out_finish(o), 0);
		out_free(o);
		fclose(f1);
		fclose(f2);
		/* the first boot ends on the line before the second's banner */
		assert_non_null(strstr(t1, "\"end_line\": 9"));
		assert_int_equal(l1, l2);
		assert_memory_equal(t1, t2, l1);
		free(t1);
		free(t2);
	}
	ci_free(one);
	ci_free(rep);
}

/* Feeds @msg at @line into @c's current input */
static void klog_at(struct ci_findings *c, uint64_t line, const char *msg)
{
	struct klog_rec rec = { .msg = msg, .msg_len = strlen(msg) };

	assert_int_equal(ci_klog(c, line, &rec), 0);
}

/* The finding of @module in @path */
static void finding_of(const struct ci_findings *c, const char *module, const char *path,
		       struct ci_finding_info *ret)
{
	for (size_t i = 0; i < ci_finding_count(c); i++) {
		ci_finding_get(c, i, ret);
		if (ret->module && strcmp(ret->module, module) == 0 && strcmp(ret->path, path) == 0)
			return;
	}
	fail_msg("no finding of %s in %s", module, path);
}

/*
 * ci_klog_repeat_details() over a load's lines that miss symbols (one run, each line a
 * symbol) counts what ci_klog() line by line counts: the attempts by symbol, with tries
 * in the same order, in another and with a symbol more; lines with gaps as ranges.
 */
static void test_klog_repeat_details(void **state)
{
	/* the tries: symbols in the order logged */
	static const char *const tries[] = { "abcd", "abcd", "abcd", "cab", "abcde", "cc" };
	struct ci_options o1, o2;
	struct ci_findings *one = new_ci(&o1), *rep = new_ci(&o2);
	struct ci_input_stats st = { 0 };
	struct ci_finding_info a, b;
	uint64_t lines[32], details[32], line = 1, per[26] = { 0 }, want = 0;
	char msgs[32][64];
	size_t n = 0;
	enum ci_result res;

	(void)state;
	assert_int_equal(ci_begin_input(one, "a.log", NULL), 0);
	assert_int_equal(ci_begin_input(rep, "a.log", NULL), 0);
	klog_at(one, line, "Linux version 6.1.0-9-amd64 (x@y) #1");
	klog_at(rep, line, "Linux version 6.1.0-9-amd64 (x@y) #1");
	for (size_t t = 0; t < sizeof(tries) / sizeof(tries[0]); t++)
		for (const char *s = tries[t]; *s; s++) {
			/* a gap of other lines after every third */
			line += n % 3 == 2 ? 5 : 1;
			assert_true(n < 32);
			snprintf(msgs[n], sizeof(msgs[n]), "nfs: Unknown symbol rpc_%c (err -2)", *s);
			lines[n] = line;
			details[n] = ci_klog_detail(KLOG_FINDING_UNKNOWN_SYMBOL, msgs[n],
						    strlen(msgs[n]));
			assert_int_not_equal(details[n], 0);
			klog_at(one, line, msgs[n]);
			n++;
			/* the oracle: the most lines of one symbol */
			if (++per[*s - 'a'] > want)
				want = per[*s - 'a'];
		}
	assert_int_equal(ci_klog_detail(KLOG_FINDING_AUTOLOAD_DUPLICATE, msgs[0], 10), 0);
	/* the first line read, the rest as repeats of it */
	klog_at(rep, lines[0], msgs[0]);
	/* lines not after the record, or not increasing, or without a detail */
	assert_int_equal(ci_klog_repeat_details(rep, lines, details + 1, 2), -EINVAL);
	{
		uint64_t back[2] = { lines[2], lines[1] }, none[2] = { details[1], 0 };

		assert_int_equal(ci_klog_repeat_details(rep, back, details + 1, 2), -EINVAL);
		assert_int_equal(ci_klog_repeat_details(rep, lines + 1, none, 2), -EINVAL);
	}
	/* in two calls, as the reader's chunks */
	assert_int_equal(ci_klog_repeat_details(rep, lines + 1, details + 1, 6), 0);
	assert_int_equal(ci_klog_repeat_details(rep, lines + 7, details + 7, n - 7), 0);
	st.records = st.lines = line;
	assert_int_equal(ci_end_input(one, &st), 0);
	assert_int_equal(ci_end_input(rep, &st), 0);
	assert_int_equal(ci_finish(one, &res), 0);
	assert_int_equal(ci_finish(rep, &res), 0);
	finding_of(one, "nfs", "a.log", &a);
	finding_of(rep, "nfs", "a.log", &b);
	assert_int_equal(a.attempts, want);
	assert_int_equal(b.attempts, a.attempts);
	assert_int_equal(b.count, a.count);
	assert_int_equal(b.count, n);
	assert_int_equal(b.first_line, a.first_line);
	assert_int_equal(b.last_line, a.last_line);
	assert_true(a.n_ranges > 1);
	assert_int_equal(b.n_ranges, a.n_ranges);
	assert_memory_equal(a.ranges, b.ranges, a.n_ranges * sizeof(*a.ranges));
	assert_false(b.ranges_truncated);
	ci_free(one);
	ci_free(rep);
}

/*
 * Each finding lists its evidence lines as sorted, apart ranges: adjacent and
 * overlapping lines merge, a line that fills a gap joins its neighbours; past
 * CI_EVIDENCE_RANGES_MAX ranges the rest is only counted and the finding is marked
 * truncated; a run of repeats whose lines have others between is marked too; each
 * input is its own finding with its own lines.
 */
static void test_evidence_ranges(void **state)
{
	static const char nfs[] = "nfs: Unknown symbol a (err -2)";
	static const char xfs[] = "xfs: Unknown symbol b (err -2)";
	struct ci_input_stats st = { .records = 1000, .lines = 1000 };
	struct ci_finding_info fi;
	struct ci_options o;
	struct ci_findings *c = new_ci(&o);
	enum ci_result res;

	(void)state;
	assert_int_equal(ci_begin_input(c, "a.log", NULL), 0);
	klog_at(c, 1, "Linux version 6.1.0-9-amd64 (x@y) #1");
	klog_at(c, 10, nfs);
	klog_at(c, 11, nfs);
	klog_at(c, 13, nfs);
	klog_at(c, 20, nfs);
	klog_at(c, 12, nfs);		/* fills 11..13 */
	klog_at(c, 5, nfs);		/* before all */
	klog_at(c, 30, xfs);
	/* xfs: runs at every other line, more than a finding keeps */
	for (uint64_t k = 0; k < CI_EVIDENCE_RANGES_MAX + 10; k++)
		klog_at(c, 40 + 2 * k, xfs);
	assert_int_equal(ci_end_input(c, &st), 0);
	assert_int_equal(ci_begin_input(c, "b.log", NULL), 0);
	klog_at(c, 1, "Linux version 6.1.0-9-amd64 (x@y) #1");
	klog_at(c, 2, nfs);
	klog_at(c, 3, nfs);
	/* a run of 2 repeats over lines 4..8: which lines of them is not known */
	assert_int_equal(ci_klog_repeat(c, 4, 8, 2), 0);
	assert_int_equal(ci_end_input(c, &st), 0);
	assert_int_equal(ci_finish(c, &res), 0);

	finding_of(c, "nfs", "a.log", &fi);
	assert_int_equal(fi.count, 6);
	assert_int_equal(fi.n_ranges, 3);
	assert_int_equal(fi.ranges[0].first, 5);
	assert_int_equal(fi.ranges[0].last, 5);
	assert_int_equal(fi.ranges[1].first, 10);
	assert_int_equal(fi.ranges[1].last, 13);
	assert_int_equal(fi.ranges[2].first, 20);
	assert_int_equal(fi.ranges[2].last, 20);
	assert_false(fi.ranges_truncated);

	finding_of(c, "xfs", "a.log", &fi);
	assert_int_equal(fi.count, CI_EVIDENCE_RANGES_MAX + 11);
	assert_int_equal(fi.n_ranges, CI_EVIDENCE_RANGES_MAX);
	assert_true(fi.ranges_truncated);
	/* the first ones are kept, the count and the last line still whole */
	assert_int_equal(fi.ranges[0].first, 30);
	assert_int_equal(fi.ranges[1].first, 40);
	assert_int_equal(fi.ranges[CI_EVIDENCE_RANGES_MAX - 1].last,
			 40 + 2 * (CI_EVIDENCE_RANGES_MAX - 2));
	assert_int_equal(fi.last_line, 40 + 2 * (CI_EVIDENCE_RANGES_MAX + 9));
	for (size_t i = 1; i < fi.n_ranges; i++)
		assert_true(fi.ranges[i].first > fi.ranges[i - 1].last + 1);

	finding_of(c, "nfs", "b.log", &fi);
	assert_int_equal(fi.count, 4);
	assert_int_equal(fi.n_ranges, 2);
	assert_int_equal(fi.ranges[0].first, 2);
	assert_int_equal(fi.ranges[0].last, 4);
	assert_int_equal(fi.ranges[1].first, 8);
	assert_int_equal(fi.ranges[1].last, 8);
	assert_true(fi.ranges_truncated);
	ci_free(c);
}

/*
 * Over all findings at most CI_EVIDENCE_RANGES_ALL ranges are kept: modules of scattered
 * lines past it are truncated, their counts whole; a later line next to a kept range
 * still joins it.
 */
static void test_evidence_ranges_all(void **state)
{
	const size_t per = CI_EVIDENCE_RANGES_MAX / 2;
	const size_t mods = CI_EVIDENCE_RANGES_ALL / per + 4;
	struct ci_input_stats st = { .records = 1, .lines = 1 };
	size_t kept = 0, truncated = 0;
	struct ci_options o;
	struct ci_findings *c = new_ci(&o);
	enum ci_result res;
	uint64_t line = 1;
	char msg[64];

	(void)state;
	assert_int_equal(ci_begin_input(c, "a.log", NULL), 0);
	klog_at(c, line++, "Linux version 6.1.0-9-amd64 (x@y) #1");
	for (size_t m = 0; m < mods; m++) {
		snprintf(msg, sizeof(msg), "m%zu: Unknown symbol a (err -2)", m);
		for (size_t k = 0; k < per; k++, line += 2)
			klog_at(c, line, msg);
	}
	/* past the budget: only counted; then the first module's gap filled, merged */
	klog_at(c, line, "m0: Unknown symbol a (err -2)");
	klog_at(c, 3, "m0: Unknown symbol a (err -2)");
	st.records = st.lines = line;
	assert_int_equal(ci_end_input(c, &st), 0);
	assert_int_equal(ci_finish(c, &res), 0);
	assert_int_equal(ci_finding_count(c), mods);
	for (size_t i = 0; i < mods; i++) {
		struct ci_finding_info fi;

		ci_finding_get(c, i, &fi);
		kept += fi.n_ranges;
		truncated += fi.ranges_truncated;
		assert_int_equal(fi.count, per + (strcmp(fi.module, "m0") == 0 ? 2 : 0));
		if (strcmp(fi.module, "m0") == 0) {
			assert_int_equal(fi.ranges[0].first, 2);
			assert_int_equal(fi.ranges[0].last, 4);
		}
	}
	/* all were taken; then line 3 made m0's first two ranges one */
	assert_int_equal(kept, CI_EVIDENCE_RANGES_ALL - 1);
	assert_true(truncated >= 4);
	ci_free(c);
}

/* The needles pass every line a format can print; ci_klog() classes it right. */
/* The memo's answer, from a copy of the message, is klog_classify()'s, field by field */
static void check_same_finding(const struct klog_finding *a, const char *ma,
			       const struct klog_finding *b, const char *mb)
{
	assert_int_equal(a->kind, b->kind);
	assert_ptr_equal(a->format, b->format);
	assert_ptr_equal(a->source, b->source);
	assert_int_equal(a->err, b->err);
	assert_int_equal(a->n_num, b->n_num);
	assert_memory_equal(a->num, b->num, sizeof(a->num));
#define SAME_STR(f)                                                                     \
	do {                                                                            \
		assert_int_equal(a->f == NULL, b->f == NULL);                           \
		if (a->f) {                                                             \
			assert_int_equal(a->f - ma, b->f - mb);                         \
			assert_int_equal(a->f##_len, b->f##_len);                       \
		}                                                                       \
	} while (0)
	SAME_STR(module);
	SAME_STR(symbol);
	SAME_STR(text);
	SAME_STR(text2);
#undef SAME_STR
}

static void test_classify_memo(void **state)
{
	const struct klog_format_entry *t;
	struct klog_memo *memo;
	size_t n, kept = 0;

	assert_int_equal(klog_memo_new(&memo), 0);
	t = klog_formats(&n);
	for (int round = 0; round < 3; round++) {
		for (size_t i = 0; i < n + 2; i++) {
			char buf[512], copy[512];
			struct klog_finding want, got;
			uint64_t *user;
			int r;

			if (i < n)
				build_sample(&t[i], buf, sizeof(buf));
			else
				snprintf(buf, sizeof(buf), i == n ? "no finding here %d" : "%300d", 7);
			memcpy(copy, buf, sizeof(buf));
			r = klog_classify(buf, strlen(buf), &want);
			/* the first round fills the memo, the others answer from it */
			assert_int_equal(klog_classify_memo(memo, copy, strlen(copy), &got, &user), r);
			check_same_finding(&want, buf, &got, copy);
			if (strlen(buf) > 192) {
				assert_null(user);
				continue;
			}
			assert_non_null(user);
			/* the caller's word goes with the message, unless another message
			 * took its slot (then it starts again from 0) */
			if (round > 0 && *user == i + 1)
				kept++;
			else
				assert_int_equal(*user, 0);
			*user = i + 1;
		}
	}
	assert_true(kept > n);
	klog_memo_free(memo);
}

static void test_every_format(void **state)
{
	const struct klog_format_entry *t;
	const char *const *nd;
	size_t n, n_nd;
	struct stream_needles *s;
	struct ci_options o;
	struct ci_findings *c = new_ci(&o);
	struct ci_input_stats st = { .records = 1 };

	nd = ci_needles(&n_nd);
	assert_int_equal(stream_needles_new(nd, n_nd, &s), 0);
	t = klog_formats(&n);
	for (size_t i = 0; i < n; i++) {
		struct klog_rec rec = { .msg_len = 0 };
		struct ci_finding_info fi;
		char buf[512];
		bool found = false;

		build_sample(&t[i], buf, sizeof(buf));
		if (stream_needles_find(s, buf, strlen(buf)) == strlen(buf))
			fail_msg("no needle in the line of format %zu: \"%s\"", i, buf);
		assert_int_equal(ci_begin_input(c, "formats", NULL), 0);
		rec.msg = buf;
		rec.msg_len = strlen(buf);
		assert_int_equal(ci_klog(c, 1, &rec), 0);
		assert_int_equal(ci_end_input(c, &st), 0);
		for (size_t k = 0; k < ci_finding_count(c); k++) {
			ci_finding_get(c, k, &fi);
			if (strcmp(fi.path, "formats") != 0 || fi.first_line != 1)
				continue;
			/* each input is its own row set: the last rows are this one's */
			if (k + 1 == ci_finding_count(c)) {
				found = true;
				assert_string_equal(fi.cls, klog_finding_kind_name(t[i].kind));
				if (strchr(t[i].slots, 'm') && !(buf[0] == '(' ))
					assert_string_equal(fi.module, "mod_a");
			}
		}
		if (!found)
			fail_msg("format %zu gave no finding: \"%s\"", i, buf);
	}
	stream_needles_free(s);
	ci_free(c);
}

/* ci_klog_banner(): the banner's words and a release after them, at the message's start */
static void test_klog_banner(void **state)
{
	static const char full[] = "Linux version 6.1.0-9-amd64 (x@y) #1";

	(void)state;
	assert_true(ci_klog_banner(full, sizeof(full) - 1));
	assert_true(ci_klog_banner("Linux version 6", 15));
	/* only @len bytes count: the words alone, or fewer, are none */
	assert_false(ci_klog_banner(full, 14));
	assert_false(ci_klog_banner(full, 9));
	assert_false(ci_klog_banner("", 0));
	assert_false(ci_klog_banner("linux version 6.1", 17));
	assert_false(ci_klog_banner("x Linux version 6.1", 19));
}

/* A banner starts a boot; the release comes from it; gates look at the worst boot */
static void test_boots_and_gates(void **state)
{
	static const char *const lines[] = {
		"Linux version 6.1.0-9-amd64 (debian-kernel@lists.debian.org) #1 SMP",
		/* two loads: each logs each symbol it misses once */
		"nfs: Unknown symbol rpc_put_task (err -2)",
		"nfs: Unknown symbol rpc_call_sync (err -2)",
		"nfs: Unknown symbol rpc_put_task (err -2)",
		"Linux version 6.12.1 (x@y) #2",
		"nfs: Unknown symbol rpc_put_task (err -2)",
		/* a request the kernel merged: no load attempt, no duplicate */
		"module: module-autoload: duplicate request for module net-pf-31",
		/* a duplicate load attempt (EEXIST) */
		"snd_hda: module is already loaded",
		"Linux version 6.12.1 (x@y) #3",
	};
	struct ci_options o;
	struct ci_findings *c = new_ci(&o);
	struct ci_input_stats st = { .records = 9, .lines = 9 };
	struct ci_finding_info fi;
	enum ci_result res;
	char *alw[] = { "sctp" };

	o.max_failures = 1;
	o.max_duplicates = 0;
	o.allow = alw;
	o.n_allow = 1;
	assert_int_equal(ci_begin_input(c, "boots.log", NULL), 0);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		struct klog_rec rec = { .msg = lines[i], .msg_len = strlen(lines[i]) };

		assert_int_equal(ci_klog(c, i + 1, &rec), 0);
	}
	assert_int_equal(ci_end_input(c, &st), 0);
	assert_int_equal(ci_finish(c, &res), 0);
	assert_int_equal(ci_boot_count(c), 3);
	assert_string_equal(ci_boot_release(c, 0), "6.1.0-9-amd64");
	assert_string_equal(ci_boot_release(c, 1), "6.12.1");
	/* boot 1 has 2 failed attempts > 1; boot 2 a duplicate attempt > 0 */
	assert_int_equal(res, CI_FAIL);
	assert_int_equal(ci_finding_count(c), 3);
	ci_finding_get(c, 0, &fi);
	assert_string_equal(fi.cls, "unknown-symbol");
	assert_string_equal(fi.module, "nfs");
	assert_int_equal(fi.count, 4);
	/* 2 loads in boot 1 (rpc_put_task twice), 1 in boot 2 */
	assert_int_equal(fi.attempts, 3);
	assert_int_equal(fi.boots, 2);
	assert_int_equal(fi.first_line, 2);
	assert_int_equal(fi.last_line, 6);
	assert_true(fi.gated);
	ci_finding_get(c, 1, &fi);
	assert_string_equal(fi.cls, "autoload-duplicate");
	/* an alias keeps its dashes */
	assert_string_equal(fi.module, "net-pf-31");
	ci_free(c);

	/* the same with a failure limit of 2 and the alias allowed: passes */
	c = new_ci(&o);
	o.max_failures = 2;
	o.max_duplicates = 0;
	alw[0] = "snd-hda*";
	o.allow = alw;
	o.n_allow = 1;
	assert_int_equal(ci_begin_input(c, "boots.log", NULL), 0);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		struct klog_rec rec = { .msg = lines[i], .msg_len = strlen(lines[i]) };

		assert_int_equal(ci_klog(c, i + 1, &rec), 0);
	}
	assert_int_equal(ci_end_input(c, &st), 0);
	assert_int_equal(ci_finish(c, &res), 0);
	/* --allow patterns are normalised by the caller ('-' is '_'): no match here */
	assert_int_equal(res, CI_FAIL);
	ci_free(c);
	c = new_ci(&o);
	o.max_failures = 2;
	o.max_duplicates = 0;
	alw[0] = "snd_hda*";
	o.allow = alw;
	o.n_allow = 1;
	assert_int_equal(ci_begin_input(c, "boots.log", NULL), 0);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		struct klog_rec rec = { .msg = lines[i], .msg_len = strlen(lines[i]) };

		assert_int_equal(ci_klog(c, i + 1, &rec), 0);
	}
	assert_int_equal(ci_end_input(c, &st), 0);
	assert_int_equal(ci_finish(c, &res), 0);
	assert_int_equal(res, CI_PASS);
	ci_free(c);

	/* nothing at all */
	c = new_ci(&o);
	st.records = 0;
	assert_int_equal(ci_begin_input(c, "empty.log", NULL), 0);
	assert_int_equal(ci_end_input(c, &st), 0);
	assert_int_equal(ci_finish(c, &res), 0);
	assert_int_equal(res, CI_EMPTY);
	assert_int_equal(ci_boot_count(c), 0);
	ci_free(c);
}

/* --- formats ------------------------------------------------------------------------- */

/* ci_write_*() into a string */
static char *ci_written(const struct ci_findings *c, int (*write)(const struct ci_findings *, FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(write(c, f), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static int sarif_plain(const struct ci_findings *c, FILE *f)
{
	return ci_write_sarif(c, f, false);
}

/*
 * A log line's newline and bidi override in JUnit, SARIF and GitHub annotations: shown
 * as \xNN as text output shows them, never a line of its own nor a reordering
 */
static void test_formats_escape_log_text(void **state)
{
	static const char line[] = "modprobe: vmalloc error: size 8192, failed to map pages\n"
				   "::error ::owned\xe2\x80\xae" "dlrow";
	struct ci_options o;
	struct ci_findings *c = new_ci(&o);
	struct ci_input_stats st = { .records = 1, .lines = 1 };
	struct klog_rec rec = { .msg = line, .msg_len = sizeof(line) - 1 };
	enum ci_result res;
	char *junit, *sarif, *gh;

	(void)state;
	o.max_failures = 0;
	assert_int_equal(ci_begin_input(c, "nl.log", NULL), 0);
	assert_int_equal(ci_klog(c, 1, &rec), 0);
	assert_int_equal(ci_end_input(c, &st), 0);
	assert_int_equal(ci_finish(c, &res), 0);
	assert_int_equal(ci_finding_count(c), 1);

	junit = ci_written(c, ci_write_junit);
	assert_non_null(strstr(junit, "pages\\x0a::error ::owned\\xe2\\x80\\xaedlrow"));
	assert_null(strstr(junit, "\n::error"));
	assert_null(strstr(junit, "\xe2\x80\xae"));
	sarif = ci_written(c, sarif_plain);
	assert_non_null(strstr(sarif, "pages\\\\x0a::error ::owned\\\\xe2\\\\x80\\\\xaedlrow"));
	assert_null(strstr(sarif, "\xe2\x80\xae"));
	gh = ci_written(c, ci_write_github);
	assert_non_null(strstr(gh, "pages\\x0a::error ::owned\\xe2\\x80\\xaedlrow"));
	assert_null(strstr(gh, "\n::error ::owned"));
	free(junit);
	free(sarif);
	free(gh);
	ci_free(c);
}

static void check_xml(const char *in, size_t len, const char *want)
{
	char *got = ci_xml_escape(in, len);

	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void test_xml_escape(void **state)
{
	check_xml("a&b<c>d\"e'f", 11, "a&amp;b&lt;c&gt;d&quot;e&apos;f");
	check_xml("t\tn\nr\r", 6, "t&#9;n&#10;r&#13;");
	/* C0 controls are no XML 1.0 character at all, not even as a reference */
	check_xml("\x01\x1b[1m\x7f", 6, "\xef\xbf\xbd\xef\xbf\xbd[1m&#x7F;");
	check_xml("nul\0x", 5, "nul\xef\xbf\xbdx");
	/* valid UTF-8 stays, invalid bytes and forbidden code points become U+FFFD */
	check_xml("\xc3\xa9\xe2\x82\xac", 5, "\xc3\xa9\xe2\x82\xac");
	check_xml("\xff\xc3", 2, "\xef\xbf\xbd\xef\xbf\xbd");
	check_xml("\xef\xbf\xbe", 3, "\xef\xbf\xbd");		/* U+FFFE */
	check_xml("\xed\xa0\x80", 3, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"); /* a surrogate */
	check_xml("\xc0\xaf", 2, "\xef\xbf\xbd\xef\xbf\xbd");	/* overlong '/' */
	check_xml("\xc2\x85", 2, "&#x85;");			/* C1 NEL */
	check_xml("\xf0\x9f\x98\x80", 4, "\xf0\x9f\x98\x80");
	check_xml("", 0, "");
}

static void test_parse_size(void **state)
{
	uint64_t v;

	assert_int_equal(ci_parse_size("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(ci_parse_size("512", &v), 0);
	assert_int_equal(v, 512);
	assert_int_equal(ci_parse_size("1K", &v), 0);
	assert_int_equal(v, 1024);
	assert_int_equal(ci_parse_size("1k", &v), 0);
	assert_int_equal(v, 1024);
	assert_int_equal(ci_parse_size("1.5M", &v), 0);
	assert_int_equal(v, 1536 * 1024);
	assert_int_equal(ci_parse_size("2G", &v), 0);
	assert_int_equal(v, 2ull << 30);
	assert_int_equal(ci_parse_size("3KiB", &v), 0);
	assert_int_equal(v, 3072);
	assert_int_equal(ci_parse_size("10MB", &v), 0);
	assert_int_equal(v, 10 << 20);
	assert_int_equal(ci_parse_size("100B", &v), 0);
	assert_int_equal(v, 100);
	assert_int_equal(ci_parse_size("", &v), -EINVAL);
	assert_int_equal(ci_parse_size("K", &v), -EINVAL);
	assert_int_equal(ci_parse_size("-1", &v), -EINVAL);
	assert_int_equal(ci_parse_size("1X", &v), -EINVAL);
	assert_int_equal(ci_parse_size("1.", &v), -EINVAL);
	assert_int_equal(ci_parse_size("1 M", &v), -EINVAL);
	assert_int_equal(ci_parse_size("99999999999999999999", &v), -ERANGE);
	assert_int_equal(ci_parse_size("17179869184G", &v), -ERANGE);
}

static void test_baseline_parse(void **state)
{
	static const char good[] =
		"{\"command\":\"ci\",\"schema_version\":1,\"findings\":["
		"{\"class\":\"unknown-symbol\",\"module\":\"nfs\",\"count\":423,\"wasted\":null},"
		"{\"class\":\"bad-elf\",\"module\":null,\"count\":5,\"wasted\":8192}],"
		"\"totals\":{\"boots\":2,\"wasted\":8192}}";
	struct ci_fmt_baseline *b = NULL;
	const char *what;

	assert_int_equal(ci_baseline_parse(good, strlen(good), &b, &what), 0);
	assert_int_equal(b->n, 2);
	assert_string_equal(b->items[0].class, "unknown-symbol");
	assert_string_equal(b->items[0].module, "nfs");
	assert_int_equal(b->items[0].count, 423);
	assert_false(b->items[0].wasted_known);
	assert_null(b->items[1].module);
	assert_true(b->items[1].wasted_known);
	assert_int_equal(b->items[1].wasted, 8192);
	assert_int_equal(b->boots, 2);
	assert_true(b->wasted_known);
	ci_baseline_free(b);

	what = NULL;
	assert_int_equal(ci_baseline_parse("{", 1, &b, &what), -EINVAL);
	assert_non_null(what);
	assert_int_equal(ci_baseline_parse("{\"command\":\"report\",\"findings\":[]}", 35, &b, &what),
			 -EINVAL);
	assert_int_equal(ci_baseline_parse("{\"command\":\"ci\"}", 16, &b, &what), -EINVAL);
	{
		static const char nocount[] =
			"{\"command\":\"ci\",\"findings\":[{\"class\":\"x\",\"module\":\"y\"}]}";
		static const char negative[] =
			"{\"command\":\"ci\",\"findings\":[{\"class\":\"x\",\"count\":-1}]}";

		assert_int_equal(ci_baseline_parse(nocount, strlen(nocount), &b, &what), -EINVAL);
		assert_int_equal(ci_baseline_parse(negative, strlen(negative), &b, &what), -EINVAL);
	}
}

static void test_json_fields(void **state)
{
	static const char line[] =
		"{\"MESSAGE\":\"nfs: Unknown symbol x (err -2)\",\"_TRANSPORT\":\"kernel\","
		"\"__MONOTONIC_TIMESTAMP\":\"11700013\",\"PRIORITY\":4,"
		"\"BIN\":[104,105,0,255],\"Z\":null}";
	static const char *const keys[] = { "MESSAGE", "__MONOTONIC_TIMESTAMP", "PRIORITY", "BIN",
					    "Z", "ABSENT" };
	char *v[6];
	size_t l[6];

	assert_int_equal(journal_json_fields(line, strlen(line), keys, 6, v, l), 0);
	assert_string_equal(v[0], "nfs: Unknown symbol x (err -2)");
	assert_string_equal(v[1], "11700013");
	assert_string_equal(v[2], "4");
	assert_int_equal(l[3], 4);
	assert_memory_equal(v[3], "hi\0\xff", 4);
	assert_null(v[4]);
	assert_null(v[5]);
	for (int i = 0; i < 6; i++)
		free(v[i]);
	assert_int_equal(journal_json_fields("[1,2]", 5, keys, 6, v, l), -EINVAL);
	assert_int_equal(journal_json_fields("not json", 8, keys, 6, v, l), -EINVAL);
}

/* --- the CLI test's format lines ------------------------------------------------------- */

static int print_format_lines(void)
{
	const struct klog_format_entry *t;
	size_t n;

	t = klog_formats(&n);
	for (size_t i = 0; i < n; i++) {
		char buf[512];

		build_sample(&t[i], buf, sizeof(buf));
		printf("%s\t[%5zu.%06zu] %s\n", klog_finding_kind_name(t[i].kind), i + 1, i, buf);
	}
	return 0;
}

/*
 * OpenWrt ubox's list of modules that could not be probed (kmodloader.c): each "- %s"
 * right after the count's line is a finding, as many as it counts; the count's line
 * none; a list line anywhere else none. Lines of a real logread (openlumi, 2021).
 */
static void test_text_ubox_unprobed(void **state)
{
	static const struct loader_line lines[] = {
		{ "Sat Feb 27 16:54:37 2021 daemon.err modprobe: 1 module could not be probed", NULL },
		{ "Sat Feb 27 16:54:37 2021 daemon.err modprobe: - wireguard", "wireguard" },
		{ "Sat Feb 27 16:54:37 2021 daemon.err modprobe: - other", NULL },
		{ "kmodloader: 2 modules could not be probed", NULL },
		{ "kmodloader: - nf_conntrack - 1", "nf_conntrack" },
		{ "kmodloader: - ip6_tables - 0", "ip6_tables" },
		{ "kmodloader: - third - 0", NULL },
		{ "modprobe: - wireguard", NULL },
		{ "modprobe: 1 module could not be probed", NULL },
		{ "", NULL },
		{ "modprobe: - wireguard", NULL },
		{ "- wireguard", NULL },
	};
	(void)state;
	check_loader_lines("logread.log", lines, sizeof(lines) / sizeof(lines[0]));
}

/* A loader's line indented by tabs reads as one indented by spaces (a blog's insmod) */
static void test_text_tab_indented_loader(void **state)
{
	static const struct loader_line lines[] = {
		{ "\tinsmod: can't insert 'cfg80211.ko': invalid module format", "cfg80211" },
		{ " \t\tmodprobe: ERROR: could not insert 'slcan': Exec format error", "slcan" },
		{ "\t\tthe modprobe: said nothing", NULL },
	};
	(void)state;
	check_loader_lines("t.log", lines, sizeof(lines) / sizeof(lines[0]));
}

/*
 * Lines a mail client wrapped (batch 8b, tests/corpus 361-385), read through
 * ci_input_read(): "cls module line" of every finding, in the order ci lists them.
 */
static void check_wrapped(const char *text, const char *const *want, size_t n_want)
{
	struct ci_input_opts io = { .filter = true, .threads = 1 };
	struct ci_input_err err;
	struct ci_input *in;
	struct ci_options o;
	struct ci_findings *c = new_ci(&o);
	enum ci_result res;
	char *path = write_temp(text, strlen(text));
	size_t found = 0, lines = 0;

	assert_int_equal(ci_input_new(&io, &in, &err), 0);
	assert_int_equal(ci_input_read(in, c, path, &err), 0);
	assert_int_equal(ci_finish(c, &res), 0);
	for (size_t i = 0; i < ci_finding_count(c); i++) {
		struct ci_finding_info fi;

		ci_finding_get(c, i, &fi);
		for (size_t r = 0; r < fi.n_ranges; r++)
			for (uint64_t l = fi.ranges[r].first; l <= fi.ranges[r].last; l++) {
				char got[128];

				snprintf(got, sizeof(got), "%s %s %llu", fi.cls,
					 fi.module ? fi.module : "-", (unsigned long long)l);
				for (size_t k = 0; k < n_want; k++)
					found += !strcmp(got, want[k]);
				lines++;
			}
	}
	/* every line wanted, and no other */
	assert_int_equal(found, n_want);
	assert_int_equal(lines, n_want);
	unlink(path);
	free(path);
	ci_input_free(in);
	ci_free(c);
}

static void test_input_wrapped_lines_8b(void **state)
{
	/* the second half holds no needle: read back before the next line handed out */
	static const char *const gap[] = { "symbol-version dvb_usb_rtl2832u 1",
					   "unknown-symbol dvb_usb_rtl2832u 3" };
	/* a loader's line wrapped in three: after the name, after the path */
	static const char *const three[] = { "modprobe-error bttv 1" };
	/* a whole sentence held is no first half of the loader's line after it */
	static const char *const whole[] = { "modprobe-error cx8802 2" };
	/* a syslog line in a mail's quote */
	static const char *const quoted[] = { "unknown-symbol nvidia 1" };
	/* held lines among records alike: each joined, none taken as a run's */
	static const char *const run[] = { "symbol-version budget_core 1",
					   "unknown-symbol budget_core 3",
					   "symbol-version budget_core 5",
					   "unknown-symbol budget_core 7",
					   "symbol-version budget_core 9",
					   "unknown-symbol budget_core 11" };

	(void)state;
	check_wrapped("[  160.173311] dvb_usb_rtl2832u: disagrees about version of symbol\n"
		      "dvb_usb_device_init\n"
		      "[  160.173315] dvb_usb_rtl2832u: Unknown symbol dvb_usb_device_init (err -22)\n",
		      gap, 2);
	check_wrapped("WARNING: Error inserting bttv\n"
		      "(/lib/modules/2.6.26/kernel/drivers/media/video/bt8xx/bttv.ko):\n"
		      "Unknown symbol in module, or unknown parameter (see dmesg)\n", three, 1);
	check_wrapped("symbol in module, or unknown parameter (see dmesg)\n"
		      "WARNING: Error inserting cx8802\n"
		      "(/lib/modules/2.6.12/kernel/drivers/media/video/cx88/cx8802.ko): Unknown\n"
		      "symbol in module, or unknown parameter (see dmesg)\n", whole, 1);
	check_wrapped("> Sep 18 15:31:36 poseidon kernel: nvidia: Unknown symbol __VMALLOC_RESERVE\n",
		      quoted, 1);
	check_wrapped(">>> [   14.916832] budget_core: disagrees about version of symbol\n"
		      ">>> saa7146_i2c_adapter_prepare\n"
		      ">>> [   14.916833] budget_core: Unknown symbol saa7146_i2c_adapter_prepare\n"
		      ">>> (err -22)\n"
		      ">>> [   14.916840] budget_core: disagrees about version of symbol\n"
		      ">>> dvb_register_adapter\n"
		      ">>> [   14.916841] budget_core: Unknown symbol dvb_register_adapter (err\n"
		      ">>> -22)\n"
		      ">>> [   14.916846] budget_core: disagrees about version of symbol\n"
		      ">>> dvb_dmx_swfilter_packets\n"
		      ">>> [   14.916848] budget_core: Unknown symbol dvb_dmx_swfilter_packets\n"
		      ">>> (err -22)\n", run, 6);
}

/* modutils' (2.4) text lines: after the object file its error() names first */
static void test_text_modutils_8b(void **state)
{
	static const struct loader_line lines[] = {
		{ "/lib/modules/2.4.0lt/kernel/drivers/atm/fore200e_sba_fw.o: insmod fore200e failed",
		  "fore200e" },
		{ "fore200e_sba_fw.o: couldn't find the kernel version the module was compiled for",
		  "fore200e_sba_fw" },
		/* another program's words, no object file first */
		{ "wifi: insmod bcmdhd failed", NULL },
	};

	(void)state;
	check_loader_lines("modutils", lines, sizeof(lines) / sizeof(lines[0]));
}

/*
 * Loaders' lines that name no module's outcome: depmod's, systemd's word that
 * systemd-modules-load failed, systemctl status's failed modprobe. No finding, but an
 * input of them alone is read (something to analyse), not "nothing to analyse"; other
 * programs' lines alike stay nothing.
 */
static void test_text_loader_other_lines(void **state)
{
	static const struct {
		const char *line;
		bool loader;
	} cases[] = {
		{ "depmod: *** Unresolved symbols in /lib/modules/2.4.11-pre1/kernel/drivers/"
		  "media/radio/miropcm20.o", true },
		{ "depmod: WARNING: /lib/modules/6.1.0/extra/x.ko needs unknown symbol y", true },
		{ "systemd[1]: systemd-modules-load.service: Main process exited, code=exited, "
		  "status=1/FAILURE", true },
		{ "systemd[1]: Failed to start Load Kernel Modules.", true },
		{ "  Process: 418 ExecStart=/usr/lib/systemd/systemd-modules-load (code=exited, "
		  "status=1/FAILURE)", true },
		{ "**Process: 229882 ExecStartPre=/sbin/modprobe br_netfilter (code=exited, "
		  "status=1/FAILURE)**", true },
		{ "  Process: 418 ExecStart=/usr/lib/systemd/systemd-modules-load (code=exited, "
		  "status=0/SUCCESS)", false },
		{ "  Process: 9 ExecStartPre=/sbin/modprobe-helper x (code=exited, status=1/FAILURE)",
		  false },
		{ "  Process: 9 ExecStart=/usr/bin/insmodder (code=exited, status=1/FAILURE)", false },
		{ "insmod: no gzip magic.", true },
		{ "modprobe: ERROR: ../libkmod/libkmod.c:586 kmod_search_moddep() could not open "
		  "moddep file '/lib/modules/4.15.0/modules.dep.bin'", true },
		{ "time=\"2017-12-13T20:39:34Z\" level=warning msg=\"Running modprobe ip_vs failed "
		  "with message: `modprobe: ERROR: ../libkmod/libkmod.c:557 kmod_search_moddep() "
		  "could not open moddep file '/lib/modules/4.13.0-19/modules.dep.bin'`\"", true },
		{ "and then he said modprobe: hello", false },
		{ "user.err modprobe: (mixos): module load for '-q' failed: error.ModuleNotFound", true },
		{ "user.err sshd: modprobe: said the attacker", false },
		{ "systemd[1]: Starting Load Kernel Modules...", false },
		{ "sshd[1]: depmod: said the attacker", false },
		{ "systemd[1]: foo.service: Main process exited, code=exited, status=1/FAILURE", false },
	};
	struct ci_options o = { 0 };
	struct ci_input_stats st = { 0 };
	enum ci_result res;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ci_findings *c = new_ci(&o);

		assert_int_equal(ci_begin_input(c, "t.log", NULL), 0);
		assert_int_equal(ci_text(c, 1, cases[i].line, strlen(cases[i].line)), 0);
		assert_int_equal(ci_end_input(c, &st), 0);
		assert_int_equal(ci_finish(c, &res), 0);
		if (res != (cases[i].loader ? CI_PASS : CI_EMPTY))
			fail_msg("%s: result %d", cases[i].line, (int)res);
		assert_int_equal(ci_finding_count(c), 0);
		ci_free(c);
	}
}

static void test_input_wrapped_lines_9a(void **state)
{
	/* the second half holds no needle, nor do the lines after it: read back from the
	 * block of the next line handed out, a few lines later */
	static const char *const far[] = { "modprobe-error autofs4 2" };
	/* the first half holds no needle, the second does */
	static const char *const first[] = { "load-error br_netfilter 3" };

	(void)state;
	check_wrapped("[   23.376894] systemd[1]: Current system time is ahead\n"
		      "[   23.411753] systemd[1]: Failed to find module\n"
		      "'autofs4'\n"
		      "[   23.598149] systemd[1]: systemd 251.2+ running in\n"
		      "system mode (+PAM -AUDIT -SELINUX -APPARMOR)\n"
		      "[   23.612000] random: crng init done\n"
		      "[   24.100000] loop: module loaded\n", far, 1);
	check_wrapped("[  138.000000] random: crng init done\n"
		      "[  138.500000] bridge: filtering via arp/ip/ip6tables is no longer available\n"
		      "[  139.290533] br_netfilter: target ffffffe0000422d8 can not be\n"
		      "addressed by the 32-bit offset from PC = 000000003dfd6deb\n", first, 1);
}

/*
 * ubox's kmodloader at early boot logs to /dev/kmsg, so its list of modules it could not
 * probe comes as kernel records (libreCMC's dmesg, tests/corpus 590), read through the
 * needle filter: the list line after the count's line is a finding, the count's none.
 */
static void test_input_ubox_unprobed_records_12b(void **state)
{
	static const char list[] =
		"[   48.914177] nfsd: Unknown symbol __stack_chk_fail (err 0)\n"
		"[   48.958916] kmodloader: 1 module could not be probed\n"
		"[   48.969275] kmodloader: - nfsd - 0\n"
		"[   48.970001] kmodloader: - other - 0\n"
		"[   49.100000] kmodloader: - later - 0\n";
	/* past the lines read before the filter starts (QP_SNIFF_LINES) */
	static const char *const want[] = { "unknown-symbol nfsd 81", "modprobe-error nfsd 83" };
	char text[4096];
	size_t n = 0;

	(void)state;
	for (int i = 0; i < 80; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "[    1.%06d] usb 1-1: ordinary\n", i);
	snprintf(text + n, sizeof(text) - n, "%s", list);
	check_wrapped(text, want, 2);
}

/*
 * Loader lines a mail client wrapped (batch 12a, tests/corpus 561-585), read through
 * ci_input_read(): in a log with timestamps too, and past a wording cut short.
 */
static void test_input_wrapped_lines_12a(void **state)
{
	/* kmod insmod's error wrapped after "module" and after the path, among records */
	static const char *const timed[] = { "unknown-symbol list_test 1",
					     "modprobe-error list_test 2" };
	/* command_do()'s error wrapped before its module: the third line names it */
	static const char *const install[] = { "modprobe-error sysctl_alias_off 1",
					       "modprobe-error sysctl_alias_off 4" };
	/* an untimed line of no loader among records is still no first half */
	static const char *const other[] = { "unknown-symbol list_test 1" };

	(void)state;
	check_wrapped("[   82.409820] list_test: Unknown symbol kunit_unary_assert_format (err -2)\n"
		      "insmod: ERROR: could not insert module\n"
		      "/lib/modules/5.19.0-rc1/kernel/lib/list-test.ko:\n"
		      "Unknown symbol in module\n", timed, 2);
	check_wrapped("modprobe: ERROR: ../libkmod/libkmod-module.c:990 command_do() Error\n"
		      "running install command '/bin/false' for module sysctl_alias_off:\n"
		      "retcode 1\n"
		      "modprobe: ERROR: could not insert 'sysctl_alias_off': Invalid argument\n",
		      install, 2);
	check_wrapped("[   82.409820] list_test: Unknown symbol kunit_unary_assert_format (err -2)\n"
		      "the loader said: could not insert module\n"
		      "/lib/modules/5.19.0-rc1/kernel/lib/list-test.ko:\n"
		      "Unknown symbol in module\n", other, 1);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stream_formats),
		cmocka_unit_test(test_stream_concatenated),
		cmocka_unit_test(test_stream_corrupt),
		cmocka_unit_test(test_stream_refused),
		cmocka_unit_test(test_stream_long_lines),
		cmocka_unit_test(test_needles_find),
		cmocka_unit_test(test_stream_next_match),
		cmocka_unit_test(test_stream_scan),
		cmocka_unit_test(test_classify_memo),
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_every_format),
		cmocka_unit_test(test_klog_banner),
		cmocka_unit_test(test_boots_and_gates),
		cmocka_unit_test(test_klog_repeat),
		cmocka_unit_test(test_klog_repeat_details),
		cmocka_unit_test(test_evidence_ranges),
		cmocka_unit_test(test_evidence_ranges_all),
		cmocka_unit_test(test_text_loader_lines),
		cmocka_unit_test(test_text_loader_other_lines),
		cmocka_unit_test(test_text_tab_indented_loader),
		cmocka_unit_test(test_log_attempts),
		cmocka_unit_test(test_xml_escape),
		cmocka_unit_test(test_formats_escape_log_text),
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_baseline_parse),
		cmocka_unit_test(test_json_fields),
		cmocka_unit_test(test_rows_indexed),
		cmocka_unit_test(test_input_faults),
		cmocka_unit_test(test_text_ubox_unprobed),
		cmocka_unit_test(test_input_wrapped_lines_8b),
		cmocka_unit_test(test_input_wrapped_lines_12a),
		cmocka_unit_test(test_text_modutils_8b),
		cmocka_unit_test(test_input_wrapped_lines_9a),
		cmocka_unit_test(test_input_ubox_unprobed_records_12b),
	};

	if (argc > 1 && strcmp(argv[1], "--format-lines") == 0)
		return print_format_lines();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
