/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cost/catalog.h"
#include "output/output.h"
#include "util/log.h"
#include "util/parse-num.h"
#include "util/root.h"
#include "views/report.h"
#include "cmd/cmd.h"
#include "cmd/report.h"
#include "session/collect.h"
#include "session/saved-capture.h"
#include "session/snapshot.h"
#include "session/system.h"
#include "session/boot-capture.h"
#include "session/live.h"

static void report_usage(FILE *f)
{
	fputs("Usage: kmodtop [OPTIONS] report [-j|-p] [--trace FILE] [--log FILE] [--attempts]\n"
	      "       kmodtop [OPTIONS] report --duration N [--measure] [--since-boot] [-j|-p]\n"
	      "       kmodtop [OPTIONS] report --boot[=N] [-j|-p]\n"
	      "       kmodtop [OPTIONS] report --openmetrics|--prometheus|--textfile PATH\n"
	      "               [--label NAME=VALUE]...\n"
	      "\n"
	      "Describe the kernel's module support, its loaded modules and the vmalloc areas\n"
	      "that hold them; from a trace and a kernel log, the load attempts: which modules\n"
	      "were loaded more than once, which loads failed and why, and who asked.\n"
	      "Reads a live system, or a captured tree with --root.\n"
	      "\n"
	      "Options:\n"
	      "      --duration N    collect live for N seconds (also Ns, Nm, Nh; Ctrl-C ends\n"
	      "                      it early), then report; the trace needs root\n"
	      "      --measure       with --duration: trace vmap allocations with their stacks\n"
	      "                      and report the bytes each attempt allocated\n"
	      "      --since-boot    with --duration: the kernel log from its oldest record\n"
	      "      --boot[=N]      the boot's capture: the global trace buffer that the\n"
	      "                      command line of kmodtop boot-setup filled, with\n"
	      "                      /dev/kmsg (journald's copy once it has wrapped); else\n"
	      "                      the bundle kmodtop-boot.service wrote in\n"
	      "                      /var/lib/kmodtop. N: 0 this boot, -1 the one before\n"
	      "      --trace FILE    the trace to read: tracefs text (trace, trace_pipe),\n"
	      "                      trace-cmd report text, or trace-cmd's trace.dat\n"
	      "                      (default under --root: ROOT/sys/kernel/tracing/trace)\n"
	      "      --log FILE      kernel log (/dev/kmsg records, dmesg, journalctl -k, serial\n"
	      "                      console; default under --root: ROOT/capture/kmsg.raw, else\n"
	      "                      ROOT/capture/dmesg.txt)\n"
	      "      --no-trace      read no trace\n"
	      "      --no-log        read no kernel log\n"
	      "      --attempts      list every load attempt in the text output too\n"
	      "      --width N       fit the text in N columns (0: no limit); default: $COLUMNS,\n"
	      "                      else the terminal's, else (not a terminal) no limit\n"
	      "      --no-cache      analyse module files afresh, without the cache in\n"
	      "                      $XDG_CACHE_HOME/kmodtop\n"
	      "      --cpus N        CPUs to predict the per-CPU risk for (default: the root's)\n"
	      "      --openmetrics   the figures as OpenMetrics text, not the report\n"
	      "      --prometheus    the same in the Prometheus text format (0.0.4)\n"
	      "      --textfile PATH write them for node_exporter's textfile collector, in\n"
	      "                      the Prometheus format, atomically: to PATH/kmodtop.prom\n"
	      "                      when PATH is a directory, else to PATH (NAME.prom); the\n"
	      "                      report is then not printed unless -j, --openmetrics or\n"
	      "                      --prometheus asks for it\n"
	      "      --label NAME=VALUE  a label every metric gets (repeatable): host=web42\n"
	      "  -h, --help          show this help\n"
	      "\n"
	      "The global options (--root, --kernel-release, --moduledir, -j, -p, --color) may\n"
	      "also follow the command. Exit status: 0 done, 1 an error (the message names\n"
	      "the file), 2 bad command line, 4 the kernel has no module support.\n",
	      f);
}

enum {
	OPT_TRACE = OPT_CMD_BASE,
	OPT_LOG,
	OPT_NO_TRACE,
	OPT_NO_LOG,
	OPT_ATTEMPTS,
	OPT_NO_CACHE,
	OPT_CPUS,
	OPT_OPENMETRICS,
	OPT_PROMETHEUS,
	OPT_TEXTFILE,
	OPT_LABEL,
	OPT_BOOT,
	OPT_WIDTH,
};


struct report_session {
	struct kt_system sys;		/* the kernel under study */
	struct live_session *live;	/* report --duration: what was collected, its spools */
	struct kt_snapshot snap;	/* what the kernel shows now */
	struct modmem *mm;
	struct saved_capture saved;	/* the trace and the kernel log, read */
	bool use_cache;
	/* report --boot, live: the global buffer's trace file and the kernel log so far */
	int pre_trace_fd, pre_log_fd;
	const char *pre_trace_name, *pre_log_name;
	const char **untraced;		/* report --boot: names in pm */
};

static void report_session_done(struct report_session *c)
{
	kt_snapshot_done(&c->snap);
	modmem_free(c->mm);
	saved_capture_done(&c->saved);
	free(c->untraced);
	live_free(c->live);
	kt_system_close(&c->sys);
}

static void on_progress(void *userdata, size_t done, size_t total)
{
	log_progress("analysing module files", done, total);
}

/* The module tree through libkmod, with what is worth saying about it */
static void setup_module_tree(struct report_session *c)
{
	kt_system_open_module_tree(&c->sys, c->use_cache);
	collect_module_tree_warn(&c->sys);
	if (c->sys.cat && isatty(STDERR_FILENO))
		c->sys.cat->progress = on_progress;
}

static int compute_percpu(struct report_session *c, struct report_data *d, unsigned int arg_cpus)
{
	unsigned int trace_ncpus = c->saved.res.trace_stats.ncpus > 0 ?
					   (unsigned int)c->saved.res.trace_stats.ncpus : 0;
	const char *capture_from;
	struct kt_percpu_risks pr = {
		.alias = d->percpu, .max_alias = REPORT_MAX_PERCPU,
		.storms = d->storms, .max_storms = REPORT_MAX_PERCPU,
	};
	int r;

	d->capture_ncpus = kt_system_count_cpus(&c->sys, trace_ncpus, &capture_from);
	/* without a module tree, the capture's storms alone */
	if ((!c->sys.idx || !c->sys.cat) && !c->saved.ledger)
		return 0;
	if (arg_cpus) {
		d->ncpus = arg_cpus;
		d->ncpus_from = "--cpus";
	} else {
		d->ncpus = d->capture_ncpus;
		d->ncpus_from = capture_from;
	}
	r = kt_system_percpu_risks(&c->sys, c->saved.ledger, c->saved.cost, d->capture_ncpus,
				   d->ncpus, &pr);
	d->n_percpu = pr.n_alias;
	d->percpu_alias_from = pr.alias_from;
	d->n_storms = pr.n_storms;
	d->storms_wasted_at_n = pr.storms_wasted_at_n;
	return r;
}

/* An input that could not be opened, said once */
static void open_error(const char *what, const char *path, int r, const char *comp)
{
	if (r == -EPROTONOSUPPORT)
		log_error("%s '%s': %s compressed input is not supported (gzip, xz, zstd are)",
			  what, path, comp ? comp : "this");
	else
		log_error("%s '%s': %s", what, path, strerror(-r));
}

static int read_attempts(struct report_session *c, struct report_data *d,
			 const struct saved_inputs *in)
{
	struct saved_capture *sc = &c->saved;
	int r = saved_capture_read(&c->sys, c->snap.pm, in, sc);

	for (size_t i = 0; i < sc->n_skipped; i++)
		log_warn("'%s': %s, ignoring", sc->skipped[i].path, strerror(-sc->skipped[i].err));
	if (r < 0 && sc->failed_what) {
		open_error(sc->failed_what, sc->failed_path, r, sc->failed_compression);
		return r;
	}
	if (sc->has_order)
		collect_trace_order_warn(sc->trace_path, &sc->order);
	if (!sc->ledger)
		return r;
	d->trace_first = sc->res.trace_window.first;
	d->trace_last = sc->res.trace_window.last;
	d->log_first = sc->res.log_window.first;
	d->log_last = sc->res.log_window.last;
	if (sc->log_path) {
		d->log_format = sc->res.log_format;
		d->log_records = sc->res.log_records;
		d->log_malformed = sc->res.log_malformed;
		d->log_other_lines = sc->res.log_other_lines;
		d->log_path = sc->log_path;
	}
	if (r < 0) {
		if (sc->summary_failed)
			log_error("building load attempts: %s", strerror(-r));
		return r;
	}
	if (sc->trace_path) {
		d->trace_path = sc->trace_path;
		d->trace_stats = &sc->res.trace_stats;
	}
	d->ledger = sc->ledger;
	d->sum = sc->sum;
	d->cost = sc->cost;
	return 0;
}

/*
 * report --duration: collect first, then read the live system's state as any root is
 * read, so that the report describes the state the collection ended in, as a bundle
 * recorded at the same time would.
 */
static int watch_live(struct report_session *c, const struct global_opts *g, struct live_opts *lo)
{
	struct utsname u;
	int r;

	lo->release = g->release ? g->release : uname(&u) == 0 ? u.release : NULL;
	lo->root = c->sys.root;
	r = live_collect(lo, -1, -1, &c->live);
	if (r < 0)
		log_error("live collection: %s", strerror(-r));
	return r;
}

int cmd_report(int argc, char **argv, struct global_opts *g)
{
	static const struct option long_options[] = {
		GLOBAL_LONG_OPTIONS,
		LIVE_LONG_OPTIONS,
		{ "trace", required_argument, NULL, OPT_TRACE },
		{ "log", required_argument, NULL, OPT_LOG },
		{ "no-trace", no_argument, NULL, OPT_NO_TRACE },
		{ "no-log", no_argument, NULL, OPT_NO_LOG },
		{ "attempts", no_argument, NULL, OPT_ATTEMPTS },
		{ "no-cache", no_argument, NULL, OPT_NO_CACHE },
		{ "cpus", required_argument, NULL, OPT_CPUS },
		{ "openmetrics", no_argument, NULL, OPT_OPENMETRICS },
		{ "prometheus", no_argument, NULL, OPT_PROMETHEUS },
		{ "textfile", required_argument, NULL, OPT_TEXTFILE },
		{ "label", required_argument, NULL, OPT_LABEL },
		{ "boot", optional_argument, NULL, OPT_BOOT },
		{ "width", required_argument, NULL, OPT_WIDTH },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const char *arg_trace = NULL, *arg_log = NULL;
	bool arg_no_trace = false, arg_no_log = false, arg_attempts = false, arg_no_cache = false;
	uint32_t arg_cpus = 0;
	int64_t arg_width = -1;
	struct report_session c = { .pre_trace_fd = -1, .pre_log_fd = -1 };
	struct boot_capture bc = { .trace_fd = -1, .log_fd = -1 };
	struct report_boot rb = { 0 };
	bool arg_boot = false;
	int32_t arg_boot_n = 0;
	struct report_data d = {0};
	struct out *o = NULL;
	struct live_opts lo = {0};
	struct metrics_opts mo = {0};
	bool live_left_state = false, metrics_out;
	int opt, r, ret = EXIT_ERROR;

	d.trace_first = d.trace_last = d.log_first = d.log_last = NAN;
	while ((opt = getopt_long(argc, argv, GLOBAL_SHORT_OPTIONS "h", long_options, NULL)) != -1) {
		if (opt == 'h') {
			report_usage(stdout);
			ret = EXIT_OK;
			goto out;
		}
		if (opt == '?') {
			cmd_usage_error("report", long_options, argv, optind);
			ret = EXIT_USAGE;
			goto out;
		}
		switch (opt) {
		case OPT_OPENMETRICS:
			mo.openmetrics = true;
			continue;
		case OPT_PROMETHEUS:
			mo.prometheus = true;
			continue;
		case OPT_TEXTFILE:
			mo.textfile = optarg;
			continue;
		case OPT_LABEL:
			if (report_parse_label(&mo, optarg) < 0) {
				ret = EXIT_USAGE;
				goto out;
			}
			continue;
		case OPT_BOOT:
			arg_boot = true;
			if (optarg && (boot_capture_parse_index(optarg, &arg_boot_n) < 0)) {
				log_error("--boot: '%s' is not a boot (0 this one, -1 the one before, "
					  "...)", optarg);
				ret = EXIT_USAGE;
				goto out;
			}
			continue;
		case OPT_TRACE:
			arg_trace = optarg;
			continue;
		case OPT_LOG:
			arg_log = optarg;
			continue;
		case OPT_NO_TRACE:
			arg_no_trace = true;
			continue;
		case OPT_NO_LOG:
			arg_no_log = true;
			continue;
		case OPT_ATTEMPTS:
			arg_attempts = true;
			continue;
		case OPT_WIDTH:
			if (cmd_parse_width(optarg, &arg_width) < 0) {
				ret = EXIT_USAGE;
				goto out;
			}
			continue;
		case OPT_NO_CACHE:
			arg_no_cache = true;
			continue;
		case OPT_CPUS:
			if (parse_u32(optarg, 10, &arg_cpus) < 0 || arg_cpus == 0 || arg_cpus > 65536) {
				log_error("--cpus: '%s' is not a CPU count (1-65536)", optarg);
				ret = EXIT_USAGE;
				goto out;
			}
			continue;
		}
		r = live_opt_handle(&lo, opt, optarg);
		if (r == 0)
			r = global_opt_handle(g, opt, optarg);
		if (r <= 0) {
			ret = EXIT_USAGE;
			goto out;
		}
	}
	if (optind < argc) {
		log_error("report: unexpected argument '%s'", argv[optind]);
		ret = EXIT_USAGE;
		goto out;
	}
	if ((lo.measure || lo.since_boot) && !lo.duration) {
		log_error("report: --measure and --since-boot go with --duration");
		ret = EXIT_USAGE;
		goto out;
	}
	if (lo.duration && (arg_trace || arg_log)) {
		log_error("report: --duration collects its own trace and log: not with --trace, --log");
		ret = EXIT_USAGE;
		goto out;
	}
	if (arg_boot && (lo.duration || arg_trace || arg_log || arg_no_trace)) {
		log_error("report: --boot reads the boot's capture: not with --duration, --trace, "
			  "--log or --no-trace");
		ret = EXIT_USAGE;
		goto out;
	}
	ret = report_metrics_check(&mo, g->json);
	if (ret != EXIT_OK)
		goto out;
	ret = EXIT_ERROR;
	metrics_out = mo.openmetrics || mo.prometheus || mo.textfile;
	color_init(g->color, !g->json && !metrics_out && isatty(STDOUT_FILENO));

	if (arg_boot) {
		const char *why = NULL;

		r = boot_capture_find(g->root, arg_boot_n, &bc, &why);
		if (r < 0) {
			log_error("--boot=%d: %s", (int)arg_boot_n, why ? why : strerror(-r));
			goto out;
		}
		if (bc.journal_err)
			log_warn("journalctl -k -b %s: %s: this boot's kernel log is not read",
				 bc.boot_id[0] ? bc.boot_id : "?",
				 bc.journal_what ? bc.journal_what : strerror(-bc.journal_err));
		if (bc.bundle)
			g->root = bc.bundle;
		c.pre_trace_fd = bc.trace_fd;
		c.pre_trace_name = bc.trace_name;
		c.pre_log_fd = bc.log_fd;
		c.pre_log_name = bc.log_name;
	}
	r = kt_system_open(&(struct kt_system_opts){ .root = g->root, .release = g->release,
						     .moduledir = g->moduledir },
			   &c.sys);
	if (r < 0) {
		log_error("--root '%s': %s", g->root, strerror(-r));
		goto out;
	}
	d.root = root_dir(c.sys.root);
	d.live = root_is_live_system(c.sys.root);
	/* record's marker, until its bundle is complete and renamed (kmodtop(8), BUNDLES) */
	if (!d.live && root_exists(c.sys.root, "capture/INCOMPLETE"))
		log_warn("'%s' is a bundle that 'kmodtop record' did not finish (see its "
			 "capture/INCOMPLETE): files may be missing or cut short",
			 d.root);
	if (lo.duration) {
		if (!d.live) {
			log_error("--duration watches the running kernel: not with --root '%s'",
				  d.root);
			ret = EXIT_USAGE;
			goto out;
		}
		if (!root_exists(c.sys.root, "proc/modules")) {
			log_info("%s: the kernel has no module support (no proc/modules)", d.root);
			ret = EXIT_NO_MODULES;
			goto out;
		}
		/*
		 * report --duration 60 | head: a reader gone before the report is written is
		 * an EPIPE when writing it, not a SIGPIPE that skips the atexit() retry
		 */
		signal(SIGPIPE, SIG_IGN);
		if (watch_live(&c, g, &lo) < 0)
			goto out;
		live_left_state = live_log(c.live) < 0;
	}

	r = kt_snapshot_read(&c.sys, &c.snap);
	if (r < 0 && !c.snap.pm) {
		if (r == -ENOENT) {
			/* one line, a code of its own: CI treats it as a skip, not a failure */
			log_info("%s: the kernel has no module support (no proc/modules)", d.root);
			ret = EXIT_NO_MODULES;
		} else {
			log_kt_err(&c.snap.proc_modules_e, r);
		}
		goto out;
	}
	if (r < 0) {
		log_error("out of memory");
		goto out;
	}
	collect_warn_repeated("proc/modules", c.snap.pm->n_repeated, c.snap.pm->repeated_line);
	if (c.snap.pm->addresses_hidden && c.snap.pm->n && d.live)
		log_warn("'proc/modules': every module address reads as 0 (kernel.kptr_restrict=2, "
			 "or this user lacks CAP_SYSLOG): joining vmallocinfo areas to modules by "
			 "address needs root");
	cmd_warn_release(&c.sys);
	d.release = kt_system_release(&c.sys);
	d.release_from = kt_system_release_from(&c.sys);
	for (size_t i = 0; i < c.snap.n_issues; i++)
		cmd_warn_source(c.snap.issues[i].path, c.snap.issues[i].err, &c.snap.issues[i].e);
	if (c.snap.vi) {
		collect_warn_repeated("proc/vmallocinfo", c.snap.vi->n_repeated,
				      c.snap.vi->repeated_line);
		if (c.snap.vi->n_dropped)
			log_warn("'proc/vmallocinfo': more areas than are kept (%u of module "
				 "loading, %u others): %zu module-loading area(s) past them counted "
				 "as tied to no module, not listed; %zu other(s) left out",
				 MODMEM_AREAS_KEPT, MODMEM_AREAS_KEPT,
				 c.snap.vi_rest.n_module + c.snap.vi_rest.n_leftover,
				 c.snap.vi_rest.n_other);
	}
	memcpy(d.src, c.snap.src, sizeof(d.src));
	d.lp = c.sys.lp;
	d.pm = c.snap.pm;
	d.sm = c.snap.sm;
	d.vi = c.snap.vi;
	d.mi = c.snap.has_meminfo ? &c.snap.mi : NULL;
	d.has_tainted = c.snap.has_tainted;
	d.tainted = c.snap.tainted;
	d.ms = c.snap.ms;
	d.boot_id = c.snap.has_boot_id ? c.snap.boot_id : NULL;
	d.kc = c.sys.kconfig;
	d.sysfs_compression = c.sys.has_compression ? c.sys.compression : NULL;
	d.in_kernel_decompression = kt_system_in_kernel_decompression(&c.sys);
	if (c.sys.moduledir) {
		d.mds = c.sys.mds;
		d.has_moduledir = c.sys.has_moduledir;
		d.moduledir = c.sys.moduledir;
	}

	c.use_cache = !arg_no_cache;
	setup_module_tree(&c);
	r = read_attempts(&c, &d, &(struct saved_inputs){
		.trace_arg = arg_trace, .log_arg = arg_log,
		.want_trace = !arg_no_trace, .want_log = !arg_no_log,
		.trace_fd = c.live ? live_trace_fd(c.live) : c.pre_trace_fd,
		.trace_fd_name = c.live ? live_trace_name(c.live) : c.pre_trace_name,
		.log_fd = c.live ? live_kmsg_fd(c.live) : c.pre_log_fd,
		.log_fd_name = c.live ? "/dev/kmsg" : c.pre_log_name });
	if (r < 0)
		goto out;
	d.with_attempts = arg_attempts;
	if (arg_boot) {
		r = report_boot_describe(&bc, &d, &rb, &c.untraced);
		if (r < 0) {
			log_error("out of memory");
			goto out;
		}
		d.boot = &rb;
	}
	r = compute_percpu(&c, &d, arg_cpus);
	log_progress_done();
	if (r < 0) {
		log_error("per-CPU risk: %s", strerror(-r));
		goto out;
	}

	if (c.snap.vi) {
		r = modmem_join(c.snap.pm, c.snap.vi, &d.lp, &c.mm);
		if (r < 0) {
			log_error("joining vmalloc areas to modules: %s", strerror(-r));
			goto out;
		}
		modmem_add_unlisted(c.mm, &c.snap.vi_rest);
		d.mm = c.mm;
	}

	if (mo.textfile) {
		r = report_write_textfile(&d, &mo);
		if (r < 0) {
			log_error("--textfile '%s': %s", mo.textfile_path, strerror(-r));
			goto out;
		}
	}
	if (mo.openmetrics || mo.prometheus) {
		r = report_write_metrics(&d, &mo, mo.openmetrics ? OM_OPENMETRICS : OM_PROMETHEUS,
					 stdout);
		if (r < 0) {
			log_error("writing the metrics: %s", strerror(-r));
			goto out;
		}
	} else if (g->json || !mo.textfile) {
		r = out_new(g->json ? OUT_JSON : OUT_TEXT, g->pretty, stdout, &o);
		if (r < 0) {
			log_error("out of memory");
			goto out;
		}
		out_set_width(o, cmd_text_width(arg_width));
		r = report_render(&d, o);
		if (r >= 0 && c.live)
			report_render_live(live_get_status(c.live), o);
		if (r >= 0)
			r = out_finish(o);
		if (r < 0) {
			log_error("writing the report: %s", strerror(-r));
			goto out;
		}
	}
	/* the report stands, but kmodtop's tracing state is still there: say so in the code */
	ret = live_left_state ? EXIT_ERROR : EXIT_OK;
out:
	out_free(o);
	report_metrics_opts_done(&mo);
	report_session_done(&c);
	boot_capture_done(&bc);
	return ret;
}
