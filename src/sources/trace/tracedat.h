/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "util/kt-err.h"
#include "event.h"

/*
 * trace-cmd's trace.dat, read with libtracecmd and decoded with libtraceevent against
 * the event formats the file carries. Each record is printed the way `trace-cmd report`
 * prints it (libtraceevent's print formats and trace-cmd's handlers, e.g. the kernel
 * stack) and goes through the same push parser as a text trace, so a trace.dat and its
 * `trace-cmd report` give the same events. Lost events (a record's missed_events) come
 * as "[LOST n EVENTS]" lines.
 *
 * With several buffers (trace-cmd record -B NAME), the one with the most module-loading
 * events is read (the top level on a tie).
 */
#define TRACEDAT_MAGIC "\x17\x08\x44tracing"
#define TRACEDAT_MAGIC_LEN 10

/* Do these first bytes start a trace.dat? */
bool tracedat_sniff(const void *head, size_t len);

/*
 * Are the sizes the trace.dat open on @fd declares (its options, sections, compressed
 * blocks, CPU counts and data, page size) ones that fit in it? libtracecmd allocates
 * what they say before reading, so this comes first. 0, or -EINVAL with the reason in
 * *ret_why (static text), or -errno when @fd cannot be examined.
 */
int tracedat_check_sizes(int fd, const char **ret_why);

/*
 * Reads the trace.dat open on @fd (not closed; read from offset 0), as
 * ktrace_events_read_file() reads text. @path names it in errors. 0, or -errno with
 * *reterr: -EINVAL when libtracecmd cannot read it.
 */
int tracedat_read_fd(int fd, const char *path, const struct ktrace_parser_ops *ops,
		     void *userdata, struct ktrace_stats *ret_stats, struct kt_err *reterr);
