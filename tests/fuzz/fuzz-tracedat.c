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
 * (Debian 12's 1.3.1): theirs, not ours, and bounded by one a file.
 * It also leaks the clock name its extract_trace_clock() takes with sscanf("%ms") when
 * a version 6 file names the clock twice (the TRACECLOCK option and the flyrecord's),
 * as every file trace-cmd writes in that version does: a few bytes a handle, bounded by
 * the handles opened on a file. Its frames have no frame pointers, so the stack ends at
 * sscanf; kmodtop's own sscanf() calls never use %m and allocate nothing.
 * And it leaks on its own error paths inside a file it has opened, e.g. the page table
 * init_cpu() made when a CPU's first page does not decode. Debian builds it without
 * frame pointers, so LeakSanitizer's stack stops at its first frame, with no name to
 * tell those paths apart: the module is named. What one leaks is bounded by the file
 * (tracedat.c refuses sizes that do not fit in it before libtracecmd sees them, and
 * its tests check that); kmodtop's own allocations have kmodtop frames on top.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:tracecmd_alloc_fd\n"
	       "leak:__isoc99_vsscanf\n"
	       "leak:libtracecmd.so\n";
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
