/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Live collection (shared by `report --duration` and `record`) and the `record`
 * command, which writes what was collected as a bundle that `report --root` reads.
 *
 * Collection: kmodtop's own tracefs instance (sources/trace/instance.c), read through
 * its trace_pipe, and /dev/kmsg (sources/kmsg-follow.c), each spooled verbatim to a
 * file descriptor: memory for `report`, the bundle's sys/kernel/tracing/trace and
 * capture/kmsg.raw for `record`. The report then reads the spools exactly as it reads
 * a captured root, so the live answer and the bundle's are the same by construction.
 *
 * Teardown: SIGINT, SIGTERM and SIGHUP only set a flag (they are blocked except inside
 * ppoll(), so none is missed); the main path then stops, drains and removes the
 * instance and the kprobe group. An atexit() handler removes them on any exit() in
 * between. kill -9 leaves them: the next kmodtop removes them when it starts.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>

#include "cost/catalog.h"
#include "cost/estimate.h"
#include "cost/loadpath.h"
#include "cost/vmsample.h"
#include "ledger/klog-findings.h"
#include "ledger/ledger.h"
#include "output/output.h"
#include "output/setup-script.h"
#include "sources/kmsg-follow.h"
#include "sources/kernel-btf.h"
#include "sources/kmsg.h"
#include "sources/load-probes.h"
#include "sources/meminfo.h"
#include "sources/modindex.h"
#include "sources/proc-modules.h"
#include "sources/trace/text.h"
#include "sources/trace/instance.h"
#include "sources/trace/raw.h"
#include "sources/vmallocinfo.h"
#include "views/report.h"
#include "util/io.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/root.h"
#include "util/version.h"
#include "cmd/cmd.h"
#include "session/collect.h"
#include "session/setup-plan.h"

/* the per-CPU buffer with stack traces, whatever the number of CPUs: never more in all */
#define MEASURE_BUFFER_TOTAL_KB (256 * 1024)
#define READ_CHUNK (64 * 1024)
#define POLL_MS 200

struct live {
	struct live_opts o;
	double started, seconds;	/* CLOCK_MONOTONIC */
	int ended_by;			/* signal number, 0: the duration ran out */

	char *tracefs_path;
	bool tracefs_mounted;		/* kmodtop mounted it (and unmounted it) */
	int trace_err;			/* 0: the instance traced */
	const char *trace_why;
	char instance[48];		/* "instances/kmodtop-PID" */
	char trace_name[96];		/* ".../trace_pipe", for the report */
	char group[32];
	char clock[32];			/* the instance's trace_clock */
	struct ktrace_event_status events[KTRACE_MAX_EVENTS];
	size_t n_events;
	enum ktrace_measure measure;
	const char *measure_why;
	struct ktrace_stale stale;
	int stale_err;
	uint64_t trace_bytes;
	uint64_t comms_resolved, comms_unknown;	/* "<...>" lines named, and not */
	uint64_t fd_marked, fd_unread;	/* finit_module fds named by a marker, and not */
	unsigned int ncpus;
	uint64_t *lost;			/* per CPU, from per_cpu/cpuN/stats */
	uint64_t *lost_seen;		/* per CPU, from "[LOST n EVENTS]" lines */
	uint64_t lost_total;
	uint64_t lost_uncounted;	/* "[LOST EVENTS]" lines: lost, count not given */
	int lost_err;			/* the stats could not be read */
	int teardown_err;

	int kmsg_err;			/* 0: /dev/kmsg followed */
	const char *kmsg_why;
	struct kmsg_follow_stats kstats;
	uint64_t kmsg_records;

	/* vmallocinfo sampled every poll (o.root): what loads in flight hold */
	struct vmallocinfo *vi;
	struct vmsample vs;
	double vs_last;
	int vs_err;			/* why sampling stopped: the file went unreadable */

	int trace_fd, kmsg_fd;		/* the spools */
	bool own_spools;		/* in memory, made by live_start() */

	/*
	 * trace_pipe_raw, the default: pages decoded with libtraceevent and written to the
	 * spool as the lines trace-cmd prints, which the parser reads as it reads text; or,
	 * given a sink (top), handed on decoded, with no text between
	 */
	bool raw;
	const char *raw_why;		/* why the text pipe is read instead */
	uint64_t raw_pages;
	/* live_set_sink(): the decoded events go there, not to the spool as text */
	const struct live_sink_ops *sink;
	void *sink_userdata;
	char sink_text[8192];		/* a marker's text with its line breaks made spaces */

	/* while collecting (live_start() to live_end()) */
	struct ktrace_instance *ti;
	struct ktrace_raw *rr;
	struct raw_stream *rs;
	struct trace_seq seq;
	struct kmsg_follow *kf;
	struct spool *sp;
	char *buf;
	bool stopped;
	int stop_err;
};

/* ---- signals and the atexit backstop -------------------------------------------- */

static volatile sig_atomic_t live_stop;
static struct ktrace_instance *live_ti;	/* what atexit() must remove */
static struct ktrace_raw *live_rr;		/* its raw buffers, open: closed first */
static struct ktrace_mount live_mnt = { .fd = -1 };

static void on_signal(int sig)
{
	live_stop = sig;
}

static void live_atexit(void)
{
	live_rr = ktrace_raw_free(live_rr);
	live_ti = ktrace_instance_free(live_ti);
	ktrace_mount_done(&live_mnt);
}

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };

struct sigstate {
	struct sigaction old[ARRAY_SIZE(stop_signals)];
	sigset_t oldmask;
};

static void signals_catch(struct sigstate *s)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block;

	/* no SA_RESTART: ppoll() must return on a signal */
	sigemptyset(&sa.sa_mask);
	sigemptyset(&block);
	for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++) {
		sigaction(stop_signals[i], &sa, &s->old[i]);
		sigaddset(&block, stop_signals[i]);
	}
	sigprocmask(SIG_BLOCK, &block, &s->oldmask);
}

static void signals_restore(struct sigstate *s)
{
	/*
	 * Unblocked first, while on_signal() is still the handler: one that came while
	 * they were blocked (a second Ctrl-C during the teardown) is taken as a stop, not
	 * by the default action, which would kill kmodtop before the report is written
	 */
	sigprocmask(SIG_SETMASK, &s->oldmask, NULL);
	for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++)
		sigaction(stop_signals[i], &s->old[i], NULL);
}

static double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int live_parse_duration(const char *s, double *ret)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v <= 0)
		return -EINVAL;
	if (*end == 's')
		end++;
	else if (*end == 'm')
		v *= 60, end++;
	else if (*end == 'h')
		v *= 3600, end++;
	if (*end || v > 366.0 * 24 * 3600)
		return -EINVAL;
	*ret = v;
	return 0;
}

/* ---- the trace spool ------------------------------------------------------------ */

/*
 * The spool writer. trace_pipe prints "<...>" for a task whose comm the kernel's pid
 * cache does not hold yet: the cache is filled at the task's next context switch, so
 * a reader as quick as kmodtop sees "<...>" for a modprobe still inside finit_module,
 * where `cat trace` a little later would print "modprobe". Such lines get the name
 * the kernel would have printed: the task's last name in the trace (its own lines,
 * its exec), else /proc/PID/comm while it runs, else its name at fork. "CPU:N [LOST
 * M EVENTS]" lines are counted on the way, to be compared with the per-CPU stats.
 */
struct pid_comm {
	int pid;			/* 0: free slot */
	bool from_fork;			/* only the parent's name, from before an exec */
	bool parents_marked;		/* its /proc parent chain was written as markers */
	char comm[16];
};

struct spool {
	int fd;
	char *carry;			/* a line not complete yet */
	size_t carry_len, carry_cap;
	char *scratch;			/* a line with its task name put in */
	size_t scratch_cap;
	char out[READ_CHUNK];
	size_t out_len;
	struct pid_comm *map;		/* open addressing, power-of-two size */
	size_t map_cap, map_n;
	uint64_t resolved, unresolved;
	int err;
};

static struct pid_comm *map_slot(struct spool *sp, int pid, bool add)
{
	size_t mask, i;

	if (add && (sp->map_n + 1) * 2 > sp->map_cap) {
		size_t ncap = sp->map_cap ? sp->map_cap * 2 : 1024;
		struct pid_comm *nm = calloc(ncap, sizeof(*nm));

		if (!nm) {
			sp->err = -ENOMEM;
			return NULL;
		}
		for (size_t k = 0; k < sp->map_cap; k++) {
			if (!sp->map[k].pid)
				continue;
			for (i = (size_t)sp->map[k].pid & (ncap - 1); nm[i].pid; i = (i + 1) & (ncap - 1))
				;
			nm[i] = sp->map[k];
		}
		free(sp->map);
		sp->map = nm;
		sp->map_cap = ncap;
	}
	if (!sp->map_cap)
		return NULL;
	mask = sp->map_cap - 1;
	for (i = (size_t)pid & mask; sp->map[i].pid; i = (i + 1) & mask)
		if (sp->map[i].pid == pid)
			return &sp->map[i];
	if (!add)
		return NULL;
	sp->map[i].pid = pid;
	sp->map_n++;
	return &sp->map[i];
}

static void map_set(struct spool *sp, int pid, const char *s, size_t len, bool from_fork)
{
	struct pid_comm *e;

	if (pid <= 0 || !len || (len == 5 && memcmp(s, "<...>", 5) == 0))
		return;
	e = map_slot(sp, pid, true);
	if (!e || (from_fork && e->comm[0] && !e->from_fork))
		return;
	if (len >= sizeof(e->comm))
		len = sizeof(e->comm) - 1;
	memcpy(e->comm, s, len);
	e->comm[len] = '\0';
	e->from_fork = from_fork;
}

static bool proc_comm(int pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	/*
	 * For a workqueue worker /proc adds its workqueue ("kworker/u4:8+events_unbound",
	 * wq_worker_comm()); the trace prints the task's comm, at most 15 bytes
	 */
	if (strncmp(buf, "kworker/", 8) == 0)
		buf[8 + strcspn(buf + 8, "+-")] = '\0';
	buf[15] = '\0';
	return buf[0] != '\0';
}

static void spool_out(struct spool *sp, const char *p, size_t len)
{
	while (len && !sp->err) {
		size_t n = sizeof(sp->out) - sp->out_len;

		if (!n) {
			sp->err = fd_write_all(sp->fd, sp->out, sp->out_len);
			sp->out_len = 0;
			continue;
		}
		if (n > len)
			n = len;
		memcpy(sp->out + sp->out_len, p, n);
		sp->out_len += n;
		p += n;
		len -= n;
	}
}

static int spool_flush(struct spool *sp)
{
	if (sp->out_len && !sp->err)
		sp->err = fd_write_all(sp->fd, sp->out, sp->out_len);
	sp->out_len = 0;
	return sp->err;
}

static int scratch_reserve(struct spool *sp, size_t n)
{
	char *ns;

	if (n <= sp->scratch_cap)
		return 0;
	ns = realloc(sp->scratch, n);
	if (!ns)
		return -ENOMEM;
	sp->scratch = ns;
	sp->scratch_cap = n;
	return 0;
}

/*
 * A finit_module() caller's fd, read while the call may still run: the marker
 * written after the readlink() names the file only if the trace puts it before
 * the call's exit (the ledger checks), so a late read (the fd closed, or reused by
 * the caller's next open) names nothing.
 */
static void mark_finit_fd(struct live *lv, const struct ktrace_event *ev)
{
	char link[64], path[PATH_MAX], text[PATH_MAX + 64];
	ssize_t n;
	int len;

	if (!live_ti || live_ti->marker_fd < 0 || ev->pid <= 0 || ev->finit_module.fd < 0)
		return;
	snprintf(link, sizeof(link), "/proc/%d/fd/%d", ev->pid, ev->finit_module.fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0 || path[0] != '/') {
		lv->fd_unread++;
		return;
	}
	path[n] = '\0';
	for (ssize_t i = 0; i < n; i++)
		if ((unsigned char)path[i] < 0x20 || path[i] == 0x7f) {
			lv->fd_unread++;
			return;
		}
	len = snprintf(text, sizeof(text), "kmodtop_fd pid=%d fd=%d path=%s", ev->pid,
		       ev->finit_module.fd, path);
	if (len > 0 && (size_t)len < sizeof(text) &&
	    ktrace_instance_mark(live_ti, text, (size_t)len) == 0)
		lv->fd_marked++;
	else
		lv->fd_unread++;
}

/* The parent pid of @pid from /proc/PID/stat ("pid (comm) state ppid ..."), or 0 */
static int proc_ppid(int pid)
{
	char path[64], buf[512], *rp;
	ssize_t n;
	int fd, ppid = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* the comm may hold anything, ')' too: the state follows the last one */
	rp = strrchr(buf, ')');
	if (!rp || sscanf(rp + 1, " %*c %d", &ppid) != 1)
		return 0;
	return ppid;
}

/*
 * A requester that was running before the trace began has no fork in it: its parents
 * are read from /proc while it lives and written into the trace as markers
 * ("kmodtop_parent pid=P ppid=Q comm=NAME"), once a process, so that the report (and
 * a bundle's) has them as the fork events would have given them.
 */
static void mark_parents(struct spool *sp, int pid)
{
	char comm[32], text[96];

	for (int depth = 0; depth < 16 && pid > 1 && live_ti && live_ti->marker_fd >= 0;
	     depth++) {
		struct pid_comm *e = map_slot(sp, pid, true);
		int ppid, len;

		if (!e || e->parents_marked)
			return;
		e->parents_marked = true;
		ppid = proc_ppid(pid);
		if (ppid <= 0 || !proc_comm(ppid, comm, sizeof(comm)))
			return;
		for (char *q = comm; *q; q++)
			if ((unsigned char)*q < 0x20 || *q == 0x7f)
				*q = '?';
		len = snprintf(text, sizeof(text), "kmodtop_parent pid=%d ppid=%d comm=%s", pid,
			       ppid, comm);
		if (len <= 0 || (size_t)len >= sizeof(text) ||
		    ktrace_instance_mark(live_ti, text, (size_t)len) < 0)
			return;
		pid = ppid;
	}
}

static void spool_line(struct live *lv, struct spool *sp, char *line, size_t len)
{
	struct ktrace_line tl;
	const char *what;
	char comm[32], fixed[96];
	const char *name = NULL;

	if (ktrace_parse_line(line, len, &tl, &what) < 0 || tl.kind != KTRACE_LINE_EVENT) {
		spool_out(sp, line, len);
		spool_out(sp, "\n", 1);
		return;
	}
	if (tl.ev.kind == KTRACE_EV_SYS_ENTER_FINIT_MODULE)
		mark_finit_fd(lv, &tl.ev);
	if (tl.ev.kind == KTRACE_EV_SYS_ENTER_FINIT_MODULE ||
	    tl.ev.kind == KTRACE_EV_SYS_ENTER_INIT_MODULE ||
	    tl.ev.kind == KTRACE_EV_MODULE_REQUEST)
		mark_parents(sp, tl.ev.pid);
	if (tl.ev.kind == KTRACE_EV_LOST) {
		if (tl.ev.cpu < lv->ncpus && lv->lost_seen)
			lv->lost_seen[tl.ev.cpu] += tl.ev.lost.count;
		lv->lost_uncounted += tl.ev.lost.uncounted;
	} else if (tl.ev.comm.len == 5 && memcmp(tl.ev.comm.s, "<...>", 5) == 0) {
		struct pid_comm *e = map_slot(sp, tl.ev.pid, false);

		if (e && e->comm[0] && !e->from_fork)
			name = e->comm;
		else if (proc_comm(tl.ev.pid, comm, sizeof(comm)))
			name = comm;
		else if (e && e->comm[0])
			name = e->comm;
	} else {
		map_set(sp, tl.ev.pid, tl.ev.comm.s, tl.ev.comm.len, false);
	}
	if (tl.ev.kind == KTRACE_EV_TASK_RENAME && tl.ev.rename.pid > 0) {
		/* the name a fork gave is stale */
		map_set(sp, tl.ev.rename.pid, tl.ev.rename.newcomm.s, tl.ev.rename.newcomm.len,
			false);
	}
	if (tl.ev.kind == KTRACE_EV_SCHED_PROCESS_FORK) {
		map_set(sp, tl.ev.fork.child_pid, tl.ev.fork.child_comm.s, tl.ev.fork.child_comm.len,
			true);
	} else if (tl.ev.kind == KTRACE_EV_SCHED_PROCESS_EXEC && name) {
		/* the exec line's own name was unknown: the new name is the file's */
		const char *f = tl.ev.exec.filename.s, *end = f + tl.ev.exec.filename.len;
		const char *base = f;
		size_t bl;

		for (const char *q = f; q < end; q++)
			if (*q == '/')
				base = q + 1;
		bl = (size_t)(end - base);
		if (bl) {
			/* TASK_COMM_LEN: the kernel keeps 15 bytes of it */
			bl = bl > 15 ? 15 : bl;
			memcpy(comm, base, bl);
			comm[bl] = '\0';
			name = comm;
		}
	}
	if (name) {
		/* same columns: "%16s" right-aligns the name in front of "-PID" */
		size_t at = (size_t)(tl.ev.comm.s - line), width = at + 5, nl = strlen(name);
		size_t pad = width > nl ? width - nl : 0;

		size_t nlen = pad + nl + (len - width);

		if (pad + nl < sizeof(fixed) && scratch_reserve(sp, nlen + 1) == 0) {
			struct ktrace_line check;

			memset(fixed, ' ', pad);
			memcpy(fixed + pad, name, nl);
			memcpy(sp->scratch, fixed, pad + nl);
			memcpy(sp->scratch + pad + nl, line + width, len - width);
			sp->scratch[nlen] = '\0';
			/* a name the parser would not take back leaves the line as it was */
			if (ktrace_parse_line(sp->scratch, nlen, &check, &what) == 0 &&
			    check.kind == KTRACE_LINE_EVENT && check.ev.pid == tl.ev.pid) {
				spool_out(sp, sp->scratch, nlen);
				spool_out(sp, "\n", 1);
				sp->resolved++;
				map_set(sp, tl.ev.pid, name, nl, false);
				return;
			}
		}
	}
	if (tl.ev.comm.len == 5 && memcmp(tl.ev.comm.s, "<...>", 5) == 0)
		sp->unresolved++;
	spool_out(sp, line, len);
	spool_out(sp, "\n", 1);
}

static void spool_feed(struct live *lv, struct spool *sp, const char *p, size_t len)
{
	const char *end = p + len;

	while (p < end && !sp->err) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);

		if (sp->carry_len + n + 1 > sp->carry_cap) {
			size_t ncap = sp->carry_cap ? sp->carry_cap : 4096;
			char *nc;

			while (ncap < sp->carry_len + n + 1)
				ncap *= 2;
			nc = realloc(sp->carry, ncap);
			if (!nc) {
				sp->err = -ENOMEM;
				return;
			}
			sp->carry = nc;
			sp->carry_cap = ncap;
		}
		memcpy(sp->carry + sp->carry_len, p, n);
		sp->carry_len += n;
		if (!nl)
			return;
		sp->carry[sp->carry_len] = '\0';
		spool_line(lv, sp, sp->carry, sp->carry_len);
		sp->carry_len = 0;
		p = nl + 1;
	}
}

static int spool_finish(struct spool *sp)
{
	/* a last line without its newline goes out as it came */
	if (sp->carry_len)
		spool_out(sp, sp->carry, sp->carry_len);
	sp->carry_len = 0;
	return spool_flush(sp);
}

static void spool_done(struct spool *sp)
{
	free(sp->carry);
	free(sp->scratch);
	free(sp->map);
}

/* Reads what trace_pipe holds now (bounded, so that a flood cannot starve the loop). */
static int drain_trace(struct live *lv, struct ktrace_instance *ti, struct spool *sp,
		       char *buf, unsigned int max_reads)
{
	for (unsigned int i = 0; i < max_reads; i++) {
		ssize_t n = ktrace_instance_read(ti, buf, READ_CHUNK);

		if (n == -EAGAIN || n == -EINTR)
			break;
		if (n < 0)
			return (int)n;
		lv->trace_bytes += (uint64_t)n;
		spool_feed(lv, sp, buf, (size_t)n);
		if (sp->err)
			return sp->err;
	}
	return spool_flush(sp);
}

/*
 * The raw buffers. A record has no task name: trace_pipe prints the kernel's pid cache
 * when it is read, and kmodtop keeps the same for itself in the spool's map, filled as
 * for the text: from the trace's own fork, exec and rename events, as soon as they are
 * decoded, and from /proc/PID/comm while the task runs. The events then go out in time
 * order as the lines trace-cmd prints, which the parser reads as it reads trace_pipe.
 */
static int raw_decoded(void *userdata, const struct ktrace_event *ev)
{
	struct live *lv = userdata;
	struct spool *sp = lv->sp;
	struct pid_comm *e;
	char comm[32];

	if (ev->kind == KTRACE_EV_LOST)
		return 0;
	if (ev->kind == KTRACE_EV_SYS_ENTER_FINIT_MODULE)
		mark_finit_fd(lv, ev);
	if (ev->kind == KTRACE_EV_SYS_ENTER_FINIT_MODULE ||
	    ev->kind == KTRACE_EV_SYS_ENTER_INIT_MODULE || ev->kind == KTRACE_EV_MODULE_REQUEST)
		mark_parents(sp, ev->pid);
	if (ev->kind == KTRACE_EV_SCHED_PROCESS_EXEC && ev->exec.filename.len) {
		/* the new name is the file's, TASK_COMM_LEN's 15 bytes of its base name */
		const char *f = ev->exec.filename.s, *end = f + ev->exec.filename.len, *base = f;

		for (const char *q = f; q < end; q++)
			if (*q == '/')
				base = q + 1;
		if (end > base)
			map_set(sp, ev->pid, base, (size_t)(end - base), false);
	}
	if (ev->kind == KTRACE_EV_TASK_RENAME && ev->rename.pid > 0)
		map_set(sp, ev->rename.pid, ev->rename.newcomm.s, ev->rename.newcomm.len, false);
	if (ev->kind == KTRACE_EV_SCHED_PROCESS_FORK)
		map_set(sp, ev->fork.child_pid, ev->fork.child_comm.s, ev->fork.child_comm.len,
			true);
	if (ev->pid <= 0)
		return sp->err;
	/* a task new to the map: its name now, while it runs */
	e = map_slot(sp, ev->pid, false);
	if ((!e || !e->comm[0] || e->from_fork) && proc_comm(ev->pid, comm, sizeof(comm)))
		map_set(sp, ev->pid, comm, strlen(comm), false);
	return sp->err;
}

static int raw_event(void *userdata, const struct ktrace_event *ev, const struct tep_record *rec)
{
	struct live *lv = userdata;
	struct spool *sp = lv->sp;
	const char *name = NULL;

	if (ev->kind == KTRACE_EV_LOST) {
		if (ev->cpu < lv->ncpus && lv->lost_seen)
			lv->lost_seen[ev->cpu] += ev->lost.count;
		lv->lost_uncounted += ev->lost.uncounted;
	} else if (ev->pid == 0) {
		name = "<idle>";
	} else {
		struct pid_comm *e = map_slot(sp, ev->pid, false);

		if (e && e->comm[0])
			name = e->comm;
		if (name)
			sp->resolved++;
		else
			sp->unresolved++;
	}
	if (lv->sink) {
		struct ktrace_event e = *ev;

		raw_event_as_text(&e, name, lv->sink_text, sizeof(lv->sink_text));
		return lv->sink->event(lv->sink_userdata, &e);
	}
	trace_seq_reset(&lv->seq);
	if (raw_format_event(ktrace_raw_tep(lv->rr), &lv->seq, ev, rec, name) < 0)
		return -ENOMEM;
	spool_out(sp, lv->seq.buffer, lv->seq.len);
	return sp->err;
}

static void raw_bad(void *userdata, const char *what)
{
	struct live *lv = userdata;

	/* counted in the stream's stats (malformed); a sink counts its own */
	if (lv->sink && lv->sink->bad)
		lv->sink->bad(lv->sink_userdata, what);
}

static const char *raw_comm(void *userdata, int pid)
{
	(void)userdata;
	(void)pid;
	return NULL;	/* raw_event() names the task itself, after the event's own changes */
}

static int raw_page(void *userdata, unsigned int cpu, const void *page, size_t len)
{
	struct live *lv = userdata;

	lv->raw_pages++;
	lv->trace_bytes += len;
	return raw_stream_page(lv->rs, cpu, page, len);
}

/*
 * Reads the pages the buffers hold now, at most @max_pages a CPU. What is a second older
 * than the newest event goes to the spool: every CPU has been read since it happened.
 */
static int drain_raw(struct live *lv, unsigned int max_pages, bool all)
{
	int r = ktrace_raw_read(lv->rr, raw_page, lv, max_pages);

	if (r < 0)
		return r;
	/* a sink takes the events when its reader asks (live_pull_events()), but the last */
	if (lv->sink && !all)
		return 0;
	r = raw_stream_flush(lv->rs, all ? -1 : 1.0, ktrace_raw_behind(lv->rr));
	if (r < 0)
		return r;
	return spool_flush(lv->sp);
}

int live_set_sink(struct live *lv, const struct live_sink_ops *ops, void *userdata)
{
	if (!lv->raw || !lv->rs)
		return -ENOTSUP;
	lv->sink = ops;
	lv->sink_userdata = userdata;
	return 0;
}

int live_pull_events(struct live *lv)
{
	if (!lv->sink || !lv->rs || lv->trace_err)
		return 0;
	/* what every CPU's buffer has been read past (drain_raw()'s rule) */
	return raw_stream_flush(lv->rs, 1.0, ktrace_raw_behind(lv->rr));
}

static int read_kallsyms(char **ret)
{
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);

	if (!buf || fd < 0) {
		int e = !buf ? -ENOMEM : -errno;

		free(buf);
		if (fd >= 0)
			close(fd);
		return e;
	}
	for (;;) {
		ssize_t n;

		if (len + 65536 + 1 > cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				close(fd);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, 65536);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	*ret = buf;
	return 0;
}

/*
 * The raw buffers of the instance, with the formats of what it traces and the kernel's
 * symbols (call sites, stacks). Any failure leaves the text pipe to be read, with why.
 */
static int open_raw(struct live *lv)
{
	static const struct raw_stream_ops ops = {
		.decoded = raw_decoded, .event = raw_event, .bad = raw_bad
	};
	/* the formats of what the instance traces: its events' systems, ftrace's own */
	char sys[KTRACE_MAX_EVENTS + 4][32];
	const char *systems[KTRACE_MAX_EVENTS + 5];
	size_t ns = 0;
	const char *why = NULL;
	char *syms = NULL;
	int r;

	snprintf(sys[ns++], sizeof(sys[0]), "ftrace");
	snprintf(sys[ns++], sizeof(sys[0]), "vmalloc");
	if (lv->ti->group[0])
		snprintf(sys[ns++], sizeof(sys[0]), "%s", lv->ti->group);
	for (size_t i = 0; i < lv->ti->n_events && ns < KTRACE_MAX_EVENTS + 4; i++) {
		const char *n = lv->ti->events[i].name, *sl = strchr(n, '/');
		size_t k;

		if (!sl || (size_t)(sl - n) >= sizeof(sys[0]))
			continue;
		for (k = 0; k < ns; k++)
			if (strlen(sys[k]) == (size_t)(sl - n) && memcmp(sys[k], n, (size_t)(sl - n)) == 0)
				break;
		if (k == ns)
			snprintf(sys[ns++], sizeof(sys[0]), "%.*s", (int)(sl - n), n);
	}
	for (size_t k = 0; k < ns; k++)
		systems[k] = sys[k];
	systems[ns] = NULL;

	r = ktrace_raw_open(live_mnt.fd, live_mnt.path, lv->ti->path, lv->ti->ncpus, systems,
			     &lv->rr, &why);
	if (r < 0) {
		lv->raw_why = why;
		return r;
	}
	/* /proc/kallsyms' addresses are zeros without CAP_SYSLOG: names are then hex */
	if (read_kallsyms(&syms) == 0) {
		ktrace_raw_kallsyms(lv->rr, syms);
		free(syms);
	}
	r = raw_stream_new(ktrace_raw_tep(lv->rr), raw_comm, lv, lv->ti->ncpus, &ops, lv, &lv->rs);
	if (r < 0) {
		lv->rr = ktrace_raw_free(lv->rr);
		lv->raw_why = "out of memory";
		return r;
	}
	live_rr = lv->rr;
	trace_seq_init(&lv->seq);
	snprintf(lv->trace_name, sizeof(lv->trace_name), "%s/per_cpu/cpuN/trace_pipe_raw",
		 lv->ti->path);
	lv->raw = true;
	return 0;
}

static void close_raw(struct live *lv)
{
	if (!lv->rr)
		return;
	lv->rs = raw_stream_free(lv->rs);
	lv->rr = live_rr = ktrace_raw_free(lv->rr);
	trace_seq_destroy(&lv->seq);
}

/* ---- collection ------------------------------------------------------------------- */

static bool kernel_stacktrace_in_instance(const char *release)
{
	struct kver v;

	/* 5.17: "tracing: Have stacktrace trigger use the instance's buffer" */
	return release && kver_parse(release, &v) == 0 && kver_cmp_mm(&v, 5, 17) >= 0;
}

static unsigned int measure_buffer_kb(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	unsigned int kb = SETUP_MEASURE_BUFFER_KB;

	if (n > 0 && (unsigned long)n * kb > MEASURE_BUFFER_TOTAL_KB)
		kb = MEASURE_BUFFER_TOTAL_KB / (unsigned int)n;
	/* below the kernel's default (1.4 MiB) there is no point in asking */
	return kb >= 1410 ? kb : 0;
}

/*
 * Says in the trace which naming probes trace from here on, so that a reader knows that
 * a call without a kmodtop_kread did not read, rather than that it was not traced.
 */
static void mark_probes(struct ktrace_instance *ti)
{
	char text[64];

	if (!ti->probe_on[LOAD_PROBE_KREAD] && !ti->probe_on[LOAD_PROBE_NAME] &&
	    !ti->probe_on[LOAD_PROBE_LAYOUT])
		return;
	snprintf(text, sizeof(text), "kmodtop_probes%s%s%s",
		 ti->probe_on[LOAD_PROBE_KREAD] ? " kread" : "",
		 ti->probe_on[LOAD_PROBE_NAME] ? " name" : "",
		 ti->probe_on[LOAD_PROBE_LAYOUT] ? " layout" : "");
	/* without the marker the first probe event says the same, a little later */
	ktrace_instance_mark(ti, text, strlen(text));
}

/*
 * The naming probes for the running kernel: its BTF (offsets, argument positions) and
 * what ftrace can attach to. Neither is needed: a probe that cannot be had is a missing
 * event, with the plan's reason.
 */
static int plan_probes(int tfd, struct load_probe_plan *ret)
{
	struct kernel_btf *btf = NULL;
	struct kt_root *live = NULL;
	char *funcs = NULL;
	size_t len = 0;
	int r;

	r = root_new("/", &live);
	if (r == -ENOMEM)
		return r;
	if (r >= 0) {
		r = kernel_btf_read(live, &btf);
		root_free(live);
		if (r == -ENOMEM)
			return r;
	}
	/* ~1.5 MiB on a distribution kernel; read once, before tracing starts */
	r = ktrace_read_file(tfd, "available_filter_functions", 64u << 20, &funcs, &len);
	if (r == -ENOMEM) {
		kernel_btf_free(btf);
		return r;
	}
	load_probes_plan(btf, r >= 0 ? funcs : NULL, len, ret);
	free(funcs);
	kernel_btf_free(btf);
	return 0;
}

static int setup_trace(struct live *lv, struct ktrace_instance **ret_ti)
{
	struct load_probe_plan plan;
	struct ktrace_instance_opts io = {
		.measure = lv->o.measure,
		.stacktrace_in_instance = kernel_stacktrace_in_instance(lv->o.release),
		.buffer_kb = lv->o.measure ? measure_buffer_kb() : 0,
		.probes = &plan,
	};
	const char *why = NULL;
	int r;

	r = ktrace_mount_find(NULL, NULL, geteuid() == 0, &live_mnt, &why);
	if (r < 0) {
		lv->trace_err = r;
		lv->trace_why = why;
		return r;
	}
	lv->tracefs_path = strdup(live_mnt.path);
	lv->tracefs_mounted = live_mnt.mounted;
	r = ktrace_cleanup_stale(live_mnt.fd, getpid(), NULL, &lv->stale);
	if (r < 0 && r != -ENOENT)
		lv->stale_err = r;
	r = plan_probes(live_mnt.fd, &plan);
	if (r < 0)
		return r;
	r = ktrace_instance_new(live_mnt.fd, getpid(), &io, NULL, &live_ti, &why);
	if (r < 0) {
		lv->trace_err = r;
		lv->trace_why = r == -EACCES || r == -EPERM
					? "creating a tracefs instance needs root (CAP_SYS_ADMIN), "
					  "and is refused under kernel lockdown"
					: why;
		/*
		 * Half made and not removable now: live_end() tries again, and
		 * live_log() says what is left; the atexit() handler has the last go
		 */
		if (live_ti) {
			snprintf(lv->instance, sizeof(lv->instance), "%s", live_ti->path);
			snprintf(lv->group, sizeof(lv->group), "%s", live_ti->group);
		}
		return r;
	}
	*ret_ti = live_ti;
	snprintf(lv->instance, sizeof(lv->instance), "%s", live_ti->path);
	snprintf(lv->trace_name, sizeof(lv->trace_name), "%s/trace_pipe", live_ti->path);
	snprintf(lv->group, sizeof(lv->group), "%s", live_ti->group);
	snprintf(lv->clock, sizeof(lv->clock), "%s", live_ti->clock);
	memcpy(lv->events, live_ti->events, sizeof(lv->events));
	lv->n_events = live_ti->n_events;
	lv->measure = live_ti->measure;
	lv->measure_why = live_ti->measure_why;
	lv->ncpus = live_ti->ncpus;
	if (lv->ncpus) {
		lv->lost = calloc(lv->ncpus, sizeof(*lv->lost));
		lv->lost_seen = calloc(lv->ncpus, sizeof(*lv->lost_seen));
		if (!lv->lost || !lv->lost_seen)
			return -ENOMEM;
	}
	return 0;
}

static const char *kmsg_reason(int r)
{
	char buf[8] = "";
	int fd;

	if (r != -EPERM && r != -EACCES)
		return r == -ENOENT ? "no /dev/kmsg" : "cannot be read";
	fd = open("/proc/sys/kernel/dmesg_restrict", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (read(fd, buf, sizeof(buf) - 1) < 0)
			buf[0] = '\0';
		close(fd);
	}
	return buf[0] == '1' ? "kernel.dmesg_restrict=1: reading it needs CAP_SYSLOG"
			     : "reading it needs CAP_SYSLOG or permission on /dev/kmsg";
}

static int kmsg_count(void *userdata, const struct klog_rec *rec)
{
	((struct live *)userdata)->kmsg_records++;
	return 0;
}

/* What was lost beyond the "[LOST n EVENTS]" lines the pipe showed goes in as one more */
static int account_lost(struct live *lv, struct ktrace_instance *ti, int trace_fd)
{
	int r = ktrace_instance_lost(ti, lv->lost);

	if (r < 0) {
		lv->lost_err = r;
		return 0;
	}
	for (unsigned int c = 0; c < lv->ncpus; c++) {
		char line[64];

		if (lv->lost[c] < lv->lost_seen[c])
			lv->lost[c] = lv->lost_seen[c];
		lv->lost_total += lv->lost[c];
		if (lv->lost[c] == lv->lost_seen[c])
			continue;
		snprintf(line, sizeof(line), "CPU:%u [LOST %" PRIu64 " EVENTS]\n", c,
			 lv->lost[c] - lv->lost_seen[c]);
		r = fd_write_all(trace_fd, line, strlen(line));
		if (r < 0)
			return r;
	}
	return 0;
}

static int trace_header(struct live *lv, int fd)
{
	char buf[256];

	snprintf(buf, sizeof(buf),
		 "# tracer: nop\n#\n# kmodtop: %s of %s, %u CPUs, clock %s, vmap measurement %s\n#\n",
		 lv->trace_name, lv->tracefs_path ? lv->tracefs_path : "tracefs", lv->ncpus,
		 lv->clock[0] ? lv->clock : "?",
		 lv->measure == KTRACE_MEASURE_TRACEPOINT ? "vmalloc:alloc_vmap_area"
		 : lv->measure == KTRACE_MEASURE_KPROBE	  ? "kprobe alloc_vmap_area"
							  : "none");
	return fd_write_all(fd, buf, strlen(buf));
}

static int spool_new(const char *name)
{
	int fd = memfd_create(name, MFD_CLOEXEC);

	if (fd < 0 && errno == ENOSYS) {
		FILE *f = tmpfile();

		fd = f ? fcntl(fileno(f), F_DUPFD_CLOEXEC, 3) : -1;
		if (f)
			fclose(f);
	}
	return fd < 0 ? -errno : fd;
}

/*
 * One sample of vmallocinfo: an incremental re-read, so a poll between loads parses
 * the few lines that changed. An unreadable file stops the sampling, not the collection.
 */
static int vm_sample(struct live *lv)
{
	struct vmallocinfo_change ch;
	struct meminfo mi = { 0 };
	struct kt_err e = { 0 };
	int r;

	if (!lv->o.root || lv->vs_err)
		return 0;
	lv->vs_last = now_mono();
	r = vmallocinfo_reread(lv->o.root, &lv->vi, &ch, &e);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		lv->vs_err = r;
		lv->vi = vmallocinfo_free(lv->vi);
		return 0;
	}
	memset(&e, 0, sizeof(e));
	r = meminfo_read(lv->o.root, &mi, &e);
	if (r == -ENOMEM)
		return r;
	return vmsample_add(&lv->vs, lv->vi, &ch, r == 0 ? &mi : NULL);
}

/* The instance and /dev/kmsg, read by live_poll() into the spools until live_end(). */
int live_start(const struct live_opts *o, int trace_fd, int kmsg_fd, struct live **ret)
{
	static bool atexit_done;
	struct klog_parser_ops kops = { .record = kmsg_count };
	struct live *lv;
	int r = 0;

	lv = calloc(1, sizeof(*lv));
	if (!lv)
		return -ENOMEM;
	lv->trace_fd = lv->kmsg_fd = -1;
	lv->buf = malloc(READ_CHUNK);
	lv->sp = calloc(1, sizeof(*lv->sp));
	if (!lv->buf || !lv->sp) {
		live_free(lv);
		return -ENOMEM;
	}
	lv->o = *o;
	lv->sp->fd = -1;
	if (trace_fd < 0) {
		lv->own_spools = true;
		trace_fd = lv->trace_fd = spool_new("kmodtop-trace");
		kmsg_fd = lv->kmsg_fd = trace_fd >= 0 ? spool_new("kmodtop-kmsg") : -1;
		if (trace_fd < 0 || kmsg_fd < 0) {
			r = trace_fd < 0 ? trace_fd : kmsg_fd;
			live_free(lv);
			return r;
		}
	} else {
		lv->trace_fd = trace_fd;
		lv->kmsg_fd = kmsg_fd;
	}
	lv->sp->fd = trace_fd;
	if (!atexit_done)
		atexit_done = atexit(live_atexit) == 0;

	r = setup_trace(lv, &lv->ti);
	if (r == -ENOMEM)
		goto fail;
	r = kmsg_follow_open(NULL, o->since_boot, &kops, lv, kmsg_fd, &lv->kf);
	if (r < 0) {
		lv->kmsg_err = r;
		lv->kmsg_why = kmsg_reason(r);
	}
	r = 0;
	if (lv->ti) {
		const char *rd = getenv("KMODTOP_TRACE_READ");

		if (rd && strcmp(rd, "text") == 0)
			lv->raw_why = "KMODTOP_TRACE_READ=text";
		else if ((r = open_raw(lv)) == -ENOMEM)
			goto fail;
		r = trace_header(lv, trace_fd);
		if (r >= 0)
			r = ktrace_instance_start_reading(lv->ti, !lv->raw);
		if (r < 0) {
			lv->trace_err = r;
			lv->trace_why = "starting the instance failed";
			goto fail;
		}
		mark_probes(lv->ti);
	}
	lv->started = now_mono();
	r = vm_sample(lv);
	if (r < 0)
		goto fail;
	*ret = lv;
	return 0;
fail:
	live_free(lv);
	return r;
}

int live_mark_now(struct live *lv)
{
	static const char text[] = "kmodtop_now";

	if (!live_ti || live_ti->marker_fd < 0 || lv->trace_err)
		return -ENOENT;
	return ktrace_instance_mark(live_ti, text, sizeof(text) - 1);
}

int live_poll(struct live *lv, unsigned int max_reads)
{
	uint64_t before = lv->trace_bytes + lv->kstats.bytes;
	int r, ret = 0;

	/* a reader of the spools (top) may have moved their offsets */
	if (lv->own_spools) {
		lseek(lv->trace_fd, 0, SEEK_END);
		lseek(lv->kmsg_fd, 0, SEEK_END);
	}
	/* the pipe's wakeups are lazy (irq_work): read on every tick, not only POLLIN */
	if (lv->ti && !lv->trace_err) {
		r = lv->raw ? drain_raw(lv, max_reads, false)
			    : drain_trace(lv, lv->ti, lv->sp, lv->buf, max_reads);
		if (r < 0) {
			lv->trace_err = r;
			lv->trace_why = lv->raw ? "reading trace_pipe_raw failed"
						: "reading trace_pipe failed";
			ret = r;
		}
	}
	if (lv->kf) {
		r = kmsg_follow_read(lv->kf);
		if (r < 0) {
			lv->kmsg_err = r;
			lv->kmsg_why = "reading it failed";
			lv->kf = kmsg_follow_free(lv->kf);
		} else {
			lv->kstats = *kmsg_follow_stats(lv->kf);
		}
	}
	/* once per poll interval, however often the pipe wakes the loop */
	if (now_mono() - lv->vs_last >= POLL_MS / 1000.0) {
		r = vm_sample(lv);
		if (r < 0)
			return r;
	}
	return ret < 0 ? ret : lv->trace_bytes + lv->kstats.bytes != before;
}

int live_pollfds(const struct live *lv, struct pollfd *pfd)
{
	int n = 0;

	/* the raw buffers are read on the loop's tick: a wakeup per page would cost more */
	if (lv->ti && !lv->raw)
		pfd[n++] = (struct pollfd){ .fd = lv->ti->pipe_fd, .events = POLLIN };
	if (lv->kf)
		pfd[n++] = (struct pollfd){ .fd = kmsg_follow_fd(lv->kf), .events = POLLIN };
	return n;
}

int live_end(struct live *lv)
{
	int r = 0;

	if (lv->stopped)
		return lv->stop_err;
	lv->stopped = true;
	if (lv->started)
		lv->seconds = now_mono() - lv->started;
	if (lv->ti && (lv->ti->pipe_fd >= 0 || lv->raw)) {
		int q;

		if (lv->own_spools)
			lseek(lv->trace_fd, 0, SEEK_END);
		/* stop, then take what is still buffered: nothing is left behind unread */
		ktrace_instance_stop(lv->ti);
		q = lv->raw ? drain_raw(lv, UINT32_MAX, true)
			    : drain_trace(lv, lv->ti, lv->sp, lv->buf, UINT32_MAX);
		if (q >= 0)
			q = spool_finish(lv->sp);
		if (q < 0 && r >= 0)
			r = q;
		lv->comms_resolved = lv->sp->resolved;
		lv->comms_unknown = lv->sp->unresolved;
		q = account_lost(lv, lv->ti, lv->trace_fd);
		if (q < 0 && r >= 0)
			r = q;
	}
	if (lv->kf) {
		int q;

		if (lv->own_spools)
			lseek(lv->kmsg_fd, 0, SEEK_END);
		q = kmsg_follow_read(lv->kf);
		if (q >= 0)
			q = kmsg_follow_finish(lv->kf);
		if (q < 0 && !lv->kmsg_err) {
			lv->kmsg_err = q;
			lv->kmsg_why = "reading it failed";
		}
		lv->kstats = *kmsg_follow_stats(lv->kf);
	}
	/* an open trace_pipe_raw keeps the instance's rmdir at EBUSY */
	close_raw(lv);
	if (live_ti) {
		lv->teardown_err = ktrace_instance_teardown(live_ti);
		if (live_ti->group[0] || live_ti->created)
			snprintf(lv->group, sizeof(lv->group), "%s", live_ti->group);
		else
			live_ti = ktrace_instance_free(live_ti);
	}
	lv->ti = NULL;
	/* an instance kept for the retry at exit has a handle of its own */
	ktrace_mount_done(&live_mnt);
	lv->kf = kmsg_follow_free(lv->kf);
	lv->vi = vmallocinfo_free(lv->vi);	/* the samples' sums stay */
	if (lv->sp)
		spool_done(lv->sp);
	free(lv->sp);
	lv->sp = NULL;
	free(lv->buf);
	lv->buf = NULL;
	lv->stop_err = r;
	return r;
}

int live_lost_now(struct live *lv, uint64_t *ret)
{
	uint64_t total = 0;
	int r;

	if (!lv->ti || lv->trace_err) {
		*ret = lv->lost_total;
		return lv->stopped ? 0 : -ENOENT;
	}
	r = ktrace_instance_lost(lv->ti, lv->lost);
	if (r < 0)
		return r;
	for (unsigned int c = 0; c < lv->ncpus; c++)
		total += lv->lost[c] > lv->lost_seen[c] ? lv->lost[c] : lv->lost_seen[c];
	*ret = total;
	return 0;
}

/*
 * live_collect(), the stop signals left caught (and blocked) in @ss on return, for a
 * caller with more to finish before a signal may act (record's bundle): it calls
 * signals_restore(@ss) when done. live_stop says whether one came meanwhile.
 */
static int live_collect_held(const struct live_opts *o, int trace_fd, int kmsg_fd,
			     struct sigstate *ss, struct live **ret)
{
	struct live *lv = NULL;
	double deadline;
	int r = 0;

	live_stop = 0;
	signals_catch(ss);
	r = live_start(o, trace_fd, kmsg_fd, &lv);
	if (r < 0)
		goto out;
	deadline = o->duration > 0 ? lv->started + o->duration : INFINITY;
	/* nothing to follow: waiting would only delay the report */
	while ((lv->ti || lv->kf) && !live_stop) {
		struct pollfd pfd[2];
		struct timespec ts;
		double left = deadline - now_mono();
		nfds_t n;
		int ms;

		if (left <= 0)
			break;
		ms = left * 1000 < POLL_MS ? (int)(left * 1000) + 1 : POLL_MS;
		n = (nfds_t)live_pollfds(lv, pfd);
		ts = (struct timespec){ .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };
		if (ppoll(pfd, n, &ts, &ss->oldmask) < 0 && errno != EINTR) {
			r = -errno;
			break;
		}
		r = live_poll(lv, 64);
		if (r < 0)
			break;
		r = 0;
	}
	lv->ended_by = live_stop;
	{
		int q = live_end(lv);

		if (q < 0 && r >= 0)
			r = q;
	}
out:
	if (r < 0) {
		live_free(lv);
		return r;
	}
	*ret = lv;
	return 0;
}

int live_collect(const struct live_opts *o, int trace_fd, int kmsg_fd, struct live **ret)
{
	struct sigstate ss;
	int r = live_collect_held(o, trace_fd, kmsg_fd, &ss, ret);

	signals_restore(&ss);
	return r;
}

struct live *live_free(struct live *lv)
{
	if (!lv)
		return NULL;
	live_end(lv);
	if (lv->own_spools && lv->trace_fd >= 0)
		close(lv->trace_fd);
	if (lv->own_spools && lv->kmsg_fd >= 0)
		close(lv->kmsg_fd);
	vmallocinfo_free(lv->vi);
	vmsample_done(&lv->vs);
	free(lv->tracefs_path);
	free(lv->lost);
	free(lv->lost_seen);
	free(lv);
	return NULL;
}

const struct vmsample *live_vmsample(const struct live *lv, int *ret_err)
{
	*ret_err = lv->vs_err;
	return &lv->vs;
}

bool live_has_trace(const struct live *lv)
{
	return lv->instance[0] && !lv->trace_err;
}

bool live_has_kmsg(const struct live *lv)
{
	return !lv->kmsg_err;
}

int live_trace_fd(const struct live *lv)
{
	return live_has_trace(lv) ? lv->trace_fd : -1;
}

int live_kmsg_fd(const struct live *lv)
{
	return live_has_kmsg(lv) ? lv->kmsg_fd : -1;
}

const char *live_trace_name(const struct live *lv)
{
	return lv->trace_name;
}

int live_trace_error(const struct live *lv, const char **ret_why)
{
	*ret_why = lv->trace_why;
	return lv->trace_err ? lv->trace_err : lv->instance[0] ? 0 : -ENOENT;
}

int live_kmsg_error(const struct live *lv, const char **ret_why)
{
	*ret_why = lv->kmsg_why;
	return lv->kmsg_err;
}

bool live_measuring(const struct live *lv, const char **ret_why)
{
	*ret_why = lv->measure_why;
	return lv->measure != KTRACE_MEASURE_NONE;
}

int live_teardown_error(const struct live *lv)
{
	return lv->teardown_err;
}

/* Says on stderr what the collection lacked and lost; 0, or -1 when it left state. */
int live_log(const struct live *lv)
{
	const char *pfx = lv->tracefs_path ? lv->tracefs_path : "tracefs";

	if (lv->stale.instances || lv->stale.probes)
		log_info("removed %u tracefs instance(s) and %u kprobe event(s) left by kmodtop "
			 "processes that no longer run",
			 lv->stale.instances, lv->stale.probes);
	if (lv->stale.failed)
		log_warn("%u leftover kmodtop tracefs instance(s) or kprobe(s) could not be "
			 "removed: %s, ignoring",
			 lv->stale.failed, strerror(-lv->stale.first_err));
	if (lv->trace_err)
		log_warn("no trace: %s (%s): no load attempts from the trace, only from the "
			 "kernel log",
			 lv->trace_why ? lv->trace_why : "tracefs", strerror(-lv->trace_err));
	for (size_t i = 0; !lv->trace_err && i < lv->n_events; i++) {
		if (!lv->events[i].err)
			continue;
		if (lv->events[i].why)
			log_warn("%s: no probe %s (%s): no %s", pfx, lv->events[i].name,
				 lv->events[i].why, lv->events[i].loses);
		else
			log_warn("%s: this kernel has no event %s: no %s", pfx,
				 lv->events[i].name, lv->events[i].loses);
	}
	if (lv->o.measure && !lv->trace_err && lv->measure == KTRACE_MEASURE_NONE)
		log_warn("--measure: %s: estimates only", lv->measure_why ? lv->measure_why : "?");
	if (lv->kmsg_err)
		log_warn("/dev/kmsg: %s (%s): no kernel log findings", lv->kmsg_why,
			 strerror(-lv->kmsg_err));
	if (lv->kstats.epipe)
		log_warn("/dev/kmsg: %" PRIu64 " time(s) records were overwritten before kmodtop "
			 "read them (%" PRIu64 " records lost)",
			 lv->kstats.epipe, lv->kstats.lost);
	if (lv->lost_err)
		log_warn("%s/per_cpu/cpuN/stats: %s: lost events unknown", lv->instance,
			 strerror(-lv->lost_err));
	for (unsigned int c = 0; c < lv->ncpus; c++)
		if (lv->lost[c])
			log_warn("%s: %" PRIu64 " trace events lost on CPU %u (per_cpu/cpu%u/stats): "
				 "attempts may be missing or incomplete",
				 lv->instance, lv->lost[c], c, c);
	if (lv->lost_uncounted)
		log_warn("%s: %" PRIu64 " \"[LOST EVENTS]\" line(s) without a count: an unknown "
			 "number of trace events lost", lv->instance, lv->lost_uncounted);
	if (lv->teardown_err) {
		log_error("%s: %s could not be removed (%s): remove it with 'rmdir %s/%s'%s%s", pfx,
			  lv->instance, strerror(-lv->teardown_err), pfx, lv->instance,
			  lv->group[0] ? " and the kprobe group " : "", lv->group);
		return -1;
	}
	return 0;
}

static const char *signal_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "?";
}

static void out_err(struct out *o, int err, const char *why)
{
	out_bool(o, "ok", NULL, err == 0);
	if (err) {
		out_str(o, "error", NULL, strerrorname_np(-err));
		out_str(o, "reason", NULL, why);
	}
}

void live_render(const struct live *lv, struct out *o)
{
	static const char *const measure_names[] = { "none", "tracepoint", "kprobe" };
	char buf[200];

	out_section_begin(o, "live", "Live collection");
	snprintf(buf, sizeof(buf), "%.1f s%s%s", lv->seconds, lv->ended_by ? ", ended by " : "",
		 lv->ended_by ? signal_name(lv->ended_by) : "");
	out_str(o, NULL, "collected:", buf);
	out_u64(o, "seconds_ms", NULL, (uint64_t)(lv->seconds * 1000 + 0.5));
	out_str(o, "ended_by", NULL, lv->ended_by ? signal_name(lv->ended_by) : "duration");

	out_section_begin(o, "trace", NULL);
	out_str(o, "tracefs", "tracefs:", lv->tracefs_path);
	out_bool(o, "tracefs_mounted_by_kmodtop", NULL, lv->tracefs_mounted);
	out_str(o, "instance", "instance:", lv->instance[0] ? lv->instance : NULL);
	out_str(o, "clock", "trace clock:", lv->clock[0] ? lv->clock : NULL);
	out_err(o, lv->trace_err, lv->trace_why);
	if (lv->trace_err) {
		snprintf(buf, sizeof(buf), "%s (%s)", lv->trace_why ? lv->trace_why : "failed",
			 strerror(-lv->trace_err));
		out_str(o, NULL, "trace:", buf);
	}
	out_str(o, "read", "read from:", lv->instance[0] ? (lv->raw ? "trace_pipe_raw" : "trace_pipe")
							 : NULL);
	if (lv->instance[0] && !lv->raw)
		out_str(o, "read_text_reason", "  not raw:", lv->raw_why);
	out_u64(o, "bytes", NULL, lv->trace_bytes);
	out_u64(o, "raw_pages", NULL, lv->raw_pages);
	out_u64(o, "comms_resolved", NULL, lv->comms_resolved);
	out_u64(o, "comms_unknown", NULL, lv->comms_unknown);
	out_u64(o, "finit_fds_marked", NULL, lv->fd_marked);
	out_u64(o, "finit_fds_unread", NULL, lv->fd_unread);
	out_section_begin(o, "missing_events", NULL);
	for (size_t i = 0; i < lv->n_events; i++) {
		if (!lv->events[i].err)
			continue;
		snprintf(buf, sizeof(buf), "missing %s:", lv->events[i].name);
		out_str(o, lv->events[i].name, buf, lv->events[i].loses);
	}
	out_section_end(o);
	out_str(o, "measure", "vmap measurement:",
		lv->o.measure ? measure_names[lv->measure] : "off");
	if (lv->o.measure && lv->measure == KTRACE_MEASURE_NONE)
		out_str(o, "measure_reason", "  not measured:", lv->measure_why);
	out_u64(o, "lost_events", "lost trace events:", lv->lost_total);
	out_u64(o, "lost_events_uncounted", lv->lost_uncounted ? "  lines without a count:" : NULL,
		lv->lost_uncounted);
	if (lv->lost_err)
		out_str(o, "lost_events_error", "  lost events unknown:", strerrorname_np(-lv->lost_err));
	out_section_begin(o, "lost_by_cpu", NULL);
	for (unsigned int c = 0; c < lv->ncpus; c++) {
		char key[16];

		snprintf(key, sizeof(key), "cpu%u", c);
		out_u64(o, key, NULL, lv->lost[c]);
	}
	out_section_end(o);
	out_u64(o, "stale_instances_removed", NULL, lv->stale.instances);
	out_u64(o, "stale_probes_removed", NULL, lv->stale.probes);
	out_section_end(o);

	if (lv->o.root)
		report_render_vmsample(&lv->vs, POLL_MS, lv->vs_err, o);

	out_section_begin(o, "kmsg", NULL);
	out_str(o, "path", NULL, "/dev/kmsg");
	out_bool(o, "since_boot", NULL, lv->o.since_boot);
	out_err(o, lv->kmsg_err, lv->kmsg_why);
	if (lv->kmsg_err) {
		snprintf(buf, sizeof(buf), "%s (%s)", lv->kmsg_why, strerror(-lv->kmsg_err));
		out_str(o, NULL, "kernel log:", buf);
	}
	out_u64(o, "records", "kernel log records followed:", lv->kmsg_records);
	out_u64(o, "overwritten", NULL, lv->kstats.epipe);
	out_u64(o, "lost_records", "kernel log records lost:", lv->kstats.lost);
	out_section_end(o);
	out_section_end(o);
}

/* ---- record ----------------------------------------------------------------------- */

static void record_usage(FILE *f)
{
	fputs("Usage: kmodtop record [-o DIR] [--duration N] [--measure] [--since-boot]\n"
	      "       kmodtop record --print-setup [--instance NAME] [--measure]\n"
	      "\n"
	      "Collect module load attempts live (a tracefs instance of its own and /dev/kmsg),\n"
	      "then write them with a snapshot of the kernel's module state as a bundle that\n"
	      "'kmodtop --root DIR report' reads on any machine. Needs root for the trace.\n"
	      "\n"
	      "Options:\n"
	      "  -o, --output DIR    the bundle directory, new or empty (default:\n"
	      "                      ./kmodtop-RELEASE-YYYYMMDD-HHMMSS)\n"
	      "      --duration N    stop after N seconds (also Ns, Nm, Nh); default: at\n"
	      "                      Ctrl-C (SIGINT), SIGTERM or SIGHUP\n"
	      "      --measure       trace every vmap area allocation with its stack, to\n"
	      "                      measure what each attempt allocated (costly, see kmodtop(8))\n"
	      "      --since-boot    the kernel log from the oldest record kept, not from now\n"
	      "      --print-setup   record nothing: print the tracing kmodtop needs (naming\n"
	      "                      probes, events, filters) as shell functions, for\n"
	      "                      tracefs alone and for trace-cmd record, for a machine\n"
	      "                      without kmodtop (with --measure: the vmap stacks too)\n"
	      "      --instance NAME with --print-setup: its instance and buffer name\n"
	      "                      (default kmodtop)\n"
	      "  -h, --help          show this help\n"
	      "\n"
	      "The global options (--kernel-release) may also follow the command.\n"
	      "Exit status: 0 the bundle written (also when ended by Ctrl-C), 1 an error,\n"
	      "2 bad command line, 4 the kernel has no module support.\n",
	      f);
}

enum {
	OPT_DURATION = OPT_CMD_BASE + 0x40,
	OPT_MEASURE,
	OPT_SINCE_BOOT,
	OPT_PRINT_SETUP,
	OPT_INSTANCE,
};

struct bundle {
	int dfd;			/* the bundle directory, DIR.partial while written */
	struct kt_root *src;		/* "/" */
	char *dir;			/* DIR: what it is renamed to when complete */
	char *partial;			/* "DIR.partial" */
	bool made;			/* partial was made by this process */
	unsigned int copied, missing;
	int err;			/* first hard error */
	FILE *notes;			/* capture/record.txt */
};

/* Until the rename, inside the bundle: what it is, and why it stopped if it did */
#define BUNDLE_MARKER "capture/INCOMPLETE"

static int mkdir_p_at(int dfd, const char *rel)
{
	char buf[4096];

	if (snprintf(buf, sizeof(buf), "%s", rel) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdirat(dfd, buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdirat(dfd, buf, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static int create_at(int dfd, const char *rel)
{
	const char *slash = strrchr(rel, '/');
	int fd;

	if (slash) {
		char parent[4096];
		int r;

		snprintf(parent, sizeof(parent), "%.*s", (int)(slash - rel), rel);
		r = mkdir_p_at(dfd, parent);
		if (r < 0)
			return r;
	}
	/* read back too: the spools are parsed for the module names */
	fd = openat(dfd, rel, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0644);
	return fd < 0 ? -errno : fd;
}

static int copy_fd(int in, int out)
{
	char buf[65536];

	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));
		int r;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		r = fd_write_all(out, buf, (size_t)n);
		if (r < 0)
			return r;
	}
}

/* Copies a root-relative file of the live system into the bundle, same path. */
static int bundle_copy(struct bundle *b, const char *rel, bool optional)
{
	int in, out, r;

	in = root_open(b->src, rel, O_RDONLY);
	if (in < 0) {
		if (!optional || in != -ENOENT) {
			b->missing++;
			fprintf(b->notes, "missing %s: %s\n", rel, strerror(-in));
		}
		return in;
	}
	out = create_at(b->dfd, rel);
	if (out < 0) {
		close(in);
		if (!b->err)
			b->err = out;
		return out;
	}
	r = copy_fd(in, out);
	close(in);
	if (close(out) < 0 && r >= 0)
		r = -errno;
	if (r < 0) {
		/* a file that cannot be read is missing; one that cannot be written fails */
		if (r == -EIO || r == -ENOSPC || r == -EDQUOT || r == -EROFS) {
			if (!b->err)
				b->err = r;
		} else {
			b->missing++;
			fprintf(b->notes, "missing %s: %s\n", rel, strerror(-r));
			unlinkat(b->dfd, rel, 0);
		}
		return r;
	}
	b->copied++;
	return 0;
}

static int bundle_write(struct bundle *b, const char *rel, const char *text)
{
	int fd = create_at(b->dfd, rel), r;

	if (fd < 0)
		return fd;
	r = fd_write_all(fd, text, strlen(text));
	close(fd);
	return r;
}

static void bundle_sys_module(struct bundle *b, const struct proc_module *m)
{
	static const char *const attrs[] = { "coresize", "initsize", "initstate", "refcnt",
					     "taint" };
	char rel[512];
	struct dirent *de;
	DIR *d;
	int fd;

	if (strchr(m->name, '/'))
		return;
	for (size_t i = 0; i < ARRAY_SIZE(attrs); i++) {
		snprintf(rel, sizeof(rel), "sys/module/%s/%s", m->name, attrs[i]);
		bundle_copy(b, rel, true);
	}
	/* holders/ holds symlinks; their names are what the report reads */
	snprintf(rel, sizeof(rel), "sys/module/%s/holders", m->name);
	fd = root_open(b->src, rel, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	mkdir_p_at(b->dfd, rel);
	while ((de = readdir(d))) {
		char hrel[1024];
		int h;

		if (de->d_name[0] == '.')
			continue;
		snprintf(hrel, sizeof(hrel), "%s/%s", rel, de->d_name);
		h = create_at(b->dfd, hrel);
		if (h >= 0)
			close(h);
	}
	closedir(d);
}

/* *.conf of one modprobe.d directory: softdeps and aliases the report resolves with */
static void bundle_conf_dir(struct bundle *b, const char *rel)
{
	struct dirent *de;
	DIR *d;
	int fd = root_open(b->src, rel, O_RDONLY | O_DIRECTORY);

	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		char frel[1024];

		if (n < 6 || strcmp(de->d_name + n - 5, ".conf") != 0)
			continue;
		snprintf(frel, sizeof(frel), "%s/%s", rel, de->d_name);
		bundle_copy(b, frel, true);
	}
	closedir(d);
}

/* depmod's indexes and lists: every modules.* at the top of lib/modules/R */
static void bundle_module_indexes(struct bundle *b, const char *release)
{
	char rel[512];
	struct dirent *de;
	DIR *d;
	int fd;

	snprintf(rel, sizeof(rel), "lib/modules/%s", release);
	fd = root_open(b->src, rel, O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		b->missing++;
		fprintf(b->notes, "missing %s: %s\n", rel, strerror(-fd));
		return;
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d))) {
		char frel[1024];

		if (strncmp(de->d_name, "modules.", 8) != 0)
			continue;
		snprintf(frel, sizeof(frel), "%s/%s", rel, de->d_name);
		bundle_copy(b, frel, true);
	}
	closedir(d);
}

/* Module names the collection saw: loads, unloads, requests (resolved), log lines */
struct names {
	char **v;
	size_t n, cap;
	struct modindex *idx;
	bool oom;
};

static void names_add(struct names *nm, const char *s, size_t len)
{
	char *c;

	if (!len || len > 255 || memchr(s, '/', len))
		return;
	for (size_t i = 0; i < nm->n; i++)
		if (strlen(nm->v[i]) == len && memcmp(nm->v[i], s, len) == 0)
			return;
	if (nm->n == nm->cap) {
		size_t ncap = nm->cap ? nm->cap * 2 : 32;
		char **nv = realloc(nm->v, ncap * sizeof(*nv));

		if (!nv) {
			nm->oom = true;
			return;
		}
		nm->v = nv;
		nm->cap = ncap;
	}
	c = strndup(s, len);
	if (!c) {
		nm->oom = true;
		return;
	}
	/* '-' and '_' are the same in module names: keep the kernel's spelling */
	for (char *p = c; *p; p++)
		if (*p == '-')
			*p = '_';
	nm->v[nm->n++] = c;
}

static void names_add_resolved(struct names *nm, const char *alias, size_t len)
{
	char buf[256], **res = NULL;
	size_t n = 0;

	if (!nm->idx || len >= sizeof(buf))
		return;
	memcpy(buf, alias, len);
	buf[len] = '\0';
	if (modindex_lookup(nm->idx, buf, &res, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++)
		if (!strstr(res[i], " (builtin)"))
			names_add(nm, res[i], strlen(res[i]));
	modindex_names_free(res);
}

static int names_on_event(void *userdata, const struct ktrace_event *ev)
{
	struct names *nm = userdata;

	switch (ev->kind) {
	case KTRACE_EV_MODULE_LOAD:
	case KTRACE_EV_MODULE_FREE:
		names_add(nm, ev->module_load.name.s, ev->module_load.name.len);
		break;
	case KTRACE_EV_MODULE_REQUEST:
		names_add_resolved(nm, ev->module_request.name.s, ev->module_request.name.len);
		break;
	default:
		break;
	}
	return 0;
}

static void names_on_size_fit(void *userdata, const char *module)
{
	names_add(userdata, module, strlen(module));
}

/*
 * The ledger the report on the bundle builds, over the same trace and log, with the
 * bundle's proc/modules and depmod's indexes: the modules its attempts name (log,
 * kmodtop_fd markers, autoload, size), and every file whose size fit an unnamed attempt.
 * The report on the bundle names by size among the files the bundle holds only: with
 * every file that fit here copied, it finds the one file, or the several, found here.
 */
static void names_from_ledger(struct bundle *b, struct names *nm, const char *release,
			      int trace_fd, int kmsg_fd)
{
	struct collect_lookup lk = { .idx = nm->idx, .size_fit = names_on_size_fit,
				     .size_fit_userdata = nm };
	struct collect_input in = { .on_event = names_on_event, .userdata = nm,
				    .ledger_only = true };
	struct cost_kernel k = { .page_size = 4096 };
	struct proc_modules *pm = NULL;
	struct catalog *cat = NULL;
	struct collect_result res = {0};
	char rel[300], *moduledir = NULL, *tpath = NULL, *lpath = NULL;
	int fd, r;

	loadpath_from_release(release, &k.lp);
	lk.k = &k;
	fd = openat(b->dfd, "proc/modules", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		FILE *f = fdopen(fd, "re");

		if (f) {
			proc_modules_read_file(f, "proc/modules", &pm, &(struct kt_err){0});
			fclose(f);
		} else {
			close(fd);
		}
	}
	lk.pm = pm;
	snprintf(rel, sizeof(rel), "lib/modules/%s", release);
	if (root_abspath(b->src, rel, &moduledir) == 0 &&
	    catalog_new(moduledir, true, NULL, &cat) == 0)
		lk.cat = cat;
	if (collect_open_spool(trace_fd, "sys/kernel/tracing/trace", &in.trace, &tpath) < 0)
		in.trace = NULL;
	if (collect_open_spool(kmsg_fd, "capture/kmsg.raw", &in.log, &lpath) < 0)
		in.log = NULL;
	in.trace_path = tpath;
	in.log_path = lpath;
	r = in.trace || in.log ? collect_read(&lk, k.lp.idempotent_finit, &in, &res) : 0;
	if (r == -ENOMEM)
		nm->oom = true;
	for (size_t i = 0; res.ledger && i < res.ledger->n_attempts; i++) {
		const char *m = res.ledger->attempts[i].module;

		if (m)
			names_add(nm, m, strlen(m));
	}
	for (size_t i = 0; res.ledger && i < res.ledger->n_klog; i++) {
		const char *m = res.ledger->klog[i].module;

		if (m)
			names_add(nm, m, strlen(m));
	}
	fprintf(b->notes, "module files by size: %s\n",
		lk.cat ? "every file that fit an attempt" : "no module tree");
	collect_result_done(&res);
	if (in.trace)
		fclose(in.trace);
	if (in.log)
		fclose(in.log);
	free(tpath);
	free(lpath);
	catalog_free(cat);
	free(moduledir);
	proc_modules_free(pm);
}

/* The files of the modules the attempts touched, and of what modprobe loads with them */
static void bundle_module_files(struct bundle *b, const char *release, int trace_fd, int kmsg_fd)
{
	struct names nm = {0};
	char moduledir[512];

	snprintf(moduledir, sizeof(moduledir), "/lib/modules/%s", release);
	if (modindex_new(b->src, moduledir, &nm.idx) < 0)
		nm.idx = NULL;
	if (nm.idx)
		collect_modindex_config_warn(nm.idx);
	names_from_ledger(b, &nm, release, trace_fd, kmsg_fd);
	/* modprobe loads the dependencies first: their attempts are in the trace too */
	for (size_t i = 0; nm.idx && i < nm.n && i < 4096; i++) {
		char **deps = NULL;
		size_t nd = 0;

		if (modindex_deps(nm.idx, nm.v[i], &deps, &nd) < 0)
			continue;
		for (size_t k = 0; k < nd; k++)
			names_add(&nm, deps[k], strlen(deps[k]));
		modindex_names_free(deps);
	}
	for (size_t i = 0; nm.idx && i < nm.n; i++) {
		char *path = NULL;

		if (modindex_path(nm.idx, nm.v[i], &path) == 0 && path[0] == '/')
			bundle_copy(b, path + 1, false);
		free(path);
	}
	fprintf(b->notes, "module names seen: %zu\n", nm.n);
	if (nm.oom && !b->err)
		b->err = -ENOMEM;
	for (size_t i = 0; i < nm.n; i++)
		free(nm.v[i]);
	free(nm.v);
	modindex_free(nm.idx);
}

static int bundle_snapshot(struct bundle *b, const char *release, int trace_fd, int kmsg_fd)
{
	static const char *const files[] = {
		"proc/modules", "proc/vmallocinfo", "proc/meminfo", "proc/sys/kernel/osrelease",
		"proc/sys/kernel/tainted", "proc/sys/kernel/kptr_restrict",
		"proc/sys/kernel/random/boot_id",
	};
	static const char *const conf_dirs[] = {
		"etc/modprobe.d", "run/modprobe.d", "usr/lib/modprobe.d", "lib/modprobe.d",
	};
	struct proc_modules *pm = NULL;
	struct kt_err e = {0};
	char rel[512];

	for (size_t i = 0; i < ARRAY_SIZE(files); i++)
		bundle_copy(b, files[i], false);
	if (proc_modules_read(b->src, &pm, &e) == 0) {
		for (size_t i = 0; i < pm->n; i++)
			bundle_sys_module(b, &pm->mods[i]);
		proc_modules_free(pm);
	}
	bundle_copy(b, "sys/module/compression", true);
	bundle_copy(b, "sys/kernel/debug/modules/stats", true);
	snprintf(rel, sizeof(rel), "boot/config-%s", release);
	if (bundle_copy(b, rel, true) == -ENOENT)
		bundle_copy(b, "proc/config.gz", true);
	for (size_t i = 0; i < ARRAY_SIZE(conf_dirs); i++)
		bundle_conf_dir(b, conf_dirs[i]);
	bundle_module_indexes(b, release);
	bundle_module_files(b, release, trace_fd, kmsg_fd);
	snprintf(rel, sizeof(rel), "%s\n", release);
	bundle_write(b, "capture/uname-r", rel);
	return b->err;
}

static int default_dir(char *buf, size_t len, const char *release)
{
	time_t t = time(NULL);
	struct tm tm;
	char when[32];

	if (!localtime_r(&t, &tm) || !strftime(when, sizeof(when), "%Y%m%d-%H%M%S", &tm))
		return -EINVAL;
	return snprintf(buf, len, "kmodtop-%s-%s", release, when) < (int)len ? 0 : -ENAMETOOLONG;
}

/* Does @dir hold anything? 0 no, 1 yes, -errno */
static int dir_has_entries(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int r = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) {
			r = 1;
			break;
		}
	closedir(d);
	return r;
}

/*
 * A bundle is written into DIR.partial beside DIR, with capture/INCOMPLETE in it, and
 * renamed to DIR once complete (bundle_finish()): DIR is never a half-written bundle,
 * and one that was not finished (an error, kill -9, a power cut) says so by its name
 * and its marker. DIR must not exist, or be an empty directory, which the rename
 * replaces: a bundle never mixes with other files. A DIR.partial that exists already
 * is left alone: an earlier record that did not finish. 0, or -errno with
 * *reterr_path, the path it is about.
 */
static int bundle_begin(struct bundle *b, const char *arg, const char **reterr_path)
{
	static const char marker[] =
		"This kmodtop bundle is incomplete: 'kmodtop record' was writing it and did "
		"not finish.\nA complete bundle has no such file, and is renamed from "
		"DIR.partial to DIR.\n";
	struct stat st;
	char *real;
	size_t len;
	int r, fd;

	*reterr_path = arg;
	b->dir = strdup(arg);
	if (!b->dir)
		return -ENOMEM;
	/* "out/" is "out": ".partial" goes after the name, not inside it */
	for (len = strlen(b->dir); len > 1 && b->dir[len - 1] == '/'; len--)
		b->dir[len - 1] = '\0';
	if (stat(b->dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			return -ENOTDIR;
		r = dir_has_entries(b->dir);
		if (r != 0)
			return r < 0 ? r : -ENOTEMPTY;
		/* through a symlink: the bundle goes where it points, as DIR/file would */
		real = realpath(b->dir, NULL);
		if (!real)
			return -errno;
		free(b->dir);
		b->dir = real;
	} else if (errno != ENOENT) {
		return -errno;
	}
	if (asprintf(&b->partial, "%s.partial", b->dir) < 0) {
		b->partial = NULL;
		return -ENOMEM;
	}
	*reterr_path = b->partial;
	if (mkdir(b->partial, 0755) < 0)
		return -errno;
	b->made = true;
	b->dfd = open(b->partial, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (b->dfd < 0)
		return -errno;
	fd = create_at(b->dfd, BUNDLE_MARKER);
	if (fd < 0)
		return fd;
	r = fd_write_all(fd, marker, sizeof(marker) - 1);
	if (close(fd) < 0 && r >= 0)
		r = -errno;
	return r;
}

/* Complete: the marker goes, then DIR.partial becomes DIR. 0 or -errno. */
static int bundle_finish(struct bundle *b)
{
	if (unlinkat(b->dfd, BUNDLE_MARKER, 0) < 0)
		return -errno;
	if (fsync(b->dfd) < 0)
		return -errno;
	/* ENOTEMPTY or EEXIST: something was put in DIR meanwhile; it stays as it is */
	if (rename(b->partial, b->dir) < 0)
		return -errno;
	b->made = false;
	return 0;
}

/*
 * Not to be finished: the bundle stays DIR.partial, and @why goes into its marker.
 * With @discard (nothing recorded yet), what bundle_begin() made is removed instead.
 */
static void bundle_abandon(struct bundle *b, bool discard, const char *why)
{
	int fd;

	if (!b->made)
		return;
	b->made = false;
	if (discard) {
		unlinkat(b->dfd, BUNDLE_MARKER, 0);
		unlinkat(b->dfd, "capture", AT_REMOVEDIR);
		if (rmdir(b->partial) == 0)
			return;
	}
	fd = b->dfd >= 0 ? openat(b->dfd, BUNDLE_MARKER, O_WRONLY | O_APPEND | O_CLOEXEC) : -1;
	if (fd >= 0) {
		dprintf(fd, "It stopped: %s.\n", why);
		close(fd);
	}
	log_error("the incomplete bundle is left in '%s' (%s says why)", b->partial,
		  BUNDLE_MARKER);
}

static bool instance_name_ok(const char *s)
{
	if (!s[0] || strlen(s) > 64)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
			return false;
	return true;
}

/*
 * `record --print-setup`: the tracing commands for a machine without kmodtop, from what
 * this kernel (or the root's) has: its BTF for the probes, its tracefs for the events
 * and the clock. Under --root, the root's sys/kernel/btf/vmlinux and
 * sys/kernel/tracing/{available_filter_functions,events/,trace_clock} when it has them.
 */
static int print_setup(const struct global_opts *g, bool measure, const char *instance)
{
	struct setup_plan sp;
	struct setup_plan_opts o = { .instance = instance, .measure = measure };
	int r;

	r = setup_plan_init(&sp, g->root, g->release, &o);
	if (r < 0) {
		log_error("'%s': %s", g->root ? g->root : "/", strerror(-r));
		return EXIT_ERROR;
	}
	if (sp.btf_err < 0 && sp.btf_err != -ENOENT)
		log_warn("'%s/sys/kernel/btf/vmlinux': %s: the naming probes are left out",
			 root_dir(sp.root), sp.btf_err == -EINVAL ? "not BTF" : strerror(-sp.btf_err));
	r = setup_script_write(stdout, &sp.ss);
	if (r < 0)
		log_error("writing the setup: %s", strerror(-r));
	for (size_t i = 0; i < sp.ss.n_missing; i++)
		log_warn("%s: that probe is left out", sp.missing[i]);
	setup_plan_done(&sp);
	return r < 0 ? EXIT_ERROR : EXIT_OK;
}

int cmd_record(int argc, char **argv, struct global_opts *g)
{
	static const struct option long_options[] = {
		GLOBAL_LONG_OPTIONS,
		{ "output", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "measure", no_argument, NULL, OPT_MEASURE },
		{ "since-boot", no_argument, NULL, OPT_SINCE_BOOT },
		{ "print-setup", no_argument, NULL, OPT_PRINT_SETUP },
		{ "instance", required_argument, NULL, OPT_INSTANCE },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct live_opts lo = {0};
	const char *arg_dir = NULL, *arg_instance = "kmodtop";
	bool arg_print_setup = false;
	char dirbuf[512], release[256];
	struct bundle b = { .dfd = -1 };
	struct live *lv = NULL;
	struct sigstate ss;
	const char *path;
	bool held = false;
	struct utsname u;
	int opt, r, trace_fd = -1, kmsg_fd = -1, ret = EXIT_ERROR;

	while ((opt = getopt_long(argc, argv, GLOBAL_SHORT_OPTIONS "ho:", long_options, NULL)) !=
	       -1) {
		switch (opt) {
		case 'h':
			record_usage(stdout);
			return EXIT_OK;
		case '?':
			cmd_usage_error("record", long_options, argv, optind);
			return EXIT_USAGE;
		case 'o':
			/* "" would be the bundle "./.partial" */
			if (!optarg[0]) {
				log_error("-o '': the bundle directory needs a name");
				return EXIT_USAGE;
			}
			arg_dir = optarg;
			continue;
		case OPT_DURATION:
			if (live_parse_duration(optarg, &lo.duration) < 0) {
				log_error("--duration '%s': not a number of seconds (N, Ns, Nm, Nh)",
					  optarg);
				return EXIT_USAGE;
			}
			continue;
		case OPT_MEASURE:
			lo.measure = true;
			continue;
		case OPT_SINCE_BOOT:
			lo.since_boot = true;
			continue;
		case OPT_PRINT_SETUP:
			arg_print_setup = true;
			continue;
		case OPT_INSTANCE:
			if (!instance_name_ok(optarg)) {
				log_error("--instance '%s': letters, digits, '_' and '-' only", optarg);
				return EXIT_USAGE;
			}
			arg_instance = optarg;
			continue;
		}
		if (global_opt_handle(g, opt, optarg) <= 0)
			return EXIT_USAGE;
	}
	if (optind < argc) {
		log_error("record: unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	if (arg_print_setup) {
		if (arg_dir || lo.duration || lo.since_boot) {
			log_error("--print-setup prints commands and records nothing: no -o, "
				  "--duration or --since-boot");
			return EXIT_USAGE;
		}
		return print_setup(g, lo.measure, arg_instance);
	}
	if (g->json)
		log_warn("record writes a bundle, not a report: -j/-p ignored");
	/* its messages piped into a reader that goes away must not kill it mid-collection */
	signal(SIGPIPE, SIG_IGN);

	r = root_new("/", &b.src);
	if (r < 0) {
		log_error("/: %s", strerror(-r));
		return EXIT_ERROR;
	}
	if (g->root) {
		/* by identity, as root_new() decides: --root / is the live system too */
		struct kt_root *other = NULL;
		bool live = root_new(g->root, &other) == 0 && root_is_live_system(other);

		root_free(other);
		if (!live) {
			log_error("record watches the running kernel: --root '%s' is for reading a "
				  "bundle ('kmodtop --root DIR report')",
				  g->root);
			ret = EXIT_USAGE;
			goto out;
		}
	}
	if (g->release) {
		snprintf(release, sizeof(release), "%s", g->release);
	} else if (uname(&u) == 0) {
		snprintf(release, sizeof(release), "%s", u.release);
	} else {
		log_error("uname: %s", strerror(errno));
		goto out;
	}
	lo.release = release;
	lo.root = b.src;
	if (!arg_dir) {
		if (default_dir(dirbuf, sizeof(dirbuf), release) < 0) {
			log_error("cannot name the bundle directory: use -o DIR");
			goto out;
		}
		arg_dir = dirbuf;
	}
	/* before anything else: a -o that cannot be had is said at once, on any kernel */
	r = bundle_begin(&b, arg_dir, &path);
	if (r < 0) {
		log_error("'%s': %s%s", path, strerror(-r),
			  r == -ENOTEMPTY ? " (a bundle goes in a new or empty directory)"
			  : r == -EEXIST && b.partial && strcmp(path, b.partial) == 0
				  ? " (left by a record that did not finish: remove it, or "
				    "choose another -o)"
				  : "");
		bundle_abandon(&b, true, strerror(-r));
		goto out;
	}
	if (!root_exists(b.src, "proc/modules")) {
		log_info("the kernel has no module support (no /proc/modules): nothing to record");
		bundle_abandon(&b, true, "no module support");
		ret = EXIT_NO_MODULES;
		goto out;
	}
	trace_fd = create_at(b.dfd, "sys/kernel/tracing/trace");
	kmsg_fd = trace_fd >= 0 ? create_at(b.dfd, "capture/kmsg.raw") : trace_fd;
	r = kmsg_fd >= 0 ? create_at(b.dfd, "capture/record.txt") : kmsg_fd;
	if (r >= 0)
		b.notes = fdopen(r, "we");
	if (r < 0 || !b.notes) {
		r = r < 0 ? r : -errno;
		log_error("'%s': %s", b.partial, strerror(-r));
		bundle_abandon(&b, false, strerror(-r));
		goto out;
	}
	fprintf(b.notes, "kmodtop %s record of %s\n", PACKAGE_VERSION, release);

	if (lo.duration > 0)
		log_info("recording for %.1f s into '%s'", lo.duration, b.dir);
	else
		log_info("recording into '%s' until Ctrl-C", b.dir);
	/*
	 * The stop signals stay caught until the bundle is complete: one that comes
	 * during the snapshot waits for it, rather than leaving half a bundle
	 */
	r = live_collect_held(&lo, trace_fd, kmsg_fd, &ss, &lv);
	held = true;
	if (r < 0) {
		log_error("collecting: %s", strerror(-r));
		bundle_abandon(&b, false, "the collection failed");
		goto out;
	}
	fprintf(b.notes, "seconds: %.3f\nended by: %s\ninstance: %s\ntrace: %s\nmeasure: %s\n"
		"lost trace events: %" PRIu64 "\n'<...>' task names resolved: %" PRIu64
		", left: %" PRIu64 "\nkmsg: %s\nkmsg records: %" PRIu64 "\n",
		lv->seconds, lv->ended_by ? signal_name(lv->ended_by) : "duration",
		lv->instance[0] ? lv->instance : "-",
		lv->trace_err ? strerror(-lv->trace_err) : "ok",
		!lo.measure ? "off" : lv->measure == KTRACE_MEASURE_TRACEPOINT ? "tracepoint"
			: lv->measure == KTRACE_MEASURE_KPROBE ? "kprobe" : "none",
		lv->lost_total, lv->comms_resolved, lv->comms_unknown,
		lv->kmsg_err ? strerror(-lv->kmsg_err) : "ok", lv->kmsg_records);
	fprintf(b.notes, "trace read from: %s%s%s%s\n", lv->raw ? "trace_pipe_raw" : "trace_pipe",
		!lv->raw && lv->raw_why ? " (" : "", !lv->raw && lv->raw_why ? lv->raw_why : "",
		!lv->raw && lv->raw_why ? ")" : "");
	fprintf(b.notes, "vmallocinfo samples: %zu, peak in flight: %" PRIu64 " bytes, %zu areas\n",
		lv->vs.samples, lv->vs.peak_inflight_bytes, lv->vs.peak_inflight_areas);
	for (size_t i = 0; i < lv->n_events; i++)
		if (lv->events[i].err)
			fprintf(b.notes, "missing event %s: no %s%s%s%s\n", lv->events[i].name,
				lv->events[i].loses, lv->events[i].why ? " (" : "",
				lv->events[i].why ? lv->events[i].why : "",
				lv->events[i].why ? ")" : "");
	if (lv->trace_err)
		unlinkat(b.dfd, "sys/kernel/tracing/trace", 0);
	if (lv->kmsg_err)
		unlinkat(b.dfd, "capture/kmsg.raw", 0);

	r = bundle_snapshot(&b, release, lv->trace_err ? -1 : trace_fd, lv->kmsg_err ? -1 : kmsg_fd);
	if (r >= 0 && (fflush(b.notes) != 0 || fsync(fileno(b.notes)) < 0 || fsync(trace_fd) < 0 ||
		       fsync(kmsg_fd) < 0))
		r = -errno;
	if (r < 0) {
		char why[128];

		log_error("writing '%s': %s", b.partial, strerror(-r));
		snprintf(why, sizeof(why), "writing it failed (%s)", strerror(-r));
		bundle_abandon(&b, false, why);
		goto out;
	}
	r = bundle_finish(&b);
	if (r < 0) {
		log_error("'%s' to '%s': %s", b.partial, b.dir, strerror(-r));
		bundle_abandon(&b, false, "it could not be renamed to DIR");
		goto out;
	}
	if (live_log(lv) < 0)
		goto out;
	if (b.missing)
		log_warn("%u file(s) could not be read into the bundle (see '%s/capture/record.txt')",
			 b.missing, b.dir);
	log_info("bundle written to '%s' (%u files): kmodtop --root '%s' report", b.dir,
		 b.copied + 3, b.dir);
	ret = EXIT_OK;
out:
	if (b.notes)
		fclose(b.notes);
	if (trace_fd >= 0)
		close(trace_fd);
	if (kmsg_fd >= 0)
		close(kmsg_fd);
	if (b.dfd >= 0)
		close(b.dfd);
	live_free(lv);
	/* a stop signal that came during the snapshot has waited: it ends nothing more */
	if (held)
		signals_restore(&ss);
	free(b.dir);
	free(b.partial);
	root_free(b.src);
	return ret;
}
