/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "table.h"

/*
 * One document, rendered as aligned text or as JSON (json-c lives only in output/).
 * Views describe what to say; they never printf or touch json-c. Each field has a JSON
 * key and a text label; either may be NULL to leave the field out of that format.
 * Errors are sticky and returned by out_finish().
 */
enum out_format {
	OUT_TEXT,
	OUT_JSON,
};

struct out;

int out_new(enum out_format fmt, bool pretty, FILE *f, struct out **ret);
struct out *out_free(struct out *o);
enum out_format out_format(const struct out *o);
/*
 * Text: fit @width columns (0, the default: no limit). Labelled values and notes are
 * wrapped at spaces; a table wider than that has its widest text columns cut, with
 * "...", never a number.
 */
void out_set_width(struct out *o, unsigned int width);

void out_section_begin(struct out *o, const char *key, const char *title);
void out_section_end(struct out *o);

void out_str(struct out *o, const char *key, const char *label, const char *v);
void out_u64(struct out *o, const char *key, const char *label, uint64_t v);
void out_i64(struct out *o, const char *key, const char *label, int64_t v);
void out_bytes(struct out *o, const char *key, const char *label, uint64_t v);
/* Seconds: "%.6f" in text, a number in JSON; NaN as null and "-" */
void out_f64(struct out *o, const char *key, const char *label, double v);
void out_bool(struct out *o, const char *key, const char *label, bool v);
void out_null(struct out *o, const char *key, const char *label, const char *text);
/* A line of prose in text; in JSON an element of the enclosing object's "notes". */
void out_note(struct out *o, const char *text);

/* A table: text columns under @title, or a JSON array of objects under @key (NULL: text only). */
void out_table(struct out *o, const char *key, const char *title, const struct table *t);

/*
 * JSON: writes the rows of @t so far out of memory and empties @t, whose out_table()
 * then adds the rest, so that a long table never is in memory whole; one table at a
 * time. Text: nothing (a text table needs all its rows for its column widths).
 */
void out_table_rows(struct out *o, struct table *t);
/*
 * Text only: the columns @cols of the rows @rows selects (NULL: every row), so that one
 * table can be shown as several. Nothing in JSON.
 */
void out_table_text(struct out *o, const char *title, const struct table *t, const size_t *cols,
		    size_t n_cols, const bool *rows);

/*
 * A serialised JSON document and a newline, with bytes that are not UTF-8 as U+FFFD
 * (JSON is UTF-8; kernel names and log lines need not be). 0 or -ENOMEM.
 */
int out_json_fputs(const char *s, FILE *f);

/* Prints the JSON document (text is streamed). 0 or the first error. */
int out_finish(struct out *o);
