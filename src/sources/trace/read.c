/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "util/macro.h"
#include "read.h"
#include "text.h"
#include "tracedat.h"

int ktrace_events_read_file(FILE *f, const char *path,
			     const struct ktrace_parser_ops *ops, void *userdata,
			     struct ktrace_stats *ret_stats, struct kt_err *reterr)
{
	char head[TRACEDAT_MAGIC_LEN];
	int fd = fileno(f);

	/* trace-cmd's binary file: nothing has been read from @f yet, so pread sees its start */
	if (fd >= 0 && pread(fd, head, sizeof(head), 0) == (ssize_t)sizeof(head) &&
	    tracedat_sniff(head, sizeof(head)) && ftell(f) == 0)
		return tracedat_read_fd(fd, path, ops, userdata, ret_stats, reterr);
	return ktrace_text_read_file(f, path, ops, userdata, ret_stats, reterr);
}

int ktrace_events_read(const struct kt_root *root, const char *relpath,
			const struct ktrace_parser_ops *ops, void *userdata,
			struct ktrace_stats *ret_stats, struct kt_err *reterr)
{
	_cleanup_fclose_ FILE *f = NULL;
	int r;

	if (!relpath)
		relpath = TRACEFS_TRACE_PATH;
	r = root_fopen(root, relpath, &f);
	if (r < 0) {
		kt_err_set(reterr, relpath, 0, "cannot open");
		return r;
	}
	return ktrace_events_read_file(f, relpath, ops, userdata, ret_stats, reterr);
}
