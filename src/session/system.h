/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cost/estimate.h"
#include "cost/loadpath.h"
#include "sources/moduledir.h"
#include "util/kt-err.h"

/*
 * The kernel under study, opened once and handed to every command: the root it is read
 * from, its release (one resolver), its configuration, what its sysfs says about module
 * compression, its module tree (directory, libkmod index, the catalog of module files)
 * and the cost model's view of it, including the one judgement of whether it
 * decompresses modules itself. `report`, `top`, `ci` and the setup plan used to build
 * this each on their own, and their answers drifted apart.
 *
 * Nothing here prints: each part keeps its error (and struct kt_err) for the command
 * to word.
 */

struct catalog;
struct kconfig;
struct kt_root;
struct modindex;

struct kt_system_opts {
	/* a directory holding proc/, sys/, lib/modules/...; "/" is the running system */
	const char *root;
	/* asked for (--kernel-release); NULL: the root's own (osrelease, else uname) */
	const char *release;
	/* --moduledir; NULL: ROOT/lib/modules/RELEASE */
	const char *moduledir;
	/*
	 * No root at all (ci over logs saved elsewhere): @root is not read, the release is
	 * @release or unknown, the module tree is @moduledir's, and the kernel's
	 * configuration and sysfs are unknown (nothing of this machine stands in for them).
	 */
	bool no_root;
};

/* Where the release came from */
enum kt_release_from {
	KT_RELEASE_NONE,		/* unknown: no osrelease, not the running system */
	KT_RELEASE_ARG,			/* --kernel-release */
	KT_RELEASE_OSRELEASE,		/* proc/sys/kernel/osrelease */
	KT_RELEASE_UNAME,		/* the running system's uname(2) */
};

/*
 * The one release resolver: @asked (--kernel-release, checked when parsed), else the
 * root's proc/sys/kernel/osrelease when it holds a release's name (what uname -r gives:
 * letters, digits, "._-+~"), else on the running system uname(2). Into @buf; where it
 * came from, KT_RELEASE_NONE when nowhere. *ret_rejected: an osrelease was there but
 * held no release (worth a warning).
 */
enum kt_release_from kt_release_resolve(const struct kt_root *root, const char *asked,
					char *buf, size_t size, bool *ret_rejected);

struct kt_system {
	struct kt_root *root;		/* NULL: opened with no_root */
	bool live;			/* the root is "/" */

	char release[256];		/* "" when unknown */
	enum kt_release_from release_from;
	/* osrelease was there but held no release's name */
	bool release_rejected;
	struct loadpath lp;		/* what the release's load path does */

	struct kconfig *kconfig;	/* NULL: none found or refused (kconfig_err) */
	int kconfig_err;
	struct kt_err kconfig_e;
	char kconfig_path[256];		/* the file read, refused, or the pattern looked for */

	char compression[32];		/* sys/module/compression: "xz", "zstd", "gzip" */
	bool has_compression;
	int compression_err;
	struct kt_err compression_e;

	char *moduledir;		/* absolute; NULL: no release and no --moduledir */
	struct moduledir_stats mds;
	bool has_moduledir;		/* scanned */
	int moduledir_err;

	/* kt_system_open_module_tree(): NULL when there is no tree or it cannot be read */
	struct modindex *idx;
	struct catalog *cat;
	int index_err;			/* -EBADMSG: the binary indexes are damaged */

	/* the cost model's view of this kernel */
	struct cost_kernel k;
};

/*
 * Opens @o->root and reads what every command needs of its kernel: release,
 * configuration, sysfs compression, the module directory's statistics. Sources that are
 * missing or refused are recorded, not failures. 0, or -errno when the root itself
 * cannot be opened (nothing to free then) or memory ran out.
 */
int kt_system_open(const struct kt_system_opts *o, struct kt_system *ret);
/*
 * The libkmod index and the catalog of module files (sizes, layouts: the cost model's
 * inputs), @use_cache with the on-disk cache of module analyses. Without a module
 * directory, nothing. The callers' warnings about them are collect.h's.
 */
void kt_system_open_module_tree(struct kt_system *sys, bool use_cache);
void kt_system_close(struct kt_system *sys);

/* "--kernel-release", "proc/sys/kernel/osrelease", "uname"; NULL when unknown */
const char *kt_system_release_from(const struct kt_system *sys);
static inline const char *kt_system_release(const struct kt_system *sys)
{
	return sys->release_from != KT_RELEASE_NONE ? sys->release : NULL;
}

/*
 * Does this kernel decompress modules itself (finit_module with
 * MODULE_INIT_COMPRESSED_FILE, 5.17+)? What it advertises (sys/module/compression)
 * says yes; else its configuration decides (CONFIG_MODULE_DECOMPRESS, on a release that
 * has it); with neither, the release alone: a call that asks the kernel to decompress
 * is one it can serve, and one it cannot fails with EOPNOTSUPP, which the ledger sees.
 */
bool kt_system_in_kernel_decompression(const struct kt_system *sys);

/* "in-kernel (xz)", "userspace (zstd files)", "none (.ko files)", "unknown": for a header */
void kt_system_decompression_text(const struct kt_system *sys, char *buf, size_t size);

/*
 * CPUs of the machine the kernel ran on: the root's sysfs, its proc/cpuinfo, else
 * @trace_ncpus (a trace header's; 0: none), else this machine when the root is the running
 * system. *ret_from says which (NULL and 0: unknown). udev loads the modules of the
 * aliases every CPU raises once per CPU: the count prices that storm.
 */
unsigned int kt_system_count_cpus(const struct kt_system *sys, unsigned int trace_ncpus,
				  const char **ret_from);
/*
 * The modaliases a CPU's devices raise: the root's cpu0 modalias when captured, else one
 * that any x86 CPU feature matches (only vendor/family/model-specific aliases can be
 * missed then), and the ACPI processor objects. NULL-terminated, for
 * modindex_names_free(). 0 or -ENOMEM.
 */
int kt_system_cpu_modaliases(const struct kt_system *sys, char ***ret, const char **ret_from);
/* Is @pattern (a modules.alias pattern) one every CPU matches: cpu:type, ACPI0007, LNXCPU? */
bool kt_alias_is_percpu(const char *pattern);

struct cost_result;
struct ledger;
struct percpu_alias_risk;
struct percpu_storm;

/* The per-CPU risks: the caller sets the arrays and their sizes */
struct kt_percpu_risks {
	/* from the module tree: modules a CPU's modaliases resolve to */
	struct percpu_alias_risk *alias;
	size_t max_alias, n_alias;
	const char *alias_from;		/* the CPU modalias used; NULL: no index or catalog */
	/* from the capture: what udev loaded once per CPU (cost/percpu.h) */
	struct percpu_storm *storms;
	size_t max_storms, n_storms;
	uint64_t storms_wasted_at_n;	/* their sum at @ncpus */
};

/*
 * The modules the CPUs' aliases resolve to in the module tree (each once), each with
 * what a storm of @ncpus loads costs; those whose init failed in @l (may be NULL) are
 * priced as failing every time. Nothing without an index and a catalog.
 * And with a ledger @l and its prices @cost, the storms the capture shows on its
 * @capture_ncpus CPUs (with an index, among the modules that have an alias every CPU
 * matches, whatever its vendor, with the dependencies modprobe loaded with them),
 * predicted for @ncpus.
 * 0 or -ENOMEM.
 */
int kt_system_percpu_risks(const struct kt_system *sys, const struct ledger *l,
			   const struct cost_result *cost, unsigned int capture_ncpus,
			   unsigned int ncpus, struct kt_percpu_risks *ret);
