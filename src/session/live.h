/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cost/vmsample.h"
#include "sources/kmsg-follow.h"
#include "sources/trace/instance.h"

/*
 * Live collection, for `report --duration`, `top` and `record`: kmodtop's own tracefs
 * instance and /dev/kmsg, spooled verbatim to two file descriptors that the report then
 * reads as it reads a captured root. Nothing here prints: what went wrong is kept, with
 * why, in the session's status for the caller to tell.
 */

/* how often the collection loop wakes, and vmallocinfo is sampled */
#define LIVE_POLL_MS 200
#define LIVE_MAX_STEPS 12

struct kt_root;
struct live_session;

struct live_opts {
	double duration;	/* seconds; 0: until SIGINT, SIGTERM or SIGHUP */
	bool measure;		/* vmap area allocations with their stacks */
	bool since_boot;	/* the kernel log from its oldest record, not from now */
	const char *release;	/* the running kernel's: what its tracing can do */
	/* proc/vmallocinfo and proc/meminfo sampled every poll from here; NULL: not */
	const struct kt_root *root;
	/*
	 * Where tracefs is looked for (NULL-terminated) and nowhere else, never mounted; and
	 * the kernel log's device. NULL: tracefs wherever it is mounted (mounting it if need
	 * be), /dev/kmsg. Tests point them at what is not a kernel.
	 */
	const char *const *tracefs_dirs;
	const char *kmsg_path;
	/*
	 * live_start(), live_collect*(): called as soon as the instance traces (or could
	 * not be had: live_trace_error() says), before the kernel log, the event formats,
	 * the kernel's symbols and vmallocinfo are read and before the first poll: a
	 * service manager holding udevd back for it waits for nothing more. NULL: none.
	 */
	void (*started)(void *userdata, const struct live_session *lv);
	void *userdata;
};

/* What the collection had, lacked and lost: read by the views and the command. */
struct live_status {
	double seconds;
	const char *ended_by;		/* "SIGINT", "SIGTERM", "SIGHUP"; NULL: the duration */
	bool measure_asked, since_boot, sampled;	/* the options: --measure, ..., o.root */

	char *tracefs_path;
	bool tracefs_mounted;		/* kmodtop mounted it (and unmounted it) */
	int trace_err;			/* 0: the instance traced */
	const char *trace_why;
	char instance[48];		/* "instances/kmodtop-PID" */
	char group[32];			/* its kprobe group */
	char clock[32];			/* the instance's trace_clock */
	struct ktrace_event_status events[KTRACE_MAX_EVENTS];
	size_t n_events;
	enum ktrace_measure measure;
	const char *measure_why;
	struct ktrace_stale stale;	/* instances of dead kmodtops removed at the start */
	int stale_err;
	bool raw;			/* read from trace_pipe_raw, not trace_pipe */
	const char *raw_why;		/* why the text pipe is read instead */
	uint64_t trace_bytes, raw_pages;
	uint64_t comms_resolved, comms_unknown;	/* "<...>" task names put in, and not */
	uint64_t fds_marked, fds_unread;	/* finit_module fds named by a marker, and not */
	unsigned int ncpus;
	uint64_t *lost;			/* per CPU: the stats' count, at least the lines seen */
	uint64_t lost_total;
	uint64_t lost_uncounted;	/* "[LOST EVENTS]" lines: lost, count not given */
	int lost_err;			/* the stats could not be read */
	int teardown_err;		/* the instance is left: remove it by hand */

	int kmsg_err;			/* 0: /dev/kmsg followed */
	const char *kmsg_why;
	struct kmsg_follow_stats kstats;
	uint64_t kmsg_records;

	struct vmsample vs;		/* vmallocinfo samples (sampled) */
	int vs_err;			/* why sampling stopped: the file went unreadable */

	/*
	 * How long each step of live_start() took (CLOCK_MONOTONIC), in its order, and
	 * when the started callback ran: a service manager holds udevd back until then
	 */
	struct live_step {
		const char *what;
		double seconds;
	} steps[LIVE_MAX_STEPS];
	size_t n_steps;
	double ready_after;		/* seconds from live_start() to the callback */
};

struct live_session;

/*
 * Collects until the duration runs out or a stop signal comes, then removes the
 * instance. Sources that cannot be had are recorded in the status, not failures.
 * @trace_fd and @kmsg_fd receive the spools (not owned); -1 and -1: in memory, owned
 * by the session. 0 with *ret, or -errno (out of memory, a spool write failed).
 */
int live_collect(const struct live_opts *o, int trace_fd, int kmsg_fd,
		 struct live_session **ret);

/*
 * The stop signals (SIGINT, SIGTERM, SIGHUP): caught, they only set a flag, and stay
 * blocked but inside the collection's ppoll(), so that none is missed. For a caller
 * with more to finish before one may act (record's bundle), live_collect_caught()
 * collects with them caught by live_signals_catch() and leaves them so;
 * live_signals_restore() puts back what was before. A signal that came while they
 * were caught is then taken as a stop (live_stop_signal()), not by its old action.
 */
struct live_signals {
	struct sigaction old[3];
	sigset_t oldmask;
};
void live_signals_catch(struct live_signals *s);
void live_signals_restore(struct live_signals *s);
/* The stop signal that came since the last live_signals_catch(), 0: none. */
int live_stop_signal(void);
int live_collect_caught(const struct live_opts *o, int trace_fd, int kmsg_fd,
			const struct live_signals *s, struct live_session **ret);

/*
 * The same collection in steps, for a caller with its own loop (top): live_start()
 * starts it (no signal handling: the caller's), live_poll() reads what the instance
 * and /dev/kmsg hold now into the spools (at most @max_reads reads of trace_pipe):
 * 1 when anything came, 0 when not, -errno (the trace failed: live_trace_error()).
 * live_end() takes what is still buffered and removes the instance; live_free() does
 * that too when it was not done. A caller reading the spools between polls may move
 * their offsets: live_poll() seeks them back to their ends.
 */
int live_start(const struct live_opts *o, int trace_fd, int kmsg_fd,
	       struct live_session **ret);
int live_poll(struct live_session *lv, unsigned int max_reads);
/*
 * A marker in the trace, to be read back with the events: the trace clock's "now"
 * when nothing else happens (top settles attempts by it). 0 or -errno.
 */
int live_mark_now(struct live_session *lv);
/*
 * Top's way past the text: from now on the raw buffers' events go to @ops, decoded, in
 * time order, and not to the trace spool (whose text the caller has read). live_poll()
 * only reads and decodes the pages; live_pull_events() hands on what is a second older
 * than the newest, live_end() the rest. -ENOTSUP when the trace is read as text (the
 * spool goes on being written).
 */
struct ktrace_event;
struct live_sink_ops {
	int (*event)(void *userdata, const struct ktrace_event *ev);
	void (*bad)(void *userdata, const char *what);	/* a page or record not decoded */
};
int live_set_sink(struct live_session *lv, const struct live_sink_ops *ops, void *userdata);
int live_pull_events(struct live_session *lv);
struct pollfd;
/* Fills up to two pollfds (trace_pipe, /dev/kmsg); how many. */
int live_pollfds(const struct live_session *lv, struct pollfd *pfd);
int live_end(struct live_session *lv);
struct live_session *live_free(struct live_session *lv);

/* Trace events lost so far (per_cpu/cpuN/stats, at least the "[LOST n]" lines seen). */
int live_lost_now(struct live_session *lv, uint64_t *ret);
/* 0 when tracing, or the -errno that stopped it with *ret_why (static text). */
int live_trace_error(const struct live_session *lv, const char **ret_why);
int live_kmsg_error(const struct live_session *lv, const char **ret_why);
/* Are vmap allocations traced (--measure)? If not, *ret_why says why (may be NULL). */
bool live_measuring(const struct live_session *lv, const char **ret_why);
bool live_has_trace(const struct live_session *lv);
bool live_has_kmsg(const struct live_session *lv);
/* The spools, or -1 when that source was not had. Owned by @lv. */
int live_trace_fd(const struct live_session *lv);
int live_kmsg_fd(const struct live_session *lv);
/* "instances/kmodtop-PID/trace_pipe", owned by @lv */
const char *live_trace_name(const struct live_session *lv);
int live_teardown_error(const struct live_session *lv);
/* The vmallocinfo samples (none when not asked), and why sampling stopped (0: it did not). */
const struct vmsample *live_vmsample(const struct live_session *lv, int *ret_err);
/* Everything above and more, for a report on the collection; owned by @lv. */
const struct live_status *live_get_status(const struct live_session *lv);
