/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sources/load-probes.h"

/*
 * kmodtop's own tracefs instance, instances/kmodtop-PID, and the kprobe group
 * kmodtop_PID it may add: the only tracing state kmodtop ever changes. The global
 * state (tracing_on, current_tracer, trace_options, the top-level buffer, set_event
 * and the top-level event enables, filters and triggers) is never written, so
 * trace-cmd, perf or a shell script tracing at the same time are not disturbed.
 *
 * Every tracefs path is relative to the mount and opened with openat() on its fd.
 * No file is ever opened with O_TRUNC: on tracefs that clears "trace", every kprobe in
 * "kprobe_events" and every event in "set_event".
 */

/* Where tracefs is mounted. */
struct ktrace_mount {
	int fd;			/* O_PATH|O_DIRECTORY; -1 when none */
	char *path;		/* "/sys/kernel/tracing", for messages */
	bool mounted;		/* kmodtop mounted it: ktrace_mount_done() unmounts it */
};

/*
 * Parses one /proc/self/mountinfo line in place (the octal escapes of the mount point
 * are decoded). 0 with the mount point and file system type pointing into @line, or
 * -EINVAL.
 */
int ktrace_mountinfo_parse_line(char *line, char **ret_mnt, char **ret_fstype);

/*
 * Finds tracefs: the directories in @candidates (NULL: /sys/kernel/tracing, then
 * /sys/kernel/debug/tracing, where debugfs automounts it) when they hold a tracefs,
 * then any tracefs mount listed in @mountinfo (NULL: /proc/self/mountinfo). With
 * @may_mount and none found, mounts tracefs on /sys/kernel/tracing, in a mount
 * namespace of the process's own when it can (unshare(CLONE_NEWNS)).
 * 0; or -errno with *reterr_why (static text): "not mounted", "mounting it failed"...
 * @reterr_why may be NULL.
 */
int ktrace_mount_find(const char *const *candidates, const char *mountinfo, bool may_mount,
		       struct ktrace_mount *ret, const char **reterr_why);
/* Closes the fd; unmounts tracefs if kmodtop mounted it. Accepts an empty mount. */
void ktrace_mount_done(struct ktrace_mount *m);

/*
 * File system operations the instance code makes that a fake tracefs (a plain
 * directory tree, for the unit tests) cannot do the way tracefs does: tracefs fills a
 * new instance directory itself and removes a full one with rmdir. All optional.
 */
struct ktrace_fs_ops {
	/* default mkdirat(dirfd, path, 0755) */
	int (*mkdir)(int dirfd, const char *path, void *userdata);
	/* default unlinkat(dirfd, path, AT_REMOVEDIR) */
	int (*rmdir)(int dirfd, const char *path, void *userdata);
	/*
	 * Is @pid a running kmodtop whose instance must be kept? Default: the pid exists
	 * and its comm is "kmodtop"; always true outside the initial PID namespace, where
	 * the pid in another kmodtop's instance name is not ours to interpret.
	 */
	bool (*pid_is_kmodtop)(pid_t pid, void *userdata);
	void *userdata;
};

/* What was left by kmodtop processes that no longer exist, and removed. */
struct ktrace_stale {
	unsigned int instances;		/* instances/kmodtop-PID removed */
	unsigned int probes;		/* kprobe events kmodtop_PID/... removed */
	unsigned int kept;		/* belong to a running kmodtop */
	unsigned int failed;		/* could not be removed (busy: enabled elsewhere) */
	int first_err;			/* -errno of the first failure, or 0 */
};

/*
 * Removes instances/kmodtop-PID directories and kmodtop_PID kprobe groups whose PID is
 * not a running kmodtop (@self, the caller, counts as gone: it has made none yet).
 * Instances go first: a stale probe may still be enabled in its stale instance.
 * 0, or -errno when instances/ cannot be read; the per-item results are in *ret.
 */
int ktrace_cleanup_stale(int tracefs_fd, pid_t self, const struct ktrace_fs_ops *ops,
			  struct ktrace_stale *ret);

enum ktrace_measure {
	KTRACE_MEASURE_NONE,
	KTRACE_MEASURE_TRACEPOINT,	/* vmalloc:alloc_vmap_area + stacktrace (6.2+) */
	KTRACE_MEASURE_KPROBE,		/* kprobe kmodtop_PID/alloc_vmap_area size=$arg1 */
};

struct ktrace_instance_opts {
	bool measure;			/* trace vmap area allocations with their stacks */
	/*
	 * The stacktrace trigger writes into the instance's own buffer only since 5.17
	 * (and the stable backports of "tracing: Have stacktrace trigger use the
	 * instance's buffer"); before, into the top-level buffer, which is not ours.
	 * The caller says whether this kernel has that.
	 */
	bool stacktrace_in_instance;
	unsigned int buffer_kb;		/* per CPU; 0: the kernel's default */
	/* the naming kprobes to place (load-probes.h); NULL: none */
	const struct load_probe_plan *probes;
};

/* One event kmodtop asked for, and how it went. */
struct ktrace_event_status {
	const char *name;		/* "syscalls/sys_enter_finit_module" */
	const char *loses;		/* what the report lacks without it */
	int err;			/* 0 enabled, -ENOENT the kernel has no such event */
	const char *why;		/* a probe that could not be placed: why; or NULL */
};

#define KTRACE_MAX_EVENTS 16
#define KTRACE_MAX_PROBES 4

struct ktrace_instance {
	int tfd;			/* the tracefs mount: a dup, owned, so that a teardown
					 * retried after the caller closed its fd still works */
	pid_t pid;
	char name[32];			/* "kmodtop-1234" */
	char path[48];			/* "instances/kmodtop-1234" */
	char group[32];			/* "kmodtop_1234" once a kprobe exists, else "" */
	/* the kprobe events made in the group, removed again by the teardown */
	char probes[KTRACE_MAX_PROBES][32];
	unsigned int n_probes;
	bool probe_on[_LOAD_PROBE_MAX];	/* the naming probes enabled in the instance */
	bool created;			/* the directory exists and is ours to remove */
	int pipe_fd;			/* trace_pipe, O_NONBLOCK; -1 until started */
	char clock[32];			/* its trace_clock, the top-level one's; "" unknown */
	enum ktrace_measure measure;
	const char *measure_why;	/* NONE although asked: why (static text) */
	struct ktrace_event_status events[KTRACE_MAX_EVENTS];
	size_t n_events;
	unsigned int ncpus;		/* per_cpu/cpuN directories */
	uint64_t *lost_base;		/* per CPU, overrun + dropped at start */
	struct ktrace_fs_ops ops;
	int marker_fd;			/* trace_marker, from start; -1 when none */
};

/*
 * Makes instances/kmodtop-@pid (an existing one is a leftover of an earlier process
 * with this pid: it is replaced), with tracing off and the top-level buffer's trace
 * clock (the kernel may have left "local" for "global"), and enables in it: module:* but
 * module_get and module_put (one per reference count change; the ledger does not use
 * them), the finit/init/delete_module syscall events, sched_process_fork and exec, and
 * with opts->measure vmalloc:alloc_vmap_area or a kprobe on alloc_vmap_area, each
 * with a stacktrace trigger, and the naming probes of opts->probes, each with its
 * filter. Missing events and probes the kernel refuses are recorded in ->events, not
 * failures.
 * On failure everything made is removed again. 0 or -errno, *reterr_what saying what
 * failed (static text); *ret is then NULL, or, when the removal failed too, what is
 * left (->created, ->group[0]) for the caller to retry (ktrace_instance_teardown())
 * and free. The instance holds a dup of @tracefs_fd: the caller may close its own
 * while the instance lives.
 */
int ktrace_instance_new(int tracefs_fd, pid_t pid, const struct ktrace_instance_opts *opts,
			 const struct ktrace_fs_ops *ops, struct ktrace_instance **ret,
			 const char **reterr_what);
/* Opens trace_pipe (non-blocking) and turns the instance's tracing_on on. */
int ktrace_instance_start(struct ktrace_instance *ti);
/*
 * The same, but without @text the caller reads the raw buffers (raw.h) instead. It may
 * come after ktrace_instance_trace_on(): what was traced meanwhile waits in the buffer.
 */
int ktrace_instance_start_reading(struct ktrace_instance *ti, bool text);
/*
 * Turns the instance's tracing_on on (and opens its trace_marker), no reader yet: the
 * events wait in its buffer until one is opened.
 */
int ktrace_instance_trace_on(struct ktrace_instance *ti);
/* Turns the instance's tracing_on off; what is buffered can still be read. */
int ktrace_instance_stop(struct ktrace_instance *ti);
/* Reads trace_pipe text: bytes, 0 never, -EAGAIN when nothing is buffered, -errno. */
ssize_t ktrace_instance_read(struct ktrace_instance *ti, char *buf, size_t len);
/*
 * Writes @text (one line, no newline) into the instance's own buffer through its
 * trace_marker: a "tracing_mark_write" event of this process, ordered by the trace
 * clock against the kernel's events. 0 or -errno (-EBADF before start).
 */
int ktrace_instance_mark(struct ktrace_instance *ti, const char *text, size_t len);
/*
 * Events the kernel lost in this instance since it started (per_cpu/cpuN/stats:
 * "overrun" plus "dropped events"), per CPU into @ret_lost (ti->ncpus entries).
 * 0, or -errno when the stats cannot be read.
 */
int ktrace_instance_lost(const struct ktrace_instance *ti, uint64_t *ret_lost);
/*
 * Closes trace_pipe, removes the instance (which disables its events and triggers),
 * then the kprobe group. Safe to call twice. 0, or the first -errno (the caller says
 * what is left: ti->created, ti->group[0]).
 */
int ktrace_instance_teardown(struct ktrace_instance *ti);
/* Tears down and frees; accepts NULL, returns NULL. */
struct ktrace_instance *ktrace_instance_free(struct ktrace_instance *ti);

/*
 * The events kmodtop's instance enables ("module/module_load", ...), by index; NULL
 * past the last. *ret_loses (may be NULL): what the report lacks without it.
 */
const char *ktrace_wanted_event(size_t i, const char **ret_loses);

/*
 * Reads a tracefs file (relative to the mount, e.g. "available_filter_functions"), at most
 * @max bytes, NUL-terminated. Caller frees. 0 or -errno.
 */
int ktrace_read_file(int tracefs_fd, const char *path, size_t max, char **ret, size_t *ret_len);

/* Per-CPU statistics: "overrun: 12" and "dropped events: 3" from a stats file's text. */
int ktrace_stats_parse(const char *text, size_t len, uint64_t *ret_overrun,
			uint64_t *ret_dropped);
