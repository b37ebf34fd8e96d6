/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ledger/ledger.h"
#include "estimate.h"

/* The cost of every attempt of a ledger, per module, and for the whole run. */

enum cost_source {
	COST_NONE,			/* neither: a failed call nobody can size */
	COST_MODEL,			/* the model, from the module file and the load path */
	COST_MEASURED,			/* no module file (not a module, or unnamed), but the
					 * vmalloc tracepoint saw what the call allocated */
};

struct hindex;

struct attempt_cost {
	bool estimated;			/* a model estimate exists (the module file was found) */
	bool complete;			/* every buffer could be sized */
	enum cost_source source;
	uint64_t est[_VMAP_MAX];	/* bytes allocated inside the call, by class */
	uint64_t est_total;
	uint64_t wasted;		/* est_total when the attempt failed, else 0 */
	/*
	 * 6.4+: a duplicate that overlapped a load of the same module may have passed the
	 * early check before that load was listed, and then paid the layout too. The
	 * trace cannot tell: this is what it costs if it did.
	 */
	uint64_t race_extra;
	/*
	 * What the evidence allows of @wasted: lo <= wasted <= hi. They differ where the
	 * trace cannot tell: a failed call with no module file (0 to its largest candidate),
	 * a 6.5+ finit_module() told waiter or payer by timing alone, race_extra.
	 * hi_unbounded: no candidate at all (no module tree), hi is then meaningless.
	 */
	uint64_t lo, hi;
	bool hi_unbounded;
	enum cost_doubt {
		DOUBT_NONE,
		DOUBT_RACE,
		DOUBT_TIMING,
		DOUBT_UNSIZED,
	} doubt;			/* why lo != hi */
};

struct module_cost {
	const char *name;		/* owned by the ledger; NULL: unnamed attempts */
	uint64_t wasted;		/* failed and duplicate attempts only */
	uint64_t by_class[_VMAP_MAX];
	uint64_t wasted_measured;
	bool measured;
	size_t unestimated;		/* failed attempts that could not be estimated */
};

struct cost_result {
	struct attempt_cost *att;	/* parallel to ledger attempts */
	size_t n;
	struct module_cost *mods;
	size_t n_mods;
	struct hindex *by_name;		/* mods by name */
	uint64_t wasted;
	uint64_t wasted_min, wasted_max;	/* the sums of every attempt's lo and hi */
	bool max_unbounded;		/* some attempt has no upper bound */
	size_t uncertain;		/* failed attempts whose lo != hi, of which: */
	size_t uncertain_race;		/* racing duplicates (race_extra) */
	size_t uncertain_timing;	/* waiter or payer by timing alone */
	size_t uncertain_unsized;	/* no module file: 0 to the largest candidate */
	uint64_t by_class[_VMAP_MAX];
	uint64_t wasted_measured;
	bool measured;
	size_t unestimated;
	/* the most bytes failed attempts held at once (buffers live during the call) */
	uint64_t peak_concurrent;
	double peak_ts;
};

/* The module file of @name for the model, or NULL when it cannot be found. */
typedef const struct cost_module *(*cost_lookup_fn)(void *userdata, const char *name);
/*
 * The most @a (a copy, with the outcome to price) can have cost with any module file its
 * evidence allows (its size when known, else its autoload request's modules, else every
 * file). 0 with *ret_max, -ENOENT when no file is a candidate, -ENOMEM.
 */
typedef int (*cost_max_fn)(void *userdata, const struct cost_kernel *k, const struct attempt *a,
			   uint64_t *ret_max);

/*
 * One attempt's own figures (not race_extra, which looks across attempts): what
 * cost_compute() fills for it. @m may be NULL (its file was not found).
 */
void cost_attempt(const struct cost_kernel *k, const struct attempt *a,
		  const struct cost_module *m, struct attempt_cost *ac);
int cost_compute(const struct ledger *l, const struct cost_kernel *k, cost_lookup_fn lookup,
		 void *userdata, struct cost_result **ret);
/* The same, with the bounds of unsized attempts from @max (NULL: unbounded). */
int cost_compute_bounded(const struct ledger *l, const struct cost_kernel *k,
			 cost_lookup_fn lookup, cost_max_fn max, void *userdata,
			 struct cost_result **ret);
/*
 * Attempt @i of @l priced as cost_compute_bounded() prices it (its estimate, race_extra,
 * its bounds), looking at the attempts it overlaps only: those kept around it, @longest
 * the longest complete call among them. 0 or -ENOMEM.
 */
int cost_attempt_bounded(const struct ledger *l, size_t i, const struct cost_kernel *k,
			 double longest, cost_lookup_fn lookup, cost_max_fn max, void *userdata,
			 struct attempt_cost *ac);
struct cost_result *cost_result_free(struct cost_result *r);
const char *cost_source_name(enum cost_source s);
const struct module_cost *cost_module_find(const struct cost_result *r, const char *name);
