/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "ledger/klog-findings.h"
#include "util/hindex.h"
#include "util/macro.h"
#include "ci/model.h"

/* --- gates and baseline ---------------------------------------------------------------- */

const char *const ci_gate_names[_GATE_MAX] = {
	[GATE_MAX_DUPLICATES] = "max-duplicates",
	[GATE_MAX_FAILURES] = "max-failures",
	[GATE_MAX_WASTED] = "max-wasted",
	[GATE_FAIL_ON] = "fail-on",
	[GATE_BASELINE_NEW] = "baseline-new",
	[GATE_BASELINE_INCREASE] = "baseline-increase",
};

static int count_gate(struct ci_findings *c, enum gate_id id, int64_t limit, enum ci_group group)
{
	struct gate *g = &c->gates[id];
	int m;

	g->enabled = true;
	g->limit = limit;
	g->boot = -1;
	g->agg = -1;
	m = id == GATE_MAX_WASTED ? 2 : group == CI_GROUP_DUPLICATE ? 0 : 1;
	for (size_t i = 0; i < c->n_boots; i++) {
		uint64_t v = ci_boot_metric(&c->boots[i], m);

		if (g->boot < 0 || v > g->value) {
			g->value = v;
			g->boot = (long)i;
		}
	}
	/* the unlisted boots come after the listed ones: the first worst stays first */
	if (c->have_worst && (g->boot < 0 || ci_boot_metric(&c->worst[m], m) > g->value)) {
		g->value = ci_boot_metric(&c->worst[m], m);
		g->boot = (long)(c->n_boots + (size_t)m);
	}
	g->passed = g->value <= (uint64_t)limit;
	if (!g->passed) {
		uint32_t worst_input = ci_boot_at(c, g->boot)->input;

		for (size_t i = 0; i < c->n_aggs; i++) {
			struct agg *a = &c->aggs[i];
			bool hit = id == GATE_MAX_WASTED ? a->wasted > 0
							 : ci_classes[a->cls].group == group;

			if (a->allowed || !hit)
				continue;
			a->gated = true;
			/* where to point: the first such finding of the worst boot's input */
			if (g->agg < 0 || (c->aggs[g->agg].input != worst_input &&
					   a->input == worst_input))
				g->agg = (long)i;
		}
	}
	return 0;
}

static int fail_on_gate(struct ci_findings *c)
{
	struct gate *g = &c->gates[GATE_FAIL_ON];

	g->enabled = true;
	g->agg = -1;
	g->boot = -1;
	for (size_t i = 0; i < c->n_aggs; i++) {
		struct agg *a = &c->aggs[i];

		if (a->allowed || !(c->opt->fail_on & (1ull << a->cls)))
			continue;
		g->value += a->attempts;
		a->gated = true;
		if (g->agg < 0)
			g->agg = (long)i;
	}
	g->passed = g->value == 0;
	return 0;
}

struct total {
	const char *cls;
	const char *module;
	uint64_t count;
	bool offending;
};

static int total_cmp(const void *x, const void *y)
{
	const struct total *a = x, *b = y;
	int r = strcmp(a->cls, b->cls);

	if (r)
		return r;
	if (!a->module || !b->module)
		return !a->module - !b->module;
	return strcmp(a->module, b->module);
}

/* Sums rows of the same (class, module) over the inputs; @t sorted, merged in place. */
static size_t merge_totals(struct total *t, size_t n)
{
	size_t k = 0;

	array_sort(t, n, sizeof(*t), total_cmp);
	for (size_t i = 0; i < n; i++) {
		if (k && total_cmp(&t[k - 1], &t[i]) == 0) {
			t[k - 1].count += t[i].count;
			t[k - 1].offending |= t[i].offending;
			continue;
		}
		t[k++] = t[i];
	}
	return k;
}

bool ci_is_offending(const struct ci_findings *c, const struct agg *a)
{
	return !a->allowed && ci_classes[a->cls].level >= CI_FMT_WARNING;
}

static void mark_gated(struct ci_findings *c, const struct delta *d)
{
	for (size_t i = 0; i < c->n_aggs; i++) {
		struct agg *a = &c->aggs[i];
		const char *m = ci_name_of(c, a->module);

		if (strcmp(ci_classes[a->cls].name, d->cls) == 0 && !a->allowed &&
		    ((!m && !d->module) || (m && d->module && strcmp(m, d->module) == 0)))
			a->gated = true;
	}
}

static int baseline_gates(struct ci_findings *c)
{
	const struct ci_fmt_baseline *bl = c->opt->baseline;
	struct total *cur = NULL, *old = NULL;
	size_t n_cur, n_old, i = 0, k = 0;
	struct gate *gn = &c->gates[GATE_BASELINE_NEW], *gi = &c->gates[GATE_BASELINE_INCREASE];
	double f = 1.0 + c->opt->tolerance / 100.0;
	uint64_t wasted = 0;
	bool wasted_known = false;
	int r = -ENOMEM;

	cur = calloc(c->n_aggs + 1, sizeof(*cur));
	old = calloc(bl->n + 1, sizeof(*old));
	c->deltas = calloc(c->n_aggs + bl->n + 1, sizeof(*c->deltas));
	if (!cur || !old || !c->deltas)
		goto out;
	for (size_t j = 0; j < c->n_aggs; j++) {
		const struct agg *a = &c->aggs[j];

		cur[j] = (struct total){ ci_classes[a->cls].name, ci_name_of(c, a->module), a->attempts,
					 ci_is_offending(c, a) };
		if (!a->allowed && a->wasted_known) {
			wasted = add_sat_u64(wasted, a->wasted);
			wasted_known = true;
		}
	}
	for (size_t j = 0; j < bl->n; j++) {
		const struct ci_fmt_baseline_item *it = &bl->items[j];

		old[j] = (struct total){ it->class, it->module, it->count, false };
	}
	n_cur = merge_totals(cur, c->n_aggs);
	n_old = merge_totals(old, bl->n);
	gn->enabled = gi->enabled = true;
	gn->boot = gi->boot = gn->agg = gi->agg = -1;
	while (i < n_cur || k < n_old) {
		int cmp = i == n_cur ? 1 : k == n_old ? -1 : total_cmp(&cur[i], &old[k]);
		struct delta *d = &c->deltas[c->n_deltas++];

		if (cmp < 0) {
			*d = (struct delta){ cur[i].cls, cur[i].module, 0, cur[i].count, DELTA_NEW,
					     cur[i].offending };
			i++;
		} else if (cmp > 0) {
			*d = (struct delta){ old[k].cls, old[k].module, old[k].count, 0, DELTA_GONE,
					     false };
			k++;
		} else {
			enum delta_status s = DELTA_SAME;

			if (cur[i].count > old[k].count)
				s = (double)cur[i].count > (double)old[k].count * f ? DELTA_INCREASED
										    : DELTA_SAME;
			else if (cur[i].count < old[k].count)
				s = DELTA_DECREASED;
			*d = (struct delta){ cur[i].cls, cur[i].module, old[k].count, cur[i].count,
					     s, cur[i].offending };
			i++;
			k++;
		}
		if (!d->offending)
			continue;
		if (d->status == DELTA_NEW) {
			gn->value++;
			mark_gated(c, d);
		} else if (d->status == DELTA_INCREASED) {
			gi->value++;
			mark_gated(c, d);
		}
	}
	/* the total waste, when both runs could estimate it */
	if (wasted_known && bl->wasted_known && (double)wasted > (double)bl->wasted * f)
		gi->value++;
	c->baseline_wasted_old = bl->wasted;
	gn->passed = gn->value == 0;
	gi->passed = gi->value == 0;
	r = 0;
out:
	free(cur);
	free(old);
	return r;
}

int ci_finish(struct ci_findings *c, enum ci_result *ret)
{
	const struct ci_options *o = c->opt;
	bool failed = false;
	int r = 0;

	if (c->in_boot) {
		r = ci_boot_close(c);
		if (r < 0)
			return r;
	}
	if (o->max_duplicates >= 0)
		r = count_gate(c, GATE_MAX_DUPLICATES, o->max_duplicates, CI_GROUP_DUPLICATE);
	if (r >= 0 && o->max_failures >= 0)
		r = count_gate(c, GATE_MAX_FAILURES, o->max_failures, CI_GROUP_FAILURE);
	if (r >= 0 && o->max_wasted >= 0) {
		if (c->waste_available) {
			r = count_gate(c, GATE_MAX_WASTED, o->max_wasted, CI_GROUP_FAILURE);
		} else {
			struct gate *g = &c->gates[GATE_MAX_WASTED];

			g->enabled = g->unknown = true;
			g->limit = o->max_wasted;
			g->boot = g->agg = -1;
			r = 0;
		}
	}
	if (r >= 0 && o->fail_on)
		r = fail_on_gate(c);
	if (r >= 0 && o->baseline)
		r = baseline_gates(c);
	if (r < 0)
		return r;
	for (int i = 0; i < _GATE_MAX; i++)
		if (c->gates[i].enabled && !c->gates[i].unknown && !c->gates[i].passed)
			failed = true;
	/* a journal of loaders' lines alone (systemd-modules-load) is something to analyse */
	if (c->records == 0 && c->loader_lines == 0)
		c->result = CI_EMPTY;
	else if (c->gates[GATE_MAX_WASTED].unknown)
		c->result = CI_UNKNOWN_WASTE;
	else
		c->result = failed ? CI_FAIL : CI_PASS;
	c->finished = true;
	*ret = c->result;
	return 0;
}

size_t ci_finding_count(const struct ci_findings *c)
{
	return c->n_aggs;
}

void ci_finding_get(const struct ci_findings *c, size_t i, struct ci_finding_info *ret)
{
	const struct agg *a = &c->aggs[i];

	*ret = (struct ci_finding_info){
		.cls = ci_classes[a->cls].name,
		.module = ci_name_of(c, a->module),
		.path = c->inputs[a->input].path,
		.count = a->count,
		.attempts = a->attempts,
		.first_line = a->first_line,
		.last_line = a->last_line,
		.ranges = a->ranges,
		.n_ranges = a->n_ranges,
		.ranges_truncated = a->ranges_truncated,
		.boots = a->boots,
		.wasted_known = a->wasted_known,
		.wasted = a->wasted,
		.gated = a->gated,
		.allowed = a->allowed,
	};
}

size_t ci_boot_count(const struct ci_findings *c)
{
	return (size_t)c->all_boots;
}

const char *ci_boot_release(const struct ci_findings *c, size_t i)
{
	return i < c->n_boots ? c->boots[i].release : "";
}

