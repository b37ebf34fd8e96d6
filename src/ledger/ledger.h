/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sources/trace/text.h"

/*
 * The load-attempt ledger: trace events (and kernel log lines) in, one attempt per
 * finit_module()/init_module() syscall out, each with a module, an outcome and the
 * requester who caused it. Sources feed it in input order; ledger_finish() links what
 * needs the whole picture (idempotent waiters, the kmod fallback, autoload requests),
 * or ledger_settle() does it as events come, for the attempts still open to change.
 */

enum attempt_syscall {
	ATTEMPT_FINIT,
	ATTEMPT_INIT,
};

enum attempt_outcome {
	OUTCOME_LOADED,
	OUTCOME_DUP_LIVE,		/* EEXIST: a module of that name is Live */
	OUTCOME_DUP_CONCURRENT,		/* EBUSY: it was loading, or going away */
	OUTCOME_WAITER,			/* 6.5+ idempotent finit_module: returned another
					 * attempt's result without loading anything */
	OUTCOME_MISSING_DEP,		/* ENOENT: unknown symbol, a dependency not loaded */
	OUTCOME_BAD_FORMAT,		/* ENOEXEC: not a module, raw compressed bytes, ... */
	OUTCOME_FALLBACK,		/* ENOEXEC finit_module, then init_module of the same
					 * module on the same thread: userspace decompression */
	OUTCOME_SIG_REJECTED,		/* EKEYREJECTED, ENOKEY, EBADMSG: signature or key */
	OUTCOME_INIT_FAILED,		/* the module loaded, its init function failed */
	OUTCOME_DENIED,			/* EPERM: no CAP_SYS_MODULE, modules_disabled */
	OUTCOME_OTHER_ERROR,
	OUTCOME_INCOMPLETE,		/* no exit seen: the trace ended inside the call */
	OUTCOME_INTERRUPTED,		/* a signal ended it (EINTR, ERESTART*) while it was
					 * not waiting for another load the trace shows */
	_OUTCOME_MAX,
};

/*
 * How an attempt's module name was found. A name comes only from evidence about that
 * call, never from a guess: an attempt nothing names stays NAME_NONE.
 */
enum name_source {
	NAME_NONE,
	NAME_MODULE_LOAD,		/* module:module_load in the same thread, inside the call */
	NAME_LEADER,			/* an idempotent waiter: its leader's name */
	NAME_FALLBACK_PAIR,		/* ENOEXEC finit followed by a named init_module */
	NAME_KLOG,			/* a kernel log line naming the module, inside the call */
	NAME_SIZE,			/* the size the kernel read or was handed matches exactly
					 * one module file (kread bytes, init_module's length) */
	NAME_LIVE,			/* live mode: /proc/PID/fd (not offline) */
	NAME_PROBE,			/* kmodtop_name inside the call: the kernel's dup check */
	NAME_PROBE_FILE,		/* kmodtop_kread inside the call: the file it read */
	_NAME_MAX,
};

/* Allocation classes, by the kernel stack under each vmap area allocation */
enum vmap_class {
	VMAP_KREAD,			/* kernel_read_file: the file copy (finit_module) */
	VMAP_DECOMPRESS,		/* module_decompress: the xz dictionary, the vmap */
	VMAP_LAYOUT,			/* module_alloc/execmem_alloc: the final memory */
	VMAP_USER_COPY,			/* init_module's copy of the user buffer */
	VMAP_OTHER_LOAD,		/* elsewhere under load_module */
	_VMAP_MAX,
};

/* Ordered by size, so that it has no padding: a storm writes thousands a second */
struct attempt {
	const char *module;		/* NULL: unnamed; kept by the ledger */
	const char *live_name;		/* from a kmodtop_fd marker inside the call */
	const char *probe_name;		/* kmodtop_name inside the call (kept by the ledger) */
	const char *file_name;		/* kmodtop_kread inside the call: the file, as kmod
					 * names a module file (kept by the ledger) */
	uint64_t len;			/* init_module buffer length */
	uint64_t kread_size;		/* kmodtop_kread: the bytes kernel_read_file() read */
	uint64_t layout_size;		/* kmodtop_layout: the bytes of its allocations */
	double start, end;
	/* the trace lines (trace.dat: record numbers) of its enter and exit; 0: none */
	uint64_t start_line, end_line;
	int64_t ret;
	long leader;			/* WAITER: index of the attempt it waited for */
	long request;			/* index into ledger requests, -1: not an autoload */
	long step;			/* index into ledger steps, -1 before the first marker */
	uint64_t vmap[_VMAP_MAX];	/* bytes allocated inside the call, by class */
	enum attempt_syscall syscall;
	enum name_source name_source;
	int fd;				/* finit_module */
	unsigned int flags;		/* MODULE_INIT_* (finit_module) */
	int pid;
	int tgid;			/* -1 when unknown */
	int err;			/* positive errno, 0 on success */
	enum attempt_outcome outcome;
	unsigned int n_allocs;
	unsigned int layout_areas;	/* kmodtop_layout events inside the call */
	char comm[32];			/* the thread that made the syscall, raw bytes */
	bool complete;
	bool waiter_by_timing;		/* WAITER inferred from timing, no vmap trace */
	bool measured;			/* vmap allocation events were traced */
	bool module_load_seen;
	bool probed;			/* the kmodtop_kread probe was traced during the call */
	bool kread_seen;		/* and fired inside it: this call read the file */
	bool layout_probed;		/* the kmodtop_layout probe was traced during the call */
	bool layout_seen;		/* and fired inside it: the layout was allocated */
};

struct autoload_request {
	const char *alias;		/* kept by the ledger, as call_site */
	const char *call_site;		/* function name, without offset */
	char comm[32];			/* the requesting task */
	int pid;
	/* its trace line (record number), 0: unknown; 32 bits, as the text parser counts */
	uint32_t line;
	double ts;
	long step;
	char **resolved;		/* modules the alias resolves to; NULL-terminated */
	size_t n_resolved;
	bool wait;
	bool resolve_failed;		/* no module index to ask */
	bool needless;			/* the resolved module was already Live */
	bool needless_final;		/* the ledger's own: needless can no longer change */
	int modprobe_pid;		/* the modprobe linked to it, 0 if none */
	size_t n_attempts;
};

struct ledger_step {
	char *name;
	double ts;
};

/* Kernel log findings are recorded by the caller with ledger_add_klog(). */
struct ledger_klog {
	double ts;			/* seconds since boot; NAN when the log has no clock */
	double last_ts;			/* of the last line of a run (klog_runs), else ts */
	uint64_t count;			/* lines: 1, or more in a run */
	char *module;			/* NULL when the line names none */
	int kind;			/* enum klog_finding_kind */
	int err;			/* positive errno the line reports, 0 if none */
	char *msg;			/* the line, raw bytes, NUL-terminated */
};

/* Lookups the ledger needs from the module tree; all optional. */
struct ledger_ops {
	/* modules an alias resolves to (may be none); names owned by the caller's list */
	int (*resolve_alias)(void *userdata, const char *alias, char ***ret_names,
			     size_t *ret_n);
	/* a module and what modprobe loads with it */
	int (*module_closure)(void *userdata, const char *module, char ***ret_names,
			      size_t *ret_n);
	void (*names_free)(char **names);
	/* was the module Live before the trace began (final proc/modules, no events)? */
	bool (*live_at_start)(void *userdata, const char *module);
	/*
	 * Names an unnamed attempt from size evidence, among @candidates (NULL: every
	 * module file). 1 with *ret_name (caller frees), 0 when no single file fits.
	 */
	int (*identify)(void *userdata, const struct attempt *a, char *const *candidates,
			size_t n_candidates, char **ret_name);
	/*
	 * The function a raw kernel text address is in (a trace printed without the
	 * symbols of a module, e.g. one loaded after the reader took them), or NULL
	 */
	const char *(*function_at)(void *userdata, uint64_t addr);
	void *userdata;
};

struct ledger_stats {
	uint64_t events;
	uint64_t ignored_events;	/* known events the ledger does not use */
	uint64_t unknown_events;
	uint64_t orphan_exits;		/* an exit with no enter (trace started mid-call) */
	uint64_t nested_enters;		/* an enter while the thread's previous was open */
	uint64_t vmap_allocs;
	uint64_t vmap_allocs_outside;	/* vmap allocations outside any load attempt */
	uint64_t lost_events;		/* sum of the counted LOST lines */
	uint64_t lost_uncounted;	/* LOST lines that give no count: more were lost */
	uint64_t markers;
	uint64_t live_named;		/* finit attempts named by a kmodtop_fd marker */
	uint64_t probe_kreads;		/* kmodtop_kread events */
	uint64_t probe_names;		/* kmodtop_name events */
	uint64_t probe_layouts;		/* kmodtop_layout events */
};

struct ledger {
	struct attempt *attempts;	/* in syscall-entry order */
	size_t n_attempts;
	/* after ledger_forget_settled(): the requests kept, findings among them */
	struct autoload_request *requests;
	size_t n_requests;
	struct ledger_step *steps;
	size_t n_steps;
	struct ledger_klog *klog;
	size_t n_klog;
	struct ledger_stats stats;
	bool idempotent_kernel;		/* set by the caller: kernel merges concurrent finits */
	/*
	 * Set by the caller: a line equal to the previous one (and close enough in time
	 * to name the same calls) adds to its entry's count instead of an entry of its
	 * own, so a log repeating one line costs no memory per line. Top replays lines
	 * one by one and leaves it off.
	 */
	bool klog_runs;
	bool saw_vmap_events;
	bool saw_kread_probe;		/* kmodtop_kread (or the marker enabling it) seen */
	bool saw_name_probe;
	bool saw_layout_probe;		/* kmodtop_layout (or the marker enabling it) seen */
	/*
	 * Live mode (ledger_settle()): attempts [0, n_settled) and requests
	 * [0, n_requests_settled) are decided for good; the rest may still change.
	 */
	size_t n_settled, n_requests_settled;
	/*
	 * Attempts ledger_forget_settled() dropped: attempts[i] is the trace's attempt
	 * n_forgotten + i. 0 unless it was called.
	 */
	size_t n_forgotten;
	struct ledger_ops ops;
	/* private */
	void *priv;
};

int ledger_new(const struct ledger_ops *ops, bool idempotent_kernel, struct ledger **ret);
struct ledger *ledger_free(struct ledger *l);

/* One trace event, in input order. 0 or -ENOMEM. */
int ledger_feed_trace(struct ledger *l, const struct ktrace_event *ev);
/* A kernel log finding (klog_classify()); @module may be NULL, @ts NAN. Copies all. */
int ledger_add_klog(struct ledger *l, double ts, const char *module, size_t module_len,
		    int kind, int err, const char *msg, size_t msg_len);
/* Links waiters, the kmod fallback, names from the log, and autoload requests. */
int ledger_finish(struct ledger *l);
/*
 * Live mode: what ledger_finish() decides, for the attempts not yet settled, with
 * events (trace and log) fed up to @now (trace clock, seconds). Attempts that ended
 * long enough before @now that no later event can change them become settled: a
 * growing prefix that later calls leave alone, so a call costs what is new. Call it
 * as often as wanted; ledger_finish() is ledger_settle(l, INFINITY). 0 or -ENOMEM.
 */
int ledger_settle(struct ledger *l, double now);
/*
 * After ledger_settle(l, @now): the settled attempts no later pass can look back at
 * (those ended more than twice the longest call and a few seconds before the oldest
 * attempt still open to change) are dropped from attempts[], so that a reader that took
 * what it wanted of each as it settled keeps memory bounded by the attempts of a few
 * seconds, whatever the length of the trace. Indices into attempts[] are rebased; a kept
 * waiter whose leader went has leader -1. Module load and free events go but the last
 * before the oldest request still open to change (and before the requests to come).
 * Requests go once settled (or at once when no module index could be asked) when no
 * kept attempt, nor a later one of a process whose first went, follows them, unless
 * needless or of an alias that resolves to no module: those stay for the end. Kept ones
 * are renumbered. Steps and log findings stay. The process table keeps a dropped attempt's
 * process only while something else needs it.
 * Nothing is dropped (keeping all is always right) once a trace time or a call length
 * was not a finite number: look-backs from such a call may reach anything. The trace
 * must come in time order, give or take a second (the ledger's own assumption). @ret_n:
 * the attempts dropped. 0 or -ENOMEM (the ledger is then fit only for ledger_free()).
 */
int ledger_forget_settled(struct ledger *l, double now, size_t *ret_n);

/* What the ledger holds now: ledger_forget_settled() keeps each bounded */
struct ledger_held {
	size_t attempts;
	size_t module_events;		/* module load and free events */
	size_t processes;		/* the process table's entries */
};
void ledger_held(const struct ledger *l, struct ledger_held *ret);

const char *attempt_outcome_name(enum attempt_outcome o);
/*
 * A kernel errno's name, the kernel-internal ones too (ERESTARTSYS, 512, is what
 * a syscall's exit tracepoint shows when a signal interrupts a wait); "errno-N" in @buf
 * for a number with no name.
 */
#define ATTEMPT_ERRNO_NAME_MAX 24
const char *attempt_errno_name(int err, char buf[ATTEMPT_ERRNO_NAME_MAX]);
/* Is @err (positive) a signal's: EINTR or one of the kernel's ERESTART* codes? */
bool attempt_errno_interrupted(int err);
const char *name_source_name(enum name_source s);
const char *vmap_class_name(enum vmap_class c);
/* The class of one allocation from its stack (frames top-down), or -1: not a load */
int vmap_class_from_frames(const struct ktrace_frame *frames, size_t n);
/* Is the outcome a duplicate (live, concurrent, or idempotent waiter)? */
bool attempt_is_duplicate(const struct attempt *a);
bool attempt_is_failure(const struct attempt *a);

struct proctab;
/* The processes the trace showed. Owned by @l. */
const struct proctab *ledger_proctab(const struct ledger *l);
