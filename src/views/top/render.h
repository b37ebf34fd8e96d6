/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "canvas.h"
#include "model.h"

/* Draws a frame: model + UI state + table -> canvas. No terminal, no I/O. */

#define TOP_HIT_COLS 16

/* Where things were drawn, for mouse clicks. */
struct top_hitmap {
	int tabs_y;
	int tab_x[_TOP_VIEW_TABS + 1];	/* tab i spans [tab_x[i], tab_x[i + 1]) */
	int header_y;			/* the table's column header, -1 when none */
	size_t n_cols;
	int col_x[TOP_HIT_COLS], col_w[TOP_HIT_COLS], col_idx[TOP_HIT_COLS];
	int rows_y;			/* first table row */
	int n_rows;			/* table rows on screen */
	size_t first_row;		/* index of the row at rows_y */
};

struct top_render_opts {
	const char *program;		/* "kmodtop 0.1" */
	double delay;			/* seconds between refreshes */
	bool batch;			/* --batch: no keys, so no function-key bar */
};

/* Rows the table gets at @h lines for view @v with @n_lines lines above it. */
int top_render_page(int h, const struct top_table *t);

void top_render(struct canvas *c, const struct top_model *m, struct top_ui *ui,
		const struct top_table *t, const struct top_render_opts *o,
		struct top_hitmap *ret_hit);

/*
 * The frame's numbers as one line of JSON (--batch --json): the header's counts and
 * every row of @t (not only those a screen would show). 0 or -errno.
 */
int top_render_json(FILE *f, const struct top_model *m, const struct top_ui *ui,
		    const struct top_table *t, const struct top_render_opts *o);

/* The row index of a click at (y, x), -1 if none; the column index of a header click. */
long top_hit_row(const struct top_hitmap *h, int y);
int top_hit_column(const struct top_hitmap *h, int y, int x);
int top_hit_tab(const struct top_hitmap *h, int y, int x);
