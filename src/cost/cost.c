/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/hindex.h"
#include "ledger/summary.h"
#include "util/macro.h"
#include "cost.h"

const char *cost_source_name(enum cost_source s)
{
	switch (s) {
	case COST_MODEL:
		return "model";
	case COST_MEASURED:
		return "measured";
	case COST_NONE:
		break;
	}
	return "none";
}

struct cost_result *cost_result_free(struct cost_result *r)
{
	if (!r)
		return NULL;
	free(r->att);
	free(r->mods);
	hindex_free(r->by_name);
	free(r);
	return NULL;
}

static bool name_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool name_is(size_t pos, const void *key, const void *userdata)
{
	const struct cost_result *r = userdata;

	return name_eq(r->mods[pos].name, key);
}

const struct module_cost *cost_module_find(const struct cost_result *r, const char *name)
{
	size_t pos;

	if (!r || !r->by_name)
		return NULL;
	pos = hindex_find(r->by_name, hash_str(HASH_INIT, name), name_is, name, r);
	return pos == HINDEX_NONE ? NULL : &r->mods[pos];
}

static struct module_cost *module_get(struct cost_result *r, size_t *cap, const char *name)
{
	struct module_cost *nm;
	uint64_t h = hash_str(HASH_INIT, name);
	size_t pos = hindex_find(r->by_name, h, name_is, name, r);

	if (pos != HINDEX_NONE)
		return &r->mods[pos];
	if (hindex_add(r->by_name, h, r->n_mods) < 0)
		return NULL;
	if (r->n_mods == *cap) {
		*cap = *cap ? *cap * 2 : 32;
		nm = realloc(r->mods, *cap * sizeof(*nm));
		if (!nm)
			return NULL;
		r->mods = nm;
	}
	nm = &r->mods[r->n_mods++];
	memset(nm, 0, sizeof(*nm));
	nm->name = name;
	nm->measured = true;
	return nm;
}

struct edge {
	double ts;
	int64_t delta;
};

static int edge_cmp(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	/* at the same instant, release before acquire: touching calls do not overlap */
	return (x->delta > 0) - (y->delta > 0);
}

/* Sweep the failed attempts' lifetimes: the most bytes held at one time */
static int peak_concurrent(const struct ledger *l, struct cost_result *r)
{
	struct edge *e = calloc(l->n_attempts * 2 + 1, sizeof(*e));
	size_t n = 0;
	int64_t cur = 0;

	if (!e)
		return -ENOMEM;
	for (size_t i = 0; i < l->n_attempts; i++) {
		if (!r->att[i].wasted)
			continue;
		e[n++] = (struct edge){ l->attempts[i].start, (int64_t)r->att[i].wasted };
		e[n++] = (struct edge){ l->attempts[i].end, -(int64_t)r->att[i].wasted };
	}
	array_sort(e, n, sizeof(*e), edge_cmp);
	for (size_t i = 0; i < n; i++) {
		cur += e[i].delta;
		if (cur > (int64_t)r->peak_concurrent) {
			r->peak_concurrent = (uint64_t)cur;
			r->peak_ts = e[i].ts;
		}
	}
	free(e);
	return 0;
}

void cost_attempt(const struct cost_kernel *k, const struct attempt *a,
		  const struct cost_module *m, struct attempt_cost *ac)
{
	memset(ac, 0, sizeof(*ac));
	ac->complete = cost_estimate_attempt(k, a, m, ac->est);
	ac->estimated = m != NULL || ac->complete;
	ac->source = ac->complete ? COST_MODEL : COST_NONE;
	if (!ac->complete && a->measured) {
		/* better the kernel's own count than nothing for what the model can't size */
		memcpy(ac->est, a->vmap, sizeof(ac->est));
		ac->complete = ac->estimated = true;
		ac->source = COST_MEASURED;
	}
	for (int c = 0; c < _VMAP_MAX; c++)
		ac->est_total = add_sat_u64(ac->est_total, ac->est[c]);
	ac->wasted = attempt_is_failure(a) ? ac->est_total : 0;
}

/* @l's attempt @i's race_extra, looking for the load it raced among attempts [lo, hi) */
static uint64_t race_extra(const struct cost_kernel *k, const struct ledger *l, size_t i,
			   size_t lo, size_t hi, cost_lookup_fn lookup, void *userdata)
{
	const struct attempt *a = &l->attempts[i];
	const struct cost_module *m;

	/* with the layout probe traced the estimate already says whether it did */
	if (!k->lp.early_dup_check ||
	    (a->outcome != OUTCOME_DUP_LIVE && a->outcome != OUTCOME_DUP_CONCURRENT) ||
	    a->layout_probed || !a->module || !lookup || !(m = lookup(userdata, a->module)) ||
	    !m->has_layout)
		return 0;
	for (size_t j = lo; j < hi; j++) {
		const struct attempt *b = &l->attempts[j];

		if (!b->module_load_seen || !b->module || strcmp(b->module, a->module) != 0 ||
		    b->start >= a->end || a->start >= b->end)
			continue;
		return cost_layout(k, m);
	}
	return 0;
}

/*
 * A 6.5+ finit_module() the trace saw only the entry and exit of: a waiter if a call
 * with the same result overlapped it, else it did its own work. The timing rule of the
 * ledger picks one; the other is as possible.
 */
static bool waiter_by_timing_possible(const struct cost_kernel *k, const struct ledger *l,
				      size_t i, double longest)
{
	const struct attempt *a = &l->attempts[i];

	if (!k->lp.idempotent_finit || a->syscall != ATTEMPT_FINIT || a->measured || a->probed ||
	    !a->complete || a->module_load_seen)
		return false;
	if (a->outcome == OUTCOME_WAITER)
		return true;
	for (size_t j = i; j-- > 0;) {
		const struct attempt *b = &l->attempts[j];

		if (!(b->start >= a->start - longest - 1.0))
			break;
		if (b->syscall == ATTEMPT_FINIT && b->complete && b->ret == a->ret &&
		    b->end > a->start && b->start < a->end)
			return true;
	}
	for (size_t j = i + 1; j < l->n_attempts && l->attempts[j].start < a->end; j++) {
		const struct attempt *b = &l->attempts[j];

		if (b->syscall == ATTEMPT_FINIT && b->complete && b->ret == a->ret &&
		    b->end > a->start)
			return true;
	}
	return false;
}

/* @a's bounds (see struct attempt_cost), its estimate and race_extra already set */
static int attempt_bounds(const struct cost_kernel *k, const struct ledger *l, size_t i,
			  double longest, cost_lookup_fn lookup, cost_max_fn max,
			  void *userdata, struct attempt_cost *ac)
{
	const struct attempt *a = &l->attempts[i];
	struct attempt as_payer;
	struct attempt_cost pc;
	uint64_t m;
	int r;

	ac->lo = ac->wasted;
	ac->hi = add_sat_u64(ac->wasted, ac->race_extra);
	ac->doubt = ac->race_extra ? DOUBT_RACE : DOUBT_NONE;
	if (!attempt_is_failure(a))
		return 0;
	if (waiter_by_timing_possible(k, l, i, longest)) {
		ac->lo = 0;
		ac->doubt = DOUBT_TIMING;
		if (a->outcome != OUTCOME_WAITER)
			return 0;
		/* had it not waited, it would have paid as a duplicate of its module */
		as_payer = *a;
		as_payer.outcome = OUTCOME_DUP_LIVE;
		if (a->err == EBUSY)
			as_payer.outcome = OUTCOME_DUP_CONCURRENT;
		if (a->module && lookup)
			cost_attempt(k, &as_payer, lookup(userdata, a->module), &pc);
		else
			pc.complete = false;
		if (pc.complete) {
			ac->hi = pc.est_total;
			return 0;
		}
		a = &as_payer;
	} else if (ac->complete) {
		return 0;
	}
	/* no module file to model: up to the largest the evidence allows */
	ac->doubt = DOUBT_UNSIZED;
	r = max ? max(userdata, k, a, &m) : -ENOENT;
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		ac->hi_unbounded = true;
		return 0;
	}
	if (m > ac->hi)
		ac->hi = m;
	return 0;
}

int cost_compute(const struct ledger *l, const struct cost_kernel *k, cost_lookup_fn lookup,
		 void *userdata, struct cost_result **ret)
{
	return cost_compute_bounded(l, k, lookup, NULL, userdata, ret);
}

int cost_compute_bounded(const struct ledger *l, const struct cost_kernel *k,
			 cost_lookup_fn lookup, cost_max_fn max, void *userdata,
			 struct cost_result **ret)
{
	struct cost_result *r = calloc(1, sizeof(*r));
	size_t cap = 0;
	int err;

	if (!r)
		return -ENOMEM;
	r->n = l->n_attempts;
	r->att = calloc(r->n ? r->n : 1, sizeof(*r->att));
	if (!r->att || hindex_new(&r->by_name) < 0) {
		free(r->att);
		free(r);
		return -ENOMEM;
	}
	r->measured = l->n_attempts > 0;
	for (size_t i = 0; i < l->n_attempts; i++) {
		const struct attempt *a = &l->attempts[i];
		struct attempt_cost *ac = &r->att[i];
		const struct cost_module *m = a->module && lookup ? lookup(userdata, a->module) : NULL;
		struct module_cost *mc = module_get(r, &cap, a->module);
		bool failed = attempt_is_failure(a);
		uint64_t meas = attempt_wasted(a);

		if (!mc) {
			cost_result_free(r);
			return -ENOMEM;
		}
		cost_attempt(k, a, m, ac);
		mc->measured = mc->measured && a->measured;
		r->measured = r->measured && a->measured;
		if (!failed)
			continue;
		mc->wasted = add_sat_u64(mc->wasted, ac->wasted);
		mc->wasted_measured = add_sat_u64(mc->wasted_measured, meas);
		r->wasted = add_sat_u64(r->wasted, ac->wasted);
		r->wasted_measured = add_sat_u64(r->wasted_measured, meas);
		for (int c = 0; c < _VMAP_MAX; c++) {
			mc->by_class[c] = add_sat_u64(mc->by_class[c], ac->est[c]);
			r->by_class[c] = add_sat_u64(r->by_class[c], ac->est[c]);
		}
		if (!ac->complete) {
			mc->unestimated++;
			r->unestimated++;
		}
	}
	/* duplicates that raced a load of their module (see race_extra) */
	for (size_t i = 0; i < l->n_attempts; i++)
		r->att[i].race_extra = race_extra(k, l, i, 0, l->n_attempts, lookup, userdata);
	{
		double longest = 0;

		for (size_t i = 0; i < l->n_attempts; i++) {
			const struct attempt *a = &l->attempts[i];

			if (a->complete && a->end - a->start > longest)
				longest = a->end - a->start;
		}
		for (size_t i = 0; i < r->n; i++) {
			struct attempt_cost *ac = &r->att[i];

			err = attempt_bounds(k, l, i, longest, lookup, max, userdata, ac);
			if (err < 0) {
				cost_result_free(r);
				return err;
			}
			r->wasted_min = add_sat_u64(r->wasted_min, ac->lo);
			r->wasted_max = add_sat_u64(r->wasted_max, ac->hi);
			r->max_unbounded = r->max_unbounded || ac->hi_unbounded;
			if (ac->lo == ac->hi && !ac->hi_unbounded)
				continue;
			r->uncertain++;
			r->uncertain_race += ac->doubt == DOUBT_RACE;
			r->uncertain_timing += ac->doubt == DOUBT_TIMING;
			r->uncertain_unsized += ac->doubt == DOUBT_UNSIZED;
		}
	}

	err = peak_concurrent(l, r);
	if (err < 0) {
		cost_result_free(r);
		return err;
	}
	*ret = r;
	return 0;
}

int cost_attempt_bounded(const struct ledger *l, size_t i, const struct cost_kernel *k,
			 double longest, cost_lookup_fn lookup, cost_max_fn max, void *userdata,
			 struct attempt_cost *ac)
{
	const struct attempt *a = &l->attempts[i];
	size_t lo = i, hi = i + 1;

	cost_attempt(k, a, a->module && lookup ? lookup(userdata, a->module) : NULL, ac);
	/*
	 * The calls it overlaps: started at most the longest call before it (and the second
	 * entry order may stray from time order), and before it ended
	 */
	while (lo > 0 && !(l->attempts[lo - 1].start < a->start - longest - 2.0))
		lo--;
	while (hi < l->n_attempts && !(l->attempts[hi].start > a->end + 1.0))
		hi++;
	ac->race_extra = race_extra(k, l, i, lo, hi, lookup, userdata);
	return attempt_bounds(k, l, i, longest, lookup, max, userdata, ac);
}
