/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "sources/trace/order.h"
#include "sources/trace/text.h"
#include "session/collect.h"

/*
 * A saved trace and kernel log read into one ledger, priced by the cost model: the
 * files named on the command line, a root's own copies (its tracefs trace, its
 * capture/kmsg.raw or dmesg.txt), or spools a live collection or a boot capture wrote.
 * gzip, xz and zstd files are read decompressed, a trace out of time order sorted.
 */

struct kt_system;
struct ledger;
struct ledger_summary;
struct proc_modules;

struct saved_inputs {
	const char *trace_arg, *log_arg;	/* named on the command line, or NULL */
	bool want_trace, want_log;		/* false: --no-trace, --no-log */
	/* spools to read instead (a live collection's, a boot's capture): -1 none */
	int trace_fd, log_fd;
	const char *trace_fd_name, *log_fd_name;
};

/* A root default that is there but cannot be read: left out, worth a warning */
struct saved_skipped {
	const char *path;
	int err;
};

struct saved_capture {
	struct collect_lookup lookup;	/* the ledger's lookups: live as long as it */
	struct modsyms *syms;		/* a bundle's module symbols (record), or NULL */
	struct ledger *ledger;		/* NULL: neither a trace nor a log */
	struct ledger_summary *sum;
	struct cost_result *cost;
	struct collect_result res;	/* stats, windows, the log's format */
	char *trace_path, *log_path;	/* NULL: not read */
	struct ktrace_order order;	/* how a trace file's time order went (not spools) */
	bool has_order;
	/* when an input could not be opened: which, and its compression when refused */
	const char *failed_what, *failed_path, *failed_compression;
	bool summary_failed;		/* the ledger was read, summing it up ran out of memory */
	struct saved_skipped skipped[4];
	size_t n_skipped;
};

/*
 * Opens and reads the inputs of @in over @sys's module tree, @pm the modules Live before
 * the capture (may be NULL). 0, also when there was nothing to read (->ledger NULL);
 * -errno with ->failed_* set when an input could not be opened
 * (-EPROTONOSUPPORT: a compression that is not read), or when reading failed.
 * saved_capture_done() in every case.
 */
int saved_capture_read(const struct kt_system *sys, const struct proc_modules *pm,
		       const struct saved_inputs *in, struct saved_capture *ret);
void saved_capture_done(struct saved_capture *c);
