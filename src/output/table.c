/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "table.h"
#include "units.h"

int table_new(const struct col_desc *cols, size_t ncols, struct table **ret)
{
	struct table *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->cols = cols;
	t->ncols = ncols;
	*ret = t;
	return 0;
}

static void cell_clear(const struct col_desc *d, struct cell *c)
{
	if (!c->set)
		return;
	if (d->kind == COL_STR)
		free(c->s);
	if ((d->kind == COL_STRV || d->kind == COL_COUNTS || d->kind == COL_PROCS ||
	     d->kind == COL_LINES) && c->v) {
		for (char **p = c->v; *p; p++)
			free(*p);
		free(c->v);
	}
	memset(c, 0, sizeof(*c));
}

struct table *table_free(struct table *t)
{
	if (!t)
		return NULL;
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t c = 0; c < t->ncols; c++)
			cell_clear(&t->cols[c], &t->cells[r * t->ncols + c]);
	free(t->cells);
	free(t);
	return NULL;
}

void table_clear_rows(struct table *t)
{
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t c = 0; c < t->ncols; c++)
			cell_clear(&t->cols[c], &t->cells[r * t->ncols + c]);
	t->nrows = 0;
}

int table_add_row(struct table *t, size_t *ret_row)
{
	if (t->nrows == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 32;
		struct cell *nc = realloc(t->cells, ncap * t->ncols * sizeof(*nc));

		if (!nc)
			return -ENOMEM;
		t->cells = nc;
		t->cap = ncap;
	}
	memset(&t->cells[t->nrows * t->ncols], 0, t->ncols * sizeof(struct cell));
	*ret_row = t->nrows++;
	return 0;
}

static struct cell *cell_at(struct table *t, size_t row, size_t col)
{
	struct cell *c = &t->cells[row * t->ncols + col];

	cell_clear(&t->cols[col], c);
	return c;
}

int table_set_str(struct table *t, size_t row, size_t col, const char *s)
{
	struct cell *c = cell_at(t, row, col);

	if (!s)
		return 0;
	c->s = strdup(s);
	if (!c->s)
		return -ENOMEM;
	c->set = true;
	return 0;
}

void table_set_u64(struct table *t, size_t row, size_t col, uint64_t v)
{
	struct cell *c = cell_at(t, row, col);

	c->u = v;
	c->set = true;
}

void table_set_i64(struct table *t, size_t row, size_t col, int64_t v)
{
	struct cell *c = cell_at(t, row, col);

	c->i = v;
	c->set = true;
}

void table_set_bool(struct table *t, size_t row, size_t col, bool v)
{
	struct cell *c = cell_at(t, row, col);

	c->b = v;
	c->set = true;
}

void table_set_float(struct table *t, size_t row, size_t col, double v)
{
	struct cell *c = cell_at(t, row, col);

	c->f = v;
	c->set = true;
}

int table_set_strv(struct table *t, size_t row, size_t col, char *const *v, size_t n)
{
	struct cell *c = cell_at(t, row, col);
	char **copy = calloc(n + 1, sizeof(char *));

	if (!copy)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		copy[i] = strdup(v[i]);
		if (!copy[i]) {
			for (size_t j = 0; j < i; j++)
				free(copy[j]);
			free(copy);
			return -ENOMEM;
		}
	}
	c->v = copy;
	c->set = true;
	return 0;
}

int table_add_count(struct table *t, size_t row, size_t col, const char *key, uint64_t n)
{
	struct cell *c = &t->cells[row * t->ncols + col];
	size_t k = 0;
	char **nv;

	while (c->set && c->v && c->v[k])
		k++;
	nv = realloc(c->set ? c->v : NULL, (k + 2) * sizeof(char *));
	if (!nv)
		return -ENOMEM;
	c->v = nv;
	c->set = true;
	if (asprintf(&nv[k], "%s=%" PRIu64, key, n) < 0) {
		nv[k] = NULL;
		return -ENOMEM;
	}
	nv[k + 1] = NULL;
	return 0;
}

const struct cell *table_cell(const struct table *t, size_t row, size_t col)
{
	return &t->cells[row * t->ncols + col];
}

/* A name cell whose text would read as no name: cell_to_text() writes it */
static bool name_placeholder(const struct col_desc *d, const struct cell *c)
{
	return (d->flags & COL_NAME) && escape_name_is_placeholder(c->s, strlen(c->s));
}

/* "%" PRIu64 into @buf (21 bytes or more): tables print thousands of them */
static void u64_text(uint64_t v, char *buf)
{
	char tmp[20];
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*buf++ = tmp[--n];
	*buf = '\0';
}

int cell_text_width(const struct col_desc *d, const struct cell *c, size_t *ret_width)
{
	char buf[21], *s;
	size_t w = 0;

	if (c->set && d->kind == COL_STR && !name_placeholder(d, c)) {
		*ret_width = escape_width(c->s, strlen(c->s));
		return 0;
	}
	if (c->set && d->kind == COL_U64) {
		u64_text(c->u, buf);
		*ret_width = strlen(buf);
		return 0;
	}
	s = cell_to_text(d, c);
	if (!s)
		return -ENOMEM;
	/* count UTF-8 lead bytes: escaped text is printable, one column each */
	for (const char *p = s; *p; p++)
		w += ((unsigned char)*p & 0xc0) != 0x80;
	free(s);
	*ret_width = w;
	return 0;
}

int cell_fputs(const struct col_desc *d, const struct cell *c, FILE *f)
{
	char buf[21], *s;

	if (c->set && d->kind == COL_STR && !name_placeholder(d, c)) {
		escape_fputs(c->s, strlen(c->s), f);
		return 0;
	}
	if (c->set && d->kind == COL_U64) {
		u64_text(c->u, buf);
		fputs(buf, f);
		return 0;
	}
	s = cell_to_text(d, c);
	if (!s)
		return -ENOMEM;
	fputs(s, f);
	free(s);
	return 0;
}

#define ERRNO_NAME_MAX 32

/* "-17=48": EEXIST; NULL when the key is not a negative errno with a name */
static const char *errno_key_name(const char *kv)
{
	const char *eq = strrchr(kv, '='), *name;
	char *end;
	long v;

	if (!eq)
		return NULL;
	errno = 0;
	v = strtol(kv, &end, 10);
	if (errno || end != eq || v >= 0 || v < -4095)
		return NULL;
	name = strerrorname_np((int)-v);
	return name && strlen(name) < ERRNO_NAME_MAX ? name : NULL;
}

char *cell_to_text(const struct col_desc *d, const struct cell *c)
{
	char buf[64];
	char *out = NULL;

	if (!c->set)
		return strdup("-");
	switch (d->kind) {
	case COL_STR:
		if (d->flags & COL_NAME)
			return escape_name_dup(c->s, strlen(c->s));
		return escape_dup(c->s, strlen(c->s));
	case COL_U64:
		u64_text(c->u, buf);
		break;
	case COL_I64:
		snprintf(buf, sizeof(buf), "%" PRId64, c->i);
		break;
	case COL_BYTES:
		format_bytes(c->u, buf, sizeof(buf));
		break;
	case COL_BOOL:
		snprintf(buf, sizeof(buf), "%s", c->b ? "yes" : "no");
		break;
	case COL_HEX:
		snprintf(buf, sizeof(buf), "0x%016" PRIx64, c->u);
		break;
	case COL_FLOAT:
		snprintf(buf, sizeof(buf), "%.6f", c->f);
		break;
	case COL_PROCS: {
		size_t len = 0;
		char *p;

		if (!c->v[0])
			return strdup("-");
		for (char **s = c->v; *s; s++)
			len += strlen(*s) * 4 + 4;
		out = malloc(len + 1);
		if (!out)
			return NULL;
		p = out;
		for (char **s = c->v; *s; s++) {
			const char *sp = strchr(*s, ' ');
			const char *comm = sp ? sp + 1 : "";
			char *e = escape_dup(comm, strlen(comm));

			if (!e) {
				free(out);
				return NULL;
			}
			p += sprintf(p, "%s%s(%.*s)", s == c->v ? "" : "<", e,
				     (int)(sp ? sp - *s : (ptrdiff_t)strlen(*s)), *s);
			free(e);
		}
		return out;
	}
	case COL_LINES: {
		size_t len = 0;
		char *p;

		if (!c->v[0])
			return strdup("-");
		for (char **s = c->v; *s; s++)
			len += strlen(*s) * 4 + 2;
		out = malloc(len + 1);
		if (!out)
			return NULL;
		p = out;
		*p = '\0';
		for (char **s = c->v; *s; s++) {
			char *e;

			if (**s != '@') {
				p += sprintf(p, "%s%s", s[-1][0] == '@' ? ":" : ",", *s);
				continue;
			}
			e = escape_dup(*s + 1, strlen(*s + 1));
			if (!e) {
				free(out);
				return NULL;
			}
			p += sprintf(p, "%s%s", s == c->v ? "" : " ", e);
			free(e);
		}
		return out;
	}
	case COL_STRV:
	case COL_COUNTS: {
		size_t len = 0;
		char *p;

		for (char **s = c->v; *s; s++)
			len += strlen(*s) * 4 + 1 + ((d->flags & COL_ERRNO) ? ERRNO_NAME_MAX : 0);
		if (!c->v[0])
			return strdup("-");
		out = malloc(len + 1);
		if (!out)
			return NULL;
		p = out;
		for (char **s = c->v; *s; s++) {
			const char *name = (d->flags & COL_ERRNO) ? errno_key_name(*s) : NULL;
			char *e;

			if (name) {
				p += sprintf(p, "%s%s:%s", s == c->v ? "" : ",", name,
					     strrchr(*s, '=') + 1);
				continue;
			}
			e = escape_dup(*s, strlen(*s));

			if (!e) {
				free(out);
				return NULL;
			}
			if (d->kind == COL_COUNTS) {
				char *eq = strrchr(e, '=');

				if (eq)
					*eq = ':';
			}
			p += sprintf(p, "%s%s", s == c->v ? "" : ",", e);
			free(e);
		}
		return out;
	}
	}
	return strdup(buf);
}
