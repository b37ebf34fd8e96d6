/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/*
 * The live collection's interface as the live sampler uses it, declared as cmd/cmd.h
 * declares it while the engine is still part of cmd/record.c (a session file includes
 * no command header). Temporary: when the engine moves to session/, its own header
 * takes this one's place, and the two must agree until then.
 */

struct kt_root;
struct ktrace_event;
struct live;

struct live_opts {
	double duration;	/* seconds; 0: until SIGINT, SIGTERM or SIGHUP */
	bool measure;		/* vmap area allocations with their stacks */
	bool since_boot;	/* the kernel log from its oldest record, not from now */
	const char *release;	/* the running kernel's: what its tracing can do */
	/* proc/vmallocinfo and proc/meminfo sampled every poll from here; NULL: not */
	const struct kt_root *root;
};

struct live_sink_ops {
	int (*event)(void *userdata, const struct ktrace_event *ev);
	void (*bad)(void *userdata, const char *what);	/* a page or record not decoded */
};

int live_start(const struct live_opts *o, int trace_fd, int kmsg_fd, struct live **ret);
int live_poll(struct live *lv, unsigned int max_reads);
int live_mark_now(struct live *lv);
int live_set_sink(struct live *lv, const struct live_sink_ops *ops, void *userdata);
int live_pull_events(struct live *lv);
int live_lost_now(struct live *lv, uint64_t *ret);
int live_trace_error(const struct live *lv, const char **ret_why);
int live_kmsg_error(const struct live *lv, const char **ret_why);
bool live_measuring(const struct live *lv, const char **ret_why);
struct live *live_free(struct live *lv);
int live_trace_fd(const struct live *lv);
int live_kmsg_fd(const struct live *lv);
const char *live_trace_name(const struct live *lv);
