/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cost/vmsample.h"
#include "sources/tainted.h"
#include "util/macro.h"
#include "output/units.h"
#include "report.h"

enum {
	MCOL_NAME,
	MCOL_STATE,
	MCOL_SIZE,
	MCOL_CORE,
	MCOL_INIT,
	MCOL_INITSTATE,
	MCOL_REFS,
	MCOL_HOLDERS,
	MCOL_TAINT,
	MCOL_ADDR,
	MCOL_AREAS,
	MCOL_VMAP,
	MCOL_JOIN,
	MCOL_CONF,
	MCOL_ATT_TOTAL,
	MCOL_ATT_LOADED,
	MCOL_ATT_DUP,
	MCOL_ATT_DUP_LIVE,
	MCOL_ATT_DUP_CONC,
	MCOL_ATT_WAITERS,
	MCOL_ATT_LEADERS,
	MCOL_ATT_FAILED,
	MCOL_ATT_BY_ERRNO,
	MCOL_ATT_BY_OUTCOME,
	MCOL_ATT_REQUESTS,
	MCOL_ATT_NEEDLESS,
	MCOL_ATT_WASTED,
	MCOL_W_EST,
	MCOL_W_KREAD,
	MCOL_W_DECOMP,
	MCOL_W_LAYOUT,
	MCOL_W_USERCOPY,
	MCOL_W_OTHER,
	MCOL_W_UNEST,
	_MCOL_MAX,
};

/* jc's proc_modules names where they exist (used, used_by, status, location) */
static const struct col_desc module_cols[_MCOL_MAX] = {
	[MCOL_NAME] = { "MODULE", "name", COL_STR, COL_NAME, "module name" },
	[MCOL_STATE] = { "STATE", "status", COL_STR, 0, "Live, Loading or Unloading" },
	[MCOL_SIZE] = { "SIZE", "size", COL_BYTES, COL_RIGHT, "size in proc/modules" },
	[MCOL_CORE] = { "CORE", "coresize", COL_BYTES, COL_RIGHT, "sys/module/NAME/coresize" },
	[MCOL_INIT] = { "INIT", "initsize", COL_BYTES, COL_RIGHT, "sys/module/NAME/initsize" },
	[MCOL_INITSTATE] = { "INITSTATE", "initstate", COL_STR, COL_NOTEXT,
			     "sys/module/NAME/initstate" },
	[MCOL_REFS] = { "REFS", "used", COL_I64, COL_RIGHT, "reference count" },
	[MCOL_HOLDERS] = { "HOLDERS", "used_by", COL_STRV, 0, "modules that use this one" },
	[MCOL_TAINT] = { "TAINT", "taint", COL_STR, 0, "per-module taint letters" },
	[MCOL_ADDR] = { "ADDRESS", "location", COL_HEX, COL_NOTEXT, "base address (text)" },
	[MCOL_AREAS] = { "AREAS", "vmalloc_areas", COL_U64, COL_RIGHT,
			 "vmallocinfo areas joined to the module" },
	[MCOL_VMAP] = { "VMAP", "vmalloc_bytes", COL_BYTES, COL_RIGHT,
			"bytes of those areas, guard pages included" },
	[MCOL_JOIN] = { "JOIN", "join", COL_STR, 0, "how the areas were joined" },
	[MCOL_CONF] = { "CONFIDENCE", "confidence", COL_STR, 0, "how sure the join is" },
	[MCOL_ATT_TOTAL] = { "ATTEMPTS", "attempts.total", COL_U64, COL_RIGHT,
			     "finit_module/init_module calls for the module" },
	[MCOL_ATT_LOADED] = { "LOADED", "attempts.loaded", COL_U64, COL_RIGHT,
			      "calls that loaded it" },
	[MCOL_ATT_DUP] = { "DUP", "attempts.duplicate", COL_U64, COL_RIGHT,
			   "duplicates: of a Live module, concurrent, or idempotent waiters" },
	[MCOL_ATT_DUP_LIVE] = { "LIVE", "attempts.duplicate_live", COL_U64, COL_RIGHT,
				"EEXIST: the module was Live" },
	[MCOL_ATT_DUP_CONC] = { "BUSY", "attempts.duplicate_concurrent", COL_U64, COL_RIGHT,
				"EBUSY: it was loading or going away" },
	[MCOL_ATT_WAITERS] = { "WAIT", "attempts.idempotent_waiters", COL_U64, COL_RIGHT,
			       "6.5+: merged into a concurrent load of the same file" },
	[MCOL_ATT_LEADERS] = { "LEAD", "attempts.idempotent_leaders", COL_U64, COL_NOTEXT,
			       "attempts that others waited for" },
	[MCOL_ATT_FAILED] = { "FAIL", "attempts.failed", COL_U64, COL_RIGHT,
			      "calls that returned an error" },
	[MCOL_ATT_BY_ERRNO] = { "ERRNO", "attempts.by_errno", COL_COUNTS, 0,
				"failed calls by error" },
	[MCOL_ATT_BY_OUTCOME] = { "OUTCOMES", "attempts.by_outcome", COL_COUNTS, COL_NOTEXT,
				  "calls by outcome class" },
	[MCOL_ATT_REQUESTS] = { "REQUESTS", "attempts.autoload_requests", COL_U64, COL_NOTEXT,
				"request_module() calls resolving to it" },
	[MCOL_ATT_NEEDLESS] = { "NEEDLESS", "attempts.needless_autoloads", COL_U64, COL_RIGHT,
				"requests made while it was Live" },
	[MCOL_ATT_WASTED] = { "MEASURED", "wasted_vmap.measured", COL_BYTES, COL_RIGHT,
			      "vmap bytes its failed calls allocated (vmalloc trace)" },
	[MCOL_W_EST] = { "WASTED", "wasted_vmap.estimated", COL_BYTES, COL_RIGHT,
			 "vmap bytes its failed calls cost, by the model" },
	[MCOL_W_KREAD] = { "KREAD", "wasted_vmap.by_class.kread", COL_BYTES, COL_NOTEXT,
			   "estimated: file copies (kernel_read_file)" },
	[MCOL_W_DECOMP] = { "DECOMP", "wasted_vmap.by_class.decompress", COL_BYTES, COL_NOTEXT,
			    "estimated: in-kernel decompression" },
	[MCOL_W_LAYOUT] = { "LAYOUT", "wasted_vmap.by_class.layout", COL_BYTES, COL_NOTEXT,
			    "estimated: module memory" },
	[MCOL_W_USERCOPY] = { "USERCOPY", "wasted_vmap.by_class.user_copy", COL_BYTES,
			      COL_NOTEXT, "estimated: init_module's copies" },
	[MCOL_W_OTHER] = { "OTHER", "wasted_vmap.by_class.other_load", COL_BYTES, COL_NOTEXT,
			   "estimated: other load_module allocations" },
	[MCOL_W_UNEST] = { "UNEST", "wasted_vmap.unestimated", COL_U64, COL_NOTEXT,
			   "failed calls the model could not size (no module file)" },
};

static const size_t loaded_text_cols[] = {
	MCOL_NAME, MCOL_STATE, MCOL_SIZE, MCOL_CORE, MCOL_INIT, MCOL_REFS, MCOL_HOLDERS,
	MCOL_TAINT, MCOL_AREAS, MCOL_VMAP, MCOL_JOIN, MCOL_CONF,
};

static const size_t attempt_text_cols[] = {
	MCOL_NAME, MCOL_ATT_TOTAL, MCOL_ATT_LOADED, MCOL_ATT_DUP, MCOL_ATT_DUP_LIVE,
	MCOL_ATT_DUP_CONC, MCOL_ATT_WAITERS, MCOL_ATT_FAILED, MCOL_ATT_NEEDLESS,
	MCOL_W_EST, MCOL_ATT_WASTED, MCOL_ATT_BY_ERRNO,
};

enum {
	ACOL_START,
	ACOL_END,
	ACOL_SIZE,
	ACOL_PAGES,
	ACOL_CALLER,
	ACOL_CLASS,
	ACOL_MODULE,
	ACOL_BASE,
	ACOL_OPTIONS,
	_ACOL_MAX,
};

/* jc's vmallocinfo names (start, end, size, caller, options, pages) */
static const struct col_desc area_cols[_ACOL_MAX] = {
	[ACOL_START] = { "START", "start", COL_HEX, 0, "start as printed (real or hashed)" },
	[ACOL_END] = { "END", "end", COL_HEX, COL_NOTEXT, "end as printed" },
	[ACOL_SIZE] = { "SIZE", "size", COL_BYTES, COL_RIGHT, "area size, guard page included" },
	[ACOL_PAGES] = { "PAGES", "pages", COL_U64, COL_RIGHT, "pages= count" },
	[ACOL_CALLER] = { "CALLER", "caller", COL_STR, 0, "allocating function" },
	[ACOL_CLASS] = { "CLASS", "class", COL_STR, 0,
			 "module, kread, user-copy or decompress" },
	[ACOL_MODULE] = { "MODULE", "module", COL_STR, COL_NAME, "module the area belongs to" },
	[ACOL_BASE] = { "BASE", "is_base", COL_BOOL, 0, "starts at the module's base address" },
	[ACOL_OPTIONS] = { "OPTIONS", "options", COL_STRV, COL_NOTEXT, "kind flags" },
};

static void render_sources(const struct report_data *d, struct out *o)
{
	if (out_format(o) != OUT_JSON)
		return;
	out_section_begin(o, "sources", NULL);
	for (size_t i = 0; i < _SRC_MAX; i++) {
		const struct source_status *s = &d->src[i];

		if (!s->key)
			continue;
		out_section_begin(o, s->key, NULL);
		out_str(o, "path", NULL, s->path);
		out_bool(o, "ok", NULL, s->err == 0);
		if (s->err) {
			out_str(o, "error", NULL, s->what ? "EINVAL" : strerrorname_np(-s->err));
			if (s->what || s->why)
				out_str(o, "reason", NULL, s->what ? s->what : s->why);
			if (s->line)
				out_u64(o, "line", NULL, s->line);
		}
		out_section_end(o);
	}
	out_section_end(o);
}

const char *report_module_compression(const struct kconfig *kc)
{
	if (!kc)
		return NULL;
	if (kconfig_enabled(kc, "CONFIG_MODULE_COMPRESS_XZ"))
		return "xz";
	if (kconfig_enabled(kc, "CONFIG_MODULE_COMPRESS_ZSTD"))
		return "zstd";
	if (kconfig_enabled(kc, "CONFIG_MODULE_COMPRESS_GZIP"))
		return "gzip";
	if (kconfig_get(kc, "CONFIG_MODULE_COMPRESS_NONE") ||
	    kconfig_get(kc, "CONFIG_MODULE_COMPRESS"))
		return "none";
	return NULL;
}

static void render_kernel(const struct report_data *d, struct out *o)
{
	char letters[80], line[160];
	const char *comp = report_module_compression(d->kc);
	const char *files = d->has_moduledir ? moduledir_compression(&d->mds) : NULL;

	out_section_begin(o, "kernel", "Kernel");
	out_str(o, "release", "release:", d->release);
	out_str(o, "release_from", NULL, d->release_from);
	/* text: only when known, as most captured roots have none */
	out_str(o, "boot_id", d->boot_id ? "boot id:" : NULL, d->boot_id);
	out_str(o, "root", "root:", d->root);
	out_bool(o, "live", NULL, d->live);
	out_bool(o, "module_support", "module support:", d->pm != NULL);
	if (d->kc)
		out_str(o, "config", "configuration:", d->kc->source);
	else
		out_null(o, "config", "configuration:", "not found");
	out_str(o, "module_compression", "module compression (config):", comp);
	out_str(o, "module_files_compression", "module files:", files);
	out_bool(o, "in_kernel_decompression", "in-kernel decompression:",
		 d->in_kernel_decompression);
	out_str(o, "decompression_format", "decompresses:", d->sysfs_compression);
	if (d->kc) {
		out_bool(o, "module_signing", "module signatures:",
			 kconfig_enabled(d->kc, "CONFIG_MODULE_SIG"));
		out_bool(o, "module_signing_enforced", "signatures enforced:",
			 kconfig_enabled(d->kc, "CONFIG_MODULE_SIG_FORCE"));
	}
	out_bool(o, "module_stats", "MODULE_STATS:", d->ms != NULL);
	if (d->has_tainted) {
		tainted_letters(d->tainted, letters, sizeof(letters));
		snprintf(line, sizeof(line), "%" PRIu64 "%s%s%s", d->tainted, letters[0] ? " (" : "",
			 letters, letters[0] ? ")" : "");
		out_u64(o, "tainted", NULL, d->tainted);
		out_str(o, "taint_flags", NULL, letters);
		out_str(o, NULL, "tainted:", line);
	}

	out_section_begin(o, "load_path", NULL);
	if (d->lp.known) {
		char era[2] = { d->lp.era, 0 };

		out_str(o, "era", NULL, era);
		out_str(o, "summary", "load path:", loadpath_summary(&d->lp));
		out_bool(o, "early_duplicate_check", "duplicate check before layout:",
			 d->lp.early_dup_check);
		out_bool(o, "idempotent_finit_module", "idempotent finit_module:",
			 d->lp.idempotent_finit);
		out_bool(o, "per_type_allocation", "one area per memory type:",
			 d->lp.per_type_alloc);
		out_bool(o, "busy_on_going", NULL, d->lp.busy_on_going);
		out_bool(o, "execmem", NULL, d->lp.execmem);
		out_bool(o, "decompression_capable", NULL, d->lp.decompress_capable);
	} else {
		out_null(o, "era", "load path:", "unknown (release does not parse)");
	}
	out_section_end(o);
	out_section_end(o);
}

static const char *module_name_of(const struct report_data *d, long m)
{
	return m >= 0 && (size_t)m < d->pm->n ? d->pm->mods[m].name : NULL;
}

static void set_cost_cells(struct table *t, size_t row, const struct module_cost *mc)
{
	if (!mc)
		return;
	table_set_u64(t, row, MCOL_W_EST, mc->wasted);
	for (int c = 0; c < _VMAP_MAX; c++)
		table_set_u64(t, row, MCOL_W_KREAD + c, mc->by_class[c]);
	table_set_u64(t, row, MCOL_W_UNEST, mc->unestimated);
}

static int set_attempt_cells(struct table *t, size_t row, const struct module_summary *ms)
{
	char ebuf[ATTEMPT_ERRNO_NAME_MAX];
	int r = 0;

	table_set_u64(t, row, MCOL_ATT_TOTAL, ms->total);
	table_set_u64(t, row, MCOL_ATT_LOADED, ms->loaded);
	table_set_u64(t, row, MCOL_ATT_DUP, ms->duplicate);
	table_set_u64(t, row, MCOL_ATT_DUP_LIVE, ms->dup_live);
	table_set_u64(t, row, MCOL_ATT_DUP_CONC, ms->dup_concurrent);
	table_set_u64(t, row, MCOL_ATT_WAITERS, ms->waiters);
	table_set_u64(t, row, MCOL_ATT_LEADERS, ms->leaders);
	table_set_u64(t, row, MCOL_ATT_FAILED, ms->failed);
	table_set_u64(t, row, MCOL_ATT_REQUESTS, ms->requests);
	table_set_u64(t, row, MCOL_ATT_NEEDLESS, ms->needless_autoloads);
	if (ms->measured && ms->total)
		table_set_u64(t, row, MCOL_ATT_WASTED, ms->wasted_measured);
	/* an empty object, not null, when nothing failed */
	r = table_set_strv(t, row, MCOL_ATT_BY_ERRNO, NULL, 0);
	if (r < 0)
		return r;
	for (size_t e = 0; e < ms->n_errno && r >= 0; e++)
		if (ms->by_errno[e].err)
			r = table_add_count(t, row, MCOL_ATT_BY_ERRNO,
					    attempt_errno_name(ms->by_errno[e].err, ebuf),
					    ms->by_errno[e].count);
	if (r >= 0)
		r = table_set_strv(t, row, MCOL_ATT_BY_OUTCOME, NULL, 0);
	for (int c = 0; c < _OUTCOME_MAX && r >= 0; c++)
		if (ms->by_outcome[c])
			r = table_add_count(t, row, MCOL_ATT_BY_OUTCOME,
					    attempt_outcome_name(c), ms->by_outcome[c]);
	return r;
}

static const struct module_summary *summary_module(const struct report_data *d, const char *name)
{
	return name ? ledger_summary_module(d->sum, name) : NULL;
}

static bool loaded_name(const struct report_data *d, const char *name)
{
	return name && proc_modules_find(d->pm, name) != NULL;
}

/*
 * One modules[] array in JSON: the loaded modules, then modules that only appear in
 * load attempts (and the unnamed attempts, name null). Text shows it as two tables.
 */
static int render_modules(const struct report_data *d, struct out *o)
{
	static const struct module_summary zero;
	struct table *t;
	bool *loaded_rows = NULL, *attempt_rows = NULL;
	size_t extra = d->sum ? d->sum->n_modules : 0;
	int r;

	r = table_new(module_cols, _MCOL_MAX, &t);
	if (r < 0)
		return r;
	loaded_rows = calloc(d->pm->n + extra + 1, sizeof(bool));
	attempt_rows = calloc(d->pm->n + extra + 1, sizeof(bool));
	if (!loaded_rows || !attempt_rows) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < d->pm->n; i++) {
		const struct proc_module *m = &d->pm->mods[i];
		const struct sys_module *s = d->sm ? &d->sm[i] : NULL;
		const struct modmem_module *mm = d->mm ? &d->mm->mods[i] : NULL;
		const struct module_summary *ms = summary_module(d, m->name);
		size_t row;

		r = table_add_row(t, &row);
		if (r < 0)
			goto out;
		loaded_rows[row] = true;
		attempt_rows[row] = ms && ms->total;
		r = table_set_str(t, row, MCOL_NAME, m->name);
		if (r >= 0)
			r = table_set_str(t, row, MCOL_STATE, module_state_name(m->state));
		table_set_u64(t, row, MCOL_SIZE, m->size);
		if (s && s->has_coresize)
			table_set_u64(t, row, MCOL_CORE, s->coresize);
		if (s && s->has_initsize)
			table_set_u64(t, row, MCOL_INIT, s->initsize);
		if (r >= 0 && s && s->initstate[0])
			r = table_set_str(t, row, MCOL_INITSTATE, s->initstate);
		if (m->refcount >= 0)
			table_set_i64(t, row, MCOL_REFS, m->refcount);
		if (r >= 0)
			r = table_set_strv(t, row, MCOL_HOLDERS, m->holders, m->n_holders);
		if (r >= 0)
			r = table_set_str(t, row, MCOL_TAINT, m->taint);
		if (m->address)
			table_set_u64(t, row, MCOL_ADDR, m->address);
		if (mm) {
			table_set_u64(t, row, MCOL_AREAS, mm->n_areas);
			table_set_u64(t, row, MCOL_VMAP, mm->area_bytes);
			if (r >= 0)
				r = table_set_str(t, row, MCOL_JOIN, join_method_name(mm->method));
			if (r >= 0)
				r = table_set_str(t, row, MCOL_CONF,
						  join_confidence_name(mm->confidence));
		}
		if (r >= 0 && d->sum)
			r = set_attempt_cells(t, row, ms ? ms : &zero);
		if (d->cost) {
			static const struct module_cost no_cost;
			const struct module_cost *mc = cost_module_find(d->cost, m->name);

			set_cost_cells(t, row, mc ? mc : &no_cost);
		}
		if (r < 0)
			goto out;
	}
	for (size_t i = 0; i < extra; i++) {
		const struct module_summary *ms = &d->sum->modules[i];
		size_t row;

		if (loaded_name(d, ms->name) || !ms->total)
			continue;
		r = table_add_row(t, &row);
		if (r < 0)
			goto out;
		attempt_rows[row] = true;
		r = table_set_str(t, row, MCOL_NAME, ms->name);
		if (r >= 0)
			r = set_attempt_cells(t, row, ms);
		set_cost_cells(t, row, cost_module_find(d->cost, ms->name));
		if (r < 0)
			goto out;
	}
	/* JSON gets the whole table; text shows it as the two views below */
	if (out_format(o) == OUT_JSON)
		out_table(o, "modules", NULL, t);
	out_table_text(o, "Loaded modules", t, loaded_text_cols, ARRAY_SIZE(loaded_text_cols),
		       loaded_rows);
	if (d->sum && d->sum->attempts)
		out_table_text(o, "Load attempts by module (-: unnamed)", t, attempt_text_cols,
			       ARRAY_SIZE(attempt_text_cols), attempt_rows);
	r = 0;
out:
	free(loaded_rows);
	free(attempt_rows);
	table_free(t);
	return r;
}

/* Rows a view keeps before out_table_rows() writes them out (JSON) */
#define ROWS_KEPT 1024

/* @o: JSON rows written out as they come (see out_table_rows()); NULL: all kept */
static int area_table(const struct report_data *d, bool module_class, struct out *o,
		      struct table **ret)
{
	static const char *const flag_names[] = { "ioremap", "vmalloc", "vmap", "user", "vpages",
						  "sparse", "dma-coherent", "vm_map_ram",
						  "unpurged" };
	struct table *t;
	int r;

	r = table_new(area_cols, _ACOL_MAX, &t);
	if (r < 0)
		return r;
	for (size_t i = 0; i < d->mm->n; i++) {
		const struct modmem_area *ma = &d->mm->areas[i];
		const struct vmalloc_area *a = &d->vi->areas[ma->area];
		char *opts[ARRAY_SIZE(flag_names)];
		size_t row, n = 0;

		if ((ma->cls == AREA_MODULE) != module_class)
			continue;
		r = table_add_row(t, &row);
		if (r < 0)
			break;
		table_set_u64(t, row, ACOL_START, a->start);
		table_set_u64(t, row, ACOL_END, a->end);
		table_set_u64(t, row, ACOL_SIZE, a->size);
		if (a->has_pages)
			table_set_u64(t, row, ACOL_PAGES, a->pages);
		r = table_set_str(t, row, ACOL_CALLER, a->caller);
		if (r >= 0)
			r = table_set_str(t, row, ACOL_CLASS, area_class_name(ma->cls));
		if (r >= 0)
			r = table_set_str(t, row, ACOL_MODULE, module_name_of(d, ma->module));
		if (module_class)
			table_set_bool(t, row, ACOL_BASE, ma->is_base);
		for (size_t f = 0; f < ARRAY_SIZE(flag_names); f++)
			if (a->flags & (1u << f))
				opts[n++] = (char *)flag_names[f];
		if (r >= 0)
			r = table_set_strv(t, row, ACOL_OPTIONS, opts, n);
		if (r < 0)
			break;
		if (o && t->nrows >= ROWS_KEPT)
			out_table_rows(o, t);
	}
	if (r < 0) {
		table_free(t);
		return r;
	}
	*ret = t;
	return 0;
}

static int render_module_memory(const struct report_data *d, struct out *o)
{
	const struct modmem *mm = d->mm;
	struct table *t = NULL;
	size_t n_exact = 0, n_high = 0, n_medium = 0, n_low = 0, n_none = 0;
	char buf[256], b1[32];
	int r;

	out_section_begin(o, "module_memory", "Module memory in vmalloc space");
	if (d->mi && d->mi->has_vmalloc_total)
		out_bytes(o, "vmalloc_total", "VmallocTotal:", d->mi->vmalloc_total);
	if (d->mi && d->mi->has_vmalloc_used)
		out_bytes(o, "vmalloc_used", "VmallocUsed:", d->mi->vmalloc_used);
	if (!mm) {
		out_null(o, "areas", "module areas:", "vmallocinfo not readable");
		if (d->src[SRC_VMALLOCINFO].why)
			out_note(o, d->src[SRC_VMALLOCINFO].why);
		if (d->pm && d->pm->addresses_hidden)
			out_note(o, "proc/modules shows every address as 0 (no CAP_SYSLOG, or "
				    "kernel.kptr_restrict=2): the address join needs root");
		out_section_end(o);
		return 0;
	}
	out_str(o, "address_mode", "vmallocinfo addresses:",
		vmalloc_addr_mode_name(d->vi->addr_mode));
	out_str(o, "join", "join:", join_method_name(mm->method));
	out_u64(o, "module_areas", "module areas:", mm->n_module_areas);
	out_bytes(o, "module_bytes", "module memory:", mm->module_area_bytes);
	if (d->mi && d->mi->has_vmalloc_total && d->mi->vmalloc_total) {
		/* parts per million: exact in JSON, a percentage in text */
		uint64_t ppm = mm->module_area_bytes * 1000000.0 / d->mi->vmalloc_total;

		snprintf(buf, sizeof(buf), "%.6f%% of VmallocTotal",
			 100.0 * mm->module_area_bytes / d->mi->vmalloc_total);
		out_u64(o, "module_share_ppm", NULL, ppm);
		out_str(o, NULL, "module share:", buf);
	}
	if (d->mi && d->mi->has_vmalloc_used && d->mi->vmalloc_used) {
		snprintf(buf, sizeof(buf), "%.1f%% of VmallocUsed",
			 100.0 * mm->module_area_bytes / d->mi->vmalloc_used);
		out_str(o, NULL, "module share of used:", buf);
	}
	out_u64(o, "unjoined_areas", "areas tied to no module:", mm->n_unjoined);
	out_bytes(o, "unjoined_bytes", NULL, mm->unjoined_bytes);
	if (mm->n_unlisted || mm->n_other_dropped) {
		/* a vmallocinfo past what a machine has: counted, the tables cut short */
		out_u64(o, "unlisted_areas", NULL, mm->n_unlisted);
		out_u64(o, "other_areas_left_out", NULL, mm->n_other_dropped);
		snprintf(buf, sizeof(buf),
			 "more areas than are kept (%u of module loading, %u others): %zu "
			 "module-loading area(s) past them are counted above as tied to no module "
			 "but not listed below; %zu other(s) left out",
			 MODMEM_AREAS_KEPT, MODMEM_AREAS_KEPT, mm->n_unlisted, mm->n_other_dropped);
		out_note(o, buf);
	}
	if (mm->n_chains) {
		out_u64(o, "chains", NULL, mm->n_chains);
		out_u64(o, "chains_anchored", NULL, mm->n_chains_anchored);
	}
	for (size_t i = 0; i < mm->n_mods; i++) {
		switch (mm->mods[i].confidence) {
		case CONF_EXACT:
			n_exact++;
			break;
		case CONF_HIGH:
			n_high++;
			break;
		case CONF_MEDIUM:
			n_medium++;
			break;
		case CONF_LOW:
			n_low++;
			break;
		case CONF_NONE:
			n_none++;
			break;
		}
	}
	out_section_begin(o, "confidence", NULL);
	out_u64(o, "exact", NULL, n_exact);
	out_u64(o, "high", NULL, n_high);
	out_u64(o, "medium", NULL, n_medium);
	out_u64(o, "low", NULL, n_low);
	out_u64(o, "none", NULL, n_none);
	snprintf(buf, sizeof(buf), "%zu exact, %zu high, %zu medium, %zu low, %zu none", n_exact,
		 n_high, n_medium, n_low, n_none);
	out_str(o, NULL, "modules joined:", buf);
	out_section_end(o);

	if (d->pm && d->pm->addresses_hidden)
		out_note(o, "proc/modules shows every address as 0 (no CAP_SYSLOG, or "
			    "kernel.kptr_restrict=2): the address join needs root");
	switch (d->vi->addr_mode) {
	case VMALLOC_ADDR_REAL:
		out_note(o, "vmallocinfo shows real addresses: areas joined to modules by address; "
			    "'exact' when the areas from the base add up to the module's size");
		break;
	case VMALLOC_ADDR_HASHED:
		snprintf(buf, sizeof(buf),
			 "vmallocinfo addresses are hashed (kernel.kptr_restrict=0): areas joined by "
			 "chaining adjacent areas and anchoring %zu of %zu chains on module base "
			 "addresses; 'high' when the sizes add up",
			 mm->n_chains_anchored, mm->n_chains);
		out_note(o, buf);
		break;
	case VMALLOC_ADDR_ZERO:
		out_note(o, "vmallocinfo addresses are all zero (kernel.kptr_restrict=2, or no "
			    "CAP_SYSLOG): areas joined by size only");
		break;
	case VMALLOC_ADDR_UNKNOWN:
		break;
	}

	r = area_table(d, true, o, &t);
	if (r < 0)
		return r;
	out_table(o, "areas", "Module areas", t);
	t = table_free(t);

	/* kernel_read_file/module_decompress areas outlive no load: one is in flight */
	out_u64(o, "load_areas", "areas of loads in flight:", mm->n_leftover);
	out_bytes(o, "load_bytes", NULL, mm->leftover_bytes);
	if (mm->n_leftover) {
		snprintf(buf, sizeof(buf), "%zu area(s), %s, of module loading are mapped: a load "
			 "is in flight (or a snapshot was taken during one)",
			 mm->n_leftover, format_bytes(mm->leftover_bytes, b1, sizeof(b1)));
		out_note(o, buf);
	}
	r = area_table(d, false, NULL, &t);
	if (r < 0)
		return r;
	if (out_format(o) == OUT_JSON || t->nrows)
		out_table(o, "load_areas_list", "Areas of loads in flight", t);
	table_free(t);
	out_section_end(o);
	return 0;
}

static const struct col_desc dup_cols[] = {
	{ "MODULE", "name", COL_STR, 0, "module name" },
	{ "TIMES", "count", COL_U64, COL_RIGHT, "How-many-times" },
	{ "REASON", "reason", COL_STR, 0, "Becoming, Load, or Becoming & Load" },
};

static int render_modstats(const struct report_data *d, struct out *o)
{
	const struct modstats *ms = d->ms;
	struct table *t;
	char label[64];
	int r;

	if (!ms) {
		if (out_format(o) == OUT_JSON)
			out_null(o, "module_stats", NULL, NULL);
		return 0;
	}
	out_section_begin(o, "module_stats", "MODULE_STATS (sys/kernel/debug/modules/stats)");
	for (int c = 0; c < _MODSTAT_MAX; c++) {
		bool bytes;

		if (!ms->has[c])
			continue;
		snprintf(label, sizeof(label), "%s:", modstat_label(c));
		bytes = strstr(modstat_key(c), "bytes") || strstr(modstat_key(c), "size");
		if (bytes)
			out_bytes(o, modstat_key(c), label, ms->v[c]);
		else
			out_u64(o, modstat_key(c), label, ms->v[c]);
	}
	if (ms->n_extra) {
		out_section_begin(o, "other", NULL);
		for (size_t i = 0; i < ms->n_extra; i++) {
			snprintf(label, sizeof(label), "%s:", ms->extra[i].label);
			out_u64(o, ms->extra[i].label, label, ms->extra[i].value);
		}
		out_section_end(o);
	}
	r = table_new(dup_cols, ARRAY_SIZE(dup_cols), &t);
	if (r < 0)
		return r;
	for (size_t i = 0; i < ms->n_dups && r >= 0; i++) {
		size_t row;

		r = table_add_row(t, &row);
		if (r < 0)
			break;
		r = table_set_str(t, row, 0, ms->dups[i].name);
		table_set_u64(t, row, 1, ms->dups[i].count);
		if (r >= 0)
			r = table_set_str(t, row, 2, ms->dups[i].reason);
	}
	if (r >= 0 && (out_format(o) == OUT_JSON || t->nrows))
		out_table(o, "duplicates", "Duplicate failed modules", t);
	table_free(t);
	out_section_end(o);
	return r < 0 ? r : 0;
}

static void render_boot(const struct report_boot *b, struct out *o)
{
	char buf[256];

	out_section_begin(o, "boot", "Boot capture");
	out_str(o, "source", "source:", b->source);
	if (b->boot_id)
		out_str(o, "boot_id", "boot id:", b->boot_id);
	if (b->trace)
		out_str(o, "trace", "trace:", b->trace);
	else
		out_null(o, "trace", "trace:", "none");
	if (b->log)
		out_str(o, "log", "kernel log:", b->log);
	else
		out_null(o, "log", "kernel log:", "none");
	/* the kernel's start is 0 on the trace's and the log's clock (local, sched_clock) */
	out_f64(o, "first_event_s", "first traced event (s after kernel start):",
		b->first_event);
	out_f64(o, "first_attempt_s", "first load attempt (s after kernel start):",
		b->first_attempt);
	if (b->has_lost)
		out_u64(o, "events_lost", "events the full buffer lost:", b->lost);
	else
		out_null(o, "events_lost", "events the full buffer lost:", "unknown");
	out_u64(o, "untraced_modules_count", NULL, b->n_untraced);
	if (b->n_untraced) {
		size_t at = 0;

		for (size_t i = 0; i < b->n_untraced && at < sizeof(buf) - 1; i++)
			at += (size_t)snprintf(buf + at, sizeof(buf) - at, "%s%s", i ? ", " : "",
					       b->untraced[i]);
		out_str(o, NULL, "loaded before the capture began:", buf);
		snprintf(buf, sizeof(buf),
			 "%zu Live module(s) have no load in the capture: they were loaded "
			 "before tracing began (an initramfs, or a service started late), and "
			 "their attempts are not counted", b->n_untraced);
		out_note(o, buf);
	}
	if (b->has_lost && b->lost) {
		snprintf(buf, sizeof(buf),
			 "the trace buffer filled and lost %llu events: attempts after that are "
			 "missing (a bigger trace_buf_size= in the command line)",
			 (unsigned long long)b->lost);
		out_note(o, buf);
	}
	if (b->changed) {
		out_str(o, "buffer_changed", "changed since boot:", b->changed);
		out_note(o, "the global trace buffer is no longer set up as the kernel command "
			    "line did it: it may have been reset or used since boot, and what it "
			    "holds may not be the boot's");
	} else if (out_format(o) == OUT_JSON) {
		out_null(o, "buffer_changed", NULL, NULL);
	}
	if (b->log_partial)
		out_note(o, "the kernel's ring buffer has lost the boot's first records and the "
			    "journal has no copy of them: log findings of early boot are missing");
	out_section_end(o);
	if (out_format(o) == OUT_JSON && b->n_untraced) {
		static const struct col_desc cols[] = {
			{ "MODULE", "module", COL_STR, COL_NAME, "a Live module loaded before the capture" },
		};
		struct table *t = NULL;
		size_t row;

		if (table_new(cols, 1, &t) >= 0) {
			for (size_t i = 0; i < b->n_untraced; i++)
				if (table_add_row(t, &row) >= 0)
					table_set_str(t, row, 0, b->untraced[i]);
			out_table(o, "boot_untraced_modules", NULL, t);
			table_free(t);
		}
	}
}

/* What a module's failed calls wasted: measured when the trace saw vmap, else estimated */
static uint64_t summary_waste(const struct report_data *d, const struct module_summary *ms)
{
	const struct module_cost *mc;

	if (d->ledger->saw_vmap_events)
		return ms->wasted_measured;
	mc = ms->name ? cost_module_find(d->cost, ms->name) : NULL;
	if (!ms->name && d->cost)
		for (size_t i = 0; i < d->cost->n_mods && !mc; i++)
			if (!d->cost->mods[i].name)
				mc = &d->cost->mods[i];
	return mc ? mc->wasted : 0;
}

/* "xfs 43.0 MiB, nfs 29.5 MiB, sctp 16.8 MiB": the (up to) three that wasted most */
static void summary_worst(const struct report_data *d, char *buf, size_t size)
{
	const struct module_summary *top[3] = { NULL };
	uint64_t w[3] = { 0 };
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < d->sum->n_modules; i++) {
		const struct module_summary *ms = &d->sum->modules[i];
		uint64_t v = summary_waste(d, ms);

		for (size_t k = 0; k < 3; k++) {
			if (v <= w[k])
				continue;
			memmove(&top[k + 1], &top[k], (2 - k) * sizeof(top[0]));
			memmove(&w[k + 1], &w[k], (2 - k) * sizeof(w[0]));
			top[k] = ms;
			w[k] = v;
			break;
		}
	}
	for (size_t k = 0; k < 3 && top[k] && at < size; k++) {
		char b[32];

		at += (size_t)snprintf(buf + at, size - at, "%s%s %s", k ? ", " : "",
				       top[k]->name ? top[k]->name : "(unnamed attempts)",
				       format_bytes(w[k], b, sizeof(b)));
	}
}

/* The requester that made the most failed calls, or NULL */
static const struct requester_summary *summary_top_requester(const struct ledger_summary *s)
{
	const struct requester_summary *best = NULL;

	for (size_t i = 0; i < s->n_requesters; i++)
		if (!best || s->requesters[i].failed > best->failed)
			best = &s->requesters[i];
	return best && best->failed ? best : NULL;
}

/* The module whose failed calls wasted most, and its most frequent errno */
static const struct module_summary *summary_worst_failing(const struct report_data *d,
							  int *ret_err, uint64_t *ret_count)
{
	const struct module_summary *best = NULL;
	uint64_t bw = 0;

	for (size_t i = 0; i < d->sum->n_modules; i++) {
		const struct module_summary *ms = &d->sum->modules[i];
		uint64_t v = summary_waste(d, ms);

		if (ms->failed && (!best || v > bw || (v == bw && ms->failed > best->failed))) {
			best = ms;
			bw = v;
		}
	}
	*ret_err = 0;
	*ret_count = 0;
	for (size_t e = 0; best && e < best->n_errno; e++)
		if (best->by_errno[e].err && best->by_errno[e].count > *ret_count) {
			*ret_err = best->by_errno[e].err;
			*ret_count = best->by_errno[e].count;
		}
	return best;
}

/* One thing to do next, from what the report found: the first that applies */
static void summary_hint(const struct report_data *d, uint64_t dups, char *buf, size_t size)
{
	const struct ledger_summary *s = d->sum;
	const struct requester_summary *q;
	const struct module_summary *ms;
	uint64_t count;
	int err;

	if (!d->ledger) {
		snprintf(buf, size, "%s",
			 d->live ? "no load attempts were watched: 'sudo kmodtop report --duration "
				   "60 --measure' traces them while udev settles, 'sudo kmodtop "
				   "boot-setup' shows how to trace a whole boot"
				 : "this capture has neither a trace nor a kernel log: on the machine, "
				   "'sudo kmodtop record --measure -o DIR' records one, 'sudo kmodtop "
				   "boot-setup' shows how to trace a whole boot");
		return;
	}
	if (!d->trace_path) {
		snprintf(buf, size, "attempts are counted from the kernel log alone, which names "
			 "few of them and sizes none: 'sudo kmodtop record --measure -o DIR' records "
			 "a trace");
		return;
	}
	if (!s->attempts) {
		snprintf(buf, size, "the trace holds no module load: record while modules load "
			 "(at boot: 'sudo kmodtop boot-setup')");
		return;
	}
	if (!s->failed) {
		snprintf(buf, size, "nothing: no load failed, no vmap space was wasted");
		return;
	}
	q = summary_top_requester(s);
	if (q && dups * 2 >= s->failed && q->n_pids > 1) {
		bool udev = strstr(q->comm, "udev") != NULL;

		snprintf(buf, size, "%" PRIu64 " of the %" PRIu64 " failed calls are duplicates; %s "
			 "made %" PRIu64 " failed calls from %zu processes at once (Requesters)%s",
			 dups, s->failed, q->comm, q->failed, q->n_pids,
			 udev && d->n_storms ? ": udev loaded modules every CPU asks for once per "
					       "CPU (Per-CPU risk)"
			 : udev && d->n_percpu ? ": udev loads a module every CPU matches once per CPU "
						 "(Per-CPU alias risk)"
					       : ": they load what is loaded or loading already; "
						 "one load per module saves most of the waste");
		return;
	}
	ms = summary_worst_failing(d, &err, &count);
	if (ms && err) {
		char ebuf[ATTEMPT_ERRNO_NAME_MAX];

		snprintf(buf, size, "%s failed %" PRIu64 " times with %s: %s", ms->name ? ms->name
			 : "unnamed attempts", count, attempt_errno_name(err, ebuf),
			 s->n_findings ? "the Kernel log findings say why" : "see Load attempts by module");
		return;
	}
	snprintf(buf, size, "see Load attempts by module for the failed calls");
}

/*
 * Text only: the answer first (attempts, failures, waste, the worst modules, what to do);
 * the JSON has every one of these figures where the sections below put them.
 */
static void render_summary(const struct report_data *d, struct out *o)
{
	const struct ledger_summary *s = d->sum;
	char buf[512], b1[32], b2[32], b3[32];
	uint64_t dups = 0;

	if (out_format(o) == OUT_JSON)
		return;
	out_section_begin(o, NULL, "Summary");
	if (!d->ledger || !s) {
		out_null(o, NULL, "load attempts:", "none read (no trace, no kernel log)");
		summary_hint(d, 0, buf, sizeof(buf));
		out_str(o, NULL, "what next:", buf);
		out_section_end(o);
		return;
	}
	for (size_t i = 0; i < s->n_modules; i++)
		dups += s->modules[i].duplicate;
	snprintf(buf, sizeof(buf), "%" PRIu64 ", %" PRIu64 " failed, %" PRIu64 " duplicates%s",
		 s->attempts, s->failed, dups, d->trace_path ? "" : " (kernel log only)");
	out_str(o, NULL, "load attempts:", buf);
	if (d->cost && d->ledger->saw_vmap_events)
		snprintf(buf, sizeof(buf), "%s measured, %s estimated", format_bytes(
			 s->wasted_measured, b1, sizeof(b1)), format_bytes(d->cost->wasted, b2,
			 sizeof(b2)));
	else if (d->ledger->saw_vmap_events)
		snprintf(buf, sizeof(buf), "%s measured", format_bytes(s->wasted_measured, b1,
			 sizeof(b1)));
	else if (d->cost)
		snprintf(buf, sizeof(buf), "%s estimated", format_bytes(d->cost->wasted, b1,
			 sizeof(b1)));
	else
		snprintf(buf, sizeof(buf), "unknown (no vmap events, no module files)");
	if (!d->trace_path)
		snprintf(buf, sizeof(buf), "unknown without a trace");
	if (d->cost && d->cost->uncertain) {
		size_t at = strlen(buf);

		snprintf(buf + at, sizeof(buf) - at, " (%s to %s)",
			 format_bytes(d->cost->wasted_min, b1, sizeof(b1)),
			 d->cost->max_unbounded ? "unbounded"
						: format_bytes(d->cost->wasted_max, b3, sizeof(b3)));
	}
	out_str(o, NULL, "vmap wasted:", buf);
	summary_worst(d, buf, sizeof(buf));
	if (buf[0])
		out_str(o, NULL, "worst modules:", buf);
	summary_hint(d, dups, buf, sizeof(buf));
	out_str(o, NULL, "what next:", buf);
	out_section_end(o);
}

int report_render(const struct report_data *d, struct out *o)
{
	int r;

	out_u64(o, "schema_version", NULL, 1);
	render_summary(d, o);
	if (d->boot)
		render_boot(d->boot, o);
	render_sources(d, o);
	render_kernel(d, o);
	if (d->pm) {
		r = render_modules(d, o);
		if (r < 0)
			return r;
	}
	if (d->ledger) {
		r = report_render_ledger(d, o);
		if (r < 0)
			return r;
	}
	r = render_module_memory(d, o);
	if (r < 0)
		return r;
	r = render_modstats(d, o);
	if (r < 0)
		return r;
	return report_render_percpu(d, o);
}

void report_render_vmsample(const struct vmsample *s, unsigned int interval_ms, int err,
			    struct out *o)
{
	char buf[200], b1[32];

	out_section_begin(o, "vmalloc_samples", NULL);
	snprintf(buf, sizeof(buf), "%zu, every %u ms", s->samples, interval_ms);
	out_str(o, NULL, "vmallocinfo samples:", buf);
	out_u64(o, "samples", NULL, s->samples);
	out_u64(o, "interval_ms", NULL, interval_ms);
	if (err) {
		out_str(o, "error", "  stopped:", strerrorname_np(-err));
		if (err == -EACCES || err == -EPERM)
			out_note(o, "proc/vmallocinfo is readable by root only: sampling stopped");
	}
	/* kernel_read_file/module_decompress areas: what loads held at once */
	snprintf(buf, sizeof(buf), "%s in %zu area(s)",
		 format_bytes(s->peak_inflight_bytes, b1, sizeof(b1)), s->peak_inflight_areas);
	out_str(o, NULL, "peak of loads in flight:", buf);
	out_u64(o, "peak_inflight_bytes", NULL, s->peak_inflight_bytes);
	out_u64(o, "peak_inflight_areas", NULL, s->peak_inflight_areas);
	if (s->has_headroom)
		out_bytes(o, "min_headroom_bytes", "least vmalloc space left:", s->min_headroom_bytes);
	else
		out_null(o, "min_headroom_bytes", "least vmalloc space left:", "unknown");
	out_section_end(o);
}
