/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tracefs instance logic against a fake tracefs: a temporary directory tree with
 * instances/, kprobe_events and what tracefs would put in a new instance. The fake's
 * mkdir fills an instance from a template, its rmdir removes a whole tree, as tracefs
 * does; writes go to plain files, so the test reads back what kmodtop wrote.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "sources/trace/instance.h"

/* ---- the fake tracefs ------------------------------------------------------------ */

struct fake {
	char *dir;
	int fd;
	bool vmalloc_tp;		/* 6.2+: events/vmalloc/alloc_vmap_area */
	bool init_module_events;	/* syscalls/sys_*_init_module */
	bool kprobe_events;		/* the top-level kprobe_events file */
	const char *unwritable;		/* in a new instance: this file is a directory */
	pid_t alive;			/* the one other pid that is a running kmodtop */
	int mkdir_err;			/* make mkdir fail with this */
	unsigned int rmdir_busy;	/* so many rmdirs fail with EBUSY (a file held open) */
	unsigned int mkdirs, rmdirs;
	dev_t dev;			/* the directory's identity: a handle given to the */
	ino_t ino;			/* fake must be one of this directory, by any number */
};

static int rm_cb(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(p);
}

static void put(int dfd, const char *rel, const char *text)
{
	char buf[512];
	int fd;

	snprintf(buf, sizeof(buf), "%s", rel);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		assert_true(mkdirat(dfd, buf, 0755) == 0 || errno == EEXIST);
		*p = '/';
	}
	fd = openat(dfd, rel, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static char *get(int dfd, const char *rel)
{
	static char buf[4096];
	int fd = openat(dfd, rel, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n >= 0);
	buf[n] = '\0';
	return buf;
}

static bool exists(int dfd, const char *rel)
{
	return faccessat(dfd, rel, F_OK, 0) == 0;
}

/* What tracefs shows in a new instance (the parts kmodtop touches) */
static void populate(struct fake *fk, const char *inst)
{
	static const char *const events[] = {
		"module/module_load", "module/module_free", "module/module_request",
		"module/module_get", "module/module_put",
		"syscalls/sys_enter_finit_module", "syscalls/sys_exit_finit_module",
		"syscalls/sys_enter_delete_module", "syscalls/sys_exit_delete_module",
		"sched/sched_process_fork", "sched/sched_process_exec",
		"sched/sched_switch",
	};
	char rel[512];

	snprintf(rel, sizeof(rel), "%s/tracing_on", inst);
	put(fk->fd, rel, "1\n");
	snprintf(rel, sizeof(rel), "%s/buffer_size_kb", inst);
	put(fk->fd, rel, "1410\n");
	snprintf(rel, sizeof(rel), "%s/trace_pipe", inst);
	put(fk->fd, rel, "");
	snprintf(rel, sizeof(rel), "%s/trace_clock", inst);
	put(fk->fd, rel, "[local] global counter uptime perf mono mono_raw boot\n");
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		snprintf(rel, sizeof(rel), "%s/events/%s/enable", inst, events[i]);
		put(fk->fd, rel, "0\n");
		snprintf(rel, sizeof(rel), "%s/events/%s/trigger", inst, events[i]);
		put(fk->fd, rel, "# Available triggers:\n");
	}
	if (fk->init_module_events) {
		snprintf(rel, sizeof(rel), "%s/events/syscalls/sys_enter_init_module/enable", inst);
		put(fk->fd, rel, "0\n");
		snprintf(rel, sizeof(rel), "%s/events/syscalls/sys_exit_init_module/enable", inst);
		put(fk->fd, rel, "0\n");
	}
	if (fk->vmalloc_tp) {
		snprintf(rel, sizeof(rel), "%s/events/vmalloc/alloc_vmap_area/enable", inst);
		put(fk->fd, rel, "0\n");
		snprintf(rel, sizeof(rel), "%s/events/vmalloc/alloc_vmap_area/trigger", inst);
		put(fk->fd, rel, "# Available triggers:\n");
	}
	if (fk->kprobe_events) {
		/* a kprobe event shows up in every instance's events/ once defined */
		const char *name = strrchr(inst, '-') + 1;

		snprintf(rel, sizeof(rel), "%s/events/kmodtop_%s/alloc_vmap_area/enable", inst, name);
		put(fk->fd, rel, "0\n");
		snprintf(rel, sizeof(rel), "%s/events/kmodtop_%s/alloc_vmap_area/trigger", inst,
			 name);
		put(fk->fd, rel, "# Available triggers:\n");
	}
	if (fk->unwritable) {
		/* opening it for writing fails with EISDIR; rmdir of the instance removes it */
		snprintf(rel, sizeof(rel), "%s/%s", inst, fk->unwritable);
		assert_true(unlinkat(fk->fd, rel, 0) == 0 || errno == ENOENT);
		strcat(rel, "/x");
		put(fk->fd, rel, "");	/* makes the directories on the way */
		assert_int_equal(unlinkat(fk->fd, rel, 0), 0);
	}
	for (int c = 0; c < 2; c++) {
		snprintf(rel, sizeof(rel), "%s/per_cpu/cpu%d/stats", inst, c);
		put(fk->fd, rel,
		    "entries: 0\noverrun: 0\ncommit overrun: 0\nbytes: 0\n"
		    "oldest event ts:     0.000000\nnow ts:  1.000000\ndropped events: 0\n"
		    "read events: 0\n");
	}
}

/* @dirfd is a handle of the fake's directory (the caller's fd, or a dup of it) */
static void assert_fake_dir(const struct fake *fk, int dirfd)
{
	struct stat st;

	assert_int_equal(fstat(dirfd, &st), 0);
	assert_true(st.st_dev == fk->dev && st.st_ino == fk->ino);
}

static int fake_mkdir(int dirfd, const char *path, void *userdata)
{
	struct fake *fk = userdata;

	assert_fake_dir(fk, dirfd);
	fk->mkdirs++;
	if (fk->mkdir_err)
		return fk->mkdir_err;
	if (mkdirat(dirfd, path, 0755) < 0)
		return -errno;
	populate(fk, path);
	return 0;
}

static int fake_rmdir(int dirfd, const char *path, void *userdata)
{
	struct fake *fk = userdata;
	char abs[1024];

	assert_fake_dir(fk, dirfd);
	fk->rmdirs++;
	if (!exists(dirfd, path))
		return -ENOENT;
	if (fk->rmdir_busy) {
		fk->rmdir_busy--;
		return -EBUSY;
	}
	snprintf(abs, sizeof(abs), "%s/%s", fk->dir, path);
	return nftw(abs, rm_cb, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -EIO;
}

static bool fake_alive(pid_t pid, void *userdata)
{
	struct fake *fk = userdata;

	return pid == fk->alive;
}

static struct ktrace_fs_ops fake_ops(struct fake *fk)
{
	return (struct ktrace_fs_ops){ .mkdir = fake_mkdir, .rmdir = fake_rmdir,
					.pid_is_kmodtop = fake_alive, .userdata = fk };
}

static struct fake *fake_new(void)
{
	struct fake *fk = calloc(1, sizeof(*fk));
	const char *t = getenv("TMPDIR");

	assert_non_null(fk);
	assert_true(asprintf(&fk->dir, "%s/kmodtop-tracefs-XXXXXX", t && t[0] ? t : "/tmp") > 0);
	assert_non_null(mkdtemp(fk->dir));
	fk->fd = open(fk->dir, O_RDONLY | O_DIRECTORY);
	assert_true(fk->fd >= 0);
	{
		struct stat st;

		assert_int_equal(fstat(fk->fd, &st), 0);
		fk->dev = st.st_dev;
		fk->ino = st.st_ino;
	}
	assert_int_equal(mkdirat(fk->fd, "instances", 0755), 0);
	fk->vmalloc_tp = true;
	fk->init_module_events = true;
	return fk;
}

static void fake_free(struct fake *fk)
{
	close(fk->fd);
	nftw(fk->dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	free(fk->dir);
	free(fk);
}

static const struct ktrace_event_status *status(const struct ktrace_instance *ti,
						  const char *name)
{
	for (size_t i = 0; i < ti->n_events; i++)
		if (strcmp(ti->events[i].name, name) == 0)
			return &ti->events[i];
	return NULL;
}

/* ---- tests ----------------------------------------------------------------------- */

static void test_instance_tracepoint(void **state)
{
	struct fake *fk = fake_new();
	struct ktrace_fs_ops ops = fake_ops(fk);
	struct ktrace_instance_opts o = { .measure = true, .stacktrace_in_instance = true,
					   .buffer_kb = 4096 };
	struct ktrace_instance *ti = NULL;
	const char *what = NULL;
	uint64_t lost[2];
	char buf[64];

	/* the kernel moved the top-level buffer to "global" (unstable TSC) */
	put(fk->fd, "trace_clock", "local [global] counter uptime perf mono mono_raw boot\n");
	assert_int_equal(ktrace_instance_new(fk->fd, 4242, &o, &ops, &ti, &what), 0);
	assert_string_equal(ti->clock, "global");
	assert_memory_equal(get(fk->fd, "instances/kmodtop-4242/trace_clock"), "global", 6);
	assert_memory_equal(get(fk->fd, "trace_clock"), "local [global]", 14);
	assert_string_equal(ti->name, "kmodtop-4242");
	assert_string_equal(ti->path, "instances/kmodtop-4242");
	assert_true(ti->created);
	assert_int_equal(ti->measure, KTRACE_MEASURE_TRACEPOINT);
	assert_string_equal(ti->group, "");
	assert_int_equal(ti->ncpus, 2);
	/* quiet until started; written without truncation, as tracefs wants */
	assert_memory_equal(get(fk->fd, "instances/kmodtop-4242/tracing_on"), "0", 1);
	assert_memory_equal(get(fk->fd, "instances/kmodtop-4242/buffer_size_kb"), "4096", 4);
	assert_memory_equal(get(fk->fd, "instances/kmodtop-4242/events/module/module_load/enable"),
			    "1", 1);
	assert_memory_equal(
		get(fk->fd, "instances/kmodtop-4242/events/module/module_request/enable"), "1", 1);
	assert_memory_equal(
		get(fk->fd, "instances/kmodtop-4242/events/syscalls/sys_exit_finit_module/enable"),
		"1", 1);
	assert_memory_equal(
		get(fk->fd, "instances/kmodtop-4242/events/sched/sched_process_fork/enable"), "1", 1);
	/* the refcount events and unrelated ones stay off */
	assert_memory_equal(get(fk->fd, "instances/kmodtop-4242/events/module/module_get/enable"),
			    "0", 1);
	assert_memory_equal(get(fk->fd, "instances/kmodtop-4242/events/sched/sched_switch/enable"),
			    "0", 1);
	assert_memory_equal(
		get(fk->fd, "instances/kmodtop-4242/events/vmalloc/alloc_vmap_area/trigger"),
		"stacktrace", 10);
	assert_memory_equal(
		get(fk->fd, "instances/kmodtop-4242/events/vmalloc/alloc_vmap_area/enable"), "1", 1);
	assert_int_equal(status(ti, "syscalls/sys_enter_init_module")->err, 0);
	assert_null(status(ti, "module/module_get"));
	assert_false(exists(fk->fd, "kprobe_events"));

	assert_int_equal(ktrace_instance_start(ti), 0);
	assert_true(ti->pipe_fd >= 0);
	assert_memory_equal(get(fk->fd, "instances/kmodtop-4242/tracing_on"), "1", 1);
	assert_int_equal(ktrace_instance_read(ti, buf, sizeof(buf)), -EAGAIN);

	/* overruns since the start, per CPU */
	put(fk->fd, "instances/kmodtop-4242/per_cpu/cpu1/stats",
	    "entries: 3\noverrun: 7\ncommit overrun: 99\ndropped events: 2\n");
	assert_int_equal(ktrace_instance_lost(ti, lost), 0);
	assert_int_equal(lost[0], 0);
	assert_int_equal(lost[1], 9);

	assert_int_equal(ktrace_instance_stop(ti), 0);
	assert_memory_equal(get(fk->fd, "instances/kmodtop-4242/tracing_on"), "0", 1);
	assert_int_equal(ktrace_instance_teardown(ti), 0);
	assert_false(ti->created);
	assert_int_equal(ti->pipe_fd, -1);
	assert_false(exists(fk->fd, "instances/kmodtop-4242"));
	/* twice is harmless */
	assert_int_equal(ktrace_instance_teardown(ti), 0);
	assert_null(ktrace_instance_free(ti));
	assert_int_equal(fk->rmdirs, 1);
	fake_free(fk);
}

static void test_instance_missing_events(void **state)
{
	struct fake *fk = fake_new();
	struct ktrace_fs_ops ops = fake_ops(fk);
	struct ktrace_instance *ti = NULL;
	const char *what = NULL;

	fk->init_module_events = false;
	/* the same clock already: left alone */
	put(fk->fd, "trace_clock", "[local] global counter\n");
	assert_int_equal(ktrace_instance_new(fk->fd, 7, NULL, &ops, &ti, &what), 0);
	assert_string_equal(ti->clock, "local");
	assert_memory_equal(get(fk->fd, "instances/kmodtop-7/trace_clock"), "[local] global", 14);
	assert_int_equal(status(ti, "syscalls/sys_enter_init_module")->err, -ENOENT);
	assert_non_null(status(ti, "syscalls/sys_enter_init_module")->loses);
	assert_int_equal(status(ti, "syscalls/sys_enter_finit_module")->err, 0);
	/* not asked to measure: the vmalloc event stays off */
	assert_int_equal(ti->measure, KTRACE_MEASURE_NONE);
	assert_null(ti->measure_why);
	assert_memory_equal(get(fk->fd, "instances/kmodtop-7/events/vmalloc/alloc_vmap_area/enable"),
			    "0", 1);
	ktrace_instance_free(ti);
	assert_false(exists(fk->fd, "instances/kmodtop-7"));
	fake_free(fk);
}

static void test_instance_kprobe(void **state)
{
	struct fake *fk = fake_new();
	struct ktrace_fs_ops ops = fake_ops(fk);
	struct ktrace_instance_opts o = { .measure = true, .stacktrace_in_instance = true };
	struct ktrace_instance *ti = NULL;
	const char *what = NULL;
	char *kp;

	fk->vmalloc_tp = false;
	fk->kprobe_events = true;
	put(fk->fd, "kprobe_events", "p:kmt/alloc_vmap_area alloc_vmap_area size=$arg1:u64\n");
	assert_int_equal(ktrace_instance_new(fk->fd, 4243, &o, &ops, &ti, &what), 0);
	assert_int_equal(ti->measure, KTRACE_MEASURE_KPROBE);
	assert_string_equal(ti->group, "kmodtop_4243");
	kp = get(fk->fd, "kprobe_events");
	/* appended, never truncated: somebody else's probe is still there */
	assert_string_equal(kp, "p:kmt/alloc_vmap_area alloc_vmap_area size=$arg1:u64\n"
				"p:kmodtop_4243/alloc_vmap_area alloc_vmap_area size=$arg1:u64\n");
	assert_memory_equal(
		get(fk->fd, "instances/kmodtop-4243/events/kmodtop_4243/alloc_vmap_area/trigger"),
		"stacktrace", 10);
	assert_memory_equal(
		get(fk->fd, "instances/kmodtop-4243/events/kmodtop_4243/alloc_vmap_area/enable"), "1",
		1);
	assert_int_equal(ktrace_instance_teardown(ti), 0);
	assert_string_equal(ti->group, "");
	assert_false(exists(fk->fd, "instances/kmodtop-4243"));
	kp = get(fk->fd, "kprobe_events");
	assert_non_null(strstr(kp, "\n-:kmodtop_4243/alloc_vmap_area\n"));
	assert_null(strstr(kp, "-:kmt"));
	ktrace_instance_free(ti);
	fake_free(fk);
}

static void test_instance_no_measurement(void **state)
{
	struct fake *fk = fake_new();
	struct ktrace_fs_ops ops = fake_ops(fk);
	struct ktrace_instance_opts o = { .measure = true, .stacktrace_in_instance = true };
	struct ktrace_instance *ti = NULL;
	const char *what = NULL;

	/* before 6.2 and no kprobe events: estimate only, and say why */
	fk->vmalloc_tp = false;
	assert_int_equal(ktrace_instance_new(fk->fd, 11, &o, &ops, &ti, &what), 0);
	assert_int_equal(ti->measure, KTRACE_MEASURE_NONE);
	assert_non_null(strstr(ti->measure_why, "kprobe"));
	assert_false(exists(fk->fd, "kprobe_events"));
	ktrace_instance_free(ti);

	/* a kernel whose stacktrace trigger would write into the top-level buffer */
	fk->vmalloc_tp = true;
	o.stacktrace_in_instance = false;
	assert_int_equal(ktrace_instance_new(fk->fd, 12, &o, &ops, &ti, &what), 0);
	assert_int_equal(ti->measure, KTRACE_MEASURE_NONE);
	assert_non_null(strstr(ti->measure_why, "5.17"));
	assert_memory_equal(get(fk->fd, "instances/kmodtop-12/events/vmalloc/alloc_vmap_area/trigger"),
			    "#", 1);
	ktrace_instance_free(ti);
	fake_free(fk);
}

static void test_instance_replaces_own_leftover(void **state)
{
	struct fake *fk = fake_new();
	struct ktrace_fs_ops ops = fake_ops(fk);
	struct ktrace_instance *ti = NULL;
	const char *what = NULL;

	/* an earlier process had our pid and was killed */
	assert_int_equal(fake_mkdir(fk->fd, "instances/kmodtop-99", fk), 0);
	put(fk->fd, "instances/kmodtop-99/leftover", "x");
	assert_int_equal(ktrace_instance_new(fk->fd, 99, NULL, &ops, &ti, &what), 0);
	assert_false(exists(fk->fd, "instances/kmodtop-99/leftover"));
	assert_true(exists(fk->fd, "instances/kmodtop-99/tracing_on"));
	ktrace_instance_free(ti);
	assert_false(exists(fk->fd, "instances/kmodtop-99"));
	fake_free(fk);
}

static void test_instance_failures(void **state)
{
	struct fake *fk = fake_new();
	struct ktrace_fs_ops ops = fake_ops(fk);
	struct ktrace_instance *ti = NULL;
	const char *what = NULL;

	fk->mkdir_err = -EACCES;
	assert_int_equal(ktrace_instance_new(fk->fd, 5, NULL, &ops, &ti, &what), -EACCES);
	assert_null(ti);
	assert_non_null(what);
	assert_int_equal(fk->rmdirs, 0);

	/* a failure half-way removes what was made */
	fk->mkdir_err = 0;
	fk->unwritable = "events/sched/sched_process_fork/enable";
	what = NULL;
	assert_int_equal(ktrace_instance_new(fk->fd, 6, NULL, &ops, &ti, &what), -EISDIR);
	assert_null(ti);
	assert_non_null(what);
	assert_false(exists(fk->fd, "instances/kmodtop-6"));
	fake_free(fk);

	/* no instances/ at all */
	fk = fake_new();
	ops = fake_ops(fk);
	assert_int_equal(unlinkat(fk->fd, "instances", AT_REMOVEDIR), 0);
	assert_int_equal(ktrace_instance_new(fk->fd, 8, NULL, &ops, &ti, &what), -ENOENT);
	fake_free(fk);
}

/*
 * Every failure after the instance exists removes it again, and the kprobe group when
 * it was added: a write that fails in each step of the setup, then at the start.
 */
static void test_instance_failures_after_mkdir(void **state)
{
	static const struct {
		const char *unwritable;
		bool kprobe;		/* no vmalloc tracepoint: the kprobe is added */
		const char *what;	/* in *reterr_what */
	} cases[] = {
		{ "trace_clock", false, "clock" },
		{ "tracing_on", false, "tracing off" },
		{ "buffer_size_kb", false, "buffer size" },
		{ "events/syscalls/sys_exit_finit_module/enable", false, "enabling an event" },
		/* a module event of a later kernel, enabled with module:* */
		{ "events/module/module_later/enable", false, "module events" },
		{ "events/vmalloc/alloc_vmap_area/trigger", false, "vmalloc:alloc_vmap_area" },
		{ "events/vmalloc/alloc_vmap_area/enable", false, "vmalloc:alloc_vmap_area" },
		/* events/kmodtop_PID/...: the kprobe exists by then, its group must go too */
		{ "alloc_vmap_area/trigger", true, "kprobe" },
		{ "alloc_vmap_area/enable", true, "kprobe" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fake *fk = fake_new();
		struct ktrace_fs_ops ops = fake_ops(fk);
		struct ktrace_instance_opts o = { .measure = true, .stacktrace_in_instance = true,
						   .buffer_kb = 4096 };
		struct ktrace_instance *ti = NULL;
		const char *what = NULL;
		pid_t pid = 300 + (pid_t)i;
		char unwritable[128], inst[64], probe[64], *kp;

		if (cases[i].kprobe)
			snprintf(unwritable, sizeof(unwritable), "events/kmodtop_%d/%s", (int)pid,
				 cases[i].unwritable);
		else
			snprintf(unwritable, sizeof(unwritable), "%s", cases[i].unwritable);
		snprintf(inst, sizeof(inst), "instances/kmodtop-%d", (int)pid);
		snprintf(probe, sizeof(probe), "kmodtop_%d/alloc_vmap_area", (int)pid);
		fk->unwritable = unwritable;
		fk->vmalloc_tp = !cases[i].kprobe;
		fk->kprobe_events = cases[i].kprobe;
		put(fk->fd, "kprobe_events", "p:kmt/alloc_vmap_area alloc_vmap_area\n");
		put(fk->fd, "trace_clock", "local [global] counter\n");
		assert_int_equal(ktrace_instance_new(fk->fd, pid, &o, &ops, &ti, &what), -EISDIR);
		assert_null(ti);
		if (!what || !strstr(what, cases[i].what))
			fail_msg("%s: reterr_what \"%s\", want \"%s\"", unwritable, what,
				 cases[i].what);
		assert_int_equal(fk->mkdirs, 1);
		if (exists(fk->fd, inst))
			fail_msg("%s: the instance is left", unwritable);
		kp = get(fk->fd, "kprobe_events");
		if (cases[i].kprobe) {
			char want[128];

			/* added, then removed */
			snprintf(want, sizeof(want), "p:%s alloc_vmap_area", probe);
			assert_non_null(strstr(kp, want));
			snprintf(want, sizeof(want), "\n-:%s\n", probe);
			if (!strstr(kp, want))
				fail_msg("%s: the kprobe group is left: %s", unwritable, kp);
		} else {
			/* somebody else's probe, untouched; nothing of ours added */
			assert_string_equal(kp, "p:kmt/alloc_vmap_area alloc_vmap_area\n");
		}
		fake_free(fk);
	}

	/* a failure whose cleanup cannot remove the instance hands back what is left */
	{
		struct fake *fk = fake_new();
		struct ktrace_fs_ops ops = fake_ops(fk);
		struct ktrace_instance_opts o = { .measure = true, .stacktrace_in_instance = true };
		struct ktrace_instance *ti = NULL;
		const char *what = NULL;

		fk->vmalloc_tp = false;
		fk->kprobe_events = true;
		fk->unwritable = "events/kmodtop_402/alloc_vmap_area/enable";
		fk->rmdir_busy = 40;	/* every try of the cleanup: 1 s */
		put(fk->fd, "kprobe_events", "");
		assert_int_equal(ktrace_instance_new(fk->fd, 402, &o, &ops, &ti, &what), -EISDIR);
		assert_non_null(what);
		assert_non_null(ti);
		assert_true(ti->created);
		assert_string_equal(ti->path, "instances/kmodtop-402");
		assert_true(exists(fk->fd, "instances/kmodtop-402"));
		assert_memory_equal(get(fk->fd, "instances/kmodtop-402/tracing_on"), "0", 1);
		/* the probe could go (the fake does not hold it enabled) */
		assert_string_equal(ti->group, "");
		/* the caller's retry */
		assert_int_equal(ktrace_instance_teardown(ti), 0);
		assert_false(exists(fk->fd, "instances/kmodtop-402"));
		assert_null(ktrace_instance_free(ti));

		/* a failure before the instance exists leaves *ret NULL, whatever it held */
		fk->mkdir_err = -EACCES;
		ti = (struct ktrace_instance *)&ops;
		assert_int_equal(ktrace_instance_new(fk->fd, 403, &o, &ops, &ti, &what), -EACCES);
		assert_null(ti);
		fake_free(fk);
	}

	/* set up, then the start fails: free removes both */
	{
		struct fake *fk = fake_new();
		struct ktrace_fs_ops ops = fake_ops(fk);
		struct ktrace_instance_opts o = { .measure = true, .stacktrace_in_instance = true };
		struct ktrace_instance *ti = NULL;
		const char *what = NULL;

		fk->vmalloc_tp = false;
		fk->kprobe_events = true;
		put(fk->fd, "kprobe_events", "");
		assert_int_equal(ktrace_instance_new(fk->fd, 400, &o, &ops, &ti, &what), 0);
		assert_int_equal(ti->measure, KTRACE_MEASURE_KPROBE);
		/* tracing_on cannot be turned on: trace_pipe and trace_marker are open by then */
		assert_int_equal(unlinkat(fk->fd, "instances/kmodtop-400/tracing_on", 0), 0);
		assert_int_equal(mkdirat(fk->fd, "instances/kmodtop-400/tracing_on", 0755), 0);
		assert_int_equal(ktrace_instance_start(ti), -EISDIR);
		assert_null(ktrace_instance_free(ti));
		assert_false(exists(fk->fd, "instances/kmodtop-400"));
		assert_non_null(strstr(get(fk->fd, "kprobe_events"),
				       "\n-:kmodtop_400/alloc_vmap_area\n"));

		/* no trace_pipe at all */
		assert_int_equal(ktrace_instance_new(fk->fd, 401, &o, &ops, &ti, &what), 0);
		assert_int_equal(unlinkat(fk->fd, "instances/kmodtop-401/trace_pipe", 0), 0);
		assert_int_equal(ktrace_instance_start(ti), -ENOENT);
		assert_int_equal(ti->pipe_fd, -1);
		assert_null(ktrace_instance_free(ti));
		assert_false(exists(fk->fd, "instances/kmodtop-401"));
		assert_non_null(strstr(get(fk->fd, "kprobe_events"),
				       "\n-:kmodtop_401/alloc_vmap_area\n"));
		fake_free(fk);
	}
}

/*
 * The instance cannot be removed at the end (another program holds one of its files
 * open) and is kept for a retry at exit; by then the caller has closed its tracefs
 * handle, and the fd number may be another directory's. The retry must still act on
 * tracefs, and succeed once the file is let go.
 */
static void test_teardown_retry_after_caller_closed(void **state)
{
	struct fake *fk = fake_new();
	struct ktrace_fs_ops ops = fake_ops(fk);
	struct ktrace_instance_opts o = { .measure = true, .stacktrace_in_instance = true };
	struct ktrace_instance *ti = NULL;
	const char *what = NULL;
	char decoy[256];
	int num, dfd;

	fk->vmalloc_tp = false;
	fk->kprobe_events = true;
	put(fk->fd, "kprobe_events", "");
	assert_int_equal(ktrace_instance_new(fk->fd, 4244, &o, &ops, &ti, &what), 0);
	assert_int_equal(ktrace_instance_start(ti), 0);
	/* every try of the first teardown (40, 25 ms apart) finds it busy */
	fk->rmdir_busy = 40;
	assert_int_equal(ktrace_instance_teardown(ti), -EBUSY);
	assert_true(ti->created);
	assert_int_equal(fk->rmdirs, 40);
	assert_true(exists(fk->fd, "instances/kmodtop-4244/tracing_on"));
	assert_memory_equal(get(fk->fd, "instances/kmodtop-4244/tracing_on"), "0", 1);

	/* the caller closes its handle; the number goes to a directory with the same tree */
	num = fk->fd;
	snprintf(decoy, sizeof(decoy), "%s/decoy", fk->dir);
	assert_int_equal(mkdir(decoy, 0755), 0);
	assert_int_equal(close(fk->fd), 0);
	dfd = open(decoy, O_RDONLY | O_DIRECTORY);
	assert_int_equal(dfd, num);
	assert_int_equal(mkdirat(dfd, "instances", 0755), 0);
	assert_int_equal(mkdirat(dfd, "instances/kmodtop-4244", 0755), 0);

	/* the retry at exit: the file was let go */
	assert_int_equal(ktrace_instance_teardown(ti), 0);
	assert_false(ti->created);
	assert_int_equal(fk->rmdirs, 41);
	assert_null(ktrace_instance_free(ti));
	assert_true(exists(dfd, "instances/kmodtop-4244"));
	close(dfd);

	fk->fd = open(fk->dir, O_RDONLY | O_DIRECTORY);
	assert_true(fk->fd >= 0);
	assert_false(exists(fk->fd, "instances/kmodtop-4244"));
	assert_non_null(strstr(get(fk->fd, "kprobe_events"), "-:kmodtop_4244/alloc_vmap_area\n"));
	fake_free(fk);
}

static void test_cleanup_stale(void **state)
{
	struct fake *fk = fake_new();
	struct ktrace_fs_ops ops = fake_ops(fk);
	struct ktrace_stale st;
	char *kp;

	fk->alive = 222;
	assert_int_equal(fake_mkdir(fk->fd, "instances/kmodtop-111", fk), 0);	/* gone */
	assert_int_equal(fake_mkdir(fk->fd, "instances/kmodtop-222", fk), 0);	/* running */
	assert_int_equal(fake_mkdir(fk->fd, "instances/kmodtop-333", fk), 0);	/* = self */
	assert_int_equal(fake_mkdir(fk->fd, "instances/trace-cmd", fk), 0);	/* not ours */
	assert_int_equal(fake_mkdir(fk->fd, "instances/kmodtop-12x", fk), 0);
	assert_int_equal(fake_mkdir(fk->fd, "instances/kmodtop-0", fk), 0);
	put(fk->fd, "kprobe_events",
	    "p:kmt/alloc_vmap_area alloc_vmap_area size=$arg1:u64\n"
	    "p:kmodtop_111/alloc_vmap_area alloc_vmap_area size=$arg1:u64\n"
	    "p:kmodtop_222/alloc_vmap_area alloc_vmap_area size=$arg1:u64\n"
	    "r:kmodtop_444/ret_probe some_function\n"
	    "p:kmodtop_x/foo foo\n");
	fk->rmdirs = 0;
	assert_int_equal(ktrace_cleanup_stale(fk->fd, 333, &ops, &st), 0);
	assert_int_equal(st.instances, 2);
	assert_int_equal(st.probes, 2);
	assert_int_equal(st.kept, 2);
	assert_int_equal(st.failed, 0);
	assert_false(exists(fk->fd, "instances/kmodtop-111"));
	assert_true(exists(fk->fd, "instances/kmodtop-222"));
	assert_false(exists(fk->fd, "instances/kmodtop-333"));
	assert_true(exists(fk->fd, "instances/trace-cmd"));
	assert_true(exists(fk->fd, "instances/kmodtop-12x"));
	assert_true(exists(fk->fd, "instances/kmodtop-0"));
	kp = get(fk->fd, "kprobe_events");
	assert_non_null(strstr(kp, "\n-:kmodtop_111/alloc_vmap_area\n"));
	assert_non_null(strstr(kp, "\n-:kmodtop_444/ret_probe\n"));
	assert_null(strstr(kp, "-:kmodtop_222"));
	assert_null(strstr(kp, "-:kmt/"));
	assert_null(strstr(kp, "-:kmodtop_x"));

	/* a second run finds nothing more to do */
	put(fk->fd, "kprobe_events", "");
	assert_int_equal(ktrace_cleanup_stale(fk->fd, 333, &ops, &st), 0);
	assert_int_equal(st.instances + st.probes, 0);
	assert_int_equal(st.kept, 1);

	/* a stale instance that cannot be removed is counted, not fatal */
	fk->alive = 0;
	assert_int_equal(mkdirat(fk->fd, "instances/kmodtop-555", 0755), 0);
	ops.rmdir = NULL;	/* the real rmdir: refuses a non-empty directory */
	put(fk->fd, "instances/kmodtop-555/tracing_on", "1");
	assert_int_equal(ktrace_cleanup_stale(fk->fd, 333, &ops, &st), 0);
	assert_int_equal(st.failed, 2);	/* kmodtop-222 is gone now too */
	assert_int_equal(st.instances, 0);
	assert_int_equal(st.first_err, -ENOTEMPTY);
	assert_true(exists(fk->fd, "instances/kmodtop-555"));
	fake_free(fk);
}

static void test_default_pid_check(void **state)
{
	struct fake *fk = fake_new();
	struct ktrace_fs_ops ops = { .mkdir = fake_mkdir, .rmdir = fake_rmdir, .userdata = fk };
	struct ktrace_stale st;
	struct stat sb;
	int pipefd[2];
	pid_t dead, named;
	char c;

	if (stat("/proc/self/ns/pid", &sb) == 0 && sb.st_ino != 0xEFFFFFFCU) {
		/* in a child PID namespace every instance is kept: nothing to check here */
		fake_free(fk);
		skip();
	}
	dead = fork();
	assert_true(dead >= 0);
	if (dead == 0)
		_exit(0);
	assert_int_equal(waitpid(dead, NULL, 0), dead);
	assert_int_equal(pipe(pipefd), 0);
	named = fork();
	assert_true(named >= 0);
	if (named == 0) {
		prctl(PR_SET_NAME, "kmodtop");
		close(pipefd[0]);
		assert_int_equal(write(pipefd[1], "x", 1), 1);
		pause();
		_exit(0);
	}
	close(pipefd[1]);
	assert_int_equal(read(pipefd[0], &c, 1), 1);
	close(pipefd[0]);

	{
		char a[64], b[64], s[64];

		snprintf(a, sizeof(a), "instances/kmodtop-%d", (int)dead);
		snprintf(b, sizeof(b), "instances/kmodtop-%d", (int)named);
		/* a running program that is not kmodtop: the test itself */
		snprintf(s, sizeof(s), "instances/kmodtop-%d", (int)getppid());
		assert_int_equal(fake_mkdir(fk->fd, a, fk), 0);
		assert_int_equal(fake_mkdir(fk->fd, b, fk), 0);
		assert_int_equal(fake_mkdir(fk->fd, s, fk), 0);
		assert_int_equal(ktrace_cleanup_stale(fk->fd, getpid(), &ops, &st), 0);
		assert_false(exists(fk->fd, a));
		assert_true(exists(fk->fd, b));
		assert_false(exists(fk->fd, s));
		assert_int_equal(st.kept, 1);
	}
	kill(named, SIGKILL);
	waitpid(named, NULL, 0);
	fake_free(fk);
}

static void test_stats_parse(void **state)
{
	static const char real[] = "entries: 1464\noverrun: 12\ncommit overrun: 5\nbytes: 1\n"
				   "oldest event ts:     3.744966\nnow ts:    20.12\n"
				   "dropped events: 3\nread events: 0\n";
	uint64_t ov = 1, dr = 1;

	assert_int_equal(ktrace_stats_parse(real, strlen(real), &ov, &dr), 0);
	assert_int_equal(ov, 12);
	assert_int_equal(dr, 3);
	/* before "dropped events" existed */
	assert_int_equal(ktrace_stats_parse("entries: 1\noverrun: 4\n", 22, &ov, &dr), 0);
	assert_int_equal(ov, 4);
	assert_int_equal(dr, 0);
	assert_int_equal(ktrace_stats_parse("entries: 1\n", 11, &ov, &dr), -EINVAL);
	assert_int_equal(ktrace_stats_parse("overrun: x\n", 11, &ov, &dr), -EINVAL);
	assert_int_equal(ktrace_stats_parse("commit overrun: 3\n", 18, &ov, &dr), -EINVAL);
}

static void test_mountinfo(void **state)
{
	char l1[] = "36 25 0:12 / /sys/kernel/tracing rw,nosuid,nodev,noexec,relatime shared:15 - "
		    "tracefs tracefs rw";
	char l2[] = "40 36 0:7 / /sys/kernel/debug rw,relatime - debugfs debugfs rw";
	char l3[] = "41 36 0:13 / /mnt/with\\040space rw master:1 shared:2 - tracefs nodev rw";
	char l4[] = "42 36 0:13 / /x rw";
	char *mnt, *type;

	assert_int_equal(ktrace_mountinfo_parse_line(l1, &mnt, &type), 0);
	assert_string_equal(mnt, "/sys/kernel/tracing");
	assert_string_equal(type, "tracefs");
	assert_int_equal(ktrace_mountinfo_parse_line(l2, &mnt, &type), 0);
	assert_string_equal(type, "debugfs");
	assert_int_equal(ktrace_mountinfo_parse_line(l3, &mnt, &type), 0);
	assert_string_equal(mnt, "/mnt/with space");
	assert_string_equal(type, "tracefs");
	assert_int_equal(ktrace_mountinfo_parse_line(l4, &mnt, &type), -EINVAL);
}

static void test_mount_find(void **state)
{
	struct fake *fk = fake_new();
	static const char *const none[] = { "/nonexistent/kmodtop-test", NULL };
	struct ktrace_mount m;
	const char *why = NULL;
	char mi[1200], line[1100];
	FILE *f;

	snprintf(mi, sizeof(mi), "%s/mountinfo", fk->dir);
	f = fopen(mi, "w");
	assert_non_null(f);
	fputs("22 1 0:5 / /proc rw - proc proc rw\n", f);
	snprintf(line, sizeof(line), "36 25 0:12 / %s rw shared:15 - tracefs tracefs rw\n",
		 fk->dir);
	fputs(line, f);
	fclose(f);
	assert_int_equal(ktrace_mount_find(none, mi, false, &m, &why), 0);
	assert_string_equal(m.path, fk->dir);
	assert_false(m.mounted);
	assert_true(m.fd >= 0);
	assert_true(faccessat(m.fd, "instances", F_OK, 0) == 0);
	ktrace_mount_done(&m);
	assert_int_equal(m.fd, -1);
	assert_null(m.path);

	/* nothing anywhere, and not allowed to mount: says why */
	f = fopen(mi, "w");
	assert_non_null(f);
	fputs("22 1 0:5 / /proc rw - proc proc rw\n", f);
	fclose(f);
	why = NULL;
	assert_int_equal(ktrace_mount_find(none, mi, false, &m, &why), -ENOENT);
	assert_non_null(why);
	assert_int_equal(m.fd, -1);
	/* a candidate that is a plain directory is not tracefs */
	{
		const char *const plain[] = { fk->dir, NULL };

		assert_int_equal(ktrace_mount_find(plain, mi, false, &m, &why), -ENOENT);
	}
	fake_free(fk);
}

/* boot-setup and record --print-setup ask without wanting the reason */
static void test_mount_find_without_why(void **state)
{
	static const char *const none[] = { "/nonexistent/kmodtop-test", NULL };
	struct fake *fk = fake_new();
	struct ktrace_mount m;
	char mi[1200];
	FILE *f;

	snprintf(mi, sizeof(mi), "%s/mountinfo", fk->dir);
	f = fopen(mi, "w");
	assert_non_null(f);
	fputs("22 1 0:5 / /proc rw - proc proc rw\n", f);
	fclose(f);
	/* not mounted */
	assert_int_equal(ktrace_mount_find(none, mi, false, &m, NULL), -ENOENT);
	assert_int_equal(m.fd, -1);
	/* listed as a tracefs mount but not a directory: "cannot be opened" */
	f = fopen(mi, "w");
	assert_non_null(f);
	fprintf(f, "36 25 0:12 / %s rw - tracefs tracefs rw\n", mi);
	fclose(f);
	assert_int_equal(ktrace_mount_find(none, mi, false, &m, NULL), -ENOTDIR);
	assert_int_equal(m.fd, -1);
	fake_free(fk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_instance_tracepoint),
		cmocka_unit_test(test_instance_missing_events),
		cmocka_unit_test(test_instance_kprobe),
		cmocka_unit_test(test_instance_no_measurement),
		cmocka_unit_test(test_instance_replaces_own_leftover),
		cmocka_unit_test(test_instance_failures),
		cmocka_unit_test(test_instance_failures_after_mkdir),
		cmocka_unit_test(test_teardown_retry_after_caller_closed),
		cmocka_unit_test(test_cleanup_stale),
		cmocka_unit_test(test_default_pid_check),
		cmocka_unit_test(test_stats_parse),
		cmocka_unit_test(test_mountinfo),
		cmocka_unit_test(test_mount_find),
		cmocka_unit_test(test_mount_find_without_why),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
