/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>
#include <stdio.h>

#include "kt-err.h"

#define LINEREADER_DEFAULT_MAX (64 * 1024)

/*
 * Line-at-a-time reading with a bound, unlike getline(): an over-long line is
 * reported (-E2BIG) and skipped to its end, a line holding a NUL byte is reported
 * (-EBADMSG); in both cases reading can go on with the next line.
 */
struct linereader {
	FILE *f;		/* not owned */
	char *buf;
	size_t cap;
	size_t max;
	unsigned int lineno;	/* number of the line last returned (or refused) */
	int missing_newline;	/* the last line had no '\n' (truncated file) */
};

void linereader_init(struct linereader *lr, FILE *f, size_t max);
void linereader_done(struct linereader *lr);

/*
 * 1 with *ret_line (NUL-terminated, newline stripped, valid until the next call, may be
 * modified by the caller) and *ret_len; 0 at end of file; -E2BIG, -EBADMSG, -ENOMEM, -EIO.
 */
int linereader_next(struct linereader *lr, char **ret_line, size_t *ret_len);

/*
 * Calls @fn on every line of @f. @fn returns 0, -EINVAL with *ret_what (static text), or
 * another -errno; the first failure stops the read. A line too long or holding a NUL
 * byte, and @fn's -EINVAL, come back as -EINVAL with *reterr naming @path and the line.
 */
typedef int (*linereader_fn)(void *ctx, char *line, size_t len, const char **ret_what);
int linereader_each(FILE *f, const char *path, size_t max, linereader_fn fn, void *ctx,
		    struct kt_err *reterr);

/*
 * A parser fed one line at a time, which goes on past a line it cannot take (where
 * linereader_each() stops): the saved logs and traces are read this way.
 */
struct linereader_sink {
	/* a line linereader_next() refused (@what says why); 0 or -errno */
	int (*skip)(void *ctx, const char *what, unsigned int lineno);
	int (*feed)(void *ctx, char *line, size_t len, unsigned int lineno);
	/* after the last line: what the parser still holds goes out */
	int (*finish)(void *ctx);
	const char *failed;	/* *reterr's text when one of the three fails */
};

/*
 * Feeds every line of @f to @sink, then finishes it: 0, or the first failure, with
 * *reterr naming @path, the line it stood at, and "read error" or @sink->failed.
 */
int linereader_feed(FILE *f, const char *path, size_t max, const struct linereader_sink *sink,
		    void *ctx, struct kt_err *reterr);

/*
 * Defines @name, a sink for a parser of type @type that has prefix##_feed(p, line, len),
 * prefix##_skip_line(p, what) and prefix##_finish(p), each returning 0 or -errno.
 */
#define DEFINE_LINEREADER_SINK(name, type, prefix, failed_text)                         \
	static int name##_skip(void *ctx, const char *what, unsigned int lineno)        \
	{                                                                                \
		return prefix##_skip_line((type *)ctx, what);                            \
	}                                                                                \
	static int name##_feed(void *ctx, char *line, size_t len, unsigned int lineno)  \
	{                                                                                \
		return prefix##_feed((type *)ctx, line, len);                            \
	}                                                                                \
	static int name##_finish(void *ctx)                                              \
	{                                                                                \
		return prefix##_finish((type *)ctx);                                     \
	}                                                                                \
	static const struct linereader_sink name = {                                     \
		.skip = name##_skip,                                                     \
		.feed = name##_feed,                                                     \
		.finish = name##_finish,                                                 \
		.failed = failed_text,                                                   \
	}
