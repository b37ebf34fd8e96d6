/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <string.h>

#include "keys.h"

/* htop's keys where htop has one (htop.1: F1/h/?, F3 or /, F4 or \, F5/t, F6 or < >, ...) */
static const struct key_binding bindings[] = {
	{ TK_F(1), ACT_HELP, "F1 ? h", "this help" },
	{ '?', ACT_HELP, NULL, NULL },
	{ 'h', ACT_HELP, NULL, NULL },
	{ TK_F(3), ACT_SEARCH, "F3 /",
	  "search (F3 again: next match, Shift-F3: previous)" },
	{ '/', ACT_SEARCH, NULL, NULL },
	{ 'n', ACT_SEARCH_NEXT, "n", "next match of the last search" },
	{ 'N', ACT_SEARCH_PREV, "N Shift-F3", "previous match" },
	{ TK_SF3, ACT_SEARCH_PREV, NULL, NULL },
	{ TK_F(4), ACT_FILTER, "F4 \\", "filter: show only matching rows (a|b: either)" },
	{ '\\', ACT_FILTER, NULL, NULL },
	{ TK_TAB, ACT_NEXT_VIEW, "Tab",
	  "next view: modules, requesters, autoload, events" },
	{ TK_RIGHT, ACT_NEXT_VIEW, NULL, NULL },
	{ TK_BTAB, ACT_PREV_VIEW, "Shift-Tab", "previous view" },
	{ 't', ACT_TREE, "t F5", "tree: requester > module > attempts" },
	{ TK_F(5), ACT_TREE, NULL, NULL },
	{ TK_ENTER, ACT_DETAIL, "Enter", "the selected module's detail" },
	{ '+', ACT_EXPAND, "+",
	  "tree: show the earlier attempts of a \"... N earlier\" row (also Enter, Right)" },
	{ TK_ESC, ACT_BACK, "Esc Left",
	  "back from detail or tree; in a tab, clear the filter" },
	{ TK_LEFT, ACT_BACK, NULL, NULL },
	{ TK_F(6), ACT_SORT_MENU, "F6", "choose the sort column" },
	{ '<', ACT_SORT_PREV, "<", "sort by the previous column" },
	{ '>', ACT_SORT_NEXT, ">", "sort by the next column" },
	{ 'I', ACT_INVERT, "I", "invert the sort order" },
	{ 'Z', ACT_PAUSE, "Z space", "pause / resume updates" },
	{ ' ', ACT_PAUSE, NULL, NULL },
	{ TK_CTRL_L, ACT_REDRAW, "Ctrl-L", "redraw the screen" },
	{ TK_UP, ACT_UP, "Up k", "move the selection up" },
	{ 'k', ACT_UP, NULL, NULL },
	{ TK_DOWN, ACT_DOWN, "Down j", "move the selection down" },
	{ 'j', ACT_DOWN, NULL, NULL },
	{ TK_PGUP, ACT_PGUP, "PgUp", "a page up" },
	{ TK_PGDN, ACT_PGDN, "PgDn", "a page down" },
	{ TK_HOME, ACT_HOME, "Home", "first row" },
	{ TK_END, ACT_END, "End", "last row" },
	{ TK_F(10), ACT_QUIT, "F10 q", "quit" },
	{ 'q', ACT_QUIT, NULL, NULL },
};

const struct key_binding *keys_bindings(size_t *ret_n)
{
	*ret_n = sizeof(bindings) / sizeof(bindings[0]);
	return bindings;
}

enum top_action keys_lookup(int key)
{
	for (size_t i = 0; i < sizeof(bindings) / sizeof(bindings[0]); i++)
		if (bindings[i].key == key)
			return bindings[i].action;
	return ACT_NONE;
}

const char *keys_action_name(enum top_action a)
{
	static const char *const n[_ACT_MAX] = {
		[ACT_NONE] = "none",
		[ACT_QUIT] = "quit",
		[ACT_HELP] = "help",
		[ACT_SEARCH] = "search",
		[ACT_SEARCH_NEXT] = "search-next",
		[ACT_SEARCH_PREV] = "search-prev",
		[ACT_FILTER] = "filter",
		[ACT_SORT_MENU] = "sort-menu",
		[ACT_SORT_PREV] = "sort-prev",
		[ACT_SORT_NEXT] = "sort-next",
		[ACT_INVERT] = "invert",
		[ACT_PAUSE] = "pause",
		[ACT_REDRAW] = "redraw",
		[ACT_NEXT_VIEW] = "next-view",
		[ACT_PREV_VIEW] = "prev-view",
		[ACT_TREE] = "tree",
		[ACT_DETAIL] = "detail",
		[ACT_EXPAND] = "expand",
		[ACT_BACK] = "back",
		[ACT_UP] = "up",
		[ACT_DOWN] = "down",
		[ACT_PGUP] = "page-up",
		[ACT_PGDN] = "page-down",
		[ACT_HOME] = "home",
		[ACT_END] = "end",
		[ACT_INPUT_CHANGED] = "input-changed",
		[ACT_INPUT_DONE] = "input-done",
		[ACT_SORT_CHANGED] = "sort-changed",
		[ACT_VIEW_CHANGED] = "view-changed",
	};
	return a < _ACT_MAX ? n[a] : "?";
}

/* The sortable columns of a view, stepping from @from by @dir (wrapping). */
static int next_sortable(enum top_view v, int from, int dir)
{
	size_t n;
	const struct top_column *c = top_columns(v, &n);

	for (size_t k = 1; k <= n; k++) {
		int i = (int)(((long)from + (long)n * 2 + dir * (long)k) % (long)n);

		if (!(c[i].flags & TOP_COL_NOSORT))
			return i;
	}
	return from;
}

void keys_sort_by(struct top_ui *ui, int col)
{
	size_t n;
	const struct top_column *c = top_columns(ui->view, &n);

	if (col < 0 || (size_t)col >= n || (c[col].flags & TOP_COL_NOSORT))
		return;
	/* clicking the sort column again inverts it (htop) */
	if (ui->sort[ui->view] == col)
		ui->invert[ui->view] = !ui->invert[ui->view];
	else
		ui->sort[ui->view] = col;
}

static void utf8_backspace(struct top_ui *ui)
{
	while (ui->line_len > 0) {
		unsigned char c = (unsigned char)ui->line[--ui->line_len];

		if ((c & 0xc0) != 0x80)
			break;
	}
	ui->line[ui->line_len] = '\0';
}

static void utf8_append(struct top_ui *ui, int key)
{
	char buf[4];
	size_t n;
	unsigned int cp = (unsigned int)key;

	if (cp < 0x80) {
		buf[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		buf[0] = (char)(0xc0 | (cp >> 6));
		buf[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		buf[0] = (char)(0xe0 | (cp >> 12));
		buf[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		buf[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		buf[0] = (char)(0xf0 | (cp >> 18));
		buf[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		buf[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		buf[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	if (ui->line_len + n >= sizeof(ui->line))
		return;
	memcpy(ui->line + ui->line_len, buf, n);
	ui->line_len += n;
	ui->line[ui->line_len] = '\0';
}

static void sync_line(struct top_ui *ui)
{
	if (ui->input == TOP_INPUT_SEARCH)
		memcpy(ui->search, ui->line, sizeof(ui->search));
	else if (ui->input == TOP_INPUT_FILTER)
		memcpy(ui->filter, ui->line, sizeof(ui->filter));
}

static enum top_action handle_line(struct top_ui *ui, int key)
{
	switch (key) {
	case TK_ENTER:
		sync_line(ui);
		ui->input = TOP_INPUT_NONE;
		return ACT_INPUT_DONE;
	case TK_ESC:
		/* Esc drops a filter being edited (htop), and leaves a search where it is */
		if (ui->input == TOP_INPUT_FILTER)
			memcpy(ui->filter, ui->saved_filter, sizeof(ui->filter));
		ui->input = TOP_INPUT_NONE;
		return ACT_INPUT_DONE;
	case TK_BACKSPACE:
	case TK_DEL:
	case 8:
		utf8_backspace(ui);
		sync_line(ui);
		return ACT_INPUT_CHANGED;
	case TK_F(3):
		if (ui->input == TOP_INPUT_SEARCH)
			return ACT_SEARCH_NEXT;
		return ACT_NONE;
	case TK_SF3:
		if (ui->input == TOP_INPUT_SEARCH)
			return ACT_SEARCH_PREV;
		return ACT_NONE;
	case TK_F(4):
		if (ui->input == TOP_INPUT_FILTER) {
			sync_line(ui);
			ui->input = TOP_INPUT_NONE;
			return ACT_INPUT_DONE;
		}
		return ACT_NONE;
	case TK_UP:
		return ACT_UP;
	case TK_DOWN:
		return ACT_DOWN;
	case TK_F(10):
		ui->input = TOP_INPUT_NONE;
		ui->quit = true;
		return ACT_QUIT;
	}
	if (key >= 0x20 && key < TK_SPECIAL && key != TK_DEL) {
		utf8_append(ui, key);
		sync_line(ui);
		return ACT_INPUT_CHANGED;
	}
	return ACT_NONE;
}

static enum top_action handle_menu(struct top_ui *ui, int key)
{
	size_t n;
	const struct top_column *c = top_columns(ui->view, &n);

	(void)c;
	switch (key) {
	case TK_UP:
	case 'k':
		ui->menu_sel = next_sortable(ui->view, ui->menu_sel, -1);
		return ACT_NONE;
	case TK_DOWN:
	case 'j':
		ui->menu_sel = next_sortable(ui->view, ui->menu_sel, 1);
		return ACT_NONE;
	case TK_ENTER:
		ui->sort[ui->view] = ui->menu_sel;
		ui->input = TOP_INPUT_NONE;
		return ACT_SORT_CHANGED;
	case 'I':
		ui->invert[ui->view] = !ui->invert[ui->view];
		return ACT_SORT_CHANGED;
	case TK_ESC:
	case TK_F(6):
	case 'q':
		ui->input = TOP_INPUT_NONE;
		return ACT_INPUT_DONE;
	case TK_F(10):
		ui->input = TOP_INPUT_NONE;
		ui->quit = true;
		return ACT_QUIT;
	}
	return ACT_NONE;
}

static void open_line(struct top_ui *ui, enum top_input kind, const char *init)
{
	ui->input = kind;
	snprintf(ui->line, sizeof(ui->line), "%s", init);
	ui->line_len = strlen(ui->line);
}

static bool view_sortable(enum top_view v)
{
	return v != TOP_VIEW_TREE;
}

enum top_action keys_handle(struct top_ui *ui, int key)
{
	enum top_action a;

	if (ui->input == TOP_INPUT_SEARCH || ui->input == TOP_INPUT_FILTER)
		return handle_line(ui, key);
	if (ui->input == TOP_INPUT_SORT)
		return handle_menu(ui, key);
	if (ui->help) {
		int page = ui->help_page > 1 ? ui->help_page - 1 : 1;

		/* the help scrolls (the renderer clamps); F10 quits; any other key returns */
		switch (key) {
		case TK_UP:
		case 'k':
			ui->help_scroll--;
			return ACT_NONE;
		case TK_DOWN:
		case 'j':
			ui->help_scroll++;
			return ACT_NONE;
		case TK_PGUP:
			ui->help_scroll -= page;
			return ACT_NONE;
		case TK_PGDN:
			ui->help_scroll += page;
			return ACT_NONE;
		case TK_HOME:
			ui->help_scroll = 0;
			return ACT_NONE;
		case TK_END:
			ui->help_scroll = 1 << 20;
			return ACT_NONE;
		case TK_F(10):
			ui->help = false;
			ui->quit = true;
			return ACT_QUIT;
		}
		ui->help = false;
		return ACT_VIEW_CHANGED;
	}

	/* in the tree, Right opens a row as in a file manager, not the next tab */
	if (ui->view == TOP_VIEW_TREE && key == TK_RIGHT)
		return ACT_EXPAND;
	a = keys_lookup(key);
	switch (a) {
	case ACT_QUIT:
		ui->quit = true;
		return ACT_QUIT;
	case ACT_HELP:
		ui->help = true;
		ui->help_scroll = 0;
		return ACT_VIEW_CHANGED;
	case ACT_SEARCH:
		/* F3 with a search running finds the next match (htop) */
		if (key == TK_F(3) && ui->search[0] && ui->input == TOP_INPUT_NONE) {
			open_line(ui, TOP_INPUT_SEARCH, ui->search);
			return ACT_SEARCH_NEXT;
		}
		open_line(ui, TOP_INPUT_SEARCH, "");
		ui->search[0] = '\0';
		ui->search_failed = false;
		return ACT_INPUT_CHANGED;
	case ACT_FILTER:
		memcpy(ui->saved_filter, ui->filter, sizeof(ui->filter));
		open_line(ui, TOP_INPUT_FILTER, ui->filter);
		return ACT_INPUT_CHANGED;
	case ACT_SORT_MENU:
		if (!view_sortable(ui->view))
			return ACT_NONE;
		ui->input = TOP_INPUT_SORT;
		ui->menu_sel = ui->sort[ui->view];
		if (ui->menu_sel < 0)
			ui->menu_sel = next_sortable(ui->view, 0, 1);
		return ACT_VIEW_CHANGED;
	case ACT_SORT_PREV:
	case ACT_SORT_NEXT:
		if (!view_sortable(ui->view))
			return ACT_NONE;
		ui->sort[ui->view] = next_sortable(
			ui->view, ui->sort[ui->view] < 0 ? 0 : ui->sort[ui->view],
			a == ACT_SORT_NEXT ? 1 : -1);
		return ACT_SORT_CHANGED;
	case ACT_INVERT:
		if (!view_sortable(ui->view))
			return ACT_NONE;
		ui->invert[ui->view] = !ui->invert[ui->view];
		return ACT_SORT_CHANGED;
	case ACT_PAUSE:
		ui->paused = !ui->paused;
		return ACT_PAUSE;
	case ACT_REDRAW:
		ui->redraw = true;
		return ACT_REDRAW;
	case ACT_NEXT_VIEW:
	case ACT_PREV_VIEW: {
		int step = a == ACT_NEXT_VIEW ? 1 : _TOP_VIEW_TABS - 1;
		enum top_view from = ui->view < _TOP_VIEW_TABS ? ui->view : ui->tab;

		ui->view = (enum top_view)((from + step) % _TOP_VIEW_TABS);
		ui->tab = ui->view;
		return ACT_VIEW_CHANGED;
	}
	case ACT_TREE:
		if (ui->view == TOP_VIEW_TREE) {
			ui->view = ui->tab;
		} else {
			if (ui->view < _TOP_VIEW_TABS)
				ui->tab = ui->view;
			ui->view = TOP_VIEW_TREE;
		}
		return ACT_VIEW_CHANGED;
	case ACT_BACK:
		if (ui->view == TOP_VIEW_DETAIL || ui->view == TOP_VIEW_TREE) {
			ui->view = ui->tab;
			return ACT_VIEW_CHANGED;
		}
		/* Esc in a tab clears the filter */
		if (ui->filter[0] && key == TK_ESC) {
			ui->filter[0] = '\0';
			return ACT_INPUT_CHANGED;
		}
		return ACT_NONE;
	default:
		return a;
	}
}
