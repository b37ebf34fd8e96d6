/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>

#include "cost/loadpath.h"
#include "output/setup-script.h"
#include "sources/kernel-btf.h"
#include "sources/load-probes.h"
#include "sources/trace/instance.h"
#include "util/root.h"

/*
 * What the tracing setup of a kernel can be, for `record --print-setup` and
 * `boot-setup`: the naming probes its BTF allows, the events its tracefs has, its trace
 * clock. From the running kernel (its tracefs, sys/kernel/btf/vmlinux), a captured
 * root's copies of those files, or a BTF the caller read elsewhere (an installed
 * kernel's boot image) with every event assumed present.
 */
/* per-CPU buffer with stack traces (--measure): a storm of loads between two reads */
#define SETUP_MEASURE_BUFFER_KB 4096

struct setup_plan {
	struct kt_root *root;
	bool live;			/* the root is "/" */
	struct kernel_btf *btf;		/* NULL: no BTF, no probes */
	int btf_err;			/* why there is none: -ENOENT, -EINVAL, -errno */
	struct ktrace_mount mnt;
	struct load_probe_plan plan;
	struct setup_probe probes[_LOAD_PROBE_MAX];
	const char *missing[_LOAD_PROBE_MAX];
	char missing_buf[_LOAD_PROBE_MAX][160];
	const char *events[KTRACE_MAX_EVENTS];
	char *funcs, *clock_text, *clock, *release;
	struct loadpath lp;
	struct setup_script ss;
};

struct setup_plan_opts {
	const char *instance;		/* instance and trace-cmd buffer name */
	bool measure;			/* --measure: the vmalloc tracepoint or kprobe */
	/*
	 * A BTF read by the caller (owned by the plan from now on): the kernel is then not
	 * the one running, so neither its tracefs nor the root's is asked.
	 */
	struct kernel_btf *btf;
	const char *release;		/* with btf: its release */
};

/*
 * @root_path NULL: "/". @release: the --kernel-release asked for the kernel of the root
 * (NULL: its own); unused with o->btf, whose release is o->release. 0, or -errno when
 * the root cannot be opened.
 */
int setup_plan_init(struct setup_plan *sp, const char *root_path, const char *release,
		    const struct setup_plan_opts *o);
/* The release @root_path (NULL: "/") runs: its osrelease, else (live) uname. */
int setup_plan_release(const char *root_path, char **ret);
void setup_plan_done(struct setup_plan *sp);
