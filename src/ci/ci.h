/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cost/cost.h"
#include "cost/estimate.h"
#include "ledger/ledger.h"
#include "ledger/summary.h"
#include "ledger/klog-findings.h"
#include "sources/kmsg.h"

/*
 * `kmodtop ci`'s model: findings over saved kernel logs and traces, boots, gates and
 * the baseline. Below the views: it renders nothing (views/ci.c does) and reads no file
 * (session/ci-input.c feeds it).
 *
 * The session streams each input through its parser and hands records here as they
 * come; nothing is kept per line. Kernel log findings are aggregated by (input,
 * class, module) with a count and the first and last evidence lines; a trace's load
 * attempts are turned into findings the same way once the input's ledger is complete.
 * Memory is bounded by the number of distinct (class, module) pairs (capped: the rest
 * are counted under the module "(other)") and of boots, not by the size of the logs.
 *
 * A boot begins at the kernel's "Linux version " banner (or a journal boot marker);
 * the gates look at each boot: --max-failures=N fails when some boot has more than N.
 */

/* A finding's severity, as SARIF and GitHub name them */
enum ci_fmt_level {
	CI_FMT_NOTE,
	CI_FMT_WARNING,
	CI_FMT_ERROR,
};

/* An earlier `ci --json` report (--baseline), as output/ci-formats.c parses it */
struct ci_fmt_baseline_item {
	char *class;
	char *module;			/* NULL: the finding names none */
	uint64_t count;			/* attempts; a schema 1 baseline's: its lines */
	uint64_t wasted;
	bool wasted_known;
};

struct ci_fmt_baseline {
	struct ci_fmt_baseline_item *items;	/* one per finding row, as written */
	size_t n;
	uint64_t boots;
	uint64_t wasted;		/* totals.wasted */
	bool wasted_known;
};

enum ci_group {
	CI_GROUP_DUPLICATE,		/* the module was loaded (or asked for) again */
	CI_GROUP_FAILURE,		/* a load, or what it needed, failed */
	CI_GROUP_AUTOLOAD,		/* request_module() traffic that did nothing */
	CI_GROUP_NOTICE,		/* taints, warnings, unfinished attempts */
	_CI_GROUP_MAX,
};

/* Finding classes: every kernel log finding kind, every failed or duplicate outcome. */
size_t ci_class_count(void);
const char *ci_class_name(size_t cls);
const char *ci_class_help(size_t cls);
enum ci_group ci_class_group(size_t cls);
const char *ci_group_name(enum ci_group g);
/* The class index of @name, or -1. */
int ci_class_find(const char *name);

/*
 * Every kernel log line a finding can come from holds one of these (checked against
 * klog_formats() by the unit tests), so stream_next_match() may skip all other lines.
 * Static; *ret_n of them.
 */
const char *const *ci_needles(size_t *ret_n);

struct ci_options {
	int64_t max_duplicates;		/* -1: no gate */
	int64_t max_failures;
	int64_t max_wasted;		/* bytes */
	uint64_t fail_on;		/* bit per class */
	char **allow;			/* fnmatch() patterns over module names */
	size_t n_allow;
	const struct ci_fmt_baseline *baseline;	/* NULL: none; owned by the caller */
	const char *baseline_path;
	double tolerance;		/* percent */
};

/* Module files for estimates, from the session (a kernel under study per release). */
struct ci_cost_ops {
	/* 0 with the kernel the model needs for @release (NULL: unknown), or -ENOENT */
	int (*kernel)(void *userdata, const char *release, struct cost_kernel *ret);
	/* the module file of @name for @release's tree, or NULL */
	const struct cost_module *(*module)(void *userdata, const char *release,
					    const char *name);
	void *userdata;
};

struct ci_findings;

/* @opt and @cost (may be NULL: counts only) must outlive the result. */
int ci_new(const struct ci_options *opt, const struct ci_cost_ops *cost, struct ci_findings **ret);
struct ci_findings *ci_free(struct ci_findings *c);

/* --- feeding --------------------------------------------------------------------------- */

/* @path as given ("-": standard input); @release: --kernel-release, for traces */
int ci_begin_input(struct ci_findings *c, const char *path, const char *release);
void ci_set_input_format(struct ci_findings *c, const char *format, const char *compression);
/*
 * Of the current input, which rendering of its format it was read as ("dmesg",
 * "journal-short", "plain", ...) and what told it, for the reader; longer text is cut.
 */
#define CI_FORMAT_REASON_MAX 128
void ci_set_input_format_detail(struct ci_findings *c, const char *detail, const char *reason);
/* A kernel log record at @line of the current input (a banner starts a boot). */
int ci_klog(struct ci_findings *c, uint64_t line, const struct klog_rec *rec);
/* Whether a record's message is the "Linux version ..." banner that starts a boot */
bool ci_klog_banner(const char *msg, size_t len);
/*
 * The same, with the record's message already classified by klog_classify() (on another
 * thread): @f's module points into @rec's message.
 */
int ci_klog_classified(struct ci_findings *c, uint64_t line, const struct klog_rec *rec,
		       const struct klog_finding *f);
/*
 * @n more records at lines @first..@last, right after the one ci_klog() or
 * ci_klog_classified() was given last, each as that one again: the same finding (class
 * and module), no banner. A dense log's runs of one failure cost one call. 0, or
 * -EINVAL when the call before was not such a record or the lines do not follow it.
 */
int ci_klog_repeat(struct ci_findings *c, uint64_t first, uint64_t last, uint64_t n);
/*
 * What of a message of finding @kind tells one load's lines apart (the symbol a load
 * misses: each is logged once a try), as ci counts attempts: a hash, never 0; 0 for the
 * kinds whose lines are each an attempt. For ci_klog_repeat_details().
 */
uint64_t ci_klog_detail(enum klog_finding_kind kind, const char *msg, size_t len);
/*
 * ci_klog_repeat() of @n records at @lines (increasing, after the record before), each
 * of a message whose ci_klog_detail() is @details' (not 0): each counted as ci_klog()
 * would, with the lines that follow one another as one range. 0, or -EINVAL as
 * ci_klog_repeat().
 */
int ci_klog_repeat_details(struct ci_findings *c, const uint64_t *lines, const uint64_t *details,
			   size_t n);
/* A line that is no kernel record: serial consoles also carry kmod's own errors. */
int ci_text(struct ci_findings *c, uint64_t line, const char *s, size_t len);
/* A boot boundary other than the banner: journalctl's "-- Boot ID --", _BOOT_ID. */
int ci_boot_mark(struct ci_findings *c, uint64_t line, const char *boot_id);

/*
 * A trace input's findings, an attempt at a time as its ledger settles them, so that
 * nothing grows with the trace: ci_trace_begin() (@priced: the cost model prices the
 * attempts, even when there are none), ci_trace_attempt() for each attempt in the
 * ledger's order with its cost (NULL when not priced), then ci_trace_end() with the
 * finished ledger, whose autoload requests are read then. The boot's figures (attempts,
 * failed, duplicates, waste) are the sums of the attempts handed on, which are
 * ledger_summarize()'s and the cost model's over the whole ledger.
 */
int ci_trace_begin(struct ci_findings *c, bool priced);
int ci_trace_attempt(struct ci_findings *c, const struct ledger *l, const struct attempt *a,
		     const struct attempt_cost *cost);
int ci_trace_end(struct ci_findings *c, const struct ledger *l);

struct ci_input_stats {
	uint64_t lines;
	uint64_t records;		/* kernel log records or trace events seen */
	uint64_t skipped;		/* malformed, over-long */
	bool filtered;			/* only needle lines were parsed after the first record */
};

int ci_end_input(struct ci_findings *c, const struct ci_input_stats *st);
/*
 * The input being read and the next one are of one boot (a kernel log and the trace of
 * its last boot): that boot stays open for the next input, whose trace's ledger gives
 * its attempts; the log's findings there are evidence, counted as attempts once.
 */
void ci_join_next_input(struct ci_findings *c);

/* --- results --------------------------------------------------------------------------- */

enum ci_result {
	CI_PASS,
	CI_FAIL,
	CI_EMPTY,			/* nothing to analyse */
	CI_UNKNOWN_WASTE,		/* --max-wasted, and no waste could be estimated */
};

/* Evaluates the gates and the baseline. 0 or -ENOMEM. */
int ci_finish(struct ci_findings *c, enum ci_result *ret);

/* Lines @first..@last of a finding's input, all evidence */
struct ci_line_range {
	uint64_t first, last;
};

/*
 * Ranges kept per finding: a log of a million lines of one finding keeps one range, one
 * whose lines are scattered keeps this many and is marked truncated (its count holds all).
 */
#define CI_EVIDENCE_RANGES_MAX 256
/*
 * Ranges kept over all findings: the per-finding cap times 65536 findings would be
 * 256 MiB, and JSON writes each range; past this, findings that want more are truncated.
 */
#define CI_EVIDENCE_RANGES_ALL 16384

/* One finding row, for tests and tools; strings owned by @c. */
struct ci_finding_info {
	const char *cls;
	const char *module;		/* NULL: none */
	const char *path;
	uint64_t count, first_line, last_line;	/* count: evidence lines */
	/* the evidence lines of @path, sorted, apart; truncated: some are not listed */
	const struct ci_line_range *ranges;
	size_t n_ranges;
	bool ranges_truncated;
	uint64_t attempts;		/* the load attempts (or events) they make */
	uint32_t boots;
	bool wasted_known;
	uint64_t wasted;
	bool gated, allowed;
};

size_t ci_finding_count(const struct ci_findings *c);
void ci_finding_get(const struct ci_findings *c, size_t i, struct ci_finding_info *ret);
size_t ci_boot_count(const struct ci_findings *c);
/* The release the boot's banner names, or "" */
const char *ci_boot_release(const struct ci_findings *c, size_t i);

/* K, M, G, T suffixes (powers of 1024), optional "iB"/"B"; "1.5M". 0 or -EINVAL/-ERANGE. */
int ci_parse_size(const char *s, uint64_t *ret);
