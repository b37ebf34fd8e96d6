/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <json-c/printbuf.h>
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
	/*
	 * JSON tables: their rows are serialised as the table is given and kept in
	 * @spill, not in the document; the document holds a placeholder for each,
	 * replaced by the rows as it is printed (see out_finish()).
	 */
	FILE *spill;
	bool no_spill;		/* tmpfile() failed: tables go into the document */
	struct spilled {
		off_t off;	/* of the first row; rows end with '\0' */
		size_t nrows;
		int level;	/* json-c's level of the array, -1 until serialised */
	} *tables;
	size_t n_tables;
	const struct table *pending;	/* out_table_rows() began it: tables[n_tables - 1] */
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
	if (o->spill)
		fclose(o->spill);
	free(o->tables);
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
static void out_json_add_v(struct out *o, const char *key, json_object *v, bool is_null)
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

static void out_json_add(struct out *o, const char *key, json_object *v)
{
	out_json_add_v(o, key, v, false);
}

/*
 * Seconds as their sources give them, to the microsecond: 11.623710, not the double's
 * 11.623709999999999. Not finite: null (json-c would write NaN, which is not JSON).
 */
static json_object *out_json_seconds(double v)
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
	char *esc, *esc_label;

	if (!label)
		return;
	/* labels are escaped too: some carry names read from the input (modstats counters) */
	esc_label = escape_dup(label, strlen(label));
	esc = escape_dup(value, strlen(value));
	if (!esc || !esc_label) {
		free(esc_label);
		free(esc);
		o->err = o->err ? o->err : -ENOMEM;
		return;
	}
	fprintf(o->f, "%*s%-*s ", indent, "", LABEL_WIDTH - indent, esc_label);
	{
		size_t col = (size_t)indent + text_cols(esc_label, strlen(esc_label));

		col = (col > LABEL_WIDTH ? col : LABEL_WIDTH) + 1;
		put_wrapped(o, esc, col, LABEL_WIDTH + 1);
	}
	fputc('\n', o->f);
	free(esc_label);
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
		out_json_add(o, key, json_object_get(obj));
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
		out_json_add_v(o, key, v ? json_object_new_string(v) : NULL, !v);
	else
		text_field(o, label, v ? v : "-");
}

void out_u64(struct out *o, const char *key, const char *label, uint64_t v)
{
	char buf[32];

	if (o->fmt == OUT_JSON) {
		out_json_add(o, key, json_object_new_uint64(v));
		return;
	}
	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	text_field(o, label, buf);
}

void out_i64(struct out *o, const char *key, const char *label, int64_t v)
{
	char buf[32];

	if (o->fmt == OUT_JSON) {
		out_json_add(o, key, json_object_new_int64(v));
		return;
	}
	snprintf(buf, sizeof(buf), "%" PRId64, v);
	text_field(o, label, buf);
}

void out_bytes(struct out *o, const char *key, const char *label, uint64_t v)
{
	char buf[32];

	if (o->fmt == OUT_JSON) {
		out_json_add(o, key, json_object_new_uint64(v));
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
		out_json_add(o, key, out_json_seconds(v));
		return;
	}
	snprintf(buf, sizeof(buf), "%.6f", v);
	text_field(o, label, buf);
}

void out_bool(struct out *o, const char *key, const char *label, bool v)
{
	if (o->fmt == OUT_JSON)
		out_json_add(o, key, json_object_new_boolean(v));
	else
		text_field(o, label, v ? "yes" : "no");
}

void out_null(struct out *o, const char *key, const char *label, const char *text)
{
	if (o->fmt == OUT_JSON)
		out_json_add_v(o, key, NULL, true);
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
		return out_json_seconds(c->f);
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
	case COL_LINES: {
		json_object *a = json_object_new_array(), *lines = NULL;

		if (!a)
			return NULL;
		for (char **s = c->v; *s; s++) {
			json_object *f, *pair;
			const char *dash;

			if (**s == '@') {
				f = json_object_new_object();
				lines = json_object_new_array();
				if (!f || !lines) {
					json_object_put(f);
					json_object_put(lines);
					lines = NULL;
					continue;
				}
				json_object_object_add(f, "file", json_object_new_string(*s + 1));
				json_object_object_add(f, "lines", lines);
				json_object_array_add(a, f);
				continue;
			}
			dash = strchr(*s, '-');
			pair = json_object_new_array();
			if (!lines || !pair || !dash) {
				json_object_put(pair);
				continue;
			}
			json_object_array_add(pair, json_object_new_uint64(strtoull(*s, NULL, 10)));
			json_object_array_add(pair, json_object_new_uint64(strtoull(dash + 1, NULL, 10)));
			json_object_array_add(lines, pair);
		}
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
static void out_json_put_dotted(json_object *obj, const char *key, json_object *v)
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
	out_json_put_dotted(sub, dot + 1, v);
}

static void put_pad(FILE *f, int n);

static json_object *row_json(const struct table *t, size_t r)
{
	json_object *row = json_object_new_object();

	if (!row)
		return NULL;
	for (size_t c = 0; c < t->ncols; c++) {
		const struct col_desc *d = &t->cols[c];

		if (d->flags & COL_NOJSON)
			continue;
		out_json_put_dotted(row, d->json_key, cell_to_json(d, table_cell(t, r, c)));
	}
	return row;
}

static void table_json(struct out *o, const char *key, const struct table *t)
{
	json_object *arr = json_object_new_array();

	if (!arr) {
		o->err = o->err ? o->err : -ENOMEM;
		return;
	}
	for (size_t r = 0; r < t->nrows; r++) {
		json_object *row = row_json(t, r);

		if (!row || json_object_array_add(arr, row) < 0) {
			json_object_put(row);
			o->err = o->err ? o->err : -ENOMEM;
			break;
		}
	}
	out_json_add(o, key, arr);
}

static int out_json_flags(const struct out *o)
{
	return JSON_C_TO_STRING_NOSLASHESCAPE |
	       (o->pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED
			  : JSON_C_TO_STRING_PLAIN);
}

/* @len bytes of JSON text, bytes that are not UTF-8 as U+FFFD (see out_json_fputs()) */
static int put_utf8(FILE *f, const char *s, size_t len)
{
	char *fixed;

	if (utf8_valid(s, len)) {
		fwrite(s, 1, len, f);
		return 0;
	}
	fixed = utf8_repair_dup(s, len);
	if (!fixed)
		return -ENOMEM;
	fputs(fixed, f);
	free(fixed);
	return 0;
}

/*
 * A table's placeholder: serialised as '\1', the table's index and '\1' (json-c
 * escapes every control character in strings, so the text has no other), noting the
 * level json-c serialises the array at.
 */
struct placeholder {
	struct out *o;
	size_t idx;
};

static int placeholder_to_json(json_object *jso, struct printbuf *pb, int level, int flags)
{
	struct placeholder *p = json_object_get_userdata(jso);
	char buf[32];
	int n;

	(void)flags;
	p->o->tables[p->idx].level = level;
	n = snprintf(buf, sizeof(buf), "\001%zu\001", p->idx);
	return printbuf_memappend(pb, buf, n) < 0 ? -1 : 0;
}

static void placeholder_free(json_object *jso, void *userdata)
{
	(void)jso;
	free(userdata);
}

static bool spill_open(struct out *o)
{
	if (!o->spill && !o->no_spill) {
		o->spill = tmpfile();
		o->no_spill = !o->spill;
	}
	return o->spill;
}

/* A new spilled table: its rows go to the spill file from here on */
static int spill_begin(struct out *o)
{
	struct spilled *ns;
	off_t off = ftello(o->spill);

	if (off < 0)
		return -errno;
	ns = realloc(o->tables, (o->n_tables + 1) * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	o->tables = ns;
	o->tables[o->n_tables++] = (struct spilled){ .off = off, .level = -1 };
	return 0;
}

/* @t's rows, serialised one at a time at the end of the spill file */
static void spill_rows(struct out *o, const struct table *t)
{
	int flags = out_json_flags(o);

	o->tables[o->n_tables - 1].nrows += t->nrows;
	for (size_t r = 0; r < t->nrows; r++) {
		json_object *row = row_json(t, r);
		const char *js = row ? json_object_to_json_string_ext(row, flags) : NULL;

		if (!js || put_utf8(o->spill, js, strlen(js)) < 0) {
			json_object_put(row);
			o->err = o->err ? o->err : -ENOMEM;
			break;
		}
		fputc('\0', o->spill);
		json_object_put(row);
	}
	if (ferror(o->spill))
		o->err = o->err ? o->err : -EIO;
}

void out_table_rows(struct out *o, struct table *t)
{
	int r;

	if (o->fmt != OUT_JSON || o->err || !spill_open(o))
		return;
	if (o->pending != t) {
		if (o->pending) {
			o->err = -EBUSY;	/* rows of two tables would interleave */
			return;
		}
		r = spill_begin(o);
		if (r < 0) {
			o->err = r;
			return;
		}
		o->pending = t;
	}
	spill_rows(o, t);
	table_clear_rows(t);
}

/*
 * A JSON table, its rows serialised one at a time into the spill file: the document
 * keeps a placeholder, so a table of a million rows costs no memory but its own.
 */
static void table_spill(struct out *o, const char *key, const struct table *t)
{
	struct placeholder *p;
	json_object *ph;
	int r;

	if (o->pending && o->pending != t) {
		o->err = o->err ? o->err : -EBUSY;
		return;
	}
	if (!o->pending && (!key || !spill_open(o))) {
		table_json(o, key, t);
		return;
	}
	if (!o->pending) {
		r = spill_begin(o);
		if (r < 0) {
			o->err = o->err ? o->err : r;
			return;
		}
	}
	o->pending = NULL;
	p = malloc(sizeof(*p));
	ph = json_object_new_array();
	if (!p || !ph) {
		free(p);
		json_object_put(ph);
		o->err = o->err ? o->err : -ENOMEM;
		return;
	}
	*p = (struct placeholder){ o, o->n_tables - 1 };
	json_object_set_serializer(ph, placeholder_to_json, p, placeholder_free);
	spill_rows(o, t);
	out_json_add(o, key, ph);
}

/* @s with @extra levels more indentation after each newline (json-c's indent()) */
static void put_indented(FILE *f, const char *s, size_t len, int extra)
{
	const char *end = s + len, *nl;

	while ((nl = memchr(s, '\n', (size_t)(end - s)))) {
		fwrite(s, 1, (size_t)(nl + 1 - s), f);
		put_pad(f, 2 * extra);
		s = nl + 1;
	}
	fwrite(s, 1, (size_t)(end - s), f);
}

static int mark_to_json(json_object *jso, struct printbuf *pb, int level, int flags)
{
	(void)jso;
	(void)level;
	(void)flags;
	return printbuf_memappend(pb, "\002", 1) < 0 ? -1 : 0;
}

/*
 * A spilled table's array as json-c would have printed it at its level: the frame
 * (brackets, separators, indentation) taken from json-c's own text of a two-element
 * array at level 0, every line of frame and rows indented to the level.
 */
static int spill_print(struct out *o, const struct spilled *sp)
{
	json_object *a = json_object_new_array();
	const char *frame, *m1, *m2;
	char *row = NULL;
	size_t cap = 0;
	int r = 0;

	if (!a)
		return -ENOMEM;
	for (int i = 0; sp->nrows && i < 2; i++) {
		json_object *m = json_object_new_int(0);

		if (!m || json_object_array_add(a, m) < 0) {
			json_object_put(m);
			json_object_put(a);
			return -ENOMEM;
		}
		json_object_set_serializer(m, mark_to_json, NULL, NULL);
	}
	frame = json_object_to_json_string_ext(a, out_json_flags(o));
	if (!frame) {
		json_object_put(a);
		return -ENOMEM;
	}
	if (!sp->nrows) {
		put_indented(o->f, frame, strlen(frame), sp->level);
		goto out;
	}
	m1 = strchr(frame, '\002');
	m2 = strchr(m1 + 1, '\002');
	put_indented(o->f, frame, (size_t)(m1 - frame), sp->level);
	if (fseeko(o->spill, sp->off, SEEK_SET) < 0) {
		r = -errno;
		goto out;
	}
	for (size_t i = 0; i < sp->nrows; i++) {
		ssize_t n = getdelim(&row, &cap, '\0', o->spill);

		if (n <= 0) {
			r = ferror(o->spill) ? -EIO : -ENODATA;
			goto out;
		}
		if (i)
			put_indented(o->f, m1 + 1, (size_t)(m2 - m1 - 1), sp->level);
		put_indented(o->f, row, (size_t)n - 1, sp->level + 1);
	}
	put_indented(o->f, m2 + 1, strlen(m2 + 1), sp->level);
out:
	free(row);
	json_object_put(a);
	return r;
}

/* The document @s, each placeholder replaced by its table's rows, and a newline. */
static int doc_print(struct out *o, const char *s)
{
	const char *m;
	int r;

	while ((m = strchr(s, '\001'))) {
		char *end;
		unsigned long long idx;

		r = put_utf8(o->f, s, (size_t)(m - s));
		if (r < 0)
			return r;
		idx = strtoull(m + 1, &end, 10);
		if (*end != '\001' || idx >= o->n_tables || o->tables[idx].level < 0)
			return -EINVAL;
		r = spill_print(o, &o->tables[idx]);
		if (r < 0)
			return r;
		s = end + 1;
	}
	r = put_utf8(o->f, s, strlen(s));
	if (r < 0)
		return r;
	fputc('\n', o->f);
	return 0;
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
			table_spill(o, key, t);
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
		const char *s = json_object_to_json_string_ext(o->stack[0], out_json_flags(o));
		int r;

		if (!s)
			return -ENOMEM;
		r = doc_print(o, s);
		if (r < 0)
			return r;
	}
	errno = 0;
	/* EPIPE: the reader went away (SIGPIPE is ignored in live mode) */
	if (fflush(o->f) != 0)
		return o->err ? o->err : errno ? -errno : -EIO;
	if (ferror(o->f))
		return o->err ? o->err : -EIO;
	return o->err;
}
