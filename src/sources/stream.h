/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Saved logs as a stream of lines: plain, or compressed with gzip, xz or zstd, told apart
 * by their magic bytes (as libkmod-file.c does for module files), never by the name, so
 * a pipe works as well as a file. One pass, a bounded buffer, nothing kept behind.
 *
 * Lines come out NUL-terminated without their '\n', pointing into the stream's buffer
 * (valid until the next call; the caller may modify them). An over-long line is
 * reported with its number and skipped, so reading goes on.
 *
 * For big logs, stream_next_match() hands out only the lines that hold one of a set of
 * needles and counts the others: the search runs over the whole buffer at once
 * (SSSE3 on x86-64, a scalar loop elsewhere), not line by line.
 */

enum stream_compression {
	STREAM_PLAIN,
	STREAM_GZIP,
	STREAM_XZ,
	STREAM_ZSTD,
	_STREAM_COMPRESSION_MAX,
};

/* "none", "gzip", "xz", "zstd" */
const char *stream_compression_name(enum stream_compression c);

/* --- needles: a set of byte strings searched for at once ------------------------------- */

#define STREAM_NEEDLES_MAX 64
#define STREAM_NEEDLE_MIN 3	/* the search looks at three bytes per position */
#define STREAM_NEEDLE_LEN_MAX 64

struct stream_needles;

/*
 * Compiles @n needles (each STREAM_NEEDLE_MIN..STREAM_NEEDLE_LEN_MAX bytes, no '\n'),
 * copied. -EINVAL for a needle out of bounds or more than STREAM_NEEDLES_MAX, -ENOMEM.
 */
int stream_needles_new(const char *const *needles, size_t n, struct stream_needles **ret);
struct stream_needles *stream_needles_free(struct stream_needles *nd);
/* For tests and benchmarks: at most scalar code (0), SSSE3 (1) or AVX2 (2). */
void stream_needles_limit_simd(struct stream_needles *nd, int level);
/*
 * The offset of a needle in @buf[0..@len), or @len if there is none. A needle that
 * starts before it reaches past it (so it is in the first line holding a needle).
 */
size_t stream_needles_find(const struct stream_needles *nd, const char *buf, size_t len);

/* --- the stream ------------------------------------------------------------------------ */

#define STREAM_LINE_MAX_DEFAULT (64 * 1024)

struct stream;

/*
 * Reads the first bytes of @fd to recognise the compression. Takes @fd: stream_free()
 * closes it, also on failure here. @max_line 0 means STREAM_LINE_MAX_DEFAULT.
 * -EPROTONOSUPPORT for a compression this build cannot read (bzip2, lz4: *ret_what
 * names it), -ENOMEM, -errno of read().
 */
int stream_new(int fd, size_t max_line, struct stream **ret, const char **reterr_what);
struct stream *stream_free(struct stream *s);

enum stream_compression stream_compression(const struct stream *s);

/*
 * The next line: 1 with *ret_line and *ret_len; 0 at the end. Errors, after which the
 * stream can go on (the line is skipped and counted):
 *   -E2BIG     the line is longer than max_line
 * and after which it cannot (the same error comes back):
 *   -EBADMSG   corrupt or truncated compressed data
 *   -ENOMEM, or -errno of read()
 */
int stream_next_line(struct stream *s, char **ret_line, size_t *ret_len);

/*
 * Like stream_next_line(), but only lines that hold one of @nd's needles; the others
 * are counted (stream_lineno() goes on) and skipped.
 */
int stream_next_match(struct stream *s, const struct stream_needles *nd, char **ret_line,
		      size_t *ret_len);

/*
 * *@f's text for readers of a FILE: when it is gzip, xz or zstd, or not a file pread()
 * can look into (a pipe), *@f is closed and replaced by a FILE that reads its text
 * through a stream; a plain file is left as it is. The new FILE can be rewound into its
 * first 64 KiB while no more has been read (fseek() fails with ESPIPE after); it has no
 * fileno(). 0, -EPROTONOSUPPORT (*reterr_what names the compression; *@f is left),
 * -ENOMEM, -errno.
 */
int stream_fwrap(FILE **f, const char **reterr_what);

/* 1-based number of the line last returned or refused; 0 before the first. */
uint64_t stream_lineno(const struct stream *s);
/* Bytes of (decompressed) text read so far. */
uint64_t stream_bytes(const struct stream *s);
/* The last line had no '\n' (a truncated log). */
bool stream_missing_newline(const struct stream *s);

/* --- the rest of a stream on several threads --------------------------------------- */

/* A line that holds a needle, as stream_scan() hands it to map and reduce. */
struct stream_match {
	char *line;		/* NUL-terminated, in the block's buffer; NULL for a skipped line */
	size_t len;
	uint64_t lineno;	/* 1-based; set before reduce */
	int err;		/* 0, or -E2BIG: longer than max_line (then skip it) */
	uint32_t tag;		/* 0, or what map, line or run say of it to reduce */
	/* where the text before the line in its buffer starts: the line before it may
	 * be read back to there (NULL: not at all) */
	const char *block;
};

/* What stream_scan_ops.run gets and gives */
struct stream_run {
	char *text;
	size_t len;		/* bytes from text to the block's end */
	size_t max_line;
	const void *prev;	/* as for line: the last result written; out: the same */
	struct stream_match *m;
	void *results;
	size_t room;		/* of m and results */
	size_t kept;		/* out: m and results filled */
	uint64_t lines;		/* out: lines taken */
};

struct stream_scan_ops {
	/* bytes of the result map writes for each line */
	size_t result_size;
	/*
	 * Optional: state of one thread's map (a cache), made on that thread before its
	 * first block (NULL: none; map then gets NULL), freed when the scan is over.
	 */
	void *(*state_new)(void *userdata);
	void (*state_free)(void *state);
	/*
	 * Any thread, blocks in any order: @n lines of one block, for each a result at
	 * @results + i * result_size (not initialised: map fills what reduce reads), and
	 * a tag it may set. Must touch nothing but its arguments and its thread's @state.
	 */
	void (*map)(void *userdata, void *state, struct stream_match *m, size_t n,
		    void *results);
	/*
	 * One thread at a time, any of them (the calling one or a worker), blocks in
	 * order, once the lines' numbers are known: 0 or <0.
	 */
	int (*reduce)(void *userdata, const struct stream_match *m, size_t n, void *results);
	/*
	 * Optional, where most lines hold a needle: every line of a block, not searched
	 * (@m->lineno is the block's own). 1 when it holds a needle, with its result at
	 * @result as map would write it; 2 when it holds one but all reduce needs of it is
	 * in @m->tag (its result is left as it was: reduce may find it out again); 0 when
	 * it holds none (it is only counted). For a thread that keeps what it found of
	 * lines seen before: a line it knows needs no search. As map, must touch nothing
	 * but its arguments and its thread's @state, and answer exactly as the search and
	 * map would. @prev: the last result written before it among the lines reduce gets
	 * with it; NULL when none is, or a refused line (err < 0) came after it.
	 */
	int (*line)(void *userdata, void *state, struct stream_match *m, const void *prev,
		    void *result);
	/*
	 * Optional, with line: lines from @r->text on, as many as it knows at once without
	 * a search (the thread has seen them before), one call for a run of them rather than
	 * one a line. For each it takes that holds a needle, up to @r->room of them, it
	 * fills the next of @r->m (the line, '\0' where its '\n' was, its length; lineno:
	 * the line's index among those it took, from 0; err 0; tag) and of @r->results,
	 * exactly as line would, and @r->prev follows. It takes only whole lines, each with
	 * its '\n', of at most @r->max_line bytes. Returns the bytes it took (0: none, line
	 * goes on), with @r->kept and @r->lines set. The same rules as line.
	 */
	size_t (*run)(void *userdata, void *state, struct stream_run *r);
};

/*
 * Reads the rest of @s as stream_next_match() does, in blocks of lines that @workers
 * threads scan and map while this one reads (and decompresses) the next; whichever is
 * free reduces those done, in order. @workers 0: all on this thread. Which lines are
 * handed out, their numbers and the order of reduce do not depend on @workers. Memory
 * is bounded (about 2 * @workers + 2 blocks of 1 MiB).
 *
 * 0 at the end (stream_lineno() and stream_missing_newline() are then as after
 * stream_next_match() had returned 0); reduce's error; -EBADMSG, -ENOMEM or -errno as
 * stream_next_line(); -EAGAIN when a thread cannot be started.
 */
int stream_scan(struct stream *s, const struct stream_needles *nd, unsigned int workers,
		const struct stream_scan_ops *ops, void *userdata);
