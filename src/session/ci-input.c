/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cost/catalog.h"
#include "cost/cost.h"
#include "cost/loadpath.h"
#include "ledger/klog-findings.h"
#include "ledger/ledger.h"
#include "sources/kmsg.h"
#include "sources/modindex.h"
#include "sources/proc-modules.h"
#include "sources/stream.h"
#include "sources/trace/text.h"
#include "sources/trace/tracedat.h"
#include "util/io.h"
#include "util/macro.h"
#include "util/root.h"
#include "session/collect.h"
#include "session/system.h"
#include "session/ci-input.h"
#include "session/ci-input-private.h"

void ci_input_note_add(struct ci_input *x, enum ci_input_note_kind kind, uint64_t line,
		       uint64_t count, const char *what)
{
	struct ci_input_note n = { kind, x->path, line, count, what };

	if (x->note)
		x->note(x->userdata, &n);
}

int ci_input_fail(struct ci_input *x, int r, enum ci_input_fault fault, const char *path,
		  uint64_t line, const char *what)
{
	if (x->err)
		*x->err = (struct ci_input_err){ fault, path, line, what };
	return r;
}

/* --- module trees for estimates: the kernel under study, one per release -------------- */

static void tree_close(struct ci_tree *t)
{
	free(t->release);
	if (t->ok)
		kt_system_close(&t->sys);
	memset(t, 0, sizeof(*t));
}

static void tree_open(struct ci_input *x, struct ci_tree *t, const char *release)
{
	struct kt_system_opts o = { .root = x->root_path, .release = release,
				    .moduledir = x->moduledir, .no_root = !x->root_path };

	if (kt_system_open(&o, &t->sys) < 0)
		return;
	kt_system_open_module_tree(&t->sys, true);
	if (!t->sys.cat) {
		kt_system_close(&t->sys);
		return;
	}
	collect_note_cache(t->sys.cat);
	collect_catalog_warnings(t->sys.cat);
	t->ok = true;
}

static struct ci_tree *tree_get(struct ci_input *x, const char *release)
{
	struct ci_tree *t;

	if (!release)
		release = x->release;
	for (size_t i = 0; i < x->n_trees; i++) {
		t = &x->trees[i];
		if ((!release && !t->release) ||
		    (release && t->release && strcmp(release, t->release) == 0))
			return t;
	}
	if (x->n_trees == MAX_TREES) {
		/* a log of many releases: keep the first few open, forget the oldest other */
		tree_close(&x->trees[MAX_TREES - 1]);
		x->n_trees--;
	}
	t = &x->trees[x->n_trees++];
	memset(t, 0, sizeof(*t));
	t->release = release ? strdup(release) : NULL;
	tree_open(x, t, release);
	return t;
}

static int cost_kernel_of(void *userdata, const char *release, struct cost_kernel *ret)
{
	struct ci_tree *t = tree_get(userdata, release);

	if (!t->ok)
		return -ENOENT;
	*ret = t->sys.k;
	return 0;
}

static const struct cost_module *cost_module_of(void *userdata, const char *release,
						const char *name)
{
	struct ci_tree *t = tree_get(userdata, release);
	char norm[64];

	if (!t->ok)
		return NULL;
	snprintf(norm, sizeof(norm), "%s", name);
	catalog_normalize(norm);
	return catalog_cost_module(t->sys.cat, catalog_find(t->sys.cat, norm));
}

/* --- inputs -------------------------------------------------------------------------- */

static const char *const format_names[] = {
	[CI_INPUT_DMESG] = "kernel-log-text",
	[CI_INPUT_KMSG] = "kmsg",
	[CI_INPUT_JOURNAL_JSON] = "journal-json",
	[CI_INPUT_TRACE] = "trace",
	[CI_INPUT_TRACE_DAT] = "trace-dat",
};

/* The rendering and what told it, where the format says all (a kernel log text's is
 * found as it is read: ci_input_read_dmesg()) */
static const char *const format_details[][2] = {
	[CI_INPUT_DMESG] = { "text", "no kernel log line found" },
	[CI_INPUT_KMSG] = { "kmsg", "/dev/kmsg records (\"6,339,5140900,-;msg\")" },
	[CI_INPUT_JOURNAL_JSON] = { "journal-json", "one JSON object a line (journalctl -o json)" },
	[CI_INPUT_TRACE] = { "trace", "tracefs or trace-cmd report text" },
	[CI_INPUT_TRACE_DAT] = { "trace-dat", "trace-cmd's trace.dat magic" },
};

static void set_format(struct ci_input *x, enum ci_input_format fmt, const char *compression)
{
	ci_set_input_format(x->ci, format_names[fmt], compression);
	ci_set_input_format_detail(x->ci, format_details[fmt][0], format_details[fmt][1]);
}

void ci_input_bad_line(struct ci_input *x, uint64_t line, const char *what)
{
	x->st.skipped++;
	if (++x->warned <= BAD_LINE_WARNINGS)
		ci_input_note_add(x, CI_NOTE_SKIPPED_LINE, line, 0, what);
	else if (x->warned == BAD_LINE_WARNINGS + 1)
		ci_input_note_add(x, CI_NOTE_MORE_SKIPPED, line, 0, NULL);
}

enum ci_input_format ci_input_sniff(const char *line, size_t len)
{
	struct ktrace_line tl;
	struct klog_rec rec;
	const char *what, *p = line;
	char buf[512];
	size_t n = len < sizeof(buf) - 1 ? len : sizeof(buf) - 1;

	while (p < line + len && (*p == ' ' || *p == '\t'))
		p++;
	if (p < line + len && *p == '{')
		return CI_INPUT_JOURNAL_JSON;
	if (tracedat_sniff(line, len))
		return CI_INPUT_TRACE_DAT;
	if (has_prefix(line, len, "# tracer:") || has_prefix(line, len, "cpus=") ||
	    has_prefix(line, len, "version = ") || has_prefix(line, len, "CPU ") ||
	    has_prefix(line, len, "# entries-in-buffer"))
		return CI_INPUT_TRACE;
	if (ktrace_parse_line(line, len, &tl, &what) == 0 && tl.kind == KTRACE_LINE_EVENT &&
	    tl.ev.kind != KTRACE_EV_UNKNOWN)
		return CI_INPUT_TRACE;
	/* kmsg_parse_line() decodes in place: try a copy */
	memcpy(buf, line, n);
	buf[n] = '\0';
	if (kmsg_parse_line(buf, n, &rec, &what) == 0)
		return CI_INPUT_KMSG;
	return CI_INPUT_DMESG;
}

/* A stream's failure @r as struct ci_input_err; returns @r */
int ci_input_stream_error(struct ci_input *x, int r)
{
	if (r == -EBADMSG)
		return ci_input_fail(x, r, CI_FAULT_CORRUPT, x->path, stream_lineno(x->s) + 1,
			    stream_compression_name(stream_compression(x->s)));
	if (r == -ENOMEM)
		return ci_input_fail(x, r, CI_FAULT_NONE, x->path, 0, NULL);
	if (r == -EAGAIN)
		return ci_input_fail(x, r, CI_FAULT_THREAD, x->path, 0, strerror(-r));
	return ci_input_fail(x, r, CI_FAULT_FILE, x->path, 0, strerror(-r));
}

/* Reads the next line, fully or filtered: 1 line, 0 end, <0 fatal (x->err says why). */
int ci_input_next_line(struct ci_input *x, bool filtered, char **line, size_t *len)
{
	for (;;) {
		int r;

		if (x->max_bytes && stream_bytes(x->s) > x->max_bytes)
			return 0;
		r = filtered ? stream_next_match(x->s, x->needles, line, len)
			     : stream_next_line(x->s, line, len);

		if (r == -E2BIG) {
			ci_input_bad_line(x, stream_lineno(x->s), "line too long");
			continue;
		}
		if (r < 0)
			ci_input_stream_error(x, r);
		return r;
	}
}

static int on_trace_event(void *userdata, const struct ktrace_event *ev)
{
	struct ci_input *x = userdata;

	x->st.records++;
	/* the ledger pairs events in time order: a trace that goes back is counted */
	if (ev->kind != KTRACE_EV_LOST) {
		if (ev->ts_ns < x->trace_last_ns && !x->trace_back_steps++)
			x->trace_back_line = x->dat ? x->st.records : stream_lineno(x->s);
		x->trace_last_ns = ev->ts_ns;
	}
	return 0;
}

static void on_trace_bad_line(void *userdata, const struct kt_err *e)
{
	struct ci_input *x = userdata;

	ci_input_bad_line(x, e->line ? e->line : x->s ? stream_lineno(x->s) : x->st.records,
		 e->what ? e->what : "malformed");
}

/*
 * Each attempt as it settles, to the findings, then forgotten by the ledger
 * (collect_read_each()).
 */
static int on_settled_attempt(void *userdata, const struct ledger *l, const struct attempt *a,
			      const struct attempt_cost *cost)
{
	struct ci_input *x = userdata;

	return ci_trace_attempt(x->ci, l, a, cost);
}

/*
 * The trace (@trace, or the file at x->path) and the kernel log of its boot (x->boot_log,
 * may be NULL) as report reads them, into one ledger priced as report prices it: the
 * log's records name and explain the trace's attempts instead of being counted again.
 * The attempts go to the findings as they settle; *ret keeps what is left at the end
 * (the requests), for ci_trace_end().
 */
static int read_trace_as_report(struct ci_input *x, FILE *trace, struct collect_lookup *lk,
				bool idempotent, struct collect_result *ret)
{
	struct collect_each each = { .on_attempt = on_settled_attempt, .userdata = x };
	_cleanup_fclose_ FILE *own = NULL, *log = NULL;
	struct collect_input in = { .trace_path = x->path, .log_path = x->boot_log,
				    .klog_runs = true };
	int r;

	if (!trace) {
		r = input_fopen(x->path, ROOT_STREAM_MAX, &own);
		if (r < 0)
			return ci_input_fail(x, r, CI_FAULT_FILE, x->path, 0, strerror(-r));
		trace = own;
	}
	if (x->boot_log) {
		r = input_fopen(x->boot_log, ROOT_STREAM_MAX, &log);
		if (r < 0)
			return ci_input_fail(x, r, CI_FAULT_FILE, x->boot_log, 0, strerror(-r));
	}
	in.trace = trace;
	in.log = log;
	/* collect_read() says what went wrong itself */
	ci_input_fail(x, 0, CI_FAULT_NONE, x->path, 0, NULL);
	r = ci_trace_begin(x->ci, lk->k != NULL);
	if (r < 0)
		return r;
	return collect_read_each(lk, idempotent, &in, &each, ret);
}

/*
 * The copy keeps the stream's line numbers, which the evidence cites: the lines the
 * stream skipped (blank ones before the first, too long ones) are empty lines in it,
 * which the trace parser passes over.
 */
static int copy_line(struct ci_input *x, const char *line, size_t len)
{
	for (; x->copied + 1 < stream_lineno(x->s); x->copied++)
		if (putc('\n', x->copy) == EOF)
			return -EIO;
	x->copied++;
	if (fwrite(line, 1, len, x->copy) != len || putc('\n', x->copy) == EOF)
		return -EIO;
	return 0;
}

/*
 * A trace.dat from standard input (a file: it was told by its first bytes), as a stream
 * collect_read() can read from the start.
 */
static int reopen_fd(struct ci_input *x, int fd, FILE **ret)
{
	int dup_fd;

	if (lseek(fd, 0, SEEK_SET) < 0 || (dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0)
		return ci_input_fail(x, -errno, CI_FAULT_FILE, x->path, 0, strerror(errno));
	*ret = fdopen(dup_fd, "re");
	if (!*ret) {
		int r = -errno;

		close(dup_fd);
		return ci_input_fail(x, r, CI_FAULT_FILE, x->path, 0, strerror(-r));
	}
	return 0;
}

/*
 * A trace: text from @line on (the stream's next lines after it), or with @dat_fd >= 0
 * the trace.dat open on it. This read counts, checks and (for what cannot be opened
 * again) copies it; the attempts and their cost come from reading it again as report
 * does, each event with its line (a trace.dat's: its record number) for the evidence.
 */
static int read_trace(struct ci_input *x, char *line, size_t len, int dat_fd)
{
	struct ktrace_parser_ops ops = { .event = on_trace_event, .bad_line = on_trace_bad_line };
	struct ci_tree *t = tree_get(x, NULL);
	/* the default release's tree names and prices the attempts, as report does */
	struct collect_lookup lk = { .idx = x->idx, .pm = x->pm,
				     .cat = t->ok ? t->sys.cat : NULL,
				     .k = t->ok ? &t->sys.k : NULL };
	_cleanup_fclose_ FILE *again = NULL;
	struct ktrace_parser *p = NULL;
	struct collect_result res = { 0 };
	struct loadpath lp;
	int r;

	loadpath_from_release(x->release, &lp);
	x->trace_last_ns = x->trace_back_steps = x->trace_back_line = 0;
	if (dat_fd >= 0) {
		struct kt_err err = { 0 };

		x->dat = true;
		r = tracedat_read_fd(dat_fd, x->path, &ops, x, NULL, &err);
		x->dat = false;
		if (r < 0) {
			ci_input_fail(x, r, r == -ENOMEM ? CI_FAULT_NONE : CI_FAULT_FILE, x->path, 0,
			     err.what ? err.what : strerror(-r));
			goto out;
		}
		if (dat_fd == STDIN_FILENO) {
			r = reopen_fd(x, dat_fd, &again);
			if (r < 0)
				goto out;
		}
	} else {
		r = ktrace_parser_new(x->path, &ops, x, &p);
		if (r < 0)
			goto out;
		do {
			r = ktrace_parser_feed(p, line, len);
			if (r >= 0 && x->copy && (copy_line(x, line, len) < 0))
				r = ci_input_fail(x, -EIO, CI_FAULT_FILE, x->path, 0,
					 "cannot keep a copy of the decompressed trace");
			if (r < 0)
				goto out;
			r = ci_input_next_line(x, false, &line, &len);
		} while (r > 0);
		if (r < 0)
			goto out;
		r = ktrace_parser_finish(p);
		if (r >= 0 && x->copy) {
			if (fflush(x->copy) != 0 || fseek(x->copy, 0, SEEK_SET) != 0)
				r = ci_input_fail(x, -EIO, CI_FAULT_FILE, x->path, 0,
					 "cannot keep a copy of the decompressed trace");
			again = x->copy;
			x->copy = NULL;
		}
	}
	if (r >= 0 && x->trace_back_steps)
		ci_input_note_add(x, CI_NOTE_TIME_BACK, x->trace_back_line, x->trace_back_steps, NULL);
	if (r >= 0)
		r = read_trace_as_report(x, again, &lk, lp.idempotent_finit, &res);
	if (r >= 0)
		r = ci_trace_end(x->ci, res.ledger);
out:
	collect_result_done(&res);
	ktrace_parser_free(p);
	return r;
}

static int open_input(const char *path, int *ret_fd)
{
	int fd;

	if (strcmp(path, "-") == 0) {
		*ret_fd = STDIN_FILENO;
		return 0;
	}
	fd = input_open(path, ROOT_STREAM_MAX);
	if (fd < 0)
		return fd;
	*ret_fd = fd;
	return 0;
}

/* A trace.dat, told by its first bytes where they can be read without consuming them */
static bool is_tracedat(int fd)
{
	char head[TRACEDAT_MAGIC_LEN];

	return pread(fd, head, sizeof(head), 0) == (ssize_t)sizeof(head) &&
	       tracedat_sniff(head, sizeof(head));
}

/* A trace.dat input, as read_input() reads the others; closes @fd. */
static int read_tracedat_input(struct ci_input *x, const char *path, int fd)
{
	int r;

	r = ci_begin_input(x->ci, path, x->release);
	if (r >= 0) {
		set_format(x, CI_INPUT_TRACE_DAT, NULL);
		r = read_trace(x, NULL, 0, fd);
	}
	/* its "lines" are its events, as the evidence numbers them */
	x->st.lines = x->st.records;
	if (r >= 0)
		r = ci_end_input(x->ci, &x->st);
	if (fd != STDIN_FILENO)
		close(fd);
	return r;
}

/* One input, start to end. 0, or <0 with x->err set. */
static int read_input(struct ci_input *x, const char *path)
{
	const char *what = NULL;
	char *line;
	size_t len;
	int fd = -1, r;

	x->path = path;
	x->warned = 0;
	x->plain = false;
	x->journal = false;
	x->timed = false;
	x->untimed = false;
	x->first_format = KLOG_FORMAT_DMESG;
	x->first_caller = x->first_level = x->first_prefixed = x->first_inner_time = false;
	x->text_before = 0;
	x->other_programs = 0;
	x->cut_lineno = 0;
	memset(&x->st, 0, sizeof(x->st));
	ci_input_fail(x, 0, CI_FAULT_NONE, path, 0, NULL);
	r = open_input(path, &fd);
	if (r < 0)
		return ci_input_fail(x, r, CI_FAULT_FILE, path, 0, strerror(-r));
	if (is_tracedat(fd))
		return read_tracedat_input(x, path, fd);
	r = stream_new(fd, 0, &x->s, &what);
	if (r < 0) {
		if (r == -EPROTONOSUPPORT)
			return ci_input_fail(x, r, CI_FAULT_UNSUPPORTED, path, 0, what);
		return ci_input_fail(x, r, CI_FAULT_FILE, path, 0, strerror(-r));
	}
	r = ci_begin_input(x->ci, path, x->release);
	if (r < 0)
		goto out;
	/* the first line that is not blank tells the format */
	do
		r = ci_input_next_line(x, false, &line, &len);
	while (r > 0 && len == 0 && stream_lineno(x->s) < SNIFF_LINES);
	if (r > 0) {
		enum ci_input_format fmt = ci_input_sniff(line, len);

		set_format(x, fmt, stream_compression_name(stream_compression(x->s)));
		switch (fmt) {
		case CI_INPUT_TRACE:
			/* what collect_read_each() cannot open again is read from a copy */
			if (strcmp(path, "-") == 0 || stream_compression(x->s)) {
				x->copy = tmpfile();
				x->copied = 0;
				if (!x->copy) {
					r = ci_input_fail(x, -errno, CI_FAULT_FILE, path, 0,
						 "cannot keep a copy of the decompressed trace");
					break;
				}
			}
			r = read_trace(x, line, len, -1);
			if (x->copy)
				fclose(x->copy);
			x->copy = NULL;
			break;
		case CI_INPUT_TRACE_DAT:
			/* libtracecmd seeks: from a pipe or a decompressor it cannot read one */
			r = ci_input_fail(x, -EINVAL, CI_FAULT_DAT_UNSEEKABLE, path, 0,
				 stream_compression(x->s) ? "a compressed one" : "a pipe");
			break;
		case CI_INPUT_KMSG:
			r = ci_input_read_kmsg(x, line, len);
			break;
		case CI_INPUT_JOURNAL_JSON:
			r = ci_input_read_journal_json(x, line, len);
			break;
		default:
			r = ci_input_read_dmesg(x, line, len);
		}
	} else {
		ci_set_input_format(x->ci, "empty",
				    stream_compression_name(stream_compression(x->s)));
		ci_set_input_format_detail(x->ci, "empty", "no line that is not blank");
	}
	if (r < 0)
		goto out;
	x->st.lines = stream_lineno(x->s);
	if (stream_missing_newline(x->s) && x->st.lines)
		ci_input_note_add(x, CI_NOTE_NO_NEWLINE, x->st.lines, 0, NULL);
	if (x->joining)
		ci_join_next_input(x->ci);
	r = ci_end_input(x->ci, &x->st);
out:
	x->s = stream_free(x->s);
	return r;
}

/* An input's format, as read_input() will sniff it; -1 when it cannot be told now */
static int input_format_of(const char *path)
{
	_cleanup_close_ int fd = -1;
	struct stream *s = NULL;
	const char *what = NULL;
	char *line;
	size_t len;
	int r, fmt = -1;

	if (strcmp(path, "-") == 0 || open_input(path, &fd) < 0)
		return -1;
	if (is_tracedat(fd))
		return CI_INPUT_TRACE_DAT;
	if (stream_new(fd, 0, &s, &what) < 0)
		return -1;
	fd = -1;	/* the stream's now */
	do
		r = stream_next_line(s, &line, &len);
	while (r > 0 && len == 0 && stream_lineno(s) < SNIFF_LINES);
	if (r > 0)
		fmt = ci_input_sniff(line, len);
	stream_free(s);
	return fmt;
}

/*
 * A trace and a kernel log given together are one boot, as report reads a capture's:
 * the trace's attempts are the boot's, the log's records join them. With one trace and
 * one kernel log among the inputs, the log's index in *ret_log and the trace's in
 * *ret_trace; else -1 (each input its own boots).
 */
static void pair_inputs(char *const *paths, size_t n, long *ret_log, long *ret_trace)
{
	int n_log = 0, n_trace = 0;

	*ret_log = *ret_trace = -1;
	for (size_t i = 0; i < n; i++) {
		int fmt = input_format_of(paths[i]);

		if (fmt == CI_INPUT_TRACE || fmt == CI_INPUT_TRACE_DAT) {
			n_trace++;
			*ret_trace = (long)i;
		} else if (fmt == CI_INPUT_DMESG || fmt == CI_INPUT_KMSG) {
			n_log++;
			*ret_log = (long)i;
		} else {
			/* a journal, or what cannot be read twice: no pairing */
			n_log += 2;
		}
	}
	if (n_log != 1 || n_trace != 1)
		*ret_log = *ret_trace = -1;
}

int ci_input_read(struct ci_input *in, struct ci_findings *c, const char *path,
		  struct ci_input_err *ret_err)
{
	int r;

	in->ci = c;
	in->err = ret_err;
	r = read_input(in, path);
	in->err = NULL;
	return r;
}

int ci_input_read_all(struct ci_input *in, struct ci_findings *c, char *const *paths, size_t n,
		      struct ci_input_err *ret_err)
{
	long log_i, trace_i;
	int r = 0;

	in->ci = c;
	in->err = ret_err;
	pair_inputs(paths, n, &log_i, &trace_i);
	for (size_t i = 0; i < n && r >= 0; i++) {
		if ((long)i == trace_i)
			continue;
		in->joining = (long)i == log_i;
		r = read_input(in, paths[i]);
		in->joining = false;
		if (r < 0 || (long)i != log_i)
			continue;
		/* the trace right after its log: they are one boot */
		in->boot_log = paths[log_i];
		r = read_input(in, paths[trace_i]);
		in->boot_log = NULL;
	}
	if (r >= 0 && trace_i >= 0 && log_i < 0)
		r = read_input(in, paths[trace_i]);
	in->err = NULL;
	return r;
}

/* The CPUs this process may run on (its affinity, as nproc(1) says), at most 8 */
static unsigned int default_threads(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	n = CPU_COUNT(&set);
	return n < 1 ? 1 : n > 8 ? 8 : (unsigned int)n;
}

int ci_input_new(const struct ci_input_opts *o, struct ci_input **ret,
		 struct ci_input_err *ret_err)
{
	_cleanup_free_ char *moddir = NULL;
	const char *const *needles;
	struct ci_input *x;
	struct kt_err e = { 0 };
	size_t n_needles;
	bool rejected;
	int r;

	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->err = ret_err;
	x->root_path = o->root;
	x->moduledir = o->moduledir;
	x->filter = o->filter;
	x->threads = o->threads ? o->threads : default_threads();
	x->max_bytes = o->max_bytes;
	x->note = o->note;
	x->userdata = o->userdata;
	x->cost_ops = (struct ci_cost_ops){ cost_kernel_of, cost_module_of, x };
	needles = ci_needles(&n_needles);
	x->time_blind = !ci_input_needle_in_time(needles, n_needles);
	r = stream_needles_new(needles, n_needles, &x->needles);
	if (r < 0)
		goto fail;
	if (o->root) {
		r = root_new(o->root, &x->root);
		if (r < 0) {
			ci_input_fail(x, r, CI_FAULT_ROOT, o->root, 0, strerror(-r));
			goto fail;
		}
		if (kt_release_resolve(x->root, o->release, x->release_buf,
				       sizeof(x->release_buf), &rejected) != KT_RELEASE_NONE)
			x->release = x->release_buf;
	} else {
		x->release = o->release;
	}
	/* the trace's aliases and already-loaded modules, when a tree was given */
	if (x->root || o->moduledir) {
		if (!x->root && root_new("/", &x->idx_root) < 0)
			x->idx_root = NULL;
		if (o->moduledir) {
			moddir = strdup(o->moduledir);
		} else if (x->release) {
			char rel[300];

			snprintf(rel, sizeof(rel), "lib/modules/%s", x->release);
			if (root_abspath(x->root, rel, &moddir) < 0)
				moddir = NULL;
		}
		if (moddir && (x->root || x->idx_root))
			collect_modindex_new(x->root ? x->root : x->idx_root, moddir, &x->idx);
		if (x->root && proc_modules_read(x->root, &x->pm, &e) < 0)
			x->pm = NULL;
		if (x->pm)
			collect_warn_repeated("proc/modules", x->pm->n_repeated,
					      x->pm->repeated_line);
	}
	x->err = NULL;
	*ret = x;
	return 0;
fail:
	x->err = NULL;
	ci_input_free(x);
	return r;
}

struct ci_input *ci_input_free(struct ci_input *x)
{
	if (!x)
		return NULL;
	for (size_t i = 0; i < x->n_trees; i++)
		tree_close(&x->trees[i]);
	proc_modules_free(x->pm);
	modindex_free(x->idx);
	root_free(x->idx_root);
	root_free(x->root);
	stream_needles_free(x->needles);
	free(x);
	return NULL;
}

const struct ci_cost_ops *ci_input_cost_ops(struct ci_input *in)
{
	return &in->cost_ops;
}
