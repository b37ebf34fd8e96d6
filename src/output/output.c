/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "color.h"
#include "output.h"
#include "units.h"

#define MAX_DEPTH 16
#define LABEL_WIDTH 30

struct out {
	enum out_format fmt;
	bool pretty;
	FILE *f;
	int err;
	int depth;
	json_object *stack[MAX_DEPTH + 1];
	bool first_section;
	unsigned int width;	/* text: the columns to fit in; 0: no limit */
};

int out_new(enum out_format fmt, bool pretty, FILE *f, struct out **ret)
{
	struct out *o = calloc(1, sizeof(*o));

	if (!o)
		return -ENOMEM;
	o->fmt = fmt;
	o->pretty = pretty;
	o->f = f;
	o->first_section = true;
	if (fmt == OUT_JSON) {
		o->stack[0] = json_object_new_object();
		if (!o->stack[0]) {
			free(o);
			return -ENOMEM;
		}
	}
	*ret = o;
	return 0;
}

struct out *out_free(struct out *o)
{
	if (!o)
		return NULL;
	if (o->fmt == OUT_JSON)
		json_object_put(o->stack[0]);
	free(o);
	return NULL;
}

enum out_format out_format(const struct out *o)
{
	return o->fmt;
}

void out_set_width(struct out *o, unsigned int width)
{
	o->width = width;
}

/* Columns of escaped (printable) text: one a character, so UTF-8 lead bytes */
static size_t text_cols(const char *s, size_t len)
{
	size_t w = 0;

	for (size_t i = 0; i < len; i++)
		w += ((unsigned char)s[i] & 0xc0) != 0x80;
	return w;
}

/*
 * @s (escaped) from column @col on, broken at spaces to end before o->width, each
 * further line indented by @indent. A word wider than the room is written whole: a
 * path or a command cut in two would be worse than a long line.
 */
static void put_wrapped(struct out *o, const char *s, size_t col, size_t indent)
{
	size_t width = o->width;

	/* too little room beside the label: the further lines hang under it */
	if (width && indent + 20 > width)
		indent = 4;
	while (*s) {
		const char *end = s, *brk = NULL;
		size_t w = col;

		if (!width) {
			fputs(s, o->f);
			return;
		}
		/* the longest run of words that fits; at least one word */
		while (*end) {
			const char *word = end;

			while (*end && *end != ' ')
				end++;
			w += text_cols(word, (size_t)(end - word));
			if (w > width && brk)
				break;
			brk = end;
			if (w >= width)
				break;
			while (*end == ' ') {
				end++;
				w++;
			}
		}
		for (end = brk; *end == ' '; end++)
			;
		if (!*end) {
			fputs(s, o->f);
			return;
		}
		fwrite(s, 1, (size_t)(brk - s), o->f);
		fprintf(o->f, "\n%*s", (int)indent, "");
		s = end;
		col = indent;
	}
}

/* json-c spells JSON null as a NULL object: only @is_null tells it from ENOMEM */
static void json_add_v(struct out *o, const char *key, json_object *v, bool is_null)
{
	if (!key) {
		json_object_put(v);
		return;
	}
	if (!v && !is_null) {
		o->err = o->err ? o->err : -ENOMEM;
		return;
	}
	if (json_object_object_add(o->stack[o->depth], key, v) < 0) {
		json_object_put(v);
		o->err = o->err ? o->err : -ENOMEM;
	}
}

static void json_add(struct out *o, const char *key, json_object *v)
{
	json_add_v(o, key, v, false);
}

/*
 * Seconds as their sources give them, to the microsecond: 11.623710, not the double's
 * 11.623709999999999. Not finite: null (json-c would write NaN, which is not JSON).
 */
static json_object *json_seconds(double v)
{
	char buf[40];

	if (!isfinite(v))
		return json_object_new_null();
	/* beyond 2^53 there are no microseconds left to keep */
	if (fabs(v) >= 9007199254.740992)
		return json_object_new_double(v);
	snprintf(buf, sizeof(buf), "%.6f", v);
	return json_object_new_double_s(v, buf);
}

static void text_field(struct out *o, const char *label, const char *value)
{
	int indent = o->depth > 0 ? 2 : 0;
	char *esc;

	if (!label)
		return;
	esc = escape_dup(value, strlen(value));
	if (!esc) {
		o->err = o->err ? o->err : -ENOMEM;
		return;
	}
	fprintf(o->f, "%*s%-*s ", indent, "", LABEL_WIDTH - indent, label);
	{
		size_t col = (size_t)indent + text_cols(label, strlen(label));

		col = (col > LABEL_WIDTH ? col : LABEL_WIDTH) + 1;
		put_wrapped(o, esc, col, LABEL_WIDTH + 1);
	}
	fputc('\n', o->f);
	free(esc);
}

void out_section_begin(struct out *o, const char *key, const char *title)
{
	if (o->depth >= MAX_DEPTH) {
		o->err = o->err ? o->err : -E2BIG;
		return;
	}
	if (o->fmt == OUT_JSON) {
		json_object *obj;

		/* no key: the section's fields go into the enclosing object */
		if (!key) {
			o->stack[o->depth + 1] = json_object_get(o->stack[o->depth]);
			o->depth++;
			return;
		}
		obj = json_object_new_object();
		if (!obj) {
			o->err = o->err ? o->err : -ENOMEM;
			return;
		}
		json_add(o, key, json_object_get(obj));
		o->stack[++o->depth] = obj;
		return;
	}
	o->depth++;
	if (!title)
		return;
	if (!o->first_section)
		fputc('\n', o->f);
	o->first_section = false;
	fprintf(o->f, "%s%s%s\n", color_bold(), title, color_reset());
}

void out_section_end(struct out *o)
{
	if (o->depth == 0)
		return;
	if (o->fmt == OUT_JSON)
		json_object_put(o->stack[o->depth]);
	o->depth--;
}

void out_str(struct out *o, const char *key, const char *label, const char *v)
{
	if (o->fmt == OUT_JSON)
		json_add_v(o, key, v ? json_object_new_string(v) : NULL, !v);
	else
		text_field(o, label, v ? v : "-");
}

void out_u64(struct out *o, const char *key, const char *label, uint64_t v)
{
	char buf[32];

	if (o->fmt == OUT_JSON) {
		json_add(o, key, json_object_new_uint64(v));
		return;
	}
	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	text_field(o, label, buf);
}

void out_i64(struct out *o, const char *key, const char *label, int64_t v)
{
	char buf[32];

	if (o->fmt == OUT_JSON) {
		json_add(o, key, json_object_new_int64(v));
		return;
	}
	snprintf(buf, sizeof(buf), "%" PRId64, v);
	text_field(o, label, buf);
}

void out_bytes(struct out *o, const char *key, const char *label, uint64_t v)
{
	char buf[32];

	if (o->fmt == OUT_JSON) {
		json_add(o, key, json_object_new_uint64(v));
		return;
	}
	text_field(o, label, format_bytes(v, buf, sizeof(buf)));
}

void out_f64(struct out *o, const char *key, const char *label, double v)
{
	char buf[64];

	if (!isfinite(v)) {
		out_null(o, key, label, NULL);
		return;
	}
	if (o->fmt == OUT_JSON) {
		json_add(o, key, json_seconds(v));
		return;
	}
	snprintf(buf, sizeof(buf), "%.6f", v);
	text_field(o, label, buf);
}

void out_bool(struct out *o, const char *key, const char *label, bool v)
{
	if (o->fmt == OUT_JSON)
		json_add(o, key, json_object_new_boolean(v));
	else
		text_field(o, label, v ? "yes" : "no");
}

void out_null(struct out *o, const char *key, const char *label, const char *text)
{
	if (o->fmt == OUT_JSON)
		json_add_v(o, key, NULL, true);
	else
		text_field(o, label, text ? text : "-");
}

void out_note(struct out *o, const char *text)
{
	json_object *notes;
	char *esc;

	if (o->fmt == OUT_JSON) {
		json_object *cur = o->stack[o->depth];

		if (!json_object_object_get_ex(cur, "notes", &notes)) {
			notes = json_object_new_array();
			if (!notes || json_object_object_add(cur, "notes", notes) < 0) {
				json_object_put(notes);
				o->err = o->err ? o->err : -ENOMEM;
				return;
			}
		}
		if (json_object_array_add(notes, json_object_new_string(text)) < 0)
			o->err = o->err ? o->err : -ENOMEM;
		return;
	}
	esc = escape_dup(text, strlen(text));
	if (!esc) {
		o->err = o->err ? o->err : -ENOMEM;
		return;
	}
	fprintf(o->f, "%*s%s", o->depth > 0 ? 2 : 0, "", color_warn());
	/* a note's further lines hang under its first word */
	put_wrapped(o, esc, o->depth > 0 ? 2 : 0, o->depth > 0 ? 4 : 2);
	fprintf(o->f, "%s\n", color_reset());
	free(esc);
}

static json_object *cell_to_json(const struct col_desc *d, const struct cell *c)
{
	char buf[32];

	if (!c->set)
		return json_object_new_null();
	switch (d->kind) {
	case COL_STR:
		return json_object_new_string(c->s);
	case COL_U64:
	case COL_BYTES:
		return json_object_new_uint64(c->u);
	case COL_I64:
		return json_object_new_int64(c->i);
	case COL_BOOL:
		return json_object_new_boolean(c->b);
	case COL_FLOAT:
		return json_seconds(c->f);
	case COL_HEX:
		snprintf(buf, sizeof(buf), "0x%016" PRIx64, c->u);
		return json_object_new_string(buf);
	case COL_COUNTS: {
		json_object *obj = json_object_new_object();

		if (!obj)
			return NULL;
		for (char **s = c->v; *s; s++) {
			const char *eq = strrchr(*s, '=');
			char *key;

			if (!eq)
				continue;
			key = strndup(*s, eq - *s);
			if (key)
				json_object_object_add(obj, key,
						       json_object_new_uint64(strtoull(eq + 1, NULL, 10)));
			free(key);
		}
		return obj;
	}
	case COL_STRV: {
		json_object *a = json_object_new_array();

		if (!a)
			return NULL;
		for (char **s = c->v; *s; s++)
			json_object_array_add(a, json_object_new_string(*s));
		return a;
	}
	case COL_PROCS: {
		json_object *a = json_object_new_array();

		if (!a)
			return NULL;
		for (char **s = c->v; *s; s++) {
			json_object *p = json_object_new_object();
			const char *sp = strchr(*s, ' ');

			if (!p)
				continue;
			json_object_object_add(p, "comm", sp && sp[1] ? json_object_new_string(sp + 1)
								     : json_object_new_null());
			json_object_object_add(p, "pid", json_object_new_int64(strtoll(*s, NULL, 10)));
			json_object_array_add(a, p);
		}
		return a;
	}
	}
	return json_object_new_null();
}

/* "attempts.total" goes into {"attempts": {"total": ...}} */
static void json_put_dotted(json_object *obj, const char *key, json_object *v)
{
	const char *dot = strchr(key, '.');
	json_object *sub;
	char *head;

	if (!dot) {
		json_object_object_add(obj, key, v);
		return;
	}
	head = strndup(key, dot - key);
	if (!head) {
		json_object_put(v);
		return;
	}
	if (!json_object_object_get_ex(obj, head, &sub)) {
		sub = json_object_new_object();
		json_object_object_add(obj, head, sub);
	}
	free(head);
	if (!sub) {
		json_object_put(v);
		return;
	}
	json_put_dotted(sub, dot + 1, v);
}

static void table_json(struct out *o, const char *key, const struct table *t)
{
	json_object *arr = json_object_new_array();

	if (!arr) {
		o->err = o->err ? o->err : -ENOMEM;
		return;
	}
	for (size_t r = 0; r < t->nrows; r++) {
		json_object *row = json_object_new_object();

		if (!row || json_object_array_add(arr, row) < 0) {
			json_object_put(row);
			o->err = o->err ? o->err : -ENOMEM;
			break;
		}
		for (size_t c = 0; c < t->ncols; c++) {
			const struct col_desc *d = &t->cols[c];

			if (d->flags & COL_NOJSON)
				continue;
			json_put_dotted(row, d->json_key, cell_to_json(d, table_cell(t, r, c)));
		}
	}
	json_add(o, key, arr);
}

/* @n spaces (none if @n <= 0), without a format to parse: tables pad every cell */
static void put_pad(FILE *f, int n)
{
	static const char spaces[] = "                                                                ";

	while (n > 0) {
		int k = n < (int)sizeof(spaces) - 1 ? n : (int)sizeof(spaces) - 1;

		fwrite(spaces, 1, (size_t)k, f);
		n -= k;
	}
}

/* Text, not figures: what a table narrower than its text may cut */
static bool col_cuttable(const struct col_desc *d)
{
	return d->kind == COL_STR || d->kind == COL_STRV || d->kind == COL_PROCS;
}

#define CUT_MIN 8

static size_t cut_min(const struct col_desc *d)
{
	return strlen(d->header) > CUT_MIN ? strlen(d->header) : CUT_MIN;
}

/*
 * Narrows the widest text columns, one column at a time, until the table fits o->width.
 * The first column names the row and numbers are figures: neither is cut, and a table
 * that would not fit even so is left whole, for cutting it would lose text for nothing.
 */
static void fit_widths(const struct out *o, const struct table *t, const size_t *cols,
		       size_t n_cols, size_t indent, size_t *w)
{
	size_t total = indent, least;

	if (!o->width)
		return;
	for (size_t c = 0; c < n_cols; c++)
		total += w[c] + (c ? 2 : 0);
	least = total;
	for (size_t c = 1; c < n_cols; c++)
		if (col_cuttable(&t->cols[cols[c]]) && w[c] > cut_min(&t->cols[cols[c]]))
			least -= w[c] - cut_min(&t->cols[cols[c]]);
	if (total <= o->width || least > o->width)
		return;
	while (total > o->width) {
		size_t best = n_cols;

		for (size_t c = 1; c < n_cols; c++) {
			const struct col_desc *d = &t->cols[cols[c]];

			if (col_cuttable(d) && w[c] > cut_min(d) && (best == n_cols || w[c] > w[best]))
				best = c;
		}
		if (best == n_cols)
			return;
		w[best]--;
		total--;
	}
}

/* A cell wider than its column: as much as fits before "..." */
static int put_cut(FILE *f, const struct col_desc *d, const struct cell *c, size_t width)
{
	char *s = cell_to_text(d, c);
	size_t at = 0, cols = 0;

	if (!s)
		return -ENOMEM;
	while (s[at] && cols < width - 3) {
		at++;
		/* whole UTF-8 characters only */
		while (((unsigned char)s[at] & 0xc0) == 0x80)
			at++;
		cols++;
	}
	fwrite(s, 1, at, f);
	fputs("...", f);
	free(s);
	return 0;
}

/*
 * Text of the columns @cols (n_cols of them) of the rows @rows selects (NULL: all).
 * Widths first, then the text, each cell's written as it is made, mostly without a
 * copy: a table of many thousand rows (ci's boots) takes no memory for its text.
 */
static void table_text(struct out *o, const char *title, const struct table *t,
		       const size_t *cols, size_t n_cols, const bool *rows)
{
	size_t *w = calloc(n_cols ? n_cols : 1, sizeof(size_t));
	int indent = o->depth > 0 ? 2 : 0;

	if (!w) {
		o->err = o->err ? o->err : -ENOMEM;
		return;
	}
	for (size_t c = 0; c < n_cols; c++)
		w[c] = strlen(t->cols[cols[c]].header);
	for (size_t r = 0; r < t->nrows; r++) {
		if (rows && !rows[r])
			continue;
		for (size_t c = 0; c < n_cols; c++) {
			size_t cw;

			if (cell_text_width(&t->cols[cols[c]], table_cell(t, r, cols[c]), &cw) < 0) {
				o->err = o->err ? o->err : -ENOMEM;
				goto out;
			}
			if (cw > w[c])
				w[c] = cw;
		}
	}
	fit_widths(o, t, cols, n_cols, (size_t)indent, w);
	if (!o->first_section)
		fputc('\n', o->f);
	o->first_section = false;
	if (title)
		fprintf(o->f, "%*s%s%s%s\n", indent, "", color_bold(), title, color_reset());
	fprintf(o->f, "%*s", indent, "");
	for (size_t c = 0; c < n_cols; c++) {
		const struct col_desc *d = &t->cols[cols[c]];
		int width = (d->flags & COL_RIGHT) ? (int)w[c] : c + 1 == n_cols ? 0 : -(int)w[c];

		fprintf(o->f, "%s%s%*s%s", c ? "  " : "", color_dim(), width, d->header,
			color_reset());
	}
	fputc('\n', o->f);
	for (size_t r = 0; r < t->nrows; r++) {
		if (rows && !rows[r])
			continue;
		put_pad(o->f, indent);
		for (size_t c = 0; c < n_cols; c++) {
			const struct col_desc *d = &t->cols[cols[c]];
			const struct cell *cell = table_cell(t, r, cols[c]);
			size_t cw = 0;
			bool right = d->flags & COL_RIGHT, last = c + 1 == n_cols;

			if (c)
				fputs("  ", o->f);
			if ((right || !last || o->width) && cell_text_width(d, cell, &cw) < 0) {
				o->err = o->err ? o->err : -ENOMEM;
				goto out;
			}
			if (cw > w[c]) {
				/* only a column fit_widths() narrowed holds a wider cell */
				if (put_cut(o->f, d, cell, w[c]) < 0) {
					o->err = o->err ? o->err : -ENOMEM;
					goto out;
				}
				continue;
			}
			if (right)
				put_pad(o->f, (int)(w[c] - cw));
			if (cell_fputs(d, cell, o->f) < 0) {
				o->err = o->err ? o->err : -ENOMEM;
				goto out;
			}
			if (!right && !last)
				put_pad(o->f, (int)(w[c] - cw));
		}
		fputc('\n', o->f);
	}
out:
	free(w);
}

void out_table_text(struct out *o, const char *title, const struct table *t, const size_t *cols,
		    size_t n_cols, const bool *rows)
{
	if (o->fmt == OUT_TEXT)
		table_text(o, title, t, cols, n_cols, rows);
}

void out_table(struct out *o, const char *key, const char *title, const struct table *t)
{
	size_t *cols, n = 0;

	if (o->fmt == OUT_JSON) {
		if (key)
			table_json(o, key, t);
		return;
	}
	cols = calloc(t->ncols ? t->ncols : 1, sizeof(size_t));
	if (!cols) {
		o->err = o->err ? o->err : -ENOMEM;
		return;
	}
	for (size_t c = 0; c < t->ncols; c++)
		if (!(t->cols[c].flags & COL_NOTEXT))
			cols[n++] = c;
	table_text(o, title, t, cols, n, NULL);
	free(cols);
}

int out_json_fputs(const char *s, FILE *f)
{
	size_t len = strlen(s);
	char *fixed;

	/* json-c passes bytes >= 0x80 through: names from the kernel need not be UTF-8 */
	if (utf8_valid(s, len)) {
		fputs(s, f);
		fputc('\n', f);
		return 0;
	}
	fixed = utf8_repair_dup(s, len);
	if (!fixed)
		return -ENOMEM;
	fputs(fixed, f);
	fputc('\n', f);
	free(fixed);
	return 0;
}

int out_finish(struct out *o)
{
	if (o->fmt == OUT_JSON && !o->err) {
		int flags = JSON_C_TO_STRING_NOSLASHESCAPE |
			    (o->pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED
				       : JSON_C_TO_STRING_PLAIN);
		const char *s = json_object_to_json_string_ext(o->stack[0], flags);

		if (!s || out_json_fputs(s, o->f) < 0)
			return -ENOMEM;
	}
	errno = 0;
	/* EPIPE: the reader went away (SIGPIPE is ignored in live mode) */
	if (fflush(o->f) != 0)
		return o->err ? o->err : errno ? -errno : -EIO;
	if (ferror(o->f))
		return o->err ? o->err : -EIO;
	return o->err;
}
