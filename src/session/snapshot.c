/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sources/boot-id.h"
#include "sources/modstats.h"
#include "sources/proc-modules.h"
#include "sources/sys-module.h"
#include "sources/tainted.h"
#include "sources/vmallocinfo.h"
#include "session/snapshot.h"
#include "session/system.h"

const char *snapshot_refused_why(const char *path, int err)
{
	if (err != -EACCES && err != -EPERM)
		return NULL;
	if (strcmp(path, "proc/vmallocinfo") == 0)
		return "proc/vmallocinfo is readable by root only (mode 0400): no module areas, "
		       "no address join, no in-flight areas";
	if (strcmp(path, "sys/kernel/debug/modules/stats") == 0)
		return "debugfs is readable by root only (mode 0700): no MODULE_STATS counters";
	return "not readable by this user";
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

static int add_issue(struct kt_snapshot *s, const char *path, int err, const struct kt_err *e)
{
	struct snapshot_issue *v = realloc(s->issues, (s->n_issues + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	s->issues = v;
	v[s->n_issues++] = (struct snapshot_issue){ .path = path, .err = err, .e = *e };
	return 0;
}

/*
 * A source read: its status, and an issue named @what when it failed (-ENOENT too unless
 * @quiet_enoent: an optional file that is absent is no news)
 */
static int note_as(struct kt_snapshot *s, int src, const char *key, const char *path,
		   const char *what, int err, const struct kt_err *e, bool quiet_enoent)
{
	set_status(&s->src[src], key, path, err, e);
	if (err < 0 && !(quiet_enoent && err == -ENOENT))
		return add_issue(s, what, err, e);
	return 0;
}

static int note(struct kt_snapshot *s, int src, const char *key, const char *path, int err,
		const struct kt_err *e, bool quiet_enoent)
{
	return note_as(s, src, key, path, path, err, e, quiet_enoent);
}

/* The system's own sources, as the report lists them */
static int note_system(struct kt_snapshot *s, const struct kt_system *sys)
{
	int r;

	r = note_as(s, SRC_KCONFIG, "kconfig", sys->kconfig_path, "kernel configuration",
		    sys->kconfig_err, &sys->kconfig_e, true);
	if (r >= 0)
		r = note(s, SRC_COMPRESSION, "compression", "sys/module/compression",
			 sys->compression_err, &sys->compression_e, true);
	if (r >= 0 && sys->moduledir)
		r = note(s, SRC_MODULEDIR, "moduledir", sys->moduledir, sys->moduledir_err,
			 &(struct kt_err){ 0 }, true);
	return r;
}

int kt_snapshot_read(const struct kt_system *sys, struct kt_snapshot *ret)
{
	struct kt_snapshot *s = ret;
	struct kt_err e = { 0 };
	int r;

	memset(s, 0, sizeof(*s));
	r = proc_modules_read(sys->root, &s->pm, &s->proc_modules_e);
	set_status(&s->src[SRC_PROC_MODULES], "proc_modules", "proc/modules", r,
		   &s->proc_modules_e);
	if (r < 0) {
		s->pm = NULL;
		return r;
	}

	r = boot_id_read(sys->root, s->boot_id, &e);
	s->has_boot_id = r == 0;
	r = note(s, SRC_BOOT_ID, "boot_id", "proc/sys/kernel/random/boot_id", r, &e, true);
	if (r < 0)
		return r;

	s->sm = calloc(s->pm->n ? s->pm->n : 1, sizeof(*s->sm));
	if (!s->sm)
		return -ENOMEM;
	s->src[SRC_SYS_MODULE] = (struct source_status){ .key = "sys_module", .path = "sys/module" };
	for (size_t i = 0; i < s->pm->n; i++) {
		memset(&e, 0, sizeof(e));
		r = sys_module_read(sys->root, s->pm->mods[i].name, &s->sm[i], &e);
		if (r < 0 && r != -ENOENT) {
			set_status(&s->src[SRC_SYS_MODULE], "sys_module", "sys/module", r, &e);
			if (add_issue(s, "sys/module", r, &e) < 0)
				return -ENOMEM;
		}
	}

	memset(&e, 0, sizeof(e));
	r = vmallocinfo_read_filtered(sys->root, modmem_keep_area, &s->vi_rest, &s->vi, &e);
	if (r < 0)
		s->vi = NULL;
	s->src[SRC_VMALLOCINFO].why = snapshot_refused_why("proc/vmallocinfo", r);
	r = note(s, SRC_VMALLOCINFO, "vmallocinfo", "proc/vmallocinfo", r, &e, false);
	if (r < 0)
		return r;

	memset(&e, 0, sizeof(e));
	r = meminfo_read(sys->root, &s->mi, &e);
	s->has_meminfo = r == 0;
	r = note(s, SRC_MEMINFO, "meminfo", "proc/meminfo", r, &e, false);
	if (r < 0)
		return r;

	memset(&e, 0, sizeof(e));
	r = tainted_read(sys->root, &s->tainted, &e);
	s->has_tainted = r == 0;
	r = note(s, SRC_TAINTED, "tainted", "proc/sys/kernel/tainted", r, &e, true);
	if (r < 0)
		return r;

	memset(&e, 0, sizeof(e));
	r = modstats_read(sys->root, &s->ms, &e);
	if (r < 0)
		s->ms = NULL;
	s->src[SRC_MODSTATS].why = snapshot_refused_why("sys/kernel/debug/modules/stats", r);
	r = note(s, SRC_MODSTATS, "module_stats", "sys/kernel/debug/modules/stats", r, &e, true);
	if (r < 0)
		return r;

	return note_system(s, sys);
}

void kt_snapshot_done(struct kt_snapshot *s)
{
	if (s->sm)
		for (size_t i = 0; s->pm && i < s->pm->n; i++)
			sys_module_done(&s->sm[i]);
	free(s->sm);
	proc_modules_free(s->pm);
	vmallocinfo_free(s->vi);
	modstats_free(s->ms);
	free(s->issues);
	memset(s, 0, sizeof(*s));
}
