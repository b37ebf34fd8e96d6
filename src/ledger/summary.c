/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "util/array.h"
#include "util/hindex.h"
#include "util/macro.h"
#include "proctab.h"
#include "summary.h"

uint64_t attempt_wasted(const struct attempt *a)
{
	uint64_t s = 0;

	if (!attempt_is_failure(a))
		return 0;
	for (int c = 0; c < _VMAP_MAX; c++)
		s = add_sat_u64(s, a->vmap[c]);
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

static bool str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/*
 * The lookups of the summary, one index each: with 10^6 modules (or requesters, or
 * findings) a scan per attempt was quadratic.
 */
struct lookups {
	struct hindex *modules;		/* s->modules by name */
	struct hindex *requesters;	/* s->requesters by comm and call site */
	struct hindex *req_pids;	/* attempts by their requester's pid, comm, site */
	struct hindex *req_modules;	/* (requester, module name) pairs seen */
	struct hindex *autoload;	/* s->autoload by alias, call site, comm */
	struct hindex *alias_pids;	/* requests by pid, alias, call site */
	struct hindex *findings;	/* s->findings by kind and module */
};

static void lookups_free(struct lookups *lk)
{
	hindex_free(lk->modules);
	hindex_free(lk->requesters);
	hindex_free(lk->req_pids);
	hindex_free(lk->req_modules);
	hindex_free(lk->autoload);
	hindex_free(lk->alias_pids);
	hindex_free(lk->findings);
}

static int lookups_init(struct lookups *lk)
{
	memset(lk, 0, sizeof(*lk));
	if (hindex_new(&lk->modules) < 0 || hindex_new(&lk->requesters) < 0 ||
	    hindex_new(&lk->req_pids) < 0 || hindex_new(&lk->req_modules) < 0 ||
	    hindex_new(&lk->autoload) < 0 || hindex_new(&lk->alias_pids) < 0 ||
	    hindex_new(&lk->findings) < 0) {
		lookups_free(lk);
		return -ENOMEM;
	}
	return 0;
}

static bool module_eq(size_t pos, const void *key, const void *userdata)
{
	const struct ledger_summary *s = userdata;

	return str_eq(s->modules[pos].name, key);
}

static struct module_summary *module_get(struct ledger_summary *s, struct lookups *lk,
					 const char *name)
{
	uint64_t h = hash_str(HASH_INIT, name);
	size_t pos = hindex_find(lk->modules, h, module_eq, name, s);

	if (pos != HINDEX_NONE)
		return &s->modules[pos];
	if (array_grow((void **)&s->modules, s->n_modules, &s->cap_modules, sizeof(*s->modules)) < 0 ||
	    hindex_add(lk->modules, h, s->n_modules) < 0)
		return NULL;
	s->modules[s->n_modules].name = name;
	s->modules[s->n_modules].measured = true;
	return &s->modules[s->n_modules++];
}

struct req_module_key {
	const struct ledger_summary *s;
	size_t requester;
	const char *name;
};

/* positions in req_modules: requester index in the high half, name index in the low */
static bool req_module_eq(size_t pos, const void *key, const void *userdata)
{
	const struct req_module_key *k = key;
	const size_t *name_cap = userdata;
	size_t r = pos / *name_cap, i = pos % *name_cap;

	return r == k->requester && strcmp(k->s->requesters[r].modules[i], k->name) == 0;
}

/* Adds @name to requester @ri's modules once; the names grow geometrically */
static int add_name(struct ledger_summary *s, struct lookups *lk, size_t ri, size_t *cap,
		    size_t name_cap, const char *name)
{
	struct requester_summary *rs = &s->requesters[ri];
	struct req_module_key key = { s, ri, name };
	uint64_t h;
	char **nn;

	if (!name)
		return 0;
	h = hash_str(hash_bytes(HASH_INIT, &ri, sizeof(ri)), name);
	if (hindex_find(lk->req_modules, h, req_module_eq, &key, &name_cap) != HINDEX_NONE)
		return 0;
	if (rs->n_modules + 2 > *cap) {
		size_t ncap = *cap ? *cap * 2 : 4;

		nn = realloc(rs->modules, ncap * sizeof(char *));
		if (!nn)
			return -ENOMEM;
		rs->modules = nn;
		*cap = ncap;
	}
	nn = rs->modules;
	nn[rs->n_modules] = strdup(name);
	if (!nn[rs->n_modules])
		return -ENOMEM;
	if (hindex_add(lk->req_modules, h, ri * name_cap + rs->n_modules) < 0) {
		free(nn[rs->n_modules]);
		return -ENOMEM;
	}
	nn[++rs->n_modules] = NULL;
	return 0;
}

struct requester_key {
	const char *comm, *site;
	int pid;
};

static bool requester_eq(size_t pos, const void *key, const void *userdata)
{
	const struct ledger_summary *s = userdata;
	const struct requester_summary *c = &s->requesters[pos];
	const struct requester_key *k = key;

	return strcmp(c->comm, k->comm) == 0 && str_eq(c->call_site, k->site);
}

/* the requester an attempt counts for: its request's task, or its own */
static void attempt_requester(const struct ledger *l, const struct attempt *a,
			      struct requester_key *k)
{
	const struct autoload_request *rq = a->request >= 0 ? &l->requests[a->request] : NULL;

	k->comm = rq ? rq->comm : a->comm;
	k->site = rq ? rq->call_site : NULL;
	k->pid = rq ? rq->pid : a->pid;
}

static bool req_pid_eq(size_t pos, const void *key, const void *userdata)
{
	const struct requester_key *k = key;
	struct requester_key b;

	attempt_requester(userdata, &((const struct ledger *)userdata)->attempts[pos], &b);
	return b.pid == k->pid && strcmp(b.comm, k->comm) == 0 && str_eq(b.site, k->site);
}

static uint64_t requester_hash(const struct requester_key *k)
{
	return hash_str(hash_str(HASH_INIT, k->comm), k->site);
}

static int summarize_attempts(const struct ledger *l, struct ledger_summary *s,
			      struct lookups *lk)
{
	size_t cap_r = 0, cap_s = 0;
	const struct proctab *pt = ledger_proctab(l);
	_cleanup_free_ size_t *name_caps = NULL;
	_cleanup_free_ bool *leader_seen = NULL;
	/* a requester has at most one name per attempt */
	size_t name_cap = l->n_attempts + 1;

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
		struct module_summary *m = module_get(s, lk, a->module);
		struct step_summary *st = &s->steps[a->step + 1];
		struct requester_summary *rs = NULL;
		struct requester_key key;
		const char *comm, *site;
		int pid;
		uint64_t wasted = attempt_wasted(a), h;
		size_t ri;

		if (!m)
			return -ENOMEM;
		attempt_requester(l, a, &key);
		comm = key.comm;
		site = key.site;
		pid = key.pid;
		s->attempts++;
		s->unnamed += !a->module;
		s->waiters += a->outcome == OUTCOME_WAITER;
		s->fallbacks += a->outcome == OUTCOME_FALLBACK;
		s->failed += attempt_is_failure(a);
		s->incomplete += !a->complete;
		s->measured = s->measured && a->measured;
		s->wasted_measured = add_sat_u64(s->wasted_measured, wasted);

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
		m->wasted_measured = add_sat_u64(m->wasted_measured, wasted);
		for (int c = 0; c < _VMAP_MAX; c++)
			if (attempt_is_failure(a))
				m->vmap[c] = add_sat_u64(m->vmap[c], a->vmap[c]);

		st->calls++;
		if (a->complete)
			count_errno(st->rets, &st->n_rets, a->err);
		st->waiters += a->outcome == OUTCOME_WAITER;
		st->fallbacks += a->outcome == OUTCOME_FALLBACK;
		for (int c = 0; c < _VMAP_MAX; c++)
			st->vmap[c] = add_sat_u64(st->vmap[c], a->vmap[c]);
		st->wasted_measured = add_sat_u64(st->wasted_measured, wasted);

		h = requester_hash(&key);
		ri = hindex_find(lk->requesters, h, requester_eq, &key, s);
		if (ri != HINDEX_NONE) {
			rs = &s->requesters[ri];
		} else {
			const char *pc[1];
			int pp[1];
			size_t *nc;

			if (array_grow((void **)&s->requesters, s->n_requesters, &cap_r,
				 sizeof(*s->requesters)) < 0)
				return -ENOMEM;
			nc = realloc(name_caps, cap_r * sizeof(*nc));
			if (!nc)
				return -ENOMEM;
			name_caps = nc;
			ri = s->n_requesters;
			name_caps[ri] = 0;
			if (hindex_add(lk->requesters, h, ri) < 0)
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
		/* distinct pids: the first attempt of each (pid, comm, site) is indexed */
		h = hash_bytes(requester_hash(&key), &pid, sizeof(pid));
		if (hindex_find(lk->req_pids, h, req_pid_eq, &key, l) == HINDEX_NONE) {
			if (hindex_add(lk->req_pids, h, i) < 0)
				return -ENOMEM;
			rs->n_pids++;
		}
		rs->attempts++;
		rs->failed += attempt_is_failure(a);
		if (add_name(s, lk, ri, &name_caps[ri], name_cap, a->module) < 0)
			return -ENOMEM;
	}
	/* leaders: the attempts waiters waited for, counted once each */
	leader_seen = calloc(l->n_attempts + 1, sizeof(*leader_seen));
	if (!leader_seen)
		return -ENOMEM;
	for (size_t i = 0; i < l->n_attempts; i++) {
		const struct attempt *a = &l->attempts[i];

		/* an interrupted waiter among several possible leaders has none */
		if (a->outcome == OUTCOME_WAITER && a->leader >= 0) {
			struct module_summary *m = module_get(s, lk, l->attempts[a->leader].module);

			if (!m)
				return -ENOMEM;
			m->leaders += !leader_seen[a->leader];
			leader_seen[a->leader] = true;
		}
	}
	return 0;
}

static bool autoload_eq(size_t pos, const void *key, const void *userdata)
{
	const struct ledger_summary *s = userdata;
	const struct autoload_summary *c = &s->autoload[pos];
	const struct autoload_request *rq = key;

	return strcmp(c->alias, rq->alias) == 0 && strcmp(c->call_site, rq->call_site) == 0 &&
	       strcmp(c->comm, rq->comm) == 0;
}

static bool alias_pid_eq(size_t pos, const void *key, const void *userdata)
{
	const struct autoload_request *b = &((const struct ledger *)userdata)->requests[pos];
	const struct autoload_request *rq = key;

	return b->pid == rq->pid && strcmp(b->alias, rq->alias) == 0 &&
	       strcmp(b->call_site, rq->call_site) == 0;
}

static int summarize_requests(const struct ledger *l, struct ledger_summary *s,
			      struct lookups *lk)
{
	size_t cap = 0;

	for (size_t i = 0; i < l->n_requests; i++) {
		const struct autoload_request *rq = &l->requests[i];
		const char *mod = rq->n_resolved ? rq->resolved[0] : NULL;
		struct autoload_summary *as = NULL;
		uint64_t h = hash_str(hash_str(HASH_INIT, rq->alias), rq->call_site);
		uint64_t hc = hash_str(h, rq->comm);
		size_t pos = hindex_find(lk->autoload, hc, autoload_eq, rq, s);

		if (pos != HINDEX_NONE) {
			as = &s->autoload[pos];
		} else {
			if (array_grow((void **)&s->autoload, s->n_autoload, &cap, sizeof(*s->autoload)) < 0 ||
			    hindex_add(lk->autoload, hc, s->n_autoload) < 0)
				return -ENOMEM;
			as = &s->autoload[s->n_autoload++];
			as->alias = rq->alias;
			as->call_site = rq->call_site;
			snprintf(as->comm, sizeof(as->comm), "%s", rq->comm);
			as->module = mod;
			as->resolved_none = !rq->resolve_failed && rq->n_resolved == 0;
			as->unresolved = rq->resolve_failed;
		}
		/* distinct pids: the first request of each (pid, alias, site) is indexed */
		h = hash_bytes(h, &rq->pid, sizeof(rq->pid));
		if (hindex_find(lk->alias_pids, h, alias_pid_eq, rq, l) == HINDEX_NONE) {
			if (hindex_add(lk->alias_pids, h, i) < 0)
				return -ENOMEM;
			as->n_pids++;
		}
		as->requests++;
		as->needless += rq->needless;
		as->modprobes += rq->modprobe_pid != 0;
		as->attempts += rq->n_attempts;
		if (mod) {
			struct module_summary *m = module_get(s, lk, mod);

			if (!m)
				return -ENOMEM;
			m->requests++;
			m->needless_autoloads += rq->needless;
		}
	}
	return 0;
}

static bool finding_eq(size_t pos, const void *key, const void *userdata)
{
	const struct ledger_summary *s = userdata;
	const struct finding_summary *f = &s->findings[pos];
	const struct ledger_klog *g = key;

	return f->kind == g->kind && str_eq(f->module, g->module);
}

static int summarize_findings(const struct ledger *l, struct ledger_summary *s,
			      struct lookups *lk)
{
	size_t cap = 0;

	for (size_t i = 0; i < l->n_klog; i++) {
		const struct ledger_klog *g = &l->klog[i];
		struct finding_summary *f = NULL;
		uint64_t h = hash_str(hash_bytes(HASH_INIT, &g->kind, sizeof(g->kind)), g->module);
		size_t pos = hindex_find(lk->findings, h, finding_eq, g, s);

		if (pos != HINDEX_NONE) {
			f = &s->findings[pos];
		} else {
			if (array_grow((void **)&s->findings, s->n_findings, &cap, sizeof(*s->findings)) < 0 ||
			    hindex_add(lk->findings, h, s->n_findings) < 0)
				return -ENOMEM;
			f = &s->findings[s->n_findings++];
			f->kind = g->kind;
			f->module = g->module;
			f->first_ts = f->last_ts = g->ts;
		}
		f->count += g->count;
		/* the earliest and latest: a log's times need not go forward (a bad record) */
		if (!isnan(g->ts) && (isnan(f->first_ts) || g->ts < f->first_ts))
			f->first_ts = g->ts;
		if (!isnan(g->last_ts) && (isnan(f->last_ts) || g->last_ts > f->last_ts))
			f->last_ts = g->last_ts;
		/* each line of a run is a sample, as each line is without runs */
		for (uint64_t k = 0; k < g->count && f->n_samples < FINDING_SAMPLES; k++)
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
	hindex_free(s->by_name);
	free(s->requesters);
	free(s->autoload);
	free(s->steps);
	free(s->findings);
	free(s);
	return NULL;
}

const struct module_summary *ledger_summary_module(const struct ledger_summary *s,
						   const char *name)
{
	size_t pos;

	if (!s || !s->by_name)
		return NULL;
	pos = hindex_find(s->by_name, hash_str(HASH_INIT, name), module_eq, name, s);
	return pos == HINDEX_NONE ? NULL : &s->modules[pos];
}

int ledger_summarize(const struct ledger *l, struct ledger_summary **ret)
{
	struct ledger_summary *s = calloc(1, sizeof(*s));
	struct lookups lk;
	int r;

	if (!s)
		return -ENOMEM;
	r = lookups_init(&lk);
	if (r < 0) {
		free(s);
		return r;
	}
	r = summarize_attempts(l, s, &lk);
	if (r >= 0)
		r = summarize_requests(l, s, &lk);
	if (r >= 0)
		r = summarize_findings(l, s, &lk);
	s->by_name = lk.modules;
	lk.modules = NULL;
	lookups_free(&lk);
	if (r < 0) {
		ledger_summary_free(s);
		return r;
	}
	*ret = s;
	return 0;
}
