/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "cost/estimate.h"
#include "cost/modfile.h"
#include "ledger/klog-findings.h"
#include "ledger/ledger.h"
#include "ledger/summary.h"
#include "ledger/proctab.h"
#include "sources/trace/text.h"
#include "util/macro.h"

static struct ledger *ledger_from_lines_ops(const char *const *lines,
					    const struct ledger_ops *lops)
{
	return ledger_from_lines_kernel(lines, lops, true);
}

/*
 * The 6.1 guest, live (trace_pipe): the header printed the name tracefs had cached
 * for the pid when the line was read, from before the rename, while the offline
 * "trace" file of the same run printed the name from after it. With task_rename in
 * the trace both must give the name the task had when it made the call.
 */
static const char *const stale_live[] = {
	"        workload-137     [000] .....     5.368172: sched_process_fork: comm=workload pid=137 child_comm=workload child_pid=138",
	"        workload-138     [001] ...1.     5.371716: task_rename: pid=138 oldcomm=workload newcomm=modprobe oom_score_adj=0",
	"        workload-138     [001] .....     5.373321: sched_process_exec: filename=/sbin/modprobe pid=138 old_pid=138",
	"        workload-138     [001] ...1.     5.449518: sys_finit_module(fd: 3, uargs: 55ab7aa4f4a0, flags: 0)",
	"        modprobe-138     [001] ...1.     5.528196: sys_finit_module -> 0xffffffffffffffed",
	/* the vfat autoload: a child of the workload renamed by prctl(), then mount() */
	"        workload-137     [000] .....     9.000000: sched_process_fork: comm=workload pid=137 child_comm=workload child_pid=150",
	"        workload-150     [000] ...1.     9.000100: task_rename: pid=150 oldcomm=workload newcomm=udisksd oom_score_adj=0",
	"        workload-150     [000] .....     9.000200: module_request: fs-vfat wait=1 call_site=get_fs_type",
	/* a pid reused after exit: the new process is not the renamed one */
	"        workload-137     [000] .....    10.000000: sched_process_fork: comm=workload pid=137 child_comm=workload child_pid=138",
	"        modprobe-138     [001] ...1.    10.000100: sys_finit_module(fd: 3, uargs: 55ab7aa4f4a0, flags: 0)",
	"        modprobe-138     [001] ...1.    10.000200: sys_finit_module -> 0xffffffffffffffef",
	/* a task that was never forked or renamed in the trace keeps the header's name */
	"   systemd-udevd-90      [000] ...1.    11.000000: sys_finit_module(fd: 5, uargs: 55ab7aa4f4a0, flags: 0)",
	"   systemd-udevd-90      [000] ...1.    11.000100: sys_finit_module -> 0xffffffffffffffef",
	NULL
};

static void test_names_from_rename(void **state)
{
	struct ledger *l = ledger_from_lines(stale_live);

	(void)state;
	assert_int_equal(l->n_attempts, 3);
	assert_string_equal(l->attempts[0].comm, "modprobe");
	assert_int_equal(l->attempts[0].pid, 138);
	assert_int_equal(l->n_requests, 1);
	assert_string_equal(l->requests[0].comm, "udisksd");
	assert_int_equal(l->requests[0].pid, 150);
	/* forked again as "workload": the header's stale "modprobe" is not taken either */
	assert_string_equal(l->attempts[1].comm, "workload");
	assert_string_equal(l->attempts[2].comm, "systemd-udevd");
	ledger_free(l);
}

/* Without task_rename a fork's name misses every prctl() after it: headers as before */
static const char *const no_rename[] = {
	"        workload-137     [000] .....     9.000000: sched_process_fork: comm=workload pid=137 child_comm=workload child_pid=150",
	"         udisksd-150     [000] .....     9.000200: module_request: fs-vfat wait=1 call_site=get_fs_type",
	"        workload-137     [000] .....     9.100000: sched_process_fork: comm=workload pid=137 child_comm=workload child_pid=151",
	"        modprobe-151     [001] ...1.     9.200000: sys_finit_module(fd: 3, uargs: 55ab7aa4f4a0, flags: 0)",
	"        modprobe-151     [001] ...1.     9.300000: sys_finit_module -> 0x0",
	NULL
};

static void test_names_without_rename(void **state)
{
	struct ledger *l = ledger_from_lines(no_rename);

	(void)state;
	assert_int_equal(l->n_requests, 1);
	assert_string_equal(l->requests[0].comm, "udisksd");
	assert_int_equal(l->n_attempts, 1);
	assert_string_equal(l->attempts[0].comm, "modprobe");
	ledger_free(l);
}

/*
 * 6.5+ idempotent finit_module(): a call that overlaps a call of the same file sleeps
 * until it completes and returns its result. Times in multiples of 1/512 s, so that
 * the distances between exits compare exactly.
 */
#define ENTER(pid, ts) "     udevd-" #pid "     [000] .....  " ts ": sys_finit_module(fd: 3, uargs: 5bfb41, flags: 0)"
#define EEXIST_AT(pid, ts) "     udevd-" #pid "     [000] .....  " ts ": sys_finit_module -> 0xffffffffffffffef"

static const char *const waiters[] = {
	/* three overlapping calls: the first reads, the others wait for it */
	ENTER(201, "1.000000000"), ENTER(202, "1.001953125"), ENTER(203, "1.003906250"),
	EEXIST_AT(201, "1.015625000"), EEXIST_AT(202, "1.017578125"), EEXIST_AT(203, "1.019531250"),
	/*
	 * one after the other, 0.4 ms apart, exits well within the waiter slack: the
	 * second started after the first returned, so it cannot have waited for it
	 */
	ENTER(301, "2.000000000"), EEXIST_AT(301, "2.000100000"),
	ENTER(302, "2.000500000"), EEXIST_AT(302, "2.000600000"),
	/* a long call and one inside it that returns just before it: found upwards */
	ENTER(401, "3.000000000"), ENTER(402, "3.062500000"),
	EEXIST_AT(402, "3.064453125"), EEXIST_AT(401, "3.066406250"),
	/* two readers (exits 1/64 s apart) and a waiter between them: the first wins */
	ENTER(501, "4.000000000"), ENTER(502, "4.001953125"), ENTER(503, "4.003906250"),
	EEXIST_AT(501, "4.031250000"), EEXIST_AT(503, "4.039062500"), EEXIST_AT(502, "4.046875000"),
	NULL
};

static void test_waiters(void **state)
{
	struct ledger *l = ledger_from_lines(waiters);

	(void)state;
	assert_int_equal(l->n_attempts, 10);
	/* 201 202 203 */
	assert_int_not_equal(l->attempts[0].outcome, OUTCOME_WAITER);
	assert_int_equal(l->attempts[1].outcome, OUTCOME_WAITER);
	assert_int_equal(l->attempts[1].leader, 0);
	/* 202 waited too, so 203 waited for 201 */
	assert_int_equal(l->attempts[2].outcome, OUTCOME_WAITER);
	assert_int_equal(l->attempts[2].leader, 0);
	/* 301 302 */
	assert_int_not_equal(l->attempts[3].outcome, OUTCOME_WAITER);
	assert_int_not_equal(l->attempts[4].outcome, OUTCOME_WAITER);
	/* 401 402 */
	assert_int_not_equal(l->attempts[5].outcome, OUTCOME_WAITER);
	assert_int_equal(l->attempts[6].outcome, OUTCOME_WAITER);
	assert_int_equal(l->attempts[6].leader, 5);
	/* 501 502 503: 503's exit is 1/128 s from both */
	assert_int_not_equal(l->attempts[7].outcome, OUTCOME_WAITER);
	assert_int_not_equal(l->attempts[8].outcome, OUTCOME_WAITER);
	assert_int_equal(l->attempts[9].outcome, OUTCOME_WAITER);
	assert_int_equal(l->attempts[9].leader, 7);
	ledger_free(l);
}

/*
 * The 6.12 guest's storm100-fresh-dummy under emulation (2 vCPUs): the leader loaded
 * dummy, its 99 waiters woke together and left one after another, the last 150 ms
 * after it, beyond the exit slack. With the kread probe they read nothing, so they
 * waited: each is its leader's waiter through the one that left just before it. Built
 * line by line: the leader (pid 100), then @n waiters leaving every @step seconds from
 * @first after it; then a non-reader that came in after the leader had left (pid 300).
 * @other: first, pid 400 loads another module meanwhile.
 */
static char **late_waiter_lines(int n, double first, double step, bool other)
{
	char **v = calloc((size_t)(3 * n + 16), sizeof(*v));
	size_t k = 0;

	assert_non_null(v);
	assert_true(asprintf(&v[k++], "            init-1       [000] .....    50.000000: "
			     "tracing_mark_write: kmodtop_probes kread name") > 0);
	if (other) {
		assert_true(asprintf(&v[k++], "         modprobe-400     [001] ...1.    55.300000: "
				     "sys_finit_module(fd: 3, uargs: 4a9df5, flags: 4)") > 0);
		assert_true(asprintf(&v[k++], "         modprobe-400     [001] .....    55.300100: "
				     "kmodtop_kread: (kernel_read_file+0x4/0x330) size=9000 id=2 "
				     "path=\"other.ko.xz\"") > 0);
	}
	assert_true(asprintf(&v[k++], "   systemd-udevd-100     [001] ...1.    55.399483: "
			     "sys_finit_module(fd: 6, uargs: 4a9df5, flags: 4)") > 0);
	assert_true(asprintf(&v[k++], "   systemd-udevd-100     [001] .....    55.400000: "
			     "kmodtop_kread: (kernel_read_file+0x4/0x330) size=3572 id=2 "
			     "path=\"dummy.ko.xz\"") > 0);
	for (int i = 0; i < n; i++)
		assert_true(asprintf(&v[k++], "   systemd-udevd-%d     [000] ...1.    %.6f: "
				     "sys_finit_module(fd: %d, uargs: 4a9df5, flags: 4)",
				     200 + i, 55.406 + i * 0.0001, 7 + i) > 0);
	assert_true(asprintf(&v[k++], "   systemd-udevd-100     [001] .....    55.840000: "
			     "module_load: dummy") > 0);
	assert_true(asprintf(&v[k++], "   systemd-udevd-100     [001] ...1.    55.846816: "
			     "sys_finit_module -> 0x0") > 0);
	if (other) {
		assert_true(asprintf(&v[k++], "         modprobe-400     [001] .....    55.849000: "
				     "module_load: other") > 0);
		assert_true(asprintf(&v[k++], "         modprobe-400     [001] ...1.    55.850000: "
				     "sys_finit_module -> 0x0") > 0);
	}
	for (int i = 0; i < n; i++)
		assert_true(asprintf(&v[k++], "   systemd-udevd-%d     [000] ...1.    %.6f: "
				     "sys_finit_module -> 0x0", 200 + i,
				     55.846816 + first + i * step) > 0);
	/* came in 10 ms after the leader left, read nothing, left among the waiters */
	assert_true(asprintf(&v[k++], "   systemd-udevd-300     [001] ...1.    55.856816: "
			     "sys_finit_module(fd: 90, uargs: 4a9df5, flags: 4)") > 0);
	assert_true(asprintf(&v[k++], "   systemd-udevd-300     [001] ...1.    %.6f: "
			     "sys_finit_module -> 0x0", 55.846816 + first + (n - 1) * step +
			     step / 2) > 0);
	return v;
}

/*
 * The same storm, another run: 366 entered 6 ms before 413 but was preempted before
 * idempotent(), where 413 got first; it read nothing and left after 413
 */
static const char *const waiter_entered_first[] = {
	"            init-1       [000] .....    10.000000: tracing_mark_write: kmodtop_probes kread name",
	"   systemd-udevd-366     [000] ...1.    17.065095: sys_finit_module(fd: 6, uargs: 4a9df5, flags: 4)",
	"   systemd-udevd-413     [001] ...1.    17.070868: sys_finit_module(fd: 53, uargs: 4a9df5, flags: 4)",
	"   systemd-udevd-413     [001] .....    17.071000: kmodtop_kread: (kernel_read_file+0x4/0x330) size=3572 id=2 path=\"dummy.ko.xz\"",
	"   systemd-udevd-413     [001] .....    17.130000: module_load: dummy",
	"   systemd-udevd-413     [001] ...1.    17.137327: sys_finit_module -> 0x0",
	"   systemd-udevd-366     [000] ...1.    17.155298: sys_finit_module -> 0x0",
	NULL
};

static void lines_free(char **v)
{
	for (size_t i = 0; v[i]; i++)
		free(v[i]);
	free(v);
}

static int feed_settle(void *userdata, const struct ktrace_event *ev)
{
	int r = ledger_feed_trace(userdata, ev);

	return r < 0 ? r : ledger_settle(userdata, ev->ts);
}

static void test_late_waiters(void **state)
{
	/* 6 waiters 30 ms apart: the last leaves 150 ms after the leader */
	char **v = late_waiter_lines(6, 0.0001, 0.030, false);
	struct ledger *l = ledger_from_lines((const char *const *)v);
	struct ktrace_parser_ops ops = { .event = feed_settle };
	struct ktrace_parser *p = NULL;
	struct ledger *s = NULL;

	(void)state;
	assert_int_equal(l->n_attempts, 8);
	assert_int_equal(l->attempts[0].name_source, NAME_MODULE_LOAD);
	for (size_t i = 1; i <= 6; i++) {
		assert_int_equal(l->attempts[i].outcome, OUTCOME_WAITER);
		assert_int_equal(l->attempts[i].leader, 0);
		assert_string_equal(l->attempts[i].module, "dummy");
		assert_int_equal(l->attempts[i].name_source, NAME_LEADER);
	}
	/* it came too late to wait for the leader: nobody's waiter, unnamed */
	assert_int_not_equal(l->attempts[7].outcome, OUTCOME_WAITER);
	assert_null(l->attempts[7].module);

	/* settled as the events come, the same */
	assert_int_equal(ledger_new(&(struct ledger_ops){ 0 }, true, &s), 0);
	assert_int_equal(ktrace_parser_new("test", &ops, s, &p), 0);
	for (size_t i = 0; v[i]; i++)
		assert_int_equal(ktrace_parser_feed(p, v[i], strlen(v[i])), 0);
	assert_int_equal(ktrace_parser_finish(p), 0);
	ktrace_parser_free(p);
	assert_int_equal(ledger_finish(s), 0);
	assert_int_equal(s->n_attempts, l->n_attempts);
	for (size_t i = 0; i < l->n_attempts; i++) {
		assert_int_equal(s->attempts[i].outcome, l->attempts[i].outcome);
		assert_int_equal(s->attempts[i].leader, l->attempts[i].leader);
		assert_int_equal(s->attempts[i].name_source, l->attempts[i].name_source);
	}
	ledger_free(s);
	ledger_free(l);
	lines_free(v);

	/*
	 * A gap wider than the slack between two waiters: the chain stops there, but the
	 * leader is the only call the second can have waited for
	 */
	v = late_waiter_lines(2, 0.0001, 0.150, false);
	l = ledger_from_lines((const char *const *)v);
	assert_int_equal(l->attempts[1].outcome, OUTCOME_WAITER);
	assert_int_equal(l->attempts[2].outcome, OUTCOME_WAITER);
	assert_int_equal(l->attempts[2].leader, 0);
	assert_string_equal(l->attempts[2].module, "dummy");
	ledger_free(l);
	lines_free(v);

	l = ledger_from_lines(waiter_entered_first);
	assert_int_equal(l->attempts[0].outcome, OUTCOME_WAITER);
	assert_int_equal(l->attempts[0].leader, 1);
	assert_string_equal(l->attempts[0].module, "dummy");
	ledger_free(l);

	/* with another module loaded meanwhile, it may have waited for either: no guess */
	v = late_waiter_lines(2, 0.0001, 0.150, true);
	l = ledger_from_lines((const char *const *)v);
	assert_int_equal(l->n_attempts, 5);
	assert_int_equal(l->attempts[0].pid, 400);
	assert_string_equal(l->attempts[0].module, "other");
	assert_int_equal(l->attempts[2].outcome, OUTCOME_WAITER);
	assert_int_equal(l->attempts[2].leader, 1);
	assert_int_not_equal(l->attempts[3].outcome, OUTCOME_WAITER);
	assert_null(l->attempts[3].module);
	ledger_free(l);
	lines_free(v);
}

/* "fs-NAME" resolves to NAME; ext4 was Live before the trace began */
static int resolve(void *userdata, const char *alias, char ***ret_names, size_t *ret_n)
{
	char **names = calloc(2, sizeof(*names));

	(void)userdata;
	assert_non_null(names);
	assert_int_equal(strncmp(alias, "fs-", 3), 0);
	names[0] = strdup(alias + 3);
	assert_non_null(names[0]);
	*ret_names = names;
	*ret_n = 1;
	return 0;
}

static void names_free(char **names)
{
	for (size_t i = 0; names && names[i]; i++)
		free(names[i]);
	free(names);
}

static bool live_at_start(void *userdata, const char *module)
{
	(void)userdata;
	return strcmp(module, "ext4") == 0;
}

#define REQUEST(alias, ts) "     mount-77     [000] .....  " ts ": module_request: " alias " wait=1 call_site=get_fs_type"
#define MODULE(ev, name, ts) "  modprobe-78     [001] .....  " ts ": " ev ": " name

static const char *const requests[] = {
	MODULE("module_load", "xfs ", "1.000000"),
	REQUEST("fs-xfs", "2.000000"),		/* loaded: needless */
	MODULE("module_free", "xfs", "3.000000"),
	REQUEST("fs-xfs", "4.000000"),		/* unloaded again: needed */
	REQUEST("fs-ext4", "5.000000"),		/* no events, Live at the start: needless */
	MODULE("module_free", "ext4", "6.000000"),
	REQUEST("fs-ext4", "7.000000"),		/* its first event a free: it was Live before */
	REQUEST("fs-vfat", "8.000000"),		/* never Live */
	MODULE("module_load", "xfs ", "9.000000"),
	REQUEST("fs-xfs", "9.500000"),		/* loaded a second time */
	NULL
};

/*
 * A request is needless when the module it resolves to was Live at its time: from the
 * module's own load and free events, else from proc/modules when it has none.
 */
static void test_needless(void **state)
{
	struct ledger_ops lops = { .resolve_alias = resolve, .names_free = names_free,
				   .live_at_start = live_at_start };
	const bool needless[] = { true, false, true, false, false, true };
	struct ledger *l = ledger_from_lines_ops(requests, &lops);

	(void)state;
	assert_int_equal(l->n_requests, 6);
	for (size_t i = 0; i < l->n_requests; i++) {
		assert_int_equal(l->requests[i].n_resolved, 1);
		if (l->requests[i].needless != needless[i])
			fail_msg("request %zu (%s at %g): needless %d, expected %d", i,
				 l->requests[i].alias, l->requests[i].ts, l->requests[i].needless,
				 needless[i]);
	}
	/* one copy of a name however often it comes */
	assert_ptr_equal(l->requests[0].alias, l->requests[1].alias);
	assert_ptr_equal(l->requests[0].call_site, l->requests[5].call_site);
	ledger_free(l);
}

/*
 * The 6.12 guest's storm100-live-dummy step (the setup's own tracefs trace), four of the
 * 100 calls: only 1666 got past idempotent_init_module() and read the file (its
 * kmodtop_kread), the kernel checked the name (kmodtop_name) and said EEXIST; the
 * others slept and returned its result. Then calls the probes say more of.
 */
static const char *const probed_612[] = {
	"            init-1       [000] .....     8.135614: tracing_mark_write: kmodtop_probes kread name",
	"   systemd-udevd-1666    [001] ...1.   110.559688: sys_finit_module(fd: 6, uargs: 4a8b95, flags: 4)",
	"   systemd-udevd-1666    [001] .....   110.559954: kmodtop_kread: (kernel_read_file+0x4/0x330) size=3572 id=2 path=\"dummy.ko.xz\"",
	"   systemd-udevd-1687    [000] ...1.   110.562406: sys_finit_module(fd: 7, uargs: 4a8b95, flags: 4)",
	"   systemd-udevd-1710    [000] ...1.   110.562496: sys_finit_module(fd: 8, uargs: 4a8b95, flags: 4)",
	"   systemd-udevd-1708    [000] ...1.   110.562525: sys_finit_module(fd: 9, uargs: 4a8b95, flags: 4)",
	"   systemd-udevd-1666    [000] .....   110.604859: kmodtop_name: (find_module_all+0x4/0xd0) name=\"dummy\"",
	"   systemd-udevd-1666    [000] .N.1.   110.610015: sys_finit_module -> 0xffffffffffffffef",
	"   systemd-udevd-1708    [000] ...1.   110.618727: sys_finit_module -> 0xffffffffffffffef",
	"   systemd-udevd-1710    [000] ...1.   110.618869: sys_finit_module -> 0xffffffffffffffef",
	"   systemd-udevd-1687    [000] ...1.   110.619229: sys_finit_module -> 0xffffffffffffffef",
	/* a file renamed: the kernel's name (its .modinfo) wins over the file's */
	"        modprobe-1800    [001] ...1.   120.000000: sys_finit_module(fd: 3, uargs: 4a8b95, flags: 4)",
	"        modprobe-1800    [001] .....   120.000100: kmodtop_kread: (kernel_read_file+0x4/0x330) size=4096 id=2 path=\"old-name.ko.xz\"",
	"        modprobe-1800    [001] .....   120.001000: kmodtop_name: (find_module_all+0x4/0xd0) name=\"new_name\"",
	"        modprobe-1800    [001] .....   120.001100: kmodtop_name: (find_module_all+0x4/0xd0) name=\"other\"",
	"        modprobe-1800    [001] ...1.   120.002000: sys_finit_module -> 0xffffffffffffffef",
	/* a file of random bytes: ENOEXEC, named by the file, the read sized by the probe */
	"            dkms-1801    [001] ...1.   121.000000: sys_finit_module(fd: 3, uargs: 4a8b95, flags: 0)",
	"            dkms-1801    [001] .....   121.000100: kmodtop_kread: (kernel_read_file+0x4/0x330) size=102400 id=2 path=\"garbage.ko\"",
	/* firmware read by the module's init: not the call's file */
	"            dkms-1801    [001] .....   121.000200: kmodtop_kread: (kernel_read_file+0x4/0x330) size=9 id=1 path=\"fw.bin\"",
	"            dkms-1801    [001] ...1.   121.001000: sys_finit_module -> 0xfffffffffffffff8",
	/* EEXIST without a read and with no call to have waited for: it paid nothing */
	"   systemd-udevd-1802    [000] ...1.   130.000000: sys_finit_module(fd: 6, uargs: 4a8b95, flags: 4)",
	"   systemd-udevd-1802    [000] ...1.   130.001000: sys_finit_module -> 0xffffffffffffffef",
	/* reads outside a load call are counted and left alone */
	"     kworker/0:1-30      [000] .....   131.000000: kmodtop_kread: (kernel_read_file+0x4/0x330) size=9 id=2 path=\"x.ko\"",
	/* live mode's /proc parents of a requester started before the trace */
	"         kmodtop-900     [001] .....   131.500000: tracing_mark_write: kmodtop_parent pid=1803 ppid=400 comm=systemd-udevd",
	"         kmodtop-900     [001] .....   131.500001: tracing_mark_write: kmodtop_parent pid=400 ppid=1 comm=systemd",
	"   systemd-udevd-1803    [000] ...1.   132.000000: sys_init_module(umod: 55f711c44940, len: 251af, uargs: 55f6eef0b4a0)",
	"   systemd-udevd-1803    [000] .....   132.000100: kmodtop_name: (find_module_all+0x4/0xd0) name=\"tun\"",
	"   systemd-udevd-1803    [000] ...1.   132.001000: sys_init_module -> 0x0",
	NULL
};

static void test_probes(void **state)
{
	struct ledger *l = ledger_from_lines(probed_612);
	const struct attempt *a = l->attempts;
	const char *comms[4];
	int pids[4];

	(void)state;
	assert_true(l->saw_kread_probe);
	assert_true(l->saw_name_probe);
	assert_int_equal(l->n_attempts, 8);
	/* the payer: named by the kernel, its read as the probe saw it */
	assert_string_equal(a[0].module, "dummy");
	assert_int_equal(a[0].name_source, NAME_PROBE);
	assert_true(a[0].probed && a[0].kread_seen);
	assert_int_equal(a[0].kread_size, 3572);
	assert_int_equal(a[0].outcome, OUTCOME_DUP_LIVE);
	/* the others read nothing: waiters of the payer, by evidence, not timing */
	for (int i = 1; i <= 3; i++) {
		assert_true(a[i].probed);
		assert_false(a[i].kread_seen);
		assert_int_equal(a[i].outcome, OUTCOME_WAITER);
		assert_int_equal(a[i].leader, 0);
		assert_false(a[i].waiter_by_timing);
		assert_string_equal(a[i].module, "dummy");
		assert_int_equal(a[i].name_source, NAME_LEADER);
	}
	/* the kernel's name, its first check's */
	assert_string_equal(a[4].module, "new_name");
	assert_int_equal(a[4].name_source, NAME_PROBE);
	assert_string_equal(a[4].file_name, "old_name");
	/* the file, kmod's way ("-" as "_", to the first dot); the first read only */
	assert_string_equal(a[5].module, "garbage");
	assert_int_equal(a[5].name_source, NAME_PROBE_FILE);
	assert_int_equal(a[5].kread_size, 102400);
	assert_int_equal(a[5].outcome, OUTCOME_BAD_FORMAT);
	assert_true(a[6].probed && !a[6].kread_seen);
	assert_null(a[6].module);
	assert_int_equal(a[6].outcome, OUTCOME_DUP_LIVE);
	/* init_module: named by the duplicate check */
	assert_string_equal(a[7].module, "tun");
	assert_int_equal(l->stats.probe_kreads, 5);
	assert_int_equal(l->stats.probe_names, 4);
	/* /proc's parents stand where no fork said one */
	assert_int_equal(proctab_chain(ledger_proctab(l), 1803, comms, pids, 4), 2);
	assert_int_equal(pids[0], 400);
	assert_string_equal(comms[0], "systemd-udevd");
	assert_int_equal(pids[1], 1);
	assert_string_equal(comms[1], "systemd");

	/* what the probes say is what the estimate charges */
	{
		struct cost_kernel k = { .page_size = 4096, .in_kernel_decompress = true };
		struct cost_module m = { .file_size = 3572, .compressed = true, .xz = true,
					 .decompressed_size = 20000, .xz_dict_size = 1 << 20 };
		uint64_t b[_VMAP_MAX];

		loadpath_from_release("6.12.118", &k.lp);
		assert_true(cost_estimate_attempt(&k, &a[0], &m, b));
		assert_int_equal(b[VMAP_KREAD], cost_vmalloc(&k, 3572));
		assert_true(b[VMAP_DECOMPRESS] > 0);
		/* no read seen while the probe traced: nothing allocated, waiter or not */
		assert_true(cost_estimate_attempt(&k, &a[6], &m, b));
		for (int c = 0; c < _VMAP_MAX; c++)
			assert_int_equal(b[c], 0);
		/* a file that is no module: complete with the probe's read alone */
		assert_true(cost_estimate_attempt(&k, &a[5], NULL, b));
		assert_int_equal(b[VMAP_KREAD], cost_vmalloc(&k, 102400));
	}
	ledger_free(l);
}

/* Before the probes trace (no marker, no event yet) nothing is probed */
static const char *const probes_late[] = {
	"   systemd-udevd-10     [000] ...1.     1.000000: sys_finit_module(fd: 6, uargs: 4a8b95, flags: 0)",
	"   systemd-udevd-10     [000] ...1.     1.001000: sys_finit_module -> 0xffffffffffffffef",
	"   systemd-udevd-11     [000] ...1.     2.000000: sys_finit_module(fd: 6, uargs: 4a8b95, flags: 0)",
	"   systemd-udevd-11     [000] .....     2.000100: kmodtop_kread: (kernel_read_file+0x4/0x330) size=17497 id=2 path=\"dummy.ko\"",
	"   systemd-udevd-11     [000] ...1.     2.001000: sys_finit_module -> 0xffffffffffffffef",
	NULL
};

static void test_probes_late(void **state)
{
	struct ledger *l = ledger_from_lines(probes_late);

	(void)state;
	assert_int_equal(l->n_attempts, 2);
	assert_false(l->attempts[0].probed);
	assert_null(l->attempts[0].module);
	/* the call open when the first kread came is probed: it made that read */
	assert_true(l->attempts[1].probed);
	assert_string_equal(l->attempts[1].module, "dummy");
	ledger_free(l);
}

/*
 * modprobe per CPU of tun on 6.12 (init_module of the buffer kmod decompressed): 1900
 * loads it; 1901 passed the early duplicate check before 1900 was listed, allocated
 * the layout, and lost at add_unformed_module(); 1902 stopped at the early check.
 */
static const char *const layout_612[] = {
	"            init-1       [000] .....     8.000000: tracing_mark_write: kmodtop_probes kread name layout",
	"        modprobe-1900    [000] ...1.    10.000000: sys_init_module(umod: 7f0000001000, len: 251af, uargs: 55f6eef0b4a0)",
	"        modprobe-1901    [001] ...1.    10.000010: sys_init_module(umod: 7f0000001000, len: 251af, uargs: 55f6eef0b4a0)",
	"        modprobe-1900    [000] .....    10.000100: kmodtop_name: (find_module_all+0x4/0xd0) name=\"tun\"",
	"        modprobe-1901    [001] .....    10.000110: kmodtop_name: (find_module_all+0x4/0xd0) name=\"tun\"",
	"        modprobe-1900    [000] .....    10.000200: kmodtop_layout: (execmem_alloc+0x4/0x1a0) size=61440",
	"        modprobe-1901    [001] .....    10.000210: kmodtop_layout: (execmem_alloc+0x4/0x1a0) size=61440",
	"        modprobe-1900    [000] .....    10.000300: kmodtop_layout: (execmem_alloc+0x4/0x1a0) size=8192",
	"        modprobe-1901    [001] .....    10.000310: kmodtop_layout: (execmem_alloc+0x4/0x1a0) size=8192",
	"        modprobe-1900    [000] .....    10.000400: kmodtop_name: (find_module_all+0x4/0xd0) name=\"tun\"",
	"        modprobe-1901    [001] .....    10.000410: kmodtop_name: (find_module_all+0x4/0xd0) name=\"tun\"",
	"        modprobe-1900    [000] .....    10.010000: module_load: tun",
	"        modprobe-1900    [000] ...1.    10.020000: sys_init_module -> 0x0",
	"        modprobe-1901    [001] ...1.    10.020100: sys_init_module -> 0xffffffffffffffef",
	"        modprobe-1902    [001] ...1.    10.030000: sys_init_module(umod: 7f0000001000, len: 251af, uargs: 55f6eef0b4a0)",
	"        modprobe-1902    [001] .....    10.030100: kmodtop_name: (find_module_all+0x4/0xd0) name=\"tun\"",
	"        modprobe-1902    [001] ...1.    10.030200: sys_init_module -> 0xffffffffffffffef",
	NULL
};

static void test_probe_layout(void **state)
{
	struct ledger *l = ledger_from_lines(layout_612);
	const struct attempt *a = l->attempts;
	struct cost_kernel k = { .page_size = 4096, .in_kernel_decompress = true };
	struct cost_module m = { .file_size = 40000, .compressed = true, .xz = true,
				 .decompressed_size = 0x251af, .has_layout = true };
	uint64_t b[_VMAP_MAX];

	(void)state;
	m.mem[0] = 61440;
	m.mem[1] = 8192;
	loadpath_from_release("6.12.118", &k.lp);
	k.lp.per_type_alloc = true;
	assert_true(l->saw_layout_probe);
	assert_int_equal(l->n_attempts, 3);
	assert_int_equal(l->stats.probe_layouts, 4);
	assert_true(a[1].layout_probed && a[1].layout_seen);
	assert_int_equal(a[1].layout_size, 61440 + 8192);
	assert_int_equal(a[1].outcome, OUTCOME_DUP_LIVE);
	assert_true(a[2].layout_probed);
	assert_false(a[2].layout_seen);
	/* the racer paid its copy and the layout; the other duplicate its copy alone */
	assert_true(cost_estimate_attempt(&k, &a[1], &m, b));
	assert_int_equal(b[VMAP_USER_COPY], cost_vmalloc(&k, 0x251af));
	assert_int_equal(b[VMAP_LAYOUT], cost_layout(&k, &m));
	assert_true(b[VMAP_LAYOUT] > 0);
	assert_true(cost_estimate_attempt(&k, &a[2], &m, b));
	assert_int_equal(b[VMAP_USER_COPY], cost_vmalloc(&k, 0x251af));
	assert_int_equal(b[VMAP_LAYOUT], 0);
	ledger_free(l);

	/* without the probe the 6.4+ model holds: a duplicate stops before the layout */
	{
		const char *lines[ARRAY_SIZE(layout_612)];
		size_t n = 0;

		for (size_t i = 0; layout_612[i]; i++)
			if (!strstr(layout_612[i], "kmodtop_layout") &&
			    !strstr(layout_612[i], "kmodtop_probes"))
				lines[n++] = layout_612[i];
		lines[n] = NULL;
		l = ledger_from_lines(lines);
		assert_false(l->saw_layout_probe);
		assert_false(l->attempts[1].layout_probed);
		assert_true(cost_estimate_attempt(&k, &l->attempts[1], &m, b));
		assert_int_equal(b[VMAP_LAYOUT], 0);
		ledger_free(l);
	}
}

/* record's bundle: a module loaded during the recording asks for an alias */
static const char *const raw_call_sites[] = {
	"        kmodtop-1       [000] .....     8.000000: module_request: algif_hash wait=1 call_site=0xffffffffc05455a9",
	"        kmodtop-1       [000] .....     8.100000: module_request: tun wait=1 call_site=ffffffffc0550401",
	"        kmodtop-1       [000] .....     8.200000: module_request: fs-xfs wait=1 call_site=__request_module+0x1c0/0x360",
	/* outside every module the table has: left as printed */
	"        kmodtop-1       [000] .....     8.300000: module_request: fs-ext4 wait=1 call_site=0xffffffffc0990000",
	NULL
};

static const char *function_at(void *userdata, uint64_t addr)
{
	(void)userdata;
	if (addr >= 0xffffffffc0545580ull && addr < 0xffffffffc0545700ull)
		return "alg_bind";
	if (addr >= 0xffffffffc0550400ull && addr < 0xffffffffc0550800ull)
		return "tun_get_user";
	return NULL;
}

static void test_raw_call_sites(void **state)
{
	struct ledger *l = ledger_from_lines_ops(raw_call_sites,
						 &(struct ledger_ops){ .function_at = function_at });

	(void)state;
	assert_int_equal(l->n_requests, 4);
	assert_string_equal(l->requests[0].call_site, "alg_bind");
	assert_string_equal(l->requests[1].call_site, "tun_get_user");
	assert_string_equal(l->requests[2].call_site, "__request_module");
	assert_string_equal(l->requests[3].call_site, "0xffffffffc0990000");
	ledger_free(l);
	/* without symbols: as printed */
	l = ledger_from_lines(raw_call_sites);
	assert_string_equal(l->requests[0].call_site, "0xffffffffc05455a9");
	ledger_free(l);
}

/*
 * stress-ng --module on 6.12: the instances load one file at once; the stressor's end
 * signal wakes the idempotent waiters, which return their preset -EINTR (the raw
 * exit value 0xfffffffffffffffc) while the leader is still loading.
 */
static const char *const interrupted_612[] = {
	"            init-1       [000] .....     8.000000: tracing_mark_write: kmodtop_probes kread name",
	"  stress-ng-module-501   [000] ...1.    10.000000: sys_finit_module(fd: 5, uargs: 4a8b95, flags: 4)",
	"  stress-ng-module-501   [000] .....    10.000100: kmodtop_kread: (kernel_read_file+0x4/0x330) size=5120 id=2 path=\"hello.ko.xz\"",
	"  stress-ng-module-502   [001] ...1.    10.010000: sys_finit_module(fd: 5, uargs: 4a8b95, flags: 4)",
	"  stress-ng-module-503   [002] ...1.    10.020000: sys_finit_module(fd: 5, uargs: 4a8b95, flags: 4)",
	"  stress-ng-module-501   [000] .....    10.030000: kmodtop_name: (find_module_all+0x4/0xd0) name=\"hello\"",
	"  stress-ng-module-502   [001] ...1.    10.050000: sys_finit_module -> 0xfffffffffffffffc",
	"  stress-ng-module-503   [002] ...1.    10.050100: sys_finit_module -> 0xfffffffffffffffc",
	"  stress-ng-module-501   [000] .....    10.150000: module_load: hello",
	"  stress-ng-module-501   [000] ...1.    10.200000: sys_finit_module -> 0x0",
	/* two loads of different modules at once: the waiter's leader is not told */
	"   systemd-udevd-601     [000] ...1.    20.000000: sys_finit_module(fd: 6, uargs: 4a8b95, flags: 4)",
	"   systemd-udevd-602     [001] ...1.    20.000010: sys_finit_module(fd: 6, uargs: 4a8b95, flags: 4)",
	"   systemd-udevd-601     [000] .....    20.000100: kmodtop_kread: (kernel_read_file+0x4/0x330) size=5120 id=2 path=\"aaa.ko.xz\"",
	"   systemd-udevd-602     [001] .....    20.000110: kmodtop_kread: (kernel_read_file+0x4/0x330) size=6144 id=2 path=\"bbb.ko.xz\"",
	"   systemd-udevd-603     [002] ...1.    20.001000: sys_finit_module(fd: 6, uargs: 4a8b95, flags: 4)",
	"   systemd-udevd-603     [002] ...1.    20.002000: sys_finit_module -> 0xfffffffffffffffc",
	"   systemd-udevd-601     [000] ...1.    20.100000: sys_finit_module -> 0x0",
	"   systemd-udevd-602     [001] ...1.    20.100010: sys_finit_module -> 0x0",
	/* interrupted while reading its own file: no waiter, and not an error of the module */
	"        modprobe-701     [000] ...1.    30.000000: sys_finit_module(fd: 3, uargs: 4a8b95, flags: 4)",
	"        modprobe-701     [000] .....    30.000100: kmodtop_kread: (kernel_read_file+0x4/0x330) size=7168 id=2 path=\"ccc.ko.xz\"",
	"        modprobe-701     [000] ...1.    30.001000: sys_finit_module -> 0xfffffffffffffffc",
	NULL
};

/* 6.1: no idempotent finit; a second load of a module still forming sleeps, ERESTARTSYS */
static const char *const interrupted_61[] = {
	"            init-1       [000] .....     8.000000: tracing_mark_write: kmodtop_probes kread name",
	"  stress-ng-module-801   [000] ...1.    10.000000: sys_finit_module(fd: 5, uargs: 4a8b95, flags: 0)",
	"  stress-ng-module-802   [001] ...1.    10.001000: sys_finit_module(fd: 5, uargs: 4a8b95, flags: 0)",
	"  stress-ng-module-801   [000] .....    10.000100: kmodtop_kread: (kernel_read_file+0x4/0x330) size=5120 id=2 path=\"hello.ko\"",
	"  stress-ng-module-802   [001] .....    10.001100: kmodtop_kread: (kernel_read_file+0x4/0x330) size=5120 id=2 path=\"hello.ko\"",
	"  stress-ng-module-801   [000] .....    10.002000: kmodtop_name: (find_module_all+0x4/0xd0) name=\"hello\"",
	"  stress-ng-module-802   [001] .....    10.003000: kmodtop_name: (find_module_all+0x4/0xd0) name=\"hello\"",
	"  stress-ng-module-802   [001] ...1.    10.050000: sys_finit_module -> 0xfffffffffffffe00",
	"  stress-ng-module-801   [000] .....    10.150000: module_load: hello",
	"  stress-ng-module-801   [000] ...1.    10.200000: sys_finit_module -> 0x0",
	/*
	 * the 6.1 guest: the waiter entered first, the call that formed the module after it
	 * (whoever reaches add_unformed_module() first loads)
	 */
	"  stress-ng-module-811   [001] ...1.    10.500000: sys_finit_module(fd: 5, uargs: 4a8b95, flags: 0)",
	"  stress-ng-module-810   [000] ...1.    10.510000: sys_finit_module(fd: 5, uargs: 4a8b95, flags: 0)",
	"  stress-ng-module-811   [001] .....    10.520000: kmodtop_name: (find_module_all+0x4/0xd0) name=\"hello\"",
	"  stress-ng-module-810   [000] .....    10.530000: kmodtop_name: (find_module_all+0x4/0xd0) name=\"hello\"",
	"  stress-ng-module-811   [001] ...1.    10.550000: sys_finit_module -> 0xfffffffffffffe00",
	"  stress-ng-module-810   [000] .....    10.650000: module_load: hello",
	"  stress-ng-module-810   [000] ...1.    10.700000: sys_finit_module -> 0x0",
	/* alone: interrupted, whatever it was doing */
	"  stress-ng-module-803   [001] ...1.    11.000000: sys_finit_module(fd: 5, uargs: 4a8b95, flags: 0)",
	"  stress-ng-module-803   [001] .....    11.000100: kmodtop_kread: (kernel_read_file+0x4/0x330) size=5120 id=2 path=\"hello.ko\"",
	"  stress-ng-module-803   [001] ...1.    11.001000: sys_finit_module -> 0xfffffffffffffe00",
	NULL
};

static void test_interrupted(void **state)
{
	struct ledger *l = ledger_from_lines(interrupted_612);
	const struct attempt *a = l->attempts;
	char buf[ATTEMPT_ERRNO_NAME_MAX];
	struct cost_kernel k = { .page_size = 4096 };
	uint64_t b[_VMAP_MAX];

	(void)state;
	assert_int_equal(l->n_attempts, 7);
	assert_int_equal(a[0].outcome, OUTCOME_LOADED);
	for (int i = 1; i <= 2; i++) {
		assert_int_equal(a[i].err, EINTR);
		assert_int_equal(a[i].outcome, OUTCOME_WAITER);
		assert_int_equal(a[i].leader, 0);
		assert_string_equal(a[i].module, "hello");
		assert_int_equal(a[i].name_source, NAME_LEADER);
		/* a waiter allocated nothing */
		loadpath_from_release("6.12.118", &k.lp);
		assert_true(cost_estimate_attempt(&k, &a[i], NULL, b));
		for (int c = 0; c < _VMAP_MAX; c++)
			assert_int_equal(b[c], 0);
	}
	/* 603: a waiter of aaa or of bbb, the trace cannot say which */
	assert_int_equal(a[5].outcome, OUTCOME_WAITER);
	assert_int_equal(a[5].leader, -1);
	assert_null(a[5].module);
	/* 701 read its file: its own load, interrupted */
	assert_int_equal(a[6].outcome, OUTCOME_INTERRUPTED);
	assert_string_equal(attempt_outcome_name(a[6].outcome), "interrupted");
	assert_string_equal(attempt_errno_name(a[6].err, buf), "EINTR");
	ledger_free(l);

	l = ledger_from_lines_kernel(interrupted_61, &(struct ledger_ops){ 0 }, false);
	a = l->attempts;
	assert_int_equal(l->n_attempts, 5);
	assert_int_equal(a[1].err, 512);
	assert_int_equal(a[1].outcome, OUTCOME_DUP_CONCURRENT);
	assert_string_equal(a[1].module, "hello");
	assert_int_equal(a[2].pid, 811);
	assert_int_equal(a[2].outcome, OUTCOME_DUP_CONCURRENT);
	assert_int_equal(a[3].outcome, OUTCOME_LOADED);
	assert_int_equal(a[4].outcome, OUTCOME_INTERRUPTED);
	assert_string_equal(attempt_errno_name(a[1].err, buf), "ERESTARTSYS");
	ledger_free(l);

	/* the kernel's own codes by name, a number nothing names by its number */
	assert_string_equal(attempt_errno_name(513, buf), "ERESTARTNOINTR");
	assert_string_equal(attempt_errno_name(514, buf), "ERESTARTNOHAND");
	assert_string_equal(attempt_errno_name(516, buf), "ERESTART_RESTARTBLOCK");
	assert_string_equal(attempt_errno_name(EEXIST, buf), "EEXIST");
	assert_string_equal(attempt_errno_name(4000, buf), "errno-4000");
	assert_true(attempt_errno_interrupted(516));
	assert_false(attempt_errno_interrupted(515));
}

/* An init_module() no module file fits is priced from its length and the layout probe */
static void test_init_without_file(void **state)
{
	struct ledger *l = ledger_from_lines(layout_612);
	const struct attempt *a = l->attempts;
	struct cost_kernel k = { .page_size = 4096, .in_kernel_decompress = true };
	uint64_t b[_VMAP_MAX];

	(void)state;
	loadpath_from_release("6.12.118", &k.lp);
	k.lp.per_type_alloc = true;
	assert_int_equal(a[1].layout_areas, 2);
	/* the racer: its copy and both areas, each whole pages and a guard page */
	assert_true(cost_estimate_attempt(&k, &a[1], NULL, b));
	assert_int_equal(b[VMAP_USER_COPY], cost_vmalloc(&k, 0x251af));
	assert_int_equal(b[VMAP_LAYOUT], cost_area(&k, 61440) + cost_area(&k, 8192));
	/* the duplicate the probe saw allocate no layout: its copy alone */
	assert_true(cost_estimate_attempt(&k, &a[2], NULL, b));
	assert_int_equal(b[VMAP_USER_COPY], cost_vmalloc(&k, 0x251af));
	assert_int_equal(b[VMAP_LAYOUT], 0);
	ledger_free(l);
}

/*
 * cost_layout_check(): section headers that lie (a 2 GiB sh_size, an sh_size of 2^64 - 1)
 * give a layout no module area holds, or one far from the size the module has loaded
 */
static void test_layout_check_lying_headers(void **state)
{
	struct cost_module m = { .has_layout = true };
	uint64_t b;

	(void)state;
	/* xfs, as laid out: believed, loaded or not */
	m.mem[MEMT_TEXT] = 802816;
	m.mem[MEMT_DATA] = 729088;
	m.mem[MEMT_RODATA] = 425984;
	m.mem[MEMT_RO_AFTER_INIT] = 12288;
	m.mem[MEMT_INIT_TEXT] = 4096;
	m.mem[MEMT_INIT_DATA] = 446464;
	m.core_size = 1970176;
	m.init_size = 454656;
	assert_int_equal(cost_layout_check(&m, 0, &b), 0);
	assert_int_equal(cost_layout_check(&m, 1970176, &b), 0);
	/* a page-rounding apart from what it loaded is no lie */
	assert_int_equal(cost_layout_check(&m, 1970176 + 3 * 4096, &b), 0);
	/* loaded at a quarter of the file's core, or less: the file is not what was loaded */
	assert_int_equal(cost_layout_check(&m, 1970176 / 8, &b), -ERANGE);
	assert_int_equal(b, 1970176);
	assert_int_equal(cost_layout_check(&m, 1970176ull * 8, &b), -ERANGE);
	/* small modules: page rounding is no lie either */
	{
		struct cost_module s = { .has_layout = true, .core_size = 4096 };

		s.mem[MEMT_TEXT] = 4096;
		assert_int_equal(cost_layout_check(&s, 5 * 4096, &b), 0);
	}
	/* rodata of 2.11 GiB: larger than the module area, whatever was loaded */
	m.mem[MEMT_RODATA] = 2268151808ull;
	m.core_size = 2270220288ull;
	assert_int_equal(cost_layout_check(&m, 0, &b), -EFBIG);
	assert_true(b > COST_MODULES_LEN);
	assert_int_equal(cost_layout_check(&m, 1970176, &b), -EFBIG);
	/* sums that would wrap */
	m.mem[MEMT_RODATA] = UINT64_MAX - 4095;
	m.core_size = UINT64_MAX - 4095;
	m.init_size = 454656;
	assert_int_equal(cost_layout_check(&m, 0, &b), -EFBIG);
	assert_int_equal(b, UINT64_MAX);
	/* the largest believable layout: the module area itself */
	memset(&m, 0, sizeof(m));
	m.has_layout = true;
	m.mem[MEMT_TEXT] = COST_MODULES_LEN;
	m.core_size = COST_MODULES_LEN;
	assert_int_equal(cost_layout_check(&m, 0, &b), 0);
	m.mem[MEMT_DATA] = 4096;
	assert_int_equal(cost_layout_check(&m, 0, &b), -EFBIG);
}


/*
 * struct ledger.klog_runs: a log repeating one line keeps one entry for the run, and
 * names the same calls and gives the same findings as one entry a line. The calls:
 * one inside the run's time (named by it), one after it (not), one in a second run.
 */
static const char *const runs_trace[] = {
	"        modprobe-200     [000] .....     9.700000: sys_finit_module(fd: 3, uargs: 5bfb41, flags: 0)",
	"        modprobe-200     [000] .....     9.700100: sys_finit_module -> 0xfffffffffffffffe",
	"        modprobe-201     [000] .....    10.200000: sys_finit_module(fd: 3, uargs: 5bfb41, flags: 0)",
	"        modprobe-201     [000] .....    10.200100: sys_finit_module -> 0xfffffffffffffffe",
	"        modprobe-202     [000] .....    12.000000: sys_finit_module(fd: 3, uargs: 5bfb41, flags: 0)",
	"        modprobe-202     [000] .....    12.000100: sys_finit_module -> 0xfffffffffffffffe",
	NULL
};

static struct ledger *runs_ledger(bool runs)
{
	struct ktrace_parser_ops ops = { .event = feed_ledger };
	struct ktrace_parser *p = NULL;
	struct ledger *l = NULL;

	assert_int_equal(ledger_new(&(struct ledger_ops){ 0 }, true, &l), 0);
	l->klog_runs = runs;
	for (int i = 0; i < 3000; i++) {
		/* 9.4 s to 10.0 s every 1 ms, then 11.9 s to 12.1 s every 0.1 ms */
		const char *mod = i < 600 ? "mod0" : "mod1";
		double ts = i < 600 ? 9.4 + i * 0.001 : 11.9 + (i - 600) * 0.0001;
		struct klog_finding f;
		char msg[64];

		snprintf(msg, sizeof(msg), "%s: Unknown symbol sym0 (err -2)", mod);
		assert_int_equal(klog_classify(msg, strlen(msg), &f), 1);
		assert_int_equal(ledger_add_klog(l, ts, f.module, f.module_len, f.kind, f.err, msg,
						 strlen(msg)), 0);
	}
	assert_int_equal(ktrace_parser_new("test", &ops, l, &p), 0);
	for (size_t i = 0; runs_trace[i]; i++)
		assert_int_equal(ktrace_parser_feed(p, runs_trace[i], strlen(runs_trace[i])), 0);
	assert_int_equal(ktrace_parser_finish(p), 0);
	ktrace_parser_free(p);
	assert_int_equal(ledger_finish(l), 0);
	return l;
}

static void test_klog_runs(void **state)
{
	struct ledger *each = runs_ledger(false), *runs = runs_ledger(true);
	struct ledger_summary *se = NULL, *sr = NULL;

	(void)state;
	assert_int_equal(each->n_klog, 3000);
	/* a run spans at most a second: the second run is one entry, the first one too */
	assert_true(runs->n_klog <= 4);
	assert_int_equal(runs->n_attempts, 3);
	assert_int_equal(each->n_attempts, 3);
	assert_string_equal(each->attempts[0].module, "mod0");
	assert_null(each->attempts[1].module);
	assert_string_equal(each->attempts[2].module, "mod1");
	for (size_t i = 0; i < 3; i++) {
		const char *a = each->attempts[i].module, *b = runs->attempts[i].module;

		assert_true((!a && !b) || (a && b && strcmp(a, b) == 0));
	}
	assert_int_equal(ledger_summarize(each, &se), 0);
	assert_int_equal(ledger_summarize(runs, &sr), 0);
	assert_int_equal(se->n_findings, sr->n_findings);
	for (size_t i = 0; i < se->n_findings; i++) {
		assert_int_equal(se->findings[i].kind, sr->findings[i].kind);
		assert_string_equal(se->findings[i].module, sr->findings[i].module);
		assert_int_equal(se->findings[i].count, sr->findings[i].count);
		assert_true(se->findings[i].first_ts == sr->findings[i].first_ts);
		assert_true(se->findings[i].last_ts == sr->findings[i].last_ts);
		assert_int_equal(se->findings[i].n_samples, sr->findings[i].n_samples);
		for (size_t k = 0; k < se->findings[i].n_samples; k++)
			assert_string_equal(se->findings[i].samples[k], sr->findings[i].samples[k]);
	}
	ledger_summary_free(se);
	ledger_summary_free(sr);
	ledger_free(each);
	ledger_free(runs);
}

/*
 * A fork storm whose processes exit costs no memory per process, while the attempts'
 * makers and their ancestors stay, exited or not, for the chains the end prints.
 */
static void test_proctab_exit(void **state)
{
	struct proctab *pt = NULL;
	const char *comms[4];
	int pids[4];

	(void)state;
	assert_int_equal(proctab_new(&pt), 0);
	for (int i = 0; i < 100000; i++) {
		assert_int_equal(proctab_fork(pt, 1, 1000 + i, "modprobe"), 0);
		proctab_exit(pt, 1000 + i);
	}
	assert_true(proctab_count(pt) <= 2);
	/* udevd forks a worker that forks modprobe; both exit before it loads */
	assert_int_equal(proctab_fork(pt, 1, 400, "systemd-udevd"), 0);
	assert_int_equal(proctab_fork(pt, 400, 401, "udev-worker"), 0);
	assert_int_equal(proctab_fork(pt, 401, 402, "modprobe"), 0);
	proctab_exit(pt, 401);
	assert_int_equal(proctab_pin(pt, 402), 0);
	proctab_exit(pt, 402);
	/* colliding pids around them come and go: a removal must not lose a neighbour */
	for (int i = 0; i < 5000; i++) {
		assert_int_equal(proctab_fork(pt, 400, 2 + 64 * i, "x"), 0);
		if (i % 3)
			proctab_exit(pt, 2 + 64 * i);
	}
	for (int i = 0; i < 5000; i++)
		assert_int_equal(proctab_parent(pt, 2 + 64 * i), i % 3 ? 0 : 400);
	assert_int_equal(proctab_chain(pt, 402, comms, pids, 4), 3);
	assert_int_equal(pids[0], 401);
	assert_string_equal(comms[0], "udev-worker");
	assert_int_equal(pids[1], 400);
	assert_int_equal(pids[2], 1);
	assert_string_equal(proctab_comm(pt, 402), "modprobe");
	/* a reused pid is a new process: its reference moves to the new parent */
	assert_int_equal(proctab_fork(pt, 1, 401, "bash"), 0);
	for (int i = 0; i < 5000; i += 3)
		proctab_exit(pt, 2 + 64 * i);
	proctab_exit(pt, 400);
	assert_null(proctab_comm(pt, 400));
	proctab_exit(pt, 401);
	assert_int_equal(proctab_parent(pt, 402), 401);
	assert_int_equal(proctab_parent(pt, 401), 1);
	proctab_free(pt);
}

/* The ledger drops exited processes, but not an attempt's maker and its parents */
static const char *const exits[] = {
	"         systemd-1       [000] .....   100.000000: sched_process_fork: comm=systemd pid=1 child_comm=systemd child_pid=500",
	"         systemd-500     [000] .....   100.000100: sched_process_fork: comm=systemd pid=500 child_comm=systemd child_pid=501",
	"         systemd-500     [000] .....   100.000200: sched_process_exit: comm=systemd pid=500 prio=120",
	"         systemd-1       [000] .....   100.000300: sched_process_fork: comm=systemd pid=1 child_comm=systemd child_pid=502",
	"         systemd-502     [000] .....   100.000400: sched_process_exit: comm=systemd pid=502 prio=120 group_dead=true",
	"        modprobe-501     [001] .....   100.001000: sys_finit_module(fd: 3, uargs: 5bfb41, flags: 0)",
	"        modprobe-501     [001] .....   100.002000: sys_finit_module -> 0xfffffffffffffffe",
	"        modprobe-501     [001] .....   100.003000: sched_process_exit: comm=modprobe pid=501 prio=120",
	NULL,
};

static void test_exits(void **state)
{
	struct ledger *l = ledger_from_lines(exits);
	const struct proctab *pt = ledger_proctab(l);
	const char *comms[4];
	int pids[4];

	(void)state;
	assert_int_equal(l->n_attempts, 1);
	assert_int_equal(l->stats.unknown_events, 0);
	assert_null(proctab_comm(pt, 502));
	assert_int_equal(proctab_chain(pt, 501, comms, pids, 4), 2);
	assert_int_equal(pids[0], 500);
	assert_int_equal(pids[1], 1);
	assert_int_equal(proctab_count(pt), 3);
	ledger_free(l);
}

/*
 * Forks without exits (what kmodtop record traces): the least recently seen processes
 * nothing looks up are forgotten, and counted; a pinned one keeps its ancestors.
 */
static void test_proctab_storm(void **state)
{
	struct proctab *pt = NULL;
	const char *comms[4];
	int pids[4];

	(void)state;
	assert_int_equal(proctab_new(&pt), 0);
	assert_int_equal(proctab_fork(pt, 1, 400, "systemd-udevd"), 0);
	assert_int_equal(proctab_fork(pt, 400, 401, "modprobe"), 0);
	assert_int_equal(proctab_pin(pt, 401), 0);
	for (int i = 0; i < 200000; i++)
		assert_int_equal(proctab_fork(pt, 1, 1000 + i, "worker"), 0);
	assert_true(proctab_count(pt) <= 40000);
	assert_true(proctab_forgotten(pt) >= 200000 - 40000);
	assert_int_equal(proctab_forgotten(pt) + proctab_count(pt), 200000 + 3);
	/* the most recent are kept, the first are not */
	assert_int_equal(proctab_parent(pt, 1000 + 199999), 1);
	assert_string_equal(proctab_comm(pt, 1000 + 199000), "worker");
	assert_int_equal(proctab_parent(pt, 1000), 0);
	assert_int_equal(proctab_chain(pt, 401, comms, pids, 4), 2);
	assert_int_equal(pids[0], 400);
	assert_string_equal(comms[0], "systemd-udevd");
	proctab_free(pt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_from_rename),
		cmocka_unit_test(test_layout_check_lying_headers),
		cmocka_unit_test(test_names_without_rename),
		cmocka_unit_test(test_waiters),
		cmocka_unit_test(test_late_waiters),
		cmocka_unit_test(test_needless),
		cmocka_unit_test(test_probes),
		cmocka_unit_test(test_probes_late),
		cmocka_unit_test(test_probe_layout),
		cmocka_unit_test(test_interrupted),
		cmocka_unit_test(test_raw_call_sites),
		cmocka_unit_test(test_init_without_file),
		cmocka_unit_test(test_klog_runs),
		cmocka_unit_test(test_proctab_exit),
		cmocka_unit_test(test_exits),
		cmocka_unit_test(test_proctab_storm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
