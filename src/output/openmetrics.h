/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * The text exposition of metrics, in two flavours of one model: OpenMetrics 1.0.0 and
 * the Prometheus text format 0.0.4 that node_exporter's textfile collector and the
 * Pushgateway read. They differ for counters: OpenMetrics names the family without
 * "_total" and its sample with it; the Prometheus format names both with it (its parser
 * would take an OpenMetrics counter for an untyped metric of another name). OpenMetrics
 * also has "# UNIT" and ends with "# EOF".
 *
 * The view (views/report-metrics.c) says which families and samples there are; only
 * this file knows the syntax. There is no packaged C writer of the format. A family is
 * written when its first sample comes, so a family without samples is left out, and the
 * samples of one family must come together. Errors are sticky and returned by
 * om_finish().
 *
 * Label values of samples come from the kernel and other machines' logs: they are
 * written as the text report shows names (escape_dup(): backslashes doubled, control
 * characters and bytes that are not UTF-8 as \xNN), then escaped as the format wants
 * (backslash, double quote, newline). So every value is UTF-8, as OpenMetrics
 * requires, none carries a terminal escape, and two different names stay two
 * different series. Constant labels (--label) are the caller's: UTF-8, written as
 * given, with the format's escapes only.
 */

enum om_flavour {
	OM_OPENMETRICS,
	OM_PROMETHEUS,
};

enum om_type {
	OM_GAUGE,
	OM_COUNTER,
};

struct om_label {
	const char *name;		/* a valid label name, static text */
	const char *value;		/* NULL: "" */
};

struct om;

int om_new(enum om_flavour fl, FILE *f, struct om **ret);
struct om *om_free(struct om *m);
/*
 * A label every sample gets, before its own (copied). 0, -EINVAL (a bad name, or a
 * value that is not UTF-8), -ENOMEM.
 */
int om_add_const_label(struct om *m, const char *name, const char *value);

/*
 * A metric family: @name without "_total" for a counter; @unit (NULL: none) must be
 * @name's last word ("bytes", "seconds"). The samples that follow belong to it.
 */
void om_family(struct om *m, const char *name, enum om_type type, const char *unit,
	       const char *help);
void om_sample_u64(struct om *m, const struct om_label *labels, size_t n, uint64_t v);
/* NaN and infinities are left out: no figure to show */
void om_sample_f64(struct om *m, const struct om_label *labels, size_t n, double v);

/* "# EOF" for OpenMetrics, then flushes. 0 or the first error (-EIO, -EINVAL, ...) */
int om_finish(struct om *m);

/* [a-zA-Z_][a-zA-Z0-9_]*, not starting "__" (reserved for Prometheus itself) */
bool om_label_name_valid(const char *s);
/*
 * @s escaped for a quoted label value: \ as \\, " as \", newline as \n; nothing else
 * changes. Returns a new string or NULL on ENOMEM.
 */
char *om_escape_label_value(const char *s, size_t len);
