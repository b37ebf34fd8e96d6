/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <getopt.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "output/color.h"
#include "util/escape.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/parse-num.h"
#include "util/root.h"
#include "views/top/loop.h"
#include "views/top/model.h"
#include "views/top/term-curses.h"
#include "cmd/cmd.h"
#include "session/live.h"
#include "session/top-live.h"
#include "session/top-replay.h"
#include "session/collect.h"
#include "session/system.h"

/*
 * kmodtop top: wires a sampler (session/top-replay.h: a replayed capture;
 * session/top-live.h: the system's files polled at every refresh, with on the running
 * system the live collection) to the top view's loop. The view itself knows no source:
 * it takes struct top_sample (session/top-sample.h).
 */

static void top_usage(FILE *f)
{
	fputs("Usage: kmodtop [OPTIONS] top [--replay DIR [--speed X]] [OPTIONS]\n"
	      "\n"
	      "Show module loads as they happen: which modules are loaded again and again,\n"
	      "which loads fail, who asks, and what it costs in vmalloc space. Without\n"
	      "--replay, reads ROOT/proc at every refresh (ROOT is / or --root); on the\n"
	      "running system it also traces loads live, as 'report --duration' (root).\n"
	      "\n"
	      "Options:\n"
	      "      --replay DIR      replay a captured root: its trace and kernel log by\n"
	      "                        their timestamps, capture/snapshots/ on the way\n"
	      "      --speed X         replay X times as fast as captured (default 1;\n"
	      "                        0: everything at once)\n"
	      "  -d, --delay N         refresh every N tenths of a second (default 15)\n"
	      "  -s, --sort-key KEY    sort the module table by KEY ('--sort-key help' lists\n"
	      "                        them; default wasted)\n"
	      "  -F, --filter STR      show only modules matching STR (a|b: either)\n"
	      "      --measure         show measured bytes (vmap allocations in the trace;\n"
	      "                        live: traced with their stacks)\n"
	      "  -C, --no-color        no colour (also NO_COLOR, --color=never)\n"
	      "  -U, --no-unicode      ASCII only: no Unicode sparklines and tree lines\n"
	      "  -M, --no-mouse        leave the mouse to the terminal\n"
	      "  -n, --iterations N    exit after N refreshes\n"
	      "  -b, --batch           no terminal: print each refresh as text (with -j: one\n"
	      "                        JSON line per refresh; --color=always: coloured)\n"
	      "      --size WxH        the frame size of --batch (default 80x24, or the\n"
	      "                        terminal's)\n"
	      "      --no-cache        analyse module files afresh, without the cache in\n"
	      "                        $XDG_CACHE_HOME/kmodtop\n"
	      "  -h, --help            show this help\n"
	      "\n"
	      "Keys: F1 or ? help, / search, \\ filter, < > sort, I invert, Tab views, t tree,\n"
	      "Enter detail, Z or space pause, Ctrl-L redraw, q quit.\n"
	      "The global options (--root, --kernel-release, --moduledir, --color) may also\n"
	      "follow the command. Exit status: 0 done, 1 an error, 2 bad command line, 4 the\n"
	      "kernel has no module support, 128+N ended by signal N.\n",
	      f);
}

enum {
	OPT_REPLAY = OPT_CMD_BASE,
	OPT_SPEED,
	OPT_MEASURE,
	OPT_SIZE,
	OPT_NO_CACHE,
};

/* A sampler's warning, said as report says its own */
static void top_warn_log(void *userdata, const char *text)
{
	log_warn("%s", text);
}

/* What a sampler said of why it failed; out of memory said once more, as it always was */
static void say_failure(const struct top_failure *f, int r)
{
	if (f->has_err)
		log_kt_err(&f->err, r);
	else if (f->what)
		log_error("%s: %s", f->what, strerror(-r));
	if (r == -ENOMEM)
		log_error("out of memory");
}

static int parse_size(const char *s, int *ret_w, int *ret_h)
{
	char buf[32], *x;
	int w, h;

	snprintf(buf, sizeof(buf), "%s", s);
	x = strchr(buf, 'x');
	if (!x)
		return -EINVAL;
	*x = '\0';
	if (parse_int(buf, &w) < 0 || parse_int(x + 1, &h) < 0 || w < 20 || h < 8 ||
	    w > 1000 || h > 1000)
		return -EINVAL;
	*ret_w = w;
	*ret_h = h;
	return 0;
}

static int parse_speed(const char *s, double *ret)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || !(v >= 0) || v > 1e6)
		return -EINVAL;
	*ret = v;
	return 0;
}

static bool locale_is_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);

	return cs && strcmp(cs, "UTF-8") == 0;
}

static void list_sort_keys(void)
{
	size_t n;
	const struct top_column *c = top_columns(TOP_VIEW_MODULES, &n);

	for (size_t i = 0; i < n; i++)
		if (!(c[i].flags & TOP_COL_NOSORT))
			printf("%-10s %-15s %s\n", c[i].key, c[i].header, c[i].help);
}

int cmd_top(int argc, char **argv, struct global_opts *g)
{
	static const struct option long_options[] = {
		GLOBAL_LONG_OPTIONS,
		{ "replay", required_argument, NULL, OPT_REPLAY },
		{ "speed", required_argument, NULL, OPT_SPEED },
		{ "delay", required_argument, NULL, 'd' },
		{ "sort-key", required_argument, NULL, 's' },
		{ "filter", required_argument, NULL, 'F' },
		{ "measure", no_argument, NULL, OPT_MEASURE },
		{ "no-color", no_argument, NULL, 'C' },
		{ "no-colour", no_argument, NULL, 'C' },
		{ "no-unicode", no_argument, NULL, 'U' },
		{ "no-mouse", no_argument, NULL, 'M' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "batch", no_argument, NULL, 'b' },
		{ "size", required_argument, NULL, OPT_SIZE },
		{ "no-cache", no_argument, NULL, OPT_NO_CACHE },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const char *arg_replay = NULL, *arg_sort = NULL, *arg_filter = NULL, *dir;
	bool arg_measure = false, arg_no_color = false, arg_no_unicode = false;
	bool arg_no_mouse = false, arg_batch = false, size_given = false,
	     arg_no_cache = false;
	double arg_speed = 1, arg_delay = 1.5;
	long arg_iterations = 0;
	int width = 80, height = 24, opt, r, ret = EXIT_ERROR, col = -1;
	struct kt_system sys = { 0 };
	struct top_warn warn = { .warn = top_warn_log };
	struct top_failure fail = { 0 };
	struct top_replay *rp = NULL;
	struct top_live *pl = NULL;
	struct top_model *m = NULL;
	struct top_sampler smp = { 0 };
	struct top_loop_opts lo = { 0 };
	struct top_ui ui;
	char program[64];
	sigset_t oldmask;
	bool restore_mask = false;

	while ((opt = getopt_long(argc, argv, GLOBAL_SHORT_OPTIONS "hd:s:F:CUMn:b",
				  long_options, NULL)) != -1) {
		uint64_t v;

		switch (opt) {
		case 'h':
			top_usage(stdout);
			return EXIT_OK;
		case '?':
			cmd_usage_error("top", long_options, argv, optind);
			return EXIT_USAGE;
		case OPT_REPLAY:
			arg_replay = optarg;
			continue;
		case OPT_SPEED:
			if (parse_speed(optarg, &arg_speed) < 0) {
				log_error(
					"--speed '%s': not a number of times (0: all at once)",
					optarg);
				return EXIT_USAGE;
			}
			continue;
		case 'd':
			/* htop's tenths of a second */
			if (parse_u64(optarg, 10, &v) < 0 || v < 1 || v > 100) {
				log_error("--delay '%s': expected 1 to 100 tenths of a second",
					  optarg);
				return EXIT_USAGE;
			}
			arg_delay = (double)v / 10.0;
			continue;
		case 's':
			arg_sort = optarg;
			continue;
		case 'F':
			arg_filter = optarg;
			continue;
		case OPT_MEASURE:
			arg_measure = true;
			continue;
		case 'C':
			arg_no_color = true;
			continue;
		case 'U':
			arg_no_unicode = true;
			continue;
		case 'M':
			arg_no_mouse = true;
			continue;
		case 'n':
			if (parse_u64(optarg, 10, &v) < 0 || v < 1 || v > 1000000000) {
				log_error("--iterations '%s': not a positive number",
					  optarg);
				return EXIT_USAGE;
			}
			arg_iterations = (long)v;
			continue;
		case 'b':
			arg_batch = true;
			continue;
		case OPT_NO_CACHE:
			arg_no_cache = true;
			continue;
		case OPT_SIZE:
			if (parse_size(optarg, &width, &height) < 0) {
				log_error("--size '%s': WIDTHxHEIGHT, at least 20x8",
					  optarg);
				return EXIT_USAGE;
			}
			size_given = true;
			continue;
		}
		if (global_opt_handle(g, opt, optarg) <= 0)
			return EXIT_USAGE;
	}
	if (optind < argc) {
		log_error("top: unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	if (arg_sort && strcmp(arg_sort, "help") == 0) {
		list_sort_keys();
		return EXIT_OK;
	}
	if (arg_sort) {
		col = top_column_find(TOP_VIEW_MODULES, arg_sort);
		if (col < 0) {
			log_error(
				"--sort-key '%s': no such column ('--sort-key help' lists them)",
				arg_sort);
			return EXIT_USAGE;
		}
	}
	if (arg_replay && g->root && strcmp(arg_replay, g->root) != 0) {
		log_error(
			"--replay and --root name different trees; --replay DIR is the root");
		return EXIT_USAGE;
	}
	if (g->json && !arg_batch) {
		log_error("top: --json prints frames for --batch; add --batch");
		return EXIT_USAGE;
	}
	if (!arg_batch && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		log_error("top needs a terminal (or --batch)");
		return EXIT_USAGE;
	}
	if (!arg_batch) {
		const char *term = getenv("TERM");
		_cleanup_free_ char *e = escape_dup(term ? term : "", term ? strlen(term) : 0);

		/* curses would draw a dumb terminal's frames as one line of garbage */
		r = term_check();
		if (r < 0) {
			log_error("top: TERM=%s: %s; use --batch for plain text frames",
				  e ? e : "?",
				  !term || !*term ? "not set"
				  : r == -ENOENT ? "a terminal type terminfo does not know"
						 : "this terminal cannot place the cursor");
			return EXIT_USAGE;
		}
	}
	if (arg_batch && !size_given && isatty(STDOUT_FILENO)) {
		struct winsize ws;

		if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20 &&
		    ws.ws_row >= 8) {
			width = ws.ws_col;
			height = ws.ws_row;
		}
	}

	/*
	 * A reader that goes away (top --batch | head -1) is an EPIPE that ends the loop,
	 * not a SIGPIPE that would kill kmodtop with its tracefs instance still there.
	 */
	signal(SIGPIPE, SIG_IGN);

	/* the terminal's character set decides Unicode; --batch frames are UTF-8 */
	setlocale(LC_CTYPE, "");
	if (arg_no_color)
		g->color = COLOR_NEVER;
	/* --batch colours too when asked (--color=always) or writing to a terminal */
	color_init(g->color, isatty(STDOUT_FILENO));

	dir = arg_replay ? arg_replay : g->root ? g->root : "/";
	r = kt_system_open(&(struct kt_system_opts){ .root = dir, .release = g->release,
						     .moduledir = g->moduledir },
			   &sys);
	if (r < 0) {
		log_error("'%s': %s", dir, strerror(-r));
		goto out;
	}
	cmd_warn_release(&sys);
	if (sys.kconfig_err < 0 && sys.kconfig_err != -ENOENT && sys.kconfig_err != -ENOMEM)
		cmd_warn_source("kernel configuration", sys.kconfig_err, &sys.kconfig_e);
	kt_system_open_module_tree(&sys, !arg_no_cache);
	collect_module_tree_warn(&sys);
	if (!root_exists(sys.root, "proc/modules")) {
		log_info("%s: the kernel has no module support (no proc/modules)",
			 root_dir(sys.root));
		ret = EXIT_NO_MODULES;
		goto out;
	}
	if (arg_replay) {
		r = top_replay_new(&sys, arg_speed, &warn, &fail, &rp);
		if (r < 0) {
			say_failure(&fail, r);
			goto out;
		}
		smp = (struct top_sampler){ .sample = top_replay_sample,
					    .virtual_clock = true,
					    .userdata = rp };
	} else {
		/*
		 * A stop signal from here on waits for the loop (or for the teardown
		 * below): the tracefs instance must not outlive kmodtop
		 */
		if (root_is_live_system(sys.root)) {
			sigset_t stop;

			sigemptyset(&stop);
			sigaddset(&stop, SIGINT);
			sigaddset(&stop, SIGTERM);
			sigaddset(&stop, SIGHUP);
			sigaddset(&stop, SIGQUIT);
			sigprocmask(SIG_BLOCK, &stop, &oldmask);
			restore_mask = true;
		}
		r = top_live_new(&sys, arg_measure, &warn, &fail, &pl);
		if (r < 0) {
			say_failure(&fail, r);
			goto out;
		}
		smp = (struct top_sampler){ .sample = top_live_sample, .userdata = pl };
	}
	r = top_model_new(&m);
	if (r < 0) {
		log_error("out of memory");
		goto out;
	}
	top_ui_init(&ui);
	ui.unicode = !arg_no_unicode && (arg_batch || locale_is_utf8());
	if (col >= 0)
		ui.sort[TOP_VIEW_MODULES] = col;
	if (arg_filter)
		snprintf(ui.filter, sizeof(ui.filter), "%s", arg_filter);

	snprintf(program, sizeof(program), "kmodtop %s", PACKAGE_VERSION);
	lo = (struct top_loop_opts){
		.delay = arg_delay,
		.iterations = arg_iterations,
		.batch = arg_batch,
		.width = width,
		.height = height,
		.color = color_enabled(),
		.json = arg_batch && g->json,
		.mouse = !arg_no_mouse,
		.unicode = ui.unicode,
		.program = program,
		.out = stdout,
	};
	r = top_loop_run(&smp, m, &ui, &lo);
	if (r < 0) {
		if (pl && top_live_failure(pl)->has_err)
			log_kt_err(&top_live_failure(pl)->err, r);
		if (arg_batch && ferror(stdout))
			log_error("top: writing standard output: %s", strerror(-r));
		else
			log_error("top: %s", strerror(-r));
		goto out;
	}
	/* a signal ended it: the terminal is restored; exit as the shell expects */
	ret = r > 0 ? 128 + r : EXIT_OK;
out:
	top_model_free(m);
	rp = top_replay_free(rp);
	if (pl) {
		struct live_session *lv = top_live_engine(pl);

		/* the terminal is restored: what the live collection lacked can be said */
		if (lv) {
			size_t n;
			double secs, max;

			live_end(lv);
			if (live_log(lv) < 0)
				ret = EXIT_ERROR;
			top_live_update_stats(pl, &n, &secs, &max);
			if (arg_batch)
				log_info("top: %zu refreshes read the live trace and log into the "
					 "attempts in %.2f s (the longest %.2f s)",
					 n, secs, max);
		}
		top_live_warn_reads(pl);
		pl = top_live_free(pl);
	}
	kt_system_close(&sys);
	if (restore_mask)
		sigprocmask(SIG_SETMASK, &oldmask, NULL);
	return ret;
}

