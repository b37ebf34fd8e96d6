/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "output/openmetrics.h"

/* `report`'s own files: the command (report.c) and its metrics outputs (report-metrics.c) */

struct report_data;

#define MAX_LABELS 16

/* --openmetrics, --prometheus, --textfile and their --label's */
struct metrics_opts {
	bool openmetrics, prometheus;
	const char *textfile;		/* as given */
	char *textfile_path;		/* the file it names */
	struct {
		char *name;
		const char *value;	/* inside name's allocation */
	} labels[MAX_LABELS];
	size_t n_labels;
};

/* NAME=VALUE: a label name kmodtop does not use itself, and a UTF-8 value. 0, or -1 said */
int report_parse_label(struct metrics_opts *mo, const char *arg);
void report_metrics_opts_done(struct metrics_opts *mo);
/*
 * The metrics options together, and --textfile's file resolved: an exit code (EXIT_OK,
 * or the error said)
 */
int report_metrics_check(struct metrics_opts *mo, bool json);
/* --textfile: the file it names, checked; an exit code (EXIT_OK, or the error said) */
int report_resolve_textfile(struct metrics_opts *mo);
int report_write_metrics(const struct report_data *d, const struct metrics_opts *mo,
			 enum om_flavour fl, FILE *f);
int report_write_textfile(const struct report_data *d, const struct metrics_opts *mo);
