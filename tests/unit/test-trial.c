/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trial_in_child() (util/trial.c): what kmodtop puts between a hostile file and a
 * library that crashes or hangs on it. A crash or a hang in the child is told, and
 * the caller lives on with its own signal handlers as they were.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/trial.h"

static int returns(void *arg)
{
	return *(int *)arg;
}

static int segfaults(void *arg)
{
	(void)arg;
	raise(SIGSEGV);
	return 0;
}

static int aborts(void *arg)
{
	(void)arg;
	abort();
}

static int hangs(void *arg)
{
	volatile int *stop = arg;

	while (!*stop)
		;
	return 0;
}

static void on_usr1(int sig)
{
	(void)sig;
}

static void test_trial_ends(void **state)
{
	int ok = 0, fails = -EINVAL, sig = -1;

	(void)state;
	/* an error the trial meets is the caller's to meet again: not a crash */
	assert_int_equal(trial_in_child(returns, &ok, 10, &sig), 0);
	assert_int_equal(sig, 0);
	assert_int_equal(trial_in_child(returns, &fails, 10, &sig), 0);
	assert_int_equal(sig, 0);
}

static void test_trial_crashes(void **state)
{
	struct sigaction mine = { .sa_handler = on_usr1 }, now;
	int sig = 0;

	(void)state;
	/* the caller's handler for a crash signal stays its own */
	sigemptyset(&mine.sa_mask);
	assert_int_equal(sigaction(SIGSEGV, &mine, NULL), 0);
	assert_int_equal(trial_in_child(segfaults, NULL, 10, &sig), -ECHILD);
	assert_int_equal(sig, SIGSEGV);
	assert_int_equal(sigaction(SIGSEGV, NULL, &now), 0);
	assert_ptr_equal(now.sa_handler, on_usr1);
	mine.sa_handler = SIG_DFL;
	assert_int_equal(sigaction(SIGSEGV, &mine, NULL), 0);

	assert_int_equal(trial_in_child(aborts, NULL, 10, &sig), -ECHILD);
	assert_int_equal(sig, SIGABRT);
}

static void test_trial_hangs(void **state)
{
	volatile int stop = 0;
	int sig = 0;

	(void)state;
	assert_int_equal(trial_in_child(hangs, (void *)&stop, 1, &sig), -ECHILD);
	assert_int_equal(sig, SIGALRM);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trial_ends),
		cmocka_unit_test(test_trial_crashes),
		cmocka_unit_test(test_trial_hangs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
