/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The log stream reader (sources/stream.c): plain text, or gzip, xz or zstd told apart
 * by magic. The input is the file. For plain text the lines must rebuild the input
 * exactly (over-long ones refused with -E2BIG), the needle filter must hand out exactly
 * the lines holding a needle, and the SIMD search must agree with the scalar one and
 * with a naive search. Compressed input must decode or fail with a sticky error, and
 * stay within a bound (a zstd bomb is a few bytes).
 */
#include <stdio.h>

#include "sources/stream.h"
#include "ci/ci.h"
#include "fuzz.h"

/* decompressed bytes looked at per input */
#define FUZZ_MAX_TEXT (8u << 20)

static bool has_needle(const char *const *nd, size_t n, const char *p, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (memmem(p, len, nd[i], strlen(nd[i])))
			return true;
	return false;
}

/* The smallest offset where a needle lies wholly inside @buf, or @len. */
static size_t naive_find(const char *const *nd, size_t n, const char *buf, size_t len)
{
	size_t best = len;

	for (size_t i = 0; i < n; i++) {
		const char *p = memmem(buf, len, nd[i], strlen(nd[i]));

		if (p && (size_t)(p - buf) < best)
			best = (size_t)(p - buf);
	}
	return best;
}

static struct stream *open_stream(const uint8_t *data, size_t size, size_t max_line)
{
	struct stream *s = NULL;
	const char *what = NULL;
	int fd = fuzz_memfd(data, size), r;

	if (fd < 0)
		return NULL;
	r = stream_new(fd, max_line, &s, &what);
	CHECK(r == 0 || r == -EPROTONOSUPPORT || r == -ENOMEM);
	if (r == -EPROTONOSUPPORT)
		CHECK(what);
	return r == 0 ? s : NULL;
}

/* Every line; for plain text, checked against the input. */
static void read_all(const uint8_t *data, size_t size, size_t max_line)
{
	struct stream *s = open_stream(data, size, max_line);
	const char *in = (const char *)data, *end = in + size;
	bool plain;
	char *line;
	size_t len;
	uint64_t lines = 0;
	int r;

	if (!s)
		return;
	plain = stream_compression(s) == STREAM_PLAIN;
	if (!max_line)
		max_line = STREAM_LINE_MAX_DEFAULT;
	while ((r = stream_next_line(s, &line, &len)) != 0) {
		const char *nl;
		size_t want = 0;

		if (r < 0 && r != -E2BIG) {
			CHECK(r == -EBADMSG || r == -ENOMEM);
			CHECK(!plain);
			/* sticky */
			CHECK(stream_next_line(s, &line, &len) == r);
			break;
		}
		lines++;
		CHECK(stream_lineno(s) == lines);
		if (plain) {
			CHECK(in < end);
			nl = memchr(in, '\n', end - in);
			want = nl ? (size_t)(nl - in) : (size_t)(end - in);
		}
		if (r == -E2BIG) {
			CHECK(!plain || want > max_line);
		} else {
			CHECK(len <= max_line && line[len] == '\0' && !memchr(line, '\n', len));
			CHECK(!plain || (want == len && memcmp(in, line, len) == 0));
			if (len)
				line[0] ^= 1;	/* the caller may modify it */
		}
		if (plain)
			in += want + 1;
		if (stream_bytes(s) > FUZZ_MAX_TEXT)
			break;
	}
	if (plain && r == 0) {
		CHECK(in >= end);
		CHECK(stream_bytes(s) == size);
		CHECK(stream_missing_newline(s) == (size && data[size - 1] != '\n'));
	}
	stream_free(s);
}

/* Only the lines with one of ci's needles; the others are counted, not returned. */
static void read_matches(const uint8_t *data, size_t size, const struct stream_needles *nd,
			 const char *const *words, size_t n_words)
{
	struct stream *s = open_stream(data, size, 0);
	const char *in = (const char *)data, *end = in + size;
	uint64_t lineno = 0;
	bool plain;
	char *line;
	size_t len;
	int r;

	if (!s)
		return;
	plain = stream_compression(s) == STREAM_PLAIN;
	while ((r = stream_next_match(s, nd, &line, &len)) != 0) {
		if (r < 0 && r != -E2BIG) {
			CHECK(!plain && (r == -EBADMSG || r == -ENOMEM));
			break;
		}
		if (r == 1) {
			CHECK(line[len] == '\0' && !memchr(line, '\n', len));
			CHECK(has_needle(words, n_words, line, len));
		}
		/* the lines in between held no needle */
		while (plain && r == 1 && lineno + 1 < stream_lineno(s)) {
			const char *nl = memchr(in, '\n', end - in);

			CHECK(nl);
			CHECK(!has_needle(words, n_words, in, (size_t)(nl - in)));
			in = nl + 1;
			lineno++;
		}
		if (plain && r == 1) {
			CHECK((size_t)(end - in) >= len && memcmp(in, line, len) == 0);
			in += len + 1;
			lineno++;
		}
		if (r == -E2BIG || stream_bytes(s) > FUZZ_MAX_TEXT)
			break;
	}
	if (plain && r == 0 && in < end)
		CHECK(!has_needle(words, n_words, in, (size_t)(end - in)));
	stream_free(s);
}

/* stream_scan(): what reduce sees, checked against the plain input in order */
struct scan_fuzz {
	const char *in, *end;
	uint64_t lineno;		/* lines of the input passed */
	size_t max_line;
	const char *const *words;
	size_t n_words;
	bool plain;
	uint64_t handed;
};

/* a line's result: its length, and the length in the result before it (the line op's prev) */
struct scan_fuzz_result {
	size_t len, prev_len;
};

static size_t scan_fuzz_prev(const struct stream_match *m, const struct scan_fuzz_result *r,
			     size_t i)
{
	return i && m[i - 1].err == 0 ? r[i - 1].len : SIZE_MAX;
}

static void scan_fuzz_map(void *userdata, void *state, struct stream_match *m, size_t n,
			  void *results)
{
	struct scan_fuzz_result *r = results;

	for (size_t i = 0; i < n; i++) {
		r[i].len = m[i].err ? 0 : m[i].len;
		r[i].prev_len = scan_fuzz_prev(m, r, i);
	}
}

static int scan_fuzz_reduce(void *userdata, const struct stream_match *m, size_t n,
			    void *results)
{
	struct scan_fuzz *f = userdata;
	const struct scan_fuzz_result *r = results;

	for (size_t i = 0; i < n; i++) {
		CHECK(m[i].lineno > f->lineno);
		f->handed++;
		if (!m[i].err) {
			CHECK(r[i].len == m[i].len && m[i].len <= f->max_line);
			CHECK(r[i].prev_len == scan_fuzz_prev(m, r, i));
			CHECK(m[i].line[m[i].len] == '\0' && !memchr(m[i].line, '\n', m[i].len));
			CHECK(has_needle(f->words, f->n_words, m[i].line, m[i].len));
		} else {
			CHECK(m[i].err == -E2BIG);
		}
		if (!f->plain) {
			f->lineno = m[i].lineno;
			continue;
		}
		/* the lines in between: no needle, or too long to be looked at */
		while (f->lineno + 1 < m[i].lineno) {
			const char *nl = memchr(f->in, '\n', (size_t)(f->end - f->in));

			CHECK(nl);
			CHECK((size_t)(nl - f->in) > f->max_line ||
			      !has_needle(f->words, f->n_words, f->in, (size_t)(nl - f->in)));
			f->in = nl + 1;
			f->lineno++;
		}
		{
			const char *nl = memchr(f->in, '\n', (size_t)(f->end - f->in));
			size_t want = nl ? (size_t)(nl - f->in) : (size_t)(f->end - f->in);

			if (m[i].err)
				CHECK(want > f->max_line);
			else
				CHECK(want == m[i].len && memcmp(f->in, m[i].line, want) == 0);
			f->in += want + 1;
			f->lineno++;
		}
	}
	return 0;
}

/* stream_scan_ops.line: the search, and map's result */
static int scan_fuzz_line(void *userdata, void *state, struct stream_match *m,
			  const void *prev, void *result)
{
	const struct scan_fuzz *f = userdata;
	struct scan_fuzz_result *r = result;

	if (!has_needle(f->words, f->n_words, m->line, m->len))
		return 0;
	r->len = m->len;
	r->prev_len = prev ? ((const struct scan_fuzz_result *)prev)->len : SIZE_MAX;
	return 1;
}

/* stream_scan_ops.run: up to 3 whole lines, as the line op has them */
static size_t scan_fuzz_run(void *userdata, void *state, struct stream_run *run)
{
	char *p = run->text, *end = run->text + run->len;
	struct scan_fuzz_result *r = run->results;

	run->kept = 0;
	run->lines = 0;
	while (run->lines < 3 && p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		struct stream_match *m = &run->m[run->kept];

		if (!nl || (size_t)(nl - p) > run->max_line || run->kept == run->room)
			break;
		*nl = '\0';
		*m = (struct stream_match){ p, (size_t)(nl - p), run->lines, 0, 0, run->text };
		if (scan_fuzz_line(userdata, state, m, run->prev, &r[run->kept])) {
			run->prev = &r[run->kept];
			run->kept++;
		}
		run->lines++;
		p = nl + 1;
	}
	return (size_t)(p - run->text);
}

static void scan_all(const uint8_t *data, size_t size, const struct stream_needles *nd,
		     const char *const *words, size_t n_words, size_t max_line,
		     unsigned int workers, bool lined)
{
	struct stream_scan_ops ops = { .result_size = sizeof(struct scan_fuzz_result),
				       .map = scan_fuzz_map,
				       .reduce = scan_fuzz_reduce,
				       .line = lined ? scan_fuzz_line : NULL,
				       .run = lined ? scan_fuzz_run : NULL };
	struct scan_fuzz f = { (const char *)data, (const char *)data + size, 0, max_line,
			       words, n_words, false, 0 };
	struct stream *s = open_stream(data, size, max_line);
	int r;

	if (!s)
		return;
	if (!max_line)
		f.max_line = max_line = STREAM_LINE_MAX_DEFAULT;
	f.plain = stream_compression(s) == STREAM_PLAIN;
	r = stream_scan(s, nd, workers, &ops, &f);
	if (r < 0) {
		CHECK(!f.plain && (r == -EBADMSG || r == -ENOMEM));
	} else if (f.plain) {
		/* the lines after the last one handed out held no needle */
		while (f.in < f.end) {
			const char *nl = memchr(f.in, '\n', (size_t)(f.end - f.in));
			size_t l = nl ? (size_t)(nl - f.in) : (size_t)(f.end - f.in);

			CHECK(l > max_line || !has_needle(words, n_words, f.in, l));
			f.in += l + 1;
			f.lineno++;
		}
		CHECK(stream_lineno(s) == f.lineno);
		CHECK(stream_bytes(s) == size);
		CHECK(stream_missing_newline(s) == (size && data[size - 1] != '\n'));
	}
	stream_free(s);
}

/*
 * Needles from the input's first line, '|'-separated; the search through every SIMD
 * level against a naive one over the rest.
 */
static void search(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size, *nl = memchr(p, '\n', size);
	char *words[STREAM_NEEDLES_MAX + 1];
	struct stream_needles *nd[3] = { NULL };
	size_t n = 0, r0, r1, r2, m, rest;
	const char *text;
	int r;

	if (!nl)
		return;
	while (p < nl && n <= STREAM_NEEDLES_MAX) {
		const char *bar = memchr(p, '|', nl - p);
		size_t len = bar ? (size_t)(bar - p) : (size_t)(nl - p);

		words[n] = fuzz_dup(p, len);
		if (!words[n])
			goto out;
		n++;
		p += len + 1;
	}
	r = stream_needles_new((const char *const *)words, n, &nd[0]);
	CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
	if (r < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(words[i]);

		CHECK(len >= STREAM_NEEDLE_MIN && len <= STREAM_NEEDLE_LEN_MAX);
	}
	CHECK(stream_needles_new((const char *const *)words, n, &nd[1]) == 0);
	CHECK(stream_needles_new((const char *const *)words, n, &nd[2]) == 0);
	stream_needles_limit_simd(nd[0], 0);
	stream_needles_limit_simd(nd[1], 1);
	text = nl + 1;
	rest = (size_t)(end - text);
	/* every start offset, so the vector loops meet every alignment and tail length */
	for (size_t off = 0; off <= rest && off < 48; off++) {
		r0 = stream_needles_find(nd[0], text + off, rest - off);
		r1 = stream_needles_find(nd[1], text + off, rest - off);
		r2 = stream_needles_find(nd[2], text + off, rest - off);
		m = naive_find((const char *const *)words, n, text + off, rest - off);
		CHECK(r0 <= rest - off && (r0 == rest - off) == (m == rest - off));
		/* a later needle may be found first, but only on the same line */
		CHECK(r0 >= m && !memchr(text + off + m, '\n', r0 - m));
		CHECK(r1 == r0 && r2 == r0);
	}
out:
	for (int i = 0; i < 3; i++)
		stream_needles_free(nd[i]);
	for (size_t i = 0; i < n; i++)
		free(words[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct stream_needles *ci_nd;
	static const char *const *words;
	static size_t n_words;

	if (!ci_nd) {
		words = ci_needles(&n_words);
		CHECK(stream_needles_new(words, n_words, &ci_nd) == 0);
	}
	read_all(data, size, 0);
	/* a small bound: over-long lines in every position of the buffer */
	read_all(data, size, 17 + size % 64);
	read_matches(data, size, ci_nd, words, n_words);
	/* blocks of a few hundred bytes: lines cut at every place, over-long ones too */
	scan_all(data, size, ci_nd, words, n_words, 17 + size % 64, 0, false);
	scan_all(data, size, ci_nd, words, n_words, 17 + size % 64, 2, true);
	scan_all(data, size, ci_nd, words, n_words, 0, 1, size % 2);
	search(data, size);
	return 0;
}
