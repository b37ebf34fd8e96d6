/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sources/trace/tracedat.h"
#include "fuzz.h"

/*
 * trace-cmd's trace.dat through libtracecmd and the text parser behind it
 * (sources/trace/tracedat.c): whatever the file holds, a trace or an error with its reason.
 * libtracecmd and libtraceevent are Debian's, not instrumented: this finds what goes
 * wrong in kmodtop's use of them (and their crashes), not their own paths.
 */

/*
 * libtracecmd 1.3 leaks the tep_handle tracecmd_alloc_fd() made when it refuses a file
 * (Debian 12's 1.3.1): theirs, not ours, and bounded by one a file
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:tracecmd_alloc_fd\n";
}
static int on_event(void *userdata, const struct ktrace_event *ev)
{
	(*(uint64_t *)userdata)++;
	CHECK(ev->kind < KTRACE_EV__MAX);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ktrace_parser_ops ops = { .event = on_event };
	struct ktrace_stats st;
	struct kt_err e = { 0 };
	uint64_t n = 0;
	int fd, r;

	fd = memfd_create("fuzz-tracedat", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	r = tracedat_read_fd(fd, "trace.dat", &ops, &n, &st, &e);
	CHECK(r == 0 || r < 0);
	if (r < 0)
		CHECK(e.what);
	else
		CHECK(st.events == n);
	close(fd);
	return 0;
}
