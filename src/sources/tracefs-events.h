/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/kt-err.h"
#include "util/root.h"

/*
 * Trace events as text: the tracefs "trace" and "trace_pipe" files and "trace-cmd
 * report". Two layers (house style 8.5): tracefs_parse_line() is pure and knows one
 * line; struct tracefs_parser is a push parser that attaches "<stack trace>" blocks
 * to their event and hands complete events to a callback.
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

/* A piece of the input line; not NUL-terminated. */
struct tracefs_str {
	const char *s;
	size_t len;
};

enum tracefs_event_kind {
	TRACEFS_EV_UNKNOWN,		/* passed through with raw fields, counted */
	TRACEFS_EV_MODULE_REQUEST,
	TRACEFS_EV_MODULE_LOAD,
	TRACEFS_EV_MODULE_FREE,
	TRACEFS_EV_MODULE_GET,
	TRACEFS_EV_MODULE_PUT,
	TRACEFS_EV_SYS_ENTER_FINIT_MODULE,
	TRACEFS_EV_SYS_EXIT_FINIT_MODULE,
	TRACEFS_EV_SYS_ENTER_INIT_MODULE,
	TRACEFS_EV_SYS_EXIT_INIT_MODULE,
	TRACEFS_EV_SYS_ENTER_DELETE_MODULE,
	TRACEFS_EV_SYS_EXIT_DELETE_MODULE,
	TRACEFS_EV_SCHED_PROCESS_FORK,
	TRACEFS_EV_SCHED_PROCESS_EXEC,
	TRACEFS_EV_TASK_RENAME,		/* task:task_rename: prctl(PR_SET_NAME), exec */
	TRACEFS_EV_MARKER,		/* tracing_mark_write (ftrace:print) */
	TRACEFS_EV_ALLOC_VMAP_AREA,	/* vmalloc:alloc_vmap_area tracepoint (6.2+) */
	/* a kprobe on alloc_vmap_area (the 6.1 capture) */
	TRACEFS_EV_ALLOC_VMAP_AREA_KPROBE,
	TRACEFS_EV_FREE_VMAP_AREA_NOFLUSH,
	TRACEFS_EV_PURGE_VMAP_AREA_LAZY,
	/* kmodtop's naming probes (sources/load-probes.h) */
	TRACEFS_EV_PROBE_KREAD,		/* kmodtop_kread: kernel_read_file() of a module */
	TRACEFS_EV_PROBE_NAME,		/* kmodtop_name: find_module_all(), the dup check */
	TRACEFS_EV_PROBE_LAYOUT,	/* kmodtop_layout: a module's final memory */
	TRACEFS_EV_KPROBE,		/* any other "(sym+0x0/0x..) args" probe event */
	TRACEFS_EV_STACK,		/* "<stack trace>": tracefs_parse_line() only */
	TRACEFS_EV_LOST,		/* "CPU:1 [LOST 12 EVENTS]", "CPU:1 [LOST EVENTS]" */
	TRACEFS_EV_SCHED_PROCESS_EXIT,
	TRACEFS_EV__MAX
};

/* "sym+0x1c/0x50 [mod]", "sym", or "0xffffffffc027f0c8" (%pS / %ps / unsymbolised) */
struct tracefs_sym {
	struct tracefs_str text;	/* as printed */
	struct tracefs_str sym;		/* the name (or the hex address) alone */
	struct tracefs_str module;	/* inside "[...]", or empty */
};

struct tracefs_frame {
	struct tracefs_sym fn;
	uint64_t addr;			/* from a binary record; 0 from text */
	bool user;			/* from a "<user stack trace>" block */
};

struct tracefs_module_request {
	struct tracefs_str name;	/* alias as requested: "net-pf-2-proto-132" */
	bool wait;
	struct tracefs_sym call_site;
};

struct tracefs_module_load {
	struct tracefs_str name;
	struct tracefs_str taints;	/* letters ("OE"), empty when untainted */
};

struct tracefs_module_refcnt {		/* module_get, module_put */
	struct tracefs_str name;
	struct tracefs_sym call_site;
	int refcnt;			/* raw: /sys/module/X/refcnt + 1 */
};

struct tracefs_sys_finit_module {
	int fd;
	uint64_t uargs;			/* user address */
	unsigned int flags;		/* MODULE_INIT_* */
};

struct tracefs_sys_init_module {
	uint64_t umod;
	uint64_t len;
	uint64_t uargs;
};

struct tracefs_sys_delete_module {
	uint64_t name_user;
	unsigned int flags;
};

struct tracefs_sys_exit {
	int64_t ret;			/* -errno on failure */
};

struct tracefs_sched_fork {
	struct tracefs_str comm;
	int pid;
	struct tracefs_str child_comm;
	int child_pid;
};

struct tracefs_sched_exec {
	struct tracefs_str filename;
	int pid;
	int old_pid;
};

struct tracefs_sched_exit {
	struct tracefs_str comm;
	int pid;
};

struct tracefs_task_rename {
	int pid;			/* the line's pid when the kernel omits it (6.13+) */
	struct tracefs_str oldcomm;
	struct tracefs_str newcomm;
};

struct tracefs_marker {
	struct tracefs_str text;	/* what was written, without the newline */
	/* "storm-live-xfs" when text is "STEP storm-live-xfs" */
	struct tracefs_str step;
};

struct tracefs_vmap_alloc {		/* ALLOC_VMAP_AREA and ALLOC_VMAP_AREA_KPROBE */
	/* va_start; 0 for the kprobe (entry has no result) */
	uint64_t addr;
	uint64_t size;			/* includes the guard page */
	uint64_t align, vstart, vend;
	bool failed;
	bool has_result;		/* tracepoint: addr and failed are known */
	bool has_align, has_range;	/* kprobe: only what the probe fetched */
};

struct tracefs_vmap_free {		/* free_vmap_area_noflush */
	uint64_t addr;
	uint64_t nr_lazy, nr_lazy_max;
};

struct tracefs_vmap_purge {		/* purge_vmap_area_lazy */
	uint64_t start, end;
	unsigned int npurged;
};

struct tracefs_kprobe {
	struct tracefs_sym probe;	/* inside the parentheses */
	struct tracefs_str args;	/* "size=20480 ..." */
};

struct tracefs_probe_kread {
	int64_t size;			/* the file's i_size: what the kernel reads */
	int64_t id;			/* enum kernel_read_file_id; -1 when not fetched */
	struct tracefs_str path;	/* the file's base name; empty when not fetched */
};

struct tracefs_probe_name {
	struct tracefs_str name;	/* the module's name, as the kernel checks it */
};

struct tracefs_probe_layout {
	uint64_t size;			/* the bytes asked of execmem_alloc()/module_alloc() */
};

struct tracefs_lost {
	uint64_t count;
	/* "[LOST EVENTS]" or "[EVENTS DROPPED]": some lost, how many unknown (count 0) */
	bool uncounted;
};

enum tracefs_line_format {
	TRACEFS_FMT_TRACE,		/* tracefs trace / trace_pipe */
	TRACEFS_FMT_TRACE_CMD,		/* trace-cmd report */
	TRACEFS_FMT_EITHER,		/* nothing on the line tells them apart */
};

struct tracefs_event {
	enum tracefs_event_kind kind;
	enum tracefs_line_format format;
	/* may hold spaces, dashes, escape bytes; "<...>" */
	struct tracefs_str comm;
	int pid;
	int tgid;			/* -1 unless the record-tgid column is shown */
	unsigned int cpu;
	struct tracefs_str flags;	/* irqs-off etc. ("d..1."), empty when absent */
	double ts;			/* seconds */
	uint64_t ts_ns;			/* exact; for counter clocks the raw counter */
	/* fraction digits: 6 (usec), 9 (nsec), 0 (counter) */
	unsigned int ts_digits;
	/* "module" when printed "module:module_load", else empty */
	struct tracefs_str system;
	/* as printed: "module_load", "sys_finit_module", ... */
	struct tracefs_str name;
	struct tracefs_str fields;	/* the raw text after the name */
	bool user_stack;		/* STACK: "<user stack trace>" */
	union {
		struct tracefs_module_request module_request;
		struct tracefs_module_load module_load;	/* also module_free (name only) */
		struct tracefs_module_refcnt module_refcnt;
		struct tracefs_sys_finit_module finit_module;
		struct tracefs_sys_init_module init_module;
		struct tracefs_sys_delete_module delete_module;
		struct tracefs_sys_exit sys_exit;
		struct tracefs_sched_fork fork;
		struct tracefs_sched_exec exec;
		struct tracefs_sched_exit exit;
		struct tracefs_task_rename rename;
		struct tracefs_marker marker;
		struct tracefs_vmap_alloc vmap_alloc;
		struct tracefs_vmap_free vmap_free;
		struct tracefs_vmap_purge vmap_purge;
		struct tracefs_lost lost;
		struct tracefs_probe_kread probe_kread;
		struct tracefs_probe_name probe_name;
		struct tracefs_probe_layout probe_layout;
	};
	/* KPROBE and ALLOC_VMAP_AREA_KPROBE: where the probe sits, what it fetched */
	struct tracefs_kprobe kprobe;
	/* Set by the parser only: the stack blocks that followed the event. */
	const struct tracefs_frame *frames;
	size_t n_frames;
};

enum tracefs_line_kind {
	TRACEFS_LINE_EVENT,		/* ev filled (kind may be STACK or LOST) */
	TRACEFS_LINE_FRAME,		/* frame filled: " => fn" */
	TRACEFS_LINE_HEADER,		/* "#..." comments, "cpus=N", blank lines */
};

struct tracefs_line {
	enum tracefs_line_kind kind;
	struct tracefs_event ev;
	struct tracefs_frame frame;
	int ncpus;			/* HEADER: "#P:N" or "cpus=N"; else -1 */
	/* HEADER: "entries-in-buffer/entries-written"; else -1 */
	int64_t entries, written;
};

/*
 * Parses one line (no newline; a trailing '\r' is ignored). Strings in *ret_line point
 * into @line. 0, or -EINVAL with *reterr_what (static text) for a malformed line.
 */
int tracefs_parse_line(const char *line, size_t len, struct tracefs_line *ret_line,
		       const char **reterr_what);

/*
 * For decoders of binary records (tep-decode.c): a marker's text as the parser takes
 * it ("STEP name" sets marker.step; the kind is set too), and the sizes the parser
 * takes for a vmap area (none larger than the kernel half of a 57-bit space).
 */
void tracefs_marker_set(struct tracefs_event *ev, const char *text, size_t len);
bool tracefs_vmap_size_possible(uint64_t size);

/* Splits "sym+0x1c/0x50 [mod]" and friends. Never fails; sym may come out empty. */
void tracefs_sym_split(const char *s, size_t len, struct tracefs_sym *ret);

const char *tracefs_event_kind_name(enum tracefs_event_kind kind);

struct tracefs_stats {
	uint64_t lines;
	uint64_t events;		/* emitted, including UNKNOWN and LOST */
	uint64_t by_kind[TRACEFS_EV__MAX];
	uint64_t unknown;		/* events of kinds this parser does not decode */
	uint64_t header_lines;
	uint64_t malformed;		/* lines skipped, reported through bad_line */
	uint64_t stacks;		/* "<stack trace>" entries attached to an event */
	uint64_t frames;
	uint64_t orphan_stacks;		/* stack entries with no event to attach to */
	uint64_t lost_events;		/* sum of the LOST counts */
	uint64_t lost_uncounted;	/* LOST lines without a count */
	int ncpus;			/* from the header, -1 if never seen */
	int64_t entries, written;	/* from the tracefs header, -1 if never seen */
};

struct tracefs_parser_ops {
	/*
	 * A complete event with its stack frames. Everything in @ev is valid only during
	 * the call. A negative return stops: feed()/finish() return it.
	 */
	int (*event)(void *userdata, const struct tracefs_event *ev);
	/* A skipped line: malformed, or a stack trace with no event. Optional. */
	void (*bad_line)(void *userdata, const struct kt_err *err);
};

struct tracefs_parser;

/* @path names the input in errors ("sys/kernel/tracing/trace"); it is copied. */
int tracefs_parser_new(const char *path, const struct tracefs_parser_ops *ops,
		       void *userdata, struct tracefs_parser **ret_parser);
struct tracefs_parser *tracefs_parser_free(struct tracefs_parser *p);

/*
 * Feeds one line (without its newline). Events come out in input order, each once the
 * next event on its CPU has arrived (its stack frames may follow other CPUs' events)
 * or after a bounded window, and at finish(). Malformed lines are counted, passed to
 * bad_line and skipped: 0. Negative only for -ENOMEM or the event callback's error.
 */
int tracefs_parser_feed(struct tracefs_parser *p, const char *line, size_t len);
/* A line the reader refused (too long, NUL byte): counted and reported as @what. */
void tracefs_parser_skip_line(struct tracefs_parser *p, const char *what);
/*
 * Live: an event waits for its stack trace until the next event of its CPU, and a quiet
 * CPU would hold it (and all after it) back. Those more than @age seconds older than
 * the newest event fed are let out: their stacks, written right after them, came.
 */
int tracefs_parser_flush_older(struct tracefs_parser *p, double age);
/* Emits everything still pending. */
int tracefs_parser_finish(struct tracefs_parser *p);
/* Owned by @p; valid until tracefs_parser_free(). */
const struct tracefs_stats *tracefs_parser_stats(const struct tracefs_parser *p);

/*
 * Reads a whole trace text. 0, or -errno; *reterr filled for I/O errors. Bad lines do
 * not fail the read: they go to ops->bad_line and the stats. @ret_stats may be NULL.
 */
int tracefs_events_read_file(FILE *f, const char *path,
			     const struct tracefs_parser_ops *ops, void *userdata,
			     struct tracefs_stats *ret_stats, struct kt_err *reterr);
/* @relpath NULL means "sys/kernel/tracing/trace". */
int tracefs_events_read(const struct kt_root *root, const char *relpath,
			const struct tracefs_parser_ops *ops, void *userdata,
			struct tracefs_stats *ret_stats, struct kt_err *reterr);
