/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>

#include "util/version.h"

struct kconfig;

/*
 * What a kernel release does when finit_module() meets a module that is already
 * there, and how it lays out module memory (doc/load-path.md, section 1.0).
 */
struct loadpath {
	bool known;			/* the release parsed as MAJOR.MINOR */
	struct kver v;
	char era;			/* 'A'..'F' as in doc/load-path.md; '?' when unknown */
	bool busy_on_going;		/* 6.2+: 0254127ab977, -EBUSY instead of waiting */
	bool early_dup_check;		/* 6.4+: 064f4536d139, before layout allocation */
	bool per_type_alloc;		/* 6.4+: ac3b43283923, one area per mod_mem_type */
	bool modstats_possible;		/* 6.4+: df3e764d8e5c, CONFIG_MODULE_STATS exists */
	bool idempotent_finit;		/* 6.5+: 9b9879fc0327, merges loads of one inode */
	bool execmem;			/* 6.10+: module_alloc() became execmem_alloc() */
	bool decompress_capable;	/* 5.17+: b1ae6dc41eaa, MODULE_INIT_COMPRESSED_FILE */
	bool zstd_decompress_capable;	/* 6.2+: 169a58ad824d */
};

void loadpath_from_release(const char *release, struct loadpath *ret);
/* One line for humans: "6.5+ (early duplicate check, idempotent finit_module)". */
const char *loadpath_summary(const struct loadpath *lp);
