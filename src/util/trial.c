/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trial.h"

int trial_in_child(int (*fn)(void *arg), void *arg, unsigned int seconds, int *ret_signal)
{
	/* a sanitizer's or libFuzzer's handlers would turn a crash into an exit */
	static const int crashes[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGALRM };
	int status;
	pid_t pid;

	*ret_signal = 0;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		for (size_t i = 0; i < sizeof(crashes) / sizeof(crashes[0]); i++)
			signal(crashes[i], SIG_DFL);
		alarm(seconds);
		_exit(fn(arg) < 0 ? 2 : 0);
	}
	while (waitpid(pid, &status, 0) < 0) {
		/* reaped by someone else (SIGCHLD ignored): how it ended is lost, not a crash */
		if (errno == ECHILD)
			return 0;
		if (errno != EINTR)
			return -errno;
	}
	if (WIFSIGNALED(status)) {
		*ret_signal = WTERMSIG(status);
		return -ECHILD;
	}
	return 0;
}
