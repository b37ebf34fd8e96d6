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
#include "sources/dmesg-text.h"
#include "sources/kmsg.h"
#include "sources/modindex.h"
#include "sources/proc-modules.h"
#include "util/log.h"
#include "collect.h"

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
	if (a->syscall == ATTEMPT_FINIT && !(a->measured && a->vmap[VMAP_KREAD]))
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

void collect_ledger_ops(struct collect_lookup *lk, struct ledger_ops *ret)
{
	*ret = (struct ledger_ops){
		.resolve_alias = lookup_resolve,
		.module_closure = lookup_closure,
		.names_free = modindex_names_free,
		.live_at_start = lookup_live_at_start,
		.identify = lookup_identify,
		.userdata = lk,
	};
}

const struct cost_module *collect_cost_module(void *userdata, const char *name)
{
	struct collect_lookup *lk = userdata;

	return lk->cat ? catalog_cost_module(lk->cat, catalog_find(lk->cat, name)) : NULL;
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

struct read_ctx {
	struct ledger *ledger;
	const struct collect_input *in;
	unsigned int bad_lines;
	uint64_t records;
};

static void on_bad_line(void *userdata, const struct kt_err *e)
{
	struct read_ctx *c = userdata;

	if (++c->bad_lines <= BAD_LINE_WARNINGS)
		log_warn("'%s':%u: %s, skipping", e->path, e->line, e->what ? e->what : "malformed");
	else if (c->bad_lines == BAD_LINE_WARNINGS + 1)
		log_warn("'%s': more malformed lines, not shown", e->path);
}

static int on_trace_event(void *userdata, const struct tracefs_event *ev)
{
	struct read_ctx *c = userdata;

	if (c->in->on_event) {
		int r = c->in->on_event(c->in->userdata, ev);

		if (r < 0)
			return r;
	}
	return ledger_feed_trace(c->ledger, ev);
}

static int on_klog_record(void *userdata, const struct klog_rec *rec)
{
	struct read_ctx *c = userdata;
	struct klog_finding f;

	c->records++;
	if (klog_classify(rec->msg, rec->msg_len, &f) < 0 || f.kind == KLOG_FINDING_NONE)
		return 0;
	return ledger_add_klog(c->ledger, rec->has_monotonic ? rec->ts : NAN, f.module,
			       f.module_len, f.kind, f.err, rec->msg, rec->msg_len);
}

int collect_read(struct collect_lookup *lk, bool idempotent_finit,
		 const struct collect_input *in, struct collect_result *ret)
{
	struct read_ctx c = { .in = in };
	struct ledger_ops ops;
	struct kt_err e = { 0 };
	int r;

	memset(ret, 0, sizeof(*ret));
	collect_ledger_ops(lk, &ops);
	r = ledger_new(&ops, idempotent_finit, &ret->ledger);
	if (r < 0)
		return r;
	c.ledger = ret->ledger;
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
		struct tracefs_parser_ops tops = { .event = on_trace_event,
						   .bad_line = on_bad_line };

		c.bad_lines = 0;
		r = tracefs_events_read_file(in->trace, in->trace_path, &tops, &c,
					     &ret->trace_stats, &e);
		if (r < 0) {
			log_error("trace '%s': %s", in->trace_path, strerror(-r));
			return r;
		}
	}
	r = ledger_finish(ret->ledger);
	if (r >= 0 && lk->k && !in->ledger_only)
		r = cost_compute(ret->ledger, lk->k, collect_cost_module, lk, &ret->cost);
	if (r < 0)
		log_error("building load attempts: %s", strerror(-r));
	return r;
}

void collect_result_done(struct collect_result *r)
{
	cost_result_free(r->cost);
	ledger_free(r->ledger);
	memset(r, 0, sizeof(*r));
}
