/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "util/linereader.h"
#include "util/macro.h"
#include "order.h"
#include "read.h"
#include "text.h"
#include "tracedat.h"

struct in_order {
	struct ktrace_reorder *reorder;
	struct ktrace_stats stats;
};

static int sink_skip(void *ctx, const char *what, unsigned int lineno)
{
	struct in_order *o = ctx;

	return ktrace_reorder_skip_line(o->reorder, what, lineno);
}

static int sink_feed(void *ctx, char *line, size_t len, unsigned int lineno)
{
	struct in_order *o = ctx;

	return ktrace_reorder_feed(o->reorder, line, len, lineno);
}

static int sink_finish(void *ctx)
{
	struct in_order *o = ctx;

	return ktrace_reorder_finish(o->reorder, &o->stats);
}

static const struct linereader_sink in_order_sink = {
	.skip = sink_skip,
	.feed = sink_feed,
	.finish = sink_finish,
	.failed = "event handler failed",
};

/*
 * Text, through the reorder window (order.h): a trace slightly out of time order comes
 * out in order, whatever it is read from
 */
static int text_read_in_order(FILE *f, const char *path, const struct ktrace_parser_ops *ops,
			      void *userdata, struct ktrace_stats *ret_stats,
			      struct kt_err *reterr)
{
	struct ktrace_parser *p;
	struct in_order o = { 0 };
	int r;

	r = ktrace_parser_new(path, ops, userdata, &p);
	if (r < 0)
		return r;
	r = ktrace_reorder_new(p, &o.reorder);
	if (r < 0) {
		ktrace_parser_free(p);
		return r;
	}
	r = linereader_feed(f, path, LINEREADER_DEFAULT_MAX, &in_order_sink, &o, reterr);
	if (r >= 0 && ret_stats)
		*ret_stats = o.stats;
	ktrace_reorder_free(o.reorder);
	ktrace_parser_free(p);
	return r;
}

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
	return text_read_in_order(f, path, ops, userdata, ret_stats, reterr);
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
