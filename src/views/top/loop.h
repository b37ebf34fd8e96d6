/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "model.h"

/*
 * The refresh loop (irqtop's): epoll on a timerfd (the delay), a signalfd (SIGWINCH,
 * and SIGTERM/INT/HUP/QUIT to leave cleanly) and the terminal; tick -> sample ->
 * model -> render -> blit. Keys redraw at once without sampling. --batch runs the
 * same ticks without a terminal and prints each frame as text.
 */

struct top_sampler {
	/*
	 * Advances the source by @dt seconds (0 for the first sample; never while paused)
	 * and hands over what it has now. *ret stays valid until the next call.
	 */
	int (*sample)(void *userdata, double dt, const struct top_sample **ret);
	/* Optional: a descriptor to watch (a live source), and what to do when readable. */
	int (*fd)(void *userdata);
	int (*readable)(void *userdata);
	/* Replay: time is the capture's, so --batch need not wait between frames. */
	bool virtual_clock;
	void *userdata;
};

struct top_loop_opts {
	double delay;			/* seconds */
	long iterations;		/* refreshes before exiting; 0: no limit */
	bool batch;
	int width, height;		/* --batch frame size */
	bool color, mouse, unicode;
	bool json;			/* --batch: each frame as one line of JSON */
	const char *program;		/* title */
	FILE *out;			/* --batch */
};

/*
 * Runs until q, --iterations, the end of a batch replay, or a signal. 0, a signal
 * number (the caller exits 128 + it), or -errno: with --batch, -EPIPE or -EIO when
 * o->out cannot be written (ferror(o->out) tells that from a sampling error).
 */
int top_loop_run(const struct top_sampler *smp, struct top_model *m, struct top_ui *ui,
		 const struct top_loop_opts *o);

/* One refresh without a terminal (--batch, benchmarks): sample, update, render to text. */
int top_loop_batch_frame(const struct top_sampler *smp, struct top_model *m,
			 struct top_ui *ui, const struct top_loop_opts *o, double dt,
			 const struct top_sample **ret_sample);
