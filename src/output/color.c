/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "color.h"

static bool enabled;

int color_when_parse(const char *s, enum color_when *ret)
{
	if (!s || !strcmp(s, "auto") || !strcmp(s, "tty") || !strcmp(s, "if-tty"))
		*ret = COLOR_AUTO;
	else if (!strcmp(s, "always") || !strcmp(s, "yes") || !strcmp(s, "force"))
		*ret = COLOR_ALWAYS;
	else if (!strcmp(s, "never") || !strcmp(s, "no") || !strcmp(s, "none"))
		*ret = COLOR_NEVER;
	else
		return -EINVAL;
	return 0;
}

void color_init(enum color_when when, bool is_tty)
{
	const char *no_color = secure_getenv("NO_COLOR");
	const char *term = secure_getenv("TERM");

	switch (when) {
	case COLOR_ALWAYS:
		enabled = true;
		break;
	case COLOR_NEVER:
		enabled = false;
		break;
	case COLOR_AUTO:
		enabled = is_tty && !(no_color && no_color[0]) && !(term && !strcmp(term, "dumb"));
		break;
	}
}

bool color_enabled(void)
{
	return enabled;
}

const char *color_bold(void)
{
	return enabled ? "\033[1m" : "";
}

const char *color_warn(void)
{
	return enabled ? "\033[33m" : "";
}

const char *color_dim(void)
{
	return enabled ? "\033[2m" : "";
}

const char *color_reset(void)
{
	return enabled ? "\033[0m" : "";
}
