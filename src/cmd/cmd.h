/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "output/color.h"

/* Exit codes (man page: EXIT STATUS) */
enum {
	EXIT_OK = 0,
	EXIT_ERROR = 1,		/* a source could not be read or parsed, or out of memory */
	EXIT_USAGE = 2,		/* bad command line */
	EXIT_NO_MODULES = 4,	/* the kernel has no module support: nothing to report (kselftest skip) */
};

struct global_opts {
	const char *root;
	const char *release;
	const char *moduledir;
	bool json;
	bool pretty;
	enum color_when color;
};

struct option;
/*
 * After getopt_long() returned '?': "did you mean" for a misspelt long option (the word
 * before argind), then "Try 'kmodtop CMD --help'" (cmd NULL: kmodtop's own options).
 */
void cmd_usage_error(const char *cmd, const struct option *opts, char *const *argv, int argind);

/* Parses one global option (from the long option table below); 1 if it was one. */
int global_opt_handle(struct global_opts *g, int opt, const char *arg);

/*
 * The optimal string alignment distance between @a (@la bytes) and @b, for "did you
 * mean"; UINT_MAX for words longer than any name. A suggestion further than
 * CMD_SUGGEST_MAX edits is more often wrong than right.
 */
unsigned int cmd_edit_distance(const char *a, size_t la, const char *b);
#define CMD_SUGGEST_MAX 2

#define GLOBAL_LONG_OPTIONS                                          \
	{ "root", required_argument, NULL, OPT_ROOT },               \
	{ "kernel-release", required_argument, NULL, OPT_RELEASE },  \
	{ "moduledir", required_argument, NULL, OPT_MODULEDIR },     \
	{ "json", no_argument, NULL, 'j' },                          \
	{ "pretty", no_argument, NULL, 'p' },                        \
	{ "color", optional_argument, NULL, OPT_COLOR },             \
	{ "colour", optional_argument, NULL, OPT_COLOR }

#define GLOBAL_SHORT_OPTIONS "jp"

enum {
	OPT_ROOT = 0x100,
	OPT_RELEASE,
	OPT_MODULEDIR,
	OPT_COLOR,
	OPT_CMD_BASE = 0x200,
};

int cmd_report(int argc, char **argv, struct global_opts *g);
int cmd_top(int argc, char **argv, struct global_opts *g);
int cmd_ci(int argc, char **argv, struct global_opts *g);
int cmd_record(int argc, char **argv, struct global_opts *g);
int cmd_boot_setup(int argc, char **argv, struct global_opts *g);

/*
 * Live collection (cmd/record.c), for `report --duration` and `record`: kmodtop's own
 * tracefs instance and /dev/kmsg, spooled verbatim to two file descriptors that the
 * report then reads as it reads a captured root.
 */
struct live_opts {
	double duration;	/* seconds; 0: until SIGINT, SIGTERM or SIGHUP */
	bool measure;		/* vmap area allocations with their stacks */
	bool since_boot;	/* the kernel log from its oldest record, not from now */
	const char *release;	/* the running kernel's: what its tracing can do */
	/* proc/vmallocinfo and proc/meminfo sampled every poll from here; NULL: not */
	const struct kt_root *root;
};

struct live;
struct out;

/* "30", "30s", "1.5m", "2h" */
int live_parse_duration(const char *s, double *ret);
/*
 * Collects until the duration runs out or a stop signal comes, then removes the
 * instance. Sources that cannot be had are recorded in the result, not failures.
 * @trace_fd and @kmsg_fd receive the spools (not owned); -1 and -1: in memory, owned
 * by the result. 0 with *ret, or -errno (out of memory, a spool write failed).
 */
int live_collect(const struct live_opts *o, int trace_fd, int kmsg_fd, struct live **ret);
/*
 * The same collection in steps, for a caller with its own loop (top): live_start()
 * starts it (no signal handling: the caller's), live_poll() reads what the instance
 * and /dev/kmsg hold now into the spools (at most @max_reads reads of trace_pipe):
 * 1 when anything came, 0 when not, -errno (the trace failed: live_trace_error()).
 * live_end() takes what is still buffered and removes the instance; live_free() does
 * that too when it was not done. A caller reading the spools between polls may move
 * their offsets: live_poll() seeks them back to their ends.
 */
int live_start(const struct live_opts *o, int trace_fd, int kmsg_fd, struct live **ret);
int live_poll(struct live *lv, unsigned int max_reads);
/*
 * A marker in the trace, to be read back with the events: the trace clock's "now"
 * when nothing else happens (top settles attempts by it). 0 or -errno.
 */
int live_mark_now(struct live *lv);
/*
 * Top's way past the text: from now on the raw buffers' events go to @ops, decoded, in
 * time order, and not to the trace spool (whose text the caller has read). live_poll()
 * only reads and decodes the pages; live_pull_events() hands on what is a second older
 * than the newest, live_end() the rest. -ENOTSUP when the trace is read as text (the
 * spool goes on being written).
 */
struct ktrace_event;
struct live_sink_ops {
	int (*event)(void *userdata, const struct ktrace_event *ev);
	void (*bad)(void *userdata, const char *what);	/* a page or record not decoded */
};
int live_set_sink(struct live *lv, const struct live_sink_ops *ops, void *userdata);
int live_pull_events(struct live *lv);
struct pollfd;
/* Fills up to two pollfds (trace_pipe, /dev/kmsg); how many. */
int live_pollfds(const struct live *lv, struct pollfd *pfd);
int live_end(struct live *lv);
/* Trace events lost so far (per_cpu/cpuN/stats, at least the "[LOST n]" lines seen). */
int live_lost_now(struct live *lv, uint64_t *ret);
/* 0 when tracing, or the -errno that stopped it with *ret_why (static text). */
int live_trace_error(const struct live *lv, const char **ret_why);
int live_kmsg_error(const struct live *lv, const char **ret_why);
/* Are vmap allocations traced (--measure)? If not, *ret_why says why (may be NULL). */
bool live_measuring(const struct live *lv, const char **ret_why);
struct live *live_free(struct live *lv);
bool live_has_trace(const struct live *lv);
bool live_has_kmsg(const struct live *lv);
/* The spools, or -1 when that source was not had. Owned by @lv. */
int live_trace_fd(const struct live *lv);
int live_kmsg_fd(const struct live *lv);
/* "instances/kmodtop-PID/trace_pipe", owned by @lv */
const char *live_trace_name(const struct live *lv);
int live_teardown_error(const struct live *lv);
/* Tells on stderr what is missing and lost; -1 when kmodtop's tracing state was left. */
int live_log(const struct live *lv);
/* The "live" section: sources, missing events, lost events, measurement mode. */
void live_render(const struct live *lv, struct out *o);
struct vmsample;
/* The vmallocinfo samples (none when not asked), and why sampling stopped (0: it did not). */
const struct vmsample *live_vmsample(const struct live *lv, int *ret_err);
