/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Live collection (session/live.h): kmodtop's own tracefs instance
 * (sources/trace/instance.c), read through its raw buffers or its trace_pipe into the
 * trace spool (session/spool.c), and /dev/kmsg (sources/kmsg-follow.c), each spooled
 * verbatim to a file descriptor: memory for `report` and `top`, the bundle's
 * sys/kernel/tracing/trace and capture/kmsg.raw for `record`. The report then reads the
 * spools exactly as it reads a captured root, so the live answer and the bundle's are
 * the same by construction.
 *
 * Teardown: SIGINT, SIGTERM and SIGHUP only set a flag (they are blocked except inside
 * ppoll(), so none is missed); the main path then stops, drains and removes the
 * instance and the kprobe group. An atexit() handler removes them on any exit() in
 * between. kill -9 leaves them: the next kmodtop removes them when it starts.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>

#include "cost/vmsample.h"
#include "ledger/klog-findings.h"
#include "sources/kernel-btf.h"
#include "sources/kmsg-follow.h"
#include "sources/kmsg.h"
#include "sources/load-probes.h"
#include "sources/meminfo.h"
#include "sources/trace/instance.h"
#include "sources/trace/raw.h"
#include "sources/vmallocinfo.h"
#include "util/io.h"
#include "util/macro.h"
#include "util/root.h"
#include "util/version.h"
#include "session/live.h"
#include "session/setup-plan.h"
#include "session/spool.h"

/* the per-CPU buffer with stack traces, whatever the number of CPUs: never more in all */
#define MEASURE_BUFFER_TOTAL_KB (256 * 1024)
#define READ_CHUNK (64 * 1024)

struct live_session {
	struct live_status st;
	struct live_opts o;
	double started;			/* CLOCK_MONOTONIC */
	char trace_name[96];		/* ".../trace_pipe", for the report */

	/* vmallocinfo sampled every poll (o.root): what loads in flight hold */
	struct vmallocinfo *vi;
	double vs_last;

	int trace_fd, kmsg_fd;		/* the spools */
	bool own_spools;		/* in memory, made by live_start() */

	/*
	 * trace_pipe_raw, the default (st.raw): pages decoded with libtraceevent and written
	 * to the spool as the lines trace-cmd prints, which the parser reads as it reads
	 * text; or, given a sink (top: live_set_sink()), handed on decoded, no text between
	 */
	const struct live_sink_ops *sink;
	void *sink_userdata;
	char sink_text[8192];		/* a marker's text with its line breaks made spaces */

	/* while collecting (live_start() to live_end()) */
	struct ktrace_instance *ti;
	struct ktrace_raw *rr;
	struct raw_stream *rs;
	struct trace_seq seq;
	struct kmsg_follow *kf;
	struct trace_spool *sp;
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

void live_signals_catch(struct live_signals *s)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block;

	_Static_assert(ARRAY_SIZE(stop_signals) == ARRAY_SIZE(s->old), "one slot a signal");
	live_stop = 0;
	/* no SA_RESTART: ppoll() must return on a signal */
	sigemptyset(&sa.sa_mask);
	sigemptyset(&block);
	for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++) {
		sigaction(stop_signals[i], &sa, &s->old[i]);
		sigaddset(&block, stop_signals[i]);
	}
	sigprocmask(SIG_BLOCK, &block, &s->oldmask);
}

void live_signals_restore(struct live_signals *s)
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

int live_stop_signal(void)
{
	return live_stop;
}

static const char *signal_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "?";
}

static double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One step of live_start() ended: how long it took since *t, which becomes now */
static void step_done(struct live_session *lv, const char *what, double *t)
{
	double now = now_mono();

	if (lv->st.n_steps < LIVE_MAX_STEPS)
		lv->st.steps[lv->st.n_steps++] = (struct live_step){ what, now - *t };
	*t = now;
}

/* Reads what trace_pipe holds now (bounded, so that a flood cannot starve the loop). */
static int drain_trace(struct live_session *lv, struct ktrace_instance *ti, struct trace_spool *sp,
		       char *buf, unsigned int max_reads)
{
	for (unsigned int i = 0; i < max_reads; i++) {
		ssize_t n = ktrace_instance_read(ti, buf, READ_CHUNK);

		if (n == -EAGAIN || n == -EINTR)
			break;
		if (n < 0)
			return (int)n;
		lv->st.trace_bytes += (uint64_t)n;
		trace_spool_feed(sp, buf, (size_t)n);
		if (trace_spool_error(sp))
			return trace_spool_error(sp);
	}
	return trace_spool_flush(sp);
}

/*
 * The raw buffers: decoded, named as trace_pipe would name them (the spool's map of
 * task names), and written to the spool in time order as the lines trace-cmd prints,
 * which the parser reads as it reads trace_pipe; or handed on decoded to a sink.
 */
static int raw_decoded(void *userdata, const struct ktrace_event *ev)
{
	struct live_session *lv = userdata;

	trace_spool_note(lv->sp, ev);
	return trace_spool_error(lv->sp);
}

static int raw_event(void *userdata, const struct ktrace_event *ev, const struct tep_record *rec)
{
	struct live_session *lv = userdata;
	const char *name = trace_spool_comm(lv->sp, ev);

	if (lv->sink) {
		struct ktrace_event e = *ev;

		raw_event_as_text(&e, name, lv->sink_text, sizeof(lv->sink_text));
		return lv->sink->event(lv->sink_userdata, &e);
	}
	trace_seq_reset(&lv->seq);
	if (raw_format_event(ktrace_raw_tep(lv->rr), &lv->seq, ev, rec, name) < 0)
		return -ENOMEM;
	trace_spool_write(lv->sp, lv->seq.buffer, lv->seq.len);
	return trace_spool_error(lv->sp);
}

static void raw_bad(void *userdata, const char *what)
{
	struct live_session *lv = userdata;

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
	struct live_session *lv = userdata;

	lv->st.raw_pages++;
	lv->st.trace_bytes += len;
	return raw_stream_page(lv->rs, cpu, page, len);
}

/*
 * Reads the pages the buffers hold now, at most @max_pages a CPU. What is older than
 * anything before this round, and a second older than the newest event, goes to the
 * spool: every CPU has been read since it happened.
 */
static int drain_raw(struct live_session *lv, unsigned int max_pages, bool all)
{
	int r;

	raw_stream_round(lv->rs);
	r = ktrace_raw_read(lv->rr, raw_page, lv, max_pages);
	if (r < 0)
		return r;
	/* a sink takes the events when its reader asks (live_pull_events()), but the last */
	if (lv->sink && !all)
		return 0;
	r = raw_stream_flush(lv->rs, all ? -1 : 1.0, ktrace_raw_behind(lv->rr));
	if (r < 0)
		return r;
	return trace_spool_flush(lv->sp);
}

int live_set_sink(struct live_session *lv, const struct live_sink_ops *ops, void *userdata)
{
	if (!lv->st.raw || !lv->rs)
		return -ENOTSUP;
	lv->sink = ops;
	lv->sink_userdata = userdata;
	return 0;
}

int live_pull_events(struct live_session *lv)
{
	if (!lv->sink || !lv->rs || lv->st.trace_err)
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
static int open_raw(struct live_session *lv)
{
	static const struct raw_stream_ops ops = {
		.decoded = raw_decoded, .event = raw_event, .bad = raw_bad
	};
	/*
	 * the formats of what the instance traces: ftrace's own events (markers, stacks),
	 * vmalloc's and its kprobe group's, each whole (a few each), and its events one by
	 * one (not all of syscalls)
	 */
	const char *formats[KTRACE_MAX_EVENTS + 4];
	size_t nf = 0;
	const char *why = NULL;
	char *syms = NULL;
	double t = now_mono();
	int r;

	formats[nf++] = "ftrace";
	formats[nf++] = "vmalloc";
	if (lv->ti->group[0])
		formats[nf++] = lv->ti->group;
	for (size_t i = 0; i < lv->ti->n_events && nf < KTRACE_MAX_EVENTS + 3; i++)
		if (strchr(lv->ti->events[i].name, '/'))
			formats[nf++] = lv->ti->events[i].name;
	formats[nf] = NULL;

	r = ktrace_raw_open(live_mnt.fd, live_mnt.path, lv->ti->path, lv->ti->ncpus, formats,
			     &lv->rr, &why);
	step_done(lv, "event formats", &t);
	if (r < 0) {
		lv->st.raw_why = why;
		return r;
	}
	/* /proc/kallsyms' addresses are zeros without CAP_SYSLOG: names are then hex */
	if (read_kallsyms(&syms) == 0) {
		ktrace_raw_kallsyms(lv->rr, syms);
		free(syms);
	}
	step_done(lv, "kallsyms", &t);
	r = raw_stream_new(ktrace_raw_tep(lv->rr), raw_comm, lv, lv->ti->ncpus, &ops, lv, &lv->rs);
	if (r < 0) {
		lv->rr = ktrace_raw_free(lv->rr);
		lv->st.raw_why = "out of memory";
		return r;
	}
	live_rr = lv->rr;
	trace_seq_init(&lv->seq);
	snprintf(lv->trace_name, sizeof(lv->trace_name), "%s/per_cpu/cpuN/trace_pipe_raw",
		 lv->ti->path);
	lv->st.raw = true;
	return 0;
}

static void close_raw(struct live_session *lv)
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
 * The naming probes for the running kernel, from its BTF (offsets, argument
 * positions, which functions exist). Not from available_filter_functions: the kernel
 * formats megabytes of it (seconds under emulation, while a boot's udevd waits for
 * READY=1), and a function it would not list is refused by the kernel when the probe
 * is added, which leaves that probe out with the kernel's reason all the same. Neither
 * is needed: a probe that cannot be had is a missing event.
 */
static int plan_probes(struct live_session *lv, struct load_probe_plan *ret)
{
	struct kernel_btf *btf = NULL;
	struct kt_root *live = NULL;
	double t = now_mono();
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
	load_probes_plan(btf, NULL, 0, ret);
	kernel_btf_free(btf);
	step_done(lv, "BTF", &t);
	return 0;
}

static int setup_trace(struct live_session *lv, struct ktrace_instance **ret_ti)
{
	struct load_probe_plan plan;
	struct ktrace_instance_opts io = {
		.measure = lv->o.measure,
		.stacktrace_in_instance = kernel_stacktrace_in_instance(lv->o.release),
		.buffer_kb = lv->o.measure ? measure_buffer_kb() : 0,
		.probes = &plan,
	};
	const char *why = NULL;
	double t = now_mono();
	int r;

	/* given where to look (a test), look nowhere else and mount nothing */
	r = ktrace_mount_find(lv->o.tracefs_dirs, lv->o.tracefs_dirs ? "/dev/null" : NULL,
			      !lv->o.tracefs_dirs && geteuid() == 0, &live_mnt, &why);
	step_done(lv, "tracefs", &t);
	if (r < 0) {
		lv->st.trace_err = r;
		lv->st.trace_why = why;
		return r;
	}
	lv->st.tracefs_path = strdup(live_mnt.path);
	lv->st.tracefs_mounted = live_mnt.mounted;
	r = ktrace_cleanup_stale(live_mnt.fd, getpid(), NULL, &lv->st.stale);
	if (r < 0 && r != -ENOENT)
		lv->st.stale_err = r;
	step_done(lv, "stale instances", &t);
	r = plan_probes(lv, &plan);
	if (r < 0)
		return r;
	t = now_mono();
	r = ktrace_instance_new(live_mnt.fd, getpid(), &io, NULL, &live_ti, &why);
	step_done(lv, "instance", &t);
	if (r < 0) {
		lv->st.trace_err = r;
		lv->st.trace_why = r == -EACCES || r == -EPERM
					? "creating a tracefs instance needs root (CAP_SYS_ADMIN), "
					  "and is refused under kernel lockdown"
					: why;
		/*
		 * Half made and not removable now: live_end() tries again, and
		 * live_log() says what is left; the atexit() handler has the last go
		 */
		if (live_ti) {
			snprintf(lv->st.instance, sizeof(lv->st.instance), "%s", live_ti->path);
			snprintf(lv->st.group, sizeof(lv->st.group), "%s", live_ti->group);
		}
		return r;
	}
	*ret_ti = live_ti;
	snprintf(lv->st.instance, sizeof(lv->st.instance), "%s", live_ti->path);
	snprintf(lv->trace_name, sizeof(lv->trace_name), "%s/trace_pipe", live_ti->path);
	snprintf(lv->st.group, sizeof(lv->st.group), "%s", live_ti->group);
	snprintf(lv->st.clock, sizeof(lv->st.clock), "%s", live_ti->clock);
	memcpy(lv->st.events, live_ti->events, sizeof(lv->st.events));
	lv->st.n_events = live_ti->n_events;
	lv->st.measure = live_ti->measure;
	lv->st.measure_why = live_ti->measure_why;
	lv->st.ncpus = live_ti->ncpus;
	if (lv->st.ncpus) {
		lv->st.lost = calloc(lv->st.ncpus, sizeof(*lv->st.lost));
		if (!lv->st.lost)
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
	((struct live_session *)userdata)->st.kmsg_records++;
	return 0;
}

/* What was lost beyond the "[LOST n EVENTS]" lines the pipe showed goes in as one more */
static int account_lost(struct live_session *lv, struct ktrace_instance *ti, int trace_fd)
{
	const uint64_t *lost_seen = trace_spool_stats(lv->sp)->lost_seen;
	int r = ktrace_instance_lost(ti, lv->st.lost);

	if (r < 0) {
		lv->st.lost_err = r;
		return 0;
	}
	for (unsigned int c = 0; c < lv->st.ncpus; c++) {
		char line[64];

		if (lv->st.lost[c] < lost_seen[c])
			lv->st.lost[c] = lost_seen[c];
		lv->st.lost_total += lv->st.lost[c];
		if (lv->st.lost[c] == lost_seen[c])
			continue;
		snprintf(line, sizeof(line), "CPU:%u [LOST %" PRIu64 " EVENTS]\n", c,
			 lv->st.lost[c] - lost_seen[c]);
		r = fd_write_all(trace_fd, line, strlen(line));
		if (r < 0)
			return r;
	}
	return 0;
}

static int trace_header(struct live_session *lv, int fd)
{
	char buf[256];

	snprintf(buf, sizeof(buf),
		 "# tracer: nop\n#\n# kmodtop: %s of %s, %u CPUs, clock %s, vmap measurement %s\n#\n",
		 lv->trace_name, lv->st.tracefs_path ? lv->st.tracefs_path : "tracefs", lv->st.ncpus,
		 lv->st.clock[0] ? lv->st.clock : "?",
		 lv->st.measure == KTRACE_MEASURE_TRACEPOINT ? "vmalloc:alloc_vmap_area"
		 : lv->st.measure == KTRACE_MEASURE_KPROBE	  ? "kprobe alloc_vmap_area"
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
static int vm_sample(struct live_session *lv)
{
	struct vmallocinfo_change ch;
	struct meminfo mi = { 0 };
	struct kt_err e = { 0 };
	int r;

	if (!lv->o.root || lv->st.vs_err)
		return 0;
	lv->vs_last = now_mono();
	r = vmallocinfo_reread(lv->o.root, &lv->vi, &ch, &e);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		lv->st.vs_err = r;
		lv->vi = vmallocinfo_free(lv->vi);
		return 0;
	}
	memset(&e, 0, sizeof(e));
	r = meminfo_read(lv->o.root, &mi, &e);
	if (r == -ENOMEM)
		return r;
	return vmsample_add(&lv->st.vs, lv->vi, &ch, r == 0 ? &mi : NULL);
}

/* The spool's markers go into the instance's own trace */
static int mark_in_trace(void *userdata, const char *text, size_t len)
{
	(void)userdata;
	if (!live_ti || live_ti->marker_fd < 0)
		return -ENOENT;
	return ktrace_instance_mark(live_ti, text, len);
}

/* The instance and /dev/kmsg, read by live_poll() into the spools until live_end(). */
int live_start(const struct live_opts *o, int trace_fd, int kmsg_fd, struct live_session **ret)
{
	static bool atexit_done;
	static const struct trace_spool_ops spool_ops = { .mark = mark_in_trace };
	struct klog_parser_ops kops = { .record = kmsg_count };
	struct live_session *lv;
	double t;
	int r = 0;

	lv = calloc(1, sizeof(*lv));
	if (!lv)
		return -ENOMEM;
	lv->trace_fd = lv->kmsg_fd = -1;
	lv->buf = malloc(READ_CHUNK);
	if (!lv->buf) {
		live_free(lv);
		return -ENOMEM;
	}
	lv->o = *o;
	lv->st.measure_asked = o->measure;
	lv->st.since_boot = o->since_boot;
	lv->st.sampled = o->root != NULL;
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
	if (!atexit_done)
		atexit_done = atexit(live_atexit) == 0;

	t = now_mono();
	r = setup_trace(lv, &lv->ti);
	if (r == -ENOMEM)
		goto fail;
	r = trace_spool_new(trace_fd, lv->st.ncpus, &spool_ops, lv, &lv->sp);
	if (r < 0)
		goto fail;
	/*
	 * Tracing from here, before anything not needed to catch the first load call:
	 * the buffer keeps what comes while the log, the formats and the symbols are
	 * read, and a service manager lets udevd start at the callback
	 */
	if (lv->ti) {
		r = ktrace_instance_trace_on(lv->ti);
		if (r < 0) {
			lv->st.trace_err = r;
			lv->st.trace_why = "starting the instance failed";
			goto fail;
		}
		mark_probes(lv->ti);
	}
	lv->started = now_mono();
	lv->st.ready_after = lv->started - t;
	t = lv->started;
	if (o->started)
		o->started(o->userdata, lv);
	r = kmsg_follow_open(o->kmsg_path, o->since_boot, &kops, lv, kmsg_fd, &lv->kf);
	if (r < 0) {
		lv->st.kmsg_err = r;
		lv->st.kmsg_why = kmsg_reason(r);
	}
	step_done(lv, "kernel log", &t);
	r = 0;
	if (lv->ti) {
		const char *rd = getenv("KMODTOP_TRACE_READ");

		if (rd && strcmp(rd, "text") == 0)
			lv->st.raw_why = "KMODTOP_TRACE_READ=text";
		else if ((r = open_raw(lv)) == -ENOMEM)
			goto fail;
		t = now_mono();
		r = trace_header(lv, trace_fd);
		if (r >= 0)
			r = ktrace_instance_start_reading(lv->ti, !lv->st.raw);
		if (r < 0) {
			lv->st.trace_err = r;
			lv->st.trace_why = "starting the instance failed";
			goto fail;
		}
		step_done(lv, "reader", &t);
	}
	r = vm_sample(lv);
	if (r < 0)
		goto fail;
	step_done(lv, "vmallocinfo", &t);
	*ret = lv;
	return 0;
fail:
	live_free(lv);
	return r;
}

int live_mark_now(struct live_session *lv)
{
	static const char text[] = "kmodtop_now";

	if (!live_ti || live_ti->marker_fd < 0 || lv->st.trace_err)
		return -ENOENT;
	return ktrace_instance_mark(live_ti, text, sizeof(text) - 1);
}

int live_poll(struct live_session *lv, unsigned int max_reads)
{
	uint64_t before = lv->st.trace_bytes + lv->st.kstats.bytes;
	int r, ret = 0;

	/* a reader of the spools (top) may have moved their offsets */
	if (lv->own_spools) {
		lseek(lv->trace_fd, 0, SEEK_END);
		lseek(lv->kmsg_fd, 0, SEEK_END);
	}
	/* the pipe's wakeups are lazy (irq_work): read on every tick, not only POLLIN */
	if (lv->ti && !lv->st.trace_err) {
		r = lv->st.raw ? drain_raw(lv, max_reads, false)
			    : drain_trace(lv, lv->ti, lv->sp, lv->buf, max_reads);
		if (r < 0) {
			lv->st.trace_err = r;
			lv->st.trace_why = lv->st.raw ? "reading trace_pipe_raw failed"
						: "reading trace_pipe failed";
			ret = r;
		}
	}
	if (lv->kf) {
		r = kmsg_follow_read(lv->kf);
		if (r < 0) {
			lv->st.kmsg_err = r;
			lv->st.kmsg_why = "reading it failed";
			lv->kf = kmsg_follow_free(lv->kf);
		} else {
			lv->st.kstats = *kmsg_follow_stats(lv->kf);
		}
	}
	/* once per poll interval, however often the pipe wakes the loop */
	if (now_mono() - lv->vs_last >= LIVE_POLL_MS / 1000.0) {
		r = vm_sample(lv);
		if (r < 0)
			return r;
	}
	return ret < 0 ? ret : lv->st.trace_bytes + lv->st.kstats.bytes != before;
}

int live_pollfds(const struct live_session *lv, struct pollfd *pfd)
{
	int n = 0;

	/* the raw buffers are read on the loop's tick: a wakeup per page would cost more */
	if (lv->ti && !lv->st.raw)
		pfd[n++] = (struct pollfd){ .fd = lv->ti->pipe_fd, .events = POLLIN };
	if (lv->kf)
		pfd[n++] = (struct pollfd){ .fd = kmsg_follow_fd(lv->kf), .events = POLLIN };
	return n;
}

int live_end(struct live_session *lv)
{
	int r = 0;

	if (lv->stopped)
		return lv->stop_err;
	lv->stopped = true;
	if (lv->started)
		lv->st.seconds = now_mono() - lv->started;
	if (lv->ti && lv->sp && (lv->ti->pipe_fd >= 0 || lv->st.raw)) {
		const struct trace_spool_stats *ss = trace_spool_stats(lv->sp);
		int q;

		if (lv->own_spools)
			lseek(lv->trace_fd, 0, SEEK_END);
		/* stop, then take what is still buffered: nothing is left behind unread */
		ktrace_instance_stop(lv->ti);
		q = lv->st.raw ? drain_raw(lv, UINT32_MAX, true)
			    : drain_trace(lv, lv->ti, lv->sp, lv->buf, UINT32_MAX);
		if (q >= 0)
			q = trace_spool_finish(lv->sp);
		if (q < 0 && r >= 0)
			r = q;
		lv->st.comms_resolved = ss->comms_resolved;
		lv->st.comms_unknown = ss->comms_unknown;
		lv->st.fds_marked = ss->fds_marked;
		lv->st.fds_unread = ss->fds_unread;
		lv->st.lost_uncounted = ss->lost_uncounted;
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
		if (q < 0 && !lv->st.kmsg_err) {
			lv->st.kmsg_err = q;
			lv->st.kmsg_why = "reading it failed";
		}
		lv->st.kstats = *kmsg_follow_stats(lv->kf);
	}
	/* an open trace_pipe_raw keeps the instance's rmdir at EBUSY */
	close_raw(lv);
	if (live_ti) {
		lv->st.teardown_err = ktrace_instance_teardown(live_ti);
		if (live_ti->group[0] || live_ti->created)
			snprintf(lv->st.group, sizeof(lv->st.group), "%s", live_ti->group);
		else
			live_ti = ktrace_instance_free(live_ti);
	}
	lv->ti = NULL;
	/* an instance kept for the retry at exit has a handle of its own */
	ktrace_mount_done(&live_mnt);
	lv->kf = kmsg_follow_free(lv->kf);
	lv->vi = vmallocinfo_free(lv->vi);	/* the samples' sums stay */
	lv->sp = trace_spool_free(lv->sp);
	free(lv->buf);
	lv->buf = NULL;
	lv->stop_err = r;
	return r;
}

int live_lost_now(struct live_session *lv, uint64_t *ret)
{
	const uint64_t *seen;
	uint64_t total = 0;
	int r;

	if (!lv->ti || !lv->sp || lv->st.trace_err) {
		*ret = lv->st.lost_total;
		return lv->stopped ? 0 : -ENOENT;
	}
	seen = trace_spool_stats(lv->sp)->lost_seen;
	r = ktrace_instance_lost(lv->ti, lv->st.lost);
	if (r < 0)
		return r;
	for (unsigned int c = 0; c < lv->st.ncpus; c++)
		total += lv->st.lost[c] > seen[c] ? lv->st.lost[c] : seen[c];
	*ret = total;
	return 0;
}

int live_collect_caught(const struct live_opts *o, int trace_fd, int kmsg_fd,
			const struct live_signals *s, struct live_session **ret)
{
	struct live_session *lv = NULL;
	double deadline;
	int r, q;

	r = live_start(o, trace_fd, kmsg_fd, &lv);
	if (r < 0)
		return r;
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
		ms = left * 1000 < LIVE_POLL_MS ? (int)(left * 1000) + 1 : LIVE_POLL_MS;
		n = (nfds_t)live_pollfds(lv, pfd);
		ts = (struct timespec){ .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };
		/* the stop signals are let in here only */
		if (ppoll(pfd, n, &ts, &s->oldmask) < 0 && errno != EINTR) {
			r = -errno;
			break;
		}
		r = live_poll(lv, 64);
		if (r < 0)
			break;
		r = 0;
	}
	lv->st.ended_by = live_stop ? signal_name(live_stop) : NULL;
	q = live_end(lv);
	if (q < 0 && r >= 0)
		r = q;
	if (r < 0) {
		live_free(lv);
		return r;
	}
	*ret = lv;
	return 0;
}

int live_collect(const struct live_opts *o, int trace_fd, int kmsg_fd,
		 struct live_session **ret)
{
	struct live_signals s;
	int r;

	live_signals_catch(&s);
	r = live_collect_caught(o, trace_fd, kmsg_fd, &s, ret);
	live_signals_restore(&s);
	return r;
}

struct live_session *live_free(struct live_session *lv)
{
	if (!lv)
		return NULL;
	live_end(lv);
	if (lv->own_spools && lv->trace_fd >= 0)
		close(lv->trace_fd);
	if (lv->own_spools && lv->kmsg_fd >= 0)
		close(lv->kmsg_fd);
	vmallocinfo_free(lv->vi);
	vmsample_done(&lv->st.vs);
	free(lv->st.tracefs_path);
	free(lv->st.lost);
	free(lv);
	return NULL;
}

const struct vmsample *live_vmsample(const struct live_session *lv, int *ret_err)
{
	*ret_err = lv->st.vs_err;
	return &lv->st.vs;
}

bool live_has_trace(const struct live_session *lv)
{
	return lv->st.instance[0] && !lv->st.trace_err;
}

bool live_has_kmsg(const struct live_session *lv)
{
	return !lv->st.kmsg_err;
}

int live_trace_fd(const struct live_session *lv)
{
	return live_has_trace(lv) ? lv->trace_fd : -1;
}

int live_kmsg_fd(const struct live_session *lv)
{
	return live_has_kmsg(lv) ? lv->kmsg_fd : -1;
}

const char *live_trace_name(const struct live_session *lv)
{
	return lv->trace_name;
}

int live_trace_error(const struct live_session *lv, const char **ret_why)
{
	*ret_why = lv->st.trace_why;
	return lv->st.trace_err ? lv->st.trace_err : lv->st.instance[0] ? 0 : -ENOENT;
}

int live_kmsg_error(const struct live_session *lv, const char **ret_why)
{
	*ret_why = lv->st.kmsg_why;
	return lv->st.kmsg_err;
}

bool live_measuring(const struct live_session *lv, const char **ret_why)
{
	*ret_why = lv->st.measure_why;
	return lv->st.measure != KTRACE_MEASURE_NONE;
}

int live_teardown_error(const struct live_session *lv)
{
	return lv->st.teardown_err;
}

const struct live_status *live_get_status(const struct live_session *lv)
{
	return &lv->st;
}
