/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "session/top-history.h"
#include "session/top-sample.h"
#include "session/system.h"

/*
 * The live sampler: ROOT/proc read at every refresh; on the running system also the
 * live collection's attempts as they settle, under a captured root its history once.
 */
struct top_live;
struct live_session;

/*
 * Starts sampling the root of @st (which must outlive the sampler); on the running
 * system this starts the live collection (@measure: vmap allocations traced), so the
 * caller holds the stop signals first. Warnings go to @w (may be NULL). 0, or -errno
 * with *ret_fail saying what failed when it can.
 */
int top_live_new(const struct kt_system *st, bool measure, const struct top_warn *w,
		 struct top_failure *ret_fail, struct top_live **ret);
/* Removes the live collection's instance first, whatever else fails. */
struct top_live *top_live_free(struct top_live *p);
/*
 * A top_sampler's sample function, @userdata the sampler: 0, or -errno with
 * top_live_failure() saying what failed when it can.
 */
int top_live_sample(void *userdata, double dt, const struct top_sample **ret);
const struct top_failure *top_live_failure(const struct top_live *p);
/* The live collection, for its end and its account of what it lacked; NULL: none */
struct live_session *top_live_engine(const struct top_live *p);
/* Refreshes that read the live trace and log into the attempts, their seconds, the longest */
void top_live_update_stats(const struct top_live *p, size_t *ret_n, double *ret_secs,
			   double *ret_max);
/* The first failed read of proc/vmallocinfo and proc/meminfo, to the warnings */
void top_live_warn_reads(const struct top_live *p);
