/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ledger_settle() against ledger_finish(): the captured traces and logs fed in chunks,
 * settled between chunks at the newest event's time, must end as the batch ledger of
 * the same input, and what was settled mid-way must never change afterwards.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "session/collect.h"
#include "cost/catalog.h"
#include "cost/cost.h"
#include "cost/estimate.h"
#include "ledger/klog-findings.h"
#include "ledger/ledger.h"
#include "sources/kmsg.h"
#include "sources/modindex.h"
#include "sources/proc-modules.h"
#include "sources/trace/text.h"
#include "util/root.h"

struct fixture {
	const char *dir, *release;
};

static const struct fixture fixtures[] = {
	{ FIXTURES_DIR "/debian-6.1-plain", "6.1.0-57-amd64" },
	{ FIXTURES_DIR "/debian-6.12-xz", "6.12.118+deb12-amd64" },
	{ FIXTURES_DIR "/custom-6.12-modstats", "6.12.118" },
};

struct klog_line {
	double ts;
	char *module;
	int kind, err;
	char *msg;
};

struct input {
	char **lines;			/* the trace, without newlines */
	size_t n_lines;
	struct klog_line *klog;		/* the log's findings, in log order */
	size_t n_klog;
};

struct tree {
	struct kt_root *root;
	struct modindex *idx;
	struct proc_modules *pm;
	struct catalog *cat;
	struct cost_kernel k;
	struct collect_lookup lk;
};

static int on_record(void *userdata, const struct klog_rec *rec)
{
	struct input *in = userdata;
	struct klog_finding f;
	struct klog_line *g;

	if (klog_classify(rec->msg, rec->msg_len, &f) < 0 || f.kind == KLOG_FINDING_NONE)
		return 0;
	in->klog = realloc(in->klog, (in->n_klog + 1) * sizeof(*in->klog));
	assert_non_null(in->klog);
	g = &in->klog[in->n_klog++];
	g->ts = rec->has_monotonic ? rec->ts : NAN;
	g->module = f.module ? strndup(f.module, f.module_len) : NULL;
	g->kind = f.kind;
	g->err = f.err;
	g->msg = strndup(rec->msg, rec->msg_len);
	return 0;
}

static void input_read(const struct fixture *fx, struct input *in)
{
	struct klog_parser_ops kops = { .record = on_record };
	char path[4096], *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;

	memset(in, 0, sizeof(*in));
	snprintf(path, sizeof(path), "%s/sys/kernel/tracing/trace", fx->dir);
	f = fopen(path, "re");
	assert_non_null(f);
	while ((n = getline(&line, &cap, f)) >= 0) {
		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		in->lines = realloc(in->lines, (in->n_lines + 1) * sizeof(*in->lines));
		assert_non_null(in->lines);
		in->lines[in->n_lines++] = strdup(line);
	}
	free(line);
	fclose(f);
	snprintf(path, sizeof(path), "%s/capture/kmsg.raw", fx->dir);
	f = fopen(path, "re");
	assert_non_null(f);
	assert_int_equal(kmsg_read_file(f, path, &kops, in, NULL, NULL), 0);
	fclose(f);
	/* the fixtures name modules from their logs: the test must see some */
	assert_true(in->n_klog > 0);
}

static void input_free(struct input *in)
{
	for (size_t i = 0; i < in->n_lines; i++)
		free(in->lines[i]);
	for (size_t i = 0; i < in->n_klog; i++) {
		free(in->klog[i].module);
		free(in->klog[i].msg);
	}
	free(in->lines);
	free(in->klog);
}

static void tree_open(const struct fixture *fx, struct tree *t)
{
	char moduledir[4096];

	memset(t, 0, sizeof(*t));
	snprintf(moduledir, sizeof(moduledir), "%s/lib/modules/%s", fx->dir, fx->release);
	assert_int_equal(root_new(fx->dir, &t->root), 0);
	assert_int_equal(modindex_new(t->root, moduledir, &t->idx), 0);
	assert_int_equal(proc_modules_read(t->root, &t->pm, NULL), 0);
	assert_int_equal(catalog_new(moduledir, false, NULL, &t->cat), 0);
	t->k.page_size = 4096;
	t->k.in_kernel_decompress = true;
	t->lk = (struct collect_lookup){ .idx = t->idx, .pm = t->pm, .cat = t->cat, .k = &t->k };
}

static void tree_close(struct tree *t)
{
	catalog_free(t->cat);
	proc_modules_free(t->pm);
	modindex_free(t->idx);
	root_free(t->root);
}

struct feed_ctx {
	struct ledger *l;
	double last;			/* the newest event's time */
};

static int on_event(void *userdata, const struct ktrace_event *ev)
{
	struct feed_ctx *c = userdata;

	if (!isnan(ev->ts) && !(ev->ts <= c->last))
		c->last = ev->ts;
	return ledger_feed_trace(c->l, ev);
}

static void add_klog(struct ledger *l, const struct klog_line *g)
{
	assert_int_equal(ledger_add_klog(l, g->ts, g->module, g->module ? strlen(g->module) : 0,
					 g->kind, g->err, g->msg, strlen(g->msg)),
			 0);
}

/* What a settled attempt is: the decisions of the finishing passes */
struct snap {
	char *module;
	enum name_source name_source;
	enum attempt_outcome outcome;
	long leader, request;
	bool waiter_by_timing;
};

static void snap_take(const struct attempt *a, struct snap *s)
{
	s->module = a->module ? strdup(a->module) : NULL;
	s->name_source = a->name_source;
	s->outcome = a->outcome;
	s->leader = a->leader;
	s->request = a->request;
	s->waiter_by_timing = a->waiter_by_timing;
}

static void assert_attempt_is(const struct attempt *a, const struct snap *s, size_t i,
			      const char *what)
{
	if (!!a->module != !!s->module || (a->module && strcmp(a->module, s->module) != 0) ||
	    a->name_source != s->name_source || a->outcome != s->outcome ||
	    a->leader != s->leader || a->request != s->request ||
	    a->waiter_by_timing != s->waiter_by_timing)
		fail_msg("%s: attempt %zu (pid %d, %.6f-%.6f): %s/%s/%s leader %ld request %ld, "
			 "expected %s/%s/%s leader %ld request %ld",
			 what, i, a->pid, a->start, a->end, a->module ? a->module : "-",
			 name_source_name(a->name_source), attempt_outcome_name(a->outcome),
			 a->leader, a->request, s->module ? s->module : "-",
			 name_source_name(s->name_source), attempt_outcome_name(s->outcome),
			 s->leader, s->request);
}

struct rq_snap {
	int modprobe_pid;
	size_t n_attempts;
	bool needless;
};

static struct ledger *batch(struct tree *t, const struct input *in, bool idempotent)
{
	struct ktrace_parser_ops tops = { .event = on_event };
	struct ledger_ops ops;
	struct ktrace_parser *p;
	struct feed_ctx c = { .last = -INFINITY };

	collect_ledger_ops(&t->lk, &ops);
	assert_int_equal(ledger_new(&ops, idempotent, &c.l), 0);
	for (size_t k = 0; k < in->n_klog; k++)
		add_klog(c.l, &in->klog[k]);
	assert_int_equal(ktrace_parser_new("trace", &tops, &c, &p), 0);
	for (size_t i = 0; i < in->n_lines; i++)
		assert_int_equal(ktrace_parser_feed(p, in->lines[i], strlen(in->lines[i])), 0);
	assert_int_equal(ktrace_parser_finish(p), 0);
	ktrace_parser_free(p);
	assert_int_equal(ledger_finish(c.l), 0);
	return c.l;
}

/*
 * Fed @chunk lines at a time; the log reaches the ledger @lag seconds behind the trace
 * (live, /dev/kmsg and trace_pipe are read apart). Returns how many attempts settled
 * before the end.
 */
static size_t streamed(struct tree *t, const struct input *in, bool idempotent, size_t chunk,
		       double lag, const struct ledger *want)
{
	struct ktrace_parser_ops tops = { .event = on_event };
	struct ledger_ops ops;
	struct ktrace_parser *p;
	struct feed_ctx c = { .last = -INFINITY };
	struct snap *snaps;
	struct rq_snap *rqs;
	size_t k = 0, n_snaps = 0, n_rqs = 0, settled_before_end;

	collect_ledger_ops(&t->lk, &ops);
	assert_int_equal(ledger_new(&ops, idempotent, &c.l), 0);
	assert_int_equal(ktrace_parser_new("trace", &tops, &c, &p), 0);
	snaps = calloc(want->n_attempts + 1, sizeof(*snaps));
	rqs = calloc(want->n_requests + 1, sizeof(*rqs));
	assert_true(snaps && rqs);
	for (size_t i = 0; i < in->n_lines; i += chunk) {
		for (size_t j = i; j < i + chunk && j < in->n_lines; j++)
			assert_int_equal(ktrace_parser_feed(p, in->lines[j], strlen(in->lines[j])), 0);
		/* a log without a clock comes at once; one with a clock as it is due */
		while (k < in->n_klog && !(in->klog[k].ts > c.last - lag))
			add_klog(c.l, &in->klog[k++]);
		assert_int_equal(ledger_settle(c.l, c.last), 0);
		assert_true(c.l->n_settled >= n_snaps);
		for (; n_snaps < c.l->n_settled; n_snaps++)
			snap_take(&c.l->attempts[n_snaps], &snaps[n_snaps]);
		for (; n_rqs < c.l->n_requests_settled; n_rqs++)
			rqs[n_rqs] = (struct rq_snap){ c.l->requests[n_rqs].modprobe_pid,
						       c.l->requests[n_rqs].n_attempts,
						       c.l->requests[n_rqs].needless };
		/* what is settled stays as it was settled */
		for (size_t a = 0; a < n_snaps; a++)
			assert_attempt_is(&c.l->attempts[a], &snaps[a], a, "settled, changed");
	}
	settled_before_end = n_snaps;
	assert_int_equal(ktrace_parser_finish(p), 0);
	ktrace_parser_free(p);
	for (; k < in->n_klog; k++)
		add_klog(c.l, &in->klog[k]);
	assert_int_equal(ledger_finish(c.l), 0);
	assert_int_equal(c.l->n_settled, c.l->n_attempts);
	assert_int_equal(c.l->n_requests_settled, c.l->n_requests);

	/* the batch result, exactly */
	assert_int_equal(c.l->n_attempts, want->n_attempts);
	for (size_t a = 0; a < want->n_attempts; a++) {
		struct snap s;

		snap_take(&want->attempts[a], &s);
		assert_attempt_is(&c.l->attempts[a], &s, a, "streamed vs batch");
		free(s.module);
	}
	assert_int_equal(c.l->n_requests, want->n_requests);
	for (size_t q = 0; q < want->n_requests; q++) {
		const struct autoload_request *x = &c.l->requests[q], *y = &want->requests[q];

		if (x->modprobe_pid != y->modprobe_pid || x->n_attempts != y->n_attempts ||
		    x->needless != y->needless)
			fail_msg("request %zu (%s): modprobe %d, %zu attempts, needless %d; batch: "
				 "%d, %zu, %d",
				 q, x->alias, x->modprobe_pid, x->n_attempts, x->needless,
				 y->modprobe_pid, y->n_attempts, y->needless);
	}
	assert_int_equal(c.l->stats.live_named, want->stats.live_named);
	/* and what settled mid-way is what it ended as */
	for (size_t a = 0; a < n_snaps; a++) {
		assert_attempt_is(&c.l->attempts[a], &snaps[a], a, "settled early, then changed");
		free(snaps[a].module);
	}
	for (size_t q = 0; q < n_rqs; q++) {
		const struct autoload_request *x = &c.l->requests[q];

		if (x->modprobe_pid != rqs[q].modprobe_pid || x->n_attempts != rqs[q].n_attempts ||
		    x->needless != rqs[q].needless)
			fail_msg("request %zu (%s) settled as modprobe %d, %zu attempts, needless %d; "
				 "ended %d, %zu, %d",
				 q, x->alias, rqs[q].modprobe_pid, rqs[q].n_attempts, rqs[q].needless,
				 x->modprobe_pid, x->n_attempts, x->needless);
	}
	free(snaps);
	free(rqs);
	ledger_free(c.l);
	return settled_before_end;
}

static char *slurp(const char *path, size_t *ret_len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0, len = 0, n;

	assert_non_null(f);
	do {
		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n);
	fclose(f);
	/* room is left by the loop: a string, for the eyes of a debugger */
	buf[len] = '\0';
	*ret_len = len;
	return buf;
}

/*
 * The first bytes of @s (up to @end or a newline) as a string in @buf: sscanf() on
 * the whole buffer would look for its end at every call.
 */
static const char *head(char *buf, size_t cap, const char *s, const char *end)
{
	size_t n = 0;

	while (s + n < end && n + 1 < cap && s[n] != '\n')
		n++;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return buf;
}

/* The time of the last whole trace line in @t[0, @len), or -1 */
static double trace_time(const char *t, size_t len)
{
	while (len > 0) {
		size_t end = len - 1, start;
		const char *rb;
		double ts;
		char flags[16], buf[64];

		while (end > 0 && t[end] != '\n')
			end--;
		if (end == 0)
			return -1;
		start = end;
		while (start > 0 && t[start - 1] != '\n')
			start--;
		rb = memchr(t + start, ']', end - start);
		if (rb && sscanf(head(buf, sizeof(buf), rb + 1, t + end), " %15s %lf:", flags,
				 &ts) == 2)
			return ts;
		len = start;
	}
	return -1;
}

static void append(int fd, const char *p, size_t n)
{
	assert_int_equal(write(fd, p, n), (ssize_t)n);
}

/*
 * The live path: collect_stream reads spools as they grow, cut anywhere (in a line,
 * in a record), the log's bytes written as the trace's reach their time, and ends as
 * the batch ledger; the settled attempts are priced as they settle.
 */
static void test_stream_equals_batch(void **state)
{
	(void)state;
	for (size_t f = 0; f < sizeof(fixtures) / sizeof(fixtures[0]); f++) {
		char path[4096];
		char *trace, *kmsg;
		size_t tlen, klen, toff = 0, koff = 0, step = 1;
		int tfd = memfd_create("trace", MFD_CLOEXEC), kfd = memfd_create("kmsg", MFD_CLOEXEC);
		struct collect_stream *cs;
		const struct ledger *l;
		struct ledger *want;
		struct input in;
		struct tree t;
		size_t settled_early = 0;

		assert_true(tfd >= 0 && kfd >= 0);
		input_read(&fixtures[f], &in);
		tree_open(&fixtures[f], &t);
		want = batch(&t, &in, true);
		snprintf(path, sizeof(path), "%s/sys/kernel/tracing/trace", fixtures[f].dir);
		trace = slurp(path, &tlen);
		snprintf(path, sizeof(path), "%s/capture/kmsg.raw", fixtures[f].dir);
		kmsg = slurp(path, &klen);
		assert_int_equal(collect_stream_new(&t.lk, true, tfd, "trace", kfd, &cs), 0);
		l = collect_stream_ledger(cs);
		while (toff < tlen) {
			/* uneven pieces: 1, 2, ... up to 4 KiB, wrapping */
			size_t n = step < tlen - toff ? step : tlen - toff;

			step = step * 7 % 4093 + 1;
			append(tfd, trace + toff, n);
			toff += n;
			/* the log as far as the trace has reached, and part of the next record */
			{
				double now = trace_time(trace, toff);
				size_t end = koff;

				while (end < klen) {
					const char *nl = memchr(kmsg + end, '\n', klen - end);
					unsigned long long us;
					size_t next = nl ? (size_t)(nl - kmsg) + 1 : klen;
					char buf[64];

					if (kmsg[end] != ' ' &&
					    sscanf(head(buf, sizeof(buf), kmsg + end, kmsg + klen),
						   "%*u,%*u,%llu", &us) == 1 && us / 1e6 > now)
						break;
					end = next;
				}
				if (end < klen)
					end += (klen - end) / 2 < 20 ? (klen - end) / 2 : 20;
				if (end > koff) {
					append(kfd, kmsg + koff, end - koff);
					koff = end;
				}
			}
			assert_int_equal(collect_stream_feed(cs), 0);
			assert_int_equal(collect_stream_settle(cs), 0);
			settled_early = l->n_settled;
		}
		append(kfd, kmsg + koff, klen - koff);
		assert_int_equal(collect_stream_feed(cs), 0);
		/* what was read went back to the system, by 64 KiB; the size stays */
		{
			struct stat st;

			assert_int_equal(fstat(tfd, &st), 0);
			assert_int_equal(st.st_size, tlen);
			assert_true(tlen > 2 * 65536);
			assert_true((size_t)st.st_blocks * 512 < 65536 + 4096);
		}
		assert_int_equal(collect_stream_finish(cs), 0);
		assert_true(settled_early > want->n_attempts / 2);
		assert_int_equal(l->n_attempts, want->n_attempts);
		assert_int_equal(l->n_klog, want->n_klog);
		for (size_t a = 0; a < want->n_attempts; a++) {
			struct snap s;

			snap_take(&want->attempts[a], &s);
			assert_attempt_is(&l->attempts[a], &s, a, "stream vs batch");
			free(s.module);
			/* every stack reached its allocation: the bytes by class are the batch's */
			assert_memory_equal(l->attempts[a].vmap, want->attempts[a].vmap,
					    sizeof(want->attempts[a].vmap));
			assert_int_equal(l->attempts[a].n_allocs, want->attempts[a].n_allocs);
			assert_int_equal(l->attempts[a].complete, want->attempts[a].complete);
		}
		for (size_t q = 0; q < want->n_requests; q++) {
			assert_int_equal(l->requests[q].modprobe_pid, want->requests[q].modprobe_pid);
			assert_int_equal(l->requests[q].n_attempts, want->requests[q].n_attempts);
			assert_int_equal(l->requests[q].needless, want->requests[q].needless);
		}
		/* each settled attempt priced as cost_compute() prices it */
		{
			struct cost_result *cr;
			const struct attempt_cost *c = collect_stream_cost(cs);

			assert_non_null(c);
			assert_int_equal(cost_compute(want, &t.k, collect_cost_module, &t.lk, &cr), 0);
			for (size_t a = 0; a < want->n_attempts; a++) {
				struct attempt_cost x = cr->att[a];

				/* what looks across attempts is not the stream's */
				x.race_extra = 0;
				x.lo = x.hi = 0;
				x.hi_unbounded = false;
				assert_memory_equal(&x, &c[a], sizeof(x));
			}
			cost_result_free(cr);
		}
		collect_stream_free(cs);
		ledger_free(want);
		free(trace);
		free(kmsg);
		close(tfd);
		close(kfd);
		tree_close(&t);
		input_free(&in);
	}
}

static void test_settle_equals_finish(void **state)
{
	static const size_t chunks[] = { 5, 64, 1000 };
	static const double lags[] = { 0, 0.5 };

	(void)state;
	for (size_t f = 0; f < sizeof(fixtures) / sizeof(fixtures[0]); f++) {
		struct input in;
		struct tree t;

		input_read(&fixtures[f], &in);
		tree_open(&fixtures[f], &t);
		for (int idem = 0; idem < 2; idem++) {
			struct ledger *want = batch(&t, &in, idem);
			size_t named = 0, linked = 0, waiters = 0;

			for (size_t a = 0; a < want->n_attempts; a++) {
				named += want->attempts[a].module != NULL;
				linked += want->attempts[a].request >= 0;
				waiters += want->attempts[a].outcome == OUTCOME_WAITER;
			}
			/* the fixtures exercise the passes that look across attempts */
			assert_true(want->n_attempts > 50 && named > 0 && linked > 0);
			if (idem && strstr(fixtures[f].dir, "6.12"))
				assert_true(waiters > 0);
			for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++)
				for (size_t g = 0; g < sizeof(lags) / sizeof(lags[0]); g++) {
					size_t early = streamed(&t, &in, idem, chunks[c], lags[g], want);

					/* small chunks settle most attempts before the end */
					if (chunks[c] < 100)
						assert_true(early > want->n_attempts / 2);
				}
			ledger_free(want);
		}
		tree_close(&t);
		input_free(&in);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_settle_equals_finish),
		cmocka_unit_test(test_stream_equals_batch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
