/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Columns are described once (util-linux coldescs[]): the same descriptor gives the
 * text header, the JSON key and type, alignment, and the help text.
 */
enum col_kind {
	COL_STR,
	COL_U64,
	COL_I64,
	COL_BYTES,	/* "1.5 MiB" in text, exact integer in JSON */
	COL_BOOL,
	COL_HEX,	/* addresses: "0xffffffffc0000000" in text and as a JSON string */
	COL_STRV,	/* "a,b" in text, an array in JSON */
	COL_FLOAT,	/* seconds: "%.6f" in text, a number in JSON */
	COL_COUNTS,	/* "KEY=N" strings: "EEXIST:3,EBUSY:1" in text, {"EEXIST": 3} in JSON */
	COL_PROCS,	/* "PID COMM" strings: "udevd(312)<systemd(1)" in text,
			 * [{"comm": "udevd", "pid": 312}, ...] in JSON */
	COL_LINES,	/* "@FILE" then its "A-B" line ranges: "FILE:1-3,7" in text,
			 * [{"file": "FILE", "lines": [[1, 3], [7, 7]]}, ...] in JSON */
};

enum {
	COL_RIGHT = 1u << 0,
	COL_NOTEXT = 1u << 1,	/* JSON only */
	COL_NOJSON = 1u << 2,	/* text only */
	/* a name (COL_STR): one that reads as "-" (none) or "(unnamed)" is written escaped */
	COL_NAME = 1u << 3,
	/* COL_COUNTS keyed by a return value ("-17"): text names the errno, "EEXIST" */
	COL_ERRNO = 1u << 4,
};

struct col_desc {
	const char *header;
	const char *json_key;	/* "a.b" nests: {"a": {"b": ...}} */
	enum col_kind kind;
	unsigned int flags;
	const char *help;
};

struct cell {
	bool set;
	union {
		char *s;
		uint64_t u;
		int64_t i;
		bool b;
		double f;
		char **v;	/* NULL-terminated */
	};
};

struct table {
	const struct col_desc *cols;	/* not owned: static descriptor tables */
	size_t ncols;
	struct cell *cells;		/* nrows * ncols */
	size_t nrows, cap;
};

int table_new(const struct col_desc *cols, size_t ncols, struct table **ret);
struct table *table_free(struct table *t);
/* Removes every row (the columns and the memory for rows stay). */
void table_clear_rows(struct table *t);
/* Appends an empty row; every cell unset (printed "-" / null). */
int table_add_row(struct table *t, size_t *ret_row);
/* Copies @s (NULL leaves the cell unset). */
int table_set_str(struct table *t, size_t row, size_t col, const char *s);
void table_set_u64(struct table *t, size_t row, size_t col, uint64_t v);
void table_set_i64(struct table *t, size_t row, size_t col, int64_t v);
void table_set_bool(struct table *t, size_t row, size_t col, bool v);
void table_set_float(struct table *t, size_t row, size_t col, double v);
/* Copies @n strings. */
int table_set_strv(struct table *t, size_t row, size_t col, char *const *v, size_t n);
/* COL_COUNTS: appends one KEY=N pair. */
int table_add_count(struct table *t, size_t row, size_t col, const char *key, uint64_t n);
const struct cell *table_cell(const struct table *t, size_t row, size_t col);

/* Text of one cell as the text renderer shows it (escaped). Caller frees. */
char *cell_to_text(const struct col_desc *d, const struct cell *c);
/*
 * The columns cell_to_text()'s text takes on a terminal, and that text written to @f,
 * both mostly without making it: 0 or -ENOMEM.
 */
int cell_text_width(const struct col_desc *d, const struct cell *c, size_t *ret_width);
int cell_fputs(const struct col_desc *d, const struct cell *c, FILE *f);
