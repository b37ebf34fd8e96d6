/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "ledger/ledger.h"
#include "sources/tracefs-events.h"

static int feed(void *userdata, const struct tracefs_event *ev)
{
	return ledger_feed_trace(userdata, ev);
}

static struct ledger *ledger_from_lines_ops(const char *const *lines,
					    const struct ledger_ops *lops)
{
	struct tracefs_parser_ops ops = { .event = feed };
	struct tracefs_parser *p = NULL;
	struct ledger *l = NULL;

	assert_int_equal(ledger_new(lops, true, &l), 0);
	assert_int_equal(tracefs_parser_new("test", &ops, l, &p), 0);
	for (size_t i = 0; lines[i]; i++)
		assert_int_equal(tracefs_parser_feed(p, lines[i], strlen(lines[i])), 0);
	assert_int_equal(tracefs_parser_finish(p), 0);
	tracefs_parser_free(p);
	assert_int_equal(ledger_finish(l), 0);
	return l;
}

static struct ledger *ledger_from_lines(const char *const *lines)
{
	return ledger_from_lines_ops(lines, &(struct ledger_ops){ 0 });
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_from_rename),
		cmocka_unit_test(test_names_without_rename),
		cmocka_unit_test(test_waiters),
		cmocka_unit_test(test_needless),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
