/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cost/catalog.h"
#include "cost/cost.h"
#include "cost/estimate.h"
#include "ledger/klog-findings.h"
#include "ledger/ledger.h"
#include "ledger/proctab.h"
#include "sources/dmesg-text.h"
#include "sources/kmsg.h"
#include "sources/modindex.h"
#include "sources/proc-modules.h"
#include "sources/trace/read.h"
#include "sources/modsyms.h"
#include "sources/trace/order.h"
#include "util/array.h"
#include "util/log.h"
#include "util/macro.h"
#include "session/collect.h"
#include "session/system.h"

/* --- the module tree's lookups ------------------------------------------------------ */

static int lookup_resolve(void *userdata, const char *alias, char ***ret, size_t *ret_n)
{
	struct collect_lookup *lk = userdata;

	return lk->idx ? modindex_lookup(lk->idx, alias, ret, ret_n) : -ENOENT;
}

/* A module and what modprobe loads with it: dependencies and pre-softdeps, closed */
static int lookup_closure(void *userdata, const char *module, char ***ret, size_t *ret_n)
{
	struct collect_lookup *lk = userdata;
	char **all;
	size_t n = 1;
	int r;

	if (!lk->idx)
		return -ENOENT;
	all = calloc(2, sizeof(char *));
	if (!all || !(all[0] = strdup(module))) {
		free(all);
		return -ENOMEM;
	}
	/* bounded: a softdep loop in a hostile modprobe.d cannot grow it forever */
	for (size_t i = 0; i < n && n < 256; i++) {
		char **deps = NULL;
		size_t nd = 0;

		r = modindex_deps(lk->idx, all[i], &deps, &nd);
		if (r == -ENOMEM)
			goto fail;
		for (size_t k = 0; r >= 0 && k < nd; k++) {
			bool have = false;
			char **na;

			for (size_t q = 0; q < n && !have; q++)
				have = strcmp(all[q], deps[k]) == 0;
			if (have)
				continue;
			na = realloc(all, (n + 2) * sizeof(char *));
			if (!na || !(na[n] = strdup(deps[k]))) {
				if (na)
					all = na;
				modindex_names_free(deps);
				r = -ENOMEM;
				goto fail;
			}
			all = na;
			all[++n] = NULL;
		}
		modindex_names_free(deps);
	}
	*ret = all;
	*ret_n = n;
	return 0;
fail:
	modindex_names_free(all);
	return r;
}

static bool lookup_live_at_start(void *userdata, const char *module)
{
	struct collect_lookup *lk = userdata;

	return proc_modules_find(lk->pm, module) != NULL;
}

/* kread bytes (traced) or init_module's length that fit one module file exactly */
static bool size_fits(struct collect_lookup *lk, const struct attempt *a,
		      struct catalog_entry *e)
{
	if (a->syscall == ATTEMPT_FINIT && a->kread_seen)
		return e->file_size == a->kread_size;
	if (a->syscall == ATTEMPT_FINIT)
		return a->measured && a->vmap[VMAP_KREAD] && lk->k &&
		       cost_vmalloc(lk->k, e->file_size) == a->vmap[VMAP_KREAD];
	/* userspace hands over the decompressed image: its exact length */
	return catalog_analyze(lk->cat, e, MODFILE_SIZES) == 0 && e->info.decompressed_exact &&
	       e->info.decompressed_size == a->len;
}

/* Names an unnamed attempt when exactly one module file has its size */
static int lookup_identify(void *userdata, const struct attempt *a, char *const *cand,
			   size_t n_cand, char **ret_name)
{
	struct collect_lookup *lk = userdata;
	const char *found = NULL;
	bool several = false;
	size_t n;

	if (!lk->cat)
		return 0;
	if (a->syscall == ATTEMPT_FINIT && !a->kread_seen && !(a->measured && a->vmap[VMAP_KREAD]))
		return 0;
	n = cand ? n_cand : lk->cat->n;
	for (size_t i = 0; i < n; i++) {
		struct catalog_entry *e = cand ? catalog_find(lk->cat, cand[i]) : &lk->cat->e[i];

		if (!e || !size_fits(lk, a, e))
			continue;
		if (lk->size_fit)
			lk->size_fit(lk->size_fit_userdata, e->name);
		if (found && strcmp(found, e->name) != 0) {
			several = true; /* two files fit: no evidence */
			if (!lk->size_fit)
				break;
			continue;
		}
		found = e->name;
	}
	if (!found || several)
		return 0;
	*ret_name = strdup(found);
	return *ret_name ? 1 : -ENOMEM;
}

static const char *lookup_function_at(void *userdata, uint64_t addr)
{
	struct collect_lookup *lk = userdata;

	return modsyms_lookup(lk->syms, addr, NULL);
}

void collect_ledger_ops(struct collect_lookup *lk, struct ledger_ops *ret)
{
	*ret = (struct ledger_ops){
		.resolve_alias = lookup_resolve,
		.module_closure = lookup_closure,
		.names_free = modindex_names_free,
		.live_at_start = lookup_live_at_start,
		.identify = lookup_identify,
		.function_at = lookup_function_at,
		.userdata = lk,
	};
}

/* @e's file for the model, its layout checked against the module's loaded size */
static const struct cost_module *entry_module(struct collect_lookup *lk,
					      struct catalog_entry *e)
{
	const struct proc_module *pm = e && lk->pm ? proc_modules_find(lk->pm, e->name) : NULL;

	return catalog_cost_module_loaded(lk->cat, e, pm ? pm->size : 0);
}

const struct cost_module *collect_cost_module(void *userdata, const char *name)
{
	struct collect_lookup *lk = userdata;

	return lk->cat ? entry_module(lk, catalog_find(lk->cat, name)) : NULL;
}

/* What the model charges @a with module file @e; false when @e cannot be modelled */
static bool cost_with(struct collect_lookup *lk, const struct cost_kernel *k,
		      const struct attempt *a, struct catalog_entry *e, uint64_t *ret)
{
	const struct cost_module *m = entry_module(lk, e);
	uint64_t b[_VMAP_MAX], t = 0;

	if (!m || !cost_estimate_attempt(k, a, m, b))
		return false;
	for (int c = 0; c < _VMAP_MAX; c++)
		t = add_sat_u64(t, b[c]);
	*ret = t;
	return true;
}

int collect_cost_max(void *userdata, const struct cost_kernel *k, const struct attempt *a,
		     uint64_t *ret_max)
{
	struct collect_lookup *lk = userdata;
	uint64_t best = 0, own = 0, v;
	bool any = false;
	unsigned int key;
	size_t slot = SIZE_MAX;

	if (!lk->cat || !lk->cat->n)
		return -ENOENT;
	/* the files the size evidence leaves */
	for (size_t i = 0; i < lk->cat->n; i++) {
		struct catalog_entry *e = &lk->cat->e[i];

		if (!size_fits(lk, a, e) || !cost_with(lk, k, a, e, &v))
			continue;
		best = any && best > v ? best : v;
		any = true;
	}
	if (any) {
		*ret_max = best;
		return 0;
	}
	/*
	 * Any file: the largest per kind of attempt is the same for all of that kind but
	 * what is the attempt's own (init_module's copy of its length, a read it was seen
	 * to make), so it is kept by kind once found
	 */
	if (a->syscall == ATTEMPT_INIT)
		own = cost_vmalloc(k, a->len);
	else if (a->kread_seen)
		own = cost_vmalloc(k, a->kread_size);
	key = 1 + (unsigned int)a->outcome + 64u * (a->syscall == ATTEMPT_INIT) +
	      128u * ((a->flags & 4 /* MODULE_INIT_COMPRESSED_FILE */) != 0) + 256u * a->kread_seen;
	for (size_t s = 0; s < ARRAY_SIZE(lk->max_seen); s++) {
		if (lk->max_seen[s].key == key) {
			*ret_max = add_sat_u64(lk->max_seen[s].max, own);
			return 0;
		}
		if (!lk->max_seen[s].key && slot == SIZE_MAX)
			slot = s;
	}
	for (size_t i = 0; i < lk->cat->n; i++) {
		if (!cost_with(lk, k, a, &lk->cat->e[i], &v))
			continue;
		v = v > own ? v - own : 0;
		best = any && best > v ? best : v;
		any = true;
	}
	if (!any)
		return -ENOENT;
	if (slot != SIZE_MAX)
		lk->max_seen[slot] = (typeof(lk->max_seen[0])){ key, best };
	*ret_max = add_sat_u64(best, own);
	return 0;
}

/* --- reading a log and a trace into a ledger ------------------------------------------ */

void collect_note_cache(const struct catalog *cat)
{
	static bool noted;
	const char *dir, *why;

	if (noted || !cat || !cat->cache || modfile_cache_enabled(cat->cache))
		return;
	noted = true;
	dir = modfile_cache_dir(cat->cache);
	why = modfile_cache_why(cat->cache);
	if (dir && why)
		log_info("module-file cache off: '%s' %s", dir, why);
	else if (dir)
		log_info("module-file cache off: '%s': %s", dir,
			 strerror(-modfile_cache_error(cat->cache)));
	else
		log_info("module-file cache off: %s",
			 why ? why : strerror(-modfile_cache_error(cat->cache)));
}

void collect_note_layouts(struct catalog *cat)
{
	for (size_t i = 0; cat && i < cat->n; i++) {
		struct catalog_entry *e = &cat->e[i];
		double mib = (double)e->layout_doubt_bytes / (1 << 20);

		if (!e->layout_doubt || e->layout_doubt_noted)
			continue;
		e->layout_doubt_noted = true;
		if (e->layout_doubt == -EFBIG)
			log_warn("'%s': its section headers lay the module out in %.0f MiB, more "
				 "than the module area (%llu MiB): not estimated",
				 e->path, mib, COST_MODULES_LEN >> 20);
		else
			log_warn("'%s': its section headers lay the module's core out in %.1f MiB, "
				 "far from the %.1f MiB proc/modules has loaded: not estimated",
				 e->path, mib, (double)e->layout_doubt_loaded / (1 << 20));
	}
}

static void on_too_big(const char *path)
{
	log_warn("'%s': decompresses to more than %llu MiB, more than a module can be: "
		 "left out of the estimate", path, MODFILE_MAX_IMAGE >> 20);
}

void collect_catalog_warnings(struct catalog *cat)
{
	if (cat)
		cat->too_big = on_too_big;
}

void collect_modindex_new(const struct kt_root *root, const char *moduledir,
			  struct modindex **ret)
{
	int r = modindex_new(root, moduledir, ret);

	if (r < 0)
		*ret = NULL;
	if (r == -EBADMSG)
		log_warn("'%s/modules.*.bin': damaged (libkmod cannot read them), ignoring: "
			 "aliases and dependencies are not looked up", moduledir);
	if (r >= 0)
		collect_modindex_config_warn(*ret);
}

void collect_module_tree_warn(const struct kt_system *sys)
{
	if (sys->index_err == -EBADMSG)
		log_warn("'%s/modules.*.bin': damaged (libkmod cannot read them), ignoring: "
			 "aliases and dependencies are not looked up", sys->moduledir);
	if (sys->idx)
		collect_modindex_config_warn(sys->idx);
	collect_note_cache(sys->cat);
	collect_catalog_warnings(sys->cat);
}

void collect_modindex_config_warn(const struct modindex *idx)
{
	size_t n, shown = 0;
	const char *p = modindex_config_log(idx, &n);

	/* log_warn() escapes: a bad line's bytes are shown as \xNN */
	while (p && *p && shown < 5) {
		const char *nl = strchr(p, '\n');
		int len = (int)(nl ? (size_t)(nl - p) : strlen(p));

		log_warn("modprobe.d: %.*s", len, p);
		shown++;
		p = nl ? nl + 1 : p + len;
	}
	if (n > shown)
		log_warn("modprobe.d: %zu more messages from libkmod not shown", n - shown);
}

void collect_trace_order_warn(const char *path, const struct ktrace_order *ord)
{
	if (ord->sorted)
		log_warn("'%s':%llu: the trace goes back in time here, %llu time(s) in all "
			 "(per-CPU trace files one after another?): read sorted by time; line "
			 "numbers below are of that order", path,
			 (unsigned long long)ord->first_line,
			 (unsigned long long)ord->back_steps);
}

/*
 * One ktrace_order_fwrap() could not sort (compressed, a pipe, too big) went through the
 * text reader's window: what it put in order, and what came too late for it
 */
void collect_trace_window_warn(const char *path, const struct ktrace_stats *st,
			       uint64_t back_steps_read)
{
	if (st->late)
		log_warn("'%s':%llu: the trace goes back in time here further than the reader "
			 "holds lines to put in order, %llu time(s) in all: load attempts may be "
			 "paired wrong", path, (unsigned long long)st->late_line,
			 (unsigned long long)st->late);
	else if (st->back_steps)
		log_warn("'%s': the trace goes back in time %llu time(s) (per-CPU trace files "
			 "one after another?): read in time order", path,
			 (unsigned long long)st->back_steps);
	else if (back_steps_read)
		/* a reader without the window */
		log_warn("'%s': the trace goes back in time %llu time(s) (per-CPU trace "
			 "files one after another?) and was read in its order: load "
			 "attempts may be paired wrong", path,
			 (unsigned long long)back_steps_read);
}

void collect_warn_repeated(const char *path, size_t n, unsigned int line)
{
	if (n)
		log_warn("'%s':%u: listed before (%zu repeated line%s), counted once", path, line,
			 n, n == 1 ? "" : "s");
}

void collect_warn_forgotten(const char *path, const struct ledger *l)
{
	uint64_t n = proctab_forgotten(ledger_proctab(l));

	if (n)
		log_warn("'%s': more processes at once than kept, and no sched_process_exit to "
			 "end them: %llu forgotten, the least recently seen; the parents of load "
			 "requests made by them are unknown", path, (unsigned long long)n);
}

bool collect_looks_like_kmsg(FILE *f)
{
	char buf[512];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	struct klog_rec rec;
	const char *what;
	char *nl;

	rewind(f);
	buf[n] = '\0';
	nl = memchr(buf, '\n', n);
	if (nl)
		*nl = '\0';
	return kmsg_parse_line(buf, strlen(buf), &rec, &what) == 0;
}

int collect_open_spool(int fd, const char *name, FILE **ret_f, char **ret_path)
{
	int dfd;

	if (fd < 0)
		return -ENOENT;
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	dfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (dfd < 0)
		return -errno;
	*ret_f = fdopen(dfd, "re");
	if (!*ret_f) {
		close(dfd);
		return -ENOMEM;
	}
	*ret_path = strdup(name);
	return *ret_path ? 0 : -ENOMEM;
}

/* Warnings about skipped input lines: the first few, then a count */
#define BAD_LINE_WARNINGS 10

/*
 * collect_read_each(): the ledger is settled every SETTLE_EVERY of trace time; each
 * attempt that settled is priced and handed on, then forgotten. The attempts held are
 * those the look-back keeps and those of up to this much trace: 2.5k more in a storm of
 * 10k attempts a second.
 */
#define SETTLE_EVERY 0.25
/* an event this far behind the newest: the trace is not in time order, keep everything */
#define OUT_OF_ORDER 0.5

struct each_state {
	const struct collect_each *each;
	struct collect_lookup *lk;
	bool price;
	uint64_t emitted;		/* attempts handed on, from the trace's first */
	double longest;			/* of the complete calls handed on */
	double now, settled_at;		/* the newest event; the last settle's time */
	bool settle_late;		/* settle only at the end (see collect_read_each()) */
};

struct read_ctx {
	struct ledger *ledger;
	const struct collect_input *in;
	struct each_state *each;	/* NULL: collect_read() */
	unsigned int bad_lines;
	uint64_t records;
	struct collect_window *trace_window, *log_window;	/* NULL: none kept */
	uint64_t trace_last_ns, trace_back_steps;
};

/* min and max, not first and last: a trace interleaves CPUs, a log may be spliced */
static void window_add(struct collect_window *w, double ts)
{
	if (isnan(w->first) || ts < w->first)
		w->first = ts;
	if (isnan(w->last) || ts > w->last)
		w->last = ts;
}

static void on_bad_line(void *userdata, const struct kt_err *e)
{
	struct read_ctx *c = userdata;

	if (++c->bad_lines <= BAD_LINE_WARNINGS)
		log_warn("'%s':%u: %s, skipping", e->path, e->line, e->what ? e->what : "malformed");
	else if (c->bad_lines == BAD_LINE_WARNINGS + 1)
		log_warn("'%s': more malformed lines, not shown", e->path);
}

/* The attempts that settled since the last call, priced, to the caller's callback */
static int each_hand_on(struct read_ctx *c)
{
	struct each_state *e = c->each;
	struct ledger *l = c->ledger;

	for (; e->emitted < l->n_forgotten + l->n_settled; e->emitted++) {
		size_t i = (size_t)(e->emitted - l->n_forgotten);
		const struct attempt *a = &l->attempts[i];
		struct attempt_cost ac;
		int r;

		/* the longest call before it, as cost_compute_bounded() has the whole ledger's */
		if (a->complete && a->end - a->start > e->longest)
			e->longest = a->end - a->start;
		if (e->price) {
			r = cost_attempt_bounded(l, i, e->lk->k, e->longest, collect_cost_module,
						 collect_cost_max, e->lk, &ac);
			if (r < 0)
				return r;
		}
		r = e->each->on_attempt(e->each->userdata, l, a, e->price ? &ac : NULL);
		if (r < 0)
			return r;
	}
	return 0;
}

static int each_settle(struct read_ctx *c)
{
	struct each_state *e = c->each;
	size_t n;
	int r;

	e->settled_at = e->now;
	r = ledger_settle(c->ledger, e->now);
	if (r >= 0)
		r = each_hand_on(c);
	if (r >= 0 && !e->each->keep)
		r = ledger_forget_settled(c->ledger, e->now, &n);
	return r;
}

static int each_on_event(struct read_ctx *c, const struct ktrace_event *ev)
{
	struct each_state *e = c->each;

	/* LOST lines have no time */
	if (ev->kind == KTRACE_EV_LOST || e->settle_late)
		return 0;
	/* a counter clock counts no seconds; a trace far out of time order settles wrong */
	if (!ev->ts_digits || !isfinite(ev->ts) || ev->ts < e->now - OUT_OF_ORDER) {
		e->settle_late = true;
		return 0;
	}
	if (ev->ts > e->now)
		e->now = ev->ts;
	if (isnan(e->settled_at)) {
		e->settled_at = e->now;
		return 0;
	}
	return e->now - e->settled_at >= SETTLE_EVERY ? each_settle(c) : 0;
}

static int on_trace_event(void *userdata, const struct ktrace_event *ev)
{
	struct read_ctx *c = userdata;

	/* LOST lines have no time; counter clocks (ts_digits 0) count no seconds */
	if (c->trace_window && ev->ts_digits && ev->kind != KTRACE_EV_LOST &&
	    isfinite(ev->ts))
		window_add(c->trace_window, ev->ts);
	if (ev->kind != KTRACE_EV_LOST) {
		c->trace_back_steps += ev->ts_ns < c->trace_last_ns;
		c->trace_last_ns = ev->ts_ns;
	}
	if (c->in->on_event) {
		int r = c->in->on_event(c->in->userdata, ev);

		if (r < 0)
			return r;
	}
	if (c->each) {
		int r = ledger_feed_trace(c->ledger, ev);

		return r < 0 ? r : each_on_event(c, ev);
	}
	return ledger_feed_trace(c->ledger, ev);
}

static int on_klog_record(void *userdata, const struct klog_rec *rec)
{
	struct read_ctx *c = userdata;
	struct klog_finding f;

	c->records++;
	/* live top's stream (collect_stream) keeps no window */
	if (c->log_window && rec->has_monotonic && isfinite(rec->ts))
		window_add(c->log_window, rec->ts);
	if (klog_classify(rec->msg, rec->msg_len, &f) < 0 || f.kind == KLOG_FINDING_NONE)
		return 0;
	return ledger_add_klog(c->ledger, rec->has_monotonic ? rec->ts : NAN, f.module,
			       f.module_len, f.kind, f.err, rec->msg, rec->msg_len);
}

static int read_into(struct collect_lookup *lk, bool idempotent_finit,
		     const struct collect_input *in, struct each_state *each,
		     struct collect_result *ret)
{
	struct read_ctx c = { .in = in, .each = each };
	struct ledger_ops ops;
	struct kt_err e = { 0 };
	int r;

	memset(ret, 0, sizeof(*ret));
	ret->trace_window = ret->log_window = (struct collect_window){ NAN, NAN };
	c.trace_window = &ret->trace_window;
	c.log_window = &ret->log_window;
	collect_ledger_ops(lk, &ops);
	r = ledger_new(&ops, idempotent_finit, &ret->ledger);
	if (r < 0)
		return r;
	c.ledger = ret->ledger;
	ret->ledger->klog_runs = in->klog_runs;
	if (in->log) {
		struct klog_parser_ops kops = { .record = on_klog_record, .bad_line = on_bad_line };

		if (collect_looks_like_kmsg(in->log)) {
			ret->log_format = "kmsg";
			r = kmsg_read_file(in->log, in->log_path, &kops, &c, NULL, &e);
		} else {
			struct dmesg_stats ds = { 0 };

			ret->log_format = "dmesg";
			r = dmesg_read_file(in->log, in->log_path, &kops, &c, &ds, &e);
			ret->log_other_lines = ds.other_lines;
		}
		ret->log_records = c.records;
		ret->log_malformed = c.bad_lines;
		if (r < 0) {
			log_error("kernel log '%s': %s", in->log_path, strerror(-r));
			return r;
		}
	}
	if (in->trace) {
		struct ktrace_parser_ops tops = { .event = on_trace_event,
						   .bad_line = on_bad_line };

		c.bad_lines = 0;
		r = ktrace_events_read_file(in->trace, in->trace_path, &tops, &c,
					     &ret->trace_stats, &e);
		if (r < 0) {
			log_error("trace '%s': %s", in->trace_path, strerror(-r));
			return r;
		}
		/* ci notes a trace that goes back itself; what the window could not fix, not */
		if (!each || ret->trace_stats.late)
			collect_trace_window_warn(in->trace_path, &ret->trace_stats,
						  c.trace_back_steps);
	}
	r = ledger_finish(ret->ledger);
	if (r >= 0 && each)
		r = each_hand_on(&c);
	if (r >= 0 && in->trace)
		collect_warn_forgotten(in->trace_path, ret->ledger);
	if (r >= 0 && lk->k && !in->ledger_only && !each)
		r = cost_compute_bounded(ret->ledger, lk->k, collect_cost_module,
					 collect_cost_max, lk, &ret->cost);
	collect_note_layouts(lk->cat);
	if (r < 0)
		log_error("building load attempts: %s", strerror(-r));
	return r;
}

int collect_read(struct collect_lookup *lk, bool idempotent_finit,
		 const struct collect_input *in, struct collect_result *ret)
{
	return read_into(lk, idempotent_finit, in, NULL, ret);
}

int collect_read_each(struct collect_lookup *lk, bool idempotent_finit,
		      const struct collect_input *in, const struct collect_each *each,
		      struct collect_result *ret)
{
	struct each_state e = {
		.each = each, .lk = lk, .price = lk->k && !in->ledger_only,
		.now = -INFINITY, .settled_at = NAN,
	};

	return read_into(lk, idempotent_finit, in, &e, ret);
}

void collect_result_done(struct collect_result *r)
{
	cost_result_free(r->cost);
	ledger_free(r->ledger);
	memset(r, 0, sizeof(*r));
}

/* --- live: the spools read as they grow, into one ledger settled as it goes --------- */

/* A line longer than this is refused, as the file readers refuse it */
#define STREAM_LINE_MAX (1024 * 1024)
#define STREAM_READ 65536
#define STREAM_TRIM 65536
/* a stack trace follows its event in the trace by microseconds; wait far longer */
#define STACK_WAIT 0.1

struct stream_src {
	int fd;
	off_t off;			/* what was read of the spool */
	off_t trimmed;			/* punched out of it before this */
	bool no_trim;			/* the spool's file system cannot punch holes */
	char *buf;			/* a line not yet ended */
	size_t len, cap;
	bool skipping;			/* inside a refused line, until its newline */
	bool fed;			/* lines came since the log parser last emitted all */
};

struct collect_stream {
	struct collect_lookup *lk;
	struct read_ctx c;
	struct collect_input in;
	struct ledger *l;
	struct ktrace_parser *tp;
	struct kmsg_parser *kp;
	struct stream_src trace, kmsg;
	double now;			/* the newest trace event (trace clock) */
	uint64_t records_emitted;	/* log records handed to the ledger */
	double pending_ts;		/* the log record the parser holds back, or NAN */
	struct attempt_cost *cost;	/* the settled attempts' */
	size_t n_cost, cap_cost;
	/* collect_stream_direct(): the trace's events come from @pull, counted in @direct */
	int (*pull)(void *userdata);
	void *pull_userdata;
	struct ktrace_stats direct, stats;
};

static int stream_on_event(void *userdata, const struct ktrace_event *ev)
{
	struct collect_stream *cs = userdata;

	if (!isnan(ev->ts) && !(ev->ts <= cs->now))
		cs->now = ev->ts;
	return ledger_feed_trace(cs->l, ev);
}

static int stream_on_record(void *userdata, const struct klog_rec *rec)
{
	struct collect_stream *cs = userdata;

	cs->records_emitted++;
	return on_klog_record(&cs->c, rec);
}

static void stream_on_bad_line(void *userdata, const struct kt_err *e)
{
	struct collect_stream *cs = userdata;

	on_bad_line(&cs->c, e);
}

int collect_stream_new(struct collect_lookup *lk, bool idempotent_finit, int trace_fd,
		       const char *trace_path, int kmsg_fd, struct collect_stream **ret)
{
	struct ktrace_parser_ops tops = { .event = stream_on_event,
					   .bad_line = stream_on_bad_line };
	struct klog_parser_ops kops = { .record = stream_on_record,
					.bad_line = stream_on_bad_line };
	struct collect_stream *cs = calloc(1, sizeof(*cs));
	struct ledger_ops ops;
	int r;

	if (!cs)
		return -ENOMEM;
	cs->lk = lk;
	cs->now = -INFINITY;
	cs->pending_ts = NAN;
	cs->trace.fd = trace_fd;
	cs->kmsg.fd = kmsg_fd;
	collect_ledger_ops(lk, &ops);
	r = ledger_new(&ops, idempotent_finit, &cs->l);
	if (r >= 0 && trace_fd >= 0)
		r = ktrace_parser_new(trace_path, &tops, cs, &cs->tp);
	if (r >= 0 && kmsg_fd >= 0)
		r = kmsg_parser_new("/dev/kmsg", &kops, cs, &cs->kp);
	if (r < 0) {
		collect_stream_free(cs);
		return r;
	}
	cs->in.trace_path = trace_path;
	cs->in.log_path = "/dev/kmsg";
	cs->c.ledger = cs->l;
	cs->c.in = &cs->in;
	*ret = cs;
	return 0;
}

struct collect_stream *collect_stream_free(struct collect_stream *cs)
{
	if (!cs)
		return NULL;
	ktrace_parser_free(cs->tp);
	kmsg_parser_free(cs->kp);
	ledger_free(cs->l);
	free(cs->trace.buf);
	free(cs->kmsg.buf);
	free(cs->cost);
	free(cs);
	return NULL;
}

/* "prio,seq,usec,flags;": the record's time, or NAN (a dictionary line, malformed) */
static double kmsg_line_ts(const char *line, size_t len)
{
	char head[64];
	unsigned long long usec;
	size_t n = len < sizeof(head) - 1 ? len : sizeof(head) - 1;

	memcpy(head, line, n);
	head[n] = '\0';
	if (sscanf(head, "%*u,%*u,%llu", &usec) != 1)
		return NAN;
	return (double)usec / 1e6;
}

static int stream_line(struct collect_stream *cs, bool trace, const char *line, size_t len)
{
	if (memchr(line, '\0', len)) {
		if (trace) {
			ktrace_parser_skip_line(cs->tp, "line contains a NUL byte");
			return 0;
		}
		return kmsg_parser_skip_line(cs->kp, "line contains a NUL byte");
	}
	if (trace)
		return ktrace_parser_feed(cs->tp, line, len);
	{
		uint64_t before = cs->records_emitted;
		double ts = kmsg_line_ts(line, len);
		int r = kmsg_parser_feed(cs->kp, line, len);

		/* a record line starts the record the parser now holds, unless joined */
		if (r >= 0 && !isnan(ts) && (cs->records_emitted != before || isnan(cs->pending_ts)))
			cs->pending_ts = ts;
		return r;
	}
}

/*
 * What was read is in the ledger (or in @src->buf): its pages go back to the system,
 * in steps of at least STREAM_TRIM. The size stays: the writer appends after it.
 */
static void stream_trim(struct stream_src *src)
{
	off_t to = src->off / STREAM_TRIM * STREAM_TRIM;

	if (src->no_trim || to <= src->trimmed)
		return;
	if (fallocate(src->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, src->trimmed,
		      to - src->trimmed) < 0) {
		/* kept whole, as where it cannot be punched (the data is still right) */
		src->no_trim = true;
		return;
	}
	src->trimmed = to;
}

/* What @src gained since the last call, line by line (a last partial line waits) */
static int stream_read(struct collect_stream *cs, struct stream_src *src, bool trace,
		       bool *ret_any)
{
	*ret_any = false;
	for (;;) {
		size_t start = 0;
		ssize_t n;
		int r;

		if (src->cap - src->len < STREAM_READ) {
			size_t ncap = src->len + STREAM_READ;
			char *nb = realloc(src->buf, ncap);

			if (!nb)
				return -ENOMEM;
			src->buf = nb;
			src->cap = ncap;
		}
		n = pread(src->fd, src->buf + src->len, STREAM_READ, src->off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0) {
			stream_trim(src);
			return 0;
		}
		*ret_any = true;
		src->off += n;
		for (char *nl, *q = src->buf + src->len, *qend = q + n;
		     (nl = memchr(q, '\n', (size_t)(qend - q))); q = nl + 1) {
			size_t i = (size_t)(nl - src->buf);

			if (!src->skipping) {
				r = stream_line(cs, trace, src->buf + start, i - start);
				if (r < 0)
					return r;
			}
			src->skipping = false;
			start = i + 1;
		}
		src->len += (size_t)n;
		memmove(src->buf, src->buf + start, src->len - start);
		src->len -= start;
		if (src->len > STREAM_LINE_MAX) {
			/* the rest of that line goes too */
			if (!src->skipping) {
				if (trace)
					ktrace_parser_skip_line(cs->tp, "line too long");
				else if ((r = kmsg_parser_skip_line(cs->kp, "line too long")) < 0)
					return r;
			}
			src->skipping = true;
			src->len = 0;
		}
	}
}

/* The boot's text, as the parser counted it, and the decoded events after it */
static void direct_stats(struct collect_stream *cs)
{
	const struct ktrace_stats *d = &cs->direct;
	struct ktrace_stats *st = &cs->stats;

	*st = *ktrace_parser_stats(cs->tp);
	st->events += d->events;
	for (size_t k = 0; k < ARRAY_SIZE(st->by_kind); k++)
		st->by_kind[k] += d->by_kind[k];
	st->unknown += d->unknown;
	st->malformed += d->malformed;
	st->stacks += d->stacks;
	st->frames += d->frames;
	st->lost_events += d->lost_events;
	st->lost_uncounted += d->lost_uncounted;
}

int collect_stream_feed(struct collect_stream *cs)
{
	bool any;
	int r;

	if (cs->kp) {
		r = stream_read(cs, &cs->kmsg, false, &any);
		if (r < 0)
			return r;
		/*
		 * The parser holds the last record back for a continuation, which comes with
		 * it: one that waited a whole refresh with nothing after it goes out now.
		 */
		if (!any && !isnan(cs->pending_ts)) {
			r = kmsg_parser_finish(cs->kp);
			if (r < 0)
				return r;
			cs->pending_ts = NAN;
		}
	}
	if (cs->pull) {
		r = cs->pull(cs->pull_userdata);
		direct_stats(cs);
		return r;
	}
	if (cs->tp) {
		r = stream_read(cs, &cs->trace, true, &any);
		if (r < 0)
			return r;
		/* the last event of a CPU gone quiet must not hold the rest back */
		r = ktrace_parser_flush_older(cs->tp, STACK_WAIT);
		if (r < 0)
			return r;
	}
	return 0;
}

int collect_stream_settle(struct collect_stream *cs)
{
	struct ledger *l = cs->l;
	/* a log record still held back may name an attempt of its time */
	double now = !isnan(cs->pending_ts) && cs->pending_ts < cs->now ? cs->pending_ts : cs->now;
	int r;

	r = ledger_settle(l, now);
	if (r < 0)
		return r;
	/* settled attempts no longer change: each is priced once */
	if (!cs->lk->k)
		return 0;
	if (l->n_settled &&
	    array_grow_uninit((void **)&cs->cost, l->n_settled - 1, &cs->cap_cost,
			      sizeof(*cs->cost)) < 0)
		return -ENOMEM;
	for (; cs->n_cost < l->n_settled; cs->n_cost++) {
		const struct attempt *a = &l->attempts[cs->n_cost];

		array_prefault(cs->cost, cs->n_cost, cs->cap_cost, sizeof(*cs->cost));
		cost_attempt(cs->lk->k, a, a->module ? collect_cost_module(cs->lk, a->module) : NULL,
			     &cs->cost[cs->n_cost]);
	}
	return 0;
}

int collect_stream_direct(struct collect_stream *cs, int (*pull)(void *userdata), void *userdata)
{
	bool any;
	int r;

	if (!cs->tp)
		return -EINVAL;
	r = stream_read(cs, &cs->trace, true, &any);
	if (r >= 0)
		r = ktrace_parser_finish(cs->tp);
	if (r < 0)
		return r;
	cs->pull = pull;
	cs->pull_userdata = userdata;
	direct_stats(cs);
	return 0;
}

int collect_stream_event(struct collect_stream *cs, const struct ktrace_event *ev)
{
	struct ktrace_stats *st = &cs->direct;

	/* what ktrace_parser counts of the same event */
	st->events++;
	st->by_kind[ev->kind]++;
	if (ev->kind == KTRACE_EV_UNKNOWN)
		st->unknown++;
	if (ev->kind == KTRACE_EV_LOST) {
		st->lost_events += ev->lost.count;
		st->lost_uncounted += ev->lost.uncounted;
	}
	if (ev->n_frames) {
		st->stacks++;
		st->frames += ev->n_frames;
	}
	return stream_on_event(cs, ev);
}

void collect_stream_bad(struct collect_stream *cs, const char *what)
{
	(void)what;	/* top shows a count, not the lines */
	cs->direct.malformed++;
}

int collect_stream_finish(struct collect_stream *cs)
{
	int r = 0;

	if (cs->kp)
		r = kmsg_parser_finish(cs->kp);
	cs->pending_ts = NAN;
	if (r >= 0 && cs->tp)
		r = ktrace_parser_finish(cs->tp);
	if (r >= 0)
		r = ledger_finish(cs->l);
	if (r >= 0) {
		/* everything is settled now: price what was not */
		double now = cs->now;

		cs->now = INFINITY;
		r = collect_stream_settle(cs);
		cs->now = now;
	}
	return r;
}

const struct ledger *collect_stream_ledger(const struct collect_stream *cs)
{
	return cs->l;
}

const struct attempt_cost *collect_stream_cost(const struct collect_stream *cs)
{
	return cs->lk->k ? cs->cost : NULL;
}

const struct ktrace_stats *collect_stream_trace_stats(const struct collect_stream *cs)
{
	if (!cs->tp)
		return NULL;
	return cs->pull ? &cs->stats : ktrace_parser_stats(cs->tp);
}
