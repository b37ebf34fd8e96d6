/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost.h"
#include "percpu.h"
#include "util/array.h"
#include "util/macro.h"

static uint64_t attempt_total(const struct cost_kernel *k, const struct cost_module *m,
			      enum attempt_outcome outcome, bool compressed_flag)
{
	struct attempt a = {
		.syscall = ATTEMPT_FINIT,
		.flags = compressed_flag ? 4 : 0,
		.outcome = outcome,
		.leader = -1,
		.request = -1,
	};
	uint64_t b[_VMAP_MAX], sum = 0;

	/* without in-kernel decompression a compressed file goes through init_module */
	if (m->compressed && !(compressed_flag && k->in_kernel_decompress)) {
		a.syscall = ATTEMPT_INIT;
		a.len = m->decompressed_size;
	}
	cost_estimate_attempt(k, &a, m, b);
	for (int c = 0; c < _VMAP_MAX; c++)
		sum += b[c];
	return sum;
}

void percpu_risk_estimate(const struct cost_kernel *k, const struct cost_module *m,
			  unsigned int ncpus, bool fails, bool compressed_flag,
			  struct percpu_risk *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->per_duplicate = attempt_total(k, m, OUTCOME_DUP_LIVE, compressed_flag);
	ret->per_failure = attempt_total(k, m, OUTCOME_INIT_FAILED, compressed_flag);
	if (!ncpus)
		return;
	if (fails) {
		ret->worst = ret->per_failure * ncpus;
		/* merged waiters return the leader's error without loading again */
		ret->merged = k->lp.idempotent_finit ? ret->per_failure : ret->worst;
	} else {
		ret->worst = ret->per_duplicate * (ncpus - 1);
		ret->merged = k->lp.idempotent_finit ? 0 : ret->worst;
	}
}

bool percpu_requester_is_udev(const char *comm)
{
	return !strcmp(comm, "systemd-udevd") || !strcmp(comm, "(udev-worker)") ||
	       !strcmp(comm, "udev-worker");
}

static bool udev_attempt(const struct attempt *a)
{
	return a->module && percpu_requester_is_udev(a->comm);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The udev attempts of @name (@udev: the indices of @l's udev attempts), summed into @s */
static int storm_count(const struct ledger *l, const struct cost_result *cost,
		       const size_t *udev, size_t n_udev, const char *name,
		       struct percpu_storm *s)
{
	int *pids = NULL;

	memset(s, 0, sizeof(*s));
	for (size_t u = 0; u < n_udev; u++) {
		size_t i = udev[u];
		const struct attempt *a = &l->attempts[i];

		if (strcmp(a->module, name))
			continue;
		if (!s->name) {
			s->name = a->module;
			pids = malloc(sizeof(int) * (n_udev - u));
			if (!pids)
				return -ENOMEM;
		}
		pids[s->attempts++] = a->pid;
		if (a->outcome == OUTCOME_LOADED) {
			s->loaded++;
			continue;
		}
		s->wasted_attempts++;
		s->wasted += cost->att[i].wasted;
		if (cost->att[i].wasted)
			for (int c = 0; c < _VMAP_MAX; c++)
				s->by_class[c] += cost->att[i].est[c];
	}
	array_sort(pids, s->attempts, sizeof(int), cmp_int);
	for (size_t k = 0; k < s->attempts; k++)
		s->requesters += !k || pids[k] != pids[k - 1];
	free(pids);
	return 0;
}

static bool storms(const struct percpu_storm *s, unsigned int capture_ncpus)
{
	return s->requesters >= 2 && s->requesters * 2 >= capture_ncpus &&
	       s->requesters <= 2 * (size_t)capture_ncpus && s->wasted_attempts;
}

static bool listed(const struct percpu_storm *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return true;
	return false;
}

static bool in_names(const char *const *names, const char *name)
{
	for (size_t i = 0; names[i]; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/* Did a udev worker try @dep and then, later, @name? */
static bool tried_before(const struct ledger *l, const size_t *udev, size_t n_udev,
			 const char *dep, const char *name)
{
	for (size_t u = 0; u < n_udev; u++) {
		const struct attempt *d = &l->attempts[udev[u]];

		if (strcmp(d->module, dep))
			continue;
		for (size_t v = u + 1; v < n_udev; v++) {
			const struct attempt *a = &l->attempts[udev[v]];

			if (a->pid == d->pid && !strcmp(a->module, name))
				return true;
		}
	}
	return false;
}

/* Did a udev attempt load @name, or find it Live? Then modprobe went on past it. */
static bool got_past(const struct ledger *l, const size_t *udev, size_t n_udev,
		     const char *name)
{
	for (size_t u = 0; u < n_udev; u++) {
		const struct attempt *a = &l->attempts[udev[u]];

		if (!strcmp(a->module, name) &&
		    (a->outcome == OUTCOME_LOADED || a->outcome == OUTCOME_DUP_LIVE))
			return true;
	}
	return false;
}

/* Has udev tried @name? (@first: the first udev attempt of each module) */
static bool udev_tried(const struct ledger *l, const size_t *first, size_t n_first,
		       const char *name)
{
	for (size_t f = 0; f < n_first; f++)
		if (!strcmp(l->attempts[first[f]].module, name))
			return true;
	return false;
}

/*
 * The first of @percpu_names that udev never tried and that has @dep among its
 * dependencies, into @s's dependency_of: 1 found, 0 none, -ENOMEM
 */
static int untried_parent(const struct ledger *l, const size_t *first, size_t n_first,
			  const char *const *percpu_names, const struct percpu_deps_ops *deps,
			  const char *dep, struct percpu_storm *s)
{
	int found = 0;

	for (size_t p = 0; percpu_names[p] && !found; p++) {
		char **names = NULL;
		size_t n_names = 0;
		int r;

		if (udev_tried(l, first, n_first, percpu_names[p]))
			continue;
		r = deps->deps(deps->userdata, percpu_names[p], &names, &n_names);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			continue;
		for (size_t d = 0; d < n_names && !found; d++)
			found = !strcmp(names[d], dep);
		if (found)
			snprintf(s->dependency_of, sizeof(s->dependency_of), "%s", percpu_names[p]);
		if (deps->names_free)
			deps->names_free(names);
	}
	return found;
}

static void storm_predict(struct percpu_storm *s, unsigned int capture_ncpus,
			  unsigned int ncpus)
{
	s->per_attempt = s->wasted_attempts ? s->wasted / s->wasted_attempts : 0;
	s->per_cpu = (s->attempts + capture_ncpus / 2) / capture_ncpus;
	if (!s->per_cpu)
		s->per_cpu = 1;
	s->attempts_at_n = s->per_cpu * ncpus;
	s->wasted_at_n = s->attempts_at_n > s->loaded ?
				 (s->attempts_at_n - s->loaded) * s->per_attempt : 0;
}

int percpu_storms_find(const struct ledger *l, const struct cost_result *cost,
		       unsigned int capture_ncpus, unsigned int ncpus,
		       const char *const *percpu_names, const struct percpu_deps_ops *deps,
		       struct percpu_storm *ret, size_t max, size_t *ret_n,
		       uint64_t *ret_wasted_at_n)
{
	/* the udev attempts, and the first of each module (counted once) */
	_cleanup_free_ size_t *udev = NULL, *first = NULL;
	size_t n = 0, n_udev = 0, n_first = 0;
	int r;

	*ret_n = 0;
	*ret_wasted_at_n = 0;
	if (!l || !cost || cost->n != l->n_attempts || !capture_ncpus || !ncpus)
		return 0;
	udev = malloc(sizeof(size_t) * (l->n_attempts + 1));
	first = malloc(sizeof(size_t) * (l->n_attempts + 1));
	if (!udev || !first)
		return -ENOMEM;
	for (size_t i = 0; i < l->n_attempts; i++) {
		bool seen = false;

		if (!udev_attempt(&l->attempts[i]))
			continue;
		udev[n_udev++] = i;
		for (size_t f = 0; f < n_first && !seen; f++)
			seen = !strcmp(l->attempts[first[f]].module, l->attempts[i].module);
		if (!seen)
			first[n_first++] = i;
	}
	/* the modules asked for, in order of first attempt */
	for (size_t f = 0; f < n_first && n < max; f++) {
		const char *name = l->attempts[first[f]].module;

		if (percpu_names && !in_names(percpu_names, name))
			continue;
		r = storm_count(l, cost, udev, n_udev, name, &ret[n]);
		if (r < 0)
			return r;
		if (storms(&ret[n], capture_ncpus))
			n++;
	}
	/*
	 * The dependencies of CPU-alias modules udev never tried: modprobe loads the
	 * dependencies first and stops at one that fails, so a module whose dependency
	 * fails on every CPU has no attempt of its own, and only the dependency storms.
	 * One that ever loaded or was found Live let modprobe go on: not this case (and
	 * not a device storm of some shared dependency).
	 */
	for (size_t f = 0; percpu_names && deps && deps->deps && f < n_first && n < max; f++) {
		const char *name = l->attempts[first[f]].module;

		if (in_names(percpu_names, name) || listed(ret, n, name))
			continue;
		r = storm_count(l, cost, udev, n_udev, name, &ret[n]);
		if (r < 0)
			return r;
		if (!storms(&ret[n], capture_ncpus) || got_past(l, udev, n_udev, name))
			continue;
		r = untried_parent(l, first, n_first, percpu_names, deps, name, &ret[n]);
		if (r < 0)
			return r;
		n += r;
	}
	/* their dependencies, and theirs: the list grows as it is walked */
	for (size_t k = 0; deps && deps->deps && k < n; k++) {
		char **names = NULL;
		size_t n_names = 0;

		r = deps->deps(deps->userdata, ret[k].name, &names, &n_names);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			continue;
		for (size_t d = 0; d < n_names && n < max && r >= 0; d++) {
			struct percpu_storm s;

			if (listed(ret, n, names[d]) ||
			    !tried_before(l, udev, n_udev, names[d], ret[k].name))
				continue;
			r = storm_count(l, cost, udev, n_udev, names[d], &s);
			if (r < 0 || !s.wasted_attempts)
				continue;
			snprintf(s.dependency_of, sizeof(s.dependency_of), "%s", ret[k].name);
			ret[n++] = s;
		}
		if (deps->names_free)
			deps->names_free(names);
		if (r < 0)
			return r;
	}
	for (size_t k = 0; k < n; k++) {
		storm_predict(&ret[k], capture_ncpus, ncpus);
		*ret_wasted_at_n += ret[k].wasted_at_n;
	}
	*ret_n = n;
	return 0;
}
