/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

struct option;
/*
 * After getopt_long() returned '?': "did you mean" for a misspelt long option (the word
 * before argind), then "Try 'kmodtop CMD --help'" (cmd NULL: kmodtop's own options).
 */
void cmd_usage_error(const char *cmd, const struct option *opts, char *const *argv, int argind);

/* --width: 0 (none) or CMD_MIN_WIDTH..CMD_MAX_WIDTH columns; -EINVAL said */
#define CMD_MIN_WIDTH 40
#define CMD_MAX_WIDTH 100000
int cmd_parse_width(const char *arg, int64_t *ret);
/*
 * The columns text fits in: @arg_width (>= 0: --width), else $COLUMNS, else the
 * terminal's when stdout is one; else none (0), so that text piped to a file or a script
 * is not cut.
 */
unsigned int cmd_text_width(int64_t arg_width);

struct kt_system;
/* What the kernel under study lacks of its release, as warnings (osrelease refused, none) */
void cmd_warn_release(const struct kt_system *sys);

struct kt_err;
/*
 * A source that failed in a way worth telling, as a warning: its file and line, what was
 * wrong, or what reading it needs when this user was refused; "ignoring".
 */
void cmd_warn_source(const char *path, int r, const struct kt_err *e);

/* Parses one global option (from the long option table below); 1 if it was one. */
int global_opt_handle(struct global_opts *g, int opt, const char *arg);

/*
 * The optimal string alignment distance between @a (@la bytes) and @b, for "did you
 * mean"; UINT_MAX for words longer than any name. A suggestion further than
 * CMD_SUGGEST_MAX edits is more often wrong than right.
 */
unsigned int cmd_edit_distance(const char *a, size_t la, const char *b);
#define CMD_SUGGEST_MAX 2

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
int cmd_top(int argc, char **argv, struct global_opts *g);
int cmd_ci(int argc, char **argv, struct global_opts *g);
int cmd_record(int argc, char **argv, struct global_opts *g);
int cmd_boot_setup(int argc, char **argv, struct global_opts *g);

/* --duration's "30", "30s", "1.5m", "2h"; a bad one is said. 0 or -EINVAL. */
int cmd_parse_duration(const char *arg, double *ret);

/* The options of a live collection that report and record share (session/live.h) */
enum {
	OPT_LIVE_DURATION = OPT_CMD_BASE + 0x40,
	OPT_LIVE_MEASURE,
	OPT_LIVE_SINCE_BOOT,
	OPT_LIVE_END,		/* a command's own options from here */
};

#define LIVE_LONG_OPTIONS                                                \
	{ "duration", required_argument, NULL, OPT_LIVE_DURATION },       \
	{ "measure", no_argument, NULL, OPT_LIVE_MEASURE },               \
	{ "since-boot", no_argument, NULL, OPT_LIVE_SINCE_BOOT }

/* Parses one of LIVE_LONG_OPTIONS into @lo: 1 if it was one, 0 if not, -1 when bad (said) */
struct live_opts;
int live_opt_handle(struct live_opts *lo, int opt, const char *arg);

/*
 * Tells on stderr what a live collection (session/live.h) lacked and lost; -1 when
 * kmodtop's tracing state was left behind, 0 otherwise.
 */
struct live_session;
int live_log(const struct live_session *lv);
