/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cost/catalog.h"
#include "sources/kconfig.h"
#include "sources/modindex.h"
#include "sources/sys-module.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/root.h"
#include "session/collect.h"
#include "session/top-system.h"

void top_static_done(struct top_static *st)
{
	catalog_free(st->cat);
	kconfig_free(st->kc);
	modindex_free(st->idx);
	free(st->moduledir);
	root_free(st->root);
}

static int read_release(struct top_static *st, const char *release)
{
	_cleanup_free_ char *buf = NULL;
	struct utsname u;
	size_t len;

	if (release) {
		snprintf(st->release, sizeof(st->release), "%s", release);
		return 0;
	}
	if (root_read_file(st->root, "proc/sys/kernel/osrelease", 255, &buf, &len) == 0) {
		while (len && buf[len - 1] && strchr("\n\r \t", buf[len - 1]))
			buf[--len] = '\0';
		if (len && !memchr(buf, '\0', len) && !strchr(buf, '/')) {
			snprintf(st->release, sizeof(st->release), "%s", buf);
			return 0;
		}
	}
	if (root_is_live_system(st->root) && uname(&u) == 0) {
		snprintf(st->release, sizeof(st->release), "%s", u.release);
		return 0;
	}
	return -ENOENT;
}

/*
 * A root file that is there but could not be used, as report words it:
 * "'proc/vmallocinfo':2: size is not a number, ignoring". A missing one is no news.
 */
static void warn_unusable(const char *path, int r, const struct kt_err *e)
{
	if (r == -ENOENT || r == -ENOMEM)
		return;
	if (e->what && e->path[0] && e->line)
		log_warn("'%s':%u: %s, ignoring", e->path, e->line, e->what);
	else if (e->what && e->path[0])
		log_warn("'%s': %s, ignoring", e->path, e->what);
	else
		log_warn("'%s': %s, ignoring", path, strerror(-r));
}

int top_static_collect(struct top_static *st, const char *dir, const char *release,
		       const char *moduledir)
{
	struct kt_err e = { 0 };
	const char *files;
	bool in_kernel;
	int r;

	r = root_new(dir, &st->root);
	if (r < 0) {
		log_error("'%s': %s", dir, strerror(-r));
		return r;
	}
	st->has_release = read_release(st, release) == 0;
	if (!st->has_release)
		log_warn(
			"kernel release unknown (no proc/sys/kernel/osrelease under '%s'); "
			"use --kernel-release",
			dir);
	loadpath_from_release(st->has_release ? st->release : NULL, &st->lp);
	r = kconfig_read(st->root, st->has_release ? st->release : NULL, &st->kc, &e);
	if (r < 0)
		warn_unusable("kernel configuration", r, &e);
	memset(&e, 0, sizeof(e));
	st->sysfs_compression =
		sys_module_compression_read(st->root, st->compression,
					    sizeof(st->compression), &e) == 0;
	if (moduledir) {
		st->moduledir = strdup(moduledir);
	} else if (st->has_release) {
		char rel[300];

		snprintf(rel, sizeof(rel), "lib/modules/%s", st->release);
		if (root_abspath(st->root, rel, &st->moduledir) < 0)
			st->moduledir = NULL;
	}
	if (st->moduledir) {
		st->has_moduledir = moduledir_scan(st->moduledir, &st->mds) == 0;
		if (st->has_moduledir)
			collect_modindex_new(st->root, st->moduledir, &st->idx);
		if (st->has_moduledir &&
		    catalog_new(st->moduledir, st->use_cache, NULL, &st->cat) < 0)
			st->cat = NULL;
		collect_note_cache(st->cat);
		collect_catalog_warnings(st->cat);
	}
	st->modstats = root_exists(st->root, "sys/kernel/debug/modules/stats");

	/* the same judgement as the report's "in-kernel decompression" */
	in_kernel = st->sysfs_compression ||
		    (st->kc && kconfig_enabled(st->kc, "CONFIG_MODULE_DECOMPRESS") &&
		     st->lp.decompress_capable);
	files = st->has_moduledir ? moduledir_compression(&st->mds) : NULL;
	/* the cost model's view of the kernel, as the report sets it up */
	st->k.lp = st->lp;
	st->k.page_size = 4096;
	st->k.in_kernel_decompress =
		st->sysfs_compression ||
		(st->kc && kconfig_enabled(st->kc, "CONFIG_MODULE_DECOMPRESS"));
	if (in_kernel)
		snprintf(st->decompress, sizeof(st->decompress), "in-kernel (%s)",
			 st->sysfs_compression ? st->compression
			 : files	       ? files
					       : "?");
	else if (files && strcmp(files, "none") != 0)
		snprintf(st->decompress, sizeof(st->decompress), "userspace (%s files)",
			 files);
	else if (files)
		snprintf(st->decompress, sizeof(st->decompress), "none (.ko files)");
	else
		snprintf(st->decompress, sizeof(st->decompress), "unknown");
	return 0;
}

/* CPUs of the root's machine: its sysfs, else the trace header, else this one (live) */
unsigned int top_static_count_cpus(const struct top_static *st, unsigned int trace_ncpus)
{
	char path[64];
	unsigned int n;

	for (n = 0; n < 65536; n++) {
		snprintf(path, sizeof(path), "sys/devices/system/cpu/cpu%u", n);
		if (!root_exists(st->root, path))
			break;
	}
	if (n)
		return n;
	if (trace_ncpus)
		return trace_ncpus;
	if (root_is_live_system(st->root)) {
		long c = sysconf(_SC_NPROCESSORS_CONF);

		return c > 0 ? (unsigned int)c : 0;
	}
	return 0;
}

bool top_alias_is_percpu(const char *pattern)
{
	/* the aliases every CPU matches (Petr Pavlu's grep): udev loads them once per CPU */
	return strncmp(pattern, "cpu:type", 8) == 0 || strstr(pattern, "ACPI0007") ||
	       strstr(pattern, "LNXCPU");
}
