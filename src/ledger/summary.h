/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ledger.h"

/* What the views show: the ledger's attempts counted per module, requester, alias. */

#define SUMMARY_MAX_ERRNO 16

struct hindex;

struct errno_count {
	int err;
	uint64_t count;
};

struct module_summary {
	const char *name;		/* NULL: the unnamed attempts. Owned by the ledger */
	uint64_t total;
	uint64_t loaded;
	uint64_t duplicate;		/* live + concurrent + waiters that returned an error */
	uint64_t dup_live, dup_concurrent, waiters, leaders;
	uint64_t failed;
	uint64_t by_outcome[_OUTCOME_MAX];
	struct errno_count by_errno[SUMMARY_MAX_ERRNO];
	size_t n_errno;
	uint64_t needless_autoloads;
	uint64_t requests;		/* autoload requests resolving to it */
	uint64_t vmap[_VMAP_MAX];	/* measured bytes of its failed attempts, by class */
	uint64_t wasted_measured;
	bool measured;			/* every attempt had vmap events */
};

struct requester_summary {
	char comm[32];			/* the task that asked: syscall thread or request task */
	int pid;			/* first pid seen */
	size_t n_pids;
	const char *call_site;		/* autoload: the kernel function that asked */
	bool autoload;
	uint64_t attempts;
	uint64_t failed;
	char **modules;			/* NULL-terminated, owned */
	size_t n_modules;
	const char *parent_comm;	/* first ancestor known, or NULL */
	int parent_pid;
};

struct autoload_summary {
	const char *alias;
	const char *call_site;
	char comm[32];			/* requesting task name */
	uint64_t requests;
	uint64_t needless;
	uint64_t modprobes;		/* modprobe runs that made syscalls */
	uint64_t attempts;
	const char *module;		/* first module the alias resolves to, NULL: none */
	bool resolved_none;		/* the alias resolves to no module */
	bool unresolved;		/* no module index to ask */
	size_t n_pids;
};

struct step_summary {
	const char *name;
	uint64_t calls;
	struct errno_count rets[SUMMARY_MAX_ERRNO];	/* err 0 = success */
	size_t n_rets;
	uint64_t waiters, fallbacks;
	uint64_t vmap[_VMAP_MAX];
	uint64_t wasted_measured;
};

#define FINDING_SAMPLES 3

/* Kernel log findings grouped by kind and module, with the lines they rest on */
struct finding_summary {
	int kind;			/* enum klog_finding_kind */
	const char *module;		/* owned by the ledger */
	uint64_t count;
	double first_ts, last_ts;
	const char *samples[FINDING_SAMPLES];
	size_t n_samples;
};

struct ledger_summary {
	struct module_summary *modules;
	size_t n_modules;
	struct requester_summary *requesters;
	size_t n_requesters;
	struct autoload_summary *autoload;
	size_t n_autoload;
	struct step_summary *steps;
	size_t n_steps;
	struct finding_summary *findings;
	size_t n_findings;
	uint64_t attempts, unnamed, waiters, fallbacks, failed, incomplete;
	uint64_t wasted_measured;
	bool measured;
	size_t cap_modules;		/* private */
	struct hindex *by_name;		/* private: modules by name */
};

int ledger_summarize(const struct ledger *l, struct ledger_summary **ret);
struct ledger_summary *ledger_summary_free(struct ledger_summary *s);
/* The module named @name (NULL: the unnamed attempts), or NULL */
const struct module_summary *ledger_summary_module(const struct ledger_summary *s,
						   const char *name);
/* Bytes a failed attempt allocated inside its call (what it wasted), when measured. */
uint64_t attempt_wasted(const struct attempt *a);
