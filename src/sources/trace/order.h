/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "event.h"

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

/*
 * For a text trace that cannot be sorted whole (compressed, a pipe, too big): a bounded
 * window of its records (an event line with the lines after it), let out to the parser
 * oldest first once the window is full, so lines slightly out of time order come out
 * in order. A record older than one already let out is too late: it goes out as it is,
 * counted in the parser's stats (back_steps, late, late_line) for a warning. Lines keep
 * their numbers in the input. The window counts in ci's memory, whose target is 32 MiB
 * in all: 2 MiB of it at most.
 */
#define KTRACE_REORDER_RECORDS 16384
#define KTRACE_REORDER_BYTES (2u << 20)

struct ktrace_parser;
struct ktrace_reorder;

int ktrace_reorder_new(struct ktrace_parser *p, struct ktrace_reorder **ret);
struct ktrace_reorder *ktrace_reorder_free(struct ktrace_reorder *o);
/* Line @lineno of the input (without its newline). 0, or the parser's error. */
int ktrace_reorder_feed(struct ktrace_reorder *o, const char *line, size_t len,
			 unsigned int lineno);
/* Line @lineno was refused by the reader (@what: static text), in its place */
int ktrace_reorder_skip_line(struct ktrace_reorder *o, const char *what, unsigned int lineno);
/* Lets everything out, then finishes the parser. Fills its stats' order counts. */
int ktrace_reorder_finish(struct ktrace_reorder *o, struct ktrace_stats *ret_stats);
