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

int linereader_next(struct linereader *lr, char **ret_line, size_t *ret_len)
{
	size_t len = 0;
	int too_long = 0, has_nul = 0, c;

	for (;;) {
		c = getc_unlocked(lr->f);
		if (c == EOF)
			break;
		if (c == '\n')
			break;
		if (c == '\0')
			has_nul = 1;
		if (too_long)
			continue;
		if (len >= lr->max) {
			too_long = 1;
			continue;
		}
		if (len + 1 >= lr->cap) {
			size_t ncap = lr->cap ? lr->cap * 2 : 256;
			char *nb;

			if (ncap > lr->max + 1)
				ncap = lr->max + 1;
			nb = realloc(lr->buf, ncap);
			if (!nb)
				return -ENOMEM;
			lr->buf = nb;
			lr->cap = ncap;
		}
		lr->buf[len++] = (char)c;
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
