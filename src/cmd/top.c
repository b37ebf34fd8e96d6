/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cost/catalog.h"
#include "cost/cost.h"
#include "cost/estimate.h"
#include "cost/loadpath.h"
#include "cost/modmem.h"
#include "cost/percpu.h"
#include "ledger/klog-findings.h"
#include "ledger/ledger.h"
#include "output/color.h"
#include "sources/dmesg-text.h"
#include "sources/kconfig.h"
#include "sources/kmsg.h"
#include "sources/meminfo.h"
#include "sources/modindex.h"
#include "sources/moduledir.h"
#include "sources/proc-modules.h"
#include "sources/sys-module.h"
#include "sources/trace/text.h"
#include "sources/trace/order.h"
#include "sources/vmallocinfo.h"
#include "util/array.h"
#include "util/escape.h"
#include "util/io.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/parse-num.h"
#include "util/root.h"
#include "views/top/loop.h"
#include "views/top/model.h"
#include "views/top/term-curses.h"
#include "cmd/cmd.h"
#include "session/collect.h"
#include "session/boot-capture.h"
#include "session/live.h"

/*
 * kmodtop top: wires a sampler (a replayed capture, or the system's files polled at
 * every refresh, with on the running system the live collection of cmd/record.c) to
 * the top view's loop. The view itself knows no source: it takes struct top_sample
 * (views/top/model.h).
 */

static void top_usage(FILE *f)
{
	fputs("Usage: kmodtop [OPTIONS] top [--replay DIR [--speed X]] [OPTIONS]\n"
	      "\n"
	      "Show module loads as they happen: which modules are loaded again and again,\n"
	      "which loads fail, who asks, and what it costs in vmalloc space. Without\n"
	      "--replay, reads ROOT/proc at every refresh (ROOT is / or --root); on the\n"
	      "running system it also traces loads live, as 'report --duration' (root).\n"
	      "\n"
	      "Options:\n"
	      "      --replay DIR      replay a captured root: its trace and kernel log by\n"
	      "                        their timestamps, capture/snapshots/ on the way\n"
	      "      --speed X         replay X times as fast as captured (default 1;\n"
	      "                        0: everything at once)\n"
	      "  -d, --delay N         refresh every N tenths of a second (default 15)\n"
	      "  -s, --sort-key KEY    sort the module table by KEY ('--sort-key help' lists\n"
	      "                        them; default wasted)\n"
	      "  -F, --filter STR      show only modules matching STR (a|b: either)\n"
	      "      --measure         show measured bytes (vmap allocations in the trace;\n"
	      "                        live: traced with their stacks)\n"
	      "  -C, --no-color        no colour (also NO_COLOR, --color=never)\n"
	      "  -U, --no-unicode      ASCII only: no Unicode sparklines and tree lines\n"
	      "  -M, --no-mouse        leave the mouse to the terminal\n"
	      "  -n, --iterations N    exit after N refreshes\n"
	      "  -b, --batch           no terminal: print each refresh as text (with -j: one\n"
	      "                        JSON line per refresh; --color=always: coloured)\n"
	      "      --size WxH        the frame size of --batch (default 80x24, or the\n"
	      "                        terminal's)\n"
	      "      --no-cache        analyse module files afresh, without the cache in\n"
	      "                        $XDG_CACHE_HOME/kmodtop\n"
	      "  -h, --help            show this help\n"
	      "\n"
	      "Keys: F1 or ? help, / search, \\ filter, < > sort, I invert, Tab views, t tree,\n"
	      "Enter detail, Z or space pause, Ctrl-L redraw, q quit.\n"
	      "The global options (--root, --kernel-release, --moduledir, --color) may also\n"
	      "follow the command. Exit status: 0 done, 1 an error, 2 bad command line, 4 the\n"
	      "kernel has no module support, 128+N ended by signal N.\n",
	      f);
}

enum {
	OPT_REPLAY = OPT_CMD_BASE,
	OPT_SPEED,
	OPT_MEASURE,
	OPT_SIZE,
	OPT_NO_CACHE,
};

/* --- what every sampler collects once --------------------------------------------------- */

struct top_static {
	struct kt_root *root;
	char release[256];
	bool has_release;
	struct loadpath lp;
	struct kconfig *kc;
	char compression[32];
	bool sysfs_compression;
	char *moduledir;
	struct moduledir_stats mds;
	bool has_moduledir;
	struct modindex *idx;
	struct catalog *cat; /* module files for the cost model */
	struct cost_kernel k;
	bool use_cache;
	char decompress[64];
	bool modstats;
};

static void top_static_done(struct top_static *st)
{
	catalog_free(st->cat);
	kconfig_free(st->kc);
	modindex_free(st->idx);
	free(st->moduledir);
	root_free(st->root);
}

static int read_release(struct top_static *st, const struct global_opts *g)
{
	_cleanup_free_ char *buf = NULL;
	struct utsname u;
	size_t len;

	if (g->release) {
		snprintf(st->release, sizeof(st->release), "%s", g->release);
		return 0;
	}
	if (root_read_file(st->root, "proc/sys/kernel/osrelease", 255, &buf, &len) == 0) {
		while (len && buf[len - 1] && strchr("\n\r \t", buf[len - 1]))
			buf[--len] = '\0';
		if (len && !memchr(buf, '\0', len) && !strchr(buf, '/')) {
			snprintf(st->release, sizeof(st->release), "%s", buf);
			return 0;
		}
	}
	if (root_is_live_system(st->root) && uname(&u) == 0) {
		snprintf(st->release, sizeof(st->release), "%s", u.release);
		return 0;
	}
	return -ENOENT;
}

/*
 * A root file that is there but could not be used, as report words it:
 * "'proc/vmallocinfo':2: size is not a number, ignoring". A missing one is no news.
 */
static void warn_unusable(const char *path, int r, const struct kt_err *e)
{
	if (r == -ENOENT || r == -ENOMEM)
		return;
	if (e->what && e->path[0] && e->line)
		log_warn("'%s':%u: %s, ignoring", e->path, e->line, e->what);
	else if (e->what && e->path[0])
		log_warn("'%s': %s, ignoring", e->path, e->what);
	else
		log_warn("'%s': %s, ignoring", path, strerror(-r));
}

static int top_static_collect(struct top_static *st, const char *dir,
			      const struct global_opts *g)
{
	struct kt_err e = { 0 };
	const char *files;
	bool in_kernel;
	int r;

	r = root_new(dir, &st->root);
	if (r < 0) {
		log_error("'%s': %s", dir, strerror(-r));
		return r;
	}
	st->has_release = read_release(st, g) == 0;
	if (!st->has_release)
		log_warn(
			"kernel release unknown (no proc/sys/kernel/osrelease under '%s'); "
			"use --kernel-release",
			dir);
	loadpath_from_release(st->has_release ? st->release : NULL, &st->lp);
	r = kconfig_read(st->root, st->has_release ? st->release : NULL, &st->kc, &e);
	if (r < 0)
		warn_unusable("kernel configuration", r, &e);
	memset(&e, 0, sizeof(e));
	st->sysfs_compression =
		sys_module_compression_read(st->root, st->compression,
					    sizeof(st->compression), &e) == 0;
	if (g->moduledir) {
		st->moduledir = strdup(g->moduledir);
	} else if (st->has_release) {
		char rel[300];

		snprintf(rel, sizeof(rel), "lib/modules/%s", st->release);
		if (root_abspath(st->root, rel, &st->moduledir) < 0)
			st->moduledir = NULL;
	}
	if (st->moduledir) {
		st->has_moduledir = moduledir_scan(st->moduledir, &st->mds) == 0;
		if (st->has_moduledir)
			collect_modindex_new(st->root, st->moduledir, &st->idx);
		if (st->has_moduledir &&
		    catalog_new(st->moduledir, st->use_cache, NULL, &st->cat) < 0)
			st->cat = NULL;
		collect_note_cache(st->cat);
		collect_catalog_warnings(st->cat);
	}
	st->modstats = root_exists(st->root, "sys/kernel/debug/modules/stats");

	/* the same judgement as the report's "in-kernel decompression" */
	in_kernel = st->sysfs_compression ||
		    (st->kc && kconfig_enabled(st->kc, "CONFIG_MODULE_DECOMPRESS") &&
		     st->lp.decompress_capable);
	files = st->has_moduledir ? moduledir_compression(&st->mds) : NULL;
	/* the cost model's view of the kernel, as the report sets it up */
	st->k.lp = st->lp;
	st->k.page_size = 4096;
	st->k.in_kernel_decompress =
		st->sysfs_compression ||
		(st->kc && kconfig_enabled(st->kc, "CONFIG_MODULE_DECOMPRESS"));
	if (in_kernel)
		snprintf(st->decompress, sizeof(st->decompress), "in-kernel (%s)",
			 st->sysfs_compression ? st->compression
			 : files	       ? files
					       : "?");
	else if (files && strcmp(files, "none") != 0)
		snprintf(st->decompress, sizeof(st->decompress), "userspace (%s files)",
			 files);
	else if (files)
		snprintf(st->decompress, sizeof(st->decompress), "none (.ko files)");
	else
		snprintf(st->decompress, sizeof(st->decompress), "unknown");
	return 0;
}

/* vmalloc figures of one vmallocinfo: what VmallocUsed counts, and the module areas */
struct vm_figures {
	uint64_t used, modules;
	size_t areas;
};

/* one area's share of the figures */
static void vm_area_figures(const struct vmalloc_area *a, uint64_t *used, uint64_t *modules)
{
	/* VmallocUsed is vmalloc_nr_pages: the pages vmalloc() backed its areas with */
	*used = a->has_pages ? a->pages * 4096 : 0;
	*modules = area_classify(a) == AREA_MODULE ? a->size : 0;
}

static void vm_figures_of(const struct vmallocinfo *vi, struct vm_figures *ret)
{
	memset(ret, 0, sizeof(*ret));
	for (size_t i = 0; i < vi->n; i++) {
		uint64_t u, m;

		vm_area_figures(&vi->areas[i], &u, &m);
		ret->used += u;
		ret->modules += m;
	}
	ret->areas = vi->n;
}

/* --- the load history: trace and kernel log into a ledger, with a timeline ------------ */

enum tl_kind {
	TL_LOAD,
	TL_FREE,
};

struct tl_event {
	double ts;
	enum tl_kind kind;
	size_t mod; /* index into the history's module names */
};

struct history {
	struct ledger *ledger;
	struct cost_result *cost;
	struct ktrace_stats trace_stats;
	bool has_trace, has_log;
	const char *log_format;
	char *trace_path, *log_path;
	double t0, t_end;
	bool have_t0;
	/* module_load/module_free events, in trace order */
	struct tl_event *tl;
	size_t n_tl, cap_tl;
	char **names; /* every module name the trace or a snapshot named */
	size_t n_names, cap_names;
	size_t *name_slots; /* open addressing: index + 1, 0 empty */
	size_t cap_slots;
	/* LOST events: when, and how many */
	double *lost_ts;
	uint64_t *lost_n;
	size_t n_lost, cap_lost;
	const struct proc_modules *pm; /* final, for live_at_start */
};

static void history_done(struct history *h)
{
	cost_result_free(h->cost);
	ledger_free(h->ledger);
	free(h->tl);
	for (size_t i = 0; i < h->n_names; i++)
		free(h->names[i]);
	free(h->names);
	free(h->name_slots);
	free(h->lost_ts);
	free(h->lost_n);
	free(h->trace_path);
	free(h->log_path);
}

static size_t name_hash(const char *name, size_t len)
{
	size_t h = 5381;

	for (size_t i = 0; i < len; i++)
		h = h * 33 + (unsigned char)name[i];
	return h;
}

static int history_rehash(struct history *h)
{
	size_t cap = h->cap_slots ? h->cap_slots * 2 : 256;
	size_t *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < h->n_names; i++) {
		size_t j = name_hash(h->names[i], strlen(h->names[i])) & (cap - 1);

		while (slots[j])
			j = (j + 1) & (cap - 1);
		slots[j] = i + 1;
	}
	free(h->name_slots);
	h->name_slots = slots;
	h->cap_slots = cap;
	return 0;
}

/* The index of a module name, added when new: a storm names the same few thousand. */
static long history_name(struct history *h, const char *name, size_t len)
{
	size_t j;

	if ((h->n_names + 1) * 2 > h->cap_slots && history_rehash(h) < 0)
		return -ENOMEM;
	j = name_hash(name, len) & (h->cap_slots - 1);
	for (; h->name_slots[j]; j = (j + 1) & (h->cap_slots - 1)) {
		const char *n = h->names[h->name_slots[j] - 1];

		if (strlen(n) == len && memcmp(n, name, len) == 0)
			return (long)(h->name_slots[j] - 1);
	}
	if (array_grow((void **)&h->names, h->n_names, &h->cap_names, sizeof(char *)) < 0)
		return -ENOMEM;
	h->names[h->n_names] = strndup(name, len);
	if (!h->names[h->n_names])
		return -ENOMEM;
	h->name_slots[j] = h->n_names + 1;
	return (long)h->n_names++;
}

/* Each trace event, before the ledger sees it: the replay's clock and timeline */
static int history_on_event(void *userdata, const struct ktrace_event *ev)
{
	struct history *h = userdata;

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
		long mi = history_name(h, n->s, n->len);

		if (mi < 0)
			return (int)mi;
		if (array_grow((void **)&h->tl, h->n_tl, &h->cap_tl, sizeof(*h->tl)) < 0)
			return -ENOMEM;
		h->tl[h->n_tl++] = (struct tl_event){
			ev->ts, ev->kind == KTRACE_EV_MODULE_LOAD ? TL_LOAD : TL_FREE,
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
static void warn_optional(const char *rel, int r)
{
	if (r != -ENOENT && !root_refusal_text(r))
		log_warn("'%s': %s, ignoring", rel, strerror(-r));
}

/* Opens the root's trace and kernel log, as `report` does by default under --root. */
static int history_read(struct history *h, struct top_static *st, struct collect_lookup *lk)
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
			warn_optional(trace_files[i], r);
	}
	for (size_t i = 0; log_files[i] && !lf; i++) {
		r = root_fopen(st->root, log_files[i], &lf);
		if (r == 0)
			h->log_path = strdup(log_files[i]);
		else
			warn_optional(log_files[i], r);
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

/* --- module detail: the file, its aliases ------------------------------------------ */

struct info_ctx {
	struct top_static *st;
	unsigned int trace_ncpus; /* from the trace header, 0 if none */
};

/* CPUs of the root's machine: its sysfs, else the trace header, else this one (live) */
static unsigned int count_cpus(const struct info_ctx *ic)
{
	char path[64];
	unsigned int n;

	for (n = 0; n < 65536; n++) {
		snprintf(path, sizeof(path), "sys/devices/system/cpu/cpu%u", n);
		if (!root_exists(ic->st->root, path))
			break;
	}
	if (n)
		return n;
	if (ic->trace_ncpus)
		return ic->trace_ncpus;
	if (root_is_live_system(ic->st->root)) {
		long c = sysconf(_SC_NPROCESSORS_CONF);

		return c > 0 ? (unsigned int)c : 0;
	}
	return 0;
}

static bool alias_is_percpu(const char *pattern)
{
	/* Petr Pavlu's grep for aliases every CPU matches (peers.md P2) */
	return strncmp(pattern, "cpu:type", 8) == 0 || strstr(pattern, "ACPI0007") ||
	       strstr(pattern, "LNXCPU");
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

static int symbol_module(void *userdata, const char *symbol, char *buf, size_t bufsz)
{
	struct info_ctx *ic = userdata;
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

static int module_info(void *userdata, const char *module, struct top_module_info *ret)
{
	struct info_ctx *ic = userdata;
	struct top_static *st = ic->st;
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
		if (alias_is_percpu(pat)) {
			if (!ret->n_percpu_aliases)
				snprintf(ret->percpu_example, sizeof(ret->percpu_example),
					 "%s", pat);
			ret->n_percpu_aliases++;
		}
	}
	free(line);
	ret->ncpus = count_cpus(ic);
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

/* --- the replay sampler ----------------------------------------------------------------- */

struct snapshot {
	double ts;
	char *name;	      /* "boot", "after-live-storm", "final" */
	struct vm_figures vm; /* has_vm */
	bool has_vm;
	struct proc_modules *pm; /* NULL: no modules snapshot at this time */
};

struct replay {
	struct top_static *st;
	struct history h;
	struct collect_lookup lk;
	struct info_ctx ic;
	struct proc_modules *final_pm;
	struct meminfo mi;
	bool has_mi;
	struct snapshot *snaps;
	size_t n_snaps;
	size_t *done; /* attempts by completion */
	size_t n_done_all;
	double *done_ts;
	double speed, t;
	bool started;
	size_t cur_done, cur_req, cur_klog, cur_tl, cur_snap, cur_lost, cur_step;
	unsigned int idle; /* refreshes in a row in which nothing happened */
	uint64_t lost;
	struct top_modstate *mods; /* one per history name */
	size_t n_mods;
	struct top_source sources[8];
	struct top_sample s;
	char vm_from[96];
};

static int cmp_done(const void *pa, const void *pb, void *ctx)
{
	const struct replay *rp = ctx;
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	double ta = rp->done_ts[a], tb = rp->done_ts[b];

	if (ta != tb)
		return ta < tb ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* "live-storm" names the step whose name has those words: "storm-live-xfs" */
static bool words_in(const char *words, const char *step)
{
	char buf[128], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", words);
	for (char *w = strtok_r(buf, "-_", &save); w; w = strtok_r(NULL, "-_", &save)) {
		char sb[128], *s2 = NULL;
		bool found = false;

		snprintf(sb, sizeof(sb), "%s", step);
		for (char *x = strtok_r(sb, "-_", &s2); x && !found;
		     x = strtok_r(NULL, "-_", &s2))
			found = strcmp(w, x) == 0;
		if (!found)
			return false;
	}
	return true;
}

/*
 * When a snapshot in capture/snapshots/ was taken: "boot" before the trace, and
 * "after-WORDS" at the start of the step after the step named by WORDS (the capture
 * scripts write them at the end of that step). NAN when the name says nothing.
 */
static double snapshot_time(const struct replay *rp, const char *name)
{
	const struct ledger *l = rp->h.ledger;

	if (strcmp(name, "boot") == 0)
		return -INFINITY;
	if (strncmp(name, "after-", 6) != 0 || !l)
		return NAN;
	for (size_t i = 0; i < l->n_steps; i++)
		if (words_in(name + 6, l->steps[i].name))
			return i + 1 < l->n_steps ? l->steps[i + 1].ts : rp->h.t_end;
	return NAN;
}

static int add_snapshot(struct replay *rp, double ts, const char *name,
			struct snapshot **ret)
{
	struct snapshot *ns;

	for (size_t i = 0; i < rp->n_snaps; i++)
		if (strcmp(rp->snaps[i].name, name) == 0) {
			*ret = &rp->snaps[i];
			return 0;
		}
	ns = realloc(rp->snaps, (rp->n_snaps + 1) * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	rp->snaps = ns;
	ns = &rp->snaps[rp->n_snaps];
	memset(ns, 0, sizeof(*ns));
	ns->ts = ts;
	ns->name = strdup(name);
	if (!ns->name)
		return -ENOMEM;
	rp->n_snaps++;
	*ret = ns;
	return 0;
}

static int cmp_snap(const void *pa, const void *pb)
{
	const struct snapshot *a = pa, *b = pb;

	return a->ts < b->ts ? -1 : a->ts > b->ts;
}

static int read_snapshots(struct replay *rp)
{
	_cleanup_free_ char *dir = NULL;
	DIR *d;
	struct dirent *de;
	int r = 0;

	if (root_abspath(rp->st->root, "capture/snapshots", &dir) < 0)
		return 0;
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		bool vm = strncmp(de->d_name, "vmallocinfo.", 12) == 0;
		bool mods = strncmp(de->d_name, "modules.", 8) == 0;
		const char *name = vm ? de->d_name + 12 : de->d_name + 8;
		char rel[300];
		struct snapshot *sn;
		struct kt_err e = { 0 };
		FILE *f;
		double ts;

		if (!vm && !mods)
			continue;
		ts = snapshot_time(rp, name);
		if (isnan(ts)) {
			log_warn(
				"'capture/snapshots/%s': no step named by '%s', ignoring",
				de->d_name, name);
			continue;
		}
		snprintf(rel, sizeof(rel), "capture/snapshots/%s", de->d_name);
		if (root_fopen(rp->st->root, rel, &f) < 0)
			continue;
		r = add_snapshot(rp, ts, name, &sn);
		if (r < 0) {
			fclose(f);
			break;
		}
		if (vm) {
			struct vmallocinfo *vi = NULL;

			int rv = vmallocinfo_read_file(f, rel, &vi, &e);

			if (rv == 0) {
				vm_figures_of(vi, &sn->vm);
				sn->has_vm = true;
			} else {
				warn_unusable(rel, rv == -ENOENT ? -EIO : rv, &e);
			}
			vmallocinfo_free(vi);
		} else {
			int rm = proc_modules_read_file(f, rel, &sn->pm, &e);

			if (rm < 0) {
				warn_unusable(rel, rm == -ENOENT ? -EIO : rm, &e);
				sn->pm = NULL;
			}
		}
		fclose(f);
	}
	closedir(d);
	qsort(rp->snaps, rp->n_snaps, sizeof(*rp->snaps), cmp_snap);
	return r;
}

static void replay_free(struct replay *rp)
{
	for (size_t i = 0; i < rp->n_snaps; i++) {
		free(rp->snaps[i].name);
		proc_modules_free(rp->snaps[i].pm);
	}
	free(rp->snaps);
	free(rp->done);
	free(rp->done_ts);
	free(rp->mods);
	proc_modules_free(rp->final_pm);
	history_done(&rp->h);
}

/* Sets the module states from a proc/modules snapshot. */
static void apply_modules(struct replay *rp, const struct proc_modules *pm)
{
	for (size_t i = 0; i < rp->n_mods; i++) {
		rp->mods[i].present = false;
		rp->mods[i].holders = NULL;
		rp->mods[i].n_holders = 0;
	}
	for (size_t k = 0; k < pm->n; k++) {
		const struct proc_module *pmod = &pm->mods[k];
		/* every snapshot's names were added when it was read: found, not added */
		long i = history_name(&rp->h, pmod->name, strlen(pmod->name));

		if (i < 0 || (size_t)i >= rp->n_mods)
			continue;
		rp->mods[i].present = true;
		rp->mods[i].state = pmod->state;
		rp->mods[i].has_size = true;
		rp->mods[i].size = pmod->size;
		rp->mods[i].holders = (const char *const *)pmod->holders;
		rp->mods[i].n_holders = pmod->n_holders;
	}
}

static int replay_new(struct top_static *st, double speed, bool measure,
		      struct replay **ret)
{
	struct replay *rp = calloc(1, sizeof(*rp));
	struct kt_err e = { 0 };
	const struct snapshot *first_mods = NULL;
	size_t ns = 0;
	int r;

	if (!rp)
		return -ENOMEM;
	rp->st = st;
	rp->speed = speed;
	r = proc_modules_read(st->root, &rp->final_pm, &e);
	if (r < 0 && r != -ENOENT) {
		log_kt_err(&e, r);
		goto fail;
	}
	if (r == 0)
		collect_warn_repeated("proc/modules", rp->final_pm->n_repeated,
				      rp->final_pm->repeated_line);
	memset(&e, 0, sizeof(e));
	r = meminfo_read(st->root, &rp->mi, &e);
	rp->has_mi = r == 0;
	if (r < 0)
		warn_unusable("proc/meminfo", r, &e);
	rp->lk.idx = st->idx;
	rp->lk.pm = rp->final_pm;
	rp->h.pm = rp->final_pm;
	r = history_read(&rp->h, st, &rp->lk);
	if (r < 0)
		goto fail;
	if (!rp->h.has_trace && !rp->h.has_log)
		log_warn("'%s': no trace (sys/kernel/tracing/trace) and no kernel log "
			 "(capture/kmsg.raw, capture/dmesg.txt): nothing to replay",
			 root_dir(st->root));
	r = read_snapshots(rp);
	if (r < 0)
		goto fail;
	/* the final state, at the end of the capture */
	{
		struct snapshot *fin;
		struct vmallocinfo *vi = NULL;

		r = add_snapshot(rp, rp->h.t_end, "final", &fin);
		if (r < 0)
			goto fail;
		memset(&e, 0, sizeof(e));
		r = vmallocinfo_read(st->root, &vi, &e);
		if (r == 0) {
			collect_warn_repeated("proc/vmallocinfo", vi->n_repeated,
					      vi->repeated_line);
			vm_figures_of(vi, &fin->vm);
			fin->has_vm = true;
		} else {
			warn_unusable("proc/vmallocinfo", r, &e);
		}
		r = 0;
		vmallocinfo_free(vi);
		fin->ts = rp->h.t_end;
		qsort(rp->snaps, rp->n_snaps, sizeof(*rp->snaps), cmp_snap);
	}
	for (size_t i = 0; i < rp->n_snaps; i++)
		for (size_t k = 0; rp->snaps[i].pm && k < rp->snaps[i].pm->n; k++) {
			const char *n = rp->snaps[i].pm->mods[k].name;

			if (history_name(&rp->h, n, strlen(n)) < 0) {
				r = -ENOMEM;
				goto fail;
			}
		}
	for (size_t k = 0; rp->final_pm && k < rp->final_pm->n; k++) {
		const char *n = rp->final_pm->mods[k].name;

		if (history_name(&rp->h, n, strlen(n)) < 0) {
			r = -ENOMEM;
			goto fail;
		}
	}
	rp->mods = calloc(rp->h.n_names ? rp->h.n_names : 1, sizeof(*rp->mods));
	if (!rp->mods) {
		r = -ENOMEM;
		goto fail;
	}
	rp->n_mods = rp->h.n_names;
	for (size_t i = 0; i < rp->h.n_names; i++)
		rp->mods[i].name = rp->h.names[i];
	/* sizes: the last proc/modules that lists the module */
	if (rp->final_pm)
		apply_modules(rp, rp->final_pm);
	for (size_t i = 0; i < rp->n_snaps; i++)
		if (rp->snaps[i].pm && !first_mods)
			first_mods = &rp->snaps[i];
	/*
	 * The modules at the start: a snapshot taken before the trace, else the final list
	 * with the trace's loads and unloads undone.
	 */
	if (first_mods && first_mods->ts <= rp->h.t0) {
		for (size_t i = 0; i < rp->h.n_names; i++) {
			rp->mods[i].present = false;
			rp->mods[i].holders = NULL;
			rp->mods[i].n_holders = 0;
		}
		for (size_t k = 0; k < first_mods->pm->n; k++) {
			const struct proc_module *pmod = &first_mods->pm->mods[k];
			long i = history_name(&rp->h, pmod->name, strlen(pmod->name));

			if (i >= 0 && (size_t)i < rp->n_mods) {
				rp->mods[i].present = true;
				rp->mods[i].holders = (const char *const *)pmod->holders;
				rp->mods[i].n_holders = pmod->n_holders;
			}
		}
	} else {
		for (size_t i = rp->h.n_tl; i-- > 0;)
			rp->mods[rp->h.tl[i].mod].present = rp->h.tl[i].kind == TL_FREE;
	}

	/* attempts in the order they end: an attempt shows up when its syscall returned */
	if (rp->h.ledger && rp->h.ledger->n_attempts) {
		const struct ledger *l = rp->h.ledger;

		rp->done = malloc(l->n_attempts * sizeof(*rp->done));
		rp->done_ts = malloc(l->n_attempts * sizeof(*rp->done_ts));
		if (!rp->done || !rp->done_ts) {
			r = -ENOMEM;
			goto fail;
		}
		for (size_t i = 0; i < l->n_attempts; i++) {
			rp->done[i] = i;
			rp->done_ts[i] = l->attempts[i].complete ? l->attempts[i].end
								 : rp->h.t_end;
		}
		qsort_r(rp->done, l->n_attempts, sizeof(*rp->done), cmp_done, rp);
		rp->n_done_all = l->n_attempts;
	}

	if (rp->h.has_trace)
		rp->sources[ns++] = (struct top_source){ "trace", TOP_SRC_REPLAY, NULL };
	else
		rp->sources[ns++] =
			(struct top_source){ "trace", TOP_SRC_MISSING, "not captured" };
	if (rp->h.has_log)
		rp->sources[ns++] =
			(struct top_source){ rp->h.log_format, TOP_SRC_REPLAY, NULL };
	else
		rp->sources[ns++] =
			(struct top_source){ "kmsg", TOP_SRC_MISSING, "not captured" };
	rp->sources[ns++] = (struct top_source){ "vmallocinfo", TOP_SRC_REPLAY, NULL };
	rp->sources[ns++] =
		rp->final_pm ? (struct top_source){ "modules", TOP_SRC_REPLAY, NULL }
			     : (struct top_source){ "modules", TOP_SRC_MISSING, NULL };
	if (!st->idx)
		rp->sources[ns++] =
			(struct top_source){ "module index", TOP_SRC_MISSING, NULL };
	if (!st->modstats)
		rp->sources[ns++] =
			(struct top_source){ "module_stats", TOP_SRC_MISSING, NULL };
	rp->s.sources = rp->sources;
	rp->s.n_sources = ns;

	rp->ic.st = st;
	rp->ic.trace_ncpus =
		rp->h.trace_stats.ncpus > 0 ? (unsigned int)rp->h.trace_stats.ncpus : 0;
	rp->s.release = st->has_release ? st->release : NULL;
	rp->s.lp = &st->lp;
	rp->s.decompress = st->decompress;
	rp->s.ledger = rp->h.ledger;
	rp->s.cost = rp->h.cost ? rp->h.cost->att : NULL;
	rp->s.done = rp->done;
	rp->s.replay = true;
	rp->s.speed = speed;
	rp->s.replay_start = rp->h.t0;
	rp->s.replay_end = rp->h.t_end;
	rp->s.start = rp->h.t0;
	/* measured bytes need the vmap allocations in the trace: a capture has them or not */
	rp->s.measured = rp->h.ledger && rp->h.ledger->saw_vmap_events;
	rp->s.measured_why = "no vmap events in the trace";
	(void)measure;
	rp->s.module_info = module_info;
	rp->s.symbol_module = symbol_module;
	rp->s.userdata = &rp->ic;
	rp->t = rp->h.t0;
	*ret = rp;
	return 0;
fail:
	replay_free(rp);
	free(rp);
	return r < 0 ? r : -EINVAL;
}

/*
 * Idle refreshes a replay shows in a row before it jumps over the rest of the idle
 * stretch: one trace line at 999999 s must not cost 666,665 frames.
 */
#define REPLAY_IDLE_REFRESHES 5

/* The capture time of the next thing the replay shows after rp->t; t_end at the latest. */
static double replay_next_ts(const struct replay *rp)
{
	const struct ledger *l = rp->h.ledger;
	double next = rp->h.t_end;

#define NEXT_AT(ts)                                  \
	do {                                         \
		double ts_ = (ts);                   \
		if (ts_ > rp->t && ts_ < next)       \
			next = ts_;                  \
	} while (0)
	if (rp->cur_done < rp->n_done_all)
		NEXT_AT(rp->done_ts[rp->done[rp->cur_done]]);
	if (rp->cur_tl < rp->h.n_tl)
		NEXT_AT(rp->h.tl[rp->cur_tl].ts);
	if (rp->cur_snap < rp->n_snaps)
		NEXT_AT(rp->snaps[rp->cur_snap].ts);
	if (rp->cur_lost < rp->h.n_lost)
		NEXT_AT(rp->h.lost_ts[rp->cur_lost]);
	if (l && rp->cur_req < l->n_requests)
		NEXT_AT(l->requests[rp->cur_req].ts);
	/* a finding without a clock comes at the end: t_end */
	if (l && rp->cur_klog < l->n_klog && !isnan(l->klog[rp->cur_klog].ts))
		NEXT_AT(l->klog[rp->cur_klog].ts);
	if (l && rp->cur_step < l->n_steps)
		NEXT_AT(l->steps[rp->cur_step].ts);
#undef NEXT_AT
	return next;
}

static int replay_sample(void *userdata, double dt, const struct top_sample **ret)
{
	struct replay *rp = userdata;
	const struct ledger *l = rp->h.ledger;
	struct top_sample *s = &rp->s;
	const struct snapshot *vm = NULL;
	size_t before = rp->cur_done + rp->cur_req + rp->cur_klog + rp->cur_tl +
			rp->cur_snap + rp->cur_lost + rp->cur_step;
	double step = dt * rp->speed;

	s->skipped = 0;
	if (rp->speed <= 0) {
		rp->t = rp->h.t_end;
	} else {
		double next = replay_next_ts(rp);

		/*
		 * After a few idle refreshes, whole refreshes up to the one that shows the
		 * next event are skipped: the clock stays on its grid of steps.
		 */
		if (rp->idle >= REPLAY_IDLE_REFRESHES && step > 0 && next > rp->t + step) {
			double k = ceil((next - rp->t) / step) - 1;

			s->skipped = k * step;
			rp->t += s->skipped;
		}
		rp->t += step;
	}
	if (rp->t >= rp->h.t_end)
		rp->t = rp->h.t_end;
	s->finished = rp->t >= rp->h.t_end;
	s->now = rp->t;

	while (rp->cur_done < rp->n_done_all &&
	       rp->done_ts[rp->done[rp->cur_done]] <= rp->t)
		rp->cur_done++;
	s->n_done = rp->cur_done;
	if (l) {
		while (rp->cur_req < l->n_requests &&
		       l->requests[rp->cur_req].ts <= rp->t)
			rp->cur_req++;
		/* findings without a clock, and those after the trace, come at the end */
		while (rp->cur_klog < l->n_klog &&
		       (s->finished || (!isnan(l->klog[rp->cur_klog].ts) &&
					l->klog[rp->cur_klog].ts <= rp->t)))
			rp->cur_klog++;
		s->n_requests = rp->cur_req;
		s->n_klog = rp->cur_klog;
		while (rp->cur_step < l->n_steps && l->steps[rp->cur_step].ts <= rp->t)
			rp->cur_step++;
		s->step = rp->cur_step ? l->steps[rp->cur_step - 1].name : NULL;
	}
	while (rp->cur_lost < rp->h.n_lost && rp->h.lost_ts[rp->cur_lost] <= rp->t)
		rp->lost += rp->h.lost_n[rp->cur_lost++];
	s->lost_events = rp->lost;

	/* modules: the trace's loads and unloads, resynchronised by snapshots */
	while (rp->cur_tl < rp->h.n_tl && rp->h.tl[rp->cur_tl].ts <= rp->t) {
		const struct tl_event *e = &rp->h.tl[rp->cur_tl++];

		rp->mods[e->mod].present = e->kind == TL_LOAD;
		rp->mods[e->mod].state = MODULE_LIVE;
	}
	while (rp->cur_snap < rp->n_snaps && rp->snaps[rp->cur_snap].ts <= rp->t) {
		const struct snapshot *sn = &rp->snaps[rp->cur_snap++];

		if (sn->pm && sn->ts > rp->h.t0)
			apply_modules(rp, sn->pm);
	}
	if (s->finished && rp->final_pm)
		apply_modules(rp, rp->final_pm);
	s->mods = rp->mods;
	s->n_mods = rp->n_mods;

	for (size_t i = 0; i < rp->n_snaps; i++)
		if (rp->snaps[i].has_vm && rp->snaps[i].ts <= rp->t)
			vm = &rp->snaps[i];
	s->has_vmalloc = vm && rp->has_mi && rp->mi.has_vmalloc_total;
	if (vm) {
		bool final = strcmp(vm->name, "final") == 0;

		/* at the end, meminfo's own VmallocUsed; before, the snapshot's pages */
		s->vmalloc_used = final && rp->mi.has_vmalloc_used ? rp->mi.vmalloc_used
								   : vm->vm.used;
		s->vmalloc_modules = vm->vm.modules;
		s->vmalloc_total = rp->mi.vmalloc_total;
		snprintf(rp->vm_from, sizeof(rp->vm_from), "%s",
			 final ? "proc/vmallocinfo" : vm->name);
		s->vmalloc_from = rp->vm_from;
	}
	if (rp->cur_done + rp->cur_req + rp->cur_klog + rp->cur_tl + rp->cur_snap +
		    rp->cur_lost + rp->cur_step ==
	    before)
		rp->idle++;
	else
		rp->idle = 0;
	*ret = s;
	return 0;
}

/* --- the polling sampler: ROOT/proc at every refresh ------------------------------- */

struct poll {
	struct top_static *st;
	struct history h;
	struct collect_lookup lk;
	struct info_ctx ic;
	/* a live system: kmodtop's tracefs instance and /dev/kmsg, spooled */
	struct live_session *lv;
	bool measure;
	struct collect_stream *cs;	/* the spools, read as they grow, into one ledger */
	size_t n_updates;
	double update_secs, update_max;
	size_t *ldone;			/* settled complete attempts, in the order they settled */
	size_t n_ldone, cap_ldone;
	size_t n_listed;		/* settled attempts looked at for ldone */
	size_t trace_src, kmsg_src;	/* their entries in sources[] */
	char trace_why[80], kmsg_why[80];
	struct proc_modules *pm, *first_pm;
	char *pm_text; /* what pm was parsed from */
	size_t pm_len;
	bool pm_valid;
	struct vm_figures vm;
	bool vm_valid;
	/* the first failed read of each (said when the terminal is back): 0 when none */
	int vm_r, mi_r;
	struct kt_err vm_err, mi_err;
	/* the last vmallocinfo, re-read where it changed, and each area's figures */
	struct vmallocinfo *vi;
	struct vm_area_fig {
		uint64_t used, modules;
	} *vm_fig;
	size_t n_vm_fig;
	struct top_modstate *mods;
	size_t cap_mods;
	size_t *done;
	struct top_source sources[8];
	struct top_sample s;
	double t;
};

static double monotonic_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void poll_free(struct poll *p)
{
	/* first: the instance must go whatever else fails */
	p->lv = live_free(p->lv);
	collect_stream_free(p->cs);
	free(p->ldone);
	vmallocinfo_free(p->vi);
	free(p->vm_fig);
	free(p->pm_text);
	proc_modules_free(p->pm);
	proc_modules_free(p->first_pm);
	free(p->mods);
	free(p->done);
	history_done(&p->h);
}

/*
 * The figures after vmallocinfo_reread(): only the areas it replaced are looked at,
 * the others keep theirs (a module load changes three lines of 100,000).
 */
static int vm_figures_update(struct poll *p, const struct vmallocinfo_change *ch)
{
	size_t n = p->vi->n, tail = p->n_vm_fig - ch->start - ch->removed;
	struct vm_area_fig *f;

	if (n > p->n_vm_fig) {
		f = realloc(p->vm_fig, n * sizeof(*f));
		if (!f)
			return -ENOMEM;
		p->vm_fig = f;
	}
	f = p->vm_fig;
	for (size_t i = ch->start; i < ch->start + ch->removed; i++) {
		p->vm.used -= f[i].used;
		p->vm.modules -= f[i].modules;
	}
	memmove(f + ch->start + ch->added, f + ch->start + ch->removed, tail * sizeof(*f));
	for (size_t i = ch->start; i < ch->start + ch->added; i++) {
		vm_area_figures(&p->vi->areas[i], &f[i].used, &f[i].modules);
		p->vm.used += f[i].used;
		p->vm.modules += f[i].modules;
	}
	p->n_vm_fig = n;
	p->vm.areas = n;
	return 0;
}

/*
 * Live attempts. The spools are read as they grow, each byte once, into one ledger
 * that ledger_settle() decides as events come: what links attempts across each other
 * (waiters, fallbacks, requests, names from the log) is decided again only for the
 * attempts that may still change, and an attempt that ended long enough ago (about
 * a second, see ledger.c) is settled for good. Only settled attempts are shown, so a
 * row never changes its mind; what top shows is what `report` says of the same
 * events. A refresh costs the new events and the few seconds still open, not the
 * history.
 */
/* trace_pipe reads (64 KiB) per refresh: a flood must not stall the screen */
#define LIVE_READS 256

static int cmp_end(const void *pa, const void *pb, void *ctx)
{
	const struct ledger *l = ctx;
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	double ta = l->attempts[a].end, tb = l->attempts[b].end;

	if (ta != tb)
		return ta < tb ? -1 : 1;
	return a < b ? -1 : a > b;
}

static int live_update(struct poll *p)
{
	struct top_sample *s = &p->s;
	const struct ktrace_stats *ts;
	const struct ledger *l;
	double t0 = monotonic_now(), t1;
	size_t from = p->n_ldone;
	int r, quiet;

	/* as the report: the modules now stand for those Live before, where no event says */
	p->lk.pm = p->pm;
	/* the terminal is top's: bad lines are counted in the header instead */
	quiet = log_set_quiet(1);
	r = collect_stream_feed(p->cs);
	if (r >= 0)
		r = collect_stream_settle(p->cs);
	log_set_quiet(quiet);
	if (r < 0)
		return r;
	l = collect_stream_ledger(p->cs);
	/* attempts settled since the last refresh, by end: a done list only grows */
	if (l->n_settled &&
	    array_grow_uninit((void **)&p->ldone, l->n_settled - 1, &p->cap_ldone,
			      sizeof(*p->ldone)) < 0)
		return -ENOMEM;
	for (; p->n_listed < l->n_settled; p->n_listed++) {
		if (!l->attempts[p->n_listed].complete)
			continue;
		array_prefault(p->ldone, p->n_ldone, p->cap_ldone, sizeof(*p->ldone));
		p->ldone[p->n_ldone++] = p->n_listed;
	}
	qsort_r(p->ldone + from, p->n_ldone - from, sizeof(*p->ldone), cmp_end, (void *)l);
	s->ledger = l;
	s->cost = collect_stream_cost(p->cs);
	s->done = p->ldone;
	s->n_done = p->n_ldone;
	s->n_requests = l->n_requests;
	s->requests_change = true;
	s->n_requests_final = l->n_requests_settled;
	s->n_klog = l->n_klog;
	if (p->measure && l->saw_vmap_events)
		s->measured = true;
	ts = collect_stream_trace_stats(p->cs);
	if (ts && ts->malformed) {
		snprintf(p->trace_why, sizeof(p->trace_why), "%" PRIu64 " bad lines", ts->malformed);
		p->sources[p->trace_src].why = p->trace_why;
	}
	t1 = monotonic_now();
	p->n_updates++;
	p->update_secs += t1 - t0;
	if (t1 - t0 > p->update_max)
		p->update_max = t1 - t0;
	return 0;
}

static int live_sample(struct poll *p)
{
	const char *why;
	uint64_t lost;
	int r;

	/* the trace's own clock moves on when nothing else does: attempts settle by it */
	(void)live_mark_now(p->lv);
	r = live_poll(p->lv, LIVE_READS);
	/* a source that was never there keeps its reason (needs root, no tracefs) */
	if (p->sources[p->trace_src].state == TOP_SRC_LIVE &&
	    (r < 0 || live_trace_error(p->lv, &why) < 0)) {
		p->sources[p->trace_src].state = TOP_SRC_MISSING;
		p->sources[p->trace_src].why = "reading it failed";
	}
	if (p->sources[p->kmsg_src].state == TOP_SRC_LIVE && live_kmsg_error(p->lv, &why) < 0) {
		p->sources[p->kmsg_src].state = TOP_SRC_MISSING;
		p->sources[p->kmsg_src].why = p->kmsg_why[0] ? p->kmsg_why : "reading it failed";
	}
	if (live_lost_now(p->lv, &lost) == 0)
		p->s.lost_events = lost;
	/* even with nothing new: time passing settles attempts (the log's last record) */
	return live_update(p);
}

/* What the header says of a source that is not there: short, the man page has more */
static const char *trace_reason(int err, const char *why)
{
	/* unprivileged, tracefs may not even be found: root is what is missing */
	if (err == -EACCES || err == -EPERM || geteuid() != 0)
		return "needs root";
	if (why && strstr(why, "mount"))
		return "no tracefs";
	return why ? why : strerror(-err);
}

static const char *kmsg_reason(int err, const char *why)
{
	if (err == -ENOENT)
		return "no /dev/kmsg";
	if (why && strstr(why, "dmesg_restrict"))
		return "dmesg_restrict";
	if (err == -EACCES || err == -EPERM)
		return "needs CAP_SYSLOG";
	return why ? why : strerror(-err);
}

/*
 * The boot's capture, when the kernel command line set one up (boot-setup): the global
 * buffer's events so far, header lines left out. Read before the live instance starts,
 * so that all of them are older than its first event (what comes in between, a few
 * milliseconds, is in neither). 0 and NULL when there is none.
 */
static int boot_trace_text(char **ret, size_t *ret_len)
{
	struct boot_capture bc;
	const char *why = NULL;
	char *buf = NULL, *out;
	size_t len = 0, cap = 0, n_out = 0;
	int r;

	*ret = NULL;
	*ret_len = 0;
	r = boot_capture_find(NULL, 0, &bc, &why);
	if (r < 0 || bc.source != BOOT_SOURCE_CMDLINE || bc.trace_fd < 0) {
		if (r >= 0)
			boot_capture_done(&bc);
		return 0;
	}
	for (;;) {
		ssize_t n;

		if (cap - len < 65536) {
			char *nb = realloc(buf, cap = cap ? cap * 2 : (1u << 20));

			if (!nb) {
				r = -ENOMEM;
				goto out;
			}
			buf = nb;
		}
		n = read(bc.trace_fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	/* the event lines, in place: "# tracer: nop" and the like describe another read */
	out = buf;
	for (size_t at = 0; at < len;) {
		char *nl = memchr(buf + at, '\n', len - at);
		size_t l = nl ? (size_t)(nl - (buf + at)) + 1 : len - at;

		if (buf[at] != '#') {
			memmove(out + n_out, buf + at, l);
			n_out += l;
		}
		at += l;
	}
	*ret = buf;
	*ret_len = n_out;
	buf = NULL;
	r = 0;
out:
	free(buf);
	boot_capture_done(&bc);
	return r;
}

static int top_event(void *userdata, const struct ktrace_event *ev)
{
	return collect_stream_event(userdata, ev);
}

static void top_bad(void *userdata, const char *what)
{
	collect_stream_bad(userdata, what);
}

static const struct live_sink_ops top_sink_ops = { .event = top_event, .bad = top_bad };

/* collect_stream_feed()'s turn for the trace: what the live buffers decoded */
static int top_pull(void *userdata)
{
	struct poll *p = userdata;

	return live_pull_events(p->lv);
}

static int live_begin(struct poll *p, size_t *ns)
{
	struct live_opts lo = { .measure = p->measure,
				.release = p->st->has_release ? p->st->release : NULL };
	const char *why = NULL;
	char *boot = NULL;
	size_t boot_len = 0;
	int r, err;

	/* a boot capture: top opens on its attempts, with the kernel log from boot on */
	if (boot_trace_text(&boot, &boot_len) < 0)
		log_warn("the boot's trace (kernel command line) cannot be read: left out");
	if (boot)
		lo.since_boot = true;
	r = live_start(&lo, -1, -1, &p->lv);
	if (r < 0) {
		free(boot);
		log_error("live collection: %s", strerror(-r));
		return r;
	}
	/* before the instance's first line: the spool is read in order */
	if (boot && live_trace_fd(p->lv) >= 0) {
		r = fd_write_all(live_trace_fd(p->lv), boot, boot_len);
		if (r < 0) {
			free(boot);
			log_error("live collection: the boot's trace: %s", strerror(-r));
			return r;
		}
		p->sources[(*ns)++] = (struct top_source){ "boot trace", TOP_SRC_ONCE, NULL };
	}
	free(boot);
	p->lk.idx = p->st->idx;
	p->lk.cat = p->st->cat;
	p->lk.k = &p->st->k;
	r = collect_stream_new(&p->lk, p->st->lp.idempotent_finit, live_trace_fd(p->lv),
			       live_trace_name(p->lv), live_kmsg_fd(p->lv), &p->cs);
	if (r < 0) {
		log_error("live collection: %s", strerror(-r));
		return r;
	}
	/* the raw buffers' events go to the ledger as decoded: no text between them */
	if (live_set_sink(p->lv, &top_sink_ops, p->cs) == 0) {
		r = collect_stream_direct(p->cs, top_pull, p);
		if (r < 0) {
			log_error("live collection: %s", strerror(-r));
			return r;
		}
	}
	p->trace_src = *ns;
	err = live_trace_error(p->lv, &why);
	p->sources[(*ns)++] = err ? (struct top_source){ "trace", TOP_SRC_MISSING,
							 trace_reason(err, why) }
				  : (struct top_source){ "trace", TOP_SRC_LIVE, NULL };
	p->kmsg_src = *ns;
	err = live_kmsg_error(p->lv, &why);
	if (err)
		snprintf(p->kmsg_why, sizeof(p->kmsg_why), "%s", kmsg_reason(err, why));
	p->sources[(*ns)++] = err ? (struct top_source){ "kmsg", TOP_SRC_MISSING, p->kmsg_why }
				  : (struct top_source){ "kmsg", TOP_SRC_LIVE, NULL };
	if (!p->measure)
		p->s.measured_why = "--measure";
	else if (live_trace_error(p->lv, &why) < 0)
		p->s.measured_why = "no trace";
	else if (!live_measuring(p->lv, &why))
		p->s.measured_why = why ? why : "not measured";
	else
		p->s.measured = true;
	return 0;
}

/*
 * proc/modules at every refresh, parsed only when its bytes changed. proc/vmallocinfo
 * (100,000 lines on a big machine) only then too: module areas come and go with the
 * modules, and VmallocUsed comes from proc/meminfo every time.
 */
static int poll_sample(void *userdata, double dt, const struct top_sample **ret)
{
	struct poll *p = userdata;
	struct top_sample *s = &p->s;
	_cleanup_free_ char *buf = NULL;
	struct kt_err e = { 0 };
	struct meminfo mi;
	bool changed = false;
	size_t len = 0;
	int r;

	p->t = monotonic_now();
	s->now = p->t;
	r = root_read_file(p->st->root, "proc/modules", 64u << 20, &buf, &len);
	if (r < 0) {
		p->sources[0].state = TOP_SRC_MISSING;
		p->sources[0].why = r == -ENOENT ? "no module support" : "unreadable";
		proc_modules_free(p->pm);
		p->pm = NULL;
		p->pm_valid = false;
		s->n_mods = 0;
	} else if (!p->pm_valid || len != p->pm_len || memcmp(buf, p->pm_text, len) != 0) {
		FILE *f = fmemopen(buf, len ? len : 1, "r");
		struct proc_modules *pm = NULL;

		if (!f)
			return -errno;
		if (!len)
			fgetc(f); /* an empty file: fmemopen() needs a size */
		r = proc_modules_read_file(f, "proc/modules", &pm, &e);
		fclose(f);
		if (r == -ENOMEM)
			return r;
		if (r < 0) {
			log_kt_err(&e, r);
			return r;
		}
		proc_modules_free(p->pm);
		p->pm = pm;
		free(p->pm_text);
		p->pm_text = buf;
		p->pm_len = len;
		buf = NULL;
		p->pm_valid = true;
		changed = true;
		p->sources[0].state = TOP_SRC_LIVE;
		if (p->pm->n > p->cap_mods) {
			struct top_modstate *nm =
				realloc(p->mods, p->pm->n * sizeof(*nm));

			if (!nm)
				return -ENOMEM;
			p->mods = nm;
			p->cap_mods = p->pm->n;
		}
		for (size_t i = 0; i < p->pm->n; i++)
			p->mods[i] = (struct top_modstate){
				p->pm->mods[i].name,
				true,
				p->pm->mods[i].state,
				true,
				p->pm->mods[i].size,
				(const char *const *)p->pm->mods[i].holders,
				p->pm->mods[i].n_holders,
			};
		s->mods = p->mods;
		s->n_mods = p->pm->n;
	}

	if (changed || !p->vm_valid) {
		struct vmallocinfo_change ch;

		memset(&e, 0, sizeof(e));
		r = vmallocinfo_reread(p->st->root, &p->vi, &ch, &e);
		if (r == 0)
			r = vm_figures_update(p, &ch);
		if (r == -ENOMEM)
			return r;
		if (r == 0) {
			p->vm_valid = true;
			p->sources[1].state = TOP_SRC_LIVE;
			p->sources[1].why = NULL;
		} else {
			p->vm_valid = false;
			p->sources[1].state = TOP_SRC_MISSING;
			p->sources[1].why =
				r == -EACCES || r == -EPERM ? "needs root"
				: r == -ENOENT		    ? NULL
							    : "damaged";
			if (!p->vm_r) {
				p->vm_r = r;
				p->vm_err = e;
			}
			/* the next read is a whole one */
			p->vi = vmallocinfo_free(p->vi);
			p->n_vm_fig = 0;
			memset(&p->vm, 0, sizeof(p->vm));
		}
	}
	memset(&mi, 0, sizeof(mi));
	memset(&e, 0, sizeof(e));
	r = p->vm_valid ? meminfo_read(p->st->root, &mi, &e) : -ENOENT;
	if (r < 0 && r != -ENOENT && !p->mi_r) {
		p->mi_r = r;
		p->mi_err = e;
	}
	if (r == 0 && mi.has_vmalloc_total) {
		s->has_vmalloc = true;
		s->vmalloc_total = mi.vmalloc_total;
		s->vmalloc_used = mi.has_vmalloc_used ? mi.vmalloc_used : p->vm.used;
		s->vmalloc_modules = p->vm.modules;
		s->vmalloc_from = NULL;
	} else {
		s->has_vmalloc = false;
	}
	if (p->lv) {
		r = live_sample(p);
		if (r < 0)
			return r;
	}
	(void)dt;
	*ret = s;
	return 0;
}

static int poll_new(struct top_static *st, bool measure, struct poll **ret)
{
	struct poll *p = calloc(1, sizeof(*p));
	struct kt_err e = { 0 };
	size_t ns = 0;
	int r;

	if (!p)
		return -ENOMEM;
	p->st = st;
	p->sources[ns++] = (struct top_source){ "proc/modules", TOP_SRC_LIVE, NULL };
	p->sources[ns++] = (struct top_source){ "vmallocinfo", TOP_SRC_LIVE, NULL };
	p->measure = measure;
	if (root_is_live_system(st->root)) {
		r = live_begin(p, &ns);
		if (r < 0)
			goto fail;
	} else {
		/* a captured root: its history once, as the report reads it */
		r = proc_modules_read(st->root, &p->first_pm, &e);
		if (r < 0 && r != -ENOENT) {
			log_kt_err(&e, r);
			goto fail;
		}
		if (r == 0)
			collect_warn_repeated("proc/modules", p->first_pm->n_repeated,
					      p->first_pm->repeated_line);
		p->lk.idx = st->idx;
		p->lk.pm = p->first_pm;
		r = history_read(&p->h, st, &p->lk);
		if (r < 0)
			goto fail;
		p->sources[ns++] =
			p->h.has_trace
				? (struct top_source){ "trace", TOP_SRC_ONCE, NULL }
				: (struct top_source){ "trace", TOP_SRC_MISSING, NULL };
		p->sources[ns++] =
			p->h.has_log
				? (struct top_source){ p->h.log_format, TOP_SRC_ONCE,
						       NULL }
				: (struct top_source){ "kmsg", TOP_SRC_MISSING, NULL };
		if (p->h.ledger && p->h.ledger->n_attempts) {
			const struct ledger *l = p->h.ledger;

			p->done = malloc(l->n_attempts * sizeof(*p->done));
			if (!p->done) {
				r = -ENOMEM;
				goto fail;
			}
			for (size_t i = 0; i < l->n_attempts; i++)
				p->done[i] = i;
			p->s.n_done = l->n_attempts;
		}
		p->s.ledger = p->h.ledger;
		p->s.cost = p->h.cost ? p->h.cost->att : NULL;
		p->s.done = p->done;
		p->s.n_requests = p->h.ledger ? p->h.ledger->n_requests : 0;
		p->s.n_klog = p->h.ledger ? p->h.ledger->n_klog : 0;
		p->s.lost_events = p->h.trace_stats.lost_events;
		p->s.measured = p->h.ledger && p->h.ledger->saw_vmap_events;
		p->s.measured_why = "no vmap events in the trace";
	}
	if (!st->modstats)
		p->sources[ns++] =
			(struct top_source){ "module_stats", TOP_SRC_MISSING, NULL };
	p->s.sources = p->sources;
	p->s.n_sources = ns;
	p->ic.st = st;
	p->ic.trace_ncpus =
		p->h.trace_stats.ncpus > 0 ? (unsigned int)p->h.trace_stats.ncpus : 0;
	p->s.release = st->has_release ? st->release : NULL;
	p->s.lp = &st->lp;
	p->s.decompress = st->decompress;
	p->s.module_info = module_info;
	p->s.symbol_module = symbol_module;
	p->s.userdata = &p->ic;
	/*
	 * The first sample comes at once, with what was there before it (a captured
	 * root's history, a live collection's setup): a rate over that near-zero interval
	 * would be absurd, so it has none.
	 */
	p->s.start = NAN;
	*ret = p;
	return 0;
fail:
	poll_free(p);
	free(p);
	return r;
}

/* --- the command ------------------------------------------------------------------ */

static int parse_size(const char *s, int *ret_w, int *ret_h)
{
	char buf[32], *x;
	int w, h;

	snprintf(buf, sizeof(buf), "%s", s);
	x = strchr(buf, 'x');
	if (!x)
		return -EINVAL;
	*x = '\0';
	if (parse_int(buf, &w) < 0 || parse_int(x + 1, &h) < 0 || w < 20 || h < 8 ||
	    w > 1000 || h > 1000)
		return -EINVAL;
	*ret_w = w;
	*ret_h = h;
	return 0;
}

static int parse_speed(const char *s, double *ret)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || !(v >= 0) || v > 1e6)
		return -EINVAL;
	*ret = v;
	return 0;
}

static bool locale_is_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);

	return cs && strcmp(cs, "UTF-8") == 0;
}

static void list_sort_keys(void)
{
	size_t n;
	const struct top_column *c = top_columns(TOP_VIEW_MODULES, &n);

	for (size_t i = 0; i < n; i++)
		if (!(c[i].flags & TOP_COL_NOSORT))
			printf("%-10s %-15s %s\n", c[i].key, c[i].header, c[i].help);
}

int cmd_top(int argc, char **argv, struct global_opts *g)
{
	static const struct option long_options[] = {
		GLOBAL_LONG_OPTIONS,
		{ "replay", required_argument, NULL, OPT_REPLAY },
		{ "speed", required_argument, NULL, OPT_SPEED },
		{ "delay", required_argument, NULL, 'd' },
		{ "sort-key", required_argument, NULL, 's' },
		{ "filter", required_argument, NULL, 'F' },
		{ "measure", no_argument, NULL, OPT_MEASURE },
		{ "no-color", no_argument, NULL, 'C' },
		{ "no-colour", no_argument, NULL, 'C' },
		{ "no-unicode", no_argument, NULL, 'U' },
		{ "no-mouse", no_argument, NULL, 'M' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "batch", no_argument, NULL, 'b' },
		{ "size", required_argument, NULL, OPT_SIZE },
		{ "no-cache", no_argument, NULL, OPT_NO_CACHE },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const char *arg_replay = NULL, *arg_sort = NULL, *arg_filter = NULL;
	bool arg_measure = false, arg_no_color = false, arg_no_unicode = false;
	bool arg_no_mouse = false, arg_batch = false, size_given = false,
	     arg_no_cache = false;
	double arg_speed = 1, arg_delay = 1.5;
	long arg_iterations = 0;
	int width = 80, height = 24, opt, r, ret = EXIT_ERROR, col = -1;
	struct top_static st = { 0 };
	struct replay *rp = NULL;
	struct poll *pl = NULL;
	struct top_model *m = NULL;
	struct top_sampler smp = { 0 };
	struct top_loop_opts lo = { 0 };
	struct top_ui ui;
	char program[64];
	sigset_t oldmask;
	bool restore_mask = false;

	while ((opt = getopt_long(argc, argv, GLOBAL_SHORT_OPTIONS "hd:s:F:CUMn:b",
				  long_options, NULL)) != -1) {
		uint64_t v;

		switch (opt) {
		case 'h':
			top_usage(stdout);
			return EXIT_OK;
		case '?':
			cmd_usage_error("top", long_options, argv, optind);
			return EXIT_USAGE;
		case OPT_REPLAY:
			arg_replay = optarg;
			continue;
		case OPT_SPEED:
			if (parse_speed(optarg, &arg_speed) < 0) {
				log_error(
					"--speed '%s': not a number of times (0: all at once)",
					optarg);
				return EXIT_USAGE;
			}
			continue;
		case 'd':
			/* htop's tenths of a second */
			if (parse_u64(optarg, 10, &v) < 0 || v < 1 || v > 100) {
				log_error("--delay '%s': expected 1 to 100 tenths of a second",
					  optarg);
				return EXIT_USAGE;
			}
			arg_delay = (double)v / 10.0;
			continue;
		case 's':
			arg_sort = optarg;
			continue;
		case 'F':
			arg_filter = optarg;
			continue;
		case OPT_MEASURE:
			arg_measure = true;
			continue;
		case 'C':
			arg_no_color = true;
			continue;
		case 'U':
			arg_no_unicode = true;
			continue;
		case 'M':
			arg_no_mouse = true;
			continue;
		case 'n':
			if (parse_u64(optarg, 10, &v) < 0 || v < 1 || v > 1000000000) {
				log_error("--iterations '%s': not a positive number",
					  optarg);
				return EXIT_USAGE;
			}
			arg_iterations = (long)v;
			continue;
		case 'b':
			arg_batch = true;
			continue;
		case OPT_NO_CACHE:
			arg_no_cache = true;
			continue;
		case OPT_SIZE:
			if (parse_size(optarg, &width, &height) < 0) {
				log_error("--size '%s': WIDTHxHEIGHT, at least 20x8",
					  optarg);
				return EXIT_USAGE;
			}
			size_given = true;
			continue;
		}
		if (global_opt_handle(g, opt, optarg) <= 0)
			return EXIT_USAGE;
	}
	if (optind < argc) {
		log_error("top: unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	if (arg_sort && strcmp(arg_sort, "help") == 0) {
		list_sort_keys();
		return EXIT_OK;
	}
	if (arg_sort) {
		col = top_column_find(TOP_VIEW_MODULES, arg_sort);
		if (col < 0) {
			log_error(
				"--sort-key '%s': no such column ('--sort-key help' lists them)",
				arg_sort);
			return EXIT_USAGE;
		}
	}
	if (arg_replay && g->root && strcmp(arg_replay, g->root) != 0) {
		log_error(
			"--replay and --root name different trees; --replay DIR is the root");
		return EXIT_USAGE;
	}
	if (g->json && !arg_batch) {
		log_error("top: --json prints frames for --batch; add --batch");
		return EXIT_USAGE;
	}
	if (!arg_batch && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		log_error("top needs a terminal (or --batch)");
		return EXIT_USAGE;
	}
	if (!arg_batch) {
		const char *term = getenv("TERM");
		_cleanup_free_ char *e = escape_dup(term ? term : "", term ? strlen(term) : 0);

		/* curses would draw a dumb terminal's frames as one line of garbage */
		r = term_check();
		if (r < 0) {
			log_error("top: TERM=%s: %s; use --batch for plain text frames",
				  e ? e : "?",
				  !term || !*term ? "not set"
				  : r == -ENOENT ? "a terminal type terminfo does not know"
						 : "this terminal cannot place the cursor");
			return EXIT_USAGE;
		}
	}
	if (arg_batch && !size_given && isatty(STDOUT_FILENO)) {
		struct winsize ws;

		if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20 &&
		    ws.ws_row >= 8) {
			width = ws.ws_col;
			height = ws.ws_row;
		}
	}

	/*
	 * A reader that goes away (top --batch | head -1) is an EPIPE that ends the loop,
	 * not a SIGPIPE that would kill kmodtop with its tracefs instance still there.
	 */
	signal(SIGPIPE, SIG_IGN);

	/* the terminal's character set decides Unicode; --batch frames are UTF-8 */
	setlocale(LC_CTYPE, "");
	if (arg_no_color)
		g->color = COLOR_NEVER;
	/* --batch colours too when asked (--color=always) or writing to a terminal */
	color_init(g->color, isatty(STDOUT_FILENO));

	st.use_cache = !arg_no_cache;
	r = top_static_collect(&st, arg_replay ? arg_replay : g->root ? g->root : "/", g);
	if (r < 0)
		goto out;
	if (!root_exists(st.root, "proc/modules") && !arg_replay) {
		log_info("%s: the kernel has no module support (no proc/modules)",
			 root_dir(st.root));
		ret = EXIT_NO_MODULES;
		goto out;
	}
	if (arg_replay) {
		r = replay_new(&st, arg_speed, arg_measure, &rp);
		if (r < 0) {
			if (r == -ENOMEM)
				log_error("out of memory");
			goto out;
		}
		smp = (struct top_sampler){ .sample = replay_sample,
					    .virtual_clock = true,
					    .userdata = rp };
	} else {
		/*
		 * A stop signal from here on waits for the loop (or for the teardown
		 * below): the tracefs instance must not outlive kmodtop
		 */
		if (root_is_live_system(st.root)) {
			sigset_t stop;

			sigemptyset(&stop);
			sigaddset(&stop, SIGINT);
			sigaddset(&stop, SIGTERM);
			sigaddset(&stop, SIGHUP);
			sigaddset(&stop, SIGQUIT);
			sigprocmask(SIG_BLOCK, &stop, &oldmask);
			restore_mask = true;
		}
		r = poll_new(&st, arg_measure, &pl);
		if (r < 0) {
			if (r == -ENOMEM)
				log_error("out of memory");
			goto out;
		}
		smp = (struct top_sampler){ .sample = poll_sample, .userdata = pl };
	}
	r = top_model_new(&m);
	if (r < 0) {
		log_error("out of memory");
		goto out;
	}
	top_ui_init(&ui);
	ui.unicode = !arg_no_unicode && (arg_batch || locale_is_utf8());
	if (col >= 0)
		ui.sort[TOP_VIEW_MODULES] = col;
	if (arg_filter)
		snprintf(ui.filter, sizeof(ui.filter), "%s", arg_filter);

	snprintf(program, sizeof(program), "kmodtop %s", PACKAGE_VERSION);
	lo = (struct top_loop_opts){
		.delay = arg_delay,
		.iterations = arg_iterations,
		.batch = arg_batch,
		.width = width,
		.height = height,
		.color = color_enabled(),
		.json = arg_batch && g->json,
		.mouse = !arg_no_mouse,
		.unicode = ui.unicode,
		.program = program,
		.out = stdout,
	};
	r = top_loop_run(&smp, m, &ui, &lo);
	if (r < 0) {
		if (arg_batch && ferror(stdout))
			log_error("top: writing standard output: %s", strerror(-r));
		else
			log_error("top: %s", strerror(-r));
		goto out;
	}
	/* a signal ended it: the terminal is restored; exit as the shell expects */
	ret = r > 0 ? 128 + r : EXIT_OK;
out:
	top_model_free(m);
	if (rp) {
		replay_free(rp);
		free(rp);
	}
	if (pl) {
		/* the terminal is restored: what the live collection lacked can be said */
		if (pl->lv) {
			live_end(pl->lv);
			if (live_log(pl->lv) < 0)
				ret = EXIT_ERROR;
			if (arg_batch)
				log_info("top: %zu refreshes read the live trace and log into the "
					 "attempts in %.2f s (the longest %.2f s)",
					 pl->n_updates, pl->update_secs, pl->update_max);
		}
		if (pl->vm_r)
			warn_unusable("proc/vmallocinfo", pl->vm_r, &pl->vm_err);
		if (pl->mi_r)
			warn_unusable("proc/meminfo", pl->mi_r, &pl->mi_err);
		poll_free(pl);
		free(pl);
	}
	top_static_done(&st);
	if (restore_mask)
		sigprocmask(SIG_SETMASK, &oldmask, NULL);
	return ret;
}
