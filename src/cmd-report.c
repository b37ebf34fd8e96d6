/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cost/loadpath.h"
#include "cost/modmem.h"
#include "output/output.h"
#include "sources/kconfig.h"
#include "sources/meminfo.h"
#include "sources/moduledir.h"
#include "sources/modstats.h"
#include "sources/proc-modules.h"
#include "sources/sys-module.h"
#include "sources/tainted.h"
#include "sources/vmallocinfo.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/root.h"
#include "views/report.h"
#include "cmd.h"

static void report_usage(FILE *f)
{
	fputs("Usage: kmodtop [OPTIONS] report [-j|-p] [--color[=WHEN]]\n"
	      "\n"
	      "Describe the kernel's module support, its loaded modules and the vmalloc areas\n"
	      "that hold them. Reads a live system, or a captured tree with --root.\n"
	      "\n"
	      "The global options (--root, --kernel-release, --moduledir, -j, -p, --color) may\n"
	      "also follow the command.\n",
	      f);
}

struct collected {
	struct kt_root *root;
	char release[256];
	char *moduledir;
	char compression[32];
	struct proc_modules *pm;
	struct sys_module *sm;
	struct vmallocinfo *vi;
	struct meminfo mi;
	struct modstats *ms;
	struct kconfig *kc;
	struct modmem *mm;
};

static void collected_done(struct collected *c)
{
	if (c->sm)
		for (size_t i = 0; c->pm && i < c->pm->n; i++)
			sys_module_done(&c->sm[i]);
	free(c->sm);
	proc_modules_free(c->pm);
	vmallocinfo_free(c->vi);
	modstats_free(c->ms);
	kconfig_free(c->kc);
	modmem_free(c->mm);
	free(c->moduledir);
	root_free(c->root);
}

static void set_status(struct source_status *s, const char *key, const char *path, int err,
		       const struct kt_err *e)
{
	s->key = key;
	s->path = path;
	s->err = err;
	if (err && e && e->what) {
		s->what = e->what;
		s->line = e->line;
	}
}

/* Logs a source that failed in a way worth telling; absent optional files are not. */
static void warn_source(const char *path, int r, const struct kt_err *e)
{
	if (e && e->what && e->path[0]) {
		if (e->line)
			log_warn("'%s':%u: %s, ignoring", e->path, e->line, e->what);
		else
			log_warn("'%s': %s, ignoring", e->path, e->what);
	} else {
		log_warn("'%s': %s, ignoring", path, strerror(-r));
	}
}

static int resolve_release(struct collected *c, const struct global_opts *g,
			   const char **ret_from)
{
	_cleanup_free_ char *buf = NULL;
	struct utsname u;
	size_t len;
	int r;

	if (g->release) {
		snprintf(c->release, sizeof(c->release), "%s", g->release);
		*ret_from = "--kernel-release";
		return 0;
	}
	r = root_read_file(c->root, "proc/sys/kernel/osrelease", 255, &buf, &len);
	if (r == 0) {
		while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
			buf[--len] = '\0';
		if (len && !memchr(buf, '\0', len) && !strchr(buf, '/') && !strchr(buf, '\n')) {
			snprintf(c->release, sizeof(c->release), "%s", buf);
			*ret_from = "proc/sys/kernel/osrelease";
			return 0;
		}
		log_warn("'proc/sys/kernel/osrelease': not a kernel release, ignoring");
	}
	if (root_is_live_system(c->root) && uname(&u) == 0) {
		snprintf(c->release, sizeof(c->release), "%s", u.release);
		*ret_from = "uname";
		return 0;
	}
	return -ENOENT;
}

int cmd_report(int argc, char **argv, struct global_opts *g)
{
	static const struct option long_options[] = {
		GLOBAL_LONG_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct collected c = {0};
	struct report_data d = {0};
	struct kt_err e = {0};
	struct out *o = NULL;
	const char *release_from = NULL;
	int opt, r, ret = EXIT_ERROR;

	while ((opt = getopt_long(argc, argv, GLOBAL_SHORT_OPTIONS "h", long_options, NULL)) != -1) {
		if (opt == 'h') {
			report_usage(stdout);
			return EXIT_OK;
		}
		if (opt == '?') {
			fputs("Try 'kmodtop report --help' for more information.\n", stderr);
			return EXIT_USAGE;
		}
		if (global_opt_handle(g, opt, optarg) <= 0)
			return EXIT_USAGE;
	}
	if (optind < argc) {
		log_error("report: unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	color_init(g->color, !g->json && isatty(STDOUT_FILENO));

	r = root_new(g->root ? g->root : "/", &c.root);
	if (r < 0) {
		log_error("--root '%s': %s", g->root, strerror(-r));
		return EXIT_ERROR;
	}
	d.root = root_dir(c.root);
	d.live = root_is_live_system(c.root);

	r = proc_modules_read(c.root, &c.pm, &e);
	set_status(&d.src[SRC_PROC_MODULES], "proc_modules", "proc/modules", r, &e);
	if (r == -ENOENT) {
		/* one line, a code of its own: CI treats it as a skip, not a failure */
		log_info("%s: the kernel has no module support (no proc/modules)", d.root);
		ret = EXIT_NO_MODULES;
		goto out;
	}
	if (r < 0) {
		log_kt_err(&e, r);
		goto out;
	}
	d.pm = c.pm;

	r = resolve_release(&c, g, &release_from);
	if (r == 0) {
		d.release = c.release;
		d.release_from = release_from;
	} else {
		log_warn("kernel release unknown (no proc/sys/kernel/osrelease under '%s'); "
			 "use --kernel-release",
			 d.root);
	}
	loadpath_from_release(d.release, &d.lp);

	c.sm = calloc(c.pm->n ? c.pm->n : 1, sizeof(*c.sm));
	if (!c.sm) {
		log_error("out of memory");
		goto out;
	}
	d.src[SRC_SYS_MODULE] = (struct source_status){ .key = "sys_module", .path = "sys/module" };
	for (size_t i = 0; i < c.pm->n; i++) {
		memset(&e, 0, sizeof(e));
		r = sys_module_read(c.root, c.pm->mods[i].name, &c.sm[i], &e);
		if (r < 0 && r != -ENOENT) {
			warn_source("sys/module", r, &e);
			set_status(&d.src[SRC_SYS_MODULE], "sys_module", "sys/module", r, &e);
		}
	}
	d.sm = c.sm;

	memset(&e, 0, sizeof(e));
	r = vmallocinfo_read(c.root, &c.vi, &e);
	set_status(&d.src[SRC_VMALLOCINFO], "vmallocinfo", "proc/vmallocinfo", r, &e);
	if (r < 0)
		warn_source("proc/vmallocinfo", r, &e);
	d.vi = c.vi;

	memset(&e, 0, sizeof(e));
	r = meminfo_read(c.root, &c.mi, &e);
	set_status(&d.src[SRC_MEMINFO], "meminfo", "proc/meminfo", r, &e);
	if (r < 0)
		warn_source("proc/meminfo", r, &e);
	else
		d.mi = &c.mi;

	memset(&e, 0, sizeof(e));
	r = tainted_read(c.root, &d.tainted, &e);
	set_status(&d.src[SRC_TAINTED], "tainted", "proc/sys/kernel/tainted", r, &e);
	if (r < 0 && r != -ENOENT)
		warn_source("proc/sys/kernel/tainted", r, &e);
	d.has_tainted = r == 0;

	memset(&e, 0, sizeof(e));
	r = modstats_read(c.root, &c.ms, &e);
	set_status(&d.src[SRC_MODSTATS], "module_stats", "sys/kernel/debug/modules/stats", r, &e);
	if (r < 0 && r != -ENOENT)
		warn_source("sys/kernel/debug/modules/stats", r, &e);
	d.ms = c.ms;

	memset(&e, 0, sizeof(e));
	r = kconfig_read(c.root, d.release, &c.kc, &e);
	set_status(&d.src[SRC_KCONFIG], "kconfig", c.kc ? c.kc->source : "boot/config-RELEASE", r,
		   &e);
	if (r < 0 && r != -ENOENT)
		warn_source("kernel configuration", r, &e);
	d.kc = c.kc;

	memset(&e, 0, sizeof(e));
	r = sys_module_compression_read(c.root, c.compression, sizeof(c.compression), &e);
	set_status(&d.src[SRC_COMPRESSION], "compression", "sys/module/compression", r, &e);
	if (r < 0 && r != -ENOENT)
		warn_source("sys/module/compression", r, &e);
	d.sysfs_compression = r == 0 ? c.compression : NULL;

	if (g->moduledir) {
		c.moduledir = strdup(g->moduledir);
	} else if (d.release) {
		char rel[300];

		snprintf(rel, sizeof(rel), "lib/modules/%s", d.release);
		if (root_abspath(c.root, rel, &c.moduledir) < 0)
			c.moduledir = NULL;
	}
	if (c.moduledir) {
		r = moduledir_scan(c.moduledir, &d.mds);
		d.has_moduledir = r == 0;
		set_status(&d.src[SRC_MODULEDIR], "moduledir", c.moduledir, r, NULL);
		if (r < 0 && r != -ENOENT)
			warn_source(c.moduledir, r, NULL);
		d.moduledir = c.moduledir;
	}

	if (c.vi) {
		r = modmem_join(c.pm, c.vi, &d.lp, &c.mm);
		if (r < 0) {
			log_error("joining vmalloc areas to modules: %s", strerror(-r));
			goto out;
		}
		d.mm = c.mm;
	}

	r = out_new(g->json ? OUT_JSON : OUT_TEXT, g->pretty, stdout, &o);
	if (r < 0) {
		log_error("out of memory");
		goto out;
	}
	r = report_render(&d, o);
	if (r >= 0)
		r = out_finish(o);
	if (r < 0) {
		log_error("writing the report: %s", strerror(-r));
		goto out;
	}
	ret = EXIT_OK;
out:
	out_free(o);
	collected_done(&c);
	return ret;
}
