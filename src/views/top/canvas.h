/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * A screen of cells (htop's RichString, for a whole frame): render.c draws into it, and
 * only term-curses.c turns it into curses calls, so frames are testable as text.
 * Styles are roles, not colours: the terminal maps each to colours or, without colour,
 * to bold/reverse/underline.
 */
enum canvas_style {
	ST_NORMAL,
	ST_BOLD,
	ST_DIM,
	ST_TITLE,		/* the program line */
	ST_LABEL,		/* meter labels */
	ST_VALUE,		/* meter values */
	ST_BAR,			/* the filled part of a meter bar */
	ST_TAB,
	ST_TAB_ACTIVE,
	ST_HEADER,		/* table header */
	ST_HEADER_SORT,		/* the sort column's header */
	ST_SELECTED,		/* the selected row */
	ST_CHANGED,		/* a row that changed since the previous refresh */
	ST_WARN,		/* duplicates, lost events */
	ST_BAD,			/* failures */
	ST_GOOD,		/* loaded */
	ST_KEY,			/* function key in the bottom bar */
	ST_KEY_LABEL,
	ST_INPUT,		/* the search/filter line */
	ST_MATCH,		/* search match */
	_ST_MAX,
};

struct canvas_cell {
	uint32_t ch;		/* a code point; 0 marks the right half of a wide character */
	uint8_t style;
};

struct canvas {
	int w, h;
	bool unicode;		/* false: everything past ASCII is drawn as '?' */
	struct canvas_cell *cells;
};

int canvas_init(struct canvas *c, int w, int h, bool unicode);
void canvas_done(struct canvas *c);
/* Resizes (contents are lost). 0 or -ENOMEM. */
int canvas_resize(struct canvas *c, int w, int h);
void canvas_clear(struct canvas *c);

/*
 * Writes UTF-8 text at (y, x), at most @maxw columns (negative: to the right edge).
 * Bytes that are not valid UTF-8 become U+FFFD; callers escape kernel strings first.
 * Returns the columns written.
 */
int canvas_put(struct canvas *c, int y, int x, int maxw, uint8_t style, const char *s);
int canvas_putn(struct canvas *c, int y, int x, int maxw, uint8_t style, const char *s,
		size_t len);
/* Right-aligned in [x, x + w). */
int canvas_put_right(struct canvas *c, int y, int x, int w, uint8_t style, const char *s);
int canvas_printf(struct canvas *c, int y, int x, int maxw, uint8_t style, const char *fmt,
		  ...) __attribute__((format(printf, 6, 7)));
void canvas_fill(struct canvas *c, int y, int x, int n, uint32_t ch, uint8_t style);
/* Sets the style of @n cells from (y, x), keeping their characters. */
void canvas_restyle(struct canvas *c, int y, int x, int n, uint8_t style);
const struct canvas_cell *canvas_row(const struct canvas *c, int y);

/* Columns @s takes on screen (wide characters count 2). */
int text_width(const char *s);
/* Bytes of @s that fit in @cols columns. */
size_t text_fit(const char *s, int cols);

/* One line per row, trailing blanks removed: golden frames, --batch. 0 or -errno. */
int canvas_to_text(const struct canvas *c, FILE *f);
/* As canvas_to_text(), each style as its SGR colour sequence (--batch --color). */
int canvas_to_sgr_text(const struct canvas *c, FILE *f);
/* The text of row @y into @buf (UTF-8), trailing blanks removed; for tests. */
size_t canvas_row_text(const struct canvas *c, int y, char *buf, size_t bufsz);
