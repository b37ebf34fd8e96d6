/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>

enum color_when {
	COLOR_AUTO,
	COLOR_ALWAYS,
	COLOR_NEVER,
};

/* "auto", "always", "never" (and the usual synonyms). -EINVAL otherwise. */
int color_when_parse(const char *s, enum color_when *ret);
/*
 * Resolves once, at start-up: --color wins; auto means a terminal and no NO_COLOR
 * (https://no-color.org: any non-empty value) and TERM not "dumb".
 */
void color_init(enum color_when when, bool is_tty);
bool color_enabled(void);

/* SGR sequences, or "" when colour is off. */
const char *color_bold(void);
const char *color_warn(void);
const char *color_dim(void);
const char *color_reset(void);
