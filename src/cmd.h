/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>

#include "output/color.h"

/* Exit codes (man page: EXIT STATUS) */
enum {
	EXIT_OK = 0,
	EXIT_ERROR = 1,		/* a source could not be read or parsed, or out of memory */
	EXIT_USAGE = 2,		/* bad command line */
	EXIT_NO_MODULES = 4,	/* the kernel has no module support: nothing to report (kselftest skip) */
};

struct global_opts {
	const char *root;
	const char *release;
	const char *moduledir;
	bool json;
	bool pretty;
	enum color_when color;
};

/* Parses one global option (from the long option table below); 1 if it was one. */
int global_opt_handle(struct global_opts *g, int opt, const char *arg);

#define GLOBAL_LONG_OPTIONS                                          \
	{ "root", required_argument, NULL, OPT_ROOT },               \
	{ "kernel-release", required_argument, NULL, OPT_RELEASE },  \
	{ "moduledir", required_argument, NULL, OPT_MODULEDIR },     \
	{ "json", no_argument, NULL, 'j' },                          \
	{ "pretty", no_argument, NULL, 'p' },                        \
	{ "color", optional_argument, NULL, OPT_COLOR },             \
	{ "colour", optional_argument, NULL, OPT_COLOR }

#define GLOBAL_SHORT_OPTIONS "jp"

enum {
	OPT_ROOT = 0x100,
	OPT_RELEASE,
	OPT_MODULEDIR,
	OPT_COLOR,
	OPT_CMD_BASE = 0x200,
};

int cmd_report(int argc, char **argv, struct global_opts *g);
