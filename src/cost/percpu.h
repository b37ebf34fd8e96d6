/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "estimate.h"

/*
 * Per-CPU alias risk: a module matched by a CPU device's modalias (cpu:type:..., ACPI
 * processor objects ACPI0007 and LNXCPU) gets one udev load attempt per CPU at boot.
 * All but one are duplicates; drivers that lose to another (cpufreq, edac) fail every
 * time. The cost at N CPUs comes from the same model as the attempts.
 */
struct percpu_risk {
	uint64_t per_duplicate;		/* one duplicate of a Live module */
	uint64_t per_failure;		/* one attempt whose init fails (the driver lost) */
	uint64_t worst;			/* N-1 duplicates, none merged (or N failures) */
	uint64_t merged;		/* 6.5+: overlapping finit_module calls park: one load */
};

/*
 * @fails: the module is known to fail its init here (ledger: init-failed attempts).
 * @compressed_flag: udev's libkmod passes MODULE_INIT_COMPRESSED_FILE (it does where
 * the kernel decompresses: kmod 31+).
 */
void percpu_risk_estimate(const struct cost_kernel *k, const struct cost_module *m,
			  unsigned int ncpus, bool fails, bool compressed_flag,
			  struct percpu_risk *ret);

/* A module every CPU's devices ask for, and what its per-CPU storm costs */
struct percpu_alias_risk {
	char name[64];
	const char *alias;	/* "cpu", "ACPI0007", "LNXCPU" */
	bool fails;		/* its init failed in the capture */
	struct percpu_risk risk;
};


/*
 * Per-CPU storms as a capture shows them. At boot udev gets one event per CPU device and
 * its workers each load what the CPU's modalias matches: a module every CPU asks for is
 * tried about once per CPU, and modprobe loads its dependencies first each time, in the
 * same worker, so they storm with it. What each wasted try cost is what the capture's
 * own attempts cost (the cost model over the ledger: the user copy of an init_module,
 * the file read and decompression of a finit_module, the layout before 6.4), not what
 * a model of some other path says.
 */
struct ledger;
struct cost_result;

/* systemd-udevd, or its workers: "(udev-worker)" (systemd 252), "udev-worker" */
bool percpu_requester_is_udev(const char *comm);

struct percpu_storm {
	const char *name;		/* owned by the ledger */
	/* modprobe loaded it first for this one (which may have no attempt); "": asked for */
	char dependency_of[64];
	size_t attempts;		/* by udev workers */
	size_t requesters;		/* distinct udev workers (pids) among them */
	size_t loaded;			/* attempts that loaded it */
	size_t wasted_attempts;		/* the others: duplicates, failures, waiters */
	uint64_t wasted;		/* what those cost in the capture */
	uint64_t by_class[_VMAP_MAX];	/* @wasted by vmap class: the path the kernel took */
	uint64_t per_attempt;		/* one wasted attempt: @wasted / @wasted_attempts */
	size_t per_cpu;			/* tries per CPU: attempts / capture CPUs, at least 1 */
	size_t attempts_at_n;		/* @per_cpu tries on each of N CPUs */
	uint64_t wasted_at_n;		/* (attempts_at_n - loaded) * per_attempt */
};

/* modprobe's dependencies of a module (modules.dep, softdep pre:); optional */
struct percpu_deps_ops {
	int (*deps)(void *userdata, const char *module, char ***ret_names, size_t *ret_n);
	void (*names_free)(char **names);
	void *userdata;
};

/*
 * The storms of @l (priced by @cost, its cost_compute() result) on a machine of
 * @capture_ncpus CPUs, each predicted for @ncpus: modules distinct udev workers tried
 * between half and twice as many times as there are CPUs (at least 2) and not always
 * with success, limited to @percpu_names when not NULL (the modules with an alias
 * every CPU matches: a module each of four NICs asks for storms with the devices, not
 * the CPUs), and with @deps the dependencies of each that the same workers tried before it,
 * and the dependencies of a module in @percpu_names that udev never tried: modprobe
 * stops at a dependency whose load fails, so a dependency that failed about once per
 * CPU, never loaded nor found Live, is the storm of that module.
 * At most @max into @ret, in order of first attempt; *ret_wasted_at_n their sum.
 * Nothing when either CPU count is 0 or @cost does not match @l. 0 or -ENOMEM.
 */
int percpu_storms_find(const struct ledger *l, const struct cost_result *cost,
		       unsigned int capture_ncpus, unsigned int ncpus,
		       const char *const *percpu_names, const struct percpu_deps_ops *deps,
		       struct percpu_storm *ret, size_t max, size_t *ret_n,
		       uint64_t *ret_wasted_at_n);
