/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trace spool (session/spool.h).
 *
 * trace_pipe prints "<...>" for a task whose comm the kernel's pid cache does not hold
 * yet: the cache is filled at the task's next context switch, so a reader as quick as
 * kmodtop sees "<...>" for a modprobe still inside finit_module, where `cat trace` a
 * little later would print "modprobe". Such lines get the name the kernel would have
 * printed: the task's last name in the trace (its own lines, its exec), else
 * /proc/PID/comm while it runs, else its name at fork. "CPU:N [LOST M EVENTS]" lines
 * are counted on the way, to be compared with the per-CPU stats.
 *
 * The raw buffers' records have no task name at all: the spool's map is filled the same
 * way, from the trace's own fork, exec and rename events as soon as they are decoded,
 * and from /proc/PID/comm while the task runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sources/trace/event.h"
#include "sources/trace/text.h"
#include "util/io.h"
#include "session/spool.h"

#define SPOOL_CHUNK (64 * 1024)

struct pid_comm {
	int pid;			/* 0: free slot */
	bool from_fork;			/* only the parent's name, from before an exec */
	bool parents_marked;		/* its /proc parent chain was written as markers */
	char comm[16];
};

struct trace_spool {
	int fd;
	const struct trace_spool_ops *ops;
	void *userdata;
	unsigned int ncpus;
	char *carry;			/* a line not complete yet */
	size_t carry_len, carry_cap;
	char *scratch;			/* a line with its task name put in */
	size_t scratch_cap;
	char out[SPOOL_CHUNK];
	size_t out_len;
	struct pid_comm *map;		/* open addressing, power-of-two size */
	size_t map_cap, map_n;
	struct trace_spool_stats stats;
	int err;
};

static struct pid_comm *map_slot(struct trace_spool *sp, int pid, bool add)
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

static void map_set(struct trace_spool *sp, int pid, const char *s, size_t len, bool from_fork)
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

static void spool_out(struct trace_spool *sp, const char *p, size_t len)
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

int trace_spool_flush(struct trace_spool *sp)
{
	if (sp->out_len && !sp->err)
		sp->err = fd_write_all(sp->fd, sp->out, sp->out_len);
	sp->out_len = 0;
	return sp->err;
}

static int scratch_reserve(struct trace_spool *sp, size_t n)
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
static void mark_finit_fd(struct trace_spool *sp, const struct ktrace_event *ev)
{
	char link[64], path[PATH_MAX], text[PATH_MAX + 64];
	ssize_t n;
	int len;

	if (!sp->ops || !sp->ops->mark || ev->pid <= 0 || ev->finit_module.fd < 0)
		return;
	snprintf(link, sizeof(link), "/proc/%d/fd/%d", ev->pid, ev->finit_module.fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0 || path[0] != '/') {
		sp->stats.fds_unread++;
		return;
	}
	path[n] = '\0';
	for (ssize_t i = 0; i < n; i++)
		if ((unsigned char)path[i] < 0x20 || path[i] == 0x7f) {
			sp->stats.fds_unread++;
			return;
		}
	len = snprintf(text, sizeof(text), "kmodtop_fd pid=%d fd=%d path=%s", ev->pid,
		       ev->finit_module.fd, path);
	if (len > 0 && (size_t)len < sizeof(text) &&
	    sp->ops->mark(sp->userdata, text, (size_t)len) == 0)
		sp->stats.fds_marked++;
	else
		sp->stats.fds_unread++;
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
static void mark_parents(struct trace_spool *sp, int pid)
{
	char comm[32], text[96];

	for (int depth = 0; depth < 16 && pid > 1 && sp->ops && sp->ops->mark;
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
		    sp->ops->mark(sp->userdata, text, (size_t)len) < 0)
			return;
		pid = ppid;
	}
}

static void count_lost(struct trace_spool *sp, const struct ktrace_event *ev)
{
	if (ev->cpu < sp->ncpus)
		sp->stats.lost_seen[ev->cpu] += ev->lost.count;
	sp->stats.lost_uncounted += ev->lost.uncounted;
}

static void spool_line(struct trace_spool *sp, char *line, size_t len)
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
		mark_finit_fd(sp, &tl.ev);
	if (tl.ev.kind == KTRACE_EV_SYS_ENTER_FINIT_MODULE ||
	    tl.ev.kind == KTRACE_EV_SYS_ENTER_INIT_MODULE ||
	    tl.ev.kind == KTRACE_EV_MODULE_REQUEST)
		mark_parents(sp, tl.ev.pid);
	if (tl.ev.kind == KTRACE_EV_LOST) {
		count_lost(sp, &tl.ev);
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
				sp->stats.comms_resolved++;
				map_set(sp, tl.ev.pid, name, nl, false);
				return;
			}
		}
	}
	if (tl.ev.comm.len == 5 && memcmp(tl.ev.comm.s, "<...>", 5) == 0)
		sp->stats.comms_unknown++;
	spool_out(sp, line, len);
	spool_out(sp, "\n", 1);
}

void trace_spool_feed(struct trace_spool *sp, const char *p, size_t len)
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
		spool_line(sp, sp->carry, sp->carry_len);
		sp->carry_len = 0;
		p = nl + 1;
	}
}

int trace_spool_finish(struct trace_spool *sp)
{
	/* a last line without its newline goes out as it came */
	if (sp->carry_len)
		spool_out(sp, sp->carry, sp->carry_len);
	sp->carry_len = 0;
	return trace_spool_flush(sp);
}

void trace_spool_note(struct trace_spool *sp, const struct ktrace_event *ev)
{
	struct pid_comm *e;
	char comm[32];

	if (ev->kind == KTRACE_EV_LOST)
		return;
	if (ev->kind == KTRACE_EV_SYS_ENTER_FINIT_MODULE)
		mark_finit_fd(sp, ev);
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
		return;
	/* a task new to the map: its name now, while it runs */
	e = map_slot(sp, ev->pid, false);
	if ((!e || !e->comm[0] || e->from_fork) && proc_comm(ev->pid, comm, sizeof(comm)))
		map_set(sp, ev->pid, comm, strlen(comm), false);
}

const char *trace_spool_comm(struct trace_spool *sp, const struct ktrace_event *ev)
{
	struct pid_comm *e;

	if (ev->kind == KTRACE_EV_LOST) {
		count_lost(sp, ev);
		return NULL;
	}
	if (ev->pid == 0)
		return "<idle>";
	e = map_slot(sp, ev->pid, false);
	if (e && e->comm[0]) {
		sp->stats.comms_resolved++;
		return e->comm;
	}
	sp->stats.comms_unknown++;
	return NULL;
}

void trace_spool_write(struct trace_spool *sp, const char *p, size_t len)
{
	spool_out(sp, p, len);
}

int trace_spool_error(const struct trace_spool *sp)
{
	return sp->err;
}

const struct trace_spool_stats *trace_spool_stats(const struct trace_spool *sp)
{
	return &sp->stats;
}

int trace_spool_new(int fd, unsigned int ncpus, const struct trace_spool_ops *ops,
		    void *userdata, struct trace_spool **ret)
{
	struct trace_spool *sp = calloc(1, sizeof(*sp));

	if (!sp)
		return -ENOMEM;
	sp->fd = fd;
	sp->ops = ops;
	sp->userdata = userdata;
	sp->ncpus = ncpus;
	/* one more than asked: never NULL, whatever @ncpus */
	sp->stats.lost_seen = calloc(ncpus + 1, sizeof(*sp->stats.lost_seen));
	if (!sp->stats.lost_seen) {
		free(sp);
		return -ENOMEM;
	}
	*ret = sp;
	return 0;
}

struct trace_spool *trace_spool_free(struct trace_spool *sp)
{
	if (!sp)
		return NULL;
	free(sp->carry);
	free(sp->scratch);
	free(sp->map);
	free(sp->stats.lost_seen);
	free(sp);
	return NULL;
}
