/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ledger/ledger.h"
#include "ledger/summary.h"
#include "cost/cost.h"
#include "sources/modsyms.h"
#include "sources/stream.h"
#include "util/io.h"
#include "util/root.h"
#include "session/saved-capture.h"
#include "session/system.h"

static const char *const trace_defaults[] = { "sys/kernel/tracing/trace",
					      "sys/kernel/debug/tracing/trace", NULL };
static const char *const log_defaults[] = { "capture/kmsg.raw", "capture/dmesg.txt", NULL };

/*
 * A file named on the command line, or the root's default when it has one; its text
 * decompressed when it is gzip, xz or zstd (-EPROTONOSUPPORT with *ret_what naming
 * another compression)
 */
static int open_input(struct saved_capture *c, const struct kt_system *sys, const char *arg,
		      const char *const *defaults, FILE **ret_f, char **ret_path,
		      const char **ret_what)
{
	const char *path = NULL;
	FILE *f = NULL;
	int r;

	if (arg) {
		r = input_fopen(arg, ROOT_STREAM_MAX, &f);
		if (r < 0)
			return r;
		path = arg;
	} else if (sys->live) {
		/* the live system's global trace buffer and log are not ours to read as history */
		return -ENOENT;
	} else {
		for (size_t i = 0; defaults[i] && !f; i++) {
			r = root_fopen(sys->root, defaults[i], &f);
			if (r == -ENOENT)
				continue;
			if (r < 0) {
				/* a default is optional: one that cannot be read is left out */
				if (!root_refusal_text(r) && c->n_skipped < 4)
					c->skipped[c->n_skipped++] =
						(struct saved_skipped){ defaults[i], r };
				f = NULL;
				continue;
			}
			path = defaults[i];
		}
		if (!f)
			return -ENOENT;
	}
	r = stream_fwrap(&f, ret_what);
	if (r >= 0) {
		*ret_path = strdup(path);
		r = *ret_path ? 0 : -ENOMEM;
	}
	if (r < 0) {
		fclose(f);
		return r;
	}
	*ret_f = f;
	return 0;
}

static void failed(struct saved_capture *c, const char *what, const char *path)
{
	c->failed_what = what;
	c->failed_path = path;
}

int saved_capture_read(const struct kt_system *sys, const struct proc_modules *pm,
		       const struct saved_inputs *in, struct saved_capture *ret)
{
	struct saved_capture *c = ret;
	struct collect_input ci = { 0 };
	FILE *tf = NULL, *lf = NULL;
	int r = 0;

	memset(c, 0, sizeof(*c));
	if (in->want_trace) {
		if (in->trace_fd >= 0)
			r = collect_open_spool(in->trace_fd, in->trace_fd_name, &tf, &c->trace_path);
		else
			r = open_input(c, sys, in->trace_arg, trace_defaults, &tf, &c->trace_path,
				       &c->failed_compression);
		if (r < 0 && (in->trace_arg || r != -ENOENT)) {
			failed(c, "trace", in->trace_arg ? in->trace_arg : trace_defaults[0]);
			return r;
		}
		if (r >= 0 && in->trace_fd < 0) {
			r = ktrace_order_fwrap(&tf, &c->order);
			if (r < 0) {
				failed(c, "trace", c->trace_path);
				fclose(tf);
				return r;
			}
			c->has_order = true;
		}
	}
	if (in->want_log) {
		if (in->log_fd >= 0)
			r = collect_open_spool(in->log_fd, in->log_fd_name, &lf, &c->log_path);
		else
			r = open_input(c, sys, in->log_arg, log_defaults, &lf, &c->log_path,
				       &c->failed_compression);
		if (r < 0 && (in->log_arg || r != -ENOENT)) {
			failed(c, "kernel log", in->log_arg ? in->log_arg : log_defaults[0]);
			if (tf)
				fclose(tf);
			return r;
		}
	}
	if (!tf && !lf)
		return 0;

	/* record's bundle: the call sites its trace left raw, inside modules */
	if (sys->root) {
		struct kt_err e = { 0 };

		r = modsyms_read(sys->root, &c->syms, &e);
		if (r == -ENOMEM)
			goto out;
	}
	c->lookup = (struct collect_lookup){ .idx = sys->idx, .pm = pm, .cat = sys->cat,
					     .k = &sys->k, .syms = c->syms };
	ci = (struct collect_input){ .trace = tf, .log = lf, .trace_path = c->trace_path,
				     .log_path = c->log_path, .klog_runs = true };
	r = collect_read(&c->lookup, sys->lp.idempotent_finit, &ci, &c->res);
	c->ledger = c->res.ledger;
	c->cost = c->res.cost;
	if (r >= 0) {
		r = ledger_summarize(c->ledger, &c->sum);
		c->summary_failed = r < 0;
	}
out:
	if (tf)
		fclose(tf);
	if (lf)
		fclose(lf);
	return r;
}

void saved_capture_done(struct saved_capture *c)
{
	ledger_summary_free(c->sum);
	cost_result_free(c->cost);
	ledger_free(c->ledger);
	modsyms_free(c->syms);
	free(c->trace_path);
	free(c->log_path);
	memset(c, 0, sizeof(*c));
}
