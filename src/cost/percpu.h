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

