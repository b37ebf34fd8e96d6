/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>

#include "cmd/cmd.h"
#include "output/ci-formats.h"
#include "ci/ci.h"

/*
 * `ci`'s settings: the command line, then a config file (--config, one "key = value" a
 * line) for what the command line left unset. Lists (--fail-on, --allow) add up.
 * Messages name where a bad value came from ("--max-failures", "'ci.conf':3").
 */

enum {
	OPT_MAX_DUPLICATES = OPT_CMD_BASE,
	OPT_MAX_FAILURES,
	OPT_MAX_WASTED,
	OPT_FAIL_ON,
	OPT_ALLOW,
	OPT_BASELINE,
	OPT_TOLERANCE,
	OPT_CONFIG,
	OPT_JUNIT,
	OPT_SARIF,
	OPT_GITHUB,
	OPT_NO_FILTER,
	OPT_THREADS,
};

struct ci_settings {
	struct ci_options opt;
	/* what the command line set: the config file does not override it */
	bool set[OPT_NO_FILTER - OPT_CMD_BASE + 1];
	char *baseline, *junit, *sarif;
	char *config;
};

void ci_settings_done(struct ci_settings *s);
/* *@dst becomes a copy of @v. 0 or -ENOMEM. */
int ci_settings_set_path(char **dst, const char *v);
/*
 * One setting, @opt one of the OPT_ values above, from the command line (@cmdline) or
 * the config file; @origin names it in messages. 0 or -errno (logged).
 */
int ci_settings_apply(struct ci_settings *s, int opt, const char *v, const char *origin,
		      bool cmdline);
/* The config file at @path, for what the command line left unset. 0 or -errno (logged). */
int ci_settings_read_config(struct ci_settings *s, const char *path);
/* An earlier `ci --json` report (--baseline). 0 or -errno (logged). */
int ci_settings_read_baseline(const char *path, struct ci_fmt_baseline **ret);
