/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * A text trace whose time goes backwards: per-CPU trace files put one after another
 * (per_cpu/cpuN/trace), each in order, the whole not. The ledger pairs a load's events
 * in time order, so such a trace is read sorted by time: each event line with the
 * lines that belong to it (its stack frames, headers), stable for equal times.
 */
struct ktrace_order {
	bool checked;		/* the trace was looked at (a regular file, small enough) */
	uint64_t back_steps;	/* event lines earlier than the event line before them */
	uint64_t first_line;	/* the first of those, 1-based; 0 when none */
	bool sorted;		/* *f now reads the trace sorted by time */
};

/* The biggest trace read sorted; a bigger one is read as it is, unchecked */
#define KTRACE_ORDER_MAX (32u << 20)
/* Longer lines are no event lines to the reader (it skips them): none here either */
#define KTRACE_ORDER_LINE_MAX (64u * 1024)

/*
 * Looks at the trace *@f (not read from yet) through its fd; when its time goes back,
 * replaces *@f (closing it) by a FILE reading the trace sorted, all of it in memory
 * (at most KTRACE_ORDER_MAX bytes and a record a line). A FILE without a file (a
 * pipe, decompressed text) is left as it is, unchecked. 0 or -ENOMEM / -errno.
 */
int ktrace_order_fwrap(FILE **f, struct ktrace_order *ret);
