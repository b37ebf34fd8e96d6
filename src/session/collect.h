/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sources/trace/text.h"

/*
 * What report, top and ci share between the sources and the ledger: the module-tree
 * lookups the ledger and the cost model ask (struct ledger_ops), and the reading of a
 * kernel log and a trace into a ledger priced by the cost model. One copy, so that
 * every command names attempts and prices them alike.
 */

struct attempt;
struct catalog;
struct cost_kernel;
struct cost_module;
struct cost_result;
struct ledger;
struct ledger_ops;
struct modindex;
struct kt_root;
struct proc_modules;

/* The module tree behind the lookups; any member may be NULL (that lookup finds none). */
struct modsyms;

struct collect_lookup {
	struct modindex *idx;		/* aliases, dependencies */
	const struct proc_modules *pm;	/* the modules Live before the trace began */
	struct catalog *cat;		/* module files: sizes, the cost model's inputs */
	const struct cost_kernel *k;	/* with @cat: what the kernel allocates */
	/*
	 * Optional: told each module whose file size naming found to fit an attempt, every
	 * one of them when several fit (record copies them, so that its bundle, which holds
	 * only the copied files, names by size as the whole tree does).
	 */
	void (*size_fit)(void *userdata, const char *module);
	void *size_fit_userdata;
	/* Optional: modules' text symbols, for call sites a trace left raw (not owned) */
	const struct modsyms *syms;
	/* collect_cost_max()'s largest candidates over the whole tree, by attempt shape */
	struct {
		unsigned int key;	/* 0: free */
		uint64_t max;
	} max_seen[16];
};

/* The ledger's lookups over @lk (which must outlive the ledger). */
void collect_ledger_ops(struct collect_lookup *lk, struct ledger_ops *ret);
/* cost_compute()'s module lookup; @userdata is a struct collect_lookup. */
const struct cost_module *collect_cost_module(void *userdata, const char *name);
/*
 * cost_compute_bounded()'s largest candidate: among the files whose size fits the
 * attempt's evidence (kread bytes, init_module's length), else among all files.
 */
int collect_cost_max(void *userdata, const struct cost_kernel *k, const struct attempt *a,
		     uint64_t *ret_max);

/*
 * When @cat's module-file cache was asked for but its directory refused: one line on
 * stderr saying the cache is off and why, once a process (the analyses still run).
 */
void collect_note_cache(const struct catalog *cat);
/* Warns about each module file the catalog refuses by its size. */
void collect_catalog_warnings(struct catalog *cat);

/*
 * Module files whose layout the cost model did not believe (catalog_entry.layout_doubt):
 * a warning naming each file and why, once a file.
 */
void collect_note_layouts(struct catalog *cat);

/*
 * modindex_new() with what a caller says when it fails: a warning when the root's
 * binary module indexes are damaged (-EBADMSG), nothing for a tree without them.
 * *ret is NULL then: no aliases or dependencies.
 */
void collect_modindex_new(const struct kt_root *root, const char *moduledir,
			  struct modindex **ret);
/*
 * What is worth saying about a kernel's module tree once kt_system_open_module_tree()
 * opened it: damaged indexes, libkmod's words about modprobe.d, the module-file cache
 * off, module files refused by their size (as the catalog meets them).
 */
struct kt_system;
void collect_module_tree_warn(const struct kt_system *sys);
/* A warning for each of the first messages libkmod had about the root's modprobe.d */
void collect_modindex_config_warn(const struct modindex *idx);
/* The warning for a trace ktrace_order_fwrap() read sorted; nothing for another */
struct ktrace_order;
void collect_trace_order_warn(const char *path, const struct ktrace_order *ord);
/*
 * The warning for a trace read through the text reader's reorder window (@st: its
 * stats), or, for a reader without one, that it went back @back_steps_read times
 */
void collect_trace_window_warn(const char *path, const struct ktrace_stats *st,
			       uint64_t back_steps_read);

/*
 * A table of the root that listed a module or an address range again (@n lines, the
 * first at @line): a warning that they were counted once. Nothing when @n is 0.
 */
void collect_warn_repeated(const char *path, size_t n, unsigned int line);

/*
 * A trace that forked more processes than are kept, with no exits to say they ended:
 * a warning that names and parents of the least recently seen are unknown. Nothing
 * when none was forgotten.
 */
struct ledger;
void collect_warn_forgotten(const char *path, const struct ledger *l);

/* /dev/kmsg records start "prio,seq,usec,flags;": any other log is dmesg-like text */
bool collect_looks_like_kmsg(FILE *f);

/*
 * A live collection's spool, read from its start like a captured file (the offset is
 * the spool's own: the caller seeks back to the end before writing more). -ENOENT
 * when @fd is -1.
 */
int collect_open_spool(int fd, const char *name, FILE **ret_f, char **ret_path);

struct collect_input {
	FILE *trace, *log;		/* either may be NULL */
	const char *trace_path, *log_path;
	/* optional: each trace event, before the ledger sees it; <0 stops the read */
	int (*on_event)(void *userdata, const struct ktrace_event *ev);
	void *userdata;
	bool ledger_only;		/* no cost model: only the attempts are wanted */
	bool klog_runs;			/* struct ledger.klog_runs */
};

struct collect_result {
	struct ledger *ledger;
	struct cost_result *cost;
	struct ktrace_stats trace_stats;
	const char *log_format;		/* "kmsg", "dmesg", or NULL without a log */
	uint64_t log_records;
	unsigned int log_malformed;	/* log lines skipped */
	uint64_t log_other_lines;	/* dmesg text: lines that are not kernel log lines */
	/*
	 * The time span the figures come from: the earliest and latest timestamp of the
	 * trace's events (trace clock seconds; NAN without a trace, or with a counter
	 * clock) and of the log's records (seconds since boot; NAN when none has one).
	 */
	struct collect_window {
		double first, last;
	} trace_window, log_window;
};

/*
 * The log first (the ledger names attempts from it when the trace is done), then the
 * trace, into a new ledger over @lk; then ledger_finish() and the cost model (unless
 * @in->ledger_only). Bad lines
 * are warned about (the first few, then a count), failures logged. 0 or -errno; on
 * failure *ret holds what was made (free it with collect_result_done()).
 */
int collect_read(struct collect_lookup *lk, bool idempotent_finit,
		 const struct collect_input *in, struct collect_result *ret);
void collect_result_done(struct collect_result *r);

/*
 * What collect_read() reads, handed on an attempt at a time and then forgotten, so that
 * memory stays bounded by the attempts of a few seconds of trace (ci over a trace of
 * any length): the ledger is settled as the trace's time goes on, and each attempt, once
 * no later event can change it, goes to @on_attempt in the ledger's order with its cost
 * as collect_read()'s cost_compute_bounded() has it (NULL without a cost model, or with
 * @in->ledger_only); then ledger_forget_settled() drops it. What the callback reads of
 * @l (requests, the process table, attempts[] around @a) is valid during the call only.
 * The attempts, their outcomes, names, requests and costs are collect_read()'s, in its
 * order; the whole read's cost_result (per module, peak_concurrent) is the caller's to
 * sum. *ret is collect_read()'s but for ->cost (NULL) and the ledger, which holds the
 * requests, steps, log findings and stats but only the attempts not forgotten.
 * Everything is kept and handed on at the end, as collect_read() does, where the trace
 * gives no seconds (a counter clock) or goes back in time by more than half a second;
 * see ledger_forget_settled() for what else keeps everything. A negative return of
 * @on_attempt stops the read with it.
 */
struct attempt_cost;
struct collect_each {
	int (*on_attempt)(void *userdata, const struct ledger *l, const struct attempt *a,
			  const struct attempt_cost *cost);
	void *userdata;
	bool keep;			/* forget nothing (tests compare both ways) */
};

int collect_read_each(struct collect_lookup *lk, bool idempotent_finit,
		      const struct collect_input *in, const struct collect_each *each,
		      struct collect_result *ret);

/*
 * Live (top): the spools read as they grow, each byte once, into one ledger that
 * ledger_settle() decides as it goes, so that a refresh costs what came since the last,
 * not the history. collect_stream_feed() reads what the spools (@trace_fd, @kmsg_fd,
 * either -1) gained, from offsets of its own (pread: the writer's are left alone);
 * collect_stream_settle() settles the ledger at the newest event's time and prices the
 * attempts that settled. What was read is punched out of the spools (fallocate(2)
 * PUNCH_HOLE, by 64 KiB; their size stays): they hold what is not read yet, not
 * the history. Where the file system cannot, they keep everything.
 * @lk must outlive the stream. 0 or -errno; bad lines are warned about as
 * collect_read() does.
 */
struct collect_stream;
struct attempt_cost;

int collect_stream_new(struct collect_lookup *lk, bool idempotent_finit, int trace_fd,
		       const char *trace_path, int kmsg_fd, struct collect_stream **ret);
struct collect_stream *collect_stream_free(struct collect_stream *cs);
int collect_stream_feed(struct collect_stream *cs);
int collect_stream_settle(struct collect_stream *cs);
/*
 * Live top on the raw buffers: the trace comes decoded, not as text. What the trace
 * spool holds now (the boot's trace) is read and let out first; from then on
 * collect_stream_feed() reads the log, then calls @pull, which hands the new events to
 * collect_stream_event() (and pages it could not decode to collect_stream_bad()). The
 * events must be those the text parser would give (raw_event_as_text()).
 */
int collect_stream_direct(struct collect_stream *cs, int (*pull)(void *userdata), void *userdata);
int collect_stream_event(struct collect_stream *cs, const struct ktrace_event *ev);
void collect_stream_bad(struct collect_stream *cs, const char *what);
/* The end: what the parsers hold, then ledger_finish(); everything is settled. */
int collect_stream_finish(struct collect_stream *cs);
/* The ledger: attempts [0, n_settled) no longer change. Owned by @cs. */
const struct ledger *collect_stream_ledger(const struct collect_stream *cs);
/* The settled attempts' cost (parallel to them), or NULL without a cost model. */
const struct attempt_cost *collect_stream_cost(const struct collect_stream *cs);
/* The trace's counts (the parser's, and the decoded events'), or NULL without a trace. */
const struct ktrace_stats *collect_stream_trace_stats(const struct collect_stream *cs);
