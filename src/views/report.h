/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "cost/cost.h"
#include "cost/loadpath.h"
#include "cost/percpu.h"
#include "ledger/ledger.h"
#include "ledger/summary.h"
#include "cost/modmem.h"
#include "output/output.h"
#include "session/snapshot.h"
#include "sources/kconfig.h"
#include "sources/meminfo.h"
#include "sources/moduledir.h"
#include "sources/modstats.h"
#include "sources/proc-modules.h"
#include "sources/sys-module.h"
#include "sources/vmallocinfo.h"


/* report --boot: where the boot's capture came from and how much of the boot it holds */
struct report_boot {
	const char *source;		/* "kernel command line", "kmodtop-boot.service bundle" */
	const char *trace;		/* the trace read, NULL when none */
	const char *log;		/* the kernel log read, NULL when none */
	const char *boot_id;		/* NULL when unknown */
	double first_event;		/* the trace's first event, s after kernel start; NAN */
	double first_attempt;		/* its first load attempt; NAN when none */
	bool log_partial;		/* /dev/kmsg lost the boot's first records */
	const char *changed;		/* what the buffer lost of its boot setup, or NULL */
	bool has_lost;			/* per_cpu stats were read */
	uint64_t lost;			/* events the full buffer dropped or overwrote */
	/* Live modules the capture has no successful load of: loaded before it began */
	const char *const *untraced;
	size_t n_untraced;
};

/* Everything `report` shows, collected by cmd/report.c; the view only renders it. */
struct report_data {
	const char *root;
	bool live;
	const char *release;
	const char *release_from;	/* "proc/sys/kernel/osrelease", "uname", "--kernel-release" */
	const char *boot_id;		/* proc/sys/kernel/random/boot_id, or NULL */
	const char *moduledir;
	struct source_status src[_SRC_MAX];

	struct loadpath lp;
	const struct proc_modules *pm;
	const struct sys_module *sm;	/* parallel to pm->mods; has_* false when unread */
	const struct vmallocinfo *vi;
	const struct meminfo *mi;
	bool has_tainted;
	uint64_t tainted;
	const struct modstats *ms;
	const struct kconfig *kc;
	const char *sysfs_compression;	/* sys/module/compression, or NULL */
	bool in_kernel_decompression;	/* the session's judgement (session/system.h) */
	bool has_moduledir;
	struct moduledir_stats mds;
	const struct modmem *mm;

	/* load attempts, when a trace or a kernel log was read */
	const struct ledger *ledger;
	const struct ledger_summary *sum;
	const struct cost_result *cost;	/* estimates, with the ledger */
	const char *trace_path;		/* NULL: no trace read */
	const struct ktrace_stats *trace_stats;
	const char *log_path;		/* NULL: no kernel log read */
	const char *log_format;
	uint64_t log_records, log_malformed, log_other_lines;
	/* the span of the trace's and the log's timestamps (NAN: none), seconds */
	double trace_first, trace_last, log_first, log_last;
	bool with_attempts;		/* --attempts: the attempt list in text too */
	const struct report_boot *boot;	/* report --boot, else NULL */

	/* per-CPU alias risk */
	unsigned int ncpus;
	const char *ncpus_from;		/* NULL: unknown */
	const char *percpu_alias_from;
	struct percpu_alias_risk percpu[64];
	size_t n_percpu;
	/* per-CPU storms the capture shows, on capture_ncpus, predicted at ncpus */
	unsigned int capture_ncpus;	/* 0: unknown */
	struct percpu_storm storms[64];
	size_t n_storms;
	uint64_t storms_wasted_at_n;
};
#define REPORT_MAX_PERCPU 64

int report_render(const struct report_data *d, struct out *o);
/* The configuration's module compression: "xz", "zstd", "gzip", "none", or NULL */
const char *report_module_compression(const struct kconfig *kc);
/* The JSON key of a vmap class in wasted_vmap.by_class: "kread", "user_copy", ... */
const char *report_vmap_class_key(int cls);
/* The load-attempt parts (views/report-ledger.c). */
int report_render_ledger(const struct report_data *d, struct out *o);
int report_render_percpu(const struct report_data *d, struct out *o);
struct vmsample;
/*
 * The "vmalloc_samples" section of a live collection: vmallocinfo every @interval_ms,
 * and @err when reading it stopped the sampling.
 */
struct om;
/*
 * The report's figures as metrics (views/report-metrics.c): per module, per alias,
 * for the whole capture, and the kernel's. Same data as the JSON, nothing recomputed.
 */
int report_render_metrics(const struct report_data *d, struct om *m);
/* Label names the metrics use themselves (NULL-terminated): --label may not take them */
extern const char *const report_metric_label_names[];
void report_render_vmsample(const struct vmsample *s, unsigned int interval_ms, int err,
			    struct out *o);
struct live_status;
/* The "live" section (views/report-live.c): what a live collection had, lacked and lost */
void report_render_live(const struct live_status *st, struct out *o);

struct boot_capture;
/*
 * report --boot: the capture's source, when it began, and the Live modules of @d->pm it
 * has no load of (loaded before tracing started: an initramfs, a late service), into
 * @rb; those names in *ret_untraced (the caller frees the array, not the names). 0 or
 * -ENOMEM.
 */
int report_boot_describe(const struct boot_capture *bc, const struct report_data *d,
			 struct report_boot *rb, const char ***ret_untraced);

