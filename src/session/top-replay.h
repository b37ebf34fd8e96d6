/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "session/top-history.h"
#include "session/top-sample.h"
#include "session/system.h"

/* The replay sampler: a captured root, by the clock of its trace and kernel log. */
struct top_replay;

/*
 * Reads the root of @st (which must outlive the replay) for a replay at @speed times the
 * capture's pace (0: everything at once). Warnings go to @w (may be NULL). 0, or -errno
 * with *ret_fail saying what failed when it can.
 */
int top_replay_new(const struct kt_system *st, double speed, const struct top_warn *w,
		   struct top_failure *ret_fail, struct top_replay **ret);
struct top_replay *top_replay_free(struct top_replay *rp);
/*
 * The next sample, @dt seconds of the replay clock (times the speed) after the
 * previous one: a top_sampler's sample function, @userdata the replay. 0.
 */
int top_replay_sample(void *userdata, double dt, const struct top_sample **ret);
