/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The `record` command: a live collection (session/live.c) written as a bundle
 * (session/bundle.c) that `report --root` reads; and `record --print-setup`, the
 * tracing kmodtop needs as commands for a machine without it (session/setup-plan.c).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "output/setup-script.h"
#include "util/log.h"
#include "util/root.h"
#include "util/service-notify.h"
#include "util/tree-move.h"
#include "cmd/cmd.h"
#include "session/bundle.h"
#include "session/live.h"
#include "session/setup-plan.h"

static void record_usage(FILE *f)
{
	fputs("Usage: kmodtop record [-o DIR] [--move-to DIR] [--duration N] [--measure]\n"
	      "                      [--since-boot]\n"
	      "       kmodtop record --print-setup [--instance NAME] [--measure]\n"
	      "\n"
	      "Collect module load attempts live (a tracefs instance of its own and /dev/kmsg),\n"
	      "then write them with a snapshot of the kernel's module state as a bundle that\n"
	      "'kmodtop --root DIR report' reads on any machine. Needs root for the trace.\n"
	      "\n"
	      "Options:\n"
	      "  -o, --output DIR    the bundle directory, new or empty (default:\n"
	      "                      ./kmodtop-RELEASE-YYYYMMDD-HHMMSS)\n"
	      "      --duration N    stop after N seconds (also Ns, Nm, Nh); default: at\n"
	      "                      Ctrl-C (SIGINT), SIGTERM or SIGHUP\n"
	      "      --measure       trace every vmap area allocation with its stack, to\n"
	      "                      measure what each attempt allocated (costly, see kmodtop(8))\n"
	      "      --since-boot    the kernel log from the oldest record kept, not from now\n"
	      "      --move-to DIR   once written, move the bundle into DIR (made if need be);\n"
	      "                      where DIR cannot take it, it stays where -o put it\n"
	      "      --print-setup   record nothing: print the tracing kmodtop needs (naming\n"
	      "                      probes, events, filters) as shell functions, for\n"
	      "                      tracefs alone and for trace-cmd record, for a machine\n"
	      "                      without kmodtop (with --measure: the vmap stacks too)\n"
	      "      --instance NAME with --print-setup: its instance and buffer name\n"
	      "                      (default kmodtop)\n"
	      "  -h, --help          show this help\n"
	      "\n"
	      "The global options (--kernel-release) may also follow the command.\n"
	      "Exit status: 0 the bundle written (also when ended by Ctrl-C), 1 an error,\n"
	      "2 bad command line, 4 the kernel has no module support.\n"
	      "Run by a service manager (NOTIFY_SOCKET set), it says READY=1 once it traces\n"
	      "(kmodtop-boot.service is Type=notify) and STOPPING=1 when the collection ends.\n",
	      f);
}

enum {
	OPT_PRINT_SETUP = OPT_LIVE_END,
	OPT_INSTANCE,
	OPT_MOVE_TO,
};

static bool instance_name_ok(const char *s)
{
	if (!s[0] || strlen(s) > 64)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
			return false;
	return true;
}

/*
 * `record --print-setup`: the tracing commands for a machine without kmodtop, from what
 * this kernel (or the root's) has: its BTF for the probes, its tracefs for the events
 * and the clock. Under --root, the root's sys/kernel/btf/vmlinux and
 * sys/kernel/tracing/{available_filter_functions,events/,trace_clock} when it has them.
 */
static int print_setup(const struct global_opts *g, bool measure, const char *instance)
{
	struct setup_plan sp;
	struct setup_plan_opts o = { .instance = instance, .measure = measure };
	int r;

	r = setup_plan_init(&sp, g->root, g->release, &o);
	if (r < 0) {
		log_error("'%s': %s", g->root ? g->root : "/", strerror(-r));
		return EXIT_ERROR;
	}
	if (sp.btf_err < 0 && sp.btf_err != -ENOENT)
		log_warn("'%s/sys/kernel/btf/vmlinux': %s: the naming probes are left out",
			 root_dir(sp.root), sp.btf_err == -EINVAL ? "not BTF" : strerror(-sp.btf_err));
	r = setup_script_write(stdout, &sp.ss);
	if (r < 0)
		log_error("writing the setup: %s", strerror(-r));
	for (size_t i = 0; i < sp.ss.n_missing; i++)
		log_warn("%s: that probe is left out", sp.missing[i]);
	setup_plan_done(&sp);
	return r < 0 ? EXIT_ERROR : EXIT_OK;
}

/* What a bundle that stopped short is left as, and why: said once, here */
static void abandon(struct bundle *b, bool discard, const char *why)
{
	if (bundle_abandon(b, discard, why) > 0)
		log_error("the incomplete bundle is left in '%s' (%s says why)", b->partial,
			  BUNDLE_MARKER);
}

/*
 * A service manager waiting for READY=1 (Type=notify) starts what is ordered after
 * the recording, udevd above all, only once it has it: sent when the collection runs,
 * whether the instance traces or not, so that a kernel without tracing delays nothing
 * but is said in the unit's status.
 */
static void notify_started(void *userdata, const struct live_session *lv)
{
	const char *why = NULL;
	char msg[256];
	int r = live_trace_error(lv, &why);

	(void)userdata;
	if (r == 0)
		snprintf(msg, sizeof(msg), "READY=1\nSTATUS=recording: %s traces",
			 live_get_status(lv)->instance);
	else
		snprintf(msg, sizeof(msg), "READY=1\nSTATUS=recording the kernel log only: %s",
			 why ? why : strerror(-r));
	service_notify(msg);
}

/*
 * --move-to: the finished bundle @b->dir into @to as @to/NAME. 0 with @b->dir the new
 * place, or -errno with the bundle where it was.
 */
static int move_bundle(struct bundle *b, const char *to)
{
	const char *name = strrchr(b->dir, '/');
	char *dest;
	int r;

	name = name ? name + 1 : b->dir;
	if (mkdir(to, 0755) < 0 && errno != EEXIST)
		return -errno;
	if (asprintf(&dest, "%s/%s", to, name) < 0)
		return -ENOMEM;
	r = tree_move(b->dir, dest);
	if (r < 0) {
		free(dest);
		return r;
	}
	free(b->dir);
	b->dir = dest;
	return 0;
}

/* Not the live system's: record watches the running kernel, it reads no other */
static bool root_is_other(const char *dir)
{
	/* by identity, as root_new() decides: --root / is the live system too */
	struct kt_root *other = NULL;
	bool live = root_new(dir, &other) == 0 && root_is_live_system(other);

	root_free(other);
	return !live;
}

int cmd_record(int argc, char **argv, struct global_opts *g)
{
	static const struct option long_options[] = {
		GLOBAL_LONG_OPTIONS,
		{ "output", required_argument, NULL, 'o' },
		LIVE_LONG_OPTIONS,
		{ "print-setup", no_argument, NULL, OPT_PRINT_SETUP },
		{ "instance", required_argument, NULL, OPT_INSTANCE },
		{ "move-to", required_argument, NULL, OPT_MOVE_TO },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct live_opts lo = {0};
	const char *arg_dir = NULL, *arg_instance = "kmodtop", *arg_move_to = NULL;
	bool arg_print_setup = false;
	char dirbuf[512], release[256];
	struct kt_root *sys = NULL;
	struct bundle b;
	struct live_session *lv = NULL;
	struct live_signals sigs;
	const char *path;
	bool caught = false;
	struct utsname u;
	int opt, r, ret = EXIT_ERROR;

	while ((opt = getopt_long(argc, argv, GLOBAL_SHORT_OPTIONS "ho:", long_options, NULL)) !=
	       -1) {
		switch (opt) {
		case 'h':
			record_usage(stdout);
			return EXIT_OK;
		case '?':
			cmd_usage_error("record", long_options, argv, optind);
			return EXIT_USAGE;
		case 'o':
			/* "" would be the bundle "./.partial" */
			if (!optarg[0]) {
				log_error("-o '': the bundle directory needs a name");
				return EXIT_USAGE;
			}
			arg_dir = optarg;
			continue;
		case OPT_PRINT_SETUP:
			arg_print_setup = true;
			continue;
		case OPT_MOVE_TO:
			if (!optarg[0]) {
				log_error("--move-to '': the directory needs a name");
				return EXIT_USAGE;
			}
			arg_move_to = optarg;
			continue;
		case OPT_INSTANCE:
			if (!instance_name_ok(optarg)) {
				log_error("--instance '%s': letters, digits, '_' and '-' only", optarg);
				return EXIT_USAGE;
			}
			arg_instance = optarg;
			continue;
		}
		r = live_opt_handle(&lo, opt, optarg);
		if (r == 0)
			r = global_opt_handle(g, opt, optarg);
		if (r <= 0)
			return EXIT_USAGE;
	}
	if (optind < argc) {
		log_error("record: unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	if (arg_print_setup) {
		if (arg_dir || arg_move_to || lo.duration || lo.since_boot) {
			log_error("--print-setup prints commands and records nothing: no -o, "
				  "--move-to, --duration or --since-boot");
			return EXIT_USAGE;
		}
		return print_setup(g, lo.measure, arg_instance);
	}
	if (g->json)
		log_warn("record writes a bundle, not a report: -j/-p ignored");
	/* its messages piped into a reader that goes away must not kill it mid-collection */
	signal(SIGPIPE, SIG_IGN);

	r = root_new("/", &sys);
	if (r < 0) {
		log_error("/: %s", strerror(-r));
		return EXIT_ERROR;
	}
	bundle_init(&b, sys);
	if (g->root && root_is_other(g->root)) {
		log_error("record watches the running kernel: --root '%s' is for reading a "
			  "bundle ('kmodtop --root DIR report')",
			  g->root);
		ret = EXIT_USAGE;
		goto out;
	}
	if (g->release) {
		snprintf(release, sizeof(release), "%s", g->release);
	} else if (uname(&u) == 0) {
		snprintf(release, sizeof(release), "%s", u.release);
	} else {
		log_error("uname: %s", strerror(errno));
		goto out;
	}
	lo.release = release;
	lo.root = sys;
	if (!arg_dir) {
		if (bundle_default_dir(dirbuf, sizeof(dirbuf), release) < 0) {
			log_error("cannot name the bundle directory: use -o DIR");
			goto out;
		}
		arg_dir = dirbuf;
	}
	/* before anything else: a -o that cannot be had is said at once, on any kernel */
	r = bundle_begin(&b, arg_dir, &path);
	if (r < 0) {
		log_error("'%s': %s%s", path, strerror(-r),
			  r == -ENOTEMPTY ? " (a bundle goes in a new or empty directory)"
			  : r == -EEXIST && b.partial && strcmp(path, b.partial) == 0
				  ? " (left by a record that did not finish: remove it, or "
				    "choose another -o)"
				  : "");
		abandon(&b, true, strerror(-r));
		goto out;
	}
	if (!root_exists(sys, "proc/modules")) {
		log_info("the kernel has no module support (no /proc/modules): nothing to record");
		abandon(&b, true, "no module support");
		ret = EXIT_NO_MODULES;
		goto out;
	}
	r = bundle_open_spools(&b, release);
	if (r < 0) {
		log_error("'%s': %s", b.partial, strerror(-r));
		abandon(&b, false, strerror(-r));
		goto out;
	}

	/* with --move-to, the line at the end alone says where the bundle is */
	if (arg_move_to && lo.duration > 0)
		log_info("recording for %.1f s", lo.duration);
	else if (arg_move_to)
		log_info("recording until Ctrl-C");
	else if (lo.duration > 0)
		log_info("recording for %.1f s into '%s'", lo.duration, b.dir);
	else
		log_info("recording into '%s' until Ctrl-C", b.dir);
	/*
	 * The stop signals stay caught until the bundle is complete: one that comes
	 * during the snapshot waits for it, rather than leaving half a bundle
	 */
	live_signals_catch(&sigs);
	caught = true;
	lo.started = notify_started;
	r = live_collect_caught(&lo, b.trace_fd, b.kmsg_fd, &sigs, &lv);
	/* what follows is the bundle being written: the manager waits for the exit */
	service_notify("STOPPING=1");
	if (r < 0) {
		log_error("collecting: %s", strerror(-r));
		abandon(&b, false, "the collection failed");
		goto out;
	}
	bundle_note_live(&b, live_get_status(lv));
	r = bundle_snapshot(&b, release);
	if (r < 0) {
		char why[128];

		log_error("writing '%s': %s", b.partial, strerror(-r));
		snprintf(why, sizeof(why), "writing it failed (%s)", strerror(-r));
		abandon(&b, false, why);
		goto out;
	}
	r = bundle_finish(&b);
	if (r < 0) {
		log_error("'%s' to '%s': %s", b.partial, b.dir, strerror(-r));
		abandon(&b, false, "it could not be renamed to DIR");
		goto out;
	}
	if (live_log(lv) < 0)
		goto out;
	r = arg_move_to ? move_bundle(&b, arg_move_to) : 0;
	if (b.missing)
		log_warn("%u file(s) could not be read into the bundle (see capture/record.txt)",
			 b.missing);
	if (r < 0)
		log_warn("bundle written to '%s' (%u files), not moved to '%s': %s: kmodtop "
			 "--root '%s' report",
			 b.dir, b.copied + 3, arg_move_to, strerror(-r), b.dir);
	else
		log_info("bundle written to '%s' (%u files): kmodtop --root '%s' report", b.dir,
			 b.copied + 3, b.dir);
	ret = EXIT_OK;
out:
	bundle_done(&b);
	live_free(lv);
	/* a stop signal that came during the snapshot has waited: it ends nothing more */
	if (caught)
		live_signals_restore(&sigs);
	root_free(sys);
	return ret;
}
