/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The live engine without a kernel to trace: the trace spool's markers and task names
 * (fed trace_pipe's text, its output in a memfd), and the session's teardown on every
 * way out (no tracefs, no /dev/kmsg, a kernel log from a file, a stop signal): no file
 * descriptor left open, the stop signals' handlers and mask as they were.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "session/live.h"
#include "session/spool.h"

/* ---- helpers -------------------------------------------------------------------- */

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;	/* the directory's own */
}

/* Everything written to @fd so far, from its start (a static buffer) */
static const char *contents(int fd)
{
	static char buf[65536];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	assert_true(n >= 0);
	buf[n] = '\0';
	return buf;
}

struct marks {
	char text[64][256];	/* the parent chain may be deep: make, shells, CI */
	size_t n;
};

static int record_mark(void *userdata, const char *text, size_t len)
{
	struct marks *m = userdata;

	assert_true(m->n < 64 && len < sizeof(m->text[0]));
	memcpy(m->text[m->n], text, len);
	m->text[m->n++][len] = '\0';
	return 0;
}

static const struct trace_spool_ops mark_ops = { .mark = record_mark };

static void feed(struct trace_spool *sp, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	assert_true(n > 0 && (size_t)n < sizeof(line));
	trace_spool_feed(sp, line, (size_t)n);
}

static void own_comm(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/comm", "re");

	assert_non_null(f);
	assert_non_null(fgets(buf, (int)len, f));
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

/* ---- the spool ------------------------------------------------------------------- */

/* A finit_module() enter names the file behind its fd, and the caller's parents, once */
static void test_spool_markers(void **state)
{
	struct marks m = { .n = 0 };
	struct trace_spool *sp = NULL;
	char path[] = "/tmp/kmodtop-test-live-XXXXXX", want[512], parent[32];
	int out = memfd_create("spool", MFD_CLOEXEC), modfd = mkstemp(path);
	int pid = getpid();
	const struct trace_spool_stats *st;
	FILE *f;

	assert_true(out >= 0 && modfd >= 0);
	assert_int_equal(trace_spool_new(out, 2, &mark_ops, &m, &sp), 0);
	feed(sp, "        modprobe-%d     [000] ...1.     4.586660: sys_finit_module(fd: %d, "
		 "uargs: 5bfb41, flags: 0)\n", pid, modfd);
	/* the same requester again: its parents are not marked twice */
	feed(sp, "        modprobe-%d     [000] .....     4.622848: module_request: crc32c "
		 "wait=1 call_site=crypto_alg_mod_lookup\n", pid);
	/* an fd that names nothing now: counted, not marked */
	feed(sp, "        modprobe-%d     [001] ...1.     4.700000: sys_finit_module(fd: 987, "
		 "uargs: 5bfb41, flags: 0)\n", pid);
	assert_int_equal(trace_spool_finish(sp), 0);
	st = trace_spool_stats(sp);
	assert_int_equal(st->fds_marked, 1);
	assert_int_equal(st->fds_unread, 1);

	snprintf(want, sizeof(want), "kmodtop_fd pid=%d fd=%d path=%s", pid, modfd, path);
	assert_true(m.n >= 2);
	assert_string_equal(m.text[0], want);
	/* the parent chain up to init, each once: this process's parent first */
	snprintf(want, sizeof(want), "/proc/%d/comm", (int)getppid());
	f = fopen(want, "re");
	assert_non_null(f);
	assert_non_null(fgets(parent, sizeof(parent), f));
	fclose(f);
	parent[strcspn(parent, "\n")] = '\0';
	snprintf(want, sizeof(want), "kmodtop_parent pid=%d ppid=%d comm=%s", pid, (int)getppid(),
		 parent);
	assert_string_equal(m.text[1], want);
	for (size_t i = 2; i < m.n; i++)
		assert_null(strstr(m.text[i], "kmodtop_fd"));
	for (size_t i = 1; i < m.n; i++) {
		snprintf(want, sizeof(want), "kmodtop_parent pid=%d ", pid);
		if (i > 1)
			assert_null(strstr(m.text[i], want));
	}
	/* the lines themselves go out as they came */
	assert_non_null(strstr(contents(out), "sys_finit_module(fd: 987,"));
	assert_non_null(strstr(contents(out), "module_request: crc32c"));

	trace_spool_free(sp);
	unlink(path);
	close(modfd);
	close(out);
}

/* "<...>" gets the running task's name, in the same columns; lost events are counted */
static void test_spool_names_and_lost(void **state)
{
	struct trace_spool *sp = NULL;
	char comm[32], want[256];
	int out = memfd_create("spool", MFD_CLOEXEC);
	const struct trace_spool_stats *st;
	const char *text;

	assert_true(out >= 0);
	own_comm(comm, sizeof(comm));
	/* no markers: a spool without ops */
	assert_int_equal(trace_spool_new(out, 2, NULL, NULL, &sp), 0);
	/* a line in two pieces: one line out, not two */
	feed(sp, "           <...>-%d     [001] .....     5.000000: modu", (int)getpid());
	feed(sp, "le_free: x\n");
	/* a pid that cannot run (above PID_MAX_LIMIT): left as it is */
	feed(sp, "           <...>-4194999 [001] .....     5.100000: module_free: y\n");
	feed(sp, "CPU:1 [LOST 7 EVENTS]\n");
	feed(sp, "CPU:0 [LOST EVENTS]\n");
	/* the last line has no newline: it goes out all the same */
	feed(sp, "# end");
	assert_int_equal(trace_spool_finish(sp), 0);
	st = trace_spool_stats(sp);
	assert_int_equal(st->comms_resolved, 1);
	assert_int_equal(st->comms_unknown, 1);
	assert_int_equal(st->lost_seen[0], 0);
	assert_int_equal(st->lost_seen[1], 7);
	assert_int_equal(st->lost_uncounted, 1);

	text = contents(out);
	snprintf(want, sizeof(want), "%16s-%d     [001] .....     5.000000: module_free: x\n", comm,
		 (int)getpid());
	assert_non_null(strstr(text, want));
	assert_non_null(strstr(text, "<...>-4194999 [001]"));
	assert_non_null(strstr(text, "CPU:1 [LOST 7 EVENTS]\n"));
	assert_int_equal(strcmp(text + strlen(text) - 5, "# end"), 0);
	trace_spool_free(sp);
	close(out);
}

/* ---- the session's teardown ------------------------------------------------------ */

static const char *const no_tracefs[] = { "/nonexistent/kmodtop-test-tracefs", NULL };

/* Neither source can be had: started all the same, ended, freed, nothing left open */
static void test_live_nothing_to_follow(void **state)
{
	struct live_opts o = { .tracefs_dirs = no_tracefs,
			       .kmsg_path = "/nonexistent/kmodtop-test-kmsg" };
	struct live_session *lv = NULL;
	const char *why = NULL;
	int before = count_fds();

	assert_int_equal(live_start(&o, -1, -1, &lv), 0);
	assert_true(live_trace_error(lv, &why) < 0);
	assert_non_null(why);
	assert_int_equal(live_kmsg_error(lv, &why), -ENOENT);
	assert_false(live_has_trace(lv));
	assert_int_equal(live_trace_fd(lv), -1);
	assert_int_equal(live_kmsg_fd(lv), -1);
	assert_int_equal(live_poll(lv, 4), 0);
	assert_int_equal(live_end(lv), 0);
	/* a second end is the first's answer, and free after end does not end again */
	assert_int_equal(live_end(lv), 0);
	assert_null(live_free(lv));
	assert_int_equal(count_fds(), before);

	/* freed without an end */
	assert_int_equal(live_start(&o, -1, -1, &lv), 0);
	live_free(lv);
	assert_int_equal(count_fds(), before);
}

static char *kmsg_file(void)
{
	static const char rec[] = "6,1,100,-;kmodtop test record\n";
	char *path = strdup("/tmp/kmodtop-test-kmsg-XXXXXX");
	int fd;

	assert_non_null(path);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, rec, sizeof(rec) - 1), (ssize_t)(sizeof(rec) - 1));
	close(fd);
	return path;
}

/* Half had (no trace, a kernel log): what was followed is in the spool; all closed */
static void test_live_kmsg_only(void **state)
{
	char *path = kmsg_file();
	struct live_opts o = { .tracefs_dirs = no_tracefs, .kmsg_path = path,
			       .since_boot = true };
	struct live_session *lv = NULL;
	const struct live_status *st;
	const char *why;
	int before = count_fds();

	assert_int_equal(live_start(&o, -1, -1, &lv), 0);
	assert_int_equal(live_kmsg_error(lv, &why), 0);
	assert_true(live_kmsg_fd(lv) >= 0);
	assert_int_equal(live_poll(lv, 4), 1);
	assert_int_equal(live_end(lv), 0);
	st = live_get_status(lv);
	assert_int_equal(st->kmsg_records, 1);
	assert_true(st->trace_err < 0);
	assert_true(st->since_boot);
	assert_non_null(strstr(contents(live_kmsg_fd(lv)), "kmodtop test record"));
	/* the in-memory spools are the session's: freed with it */
	assert_true(count_fds() > before);
	live_free(lv);
	assert_int_equal(count_fds(), before);
	unlink(path);
	free(path);
}

/* The spools given by the caller stay the caller's */
static void test_live_caller_spools(void **state)
{
	char *path = kmsg_file();
	struct live_opts o = { .tracefs_dirs = no_tracefs, .kmsg_path = path,
			       .since_boot = true };
	struct live_session *lv = NULL;
	int tfd = memfd_create("t", MFD_CLOEXEC), kfd = memfd_create("k", MFD_CLOEXEC);
	int before = count_fds();

	assert_true(tfd >= 0 && kfd >= 0);
	assert_int_equal(live_start(&o, tfd, kfd, &lv), 0);
	assert_int_equal(live_end(lv), 0);
	live_free(lv);
	assert_int_equal(count_fds(), before);
	assert_true(fcntl(tfd, F_GETFD) >= 0 && fcntl(kfd, F_GETFD) >= 0);
	assert_non_null(strstr(contents(kfd), "kmodtop test record"));
	close(tfd);
	close(kfd);
	unlink(path);
	free(path);
}

static volatile sig_atomic_t test_handler_calls;

static void test_handler(int sig)
{
	test_handler_calls++;
}

static void install_test_handler(void)
{
	struct sigaction sa = { .sa_handler = test_handler };

	sigemptyset(&sa.sa_mask);
	for (int s = 0; s < 3; s++)
		assert_int_equal(sigaction((int[]){ SIGINT, SIGTERM, SIGHUP }[s], &sa, NULL), 0);
	test_handler_calls = 0;
}

static void assert_handlers_restored(void)
{
	sigset_t mask;

	for (int s = 0; s < 3; s++) {
		struct sigaction cur;

		assert_int_equal(sigaction((int[]){ SIGINT, SIGTERM, SIGHUP }[s], NULL, &cur), 0);
		assert_ptr_equal(cur.sa_handler, test_handler);
	}
	assert_int_equal(sigprocmask(SIG_BLOCK, NULL, &mask), 0);
	assert_false(sigismember(&mask, SIGINT));
	assert_false(sigismember(&mask, SIGTERM));
	assert_false(sigismember(&mask, SIGHUP));
}

/* Caught, a stop signal waits; restored, it is taken as a stop, not by the old action */
static void test_signals_caught_and_restored(void **state)
{
	struct live_signals s;
	struct sigaction cur;
	sigset_t mask;

	install_test_handler();
	live_signals_catch(&s);
	assert_int_equal(live_stop_signal(), 0);
	assert_int_equal(sigaction(SIGTERM, NULL, &cur), 0);
	assert_ptr_not_equal(cur.sa_handler, test_handler);
	assert_int_equal(sigprocmask(SIG_BLOCK, NULL, &mask), 0);
	assert_true(sigismember(&mask, SIGTERM));
	raise(SIGTERM);
	assert_int_equal(live_stop_signal(), 0);	/* blocked: waiting */
	live_signals_restore(&s);
	assert_int_equal(live_stop_signal(), SIGTERM);
	assert_int_equal(test_handler_calls, 0);
	assert_handlers_restored();
	/* a new catch forgets the last stop */
	live_signals_catch(&s);
	assert_int_equal(live_stop_signal(), 0);
	live_signals_restore(&s);
}

/*
 * A collection ended by SIGTERM: says so, the signals as they were, nothing left open.
 * The kernel log is a FIFO, as /dev/kmsg is not always readable: a source always ready
 * would keep ppoll() from ever letting the signal in.
 */
static void test_live_collect_stopped(void **state)
{
	static const char rec[] = "6,1,100,-;kmodtop test record\n";
	char dir[] = "/tmp/kmodtop-test-fifo-XXXXXX", path[64];
	struct live_opts o = { .tracefs_dirs = no_tracefs, .kmsg_path = path,
			       .since_boot = true, .duration = 30 };
	struct live_session *lv = NULL;
	struct timespec t0, t1;
	pid_t child;
	int before, status, wfd;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/kmsg", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	install_test_handler();
	before = count_fds();
	wfd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	assert_true(wfd >= 0);
	assert_int_equal(write(wfd, rec, sizeof(rec) - 1), (ssize_t)(sizeof(rec) - 1));
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		usleep(300 * 1000);
		kill(getppid(), SIGTERM);
		_exit(0);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(live_collect(&o, -1, -1, &lv), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_int_equal(waitpid(child, &status, 0), child);
	/* well before the duration: the signal ended it */
	assert_true(t1.tv_sec - t0.tv_sec < 20);
	assert_non_null(live_get_status(lv)->ended_by);
	assert_string_equal(live_get_status(lv)->ended_by, "SIGTERM");
	assert_int_equal(live_get_status(lv)->kmsg_records, 1);
	assert_int_equal(test_handler_calls, 0);
	assert_handlers_restored();
	live_free(lv);
	close(wfd);
	assert_int_equal(count_fds(), before);
	unlink(path);
	rmdir(dir);
}

/* record's READY=1: the hook sees the session started, its sources decided */
static void count_started(void *userdata, const struct live_session *lv)
{
	const char *why = NULL;

	assert_true(live_trace_error(lv, &why) < 0);
	assert_int_equal(live_kmsg_error(lv, &why), 0);
	(*(int *)userdata)++;
}

/* Run out: no signal named */
static void test_live_collect_duration(void **state)
{
	struct live_opts o = { .tracefs_dirs = no_tracefs, .kmsg_path = NULL,
			       .duration = 0.2 };
	char *path = kmsg_file();
	struct live_session *lv = NULL;
	int before, started = 0;

	o.kmsg_path = path;
	o.started = count_started;
	o.userdata = &started;
	install_test_handler();
	before = count_fds();
	assert_int_equal(live_collect(&o, -1, -1, &lv), 0);
	assert_int_equal(started, 1);
	assert_null(live_get_status(lv)->ended_by);
	assert_true(live_get_status(lv)->seconds >= 0.2);
	assert_handlers_restored();
	live_free(lv);
	assert_int_equal(count_fds(), before);
	unlink(path);
	free(path);
}

/* What the started hook saw of the setup: the steps done before it */
static void steps_at_start(void *userdata, const struct live_session *lv)
{
	*(size_t *)userdata = live_get_status(lv)->n_steps;
}

/*
 * READY=1 waits for nothing the first load call does not need: the kernel log is
 * opened (and read from its oldest record) after the hook, not before it
 */
static void test_live_started_before_kmsg(void **state)
{
	char *path = kmsg_file();
	struct live_opts o = { .tracefs_dirs = no_tracefs, .kmsg_path = path,
			       .since_boot = true, .started = steps_at_start };
	const struct live_status *st;
	struct live_session *lv = NULL;
	size_t at_start = SIZE_MAX, i, kmsg = SIZE_MAX;

	o.userdata = &at_start;
	assert_int_equal(live_start(&o, -1, -1, &lv), 0);
	st = live_get_status(lv);
	assert_true(at_start <= st->n_steps);
	for (i = 0; i < st->n_steps; i++) {
		assert_non_null(st->steps[i].what);
		assert_true(st->steps[i].seconds >= 0);
		if (strcmp(st->steps[i].what, "kernel log") == 0)
			kmsg = i;
	}
	/* timed, and after the hook */
	assert_true(kmsg < st->n_steps);
	assert_true(kmsg >= at_start);
	/* the tracefs look-up, which READY=1 does wait for, before it */
	assert_true(at_start >= 1);
	assert_string_equal(st->steps[0].what, "tracefs");
	assert_true(st->ready_after >= 0);
	assert_int_equal(st->kmsg_err, 0);
	live_free(lv);
	unlink(path);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spool_markers),
		cmocka_unit_test(test_spool_names_and_lost),
		cmocka_unit_test(test_live_nothing_to_follow),
		cmocka_unit_test(test_live_kmsg_only),
		cmocka_unit_test(test_live_caller_spools),
		cmocka_unit_test(test_signals_caught_and_restored),
		cmocka_unit_test(test_live_collect_stopped),
		cmocka_unit_test(test_live_collect_duration),
		cmocka_unit_test(test_live_started_before_kmsg),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
