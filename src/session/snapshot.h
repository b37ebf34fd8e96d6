/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cost/modmem.h"
#include "sources/boot-id.h"
#include "sources/meminfo.h"
#include "util/kt-err.h"

/*
 * The one-shot look at a kernel that `report` shows: /proc/modules and /sys/module,
 * vmallocinfo, meminfo, the taint mask, the MODULE_STATS counters and the boot id,
 * each with how it went. Read from a kt_system's root; nothing printed.
 */

struct kt_system;
struct modstats;
struct proc_modules;
struct sys_module;
struct vmallocinfo;

/* How one kernel interface went: read, absent, or refused. */
struct source_status {
	const char *key;	/* JSON key: "proc_modules" */
	const char *path;	/* root-relative, or absolute for --moduledir */
	int err;		/* 0, or -errno */
	const char *what;	/* parse error text, or NULL */
	unsigned int line;
	const char *why;	/* not readable: what it needs (static text), or NULL */
};

enum {
	SRC_PROC_MODULES,
	SRC_SYS_MODULE,
	SRC_VMALLOCINFO,
	SRC_MEMINFO,
	SRC_TAINTED,
	SRC_MODSTATS,
	SRC_KCONFIG,
	SRC_COMPRESSION,
	SRC_MODULEDIR,
	SRC_BOOT_ID,
	_SRC_MAX,
};

/* A source that failed in a way worth telling (absent optional files are not) */
struct snapshot_issue {
	const char *path;	/* what it is: "proc/vmallocinfo", "sys/module" */
	int err;
	struct kt_err e;
};

struct kt_snapshot {
	struct proc_modules *pm;
	struct sys_module *sm;		/* parallel to pm->mods; has_* false when unread */
	struct vmallocinfo *vi;		/* NULL: not read */
	struct modmem_rest vi_rest;	/* vmallocinfo's areas past those kept, counted */
	struct meminfo mi;
	bool has_meminfo;
	uint64_t tainted;
	bool has_tainted;
	struct modstats *ms;
	char boot_id[BOOT_ID_LEN + 1];
	bool has_boot_id;
	/* the system's sources (configuration, compression, module tree) included */
	struct source_status src[_SRC_MAX];
	struct kt_err proc_modules_e;	/* why proc/modules could not be read */
	struct snapshot_issue *issues;	/* in the order they were met */
	size_t n_issues;
};

/*
 * Reads the snapshot of @sys's kernel. 0; -ENOENT without proc/modules (the kernel has
 * no module support: nothing else is read); another -errno when proc/modules cannot be
 * read (ret->proc_modules_e says why) -- ret->pm is NULL in both cases -- or when memory
 * ran out. Other sources that fail are recorded in ->src[] and ->issues, not failures.
 * kt_snapshot_done() in every case.
 */
int kt_snapshot_read(const struct kt_system *sys, struct kt_snapshot *ret);
void kt_snapshot_done(struct kt_snapshot *s);

/* What reading @path needs when this user was refused it (static text); NULL otherwise */
const char *snapshot_refused_why(const char *path, int err);
