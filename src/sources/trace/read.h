/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdio.h>

#include "util/kt-err.h"
#include "util/root.h"
#include "event.h"

/* where the kernel keeps the trace of the top instance, under a root */
#define TRACEFS_TRACE_PATH "sys/kernel/tracing/trace"

/*
 * Reads a saved trace, whichever form it has: trace-cmd's binary trace.dat (told by its
 * magic bytes) or text (tracefs "trace", "trace-cmd report"). The one place that tells
 * the two apart, so that neither reader needs the other.
 */

/*
 * Reads a whole trace. 0, or -errno; *reterr filled for I/O errors. Bad lines do
 * not fail the read: they go to ops->bad_line and the stats. @ret_stats may be NULL.
 * Text goes through a bounded reorder window (order.h): its stats say where its time
 * went back, and how often too far for the window.
 */
int ktrace_events_read_file(FILE *f, const char *path,
			     const struct ktrace_parser_ops *ops, void *userdata,
			     struct ktrace_stats *ret_stats, struct kt_err *reterr);
/* @relpath NULL means "sys/kernel/tracing/trace". */
int ktrace_events_read(const struct kt_root *root, const char *relpath,
			const struct ktrace_parser_ops *ops, void *userdata,
			struct ktrace_stats *ret_stats, struct kt_err *reterr);
