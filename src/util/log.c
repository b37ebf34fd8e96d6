/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "log.h"

static unsigned int warn_count;
static int quiet;
static const char *command;

void log_set_command(const char *cmd)
{
	command = cmd;
}

int log_set_quiet(int q)
{
	int old = quiet;

	quiet = q;
	return old;
}

unsigned int log_warn_count(void)
{
	return warn_count;
}

static void log_v(const char *prefix, const char *fmt, va_list ap)
{
	char *msg = NULL, *esc;
	int n;

	n = vasprintf(&msg, fmt, ap);
	if (n < 0) {
		fputs("kmodtop: out of memory\n", stderr);
		return;
	}
	esc = escape_dup(msg, n);
	if (command) {
		size_t len = strlen(command);
		const char *text = esc ? esc : "out of memory";

		/* messages written as "top: ..." before the prefix named the command */
		if (strncmp(text, command, len) == 0 && text[len] == ':' && text[len + 1] == ' ')
			text += len + 2;
		fprintf(stderr, "kmodtop %s: %s%s\n", command, prefix, text);
	} else {
		fprintf(stderr, "kmodtop: %s%s\n", prefix, esc ? esc : "out of memory");
	}
	free(esc);
	free(msg);
}

void log_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_v("", fmt, ap);
	va_end(ap);
}

void log_warn(const char *fmt, ...)
{
	va_list ap;

	warn_count++;
	if (quiet)
		return;
	va_start(ap, fmt);
	log_v("warning: ", fmt, ap);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	va_start(ap, fmt);
	log_v("", fmt, ap);
	va_end(ap);
}

void log_kt_err(const struct kt_err *err, int r)
{
	const char *what = err && err->what ? err->what : strerror(-r);

	if (err && err->path[0] && err->line)
		log_error("'%s':%u: %s", err->path, err->line, what);
	else if (err && err->path[0])
		log_error("'%s': %s", err->path, what);
	else
		log_error("%s", what);
}

static int progress_shown;

void log_progress(const char *what, size_t done, size_t total)
{
	if (quiet)
		return;
	fprintf(stderr, "\rkmodtop: %s: %zu of %zu", what, done, total);
	progress_shown = 1;
}

void log_progress_done(void)
{
	if (!progress_shown)
		return;
	/* clear the line so the next message starts clean */
	fputs("\r\033[K", stderr);
	progress_shown = 0;
}
