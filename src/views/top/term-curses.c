/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <langinfo.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "keys.h"
#include "term-curses.h"

/* last: term.h defines macros named like ordinary words (lines, columns, ...) */
#include <curses.h>
#include <term.h>

static volatile sig_atomic_t active;
static bool have_termios, use_color, use_mouse;
static struct termios saved_termios;
/* written by the fatal-signal handler: computed at start, never allocated there */
static char reset_seq[256];
static size_t reset_len;
static attr_t style_attr[_ST_MAX];
static short style_pair[_ST_MAX];

bool term_locale_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);

	return cs && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
}

static void append_cap(const char *name)
{
	char *s = tigetstr((char *)name);
	size_t n;

	if (!s || s == (char *)-1)
		return;
	n = strlen(s);
	if (reset_len + n < sizeof(reset_seq)) {
		memcpy(reset_seq + reset_len, s, n);
		reset_len += n;
	}
}

static void append_raw(const char *s)
{
	size_t n = strlen(s);

	if (reset_len + n < sizeof(reset_seq)) {
		memcpy(reset_seq + reset_len, s, n);
		reset_len += n;
	}
}

/* Async-signal-safe: write(2) and tcsetattr(3) only. */
static void emergency_restore(void)
{
	ssize_t r;

	if (!active)
		return;
	active = 0;
	r = write(STDOUT_FILENO, reset_seq, reset_len);
	(void)r;
	if (have_termios)
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_termios);
}

static void on_fatal_signal(int sig)
{
	emergency_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void at_exit(void)
{
	term_done();
}

static void setup_styles(void)
{
	static const struct {
		short fg, bg;
		attr_t attr; /* with colour */
		attr_t mono; /* without */
	} map[_ST_MAX] = {
		[ST_NORMAL] = { -1, -1, 0, 0 },
		[ST_BOLD] = { -1, -1, A_BOLD, A_BOLD },
		[ST_DIM] = { COLOR_BLUE, -1, A_BOLD, A_DIM },
		[ST_TITLE] = { COLOR_CYAN, -1, A_BOLD, A_BOLD },
		[ST_LABEL] = { COLOR_CYAN, -1, 0, 0 },
		[ST_VALUE] = { -1, -1, A_BOLD, A_BOLD },
		[ST_BAR] = { COLOR_GREEN, -1, A_BOLD, A_BOLD },
		[ST_TAB] = { COLOR_WHITE, COLOR_BLUE, 0, A_REVERSE },
		[ST_TAB_ACTIVE] = { COLOR_BLACK, COLOR_CYAN, A_BOLD,
				    A_BOLD | A_UNDERLINE },
		[ST_HEADER] = { COLOR_BLACK, COLOR_GREEN, 0, A_REVERSE },
		[ST_HEADER_SORT] = { COLOR_BLACK, COLOR_CYAN, A_BOLD,
				     A_REVERSE | A_BOLD | A_UNDERLINE },
		[ST_SELECTED] = { COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE | A_BOLD },
		[ST_CHANGED] = { COLOR_MAGENTA, -1, A_BOLD, A_BOLD },
		[ST_WARN] = { COLOR_YELLOW, -1, A_BOLD, A_BOLD },
		[ST_BAD] = { COLOR_RED, -1, A_BOLD, A_BOLD | A_UNDERLINE },
		[ST_GOOD] = { COLOR_GREEN, -1, 0, 0 },
		[ST_KEY] = { COLOR_WHITE, COLOR_BLACK, A_BOLD, A_BOLD },
		[ST_KEY_LABEL] = { COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE },
		[ST_INPUT] = { COLOR_BLACK, COLOR_YELLOW, 0, A_REVERSE },
		[ST_MATCH] = { COLOR_BLACK, COLOR_YELLOW, A_BOLD, A_UNDERLINE },
	};

	for (int i = 0; i < _ST_MAX; i++) {
		style_pair[i] = 0;
		style_attr[i] = use_color ? map[i].attr : map[i].mono;
		if (use_color && (map[i].fg != -1 || map[i].bg != -1)) {
			init_pair((short)(i + 1), map[i].fg, map[i].bg);
			style_pair[i] = (short)(i + 1);
		}
	}
}

int term_check(void)
{
	int err = 0;
	bool ok;

	if (setupterm(NULL, STDOUT_FILENO, &err) != OK)
		return -ENOENT;
	/* a full-screen program needs to place the cursor and clear (dumb has neither) */
	ok = tigetstr((char *)"cup") && tigetstr((char *)"cup") != (char *)-1 &&
	     tigetstr((char *)"clear") && tigetstr((char *)"clear") != (char *)-1;
	del_curterm(cur_term);
	return ok ? 0 : -ENOTSUP;
}

int term_init(const struct term_opts *o)
{
	static bool handlers;
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return -ENOTTY;
	have_termios = tcgetattr(STDIN_FILENO, &saved_termios) == 0;
	/* Esc alone must not wait a second for a sequence that is not coming */
	set_escdelay(25);
	if (!initscr())
		return -EIO;
	active = 1;
	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	use_color = o->color && has_colors();
	if (use_color) {
		start_color();
		use_default_colors();
	}
	setup_styles();
	use_mouse = o->mouse;
	if (use_mouse) {
		/*
		 * Every button event, even those ignored: ncurses filters events outside the
		 * mask with a blocking read, nodelay() or not (a release would hang the loop).
		 */
		mousemask(ALL_MOUSE_EVENTS, NULL);
		mouseinterval(0);
	}

	/* what endwin() would write, for the fatal-signal path */
	reset_len = 0;
	append_cap("sgr0");
	append_cap("cnorm");
	append_cap("rmkx");
	append_cap("rmcup");
	if (use_mouse)
		append_raw("\033[?1000l\033[?1002l\033[?1006l");
	if (!handlers) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_fatal_signal;
		sigemptyset(&sa.sa_mask);
		sa.sa_flags = SA_RESETHAND;
		for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
			sigaction(fatal[i], &sa, NULL);
		atexit(at_exit);
		handlers = true;
	}
	return 0;
}

void term_done(void)
{
	if (!active)
		return;
	active = 0;
	if (use_mouse)
		mousemask(0, NULL);
	curs_set(1);
	endwin();
	if (have_termios)
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_termios);
}

int term_input_fd(void)
{
	return STDIN_FILENO;
}

void term_size(int *ret_w, int *ret_h)
{
	*ret_w = COLS;
	*ret_h = LINES;
}

void term_resize(void)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
		resizeterm(ws.ws_row, ws.ws_col);
}

void term_blit(const struct canvas *c, bool full)
{
	cchar_t *row = calloc((size_t)c->w + 1, sizeof(*row));
	int h = c->h < LINES ? c->h : LINES, w = c->w < COLS ? c->w : COLS;

	if (!row)
		return;
	if (full)
		clearok(curscr, TRUE);
	for (int y = 0; y < h; y++) {
		const struct canvas_cell *cells = canvas_row(c, y);
		int n = 0;

		for (int x = 0; x < w; x++) {
			wchar_t wc[2] = { 0, 0 };

			if (!cells[x].ch)
				continue; /* the right half of a wide character */
			wc[0] = (wchar_t)cells[x].ch;
			if (cells[x].style >= _ST_MAX)
				setcchar(&row[n++], wc, 0, 0, NULL);
			else
				setcchar(&row[n++], wc, style_attr[cells[x].style],
					 style_pair[cells[x].style], NULL);
		}
		mvadd_wchnstr(y, 0, row, n);
	}
	free(row);
	wnoutrefresh(stdscr);
	doupdate();
}

static int translate(int code)
{
	if (code >= KEY_F(1) && code <= KEY_F(12))
		return TK_F(code - KEY_F0);
	/* xterm and tmux send Shift-F3 as F15 */
	if (code == KEY_F(15))
		return TK_SF3;
	switch (code) {
	case KEY_UP:
		return TK_UP;
	case KEY_DOWN:
		return TK_DOWN;
	case KEY_LEFT:
		return TK_LEFT;
	case KEY_RIGHT:
		return TK_RIGHT;
	case KEY_PPAGE:
		return TK_PGUP;
	case KEY_NPAGE:
		return TK_PGDN;
	case KEY_HOME:
		return TK_HOME;
	case KEY_END:
		return TK_END;
	case KEY_BTAB:
		return TK_BTAB;
	case KEY_BACKSPACE:
		return TK_BACKSPACE;
	case KEY_DC:
		return TK_DC;
	case KEY_ENTER:
		return TK_ENTER;
	case KEY_RESIZE:
		return TK_RESIZE;
	case KEY_MOUSE:
		return TK_MOUSE;
	}
	return TK_NONE;
}

int term_read_key(int *ret_key, struct term_mouse *ret_mouse)
{
	wint_t wch;
	int r;

	for (;;) {
		r = get_wch(&wch);
		if (r == ERR)
			return 0;
		if (r == KEY_CODE_YES) {
			int k = translate((int)wch);

			if (k == TK_MOUSE) {
				MEVENT ev;

				if (getmouse(&ev) != OK)
					continue;
				memset(ret_mouse, 0, sizeof(*ret_mouse));
				ret_mouse->x = ev.x;
				ret_mouse->y = ev.y;
				if (ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED))
					ret_mouse->button = TERM_BUTTON_LEFT;
				else if (ev.bstate & BUTTON1_DOUBLE_CLICKED) {
					ret_mouse->button = TERM_BUTTON_LEFT;
					ret_mouse->double_click = true;
				} else if (ev.bstate & BUTTON4_PRESSED)
					ret_mouse->button = TERM_BUTTON_WHEEL_UP;
				else if (ev.bstate & BUTTON5_PRESSED)
					ret_mouse->button = TERM_BUTTON_WHEEL_DOWN;
				else
					continue;
			}
			if (k == TK_NONE)
				continue;
			*ret_key = k;
			return 1;
		}
		/* nonl(): Enter arrives as '\r' */
		if (wch == '\r')
			wch = '\n';
		if (wch == 8)
			wch = TK_BACKSPACE;
		*ret_key = (int)wch;
		return 1;
	}
}
