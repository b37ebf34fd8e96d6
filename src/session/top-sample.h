/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cost/cost.h"
#include "cost/loadpath.h"
#include "ledger/ledger.h"
#include "sources/proc-modules.h"

/*
 * What a top sampler (session/top-replay.h: a replayed capture; session/top-live.h: the
 * running system or a root's files polled) hands over at every refresh. The top view
 * takes it and knows no source; a sampler knows no view.
 */

/* A module the kernel has at the sample's time. */
struct top_modstate {
	const char *name;		/* raw bytes from the kernel; owned by the sampler */
	bool present;			/* in proc/modules now */
	enum module_state state;
	bool has_size;
	uint64_t size;
	/* present: the modules using it (proc/modules' "used by"); owned by the sampler */
	const char *const *holders;
	size_t n_holders;
};

enum top_source_state {
	TOP_SRC_LIVE,			/* read from the running kernel at every refresh */
	TOP_SRC_REPLAY,			/* from a capture, following its clock */
	TOP_SRC_ONCE,			/* read once (a captured root's history) */
	TOP_SRC_MISSING,
};

struct top_source {
	const char *name;		/* "trace", "kmsg", "vmallocinfo", ... */
	enum top_source_state state;
	const char *why;		/* MISSING: the reason ("EACCES", "not built"), or NULL */
};

/* File facts for the module detail, looked up on demand (may be slow). */
struct top_module_info {
	bool found;
	char path[512];			/* the module file, or "" */
	uint64_t file_size;
	bool compressed;
	const char *compression;	/* "xz", "zstd", "gzip", or NULL */
	bool has_decompressed;
	uint64_t decompressed_size;
	bool has_layout;
	uint64_t core_size, init_size;	/* what the module's layout allocates */
	const char *layout_from;	/* "file" (laid out as the kernel would), "sys/module" */
	size_t n_percpu_aliases;	/* cpu:type, ACPI0007, LNXCPU aliases: one load per CPU */
	char percpu_example[128];
	size_t n_aliases;
	unsigned int ncpus;		/* 0: unknown */
	bool has_risk;			/* what one load per CPU costs (cost/percpu.h) */
	uint64_t risk_worst, risk_merged;
	/* what modprobe loads first (modules.dep, softdep pre:), ", "-separated */
	bool has_depends;
	char depends[256];
	/*
	 * The file's .modinfo (libkmod). Strings are raw bytes from the file (escaped when
	 * shown), cut to fit, "" when absent; lists are ", "-separated, the first ones.
	 */
	bool has_modinfo;
	int modinfo_err;		/* !has_modinfo: why (-errno), 0: not asked */
	char description[160];
	char author[160];
	char license[64];
	char version[64];
	char signer[96];
	size_t n_modinfo_aliases;
	size_t n_firmware;
	char firmware[160];
	size_t n_parms;
	char parms[200];
};

struct top_sample {
	double now;			/* sample clock, seconds (trace clock in replay) */
	/*
	 * Where the clock started: the rates of the first sample are over now - start.
	 * NAN: the first sample has no rate (what it holds was there before the clock
	 * started, as a captured root's history read at once).
	 */
	double start;

	/* header */
	const char *release;		/* NULL: unknown */
	const struct loadpath *lp;
	const char *decompress;		/* "in-kernel (xz)", "userspace (.ko.xz)", ... */
	bool has_vmalloc;
	uint64_t vmalloc_used, vmalloc_total, vmalloc_modules;
	const char *vmalloc_from;	/* "proc/vmallocinfo", "snapshot after-live-storm" */
	uint64_t lost_events;
	const struct top_source *sources;
	size_t n_sources;
	const char *step;		/* the trace's current STEP marker, or NULL */
	bool replay;
	double replay_start, replay_end, speed;
	bool finished;			/* replay: nothing more will come */
	double skipped;			/* replay: idle seconds jumped over before this sample */
	bool measured;			/* vmap allocations traced: WASTED (meas.) is real */
	const char *measured_why;	/* !measured: why not ("no vmap events in the trace") */

	/* the kernel's modules now */
	const struct top_modstate *mods;
	size_t n_mods;

	/*
	 * Attempts: @done lists indices into ledger->attempts in completion order (live: as
	 * they settle, by end within a refresh); it only grows, and the attempts it names
	 * no longer change. Requests 0..n_requests and log findings 0..n_klog of the ledger
	 * are visible.
	 */
	const struct ledger *ledger;	/* NULL: no attempt source */
	const size_t *done;
	size_t n_done;
	size_t n_requests;
	size_t n_klog;
	const struct attempt_cost *cost;	/* parallel to ledger->attempts, or NULL */
	/*
	 * Live: a request's modprobe and whether it was needless may still be decided
	 * after it is visible, until it is one of the first @n_requests_final; the counts
	 * follow the changes.
	 */
	bool requests_change;
	size_t n_requests_final;

	/* module detail: fills *ret, 0 or -errno. Optional. */
	int (*module_info)(void *userdata, const char *module, struct top_module_info *ret);
	/*
	 * The module of the tree that exports @symbol (modules.symbols), for the detail's
	 * missing symbols: 0 with its name in @buf, -ENOENT when none does, or -errno.
	 * Optional.
	 */
	int (*symbol_module)(void *userdata, const char *symbol, char *buf, size_t bufsz);
	void *userdata;
};
