/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "util/macro.h"
#include "proctab.h"
#include "summary.h"

uint64_t attempt_wasted(const struct attempt *a)
{
	uint64_t s = 0;

	if (!attempt_is_failure(a))
		return 0;
	for (int c = 0; c < _VMAP_MAX; c++)
		s += a->vmap[c];
	return s;
}

static void count_errno(struct errno_count *t, size_t *n, int err)
{
	for (size_t i = 0; i < *n; i++)
		if (t[i].err == err) {
			t[i].count++;
			return;
		}
	if (*n < SUMMARY_MAX_ERRNO) {
		t[*n].err = err;
		t[*n].count = 1;
		(*n)++;
	}
}

static int grow(void **arr, size_t n, size_t *cap, size_t size)
{
	void *na;
	size_t ncap;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 32;
	na = realloc(*arr, ncap * size);
	if (!na)
		return -ENOMEM;
	memset((char *)na + *cap * size, 0, (ncap - *cap) * size);
	*arr = na;
	*cap = ncap;
	return 0;
}

static bool str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static struct module_summary *module_get(struct ledger_summary *s, const char *name)
{
	for (size_t i = 0; i < s->n_modules; i++)
		if (str_eq(s->modules[i].name, name))
			return &s->modules[i];
	if (grow((void **)&s->modules, s->n_modules, &s->cap_modules, sizeof(*s->modules)) < 0)
		return NULL;
	s->modules[s->n_modules].name = name;
	s->modules[s->n_modules].measured = true;
	return &s->modules[s->n_modules++];
}

static int add_name(char ***names, size_t *n, const char *name)
{
	char **nn;

	if (!name)
		return 0;
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*names)[i], name) == 0)
			return 0;
	nn = realloc(*names, (*n + 2) * sizeof(char *));
	if (!nn)
		return -ENOMEM;
	*names = nn;
	nn[*n] = strdup(name);
	if (!nn[*n])
		return -ENOMEM;
	nn[++*n] = NULL;
	return 0;
}

static int summarize_attempts(const struct ledger *l, struct ledger_summary *s)
{
	size_t cap_r = 0, cap_s = 0;
	const struct proctab *pt = ledger_proctab(l);

	s->measured = l->n_attempts > 0;
	/* one row per step marker, plus one for calls before the first */
	s->n_steps = l->n_steps + 1;
	cap_s = s->n_steps;
	s->steps = calloc(cap_s, sizeof(*s->steps));
	if (!s->steps)
		return -ENOMEM;
	s->steps[0].name = NULL;
	for (size_t i = 0; i < l->n_steps; i++)
		s->steps[i + 1].name = l->steps[i].name;

	for (size_t i = 0; i < l->n_attempts; i++) {
		const struct attempt *a = &l->attempts[i];
		const struct autoload_request *rq = a->request >= 0 ? &l->requests[a->request] : NULL;
		struct module_summary *m = module_get(s, a->module);
		struct step_summary *st = &s->steps[a->step + 1];
		struct requester_summary *rs = NULL;
		const char *comm = rq ? rq->comm : a->comm;
		const char *site = rq ? rq->call_site : NULL;
		int pid = rq ? rq->pid : a->pid;
		uint64_t wasted = attempt_wasted(a);

		if (!m)
			return -ENOMEM;
		s->attempts++;
		s->unnamed += !a->module;
		s->waiters += a->outcome == OUTCOME_WAITER;
		s->fallbacks += a->outcome == OUTCOME_FALLBACK;
		s->failed += attempt_is_failure(a);
		s->incomplete += !a->complete;
		s->measured = s->measured && a->measured;
		s->wasted_measured += wasted;

		m->total++;
		m->by_outcome[a->outcome]++;
		m->loaded += a->complete && a->err == 0 && a->outcome != OUTCOME_WAITER;
		m->dup_live += a->outcome == OUTCOME_DUP_LIVE;
		m->dup_concurrent += a->outcome == OUTCOME_DUP_CONCURRENT;
		m->waiters += a->outcome == OUTCOME_WAITER;
		m->duplicate += attempt_is_duplicate(a);
		m->failed += attempt_is_failure(a);
		if (a->complete)
			count_errno(m->by_errno, &m->n_errno, a->err);
		m->measured = m->measured && a->measured;
		m->wasted_measured += wasted;
		for (int c = 0; c < _VMAP_MAX; c++)
			if (attempt_is_failure(a))
				m->vmap[c] += a->vmap[c];

		st->calls++;
		if (a->complete)
			count_errno(st->rets, &st->n_rets, a->err);
		st->waiters += a->outcome == OUTCOME_WAITER;
		st->fallbacks += a->outcome == OUTCOME_FALLBACK;
		for (int c = 0; c < _VMAP_MAX; c++)
			st->vmap[c] += a->vmap[c];
		st->wasted_measured += wasted;

		for (size_t k = 0; k < s->n_requesters; k++) {
			struct requester_summary *c = &s->requesters[k];

			if (strcmp(c->comm, comm) == 0 && str_eq(c->call_site, site)) {
				rs = c;
				break;
			}
		}
		if (!rs) {
			const char *pc[1];
			int pp[1];

			if (grow((void **)&s->requesters, s->n_requesters, &cap_r,
				 sizeof(*s->requesters)) < 0)
				return -ENOMEM;
			rs = &s->requesters[s->n_requesters++];
			snprintf(rs->comm, sizeof(rs->comm), "%s", comm);
			rs->pid = pid;
			rs->call_site = site;
			rs->autoload = rq != NULL;
			if (proctab_chain(pt, pid, pc, pp, 1) == 1) {
				rs->parent_comm = pc[0];
				rs->parent_pid = pp[0];
			}
		}
		/* count distinct pids cheaply: attempts are in order, pids mostly grouped */
		if (rs->n_pids == 0 || rs->pid != pid) {
			bool seen = false;

			for (size_t j = 0; j < i && !seen; j++) {
				const struct attempt *b = &l->attempts[j];
				const struct autoload_request *bq =
					b->request >= 0 ? &l->requests[b->request] : NULL;

				seen = (bq ? bq->pid : b->pid) == pid &&
				       strcmp(bq ? bq->comm : b->comm, comm) == 0 &&
				       str_eq(bq ? bq->call_site : NULL, site);
			}
			rs->n_pids += !seen;
		}
		rs->attempts++;
		rs->failed += attempt_is_failure(a);
		if (add_name(&rs->modules, &rs->n_modules, a->module) < 0)
			return -ENOMEM;
	}
	/* leaders: the attempts waiters waited for */
	for (size_t i = 0; i < l->n_attempts; i++) {
		const struct attempt *a = &l->attempts[i];

		if (a->outcome == OUTCOME_WAITER) {
			struct module_summary *m = module_get(s, l->attempts[a->leader].module);

			if (!m)
				return -ENOMEM;
			/* counted once per leader */
			bool first = true;
			for (size_t j = 0; j < i && first; j++)
				first = !(l->attempts[j].outcome == OUTCOME_WAITER &&
					  l->attempts[j].leader == a->leader);
			m->leaders += first;
		}
	}
	return 0;
}

static int summarize_requests(const struct ledger *l, struct ledger_summary *s)
{
	size_t cap = 0;

	for (size_t i = 0; i < l->n_requests; i++) {
		const struct autoload_request *rq = &l->requests[i];
		const char *mod = rq->n_resolved ? rq->resolved[0] : NULL;
		struct autoload_summary *as = NULL;
		bool new_pid = true;

		for (size_t k = 0; k < s->n_autoload; k++) {
			struct autoload_summary *c = &s->autoload[k];

			if (strcmp(c->alias, rq->alias) == 0 && strcmp(c->call_site, rq->call_site) == 0 &&
			    strcmp(c->comm, rq->comm) == 0) {
				as = c;
				break;
			}
		}
		if (!as) {
			if (grow((void **)&s->autoload, s->n_autoload, &cap, sizeof(*s->autoload)) < 0)
				return -ENOMEM;
			as = &s->autoload[s->n_autoload++];
			as->alias = rq->alias;
			as->call_site = rq->call_site;
			snprintf(as->comm, sizeof(as->comm), "%s", rq->comm);
			as->module = mod;
			as->resolved_none = !rq->resolve_failed && rq->n_resolved == 0;
			as->unresolved = rq->resolve_failed;
		}
		for (size_t j = 0; j < i && new_pid; j++)
			new_pid = !(l->requests[j].pid == rq->pid &&
				    strcmp(l->requests[j].alias, rq->alias) == 0 &&
				    strcmp(l->requests[j].call_site, rq->call_site) == 0);
		as->n_pids += new_pid;
		as->requests++;
		as->needless += rq->needless;
		as->modprobes += rq->modprobe_pid != 0;
		as->attempts += rq->n_attempts;
		if (mod) {
			struct module_summary *m = module_get(s, mod);

			if (!m)
				return -ENOMEM;
			m->requests++;
			m->needless_autoloads += rq->needless;
		}
	}
	return 0;
}

static int summarize_findings(const struct ledger *l, struct ledger_summary *s)
{
	size_t cap = 0;

	for (size_t i = 0; i < l->n_klog; i++) {
		const struct ledger_klog *g = &l->klog[i];
		struct finding_summary *f = NULL;

		for (size_t k = 0; k < s->n_findings && !f; k++)
			if (s->findings[k].kind == g->kind && str_eq(s->findings[k].module, g->module))
				f = &s->findings[k];
		if (!f) {
			if (grow((void **)&s->findings, s->n_findings, &cap, sizeof(*s->findings)) < 0)
				return -ENOMEM;
			f = &s->findings[s->n_findings++];
			f->kind = g->kind;
			f->module = g->module;
			f->first_ts = g->ts;
		}
		f->count++;
		f->last_ts = g->ts;
		if (f->n_samples < FINDING_SAMPLES)
			f->samples[f->n_samples++] = g->msg;
	}
	return 0;
}

struct ledger_summary *ledger_summary_free(struct ledger_summary *s)
{
	if (!s)
		return NULL;
	for (size_t i = 0; i < s->n_requesters; i++) {
		for (size_t k = 0; k < s->requesters[i].n_modules; k++)
			free(s->requesters[i].modules[k]);
		free(s->requesters[i].modules);
	}
	free(s->modules);
	free(s->requesters);
	free(s->autoload);
	free(s->steps);
	free(s->findings);
	free(s);
	return NULL;
}

int ledger_summarize(const struct ledger *l, struct ledger_summary **ret)
{
	struct ledger_summary *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	r = summarize_attempts(l, s);
	if (r >= 0)
		r = summarize_requests(l, s);
	if (r >= 0)
		r = summarize_findings(l, s);
	if (r < 0) {
		ledger_summary_free(s);
		return r;
	}
	*ret = s;
	return 0;
}
