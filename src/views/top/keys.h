/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

/*
 * Keys to actions (htop's Action.c): one table that also writes the help screen.
 * Key codes are terminal-independent; term-curses.c translates curses' KEY_* to them.
 * Characters are their code points (Tab 9, Enter 10, Esc 27, Ctrl-L 12).
 */
enum {
	TK_NONE = 0,
	TK_TAB = 9,
	TK_ENTER = 10,
	TK_CTRL_L = 12,
	TK_ESC = 27,
	TK_DEL = 127,
	TK_SPECIAL = 0x110000,
	TK_UP,
	TK_DOWN,
	TK_LEFT,
	TK_RIGHT,
	TK_PGUP,
	TK_PGDN,
	TK_HOME,
	TK_END,
	TK_BTAB,		/* Shift-Tab */
	TK_BACKSPACE,
	TK_DC,			/* the Delete key */
	TK_RESIZE,
	TK_MOUSE,
	TK_SF3,			/* Shift-F3 */
	TK_F0 = 0x110100,
};
#define TK_F(n) (TK_F0 + (n))

enum top_action {
	ACT_NONE,
	ACT_QUIT,
	ACT_HELP,
	ACT_SEARCH,
	ACT_SEARCH_NEXT,
	ACT_SEARCH_PREV,
	ACT_FILTER,
	ACT_SORT_MENU,
	ACT_SORT_PREV,
	ACT_SORT_NEXT,
	ACT_INVERT,
	ACT_PAUSE,
	ACT_REDRAW,
	ACT_NEXT_VIEW,
	ACT_PREV_VIEW,
	ACT_TREE,
	ACT_DETAIL,
	ACT_EXPAND,		/* tree: the earlier attempts of a "... N earlier" row */
	ACT_BACK,
	ACT_UP,
	ACT_DOWN,
	ACT_PGUP,
	ACT_PGDN,
	ACT_HOME,
	ACT_END,
	/* results of keys_handle() for the caller */
	ACT_INPUT_CHANGED,	/* the search/filter line changed: re-search, re-filter */
	ACT_INPUT_DONE,		/* Enter or Esc closed the line */
	ACT_SORT_CHANGED,
	ACT_VIEW_CHANGED,
	_ACT_MAX,
};

struct key_binding {
	int key;
	enum top_action action;
	const char *label;	/* for the help screen, once per action: "F1 ? h" */
	const char *help;
};

/* The normal-mode bindings, in help-screen order. */
const struct key_binding *keys_bindings(size_t *ret_n);
/* The action of @key outside of input lines and menus, or ACT_NONE. */
enum top_action keys_lookup(int key);
const char *keys_action_name(enum top_action a);

/*
 * Handles one key: edits the search/filter line or the sort menu when one is open,
 * and applies the actions that need only the UI state (views, sort, pause, quit).
 * Returns what the caller still has to do: move the selection, search, open a detail
 * (ACT_UP ... ACT_DETAIL, ACT_SEARCH_NEXT), or what changed (ACT_INPUT_CHANGED, ...).
 */
enum top_action keys_handle(struct top_ui *ui, int key);

/* Sets the sort column of the current view from a header click. */
void keys_sort_by(struct top_ui *ui, int col);
