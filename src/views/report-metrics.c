/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ledger/klog-findings.h"
#include "output/openmetrics.h"
#include "util/macro.h"
#include "report.h"

/*
 * What `report --openmetrics` (and --prometheus, --textfile) says: the figures of the
 * JSON report, read from the same summary and cost result, as samples. Series are sparse:
 * a module gets a sample for each outcome it had and each class it wasted bytes in, not
 * zeros for the others, because a fleet multiplies every series by its hosts. Totals
 * of the whole capture have families of their own ("kmodtop_boot_"), so that a sum
 * over a per-module family never counts them twice.
 */

const char *const report_metric_label_names[] = {
	"version", "release", "boot_id", "module_compression",
	"in_kernel_decompression", "early_duplicate_check", "idempotent_finit_module",
	"input", "module", "outcome", "class", "source", "alias", "call_site",
	"needless", "finding", NULL,
};

static const char *yes_no(bool v)
{
	return v ? "true" : "false";
}

/* a load path property, "" when the release does not parse */
static const char *known(const struct loadpath *lp, bool v)
{
	return lp->known ? yes_no(v) : NULL;
}

static void render_info(const struct report_data *d, struct om *m)
{
	const struct om_label kernel[] = {
		{ "release", d->release },
		{ "boot_id", d->boot_id },
		{ "module_compression", report_module_compression(d->kc) },
		{ "in_kernel_decompression", yes_no(d->in_kernel_decompression) },
		{ "early_duplicate_check", known(&d->lp, d->lp.early_dup_check) },
		{ "idempotent_finit_module", known(&d->lp, d->lp.idempotent_finit) },
	};
	const struct om_label version[] = { { "version", PACKAGE_VERSION } };

	om_family(m, "kmodtop_build_info", OM_GAUGE, NULL,
		  "The kmodtop that wrote these metrics.");
	om_sample_u64(m, version, 1, 1);
	om_family(m, "kmodtop_kernel_info", OM_GAUGE, NULL,
		  "The kernel the figures are of: release, boot id (empty when the root "
		  "has none), module compression and load path.");
	om_sample_u64(m, kernel, ARRAY_SIZE(kernel), 1);
}

static void window_sample(struct om *m, const char *input, double v)
{
	om_sample_f64(m, (const struct om_label[]){ { "input", input } }, 1, v);
}

static void input_sample(struct om *m, const char *input, uint64_t v)
{
	om_sample_u64(m, (const struct om_label[]){ { "input", input } }, 1, v);
}

/* What the figures come from: each input's time span, events, and what it lost */
static void render_capture(const struct report_data *d, struct om *m)
{
	const struct ledger *l = d->ledger;

	om_family(m, "kmodtop_capture_window_start_seconds", OM_GAUGE, "seconds",
		  "Earliest timestamp of the input: trace clock or kernel log seconds, "
		  "since boot on the usual clocks.");
	if (d->trace_stats)
		window_sample(m, "trace", d->trace_first);
	if (d->log_path)
		window_sample(m, "kernel_log", d->log_first);
	om_family(m, "kmodtop_capture_window_end_seconds", OM_GAUGE, "seconds",
		  "Latest timestamp of the input, on the same clock as the start.");
	if (d->trace_stats)
		window_sample(m, "trace", d->trace_last);
	if (d->log_path)
		window_sample(m, "kernel_log", d->log_last);

	om_family(m, "kmodtop_capture_records", OM_COUNTER, NULL,
		  "Trace events and kernel log records read.");
	if (d->trace_stats)
		input_sample(m, "trace", d->trace_stats->events);
	if (d->log_path)
		input_sample(m, "kernel_log", d->log_records);
	om_family(m, "kmodtop_capture_malformed_lines", OM_COUNTER, NULL,
		  "Input lines skipped as malformed.");
	if (d->trace_stats)
		input_sample(m, "trace", d->trace_stats->malformed);
	if (d->log_path)
		input_sample(m, "kernel_log", d->log_malformed);
	if (!d->trace_stats)
		return;
	om_family(m, "kmodtop_capture_lost_events", OM_COUNTER, NULL,
		  "Trace events the kernel's ring buffer lost, as its LOST lines count "
		  "them.");
	input_sample(m, "trace", l->stats.lost_events);
	om_family(m, "kmodtop_capture_uncounted_losses", OM_COUNTER, NULL,
		  "LOST lines that give no count: events were lost, how many is "
		  "unknown.");
	input_sample(m, "trace", l->stats.lost_uncounted);
}

static void boot_counter(struct om *m, const char *name, const char *help, uint64_t v)
{
	om_family(m, name, OM_COUNTER, NULL, help);
	om_sample_u64(m, NULL, 0, v);
}

static void source_sample(struct om *m, const char *source, uint64_t v)
{
	om_sample_u64(m, (const struct om_label[]){ { "source", source } }, 1, v);
}

/* load_attempts in the JSON: the whole capture */
static void render_boot(const struct report_data *d, struct om *m)
{
	const struct ledger_summary *s = d->sum;
	const struct cost_result *c = d->cost;

	boot_counter(m, "kmodtop_boot_load_attempts",
		     "finit_module and init_module calls in the capture.", s->attempts);
	boot_counter(m, "kmodtop_boot_failed_load_attempts",
		     "Calls that returned an error.", s->failed);
	boot_counter(m, "kmodtop_boot_idempotent_waiters",
		     "Calls merged into a concurrent load of the same file (6.5+).",
		     s->waiters);
	boot_counter(m, "kmodtop_boot_decompression_fallbacks",
		     "finit_module calls that failed on a compressed file before "
		     "userspace decompressed it.",
		     s->fallbacks);
	boot_counter(m, "kmodtop_boot_unnamed_load_attempts",
		     "Calls no evidence names a module for.", s->unnamed);
	boot_counter(m, "kmodtop_boot_incomplete_load_attempts",
		     "Calls whose exit the trace does not show.", s->incomplete);
	boot_counter(m, "kmodtop_boot_autoload_requests", "request_module() calls.",
		     d->ledger->n_requests);
	if (!c)
		return;
	boot_counter(m, "kmodtop_boot_unestimated_load_attempts",
		     "Failed calls no estimate could size: left out of the waste.",
		     c->unestimated);
	om_family(m, "kmodtop_boot_wasted_vmap_bytes", OM_GAUGE, "bytes",
		  "vmap bytes the failed calls allocated: estimated from the module "
		  "files, and measured where the trace has the vmalloc events. Choose "
		  "one source; never add them.");
	source_sample(m, "estimated", c->wasted);
	if (d->ledger->saw_vmap_events)
		source_sample(m, "measured", s->wasted_measured);
	om_family(m, "kmodtop_boot_wasted_vmap_min_bytes", OM_GAUGE, "bytes",
		  "The least the evidence allows the failed calls allocated: what cannot "
		  "be sized counts 0.");
	om_sample_u64(m, NULL, 0, c->wasted_min);
	om_family(m, "kmodtop_boot_wasted_vmap_max_bytes", OM_GAUGE, "bytes",
		  "The most the evidence allows: racing duplicates paid the layout, unsized "
		  "calls their largest candidate module, timing waiters as payers; absent "
		  "when nothing bounds it.");
	if (!c->max_unbounded)
		om_sample_u64(m, NULL, 0, c->wasted_max);
	om_family(m, "kmodtop_boot_peak_wasted_vmap_bytes", OM_GAUGE, "bytes",
		  "The most vmap bytes failed calls held at once (estimated).");
	om_sample_u64(m, NULL, 0, c->peak_concurrent);
}

static void render_modules(const struct report_data *d, struct om *m)
{
	const struct ledger_summary *s = d->sum;

	om_family(m, "kmodtop_load_attempts", OM_COUNTER, NULL,
		  "Load attempts by module (empty: unnamed) and outcome.");
	for (size_t i = 0; i < s->n_modules; i++) {
		const struct module_summary *ms = &s->modules[i];

		for (int o = 0; o < _OUTCOME_MAX; o++) {
			const struct om_label l[] = {
				{ "module", ms->name },
				{ "outcome", attempt_outcome_name(o) },
			};

			if (ms->by_outcome[o])
				om_sample_u64(m, l, ARRAY_SIZE(l), ms->by_outcome[o]);
		}
	}

	om_family(m, "kmodtop_wasted_vmap_bytes", OM_GAUGE, "bytes",
		  "vmap bytes a module's failed calls allocated, by class: estimated "
		  "always, measured where the trace has the vmalloc events. Choose one "
		  "source; never add them.");
	for (size_t i = 0; i < s->n_modules; i++) {
		const struct module_summary *ms = &s->modules[i];
		const struct module_cost *mc = NULL;

		if (d->cost)
			mc = cost_module_find(d->cost, ms->name);

		if (!ms->total)
			continue;
		for (int c = 0; c < _VMAP_MAX; c++) {
			struct om_label l[] = { { "module", ms->name },
						{ "class", report_vmap_class_key(c) },
						{ "source", "estimated" } };

			if (mc && mc->by_class[c])
				om_sample_u64(m, l, ARRAY_SIZE(l), mc->by_class[c]);
			l[2].value = "measured";
			if (ms->measured && ms->vmap[c])
				om_sample_u64(m, l, ARRAY_SIZE(l), ms->vmap[c]);
		}
	}
}

static int autoload_cmp(const void *a, const void *b, void *userdata)
{
	const struct autoload_summary *v = userdata;
	const struct autoload_summary *x = &v[*(const size_t *)a];
	const struct autoload_summary *y = &v[*(const size_t *)b];
	int r = strcmp(x->alias ?: "", y->alias ?: "");

	if (!r)
		r = strcmp(x->call_site ?: "", y->call_site ?: "");
	if (!r)
		r = strcmp(x->module ?: "", y->module ?: "");
	return r;
}

/*
 * The JSON's autoload rows are per alias, call site and task; the metric has no task
 * label (kworker names change from boot to boot): rows that differ only in it are added.
 */
static int render_autoload(const struct report_data *d, struct om *m)
{
	const struct ledger_summary *s = d->sum;
	_cleanup_free_ size_t *ord = NULL;

	if (!s->n_autoload)
		return 0;
	ord = malloc(s->n_autoload * sizeof(*ord));
	if (!ord)
		return -ENOMEM;
	for (size_t i = 0; i < s->n_autoload; i++)
		ord[i] = i;
	qsort_r(ord, s->n_autoload, sizeof(*ord), autoload_cmp, s->autoload);
	om_family(m, "kmodtop_autoload_requests", OM_COUNTER, NULL,
		  "request_module() calls by alias, the kernel function that asked and "
		  "the module the alias resolves to (empty: none); needless: the module "
		  "was Live.");
	for (size_t i = 0, j; i < s->n_autoload; i = j) {
		const struct autoload_summary *a = &s->autoload[ord[i]];
		uint64_t requests = 0, needless = 0;
		struct om_label l[] = { { "alias", a->alias },
					{ "call_site", a->call_site },
					{ "module", a->module },
					{ "needless", "true" } };

		for (j = i; j < s->n_autoload; j++) {
			const struct autoload_summary *b = &s->autoload[ord[j]];

			if (autoload_cmp(&ord[j], &ord[i], s->autoload))
				break;
			requests = add_sat_u64(requests, b->requests);
			needless = add_sat_u64(needless, b->needless);
		}
		om_sample_u64(m, l, ARRAY_SIZE(l), needless);
		l[3].value = "false";
		/* the needless are counted among the requests: the others */
		om_sample_u64(m, l, ARRAY_SIZE(l),
			      requests > needless ? requests - needless : 0);
	}
	return 0;
}

static void render_findings(const struct report_data *d, struct om *m)
{
	const struct ledger_summary *s = d->sum;

	om_family(m, "kmodtop_kernel_log_findings", OM_COUNTER, NULL,
		  "Kernel log lines about module loading, by finding and module (empty: "
		  "none).");
	for (size_t i = 0; i < s->n_findings; i++) {
		const struct finding_summary *f = &s->findings[i];
		const struct om_label l[] = {
			{ "finding", klog_finding_kind_name(f->kind) },
			{ "module", f->module },
		};

		om_sample_u64(m, l, ARRAY_SIZE(l), f->count);
	}
}

int report_render_metrics(const struct report_data *d, struct om *m)
{
	render_info(d, m);
	if (!d->ledger)
		return 0;
	render_capture(d, m);
	render_boot(d, m);
	render_modules(d, m);
	render_findings(d, m);
	return render_autoload(d, m);
}
