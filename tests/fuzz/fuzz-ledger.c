/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The load-attempt ledger fed by fuzzed trace text: the trace parser's events into
 * ledger_feed_trace(), lines starting "klog " through the classifier into
 * ledger_add_klog(), then ledger_finish(), the summary and the cost model (with a
 * 6.1 and a 6.12 load path and no module files). The ledger's indices must hold.
 * Each input runs twice per load path: whole (as report), and settled every few lines
 * at the newest event's time (as live top), where a settled attempt must not change.
 */
#include <math.h>
#include <stdio.h>

#include "cost/cost.h"
#include "cost/loadpath.h"
#include "ledger/ledger.h"
#include "ledger/summary.h"
#include "ledger/klog-findings.h"
#include "sources/trace/text.h"
#include "fuzz.h"

struct feed {
	struct ledger *l;
	double now;			/* the newest event's time */
};

static int on_event(void *userdata, const struct ktrace_event *ev)
{
	struct feed *f = userdata;

	if (!(ev->ts <= f->now))
		f->now = ev->ts;
	return ledger_feed_trace(f->l, ev);
}

/* What a settled attempt was when it settled */
struct settled {
	enum attempt_outcome outcome;
	long leader, request;
	const char *module;
};

/* Attempts settled before stay as they were; those settled since are remembered */
static int check_settled(const struct ledger *l, struct settled **snap, size_t *n_snap)
{
	struct settled *ns;

	CHECK(l->n_settled <= l->n_attempts && l->n_settled >= *n_snap);
	for (size_t i = 0; i < *n_snap; i++) {
		const struct attempt *a = &l->attempts[i];

		CHECK(a->outcome == (*snap)[i].outcome && a->leader == (*snap)[i].leader &&
		      a->request == (*snap)[i].request && a->module == (*snap)[i].module);
	}
	if (l->n_settled == *n_snap)
		return 0;
	ns = realloc(*snap, l->n_settled * sizeof(**snap));
	if (!ns)
		return -ENOMEM;
	*snap = ns;
	for (; *n_snap < l->n_settled; (*n_snap)++) {
		const struct attempt *a = &l->attempts[*n_snap];

		ns[*n_snap] = (struct settled){ a->outcome, a->leader, a->request, a->module };
	}
	return 0;
}

static const struct cost_module *no_module(void *userdata, const char *name)
{
	(void)userdata;
	(void)name;
	return NULL;
}

static void check_ledger(const struct ledger *l)
{
	for (size_t i = 0; i < l->n_attempts; i++) {
		const struct attempt *a = &l->attempts[i];

		CHECK(a->outcome < _OUTCOME_MAX && a->name_source < _NAME_MAX);
		CHECK(attempt_outcome_name(a->outcome) && name_source_name(a->name_source));
		CHECK(memchr(a->comm, '\0', sizeof(a->comm)));
		CHECK(a->outcome != OUTCOME_WAITER || a->leader == -1 ||
		      (a->leader >= 0 && (size_t)a->leader < l->n_attempts));
		CHECK(a->request >= -1 && a->request < (long)l->n_requests);
		CHECK(a->step >= -1 && a->step < (long)l->n_steps);
		CHECK(!a->module || a->name_source != NAME_NONE);
		CHECK(a->complete || a->outcome == OUTCOME_INCOMPLETE);
	}
	for (size_t i = 0; i < l->n_requests; i++) {
		const struct autoload_request *q = &l->requests[i];

		CHECK(q->alias && memchr(q->comm, '\0', sizeof(q->comm)));
		CHECK(q->n_resolved == 0 || q->resolved);
		CHECK(q->step >= -1 && q->step < (long)l->n_steps);
	}
	for (size_t i = 0; i < l->n_steps; i++)
		CHECK(l->steps[i].name);
	for (size_t i = 0; i < l->n_klog; i++)
		CHECK(l->klog[i].msg);
}

static void check_summary(const struct ledger *l, const struct ledger_summary *s)
{
	uint64_t total = 0;

	CHECK(s->attempts == l->n_attempts);
	for (size_t i = 0; i < s->n_modules; i++) {
		const struct module_summary *m = &s->modules[i];
		uint64_t by = 0;

		for (int o = 0; o < _OUTCOME_MAX; o++)
			by += m->by_outcome[o];
		CHECK(by == m->total && m->loaded <= m->total && m->failed <= m->total);
		CHECK(m->n_errno <= SUMMARY_MAX_ERRNO);
		total += m->total;
	}
	CHECK(total == s->attempts);
	for (size_t i = 0; i < s->n_requesters; i++)
		CHECK(!s->requesters[i].modules ||
		      !s->requesters[i].modules[s->requesters[i].n_modules]);
	for (size_t i = 0; i < s->n_findings; i++)
		CHECK(s->findings[i].n_samples <= FINDING_SAMPLES);
}

static void run(const uint8_t *data, size_t size, const char *release, unsigned int settle_every)
{
	static const struct ledger_ops lops = { 0 };
	const struct ktrace_parser_ops ops = { .event = on_event };
	const char *p = (const char *)data, *end = p + size;
	struct ktrace_parser *tp = NULL;
	struct ledger_summary *sum = NULL;
	struct cost_result *cost = NULL;
	struct cost_kernel k = { .page_size = 4096 };
	struct ledger *l = NULL;
	struct feed feed = { .now = -INFINITY };
	struct settled *snap = NULL;
	size_t n_snap = 0;
	unsigned int n_lines = 0;
	int r;

	loadpath_from_release(release, &k.lp);
	k.in_kernel_decompress = k.lp.decompress_capable;
	if (ledger_new(&lops, k.lp.idempotent_finit, &l) < 0)
		return;
	feed.l = l;
	if (ktrace_parser_new("trace", &ops, &feed, &tp) < 0)
		goto out;
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *line = fuzz_dup(p, len);

		if (!line)
			goto out;
		if (len > 5 && memcmp(line, "klog ", 5) == 0) {
			/* "klog SECONDS message": a kernel log line at that time */
			char *msg;
			double ts = strtod(line + 5, &msg);
			struct klog_finding f;

			if (msg == line + 5)
				ts = NAN;
			if (klog_classify(msg, len - (size_t)(msg - line), &f) == 1) {
				r = ledger_add_klog(l, ts, f.module, f.module_len, f.kind, f.err, msg,
						    len - (size_t)(msg - line));
				CHECK(r == 0 || r == -ENOMEM);
			}
		} else {
			r = ktrace_parser_feed(tp, line, len);
			CHECK(r == 0 || r == -ENOMEM);
		}
		free(line);
		p += len + 1;
		if (settle_every && ++n_lines % settle_every == 0 && isfinite(feed.now)) {
			r = ledger_settle(l, feed.now);
			CHECK(r == 0 || r == -ENOMEM);
			if (r < 0 || check_settled(l, &snap, &n_snap) < 0)
				goto out;
		}
	}
	r = ktrace_parser_finish(tp);
	CHECK(r == 0 || r == -ENOMEM);
	if (r < 0)
		goto out;
	r = ledger_finish(l);
	CHECK(r == 0 || r == -ENOMEM);
	if (r < 0)
		goto out;
	check_ledger(l);
	if (settle_every && check_settled(l, &snap, &n_snap) < 0)
		goto out;
	if (ledger_summarize(l, &sum) == 0)
		check_summary(l, sum);
	r = cost_compute(l, &k, no_module, NULL, &cost);
	CHECK(r == 0 || r == -ENOMEM);
	if (r == 0) {
		CHECK(cost->n == l->n_attempts);
		CHECK(cost->wasted <= cost->wasted_max);
	}
out:
	free(snap);
	cost_result_free(cost);
	ledger_summary_free(sum);
	ktrace_parser_free(tp);
	ledger_free(l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* settled every 1 to 16 lines, as the input's first byte says */
	unsigned int every = size ? 1 + data[0] % 16 : 1;

	run(data, size, "6.1.0-57-amd64", 0);
	run(data, size, "6.12.118+deb12-amd64", 0);
	run(data, size, "6.1.0-57-amd64", every);
	run(data, size, "6.12.118+deb12-amd64", every);
	return 0;
}
