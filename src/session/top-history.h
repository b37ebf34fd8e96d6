/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ledger/ledger.h"
#include "sources/proc-modules.h"
#include "sources/trace/text.h"
#include "sources/vmallocinfo.h"
#include "util/kt-err.h"
#include "util/macro.h"
#include "session/collect.h"
#include "session/top-sample.h"
#include "session/system.h"

/*
 * What both top samplers share: how they say what they could not use, the vmalloc
 * figures, the load history of a root (its trace and kernel log into a ledger, with a
 * timeline for the replay) and the module detail the view asks for.
 */

/*
 * A sampler prints nothing: what it could not use goes to @warn, one text each (as it
 * would follow "warning: "), for the command to say when the terminal is its own.
 */
struct top_warn {
	void (*warn)(void *userdata, const char *text);
	void *userdata;
};

/*
 * Why a sampler could not start or go on, for the command to say beside the -errno:
 * a file it could not read (@has_err), or what failed (@what, static: "WHAT: error").
 */
struct top_failure {
	bool has_err;
	struct kt_err err;
	const char *what;
};

void top_warnf(const struct top_warn *w, const char *fmt, ...) _printf_format_(2, 3);
/* A root file that is there but could not be used; a missing one (-ENOENT) is no news. */
void top_warn_unusable(const struct top_warn *w, const char *path, int r,
		       const struct kt_err *e);

/* vmalloc figures of one vmallocinfo: what VmallocUsed counts, and the module areas */
struct top_vm_figures {
	uint64_t used, modules;
	size_t areas;
};

/* One area's share of the figures */
void top_vm_area_figures(const struct vmalloc_area *a, uint64_t *used, uint64_t *modules);
void top_vm_figures_of(const struct vmallocinfo *vi, struct top_vm_figures *ret);

/* --- the load history: trace and kernel log into a ledger, with a timeline ------------ */

struct hindex;

enum top_tl_kind {
	TOP_TL_LOAD,
	TOP_TL_FREE,
};

struct top_tl_event {
	double ts;
	enum top_tl_kind kind;
	size_t mod; /* index into the history's module names */
};

struct top_history {
	struct ledger *ledger;
	struct cost_result *cost;
	struct ktrace_stats trace_stats;
	bool has_trace, has_log;
	const char *log_format;
	char *trace_path, *log_path;
	double t0, t_end;
	bool have_t0;
	/* module_load/module_free events, in trace order */
	struct top_tl_event *tl;
	size_t n_tl, cap_tl;
	char **names; /* every module name the trace or a snapshot named */
	size_t n_names, cap_names;
	struct hindex *name_index; /* positions in names[] by name */
	/* LOST events: when, and how many */
	double *lost_ts;
	uint64_t *lost_n;
	size_t n_lost, cap_lost;
	const struct proc_modules *pm; /* final, for live_at_start */
};

/*
 * Reads the root's trace and kernel log, as `report` does by default under --root,
 * into @h (zeroed by the caller; @lk set but for the catalog and kernel). 0 or -errno;
 * top_history_done() in either case.
 */
int top_history_read(struct top_history *h, const struct kt_system *st,
		     struct collect_lookup *lk, const struct top_warn *w);
void top_history_done(struct top_history *h);
/* The index of module name @name (@len bytes) in h->names, added when new; -ENOMEM. */
long top_history_name(struct top_history *h, const char *name, size_t len);

/* --- module detail: the file, its aliases ------------------------------------------ */

/* The userdata of top_sample's module_info and symbol_module */
struct top_detail {
	const struct kt_system *st;
	unsigned int trace_ncpus; /* from the trace header, 0 if none */
};

int top_detail_module_info(void *userdata, const char *module, struct top_module_info *ret);
int top_detail_symbol_module(void *userdata, const char *symbol, char *buf, size_t bufsz);
