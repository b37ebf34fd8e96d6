/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "session/top-sample.h"

/*
 * The top view's model: samples in, visible rows out, no terminal, so that tests
 * drive it without one. A sampler (session/top-replay.c: a replayed capture;
 * session/top-live.c: the live system) hands over a struct top_sample at every refresh; the model accumulates what is new since the previous
 * one, and top_model_table() turns it and the UI state (view, sort, filter, selection)
 * into a table of typed values that render.c draws and tests inspect.
 */

/* --- UI state -------------------------------------------------------------------------- */

enum top_view {
	TOP_VIEW_MODULES,
	TOP_VIEW_REQUESTERS,
	TOP_VIEW_AUTOLOAD,
	TOP_VIEW_EVENTS,
	_TOP_VIEW_TABS,
	TOP_VIEW_TREE = _TOP_VIEW_TABS,	/* requester -> module -> attempts */
	TOP_VIEW_DETAIL,		/* one module */
	_TOP_VIEW_MAX,
};

enum top_input {
	TOP_INPUT_NONE,
	TOP_INPUT_SEARCH,
	TOP_INPUT_FILTER,
	TOP_INPUT_SORT,			/* the sort-column menu (F6) */
};

#define TOP_LINE_MAX 128
#define TOP_KEY_MAX 160
#define TOP_EXPANDED_MAX 16

struct top_ui {
	enum top_view view;
	enum top_view tab;		/* the tab to return to from tree and detail */
	bool help;			/* the help screen covers the view */
	int help_scroll;		/* its first line shown; clamped by the renderer */
	int help_page;			/* its lines on screen, set by the renderer */
	int sort[_TOP_VIEW_MAX];	/* column index per view */
	bool invert[_TOP_VIEW_MAX];
	char filter[TOP_LINE_MAX];	/* '|'-separated, case-insensitive substrings */
	char search[TOP_LINE_MAX];
	bool search_failed;
	enum top_input input;
	char line[TOP_LINE_MAX];	/* what is being typed */
	size_t line_len;
	char saved_filter[TOP_LINE_MAX];	/* restored when a filter edit is cancelled */
	int menu_sel;			/* sort menu: the highlighted column */
	/* selection and scrolling per view; the key keeps the selection on the same row */
	size_t sel[_TOP_VIEW_MAX];
	size_t scroll[_TOP_VIEW_MAX];
	char sel_key[_TOP_VIEW_MAX][TOP_KEY_MAX];
	bool follow_selection[_TOP_VIEW_MAX];
	char detail[TOP_KEY_MAX];	/* the module shown in TOP_VIEW_DETAIL */
	/* tree: the (requester, module) pairs whose earlier attempts are shown, oldest
	 * first (the row keys of their "... N earlier" rows) */
	char expanded[TOP_EXPANDED_MAX][TOP_KEY_MAX];
	size_t n_expanded;
	bool detail_unnamed;
	bool unicode;			/* tree lines and sparklines may use Unicode */
	bool paused;
	bool quit;
	bool redraw;			/* Ctrl-L: repaint everything */
	int page;			/* table rows on screen, set by the renderer */
};

void top_ui_init(struct top_ui *ui);

/* --- tables ---------------------------------------------------------------------------- */

enum top_val_kind {
	TV_NONE,			/* "-" */
	TV_STR,
	TV_U64,
	TV_BYTES,
	TV_TIME,			/* seconds, "12.345" */
	TV_SPARK,			/* recent attempts per refresh */
};

#define TOP_SPARK_N 8

struct top_val {
	enum top_val_kind kind;
	uint8_t style;			/* enum canvas_style; 0: the row's */
	const char *s;			/* STR: escaped, owned by the model or the table */
	uint64_t u;
	double d;
	const uint16_t *spark;		/* SPARK: TOP_SPARK_N values, oldest first */
};

enum {
	TOP_COL_RIGHT = 1u << 0,
	TOP_COL_FLEX = 1u << 1,		/* takes spare width */
	TOP_COL_DESC = 1u << 2,		/* sorts largest first unless inverted */
	TOP_COL_NOSORT = 1u << 3,
};

struct top_column {
	const char *key;		/* --sort-key name */
	const char *header;
	int width;			/* minimum */
	int max_width;
	int prio;			/* 1 first: columns are dropped from the highest */
	unsigned int flags;
	const char *help;
};

struct top_row {
	const char *key;		/* stable identity: selection follows it */
	struct top_val *vals;		/* one per column */
	uint8_t style;			/* ST_CHANGED, ST_DIM, ... or 0 */
	int indent;			/* tree depth */
	const char *tree;		/* tree prefix drawn before the first column */
	const char *module;		/* the module the row is about (Enter), or NULL */
	bool unnamed;			/* the row of attempts without a module name */
};

struct top_table {
	enum top_view view;
	const struct top_column *cols;
	size_t n_cols;
	int sort;			/* column, or -1: fixed order */
	bool invert;
	struct top_row *rows;
	size_t n_rows;
	size_t n_total;			/* before the filter */
	/* detail view: lines above the table */
	char **lines;
	uint8_t *line_styles;
	size_t n_lines;
	/* private: storage for the rows' strings */
	void *arena;
};

/* Columns of a view (the --sort-key names of TOP_VIEW_MODULES). */
const struct top_column *top_columns(enum top_view v, size_t *ret_n);
/* The column index of @key in view @v, or -1. */
int top_column_find(enum top_view v, const char *key);
const char *top_view_name(enum top_view v);
/* "dup-live", "missing-dep", ...: short enough for a column */
const char *top_outcome_label(enum attempt_outcome o);

/* --- the model ---------------------------------------------------------------------- */

struct top_model;

struct top_header {
	const struct top_sample *s;	/* the last sample */
	uint64_t attempts, failed, duplicates;
	double attempts_per_s;		/* over the last refresh; <0 when unknown */
	uint64_t wasted_est, wasted_meas;
	bool has_est;			/* some attempt had an estimate */
	double wasted_est_per_s, wasted_meas_per_s;
	size_t n_modules, n_present;
	size_t n_requesters, n_aliases, n_events;
	uint64_t unnamed;
	uint64_t refreshes;
};

int top_model_new(struct top_model **ret);
struct top_model *top_model_free(struct top_model *m);
/* Takes in a sample. 0 or -ENOMEM. The sample must stay valid until the next one. */
int top_model_update(struct top_model *m, const struct top_sample *s);
const struct top_header *top_model_header(const struct top_model *m);

/*
 * The rows of the UI's current view: filtered, sorted, with the selection resolved
 * (ui->sel follows ui->sel_key). Free with top_table_done().
 */
int top_model_table(struct top_model *m, struct top_ui *ui, struct top_table *ret);
void top_table_done(struct top_table *t);

/* Scrolls so that the selection is on screen (ui->page rows). */
void top_ui_scroll(struct top_ui *ui, const struct top_table *t);
/* Moves the selection by @delta rows (clamped), or to the first/last row. */
void top_ui_move(struct top_ui *ui, const struct top_table *t, long delta);
void top_ui_select(struct top_ui *ui, const struct top_table *t, size_t row);
/*
 * Selects the next row (from the selection, @dir +1/-1; @from_current includes the
 * selected row) whose name contains ui->search. False, and ui->search_failed, if none.
 */
bool top_ui_search(struct top_ui *ui, const struct top_table *t, int dir, bool from_current);
/*
 * Enter: the selected module's detail (modules, tree, events views); on the tree's
 * "... N earlier" row, top_ui_expand().
 */
bool top_ui_open_detail(struct top_ui *ui, const struct top_table *t);
/* Shows every attempt of the selected "... N earlier" row's pair. False: not one. */
bool top_ui_expand(struct top_ui *ui, const struct top_table *t);

/* "512", "24.0K", "2.47M": at most five columns. Returns @buf. */
char *top_format_bytes(uint64_t bytes, char *buf, size_t bufsz);

/* Does @name match the filter ('|'-separated, case-insensitive substrings; "" = all)? */
bool top_filter_match(const char *filter, const char *name);
