/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>

#include "cost/cost.h"
#include "cost/loadpath.h"
#include "sources/moduledir.h"

/*
 * What every top sampler reads once: the kernel under study (root, release, module
 * tree and its index, catalog, configuration, compression, the decompression
 * judgement and the cost model's kernel), as `report` sets it up.
 */

struct kt_root;
struct kconfig;
struct modindex;
struct catalog;

struct top_static {
	struct kt_root *root;
	char release[256];
	bool has_release;
	struct loadpath lp;
	struct kconfig *kc;
	char compression[32];
	bool sysfs_compression;
	char *moduledir;
	struct moduledir_stats mds;
	bool has_moduledir;
	struct modindex *idx;
	struct catalog *cat; /* module files for the cost model */
	struct cost_kernel k;
	bool use_cache;
	char decompress[64];
	bool modstats;
};

/*
 * Opens @dir as the root and reads the kernel's facts; @release and @moduledir (may be
 * NULL) are the command line's. Set st->use_cache first. 0, or -errno when the root
 * cannot be opened. Says on stderr what it had to do without.
 */
int top_static_collect(struct top_static *st, const char *dir, const char *release,
		       const char *moduledir);
void top_static_done(struct top_static *st);
/* CPUs of the root's machine: its sysfs, else @trace_ncpus (0: none), else this one (live) */
unsigned int top_static_count_cpus(const struct top_static *st, unsigned int trace_ncpus);
/* Is @pattern an alias every CPU matches (cpu:type, ACPI0007, LNXCPU)? */
bool top_alias_is_percpu(const char *pattern);
