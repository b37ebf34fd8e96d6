/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every command shares on its command line: the global options, and what to say
 * after a bad one. Here, not in main's file, so that no command calls into main. And
 * what the commands that collect live (report --duration, top, record) share: the
 * --duration argument, and the warnings about what a collection lacked and lost.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "util/escape.h"
#include "util/log.h"
#include "util/version.h"
#include "session/snapshot.h"
#include "util/parse-num.h"
#include "util/root.h"
#include "session/system.h"
#include "cmd/cmd.h"
#include "session/live.h"

int live_opt_handle(struct live_opts *lo, int opt, const char *arg)
{
	switch (opt) {
	case OPT_LIVE_DURATION:
		return cmd_parse_duration(arg, &lo->duration) < 0 ? -1 : 1;
	case OPT_LIVE_MEASURE:
		lo->measure = true;
		return 1;
	case OPT_LIVE_SINCE_BOOT:
		lo->since_boot = true;
		return 1;
	}
	return 0;
}

int global_opt_handle(struct global_opts *g, int opt, const char *arg)
{
	switch (opt) {
	case OPT_ROOT:
		g->root = arg;
		return 1;
	case OPT_RELEASE:
		if (!kver_release_ok(arg)) {
			char *e = escape_dup(arg, strlen(arg));

			log_error("invalid --kernel-release '%s': up to 64 letters, digits and "
				  "'._-+~', as uname -r gives", e ? e : "?");
			free(e);
			return -1;
		}
		g->release = arg;
		return 1;
	case OPT_MODULEDIR:
		g->moduledir = arg;
		return 1;
	case 'j':
		g->json = true;
		return 1;
	case 'p':
		g->json = true;
		g->pretty = true;
		return 1;
	case OPT_COLOR:
		if (color_when_parse(arg ? arg : "always", &g->color) < 0) {
			log_error("invalid --color value '%s' (auto, always, never)", arg);
			return -1;
		}
		return 1;
	}
	return 0;
}

/*
 * The optimal string alignment distance (Levenshtein plus swapping two neighbours, the
 * commonest typo: "reprot"), for "did you mean". Words longer than any name are far.
 */
#define EDIT_MAX 32
unsigned int cmd_edit_distance(const char *a, size_t la, const char *b)
{
	unsigned int d[EDIT_MAX + 1][EDIT_MAX + 1];
	size_t lb = strlen(b);

	if (la > EDIT_MAX || lb > EDIT_MAX)
		return UINT_MAX;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			unsigned int cost = a[i - 1] != b[j - 1];
			unsigned int v = d[i - 1][j - 1] + cost;

			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return d[la][lb];
}

void cmd_usage_error(const char *cmd, const struct option *opts, char *const *argv, int argind)
{
	/*
	 * getopt_long() has said what was wrong; after an unknown or ambiguous long
	 * option, optopt is 0 and the word is the one before optind
	 */
	const char *word = argind > 0 ? argv[argind - 1] : NULL;

	if (optopt == 0 && word && word[0] == '-' && word[1] == '-' && word[2]) {
		const char *name = word + 2, *best = NULL;
		size_t len = strcspn(name, "=");
		unsigned int best_d = CMD_SUGGEST_MAX + 1;

		for (const struct option *o = opts; o->name; o++) {
			unsigned int dist;

			/* a prefix of an option is ambiguous, not misspelt: getopt listed them */
			if (strncmp(o->name, name, len) == 0) {
				best = NULL;
				break;
			}
			dist = cmd_edit_distance(name, len, o->name);
			if (dist < best_d) {
				best_d = dist;
				best = o->name;
			}
		}
		if (best) {
			if (cmd)
				fprintf(stderr, "kmodtop %s: did you mean '--%s'?\n", cmd, best);
			else
				fprintf(stderr, "kmodtop: did you mean '--%s'?\n", best);
		}
	}
	if (cmd)
		fprintf(stderr, "Try 'kmodtop %s --help' for more information.\n", cmd);
	else
		fputs("Try 'kmodtop --help' for more information.\n", stderr);
}

int cmd_parse_duration(const char *arg, double *ret)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || !isfinite(v) || v <= 0)
		goto bad;
	if (*end == 's')
		end++;
	else if (*end == 'm')
		v *= 60, end++;
	else if (*end == 'h')
		v *= 3600, end++;
	if (*end || v > 366.0 * 24 * 3600)
		goto bad;
	*ret = v;
	return 0;
bad:
	log_error("--duration '%s': not a number of seconds (N, Ns, Nm, Nh)", arg);
	return -EINVAL;
}

/* Says on stderr what the collection lacked and lost; 0, or -1 when it left state. */
int live_log(const struct live_session *lv)
{
	const struct live_status *st = live_get_status(lv);
	const char *pfx = st->tracefs_path ? st->tracefs_path : "tracefs";

	if (st->stale.instances || st->stale.probes)
		log_info("removed %u tracefs instance(s) and %u kprobe event(s) left by kmodtop "
			 "processes that no longer run",
			 st->stale.instances, st->stale.probes);
	if (st->stale.failed)
		log_warn("%u leftover kmodtop tracefs instance(s) or kprobe(s) could not be "
			 "removed: %s, ignoring",
			 st->stale.failed, strerror(-st->stale.first_err));
	if (st->trace_err)
		log_warn("no trace: %s (%s): no load attempts from the trace, only from the "
			 "kernel log",
			 st->trace_why ? st->trace_why : "tracefs", strerror(-st->trace_err));
	for (size_t i = 0; !st->trace_err && i < st->n_events; i++) {
		if (!st->events[i].err)
			continue;
		if (st->events[i].why)
			log_warn("%s: no probe %s (%s): no %s", pfx, st->events[i].name,
				 st->events[i].why, st->events[i].loses);
		else
			log_warn("%s: this kernel has no event %s: no %s", pfx,
				 st->events[i].name, st->events[i].loses);
	}
	if (st->measure_asked && !st->trace_err && st->measure == KTRACE_MEASURE_NONE)
		log_warn("--measure: %s: estimates only", st->measure_why ? st->measure_why : "?");
	if (st->kmsg_err)
		log_warn("/dev/kmsg: %s (%s): no kernel log findings", st->kmsg_why,
			 strerror(-st->kmsg_err));
	if (st->kstats.epipe)
		log_warn("/dev/kmsg: %" PRIu64 " time(s) records were overwritten before kmodtop "
			 "read them (%" PRIu64 " records lost)",
			 st->kstats.epipe, st->kstats.lost);
	if (st->lost_err)
		log_warn("%s/per_cpu/cpuN/stats: %s: lost events unknown", st->instance,
			 strerror(-st->lost_err));
	for (unsigned int c = 0; c < st->ncpus; c++)
		if (st->lost[c])
			log_warn("%s: %" PRIu64 " trace events lost on CPU %u (per_cpu/cpu%u/stats): "
				 "attempts may be missing or incomplete",
				 st->instance, st->lost[c], c, c);
	if (st->lost_uncounted)
		log_warn("%s: %" PRIu64 " \"[LOST EVENTS]\" line(s) without a count: an unknown "
			 "number of trace events lost", st->instance, st->lost_uncounted);
	if (st->teardown_err) {
		log_error("%s: %s could not be removed (%s): remove it with 'rmdir %s/%s'%s%s", pfx,
			  st->instance, strerror(-st->teardown_err), pfx, st->instance,
			  st->group[0] ? " and the kprobe group " : "", st->group);
		return -1;
	}
	return 0;
}

/* Logs a source that failed in a way worth telling; absent optional files are not. */
void cmd_warn_source(const char *path, int r, const struct kt_err *e)
{
	const char *why = snapshot_refused_why(path, r);

	if (why) {
		log_warn("'%s': %s: %s, ignoring", path, strerror(-r), why);
		return;
	}
	if (e && e->what && e->path[0]) {
		if (e->line)
			log_warn("'%s':%u: %s, ignoring", e->path, e->line, e->what);
		else
			log_warn("'%s': %s, ignoring", e->path, e->what);
	} else {
		log_warn("'%s': %s, ignoring", path, strerror(-r));
	}
}

int cmd_parse_width(const char *arg, int64_t *ret)
{
	uint32_t width;

	if (parse_u32(arg, 10, &width) < 0 ||
	    (width && (width < CMD_MIN_WIDTH || width > CMD_MAX_WIDTH))) {
		log_error("--width: '%s' is not a width (0 for none, or %d-%d columns)", arg,
			  CMD_MIN_WIDTH, CMD_MAX_WIDTH);
		return -EINVAL;
	}
	*ret = width;
	return 0;
}

unsigned int cmd_text_width(int64_t arg_width)
{
	struct winsize ws;
	const char *env = getenv("COLUMNS");
	uint32_t n;

	if (arg_width >= 0)
		return (unsigned int)arg_width;
	if (env && parse_u32(env, 10, &n) == 0 && n >= CMD_MIN_WIDTH && n <= CMD_MAX_WIDTH)
		return n;
	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col)
		return ws.ws_col < CMD_MIN_WIDTH ? CMD_MIN_WIDTH : ws.ws_col;
	return 0;
}

void cmd_warn_release(const struct kt_system *sys)
{
	if (sys->release_rejected)
		log_warn("'proc/sys/kernel/osrelease': not a kernel release, ignoring");
	if (!kt_system_release(sys))
		log_warn("kernel release unknown (no proc/sys/kernel/osrelease under '%s'); "
			 "use --kernel-release",
			 root_dir(sys->root));
}
