/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/kt-err.h"
#include "util/root.h"
#include "event.h"

/*
 * Trace events as text: the tracefs "trace" and "trace_pipe" files and "trace-cmd
 * report". Two layers, so that tests and the fuzzer reach one line without I/O or
 * state: ktrace_parse_line() is pure and knows one line; struct ktrace_parser is a
 * push parser that attaches "<stack trace>" blocks to their event and hands complete
 * events to a callback.
 *
 * Line shapes, told apart per line:
 *   tracefs:   "%16s-%-7d " ["(%7d) "] "[%03d] " [flags] " %5lu.%06lu: " body
 *              (kernel/trace/trace_output.c trace_print_context(); "%-5d" before 5.x)
 *   trace-cmd: "%16s-%-5d [%03d]" [" " flags] " %6lu.%06lu: " name ": " padding fields
 *              (tracecmd/trace-read.c trace_show_data(); names padded to 20 columns)
 * The body differs for syscalls: tracefs prints "sys_finit_module(fd: 3, ...)" and
 * "sys_finit_module -> 0x0" (trace_syscalls.c), trace-cmd prints the format file's
 * "sys_enter_finit_module: fd: 0x00000003, ..." and "sys_exit_finit_module: 0x0".
 */


/*
 * Parses one line (no newline; a trailing '\r' is ignored). Strings in *ret_line point
 * into @line. 0, or -EINVAL with *reterr_what (static text) for a malformed line.
 */
int ktrace_parse_line(const char *line, size_t len, struct ktrace_line *ret_line,
		       const char **reterr_what);

/*
 * For decoders of binary records (tep-decode.c): a marker's text as the parser takes
 * it ("STEP name" sets marker.step; the kind is set too), and the sizes the parser
 * takes for a vmap area (none larger than the kernel half of a 57-bit space).
 */
void ktrace_marker_set(struct ktrace_event *ev, const char *text, size_t len);
bool ktrace_vmap_size_possible(uint64_t size);

/*
 * The time of an event line (not a LOST line), also of a known event whose fields do not
 * decode (*@ret_decoded false): what orders the lines. False for any other line.
 */
bool ktrace_line_time(const char *line, size_t len, uint64_t *ret_ns, bool *ret_decoded);

/* Splits "sym+0x1c/0x50 [mod]" and friends. Never fails; sym may come out empty. */
void ktrace_sym_split(const char *s, size_t len, struct ktrace_sym *ret);

const char *ktrace_event_kind_name(enum ktrace_event_kind kind);

struct ktrace_parser;

/* @path names the input in errors ("sys/kernel/tracing/trace"); it is copied. */
int ktrace_parser_new(const char *path, const struct ktrace_parser_ops *ops,
		       void *userdata, struct ktrace_parser **ret_parser);
struct ktrace_parser *ktrace_parser_free(struct ktrace_parser *p);

/*
 * Feeds one line (without its newline). Events come out in input order, each once the
 * next event on its CPU has arrived (its stack frames may follow other CPUs' events)
 * or after a bounded window, and at finish(). Malformed lines are counted, passed to
 * bad_line and skipped: 0. Negative only for -ENOMEM or the event callback's error.
 */
int ktrace_parser_feed(struct ktrace_parser *p, const char *line, size_t len);
/* The next line fed is line @lineno of the input (lines given in another order). */
void ktrace_parser_set_line(struct ktrace_parser *p, unsigned int lineno);
/* A line the reader refused (too long, NUL byte): counted and reported as @what. 0. */
int ktrace_parser_skip_line(struct ktrace_parser *p, const char *what);
/*
 * Live: an event waits for its stack trace until the next event of its CPU, and a quiet
 * CPU would hold it (and all after it) back. Those more than @age seconds older than
 * the newest event fed are let out: their stacks, written right after them, came.
 */
int ktrace_parser_flush_older(struct ktrace_parser *p, double age);
/* Emits everything still pending. */
int ktrace_parser_finish(struct ktrace_parser *p);
/* Owned by @p; valid until ktrace_parser_free(). */
const struct ktrace_stats *ktrace_parser_stats(const struct ktrace_parser *p);

/*
 * Reads a whole trace text. 0, or -errno; *reterr filled for I/O errors. Bad lines do
 * not fail the read: they go to ops->bad_line and the stats. @ret_stats may be NULL.
 * read.h's reader also takes trace-cmd's binary trace.dat.
 */
int ktrace_text_read_file(FILE *f, const char *path,
			   const struct ktrace_parser_ops *ops, void *userdata,
			   struct ktrace_stats *ret_stats, struct kt_err *reterr);
