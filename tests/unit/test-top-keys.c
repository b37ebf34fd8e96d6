/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "views/top/keys.h"
#include "views/top/model.h"

static void type(struct top_ui *ui, const char *s)
{
	for (; *s; s++)
		keys_handle(ui, (unsigned char)*s);
}

/* The keys htop users know (htop.1), and ours. */
static void test_lookup(void **state)
{
	static const struct {
		int key;
		enum top_action a;
	} want[] = {
		{ TK_F(1), ACT_HELP },	   { '?', ACT_HELP },
		{ 'h', ACT_HELP },	   { TK_F(3), ACT_SEARCH },
		{ '/', ACT_SEARCH },	   { TK_F(4), ACT_FILTER },
		{ '\\', ACT_FILTER },	   { TK_F(6), ACT_SORT_MENU },
		{ '<', ACT_SORT_PREV },	   { '>', ACT_SORT_NEXT },
		{ 'I', ACT_INVERT },	   { 'Z', ACT_PAUSE },
		{ ' ', ACT_PAUSE },	   { TK_CTRL_L, ACT_REDRAW },
		{ TK_F(10), ACT_QUIT },	   { 'q', ACT_QUIT },
		{ TK_TAB, ACT_NEXT_VIEW }, { TK_BTAB, ACT_PREV_VIEW },
		{ 't', ACT_TREE },	   { TK_F(5), ACT_TREE },
		{ TK_ENTER, ACT_DETAIL },  { TK_ESC, ACT_BACK },
		{ TK_UP, ACT_UP },	   { TK_DOWN, ACT_DOWN },
		{ TK_PGUP, ACT_PGUP },	   { TK_PGDN, ACT_PGDN },
		{ TK_HOME, ACT_HOME },	   { TK_END, ACT_END },
		{ 'x', ACT_NONE },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		if (keys_lookup(want[i].key) != want[i].a)
			fail_msg("key %#x: %s, want %s", want[i].key,
				 keys_action_name(keys_lookup(want[i].key)),
				 keys_action_name(want[i].a));
	}
}

/*
 * The help screen is the table: every action a key has is described, and a key
 * without a line of its own is named by the line above it (an alias: "F1 ? h").
 */
static void test_help_covers_bindings(void **state)
{
	size_t n;
	const struct key_binding *b = keys_bindings(&n);
	const struct key_binding *line = NULL;

	(void)state;
	assert_non_null(b[0].label);
	for (size_t i = 0; i < n; i++) {
		bool described = false;

		for (size_t k = 0; k < n && !described; k++)
			described = b[k].action == b[i].action && b[k].label && b[k].help;
		if (!described)
			fail_msg("action %s has no help line",
				 keys_action_name(b[i].action));
		if (b[i].label) {
			line = &b[i];
		} else {
			assert_int_equal(line->action, b[i].action);
			if (b[i].key > ' ' && b[i].key < 0x7f &&
			    !strchr(line->label, b[i].key))
				fail_msg("key '%c' is not named in its help line",
					 b[i].key);
		}
		/* no key is bound twice */
		for (size_t k = i + 1; k < n; k++)
			assert_int_not_equal(b[i].key, b[k].key);
	}
}

static void test_views(void **state)
{
	struct top_ui ui;

	(void)state;
	top_ui_init(&ui);
	assert_int_equal(keys_handle(&ui, TK_TAB), ACT_VIEW_CHANGED);
	assert_int_equal(ui.view, TOP_VIEW_REQUESTERS);
	keys_handle(&ui, TK_TAB);
	assert_int_equal(ui.view, TOP_VIEW_AUTOLOAD);
	keys_handle(&ui, TK_TAB);
	assert_int_equal(ui.view, TOP_VIEW_EVENTS);
	keys_handle(&ui, TK_TAB);
	assert_int_equal(ui.view, TOP_VIEW_MODULES);
	keys_handle(&ui, TK_BTAB);
	assert_int_equal(ui.view, TOP_VIEW_EVENTS);

	/* t: the tree, and back to the tab it came from */
	keys_handle(&ui, 't');
	assert_int_equal(ui.view, TOP_VIEW_TREE);
	keys_handle(&ui, 't');
	assert_int_equal(ui.view, TOP_VIEW_EVENTS);
	keys_handle(&ui, 't');
	assert_int_equal(keys_handle(&ui, TK_ESC), ACT_VIEW_CHANGED);
	assert_int_equal(ui.view, TOP_VIEW_EVENTS);
	/* Tab from the tree goes on from its tab */
	keys_handle(&ui, 't');
	keys_handle(&ui, TK_TAB);
	assert_int_equal(ui.view, TOP_VIEW_MODULES);

	/* Enter is for the caller, which has the rows */
	assert_int_equal(keys_handle(&ui, TK_ENTER), ACT_DETAIL);
	assert_int_equal(keys_handle(&ui, TK_DOWN), ACT_DOWN);
}

static void test_search_line(void **state)
{
	struct top_ui ui;

	(void)state;
	top_ui_init(&ui);
	assert_int_equal(keys_handle(&ui, '/'), ACT_INPUT_CHANGED);
	assert_int_equal(ui.input, TOP_INPUT_SEARCH);
	/* while typing, keys are text: q does not quit, t is no tree */
	type(&ui, "xqt");
	assert_false(ui.quit);
	assert_int_equal(ui.view, TOP_VIEW_MODULES);
	assert_string_equal(ui.search, "xqt");
	assert_int_equal(keys_handle(&ui, TK_BACKSPACE), ACT_INPUT_CHANGED);
	assert_int_equal(keys_handle(&ui, TK_DEL), ACT_INPUT_CHANGED);
	assert_string_equal(ui.search, "x");
	type(&ui, "fs");
	assert_int_equal(keys_handle(&ui, TK_F(3)), ACT_SEARCH_NEXT);
	assert_int_equal(keys_handle(&ui, TK_ENTER), ACT_INPUT_DONE);
	assert_int_equal(ui.input, TOP_INPUT_NONE);
	assert_string_equal(ui.search, "xfs");
	/* F3 again: the next match of the same search */
	assert_int_equal(keys_handle(&ui, TK_F(3)), ACT_SEARCH_NEXT);
	keys_handle(&ui, TK_ESC);
	assert_int_equal(keys_handle(&ui, 'n'), ACT_SEARCH_NEXT);
	assert_int_equal(keys_handle(&ui, 'N'), ACT_SEARCH_PREV);

	/* UTF-8 in, whole characters out */
	keys_handle(&ui, '/');
	keys_handle(&ui, 0xe9);
	assert_string_equal(ui.search, "\xc3\xa9");
	keys_handle(&ui, TK_BACKSPACE);
	assert_string_equal(ui.search, "");
	keys_handle(&ui, TK_ENTER);
	/* a full line takes no more */
	keys_handle(&ui, '/');
	for (int i = 0; i < 300; i++)
		keys_handle(&ui, 'a');
	assert_true(strlen(ui.search) < TOP_LINE_MAX);
}

static void test_filter_line(void **state)
{
	struct top_ui ui;

	(void)state;
	top_ui_init(&ui);
	keys_handle(&ui, '\\');
	type(&ui, "sctp");
	assert_string_equal(ui.filter, "sctp"); /* applied while typing */
	keys_handle(&ui, TK_ENTER);
	assert_string_equal(ui.filter, "sctp");
	/* editing starts from the filter; Esc puts the old one back */
	keys_handle(&ui, TK_F(4));
	assert_string_equal(ui.line, "sctp");
	type(&ui, "|xfs");
	assert_string_equal(ui.filter, "sctp|xfs");
	keys_handle(&ui, TK_ESC);
	assert_string_equal(ui.filter, "sctp");
	/* Esc outside the line clears it */
	assert_int_equal(keys_handle(&ui, TK_ESC), ACT_INPUT_CHANGED);
	assert_string_equal(ui.filter, "");
}

static void test_sort(void **state)
{
	struct top_ui ui;
	size_t n;
	int start;

	(void)state;
	top_ui_init(&ui);
	top_columns(TOP_VIEW_MODULES, &n);
	start = ui.sort[TOP_VIEW_MODULES];
	assert_int_equal(start, top_column_find(TOP_VIEW_MODULES, "wasted"));
	assert_int_equal(keys_handle(&ui, '>'), ACT_SORT_CHANGED);
	assert_int_equal(ui.sort[TOP_VIEW_MODULES], start + 1);
	keys_handle(&ui, '<');
	assert_int_equal(ui.sort[TOP_VIEW_MODULES], start);
	/* around the end and back */
	for (size_t i = 0; i < n; i++)
		keys_handle(&ui, '>');
	assert_int_equal(ui.sort[TOP_VIEW_MODULES], start);
	assert_int_equal(keys_handle(&ui, 'I'), ACT_SORT_CHANGED);
	assert_true(ui.invert[TOP_VIEW_MODULES]);
	keys_handle(&ui, 'I');
	assert_false(ui.invert[TOP_VIEW_MODULES]);

	/* F6: a menu; Down, Enter */
	keys_handle(&ui, TK_F(6));
	assert_int_equal(ui.input, TOP_INPUT_SORT);
	assert_int_equal(ui.menu_sel, start);
	keys_handle(&ui, TK_DOWN);
	assert_int_equal(keys_handle(&ui, TK_ENTER), ACT_SORT_CHANGED);
	assert_int_equal(ui.input, TOP_INPUT_NONE);
	assert_int_equal(ui.sort[TOP_VIEW_MODULES], start + 1);
	/* Esc leaves the menu without a change */
	keys_handle(&ui, TK_F(6));
	keys_handle(&ui, TK_DOWN);
	keys_handle(&ui, TK_ESC);
	assert_int_equal(ui.sort[TOP_VIEW_MODULES], start + 1);

	/* a header click: that column; the same one again inverts */
	keys_sort_by(&ui, 0);
	assert_int_equal(ui.sort[TOP_VIEW_MODULES], 0);
	assert_false(ui.invert[TOP_VIEW_MODULES]);
	keys_sort_by(&ui, 0);
	assert_true(ui.invert[TOP_VIEW_MODULES]);
	keys_sort_by(&ui, 999);
	assert_int_equal(ui.sort[TOP_VIEW_MODULES], 0);

	/* every view sorts by its own column */
	keys_handle(&ui, TK_TAB);
	keys_handle(&ui, '>');
	assert_int_equal(ui.sort[TOP_VIEW_MODULES], 0);
	/* the tree has a fixed order */
	keys_handle(&ui, 't');
	assert_int_equal(keys_handle(&ui, '>'), ACT_NONE);
	assert_int_equal(keys_handle(&ui, TK_F(6)), ACT_NONE);
}

static void test_pause_help_quit(void **state)
{
	struct top_ui ui;

	(void)state;
	top_ui_init(&ui);
	assert_int_equal(keys_handle(&ui, 'Z'), ACT_PAUSE);
	assert_true(ui.paused);
	keys_handle(&ui, ' ');
	assert_false(ui.paused);
	assert_int_equal(keys_handle(&ui, TK_CTRL_L), ACT_REDRAW);
	assert_true(ui.redraw);

	keys_handle(&ui, '?');
	assert_true(ui.help);
	/* any key leaves the help; it does nothing else */
	assert_int_equal(keys_handle(&ui, 't'), ACT_VIEW_CHANGED);
	assert_false(ui.help);
	assert_int_equal(ui.view, TOP_VIEW_MODULES);
	/* in the help, q returns as the screen says, the arrows scroll, F10 quits */
	keys_handle(&ui, TK_F(1));
	assert_int_equal(keys_handle(&ui, 'q'), ACT_VIEW_CHANGED);
	assert_false(ui.help);
	assert_false(ui.quit);
	keys_handle(&ui, '?');
	assert_int_equal(ui.help_scroll, 0);
	ui.help_page = 10;
	assert_int_equal(keys_handle(&ui, TK_DOWN), ACT_NONE);
	assert_int_equal(keys_handle(&ui, 'j'), ACT_NONE);
	assert_int_equal(ui.help_scroll, 2);
	keys_handle(&ui, 'k');
	assert_int_equal(ui.help_scroll, 1);
	keys_handle(&ui, TK_PGDN);
	assert_int_equal(ui.help_scroll, 10);
	keys_handle(&ui, TK_PGUP);
	assert_int_equal(ui.help_scroll, 1);
	assert_true(ui.help);
	assert_int_equal(keys_handle(&ui, TK_F(10)), ACT_QUIT);
	assert_true(ui.quit);

	top_ui_init(&ui);
	assert_int_equal(keys_handle(&ui, TK_F(10)), ACT_QUIT);
	assert_true(ui.quit);
	/* F10 quits from a search line too */
	top_ui_init(&ui);
	keys_handle(&ui, '/');
	assert_int_equal(keys_handle(&ui, TK_F(10)), ACT_QUIT);
	assert_true(ui.quit);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_help_covers_bindings),
		cmocka_unit_test(test_views),
		cmocka_unit_test(test_search_line),
		cmocka_unit_test(test_filter_line),
		cmocka_unit_test(test_sort),
		cmocka_unit_test(test_pause_help_quit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
