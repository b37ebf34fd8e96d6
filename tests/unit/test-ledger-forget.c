/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * collect_read_each() and ledger_forget_settled(): the attempts handed on one at a time,
 * forgetting or not, must be collect_read()'s (same order, outcome, name, requester,
 * leader and cost, field by field), over the captured traces with their logs and over a
 * generated trace long enough that forgetting keeps only a small part of it. ci's
 * findings fed the same way (ci_trace_attempt()) sum the boot's figures that
 * ledger_summarize() and the cost model give over the whole ledger, --allow's share too.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ci/ci.h"
#include "ci/model.h"
#include "session/collect.h"
#include "cost/catalog.h"
#include "cost/cost.h"
#include "cost/estimate.h"
#include "ledger/ledger.h"
#include "ledger/proctab.h"
#include "ledger/summary.h"
#include "sources/modindex.h"
#include "sources/proc-modules.h"
#include "util/root.h"

struct fixture {
	const char *dir, *release;
};

static const struct fixture fixtures[] = {
	{ FIXTURES_DIR "/debian-6.1-plain", "6.1.0-57-amd64" },
	{ FIXTURES_DIR "/debian-6.12-xz", "6.12.118+deb12-amd64" },
	{ FIXTURES_DIR "/custom-6.12-modstats", "6.12.118" },
};

struct tree {
	struct kt_root *root;
	struct modindex *idx;
	struct proc_modules *pm;
	struct catalog *cat;
	struct cost_kernel k;
	struct collect_lookup lk;
};

static void tree_open(const struct fixture *fx, struct tree *t)
{
	char moduledir[4096];

	memset(t, 0, sizeof(*t));
	snprintf(moduledir, sizeof(moduledir), "%s/lib/modules/%s", fx->dir, fx->release);
	assert_int_equal(root_new(fx->dir, &t->root), 0);
	assert_int_equal(modindex_new(t->root, moduledir, &t->idx), 0);
	assert_int_equal(proc_modules_read(t->root, &t->pm, NULL), 0);
	assert_int_equal(catalog_new(moduledir, false, NULL, &t->cat), 0);
	t->k.page_size = 4096;
	t->k.in_kernel_decompress = true;
	t->k.lp.early_dup_check = true;
	t->k.lp.idempotent_finit = true;
	t->lk = (struct collect_lookup){ .idx = t->idx, .pm = t->pm, .cat = t->cat, .k = &t->k };
}

static void tree_close(struct tree *t)
{
	catalog_free(t->cat);
	proc_modules_free(t->pm);
	modindex_free(t->idx);
	root_free(t->root);
}

/* What an attempt is to a reader: the fields compared, copied out of the ledger */
struct seen {
	struct attempt a;		/* its pointers cleared: the strings below */
	char module[64], alias[64], comm[32];
	long leader;			/* from the trace's first attempt; -1 none */
	int parent;
	bool priced;
	struct attempt_cost cost;
};

struct seen_list {
	struct seen *v;
	size_t n;
	/* the requests that are findings (needless, unresolved) at the end: line, kind */
	uint64_t *needless;
	size_t n_requests;
	size_t held_requests;		/* the requests the ledger holds at the end */
	size_t most_kept;		/* the most attempts the ledger held at a callback */
	size_t most_module_events;	/* the most module load and free events it held */
	uint64_t wasted;
	uint64_t failed, duplicates;
	struct ci_findings *ci;		/* fed too, when not NULL */
};

static void seen_take(struct seen *s, const struct ledger *l, const struct attempt *a,
		      const struct attempt_cost *cost)
{
	memset(s, 0, sizeof(*s));
	s->a = *a;
	s->a.module = s->a.live_name = s->a.probe_name = s->a.file_name = NULL;
	s->a.leader = s->a.request = 0;
	snprintf(s->module, sizeof(s->module), "%s", a->module ? a->module : "-");
	if (a->request >= 0)
		snprintf(s->alias, sizeof(s->alias), "%s", l->requests[a->request].alias);
	snprintf(s->comm, sizeof(s->comm), "%s",
		 proctab_comm(ledger_proctab(l), a->pid) ? proctab_comm(ledger_proctab(l), a->pid)
							 : "-");
	s->parent = proctab_parent(ledger_proctab(l), a->pid);
	s->leader = a->leader >= 0 ? (long)l->n_forgotten + a->leader : -1;
	if (cost) {
		s->priced = true;
		s->cost = *cost;
	}
}

static int on_attempt(void *userdata, const struct ledger *l, const struct attempt *a,
		      const struct attempt_cost *cost)
{
	struct seen_list *sl = userdata;

	sl->v = realloc(sl->v, (sl->n + 1) * sizeof(*sl->v));
	assert_non_null(sl->v);
	seen_take(&sl->v[sl->n++], l, a, cost);
	/* a settled waiter's leader is still there when it is handed on */
	if (a->leader >= 0)
		assert_true((size_t)a->leader < l->n_attempts);
	if (l->n_attempts > sl->most_kept)
		sl->most_kept = l->n_attempts;
	{
		struct ledger_held h;

		ledger_held(l, &h);
		assert_int_equal(h.attempts, l->n_attempts);
		if (h.module_events > sl->most_module_events)
			sl->most_module_events = h.module_events;
	}
	if (cost)
		sl->wasted += cost->wasted;
	sl->failed += attempt_is_failure(a);
	sl->duplicates += attempt_is_duplicate(a);
	return sl->ci ? ci_trace_attempt(sl->ci, l, a, cost) : 0;
}

static void assert_seen_equal(const struct seen *x, const struct seen *y, size_t i,
			      const char *what)
{
	const struct attempt *a = &x->a, *b = &y->a;
	const struct attempt_cost *c = &x->cost, *d = &y->cost;

	if (strcmp(x->module, y->module) || strcmp(x->alias, y->alias) ||
	    strcmp(x->comm, y->comm) || x->parent != y->parent || x->leader != y->leader ||
	    a->pid != b->pid || a->start != b->start || a->end != b->end ||
	    a->outcome != b->outcome || a->name_source != b->name_source || a->err != b->err ||
	    a->syscall != b->syscall || a->complete != b->complete ||
	    a->waiter_by_timing != b->waiter_by_timing || strcmp(a->comm, b->comm) ||
	    memcmp(a->vmap, b->vmap, sizeof(a->vmap)))
		fail_msg("%s: attempt %zu (pid %d, %.6f): %s %s %s leader %ld, expected %s %s "
			 "%s leader %ld", what, i, a->pid, a->start, x->module,
			 attempt_outcome_name(a->outcome), x->alias, x->leader, y->module,
			 attempt_outcome_name(b->outcome), y->alias, y->leader);
	if (x->priced != y->priced || c->estimated != d->estimated ||
	    c->complete != d->complete || c->source != d->source ||
	    memcmp(c->est, d->est, sizeof(c->est)) || c->est_total != d->est_total ||
	    c->wasted != d->wasted || c->race_extra != d->race_extra || c->lo != d->lo ||
	    c->hi != d->hi || c->hi_unbounded != d->hi_unbounded || c->doubt != d->doubt)
		fail_msg("%s: attempt %zu (pid %d, %.6f, %s): cost %llu [%llu, %llu] doubt %d, "
			 "expected %llu [%llu, %llu] doubt %d", what, i, a->pid, a->start,
			 x->module, (unsigned long long)c->wasted, (unsigned long long)c->lo,
			 (unsigned long long)c->hi, c->doubt, (unsigned long long)d->wasted,
			 (unsigned long long)d->lo, (unsigned long long)d->hi, d->doubt);
}

static void requests_take(struct seen_list *sl, const struct ledger *l)
{
	sl->held_requests = l->n_requests;
	sl->needless = calloc(l->n_requests + 1, sizeof(*sl->needless));
	assert_non_null(sl->needless);
	for (size_t i = 0; i < l->n_requests; i++) {
		const struct autoload_request *rq = &l->requests[i];
		bool unresolved = !rq->resolve_failed && rq->n_resolved == 0;

		if (rq->needless || unresolved)
			sl->needless[sl->n_requests++] =
				(uint64_t)rq->line << 2 | (uint64_t)rq->needless << 1 | unresolved;
	}
}

/* collect_read()'s attempts as a reader would have been handed them */
static void batch(struct collect_lookup *lk, const char *trace, const char *log,
		  struct seen_list *ret, struct ledger_summary **ret_sum, uint64_t *ret_wasted)
{
	struct collect_input in = { .trace_path = trace, .log_path = log, .klog_runs = true };
	struct collect_result res;

	memset(ret, 0, sizeof(*ret));
	in.trace = fopen(trace, "re");
	assert_non_null(in.trace);
	in.log = log ? fopen(log, "re") : NULL;
	assert_int_equal(collect_read(lk, true, &in, &res), 0);
	assert_non_null(res.cost);
	for (size_t i = 0; i < res.ledger->n_attempts; i++)
		on_attempt(ret, res.ledger, &res.ledger->attempts[i], &res.cost->att[i]);
	assert_int_equal(ledger_summarize(res.ledger, ret_sum), 0);
	*ret_wasted = res.cost->wasted;
	requests_take(ret, res.ledger);
	collect_result_done(&res);
	fclose(in.trace);
	if (in.log)
		fclose(in.log);
}

static void each(struct collect_lookup *lk, const char *trace, const char *log, bool keep,
		 const struct seen_list *want, struct seen_list *ret, size_t *ret_forgotten,
		 struct ci_findings *ci)
{
	struct collect_input in = { .trace_path = trace, .log_path = log, .klog_runs = true };
	struct collect_each e = { .on_attempt = on_attempt, .userdata = ret, .keep = keep };
	struct collect_result res;

	memset(ret, 0, sizeof(*ret));
	ret->ci = ci;
	in.trace = fopen(trace, "re");
	assert_non_null(in.trace);
	in.log = log ? fopen(log, "re") : NULL;
	if (ci) {
		assert_int_equal(ci_begin_input(ci, trace, NULL), 0);
		assert_int_equal(ci_trace_begin(ci, lk->k != NULL), 0);
	}
	assert_int_equal(collect_read_each(lk, true, &in, &e, &res), 0);
	assert_null(res.cost);
	if (ci)
		assert_int_equal(ci_trace_end(ci, res.ledger), 0);
	assert_int_equal(res.ledger->n_settled, res.ledger->n_attempts);
	*ret_forgotten = res.ledger->n_forgotten;
	requests_take(ret, res.ledger);
	/* what the ledger kept at the end: its waiters' leaders rebased (or gone) */
	for (size_t i = 0; i < res.ledger->n_attempts; i++) {
		const struct attempt *a = &res.ledger->attempts[i];

		if (a->leader >= 0)
			assert_int_equal(res.ledger->n_forgotten + (size_t)a->leader,
					 want->v[res.ledger->n_forgotten + i].leader);
	}
	collect_result_done(&res);
	fclose(in.trace);
	if (in.log)
		fclose(in.log);
}

/*
 * A ci model whose --allow names the module of the first failed attempt with a name, else
 * of the first with one (@allow holds the pattern; empty when no attempt has a name)
 */
static struct ci_findings *ci_with_allow(const struct seen_list *want, char *allow,
					 size_t size, struct ci_options *o)
{
	static char *patterns[1];
	const struct seen *top = NULL;
	struct ci_findings *c;

	for (size_t i = 0; i < want->n; i++) {
		const struct seen *s = &want->v[i];

		if (strcmp(s->module, "-") == 0)
			continue;
		if (!top || (!attempt_is_failure(&top->a) && attempt_is_failure(&s->a)))
			top = s;
	}
	snprintf(allow, size, "%s", top ? top->module : "");
	for (char *s = allow; *s; s++)
		if (*s == '-')
			*s = '_';
	memset(o, 0, sizeof(*o));
	o->max_duplicates = o->max_failures = o->max_wasted = -1;
	patterns[0] = allow;
	o->allow = patterns;
	o->n_allow = *allow ? 1 : 0;
	assert_int_equal(ci_new(o, NULL, &c), 0);
	return c;
}

/*
 * The boot's figures ci summed as the attempts settled: the whole ledger's
 * (ledger_summarize(), the cost model's waste), and for the gates the same less the
 * --allow'ed module's attempts (@want: collect_read()'s, with their cost).
 */
static void assert_ci_figures(const struct ci_findings *c, const struct seen_list *want,
			      const struct ledger_summary *sum, uint64_t wasted, const char *allow)
{
	const struct boot *b = ci_boot_at(c, 0);
	struct ci_figures out = { 0 };
	uint64_t dups = 0;

	assert_non_null(b);
	for (size_t i = 0; i < sum->n_modules; i++)
		dups += sum->modules[i].duplicate;
	assert_int_equal(b->all.attempts, sum->attempts);
	assert_int_equal(b->all.failed, sum->failed);
	assert_int_equal(b->all.duplicates, dups);
	assert_true(b->waste_known);
	assert_int_equal(b->all.wasted, wasted);
	for (size_t i = 0; i < want->n; i++) {
		char norm[64];

		snprintf(norm, sizeof(norm), "%s", want->v[i].module);
		for (char *s = norm; *s; s++)
			if (*s == '-')
				*s = '_';
		if (!*allow || strcmp(norm, allow) != 0)
			continue;
		out.attempts++;
		out.failed += attempt_is_failure(&want->v[i].a);
		out.duplicates += attempt_is_duplicate(&want->v[i].a);
		out.wasted += want->v[i].cost.wasted;
	}
	assert_true(!*allow || out.attempts > 0);
	assert_int_equal(b->gated.attempts, sum->attempts - out.attempts);
	assert_int_equal(b->gated.failed, sum->failed - out.failed);
	assert_int_equal(b->gated.duplicates, dups - out.duplicates);
	assert_int_equal(b->gated.wasted, wasted - out.wasted);
}

/*
 * Batch, kept and forgetting: the same attempts; returns how many were forgotten.
 * @ret_requests (may be NULL): the requests held at the end kept, forgetting, and the
 * requests that are findings
 */
static size_t compare_three(struct collect_lookup *lk, const char *trace, const char *log,
			    size_t *ret_most_kept, size_t *ret_most_events, size_t *ret_n,
			    size_t ret_requests[3])
{
	struct seen_list want, kept, forgot;
	struct ledger_summary *sum;
	uint64_t wasted, dups = 0;
	size_t n_kept, n_forgot;
	struct ci_options opt;
	struct ci_findings *ci;
	char allow[64];

	batch(lk, trace, log, &want, &sum, &wasted);
	each(lk, trace, log, true, &want, &kept, &n_kept, NULL);
	ci = ci_with_allow(&want, allow, sizeof(allow), &opt);
	each(lk, trace, log, false, &want, &forgot, &n_forgot, ci);
	assert_int_equal(n_kept, 0);
	assert_int_equal(kept.n, want.n);
	assert_int_equal(forgot.n, want.n);
	for (size_t i = 0; i < want.n; i++) {
		assert_seen_equal(&kept.v[i], &want.v[i], i, "kept");
		assert_seen_equal(&forgot.v[i], &want.v[i], i, "forgetting");
	}
	/*
	 * whether a request was needless, decided from the module events it saw: the same
	 * findings, though forgetting may have dropped the requests that are none
	 */
	assert_true(forgot.held_requests <= kept.held_requests);
	assert_int_equal(kept.n_requests, want.n_requests);
	assert_int_equal(forgot.n_requests, want.n_requests);
	for (size_t i = 0; i < want.n_requests; i++) {
		if (kept.needless[i] != want.needless[i] || forgot.needless[i] != want.needless[i])
			fail_msg("request finding %zu: %#llx kept, %#llx forgetting, expected %#llx", i,
				 (unsigned long long)kept.needless[i],
				 (unsigned long long)forgot.needless[i],
				 (unsigned long long)want.needless[i]);
	}
	/* the totals a reader sums from the callbacks are the whole ledger's */
	for (size_t i = 0; i < sum->n_modules; i++)
		dups += sum->modules[i].duplicate;
	assert_int_equal(forgot.n, sum->attempts);
	assert_int_equal(forgot.failed, sum->failed);
	assert_int_equal(forgot.duplicates, dups);
	assert_int_equal(forgot.wasted, wasted);
	assert_ci_figures(ci, &want, sum, wasted, allow);
	ci_free(ci);
	*ret_most_kept = forgot.most_kept;
	if (ret_most_events)
		*ret_most_events = forgot.most_module_events;
	*ret_n = want.n;
	if (ret_requests) {
		ret_requests[0] = kept.held_requests;
		ret_requests[1] = forgot.held_requests;
		ret_requests[2] = want.n_requests;
	}
	ledger_summary_free(sum);
	free(want.v);
	free(kept.v);
	free(forgot.v);
	free(want.needless);
	free(kept.needless);
	free(forgot.needless);
	return n_forgot;
}

static void test_fixtures(void **state)
{
	(void)state;
	for (size_t f = 0; f < sizeof(fixtures) / sizeof(fixtures[0]); f++) {
		static const char *const logs[] = { "capture/kmsg.raw", "capture/dmesg.txt", NULL };

		for (size_t g = 0; g < sizeof(logs) / sizeof(logs[0]); g++) {
			char trace[4096], log[4096];
			size_t most, n;
			struct tree t;

			tree_open(&fixtures[f], &t);
			snprintf(trace, sizeof(trace), "%s/sys/kernel/tracing/trace", fixtures[f].dir);
			snprintf(log, sizeof(log), "%s/%s", fixtures[f].dir, logs[g] ? logs[g] : "");
			/* a capture spans seconds: its first attempts are forgotten before its last */
			assert_true(compare_three(&t.lk, trace, logs[g] ? log : NULL, &most, NULL, &n,
						  NULL) > 0);
			assert_true(n > 0);
			tree_close(&t);
		}
	}
}

/* The storm's lines, sorted by time before they are written: long calls overlap others */
struct line {
	double ts;
	size_t seq;
	char s[160];
};

struct lines {
	struct line *v;
	size_t n, cap;
};

static void emit(struct lines *ls, double ts, const char *task, int pid, int cpu,
		 const char *fmt, ...)
{
	struct line *l;
	va_list ap;
	int k;

	if (ls->n == ls->cap) {
		ls->cap = ls->cap ? 2 * ls->cap : 4096;
		ls->v = realloc(ls->v, ls->cap * sizeof(*ls->v));
		assert_non_null(ls->v);
	}
	l = &ls->v[ls->n];
	l->ts = ts;
	l->seq = ls->n++;
	k = snprintf(l->s, sizeof(l->s), "%s-%d [%03d] ..... %.6f: ", task, pid, cpu, ts);
	va_start(ap, fmt);
	vsnprintf(l->s + k, sizeof(l->s) - (size_t)k, fmt, ap);
	va_end(ap);
}

static int line_cmp(const void *x, const void *y)
{
	const struct line *a = x, *b = y;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/*
 * The catalog's @k-th module, but the two that "crypto-crc32c" resolves to: the storm
 * gives them events of their own (crc32c_generic none, Live from the start)
 */
static const char *storm_module(const struct tree *t, size_t k)
{
	for (size_t j = 0;; j++) {
		const char *mod = t->cat->e[(k + j) % t->cat->n].name;

		if (strncmp(mod, "crc32c", 6) != 0)
			return mod;
	}
}

#define FINIT "sys_finit_module(fd: 3, uargs: 5bfb41, flags: 0)"
#define ENOENT_RET "sys_finit_module -> 0xfffffffffffffffe"

/*
 * A storm of @n attempts over the module files of @t, cycling their names as a machine
 * cycles its few thousand modules: loads, failures, idempotent waiters (an overlapping
 * finit_module() of the same file, returning what its leader returned), kmod's fallback
 * (ENOEXEC finit_module, then init_module on the same thread), autoload requests
 * answered by a modprobe (the module of every other one removed just before it, so
 * that whether it was needless turns on the module's events of that moment; now and then
 * one of two modules), duplicates
 * of a Live module, and now and then two failed
 * calls of 1.5 s that overlap: the later one, settled long after the earlier, is priced
 * with it in view (the earlier one must not be forgotten before).
 */
static void gen_storm(const struct tree *t, size_t n, const char *path)
{
	FILE *f = fopen(path, "we");
	struct lines ls = { 0 };
	double ts = 100.0;

	assert_non_null(f);
	assert_true(t->cat->n > 10);
	for (size_t i = 0; i < n; i++) {
		const char *mod = storm_module(t, i);
		int pid = 1000 + (int)i, cpu = (int)(i % 4);
		/*
		 * An autoload's modprobe pid comes back after 6 s, for the same module: a
		 * process's first attempt decides its request, and was forgotten by then
		 */
		size_t q = i / 6 % 500;

		switch (i % 6) {
		case 0:	/* a load, and a waiter of it */
			emit(&ls, ts, "modprobe", pid, cpu, FINIT);
			emit(&ls, ts + 0.000005, "modprobe", 100000 + (int)i, cpu + 1, FINIT);
			emit(&ls, ts + 0.000010, "modprobe", pid, cpu, "module_load: %s", mod);
			emit(&ls, ts + 0.000020, "modprobe", pid, cpu, "sys_finit_module -> 0x0");
			emit(&ls, ts + 0.000022, "modprobe", 100000 + (int)i, cpu + 1, "sys_finit_module -> 0x0");
			break;
		case 1:	/* a duplicate of a Live module; rmmod of the next request's module */
			emit(&ls, ts, "modprobe", pid, cpu, FINIT);
			emit(&ls, ts + 0.000020, "modprobe", pid, cpu, "sys_finit_module -> 0xffffffffffffffef");
			if (i / 6 % 2)
				emit(&ls, ts + 0.000030, "rmmod", 900, cpu, "module_free: %s",
				     storm_module(t, q));
			break;
		case 2:	/* kmod's fallback */
			emit(&ls, ts, "modprobe", pid, cpu, FINIT);
			emit(&ls, ts + 0.000020, "modprobe", pid, cpu, "sys_finit_module -> 0xfffffffffffffff8");
			emit(&ls, ts + 0.000030, "modprobe", pid, cpu, "sys_init_module(umod: 5bfb41, len: 4096, uargs: 5bfb41)");
			emit(&ls, ts + 0.000035, "modprobe", pid, cpu, "module_load: %s", mod);
			emit(&ls, ts + 0.000040, "modprobe", pid, cpu, "sys_init_module -> 0x0");
			break;
		case 3:	/* an autoload request, its modprobe a moment later */
			mod = storm_module(t, q);
			pid = 50000 + (int)q;
			emit(&ls, ts, "systemd-udevd", 500, cpu, "module_request: %s wait=1 call_site=__request_module", mod);
			emit(&ls, ts + 0.000100, "modprobe", pid, cpu, FINIT);
			emit(&ls, ts + 0.000110, "modprobe", pid, cpu, "module_load: %s", mod);
			emit(&ls, ts + 0.000120, "modprobe", pid, cpu, "sys_finit_module -> 0x0");
			break;
		default: /* a failure the trace cannot name */
			emit(&ls, ts, "modprobe", pid, cpu, FINIT);
			emit(&ls, ts + 0.000020, "modprobe", pid, cpu, ENOENT_RET);
			break;
		}
		/*
		 * A request of two modules, one of them without events: open to change till
		 * it settles, it holds crc32c_intel's events from the last before it, which
		 * says it was Live then, though its later events alone would say it was not
		 */
		if (i % 1000 == 250) {
			emit(&ls, ts, "insmod", 901, 7, "module_load: crc32c_intel");
			emit(&ls, ts + 0.001, "systemd-udevd", 500, 7,
			     "module_request: crypto-crc32c wait=1 call_site=crypto_alg_mod_lookup");
			emit(&ls, ts + 0.5, "rmmod", 902, 7, "module_free: crc32c_intel");
			emit(&ls, ts + 1.0, "insmod", 903, 7, "module_load: crc32c_intel");
		}
		if (i % 1000 == 500) {
			emit(&ls, ts, "insmod", 200000 + (int)i, 5, FINIT);
			emit(&ls, ts + 1.5, "insmod", 200000 + (int)i, 5, ENOENT_RET);
			emit(&ls, ts + 1.4, "insmod", 300000 + (int)i, 6, FINIT);
			emit(&ls, ts + 2.9, "insmod", 300000 + (int)i, 6, ENOENT_RET);
		}
		ts += 0.002;
	}
	qsort(ls.v, ls.n, sizeof(*ls.v), line_cmp);
	fprintf(f, "# tracer: nop\n#\n");
	for (size_t i = 0; i < ls.n; i++)
		fprintf(f, "%s\n", ls.v[i].s);
	free(ls.v);
	fclose(f);
}

static void test_storm(void **state)
{
	char path[] = "/tmp/kmodtop-forget-XXXXXX";
	int fd = mkstemp(path);
	size_t most, most_events, n, forgotten, requests[3];
	struct tree t;

	(void)state;
	/* generated traces of tens of seconds: minutes under valgrind; make check and the
	 * sanitizer build run them (make check-valgrind runs the fixtures above) */
	if (getenv("KMODTOP_VALGRIND")) {
		if (fd >= 0)
			close(fd);
		unlink(path);
		skip();
	}
	assert_true(fd >= 0);
	close(fd);
	tree_open(&fixtures[1], &t);
	/* 40 s of trace: forgetting keeps a few seconds of it */
	gen_storm(&t, 20000, path);
	forgotten = compare_three(&t.lk, path, NULL, &most, &most_events, &n, requests);
	assert_true(n >= 20000);
	assert_true(forgotten > n / 2);
	assert_true(most < n / 4);
	/* half the attempts load a module, a twelfth remove one: a few seconds' are kept */
	assert_true(most_events < n / 4);
	/* its requests' modprobes come back: each request stays for them, findings or not */
	assert_true(requests[2] > 0);
	assert_true(requests[1] >= requests[2]);
	tree_close(&t);
	unlink(path);
}

/*
 * @n autoload requests of a kernel thread (as a socket family or a crypto algorithm
 * asks), each followed by a load attempt that no modprobe makes: nothing follows a
 * request once it settled. Every fourth one's module was just loaded: needless.
 */
static void gen_requests(const struct tree *t, size_t n, const char *path)
{
	FILE *f = fopen(path, "we");
	struct lines ls = { 0 };
	double ts = 100.0;

	assert_non_null(f);
	for (size_t i = 0; i < n; i++) {
		const char *mod = storm_module(t, i);
		int pid = 2000 + (int)(i % 64);

		if (i % 4 == 0) {
			emit(&ls, ts, "udevd-worker", pid, 1, FINIT);
			emit(&ls, ts + 0.000010, "udevd-worker", pid, 1, "module_load: %s", mod);
			emit(&ls, ts + 0.000020, "udevd-worker", pid, 1, "sys_finit_module -> 0x0");
		}
		emit(&ls, ts + 0.000100, "kworker/0:1", 40, 0,
		     "module_request: %s wait=1 call_site=inet_create", mod);
		emit(&ls, ts + 0.000200, "udevd-worker", pid, 1, FINIT);
		emit(&ls, ts + 0.000300, "udevd-worker", pid, 1, "sys_finit_module -> 0xffffffffffffffef");
		if (i % 4 == 0)
			emit(&ls, ts + 0.000400, "rmmod", 900, 2, "module_free: %s", mod);
		ts += 0.010;
	}
	qsort(ls.v, ls.n, sizeof(*ls.v), line_cmp);
	fprintf(f, "# tracer: nop\n#\n");
	for (size_t i = 0; i < ls.n; i++)
		fprintf(f, "%s\n", ls.v[i].s);
	free(ls.v);
	fclose(f);
}

static void test_requests(void **state)
{
	char path[] = "/tmp/kmodtop-forget-XXXXXX";
	int fd = mkstemp(path);
	size_t most, n, requests[3];
	struct tree t;

	(void)state;
	/* generated traces of tens of seconds: minutes under valgrind; make check and the
	 * sanitizer build run them (make check-valgrind runs the fixtures above) */
	if (getenv("KMODTOP_VALGRIND")) {
		if (fd >= 0)
			close(fd);
		unlink(path);
		skip();
	}
	assert_true(fd >= 0);
	close(fd);
	tree_open(&fixtures[1], &t);
	/* 200 s of trace: a request settles when no modprobe can answer it any more (30 s) */
	gen_requests(&t, 20000, path);
	assert_true(compare_three(&t.lk, path, NULL, &most, NULL, &n, requests) > n / 2);
	/* the findings stay (the same as kept), the others go as they settle */
	assert_int_equal(requests[0], 20000);
	assert_true(requests[2] >= 20000 / 4);
	assert_true(requests[2] < requests[0]);
	assert_true(requests[1] - requests[2] < 20000 / 4);
	/* with no module index (ci without --root) no request can be a finding: they go at once */
	t.lk.idx = NULL;
	assert_true(compare_three(&t.lk, path, NULL, &most, NULL, &n, requests) > n / 2);
	assert_int_equal(requests[0], 20000);
	assert_int_equal(requests[2], 0);
	assert_true(requests[1] < 20000 / 50);
	tree_close(&t);
	unlink(path);
}

/*
 * Forks without exits (what kmodtop record traces) on pids 64 apart, which share slots
 * of the process table: its least recently seen entries are forgotten in place, and
 * every entry kept must stay where a lookup finds it, the pinned one with its parent
 */
static void test_proctab_forget(void **state)
{
	struct proctab *pt = NULL;
	size_t found = 0;
	int n = 200000;

	(void)state;
	assert_int_equal(proctab_new(&pt), 0);
	assert_int_equal(proctab_fork(pt, 1, 400, "systemd-udevd"), 0);
	assert_int_equal(proctab_fork(pt, 400, 401, "modprobe"), 0);
	assert_int_equal(proctab_pin(pt, 401), 0);
	for (int i = 0; i < n; i++)
		assert_int_equal(proctab_fork(pt, 1, 2 + 64 * i, "worker"), 0);
	assert_true(proctab_forgotten(pt) > 0);
	assert_int_equal(proctab_forgotten(pt) + proctab_count(pt), (uint64_t)n + 3);
	for (int i = 0; i < n; i++) {
		if (proctab_parent(pt, 2 + 64 * i) != 1)
			continue;
		assert_string_equal(proctab_comm(pt, 2 + 64 * i), "worker");
		found++;
	}
	/* all but pid 1, 400 and 401 */
	assert_int_equal(found + 3, proctab_count(pt));
	/* the newest quarter of what the table keeps is there */
	for (int i = n - 8000; i < n; i++)
		assert_int_equal(proctab_parent(pt, 2 + 64 * i), 1);
	assert_int_equal(proctab_parent(pt, 401), 400);
	assert_int_equal(proctab_parent(pt, 400), 1);
	proctab_free(pt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_storm),
		cmocka_unit_test(test_requests),
		cmocka_unit_test(test_proctab_forget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
