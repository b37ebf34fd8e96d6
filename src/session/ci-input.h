/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ci/ci.h"

/*
 * `ci`'s inputs: saved kernel logs (dmesg text in every rendering, /dev/kmsg records,
 * journalctl text and JSON, serial consoles) and traces (text or trace.dat), plain or
 * compressed, each told by its first lines and read into ci's findings. A trace is read
 * as report reads a capture (collect_read(), the same ledger and pricing), with the
 * kernel log of its boot when both are given. Module trees for the estimates are
 * struct kt_system, one per release a boot names.
 *
 * Nothing here prints: skipped lines and other warnings go to ops.note, a failure
 * returns -errno with its reason in struct ci_input_err for the command to word.
 */

/* What an input was read as */
enum ci_input_format {
	CI_INPUT_DMESG,			/* every text rendering dmesg-text.c knows */
	CI_INPUT_KMSG,
	CI_INPUT_JOURNAL_JSON,
	CI_INPUT_TRACE,
	CI_INPUT_TRACE_DAT,		/* trace-cmd's binary trace.dat, by its magic */
};

/* The format of an input whose first line that is not blank is @line */
enum ci_input_format ci_input_sniff(const char *line, size_t len);

enum ci_input_note_kind {
	CI_NOTE_SKIPPED_LINE,		/* @line: @what, skipped */
	CI_NOTE_MORE_SKIPPED,		/* more skipped lines, not told one by one */
	CI_NOTE_TIME_BACK,		/* the trace goes back in time near @line, @count times */
	CI_NOTE_NO_NEWLINE,		/* the last line, @line, has no newline */
};

struct ci_input_note {
	enum ci_input_note_kind kind;
	const char *path;
	uint64_t line;
	uint64_t count;
	const char *what;
};

enum ci_input_fault {
	CI_FAULT_NONE,			/* -ENOMEM: out of memory; else nothing to add */
	CI_FAULT_ROOT,			/* --root @path: @what */
	CI_FAULT_FILE,			/* @path: @what (strerror, or the reader's words) */
	CI_FAULT_CORRUPT,		/* corrupt or truncated @what (compression) data at @line */
	CI_FAULT_THREAD,		/* a scanning thread did not start: @what */
	CI_FAULT_UNSUPPORTED,		/* @what compression is not supported */
	CI_FAULT_DAT_UNSEEKABLE,	/* a trace.dat from @what ("a pipe", "a compressed one") */
};

struct ci_input_err {
	enum ci_input_fault fault;
	const char *path;
	uint64_t line;
	const char *what;
};

struct ci_input_opts {
	const char *root;		/* --root; NULL: none (logs from elsewhere) */
	const char *release;		/* --kernel-release */
	const char *moduledir;		/* --moduledir */
	bool filter;			/* parse only the lines that hold a needle */
	unsigned int threads;		/* scanning a kernel log; 0: the CPUs, at most 8 */
	/* an input's end is where this many bytes were decompressed (fuzzing); 0: none */
	uint64_t max_bytes;
	void (*note)(void *userdata, const struct ci_input_note *n);
	void *userdata;
};

struct ci_input;

/* 0, or -errno with *ret_err set (the root cannot be opened: CI_FAULT_FILE). */
int ci_input_new(const struct ci_input_opts *o, struct ci_input **ret,
		 struct ci_input_err *ret_err);
struct ci_input *ci_input_free(struct ci_input *in);
/* The module trees, for ci_new(): valid while @in is */
const struct ci_cost_ops *ci_input_cost_ops(struct ci_input *in);

/* One input ("-": standard input) into @c, on its own. 0 or -errno with *ret_err. */
int ci_input_read(struct ci_input *in, struct ci_findings *c, const char *path,
		  struct ci_input_err *ret_err);
/*
 * Every input in the order given, but a trace and a kernel log given together (one of
 * each among the inputs) are one boot, as report reads a capture's: the trace right
 * after its log. 0 or -errno with *ret_err.
 */
int ci_input_read_all(struct ci_input *in, struct ci_findings *c, char *const *paths, size_t n,
		      struct ci_input_err *ret_err);
