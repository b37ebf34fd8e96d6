/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "canvas.h"
#include "util/escape.h"

#define REPLACEMENT 0xfffd

int canvas_init(struct canvas *c, int w, int h, bool unicode)
{
	memset(c, 0, sizeof(*c));
	c->unicode = unicode;
	return canvas_resize(c, w, h);
}

void canvas_done(struct canvas *c)
{
	free(c->cells);
	c->cells = NULL;
	c->w = c->h = 0;
}

int canvas_resize(struct canvas *c, int w, int h)
{
	struct canvas_cell *n;

	if (w < 1)
		w = 1;
	if (h < 1)
		h = 1;
	n = calloc((size_t)w * (size_t)h, sizeof(*n));
	if (!n)
		return -ENOMEM;
	free(c->cells);
	c->cells = n;
	c->w = w;
	c->h = h;
	canvas_clear(c);
	return 0;
}

void canvas_clear(struct canvas *c)
{
	for (size_t i = 0; i < (size_t)c->w * (size_t)c->h; i++)
		c->cells[i] = (struct canvas_cell){ ' ', ST_NORMAL };
}

const struct canvas_cell *canvas_row(const struct canvas *c, int y)
{
	return &c->cells[(size_t)y * (size_t)c->w];
}

/* Decodes one code point; a byte that starts no valid sequence yields REPLACEMENT. */
static size_t utf8_next(const unsigned char *s, size_t left, uint32_t *ret)
{
	size_t n = utf8_decode(s, left, ret);

	if (n)
		return n;
	*ret = REPLACEMENT;
	return 1;
}

/*
 * Columns of one code point, the same on every machine (not the locale's wcwidth(), so
 * golden frames do not depend on it): 2 for East Asian wide ranges and emoji, 0 for
 * what a cell cannot hold (combining marks, controls; drawn as U+FFFD), else 1.
 */
static int cp_width(uint32_t cp)
{
	static const uint32_t wide[][2] = {
		{ 0x1100, 0x115f },   { 0x2e80, 0x303e },   { 0x3041, 0x33ff },
		{ 0x3400, 0x4dbf },   { 0x4e00, 0x9fff },   { 0xa000, 0xa4cf },
		{ 0xac00, 0xd7a3 },   { 0xf900, 0xfaff },   { 0xfe30, 0xfe4f },
		{ 0xff00, 0xff60 },   { 0xffe0, 0xffe6 },   { 0x1f300, 0x1f64f },
		{ 0x1f900, 0x1f9ff }, { 0x20000, 0x2fffd }, { 0x30000, 0x3fffd },
	};
	static const uint32_t zero[][2] = {
		{ 0x0300, 0x036f }, { 0x0483, 0x0489 }, { 0x0591, 0x05bd },
		{ 0x1ab0, 0x1aff }, { 0x1dc0, 0x1dff }, { 0x200b, 0x200f },
		{ 0x20d0, 0x20ff }, { 0xfe00, 0xfe0f }, { 0xfe20, 0xfe2f },
		{ 0xfeff, 0xfeff },
	};

	if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0))
		return 0;
	if (cp < 0x300)
		return 1;
	for (size_t i = 0; i < sizeof(zero) / sizeof(zero[0]); i++)
		if (cp >= zero[i][0] && cp <= zero[i][1])
			return 0;
	for (size_t i = 0; i < sizeof(wide) / sizeof(wide[0]); i++)
		if (cp >= wide[i][0] && cp <= wide[i][1])
			return 2;
	return 1;
}

int text_width(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len = strlen(s), i = 0;
	int w = 0;

	while (i < len) {
		uint32_t cp;
		int cw;

		i += utf8_next(u + i, len - i, &cp);
		cw = cp_width(cp);
		w += cw ? cw : 1;
	}
	return w;
}

size_t text_fit(const char *s, int cols)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len = strlen(s), i = 0;
	int w = 0;

	while (i < len) {
		uint32_t cp;
		size_t n = utf8_next(u + i, len - i, &cp);
		int cw = cp_width(cp);

		if (!cw)
			cw = 1;
		if (w + cw > cols)
			break;
		w += cw;
		i += n;
	}
	return i;
}

int canvas_putn(struct canvas *c, int y, int x, int maxw, uint8_t style, const char *s,
		size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	int col = x, end;

	if (y < 0 || y >= c->h || x >= c->w)
		return 0;
	end = maxw < 0 || x + maxw > c->w ? c->w : x + maxw;
	while (i < len && col < end) {
		struct canvas_cell *cell;
		uint32_t cp;
		int cw;

		i += utf8_next(u + i, len - i, &cp);
		cw = cp_width(cp);
		if (!cw) {
			cp = REPLACEMENT;
			cw = 1;
		}
		if (!c->unicode && cp >= 0x80) {
			cp = '?';
			cw = 1;
		}
		if (col + cw > end)
			break;
		if (col < 0) {
			col += cw;
			continue;
		}
		cell = &c->cells[(size_t)y * (size_t)c->w + (size_t)col];
		cell[0] = (struct canvas_cell){ cp, style };
		if (cw == 2)
			cell[1] = (struct canvas_cell){ 0, style };
		col += cw;
	}
	return col - x;
}

int canvas_put(struct canvas *c, int y, int x, int maxw, uint8_t style, const char *s)
{
	return canvas_putn(c, y, x, maxw, style, s, strlen(s));
}

int canvas_put_right(struct canvas *c, int y, int x, int w, uint8_t style, const char *s)
{
	int tw = text_width(s);

	if (tw >= w)
		return canvas_put(c, y, x, w, style, s);
	return canvas_put(c, y, x + w - tw, tw, style, s);
}

int canvas_printf(struct canvas *c, int y, int x, int maxw, uint8_t style,
		  const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return canvas_put(c, y, x, maxw, style, buf);
}

void canvas_fill(struct canvas *c, int y, int x, int n, uint32_t ch, uint8_t style)
{
	if (y < 0 || y >= c->h)
		return;
	if (!c->unicode && ch >= 0x80)
		ch = '-';
	for (int i = x < 0 ? 0 : x; i < x + n && i < c->w; i++)
		c->cells[(size_t)y * (size_t)c->w + (size_t)i] =
			(struct canvas_cell){ ch, style };
}

void canvas_restyle(struct canvas *c, int y, int x, int n, uint8_t style)
{
	if (y < 0 || y >= c->h)
		return;
	for (int i = x < 0 ? 0 : x; i < x + n && i < c->w; i++)
		c->cells[(size_t)y * (size_t)c->w + (size_t)i].style = style;
}

static size_t put_utf8(uint32_t cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

size_t canvas_row_text(const struct canvas *c, int y, char *buf, size_t bufsz)
{
	const struct canvas_cell *row;
	size_t n = 0, keep = 0;

	if (!bufsz)
		return 0;
	if (y < 0 || y >= c->h) {
		buf[0] = '\0';
		return 0;
	}
	row = canvas_row(c, y);
	for (int x = 0; x < c->w; x++) {
		char tmp[4];
		size_t k;

		if (!row[x].ch)
			continue;
		k = put_utf8(row[x].ch, tmp);
		if (n + k + 1 > bufsz)
			break;
		memcpy(buf + n, tmp, k);
		n += k;
		if (row[x].ch != ' ')
			keep = n;
	}
	buf[keep] = '\0';
	return keep;
}

int canvas_to_text(const struct canvas *c, FILE *f)
{
	size_t bufsz = (size_t)c->w * 4 + 1;
	char *buf = malloc(bufsz);

	if (!buf)
		return -ENOMEM;
	for (int y = 0; y < c->h; y++) {
		canvas_row_text(c, y, buf, bufsz);
		if (fputs(buf, f) == EOF || fputc('\n', f) == EOF) {
			/* EPIPE: the reader is gone (SIGPIPE ignored); EIO: the terminal */
			int r = errno ? -errno : -EIO;

			free(buf);
			return r;
		}
	}
	free(buf);
	return ferror(f) ? -EIO : 0;
}

/* SGR parameters per style: the colours term-curses.c gives the same roles */
static const char *const style_sgr[_ST_MAX] = {
	[ST_NORMAL] = "",	    [ST_BOLD] = "1",	       [ST_DIM] = "1;34",
	[ST_TITLE] = "1;36",	    [ST_LABEL] = "36",	       [ST_VALUE] = "1",
	[ST_BAR] = "1;32",	    [ST_TAB] = "37;44",	       [ST_TAB_ACTIVE] = "1;30;46",
	[ST_HEADER] = "30;42",	    [ST_HEADER_SORT] = "1;30;46", [ST_SELECTED] = "30;46",
	[ST_CHANGED] = "1;35",	    [ST_WARN] = "1;33",	       [ST_BAD] = "1;31",
	[ST_GOOD] = "32",	    [ST_KEY] = "1;37;40",      [ST_KEY_LABEL] = "30;46",
	[ST_INPUT] = "30;43",	    [ST_MATCH] = "1;30;43",
};

static const char *sgr_of(uint8_t style)
{
	return style < _ST_MAX && style_sgr[style] ? style_sgr[style] : "";
}

int canvas_to_sgr_text(const struct canvas *c, FILE *f)
{
	for (int y = 0; y < c->h; y++) {
		const struct canvas_cell *row = canvas_row(c, y);
		const char *cur = "";
		int end = c->w;

		/* trailing blanks without a background go, as in canvas_to_text() */
		while (end > 0 && (row[end - 1].ch == ' ' || !row[end - 1].ch) &&
		       !*sgr_of(row[end - 1].style))
			end--;
		for (int x = 0; x < end; x++) {
			const char *want = sgr_of(row[x].style);
			char tmp[4];

			if (!row[x].ch)
				continue;
			if (strcmp(want, cur) != 0) {
				if (*cur)
					fputs("\033[0m", f);
				if (*want)
					fprintf(f, "\033[%sm", want);
				cur = want;
			}
			fwrite(tmp, 1, put_utf8(row[x].ch, tmp), f);
		}
		if (*cur)
			fputs("\033[0m", f);
		if (fputc('\n', f) == EOF)
			return errno ? -errno : -EIO;
	}
	return ferror(f) ? -EIO : 0;
}
