/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "ledger/klog-findings.h"
#include "util/hindex.h"
#include "util/macro.h"
#include "ci/model.h"

/* --- small helpers --------------------------------------------------------------------- */

int ci_grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 16;
	void *np;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	np = realloc(*p, c * size);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = c;
	return 0;
}

/* kmod compares module names with '-' and '_' the same */
static void normalize(char *s)
{
	for (; *s; s++)
		if (*s == '-')
			*s = '_';
}

/* --- names ------------------------------------------------------------------------------ */

const char *ci_name_of(const struct ci_findings *c, uint32_t id)
{
	return id && id <= c->names.n ? c->names.s[id - 1] : NULL;
}

struct name_key {
	const char *s;
	size_t len;
};

static bool name_eq(size_t pos, const void *key, const void *userdata)
{
	const struct names *nm = userdata;
	const struct name_key *k = key;

	return nm->raw_len[pos] == k->len && memcmp(nm->raw[pos], k->s, k->len) == 0;
}

/*
 * The id of @s (raw bytes, up to NAME_MAX_RAW of them), added if new; 0 for NULL. Names
 * stay raw: text, GitHub and JUnit output escape them, JSON carries them exactly.
 */
static int intern(struct ci_findings *c, const char *s, size_t len, uint32_t *ret)
{
	struct names *nm = &c->names;
	struct name_key k;
	uint64_t h;
	size_t pos;

	if (!s || !len) {
		*ret = 0;
		return 0;
	}
	/* module names are at most 55 bytes; longer text is cut (it is evidence only) */
	if (len > NAME_MAX_RAW)
		len = NAME_MAX_RAW;
	if (!nm->index && hindex_new(&nm->index) < 0)
		return -ENOMEM;
	k = (struct name_key){ s, len };
	h = hash_words(s, len, 1);
	pos = hindex_find(nm->index, h, name_eq, &k, nm);
	if (pos != HINDEX_NONE) {
		*ret = (uint32_t)(pos + 1);
		return 0;
	}
	if (nm->n >= MAX_NAMES) {
		c->capped = true;
		*ret = nm->other;
		return 0;
	}
	if (ci_grow((void **)&nm->s, &nm->cap, nm->n + 1, sizeof(char *)) < 0 ||
	    ci_grow((void **)&nm->raw, &nm->cap_raw, nm->n + 1, sizeof(char *)) < 0 ||
	    ci_grow((void **)&nm->raw_len, &nm->cap_len, nm->n + 1, sizeof(uint16_t)) < 0)
		return -ENOMEM;
	nm->raw[nm->n] = malloc(len);
	nm->s[nm->n] = strndup(s, len);
	if (!nm->raw[nm->n] || !nm->s[nm->n]) {
		free(nm->raw[nm->n]);
		free(nm->s[nm->n]);
		return -ENOMEM;
	}
	memcpy(nm->raw[nm->n], s, len);
	nm->raw_len[nm->n] = (uint16_t)len;
	if (hindex_add(nm->index, h, nm->n) < 0) {
		free(nm->raw[nm->n]);
		free(nm->s[nm->n]);
		return -ENOMEM;
	}
	*ret = (uint32_t)++nm->n;
	return 0;
}

static int intern_module(struct ci_findings *c, const char *s, size_t len, bool alias,
			 uint32_t *ret)
{
	char buf[NAME_MAX_RAW + 1];

	if (!s || !len) {
		*ret = 0;
		return 0;
	}
	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	/* a NUL inside cannot be a name; what comes before it is what a human reads */
	len = strlen(buf);
	if (!alias)
		normalize(buf);
	return intern(c, buf, len, ret);
}

/* --- aggregation ----------------------------------------------------------------------- */

static bool module_allowed(const struct ci_findings *c, const char *name)
{
	char norm[160];

	if (!name)
		return false;
	snprintf(norm, sizeof(norm), "%s", name);
	normalize(norm);
	for (size_t i = 0; i < c->opt->n_allow; i++)
		if (fnmatch(c->opt->allow[i], norm, 0) == 0)
			return true;
	return false;
}

static uint64_t agg_key_hash(uint32_t input, size_t cls, uint32_t module)
{
	uint64_t k = (uint64_t)input << 40 ^ (uint64_t)cls << 32 ^ module;

	return hash_words(&k, sizeof(k), 2);
}

struct agg_key {
	uint32_t input;
	size_t cls;
	uint32_t module;
};

static bool agg_eq(size_t pos, const void *key, const void *userdata)
{
	const struct ci_findings *c = userdata;
	const struct agg_key *k = key;
	const struct agg *a = &c->aggs[pos];

	return a->input == k->input && a->cls == k->cls && a->module == k->module;
}

static int agg_find(struct ci_findings *c, size_t cls, uint32_t module, struct agg **ret)
{
	struct agg_key k = { (uint32_t)(c->n_inputs - 1), cls, module };
	struct agg *a;
	uint64_t h;
	size_t pos;
	int r;

	if (!c->agg_index && hindex_new(&c->agg_index) < 0)
		return -ENOMEM;
	for (;;) {
		h = agg_key_hash(k.input, k.cls, k.module);
		pos = hindex_find(c->agg_index, h, agg_eq, &k, c);
		if (pos != HINDEX_NONE) {
			*ret = &c->aggs[pos];
			return 0;
		}
		if (c->n_aggs < MAX_AGGS || k.module == c->names.other)
			break;
		c->capped = true;
		k.module = c->names.other;
	}
	r = ci_grow((void **)&c->aggs, &c->cap_aggs, c->n_aggs + 1, sizeof(*c->aggs));
	if (r < 0)
		return r;
	r = hindex_add(c->agg_index, h, c->n_aggs);
	if (r < 0)
		return r;
	a = &c->aggs[c->n_aggs++];
	memset(a, 0, sizeof(*a));
	a->input = k.input;
	a->cls = (uint16_t)k.cls;
	a->module = k.module;
	a->allowed = module_allowed(c, ci_name_of(c, k.module));
	*ret = a;
	return 0;
}

struct evidence {
	uint64_t first, last;		/* lines; last 0: same as first */
	const char *msg;		/* raw bytes, or NULL */
	size_t msg_len;
	uint32_t comm, site;		/* requester name ids */
	bool has_waste;
	uint64_t wasted;
	bool trace;
	uint64_t detail;		/* detail_hash() of a symbol class's message, or 0 */
};

/*
 * A failed load logs each symbol it misses once ("nfs: Unknown symbol rpc_put_task"), so
 * one load is many lines: the loads of a module are the most lines of one (module,
 * symbol) pair, not the lines. Counted per boot by the message's hash (a collision only
 * merges two symbols' counts, the larger still wins).
 */
struct detail {
	uint32_t agg;
	/* the detail added right after this one last time, + 1: a failed load's symbols
	 * come in the same order on each try, so most are found without the index */
	uint32_t next;
	uint64_t hash;
	uint64_t n;
};

/* Details kept per boot; past them each line counts as a load of its own */
#define MAX_DETAILS (1u << 20)

static bool is_symbol_class(size_t cls)
{
	int k = ci_classes[cls].klog;

	return k == KLOG_FINDING_UNKNOWN_SYMBOL || k == KLOG_FINDING_SYMBOL_VERSION ||
	       k == KLOG_FINDING_SYMBOL_NAMESPACE;
}

/* A load attempt that failed, as a kernel log line shows one (already-loaded: EEXIST) */
bool ci_is_log_attempt_class(size_t cls)
{
	return ci_classes[cls].klog && ci_classes[cls].cost_outcome >= 0;
}

static uint64_t detail_hash(const char *msg, size_t len)
{
	return hash_words(msg, len, 0x6b6d6f64) | 1;
}

struct detail_key {
	uint32_t agg;
	uint64_t hash;
};

static bool detail_eq(size_t pos, const void *key, const void *userdata)
{
	const struct detail *d = &((const struct ci_findings *)userdata)->details[pos];
	const struct detail_key *k = key;

	return d->agg == k->agg && d->hash == k->hash;
}

/* Of the row @k.agg, the detail of @k.hash by the index, added if new: its position */
static __attribute__((noinline)) int detail_find(struct ci_findings *c, const struct detail_key *k,
						 size_t *ret_pos)
{
	uint64_t h = k->hash ^ ((uint64_t)k->agg * UINT64_C(0x9e3779b97f4a7c15));
	size_t pos;
	int r;

	if (!c->detail_index) {
		r = hindex_new(&c->detail_index);
		if (r < 0)
			return r;
	}
	pos = hindex_find(c->detail_index, h, detail_eq, k, c);
	if (pos == HINDEX_NONE) {
		if (c->n_details >= MAX_DETAILS) {
			*ret_pos = HINDEX_NONE;
			return 0;
		}
		r = ci_grow((void **)&c->details, &c->cap_details, c->n_details + 1,
			 sizeof(*c->details));
		if (r < 0)
			return r;
		r = hindex_add(c->detail_index, h, c->n_details);
		if (r < 0)
			return r;
		pos = c->n_details++;
		c->details[pos] = (struct detail){ k->agg, 0, k->hash, 0 };
	}
	*ret_pos = pos;
	return 0;
}

/* The row @a's lines of one message, @n more: its attempts, as attempts_of_lines() says */
static inline int detail_add(struct ci_findings *c, struct agg *a, uint64_t hash, uint64_t n)
{
	struct detail_key k = { (uint32_t)(a - c->aggs), hash };
	size_t pos = HINDEX_NONE;
	int r;

	if (c->detail_last) {
		size_t next = c->details[c->detail_last - 1].next;

		if (next && detail_eq(next - 1, &k, c))
			pos = next - 1;
	}
	if (pos == HINDEX_NONE) {
		r = detail_find(c, &k, &pos);
		if (r < 0)
			return r;
		if (pos == HINDEX_NONE) {
			/* past the details kept: each line a load */
			c->detail_last = 0;
			a->boot_attempts += n;
			return 0;
		}
		if (c->detail_last)
			c->details[c->detail_last - 1].next = (uint32_t)pos + 1;
	}
	c->detail_last = pos + 1;
	c->details[pos].n += n;
	if (c->details[pos].n > a->boot_attempts)
		a->boot_attempts = c->details[pos].n;
	return 0;
}

/* A boot's details end with it */
static void details_reset(struct ci_findings *c)
{
	c->n_details = 0;
	c->detail_last = 0;
	c->detail_index = hindex_free(c->detail_index);
}

static void add_requester(struct agg *a, uint32_t comm, uint32_t site, uint64_t n)
{
	if (!comm && !site)
		return;
	for (int i = 0; i < REQ_MAX; i++) {
		if (a->req[i].n && a->req[i].comm == comm && a->req[i].site == site) {
			a->req[i].n += n;
			return;
		}
		if (!a->req[i].n) {
			a->req[i] = (struct req){ comm, site, n };
			return;
		}
	}
	a->req_other += n;
}

static struct boot *cur_boot(struct ci_findings *c)
{
	if (!c->in_boot)
		return NULL;
	return c->in_spare ? &c->spare : &c->boots[c->n_boots - 1];
}

/* Boot @i of the gates: one listed, or past them one of the worst unlisted */
const struct boot *ci_boot_at(const struct ci_findings *c, long i)
{
	return (size_t)i < c->n_boots ? &c->boots[i] : &c->worst[(size_t)i - c->n_boots];
}

/* The gates' figure of @b: 0 duplicates, 1 failures, 2 waste */
uint64_t ci_boot_metric(const struct boot *b, int m)
{
	return m == 0 ? b->gated.duplicates : m == 1 ? b->gated.failed : b->gated.wasted;
}

/* An unlisted boot, closed: kept where it is the worst so far */
static void boot_fold(struct ci_findings *c)
{
	struct boot *b = &c->spare;

	free(b->summary);
	b->summary = NULL;
	for (int m = 0; m < 3; m++)
		if (!c->have_worst || ci_boot_metric(b, m) > ci_boot_metric(&c->worst[m], m))
			c->worst[m] = *b;
	c->have_worst = true;
	c->in_spare = false;
}

static int boot_open(struct ci_findings *c, uint64_t line)
{
	struct input *in = &c->inputs[c->n_inputs - 1];
	struct boot *b;
	int r;

	if (c->n_boots < MAX_BOOTS) {
		r = ci_grow((void **)&c->boots, &c->cap_boots, c->n_boots + 1, sizeof(*c->boots));
		if (r < 0)
			return r;
		b = &c->boots[c->n_boots++];
	} else {
		b = &c->spare;
		c->in_spare = true;
	}
	memset(b, 0, sizeof(*b));
	b->number = ++c->all_boots;
	b->input = (uint32_t)(c->n_inputs - 1);
	b->line = line;
	b->end_line = line;
	if (in->release)
		snprintf(b->release, sizeof(b->release), "%s", in->release);
	if (!in->n_boots)
		in->first_boot = (size_t)b->number - 1;
	in->n_boots++;
	c->in_boot = true;
	return 0;
}

static uint64_t inc_sat_u64(uint64_t v)
{
	return v == UINT64_MAX ? v : v + 1;
}

/*
 * Adds lines @first..@last to @a's ranges, kept sorted and apart (touching ones merge):
 * lines come mostly in order, so the search starts at the end. Past
 * CI_EVIDENCE_RANGES_MAX ranges (or CI_EVIDENCE_RANGES_ALL over all rows) a new one is
 * only flagged, so memory stays per finding.
 */
static int ranges_add(struct ci_findings *c, struct agg *a, uint64_t first, uint64_t last)
{
	struct ci_line_range *r = a->ranges;
	size_t n = a->n_ranges, hi = n, lo;
	int ret;

	/* r[0..hi): the ranges that start no later than right after @last */
	while (hi > 0 && r[hi - 1].first > inc_sat_u64(last))
		hi--;
	/* r[lo..hi): those of them that reach @first */
	lo = hi;
	while (lo > 0 && inc_sat_u64(r[lo - 1].last) >= first)
		lo--;
	if (lo < hi) {
		if (first < r[lo].first)
			r[lo].first = first;
		r[lo].last = last > r[hi - 1].last ? last : r[hi - 1].last;
		memmove(&r[lo + 1], &r[hi], (n - hi) * sizeof(*r));
		a->n_ranges = n - (hi - lo - 1);
		c->n_ranges_all -= hi - lo - 1;
		return 0;
	}
	if (n >= CI_EVIDENCE_RANGES_MAX || c->n_ranges_all >= CI_EVIDENCE_RANGES_ALL) {
		a->ranges_truncated = true;
		return 0;
	}
	ret = ci_grow((void **)&a->ranges, &a->cap_ranges, n + 1, sizeof(*r));
	if (ret < 0)
		return ret;
	r = a->ranges;
	memmove(&r[lo + 1], &r[lo], (n - lo) * sizeof(*r));
	r[lo] = (struct ci_line_range){ first, last };
	a->n_ranges = n + 1;
	c->n_ranges_all++;
	return 0;
}

/*
 * Counts @ev in the row @a, in the current boot, @n times (lines of @ev's first..last).
 * @n lines spread over more than @n lines (a run of repeats with other lines between)
 * keep only the first and last of them, and the row is marked truncated; a trace's
 * attempt keeps its first and last events. @details: NULL (each line's is ev->detail),
 * or of each of the @n lines its message's detail_hash().
 */
static int agg_add_lines(struct ci_findings *c, struct agg *a, const struct evidence *ev,
			 uint64_t n, const uint64_t *details)
{
	struct boot *b;
	uint64_t last = ev->last ? ev->last : ev->first;
	int r;

	/* a waste is one attempt's: repeats are of log lines, which have none */
	if (n != 1 && ev->has_waste)
		return -EINVAL;
	if (!c->in_boot) {
		r = boot_open(c, ev->first);
		if (r < 0)
			return r;
	}
	b = cur_boot(c);
	if (last - ev->first + 1 == n) {
		r = ranges_add(c, a, ev->first, last);
	} else {
		/* a trace's attempt: its first and last events; else lines not all known */
		r = ranges_add(c, a, ev->first, ev->first);
		if (r >= 0)
			r = ranges_add(c, a, last, last);
		if (!ev->trace)
			a->ranges_truncated = true;
	}
	if (r < 0)
		return r;
	if (a->count == 0 || ev->first < a->first_line)
		a->first_line = ev->first;
	if (last > a->last_line)
		a->last_line = last;
	a->count += n;
	a->from_trace = ev->trace;
	if (a->last_boot != c->all_boots) {
		a->last_boot = c->all_boots;
		a->boot_count = 0;
		a->boot_attempts = 0;
		a->boot_wasted = 0;
		a->boots++;
		r = ci_grow((void **)&c->touched, &c->cap_touched, c->n_touched + 1, sizeof(size_t));
		if (r < 0)
			return r;
		c->touched[c->n_touched++] = (size_t)(a - c->aggs);
	}
	a->boot_count += n;
	if (details && is_symbol_class(a->cls)) {
		for (uint64_t i = 0; i < n; i++) {
			r = detail_add(c, a, details[i], 1);
			if (r < 0)
				return r;
		}
	} else if (ev->detail && is_symbol_class(a->cls)) {
		r = detail_add(c, a, ev->detail, n);
		if (r < 0)
			return r;
	} else {
		a->boot_attempts += n;
	}
	if (ev->has_waste) {
		a->wasted = add_sat_u64(a->wasted, ev->wasted);
		a->boot_wasted = add_sat_u64(a->boot_wasted, ev->wasted);
		a->wasted_known = true;
		b->waste_known = true;
	}
	add_requester(a, ev->comm, ev->site, n);
	if (!a->sample && ev->msg) {
		a->sample = strndup(ev->msg, MIN_SIZE(ev->msg_len, (size_t)SAMPLE_MAX));
		if (!a->sample)
			return -ENOMEM;
	}
	if (last > b->end_line)
		b->end_line = last;
	c->inputs[c->n_inputs - 1].findings += n;
	return 0;
}

static int agg_add_n(struct ci_findings *c, struct agg *a, const struct evidence *ev, uint64_t n)
{
	return agg_add_lines(c, a, ev, n, NULL);
}

static int agg_add(struct ci_findings *c, struct agg *a, const struct evidence *ev)
{
	return agg_add_n(c, a, ev, 1);
}

static int add_finding(struct ci_findings *c, size_t cls, uint32_t module,
		       const struct evidence *ev)
{
	struct agg *a;
	int r;

	r = agg_find(c, cls, module, &a);
	if (r < 0)
		return r;
	return agg_add(c, a, ev);
}

/* One load of the module @a is about, as the log shows it failed: what it held. */
static bool estimate_log_finding(struct ci_findings *c, const struct boot *b, const struct agg *a,
				 uint64_t *ret)
{
	const struct ci_class *k = &ci_classes[a->cls];
	const struct cost_module *m;
	struct cost_kernel kern;
	struct attempt at = { .syscall = ATTEMPT_FINIT, .complete = true };
	uint64_t bytes[_VMAP_MAX];
	const char *name = ci_name_of(c, a->module);

	if (!c->cost || k->cost_outcome < 0 || !name || a->module == c->names.other)
		return false;
	if (c->cost->kernel(c->cost->userdata, b->release[0] ? b->release : NULL, &kern) < 0)
		return false;
	m = c->cost->module(c->cost->userdata, b->release[0] ? b->release : NULL, name);
	if (!m)
		return false;
	at.outcome = (enum attempt_outcome)k->cost_outcome;
	at.err = at.outcome == OUTCOME_BAD_FORMAT ? ENOEXEC : EINVAL;
	/* kmod passes MODULE_INIT_COMPRESSED_FILE for compressed files the kernel can read;
	 * "Invalid ELF header" on a compressed module is the load without it */
	if (m->compressed && at.outcome != OUTCOME_BAD_FORMAT)
		at.flags = MODULE_INIT_COMPRESSED_FILE;
	if (!cost_estimate_attempt(&kern, &at, m, bytes))
		return false;
	*ret = 0;
	for (int i = 0; i < _VMAP_MAX; i++)
		*ret += bytes[i];
	return true;
}

struct class_count {
	size_t cls;
	uint64_t n;
};

static int class_count_cmp(const void *x, const void *y)
{
	const struct class_count *a = x, *b = y;

	if (a->n != b->n)
		return a->n < b->n ? 1 : -1;
	return a->cls < b->cls ? -1 : a->cls > b->cls;
}

/* Folds the current boot: per-boot counts for the gates, its one-line summary. */
int ci_boot_close(struct ci_findings *c)
{
	struct class_count cc[CI_CLASS_COUNT];
	struct boot *b = cur_boot(c);
	char buf[256];
	size_t len = 0, n_seen = 0;

	if (!b)
		return 0;
	memset(cc, 0, sizeof(cc));
	for (size_t i = 0; i < CI_CLASS_COUNT; i++)
		cc[i].cls = i;
	for (size_t i = 0; i < c->n_touched; i++) {
		struct agg *a = &c->aggs[c->touched[i]];
		const struct ci_class *k = &ci_classes[a->cls];
		uint64_t est;

		b->findings += a->boot_count;
		a->attempts += a->boot_attempts;
		cc[a->cls].n += a->boot_count;
		if (a->from_trace && (k->group == CI_GROUP_FAILURE ||
				      k->group == CI_GROUP_DUPLICATE))
			b->waste_possible = true;
		/* a trace's boot has its figures from the ledger, which the log joined */
		if (b->traced || a->from_trace || !ci_is_log_attempt_class(a->cls))
			continue;
		/*
		 * The log's failed loads, as many as its evidence makes (it cannot see
		 * idempotent waiters, which log nothing): what each of them held, at least.
		 */
		b->waste_possible = true;
		if (estimate_log_finding(c, b, a, &est)) {
			est = mul_sat_u64(est, a->boot_attempts);
			a->wasted = add_sat_u64(a->wasted, est);
			a->boot_wasted = est;
			a->wasted_known = true;
			b->waste_known = true;
			b->waste_lower_bound = true;
			c->waste_available = true;
			c->waste_lower_bound = true;
		}
		for (int g = 0; g < 2; g++) {
			struct ci_figures *f = g ? &b->gated : &b->all;

			if (g && a->allowed)
				continue;
			f->attempts += a->boot_attempts;
			f->failed += a->boot_attempts;
			if (k->group == CI_GROUP_DUPLICATE)
				f->duplicates += a->boot_attempts;
			f->wasted = add_sat_u64(f->wasted, a->boot_wasted);
		}
	}
	c->total.attempts += b->all.attempts;
	c->total.failed += b->all.failed;
	c->total.duplicates += b->all.duplicates;
	c->total.wasted = add_sat_u64(c->total.wasted, b->all.wasted);
	if (b->waste_known)
		c->total_wasted_known = true;
	details_reset(c);
	/* the classes seen, a few of many: sorted alone (a log may have 10,000s of boots) */
	for (size_t i = 0; i < CI_CLASS_COUNT; i++)
		if (cc[i].n)
			cc[n_seen++] = cc[i];
	array_sort(cc, n_seen, sizeof(cc[0]), class_count_cmp);
	buf[0] = '\0';
	for (size_t i = 0; i < n_seen; i++) {
		if (i == BOOT_SUMMARY_CLASSES) {
			size_t more = n_seen - i;

			snprintf(buf + len, sizeof(buf) - len, ",+%zu more", more);
			break;
		}
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s:%" PRIu64,
					i ? "," : "", ci_classes[cc[i].cls].name, cc[i].n);
		if (len >= sizeof(buf))
			break;
	}
	if (buf[0]) {
		b->summary = strdup(buf);
		if (!b->summary)
			return -ENOMEM;
	}
	c->n_touched = 0;
	c->in_boot = false;
	if (c->in_spare)
		boot_fold(c);
	return 0;
}


/* --- feeding --------------------------------------------------------------------------- */

int ci_new(const struct ci_options *opt, const struct ci_cost_ops *cost, struct ci_findings **ret)
{
	struct ci_findings *c = calloc(1, sizeof(*c));
	int r;

	if (!c)
		return -ENOMEM;
	c->opt = opt;
	c->cost = cost && cost->kernel && cost->module ? cost : NULL;
	if (klog_memo_new(&c->memo) < 0) {
		free(c);
		return -ENOMEM;
	}
	r = intern(c, OTHER_NAME, strlen(OTHER_NAME), &c->names.other);
	if (r < 0) {
		ci_free(c);
		return r;
	}
	*ret = c;
	return 0;
}

struct ci_findings *ci_free(struct ci_findings *c)
{
	if (!c)
		return NULL;
	for (size_t i = 0; i < c->names.n; i++) {
		free(c->names.s[i]);
		free(c->names.raw[i]);
	}
	free(c->names.s);
	free(c->names.raw);
	free(c->names.raw_len);
	hindex_free(c->names.index);
	for (size_t i = 0; i < c->n_aggs; i++) {
		free(c->aggs[i].sample);
		free(c->aggs[i].ranges);
	}
	free(c->aggs);
	hindex_free(c->agg_index);
	for (size_t i = 0; i < c->n_boots; i++)
		free(c->boots[i].summary);
	free(c->boots);
	for (size_t i = 0; i < c->n_inputs; i++) {
		free(c->inputs[i].path);
		free(c->inputs[i].release);
	}
	free(c->inputs);
	free(c->touched);
	free(c->details);
	hindex_free(c->detail_index);
	klog_memo_free(c->memo);
	free(c->deltas);
	free(c);
	return NULL;
}

int ci_begin_input(struct ci_findings *c, const char *path, const char *release)
{
	struct input *in;
	int r;

	/* ci_klog_repeat() repeats a kernel record only right after it */
	c->again_line = 0;

	r = ci_grow((void **)&c->inputs, &c->cap_inputs, c->n_inputs + 1, sizeof(*c->inputs));
	if (r < 0)
		return r;
	in = &c->inputs[c->n_inputs];
	memset(in, 0, sizeof(*in));
	in->path = strdup(path);
	in->release = release ? strdup(release) : NULL;
	if (!in->path || (release && !in->release)) {
		free(in->path);
		free(in->release);
		return -ENOMEM;
	}
	snprintf(in->format, sizeof(in->format), "unknown");
	snprintf(in->compression, sizeof(in->compression), "none");
	c->n_inputs++;
	if (c->join_next && c->in_boot) {
		/* the boot the input before left open is this one's too */
		in->first_boot = (size_t)cur_boot(c)->number - 1;
		in->n_boots = 1;
	} else {
		c->in_boot = false;
	}
	c->join_next = false;
	return 0;
}

void ci_join_next_input(struct ci_findings *c)
{
	c->join_next = true;
}

void ci_set_input_format(struct ci_findings *c, const char *format, const char *compression)
{
	struct input *in = &c->inputs[c->n_inputs - 1];

	if (format)
		snprintf(in->format, sizeof(in->format), "%s", format);
	if (compression)
		snprintf(in->compression, sizeof(in->compression), "%s", compression);
}

void ci_set_input_format_detail(struct ci_findings *c, const char *detail, const char *reason)
{
	struct input *in = &c->inputs[c->n_inputs - 1];

	snprintf(in->format_detail, sizeof(in->format_detail), "%s", detail ? detail : "");
	snprintf(in->format_reason, sizeof(in->format_reason), "%s", reason ? reason : "");
}

/*
 * A boot ends on the line before the next one starts, not on its last line parsed:
 * the filter skips lines, and the boots must not depend on it.
 */
static void boot_end_before(struct boot *b, uint64_t next_line)
{
	if (b && next_line > 1 && next_line - 1 > b->end_line)
		b->end_line = next_line - 1;
}

/* The boot @b (if any) ends before @line, and a new one, *ret_boot, starts there */
static int boot_restart(struct ci_findings *c, struct boot *b, uint64_t line,
			struct boot **ret_boot)
{
	int r;

	boot_end_before(b, line);
	r = ci_boot_close(c);
	if (r < 0)
		return r;
	r = boot_open(c, line);
	if (r < 0)
		return r;
	*ret_boot = cur_boot(c);
	return 0;
}

/* "Linux version 6.12.118+deb12-amd64 (debian-kernel@...) ..." starts a boot. */
static int boot_banner(struct ci_findings *c, uint64_t line, const char *rel, size_t len)
{
	struct boot *b = cur_boot(c);
	size_t n = 0;
	int r;

	/* a marker just before, or the lines before the first banner with no finding */
	if (!b || b->banner || b->findings || c->n_touched) {
		r = boot_restart(c, b, line, &b);
		if (r < 0)
			return r;
	}
	b->banner = true;
	if (!b->marker)
		b->line = line;
	while (n < len && n + 1 < sizeof(b->release) && rel[n] != ' ' &&
	       (unsigned char)rel[n] > 0x20 && (unsigned char)rel[n] < 0x7f)
		n++;
	if (n) {
		memcpy(b->release, rel, n);
		b->release[n] = '\0';
	}
	return 0;
}

int ci_boot_mark(struct ci_findings *c, uint64_t line, const char *boot_id)
{
	struct boot *b = cur_boot(c);
	int r;

	/* ci_klog_repeat() repeats a kernel record only right after it */
	c->again_line = 0;

	if (b && !b->banner && !b->findings && !c->n_touched && !b->boot_id[0]) {
		/* nothing seen yet in this boot: the marker names it */
	} else {
		r = boot_restart(c, b, line, &b);
		if (r < 0)
			return r;
	}
	b->marker = true;
	b->line = line;
	if (boot_id)
		snprintf(b->boot_id, sizeof(b->boot_id), "%s", boot_id);
	return 0;
}

/* Counts @ev in the row @i, which a repeat of this record (ci_klog_repeat()) goes to */
static int add_again(struct ci_findings *c, uint32_t i, const struct evidence *ev)
{
	c->again = i + 1;
	/* a line with two findings of one row (the same line quoted twice) is one line */
	if (c->more_line && c->more_line == ev->first && c->aggs[i].count &&
	    c->aggs[i].last_line == ev->first)
		return 0;
	return agg_add(c, &c->aggs[i], ev);
}

static int klog_finding(struct ci_findings *c, uint64_t line, const char *msg, size_t len,
			const struct klog_finding *f, uint64_t *slot)
{
	struct evidence ev = { .first = line, .msg = msg, .msg_len = len };
	uint32_t input = (uint32_t)(c->n_inputs - 1), module;
	int cls = ci_class_of_klog(f->kind), r;
	struct agg *a;

	bool alias = f->kind == KLOG_FINDING_AUTOLOAD_DUPLICATE;

	if (cls < 0)
		return 0;
	ev.detail = is_symbol_class((size_t)cls) ? detail_hash(msg, len) : 0;
	c->again_detail = ev.detail;
	/* the same message again: the same row */
	if (slot && *slot && (uint32_t)(*slot >> 32) == input)
		return add_again(c, (uint32_t)*slot - 1, &ev);
	/* the same module and class as the finding before */
	if (!slot && c->last.agg && c->last.input == input && c->last.cls == cls &&
	    c->last.alias == alias && c->last.len == f->module_len &&
	    (!f->module_len || memcmp(c->last.module, f->module, f->module_len) == 0))
		return add_again(c, c->last.agg - 1, &ev);
	r = intern_module(c, f->module, f->module_len, alias, &module);
	if (r < 0)
		return r;
	r = agg_find(c, (size_t)cls, module, &a);
	if (r < 0)
		return r;
	/* the row (index + 1) and its input, with the message's memo */
	if (slot)
		*slot = (uint64_t)input << 32 | ((uint32_t)(a - c->aggs) + 1);
	else if (f->module_len <= sizeof(c->last.module)) {
		c->last.agg = (uint32_t)(a - c->aggs) + 1;
		c->last.input = input;
		c->last.cls = cls;
		c->last.alias = alias;
		c->last.len = (uint16_t)f->module_len;
		if (f->module_len)
			memcpy(c->last.module, f->module, f->module_len);
	}
	return add_again(c, (uint32_t)(a - c->aggs), &ev);
}

/* Findings of one line at most: records run together, quotes in a paragraph */
#define LINE_FINDINGS_MAX 4

/*
 * The findings on @line after its first, @first (its ->rest into @msg, @len bytes): a
 * second record run onto the line, another line quoted in the same prose. Each is a
 * finding of its own with this line for evidence.
 */
static int more_findings(struct ci_findings *c, uint64_t line, const char *msg, size_t len,
			 const struct klog_finding *first)
{
	const char *end = msg + len, *s = first->rest;
	struct klog_finding f;
	int r = 0;

	for (int k = 1; k < LINE_FINDINGS_MAX && s && s > msg && s < end; k++) {
		if (!klog_classify_rest(s, (size_t)(end - s), &f))
			break;
		c->more_line = line;
		r = klog_finding(c, line, s, (size_t)(end - s), &f, NULL);
		c->more_line = 0;
		if (r < 0)
			break;
		msg = s;
		s = f.rest;
	}
	return r < 0 ? r : 0;
}

static const char banner[] = "Linux version ";

bool ci_klog_banner(const char *msg, size_t len)
{
	return len > sizeof(banner) - 1 && memcmp(msg, banner, sizeof(banner) - 1) == 0;
}

/* What every kernel record does: a boot, the banner's release, where the boot ends. */
static int record_line(struct ci_findings *c, uint64_t line, const struct klog_rec *rec)
{
	int r;

	if (!c->in_boot) {
		r = boot_open(c, line);
		if (r < 0)
			return r;
	}
	if (ci_klog_banner(rec->msg, rec->msg_len)) {
		r = boot_banner(c, line, rec->msg + sizeof(banner) - 1,
				rec->msg_len - (sizeof(banner) - 1));
		if (r < 0)
			return r;
	}
	if (line > cur_boot(c)->end_line)
		cur_boot(c)->end_line = line;
	return 0;
}

static bool text_starts(const char *s, size_t len, const char *lit);
static int ubox_unprobed(struct ci_findings *c, uint64_t line, const char *s, size_t len);

/* ubox's loader at early boot logs to /dev/kmsg: its ident starts the kernel record */
static bool ubox_record(const struct ci_findings *c, const char *msg, size_t len)
{
	return c->unprobed || (len > 12 && msg[0] == 'k' && text_starts(msg, len, "kmodloader: ")) ||
	       (len > 10 && msg[0] == 'm' && text_starts(msg, len, "modprobe: "));
}

static int klog_record(struct ci_findings *c, uint64_t line, const struct klog_rec *rec,
		       const struct klog_finding *classified)
{
	uint64_t *slot = NULL;
	struct klog_finding f;
	int r;

	c->again = 0;
	c->again_detail = 0;
	c->again_line = line;
	r = record_line(c, line, rec);
	if (r < 0)
		return r;
	if (ubox_record(c, rec->msg, rec->msg_len)) {
		r = ubox_unprobed(c, line, rec->msg, rec->msg_len);
		if (r)
			return r < 0 ? r : 0;
	}
	if (classified) {
		if (classified->kind == KLOG_FINDING_NONE)
			return 0;
		r = klog_finding(c, line, rec->msg, rec->msg_len, classified, NULL);
		if (r >= 0 && classified->rest)
			r = more_findings(c, line, rec->msg, rec->msg_len, classified);
		return r;
	}
	if (!klog_classify_memo(c->memo, rec->msg, rec->msg_len, &f, &slot))
		return 0;
	r = klog_finding(c, line, rec->msg, rec->msg_len, &f, slot);
	if (r >= 0 && f.rest)
		r = more_findings(c, line, rec->msg, rec->msg_len, &f);
	return r;
}

int ci_klog(struct ci_findings *c, uint64_t line, const struct klog_rec *rec)
{
	return klog_record(c, line, rec, NULL);
}

int ci_klog_classified(struct ci_findings *c, uint64_t line, const struct klog_rec *rec,
		       const struct klog_finding *f)
{
	return klog_record(c, line, rec, f);
}

int ci_klog_repeat(struct ci_findings *c, uint64_t first, uint64_t last, uint64_t n)
{
	struct evidence ev = { .first = first, .last = last, .detail = c->again_detail };

	if (!n)
		return 0;
	if (!c->again_line || !c->in_boot || first <= c->again_line || last < first ||
	    last - first + 1 < n)
		return -EINVAL;
	/* as record_line() for each: no banner, and the last line ends the boot */
	if (last > cur_boot(c)->end_line)
		cur_boot(c)->end_line = last;
	c->again_line = last;
	if (!c->again)
		return 0;
	return agg_add_n(c, &c->aggs[c->again - 1], &ev, n);
}

uint64_t ci_klog_detail(enum klog_finding_kind kind, const char *msg, size_t len)
{
	int cls = ci_class_of_klog(kind);

	return cls >= 0 && is_symbol_class((size_t)cls) ? detail_hash(msg, len) : 0;
}

int ci_klog_repeat_details(struct ci_findings *c, const uint64_t *lines, const uint64_t *details,
			   size_t n)
{
	int r;

	if (!n)
		return 0;
	if (!c->again_line || !c->in_boot || lines[0] <= c->again_line)
		return -EINVAL;
	for (size_t i = 1; i < n; i++)
		if (lines[i] <= lines[i - 1] || !details[i])
			return -EINVAL;
	if (!details[0])
		return -EINVAL;
	if (lines[n - 1] > cur_boot(c)->end_line)
		cur_boot(c)->end_line = lines[n - 1];
	c->again_line = lines[n - 1];
	c->again_detail = details[n - 1];
	if (!c->again)
		return 0;
	/* each run of lines that follow one another as one range, as line by line */
	for (size_t i = 0, j; i < n; i = j) {
		struct evidence ev = { .first = lines[i] };

		for (j = i + 1; j < n && lines[j] == lines[j - 1] + 1; j++)
			;
		ev.last = lines[j - 1];
		r = agg_add_lines(c, &c->aggs[c->again - 1], &ev, j - i, details + i);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * Whether the line @s may hold a loader's line quoted after other words (another
 * program's log line, a sentence): the marks those quoted lines have
 */
static bool quotes_loader(const char *s, size_t len)
{
	static const char *const marks[] = {
		": ERROR: ", ": FATAL: ", "modprobe: ", " FATAL: Error ", " WARNING: Error ",
		"ould not insert module ", "rror inserting '",
		/* kmod's error line quoted without its program's name */
		"ERROR: could not insert '",
		/* Android init's insmod builtin, after its command's words */
		": finit_module for \"",
	};

	for (size_t i = 0; i < ARRAY_SIZE(marks); i++)
		if (memmem(s, len, marks[i], strlen(marks[i])))
			return true;
	return false;
}

/*
 * Whether @s starts as a module loader's error does: kmod's, busybox's, systemd's,
 * module-init-tools' (no program name, "FATAL: ", "WARNING: "), libkmod's install
 * command as systemd-modules-load logs it, OpenWrt's ubox.
 */
static bool loader_message(const char *s, size_t len)
{
	static const char *const starts[] = {
		"modprobe: ", "insmod: ", "rmmod: ", "Failed to insert ", "Failed to find module '",
		/* module-init-tools' rmmod, no program name */
		"ERROR: Module ",
		"Error running install command ", "FATAL: Error ", "WARNING: Error ",
		"FATAL: Module ", "could not insert '",
		/* kmod's first releases: "Error: " and no program name */
		"Error: could not insert module ",
		/* module-init-tools' first insmod (0.8, 0.9): no program name either */
		"Error inserting `",
		/* OpenWrt's ubox loader, bare on a console or with its syslog ident */
		"failed to insert ", "failed to read full module ", "failed to mmap ",
		"failed to load the .modinfo section from ", "kmod: ", "kmodloader: ",
	};

	const char *sp;

	for (size_t i = 0; i < ARRAY_SIZE(starts); i++) {
		size_t n = strlen(starts[i]);

		if (len > n && memcmp(s, starts[i], n) == 0)
			return true;
	}
	/* modutils (2.4): its error() puts the object file it works on first, "%s.o: " */
	sp = memchr(s, ' ', len);
	return sp && sp - s > 3 && !memcmp(sp - 3, ".o:", 3);
}

/*
 * Whether @s is a module loader's own line: it starts with the program's name, or holds
 * kmod's "%s: %s: " of a program and a priority quoted in another program's line
 */
static bool loader_program_line(const char *s, size_t len)
{
	static const char *const progs[] = { "modprobe: ", "insmod: ", "rmmod: ", "kmodloader: " };
	static const char *const kmod[] = { "modprobe: ERROR: ", "modprobe: FATAL: ",
					    "insmod: ERROR: ", "rmmod: ERROR: " };
	size_t k = 0;

	/* OpenWrt's logread puts "facility.level " before the program ("user.err ") */
	while (k < len && k < 16 && s[k] >= 'a' && s[k] <= 'z')
		k++;
	if (k && k + 1 < len && s[k] == '.') {
		size_t l = k + 1;

		while (l < len && l < 32 && s[l] >= 'a' && s[l] <= 'z')
			l++;
		if (l > k + 1 && l < len && s[l] == ' ') {
			s += l + 1;
			len -= l + 1;
		}
	}

	for (size_t i = 0; i < ARRAY_SIZE(progs); i++) {
		size_t n = strlen(progs[i]);

		if (len > n && memcmp(s, progs[i], n) == 0)
			return true;
	}
	for (size_t i = 0; i < ARRAY_SIZE(kmod); i++)
		if (memmem(s, len, kmod[i], strlen(kmod[i])))
			return true;
	return false;
}

/*
 * Whether @s is systemd's word that a module loaded or needs no loading
 * (module_load_and_warn(), logged at info level by systemd-modules-load): no finding,
 * but a module loader's line, so that a journal of them is read, not refused.
 */
static bool loader_success(const char *s, size_t len)
{
	static const char *const ends[] = { "' is built in", "' is builtin", "' is already loaded" };

	if (len > 17 && memcmp(s, "Inserted module '", 17) == 0 && s[len - 1] == '\'')
		return true;
	if (len < 9 || memcmp(s, "Module '", 8) != 0)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(ends); i++) {
		size_t n = strlen(ends[i]);

		if (len > 8 + n && memcmp(s + len - n, ends[i], n) == 0)
			return true;
	}
	return false;
}

/* After a journal's or syslog's "ident[pid]: " ("systemd-modules-load[66]: "), or NULL */
static const char *ident_end(const char *s, size_t len)
{
	for (size_t i = 0; i + 1 < len && s[i] != ' '; i++)
		if (s[i] == ':' && s[i + 1] == ' ')
			return i ? s + i + 2 : NULL;
	return NULL;
}

static bool text_starts(const char *s, size_t len, const char *lit)
{
	size_t n = strlen(lit);

	return len >= n && memcmp(s, lit, n) == 0;
}

/*
 * Whether @s, systemctl status's "ExecStart[Pre]=PATH ARGS (code=exited, status=N/...)"
 * from its "ExecStart", ran a module loader that failed
 */
static bool exec_of_loader(const char *s, size_t len)
{
	static const char *const loaders[] = { "systemd-modules-load", "modprobe", "insmod" };
	const char *eq = memchr(s, '=', len), *end = s + len, *base, *st;
	size_t n;

	if (!eq || !(st = memmem(eq, (size_t)(end - eq), " (code=exited, status=", 22)) ||
	    (size_t)(end - st) < 23 || st[22] == '0')
		return false;
	base = eq + 1;
	for (const char *p = base; p < st && *p != ' '; p++)
		if (*p == '/')
			base = p + 1;
	for (size_t i = 0; i < ARRAY_SIZE(loaders); i++) {
		n = strlen(loaders[i]);
		if ((size_t)(st - base) >= n && !memcmp(base, loaders[i], n) &&
		    (base + n == st || base[n] == ' '))
			return true;
	}
	return false;
}

/*
 * Whether @s is a loader's line that says no module's outcome: depmod's (kmod's
 * "depmod: WARNING: %s needs unknown symbol %s", modutils' "depmod: *** Unresolved
 * symbols in %s"), or systemd's word that systemd-modules-load failed as a whole
 * ("systemd-modules-load.service: Main process exited, code=exited, status=1/FAILURE",
 * "Failed to start Load Kernel Modules.", systemctl status's "Process: 418
 * ExecStart=/usr/lib/systemd/systemd-modules-load (code=exited, status=1/FAILURE)").
 * No finding, but a journal of them is read, not refused. @m: after the ident, or NULL.
 */
static bool loader_other_line(const char *s, size_t len, const char *m)
{
	static const char *const unit_failed[] = {
		"systemd-modules-load.service: Main process exited",
		"systemd-modules-load.service: Failed with result",
		"Failed to start Load Kernel Modules",
		"Failed to start systemd-modules-load.service",
	};
	size_t rest = m ? len - (size_t)(m - s) : 0;
	const char *x;

	if (text_starts(s, len, "depmod: ") || text_starts(s, len, "depmod["))
		return true;
	for (size_t i = 0; m && i < ARRAY_SIZE(unit_failed); i++)
		if (text_starts(m, rest, unit_failed[i]))
			return true;
	x = memmem(s, len, "ExecStart", 9);
	return x && exec_of_loader(x, len - (size_t)(x - s));
}

/*
 * OpenWrt ubox's modprobe and kmodloader (kmodloader.c): a load that fails logs "%d
 * module%s could not be probed", then each module that failed on a line of its own,
 * "- %s" (modprobe) or "- %s - %d" (the loader: dependencies available). The list line
 * names the module only after the count's line: each is a finding, that line none.
 * 1 when @s is one of these lines (read), 0 when not, or <0.
 */
static int ubox_unprobed(struct ci_findings *c, uint64_t line, const char *s, size_t len)
{
	static const char *const idents[] = { "modprobe: ", "kmodloader: " };
	struct klog_finding f = { .kind = KLOG_FINDING_MODPROBE_ERROR, .format = "- %s",
				  .source = "ubox kmodloader.c" };
	const char *m, *end = s + len;
	bool list = c->unprobed && c->unprobed_input == c->n_inputs && line == c->unprobed_line + 1;
	size_t i;
	uint64_t n = 0;
	int r;

	/* the ident, first or after a syslog head (logread's "... daemon.err modprobe: ") */
	for (i = 0; i < ARRAY_SIZE(idents); i++) {
		size_t k = strlen(idents[i]), lim = len < 96 ? len : 96;
		const char *at = memmem(s, lim, idents[i], k);

		if (at && (at == s || at[-1] == ' ')) {
			len -= (size_t)(at + k - s);
			s = at + k;
			break;
		}
	}
	if (i == ARRAY_SIZE(idents))
		return 0;
	while (s < end && end[-1] == '\r')
		end--;
	if (!list) {
		for (m = s; m < end && *m >= '0' && *m <= '9' && n < 100000; m++)
			n = n * 10 + (uint64_t)(*m - '0');
		if (m == s || !n ||
		    (!text_starts(m, (size_t)(end - m), " module could not be probed") &&
		     !text_starts(m, (size_t)(end - m), " modules could not be probed")))
			return 0;
		c->unprobed = n;
		c->unprobed_line = line;
		c->unprobed_input = c->n_inputs;
		return 1;
	}
	n = c->unprobed;
	c->unprobed = 0;
	if (end - s < 3 || s[0] != '-' || s[1] != ' ')
		return 0;
	for (m = s + 2; m < end && (isalnum((unsigned char)*m) || *m == '_' || *m == '-'); m++)
		;
	/* the loader's " - %d" after the name, or nothing */
	if (m == s + 2 || (m < end && (end - m < 4 || !text_starts(m, (size_t)(end - m), " - "))))
		return 0;
	f.module = s + 2;
	f.module_len = (size_t)(m - f.module);
	c->unprobed = n - 1;
	c->unprobed_line = line;
	c->loader_lines++;
	r = klog_finding(c, line, s, (size_t)(end - s), &f, NULL);
	return r < 0 ? r : 1;
}

int ci_text(struct ci_findings *c, uint64_t line, const char *s, size_t len)
{
	uint64_t *slot;
	struct klog_finding f;
	const char *whole;
	size_t whole_len;
	int r;

	/* ci_klog_repeat() repeats a kernel record only right after it */
	c->again_line = 0;

	/* a paste's indentation, spaces or tabs (a markdown code block, a list) */
	while (len && (*s == '\r' || *s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	r = ubox_unprobed(c, line, s, len);
	if (r)
		return r < 0 ? r : 0;
	s = klog_skip_markup(s, &len);
	whole = s;
	whole_len = len;
	/* only kmod's, udev's and systemd's own lines: kernel formats need the kernel's record */
	if (!loader_message(s, len) && !memmem(s, len, ": Worker [", 10) &&
	    !memmem(s, len, ": Failed to insert module '", 27)) {
		const char *m = ident_end(s, len);

		if ((m && loader_success(m, len - (size_t)(m - s))) || loader_other_line(s, len, m)) {
			c->loader_lines++;
			return 0;
		}
		if (m && loader_message(m, len - (size_t)(m - s))) {
			/* systemd's words for a module no index names; dracut-install says the
			 * same while it builds an initramfs, where nothing is loaded */
			if (text_starts(m, len - (size_t)(m - s), "Failed to find module '") &&
			    !text_starts(s, len, "systemd"))
				return 0;
			len -= (size_t)(m - s);
			s = m;
		} else if (!quotes_loader(s, len)) {
			return 0;
		}
	}
	/* some wordings are a loader's only with its ident: then the whole line */
	if (!klog_classify_memo(c->memo, s, len, &f, &slot) && s != whole) {
		s = whole;
		len = whole_len;
		klog_classify_memo(c->memo, s, len, &f, &slot);
	}
	if (f.kind != KLOG_FINDING_MODPROBE_ERROR && f.kind != KLOG_FINDING_UDEV_WORKER_TIMEOUT) {
		/* a loader's own line of no finding (kmod's moddep error, busybox's "insmod:
		 * no gzip magic."): the input is a loader's output, read, not refused */
		if (loader_program_line(s, len))
			c->loader_lines++;
		return 0;
	}
	c->loader_lines++;
	r = klog_finding(c, line, s, len, &f, slot);
	if (r >= 0 && f.rest)
		r = more_findings(c, line, s, len, &f);
	return r;
}

static int trace_requester(struct ci_findings *c, const struct ledger *l, const struct attempt *a,
			   uint32_t *ret_comm, uint32_t *ret_site)
{
	const char *comm = a->comm, *site = NULL;
	int r;

	if (a->request >= 0 && (size_t)a->request < l->n_requests) {
		comm = l->requests[a->request].comm;
		site = l->requests[a->request].call_site;
	}
	r = intern(c, comm, strnlen(comm, sizeof(a->comm)), ret_comm);
	if (r < 0)
		return r;
	return intern(c, site, site ? strlen(site) : 0, ret_site);
}

int ci_trace_begin(struct ci_findings *c, bool priced)
{
	memset(&c->trace, 0, sizeof(c->trace));
	c->trace.priced = priced;
	return c->in_boot ? 0 : boot_open(c, 1);
}

/* The boot's figures as report has them (ledger_summarize(), the cost model's total) */
static void trace_sum(struct ci_findings *c, const struct attempt *a,
		      const struct attempt_cost *cost)
{
	struct trace_sums *t = &c->trace;
	uint64_t est = cost ? cost->wasted : 0, meas = attempt_wasted(a);
	bool allowed = a->module && module_allowed(c, a->module);

	for (int k = 0; k < 1 + allowed; k++) {
		struct ci_figures *f = k ? &t->allowed : &t->all;

		f->attempts++;
		f->failed += attempt_is_failure(a);
		f->duplicates += attempt_is_duplicate(a);
		f->wasted = add_sat_u64(f->wasted, est);
	}
	t->measured = add_sat_u64(t->measured, meas);
	if (allowed)
		t->allowed_measured = add_sat_u64(t->allowed_measured, meas);
}

int ci_trace_attempt(struct ci_findings *c, const struct ledger *l, const struct attempt *a,
		     const struct attempt_cost *cost)
{
	struct evidence ev = { .trace = true };
	uint32_t module;
	int cls, r;

	trace_sum(c, a, cost);
	if (a->outcome == OUTCOME_LOADED)
		return 0;
	cls = ci_class_of_outcome(a->outcome);
	if (cls < 0)
		return 0;
	ev.first = a->start_line;
	ev.last = a->complete ? a->end_line : 0;
	/* read in time order, a call that moved CPU may end on a line before its start */
	if (ev.last && ev.first > ev.last) {
		ev.last = ev.first;
		ev.first = a->end_line;
	}
	if (!ev.first)
		ev.first = ev.last ? ev.last : 1;
	if (a->measured) {
		ev.has_waste = true;
		ev.wasted = attempt_wasted(a);
	} else if (cost && cost->estimated) {
		ev.has_waste = true;
		ev.wasted = cost->wasted;
		c->waste_available = true;
	}
	r = trace_requester(c, l, a, &ev.comm, &ev.site);
	if (r < 0)
		return r;
	r = intern_module(c, a->module, a->module ? strlen(a->module) : 0, false, &module);
	if (r < 0)
		return r;
	return add_finding(c, (size_t)cls, module, &ev);
}

/*
 * The boot's figures from the sums: the waste the cost model's total, else what the
 * vmalloc events measured. The gates' leave out --allow's modules.
 */
static void trace_figures(struct ci_findings *c, const struct ledger *l)
{
	struct boot *b = cur_boot(c);
	struct trace_sums *t = &c->trace;
	uint64_t allowed_wasted = 0;

	b->traced = true;
	b->all = t->all;
	b->all.wasted = 0;
	if (t->priced) {
		b->all.wasted = t->all.wasted;
		allowed_wasted = t->allowed.wasted;
		b->waste_known = true;
	} else if (l->saw_vmap_events) {
		b->all.wasted = t->measured;
		allowed_wasted = t->allowed_measured;
		b->waste_known = true;
	}
	b->gated = b->all;
	b->gated.attempts -= t->allowed.attempts;
	b->gated.failed -= t->allowed.failed;
	b->gated.duplicates -= t->allowed.duplicates;
	b->gated.wasted -= allowed_wasted < b->gated.wasted ? allowed_wasted : b->gated.wasted;
}

int ci_trace_end(struct ci_findings *c, const struct ledger *l)
{
	int r;

	if (l->saw_vmap_events)
		c->waste_available = true;
	trace_figures(c, l);
	for (size_t i = 0; i < l->n_requests; i++) {
		const struct autoload_request *rq = &l->requests[i];
		struct evidence ev = { .trace = true };
		const char *name;
		uint32_t module;
		size_t cls;

		if (rq->needless && rq->n_resolved) {
			cls = CLS_NEEDLESS;
			name = rq->resolved[0];
		} else if (!rq->resolve_failed && rq->n_resolved == 0) {
			cls = CLS_UNRESOLVED;
			name = rq->alias;
		} else {
			continue;
		}
		ev.first = rq->line ? rq->line : 1;
		r = intern(c, rq->comm, strnlen(rq->comm, sizeof(rq->comm)), &ev.comm);
		if (r >= 0)
			r = intern(c, rq->call_site, rq->call_site ? strlen(rq->call_site) : 0,
				   &ev.site);
		if (r >= 0)
			r = intern_module(c, name, name ? strlen(name) : 0, cls == CLS_UNRESOLVED,
					  &module);
		if (r >= 0)
			r = add_finding(c, cls, module, &ev);
		if (r < 0)
			return r;
	}
	return 0;
}

int ci_end_input(struct ci_findings *c, const struct ci_input_stats *st)
{
	struct input *in = &c->inputs[c->n_inputs - 1];
	int r;

	/* ci_klog_repeat() repeats a kernel record only right after it */
	c->again_line = 0;

	in->st = *st;
	c->records += st->records;
	/* a trace or a log without banner and findings is one boot all the same */
	if (!in->n_boots && st->records) {
		r = boot_open(c, 1);
		if (r < 0)
			return r;
	}
	if (c->in_boot && cur_boot(c)->input == c->n_inputs - 1 &&
	    st->lines > cur_boot(c)->end_line)
		cur_boot(c)->end_line = st->lines;
	if (c->join_next)
		return 0;
	return ci_boot_close(c);
}

