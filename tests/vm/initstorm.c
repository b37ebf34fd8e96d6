// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/vm/initstorm.c — a steady storm of failed module loads for bench/live-vm.sh:
 *
 *	kmt-initstorm CALLS_PER_SECOND SECONDS
 *
 * init_module() of a 16-byte image, shorter than an ELF header: the kernel returns
 * ENOEXEC before it copies or logs anything (copy_module_from_user()), so each call is
 * two trace events (sys_enter and sys_exit of init_module) and a failed load attempt
 * for kmodtop, at little cost to the kernel and none to its log. The calls come in
 * bursts every 10 ms, paced to the rate. Prints the calls made and the seconds they
 * took.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static char image[16] = "not an ELF";
	double rate, secs, t0, t;
	unsigned long calls = 0, other = 0;

	if (argc != 3 || (rate = atof(argv[1])) <= 0 || (secs = atof(argv[2])) <= 0) {
		fprintf(stderr, "usage: kmt-initstorm CALLS_PER_SECOND SECONDS\n");
		return 2;
	}
	t0 = now();
	while ((t = now() - t0) < secs) {
		unsigned long due = (unsigned long)(t * rate) + (unsigned long)(rate / 100);

		while (calls < due) {
			if (syscall(SYS_init_module, image, sizeof(image), "") == 0 || errno != ENOEXEC)
				other++;
			calls++;
		}
		usleep(10000);
	}
	printf("calls %lu seconds %.3f other_results %lu\n", calls, now() - t0, other);
	return 0;
}
