/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "ledger/klog-findings.h"
#include "ledger/ledger.h"
#include "sources/trace/read.h"
#include "sources/trace/text.h"
#include "views/top/canvas.h"
#include "views/top/keys.h"
#include "views/top/model.h"
#include "views/top/render.h"

#ifndef FIXTURES_DIR
#define FIXTURES_DIR "tests/fixtures"
#endif

/*
 * modprobe loads xfs; udevd tries three times more while it is Live (EEXIST); a storm
 * task fails nfs twice (ENOENT); the kernel asks for an alias; a name with an escape.
 */
static const char *const trace_lines[] = {
	"        modprobe-157     [000] .....     4.500000: sys_finit_module(fd: 3, uargs: 5bfb41, flags: 0)",
	"        modprobe-157     [000] .....     4.600000: module_load: xfs",
	"        modprobe-157     [000] .....     4.700000: sys_finit_module -> 0x0",
	"   systemd-udevd-200     [001] .....     5.000000: sys_finit_module(fd: 4, uargs: 5bfb41, flags: 0)",
	"   systemd-udevd-200     [001] .....     5.100000: sys_finit_module -> 0xffffffffffffffef",
	"   systemd-udevd-201     [000] .....     5.200000: sys_finit_module(fd: 4, uargs: 5bfb41, flags: 0)",
	"   systemd-udevd-201     [000] .....     5.300000: sys_finit_module -> 0xffffffffffffffef",
	"   systemd-udevd-202     [001] .....     5.400000: sys_finit_module(fd: 4, uargs: 5bfb41, flags: 0)",
	"   systemd-udevd-202     [001] .....     5.500000: sys_finit_module -> 0xffffffffffffffef",
	"           storm-300     [000] .....     6.000000: sys_init_module(umod: 38e9dbe0, len: 2340, uargs: 5bfb41)",
	"           storm-300     [000] .....     6.100000: sys_init_module -> 0xfffffffffffffffe",
	"           storm-301     [001] .....     6.200000: sys_init_module(umod: 38e9dbe0, len: 2340, uargs: 5bfb41)",
	"           storm-301     [001] .....     6.300000: sys_init_module -> 0xfffffffffffffffe",
	"           storm-302     [000] .....     7.000000: module_request: net-pf-2-proto-132 wait=1 call_site=inet_create+0x1c/0x50",
	"        modprobe-303     [000] .....     7.100000: sys_finit_module(fd: 3, uargs: 5bfb41, flags: 0)",
	"        modprobe-303     [000] .....     7.200000: module_load: ev\x1bil",
	"        modprobe-303     [000] .....     7.300000: sys_finit_module -> 0x0",
	"         garbage-400     [001] .....     7.500000: sys_finit_module(fd: 5, uargs: 0, flags: 0)",
	"         garbage-400     [001] .....     7.600000: sys_finit_module -> 0xfffffffffffffff8",
	NULL,
};

/*
 * Names the attempts of @comm: the ledger names a duplicate only from evidence about
 * that call, which the trace above does not have (a name is never guessed), and the
 * model takes names as given. The ledger does not free an attempt's name (it keeps
 * each name once): @module must outlive it.
 */
static void name_attempts(struct ledger *l, const char *comm, const char *module)
{
	for (size_t i = 0; i < l->n_attempts; i++)
		if (strcmp(l->attempts[i].comm, comm) == 0 && !l->attempts[i].module)
			l->attempts[i].module = module;
}

struct fixture {
	struct ledger *l;
	struct top_model *m;
	struct top_ui ui;
	struct top_sample s;
	size_t *done;
	struct top_modstate mods[2];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->l = ledger_from_lines(trace_lines);
	name_attempts(f->l, "systemd-udevd", "xfs");
	name_attempts(f->l, "storm", "nfs");
	assert_int_equal(top_model_new(&f->m), 0);
	top_ui_init(&f->ui);
	f->done = calloc(f->l->n_attempts, sizeof(*f->done));
	for (size_t i = 0; i < f->l->n_attempts; i++)
		f->done[i] = i;
	f->s.ledger = f->l;
	f->s.done = f->done;
	f->s.n_done = f->l->n_attempts;
	f->s.start = 4.0;
	f->s.now = 8.0;
	f->s.n_requests = f->l->n_requests;
	f->s.n_klog = f->l->n_klog;
	f->mods[0] = (struct top_modstate){ "xfs", true, MODULE_LIVE, true, 2588672, NULL, 0 };
	f->mods[1] = (struct top_modstate){ "ext4", true, MODULE_LIVE, true, 1000000, NULL, 0 };
	f->s.mods = f->mods;
	f->s.n_mods = 2;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	top_model_free(f->m);
	ledger_free(f->l);
	free(f->done);
	free(f);
	return 0;
}

static const struct top_row *find_row(const struct top_table *t, const char *name)
{
	for (size_t i = 0; i < t->n_rows; i++)
		if (t->rows[i].vals[0].kind == TV_STR &&
		    strcmp(t->rows[i].vals[0].s, name) == 0)
			return &t->rows[i];
	return NULL;
}

static int col(enum top_view v, const char *key)
{
	int c = top_column_find(v, key);

	assert_true(c >= 0);
	return c;
}

/* --- tests ---------------------------------------------------------------------------- */

static void test_ledger_shape(void **state)
{
	struct fixture *f = *state;

	/* the fixture itself: 8 syscalls, one request */
	assert_int_equal(f->l->n_attempts, 8);
	assert_int_equal(f->l->n_requests, 1);
}

static void test_module_rows(void **state)
{
	struct fixture *f = *state;
	struct top_table t;
	const struct top_row *xfs, *nfs_row;
	int c_att = col(TOP_VIEW_MODULES, "attempts"),
	    c_dup = col(TOP_VIEW_MODULES, "dup");
	int c_fail = col(TOP_VIEW_MODULES, "fail"),
	    c_loaded = col(TOP_VIEW_MODULES, "loaded");
	int c_state = col(TOP_VIEW_MODULES, "state"),
	    c_size = col(TOP_VIEW_MODULES, "size");

	assert_int_equal(top_model_update(f->m, &f->s), 0);
	assert_int_equal(top_model_table(f->m, &f->ui, &t), 0);
	/* xfs, nfs, ext4 (loaded, no attempts), the escaped name, and the unnamed call */
	assert_int_equal(t.n_rows, 5);
	xfs = find_row(&t, "xfs");
	assert_non_null(xfs);
	assert_int_equal(xfs->vals[c_att].u, 4);
	assert_int_equal(xfs->vals[c_loaded].u, 1);
	assert_int_equal(xfs->vals[c_dup].u, 3);
	assert_int_equal(xfs->vals[c_fail].u, 3);
	assert_string_equal(xfs->vals[c_state].s, "live");
	assert_int_equal(xfs->vals[c_size].kind, TV_BYTES);
	assert_int_equal(xfs->vals[c_size].u, 2588672);
	nfs_row = find_row(&t, "nfs");
	assert_non_null(nfs_row);
	assert_int_equal(nfs_row->vals[c_fail].u, 2);
	assert_string_equal(nfs_row->vals[c_state].s, "-");
	/* a call nothing names: its own row, and always last */
	assert_true(t.rows[t.n_rows - 1].unnamed);
	assert_string_equal(t.rows[t.n_rows - 1].vals[0].s, "(unnamed)");
	assert_int_equal(t.rows[t.n_rows - 1].vals[c_fail].u, 1);
	assert_non_null(find_row(&t, "ext4"));
	top_table_done(&t);

	assert_int_equal(top_model_header(f->m)->attempts, 8);
	assert_int_equal(top_model_header(f->m)->failed, 6);
	assert_int_equal(top_model_header(f->m)->duplicates, 3);
	assert_int_equal(top_model_header(f->m)->unnamed, 1);
}

static void test_escaped_names(void **state)
{
	struct fixture *f = *state;
	struct top_table t;

	assert_int_equal(top_model_update(f->m, &f->s), 0);
	assert_int_equal(top_model_table(f->m, &f->ui, &t), 0);
	/* the ESC byte from the kernel reaches no terminal: it is spelt out */
	assert_non_null(find_row(&t, "ev\\x1bil"));
	for (size_t i = 0; i < t.n_rows; i++)
		assert_null(strchr(t.rows[i].vals[0].s, '\x1b'));
	top_table_done(&t);
}

static void test_sort_and_invert(void **state)
{
	struct fixture *f = *state;
	struct top_table t;

	assert_int_equal(top_model_update(f->m, &f->s), 0);
	f->ui.sort[TOP_VIEW_MODULES] = col(TOP_VIEW_MODULES, "attempts");
	assert_int_equal(top_model_table(f->m, &f->ui, &t), 0);
	assert_string_equal(t.rows[0].vals[0].s, "xfs");
	top_table_done(&t);

	f->ui.sort[TOP_VIEW_MODULES] = col(TOP_VIEW_MODULES, "module");
	assert_int_equal(top_model_table(f->m, &f->ui, &t), 0);
	assert_string_equal(t.rows[0].vals[0].s, "ev\\x1bil");
	assert_string_equal(t.rows[1].vals[0].s, "ext4");
	assert_string_equal(t.rows[2].vals[0].s, "nfs");
	assert_string_equal(t.rows[3].vals[0].s, "xfs");
	assert_true(t.rows[4].unnamed);
	top_table_done(&t);

	f->ui.invert[TOP_VIEW_MODULES] = true;
	assert_int_equal(top_model_table(f->m, &f->ui, &t), 0);
	assert_string_equal(t.rows[0].vals[0].s, "xfs");
	assert_string_equal(t.rows[1].vals[0].s, "nfs");
	assert_true(t.rows[4].unnamed);
	top_table_done(&t);
}

static void test_filter(void **state)
{
	struct fixture *f = *state;
	struct top_table t;

	assert_true(top_filter_match("", "anything"));
	assert_true(top_filter_match("XF", "xfs"));
	assert_true(top_filter_match("nope|xf", "xfs"));
	assert_false(top_filter_match("nope|zz", "xfs"));
	assert_true(top_filter_match("|", "xfs"));

	assert_int_equal(top_model_update(f->m, &f->s), 0);
	snprintf(f->ui.filter, sizeof(f->ui.filter), "ext|XFS");
	assert_int_equal(top_model_table(f->m, &f->ui, &t), 0);
	assert_int_equal(t.n_rows, 2);
	assert_int_equal(t.n_total, 5);
	top_table_done(&t);
	snprintf(f->ui.filter, sizeof(f->ui.filter), "nothing-like-it");
	assert_int_equal(top_model_table(f->m, &f->ui, &t), 0);
	assert_int_equal(t.n_rows, 0);
	top_table_done(&t);
}

static void test_search_and_selection(void **state)
{
	struct fixture *f = *state;
	struct top_table t;

	assert_int_equal(top_model_update(f->m, &f->s), 0);
	f->ui.sort[TOP_VIEW_MODULES] = col(TOP_VIEW_MODULES, "module");
	assert_int_equal(top_model_table(f->m, &f->ui, &t), 0);
	assert_int_equal(f->ui.sel[TOP_VIEW_MODULES], 0);
	snprintf(f->ui.search, sizeof(f->ui.search), "XF");
	assert_true(top_ui_search(&f->ui, &t, 1, true));
	assert_int_equal(f->ui.sel[TOP_VIEW_MODULES], 3);
	assert_string_equal(f->ui.sel_key[TOP_VIEW_MODULES], "xfs");
	/* the next match wraps around to the same row */
	assert_true(top_ui_search(&f->ui, &t, 1, false));
	assert_int_equal(f->ui.sel[TOP_VIEW_MODULES], 3);
	/* search looks at every text cell: the last requester too */
	snprintf(f->ui.search, sizeof(f->ui.search), "storm");
	assert_true(top_ui_search(&f->ui, &t, 1, false));
	assert_int_equal(f->ui.sel[TOP_VIEW_MODULES], 2);
	snprintf(f->ui.search, sizeof(f->ui.search), "zzz");
	assert_false(top_ui_search(&f->ui, &t, 1, false));
	assert_true(f->ui.search_failed);
	top_ui_move(&f->ui, &t, -1);
	assert_int_equal(f->ui.sel[TOP_VIEW_MODULES], 1);
	top_ui_move(&f->ui, &t, 100);
	assert_int_equal(f->ui.sel[TOP_VIEW_MODULES], 4);
	top_ui_move(&f->ui, &t, -100);
	assert_int_equal(f->ui.sel[TOP_VIEW_MODULES], 0);
	top_ui_select(&f->ui, &t, 3);
	top_table_done(&t);

	/* the selection follows its row when the order changes (htop) */
	f->ui.invert[TOP_VIEW_MODULES] = true;
	assert_int_equal(top_model_table(f->m, &f->ui, &t), 0);
	assert_string_equal(t.rows[f->ui.sel[TOP_VIEW_MODULES]].vals[0].s, "xfs");
	assert_int_equal(f->ui.sel[TOP_VIEW_MODULES], 0);

	/* Enter on it opens its detail, with its attempts */
	assert_true(top_ui_open_detail(&f->ui, &t));
	top_table_done(&t);
	assert_int_equal(f->ui.view, TOP_VIEW_DETAIL);
	assert_string_equal(f->ui.detail, "xfs");
	assert_int_equal(top_model_table(f->m, &f->ui, &t), 0);
	assert_int_equal(t.n_rows, 4);
	assert_true(t.n_lines >= 2);
	assert_non_null(strstr(t.lines[0], "xfs"));
	top_table_done(&t);
}

static void test_incremental_changed_spark(void **state)
{
	struct fixture *f = *state;
	struct top_table t;
	const struct top_row *xfs;
	int c_att = col(TOP_VIEW_MODULES, "attempts"),
	    c_rec = col(TOP_VIEW_MODULES, "recent");
	const struct top_header *h;

	/* first refresh: the first two attempts (xfs loaded, one duplicate) */
	f->s.n_done = 2;
	f->s.n_requests = 0;
	f->s.now = 5.0;
	assert_int_equal(top_model_update(f->m, &f->s), 0);
	h = top_model_header(f->m);
	assert_int_equal(h->attempts, 2);
	/* two attempts in the one second since the start */
	assert_true(h->attempts_per_s > 1.99 && h->attempts_per_s < 2.01);
	assert_int_equal(top_model_table(f->m, &f->ui, &t), 0);
	xfs = find_row(&t, "xfs");
	assert_int_equal(xfs->vals[c_att].u, 2);
	assert_int_not_equal(xfs->style, ST_CHANGED); /* nothing to compare with yet */
	assert_int_equal(xfs->vals[c_rec].spark[TOP_SPARK_N - 1], 2);
	top_table_done(&t);

	/* second: two more on xfs; ext4 did not change */
	f->s.n_done = 4;
	f->s.now = 7.0;
	assert_int_equal(top_model_update(f->m, &f->s), 0);
	assert_true(h->attempts_per_s > 0.99 && h->attempts_per_s < 1.01);
	assert_int_equal(top_model_table(f->m, &f->ui, &t), 0);
	xfs = find_row(&t, "xfs");
	assert_int_equal(xfs->vals[c_att].u, 4);
	assert_int_equal(xfs->style, ST_CHANGED);
	assert_int_not_equal(find_row(&t, "ext4")->style, ST_CHANGED);
	assert_int_equal(xfs->vals[c_rec].spark[TOP_SPARK_N - 2], 2);
	assert_int_equal(xfs->vals[c_rec].spark[TOP_SPARK_N - 1], 2);
	top_table_done(&t);

	/* third: nothing new; xfs is no longer highlighted */
	assert_int_equal(top_model_update(f->m, &f->s), 0);
	assert_int_equal(top_model_table(f->m, &f->ui, &t), 0);
	xfs = find_row(&t, "xfs");
	assert_int_not_equal(xfs->style, ST_CHANGED);
	assert_int_equal(xfs->vals[c_rec].spark[TOP_SPARK_N - 1], 0);
	top_table_done(&t);
}

/* Live: a request counted before its modprobe was linked is counted again until final */
static void test_request_changes(void **state)
{
	struct fixture *f = *state;
	struct autoload_request *rq = &f->l->requests[0];
	int c_mp = col(TOP_VIEW_AUTOLOAD, "modprobes"), c_nl = col(TOP_VIEW_AUTOLOAD, "needless");
	struct top_table t;

	assert_int_equal(rq->modprobe_pid, 0);
	assert_false(rq->needless);
	f->s.requests_change = true;
	f->s.n_requests_final = 0;
	f->ui.view = TOP_VIEW_AUTOLOAD;
	assert_int_equal(top_model_update(f->m, &f->s), 0);
	assert_int_equal(top_model_table(f->m, &f->ui, &t), 0);
	assert_int_equal(t.n_rows, 1);
	assert_int_equal(t.rows[0].vals[c_mp].u, 0);
	top_table_done(&t);

	/* the next settle linked its modprobe */
	rq->modprobe_pid = 303;
	assert_int_equal(top_model_update(f->m, &f->s), 0);
	assert_int_equal(top_model_table(f->m, &f->ui, &t), 0);
	assert_int_equal(t.rows[0].vals[c_mp].u, 1);
	assert_int_equal(t.rows[0].vals[c_nl].u, 0);
	top_table_done(&t);

	/* and another found it needless and unlinked it: both follow */
	rq->modprobe_pid = 0;
	rq->needless = true;
	assert_int_equal(top_model_update(f->m, &f->s), 0);
	assert_int_equal(top_model_table(f->m, &f->ui, &t), 0);
	assert_int_equal(t.rows[0].vals[c_mp].u, 0);
	assert_int_equal(t.rows[0].vals[c_nl].u, 1);
	top_table_done(&t);

	/* settled: a final request is not looked at again */
	f->s.n_requests_final = 1;
	assert_int_equal(top_model_update(f->m, &f->s), 0);
	rq->needless = false;
	assert_int_equal(top_model_update(f->m, &f->s), 0);
	assert_int_equal(top_model_table(f->m, &f->ui, &t), 0);
	assert_int_equal(t.rows[0].vals[c_nl].u, 1);
	top_table_done(&t);
}

static void test_other_views(void **state)
{
	struct fixture *f = *state;
	struct top_table t;
	bool saw_request = false;

	assert_int_equal(top_model_update(f->m, &f->s), 0);

	f->ui.view = TOP_VIEW_REQUESTERS;
	assert_int_equal(top_model_table(f->m, &f->ui, &t), 0);
	/* systemd-udevd (3 attempts), modprobe (2), storm (2), garbage (1) */
	assert_int_equal(t.n_rows, 4);
	assert_string_equal(t.rows[0].vals[0].s, "systemd-udevd");
	top_table_done(&t);

	f->ui.view = TOP_VIEW_AUTOLOAD;
	assert_int_equal(top_model_table(f->m, &f->ui, &t), 0);
	assert_int_equal(t.n_rows, 1);
	assert_string_equal(t.rows[0].vals[0].s, "net-pf-2-proto-132");
	top_table_done(&t);

	f->ui.view = TOP_VIEW_EVENTS;
	assert_int_equal(top_model_table(f->m, &f->ui, &t), 0);
	/* eight attempts and one request, newest first */
	assert_int_equal(t.n_rows, 9);
	assert_true(t.rows[0].vals[0].d >= t.rows[8].vals[0].d);
	for (size_t i = 0; i < t.n_rows; i++)
		saw_request = saw_request || strcmp(t.rows[i].vals[1].s, "request") == 0;
	assert_true(saw_request);
	top_table_done(&t);

	f->ui.view = TOP_VIEW_TREE;
	assert_int_equal(top_model_table(f->m, &f->ui, &t), 0);
	/* each requester, its modules under it, their attempts under those */
	assert_non_null(strstr(t.rows[0].vals[0].s, "systemd-udevd"));
	assert_string_equal(t.rows[1].vals[0].s, "xfs");
	assert_int_equal(t.rows[0].indent, 0);
	assert_int_equal(t.rows[1].indent, 1);
	assert_int_equal(t.rows[2].indent, 2);
	assert_non_null(t.rows[1].tree);
	top_table_done(&t);
}

static void test_render_frames(void **state)
{
	struct fixture *f = *state;
	struct top_render_opts o = { .program = "kmodtop test", .delay = 1.5 };
	struct top_hitmap hit;
	struct top_table t;
	struct canvas c;
	char line[1024];
	bool saw_xfs = false;

	assert_int_equal(top_model_update(f->m, &f->s), 0);
	assert_int_equal(canvas_init(&c, 80, 24, true), 0);
	assert_int_equal(top_model_table(f->m, &f->ui, &t), 0);
	top_render(&c, f->m, &f->ui, &t, &o, &hit);
	canvas_row_text(&c, 0, line, sizeof(line));
	assert_non_null(strstr(line, "kmodtop test"));
	canvas_row_text(&c, hit.header_y, line, sizeof(line));
	assert_non_null(strstr(line, "MODULE"));
	assert_non_null(strstr(line, "ATTEMPTS"));
	for (int y = hit.rows_y; y < hit.rows_y + hit.n_rows; y++) {
		canvas_row_text(&c, y, line, sizeof(line));
		assert_true(strlen(line) <= 80 * 4);
		saw_xfs = saw_xfs || strncmp(line, "xfs ", 4) == 0;
	}
	assert_true(saw_xfs);
	/* a click on a header sorts by that column, on a row selects it */
	assert_true(top_hit_column(&hit, hit.header_y, 0) == 0);
	assert_int_equal(top_hit_row(&hit, hit.rows_y + 1), 1);
	assert_int_equal(top_hit_row(&hit, hit.header_y), -1);
	assert_int_equal(top_hit_tab(&hit, hit.tabs_y, 1), TOP_VIEW_MODULES);
	/* the bottom line has the function keys */
	canvas_row_text(&c, 23, line, sizeof(line));
	assert_non_null(strstr(line, "F10Quit"));
	top_table_done(&t);

	/* every width from 80 up keeps rows within the screen */
	for (int w = 80; w <= 200; w += 7) {
		assert_int_equal(canvas_resize(&c, w, 30), 0);
		assert_int_equal(top_model_table(f->m, &f->ui, &t), 0);
		top_render(&c, f->m, &f->ui, &t, &o, &hit);
		assert_true(hit.n_cols >= 4);
		for (size_t k = 0; k < hit.n_cols; k++)
			assert_true(hit.col_x[k] + hit.col_w[k] <= w);
		top_table_done(&t);
	}
	/* the help screen lists the keys */
	f->ui.help = true;
	assert_int_equal(top_model_table(f->m, &f->ui, &t), 0);
	top_render(&c, f->m, &f->ui, &t, &o, &hit);
	canvas_row_text(&c, 2, line, sizeof(line));
	assert_non_null(strstr(line, "F1"));
	top_table_done(&t);
	canvas_done(&c);
}

/* The text of the help screen at WxH scrolled to @scroll; what it says at the bottom. */
static void help_lines(struct fixture *f, int w, int h, int scroll, char (*lines)[512])
{
	struct top_render_opts o = { .program = "kmodtop test", .delay = 1 };
	struct top_hitmap hit;
	struct top_table t;
	struct canvas c;

	assert_int_equal(canvas_init(&c, w, h, true), 0);
	f->ui.help = true;
	f->ui.help_scroll = scroll;
	assert_int_equal(top_model_table(f->m, &f->ui, &t), 0);
	top_render(&c, f->m, &f->ui, &t, &o, &hit);
	for (int y = 0; y < h; y++)
		canvas_row_text(&c, y, lines[y], 512);
	top_table_done(&t);
	canvas_done(&c);
}

static bool lines_have(char (*lines)[512], int h, const char *s)
{
	for (int y = 0; y < h; y++)
		if (strstr(lines[y], s))
			return true;
	return false;
}

/* At 80x24 the help does not fit: it scrolls to its last line, clamped, and says so. */
static void test_help_scrolls(void **state)
{
	struct fixture *f = *state;
	char lines[24][512];

	help_lines(f, 80, 24, 0, lines);
	assert_non_null(strstr(lines[2], "F1"));
	assert_non_null(strstr(lines[0], "lines 1-21 of"));
	assert_non_null(strstr(lines[23], "any other key returns"));
	assert_non_null(strstr(lines[23], "scroll"));
	assert_false(lines_have(lines, 24, "outcome      how the last attempt ended"));
	/* scrolled past the end: clamped to show the last line on the last row */
	help_lines(f, 80, 24, 1000, lines);
	assert_non_null(strstr(lines[22], "outcome"));
	assert_true(f->ui.help_scroll > 0 && f->ui.help_scroll < 1000);
	assert_int_equal(f->ui.help_page, 21);
	assert_null(strstr(lines[2], "F1 ? h"));
	help_lines(f, 80, 24, -5, lines);
	assert_int_equal(f->ui.help_scroll, 0);
	f->ui.help = false;
}

/* Narrow or wide, the help wraps at blanks: no word is cut at the edge. */
static void test_help_wraps_words(void **state)
{
	struct fixture *f = *state;
	static char lines[100][512];
	const char *words[] = { "previous)", "(a|b:", "either)", "modules,", "requesters,",
				"autoload,", "events", "idempotent", "waiter",
				"switch;", "scrolls." };

	for (int w = 40; w <= 130; w += 3) {
		help_lines(f, w, 100, 0, lines);
		for (int y = 2; y < 99; y++)
			assert_true(text_width(lines[y]) <= w);
		/* each word whole on some line */
		for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
			if (!lines_have(lines, 99, words[i]))
				fail_msg("at width %d the help cuts '%s'", w, words[i]);
	}
	f->ui.help = false;
}

static void test_canvas(void **state)
{
	struct canvas c;
	char line[256];

	(void)state;
	assert_int_equal(canvas_init(&c, 10, 2, true), 0);
	assert_int_equal(canvas_put(&c, 0, 0, -1, ST_NORMAL, "abcdefghijklmn"), 10);
	canvas_row_text(&c, 0, line, sizeof(line));
	assert_string_equal(line, "abcdefghij");
	/* a wide character takes two cells, and does not split at the edge */
	assert_int_equal(canvas_put(&c, 1, 0, -1, ST_NORMAL, "\xe4\xb8\xad\xe4\xb8\xad"),
			 4);
	assert_int_equal(canvas_put(&c, 1, 9, -1, ST_NORMAL, "\xe4\xb8\xad"), 0);
	canvas_row_text(&c, 1, line, sizeof(line));
	assert_string_equal(line, "\xe4\xb8\xad\xe4\xb8\xad");
	assert_int_equal(text_width("a\xe4\xb8\xad"), 3);
	assert_int_equal(text_fit("a\xe4\xb8\xad"
				  "b",
				  2),
			 1);
	/* invalid UTF-8 is drawn as U+FFFD, never passed through */
	canvas_clear(&c);
	canvas_put(&c, 0, 0, -1, ST_NORMAL,
		   "a\xff"
		   "b");
	canvas_row_text(&c, 0, line, sizeof(line));
	assert_string_equal(line, "a\xef\xbf\xbd"
				  "b");
	canvas_done(&c);
	/* without Unicode, only ASCII */
	assert_int_equal(canvas_init(&c, 10, 1, false), 0);
	canvas_put(&c, 0, 0, -1, ST_NORMAL, "\xe2\x96\x81x");
	canvas_row_text(&c, 0, line, sizeof(line));
	assert_string_equal(line, "?x");
	canvas_done(&c);
}

static void test_format_bytes(void **state)
{
	char b[16];

	(void)state;
	assert_string_equal(top_format_bytes(0, b, sizeof(b)), "0");
	assert_string_equal(top_format_bytes(999, b, sizeof(b)), "999");
	assert_string_equal(top_format_bytes(24576, b, sizeof(b)), "24.0K");
	assert_string_equal(top_format_bytes(2588672, b, sizeof(b)), "2.47M");
	assert_string_equal(top_format_bytes(35184372088832ull, b, sizeof(b)), "32.0T");
	assert_true(strlen(top_format_bytes(UINT64_MAX, b, sizeof(b))) <= 5);
}

/* The real capture: every attempt lands in exactly one module row. */
static void test_fixture_totals(void **state)
{
	struct ktrace_parser_ops ops = { .event = feed_ledger };
	struct ledger_ops lops = { 0 };
	struct ledger *l = NULL;
	struct top_model *m = NULL;
	struct top_sample s = { 0 };
	struct top_ui ui;
	struct top_table t;
	struct kt_err e = { 0 };
	size_t *done;
	uint64_t sum = 0;
	int c_att;
	FILE *fp;

	(void)state;
	fp = fopen(FIXTURES_DIR "/debian-6.12-xz/sys/kernel/tracing/trace", "re");
	assert_non_null(fp);
	assert_int_equal(ledger_new(&lops, true, &l), 0);
	assert_int_equal(ktrace_events_read_file(fp, "trace", &ops, l, NULL, &e), 0);
	fclose(fp);
	assert_int_equal(ledger_finish(l), 0);
	assert_true(l->n_attempts > 100);
	done = calloc(l->n_attempts, sizeof(*done));
	for (size_t i = 0; i < l->n_attempts; i++)
		done[i] = i;
	s.ledger = l;
	s.done = done;
	s.n_done = l->n_attempts;
	s.n_requests = l->n_requests;
	s.n_klog = l->n_klog;
	assert_int_equal(top_model_new(&m), 0);
	top_ui_init(&ui);
	assert_int_equal(top_model_update(m, &s), 0);
	assert_int_equal(top_model_table(m, &ui, &t), 0);
	c_att = col(TOP_VIEW_MODULES, "attempts");
	for (size_t i = 0; i < t.n_rows; i++)
		sum += t.rows[i].vals[c_att].u;
	assert_int_equal(sum, l->n_attempts);
	assert_int_equal(top_model_header(m)->attempts, l->n_attempts);
	top_table_done(&t);
	ui.view = TOP_VIEW_AUTOLOAD;
	assert_int_equal(top_model_table(m, &ui, &t), 0);
	assert_true(t.n_rows > 0);
	top_table_done(&t);
	top_model_free(m);
	ledger_free(l);
	free(done);
}

static void test_columns(void **state)
{
	size_t n;
	const struct top_column *c = top_columns(TOP_VIEW_MODULES, &n);
	static const char *const want[] = { "MODULE",	      "STATE",
					    "SIZE",	      "ATTEMPTS",
					    "LOADED",	      "DUP",
					    "FAIL",	      "NEEDLESS",
					    "WASTED (est.)",  "WASTED (meas.)",
					    "LAST REQUESTER", "LAST OUTCOME" };

	(void)state;
	/* the columns, in its order (RECENT, the sparkline, sits among them) */
	for (size_t k = 0, i = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		while (i < n && strcmp(c[i].header, want[k]) != 0)
			i++;
		assert_true(i < n);
	}
	assert_int_equal(top_column_find(TOP_VIEW_MODULES, "WASTED"),
			 col(TOP_VIEW_MODULES, "wasted"));
	assert_int_equal(top_column_find(TOP_VIEW_MODULES, "bogus"), -1);
}

static int cmp_end(const void *pa, const void *pb, void *ctx)
{
	const struct ledger *l = ctx;
	double a = l->attempts[*(const size_t *)pa].end, b = l->attempts[*(const size_t *)pb].end;

	return a < b ? -1 : a > b;
}

/* The start times of the attempt rows under the tree's first module row, in order. */
static size_t tree_times(const struct top_table *t, double *ret, size_t max,
			 const struct top_row **ret_earlier)
{
	size_t n = 0;

	*ret_earlier = NULL;
	for (size_t i = 0; i < t->n_rows; i++) {
		const struct top_row *r = &t->rows[i];

		if (strncmp(r->key, "e\t", 2) == 0)
			*ret_earlier = r;
		if (strncmp(r->key, "a\t", 2) == 0 && n < max)
			ret[n++] = strtod(r->vals[0].s, NULL);
	}
	return n;
}

/*
 * tree_expands_earlier_in_time_order: 40 attempts that end in the reverse of the order
 * they began (the ledger hands them over as they end): the tree lists them by start,
 * and Enter on "... 24 earlier" shows all 40.
 */
static void test_tree_expands_earlier_in_time_order(void **state)
{
	static char lines[81][160];
	const char *ptrs[82];
	struct ledger *l;
	struct top_model *m = NULL;
	struct top_sample s = { 0 };
	struct top_table t;
	struct top_ui ui;
	const struct top_row *earlier;
	size_t *done, n = 0;
	double times[64];

	(void)state;
	for (int i = 0; i < 40; i++)
		snprintf(lines[n++], sizeof(lines[0]),
			 "           storm-%d     [000] .....    %d.%06d: sys_finit_module(fd: 3, "
			 "uargs: 5bfb41, flags: 0)",
			 500 + i, 10 + i / 100, (i % 100) * 10000);
	for (int i = 39; i >= 0; i--)
		snprintf(lines[n++], sizeof(lines[0]),
			 "           storm-%d     [000] .....    %d.%06d: sys_finit_module -> "
			 "0xffffffffffffffef",
			 500 + i, 20 + (39 - i) / 100, ((39 - i) % 100) * 10000);
	for (size_t i = 0; i < n; i++)
		ptrs[i] = lines[i];
	ptrs[n] = NULL;
	l = ledger_from_lines(ptrs);
	assert_int_equal(l->n_attempts, 40);
	name_attempts(l, "storm", "xfs");
	done = calloc(l->n_attempts, sizeof(*done));
	assert_non_null(done);
	for (size_t i = 0; i < l->n_attempts; i++)
		done[i] = i;
	qsort_r(done, l->n_attempts, sizeof(*done), cmp_end, l);
	s = (struct top_sample){ .ledger = l, .done = done, .n_done = l->n_attempts,
				 .start = 9.0, .now = 30.0 };
	assert_int_equal(top_model_new(&m), 0);
	assert_int_equal(top_model_update(m, &s), 0);
	top_ui_init(&ui);
	ui.view = TOP_VIEW_TREE;

	assert_int_equal(top_model_table(m, &ui, &t), 0);
	n = tree_times(&t, times, 64, &earlier);
	assert_int_equal(n, 16);
	assert_non_null(earlier);
	assert_string_equal(earlier->vals[0].s, "... 24 earlier");
	for (size_t i = 1; i < n; i++)
		if (times[i - 1] > times[i])
			fail_msg("tree attempt %zu at %.6f after one at %.6f", i, times[i],
				 times[i - 1]);
	/* Enter on the "... 24 earlier" row: all 40, in time order, the row gone */
	top_ui_select(&ui, &t, (size_t)(earlier - t.rows));
	assert_true(top_ui_open_detail(&ui, &t));
	assert_int_equal(ui.view, TOP_VIEW_TREE);
	top_table_done(&t);
	assert_int_equal(top_model_table(m, &ui, &t), 0);
	n = tree_times(&t, times, 64, &earlier);
	assert_int_equal(n, 40);
	assert_null(earlier);
	for (size_t i = 1; i < n; i++)
		assert_true(times[i - 1] <= times[i]);
	assert_true(times[0] < 10.001);
	top_table_done(&t);
	/* + and Right ask for the same in the tree; elsewhere Right is the next tab */
	assert_int_equal(keys_handle(&ui, '+'), ACT_EXPAND);
	assert_int_equal(keys_handle(&ui, TK_RIGHT), ACT_EXPAND);
	ui.view = TOP_VIEW_MODULES;
	assert_int_equal(keys_handle(&ui, TK_RIGHT), ACT_VIEW_CHANGED);

	top_model_free(m);
	ledger_free(l);
	free(done);
}


/* --- the module detail: dependencies, holders, modinfo, missing symbols ------------- */

static int fake_module_info(void *userdata, const char *module, struct top_module_info *ret)
{
	(void)userdata;
	memset(ret, 0, sizeof(*ret));
	if (strcmp(module, "nfs") != 0)
		return -ENOENT;
	ret->found = true;
	snprintf(ret->path, sizeof(ret->path), "/lib/modules/x/kernel/fs/nfs/nfs.ko.xz");
	ret->has_depends = true;
	snprintf(ret->depends, sizeof(ret->depends), "netfs, sunrpc, grace, lockd");
	ret->has_modinfo = true;
	snprintf(ret->description, sizeof(ret->description), "NFS client support");
	/* a string from the file is shown escaped */
	snprintf(ret->author, sizeof(ret->author), "Olaf \033]0;Kirch");
	snprintf(ret->license, sizeof(ret->license), "GPL");
	snprintf(ret->signer, sizeof(ret->signer), "Build time autogenerated kernel key");
	ret->n_modinfo_aliases = 3;
	ret->n_firmware = 1;
	snprintf(ret->firmware, sizeof(ret->firmware), "nfs/fw.bin");
	ret->n_parms = 2;
	snprintf(ret->parms, sizeof(ret->parms), "enable_ino64, nfs4_disable_idmapping");
	return 0;
}

static int fake_symbol_module(void *userdata, const char *symbol, char *buf, size_t bufsz)
{
	size_t *calls = userdata;

	(*calls)++;
	if (strncmp(symbol, "rpc_", 4) == 0 || strncmp(symbol, "xdr_", 4) == 0)
		snprintf(buf, bufsz, "sunrpc");
	else if (strncmp(symbol, "netfs_", 6) == 0)
		snprintf(buf, bufsz, "netfs");
	else
		return -ENOENT;
	return 0;
}

static void add_unknown_symbol(struct ledger *l, double ts, const char *symbol)
{
	char msg[128];

	snprintf(msg, sizeof(msg), "nfs: Unknown symbol %s (err -2)", symbol);
	assert_int_equal(ledger_add_klog(l, ts, "nfs", 3, KLOG_FINDING_UNKNOWN_SYMBOL, ENOENT,
					 msg, strlen(msg)),
			 0);
}

static bool detail_has(const struct top_table *t, const char *s)
{
	for (size_t i = 0; i < t->n_lines; i++)
		if (strstr(t->lines[i], s))
			return true;
	return false;
}

/*
 * detail_shows_depends_holders_modinfo_and_exporters: the detail of a module that
 * failed on unknown symbols names the modules exporting them (each symbol once, though
 * the log repeats it), its dependencies, its holders and its .modinfo fields, escaped,
 * and at 80x24 they are on the screen.
 */
static void test_detail_shows_depends_holders_modinfo_and_exporters(void **state)
{
	struct fixture *f = *state;
	static const char *const xfs_holders[] = { "sctp", "bad\033[2Jholder", NULL };
	struct top_render_opts o = { .program = "kmodtop test", .delay = 1 };
	size_t calls = 0;
	struct top_table t;
	struct canvas c;
	char screen[24][512];

	/* the log of two failed loads: the same three symbols twice, and one nobody has */
	for (int k = 0; k < 2; k++) {
		add_unknown_symbol(f->l, 6.05 + k, "rpc_put_task");
		add_unknown_symbol(f->l, 6.05 + k, "xdr_inline_decode");
		add_unknown_symbol(f->l, 6.05 + k, "netfs_readahead");
	}
	add_unknown_symbol(f->l, 6.3, "no_such_symbol");
	f->s.n_klog = f->l->n_klog;
	f->s.module_info = fake_module_info;
	f->s.symbol_module = fake_symbol_module;
	f->s.userdata = &calls;
	f->mods[0].holders = xfs_holders;
	f->mods[0].n_holders = 2;
	assert_int_equal(top_model_update(f->m, &f->s), 0);

	f->ui.view = TOP_VIEW_DETAIL;
	snprintf(f->ui.detail, sizeof(f->ui.detail), "nfs");
	assert_int_equal(top_model_table(f->m, &f->ui, &t), 0);
	assert_true(detail_has(&t, "missing 4 symbols, exported by sunrpc (2), netfs (1), "
				   "no module (1)"));
	assert_int_equal(calls, 4);
	assert_true(detail_has(&t, "depends: netfs, sunrpc, grace, lockd  holders: - (not "
				   "loaded)"));
	assert_true(detail_has(&t, "modinfo: NFS client support  by Olaf \\x1b]0;Kirch"));
	assert_true(detail_has(&t, "license GPL  version -  signer Build time autogenerated "
				   "kernel key"));
	assert_true(detail_has(&t, "aliases 3  firmware 1 (nfs/fw.bin)  parms 2 "
				   "(enable_ino64, nfs4_disable_idmapping)"));
	for (size_t i = 0; i < t.n_lines; i++)
		assert_null(strchr(t.lines[i], '\033'));

	/* at 80x24 every one of those lines is on the screen, above the attempts */
	assert_int_equal(canvas_init(&c, 80, 24, true), 0);
	top_render(&c, f->m, &f->ui, &t, &o, NULL);
	for (int y = 0; y < 24; y++)
		canvas_row_text(&c, y, screen[y], sizeof(screen[y]));
	assert_true(lines_have(screen, 24, "missing 4 symbols, exported by sunrpc (2)"));
	assert_true(lines_have(screen, 24, "depends: netfs, sunrpc, grace, lockd"));
	assert_true(lines_have(screen, 24, "modinfo: NFS client support"));
	assert_true(lines_have(screen, 24, "license GPL"));
	assert_true(lines_have(screen, 24, "aliases 3  firmware 1"));
	assert_true(lines_have(screen, 24, "missing-dep"));
	top_table_done(&t);

	/* a refresh with nothing new in the log looks nothing up again */
	assert_int_equal(top_model_update(f->m, &f->s), 0);
	assert_int_equal(top_model_table(f->m, &f->ui, &t), 0);
	assert_int_equal(calls, 4);
	top_table_done(&t);

	/* a loaded module's holders, from the sample (proc/modules' "used by"), escaped */
	snprintf(f->ui.detail, sizeof(f->ui.detail), "xfs");
	assert_int_equal(top_model_table(f->m, &f->ui, &t), 0);
	assert_true(detail_has(&t, "holders: sctp, bad\\x1b[2Jholder"));
	assert_false(detail_has(&t, "missing"));
	top_table_done(&t);
	canvas_done(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ledger_shape, setup, teardown),
		cmocka_unit_test_setup_teardown(test_module_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escaped_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sort_and_invert, setup, teardown),
		cmocka_unit_test_setup_teardown(test_filter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_search_and_selection, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_incremental_changed_spark, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_request_changes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_views, setup, teardown),
		cmocka_unit_test_setup_teardown(test_render_frames, setup, teardown),
		cmocka_unit_test_setup_teardown(test_help_scrolls, setup, teardown),
		cmocka_unit_test(test_tree_expands_earlier_in_time_order),
		cmocka_unit_test_setup_teardown(test_help_wraps_words, setup, teardown),
		cmocka_unit_test(test_canvas),
		cmocka_unit_test(test_format_bytes),
		cmocka_unit_test(test_fixture_totals),
		cmocka_unit_test(test_columns),
		cmocka_unit_test_setup_teardown(
			test_detail_shows_depends_holders_modinfo_and_exporters, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
