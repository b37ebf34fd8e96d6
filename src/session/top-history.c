/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cost/catalog.h"
#include "cost/modmem.h"
#include "cost/percpu.h"
#include "sources/modindex.h"
#include "sources/sys-module.h"
#include "sources/trace/order.h"
#include "util/array.h"
#include "util/hindex.h"
#include "util/io.h"
#include "util/macro.h"
#include "util/root.h"
#include "session/top-history.h"

/* --- what a sampler could not use ------------------------------------------------------ */

void top_warnf(const struct top_warn *w, const char *fmt, ...)
{
	char text[1024];
	va_list ap;

	if (!w || !w->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	w->warn(w->userdata, text);
}

/*
 * A root file that is there but could not be used, as report words it:
 * "'proc/vmallocinfo':2: size is not a number, ignoring". A missing one is no news.
 */
void top_warn_unusable(const struct top_warn *w, const char *path, int r,
		       const struct kt_err *e)
{
	if (r == -ENOENT || r == -ENOMEM)
		return;
	if (e->what && e->path[0] && e->line)
		top_warnf(w, "'%s':%u: %s, ignoring", e->path, e->line, e->what);
	else if (e->what && e->path[0])
		top_warnf(w, "'%s': %s, ignoring", e->path, e->what);
	else
		top_warnf(w, "'%s': %s, ignoring", path, strerror(-r));
}

/* --- vmalloc figures ------------------------------------------------------------------- */

/* one area's share of the figures */
void top_vm_area_figures(const struct vmalloc_area *a, uint64_t *used, uint64_t *modules)
{
	/* VmallocUsed is vmalloc_nr_pages: the pages vmalloc() backed its areas with */
	*used = a->has_pages ? a->pages * 4096 : 0;
	*modules = area_classify(a) == AREA_MODULE ? a->size : 0;
}

void top_vm_figures_of(const struct vmallocinfo *vi, struct top_vm_figures *ret)
{
	memset(ret, 0, sizeof(*ret));
	for (size_t i = 0; i < vi->n; i++) {
		uint64_t u, m;

		top_vm_area_figures(&vi->areas[i], &u, &m);
		ret->used += u;
		ret->modules += m;
	}
	ret->areas = vi->n;
}

void top_history_done(struct top_history *h)
{
	cost_result_free(h->cost);
	ledger_free(h->ledger);
	free(h->tl);
	for (size_t i = 0; i < h->n_names; i++)
		free(h->names[i]);
	free(h->names);
	hindex_free(h->name_index);
	free(h->lost_ts);
	free(h->lost_n);
	free(h->trace_path);
	free(h->log_path);
}

struct name_key {
	const char *s;
	size_t len;
};

static bool name_eq(size_t pos, const void *key, const void *userdata)
{
	const struct name_key *k = key;
	const struct top_history *h = userdata;
	const char *n = h->names[pos];

	return strlen(n) == k->len && memcmp(n, k->s, k->len) == 0;
}

/* The index of a module name, added when new: a storm names the same few thousand. */
long top_history_name(struct top_history *h, const char *name, size_t len)
{
	struct name_key k = { name, len };
	uint64_t hash = hash_bytes(HASH_INIT, name, len);
	size_t pos;

	if (!h->name_index && hindex_new(&h->name_index) < 0)
		return -ENOMEM;
	pos = hindex_find(h->name_index, hash, name_eq, &k, h);
	if (pos != HINDEX_NONE)
		return (long)pos;
	if (array_grow((void **)&h->names, h->n_names, &h->cap_names, sizeof(char *)) < 0)
		return -ENOMEM;
	h->names[h->n_names] = strndup(name, len);
	if (!h->names[h->n_names])
		return -ENOMEM;
	if (hindex_add(h->name_index, hash, h->n_names) < 0) {
		free(h->names[h->n_names]);
		return -ENOMEM;
	}
	return (long)h->n_names++;
}

/* Each trace event, before the ledger sees it: the replay's clock and timeline */
static int history_on_event(void *userdata, const struct ktrace_event *ev)
{
	struct top_history *h = userdata;

	if (ev->kind != KTRACE_EV_LOST && ev->ts > 0) {
		if (!h->have_t0) {
			h->t0 = ev->ts;
			h->have_t0 = true;
		}
		if (ev->ts > h->t_end)
			h->t_end = ev->ts;
	}
	if (ev->kind == KTRACE_EV_MODULE_LOAD || ev->kind == KTRACE_EV_MODULE_FREE) {
		const struct ktrace_str *n = &ev->module_load.name;
		long mi = top_history_name(h, n->s, n->len);

		if (mi < 0)
			return (int)mi;
		if (array_grow((void **)&h->tl, h->n_tl, &h->cap_tl, sizeof(*h->tl)) < 0)
			return -ENOMEM;
		h->tl[h->n_tl++] = (struct top_tl_event){
			ev->ts, ev->kind == KTRACE_EV_MODULE_LOAD ? TOP_TL_LOAD : TOP_TL_FREE,
			(size_t)mi
		};
	} else if (ev->kind == KTRACE_EV_LOST) {
		size_t cap = h->cap_lost;

		if (array_grow((void **)&h->lost_ts, h->n_lost, &cap, sizeof(double)) < 0 ||
		    array_grow((void **)&h->lost_n, h->n_lost, &h->cap_lost, sizeof(uint64_t)) < 0)
			return -ENOMEM;
		/* "[LOST n EVENTS]" has no clock: it belongs where the trace is */
		h->lost_ts[h->n_lost] = h->t_end;
		h->lost_n[h->n_lost++] = ev->lost.count;
	}
	return 0;
}

/* An optional source of a root that is there but cannot be read: said, then left out */
static void warn_optional(const struct top_warn *w, const char *rel, int r)
{
	if (r != -ENOENT && !root_refusal_text(r))
		top_warnf(w, "'%s': %s, ignoring", rel, strerror(-r));
}

/* Opens the root's trace and kernel log, as `report` does by default under --root. */
int top_history_read(struct top_history *h, const struct kt_system *st,
		     struct collect_lookup *lk, const struct top_warn *w)
{
	static const char *const trace_files[] = { "sys/kernel/tracing/trace",
						   "sys/kernel/debug/tracing/trace",
						   NULL };
	static const char *const log_files[] = { "capture/kmsg.raw", "capture/dmesg.txt",
						 NULL };
	struct collect_input in = { .on_event = history_on_event, .userdata = h };
	struct collect_result res;
	FILE *tf = NULL, *lf = NULL;
	int r;

	for (size_t i = 0; trace_files[i] && !tf; i++) {
		r = root_fopen(st->root, trace_files[i], &tf);
		if (r == 0)
			h->trace_path = strdup(trace_files[i]);
		else
			warn_optional(w, trace_files[i], r);
	}
	for (size_t i = 0; log_files[i] && !lf; i++) {
		r = root_fopen(st->root, log_files[i], &lf);
		if (r == 0)
			h->log_path = strdup(log_files[i]);
		else
			warn_optional(w, log_files[i], r);
	}
	if ((tf && !h->trace_path) || (lf && !h->log_path)) {
		r = -ENOMEM;
		goto out;
	}
	if (tf) {
		struct ktrace_order ord;

		/* read sorted when its time goes back, as report reads it */
		r = ktrace_order_fwrap(&tf, &ord);
		if (r < 0)
			goto out;
		collect_trace_order_warn(h->trace_path, &ord);
	}
	lk->cat = st->cat;
	lk->k = &st->k;
	h->has_log = lf != NULL;
	h->has_trace = tf != NULL;
	in.trace = tf;
	in.log = lf;
	in.trace_path = h->trace_path;
	in.log_path = h->log_path;
	r = collect_read(lk, st->lp.idempotent_finit, &in, &res);
	h->ledger = res.ledger;
	h->cost = res.cost;
	h->trace_stats = res.trace_stats;
	h->log_format = res.log_format;
	if (r < 0)
		goto out;
	/* without a trace, the log's clock is the replay's */
	if (!h->have_t0) {
		for (size_t i = 0; i < h->ledger->n_klog; i++) {
			double ts = h->ledger->klog[i].ts;

			if (isnan(ts))
				continue;
			if (!h->have_t0 || ts < h->t0)
				h->t0 = ts;
			if (ts > h->t_end)
				h->t_end = ts;
			h->have_t0 = true;
		}
	}
out:
	if (tf)
		fclose(tf);
	if (lf)
		fclose(lf);
	return r;
}

/* Appends @item to the ", "-separated list @buf; one that does not fit is left out. */
static void list_add(char *buf, size_t bufsz, const char *item)
{
	size_t len = strlen(buf), need = strlen(item) + (len ? 2 : 0);

	if (len + need + 1 > bufsz)
		return;
	snprintf(buf + len, bufsz - len, "%s%s", len ? ", " : "", item);
}

static void module_depends(struct modindex *idx, const char *module, struct top_module_info *ret)
{
	char **names = NULL;
	size_t n = 0;

	if (modindex_deps(idx, module, &names, &n) < 0)
		return;
	ret->has_depends = true;
	for (size_t i = 0; i < n; i++)
		list_add(ret->depends, sizeof(ret->depends), names[i]);
	modindex_names_free(names);
}

/* One .modinfo key (modindex_modinfo()): the fields the detail shows */
static int modinfo_field(void *userdata, const char *key, const char *value)
{
	struct top_module_info *ret = userdata;
	char parm[64];

	if (strcmp(key, "description") == 0)
		list_add(ret->description, sizeof(ret->description), value);
	else if (strcmp(key, "author") == 0)
		list_add(ret->author, sizeof(ret->author), value);
	else if (strcmp(key, "license") == 0)
		list_add(ret->license, sizeof(ret->license), value);
	else if (strcmp(key, "version") == 0)
		list_add(ret->version, sizeof(ret->version), value);
	else if (strcmp(key, "signer") == 0)
		list_add(ret->signer, sizeof(ret->signer), value);
	else if (strcmp(key, "alias") == 0)
		ret->n_modinfo_aliases++;
	else if (strcmp(key, "firmware") == 0) {
		ret->n_firmware++;
		list_add(ret->firmware, sizeof(ret->firmware), value);
	} else if (strcmp(key, "parmtype") == 0) {
		/* "NAME:type", one per module_param(); "parm" only when it has a description */
		size_t len = strcspn(value, ":");

		snprintf(parm, sizeof(parm), "%.*s", (int)(len < 63 ? len : 63), value);
		ret->n_parms++;
		list_add(ret->parms, sizeof(ret->parms), parm);
	}
	return 0;
}

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

int top_detail_symbol_module(void *userdata, const char *symbol, char *buf, size_t bufsz)
{
	struct top_detail *ic = userdata;
	_cleanup_free_ char *alias = NULL;
	char **names = NULL;
	size_t n = 0;
	int r;

	if (!ic->st->idx)
		return -ENOENT;
	if (asprintf(&alias, "symbol:%s", symbol) < 0) {
		alias = NULL;
		return -ENOMEM;
	}
	r = modindex_lookup(ic->st->idx, alias, &names, &n);
	if (r < 0)
		return r;
	r = n ? 0 : -ENOENT;
	if (n)
		snprintf(buf, bufsz, "%s", names[0]);
	modindex_names_free(names);
	return r;
}

int top_detail_module_info(void *userdata, const char *module, struct top_module_info *ret)
{
	struct top_detail *ic = userdata;
	const struct kt_system *st = ic->st;
	const char *cpus_from;
	_cleanup_free_ char *path = NULL, *alias_file = NULL;
	_cleanup_fclose_ FILE *f = NULL;
	struct sys_module sm = { 0 };
	struct kt_err e = { 0 };
	char *line = NULL;
	size_t cap = 0;
	struct catalog_entry *ce;
	struct stat sb;
	const char *dot;
	int analysed;

	memset(ret, 0, sizeof(*ret));
	/* a module the tree does not have has no dependencies to show, not "none" */
	if (!st->idx || modindex_path(st->idx, module, &path) < 0)
		return -ENOENT;
	module_depends(st->idx, module, ret);
	ret->found = true;
	snprintf(ret->path, sizeof(ret->path), "%s", path);
	if (stat(path, &sb) == 0)
		ret->file_size = (uint64_t)sb.st_size;
	dot = strrchr(path, '.');
	if (dot && strcmp(dot, ".xz") == 0)
		ret->compression = "xz";
	else if (dot && strcmp(dot, ".zst") == 0)
		ret->compression = "zstd";
	else if (dot && strcmp(dot, ".gz") == 0)
		ret->compression = "gzip";
	ret->compressed = ret->compression != NULL;
	ce = st->cat ? catalog_find(st->cat, module) : NULL;
	/* the file laid out as the kernel would (decompressing it: on demand only) */
	analysed = ce ? catalog_analyze(st->cat, ce, MODFILE_LAYOUT) : -ENOENT;
	if (analysed == 0) {
		const struct modfile_layout *lay = &ce->info.layout;

		ret->has_decompressed =
			ce->info.decompressed_exact || ce->info.comp == MODFILE_PLAIN;
		ret->decompressed_size = ce->info.decompressed_size;
		if (ce->info.has_layout) {
			ret->has_layout = true;
			ret->layout_from = "file";
			if (st->lp.per_type_alloc) {
				ret->core_size = lay->mem[MEMT_TEXT] +
						 lay->mem[MEMT_DATA] +
						 lay->mem[MEMT_RODATA] +
						 lay->mem[MEMT_RO_AFTER_INIT];
				ret->init_size = lay->mem[MEMT_INIT_TEXT] +
						 lay->mem[MEMT_INIT_DATA] +
						 lay->mem[MEMT_INIT_RODATA];
			} else {
				ret->core_size = lay->core_size;
				ret->init_size = lay->init_size;
			}
		}
	}
	/*
	 * libkmod decompresses the whole file for its .modinfo: only a file the catalog
	 * read within its caps (MODFILE_MAX_IMAGE) is handed to it
	 */
	/* and only the file the catalog read: modules.dep may name another (one outside) */
	if (analysed == 0 && !same_file(ce->path, path))
		analysed = -EXDEV;
	ret->modinfo_err = analysed == 0
				   ? modindex_modinfo(st->idx, module, modinfo_field, ret)
				   : analysed;
	ret->has_modinfo = ret->modinfo_err == 0;
	if (!ret->has_layout && sys_module_read(st->root, module, &sm, &e) == 0) {
		ret->has_layout = sm.has_coresize;
		ret->layout_from = "sys/module";
		ret->core_size = sm.coresize;
		ret->init_size = sm.initsize;
		sys_module_done(&sm);
	}
	if (asprintf(&alias_file, "%s/modules.alias", st->moduledir) < 0) {
		alias_file = NULL;
		return 0;
	}
	/* a FIFO or device in its place must not hang the refresh */
	if (input_fopen(alias_file, ROOT_TABLE_MAX, &f) < 0)
		return 0;
	/* "alias PATTERN MODULE" */
	while (getline(&line, &cap, f) > 0) {
		char *pat, *mod, *save = NULL;

		if (strncmp(line, "alias ", 6) != 0)
			continue;
		pat = strtok_r(line + 6, " \t\n", &save);
		mod = strtok_r(NULL, " \t\n", &save);
		if (!pat || !mod || strcmp(mod, module) != 0)
			continue;
		ret->n_aliases++;
		if (kt_alias_is_percpu(pat)) {
			if (!ret->n_percpu_aliases)
				snprintf(ret->percpu_example, sizeof(ret->percpu_example),
					 "%s", pat);
			ret->n_percpu_aliases++;
		}
	}
	free(line);
	ret->ncpus = kt_system_count_cpus(st, ic->trace_ncpus, &cpus_from);
	if (ret->n_percpu_aliases && ret->ncpus && ce) {
		const struct cost_module *cm = catalog_cost_module(st->cat, ce);
		struct percpu_risk risk;

		if (cm) {
			/* udev's libkmod passes MODULE_INIT_COMPRESSED_FILE where the kernel can */
			percpu_risk_estimate(&st->k, cm, ret->ncpus, false,
					     st->k.in_kernel_decompress, &risk);
			ret->has_risk = true;
			ret->risk_worst = risk.worst;
			ret->risk_merged = risk.merged;
		}
	}
	return 0;
}
