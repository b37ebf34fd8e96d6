/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "util/kt-err.h"
#include "util/root.h"

/*
 * sys/module/NAME/ (kernel/module/sysfs.c, main.c modinfo_attrs[]). Each attribute is
 * optional: builtin modules have none of coresize/initsize/initstate.
 */
struct sys_module {
	bool has_coresize, has_initsize, has_refcnt;
	uint64_t coresize;
	uint64_t initsize;
	int refcnt;
	char initstate[16];	/* "live", "coming", "going"; "" when absent */
	char taint[16];
	char **holders;		/* names of the symlinks in holders/, NULL-terminated */
	size_t n_holders;
};

/*
 * 0, -ENOENT when sys/module/NAME does not exist, -EINVAL on a malformed attribute
 * (with *reterr), -ENOMEM. @name is used as a path component: it must not contain '/'.
 */
int sys_module_read(const struct kt_root *root, const char *name, struct sys_module *ret,
		    struct kt_err *reterr);
void sys_module_done(struct sys_module *m);

/* sys/module/compression (CONFIG_MODULE_DECOMPRESS, 5.17+): "xz", "gzip", "zstd". */
int sys_module_compression_read(const struct kt_root *root, char *buf, size_t bufsz,
				struct kt_err *reterr);
