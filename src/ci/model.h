/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The inside of struct ci_findings, for the model's files (ci/) and its report
 * (views/ci.c), which walks the rows, boots and gates. No one else includes this.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ci/ci.h"

struct hindex;

/* Distinct names and (input, class, module) rows kept; the rest go to "(other)". */
#define MAX_NAMES 65536
#define MAX_AGGS 65536
/*
 * Boots listed one by one; later ones are counted, and for each gate the worst of
 * them kept, so that a log of a million boots takes no memory per boot.
 */
#define MAX_BOOTS 1000
#define OTHER_NAME "(other)"
/* Bytes of the first evidence line kept per finding */
#define SAMPLE_MAX 160
/* Raw bytes kept of a name (MODULE_NAME_LEN is 56; aliases can be longer) */
#define NAME_MAX_RAW 96
/* Requesters remembered per finding; the rest are counted */
#define REQ_MAX 3
/* Classes listed per boot in the boots table */
#define BOOT_SUMMARY_CLASSES 4
/* GitHub shows a handful of annotations per step: the rest would be noise */
#define GITHUB_MAX 50

#define MODULE_INIT_COMPRESSED_FILE 4

static inline uint64_t mul_sat_u64(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}
#define MIN_SIZE(a, b) ((a) < (b) ? (a) : (b))

struct ci_class {
	const char *name;
	enum ci_group group;
	enum ci_fmt_level level;
	int klog;			/* enum klog_finding_kind, or 0 */
	int outcome;			/* enum attempt_outcome, or -1 */
	/* a kernel log finding: the outcome its load had, for the cost model, or -1 */
	int cost_outcome;
	const char *help;
};

#define CI_CLASS_COUNT 43
extern const struct ci_class ci_classes[CI_CLASS_COUNT];
#define CLS_NEEDLESS (CI_CLASS_COUNT - 2)
#define CLS_UNRESOLVED (CI_CLASS_COUNT - 1)

/* --- state ----------------------------------------------------------------------------- */

struct names {
	char **s;			/* as seen, NUL-terminated: outputs escape it */
	char **raw;			/* as seen: the lookup key */
	uint16_t *raw_len;
	size_t n, cap, cap_raw, cap_len;
	struct hindex *index;		/* raw name -> id - 1 */
	uint32_t other;
};

struct req {
	uint32_t comm;			/* name ids; 0: none */
	uint32_t site;
	uint64_t n;
};

struct agg {
	uint32_t input;
	uint16_t cls;
	uint32_t module;		/* name id, 0: none */
	uint64_t count;			/* evidence lines (a trace's: one per attempt) */
	uint64_t attempts;		/* the attempts the evidence makes (attempts_of_lines()) */
	uint64_t first_line, last_line;
	/* the evidence lines themselves, sorted, apart (ranges_add()) */
	struct ci_line_range *ranges;
	size_t n_ranges, cap_ranges;
	bool ranges_truncated;		/* some lines are not in @ranges */
	uint32_t boots;
	size_t last_boot;		/* boot index + 1 that counted it last */
	uint64_t boot_count, boot_attempts;
	uint64_t wasted, boot_wasted;
	bool wasted_known;		/* some of it was estimated or measured */
	bool from_trace;
	bool allowed;
	bool gated;			/* made a gate fail */
	struct req req[REQ_MAX];
	uint64_t req_other;
	char *sample;
};

struct ci_figures {
	uint64_t attempts, failed, duplicates, wasted;
};

struct boot {
	uint64_t number;		/* 1, 2, ... in the run */
	uint32_t input;
	uint64_t line, end_line;
	bool banner;
	bool marker;			/* started by a boot marker */
	char release[65];
	char boot_id[48];
	/*
	 * Load attempts as report counts them: a boot with a trace takes them from its
	 * ledger (the log's records joined it there), one with a log alone from the
	 * log's evidence. @gated leaves out --allow's modules.
	 */
	bool traced;
	struct ci_figures all, gated;
	uint64_t findings;
	bool waste_possible;		/* it has findings that may waste memory */
	bool waste_known;		/* one of them could be estimated or was measured */
	bool waste_lower_bound;		/* log findings: one attempt each */
	char *summary;
};

struct input {
	char *path;
	char format[24];
	char format_detail[24];		/* "" until set: then the format's */
	char format_reason[CI_FORMAT_REASON_MAX];
	char compression[8];
	char *release;			/* --kernel-release, for traces */
	struct ci_input_stats st;
	size_t first_boot, n_boots;
	uint64_t findings;
};


enum gate_id {
	GATE_MAX_DUPLICATES,
	GATE_MAX_FAILURES,
	GATE_MAX_WASTED,
	GATE_FAIL_ON,
	GATE_BASELINE_NEW,
	GATE_BASELINE_INCREASE,
	_GATE_MAX,
};

struct gate {
	bool enabled;
	bool passed;
	bool unknown;			/* could not be evaluated */
	int64_t limit;
	uint64_t value;
	long boot;			/* where the worst value was; -1 */
	long agg;			/* the first finding that failed it; -1 */
};

enum delta_status {
	DELTA_NEW,
	DELTA_INCREASED,
	DELTA_SAME,
	DELTA_DECREASED,
	DELTA_GONE,
};

struct delta {
	const char *cls;		/* static or the baseline's */
	const char *module;		/* NULL: none */
	uint64_t old_count, new_count;
	enum delta_status status;
	bool offending;
};

struct ci_findings {
	const struct ci_options *opt;
	const struct ci_cost_ops *cost;
	struct names names;
	struct agg *aggs;
	size_t n_aggs, cap_aggs;
	struct hindex *agg_index;	/* (input, class, module) -> row */
	size_t n_ranges_all;		/* the rows' evidence ranges, all told */
	struct boot *boots;		/* the first MAX_BOOTS */
	size_t n_boots, cap_boots;
	uint64_t all_boots;		/* listed or not */
	struct boot spare;		/* the current boot past MAX_BOOTS */
	bool in_spare;
	/* past MAX_BOOTS: the first boot with the most duplicates, failures, waste */
	struct boot worst[3];
	bool have_worst;
	struct input *inputs;
	size_t n_inputs, cap_inputs;
	size_t *touched;		/* aggs counted in the current boot */
	size_t n_touched, cap_touched;
	bool in_boot;
	struct klog_memo *memo;
	/* the row of the last finding classified elsewhere: findings come in runs */
	struct {
		uint32_t agg;		/* index + 1; 0: none */
		uint32_t input;
		int cls;
		bool alias;
		uint16_t len;
		char module[64];
	} last;
	/* the row the last kernel record's finding went to (index + 1; 0: none), its line */
	uint32_t again;
	uint64_t again_line;
	uint64_t again_detail;		/* its message's detail_hash(), 0: none */
	/* the line whose further findings are being added (more_findings()), 0: none */
	uint64_t more_line;
	/* the current boot's (row, message) counts of the symbol classes */
	struct detail *details;
	size_t n_details, cap_details;
	struct hindex *detail_index;
	size_t detail_last;		/* the detail added last, + 1; 0: none */
	struct ci_figures total;	/* over every boot, --allow's modules too */
	bool total_wasted_known;
	bool capped;			/* rows were folded into "(other)" */
	bool waste_available;		/* module files or a measured trace */
	bool waste_lower_bound;		/* log findings: one attempt per module and boot */
	uint64_t records;
	/* module loaders' lines with a finding (modprobe, systemd): something to analyse */
	uint64_t loader_lines;
	/* OpenWrt ubox's "%d module%s could not be probed": list lines still to come, and
	 * the line and input of the last one read (a list line must follow it) */
	uint64_t unprobed, unprobed_line;
	size_t unprobed_input;
	struct gate gates[_GATE_MAX];
	struct delta *deltas;
	size_t n_deltas;
	uint64_t baseline_wasted_old;
	bool finished;
	enum ci_result result;
	bool join_next;			/* ci_join_next_input(): the next input continues the boot */
	/*
	 * A trace's figures summed as its attempts settle (ci_trace_attempt()): all of
	 * them, and the share of --allow's modules; the waste both as the cost model
	 * estimates it and as the vmap events measured it (which one counts is known at
	 * the end).
	 */
	struct trace_sums {
		bool priced;
		struct ci_figures all, allowed;
		uint64_t measured, allowed_measured;
	} trace;
};

/* --- shared by the model's files and the report ------------------------------------- */

/* The class of a kernel log finding kind, of a trace attempt's outcome; -1: none */
int ci_class_of_klog(int kind);
int ci_class_of_outcome(int outcome);
/* "error", "warning", "note" */
const char *ci_level_name(enum ci_fmt_level l);
/* A name by its id; NULL for 0 */
const char *ci_name_of(const struct ci_findings *c, uint32_t id);
/* *@p holds at least @need elements of @size, growing by doubling. 0 or -ENOMEM. */
int ci_grow(void **p, size_t *cap, size_t need, size_t size);
/* A kernel log class whose lines are a load's (its outcome is known to the cost model) */
bool ci_is_log_attempt_class(size_t cls);
/* The boot at @i: a listed one, or past them one of the worst kept (struct ci_findings.worst) */
const struct boot *ci_boot_at(const struct ci_findings *c, long i);
/* A boot's duplicates (@m 0), failed attempts (1) or waste (2), --allow's modules left out */
uint64_t ci_boot_metric(const struct boot *b, int m);
/* Ends the current boot: its figures and summary. 0 or -ENOMEM. */
int ci_boot_close(struct ci_findings *c);
/* A finding the baseline holds against: not --allow'ed, a warning or an error */
bool ci_is_offending(const struct ci_findings *c, const struct agg *a);
extern const char *const ci_gate_names[_GATE_MAX];
