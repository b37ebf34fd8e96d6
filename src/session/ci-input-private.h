/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The inside of struct ci_input, shared by its files: ci-input.c (the inputs, traces,
 * module trees) and ci-input-klog.c (the kernel log readers). No one else includes it.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ci/ci.h"
#include "ledger/klog-findings.h"
#include "session/system.h"
#include "session/ci-input.h"

struct qp_line;

/* Skipped lines reported per input: the first few, then a count */
#define BAD_LINE_WARNINGS 10
/* Lines looked at for the input's format before it counts as kernel log text */
#define SNIFF_LINES 64
/* Release-specific module trees kept open */
#define MAX_TREES 8

struct ci_tree {
	char *release;			/* NULL: the default release */
	bool ok;			/* a catalog of module files to price with */
	struct kt_system sys;
};

struct ci_input {
	struct ci_findings *ci;
	/* the kernel under study: --root (NULL: none), --moduledir, the default release */
	const char *root_path;
	const char *moduledir;
	const char *release;		/* NULL: unknown */
	char release_buf[256];
	struct kt_root *root;
	struct ci_tree trees[MAX_TREES];
	size_t n_trees;
	struct ci_cost_ops cost_ops;
	struct kt_root *idx_root;	/* modprobe.d for the module index: --root, or / */
	struct modindex *idx;
	struct proc_modules *pm;
	struct stream_needles *needles;
	bool filter;
	uint64_t max_bytes;		/* decompressed bytes read of an input; 0: all */
	/* no needle can start inside a kernel time: lines alike but for it are alike */
	bool time_blind;
	void (*note)(void *userdata, const struct ci_input_note *n);
	void *userdata;
	struct ci_input_err *err;	/* the current call's */
	/* the current input */
	const char *path;
	struct stream *s;
	struct ci_input_stats st;
	unsigned int warned;
	/* kernel log text without timestamps (dmesg -t, printk.time=0): since its banner */
	bool plain;
	bool journal;			/* journalctl text: no filter */
	/*
	 * What the input's text looked like, to name its format: whether a timestamped
	 * kernel record was seen, and the first one's shape; kernel messages read without a
	 * timestamp or banner (before any timestamped record: a console paste); lines of
	 * other text before the first record, and journal lines of other programs.
	 */
	bool timed;
	bool untimed;
	enum klog_format first_format;
	bool first_caller, first_level, first_prefixed, first_inner_time;
	uint64_t text_before, other_programs;
	/*
	 * The last line when it may be the first half of one a paste split in two (a
	 * wording cut, a time alone, a quoted-printable soft break): one line, bounded.
	 */
	char cut[KLOG_JOIN_MAX];
	size_t cut_len;
	uint64_t cut_lineno;		/* 0: none held */
	uint64_t cut_at;		/* the input's line of its message: its first line */
	unsigned int cut_parts;		/* the lines joined in cut so far, less one */
	bool cut_record;		/* a kernel record's message, its record in cut_rec */
	bool cut_time_only;
	bool cut_weak;			/* no needle in it: joined only to a line with one */
	/* hold_cut() of a line whose next one holds a needle: held without one */
	bool cut_any;
	struct klog_rec cut_rec;
	/* a quoted-printable body read decoded: the decoded line being read, and its number */
	const struct qp_line *qp_line;
	uint64_t qp_lineno;
	char boot_id[48];
	/* threads that scan a kernel log (stream_scan()), this one included */
	unsigned int threads;
	/* the line being read, and its message's class when found on another thread */
	uint64_t lineno;
	const struct klog_finding *classified;
	/* trace inputs */
	uint64_t trace_last_ns, trace_back_steps, trace_back_line;
	/* a trace.dat: no lines, its events are numbered instead */
	bool dat;
	/* a text trace that cannot be opened again (compressed, standard input): its lines */
	FILE *copy;
	uint64_t copied;		/* lines in @copy */
	/* the kernel log of the trace's boot (given with it), and whether it is being read */
	const char *boot_log;
	bool joining;
};


static inline bool has_prefix(const char *s, size_t len, const char *p)
{
	size_t n = strlen(p);

	return len >= n && memcmp(s, p, n) == 0;
}

/* Tells the caller (opts.note) about @kind at @line of the current input */
void ci_input_note_add(struct ci_input *x, enum ci_input_note_kind kind, uint64_t line,
		       uint64_t count, const char *what);
/* Says why the call fails (struct ci_input_err); returns @r */
int ci_input_fail(struct ci_input *x, int r, enum ci_input_fault fault, const char *path,
		  uint64_t line, const char *what);
/* A line of the current input skipped: the first few are told, then that there are more */
void ci_input_bad_line(struct ci_input *x, uint64_t line, const char *what);
/* A stream's failure @r as struct ci_input_err; returns @r */
int ci_input_stream_error(struct ci_input *x, int r);
/* Reads the next line, fully or filtered: 1 line, 0 end, <0 fatal (x->err says why). */
int ci_input_next_line(struct ci_input *x, bool filtered, char **line, size_t *len);

/* Whether a needle can start inside a "[%5lu.%06lu]" time, as dmesg_time_prefix() reads */
bool ci_input_needle_in_time(const char *const *needles, size_t n);
/* The kernel log readers, from the input's first line (@line) on */
/* What reads a line of text, numbered as its reader counts lines */
typedef int (*ci_input_text_fn)(struct ci_input *x, void *ctx, uint64_t lineno, const char *line,
				size_t len);
/*
 * Reads the input's first lines (from @*line on) to tell a quoted-printable mail body.
 * When it is one, the whole input is read decoded, each decoded line to @fn, and 0 (or
 * <0) returned. When it is not, the lines read are given to @fn as they are, and 1 is
 * returned with the next line in @*line, @*len (0 at the input's end).
 */
int ci_input_read_qp(struct ci_input *x, char **line, size_t *len, ci_input_text_fn fn,
		     void *ctx);
/*
 * The input's physical line that holds @at, of the line @lineno as ci_input_read_qp()'s
 * @fn was given it: @lineno itself unless a quoted-printable body is read decoded.
 */
uint64_t ci_input_line_at(const struct ci_input *x, uint64_t lineno, const char *at);
int ci_input_read_dmesg(struct ci_input *x, char *line, size_t len);
int ci_input_read_kmsg(struct ci_input *x, char *line, size_t len);
int ci_input_read_journal_json(struct ci_input *x, char *line, size_t len);
/* One journal entry, @text a JSON object (of one line or more); @lineno its message's */
int ci_input_journal_json_object(struct ci_input *x, uint64_t lineno, const char *text,
				 size_t len);
/* Whether @line starts JSON spread over lines: a "{" alone */
bool ci_input_json_spread(const char *line, size_t len);
/* journalctl -o json-pretty, or dmesg --json, from its first line @line */
int ci_input_read_json_spread(struct ci_input *x, char *line, size_t len);
