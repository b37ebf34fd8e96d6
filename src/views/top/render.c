/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/output.h"
#include "util/escape.h"
#include "util/macro.h"
#include "keys.h"
#include "render.h"

/* Lines above the tab bar: title and meters. */
#define METER_LINES 7

static const char *bytes(uint64_t v, char *buf, size_t n)
{
	return top_format_bytes(v, buf, n);
}

/* a byte rate as an integer: at 2^64 and above the cast would be undefined */
static uint64_t rate_u64(double v)
{
	return v >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)v;
}

static const char *rate(double v, char *buf, size_t n)
{
	if (v < 0) {
		snprintf(buf, n, "-");
		return buf;
	}
	if (v < 10)
		snprintf(buf, n, "%.1f", v);
	else
		snprintf(buf, n, "%.0f", v);
	return buf;
}

/* loadpath_summary(), or at narrow widths the generation and its traits in short */
static const char *era_text(const struct loadpath *lp, int room, char *buf, size_t n)
{
	const char *full, *colon;

	if (!lp || !lp->known) {
		snprintf(buf, n, "load path unknown");
		return buf;
	}
	full = loadpath_summary(lp);
	colon = strchr(full, ':');
	if (text_width(full) <= room || !colon) {
		snprintf(buf, n, "%s", full);
		return buf;
	}
	snprintf(buf, n, "%.*s: %s%s%s", (int)(colon - full), full,
		 lp->early_dup_check ? "dup check before layout"
				     : "duplicates allocate layout",
		 lp->idempotent_finit ? "; idempotent finit" : "",
		 lp->execmem ? "; execmem" : "");
	return buf;
}

/* Writes @s only if all of it fits; returns the column after it. */
static int put_whole(struct canvas *c, int y, int x, uint8_t style, const char *s)
{
	if (x + text_width(s) > c->w)
		return x;
	return x + canvas_put(c, y, x, -1, style, s);
}

/* "Label " in the label style, then the value; returns the column after it. */
static int put_label(struct canvas *c, int y, int x, const char *label)
{
	return x + canvas_put(c, y, x, -1, ST_LABEL, label);
}

static int put_val(struct canvas *c, int y, int x, uint8_t style, const char *v)
{
	return x + canvas_put(c, y, x, -1, style, v);
}

static void draw_bar(struct canvas *c, int y, int x, int w, double frac, const char *text)
{
	int inner = w - 2, fill, tw;

	if (inner < 1)
		return;
	canvas_put(c, y, x, 1, ST_BOLD, "[");
	canvas_put(c, y, x + w - 1, 1, ST_BOLD, "]");
	if (frac < 0)
		frac = 0;
	if (frac > 1)
		frac = 1;
	fill = (int)(frac * inner + 0.5);
	if (frac > 0 && fill == 0)
		fill = 1;
	canvas_fill(c, y, x + 1, fill, '|', ST_BAR);
	tw = text_width(text);
	if (tw <= inner)
		canvas_put(c, y, x + 1 + inner - tw, tw, ST_VALUE, text);
	if (fill > inner - tw)
		canvas_restyle(c, y, x + 1 + inner - tw, fill - (inner - tw), ST_BAR);
}

static void draw_meters(struct canvas *c, const struct top_model *m,
			const struct top_ui *ui, const struct top_render_opts *o)
{
	const struct top_header *h = top_model_header(m);
	const struct top_sample *s = h->s;
	char b1[32], b2[32], b3[64], b4[160];
	int x, y = 0;

	/* title: program, kernel, decompression; then the load-path generation */
	x = canvas_put(c, y, 0, -1, ST_TITLE, o->program ? o->program : "kmodtop");
	x = put_label(c, y, x, "  kernel ");
	x = put_val(c, y, x, ST_VALUE, s && s->release ? s->release : "unknown");
	x = put_label(c, y, x, "  decompression ");
	put_val(c, y, x, ST_VALUE, s && s->decompress ? s->decompress : "unknown");
	if (ui->paused)
		canvas_put_right(c, y, c->w - 8, 8, ST_WARN, "[PAUSED]");
	y++;
	x = put_label(c, y, 0, "Kernel   ");
	put_val(c, y, x, ST_VALUE, era_text(s ? s->lp : NULL, c->w - x, b4, sizeof(b4)));

	/* vmalloc: used of VmallocTotal, and the modules' share */
	y++;
	x = put_label(c, y, 0, "Vmalloc  ");
	if (s && s->has_vmalloc && s->vmalloc_total) {
		int bw = c->w / 3 < 34 ? c->w / 3 : 34;
		double frac = (double)s->vmalloc_used / (double)s->vmalloc_total;

		snprintf(b4, sizeof(b4), "%s/%s", bytes(s->vmalloc_used, b1, sizeof(b1)),
			 bytes(s->vmalloc_total, b2, sizeof(b2)));
		draw_bar(c, y, x, bw, frac, b4);
		x += bw;
		x = put_label(c, y, x, " modules ");
		x = put_val(c, y, x, ST_VALUE, bytes(s->vmalloc_modules, b1, sizeof(b1)));
		if (s->vmalloc_used) {
			snprintf(b4, sizeof(b4), " (%.1f%% of used)",
				 100.0 * (double)s->vmalloc_modules /
					 (double)s->vmalloc_used);
			x = put_val(c, y, x, ST_NORMAL, b4);
		}
		if (s->vmalloc_from) {
			snprintf(b4, sizeof(b4), "  from %s", s->vmalloc_from);
			put_whole(c, y, x, ST_DIM, b4);
		}
	} else {
		put_val(c, y, x, ST_DIM, "not available");
	}

	/* attempts and their rate */
	y++;
	x = put_label(c, y, 0, "Attempts ");
	snprintf(b4, sizeof(b4), "%" PRIu64, h->attempts);
	x = put_val(c, y, x, ST_VALUE, b4);
	snprintf(b4, sizeof(b4), " (%s/s)", rate(h->attempts_per_s, b1, sizeof(b1)));
	x = put_val(c, y, x, ST_NORMAL, b4);
	x = put_label(c, y, x, "  failed ");
	snprintf(b4, sizeof(b4), "%" PRIu64, h->failed);
	x = put_val(c, y, x, h->failed ? ST_BAD : ST_VALUE, b4);
	x = put_label(c, y, x, "  duplicates ");
	snprintf(b4, sizeof(b4), "%" PRIu64, h->duplicates);
	x = put_val(c, y, x, h->duplicates ? ST_WARN : ST_VALUE, b4);
	if (h->unnamed) {
		x = put_label(c, y, x, "  unnamed ");
		snprintf(b4, sizeof(b4), "%" PRIu64, h->unnamed);
		x = put_val(c, y, x, ST_VALUE, b4);
	}
	x = put_label(c, y, x, "  lost events ");
	snprintf(b4, sizeof(b4), "%" PRIu64, s ? s->lost_events : 0);
	put_val(c, y, x, s && s->lost_events ? ST_WARN : ST_VALUE, b4);

	/* wasted bytes: estimated and measured, total and rate */
	y++;
	x = put_label(c, y, 0, "Wasted   ");
	x = put_label(c, y, x, "est. ");
	if (h->has_est) {
		x = put_val(c, y, x, ST_VALUE, bytes(h->wasted_est, b1, sizeof(b1)));
		snprintf(b4, sizeof(b4), " (%s/s)",
			 h->wasted_est_per_s < 0
				 ? "-"
				 : bytes(rate_u64(h->wasted_est_per_s), b2, sizeof(b2)));
		x = put_val(c, y, x, ST_NORMAL, b4);
	} else {
		x = put_val(c, y, x, ST_DIM, "- (no cost model)");
	}
	x = put_label(c, y, x, "  meas. ");
	if (s && s->measured) {
		x = put_val(c, y, x, ST_VALUE, bytes(h->wasted_meas, b1, sizeof(b1)));
		snprintf(b4, sizeof(b4), " (%s/s)",
			 h->wasted_meas_per_s < 0
				 ? "-"
				 : bytes(rate_u64(h->wasted_meas_per_s), b2, sizeof(b2)));
		put_val(c, y, x, ST_NORMAL, b4);
	} else {
		snprintf(b4, sizeof(b4), "- (%s)",
			 s && s->measured_why ? s->measured_why : "--measure");
		put_val(c, y, x, ST_DIM, b4);
	}

	/* sources, grouped: replayed, live, read once, missing (with the reason) */
	y++;
	x = put_label(c, y, 0, "Sources  ");
	for (int st = TOP_SRC_LIVE; s && st <= TOP_SRC_MISSING; st++) {
		static const char *const lead[] = {
			[TOP_SRC_LIVE] = "live:",
			[TOP_SRC_REPLAY] = "replay:",
			[TOP_SRC_ONCE] = "read once:",
			[TOP_SRC_MISSING] = "missing:",
		};
		bool first = true;

		for (size_t i = 0; i < s->n_sources; i++) {
			const struct top_source *src = &s->sources[i];

			if ((int)src->state != st)
				continue;
			if (first) {
				if (x > 9)
					x = put_val(c, y, x, ST_NORMAL, " ");
				x = put_label(c, y, x, lead[st]);
				first = false;
			}
			snprintf(b4, sizeof(b4), " %s%s%s%s", src->name,
				 src->why ? " (" : "", src->why ? src->why : "",
				 src->why ? ")" : "");
			x = put_val(c, y, x, st == TOP_SRC_MISSING ? ST_DIM : ST_VALUE,
				    b4);
		}
	}

	/* the clock: replay position, or the live refresh */
	y++;
	if (s && s->replay) {
		x = put_label(c, y, 0, "Replay   ");
		snprintf(b4, sizeof(b4), "%.2f / %.2f s", s->now, s->replay_end);
		x = put_val(c, y, x, ST_VALUE, b4);
		if (s->speed > 0)
			snprintf(b3, sizeof(b3), "  speed x%g", s->speed);
		else
			snprintf(b3, sizeof(b3), "  all at once");
		x = put_val(c, y, x, ST_NORMAL, b3);
		if (s->step) {
			/* a marker's text is the workload's: escaped, as names are */
			_cleanup_free_ char *e = escape_dup(s->step, strlen(s->step));

			x = put_label(c, y, x, "  step ");
			x = put_val(c, y, x, ST_VALUE, e ? e : "-");
		}
		if (s->skipped > 0) {
			snprintf(b4, sizeof(b4), "  (%.0f s idle skipped)", s->skipped);
			x = put_val(c, y, x, ST_DIM, b4);
		}
		if (s->finished)
			put_val(c, y, x, ST_DIM, "  (end of capture)");
	} else {
		x = put_label(c, y, 0, "Refresh  ");
		snprintf(b4, sizeof(b4), "every %.1f s", o->delay);
		x = put_val(c, y, x, ST_VALUE, b4);
		snprintf(b4, sizeof(b4), "  modules %zu loaded", h->n_present);
		put_val(c, y, x, ST_NORMAL, b4);
	}
}

static void draw_tabs(struct canvas *c, const struct top_model *m,
		      const struct top_ui *ui, int y, struct top_hitmap *hit)
{
	const struct top_header *h = top_model_header(m);
	size_t counts[_TOP_VIEW_TABS] = { h->n_modules, h->n_requesters, h->n_aliases,
					  h->n_events };
	int x = 0;
	char buf[TOP_KEY_MAX + 16];

	canvas_fill(c, y, 0, c->w, ' ', ST_TAB);
	hit->tabs_y = y;
	for (int v = 0; v < _TOP_VIEW_TABS; v++) {
		bool active = ui->view == (enum top_view)v ||
			      (ui->view >= _TOP_VIEW_TABS && ui->tab == (enum top_view)v);

		hit->tab_x[v] = x;
		snprintf(buf, sizeof(buf), " %s %zu ", top_view_name((enum top_view)v),
			 counts[v]);
		x += canvas_put(c, y, x, -1,
				ui->view == (enum top_view)v ? ST_TAB_ACTIVE : ST_TAB,
				buf);
		(void)active;
	}
	hit->tab_x[_TOP_VIEW_TABS] = x;
	if (ui->view == TOP_VIEW_TREE)
		x += canvas_put(c, y, x + 1, -1, ST_TAB_ACTIVE, " Tree ") + 1;
	else if (ui->view == TOP_VIEW_DETAIL) {
		snprintf(buf, sizeof(buf), " Detail: %s ", ui->detail);
		x += canvas_put(c, y, x + 1, -1, ST_TAB_ACTIVE, buf) + 1;
	}
	if (ui->filter[0] && ui->input != TOP_INPUT_FILTER) {
		snprintf(buf, sizeof(buf), " Filter: %s ", ui->filter);
		x += canvas_put(c, y, x + 1, -1, ST_INPUT, buf) + 1;
	}
	if (ui->search[0] && ui->input != TOP_INPUT_SEARCH) {
		snprintf(buf, sizeof(buf), " Search: %s ", ui->search);
		canvas_put(c, y, x + 1, -1, ST_TAB, buf);
	}
}

/* A column is never narrower than its header. */
static int col_width(const struct top_column *c)
{
	int hw = text_width(c->header);

	return c->width > hw ? c->width : hw;
}

/* Chooses columns by priority until the width is used, then widens the flexible ones. */
static size_t layout_columns(const struct top_table *t, int w, int *ret_x, int *ret_w,
			     int *ret_idx, const struct top_sample *s)
{
	bool on[TOP_HIT_COLS] = { false }, empty[TOP_HIT_COLS];
	int width[TOP_HIT_COLS];
	size_t n = t->n_cols < TOP_HIT_COLS ? t->n_cols : TOP_HIT_COLS, k = 0;
	int used = 0;

	/* a column with no value in any row ("-" throughout) gives its room to the others */
	for (size_t i = 0; i < n; i++) {
		empty[i] = t->n_rows > 0 && i > 0;
		for (size_t r = 0; r < t->n_rows && empty[i]; r++)
			empty[i] = t->rows[r].vals[i].kind == TV_NONE;
	}

	/* the first column and the sort column always */
	for (size_t i = 0; i < n; i++)
		if ((i == 0 || (int)i == t->sort) &&
		    used + col_width(&t->cols[i]) + (used ? 1 : 0) <= w) {
			on[i] = true;
			width[i] = col_width(&t->cols[i]);
			used += width[i] + (used ? 1 : 0);
		}
	for (int prio = 1; prio <= 32; prio++)
		for (size_t i = 0; i < n; i++) {
			const struct top_column *c = &t->cols[i];
			int cw = col_width(c);

			if (c->prio != prio || on[i])
				continue;
			if (empty[i])
				continue;
			if (used + cw + (used ? 1 : 0) > w)
				continue;
			on[i] = true;
			width[i] = cw;
			used += cw + (used ? 1 : 0);
		}
	/* spare width to the flexible columns, by priority */
	for (int prio = 1; prio <= 32 && used < w; prio++)
		for (size_t i = 0; i < n && used < w; i++) {
			const struct top_column *c = &t->cols[i];
			int extra;

			if (!on[i] || c->prio != prio || !(c->flags & TOP_COL_FLEX))
				continue;
			extra = c->max_width - width[i];
			if (extra > w - used)
				extra = w - used;
			if (extra > 0) {
				width[i] += extra;
				used += extra;
			}
		}
	for (size_t i = 0, x = 0; i < n; i++) {
		if (!on[i])
			continue;
		ret_x[k] = (int)x;
		ret_w[k] = width[i];
		ret_idx[k] = (int)i;
		x += (size_t)width[i] + 1;
		k++;
	}
	return k;
}

static void spark_text(const uint16_t *v, bool unicode, char *buf, size_t n)
{
	static const char *const blocks[] = { " ",	"\u2581", "\u2582",
					      "\u2583", "\u2584", "\u2585",
					      "\u2586", "\u2587", "\u2588" };
	static const char ascii[] = " .:-=+*#@";
	unsigned int max = 0;
	size_t len = 0;

	for (int i = 0; i < TOP_SPARK_N; i++)
		if (v[i] > max)
			max = v[i];
	buf[0] = '\0';
	for (int i = 0; i < TOP_SPARK_N && len + 4 < n; i++) {
		unsigned int lvl = max ? (v[i] * 8u + max - 1) / max : 0;

		if (unicode) {
			size_t bl = strlen(blocks[lvl]);

			memcpy(buf + len, blocks[lvl], bl);
			len += bl;
		} else {
			buf[len++] = ascii[lvl];
		}
		buf[len] = '\0';
	}
}

static void format_val(const struct top_val *v, bool unicode, char *buf, size_t n, int w)
{
	switch (v->kind) {
	case TV_NONE:
		snprintf(buf, n, "-");
		break;
	case TV_STR:
		snprintf(buf, n, "%s", v->s);
		break;
	case TV_U64:
		snprintf(buf, n, "%" PRIu64, v->u);
		break;
	case TV_BYTES:
		top_format_bytes(v->u, buf, n);
		break;
	case TV_TIME:
		snprintf(buf, n, "%.6f", v->d);
		if ((int)strlen(buf) > w)
			snprintf(buf, n, "%.3f", v->d);
		break;
	case TV_SPARK:
		spark_text(v->spark, unicode, buf, n);
		break;
	}
}

static void draw_table(struct canvas *c, const struct top_ui *ui,
		       const struct top_table *t, const struct top_sample *s, int y0,
		       int y1, struct top_hitmap *hit)
{
	int cx[TOP_HIT_COLS], cw[TOP_HIT_COLS], ci[TOP_HIT_COLS];
	size_t nc = layout_columns(t, c->w, cx, cw, ci, s);
	size_t first = ui->scroll[t->view];
	int y = y0;
	char buf[1024];

	/* header */
	canvas_fill(c, y, 0, c->w, ' ', ST_HEADER);
	hit->header_y = y;
	hit->n_cols = nc;
	for (size_t k = 0; k < nc; k++) {
		const struct top_column *col = &t->cols[ci[k]];
		uint8_t st = ci[k] == t->sort ? ST_HEADER_SORT : ST_HEADER;

		hit->col_x[k] = cx[k];
		hit->col_w[k] = cw[k];
		hit->col_idx[k] = ci[k];
		if (col->flags & TOP_COL_RIGHT)
			canvas_put_right(c, y, cx[k], cw[k], st, col->header);
		else
			canvas_put(c, y, cx[k], cw[k], st, col->header);
		if (ci[k] == t->sort)
			canvas_restyle(c, y, cx[k], cw[k], ST_HEADER_SORT);
	}
	y++;
	hit->rows_y = y;
	hit->first_row = first;
	hit->n_rows = 0;
	if (!t->n_rows) {
		const char *msg = t->n_total ? "no rows match the filter"
				  : t->view == TOP_VIEW_DETAIL ? "no attempts"
							       : "nothing yet";

		if (y < y1)
			canvas_put(c, y, 1, -1, ST_DIM, msg);
		return;
	}
	for (size_t r = first; r < t->n_rows && y < y1; r++, y++) {
		const struct top_row *row = &t->rows[r];
		bool selected = r == ui->sel[t->view];

		hit->n_rows++;
		if (row->style)
			canvas_fill(c, y, 0, c->w, ' ', row->style);
		for (size_t k = 0; k < nc; k++) {
			const struct top_column *col = &t->cols[ci[k]];
			const struct top_val *v = &row->vals[ci[k]];
			uint8_t st = v->style ? v->style : row->style;
			int x = cx[k], w = cw[k];

			if (k == 0 && row->tree) {
				int tw = canvas_put(c, y, x, w, ST_DIM, row->tree);

				x += tw;
				w -= tw;
			}
			if (w <= 0)
				continue;
			format_val(v, c->unicode, buf, sizeof(buf), w);
			if (v->kind == TV_NONE)
				st = ST_DIM;
			if ((col->flags & TOP_COL_RIGHT) && v->kind != TV_SPARK)
				canvas_put_right(c, y, x, w, st, buf);
			else
				canvas_put(c, y, x, w, st, buf);
		}
		if (selected)
			canvas_restyle(c, y, 0, c->w, ST_SELECTED);
	}
}

static void draw_footer(struct canvas *c, const struct top_ui *ui, int y)
{
	static const struct {
		const char *key, *label;
	} fkeys[] = {
		{ "F1", "Help" },      { "F3", "Search" }, { "F4", "Filter" },
		{ "F5", "Tree" },      { "F6", "SortBy" }, { "Tab", "View" },
		{ "Enter", "Detail" }, { "Z", "Pause" },   { "F10", "Quit" },
	};
	char buf[TOP_LINE_MAX + 64];
	int x = 0;

	canvas_fill(c, y, 0, c->w, ' ', ST_KEY_LABEL);
	if (ui->input == TOP_INPUT_SEARCH || ui->input == TOP_INPUT_FILTER) {
		bool search = ui->input == TOP_INPUT_SEARCH;

		canvas_fill(c, y, 0, c->w, ' ', ST_INPUT);
		snprintf(buf, sizeof(buf), "%s: %s_", search ? "Search" : "Filter",
			 ui->line);
		x = canvas_put(c, y, 0, -1, ST_INPUT, buf);
		if (search && ui->search_failed)
			x += canvas_put(c, y, x, -1, ST_BAD, "  (not found)");
		canvas_put(c, y, x, -1, ST_INPUT,
			   search ? "   Enter: done  Esc: cancel  F3: next"
				  : "   Enter: done  Esc: cancel");
		return;
	}
	if (ui->input == TOP_INPUT_SORT) {
		canvas_put(c, y, 0, -1, ST_INPUT,
			   "Sort by: Up/Down choose  Enter set  I invert  Esc cancel");
		return;
	}
	for (size_t i = 0; i < sizeof(fkeys) / sizeof(fkeys[0]) && x < c->w; i++) {
		x += canvas_put(c, y, x, -1, ST_KEY, fkeys[i].key);
		x += canvas_put(c, y, x, -1, ST_KEY_LABEL, fkeys[i].label);
		x += canvas_put(c, y, x, -1, ST_KEY_LABEL, " ");
	}
}

static void draw_sort_menu(struct canvas *c, const struct top_ui *ui,
			   const struct top_table *t, int y0, int y1)
{
	int w = 18, y = y0;

	canvas_fill(c, y, 0, w, ' ', ST_HEADER);
	canvas_put(c, y++, 0, w, ST_HEADER, "Sort by");
	for (size_t i = 0; i < t->n_cols && y < y1; i++) {
		const struct top_column *col = &t->cols[i];
		uint8_t st;

		if (col->flags & TOP_COL_NOSORT)
			continue;
		st = (int)i == ui->menu_sel ? ST_SELECTED : ST_NORMAL;
		canvas_fill(c, y, 0, w, ' ', st);
		canvas_put(c, y, 1, w - 1, st, col->key);
		if ((int)i == t->sort)
			canvas_put(c, y, w - 2, 1, st, t->invert ? "^" : "v");
		y++;
	}
	for (int yy = y0; yy < y && yy < y1; yy++)
		canvas_put(c, yy, w, 1, ST_DIM, "|");
}

/* The help screen's lines, counted and drawn in one pass: line @n lands on screen
 * when it is inside the scrolled window. */
struct help_ctx {
	struct canvas *c;
	int n;			/* lines so far */
	int first, rows, y0;	/* the window: lines [first, first + rows) at y0 */
};

static void help_put(struct help_ctx *hc, int x, uint8_t style, const char *s, size_t len)
{
	int y = hc->n - hc->first;

	if (y >= 0 && y < hc->rows && len)
		canvas_putn(hc->c, hc->y0 + y, x, -1, style, s, len);
}

/*
 * @label at column 1, then @text from column @x wrapped at word boundaries to the
 * width (a word wider than the line is cut where it must be).
 */
static void help_entry(struct help_ctx *hc, const char *label, uint8_t label_style,
		       int x, const char *text)
{
	int room = hc->c->w - x;
	const char *p = text;

	if (label)
		help_put(hc, 1, label_style, label, strlen(label));
	if (room < 8) {
		/* too narrow to wrap sensibly: the text on the next line, from column 3 */
		if (label)
			hc->n++;
		x = 3;
		room = hc->c->w - x;
	}
	do {
		size_t fit = text_fit(p, room), len = fit;

		if (p[fit]) {
			/* back to the last blank that fits; none: cut the word */
			while (len > 0 && p[len] != ' ')
				len--;
			if (len == 0)
				len = fit;
		}
		help_put(hc, x, ST_NORMAL, p, len);
		hc->n++;
		p += len;
		while (*p == ' ')
			p++;
	} while (*p);
}

static void draw_help(struct canvas *c, struct top_ui *ui, const struct top_render_opts *o)
{
	size_t n, nc;
	const struct key_binding *b = keys_bindings(&n);
	const struct top_column *cols = top_columns(TOP_VIEW_MODULES, &nc);
	struct help_ctx hc = { .c = c, .y0 = 2, .rows = c->h - 3 };
	char buf[96];
	int total = 0;

	if (hc.rows < 1)
		hc.rows = 1;
	for (int pass = 0; pass < 2; pass++) {
		/* the first pass counts the lines, to clamp the scroll before drawing */
		hc.first = pass ? ui->help_scroll : 1 << 30;
		hc.n = 0;
		for (size_t i = 0; i < n; i++)
			if (b[i].label)
				help_entry(&hc, b[i].label, ST_KEY, 14, b[i].help);
		help_entry(&hc, NULL, 0, 1,
			   "Mouse: click a column header to sort, a row to select, a tab to "
			   "switch; the wheel scrolls.");
		hc.n++;
		help_put(&hc, 0, ST_BOLD, "Module columns (--sort-key)",
			 strlen("Module columns (--sort-key)"));
		hc.n++;
		for (size_t i = 0; i < nc; i++)
			help_entry(&hc, cols[i].key, ST_KEY, 14, cols[i].help);
		if (pass)
			break;
		total = hc.n;
		if (ui->help_scroll > total - hc.rows)
			ui->help_scroll = total - hc.rows;
		if (ui->help_scroll < 0)
			ui->help_scroll = 0;
		ui->help_page = hc.rows;
	}

	canvas_printf(c, 0, 0, -1, ST_TITLE, "%s: keys", o->program ? o->program : "kmodtop");
	if (total > hc.rows) {
		int last = ui->help_scroll + hc.rows;

		snprintf(buf, sizeof(buf), "lines %d-%d of %d", ui->help_scroll + 1,
			 last < total ? last : total, total);
		canvas_put_right(c, 0, c->w / 2, c->w - c->w / 2, ST_DIM, buf);
	}
	canvas_fill(c, c->h - 1, 0, c->w, ' ', ST_KEY_LABEL);
	canvas_put(c, c->h - 1, 0, -1, ST_KEY_LABEL,
		   total > hc.rows
			   ? "Up Down PgUp PgDn j k: scroll  F10: quit  any other key returns"
			   : "F10: quit  any other key returns");
}

int top_render_page(int h, const struct top_table *t)
{
	/* meters, tab bar, detail lines, column header, footer */
	int page = h - METER_LINES - 1 - (int)t->n_lines - 1 - 1;

	return page < 1 ? 1 : page;
}

void top_render(struct canvas *c, const struct top_model *m, struct top_ui *ui,
		const struct top_table *t, const struct top_render_opts *o,
		struct top_hitmap *ret_hit)
{
	struct top_hitmap hit = { .header_y = -1 };
	const struct top_header *h = top_model_header(m);
	int y, page, bottom;

	canvas_clear(c);
	if (ui->help) {
		draw_help(c, ui, o);
		if (ret_hit)
			*ret_hit = hit;
		return;
	}
	draw_meters(c, m, ui, o);
	y = METER_LINES;
	draw_tabs(c, m, ui, y++, &hit);
	for (size_t i = 0; i < t->n_lines && y < c->h - 2; i++)
		canvas_put(c, y++, 0, -1, t->line_styles[i], t->lines[i]);
	page = top_render_page(c->h, t);
	if (ui->page != page) {
		ui->page = page;
		top_ui_scroll(ui, t);
	}
	bottom = o->batch ? c->h : c->h - 1;
	draw_table(c, ui, t, h->s, y, bottom, &hit);
	if (ui->input == TOP_INPUT_SORT)
		draw_sort_menu(c, ui, t, y, bottom);
	if (!o->batch)
		draw_footer(c, ui, c->h - 1);
	if (ret_hit)
		*ret_hit = hit;
}

long top_hit_row(const struct top_hitmap *h, int y)
{
	if (h->header_y < 0 || y < h->rows_y || y >= h->rows_y + h->n_rows)
		return -1;
	return (long)h->first_row + (y - h->rows_y);
}

int top_hit_column(const struct top_hitmap *h, int y, int x)
{
	if (h->header_y < 0 || y != h->header_y)
		return -1;
	for (size_t k = 0; k < h->n_cols; k++)
		if (x >= h->col_x[k] && x < h->col_x[k] + h->col_w[k] + 1)
			return h->col_idx[k];
	return -1;
}

int top_hit_tab(const struct top_hitmap *h, int y, int x)
{
	if (y != h->tabs_y)
		return -1;
	for (int v = 0; v < _TOP_VIEW_TABS; v++)
		if (x >= h->tab_x[v] && x < h->tab_x[v + 1])
			return v;
	return -1;
}

/* A NaN or negative rate (unknown) is null, as "-" is in the text frame. */
static void batch_json_rate(struct out *j, const char *key, double v)
{
	if (v < 0 || isnan(v))
		out_null(j, key, NULL, NULL);
	else
		out_f64(j, key, NULL, v);
}

static int batch_json_rows(struct out *j, const struct top_table *t)
{
	_cleanup_free_ struct col_desc *cols = calloc(t->n_cols ? t->n_cols : 1, sizeof(*cols));
	struct table *tab = NULL;
	int r;

	if (!cols)
		return -ENOMEM;
	/* a column's kind is its values'; a sparkline is a drawing, left out */
	for (size_t k = 0; k < t->n_cols; k++) {
		cols[k] = (struct col_desc){ .header = t->cols[k].header,
					     .json_key = t->cols[k].key,
					     .kind = COL_STR };
		for (size_t i = 0; i < t->n_rows; i++) {
			enum top_val_kind vk = t->rows[i].vals[k].kind;

			if (vk == TV_NONE)
				continue;
			cols[k].kind = vk == TV_U64     ? COL_U64
				       : vk == TV_BYTES ? COL_BYTES
				       : vk == TV_TIME  ? COL_FLOAT
							: COL_STR;
			if (vk == TV_SPARK)
				cols[k].flags = COL_NOJSON;
			break;
		}
	}
	r = table_new(cols, t->n_cols, &tab);
	if (r < 0)
		return r;
	for (size_t i = 0; i < t->n_rows && r >= 0; i++) {
		size_t row;

		r = table_add_row(tab, &row);
		for (size_t k = 0; k < t->n_cols && r >= 0; k++) {
			const struct top_val *v = &t->rows[i].vals[k];
			char buf[64];

			switch (v->kind) {
			case TV_NONE:
			case TV_SPARK:
				break;
			case TV_STR:
				r = table_set_str(tab, row, k, v->s);
				break;
			case TV_U64:
			case TV_BYTES:
				if (cols[k].kind == COL_STR) {
					snprintf(buf, sizeof(buf), "%" PRIu64, v->u);
					r = table_set_str(tab, row, k, buf);
				} else {
					table_set_u64(tab, row, k, v->u);
				}
				break;
			case TV_TIME:
				if (cols[k].kind == COL_FLOAT)
					table_set_float(tab, row, k, v->d);
				else {
					snprintf(buf, sizeof(buf), "%.6f", v->d);
					r = table_set_str(tab, row, k, buf);
				}
				break;
			}
		}
	}
	if (r >= 0)
		out_table(j, "rows", NULL, tab);
	table_free(tab);
	return r;
}

int top_render_json(FILE *f, const struct top_model *m, const struct top_ui *ui,
		    const struct top_table *t, const struct top_render_opts *o)
{
	const struct top_header *h = top_model_header(m);
	const struct top_sample *s = h->s;
	struct out *j = NULL;
	int r;

	(void)o;
	r = out_new(OUT_JSON, false, f, &j);
	if (r < 0)
		return r;
	out_str(j, "kernel", NULL, s && s->release ? s->release : NULL);
	out_f64(j, "time", NULL, s ? s->now : NAN);
	if (s && s->replay) {
		out_section_begin(j, "replay", NULL);
		out_f64(j, "end", NULL, s->replay_end);
		out_f64(j, "speed", NULL, s->speed);
		out_str(j, "step", NULL, s->step);
		out_f64(j, "idle_skipped", NULL, s->skipped);
		out_bool(j, "finished", NULL, s->finished);
		out_section_end(j);
	}
	out_u64(j, "attempts", NULL, h->attempts);
	batch_json_rate(j, "attempts_per_s", h->attempts_per_s);
	out_u64(j, "failed", NULL, h->failed);
	out_u64(j, "duplicates", NULL, h->duplicates);
	out_u64(j, "unnamed", NULL, h->unnamed);
	out_u64(j, "lost_events", NULL, s ? s->lost_events : 0);
	if (h->has_est) {
		out_u64(j, "wasted_est_bytes", NULL, h->wasted_est);
		batch_json_rate(j, "wasted_est_bytes_per_s", h->wasted_est_per_s);
	} else {
		out_null(j, "wasted_est_bytes", NULL, NULL);
	}
	if (s && s->measured) {
		out_u64(j, "wasted_measured_bytes", NULL, h->wasted_meas);
		batch_json_rate(j, "wasted_measured_bytes_per_s", h->wasted_meas_per_s);
	} else {
		out_null(j, "wasted_measured_bytes", NULL, NULL);
	}
	if (s && s->has_vmalloc) {
		out_section_begin(j, "vmalloc", NULL);
		out_u64(j, "used_bytes", NULL, s->vmalloc_used);
		out_u64(j, "total_bytes", NULL, s->vmalloc_total);
		out_u64(j, "modules_bytes", NULL, s->vmalloc_modules);
		out_str(j, "from", NULL, s->vmalloc_from);
		out_section_end(j);
	}
	out_u64(j, "modules_loaded", NULL, h->n_present);
	out_str(j, "view", NULL, top_view_name(ui->view));
	out_u64(j, "rows_total", NULL, t->n_total);
	r = batch_json_rows(j, t);
	if (r < 0) {
		out_free(j);
		return r;
	}
	r = out_finish(j);
	out_free(j);
	return r;
}
