/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ledger/proctab.h"
#include "ledger/summary.h"
#include "ledger/klog-findings.h"
#include "util/array.h"
#include "util/escape.h"
#include "util/hindex.h"
#include "util/macro.h"
#include "canvas.h"
#include "model.h"

/* Events kept for the event log; older ones scroll away. */
#define EVENT_RING 4096
/* Attempts per requester and module in the tree; earlier ones are summarised. */
#define TREE_ATTEMPTS 16
/* Attempts listed in a module's detail. */
#define DETAIL_ATTEMPTS 2000
/* Missing symbols of one module looked up (a log may repeat a failure without end) */
#define MISSING_SYMBOLS 512
/* Exporting modules named in the detail; the rest are summed up */
#define MISSING_EXPORTERS 8

/* --- columns (one table per view: headers, --sort-key names, widths, help) ------------- */

enum {
	MC_MODULE,
	MC_STATE,
	MC_SIZE,
	MC_ATTEMPTS,
	MC_LOADED,
	MC_DUP,
	MC_FAIL,
	MC_NEEDLESS,
	MC_WASTED_EST,
	MC_WASTED_MEAS,
	MC_RECENT,
	MC_REQUESTER,
	MC_OUTCOME,
	_MC_MAX,
};

static const struct top_column module_cols[_MC_MAX] = {
	[MC_MODULE] = { "module", "MODULE", 14, 24, 1, TOP_COL_FLEX, "module name" },
	[MC_STATE] = { "state", "STATE", 6, 6, 8, 0,
		       "live, coming, going, or - when not loaded" },
	[MC_SIZE] = { "size", "SIZE", 6, 6, 9, TOP_COL_RIGHT | TOP_COL_DESC,
		      "size in proc/modules" },
	[MC_ATTEMPTS] = { "attempts", "ATTEMPTS", 8, 8, 2, TOP_COL_RIGHT | TOP_COL_DESC,
			  "finit_module/init_module calls" },
	[MC_LOADED] = { "loaded", "LOADED", 6, 6, 12, TOP_COL_RIGHT | TOP_COL_DESC,
			"calls that loaded it" },
	[MC_DUP] = { "dup", "DUP", 5, 5, 5, TOP_COL_RIGHT | TOP_COL_DESC,
		     "duplicates: already Live, busy, or an idempotent waiter" },
	[MC_FAIL] = { "fail", "FAIL", 5, 5, 4, TOP_COL_RIGHT | TOP_COL_DESC,
		      "calls that returned an error" },
	[MC_NEEDLESS] = { "needless", "NEEDLESS", 8, 8, 13, TOP_COL_RIGHT | TOP_COL_DESC,
			  "autoload requests for it while it was Live" },
	[MC_WASTED_EST] = { "wasted", "WASTED (est.)", 13, 13, 3,
			    TOP_COL_RIGHT | TOP_COL_DESC,
			    "vmap bytes failed calls allocated, by the cost model" },
	[MC_WASTED_MEAS] = { "measured", "WASTED (meas.)", 14, 14, 11,
			     TOP_COL_RIGHT | TOP_COL_DESC,
			     "vmap bytes failed calls allocated, traced" },
	[MC_RECENT] = { "recent", "RECENT", 8, 8, 10, TOP_COL_DESC,
			"attempts per refresh, the last eight refreshes" },
	[MC_REQUESTER] = { "requester", "LAST REQUESTER", 14, 18, 7, TOP_COL_FLEX,
			   "who made or caused the last attempt" },
	[MC_OUTCOME] = { "outcome", "LAST OUTCOME", 15, 20, 6, TOP_COL_FLEX,
			 "how the last attempt ended" },
};

enum {
	RC_REQUESTER,
	RC_PID,
	RC_PIDS,
	RC_PARENTS,
	RC_SITE,
	RC_ATTEMPTS,
	RC_DUP,
	RC_FAIL,
	RC_WASTED_EST,
	RC_WASTED_MEAS,
	RC_MODULES,
	_RC_MAX,
};

static const struct top_column requester_cols[_RC_MAX] = {
	[RC_REQUESTER] = { "requester", "REQUESTER", 12, 16, 1, 0,
			   "task that made or caused the calls" },
	[RC_PID] = { "pid", "PID", 7, 7, 6, TOP_COL_RIGHT, "first pid seen" },
	[RC_PIDS] = { "pids", "PIDS", 5, 5, 7, TOP_COL_RIGHT | TOP_COL_DESC,
		      "distinct pids" },
	[RC_PARENTS] = { "parents", "PARENTS", 10, 28, 8, TOP_COL_FLEX | TOP_COL_NOSORT,
			 "parent chain from the trace's forks" },
	[RC_SITE] = { "site", "CALL SITE", 13, 24, 4, TOP_COL_FLEX,
		      "kernel function of an autoload" },
	[RC_ATTEMPTS] = { "attempts", "ATTEMPTS", 8, 8, 2, TOP_COL_RIGHT | TOP_COL_DESC,
			  "calls" },
	[RC_DUP] = { "dup", "DUP", 5, 5, 9, TOP_COL_RIGHT | TOP_COL_DESC, "duplicates" },
	[RC_FAIL] = { "fail", "FAIL", 5, 5, 5, TOP_COL_RIGHT | TOP_COL_DESC,
		      "failed calls" },
	[RC_WASTED_EST] = { "wasted", "WASTED (est.)", 13, 13, 3,
			    TOP_COL_RIGHT | TOP_COL_DESC,
			    "estimated vmap bytes of failed calls" },
	[RC_WASTED_MEAS] = { "measured", "WASTED (meas.)", 14, 14, 10,
			     TOP_COL_RIGHT | TOP_COL_DESC,
			     "traced vmap bytes of failed calls" },
	[RC_MODULES] = { "modules", "MODULES", 10, 200, 6, TOP_COL_FLEX | TOP_COL_NOSORT,
			 "modules it asked for" },
};

enum {
	AC_ALIAS,
	AC_SITE,
	AC_REQUESTER,
	AC_PIDS,
	AC_REQUESTS,
	AC_NEEDLESS,
	AC_MODPROBES,
	AC_ATTEMPTS,
	AC_MODULE,
	_AC_MAX,
};

static const struct top_column autoload_cols[_AC_MAX] = {
	[AC_ALIAS] = { "alias", "ALIAS", 16, 30, 1, TOP_COL_FLEX,
		       "what request_module() asked for" },
	[AC_SITE] = { "site", "CALL SITE", 13, 24, 5, TOP_COL_FLEX,
		      "kernel function that asked" },
	[AC_REQUESTER] = { "requester", "REQUESTER", 10, 16, 6, 0, "task that asked" },
	[AC_PIDS] = { "pids", "PIDS", 5, 5, 8, TOP_COL_RIGHT | TOP_COL_DESC,
		      "distinct tasks" },
	[AC_REQUESTS] = { "requests", "REQUESTS", 8, 8, 2, TOP_COL_RIGHT | TOP_COL_DESC,
			  "request_module() calls" },
	[AC_NEEDLESS] = { "needless", "NEEDLESS", 8, 8, 4, TOP_COL_RIGHT | TOP_COL_DESC,
			  "requests for a module already Live" },
	[AC_MODPROBES] = { "modprobes", "MODPROBES", 9, 9, 7,
			   TOP_COL_RIGHT | TOP_COL_DESC,
			   "modprobe runs that made calls" },
	[AC_ATTEMPTS] = { "attempts", "ATTEMPTS", 8, 8, 9, TOP_COL_RIGHT | TOP_COL_DESC,
			  "finit/init_module calls they made" },
	[AC_MODULE] = { "module", "MODULE", 12, 20, 3, 0,
			"module the alias resolves to" },
};

enum {
	EC_TIME,
	EC_EVENT,
	EC_MODULE,
	EC_REQUESTER,
	EC_DETAIL,
	_EC_MAX,
};

static const struct top_column event_cols[_EC_MAX] = {
	[EC_TIME] = { "time", "TIME", 11, 11, 1, TOP_COL_RIGHT | TOP_COL_DESC,
		      "seconds since boot" },
	[EC_EVENT] = { "event", "EVENT", 14, 16, 2, 0,
		       "attempt outcome, request, or log finding" },
	[EC_MODULE] = { "module", "MODULE", 12, 20, 3, 0, "module" },
	[EC_REQUESTER] = { "requester", "REQUESTER", 12, 16, 4, 0, "task" },
	[EC_DETAIL] = { "detail", "DETAIL", 10, 400, 5, TOP_COL_FLEX | TOP_COL_NOSORT,
			"errno and bytes, or the log line" },
};

enum {
	TC_NAME,
	TC_ATTEMPTS,
	TC_DUP,
	TC_FAIL,
	TC_WASTED_EST,
	TC_WASTED_MEAS,
	TC_DETAIL,
	_TC_MAX,
};

static const struct top_column tree_cols[_TC_MAX] = {
	[TC_NAME] = { "name", "REQUESTER / MODULE / ATTEMPT", 30, 44, 1, TOP_COL_NOSORT,
		      "" },
	[TC_ATTEMPTS] = { "attempts", "ATTEMPTS", 8, 8, 2, TOP_COL_RIGHT | TOP_COL_NOSORT,
			  "" },
	[TC_DUP] = { "dup", "DUP", 5, 5, 4, TOP_COL_RIGHT | TOP_COL_NOSORT, "" },
	[TC_FAIL] = { "fail", "FAIL", 5, 5, 3, TOP_COL_RIGHT | TOP_COL_NOSORT, "" },
	[TC_WASTED_EST] = { "wasted", "WASTED (est.)", 13, 13, 5,
			    TOP_COL_RIGHT | TOP_COL_NOSORT, "" },
	[TC_WASTED_MEAS] = { "measured", "WASTED (meas.)", 14, 14, 7,
			     TOP_COL_RIGHT | TOP_COL_NOSORT, "" },
	[TC_DETAIL] = { "detail", "OUTCOME", 10, 200, 6, TOP_COL_FLEX | TOP_COL_NOSORT,
			"" },
};

enum {
	DC_TIME,
	DC_PID,
	DC_REQUESTER,
	DC_OUTCOME,
	DC_ERRNO,
	DC_KREAD,
	DC_DECOMP,
	DC_LAYOUT,
	DC_COPY,
	DC_WASTED,
	DC_BY,
	_DC_MAX,
};

static const struct top_column detail_cols[_DC_MAX] = {
	[DC_TIME] = { "time", "TIME", 11, 11, 1, TOP_COL_RIGHT, "" },
	[DC_PID] = { "pid", "PID", 7, 7, 6, TOP_COL_RIGHT, "" },
	[DC_REQUESTER] = { "requester", "REQUESTER CHAIN", 16, 40, 5, TOP_COL_FLEX, "" },
	[DC_OUTCOME] = { "outcome", "OUTCOME", 12, 16, 2, 0, "" },
	[DC_ERRNO] = { "errno", "ERRNO", 7, 7, 3, 0, "" },
	[DC_KREAD] = { "kread", "KREAD", 6, 6, 8, TOP_COL_RIGHT | TOP_COL_DESC, "" },
	[DC_DECOMP] = { "decompress", "DECOMP", 6, 6, 9, TOP_COL_RIGHT | TOP_COL_DESC,
			"" },
	[DC_LAYOUT] = { "layout", "LAYOUT", 6, 6, 10, TOP_COL_RIGHT | TOP_COL_DESC, "" },
	[DC_COPY] = { "copy", "COPY", 6, 6, 11, TOP_COL_RIGHT | TOP_COL_DESC, "" },
	[DC_WASTED] = { "wasted", "WASTED", 6, 6, 4, TOP_COL_RIGHT | TOP_COL_DESC, "" },
	[DC_BY] = { "by", "BY", 4, 4, 7, 0, "" },
};

const struct top_column *top_columns(enum top_view v, size_t *ret_n)
{
	switch (v) {
	case TOP_VIEW_MODULES:
		*ret_n = _MC_MAX;
		return module_cols;
	case TOP_VIEW_REQUESTERS:
		*ret_n = _RC_MAX;
		return requester_cols;
	case TOP_VIEW_AUTOLOAD:
		*ret_n = _AC_MAX;
		return autoload_cols;
	case TOP_VIEW_EVENTS:
		*ret_n = _EC_MAX;
		return event_cols;
	case TOP_VIEW_TREE:
		*ret_n = _TC_MAX;
		return tree_cols;
	case TOP_VIEW_DETAIL:
	default:
		*ret_n = _DC_MAX;
		return detail_cols;
	}
}

int top_column_find(enum top_view v, const char *key)
{
	size_t n;
	const struct top_column *c = top_columns(v, &n);

	for (size_t i = 0; i < n; i++)
		if (strcasecmp(c[i].key, key) == 0 && !(c[i].flags & TOP_COL_NOSORT))
			return (int)i;
	return -1;
}

const char *top_view_name(enum top_view v)
{
	static const char *const n[_TOP_VIEW_MAX] = {
		[TOP_VIEW_MODULES] = "Modules",	  [TOP_VIEW_REQUESTERS] = "Requesters",
		[TOP_VIEW_AUTOLOAD] = "Autoload", [TOP_VIEW_EVENTS] = "Events",
		[TOP_VIEW_TREE] = "Tree",	  [TOP_VIEW_DETAIL] = "Detail",
	};
	return v < _TOP_VIEW_MAX ? n[v] : "?";
}

const char *top_outcome_label(enum attempt_outcome o)
{
	static const char *const n[_OUTCOME_MAX] = {
		[OUTCOME_LOADED] = "loaded",
		[OUTCOME_DUP_LIVE] = "dup-live",
		[OUTCOME_DUP_CONCURRENT] = "dup-busy",
		[OUTCOME_WAITER] = "waiter",
		[OUTCOME_MISSING_DEP] = "missing-dep",
		[OUTCOME_BAD_FORMAT] = "bad-format",
		[OUTCOME_FALLBACK] = "fallback",
		[OUTCOME_SIG_REJECTED] = "sig-rejected",
		[OUTCOME_INIT_FAILED] = "init-err",
		[OUTCOME_DENIED] = "denied",
		[OUTCOME_OTHER_ERROR] = "error",
		[OUTCOME_INCOMPLETE] = "incomplete",
		[OUTCOME_INTERRUPTED] = "interrupted",
	};
	return o < _OUTCOME_MAX && n[o] ? n[o] : "?";
}

void top_ui_init(struct top_ui *ui)
{
	memset(ui, 0, sizeof(*ui));
	ui->view = TOP_VIEW_MODULES;
	ui->tab = TOP_VIEW_MODULES;
	ui->sort[TOP_VIEW_MODULES] = MC_WASTED_EST;
	ui->sort[TOP_VIEW_REQUESTERS] = RC_ATTEMPTS;
	ui->sort[TOP_VIEW_AUTOLOAD] = AC_REQUESTS;
	ui->sort[TOP_VIEW_EVENTS] = EC_TIME;
	ui->sort[TOP_VIEW_TREE] = -1;
	ui->sort[TOP_VIEW_DETAIL] = DC_TIME;
	ui->menu_sel = -1;
	ui->page = 10;
}

/* --- small containers ----------------------------------------------------------------- */

/*
 * The model's indexes (modules, requesters, aliases, tree pairs) are made when the
 * first entry comes: a model that never sees one allocates none.
 */
static size_t map_find(const struct hindex *h, uint64_t hash, hindex_eq_fn eq,
		       const void *key)
{
	return h ? hindex_find(h, hash, eq, key, NULL) : HINDEX_NONE;
}

static int map_add(struct hindex **h, uint64_t hash, size_t pos)
{
	if (!*h && hindex_new(h) < 0)
		return -ENOMEM;
	return hindex_add(*h, hash, pos);
}

/* A set of 64-bit keys (distinct pids per row). */
struct u64_set {
	uint64_t *keys; /* key + 1; 0: empty */
	size_t cap, n;
};

/*
 * The slot of a key: keys are "index << 32 | pid", which differ only in their high
 * bits for one requester's pid, so the bits are mixed first (splitmix64's finaliser)
 */
static size_t u64_slot(uint64_t key, size_t cap)
{
	key ^= key >> 30;
	key *= 0xbf58476d1ce4e5b9ull;
	key ^= key >> 27;
	key *= 0x94d049bb133111ebull;
	key ^= key >> 31;
	return (size_t)key & (cap - 1);
}

static int u64_set_add(struct u64_set *s, uint64_t key)
{
	size_t j;

	key++;
	if ((s->n + 1) * 2 > s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 256;
		uint64_t *nk = calloc(ncap, sizeof(*nk));

		if (!nk)
			return -ENOMEM;
		for (size_t i = 0; i < s->cap; i++) {
			if (!s->keys[i])
				continue;
			j = u64_slot(s->keys[i], ncap);
			while (nk[j])
				j = (j + 1) & (ncap - 1);
			nk[j] = s->keys[i];
		}
		free(s->keys);
		s->keys = nk;
		s->cap = ncap;
	}
	j = u64_slot(key, s->cap);
	while (s->keys[j]) {
		if (s->keys[j] == key)
			return 0;
		j = (j + 1) & (s->cap - 1);
	}
	s->keys[j] = key;
	s->n++;
	return 1;
}

/* Strings made while building a table live in chunks freed with it. */
struct arena {
	struct arena *next;
	size_t used, cap;
	_Alignas(16) char data[];
};

/* Every piece is 16-byte aligned: rows' value arrays come from here too. */
static char *arena_alloc(void **head, size_t n)
{
	struct arena *a = *head;

	n = (n + 15) & ~(size_t)15;
	if (!a || a->cap - a->used < n) {
		size_t cap = n > 16384 ? n : 16384;

		a = malloc(sizeof(*a) + cap);
		if (!a)
			return NULL;
		a->used = 0;
		a->cap = cap;
		a->next = *head;
		*head = a;
	}
	a->used += n;
	return a->data + a->used - n;
}

static const char *arena_printf(void **head, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static const char *arena_printf(void **head, const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return "";
	p = arena_alloc(head, (size_t)n + 1);
	if (!p)
		return "";
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

static void arena_free(void *head)
{
	for (struct arena *a = head, *n; a; a = n) {
		n = a->next;
		free(a);
	}
}

static char *escape_str(const char *s)
{
	return escape_dup(s, strlen(s));
}

char *top_format_bytes(uint64_t bytes, char *buf, size_t bufsz)
{
	static const char unit[] = "KMGTPE";
	double v = (double)bytes;
	int u = -1;

	if (bytes < 1000) {
		snprintf(buf, bufsz, "%" PRIu64, bytes);
		return buf;
	}
	while (v >= 1000.0 && u < 5) {
		v /= 1024.0;
		u++;
	}
	snprintf(buf, bufsz,
		 v < 9.995   ? "%.2f%c"
		 : v < 99.95 ? "%.1f%c"
			     : "%.0f%c",
		 v, unit[u]);
	return buf;
}

/* --- accumulators --------------------------------------------------------------------- */

struct mod_acc {
	char *name; /* raw; NULL: the unnamed attempts */
	char *disp; /* escaped */
	bool present;
	enum module_state state;
	bool has_size;
	uint64_t size;
	bool seen_present; /* ever in proc/modules during the run */
	uint64_t attempts, loaded, dup, fail, needless, requests;
	uint64_t wasted_est, wasted_meas;
	bool est_any, unestimated;
	long last;	 /* index of the last attempt, -1 */
	size_t last_req; /* requester of the last attempt */
	double last_ts;
	uint16_t spark[TOP_SPARK_N];
	uint32_t tick; /* attempts since the previous refresh */
	uint64_t sig;  /* what the row showed at the previous refresh */
	bool changed;
};

struct req_acc {
	char comm[32];	  /* raw */
	const char *site; /* raw, owned by the ledger; NULL: not an autoload */
	char *disp, *site_disp;
	int pid;
	size_t n_pids;
	uint64_t attempts, dup, fail, wasted_est, wasted_meas;
	size_t *mods; /* indices into mods */
	size_t n_mods, cap_mods;
	uint64_t sig;
	bool changed;
};

struct alias_acc {
	const char *alias, *site; /* raw, owned by the ledger */
	char comm[32];
	char *alias_disp, *site_disp, *comm_disp, *module_disp;
	size_t n_pids;
	uint64_t requests, needless, modprobes, attempts;
	bool resolved_none, unresolved;
	uint64_t sig;
	bool changed;
};

enum event_kind {
	EV_ATTEMPT,
	EV_REQUEST,
	EV_KLOG,
};

struct event {
	enum event_kind kind;
	size_t idx; /* into the ledger's attempts, requests or klog */
	double ts;
};

/* A module's missing symbols (unknown-symbol findings), by the module exporting them */
struct missing_exporter {
	char name[64];			/* raw, as the module tree names it */
	size_t n;
};

struct missing {
	char *module;			/* whose; NULL: none yet */
	size_t klog_seen;		/* findings of the ledger read so far */
	char **syms;			/* distinct, at most MISSING_SYMBOLS */
	size_t n_syms;
	/* @syms by hash: index + 1, 0 empty (a log may repeat a symbol millions of times) */
	uint16_t slot[2 * MISSING_SYMBOLS];
	bool more;			/* more distinct symbols than were kept */
	struct missing_exporter by[MISSING_EXPORTERS];
	size_t n_by;
	size_t n_other;			/* exported by a module not in @by */
	size_t n_none;			/* exported by no module of the tree */
	size_t n_unknown;		/* not looked up (no module tree, an error) */
};

static void missing_done(struct missing *ms)
{
	for (size_t i = 0; i < ms->n_syms; i++)
		free(ms->syms[i]);
	free(ms->syms);
	free(ms->module);
	memset(ms, 0, sizeof(*ms));
}

struct top_model {
	const struct top_sample *s;
	const struct ledger *ledger;
	struct top_header hdr;

	struct mod_acc *mods;
	size_t n_mods, cap_mods;
	struct hindex *mod_map;
	struct req_acc *reqs;
	size_t n_reqs, cap_reqs;
	struct hindex *req_map;
	struct alias_acc *aliases;
	size_t n_aliases, cap_aliases;
	struct hindex *alias_map;
	struct u64_set pids;

	/* per consumed attempt: its requester and module (parallel to the ledger's attempts) */
	size_t *att_req, *att_mod;
	size_t cap_att;
	size_t n_seen, n_req_seen, n_klog_seen;
	/* live: what each request counted (RQ_COUNTED_*), for those that may still change */
	uint8_t *rq_counted;
	size_t cap_rq_counted, n_req_final;

	struct event *events; /* ring */
	size_t ev_head, n_events;

	double prev_now;
	bool have_prev;
	uint64_t tick_attempts, tick_est, tick_meas;

	/* the module detail's file facts, looked up once per module */
	char info_for[TOP_KEY_MAX];
	bool info_valid;
	struct top_module_info info;
	struct missing missing;
};

int top_model_new(struct top_model **ret)
{
	struct top_model *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	m->events = calloc(EVENT_RING, sizeof(*m->events));
	if (!m->events) {
		free(m);
		return -ENOMEM;
	}
	*ret = m;
	return 0;
}

static void model_reset(struct top_model *m)
{
	for (size_t i = 0; i < m->n_mods; i++) {
		free(m->mods[i].name);
		free(m->mods[i].disp);
	}
	for (size_t i = 0; i < m->n_reqs; i++) {
		free(m->reqs[i].disp);
		free(m->reqs[i].site_disp);
		free(m->reqs[i].mods);
	}
	for (size_t i = 0; i < m->n_aliases; i++) {
		free(m->aliases[i].alias_disp);
		free(m->aliases[i].site_disp);
		free(m->aliases[i].comm_disp);
		free(m->aliases[i].module_disp);
	}
	free(m->mods);
	free(m->reqs);
	free(m->aliases);
	m->mods = NULL;
	m->reqs = NULL;
	m->aliases = NULL;
	m->n_mods = m->cap_mods = m->n_reqs = m->cap_reqs = m->n_aliases =
		m->cap_aliases = 0;
	m->mod_map = hindex_free(m->mod_map);
	m->req_map = hindex_free(m->req_map);
	m->alias_map = hindex_free(m->alias_map);
	free(m->pids.keys);
	memset(&m->pids, 0, sizeof(m->pids));
	free(m->att_req);
	free(m->att_mod);
	m->att_req = m->att_mod = NULL;
	m->cap_att = 0;
	m->n_seen = m->n_req_seen = m->n_klog_seen = 0;
	free(m->rq_counted);
	m->rq_counted = NULL;
	m->cap_rq_counted = m->n_req_final = 0;
	m->ev_head = m->n_events = 0;
	memset(&m->hdr, 0, sizeof(m->hdr));
	m->info_valid = false;
	missing_done(&m->missing);
}

struct top_model *top_model_free(struct top_model *m)
{
	if (!m)
		return NULL;
	model_reset(m);
	free(m->events);
	free(m);
	return NULL;
}

const struct top_header *top_model_header(const struct top_model *m)
{
	return &m->hdr;
}

struct mod_key {
	const struct top_model *m;
	const char *name;
};

static bool mod_eq(size_t idx, const void *key, const void *userdata)
{
	const struct mod_key *k = key;
	const char *n = k->m->mods[idx].name;

	return (!n && !k->name) || (n && k->name && strcmp(n, k->name) == 0);
}

static long mod_get(struct top_model *m, const char *name)
{
	struct mod_key k = { m, name };
	uint64_t h = hash_str(HASH_INIT, name);
	struct mod_acc *a;
	size_t i = map_find(m->mod_map, h, mod_eq, &k);

	if (i != HINDEX_NONE)
		return (long)i;
	if (array_grow((void **)&m->mods, m->n_mods, &m->cap_mods, sizeof(*m->mods)) < 0)
		return -ENOMEM;
	a = &m->mods[m->n_mods];
	memset(a, 0, sizeof(*a));
	a->last = -1;
	a->name = name ? strdup(name) : NULL;
	a->disp = name ? escape_name_dup(name, strlen(name)) : strdup("(unnamed)");
	if ((name && !a->name) || !a->disp) {
		free(a->name);
		free(a->disp);
		return -ENOMEM;
	}
	if (map_add(&m->mod_map, h, m->n_mods) < 0) {
		free(a->name);
		free(a->disp);
		return -ENOMEM;
	}
	return (long)m->n_mods++;
}

struct req_key {
	const struct top_model *m;
	const char *comm, *site;
};

static bool str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool req_eq(size_t idx, const void *key, const void *userdata)
{
	const struct req_key *k = key;
	const struct req_acc *r = &k->m->reqs[idx];

	return strcmp(r->comm, k->comm) == 0 && str_eq(r->site, k->site);
}

static long req_get(struct top_model *m, const char *comm, const char *site, int pid)
{
	struct req_key k = { m, comm, site };
	uint64_t h = hash_str(hash_str(HASH_INIT, comm), site);
	struct req_acc *r;
	size_t i = map_find(m->req_map, h, req_eq, &k);

	if (i != HINDEX_NONE)
		return (long)i;
	if (array_grow((void **)&m->reqs, m->n_reqs, &m->cap_reqs, sizeof(*m->reqs)) < 0)
		return -ENOMEM;
	r = &m->reqs[m->n_reqs];
	memset(r, 0, sizeof(*r));
	snprintf(r->comm, sizeof(r->comm), "%s", comm);
	r->site = site;
	r->pid = pid;
	r->disp = escape_str(comm);
	r->site_disp = site ? escape_str(site) : NULL;
	if (!r->disp || (site && !r->site_disp) ||
	    map_add(&m->req_map, h, m->n_reqs) < 0) {
		free(r->disp);
		free(r->site_disp);
		return -ENOMEM;
	}
	return (long)m->n_reqs++;
}

struct alias_key {
	const struct top_model *m;
	const char *alias, *site, *comm;
};

static bool alias_eq(size_t idx, const void *key, const void *userdata)
{
	const struct alias_key *k = key;
	const struct alias_acc *a = &k->m->aliases[idx];

	return strcmp(a->alias, k->alias) == 0 && str_eq(a->site, k->site) &&
	       strcmp(a->comm, k->comm) == 0;
}

static long alias_get(struct top_model *m, const struct autoload_request *rq)
{
	const char *alias = rq->alias ? rq->alias : "";
	struct alias_key k = { m, alias, rq->call_site, rq->comm };
	uint64_t h = hash_str(hash_str(hash_str(HASH_INIT, alias), rq->call_site), rq->comm);
	const char *mod = rq->n_resolved ? rq->resolved[0] : NULL;
	struct alias_acc *a;
	size_t i = map_find(m->alias_map, h, alias_eq, &k);

	if (i != HINDEX_NONE)
		return (long)i;
	if (array_grow((void **)&m->aliases, m->n_aliases, &m->cap_aliases,
		 sizeof(*m->aliases)) < 0)
		return -ENOMEM;
	a = &m->aliases[m->n_aliases];
	memset(a, 0, sizeof(*a));
	a->alias = alias;
	a->site = rq->call_site;
	snprintf(a->comm, sizeof(a->comm), "%s", rq->comm);
	a->alias_disp = escape_str(alias);
	a->site_disp = escape_str(rq->call_site ? rq->call_site : "-");
	a->comm_disp = escape_str(rq->comm);
	a->module_disp = mod ? escape_name_dup(mod, strlen(mod)) : NULL;
	a->resolved_none = !rq->resolve_failed && rq->n_resolved == 0;
	a->unresolved = rq->resolve_failed;
	if (!a->alias_disp || !a->site_disp || !a->comm_disp ||
	    (mod && !a->module_disp) ||
	    map_add(&m->alias_map, h, m->n_aliases) < 0) {
		free(a->alias_disp);
		free(a->site_disp);
		free(a->comm_disp);
		free(a->module_disp);
		return -ENOMEM;
	}
	return (long)m->n_aliases++;
}

/* Adds @mod to the requester's modules once (the set knows who has which). */
static int add_mod_to_req(struct top_model *m, size_t ri, size_t mod)
{
	struct req_acc *r = &m->reqs[ri];
	int seen = u64_set_add(&m->pids, ((uint64_t)3 << 62) | ((uint64_t)ri << 32) |
						 (uint32_t)mod);

	if (seen <= 0)
		return seen;
	if (array_grow((void **)&r->mods, r->n_mods, &r->cap_mods, sizeof(*r->mods)) < 0)
		return -ENOMEM;
	r->mods[r->n_mods++] = mod;
	return 0;
}

static void push_event(struct top_model *m, enum event_kind kind, size_t idx, double ts)
{
	size_t pos = (m->ev_head + m->n_events) % EVENT_RING;

	if (m->n_events == EVENT_RING) {
		m->ev_head = (m->ev_head + 1) % EVENT_RING;
		pos = (m->ev_head + m->n_events - 1) % EVENT_RING;
	} else {
		m->n_events++;
	}
	m->events[pos] = (struct event){ kind, idx, ts };
}

/* The task that made or caused an attempt: for an autoload, the requesting task. */
static void attempt_requester(const struct ledger *l, const struct attempt *a,
			      const char **ret_comm, const char **ret_site, int *ret_pid)
{
	const struct autoload_request *rq =
		a->request >= 0 && (size_t)a->request < l->n_requests
			? &l->requests[a->request]
			: NULL;

	*ret_comm = rq ? rq->comm : a->comm;
	*ret_site = rq ? rq->call_site : NULL;
	*ret_pid = rq ? rq->pid : a->pid;
}

static int consume_attempt(struct top_model *m, const struct top_sample *s, size_t idx)
{
	const struct ledger *l = s->ledger;
	const struct attempt *a = &l->attempts[idx];
	const struct attempt_cost *c = s->cost ? &s->cost[idx] : NULL;
	const char *comm, *site;
	struct mod_acc *ma;
	struct req_acc *ra;
	long mi, ri;
	int pid, r;
	uint64_t meas = attempt_wasted(a);
	uint64_t est = c && c->estimated ? c->wasted : 0;

	mi = mod_get(m, a->module);
	if (mi < 0)
		return (int)mi;
	attempt_requester(l, a, &comm, &site, &pid);
	ri = req_get(m, comm, site, pid);
	if (ri < 0)
		return (int)ri;
	if (idx >= m->cap_att) {
		size_t ncap = m->cap_att ? m->cap_att : 256;
		size_t *na;

		while (ncap <= idx)
			ncap *= 2;
		na = realloc(m->att_req, ncap * sizeof(*na));
		if (!na)
			return -ENOMEM;
		m->att_req = na;
		na = realloc(m->att_mod, ncap * sizeof(*na));
		if (!na)
			return -ENOMEM;
		m->att_mod = na;
		m->cap_att = ncap;
	}
	m->att_req[idx] = (size_t)ri;
	m->att_mod[idx] = (size_t)mi;

	ma = &m->mods[mi];
	ma->attempts++;
	ma->loaded += a->complete && a->err == 0 && a->outcome != OUTCOME_WAITER;
	ma->dup += attempt_is_duplicate(a);
	ma->fail += attempt_is_failure(a);
	ma->wasted_meas = add_sat_u64(ma->wasted_meas, meas);
	ma->wasted_est = add_sat_u64(ma->wasted_est, est);
	ma->est_any = ma->est_any || (c && c->estimated);
	ma->unestimated =
		ma->unestimated || (attempt_is_failure(a) && !(c && c->estimated));
	ma->last = (long)idx;
	ma->last_req = (size_t)ri;
	ma->last_ts = a->end;
	ma->tick++;

	ra = &m->reqs[ri];
	ra->attempts++;
	ra->dup += attempt_is_duplicate(a);
	ra->fail += attempt_is_failure(a);
	ra->wasted_meas = add_sat_u64(ra->wasted_meas, meas);
	ra->wasted_est = add_sat_u64(ra->wasted_est, est);
	r = u64_set_add(&m->pids,
			((uint64_t)1 << 62) | ((uint64_t)ri << 32) | (uint32_t)pid);
	if (r < 0)
		return r;
	ra->n_pids += r;
	r = add_mod_to_req(m, (size_t)ri, (size_t)mi);
	if (r < 0)
		return r;

	if (a->request >= 0 && (size_t)a->request < l->n_requests) {
		long ai = alias_get(m, &l->requests[a->request]);

		if (ai < 0)
			return (int)ai;
		m->aliases[ai].attempts++;
	}

	m->hdr.attempts++;
	m->hdr.failed += attempt_is_failure(a);
	m->hdr.duplicates += attempt_is_duplicate(a);
	m->hdr.unnamed += !a->module;
	m->hdr.wasted_meas = add_sat_u64(m->hdr.wasted_meas, meas);
	m->hdr.wasted_est = add_sat_u64(m->hdr.wasted_est, est);
	m->hdr.has_est = m->hdr.has_est || (c && c->estimated);
	m->tick_attempts++;
	m->tick_est = add_sat_u64(m->tick_est, est);
	m->tick_meas = add_sat_u64(m->tick_meas, meas);
	push_event(m, EV_ATTEMPT, idx, a->complete ? a->end : a->start);
	return 0;
}

#define RQ_COUNTED_NEEDLESS 1
#define RQ_COUNTED_MODPROBE 2

static uint8_t rq_counted_bits(const struct autoload_request *rq)
{
	return (rq->needless ? RQ_COUNTED_NEEDLESS : 0) | (rq->modprobe_pid ? RQ_COUNTED_MODPROBE : 0);
}

/* Live: a request's modprobe and needlessness may be decided after it was counted */
static int recount_request(struct top_model *m, const struct ledger *l, size_t idx)
{
	const struct autoload_request *rq = &l->requests[idx];
	uint8_t was = m->rq_counted[idx], now = rq_counted_bits(rq);
	long ai;

	if (was == now)
		return 0;
	ai = alias_get(m, rq);
	if (ai < 0)
		return (int)ai;
	if ((was ^ now) & RQ_COUNTED_NEEDLESS) {
		bool add = now & RQ_COUNTED_NEEDLESS;
		long mi = rq->n_resolved ? mod_get(m, rq->resolved[0]) : -1;

		if (rq->n_resolved && mi < 0)
			return (int)mi;
		if (add)
			m->aliases[ai].needless++;
		else
			m->aliases[ai].needless--;
		if (mi >= 0 && add)
			m->mods[mi].needless++;
		else if (mi >= 0)
			m->mods[mi].needless--;
	}
	if ((was ^ now) & RQ_COUNTED_MODPROBE) {
		if (now & RQ_COUNTED_MODPROBE)
			m->aliases[ai].modprobes++;
		else
			m->aliases[ai].modprobes--;
	}
	m->rq_counted[idx] = now;
	return 0;
}

static int consume_request(struct top_model *m, const struct ledger *l, size_t idx)
{
	const struct autoload_request *rq = &l->requests[idx];
	long ai = alias_get(m, rq);
	struct alias_acc *a;
	int r;

	if (ai < 0)
		return (int)ai;
	if (m->s->requests_change) {
		if (idx >= m->cap_rq_counted) {
			size_t ncap = m->cap_rq_counted ? m->cap_rq_counted * 2 : 256;
			uint8_t *nc;

			while (ncap <= idx)
				ncap *= 2;
			nc = realloc(m->rq_counted, ncap);
			if (!nc)
				return -ENOMEM;
			m->rq_counted = nc;
			m->cap_rq_counted = ncap;
		}
		m->rq_counted[idx] = rq_counted_bits(rq);
	}
	a = &m->aliases[ai];
	a->requests++;
	a->needless += rq->needless;
	a->modprobes += rq->modprobe_pid != 0;
	r = u64_set_add(&m->pids,
			((uint64_t)2 << 62) | ((uint64_t)ai << 32) | (uint32_t)rq->pid);
	if (r < 0)
		return r;
	a->n_pids += r;
	if (rq->n_resolved) {
		long mi = mod_get(m, rq->resolved[0]);

		if (mi < 0)
			return (int)mi;
		m->mods[mi].requests++;
		m->mods[mi].needless += rq->needless;
	}
	push_event(m, EV_REQUEST, idx, rq->ts);
	return 0;
}

static uint64_t sig_mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ull + 0x9e3779b97f4a7c15ull;
}

int top_model_update(struct top_model *m, const struct top_sample *s)
{
	const struct ledger *l = s->ledger;
	double dt;
	int r;

	if (l != m->ledger || (l && s->n_done < m->n_seen)) {
		model_reset(m);
		m->ledger = l;
	}
	m->s = s;
	m->hdr.s = s;
	m->tick_attempts = m->tick_est = m->tick_meas = 0;
	for (size_t i = 0; i < m->n_mods; i++)
		m->mods[i].present = false;
	for (size_t i = 0; i < s->n_mods; i++) {
		long mi = mod_get(m, s->mods[i].name);
		struct mod_acc *a;

		if (mi < 0)
			return (int)mi;
		a = &m->mods[mi];
		a->present = s->mods[i].present;
		a->seen_present = a->seen_present || a->present;
		a->state = s->mods[i].state;
		if (s->mods[i].has_size) {
			a->has_size = true;
			a->size = s->mods[i].size;
		}
	}
	if (l) {
		/* requests first: an autoload's attempts come after its request */
		size_t nrq =
			s->n_requests < l->n_requests ? s->n_requests : l->n_requests;
		size_t nkl = s->n_klog < l->n_klog ? s->n_klog : l->n_klog;

		/* live: those counted before may have changed since; the settled ones no more */
		for (size_t i = m->n_req_final; s->requests_change && i < m->n_req_seen; i++) {
			r = recount_request(m, l, i);
			if (r < 0)
				return r;
		}
		for (; m->n_req_seen < nrq; m->n_req_seen++) {
			r = consume_request(m, l, m->n_req_seen);
			if (r < 0)
				return r;
		}
		if (s->requests_change && s->n_requests_final > m->n_req_final)
			m->n_req_final = s->n_requests_final < m->n_req_seen ? s->n_requests_final
									     : m->n_req_seen;
		for (; m->n_seen < s->n_done; m->n_seen++) {
			size_t idx = s->done[m->n_seen];

			if (idx >= l->n_attempts)
				continue;
			r = consume_attempt(m, s, idx);
			if (r < 0)
				return r;
		}
		for (; m->n_klog_seen < nkl; m->n_klog_seen++)
			push_event(m, EV_KLOG, m->n_klog_seen,
				   l->klog[m->n_klog_seen].ts);
	}

	/* rates over the last refresh, in the sample's clock */
	if (!m->have_prev) {
		m->prev_now = isnan(s->start) ? s->now : s->start;
		m->have_prev = true;
	}
	dt = s->now - m->prev_now;
	if (dt > 0) {
		m->hdr.attempts_per_s = (double)m->tick_attempts / dt;
		m->hdr.wasted_est_per_s = (double)m->tick_est / dt;
		m->hdr.wasted_meas_per_s = (double)m->tick_meas / dt;
	} else if (m->hdr.refreshes == 0 || m->tick_attempts) {
		m->hdr.attempts_per_s = -1;
		m->hdr.wasted_est_per_s = m->hdr.wasted_meas_per_s = -1;
	}
	if (dt > 0 || s->now < m->prev_now)
		m->prev_now = s->now;

	m->hdr.n_present = 0;
	for (size_t i = 0; i < m->n_mods; i++) {
		struct mod_acc *a = &m->mods[i];
		uint64_t sig = 0;

		memmove(a->spark, a->spark + 1, (TOP_SPARK_N - 1) * sizeof(a->spark[0]));
		a->spark[TOP_SPARK_N - 1] =
			a->tick > UINT16_MAX ? UINT16_MAX : (uint16_t)a->tick;
		a->tick = 0;
		m->hdr.n_present += a->present;
		sig = sig_mix(sig, a->attempts);
		sig = sig_mix(sig, a->present | (uint64_t)a->state << 1);
		sig = sig_mix(sig, a->size);
		sig = sig_mix(sig, a->needless);
		sig = sig_mix(sig, a->requests);
		a->changed = m->hdr.refreshes > 0 && sig != a->sig;
		a->sig = sig;
	}
	for (size_t i = 0; i < m->n_reqs; i++) {
		struct req_acc *a = &m->reqs[i];
		uint64_t sig = sig_mix(a->attempts, a->n_mods);

		a->changed = m->hdr.refreshes > 0 && sig != a->sig;
		a->sig = sig;
	}
	for (size_t i = 0; i < m->n_aliases; i++) {
		struct alias_acc *a = &m->aliases[i];
		uint64_t sig = sig_mix(a->requests, a->attempts);

		a->changed = m->hdr.refreshes > 0 && sig != a->sig;
		a->sig = sig;
	}
	m->hdr.n_modules = 0;
	for (size_t i = 0; i < m->n_mods; i++) {
		const struct mod_acc *a = &m->mods[i];

		m->hdr.n_modules +=
			a->present || a->attempts || a->requests || a->seen_present;
	}
	m->hdr.n_requesters = m->n_reqs;
	m->hdr.n_aliases = m->n_aliases;
	m->hdr.n_events = m->n_events;
	m->hdr.refreshes++;
	return 0;
}

/* --- filters and search --------------------------------------------------------------- */

static bool contains_ci(const char *hay, const char *needle, size_t nlen)
{
	size_t hlen = strlen(hay);

	if (!nlen)
		return true;
	for (size_t i = 0; i + nlen <= hlen; i++)
		if (strncasecmp(hay + i, needle, nlen) == 0)
			return true;
	return false;
}

bool top_filter_match(const char *filter, const char *name)
{
	const char *p = filter;
	bool any = false;

	if (!filter || !*filter)
		return true;
	if (!name)
		name = "";
	/* htop -F: fixed strings separated by '|', case-insensitive */
	while (*p) {
		const char *bar = strchr(p, '|');
		size_t n = bar ? (size_t)(bar - p) : strlen(p);

		if (n) {
			any = true;
			if (contains_ci(name, p, n))
				return true;
		}
		if (!bar)
			break;
		p = bar + 1;
	}
	return !any;
}

/* --- building tables ------------------------------------------------------------------ */

struct builder {
	struct top_table *t;
	size_t cap;
	int err;
};

static struct top_row *add_row(struct builder *b, const char *key)
{
	struct top_row *row;
	struct top_val *vals;

	if (b->err)
		return NULL;
	if (array_grow((void **)&b->t->rows, b->t->n_rows, &b->cap, sizeof(*b->t->rows)) < 0) {
		b->err = -ENOMEM;
		return NULL;
	}
	vals = (struct top_val *)arena_alloc(&b->t->arena, b->t->n_cols * sizeof(*vals));
	if (!vals) {
		b->err = -ENOMEM;
		return NULL;
	}
	memset(vals, 0, b->t->n_cols * sizeof(*vals));
	row = &b->t->rows[b->t->n_rows++];
	memset(row, 0, sizeof(*row));
	row->key = key;
	row->vals = vals;
	return row;
}

static void add_line(struct builder *b, uint8_t style, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void add_line(struct builder *b, uint8_t style, const char *fmt, ...)
{
	struct top_table *t = b->t;
	char buf[1024], **nl;
	uint8_t *ns;
	va_list ap;

	if (b->err)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	nl = realloc(t->lines, (t->n_lines + 1) * sizeof(*nl));
	if (!nl) {
		b->err = -ENOMEM;
		return;
	}
	t->lines = nl;
	ns = realloc(t->line_styles, (t->n_lines + 1) * sizeof(*ns));
	if (!ns) {
		b->err = -ENOMEM;
		return;
	}
	t->line_styles = ns;
	nl[t->n_lines] = strdup(buf);
	if (!nl[t->n_lines]) {
		b->err = -ENOMEM;
		return;
	}
	ns[t->n_lines++] = style;
}

static void set_str(struct top_val *v, const char *s)
{
	v->kind = s ? TV_STR : TV_NONE;
	v->s = s;
}

static void set_u64(struct top_val *v, uint64_t u)
{
	v->kind = TV_U64;
	v->u = u;
}

static void set_bytes(struct top_val *v, uint64_t u)
{
	v->kind = TV_BYTES;
	v->u = u;
}

static void set_time(struct top_val *v, double d)
{
	v->kind = isnan(d) ? TV_NONE : TV_TIME;
	v->d = d;
}

static const char *state_label(const struct mod_acc *a)
{
	if (!a->name || !a->present)
		return "-";
	switch (a->state) {
	case MODULE_LIVE:
		return "live";
	case MODULE_LOADING:
		return "coming";
	case MODULE_UNLOADING:
		return "going";
	}
	return "?";
}

/* @buf: ATTEMPT_ERRNO_NAME_MAX bytes, for a number with no name */
static const char *errno_label(int err, char *buf)
{
	return attempt_errno_name(err, buf);
}

/* The errno an outcome stands for, which its label need not repeat. */
static int implied_errno(enum attempt_outcome o)
{
	switch (o) {
	case OUTCOME_DUP_LIVE:
		return EEXIST;
	case OUTCOME_DUP_CONCURRENT:
		return EBUSY;
	case OUTCOME_MISSING_DEP:
		return ENOENT;
	case OUTCOME_BAD_FORMAT:
	case OUTCOME_FALLBACK:
		return ENOEXEC;
	case OUTCOME_DENIED:
		return EPERM;
	default:
		return 0;
	}
}

static const char *outcome_text(void **arena, const struct attempt *a)
{
	char eb[ATTEMPT_ERRNO_NAME_MAX];

	if (!a->complete || a->err == 0 || a->err == implied_errno(a->outcome))
		return top_outcome_label(a->outcome);
	return arena_printf(arena, "%s %s", top_outcome_label(a->outcome),
			    errno_label(a->err, eb));
}

static uint8_t outcome_style(const struct attempt *a)
{
	if (a->outcome == OUTCOME_LOADED)
		return ST_GOOD;
	if (attempt_is_duplicate(a))
		return ST_WARN;
	if (attempt_is_failure(a))
		return ST_BAD;
	return 0;
}

static void build_modules(struct top_model *m, const struct top_ui *ui, struct builder *b)
{
	const struct top_sample *s = m->s;
	const struct ledger *l = m->ledger;

	for (size_t i = 0; i < m->n_mods; i++) {
		const struct mod_acc *a = &m->mods[i];
		struct top_row *row;
		struct top_val *v;

		/* loaded now, or part of the load history: modules gone before are kept */
		if (!a->present && !a->attempts && !a->requests && !a->seen_present)
			continue;
		b->t->n_total++;
		if (!top_filter_match(ui->filter, a->disp))
			continue;
		row = add_row(b, a->name ? a->disp : "");
		if (!row)
			return;
		row->unnamed = !a->name;
		row->module = a->name ? a->disp : NULL;
		row->style = a->changed ? ST_CHANGED : !a->name ? ST_DIM : 0;
		v = row->vals;
		set_str(&v[MC_MODULE], a->disp);
		set_str(&v[MC_STATE], state_label(a));
		if (a->has_size && a->name)
			set_bytes(&v[MC_SIZE], a->size);
		set_u64(&v[MC_ATTEMPTS], a->attempts);
		set_u64(&v[MC_LOADED], a->loaded);
		set_u64(&v[MC_DUP], a->dup);
		if (a->dup)
			v[MC_DUP].style = ST_WARN;
		set_u64(&v[MC_FAIL], a->fail);
		if (a->fail)
			v[MC_FAIL].style = ST_BAD;
		set_u64(&v[MC_NEEDLESS], a->needless);
		if (a->est_any || (m->hdr.has_est && !a->fail && a->attempts))
			set_bytes(&v[MC_WASTED_EST], a->wasted_est);
		if (s && s->measured && a->attempts)
			set_bytes(&v[MC_WASTED_MEAS], a->wasted_meas);
		v[MC_RECENT].kind = TV_SPARK;
		v[MC_RECENT].spark = a->spark;
		if (a->last >= 0 && l && (size_t)a->last < l->n_attempts) {
			const struct attempt *at = &l->attempts[a->last];
			const struct req_acc *ra = &m->reqs[a->last_req];

			set_str(&v[MC_REQUESTER], ra->disp);
			set_str(&v[MC_OUTCOME], outcome_text(&b->t->arena, at));
			v[MC_OUTCOME].style = outcome_style(at);
			v[MC_OUTCOME].d = at->end;
		}
	}
}

static const char *parents_text(void **arena, const struct ledger *l, int pid)
{
	const struct proctab *pt = l ? ledger_proctab(l) : NULL;
	const char *comms[4];
	int pids[4];
	size_t n = pt ? proctab_chain(pt, pid, comms, pids, 4) : 0;
	char buf[256];
	size_t len = 0;

	if (!n)
		return NULL;
	buf[0] = '\0';
	for (size_t i = 0; i < n && len < sizeof(buf); i++) {
		char *e = comms[i] ? escape_str(comms[i]) : NULL;

		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s(%d)",
					i ? " < " : "", e ? e : "?", pids[i]);
		free(e);
	}
	return arena_printf(arena, "%s", buf);
}

static void build_requesters(struct top_model *m, const struct top_ui *ui,
			     struct builder *b)
{
	for (size_t i = 0; i < m->n_reqs; i++) {
		const struct req_acc *r = &m->reqs[i];
		char mods[512];
		size_t len = 0;
		struct top_row *row;
		struct top_val *v;
		const char *key;
		bool match;

		b->t->n_total++;
		match = top_filter_match(ui->filter, r->disp) ||
			(r->site_disp && top_filter_match(ui->filter, r->site_disp));
		mods[0] = '\0';
		for (size_t k = 0; k < r->n_mods && len < sizeof(mods); k++) {
			const char *md = m->mods[r->mods[k]].disp;

			match = match || top_filter_match(ui->filter, md);
			len += (size_t)snprintf(mods + len, sizeof(mods) - len, "%s%s",
						k ? "," : "", md);
		}
		if (!match)
			continue;
		key = arena_printf(&b->t->arena, "%s\t%s", r->disp,
				   r->site_disp ? r->site_disp : "");
		row = add_row(b, key);
		if (!row)
			return;
		row->style = r->changed ? ST_CHANGED : 0;
		v = row->vals;
		set_str(&v[RC_REQUESTER], r->disp);
		set_u64(&v[RC_PID], (uint64_t)r->pid);
		set_u64(&v[RC_PIDS], r->n_pids);
		set_str(&v[RC_PARENTS], parents_text(&b->t->arena, m->ledger, r->pid));
		set_str(&v[RC_SITE], r->site_disp);
		set_u64(&v[RC_ATTEMPTS], r->attempts);
		set_u64(&v[RC_DUP], r->dup);
		if (r->dup)
			v[RC_DUP].style = ST_WARN;
		set_u64(&v[RC_FAIL], r->fail);
		if (r->fail)
			v[RC_FAIL].style = ST_BAD;
		if (m->hdr.has_est)
			set_bytes(&v[RC_WASTED_EST], r->wasted_est);
		if (m->s && m->s->measured)
			set_bytes(&v[RC_WASTED_MEAS], r->wasted_meas);
		set_str(&v[RC_MODULES], arena_printf(&b->t->arena, "%s", mods));
	}
}

static void build_autoload(struct top_model *m, const struct top_ui *ui,
			   struct builder *b)
{
	for (size_t i = 0; i < m->n_aliases; i++) {
		const struct alias_acc *a = &m->aliases[i];
		struct top_row *row;
		struct top_val *v;

		b->t->n_total++;
		if (!top_filter_match(ui->filter, a->alias_disp) &&
		    !(a->module_disp && top_filter_match(ui->filter, a->module_disp)) &&
		    !top_filter_match(ui->filter, a->comm_disp))
			continue;
		row = add_row(b, arena_printf(&b->t->arena, "%s\t%s\t%s", a->alias_disp,
					      a->site_disp, a->comm_disp));
		if (!row)
			return;
		row->style = a->changed ? ST_CHANGED : 0;
		row->module = a->module_disp;
		v = row->vals;
		set_str(&v[AC_ALIAS], a->alias_disp);
		set_str(&v[AC_SITE], a->site_disp);
		set_str(&v[AC_REQUESTER], a->comm_disp);
		set_u64(&v[AC_PIDS], a->n_pids);
		set_u64(&v[AC_REQUESTS], a->requests);
		set_u64(&v[AC_NEEDLESS], a->needless);
		if (a->needless)
			v[AC_NEEDLESS].style = ST_WARN;
		set_u64(&v[AC_MODPROBES], a->modprobes);
		set_u64(&v[AC_ATTEMPTS], a->attempts);
		set_str(&v[AC_MODULE], a->module_disp  ? a->module_disp
				       : a->unresolved ? "(no index)"
						       : "(none)");
		if (!a->module_disp)
			v[AC_MODULE].style = ST_DIM;
	}
}

static const char *esc_arena(void **arena, const char *s, size_t len)
{
	char *e = escape_dup(s, len);
	const char *r;

	if (!e)
		return "";
	r = arena_printf(arena, "%s", e);
	free(e);
	return r;
}

/* A module's name where "(unnamed)" stands for none: escape_name_dup() */
static const char *name_arena(void **arena, const char *name)
{
	char *e = escape_name_dup(name, strlen(name));
	const char *r;

	if (!e)
		return "";
	r = arena_printf(arena, "%s", e);
	free(e);
	return r;
}

static const char *attempt_bytes_text(void **arena, const struct attempt *a,
				      const struct attempt_cost *c)
{
	char b1[32];
	uint64_t meas = attempt_wasted(a);

	if (a->measured && meas)
		return arena_printf(arena, "wasted %s (meas.)",
				    (top_format_bytes(meas, b1, sizeof(b1)), b1));
	if (c && c->estimated && c->wasted)
		return arena_printf(arena, "wasted %s (est.)",
				    (top_format_bytes(c->wasted, b1, sizeof(b1)), b1));
	return "";
}

static void build_events(struct top_model *m, const struct top_ui *ui, struct builder *b)
{
	const struct ledger *l = m->ledger;

	if (!l)
		return;
	for (size_t n = 0; n < m->n_events; n++) {
		const struct event *e = &m->events[(m->ev_head + n) % EVENT_RING];
		const char *module = NULL, *req = NULL, *detail = NULL, *what = NULL;
		uint8_t style = 0;
		struct top_row *row;
		struct top_val *v;

		switch (e->kind) {
		case EV_ATTEMPT: {
			const struct attempt *a = &l->attempts[e->idx];
			const struct req_acc *ra = &m->reqs[m->att_req[e->idx]];
			char eb[ATTEMPT_ERRNO_NAME_MAX];

			module = a->module ? name_arena(&b->t->arena, a->module)
					   : "(unnamed)";
			req = ra->disp;
			what = top_outcome_label(a->outcome);
			style = outcome_style(a);
			detail = arena_printf(
				&b->t->arena, "%s%s%s pid %d %s",
				a->syscall == ATTEMPT_FINIT ? "finit_module"
							    : "init_module",
				a->err ? " " : "",
				a->err ? errno_label(a->err, eb) : "", a->pid,
				attempt_bytes_text(&b->t->arena, a,
						   m->s->cost ? &m->s->cost[e->idx]
							      : NULL));
			break;
		}
		case EV_REQUEST: {
			const struct autoload_request *rq = &l->requests[e->idx];

			module = rq->n_resolved ? name_arena(&b->t->arena, rq->resolved[0]) : NULL;
			req = esc_arena(&b->t->arena, rq->comm, strlen(rq->comm));
			what = rq->needless ? "request (live)" : "request";
			style = rq->needless ? ST_WARN : 0;
			detail = arena_printf(
				&b->t->arena, "request_module(%s) from %s",
				esc_arena(&b->t->arena, rq->alias ? rq->alias : "",
					  rq->alias ? strlen(rq->alias) : 0),
				rq->call_site ? esc_arena(&b->t->arena, rq->call_site,
							  strlen(rq->call_site))
					      : "?");
			break;
		}
		case EV_KLOG: {
			const struct ledger_klog *g = &l->klog[e->idx];

			module = g->module ? name_arena(&b->t->arena, g->module) : NULL;
			what = klog_finding_kind_name(g->kind);
			style = ST_BAD;
			detail = g->msg ? esc_arena(&b->t->arena, g->msg, strlen(g->msg))
					: "";
			break;
		}
		}
		b->t->n_total++;
		if (!top_filter_match(ui->filter, module ? module : "") &&
		    !top_filter_match(ui->filter, req ? req : "") &&
		    !top_filter_match(ui->filter, detail ? detail : ""))
			continue;
		row = add_row(b,
			      arena_printf(&b->t->arena, "%d:%zu", (int)e->kind, e->idx));
		if (!row)
			return;
		v = row->vals;
		set_time(&v[EC_TIME], e->ts);
		set_str(&v[EC_EVENT], what);
		v[EC_EVENT].style = style;
		set_str(&v[EC_MODULE], module);
		set_str(&v[EC_REQUESTER], req);
		set_str(&v[EC_DETAIL], detail);
		/* the row's module, for Enter */
		row->unnamed = e->kind == EV_ATTEMPT && !l->attempts[e->idx].module;
		row->module = module;
	}
}

/* Attempts of one (requester, module), in order, for the tree and the detail. */
static size_t gather_attempts(const struct top_model *m, const struct top_sample *s,
			       long req, long mod, size_t *out, size_t max,
			       size_t *ret_total)
{
	const struct ledger *l = m->ledger;
	size_t n = 0, total = 0;

	for (size_t i = 0; i < m->n_seen; i++) {
		size_t idx = s->done[i];

		if (idx >= l->n_attempts)
			continue;
		if (req >= 0 && m->att_req[idx] != (size_t)req)
			continue;
		if (mod >= 0 && m->att_mod[idx] != (size_t)mod)
			continue;
		total++;
		/* keep the latest @max */
		if (n == max) {
			memmove(out, out + 1, (max - 1) * sizeof(*out));
			n--;
		}
		out[n++] = idx;
	}
	*ret_total = total;
	return n;
}

static int cmp_req_attempts(const void *pa, const void *pb, void *ctx)
{
	const struct top_model *m = ctx;
	const struct req_acc *a = &m->reqs[*(const size_t *)pa],
			     *b = &m->reqs[*(const size_t *)pb];

	if (a->attempts != b->attempts)
		return a->attempts > b->attempts ? -1 : 1;
	return strcmp(a->comm, b->comm);
}

/* One requester's attempts on one module: the tree's middle level. */
struct pair {
	size_t req, mod;
	uint64_t attempts, dup, fail, est, meas;
	size_t last[TREE_ATTEMPTS]; /* ring of the latest attempts */
	size_t n_last, head;
	bool expanded;		/* every attempt, in @all */
	size_t *all, n_all, cap_all;
};

struct pair_key {
	const struct pair *pairs;
	size_t req, mod;
};

static bool pair_eq(size_t idx, const void *key, const void *userdata)
{
	const struct pair_key *k = key;

	return k->pairs[idx].req == k->req && k->pairs[idx].mod == k->mod;
}

static uint64_t pair_hash(size_t req, size_t mod)
{
	return ((uint64_t)req * 0x9e3779b97f4a7c15ull) ^
	       ((uint64_t)mod * 0xc2b2ae3d27d4eb4full);
}

static int cmp_pairs(const void *pa, const void *pb, void *ctx)
{
	const struct pair *a = pa, *b = pb;
	const struct top_model *m = ctx;

	if (a->req != b->req)
		return a->req < b->req ? -1 : 1;
	if (a->attempts != b->attempts)
		return a->attempts > b->attempts ? -1 : 1;
	return strcmp(m->mods[a->mod].disp, m->mods[b->mod].disp);
}

/* Is the pair's "... N earlier" row (its key) one the user expanded? */
static bool pair_expanded(const struct top_model *m, const struct top_ui *ui, size_t req,
			  size_t mod)
{
	const struct req_acc *r = &m->reqs[req];
	char key[TOP_KEY_MAX];

	if (!ui->n_expanded)
		return false;
	snprintf(key, sizeof(key), "e\t%s\t%s\t%s", r->disp,
		 r->site_disp ? r->site_disp : "", m->mods[mod].disp);
	for (size_t i = 0; i < ui->n_expanded; i++)
		if (strcmp(ui->expanded[i], key) == 0)
			return true;
	return false;
}

/* Attempts by start time: the ledger's completion order is not the order they began. */
static int cmp_attempt_start(const void *pa, const void *pb, void *ctx)
{
	const struct ledger *l = ctx;
	size_t ia = *(const size_t *)pa, ib = *(const size_t *)pb;
	double a = l->attempts[ia].start, b = l->attempts[ib].start;

	if (a != b)
		return a < b ? -1 : 1;
	return ia < ib ? -1 : ia > ib;
}

/* Requester -> module -> attempts, one pass over the attempts seen. */
static void build_tree(struct top_model *m, const struct top_ui *ui, struct builder *b,
		       bool unicode)
{
	const struct ledger *l = m->ledger;
	const struct top_sample *s = m->s;
	const char *branch = unicode ? "\u251c\u2500 " : "|- ";
	const char *last_branch = unicode ? "\u2514\u2500 " : "`- ";
	const char *pipe = unicode ? "\u2502  " : "|  ";
	struct hindex *map = NULL;
	struct pair *pairs = NULL;
	size_t n_pairs = 0, cap = 0, *order = NULL, *first = NULL;

	if (!l || !m->n_reqs)
		return;
	for (size_t i = 0; i < m->n_seen; i++) {
		size_t ai = s->done[i];
		const struct attempt *a;
		struct pair_key k;
		struct pair *p;
		size_t found;
		long pi;

		if (ai >= l->n_attempts)
			continue;
		a = &l->attempts[ai];
		k = (struct pair_key){ pairs, m->att_req[ai], m->att_mod[ai] };
		found = map_find(map, pair_hash(k.req, k.mod), pair_eq, &k);
		pi = found == HINDEX_NONE ? -1 : (long)found;
		if (pi < 0) {
			if (array_grow((void **)&pairs, n_pairs, &cap, sizeof(*pairs)) < 0 ||
			    map_add(&map, pair_hash(k.req, k.mod), n_pairs) < 0) {
				b->err = -ENOMEM;
				goto out;
			}
			pi = (long)n_pairs++;
			pairs[pi] = (struct pair){ .req = k.req, .mod = k.mod };
			pairs[pi].expanded = pair_expanded(m, ui, k.req, k.mod);
		}
		p = &pairs[pi];
		if (p->expanded) {
			if (array_grow((void **)&p->all, p->n_all, &p->cap_all,
				       sizeof(*p->all)) < 0) {
				b->err = -ENOMEM;
				goto out;
			}
			p->all[p->n_all++] = ai;
		}
		p->attempts++;
		p->dup += attempt_is_duplicate(a);
		p->fail += attempt_is_failure(a);
		p->meas = add_sat_u64(p->meas, attempt_wasted(a));
		if (s->cost && s->cost[ai].estimated)
			p->est = add_sat_u64(p->est, s->cost[ai].wasted);
		p->last[(p->head + p->n_last) % TREE_ATTEMPTS] = ai;
		if (p->n_last < TREE_ATTEMPTS)
			p->n_last++;
		else
			p->head = (p->head + 1) % TREE_ATTEMPTS;
	}
	map = hindex_free(map);
	/* pairs grouped by requester, each group by attempts */
	if (n_pairs > 1)
		qsort_r(pairs, n_pairs, sizeof(*pairs), cmp_pairs, m);
	first = calloc(m->n_reqs + 1, sizeof(*first));
	order = malloc(m->n_reqs * sizeof(*order));
	if (!first || !order) {
		b->err = -ENOMEM;
		goto out;
	}
	for (size_t i = n_pairs; i-- > 0;)
		first[pairs[i].req] = i + 1;
	for (size_t i = 0; i < m->n_reqs; i++)
		order[i] = i;
	qsort_r(order, m->n_reqs, sizeof(*order), cmp_req_attempts, m);

	for (size_t oi = 0; oi < m->n_reqs && !b->err; oi++) {
		const struct req_acc *r = &m->reqs[order[oi]];
		struct top_row *row;
		bool any = top_filter_match(ui->filter, r->disp);
		size_t p0 = first[order[oi]];

		b->t->n_total++;
		for (size_t k = 0; k < r->n_mods && !any; k++)
			any = top_filter_match(ui->filter, m->mods[r->mods[k]].disp);
		if (!any || !p0)
			continue;
		row = add_row(b, arena_printf(&b->t->arena, "r\t%s\t%s", r->disp,
					      r->site_disp ? r->site_disp : ""));
		if (!row)
			break;
		row->style = ST_BOLD;
		set_str(&row->vals[TC_NAME],
			r->site_disp ? arena_printf(&b->t->arena, "%s (%s)", r->disp,
						    r->site_disp)
				     : r->disp);
		set_u64(&row->vals[TC_ATTEMPTS], r->attempts);
		set_u64(&row->vals[TC_DUP], r->dup);
		set_u64(&row->vals[TC_FAIL], r->fail);
		if (m->hdr.has_est)
			set_bytes(&row->vals[TC_WASTED_EST], r->wasted_est);
		if (s->measured)
			set_bytes(&row->vals[TC_WASTED_MEAS], r->wasted_meas);
		set_str(&row->vals[TC_DETAIL],
			arena_printf(&b->t->arena, "%zu pid%s, %zu module%s", r->n_pids,
				     r->n_pids == 1 ? "" : "s", r->n_mods,
				     r->n_mods == 1 ? "" : "s"));

		for (size_t pi = p0 - 1;
		     pi < n_pairs && pairs[pi].req == order[oi] && !b->err; pi++) {
			const struct pair *p = &pairs[pi];
			const struct mod_acc *ma = &m->mods[p->mod];
			bool last_mod =
				pi + 1 == n_pairs || pairs[pi + 1].req != order[oi];

			row = add_row(b,
				      arena_printf(&b->t->arena, "m\t%s\t%s\t%s", r->disp,
						   r->site_disp ? r->site_disp : "",
						   ma->disp));
			if (!row)
				break;
			row->tree = last_mod ? last_branch : branch;
			row->indent = 1;
			row->unnamed = !ma->name;
			row->module = ma->name ? ma->disp : NULL;
			set_str(&row->vals[TC_NAME], ma->disp);
			set_u64(&row->vals[TC_ATTEMPTS], p->attempts);
			set_u64(&row->vals[TC_DUP], p->dup);
			if (p->dup)
				row->vals[TC_DUP].style = ST_WARN;
			set_u64(&row->vals[TC_FAIL], p->fail);
			if (p->fail)
				row->vals[TC_FAIL].style = ST_BAD;
			if (m->hdr.has_est)
				set_bytes(&row->vals[TC_WASTED_EST], p->est);
			if (s->measured)
				set_bytes(&row->vals[TC_WASTED_MEAS], p->meas);
			size_t shown[TREE_ATTEMPTS], *list = shown, n_list = p->n_last;

			if (p->expanded) {
				list = p->all;
				n_list = p->n_all;
			} else {
				for (size_t q = 0; q < p->n_last; q++)
					shown[q] = p->last[(p->head + q) % TREE_ATTEMPTS];
			}
			if (n_list > 1)
				qsort_r(list, n_list, sizeof(*list), cmp_attempt_start,
					(void *)l);
			if (p->attempts > n_list) {
				row = add_row(
					b, arena_printf(&b->t->arena, "e\t%s\t%s\t%s",
							r->disp,
							r->site_disp ? r->site_disp : "",
							ma->disp));
				if (!row)
					break;
				row->tree = arena_printf(&b->t->arena, "%s%s",
							 last_mod ? "   " : pipe, branch);
				row->indent = 2;
				row->style = ST_DIM;
				set_str(&row->vals[TC_NAME],
					arena_printf(&b->t->arena,
						     "... %" PRIu64 " earlier",
						     p->attempts - n_list));
			}
			for (size_t q = 0; q < n_list; q++) {
				size_t ai = list[q];
				const struct attempt *a = &l->attempts[ai];

				row = add_row(b,
					      arena_printf(&b->t->arena, "a\t%zu", ai));
				if (!row)
					break;
				row->tree = arena_printf(
					&b->t->arena, "%s%s", last_mod ? "   " : pipe,
					q + 1 == n_list ? last_branch : branch);
				row->indent = 2;
				row->unnamed = !a->module;
				row->module = ma->name ? ma->disp : NULL;
				set_str(&row->vals[TC_NAME],
					arena_printf(&b->t->arena, "%.6f pid %d",
						     a->start, a->pid));
				if (s->cost && s->cost[ai].estimated && m->hdr.has_est)
					set_bytes(&row->vals[TC_WASTED_EST],
						  s->cost[ai].wasted);
				if (s->measured)
					set_bytes(&row->vals[TC_WASTED_MEAS],
						  attempt_wasted(a));
				set_str(&row->vals[TC_DETAIL],
					outcome_text(&b->t->arena, a));
				row->vals[TC_DETAIL].style = outcome_style(a);
			}
		}
	}
out:
	map = hindex_free(map);
	for (size_t i = 0; i < n_pairs; i++)
		free(pairs[i].all);
	free(pairs);
	free(first);
	free(order);
}

static const char *chain_text(void **arena, const struct ledger *l,
			      const struct attempt *a, const struct req_acc *ra)
{
	const char *comm, *site;
	const char *parents;
	char *e;
	const char *r;
	int pid;

	attempt_requester(l, a, &comm, &site, &pid);
	parents = parents_text(arena, l, pid);
	e = escape_str(a->comm);
	if (site)
		r = arena_printf(arena, "%s(%d) via %s: %s(%d)%s%s", ra->disp, pid,
				 ra->site_disp ? ra->site_disp : "?", e ? e : "?", a->pid,
				 parents ? " < " : "", parents ? parents : "");
	else
		r = arena_printf(arena, "%s(%d)%s%s", ra->disp, pid, parents ? " < " : "",
				 parents ? parents : "");
	free(e);
	return r;
}

/* Counts @symbol, missing from @ms->module, under the module that exports it. */
static int missing_add(struct missing *ms, const struct top_sample *s, const char *symbol)
{
	char owner[64], **ns;
	size_t k = hash_str(HASH_INIT, symbol) % ARRAY_SIZE(ms->slot);
	int r;

	for (; ms->slot[k]; k = (k + 1) % ARRAY_SIZE(ms->slot))
		if (strcmp(ms->syms[ms->slot[k] - 1], symbol) == 0)
			return 0;
	if (ms->n_syms == MISSING_SYMBOLS) {
		ms->more = true;
		return 0;
	}
	ns = realloc(ms->syms, (ms->n_syms + 1) * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	ms->syms = ns;
	ns[ms->n_syms] = strdup(symbol);
	if (!ns[ms->n_syms])
		return -ENOMEM;
	ms->slot[k] = (uint16_t)++ms->n_syms;
	r = s->symbol_module ? s->symbol_module(s->userdata, symbol, owner, sizeof(owner))
			     : -ENOSYS;
	if (r == -ENOENT) {
		ms->n_none++;
		return 0;
	}
	if (r < 0) {
		ms->n_unknown++;
		return r == -ENOMEM ? r : 0;
	}
	for (size_t i = 0; i < ms->n_by; i++)
		if (strcmp(ms->by[i].name, owner) == 0) {
			ms->by[i].n++;
			return 0;
		}
	if (ms->n_by == MISSING_EXPORTERS) {
		ms->n_other++;
		return 0;
	}
	snprintf(ms->by[ms->n_by].name, sizeof(ms->by[0].name), "%s", owner);
	ms->by[ms->n_by++].n = 1;
	return 0;
}

static int cmp_exporter(const void *pa, const void *pb)
{
	const struct missing_exporter *a = pa, *b = pb;

	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	return strcmp(a->name, b->name);
}

/*
 * The kernel log's "Unknown symbol" findings for @module that are new since the last
 * call, looked up: the symbols a missing-dependency failure lacked, by who exports them.
 */
static int missing_update(struct top_model *m, const char *module)
{
	const struct ledger *l = m->ledger;
	const struct top_sample *s = m->s;
	struct missing *ms = &m->missing;
	size_t nkl;
	int r = 0;

	if (!ms->module || strcmp(ms->module, module) != 0) {
		missing_done(ms);
		ms->module = strdup(module);
		if (!ms->module)
			return -ENOMEM;
	}
	if (!l)
		return 0;
	nkl = s->n_klog < l->n_klog ? s->n_klog : l->n_klog;
	for (; ms->klog_seen < nkl && r == 0; ms->klog_seen++) {
		const struct ledger_klog *g = &l->klog[ms->klog_seen];
		struct klog_finding f;
		char sym[256];

		if (g->kind != KLOG_FINDING_UNKNOWN_SYMBOL || !g->module ||
		    strcmp(g->module, module) != 0 || !g->msg)
			continue;
		if (klog_classify(g->msg, strlen(g->msg), &f) != 1 ||
		    f.kind != KLOG_FINDING_UNKNOWN_SYMBOL || !f.symbol || !f.symbol_len ||
		    f.symbol_len >= sizeof(sym))
			continue;
		memcpy(sym, f.symbol, f.symbol_len);
		sym[f.symbol_len] = '\0';
		r = missing_add(ms, s, sym);
	}
	array_sort(ms->by, ms->n_by, sizeof(ms->by[0]), cmp_exporter);
	return r;
}

/* "missing 47 symbols, exported by sunrpc (34), netfs (10), lockd (3)" */
static void missing_line(struct top_model *m, struct builder *b)
{
	const struct missing *ms = &m->missing;
	char list[512] = "";
	size_t len = 0;

	if (!ms->n_syms)
		return;
	for (size_t i = 0; i < ms->n_by && len < sizeof(list); i++) {
		char *e = escape_str(ms->by[i].name);

		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s (%zu)",
					i ? ", " : "", e ? e : "?", ms->by[i].n);
		free(e);
	}
	if (ms->n_other && len < sizeof(list))
		len += (size_t)snprintf(list + len, sizeof(list) - len,
					", other modules (%zu)", ms->n_other);
	if (ms->n_none && len < sizeof(list))
		snprintf(list + len, sizeof(list) - len, "%sno module (%zu)", len ? ", " : "",
			 ms->n_none);
	add_line(b, ST_WARN, "missing %zu%s symbols%s%s", ms->n_syms, ms->more ? "+" : "",
		 list[0] ? ", exported by " : "", list);
	if (ms->n_unknown)
		add_line(b, ST_DIM, "      %zu not looked up (no module tree)", ms->n_unknown);
}

/* "depends: a, b  holders: c, d", from the module tree and the sample's proc/modules */
static void depends_line(struct top_model *m, const struct mod_acc *ma, struct builder *b)
{
	const struct top_sample *s = m->s;
	const struct top_modstate *st = NULL;
	char holders[256] = "";
	char *dep = NULL;
	size_t len = 0;

	for (size_t i = 0; i < s->n_mods; i++)
		if (s->mods[i].name && strcmp(s->mods[i].name, ma->name) == 0) {
			st = &s->mods[i];
			break;
		}
	if (st && st->present) {
		for (size_t i = 0; i < st->n_holders && len < sizeof(holders); i++) {
			char *e = escape_str(st->holders[i]);

			len += (size_t)snprintf(holders + len, sizeof(holders) - len, "%s%s",
						i ? ", " : "", e ? e : "?");
			free(e);
		}
		if (!st->n_holders)
			snprintf(holders, sizeof(holders), "none");
	} else {
		snprintf(holders, sizeof(holders), "- (not loaded)");
	}
	if (m->info_valid && m->info.has_depends)
		dep = escape_str(m->info.depends[0] ? m->info.depends : "none");
	add_line(b, 0, "depends: %s  holders: %s", dep ? dep : "-", holders);
	free(dep);
}

/* The file's .modinfo fields */
static void modinfo_lines(const struct top_module_info *in, struct builder *b)
{
	char *d, *lic, *ver, *sig, *au, *fw, *pa;

	if (!in->has_modinfo) {
		const char *why;

		if (!in->found)
			return;
		switch (in->modinfo_err) {
		case -EINVAL:
			why = "not a regular file";
			break;
		case -EFBIG:
			why = "file too large";
			break;
		case -EBADMSG:
			why = "corrupt compressed data";
			break;
		case -EXDEV:
			why = "not the file the module tree holds";
			break;
		default:
			why = in->modinfo_err ? strerror(-in->modinfo_err) : "?";
		}
		add_line(b, ST_DIM, "modinfo: not read (%s)", why);
		return;
	}
	d = escape_str(in->description[0] ? in->description : "-");
	lic = escape_str(in->license[0] ? in->license : "-");
	ver = escape_str(in->version[0] ? in->version : "-");
	sig = escape_str(in->signer[0] ? in->signer : "unsigned");
	au = escape_str(in->author[0] ? in->author : "-");
	fw = escape_str(in->firmware);
	pa = escape_str(in->parms);
	add_line(b, 0, "modinfo: %s  by %s", d ? d : "?", au ? au : "?");
	add_line(b, 0, "      license %s  version %s  signer %s", lic ? lic : "?",
		 ver ? ver : "?", sig ? sig : "?");
	add_line(b, 0, "      aliases %zu  firmware %zu%s%s%s  parms %zu%s%s%s",
		 in->n_modinfo_aliases, in->n_firmware, in->n_firmware ? " (" : "",
		 in->n_firmware ? (fw ? fw : "?") : "", in->n_firmware ? ")" : "", in->n_parms,
		 in->n_parms ? " (" : "", in->n_parms ? (pa ? pa : "?") : "",
		 in->n_parms ? ")" : "");
	free(d);
	free(lic);
	free(ver);
	free(sig);
	free(au);
	free(fw);
	free(pa);
}

static void build_detail(struct top_model *m, const struct top_ui *ui, struct builder *b)
{
	const struct ledger *l = m->ledger;
	const struct top_sample *s = m->s;
	long mi = -1;
	const struct mod_acc *ma;
	size_t *idx, n, total;
	char b1[32], b2[32], b3[32];

	for (size_t i = 0; i < m->n_mods; i++)
		if (ui->detail_unnamed ? !m->mods[i].name
				       : (m->mods[i].name &&
					  strcmp(m->mods[i].disp, ui->detail) == 0)) {
			mi = (long)i;
			break;
		}
	if (mi < 0) {
		add_line(b, ST_BOLD, "%s: not seen", ui->detail);
		return;
	}
	ma = &m->mods[mi];
	add_line(b, ST_BOLD, "%s  %s%s%s", ma->disp, state_label(ma),
		 ma->has_size ? "  size " : "",
		 ma->has_size ? top_format_bytes(ma->size, b1, sizeof(b1)) : "");
	add_line(b, 0,
		 "attempts %" PRIu64 "  loaded %" PRIu64 "  duplicates %" PRIu64
		 "  failed %" PRIu64 "  autoload requests %" PRIu64 " (%" PRIu64
		 " needless)",
		 ma->attempts, ma->loaded, ma->dup, ma->fail, ma->requests, ma->needless);
	add_line(b, 0, "wasted: estimated %s%s  measured %s",
		 ma->est_any ? top_format_bytes(ma->wasted_est, b1, sizeof(b1)) : "-",
		 m->hdr.has_est && ma->unestimated ? " (some attempts not estimated)"
						   : "",
		 s->measured ? top_format_bytes(ma->wasted_meas, b2, sizeof(b2)) : "-");
	if (ma->name && s->module_info &&
	    (!m->info_valid || strcmp(m->info_for, ma->name) != 0)) {
		memset(&m->info, 0, sizeof(m->info));
		if (s->module_info(s->userdata, ma->name, &m->info) < 0)
			m->info.found = false;
		snprintf(m->info_for, sizeof(m->info_for), "%s", ma->name);
		m->info_valid = true;
	}
	if (ma->name) {
		int r = missing_update(m, ma->name);

		if (r < 0) {
			b->err = r;
			return;
		}
		missing_line(m, b);
		depends_line(m, ma, b);
	}
	if (ma->name && s->module_info) {
		modinfo_lines(&m->info, b);
		if (m->info.found) {
			char *p = escape_str(m->info.path);

			add_line(b, 0, "file: %s", p ? p : "?");
			free(p);
			add_line(b, 0, "      %s on disk%s%s%s%s%s",
				 top_format_bytes(m->info.file_size, b1, sizeof(b1)),
				 m->info.compressed ? ", " : ", uncompressed",
				 m->info.compressed && m->info.compression
					 ? m->info.compression
					 : "",
				 m->info.compressed ? "-compressed" : "",
				 m->info.has_decompressed ? ", decompressed " : "",
				 m->info.has_decompressed
					 ? top_format_bytes(m->info.decompressed_size, b2,
							    sizeof(b2))
					 : "");
			if (m->info.has_layout)
				add_line(b, 0, "      layout (%s): core %s, init %s",
					 m->info.layout_from ? m->info.layout_from : "?",
					 top_format_bytes(m->info.core_size, b2,
							  sizeof(b2)),
					 top_format_bytes(m->info.init_size, b3,
							  sizeof(b3)));
			if (m->info.n_percpu_aliases) {
				char *e = escape_str(m->info.percpu_example);

				add_line(
					b, ST_WARN,
					"per-CPU alias risk: %zu of %zu aliases match every CPU (%s): "
					"one load request per CPU",
					m->info.n_percpu_aliases, m->info.n_aliases,
					e ? e : "");
				free(e);
				if (m->info.has_risk)
					add_line(
						b, ST_WARN,
						"      at %u CPUs: up to %s of vmap wasted (%s where "
						"finit_module merges)",
						m->info.ncpus,
						top_format_bytes(m->info.risk_worst, b2,
								 sizeof(b2)),
						top_format_bytes(m->info.risk_merged, b3,
								 sizeof(b3)));
			} else {
				add_line(b, 0, "per-CPU alias risk: none (%zu aliases)",
					 m->info.n_aliases);
			}
		} else {
			add_line(b, ST_DIM, "file: not found in the module tree");
		}
	}
	if (!l)
		return;
	idx = malloc(DETAIL_ATTEMPTS * sizeof(*idx));
	if (!idx) {
		b->err = -ENOMEM;
		return;
	}
	n = gather_attempts(m, s, -1, mi, idx, DETAIL_ATTEMPTS, &total);
	if (total > n)
		add_line(b, ST_DIM, "(the last %zu of %zu attempts)", n, total);
	for (size_t q = 0; q < n && !b->err; q++) {
		const struct attempt *a = &l->attempts[idx[q]];
		const struct attempt_cost *c = s->cost ? &s->cost[idx[q]] : NULL;
		const uint64_t *by = NULL;
		struct top_row *row;
		struct top_val *v;
		char eb[ATTEMPT_ERRNO_NAME_MAX];

		b->t->n_total++;
		row = add_row(b, arena_printf(&b->t->arena, "a\t%zu", idx[q]));
		if (!row)
			break;
		v = row->vals;
		set_time(&v[DC_TIME], a->start);
		set_u64(&v[DC_PID], (uint64_t)a->pid);
		set_str(&v[DC_REQUESTER],
			chain_text(&b->t->arena, l, a, &m->reqs[m->att_req[idx[q]]]));
		set_str(&v[DC_OUTCOME], top_outcome_label(a->outcome));
		v[DC_OUTCOME].style = outcome_style(a);
		if (a->complete && a->err)
			set_str(&v[DC_ERRNO],
				arena_printf(&b->t->arena, "%s",
					     errno_label(a->err, eb)));
		else if (a->complete)
			set_str(&v[DC_ERRNO], "0");
		if (a->measured) {
			by = a->vmap;
			set_str(&v[DC_BY], "meas");
		} else if (c && c->estimated) {
			by = c->est;
			set_str(&v[DC_BY], c->source == COST_MEASURED ? "meas" : "est");
		}
		if (by) {
			set_bytes(&v[DC_KREAD], by[VMAP_KREAD]);
			set_bytes(&v[DC_DECOMP], by[VMAP_DECOMPRESS]);
			set_bytes(&v[DC_LAYOUT], by[VMAP_LAYOUT]);
			set_bytes(&v[DC_COPY], by[VMAP_USER_COPY]);
			set_bytes(&v[DC_WASTED],
				  a->measured ? attempt_wasted(a) : c->wasted);
		}
	}
	free(idx);
}

/* --- sorting -------------------------------------------------------------------------- */

struct sort_ctx {
	int col;
	bool desc;
	bool pin_unnamed;
};

static int cmp_val(const struct top_val *a, const struct top_val *b)
{
	/* "-" sorts below every value */
	if (a->kind == TV_NONE || b->kind == TV_NONE)
		return (a->kind != TV_NONE) - (b->kind != TV_NONE);
	switch (a->kind) {
	case TV_STR:
		return b->kind == TV_STR ? strcmp(a->s, b->s) : 0;
	case TV_TIME:
		return a->d < b->d ? -1 : a->d > b->d;
	case TV_SPARK: {
		uint64_t sa = 0, sb = 0;

		/* the most recent refreshes weigh most */
		for (int i = 0; i < TOP_SPARK_N; i++) {
			sa = sa * 4 + a->spark[i];
			sb = sb * 4 + b->spark[i];
		}
		return sa < sb ? -1 : sa > sb;
	}
	default:
		return a->u < b->u ? -1 : a->u > b->u;
	}
}

static int cmp_rows(const void *pa, const void *pb, void *ctx)
{
	const struct sort_ctx *c = ctx;
	const struct top_row *a = pa, *b = pb;
	int r = cmp_val(&a->vals[c->col], &b->vals[c->col]);

	/* the unnamed attempts are no module: their row stays last */
	if (a->unnamed != b->unnamed && c->pin_unnamed)
		return a->unnamed ? 1 : -1;
	if (r)
		return c->desc ? -r : r;
	/* ties: the named before the unnamed row, then by key, always ascending */
	if (a->unnamed != b->unnamed)
		return a->unnamed ? 1 : -1;
	return strcmp(a->key, b->key);
}

static void sort_table(struct top_table *t)
{
	struct sort_ctx c;

	if (t->sort < 0 || (size_t)t->sort >= t->n_cols ||
	    (t->cols[t->sort].flags & TOP_COL_NOSORT))
		return;
	c.col = t->sort;
	c.desc = !!(t->cols[t->sort].flags & TOP_COL_DESC) != t->invert;
	c.pin_unnamed = t->view == TOP_VIEW_MODULES;
	if (t->n_rows > 1)
		qsort_r(t->rows, t->n_rows, sizeof(*t->rows), cmp_rows, &c);
}

/* --- selection ------------------------------------------------------------------------ */

void top_ui_scroll(struct top_ui *ui, const struct top_table *t)
{
	enum top_view v = t->view;
	size_t page = ui->page > 0 ? (size_t)ui->page : 1;

	if (ui->sel[v] < ui->scroll[v])
		ui->scroll[v] = ui->sel[v];
	else if (ui->sel[v] >= ui->scroll[v] + page)
		ui->scroll[v] = ui->sel[v] - page + 1;
	if (t->n_rows <= page)
		ui->scroll[v] = 0;
	else if (ui->scroll[v] > t->n_rows - page)
		ui->scroll[v] = t->n_rows - page;
}

void top_ui_select(struct top_ui *ui, const struct top_table *t, size_t row)
{
	enum top_view v = t->view;

	if (!t->n_rows) {
		ui->sel[v] = 0;
		ui->sel_key[v][0] = '\0';
		return;
	}
	if (row >= t->n_rows)
		row = t->n_rows - 1;
	ui->sel[v] = row;
	snprintf(ui->sel_key[v], sizeof(ui->sel_key[v]), "%s", t->rows[row].key);
	ui->follow_selection[v] = true;
	top_ui_scroll(ui, t);
}

void top_ui_move(struct top_ui *ui, const struct top_table *t, long delta)
{
	long cur = (long)ui->sel[t->view];

	if (!t->n_rows)
		return;
	if (delta == LONG_MIN)
		cur = 0;
	else if (delta == LONG_MAX)
		cur = (long)t->n_rows - 1;
	else
		cur += delta;
	if (cur < 0)
		cur = 0;
	top_ui_select(ui, t,
		      (size_t)(cur >= (long)t->n_rows ? (long)t->n_rows - 1 : cur));
}

/* Search looks at every text cell of a row: names, requesters, call sites, messages. */
static bool row_matches(const struct top_table *t, const struct top_row *r,
			const char *needle, size_t len)
{
	for (size_t c = 0; c < t->n_cols; c++)
		if (r->vals[c].kind == TV_STR && contains_ci(r->vals[c].s, needle, len))
			return true;
	return false;
}

bool top_ui_search(struct top_ui *ui, const struct top_table *t, int dir,
		   bool from_current)
{
	size_t n = t->n_rows, start = ui->sel[t->view];
	size_t len = strlen(ui->search);

	ui->search_failed = false;
	if (!n || !len)
		return false;
	for (size_t k = from_current ? 0 : 1; k <= n; k++) {
		size_t i = dir >= 0 ? (start + k) % n : (start + n * 2 - k) % n;
		const struct top_row *r = &t->rows[i];

		if (row_matches(t, r, ui->search, len)) {
			top_ui_select(ui, t, i);
			return true;
		}
	}
	ui->search_failed = true;
	return false;
}

bool top_ui_expand(struct top_ui *ui, const struct top_table *t)
{
	const struct top_row *r;

	if (t->view != TOP_VIEW_TREE || !t->n_rows || ui->sel[t->view] >= t->n_rows)
		return false;
	r = &t->rows[ui->sel[t->view]];
	if (strncmp(r->key, "e\t", 2) != 0)
		return false;
	for (size_t i = 0; i < ui->n_expanded; i++)
		if (strcmp(ui->expanded[i], r->key) == 0)
			return true;
	/* the oldest expansion gives way */
	if (ui->n_expanded == TOP_EXPANDED_MAX) {
		memmove(ui->expanded[0], ui->expanded[1],
			(TOP_EXPANDED_MAX - 1) * sizeof(ui->expanded[0]));
		ui->n_expanded--;
	}
	snprintf(ui->expanded[ui->n_expanded++], TOP_KEY_MAX, "%s", r->key);
	return true;
}

bool top_ui_open_detail(struct top_ui *ui, const struct top_table *t)
{
	const struct top_row *r;
	const char *name = NULL;

	if (!t->n_rows || ui->sel[t->view] >= t->n_rows)
		return false;
	if (top_ui_expand(ui, t))
		return true;
	r = &t->rows[ui->sel[t->view]];
	switch (t->view) {
	case TOP_VIEW_MODULES:
	case TOP_VIEW_EVENTS:
	case TOP_VIEW_TREE:
	case TOP_VIEW_AUTOLOAD:
		name = r->module;
		break;
	default:
		break;
	}
	if (!name && !(r->unnamed && t->view != TOP_VIEW_DETAIL))
		return false;
	ui->detail_unnamed = r->unnamed;
	snprintf(ui->detail, sizeof(ui->detail), "%s", r->unnamed ? "(unnamed)" : name);
	if (ui->view < _TOP_VIEW_TABS)
		ui->tab = ui->view;
	ui->view = TOP_VIEW_DETAIL;
	ui->sel[TOP_VIEW_DETAIL] = 0;
	ui->scroll[TOP_VIEW_DETAIL] = 0;
	ui->sel_key[TOP_VIEW_DETAIL][0] = '\0';
	/* the newest attempt first: the storm is what one opens a detail for */
	ui->follow_selection[TOP_VIEW_DETAIL] = false;
	return true;
}

/* --- the table ------------------------------------------------------------------------ */

int top_model_table(struct top_model *m, struct top_ui *ui, struct top_table *ret)
{
	struct builder b = { ret, 0, 0 };
	enum top_view v = ui->view;
	bool found = false;

	memset(ret, 0, sizeof(*ret));
	ret->view = v;
	ret->cols = top_columns(v, &ret->n_cols);
	ret->sort = ui->sort[v];
	ret->invert = ui->invert[v];
	/* no cost model: sorting by wasted bytes means the measured ones, else attempts */
	if (v == TOP_VIEW_MODULES && ret->sort == MC_WASTED_EST && !m->hdr.has_est)
		ret->sort = m->s && m->s->measured ? MC_WASTED_MEAS : MC_ATTEMPTS;
	if (!m->s)
		return 0;
	switch (v) {
	case TOP_VIEW_MODULES:
		build_modules(m, ui, &b);
		break;
	case TOP_VIEW_REQUESTERS:
		build_requesters(m, ui, &b);
		break;
	case TOP_VIEW_AUTOLOAD:
		build_autoload(m, ui, &b);
		break;
	case TOP_VIEW_EVENTS:
		build_events(m, ui, &b);
		break;
	case TOP_VIEW_TREE:
		build_tree(m, ui, &b, ui->unicode);
		break;
	case TOP_VIEW_DETAIL:
	default:
		build_detail(m, ui, &b);
		break;
	}
	if (b.err) {
		top_table_done(ret);
		return b.err;
	}
	sort_table(ret);

	/* the selection stays on its row (htop): by key, else at the same position */
	if (ui->follow_selection[v] && ui->sel_key[v][0]) {
		for (size_t i = 0; i < ret->n_rows; i++)
			if (strcmp(ret->rows[i].key, ui->sel_key[v]) == 0) {
				ui->sel[v] = i;
				found = true;
				break;
			}
	}
	if (!found) {
		if (!ui->follow_selection[v])
			ui->sel[v] = 0;
		if (ui->sel[v] >= ret->n_rows)
			ui->sel[v] = ret->n_rows ? ret->n_rows - 1 : 0;
		if (ret->n_rows)
			snprintf(ui->sel_key[v], sizeof(ui->sel_key[v]), "%s",
				 ret->rows[ui->sel[v]].key);
	}
	top_ui_scroll(ui, ret);
	return 0;
}

void top_table_done(struct top_table *t)
{
	free(t->rows);
	for (size_t i = 0; i < t->n_lines; i++)
		free(t->lines[i]);
	free(t->lines);
	free(t->line_styles);
	arena_free(t->arena);
	memset(t, 0, sizeof(*t));
}
