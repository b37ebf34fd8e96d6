/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * `kmodtop record --print-setup`: the tracing kmodtop needs, as a POSIX shell script of
 * functions, for a machine without kmodtop: the naming kprobes, then either tracefs
 * alone (an instance of its own, read through trace_pipe) or trace-cmd (a buffer of
 * its own, into trace.dat), and the teardown. The caller says what the kernel has.
 */
struct setup_probe {
	const char *event;		/* "kmodtop_kread" */
	const char *symbol;		/* "kernel_read_file" */
	const char *args;		/* fetch args */
	const char *filter;		/* "" for none */
	const char *gives;		/* a comment: what the report has from it */
};

struct setup_script {
	const char *release;		/* "6.12.118+deb12-amd64" */
	const char *generation;		/* "6.5+: ..." a comment line */
	const char *tracefs;		/* "/sys/kernel/tracing" */
	const char *instance;		/* "kmodtop": instances/NAME and trace-cmd -B NAME */
	const char *group;		/* kprobe group: "kmodtop" */
	const char *clock;		/* the top-level trace clock, or NULL */
	unsigned int buffer_kb;		/* per CPU; 0: the kernel's default */
	const char *const *events;	/* "module/module_load", ... present on this kernel */
	size_t n_events;
	const struct setup_probe *probes;
	size_t n_probes;
	/* probes that cannot be placed: "event: why" lines for a comment */
	const char *const *missing;
	size_t n_missing;
	/* --measure: the vmalloc tracepoint (6.2+) or a kprobe on alloc_vmap_area */
	bool measure_tracepoint;
	const char *measure_kprobe_args;	/* "size=$arg1:u64", or NULL */
};

/* Writes the script. 0, or -EIO when the stream failed. */
int setup_script_write(FILE *f, const struct setup_script *s);
