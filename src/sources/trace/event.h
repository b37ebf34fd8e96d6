/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/kt-err.h"

/*
 * A trace event as every trace reader hands it out: the text parser (text.h), the
 * trace.dat reader (tracedat.h) and the raw ring-buffer decoder (tep-decode.h).
 * The type lives apart from any one reader so that none includes another.
 */

/* A piece of the input line; not NUL-terminated. */
struct ktrace_str {
	const char *s;
	size_t len;
};

enum ktrace_event_kind {
	KTRACE_EV_UNKNOWN,		/* passed through with raw fields, counted */
	KTRACE_EV_MODULE_REQUEST,
	KTRACE_EV_MODULE_LOAD,
	KTRACE_EV_MODULE_FREE,
	KTRACE_EV_MODULE_GET,
	KTRACE_EV_MODULE_PUT,
	KTRACE_EV_SYS_ENTER_FINIT_MODULE,
	KTRACE_EV_SYS_EXIT_FINIT_MODULE,
	KTRACE_EV_SYS_ENTER_INIT_MODULE,
	KTRACE_EV_SYS_EXIT_INIT_MODULE,
	KTRACE_EV_SYS_ENTER_DELETE_MODULE,
	KTRACE_EV_SYS_EXIT_DELETE_MODULE,
	KTRACE_EV_SCHED_PROCESS_FORK,
	KTRACE_EV_SCHED_PROCESS_EXEC,
	KTRACE_EV_TASK_RENAME,		/* task:task_rename: prctl(PR_SET_NAME), exec */
	KTRACE_EV_MARKER,		/* tracing_mark_write (ftrace:print) */
	KTRACE_EV_ALLOC_VMAP_AREA,	/* vmalloc:alloc_vmap_area tracepoint (6.2+) */
	/* a kprobe on alloc_vmap_area (the 6.1 capture) */
	KTRACE_EV_ALLOC_VMAP_AREA_KPROBE,
	KTRACE_EV_FREE_VMAP_AREA_NOFLUSH,
	KTRACE_EV_PURGE_VMAP_AREA_LAZY,
	/* kmodtop's naming probes (sources/load-probes.h) */
	KTRACE_EV_PROBE_KREAD,		/* kmodtop_kread: kernel_read_file() of a module */
	KTRACE_EV_PROBE_NAME,		/* kmodtop_name: find_module_all(), the dup check */
	KTRACE_EV_PROBE_LAYOUT,	/* kmodtop_layout: a module's final memory */
	KTRACE_EV_KPROBE,		/* any other "(sym+0x0/0x..) args" probe event */
	KTRACE_EV_STACK,		/* "<stack trace>": ktrace_parse_line() only */
	KTRACE_EV_LOST,		/* "CPU:1 [LOST 12 EVENTS]", "CPU:1 [LOST EVENTS]" */
	KTRACE_EV_SCHED_PROCESS_EXIT,
	KTRACE_EV__MAX
};

/* "sym+0x1c/0x50 [mod]", "sym", or "0xffffffffc027f0c8" (%pS / %ps / unsymbolised) */
struct ktrace_sym {
	struct ktrace_str text;	/* as printed */
	struct ktrace_str sym;		/* the name (or the hex address) alone */
	struct ktrace_str module;	/* inside "[...]", or empty */
};

struct ktrace_frame {
	struct ktrace_sym fn;
	uint64_t addr;			/* from a binary record; 0 from text */
	bool user;			/* from a "<user stack trace>" block */
};

struct ktrace_module_request {
	struct ktrace_str name;	/* alias as requested: "net-pf-2-proto-132" */
	bool wait;
	struct ktrace_sym call_site;
};

struct ktrace_module_load {
	struct ktrace_str name;
	struct ktrace_str taints;	/* letters ("OE"), empty when untainted */
};

struct ktrace_module_refcnt {		/* module_get, module_put */
	struct ktrace_str name;
	struct ktrace_sym call_site;
	int refcnt;			/* raw: /sys/module/X/refcnt + 1 */
};

struct ktrace_sys_finit_module {
	int fd;
	uint64_t uargs;			/* user address */
	unsigned int flags;		/* MODULE_INIT_* */
};

struct ktrace_sys_init_module {
	uint64_t umod;
	uint64_t len;
	uint64_t uargs;
};

struct ktrace_sys_delete_module {
	uint64_t name_user;
	unsigned int flags;
};

struct ktrace_sys_exit {
	int64_t ret;			/* -errno on failure */
};

struct ktrace_sched_fork {
	struct ktrace_str comm;
	int pid;
	struct ktrace_str child_comm;
	int child_pid;
};

struct ktrace_sched_exec {
	struct ktrace_str filename;
	int pid;
	int old_pid;
};

struct ktrace_sched_exit {
	struct ktrace_str comm;
	int pid;
};

struct ktrace_task_rename {
	int pid;			/* the line's pid when the kernel omits it (6.13+) */
	struct ktrace_str oldcomm;
	struct ktrace_str newcomm;
};

struct ktrace_marker {
	struct ktrace_str text;	/* what was written, without the newline */
	/* "storm-live-xfs" when text is "STEP storm-live-xfs" */
	struct ktrace_str step;
};

struct ktrace_vmap_alloc {		/* ALLOC_VMAP_AREA and ALLOC_VMAP_AREA_KPROBE */
	/* va_start; 0 for the kprobe (entry has no result) */
	uint64_t addr;
	uint64_t size;			/* includes the guard page */
	uint64_t align, vstart, vend;
	bool failed;
	bool has_result;		/* tracepoint: addr and failed are known */
	bool has_align, has_range;	/* kprobe: only what the probe fetched */
};

struct ktrace_vmap_free {		/* free_vmap_area_noflush */
	uint64_t addr;
	uint64_t nr_lazy, nr_lazy_max;
};

struct ktrace_vmap_purge {		/* purge_vmap_area_lazy */
	uint64_t start, end;
	unsigned int npurged;
};

struct ktrace_kprobe {
	struct ktrace_sym probe;	/* inside the parentheses */
	struct ktrace_str args;	/* "size=20480 ..." */
};

struct ktrace_probe_kread {
	int64_t size;			/* the file's i_size: what the kernel reads */
	int64_t id;			/* enum kernel_read_file_id; -1 when not fetched */
	struct ktrace_str path;	/* the file's base name; empty when not fetched */
};

struct ktrace_probe_name {
	struct ktrace_str name;	/* the module's name, as the kernel checks it */
};

struct ktrace_probe_layout {
	uint64_t size;			/* the bytes asked of execmem_alloc()/module_alloc() */
};

struct ktrace_lost {
	uint64_t count;
	/* "[LOST EVENTS]" or "[EVENTS DROPPED]": some lost, how many unknown (count 0) */
	bool uncounted;
};

enum ktrace_line_format {
	KTRACE_FMT_TRACE,		/* tracefs trace / trace_pipe */
	KTRACE_FMT_TRACE_CMD,		/* trace-cmd report */
	KTRACE_FMT_EITHER,		/* nothing on the line tells them apart */
};

struct ktrace_event {
	enum ktrace_event_kind kind;
	enum ktrace_line_format format;
	/* may hold spaces, dashes, escape bytes; "<...>" */
	struct ktrace_str comm;
	int pid;
	int tgid;			/* -1 unless the record-tgid column is shown */
	unsigned int cpu;
	struct ktrace_str flags;	/* irqs-off etc. ("d..1."), empty when absent */
	double ts;			/* seconds */
	uint64_t ts_ns;			/* exact; for counter clocks the raw counter */
	/* fraction digits: 6 (usec), 9 (nsec), 0 (counter) */
	unsigned int ts_digits;
	/* "module" when printed "module:module_load", else empty */
	struct ktrace_str system;
	/* as printed: "module_load", "sys_finit_module", ... */
	struct ktrace_str name;
	struct ktrace_str fields;	/* the raw text after the name */
	bool user_stack;		/* STACK: "<user stack trace>" */
	union {
		struct ktrace_module_request module_request;
		struct ktrace_module_load module_load;	/* also module_free (name only) */
		struct ktrace_module_refcnt module_refcnt;
		struct ktrace_sys_finit_module finit_module;
		struct ktrace_sys_init_module init_module;
		struct ktrace_sys_delete_module delete_module;
		struct ktrace_sys_exit sys_exit;
		struct ktrace_sched_fork fork;
		struct ktrace_sched_exec exec;
		struct ktrace_sched_exit exit;
		struct ktrace_task_rename rename;
		struct ktrace_marker marker;
		struct ktrace_vmap_alloc vmap_alloc;
		struct ktrace_vmap_free vmap_free;
		struct ktrace_vmap_purge vmap_purge;
		struct ktrace_lost lost;
		struct ktrace_probe_kread probe_kread;
		struct ktrace_probe_name probe_name;
		struct ktrace_probe_layout probe_layout;
	};
	/* KPROBE and ALLOC_VMAP_AREA_KPROBE: where the probe sits, what it fetched */
	struct ktrace_kprobe kprobe;
	/*
	 * Where it was read: its line in a text trace, its number among a trace.dat's
	 * records (from 1); 0 from the raw ring buffer. Evidence points at it.
	 */
	uint64_t line;
	/* Set by the parser only: the stack blocks that followed the event. */
	const struct ktrace_frame *frames;
	size_t n_frames;
};

enum ktrace_line_kind {
	KTRACE_LINE_EVENT,		/* ev filled (kind may be STACK or LOST) */
	KTRACE_LINE_FRAME,		/* frame filled: " => fn" */
	KTRACE_LINE_HEADER,		/* "#..." comments, "cpus=N", blank lines */
};

struct ktrace_line {
	enum ktrace_line_kind kind;
	struct ktrace_event ev;
	struct ktrace_frame frame;
	int ncpus;			/* HEADER: "#P:N" or "cpus=N"; else -1 */
	/* HEADER: "entries-in-buffer/entries-written"; else -1 */
	int64_t entries, written;
};

struct ktrace_stats {
	uint64_t lines;
	uint64_t events;		/* emitted, including UNKNOWN and LOST */
	uint64_t by_kind[KTRACE_EV__MAX];
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
	/* text read through a reorder window (order.h): where its time went back */
	uint64_t back_steps;		/* event lines earlier than one before them */
	uint64_t late;			/* of those, ones too far back to be put right */
	uint64_t late_line;		/* the first of those, 1-based; 0 when none */
};

struct ktrace_parser_ops {
	/*
	 * A complete event with its stack frames. Everything in @ev is valid only during
	 * the call. A negative return stops: feed()/finish() return it.
	 */
	int (*event)(void *userdata, const struct ktrace_event *ev);
	/* A skipped line: malformed, or a stack trace with no event. Optional. */
	void (*bad_line)(void *userdata, const struct kt_err *err);
};
