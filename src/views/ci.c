/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "output/ci-formats.h"
#include "output/table.h"
#include "output/units.h"
#include "util/escape.h"
#include "util/macro.h"
#include "ci/model.h"
#include "views/ci.h"

/* --- gates ----------------------------------------------------------------------------- */

static const char *boot_where(const struct ci_findings *c, long boot, char *buf, size_t size)
{
	const struct boot *b;

	if (boot < 0) {
		snprintf(buf, size, "-");
		return buf;
	}
	b = ci_boot_at(c, boot);
	snprintf(buf, size, "%s:%" PRIu64 " (boot %" PRIu64 ")", c->inputs[b->input].path,
		 b->line, b->number);
	return buf;
}

/* What a gate found, in words; NULL for one not evaluated, or out of memory */
static char *gate_detail(const struct ci_findings *c, enum gate_id id)
{
	const struct gate *g = &c->gates[id];
	char where[300], v[32], lim[32], *d = NULL;
	int n = -1;

	if (!g->enabled)
		return NULL;
	switch (id) {
	case GATE_MAX_DUPLICATES:
	case GATE_MAX_FAILURES:
		boot_where(c, g->boot, where, sizeof(where));
		n = asprintf(&d, "%" PRIu64 " %s in the worst boot, %s, limit %" PRId64, g->value,
			     id == GATE_MAX_DUPLICATES ? "duplicate attempts" : "failed attempts",
			     where, g->limit);
		break;
	case GATE_MAX_WASTED:
		if (g->unknown) {
			n = asprintf(&d, "no estimate: no module files (--root or --moduledir) "
					 "and no trace with vmalloc events");
			break;
		}
		boot_where(c, g->boot, where, sizeof(where));
		format_bytes(g->value, v, sizeof(v));
		format_bytes((uint64_t)g->limit, lim, sizeof(lim));
		n = asprintf(&d, "%s%s wasted in the worst boot, %s, limit %s",
			     g->boot >= 0 && ci_boot_at(c, g->boot)->waste_lower_bound ? "at least " :
											 "",
			     v, where, lim);
		break;
	case GATE_FAIL_ON:
		if (g->passed)
			n = asprintf(&d, "none of the classes it names was found");
		else
			n = asprintf(&d, "%" PRIu64 " findings of the classes it names, the first %s at "
					 "%s:%" PRIu64, g->value, ci_classes[c->aggs[g->agg].cls].name,
				     c->inputs[c->aggs[g->agg].input].path,
				     c->aggs[g->agg].first_line);
		break;
	case GATE_BASELINE_NEW:
		n = asprintf(&d, "%" PRIu64 " offending (class, module) pairs not in the baseline",
			     g->value);
		break;
	case GATE_BASELINE_INCREASE:
		n = asprintf(&d, "%" PRIu64 " counts above the baseline by more than %g%%", g->value,
			     c->opt->tolerance);
		break;
	case _GATE_MAX:
		break;
	}
	return n < 0 ? NULL : d;
}

/* --- rendering ------------------------------------------------------------------------- */

static const char *result_name(enum ci_result r)
{
	switch (r) {
	case CI_PASS:
		return "pass";
	case CI_FAIL:
		return "fail";
	case CI_EMPTY:
		return "empty";
	default:
		return "error";
	}
}

/* Findings in report order: by input, failures first, then by count */

static int group_rank(enum ci_group g)
{
	static const int rank[_CI_GROUP_MAX] = {
		[CI_GROUP_FAILURE] = 0,
		[CI_GROUP_DUPLICATE] = 1,
		[CI_GROUP_AUTOLOAD] = 2,
		[CI_GROUP_NOTICE] = 3,
	};

	return rank[g];
}

static int agg_order_cmp(const void *x, const void *y, void *userdata)
{
	const struct ci_findings *c = userdata;
	const struct agg *a = &c->aggs[*(const size_t *)x];
	const struct agg *b = &c->aggs[*(const size_t *)y];
	int ga = group_rank(ci_classes[a->cls].group), gb = group_rank(ci_classes[b->cls].group);

	if (a->input != b->input)
		return a->input < b->input ? -1 : 1;
	if (ga != gb)
		return ga - gb;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	if (a->cls != b->cls)
		return a->cls - b->cls;
	return a->module < b->module ? -1 : a->module > b->module;
}

static size_t *agg_order(const struct ci_findings *c)
{
	size_t *idx = calloc(c->n_aggs + 1, sizeof(size_t));

	if (!idx)
		return NULL;
	for (size_t i = 0; i < c->n_aggs; i++)
		idx[i] = i;
	qsort_r(idx, c->n_aggs, sizeof(size_t), agg_order_cmp, (void *)c);
	return idx;
}

/* "storm (inet_create)" and "+2" for the others */
static char *requester_text(const struct ci_findings *c, const struct agg *a, bool with_others)
{
	const struct req *best = NULL;
	size_t others = 0;
	char *s = NULL;
	int n;

	for (int i = 0; i < REQ_MAX; i++) {
		if (!a->req[i].n)
			continue;
		if (!best || a->req[i].n > best->n)
			best = &a->req[i];
		others++;
	}
	if (!best)
		return NULL;
	others = others - 1 + (a->req_other ? 1 : 0);
	if (best->site)
		n = asprintf(&s, "%s (%s)", ci_name_of(c, best->comm) ? ci_name_of(c, best->comm) : "-",
			     ci_name_of(c, best->site));
	else
		n = asprintf(&s, "%s", ci_name_of(c, best->comm) ? ci_name_of(c, best->comm) : "-");
	if (n < 0)
		return NULL;
	if (with_others && others) {
		char *t = NULL;

		n = asprintf(&t, "%s +%zu", s, others);
		free(s);
		s = n < 0 ? NULL : t;
	}
	return s;
}

static const struct req *top_req(const struct agg *a)
{
	const struct req *best = NULL;

	for (int i = 0; i < REQ_MAX; i++)
		if (a->req[i].n && (!best || a->req[i].n > best->n))
			best = &a->req[i];
	return best;
}

enum {
	IC_FILE,
	IC_FORMAT,
	IC_FORMAT_DETAIL,
	IC_COMPRESSION,
	IC_LINES,
	IC_RECORDS,
	IC_SKIPPED,
	IC_BOOTS,
	IC_FINDINGS,
	IC_FILTERED,
	IC_FORMAT_REASON,
	_IC_MAX,
};

static const struct col_desc input_cols[_IC_MAX] = {
	[IC_FILE] = { "FILE", "path", COL_STR, 0, "the input as given" },
	[IC_FORMAT] = { "KIND", "format", COL_STR, COL_NOTEXT,
			"what its content was recognised as: kernel-log-text, kernel-log-plain, "
			"kmsg, journal-json, trace, trace-dat, empty" },
	[IC_FORMAT_DETAIL] = { "FORMAT", "format_detail", COL_STR, 0,
			       "which rendering of it: dmesg, console, dmesg-T, journal-short, "
			       "syslog, plain, ..." },
	[IC_COMPRESSION] = { "COMPRESSION", "compression", COL_STR, 0, "by magic bytes" },
	[IC_LINES] = { "LINES", "lines", COL_U64, COL_RIGHT, "lines read" },
	[IC_RECORDS] = { "RECORDS", "records", COL_U64, COL_RIGHT | COL_NOTEXT,
			 "kernel records or trace events parsed" },
	[IC_SKIPPED] = { "SKIPPED", "skipped_lines", COL_U64, COL_RIGHT,
			 "malformed or over-long lines" },
	[IC_BOOTS] = { "BOOTS", "boots", COL_U64, COL_RIGHT, "boots found" },
	[IC_FINDINGS] = { "FINDINGS", "findings", COL_U64, COL_RIGHT, "evidence lines and attempts" },
	[IC_FILTERED] = { "FILTERED", "filtered", COL_BOOL, COL_NOTEXT,
			  "only lines holding a needle were parsed after the first record" },
	[IC_FORMAT_REASON] = { "DETECTED BY", "format_reason", COL_STR, 0,
			       "what in its lines told the format" },
};

enum {
	BC_INDEX,
	BC_FILE,
	BC_LINE,
	BC_END,
	BC_RELEASE,
	BC_BOOT_ID,
	BC_ATTEMPTS,
	BC_DUPS,
	BC_FAILS,
	BC_WASTED,
	BC_SUMMARY,
	_BC_MAX,
};

static const struct col_desc boot_cols[_BC_MAX] = {
	[BC_INDEX] = { "BOOT", "index", COL_U64, COL_RIGHT, "1-based, over all inputs" },
	[BC_FILE] = { "FILE", "path", COL_STR, 0, "the input" },
	[BC_LINE] = { "LINE", "line", COL_U64, COL_RIGHT, "its banner, marker or first line" },
	[BC_END] = { "END", "end_line", COL_U64, COL_RIGHT | COL_NOTEXT,
		     "its last line: before the next boot's first" },
	[BC_RELEASE] = { "RELEASE", "release", COL_STR, 0, "from the Linux version banner" },
	[BC_BOOT_ID] = { "BOOT ID", "boot_id", COL_STR, COL_NOTEXT, "journal boot id" },
	[BC_ATTEMPTS] = { "ATTEMPTS", "attempts", COL_U64, COL_RIGHT,
			  "load attempts: the trace's, else the log's evidence" },
	[BC_DUPS] = { "DUP", "duplicates", COL_U64, COL_RIGHT, "duplicate load attempts" },
	[BC_FAILS] = { "FAIL", "failed", COL_U64, COL_RIGHT, "failed load attempts" },
	[BC_WASTED] = { "WASTED", "wasted", COL_BYTES, COL_RIGHT, "vmap bytes wasted" },
	[BC_SUMMARY] = { "FINDINGS", "summary", COL_STR, 0, "classes by count" },
};

enum {
	FC_CLASS,
	FC_GROUP,
	FC_LEVEL,
	FC_MODULE,
	FC_ATTEMPTS,
	FC_COUNT,
	FC_COUNT_V1,
	FC_BOOTS,
	FC_REQUESTER,
	FC_REQ_COMM,
	FC_REQ_SITE,
	FC_WASTED,
	FC_FILE,
	FC_FIRST,
	FC_LAST,
	FC_EVIDENCE,
	FC_EVIDENCE_LINES,
	FC_EVIDENCE_TRUNCATED,
	FC_ALLOWED,
	FC_GATED,
	FC_SAMPLE,
	_FC_MAX,
};

static const struct col_desc finding_cols[_FC_MAX] = {
	[FC_CLASS] = { "CLASS", "class", COL_STR, 0, "finding class (man page: CI FINDINGS)" },
	[FC_GROUP] = { "GROUP", "group", COL_STR, COL_NOTEXT, "duplicates, failures, ..." },
	[FC_LEVEL] = { "LEVEL", "level", COL_STR, COL_NOTEXT, "error, warning, note" },
	[FC_MODULE] = { "MODULE", "module", COL_STR, COL_NAME, "module, alias or driver; - none" },
	[FC_ATTEMPTS] = { "ATTEMPTS", "attempts", COL_U64, COL_RIGHT,
			  "load attempts (or events) the evidence makes" },
	[FC_COUNT] = { "LINES", "evidence_lines", COL_U64, COL_RIGHT,
		       "evidence lines (a trace's: its attempts)" },
	/* schema 1's name, kept for the readers of its documented field (baselines) */
	[FC_COUNT_V1] = { "COUNT", "count", COL_U64, COL_NOTEXT, "evidence_lines" },
	[FC_BOOTS] = { "BOOTS", "boots", COL_U64, COL_RIGHT, "boots it occurs in" },
	[FC_REQUESTER] = { "REQUESTER", "requester_text", COL_STR, COL_NOJSON,
			   "who asked, and the kernel call site" },
	[FC_REQ_COMM] = { "REQUESTER", "requester", COL_STR, COL_NOTEXT, "task that asked" },
	[FC_REQ_SITE] = { "CALL SITE", "call_site", COL_STR, COL_NOTEXT,
			  "kernel function that called request_module()" },
	[FC_WASTED] = { "WASTED", "wasted", COL_BYTES, COL_RIGHT,
			"vmap bytes measured or estimated; - unknown" },
	[FC_FILE] = { "FILE", "file", COL_STR, COL_NOTEXT, "input of the evidence" },
	[FC_FIRST] = { "FIRST", "first_line", COL_U64, COL_NOTEXT, "first evidence line" },
	[FC_LAST] = { "LAST", "last_line", COL_U64, COL_NOTEXT, "last evidence line" },
	[FC_EVIDENCE] = { "EVIDENCE", "evidence", COL_STR, COL_NOJSON, "FILE:FIRST-LAST" },
	[FC_EVIDENCE_LINES] = { "EVIDENCE", "evidence", COL_LINES, COL_NOTEXT,
				"each evidence line: per file, its runs [first, last]" },
	[FC_EVIDENCE_TRUNCATED] = { "TRUNCATED", "evidence_truncated", COL_BOOL, COL_NOTEXT,
				    "some evidence lines are not listed (too scattered)" },
	[FC_ALLOWED] = { "ALLOWED", "allowed", COL_BOOL, COL_NOTEXT, "--allow matched" },
	[FC_GATED] = { "GATED", "gated", COL_BOOL, COL_NOTEXT, "it made a gate fail" },
	[FC_SAMPLE] = { "SAMPLE", "sample", COL_STR, COL_NOTEXT, "first evidence line" },
};

enum {
	GC_GATE,
	GC_LIMIT,
	GC_VALUE,
	GC_RESULT,
	GC_DETAIL,
	GC_PASSED,
	_GC_MAX,
};

static const struct col_desc gate_cols[_GC_MAX] = {
	[GC_GATE] = { "GATE", "name", COL_STR, 0, "the option" },
	[GC_LIMIT] = { "LIMIT", "limit", COL_I64, COL_RIGHT, "its value" },
	[GC_VALUE] = { "VALUE", "value", COL_U64, COL_RIGHT, "what was found" },
	[GC_RESULT] = { "RESULT", "result", COL_STR, 0, "pass, fail, unknown" },
	[GC_DETAIL] = { "DETAIL", "detail", COL_STR, 0, "" },
	[GC_PASSED] = { "PASSED", "passed", COL_BOOL, COL_NOTEXT, "" },
};

enum {
	DC_CLASS,
	DC_MODULE,
	DC_OLD,
	DC_NEW,
	DC_DELTA,
	DC_STATUS,
	DC_OFFENDING,
	_DC_MAX,
};

static const struct col_desc delta_cols[_DC_MAX] = {
	[DC_CLASS] = { "CLASS", "class", COL_STR, 0, "" },
	[DC_MODULE] = { "MODULE", "module", COL_STR, COL_NAME, "" },
	[DC_OLD] = { "BASELINE", "baseline", COL_U64, COL_RIGHT, "count in the baseline" },
	[DC_NEW] = { "NOW", "count", COL_U64, COL_RIGHT, "count now" },
	[DC_DELTA] = { "DELTA", "delta", COL_I64, COL_RIGHT, "" },
	[DC_STATUS] = { "STATUS", "status", COL_STR, 0, "new, increased, same, decreased, gone" },
	[DC_OFFENDING] = { "OFFENDING", "offending", COL_BOOL, COL_NOTEXT,
			   "a warning or error, not allowed" },
};

static int render_inputs(const struct ci_findings *c, struct out *o)
{
	struct table *t;
	int r = table_new(input_cols, _IC_MAX, &t);

	for (size_t i = 0; r >= 0 && i < c->n_inputs; i++) {
		const struct input *in = &c->inputs[i];
		size_t row;

		r = table_add_row(t, &row);
		if (r >= 0)
			r = table_set_str(t, row, IC_FILE, in->path);
		if (r >= 0)
			r = table_set_str(t, row, IC_FORMAT, in->format);
		if (r >= 0)
			r = table_set_str(t, row, IC_FORMAT_DETAIL,
					  in->format_detail[0] ? in->format_detail : in->format);
		if (r >= 0)
			r = table_set_str(t, row, IC_FORMAT_REASON, in->format_reason);
		if (r >= 0)
			r = table_set_str(t, row, IC_COMPRESSION, in->compression);
		if (r < 0)
			break;
		table_set_u64(t, row, IC_LINES, in->st.lines);
		table_set_u64(t, row, IC_RECORDS, in->st.records);
		table_set_u64(t, row, IC_SKIPPED, in->st.skipped);
		table_set_u64(t, row, IC_BOOTS, in->n_boots);
		table_set_u64(t, row, IC_FINDINGS, in->findings);
		table_set_bool(t, row, IC_FILTERED, in->st.filtered);
	}
	if (r >= 0)
		out_table(o, "inputs", "Inputs", t);
	table_free(t);
	return r;
}

static int render_boots(const struct ci_findings *c, struct out *o)
{
	struct table *t;
	int r = table_new(boot_cols, _BC_MAX, &t);

	for (size_t i = 0; r >= 0 && i < c->n_boots; i++) {
		const struct boot *b = &c->boots[i];
		size_t row;

		r = table_add_row(t, &row);
		if (r < 0)
			break;
		table_set_u64(t, row, BC_INDEX, i + 1);
		r = table_set_str(t, row, BC_FILE, c->inputs[b->input].path);
		table_set_u64(t, row, BC_LINE, b->line);
		table_set_u64(t, row, BC_END, b->end_line);
		if (r >= 0 && b->release[0])
			r = table_set_str(t, row, BC_RELEASE, b->release);
		if (r >= 0 && b->boot_id[0])
			r = table_set_str(t, row, BC_BOOT_ID, b->boot_id);
		table_set_u64(t, row, BC_ATTEMPTS, b->all.attempts);
		table_set_u64(t, row, BC_DUPS, b->all.duplicates);
		table_set_u64(t, row, BC_FAILS, b->all.failed);
		if (b->waste_known || (!b->waste_possible && c->waste_available))
			table_set_u64(t, row, BC_WASTED, b->all.wasted);
		if (r >= 0)
			r = table_set_str(t, row, BC_SUMMARY, b->summary);
	}
	if (r >= 0)
		out_table(o, "boots", "Boots", t);
	table_free(t);
	return r;
}

/* A row's evidence lines as COL_LINES strings: its input, then its ranges */
static int set_evidence_lines(const struct ci_findings *c, struct table *t, size_t row,
			      const struct agg *a)
{
	size_t n = 0;
	char **v = calloc(a->n_ranges + 1, sizeof(char *));
	int r = 0;

	if (!v || asprintf(&v[n++], "@%s", c->inputs[a->input].path) < 0) {
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < a->n_ranges; i++, n++)
		if (asprintf(&v[n], "%" PRIu64 "-%" PRIu64, a->ranges[i].first,
			     a->ranges[i].last) < 0) {
			v[n] = NULL;
			r = -ENOMEM;
			break;
		}
	if (r >= 0)
		r = table_set_strv(t, row, FC_EVIDENCE_LINES, v, n);
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
	return r;
}

static int finding_row(const struct ci_findings *c, struct table *t, const struct agg *a)
{
	const struct ci_class *k = &ci_classes[a->cls];
	const struct req *best = top_req(a);
	char *req = requester_text(c, a, true), ev[400];
	size_t row;
	int r;

	r = table_add_row(t, &row);
	if (r >= 0)
		r = table_set_str(t, row, FC_CLASS, k->name);
	if (r >= 0)
		r = table_set_str(t, row, FC_GROUP, ci_group_name(k->group));
	if (r >= 0)
		r = table_set_str(t, row, FC_LEVEL, ci_level_name(k->level));
	if (r >= 0)
		r = table_set_str(t, row, FC_MODULE, ci_name_of(c, a->module));
	if (r >= 0)
		r = table_set_str(t, row, FC_REQUESTER, req);
	if (r >= 0 && best)
		r = table_set_str(t, row, FC_REQ_COMM, ci_name_of(c, best->comm));
	if (r >= 0 && best)
		r = table_set_str(t, row, FC_REQ_SITE, ci_name_of(c, best->site));
	if (r >= 0)
		r = table_set_str(t, row, FC_FILE, c->inputs[a->input].path);
	if (a->last_line > a->first_line)
		snprintf(ev, sizeof(ev), "%s:%" PRIu64 "-%" PRIu64, c->inputs[a->input].path,
			 a->first_line, a->last_line);
	else
		snprintf(ev, sizeof(ev), "%s:%" PRIu64, c->inputs[a->input].path, a->first_line);
	if (r >= 0)
		r = table_set_str(t, row, FC_EVIDENCE, ev);
	if (r >= 0)
		r = set_evidence_lines(c, t, row, a);
	if (r >= 0)
		r = table_set_str(t, row, FC_SAMPLE, a->sample);
	free(req);
	if (r < 0)
		return r;
	table_set_u64(t, row, FC_ATTEMPTS, a->attempts);
	table_set_u64(t, row, FC_COUNT, a->count);
	table_set_u64(t, row, FC_COUNT_V1, a->count);
	table_set_u64(t, row, FC_BOOTS, a->boots);
	if (a->wasted_known)
		table_set_u64(t, row, FC_WASTED, a->wasted);
	table_set_u64(t, row, FC_FIRST, a->first_line);
	table_set_u64(t, row, FC_LAST, a->last_line);
	table_set_bool(t, row, FC_ALLOWED, a->allowed);
	table_set_bool(t, row, FC_GATED, a->gated);
	table_set_bool(t, row, FC_EVIDENCE_TRUNCATED, a->ranges_truncated);
	return 0;
}

static int render_findings(const struct ci_findings *c, struct out *o)
{
	size_t *idx = agg_order(c);
	struct table *t = NULL;
	int r;

	if (!idx)
		return -ENOMEM;
	r = table_new(finding_cols, _FC_MAX, &t);
	for (size_t i = 0; r >= 0 && i < c->n_aggs; i++)
		r = finding_row(c, t, &c->aggs[idx[i]]);
	if (r >= 0)
		out_table(o, "findings", "Findings", t);
	table_free(t);
	free(idx);
	return r;
}

static int render_gates(const struct ci_findings *c, struct out *o)
{
	struct table *t;
	int r = table_new(gate_cols, _GC_MAX, &t);

	for (int i = 0; r >= 0 && i < _GATE_MAX; i++) {
		const struct gate *g = &c->gates[i];
		_cleanup_free_ char *detail = NULL;
		size_t row;

		if (!g->enabled)
			continue;
		detail = gate_detail(c, i);
		if (!detail)
			r = -ENOMEM;
		if (r >= 0)
			r = table_add_row(t, &row);
		if (r >= 0)
			r = table_set_str(t, row, GC_GATE, ci_gate_names[i]);
		if (r >= 0)
			r = table_set_str(t, row, GC_RESULT,
					  g->unknown ? "unknown" : g->passed ? "pass" : "FAIL");
		if (r >= 0)
			r = table_set_str(t, row, GC_DETAIL, detail);
		if (r < 0)
			break;
		if (i != GATE_FAIL_ON && i != GATE_BASELINE_NEW && i != GATE_BASELINE_INCREASE)
			table_set_i64(t, row, GC_LIMIT, g->limit);
		if (!g->unknown) {
			table_set_u64(t, row, GC_VALUE, g->value);
			table_set_bool(t, row, GC_PASSED, g->passed);
		}
	}
	/* text: the result line says when there is none */
	if (r >= 0 && (t->nrows || out_format(o) == OUT_JSON))
		out_table(o, "gates", "Gates", t);
	table_free(t);
	return r;
}

static const char *delta_status_name(enum delta_status s)
{
	static const char *const n[] = {
		[DELTA_NEW] = "new",	     [DELTA_INCREASED] = "increased", [DELTA_SAME] = "same",
		[DELTA_DECREASED] = "decreased", [DELTA_GONE] = "gone",
	};

	return n[s];
}

static int render_baseline(const struct ci_findings *c, struct out *o)
{
	struct table *t;
	int r;

	out_section_begin(o, "baseline", "Baseline");
	out_str(o, "path", "file", c->opt->baseline_path);
	{
		char tol[32];

		snprintf(tol, sizeof(tol), "%g", c->opt->tolerance);
		out_str(o, "tolerance_percent", "tolerance (%)", tol);
	}
	if (c->opt->baseline->wasted_known)
		out_bytes(o, "wasted", "wasted then", c->baseline_wasted_old);
	else
		out_null(o, "wasted", "wasted then", "unknown");
	r = table_new(delta_cols, _DC_MAX, &t);
	for (size_t i = 0; r >= 0 && i < c->n_deltas; i++) {
		const struct delta *d = &c->deltas[i];
		size_t row;

		/* text: what changed; JSON: all */
		if (out_format(o) == OUT_TEXT && d->status == DELTA_SAME)
			continue;
		r = table_add_row(t, &row);
		if (r >= 0)
			r = table_set_str(t, row, DC_CLASS, d->cls);
		if (r >= 0)
			r = table_set_str(t, row, DC_MODULE, d->module);
		if (r >= 0)
			r = table_set_str(t, row, DC_STATUS, delta_status_name(d->status));
		if (r < 0)
			break;
		table_set_u64(t, row, DC_OLD, d->old_count);
		table_set_u64(t, row, DC_NEW, d->new_count);
		table_set_i64(t, row, DC_DELTA, (int64_t)d->new_count - (int64_t)d->old_count);
		table_set_bool(t, row, DC_OFFENDING, d->offending);
	}
	if (r >= 0)
		out_table(o, "deltas", "Changes since the baseline", t);
	table_free(t);
	out_section_end(o);
	return r;
}

static int n_gates(const struct ci_findings *c, size_t *ret_failed)
{
	int n = 0;

	*ret_failed = 0;
	for (int i = 0; i < _GATE_MAX; i++) {
		if (!c->gates[i].enabled)
			continue;
		n++;
		if (!c->gates[i].unknown && !c->gates[i].passed)
			(*ret_failed)++;
	}
	return n;
}

static void totals(const struct ci_findings *c, uint64_t *ret_evidence, size_t *ret_modules)
{
	bool *seen = NULL;
	uint32_t max_id = 0;
	size_t n_seen = 0;

	*ret_evidence = 0;
	/* distinct modules by their name id: a scan of those seen was quadratic */
	for (size_t i = 0; i < c->n_aggs; i++)
		if (c->aggs[i].module > max_id)
			max_id = c->aggs[i].module;
	seen = calloc((size_t)max_id + 1, sizeof(*seen));
	for (size_t i = 0; i < c->n_aggs; i++) {
		const struct agg *a = &c->aggs[i];

		*ret_evidence += a->count;
		if (a->allowed)
			continue;
		if (seen && a->module && !seen[a->module]) {
			seen[a->module] = true;
			n_seen++;
		}
	}
	*ret_modules = n_seen;
	free(seen);
}

int ci_render(const struct ci_findings *c, struct out *o)
{
	uint64_t evidence;
	bool wasted_known = c->waste_available || c->total_wasted_known;
	size_t modules, failed;
	int ng = n_gates(c, &failed), r;
	char buf[160];

	totals(c, &evidence, &modules);
	out_str(o, "command", NULL, "ci");
	/* 2: totals count attempts (failed, not failures), findings have attempts */
	out_u64(o, "schema_version", NULL, 2);
	out_str(o, "result", NULL, result_name(c->result));
	out_section_begin(o, NULL, "kmodtop ci");
	switch (c->result) {
	case CI_EMPTY:
		snprintf(buf, sizeof(buf), "nothing to analyse: no kernel log records or trace "
					   "events");
		break;
	case CI_UNKNOWN_WASTE:
		snprintf(buf, sizeof(buf), "error: --max-wasted cannot be evaluated");
		break;
	default:
		if (ng == 0)
			snprintf(buf, sizeof(buf), "%s: no gates set", result_name(c->result));
		else
			snprintf(buf, sizeof(buf), "%s: %zu of %d gates failed",
				 c->result == CI_FAIL ? "FAIL" : "pass", failed, ng);
	}
	out_str(o, NULL, "result", buf);
	out_section_end(o);

	out_section_begin(o, "totals", NULL);
	out_u64(o, "inputs", "inputs", c->n_inputs);
	out_u64(o, "boots", "boots", c->all_boots);
	out_u64(o, "findings", "findings", c->n_aggs);
	out_u64(o, "evidence_lines", "evidence lines", evidence);
	out_u64(o, "modules", "modules with findings", modules);
	out_u64(o, "attempts", "load attempts", c->total.attempts);
	out_u64(o, "failed", "failed attempts", c->total.failed);
	out_u64(o, "duplicates", "duplicate attempts", c->total.duplicates);
	if (wasted_known)
		out_bytes(o, "wasted", c->waste_lower_bound ? "wasted (at least)" : "wasted",
			  c->total.wasted);
	else
		out_null(o, "wasted", "wasted", "unknown: counts only");
	out_bool(o, "wasted_lower_bound", NULL, c->waste_lower_bound);
	out_section_end(o);
	if (!c->waste_available)
		out_note(o, "no vmap waste estimate: no module files (pass --root or --moduledir) "
			    "and no trace with vmalloc events; counts only");
	else if (c->waste_lower_bound)
		out_note(o, "waste from a kernel log alone is a lower bound: it counts the failed "
			    "loads the log shows (a load that misses symbols logs each once), not "
			    "those that logged nothing (idempotent waiters); give the boot's trace "
			    "with it for report's figures");
	if (c->capped)
		out_note(o, "too many distinct names: the rest are counted under \"(other)\"");
	if (c->all_boots > c->n_boots) {
		char note[160];

		snprintf(note, sizeof(note),
			 "%" PRIu64 " boots: only the first %zu are listed; the others are counted "
			 "in the findings and the gates", c->all_boots, c->n_boots);
		out_note(o, note);
	}

	r = render_inputs(c, o);
	if (r >= 0)
		r = render_boots(c, o);
	if (r >= 0)
		r = render_findings(c, o);
	if (r >= 0)
		r = render_gates(c, o);
	if (r >= 0 && c->opt->baseline)
		r = render_baseline(c, o);
	return r;
}

/* --- CI formats ------------------------------------------------------------------------ */

static char *finding_message(const struct ci_findings *c, const struct agg *a)
{
	const char *m = ci_name_of(c, a->module);
	char *req = requester_text(c, a, false), *s = NULL, w[40] = "";
	int n;

	if (a->wasted_known && a->wasted) {
		char b[32];

		snprintf(w, sizeof(w), ", %s wasted", format_bytes(a->wasted, b, sizeof(b)));
	}
	n = asprintf(&s, "%s%s%s: %" PRIu64 " %s in %" PRIu32 " boot%s%s%s%s%s%s%s",
		     ci_classes[a->cls].name, m ? " " : "", m ? m : "",
		     a->from_trace || ci_is_log_attempt_class(a->cls) ? a->attempts : a->count,
		     a->from_trace || ci_is_log_attempt_class(a->cls) ? "attempt(s)" : "line(s)",
		     a->boots, a->boots == 1 ? "" : "s",
		     w, req ? ", requested by " : "", req ? req : "", a->sample ? " - \"" : "",
		     a->sample ? a->sample : "", a->sample ? "\"" : "");
	free(req);
	return n < 0 ? NULL : s;
}

static enum ci_fmt_level finding_level(const struct agg *a)
{
	if (a->gated)
		return CI_FMT_ERROR;
	if (a->allowed)
		return CI_FMT_NOTE;
	return ci_classes[a->cls].level == CI_FMT_NOTE ? CI_FMT_NOTE : CI_FMT_WARNING;
}

int ci_write_sarif(const struct ci_findings *c, FILE *f, bool pretty)
{
	struct ci_fmt_rule rules[CI_CLASS_COUNT];
	struct ci_fmt_result *res = calloc(c->n_aggs + 1, sizeof(*res));
	size_t *idx = agg_order(c);
	char **msgs = calloc(c->n_aggs + 1, sizeof(char *));
	char **reqs = calloc(c->n_aggs + 1, sizeof(char *));
	int r = -ENOMEM;

	if (!res || !idx || !msgs || !reqs)
		goto out;
	for (size_t i = 0; i < CI_CLASS_COUNT; i++)
		rules[i] = (struct ci_fmt_rule){ ci_classes[i].name, ci_classes[i].help,
						 ci_classes[i].level };
	for (size_t i = 0; i < c->n_aggs; i++) {
		const struct agg *a = &c->aggs[idx[i]];

		msgs[i] = finding_message(c, a);
		reqs[i] = requester_text(c, a, false);
		if (!msgs[i])
			goto out;
		res[i] = (struct ci_fmt_result){
			.rule = a->cls,
			.level = finding_level(a),
			.message = msgs[i],
			.first = { c->inputs[a->input].path, a->first_line },
			.last = { c->inputs[a->input].path, a->last_line },
			.module = ci_name_of(c, a->module),
			.count = a->count,
			.attempts = a->attempts,
			.requester = reqs[i],
			.allowed = a->allowed,
		};
	}
	r = ci_sarif_write(f, PACKAGE_VERSION, pretty, rules, CI_CLASS_COUNT, res,
			   c->n_aggs);
out:
	for (size_t i = 0; msgs && reqs && i < c->n_aggs; i++) {
		free(msgs[i]);
		free(reqs[i]);
	}
	free(msgs);
	free(reqs);
	free(idx);
	free(res);
	return r;
}

struct strs {
	char **v;
	size_t n, cap;
};

static char *strs_add(struct strs *s, char *p)
{
	if (!p || ci_grow((void **)&s->v, &s->cap, s->n + 1, sizeof(char *)) < 0) {
		free(p);
		return NULL;
	}
	s->v[s->n++] = p;
	return p;
}

static void strs_free(struct strs *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
}

static char *fmt_dup(const char *fmt, ...) _printf_format_(1, 2);

static char *fmt_dup(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

/* A module's findings as lines, for its testcase */
static char *module_text(const struct ci_findings *c, const size_t *idx, uint32_t module,
			 bool *ret_gated)
{
	size_t len = 0, cap = 0;
	char *s = NULL;

	*ret_gated = false;
	for (size_t i = 0; i < c->n_aggs; i++) {
		const struct agg *a = &c->aggs[idx[i]];
		char *raw, *line;
		size_t n;

		if (a->module != module || !ci_is_offending(c, a))
			continue;
		*ret_gated |= a->gated;
		raw = fmt_dup("%s: %" PRIu64 " at %s:%" PRIu64 "-%" PRIu64 "%s%s",
			      ci_classes[a->cls].name, a->count, c->inputs[a->input].path,
			      a->first_line, a->last_line, a->sample ? ": " : "",
			      a->sample ? a->sample : "");
		/* escaped here: a newline inside a log line must not start a line of its own */
		line = raw ? escape_dup(raw, strlen(raw)) : NULL;
		free(raw);
		if (!line || ci_grow((void **)&s, &cap, len + strlen(line) + 2, 1) < 0) {
			free(line);
			free(s);
			return NULL;
		}
		n = strlen(line);
		memcpy(s + len, line, n);
		memcpy(s + len + n, "\n", 2);
		len += n + 1;
		free(line);
	}
	return s;
}

int ci_write_junit(const struct ci_findings *c, FILE *f)
{
	struct ci_fmt_testcase *gates = calloc(_GATE_MAX + 1, sizeof(*gates));
	struct ci_fmt_testcase *mods = calloc(c->n_aggs + 1, sizeof(*mods));
	uint32_t *seen = calloc(c->n_aggs + 1, sizeof(*seen));
	size_t *idx = agg_order(c);
	size_t n_gates = 0, n_mods = 0, n_seen = 0;
	struct strs keep = {0};
	struct ci_fmt_suite suites[2];
	int r = -ENOMEM;

	if (!gates || !mods || !seen || !idx)
		goto out;
	for (int i = 0; i < _GATE_MAX; i++) {
		const struct gate *g = &c->gates[i];
		struct ci_fmt_testcase *t = &gates[n_gates++];

		if (!g->enabled) {
			n_gates--;
			continue;
		}
		const char *detail = strs_add(&keep, gate_detail(c, i));

		if (!detail)
			goto out;
		t->classname = "kmodtop.ci.gates";
		t->name = ci_gate_names[i];
		t->system_out = strs_add(&keep, escape_dup(detail, strlen(detail)));
		if (!t->system_out)
			goto out;
		if (g->unknown) {
			t->skipped_message = detail;
		} else if (!g->passed) {
			t->failure_type = ci_gate_names[i];
			t->failure_message = detail;
		}
	}
	if (c->result == CI_EMPTY) {
		struct ci_fmt_testcase *t = &gates[n_gates++];

		t->classname = "kmodtop.ci.gates";
		t->name = "inputs";
		t->skipped_message = "nothing to analyse: no kernel log records or trace events";
	}
	/* one testcase per offending module, failed when its findings failed a gate */
	for (size_t i = 0; i < c->n_aggs; i++) {
		const struct agg *a = &c->aggs[idx[i]];
		struct ci_fmt_testcase *t;
		bool dup = false, gated;
		char *text;

		if (!ci_is_offending(c, a))
			continue;
		for (size_t k = 0; k < n_seen && !dup; k++)
			dup = seen[k] == a->module;
		if (dup)
			continue;
		seen[n_seen++] = a->module;
		text = strs_add(&keep, module_text(c, idx, a->module, &gated));
		if (!text)
			goto out;
		t = &mods[n_mods++];
		t->classname = "kmodtop.ci.modules";
		t->name = ci_name_of(c, a->module) ? ci_name_of(c, a->module) : "(unnamed)";
		t->system_out = gated ? NULL : text;
		if (gated) {
			t->failure_type = ci_classes[a->cls].name;
			t->failure_message = strs_add(
				&keep, fmt_dup("%s: findings that failed a gate", t->name));
			t->failure_text = text;
			if (!t->failure_message)
				goto out;
		}
	}
	suites[0] = (struct ci_fmt_suite){ "gates", gates, n_gates };
	suites[1] = (struct ci_fmt_suite){ "modules", mods, n_mods };
	r = ci_junit_write(f, "kmodtop ci", suites, 2);
out:
	strs_free(&keep);
	free(idx);
	free(seen);
	free(mods);
	free(gates);
	return r;
}

int ci_write_github(const struct ci_findings *c, FILE *f)
{
	struct ci_fmt_annotation *an = calloc(c->n_aggs + _GATE_MAX + 2, sizeof(*an));
	size_t *idx = agg_order(c);
	struct strs keep = {0};
	size_t n = 0, skipped = 0;
	int r = -ENOMEM;

	if (!an || !idx)
		goto out;
	for (int i = 0; i < _GATE_MAX; i++) {
		const struct gate *g = &c->gates[i];
		char *title, *detail;

		if (!g->enabled || g->passed || g->unknown)
			continue;
		title = strs_add(&keep, fmt_dup("kmodtop ci: gate %s failed", ci_gate_names[i]));
		detail = strs_add(&keep, gate_detail(c, i));
		if (!title || !detail)
			goto out;
		an[n++] = (struct ci_fmt_annotation){
			.level = CI_FMT_ERROR,
			.file = g->agg >= 0 ? c->inputs[c->aggs[g->agg].input].path : NULL,
			.line = g->agg >= 0 ? c->aggs[g->agg].first_line : 0,
			.title = title,
			.message = detail,
		};
	}
	for (int pass = 0; pass < 2; pass++) {
		/* gated findings first, then the other warnings and errors */
		for (size_t i = 0; i < c->n_aggs; i++) {
			const struct agg *a = &c->aggs[idx[i]];
			enum ci_fmt_level lvl = finding_level(a);
			char *msg, *title;

			if (lvl == CI_FMT_NOTE || (pass == 0) != a->gated)
				continue;
			if (n >= GITHUB_MAX) {
				skipped++;
				continue;
			}
			msg = strs_add(&keep, finding_message(c, a));
			title = strs_add(&keep, fmt_dup("%s%s%s", ci_classes[a->cls].name,
							ci_name_of(c, a->module) ? " " : "",
							ci_name_of(c, a->module) ? ci_name_of(c, a->module)
									      : ""));
			if (!msg || !title)
				goto out;
			an[n++] = (struct ci_fmt_annotation){
				.level = lvl,
				.file = c->inputs[a->input].path,
				.line = a->first_line,
				.end_line = a->last_line,
				.title = title,
				.message = msg,
			};
		}
	}
	if (skipped) {
		char *msg = strs_add(&keep, fmt_dup("%zu more findings not annotated; see the "
						    "report", skipped));

		if (!msg)
			goto out;
		an[n++] = (struct ci_fmt_annotation){ .level = CI_FMT_NOTE,
						      .title = "kmodtop ci",
						      .message = msg };
	}
	r = ci_github_write(f, an, n);
out:
	strs_free(&keep);
	free(idx);
	free(an);
	return r;
}

int ci_parse_size(const char *s, uint64_t *ret)
{
	static const char units[] = "KMGTPE";
	unsigned long long whole = 0;
	uint64_t mult = 1, frac_num = 0, frac_den = 1, v;
	const char *p = s, *u;

	if (!s || !(*p >= '0' && *p <= '9'))
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (whole > (UINT64_MAX - 9) / 10)
			return -ERANGE;
		whole = whole * 10 + (unsigned long long)(*p - '0');
	}
	if (*p == '.') {
		p++;
		if (!(*p >= '0' && *p <= '9'))
			return -EINVAL;
		for (; *p >= '0' && *p <= '9'; p++) {
			if (frac_den >= 1000000000000ull)
				continue;
			frac_num = frac_num * 10 + (uint64_t)(*p - '0');
			frac_den *= 10;
		}
	}
	if (*p && (u = strchr(units, *p >= 'a' && *p <= 'z' ? *p - 32 : *p))) {
		for (const char *k = units; k <= u; k++)
			mult *= 1024;
		p++;
		if (*p == 'i')
			p++;
	}
	if (*p == 'B')
		p++;
	if (*p)
		return -EINVAL;
	if (whole && mult > UINT64_MAX / whole)
		return -ERANGE;
	v = (uint64_t)whole * mult;
	v += (uint64_t)((double)frac_num / (double)frac_den * (double)mult);
	*ret = v;
	return 0;
}

