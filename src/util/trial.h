/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * A trial run in a child process, for code kmodtop cannot trust not to crash or hang on
 * hostile input (a library's parser): the child runs @fn(@arg) with the crash signals'
 * default actions and an alarm of @seconds, and exits. 0 when the child ended by
 * itself (whatever @fn returned: its error is met again when the caller runs it for
 * real), -ECHILD when a signal killed it (*ret_signal: which one; SIGALRM when it took
 * too long), or -errno when it could not be run.
 */
int trial_in_child(int (*fn)(void *arg), void *arg, unsigned int seconds, int *ret_signal);
