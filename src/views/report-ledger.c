/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ledger/klog-findings.h"
#include "ledger/proctab.h"
#include "output/units.h"
#include "util/macro.h"
#include "report.h"


/*
 * What the trace lacks that would have sized the failed calls no module file fits: the
 * naming probes (name a call, so its file is found), kmodtop_layout (sizes a layout
 * with no file), the vmalloc tracepoint (counts everything). Only what it really lacks.
 */
static void missing_sizing(const struct ledger *l, char *buf, size_t size)
{
	const char *what[3];
	size_t n = 0, off;

	buf[0] = 0;
	if (l->saw_vmap_events)
		return;
	if (!l->saw_kread_probe && !l->saw_name_probe)
		what[n++] = "kmodtop's naming probes (kprobes kmodtop_kread and kmodtop_name)";
	if (!l->saw_layout_probe)
		what[n++] = "the kmodtop_layout probe";
	what[n++] = "vmalloc:alloc_vmap_area";
	off = (size_t)snprintf(buf, size, "; the trace has neither ");
	for (size_t i = 0; i < n && off < size; i++)
		off += (size_t)snprintf(buf + off, size - off, "%s%s", what[i],
					i + 2 < n ? ", " : i + 1 < n ? " nor " : "");
	if (off < size)
		snprintf(buf + off, size - off, " (see record --print-setup)");
}

/* Why some failed calls have a range, not a figure, and what would have sized them */
static void note_doubts(const struct ledger *l, const struct cost_result *c, struct out *o)
{
	char note[768], missing[384];

	if (c->uncertain_unsized) {
		missing_sizing(l, missing, sizeof(missing));
		snprintf(note, sizeof(note),
			 "%zu failed calls name no module file the tree holds: each counts from 0 "
			 "to the largest file its evidence allows%s",
			 c->uncertain_unsized, missing);
		out_note(o, note);
	}
	if (c->uncertain_timing) {
		snprintf(note, sizeof(note),
			 "%zu failed finit_module() calls are told idempotent waiter (nothing paid) "
			 "or payer by timing alone: each counts from 0 to what it pays as a payer; "
			 "the kmodtop_kread probe or vmalloc:alloc_vmap_area tells them apart",
			 c->uncertain_timing);
		out_note(o, note);
	}
	if (c->uncertain_race)
		out_note(o, "duplicates that overlapped a load of their module may have passed "
			    "the early duplicate check before it was listed and paid its layout "
			    "too: the most counts that; the kmodtop_layout probe says which did");
}

const char *report_vmap_class_key(int cls)
{
	static const char *const keys[_VMAP_MAX] = { "kread", "decompress", "layout",
						     "user_copy", "other_load" };

	return cls >= 0 && cls < _VMAP_MAX ? keys[cls] : "?";
}

/* "12.345678 - 45.678901 s", or "-" */
static void render_window(struct out *o, const char *key_first, const char *key_last,
			  const char *label, double first, double last)
{
	char buf[96];

	out_f64(o, key_first, NULL, first);
	out_f64(o, key_last, NULL, last);
	if (isnan(first))
		return;
	snprintf(buf, sizeof(buf), "%.6f - %.6f s", first, last);
	out_str(o, NULL, label, buf);
}

static void render_inputs(const struct report_data *d, struct out *o)
{
	const struct ledger_summary *s = d->sum;
	const struct ledger *l = d->ledger;
	char buf[160];

	out_section_begin(o, "load_attempts", "Load attempts");
	out_section_begin(o, "inputs", NULL);
	out_str(o, "trace", "trace:", d->trace_path);
	if (d->trace_stats) {
		out_u64(o, "trace_events", NULL, d->trace_stats->events);
		out_u64(o, "trace_malformed_lines", NULL, d->trace_stats->malformed);
		out_u64(o, "trace_unknown_events", NULL, d->trace_stats->unknown);
		snprintf(buf, sizeof(buf), "%llu events, %llu malformed lines skipped, %llu of "
			 "unknown kinds",
			 (unsigned long long)d->trace_stats->events,
			 (unsigned long long)d->trace_stats->malformed,
			 (unsigned long long)d->trace_stats->unknown);
		out_str(o, NULL, "trace events:", buf);
		render_window(o, "trace_first", "trace_last", "trace time span:",
			      d->trace_first, d->trace_last);
	}
	out_str(o, "kernel_log", "kernel log:", d->log_path);
	if (d->log_path) {
		out_str(o, "kernel_log_format", NULL, d->log_format);
		out_u64(o, "kernel_log_records", NULL, d->log_records);
		out_u64(o, "kernel_log_malformed_lines", NULL, d->log_malformed);
		out_u64(o, "kernel_log_other_lines", NULL, d->log_other_lines);
		snprintf(buf, sizeof(buf), "%s, %llu records, %llu malformed, %llu other lines",
			 d->log_format ? d->log_format : "?", (unsigned long long)d->log_records,
			 (unsigned long long)d->log_malformed,
			 (unsigned long long)d->log_other_lines);
		out_str(o, NULL, "kernel log records:", buf);
		render_window(o, "kernel_log_first", "kernel_log_last",
			      "kernel log time span:", d->log_first, d->log_last);
	}
	if (l->stats.lost_uncounted) {
		/* "[LOST EVENTS]": the kernel knew some were lost, not how many */
		snprintf(buf, sizeof(buf), "%llu and an unknown number more (%llu CPU lines "
			 "without a count)", (unsigned long long)l->stats.lost_events,
			 (unsigned long long)l->stats.lost_uncounted);
		out_u64(o, "lost_events", NULL, l->stats.lost_events);
		out_str(o, NULL, "lost trace events:", buf);
	} else {
		out_u64(o, "lost_events", "lost trace events:", l->stats.lost_events);
	}
	out_u64(o, "lost_events_uncounted", NULL, l->stats.lost_uncounted);
	out_bool(o, "vmap_measured", "vmap allocations traced:", l->saw_vmap_events);
	out_section_end(o);

	out_u64(o, "total", "attempts:", s->attempts);
	out_u64(o, "unnamed", "unnamed attempts:", s->unnamed);
	out_u64(o, "failed", "failed:", s->failed);
	out_u64(o, "idempotent_waiters", "idempotent waiters:", s->waiters);
	out_u64(o, "fallbacks", "userspace-decompression fallbacks:", s->fallbacks);
	out_u64(o, "incomplete", "incomplete (no exit seen):", s->incomplete);
	out_u64(o, "autoload_requests", "autoload requests:", l->n_requests);
	if (d->cost) {
		const struct cost_result *c = d->cost;
		char label[64];

		out_section_begin(o, "wasted_vmap", NULL);
		if (c->uncertain) {
			char lo[32], hi[32];

			/* the headline is the range; the model's pick is beside it */
			snprintf(buf, sizeof(buf), "at least %s, at most %s",
				 format_bytes(c->wasted_min, lo, sizeof(lo)),
				 c->max_unbounded ? "unknown (no module file to bound it)"
						  : format_bytes(c->wasted_max, hi, sizeof(hi)));
			out_str(o, NULL, "vmap wasted (estimated):", buf);
			out_bytes(o, "estimated", "  best estimate:", c->wasted);
		} else {
			out_bytes(o, "estimated", "vmap wasted (estimated):", c->wasted);
		}
		out_bytes(o, "estimated_min", NULL, c->wasted_min);
		if (c->max_unbounded)
			out_null(o, "estimated_max", NULL, NULL);
		else
			out_bytes(o, "estimated_max", NULL, c->wasted_max);
		out_u64(o, "uncertain", NULL, c->uncertain);
		if (l->saw_vmap_events)
			out_bytes(o, "measured", "vmap wasted (measured):", s->wasted_measured);
		out_section_begin(o, "by_class", NULL);
		for (int k = 0; k < _VMAP_MAX; k++) {
			snprintf(label, sizeof(label), "  %s:", vmap_class_name(k));
			out_bytes(o, report_vmap_class_key(k), label, c->by_class[k]);
		}
		out_section_end(o);
		out_bytes(o, "peak_concurrent", "peak held at once (estimated):", c->peak_concurrent);
		if (c->peak_concurrent) {
			out_u64(o, "peak_at_us", NULL, (uint64_t)(c->peak_ts * 1e6));
		}
		if (d->mi && d->mi->has_vmalloc_total && d->mi->vmalloc_total) {
			out_u64(o, "peak_share_ppm", NULL,
				(uint64_t)(c->peak_concurrent * 1e6 / d->mi->vmalloc_total));
			snprintf(buf, sizeof(buf), "%.6f%% of VmallocTotal",
				 100.0 * c->peak_concurrent / d->mi->vmalloc_total);
			out_str(o, NULL, "  peak share:", buf);
		}
		out_u64(o, "unestimated", "failed calls not sized:", c->unestimated);
		if (d->ms && d->ms->has[MODSTAT_WASTED_BYTES])
			out_bytes(o, "module_stats", "MODULE_STATS says:", d->ms->v[MODSTAT_WASTED_BYTES]);
		out_section_end(o);
		note_doubts(l, c, o);
		for (size_t a = 0; a < d->ledger->n_attempts; a++)
			if (c->att[a].source == COST_MEASURED && c->att[a].wasted) {
				out_note(o, "failed calls with no module file to model are counted with "
					    "what the vmalloc tracepoint saw them allocate");
				break;
			}
	}
	if (l->stats.lost_events || l->stats.lost_uncounted)
		out_note(o, "the trace lost events: attempts, outcomes and requesters may be "
			    "missing or incomplete");
	if (s->fallbacks)
		out_note(o, "a finit_module() that failed with ENOEXEC on a compressed file was "
			    "followed by init_module() of the decompressed module on the same thread: "
			    "the kernel read the whole file for nothing");
	if (s->unnamed)
		out_note(o, "an attempt's module is named only from evidence in the trace or log "
			    "(module_load, a log line inside the call, its idempotent leader, the "
			    "fallback pair, the file size; live: the call's file descriptor read "
			    "inside the call); the others are shown unnamed, never guessed");
	out_section_end(o);
}

static const struct col_desc requester_cols[] = {
	{ "REQUESTER", "comm", COL_STR, 0, "task that asked: the syscall's, or the autoload's" },
	{ "PID", "pid", COL_I64, COL_RIGHT, "its first pid" },
	{ "PIDS", "pids", COL_U64, COL_RIGHT, "distinct pids with that name" },
	{ "CALL SITE", "call_site", COL_STR, 0, "kernel function that called request_module()" },
	{ "PARENT", "parent", COL_STR, 0, "parent task (sched_process_fork), when traced" },
	{ "ATTEMPTS", "attempts", COL_U64, COL_RIGHT, "load attempts made for it" },
	{ "FAIL", "failed", COL_U64, COL_RIGHT, "of which failed" },
	{ "MODULES", "modules", COL_STRV, 0, "modules the attempts named" },
};

static int render_requesters(const struct report_data *d, struct out *o)
{
	const struct ledger_summary *s = d->sum;
	struct table *t;
	char buf[64];
	int r;

	r = table_new(requester_cols, ARRAY_SIZE(requester_cols), &t);
	if (r < 0)
		return r;
	for (size_t i = 0; i < s->n_requesters && r >= 0; i++) {
		const struct requester_summary *q = &s->requesters[i];
		size_t row;

		r = table_add_row(t, &row);
		if (r < 0)
			break;
		r = table_set_str(t, row, 0, q->comm);
		table_set_i64(t, row, 1, q->pid);
		table_set_u64(t, row, 2, q->n_pids);
		if (r >= 0)
			r = table_set_str(t, row, 3, q->call_site);
		if (r >= 0 && q->parent_pid) {
			snprintf(buf, sizeof(buf), "%s(%d)", q->parent_comm ? q->parent_comm : "?",
				 q->parent_pid);
			r = table_set_str(t, row, 4, buf);
		}
		table_set_u64(t, row, 5, q->attempts);
		table_set_u64(t, row, 6, q->failed);
		if (r >= 0)
			r = table_set_strv(t, row, 7, q->modules, q->n_modules);
	}
	if (r >= 0)
		out_table(o, "requesters", "Requesters", t);
	table_free(t);
	return r < 0 ? r : 0;
}

static const struct col_desc autoload_cols[] = {
	{ "ALIAS", "alias", COL_STR, 0, "what request_module() asked for" },
	{ "CALL SITE", "call_site", COL_STR, 0, "the kernel function that asked" },
	{ "TASK", "task", COL_STR, 0, "the task it ran in" },
	{ "TASKS", "tasks", COL_U64, COL_RIGHT, "distinct pids" },
	{ "MODULE", "module", COL_STR, COL_NAME, "what the alias resolves to (libkmod); - for none" },
	{ "REQUESTS", "requests", COL_U64, COL_RIGHT, "request_module() calls" },
	{ "NEEDLESS", "needless", COL_U64, COL_RIGHT, "made while the module was Live" },
	{ "MODPROBES", "modprobes", COL_U64, COL_RIGHT, "modprobe runs that made syscalls" },
	{ "ATTEMPTS", "attempts", COL_U64, COL_RIGHT, "load attempts those modprobes made" },
	{ "RESOLVES", "resolves", COL_STR, 0, "module, none, or unknown (no index)" },
};

static int render_autoload(const struct report_data *d, struct out *o)
{
	const struct ledger_summary *s = d->sum;
	struct table *t;
	int r;

	r = table_new(autoload_cols, ARRAY_SIZE(autoload_cols), &t);
	if (r < 0)
		return r;
	for (size_t i = 0; i < s->n_autoload && r >= 0; i++) {
		const struct autoload_summary *a = &s->autoload[i];
		size_t row;

		r = table_add_row(t, &row);
		if (r < 0)
			break;
		r = table_set_str(t, row, 0, a->alias);
		if (r >= 0)
			r = table_set_str(t, row, 1, a->call_site);
		if (r >= 0)
			r = table_set_str(t, row, 2, a->comm);
		table_set_u64(t, row, 3, a->n_pids);
		if (r >= 0)
			r = table_set_str(t, row, 4, a->module);
		table_set_u64(t, row, 5, a->requests);
		table_set_u64(t, row, 6, a->needless);
		table_set_u64(t, row, 7, a->modprobes);
		table_set_u64(t, row, 8, a->attempts);
		if (r >= 0)
			r = table_set_str(t, row, 9, a->unresolved ? "unknown"
						     : a->resolved_none ? "none" : "module");
	}
	if (r >= 0 && (out_format(o) == OUT_JSON || t->nrows))
		out_table(o, "autoload", "Autoload requests (request_module)", t);
	table_free(t);
	return r < 0 ? r : 0;
}

static const struct col_desc step_cols[] = {
	{ "STEP", "name", COL_STR, 0, "tracing_mark_write \"STEP name\" marker" },
	{ "CALLS", "calls", COL_U64, COL_RIGHT, "finit/init_module calls started in the step" },
	{ "RETURNS", "rets", COL_COUNTS, COL_ERRNO,
	  "return values (0 or -errno; the errno's name in text) and how often" },
	{ "WAITERS", "idempotent_waiters", COL_U64, COL_RIGHT, "idempotent waiters" },
	{ "FALLBACKS", "fallbacks", COL_U64, COL_RIGHT, "userspace-decompression fallbacks" },
	{ "KREAD", "vmap.kread", COL_BYTES, COL_RIGHT, "measured: kernel_read_file" },
	{ "DECOMP", "vmap.decompress", COL_BYTES, COL_RIGHT, "measured: module_decompress" },
	{ "LAYOUT", "vmap.layout", COL_BYTES, COL_RIGHT, "measured: module memory" },
	{ "USERCOPY", "vmap.user-copy", COL_BYTES, COL_RIGHT, "measured: init_module's copy" },
	{ "OTHER", "vmap.other-load", COL_BYTES, COL_NOTEXT, "measured: elsewhere in load_module" },
	{ "MEASURED", "wasted_measured", COL_BYTES, COL_RIGHT, "measured bytes of failed calls" },
	{ "ESTIMATED", "wasted_vmap.estimated", COL_BYTES, COL_RIGHT, "estimated bytes of failed calls" },
	{ "EKREAD", "wasted_vmap.by_class.kread", COL_BYTES, COL_NOTEXT, "estimated" },
	{ "EDECOMP", "wasted_vmap.by_class.decompress", COL_BYTES, COL_NOTEXT, "estimated" },
	{ "ELAYOUT", "wasted_vmap.by_class.layout", COL_BYTES, COL_NOTEXT, "estimated" },
	{ "EUSERCOPY", "wasted_vmap.by_class.user_copy", COL_BYTES, COL_NOTEXT, "estimated" },
	{ "EOTHER", "wasted_vmap.by_class.other_load", COL_BYTES, COL_NOTEXT, "estimated" },
	{ "EMAX", "wasted_vmap.estimated_max", COL_BYTES, COL_NOTEXT,
	  "the most the evidence allows: racing duplicates paid the layout, unsized calls "
	  "their largest candidate, timing waiters as payers; null when unbounded" },
	{ "EMIN", "wasted_vmap.estimated_min", COL_BYTES, COL_NOTEXT,
	  "the least the evidence allows" },
};

static int render_steps(const struct report_data *d, struct out *o)
{
	const struct ledger_summary *s = d->sum;
	bool measured = d->ledger->saw_vmap_events;
	struct table *t;
	char key[16];
	int r;

	if (!d->ledger->n_steps)
		return 0;
	r = table_new(step_cols, ARRAY_SIZE(step_cols), &t);
	if (r < 0)
		return r;
	for (size_t i = 0; i < s->n_steps && r >= 0; i++) {
		const struct step_summary *st = &s->steps[i];
		size_t row;

		if (i == 0 && !st->calls)
			continue;
		r = table_add_row(t, &row);
		if (r < 0)
			break;
		r = table_set_str(t, row, 0, st->name ? st->name : "(before the first step)");
		table_set_u64(t, row, 1, st->calls);
		if (r >= 0)
			r = table_set_strv(t, row, 2, NULL, 0);
		for (size_t k = 0; k < st->n_rets && r >= 0; k++) {
			snprintf(key, sizeof(key), "%d", -st->rets[k].err);
			r = table_add_count(t, row, 2, key, st->rets[k].count);
		}
		table_set_u64(t, row, 3, st->waiters);
		table_set_u64(t, row, 4, st->fallbacks);
		if (measured) {
			for (int c = 0; c < _VMAP_MAX; c++)
				table_set_u64(t, row, 5 + c, st->vmap[c]);
			table_set_u64(t, row, 10, st->wasted_measured);
		}
		if (d->cost) {
			uint64_t est = 0, max = 0, min = 0, cls[_VMAP_MAX] = {0};
			bool unbounded = false;

			for (size_t a = 0; a < d->ledger->n_attempts; a++) {
				const struct attempt_cost *ac = &d->cost->att[a];

				if (d->ledger->attempts[a].step + 1 != (long)i)
					continue;
				min = add_sat_u64(min, ac->lo);
				max = add_sat_u64(max, ac->hi);
				unbounded = unbounded || ac->hi_unbounded;
				if (!ac->wasted)
					continue;
				est = add_sat_u64(est, ac->wasted);
				for (int c = 0; c < _VMAP_MAX; c++)
					cls[c] = add_sat_u64(cls[c], ac->est[c]);
			}
			table_set_u64(t, row, 11, est);
			for (int c = 0; c < _VMAP_MAX; c++)
				table_set_u64(t, row, 12 + c, cls[c]);
			if (!unbounded)
				table_set_u64(t, row, 17, max);
			table_set_u64(t, row, 18, min);
		}
	}
	if (r >= 0)
		out_table(o, "steps", "Steps (trace markers)", t);
	table_free(t);
	return r < 0 ? r : 0;
}

static const struct col_desc finding_cols[] = {
	{ "FINDING", "kind", COL_STR, 0, "what the kernel log says" },
	{ "MODULE", "module", COL_STR, COL_NAME, "module it names" },
	{ "COUNT", "count", COL_U64, COL_RIGHT, "lines" },
	{ "FIRST", "first", COL_FLOAT, COL_RIGHT, "seconds since boot of the earliest line" },
	{ "LAST", "last", COL_FLOAT, COL_NOTEXT, "of the latest" },
	{ "EXAMPLE", "lines", COL_STRV, 0, "the lines it rests on (first few)" },
};

static int render_findings(const struct report_data *d, struct out *o)
{
	const struct ledger_summary *s = d->sum;
	struct table *t;
	int r;

	if (!d->log_path)
		return 0;
	r = table_new(finding_cols, ARRAY_SIZE(finding_cols), &t);
	if (r < 0)
		return r;
	for (size_t i = 0; i < s->n_findings && r >= 0; i++) {
		const struct finding_summary *f = &s->findings[i];
		size_t row;

		r = table_add_row(t, &row);
		if (r < 0)
			break;
		r = table_set_str(t, row, 0, klog_finding_kind_name(f->kind));
		if (r >= 0)
			r = table_set_str(t, row, 1, f->module);
		table_set_u64(t, row, 2, f->count);
		if (!isnan(f->first_ts)) {
			table_set_float(t, row, 3, f->first_ts);
			table_set_float(t, row, 4, f->last_ts);
		}
		/* text shows one example line; JSON all samples */
		if (r >= 0)
			r = table_set_strv(t, row, 5, (char **)f->samples,
					   out_format(o) == OUT_JSON ? f->n_samples : 1);
	}
	if (r >= 0)
		out_table(o, "findings", "Kernel log findings", t);
	table_free(t);
	return r < 0 ? r : 0;
}

enum {
	TCOL_MODULE,
	TCOL_NAMESRC,
	TCOL_SYSCALL,
	TCOL_COMM,
	TCOL_PID,
	TCOL_FD,
	TCOL_FLAGS,
	TCOL_LEN,
	TCOL_START,
	TCOL_END,
	TCOL_RET,
	TCOL_ERRNO,
	TCOL_OUTCOME,
	TCOL_LEADER,
	TCOL_REQ_COMM,
	TCOL_REQ_PID,
	TCOL_REQ_SITE,
	TCOL_REQ_ALIAS,
	TCOL_REQ_PARENTS,
	TCOL_STEP,
	TCOL_KREAD,
	TCOL_DECOMP,
	TCOL_LAYOUT,
	TCOL_USERCOPY,
	TCOL_OTHER,
	TCOL_EST_WASTED,
	TCOL_WASTED_MEASURED,
	TCOL_EST_KREAD,
	TCOL_EST_DECOMP,
	TCOL_EST_LAYOUT,
	TCOL_EST_USERCOPY,
	TCOL_EST_OTHER,
	TCOL_EST_SOURCE,
	TCOL_EST_MIN,
	TCOL_EST_MAX,
	TCOL_KREAD_SIZE,
	TCOL_LAYOUT_SIZE,
	_TCOL_MAX,
};

static const struct col_desc attempt_cols[_TCOL_MAX] = {
	[TCOL_MODULE] = { "MODULE", "module", COL_STR, COL_NAME, "module, null when unnamed" },
	[TCOL_NAMESRC] = { "NAMED BY", "name_source", COL_STR, COL_NOTEXT, "evidence for the name" },
	[TCOL_SYSCALL] = { "SYSCALL", "syscall", COL_STR, 0, "finit_module or init_module" },
	[TCOL_COMM] = { "COMM", "comm", COL_STR, 0, "thread that made the call" },
	[TCOL_PID] = { "PID", "pid", COL_I64, COL_RIGHT, "its pid" },
	[TCOL_FD] = { "FD", "fd", COL_I64, COL_NOTEXT, "finit_module's fd" },
	[TCOL_FLAGS] = { "FLAGS", "flags", COL_U64, COL_NOTEXT, "finit_module's flags" },
	[TCOL_LEN] = { "LEN", "len", COL_U64, COL_NOTEXT, "init_module's length" },
	[TCOL_START] = { "START", "start", COL_FLOAT, COL_RIGHT, "entry, trace seconds" },
	[TCOL_END] = { "END", "end", COL_FLOAT, COL_NOTEXT, "exit, trace seconds" },
	[TCOL_RET] = { "RET", "ret", COL_I64, COL_NOTEXT, "raw return value" },
	[TCOL_ERRNO] = { "ERRNO", "errno", COL_STR, 0, "error name, null on success" },
	[TCOL_OUTCOME] = { "OUTCOME", "outcome", COL_STR, 0, "outcome class" },
	[TCOL_LEADER] = { "LEADER", "leader", COL_I64, COL_NOTEXT, "waiter: index of its leader" },
	[TCOL_REQ_COMM] = { "REQUESTER", "requester.comm", COL_STR, 0, "who asked" },
	[TCOL_REQ_PID] = { "RPID", "requester.pid", COL_I64, COL_NOTEXT, "its pid" },
	[TCOL_REQ_SITE] = { "CALL SITE", "requester.call_site", COL_STR, 0, "autoload call site" },
	[TCOL_REQ_ALIAS] = { "ALIAS", "requester.alias", COL_STR, COL_NOTEXT, "autoload alias" },
	[TCOL_REQ_PARENTS] = { "PARENTS", "requester.parents", COL_PROCS, COL_NOTEXT,
			       "its parent, the parent's parent, ... (fork events or /proc)" },
	[TCOL_STEP] = { "STEP", "step", COL_STR, COL_NOTEXT, "marker step" },
	[TCOL_KREAD] = { "KREAD", "vmap.kread", COL_BYTES, COL_NOTEXT, "measured" },
	[TCOL_DECOMP] = { "DECOMP", "vmap.decompress", COL_BYTES, COL_NOTEXT, "measured" },
	[TCOL_LAYOUT] = { "LAYOUT", "vmap.layout", COL_BYTES, COL_NOTEXT, "measured" },
	[TCOL_USERCOPY] = { "USERCOPY", "vmap.user-copy", COL_BYTES, COL_NOTEXT, "measured" },
	[TCOL_OTHER] = { "OTHER", "vmap.other-load", COL_BYTES, COL_NOTEXT, "measured" },
	[TCOL_EST_WASTED] = { "WASTED", "wasted_vmap", COL_BYTES, COL_RIGHT,
			      "estimated bytes, when the call failed" },
	[TCOL_WASTED_MEASURED] = { "MEASURED", "wasted_measured", COL_BYTES, COL_RIGHT,
				   "measured bytes, when the call failed and vmap was traced" },
	[TCOL_EST_KREAD] = { "EKREAD", "estimated.kread", COL_BYTES, COL_NOTEXT, "model" },
	[TCOL_EST_DECOMP] = { "EDECOMP", "estimated.decompress", COL_BYTES, COL_NOTEXT, "model" },
	[TCOL_EST_LAYOUT] = { "ELAYOUT", "estimated.layout", COL_BYTES, COL_NOTEXT, "model" },
	[TCOL_EST_USERCOPY] = { "EUSERCOPY", "estimated.user_copy", COL_BYTES, COL_NOTEXT, "model" },
	[TCOL_EST_OTHER] = { "EOTHER", "estimated.other_load", COL_BYTES, COL_NOTEXT, "model" },
	[TCOL_EST_SOURCE] = { "SIZED BY", "estimated.source", COL_STR, COL_NOTEXT,
			      "model, measured (no module file to model), or none" },
	[TCOL_EST_MIN] = { "WMIN", "wasted_vmap_min", COL_BYTES, COL_NOTEXT,
			   "the least the evidence allows it wasted" },
	[TCOL_EST_MAX] = { "WMAX", "wasted_vmap_max", COL_BYTES, COL_NOTEXT,
			   "the most; null when nothing bounds it" },
	[TCOL_KREAD_SIZE] = { "READ", "kread_bytes", COL_U64, COL_NOTEXT,
			      "what kernel_read_file() read (kmodtop_kread probe)" },
	[TCOL_LAYOUT_SIZE] = { "LAYOUT", "layout_bytes", COL_U64, COL_NOTEXT,
			       "what the call asked for its module's final memory "
			       "(kmodtop_layout probe)" },
};

/* @pid's ancestors, parent first, as "PID COMM" (COL_PROCS) */
static int set_parents(struct table *t, size_t row, size_t col, const struct proctab *pt, int pid)
{
	const char *comms[16];
	int pids[16];
	char buf[ARRAY_SIZE(pids)][48], *v[ARRAY_SIZE(pids)];
	size_t n = proctab_chain(pt, pid, comms, pids, ARRAY_SIZE(pids));

	for (size_t k = 0; k < n; k++) {
		snprintf(buf[k], sizeof(buf[k]), "%d %s", pids[k], comms[k] ? comms[k] : "");
		v[k] = buf[k];
	}
	return table_set_strv(t, row, col, v, n);
}

static int render_attempt_list(const struct report_data *d, struct out *o)
{
	const struct ledger *l = d->ledger;
	struct table *t;
	int r;

	if (out_format(o) != OUT_JSON && !d->with_attempts)
		return 0;
	r = table_new(attempt_cols, _TCOL_MAX, &t);
	if (r < 0)
		return r;
	for (size_t i = 0; i < l->n_attempts && r >= 0; i++) {
		const struct attempt *a = &l->attempts[i];
		char ebuf[ATTEMPT_ERRNO_NAME_MAX];
		const struct autoload_request *rq = a->request >= 0 ? &l->requests[a->request] : NULL;
		size_t row;

		r = table_add_row(t, &row);
		if (r < 0)
			break;
		r = table_set_str(t, row, TCOL_MODULE, a->module);
		if (r >= 0)
			r = table_set_str(t, row, TCOL_NAMESRC, name_source_name(a->name_source));
		if (r >= 0)
			r = table_set_str(t, row, TCOL_SYSCALL,
					  a->syscall == ATTEMPT_FINIT ? "finit_module" : "init_module");
		if (r >= 0)
			r = table_set_str(t, row, TCOL_COMM, a->comm);
		table_set_i64(t, row, TCOL_PID, a->pid);
		if (a->syscall == ATTEMPT_FINIT) {
			table_set_i64(t, row, TCOL_FD, a->fd);
			table_set_u64(t, row, TCOL_FLAGS, a->flags);
		} else {
			table_set_u64(t, row, TCOL_LEN, a->len);
		}
		table_set_float(t, row, TCOL_START, a->start);
		if (a->complete) {
			table_set_float(t, row, TCOL_END, a->end);
			table_set_i64(t, row, TCOL_RET, a->ret);
			if (r >= 0 && a->err)
				r = table_set_str(t, row, TCOL_ERRNO, attempt_errno_name(a->err, ebuf));
		}
		if (r >= 0)
			r = table_set_str(t, row, TCOL_OUTCOME, attempt_outcome_name(a->outcome));
		if (a->leader >= 0)
			table_set_i64(t, row, TCOL_LEADER, a->leader);
		if (r >= 0)
			r = table_set_str(t, row, TCOL_REQ_COMM, rq ? rq->comm : a->comm);
		table_set_i64(t, row, TCOL_REQ_PID, rq ? rq->pid : a->pid);
		if (r >= 0 && rq)
			r = table_set_str(t, row, TCOL_REQ_SITE, rq->call_site);
		if (r >= 0 && rq)
			r = table_set_str(t, row, TCOL_REQ_ALIAS, rq->alias);
		if (r >= 0)
			r = set_parents(t, row, TCOL_REQ_PARENTS, ledger_proctab(l), rq ? rq->pid : a->pid);
		if (a->kread_seen)
			table_set_u64(t, row, TCOL_KREAD_SIZE, a->kread_size);
		if (a->layout_seen)
			table_set_u64(t, row, TCOL_LAYOUT_SIZE, a->layout_size);
		if (r >= 0 && a->step >= 0)
			r = table_set_str(t, row, TCOL_STEP, l->steps[a->step].name);
		if (a->measured) {
			for (int c = 0; c < _VMAP_MAX; c++)
				table_set_u64(t, row, TCOL_KREAD + c, a->vmap[c]);
			/* beside the estimate: what the failed call was seen to allocate */
			table_set_u64(t, row, TCOL_WASTED_MEASURED, attempt_wasted(a));
		}
		if (d->cost && d->cost->att[i].estimated) {
			table_set_u64(t, row, TCOL_EST_WASTED, d->cost->att[i].wasted);
			for (int c = 0; c < _VMAP_MAX; c++)
				table_set_u64(t, row, TCOL_EST_KREAD + c, d->cost->att[i].est[c]);
		}
		if (r >= 0 && d->cost)
			r = table_set_str(t, row, TCOL_EST_SOURCE,
					  cost_source_name(d->cost->att[i].source));
		if (d->cost) {
			table_set_u64(t, row, TCOL_EST_MIN, d->cost->att[i].lo);
			if (!d->cost->att[i].hi_unbounded)
				table_set_u64(t, row, TCOL_EST_MAX, d->cost->att[i].hi);
		}
		/* JSON: a thousand rows at a time, not one an attempt kept to the end */
		if (r >= 0 && t->nrows >= 1024)
			out_table_rows(o, t);
	}
	if (r >= 0 && (out_format(o) == OUT_JSON || d->ledger->saw_vmap_events)) {
		out_table(o, "attempts", "Attempts", t);
	} else if (r >= 0) {
		/* no vmap event traced: no MEASURED column of dashes beside the estimate */
		size_t cols[_TCOL_MAX], n = 0;

		for (size_t c = 0; c < _TCOL_MAX; c++)
			if (c != TCOL_WASTED_MEASURED && !(attempt_cols[c].flags & COL_NOTEXT))
				cols[n++] = c;
		out_table_text(o, "Attempts", t, cols, n, NULL);
	}
	table_free(t);
	return r < 0 ? r : 0;
}

int report_render_ledger(const struct report_data *d, struct out *o)
{
	int r;

	render_inputs(d, o);
	r = render_requesters(d, o);
	if (r >= 0)
		r = render_autoload(d, o);
	if (r >= 0)
		r = render_steps(d, o);
	if (r >= 0)
		r = render_findings(d, o);
	if (r >= 0)
		r = render_attempt_list(d, o);
	return r;
}

static const struct col_desc percpu_cols[] = {
	{ "MODULE", "name", COL_STR, 0, "a module a CPU device's modalias matches" },
	{ "ALIAS", "alias", COL_STR, 0, "cpu (cpu:type:...), ACPI0007 or LNXCPU" },
	{ "FAILS", "fails_here", COL_BOOL, 0, "its init failed in the attempts seen" },
	{ "PER DUP", "per_duplicate", COL_BYTES, COL_RIGHT, "one duplicate of the Live module" },
	{ "PER FAIL", "per_failure", COL_BYTES, COL_RIGHT, "one attempt whose init fails" },
	{ "AT N", "worst", COL_BYTES, COL_RIGHT, "N CPUs, no two attempts merged" },
	{ "MERGED", "merged", COL_BYTES, COL_RIGHT, "6.5+: overlapping attempts parked" },
};

static const struct col_desc storm_cols[] = {
	{ "MODULE", "name", COL_STR, COL_NAME, "a module udev workers tried about once per CPU" },
	{ "WITH", "dependency_of", COL_STR, COL_NAME,
	  "modprobe loaded it first for this one (its dependency)" },
	{ "TRIES", "attempts", COL_U64, COL_RIGHT, "udev's attempts in the capture" },
	{ "WORKERS", "requesters", COL_U64, COL_RIGHT, "distinct udev workers among them" },
	{ "LOADED", "loaded", COL_U64, COL_RIGHT, "attempts that loaded it" },
	{ "WASTED", "wasted_attempts", COL_U64, COL_RIGHT, "the others: duplicates, failures" },
	{ "PATH", "path", COL_STR, 0, "what a wasted try allocated: kread, decompress, "
	  "layout, user_copy (none: waiters)" },
	{ "EACH", "per_attempt", COL_BYTES, COL_RIGHT, "one wasted try, as the capture paid it" },
	{ "SEEN", "wasted", COL_BYTES, COL_RIGHT, "what the wasted tries cost in the capture" },
	{ "TRIES AT N", "attempts_at_n", COL_U64, COL_RIGHT, "tries per CPU times N CPUs" },
	{ "AT N", "wasted_at_n", COL_BYTES, COL_RIGHT, "all but its loads wasted, at N CPUs" },
};

/* "kread+decompress": the classes a storm's wasted tries allocated */
static void storm_path(const struct percpu_storm *p, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int c = 0; c < _VMAP_MAX; c++)
		if (p->by_class[c] && len < size)
			len += snprintf(buf + len, size - len, "%s%s", len ? "+" : "",
					report_vmap_class_key(c));
	if (!len)
		snprintf(buf, size, "none");
}

static int render_storms(const struct report_data *d, struct out *o)
{
	char buf[128], label[64];
	struct table *t;
	int r;

	out_str(o, "from", NULL, "capture");
	out_str(o, NULL, "From:", "the capture: what udev loaded once per CPU");
	snprintf(buf, sizeof(buf), "%u", d->capture_ncpus);
	out_u64(o, "capture_ncpus", NULL, d->capture_ncpus);
	out_str(o, NULL, "CPUs captured:", buf);
	snprintf(label, sizeof(label), "Wasted at %u CPUs:", d->ncpus);
	out_bytes(o, "wasted_at_n", label, d->storms_wasted_at_n);
	r = table_new(storm_cols, ARRAY_SIZE(storm_cols), &t);
	if (r < 0)
		return r;
	for (size_t i = 0; i < d->n_storms && r >= 0; i++) {
		const struct percpu_storm *p = &d->storms[i];
		size_t row;

		r = table_add_row(t, &row);
		if (r < 0)
			break;
		storm_path(p, buf, sizeof(buf));
		r = table_set_str(t, row, 0, p->name);
		if (r >= 0)
			r = table_set_str(t, row, 1,
					  p->dependency_of[0] ? p->dependency_of : NULL);
		if (r >= 0)
			r = table_set_str(t, row, 6, buf);
		table_set_u64(t, row, 2, p->attempts);
		table_set_u64(t, row, 3, p->requesters);
		table_set_u64(t, row, 4, p->loaded);
		table_set_u64(t, row, 5, p->wasted_attempts);
		table_set_u64(t, row, 7, p->per_attempt);
		table_set_u64(t, row, 8, p->wasted);
		table_set_u64(t, row, 9, p->attempts_at_n);
		table_set_u64(t, row, 10, p->wasted_at_n);
	}
	if (r >= 0)
		out_table(o, "storms", NULL, t);
	table_free(t);
	return r;
}

static int render_alias_risks(const struct report_data *d, struct out *o)
{
	struct table *t;
	int r;

	out_str(o, "from", NULL, "modalias");
	out_str(o, NULL, "From:", d->ledger ? "the modaliases (no per-CPU storm in the capture)"
					    : "the modaliases (no capture)");
	out_str(o, "cpu_modalias", "CPU modalias:", d->percpu_alias_from);
	r = table_new(percpu_cols, ARRAY_SIZE(percpu_cols), &t);
	if (r < 0)
		return r;
	for (size_t i = 0; i < d->n_percpu && r >= 0; i++) {
		const struct percpu_alias_risk *p = &d->percpu[i];
		size_t row;

		r = table_add_row(t, &row);
		if (r < 0)
			break;
		r = table_set_str(t, row, 0, p->name);
		if (r >= 0)
			r = table_set_str(t, row, 1, p->alias);
		table_set_bool(t, row, 2, p->fails);
		table_set_u64(t, row, 3, p->risk.per_duplicate);
		table_set_u64(t, row, 4, p->risk.per_failure);
		if (d->ncpus_from) {
			table_set_u64(t, row, 5, p->risk.worst);
			table_set_u64(t, row, 6, p->risk.merged);
		}
	}
	if (r >= 0)
		out_table(o, "modules", NULL, t);
	table_free(t);
	return r;
}

/*
 * What udev's one load per CPU costs: from the capture when it shows such a storm,
 * else from the modules the CPU's modaliases resolve to, priced by the model
 */
int report_render_percpu(const struct report_data *d, struct out *o)
{
	char buf[128];
	int r;

	if (!d->percpu_alias_from && !d->n_storms)
		return 0;
	out_section_begin(o, "percpu_risk", d->n_storms ? "Per-CPU risk" : "Per-CPU alias risk");
	if (d->ncpus_from) {
		snprintf(buf, sizeof(buf), "%u (%s)", d->ncpus, d->ncpus_from);
		out_u64(o, "ncpus", NULL, d->ncpus);
		out_str(o, "ncpus_from", NULL, d->ncpus_from);
		out_str(o, NULL, "CPUs:", buf);
	} else {
		out_null(o, "ncpus", "CPUs:", "unknown: give --cpus N");
	}
	r = d->n_storms ? render_storms(d, o) : render_alias_risks(d, o);
	out_section_end(o);
	return r < 0 ? r : 0;
}
