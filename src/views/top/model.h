/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cost/cost.h"
#include "cost/loadpath.h"
#include "ledger/ledger.h"
#include "sources/proc-modules.h"

/*
 * The top view's model (house style 8.7): samples in, visible rows out, no terminal.
 * A sampler (cmd/top.c: replayed capture, or the live system) hands over a struct
 * top_sample at every refresh; the model accumulates what is new since the previous
 * one, and top_model_table() turns it and the UI state (view, sort, filter, selection)
 * into a table of typed values that render.c draws and tests inspect.
 */

/* --- what a sampler hands over ------------------------------------------------------ */

/* A module the kernel has at the sample's time. */
struct top_modstate {
	const char *name;		/* raw bytes from the kernel; owned by the sampler */
	bool present;			/* in proc/modules now */
	enum module_state state;
	bool has_size;
	uint64_t size;
	/* present: the modules using it (proc/modules' "used by"); owned by the sampler */
	const char *const *holders;
	size_t n_holders;
};

enum top_source_state {
	TOP_SRC_LIVE,			/* read from the running kernel at every refresh */
	TOP_SRC_REPLAY,			/* from a capture, following its clock */
	TOP_SRC_ONCE,			/* read once (a captured root's history) */
	TOP_SRC_MISSING,
};

struct top_source {
	const char *name;		/* "trace", "kmsg", "vmallocinfo", ... */
	enum top_source_state state;
	const char *why;		/* MISSING: the reason ("EACCES", "not built"), or NULL */
};

/* File facts for the module detail, looked up on demand (may be slow). */
struct top_module_info {
	bool found;
	char path[512];			/* the module file, or "" */
	uint64_t file_size;
	bool compressed;
	const char *compression;	/* "xz", "zstd", "gzip", or NULL */
	bool has_decompressed;
	uint64_t decompressed_size;
	bool has_layout;
	uint64_t core_size, init_size;	/* what the module's layout allocates */
	const char *layout_from;	/* "file" (laid out as the kernel would), "sys/module" */
	size_t n_percpu_aliases;	/* cpu:type, ACPI0007, LNXCPU aliases: one load per CPU */
	char percpu_example[128];
	size_t n_aliases;
	unsigned int ncpus;		/* 0: unknown */
	bool has_risk;			/* what one load per CPU costs (cost/percpu.h) */
	uint64_t risk_worst, risk_merged;
	/* what modprobe loads first (modules.dep, softdep pre:), ", "-separated */
	bool has_depends;
	char depends[256];
	/*
	 * The file's .modinfo (libkmod). Strings are raw bytes from the file (escaped when
	 * shown), cut to fit, "" when absent; lists are ", "-separated, the first ones.
	 */
	bool has_modinfo;
	int modinfo_err;		/* !has_modinfo: why (-errno), 0: not asked */
	char description[160];
	char author[160];
	char license[64];
	char version[64];
	char signer[96];
	size_t n_modinfo_aliases;
	size_t n_firmware;
	char firmware[160];
	size_t n_parms;
	char parms[200];
};

struct top_sample {
	double now;			/* sample clock, seconds (trace clock in replay) */
	/*
	 * Where the clock started: the rates of the first sample are over now - start.
	 * NAN: the first sample has no rate (what it holds was there before the clock
	 * started, as a captured root's history read at once).
	 */
	double start;

	/* header */
	const char *release;		/* NULL: unknown */
	const struct loadpath *lp;
	const char *decompress;		/* "in-kernel (xz)", "userspace (.ko.xz)", ... */
	bool has_vmalloc;
	uint64_t vmalloc_used, vmalloc_total, vmalloc_modules;
	const char *vmalloc_from;	/* "proc/vmallocinfo", "snapshot after-live-storm" */
	uint64_t lost_events;
	const struct top_source *sources;
	size_t n_sources;
	const char *step;		/* the trace's current STEP marker, or NULL */
	bool replay;
	double replay_start, replay_end, speed;
	bool finished;			/* replay: nothing more will come */
	double skipped;			/* replay: idle seconds jumped over before this sample */
	bool measured;			/* vmap allocations traced: WASTED (meas.) is real */
	const char *measured_why;	/* !measured: why not ("no vmap events in the trace") */

	/* the kernel's modules now */
	const struct top_modstate *mods;
	size_t n_mods;

	/*
	 * Attempts: @done lists indices into ledger->attempts in completion order (live: as
	 * they settle, by end within a refresh); it only grows, and the attempts it names
	 * no longer change. Requests 0..n_requests and log findings 0..n_klog of the ledger
	 * are visible.
	 */
	const struct ledger *ledger;	/* NULL: no attempt source */
	const size_t *done;
	size_t n_done;
	size_t n_requests;
	size_t n_klog;
	const struct attempt_cost *cost;	/* parallel to ledger->attempts, or NULL */
	/*
	 * Live: a request's modprobe and whether it was needless may still be decided
	 * after it is visible, until it is one of the first @n_requests_final; the counts
	 * follow the changes.
	 */
	bool requests_change;
	size_t n_requests_final;

	/* module detail: fills *ret, 0 or -errno. Optional. */
	int (*module_info)(void *userdata, const char *module, struct top_module_info *ret);
	/*
	 * The module of the tree that exports @symbol (modules.symbols), for the detail's
	 * missing symbols: 0 with its name in @buf, -ENOENT when none does, or -errno.
	 * Optional.
	 */
	int (*symbol_module)(void *userdata, const char *symbol, char *buf, size_t bufsz);
	void *userdata;
};

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
