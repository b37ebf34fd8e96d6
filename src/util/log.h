/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>

#include "kt-err.h"
#include "macro.h"

/* The only writer to stderr. Messages are escaped: they may quote kernel text. */
/* Messages start "kmodtop CMD: " from now on (a static string; NULL: "kmodtop: "). */
void log_set_command(const char *cmd);
void log_error(const char *fmt, ...) _printf_format_(1, 2);
void log_warn(const char *fmt, ...) _printf_format_(1, 2);
void log_info(const char *fmt, ...) _printf_format_(1, 2);
/* "kmodtop: 'proc/modules':17: size is not a number" */
void log_kt_err(const struct kt_err *err, int r);
/* Number of warnings logged so far (for exit summaries). */
unsigned int log_warn_count(void);
/* The previous setting. */
int log_set_quiet(int quiet);
/* A progress line rewritten in place ("\r"); only call it when stderr is a terminal. */
void log_progress(const char *what, size_t done, size_t total);
/* Ends a progress line. */
void log_progress_done(void);
