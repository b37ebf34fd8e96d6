/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>

#include "canvas.h"

/*
 * The terminal, through ncursesw; the only file that includes curses. It shows
 * canvases and reads keys. Every way out restores the terminal: term_done(), an
 * atexit() handler, and for fatal signals an async-signal-safe reset (saved termios,
 * the terminal's own rmcup/cnorm/sgr0 strings, mouse reporting off).
 */

struct term_opts {
	bool color;
	bool mouse;
	bool unicode;
};

enum term_button {
	TERM_BUTTON_NONE,
	TERM_BUTTON_LEFT,
	TERM_BUTTON_WHEEL_UP,
	TERM_BUTTON_WHEEL_DOWN,
};

struct term_mouse {
	int x, y;
	enum term_button button;
	bool double_click;
};

/*
 * Can curses drive the terminal that TERM names? 0, -ENOENT when terminfo does not know
 * it, -ENOTSUP when it cannot move the cursor or clear the screen (TERM=dumb).
 */
int term_check(void);
/* Starts curses on the controlling terminal (stdin/stdout). 0 or -errno. */
int term_init(const struct term_opts *o);
/* Restores the terminal. Safe to call more than once. */
void term_done(void);
/* Is the locale's character set UTF-8 (call after setlocale())? */
bool term_locale_utf8(void);

int term_input_fd(void);
void term_size(int *ret_w, int *ret_h);
/* After SIGWINCH: asks the terminal its size and resizes curses. */
void term_resize(void);
/* Shows @c; @full repaints every cell (Ctrl-L). */
void term_blit(const struct canvas *c, bool full);
/*
 * Reads one pending key without waiting: 1 with *ret_key (keys.h codes; TK_MOUSE fills
 * *ret_mouse), 0 when none is pending.
 */
int term_read_key(int *ret_key, struct term_mouse *ret_mouse);
