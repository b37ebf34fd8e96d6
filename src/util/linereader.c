/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "linereader.h"

void linereader_init(struct linereader *lr, FILE *f, size_t max)
{
	memset(lr, 0, sizeof(*lr));
	lr->f = f;
	lr->max = max ? max : LINEREADER_DEFAULT_MAX;
}

void linereader_done(struct linereader *lr)
{
	free(lr->buf);
	lr->buf = NULL;
	lr->cap = 0;
}

/* Room for @need bytes and the NUL in lr->buf, within lr->max + 1. */
static int reserve(struct linereader *lr, size_t need)
{
	size_t ncap;
	char *nb;

	if (need + 1 <= lr->cap)
		return 0;
	ncap = lr->cap ? lr->cap * 2 : 256;
	while (ncap < need + 1)
		ncap *= 2;
	if (ncap > lr->max + 1)
		ncap = lr->max + 1;
	nb = realloc(lr->buf, ncap);
	if (!nb)
		return -ENOMEM;
	lr->buf = nb;
	lr->cap = ncap;
	return 0;
}

/* Appends [s, s + n) to the line of @len bytes so far, keeping at most lr->max. */
static int append(struct linereader *lr, const char *s, size_t n, size_t *len,
		  int *too_long, int *has_nul)
{
	if (memchr(s, '\0', n))
		*has_nul = 1;
	if (*too_long)
		return 0;
	if (n > lr->max - *len) {
		*too_long = 1;
		return 0;
	}
	if (reserve(lr, *len + n) < 0)
		return -ENOMEM;
	memcpy(lr->buf + *len, s, n);
	*len += n;
	return 0;
}

/*
 * The bytes stdio has buffered for @f, as getc_unlocked() itself reads them (glibc's
 * <stdio.h> macro): the line is found with memchr() there instead of byte by byte.
 * Elsewhere nothing, and getc_unlocked() does it all.
 */
static size_t buffered(FILE *f, const char **ret)
{
#if defined(__GLIBC__)
	if (f->_IO_read_ptr < f->_IO_read_end) {
		*ret = f->_IO_read_ptr;
		return (size_t)(f->_IO_read_end - f->_IO_read_ptr);
	}
#endif
	(void)f;
	*ret = NULL;
	return 0;
}

static void consume(FILE *f, size_t n)
{
#if defined(__GLIBC__)
	f->_IO_read_ptr += n;
#else
	(void)f;
	(void)n;
#endif
}

int linereader_next(struct linereader *lr, char **ret_line, size_t *ret_len)
{
	size_t len = 0;
	int too_long = 0, has_nul = 0, c;

	for (;;) {
		const char *b, *nl;
		size_t n = buffered(lr->f, &b);

		if (n) {
			nl = memchr(b, '\n', n);
			if (append(lr, b, nl ? (size_t)(nl - b) : n, &len, &too_long,
				   &has_nul) < 0)
				return -ENOMEM;
			consume(lr->f, nl ? (size_t)(nl - b) + 1 : n);
			if (nl) {
				c = '\n';
				break;
			}
			continue;
		}
		c = getc_unlocked(lr->f);
		if (c == EOF)
			break;
		if (c == '\n')
			break;
		{
			char ch = (char)c;

			if (append(lr, &ch, 1, &len, &too_long, &has_nul) < 0)
				return -ENOMEM;
		}
	}
	if (c == EOF) {
		if (ferror(lr->f))
			return -EIO;
		if (len == 0 && !too_long && !has_nul)
			return 0;
		lr->missing_newline = 1;
	}
	lr->lineno++;
	if (too_long)
		return -E2BIG;
	if (has_nul)
		return -EBADMSG;
	if (!lr->buf) {
		lr->buf = malloc(1);
		if (!lr->buf)
			return -ENOMEM;
		lr->cap = 1;
	}
	lr->buf[len] = '\0';
	*ret_line = lr->buf;
	*ret_len = len;
	return 1;
}

int linereader_each(FILE *f, const char *path, size_t max, linereader_fn fn, void *ctx,
		    struct kt_err *reterr)
{
	struct linereader lr;
	char *line;
	size_t len;
	int r;

	linereader_init(&lr, f, max);
	while ((r = linereader_next(&lr, &line, &len)) != 0) {
		const char *what = NULL;

		if (r == -E2BIG || r == -EBADMSG) {
			kt_err_set(reterr, path, lr.lineno,
				   r == -E2BIG ? "line too long" : "line contains a NUL byte");
			r = -EINVAL;
			break;
		}
		if (r < 0)
			break;
		r = fn(ctx, line, len, &what);
		if (r == -EINVAL)
			kt_err_set(reterr, path, lr.lineno, what);
		if (r < 0)
			break;
	}
	linereader_done(&lr);
	return r;
}

int linereader_feed(FILE *f, const char *path, size_t max, const struct linereader_sink *sink,
		    void *ctx, struct kt_err *reterr)
{
	struct linereader lr;
	char *line;
	size_t len;
	int r;

	linereader_init(&lr, f, max);
	for (;;) {
		r = linereader_next(&lr, &line, &len);
		if (r == 0)
			break;
		if (r == -E2BIG || r == -EBADMSG)
			r = sink->skip(ctx, r == -E2BIG ? "line too long" : "line contains a NUL byte",
				       lr.lineno);
		else if (r < 0) {
			kt_err_set(reterr, path, lr.lineno, "read error");
			goto out;
		} else
			r = sink->feed(ctx, line, len, lr.lineno);
		if (r < 0)
			break;
	}
	if (r == 0)
		r = sink->finish(ctx);
	if (r < 0)
		kt_err_set(reterr, path, lr.lineno, sink->failed);
out:
	linereader_done(&lr);
	return r;
}
