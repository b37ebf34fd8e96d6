/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cost/catalog.h"
#include "cost/cost.h"
#include "cost/loadpath.h"
#include "ledger/klog-findings.h"
#include "ledger/ledger.h"
#include "output/ci-formats.h"
#include "sources/dmesg-text.h"
#include "sources/kmsg.h"
#include "sources/modindex.h"
#include "sources/proc-modules.h"
#include "sources/stream.h"
#include "sources/trace/text.h"
#include "sources/trace/tracedat.h"
#include "util/io.h"
#include "util/linecache.h"
#include "util/macro.h"
#include "util/parse-num.h"
#include "util/root.h"
#include "session/collect.h"
#include "session/system.h"
#include "session/ci-input.h"

/* Skipped lines reported per input: the first few, then a count */
#define BAD_LINE_WARNINGS 10
/* Lines looked at for the input's format before it counts as kernel log text */
#define SNIFF_LINES 64
/* Release-specific module trees kept open */
#define MAX_TREES 8

struct ci_tree {
	char *release;			/* NULL: the default release */
	bool ok;			/* a catalog of module files to price with */
	struct kt_system sys;
};

struct ci_input {
	struct ci_findings *ci;
	/* the kernel under study: --root (NULL: none), --moduledir, the default release */
	const char *root_path;
	const char *moduledir;
	const char *release;		/* NULL: unknown */
	char release_buf[256];
	struct kt_root *root;
	struct ci_tree trees[MAX_TREES];
	size_t n_trees;
	struct ci_cost_ops cost_ops;
	struct kt_root *idx_root;	/* modprobe.d for the module index: --root, or / */
	struct modindex *idx;
	struct proc_modules *pm;
	struct stream_needles *needles;
	bool filter;
	uint64_t max_bytes;		/* decompressed bytes read of an input; 0: all */
	/* no needle can start inside a kernel time: lines alike but for it are alike */
	bool time_blind;
	void (*note)(void *userdata, const struct ci_input_note *n);
	void *userdata;
	struct ci_input_err *err;	/* the current call's */
	/* the current input */
	const char *path;
	struct stream *s;
	struct ci_input_stats st;
	unsigned int warned;
	/* kernel log text without timestamps (dmesg -t, printk.time=0): since its banner */
	bool plain;
	bool journal;			/* journalctl text: no filter */
	char boot_id[48];
	/* threads that scan a kernel log (stream_scan()), this one included */
	unsigned int threads;
	/* the line being read, and its message's class when found on another thread */
	uint64_t lineno;
	const struct klog_finding *classified;
	/* trace inputs */
	uint64_t trace_last_ns, trace_back_steps, trace_back_line;
	struct ci_event_line *lines;
	size_t n_lines, cap_lines;
	/* a trace.dat: no lines, its events are numbered instead */
	bool dat;
	/* a text trace that cannot be opened again (compressed, standard input): its lines */
	FILE *copy;
	/* the kernel log of the trace's boot (given with it), and whether it is being read */
	const char *boot_log;
	bool joining;
};

static void note(struct ci_input *x, enum ci_input_note_kind kind, uint64_t line,
		 uint64_t count, const char *what)
{
	struct ci_input_note n = { kind, x->path, line, count, what };

	if (x->note)
		x->note(x->userdata, &n);
}

static int fail(struct ci_input *x, int r, enum ci_input_fault fault, const char *path,
		uint64_t line, const char *what)
{
	if (x->err)
		*x->err = (struct ci_input_err){ fault, path, line, what };
	return r;
}

/* --- module trees for estimates: the kernel under study, one per release -------------- */

static void tree_close(struct ci_tree *t)
{
	free(t->release);
	if (t->ok)
		kt_system_close(&t->sys);
	memset(t, 0, sizeof(*t));
}

static void tree_open(struct ci_input *x, struct ci_tree *t, const char *release)
{
	struct kt_system_opts o = { .root = x->root_path, .release = release,
				    .moduledir = x->moduledir, .no_root = !x->root_path };

	if (kt_system_open(&o, &t->sys) < 0)
		return;
	kt_system_open_module_tree(&t->sys, true);
	if (!t->sys.cat) {
		kt_system_close(&t->sys);
		return;
	}
	collect_note_cache(t->sys.cat);
	collect_catalog_warnings(t->sys.cat);
	t->ok = true;
}

static struct ci_tree *tree_get(struct ci_input *x, const char *release)
{
	struct ci_tree *t;

	if (!release)
		release = x->release;
	for (size_t i = 0; i < x->n_trees; i++) {
		t = &x->trees[i];
		if ((!release && !t->release) ||
		    (release && t->release && strcmp(release, t->release) == 0))
			return t;
	}
	if (x->n_trees == MAX_TREES) {
		/* a log of many releases: keep the first few open, forget the oldest other */
		tree_close(&x->trees[MAX_TREES - 1]);
		x->n_trees--;
	}
	t = &x->trees[x->n_trees++];
	memset(t, 0, sizeof(*t));
	t->release = release ? strdup(release) : NULL;
	tree_open(x, t, release);
	return t;
}

static int cost_kernel_of(void *userdata, const char *release, struct cost_kernel *ret)
{
	struct ci_tree *t = tree_get(userdata, release);

	if (!t->ok)
		return -ENOENT;
	*ret = t->sys.k;
	return 0;
}

static const struct cost_module *cost_module_of(void *userdata, const char *release,
						const char *name)
{
	struct ci_tree *t = tree_get(userdata, release);
	char norm[64];

	if (!t->ok)
		return NULL;
	snprintf(norm, sizeof(norm), "%s", name);
	catalog_normalize(norm);
	return catalog_cost_module(t->sys.cat, catalog_find(t->sys.cat, norm));
}

/* --- inputs -------------------------------------------------------------------------- */

static const char *const format_names[] = {
	[CI_INPUT_DMESG] = "kernel-log-text",
	[CI_INPUT_KMSG] = "kmsg",
	[CI_INPUT_JOURNAL_JSON] = "journal-json",
	[CI_INPUT_TRACE] = "trace",
	[CI_INPUT_TRACE_DAT] = "trace-dat",
};

static void bad_line(struct ci_input *x, uint64_t line, const char *what)
{
	x->st.skipped++;
	if (++x->warned <= BAD_LINE_WARNINGS)
		note(x, CI_NOTE_SKIPPED_LINE, line, 0, what);
	else if (x->warned == BAD_LINE_WARNINGS + 1)
		note(x, CI_NOTE_MORE_SKIPPED, line, 0, NULL);
}

static bool has_prefix(const char *s, size_t len, const char *p)
{
	size_t n = strlen(p);

	return len >= n && memcmp(s, p, n) == 0;
}

enum ci_input_format ci_input_sniff(const char *line, size_t len)
{
	struct ktrace_line tl;
	struct klog_rec rec;
	const char *what, *p = line;
	char buf[512];
	size_t n = len < sizeof(buf) - 1 ? len : sizeof(buf) - 1;

	while (p < line + len && (*p == ' ' || *p == '\t'))
		p++;
	if (p < line + len && *p == '{')
		return CI_INPUT_JOURNAL_JSON;
	if (tracedat_sniff(line, len))
		return CI_INPUT_TRACE_DAT;
	if (has_prefix(line, len, "# tracer:") || has_prefix(line, len, "cpus=") ||
	    has_prefix(line, len, "version = ") || has_prefix(line, len, "CPU ") ||
	    has_prefix(line, len, "# entries-in-buffer"))
		return CI_INPUT_TRACE;
	if (ktrace_parse_line(line, len, &tl, &what) == 0 && tl.kind == KTRACE_LINE_EVENT &&
	    tl.ev.kind != KTRACE_EV_UNKNOWN)
		return CI_INPUT_TRACE;
	/* kmsg_parse_line() decodes in place: try a copy */
	memcpy(buf, line, n);
	buf[n] = '\0';
	if (kmsg_parse_line(buf, n, &rec, &what) == 0)
		return CI_INPUT_KMSG;
	return CI_INPUT_DMESG;
}

/* journalctl's "-- Boot 0123abcd... --" between boots (and "-- Reboot --" of old ones) */
static int boot_marker(struct ci_input *x, uint64_t lineno, const char *line, size_t len)
{
	char id[48] = "";

	if (has_prefix(line, len, "-- Boot ")) {
		size_t n = 0;

		line += 8;
		len -= 8;
		while (n < len && n + 1 < sizeof(id) && line[n] != ' ')
			n++;
		memcpy(id, line, n);
		id[n] = '\0';
	} else if (!has_prefix(line, len, "-- Reboot --")) {
		return 0;
	}
	return ci_boot_mark(x->ci, lineno, id[0] ? id : NULL);
}

static int on_dmesg_record(void *userdata, const struct klog_rec *rec)
{
	struct ci_input *x = userdata;

	/* journalctl text marks boots with lines of its own: those need every line */
	if (!x->st.records && rec->format >= KLOG_FORMAT_JOURNAL_SHORT)
		x->journal = true;
	x->st.records++;
	if (x->classified)
		return ci_klog_classified(x->ci, x->lineno, rec, x->classified);
	return ci_klog(x->ci, x->lineno, rec);
}

static void on_dmesg_bad_line(void *userdata, const struct kt_err *e)
{
	struct ci_input *x = userdata;

	bad_line(x, x->lineno, e->what ? e->what : "malformed");
}

/* A stream's failure @r as struct ci_input_err; returns @r */
static int stream_error(struct ci_input *x, int r)
{
	if (r == -EBADMSG)
		return fail(x, r, CI_FAULT_CORRUPT, x->path, stream_lineno(x->s) + 1,
			    stream_compression_name(stream_compression(x->s)));
	if (r == -ENOMEM)
		return fail(x, r, CI_FAULT_NONE, x->path, 0, NULL);
	if (r == -EAGAIN)
		return fail(x, r, CI_FAULT_THREAD, x->path, 0, strerror(-r));
	return fail(x, r, CI_FAULT_FILE, x->path, 0, strerror(-r));
}

/* Reads the next line, fully or filtered: 1 line, 0 end, <0 fatal (x->err says why). */
static int next_line(struct ci_input *x, bool filtered, char **line, size_t *len)
{
	for (;;) {
		int r;

		if (x->max_bytes && stream_bytes(x->s) > x->max_bytes)
			return 0;
		r = filtered ? stream_next_match(x->s, x->needles, line, len)
			     : stream_next_line(x->s, line, len);

		if (r == -E2BIG) {
			bad_line(x, stream_lineno(x->s), "line too long");
			continue;
		}
		if (r < 0)
			stream_error(x, r);
		return r;
	}
}

/*
 * A line that is no timestamped record: other text (a serial console's), or, once a
 * banner without timestamp was seen, a kernel message of a log without timestamps.
 */
static int plain_line(struct ci_input *x, uint64_t lineno, const char *line, size_t len)
{
	struct klog_rec rec = { .format = KLOG_FORMAT_DMESG, .facility = -1, .level = -1 };

	while (len && *line == '\r') {
		line++;
		len--;
	}
	while (len && line[len - 1] == '\r')
		len--;
	if (!x->plain && has_prefix(line, len, "Linux version ")) {
		x->plain = true;
		ci_input_set_format(x->ci, "kernel-log-plain", NULL);
	}
	if (!x->plain)
		return ci_text(x->ci, lineno, line, len);
	if (!len || memchr(line, '\0', len))
		return 0;
	rec.msg = line;
	rec.msg_len = len;
	x->st.records++;
	return ci_klog(x->ci, lineno, &rec);
}

/* One line of a kernel log, parsed (@parsed, @rec, @what as dmesg_parse() gives them). */
static int dmesg_line(struct ci_input *x, struct dmesg_parser *p, uint64_t lineno, const char *line,
		      size_t len, int parsed, const struct klog_rec *rec, const char *what)
{
	uint64_t before = x->st.records;
	int r;

	x->lineno = lineno;
	if (line[0] == '-' && line[1] == '-' && (r = boot_marker(x, lineno, line, len)) < 0)
		return r;
	r = dmesg_parser_feed_parsed(p, parsed, rec, what);
	if (r < 0)
		return r;
	if (x->st.records == before)
		r = plain_line(x, lineno, line, len);
	return r;
}

struct dmesg_reduce {
	struct ci_input *x;
	struct dmesg_parser *p;
	struct dmesg_state *st;		/* reduce's own, to map a line again */
	/* rebuilt for each line from its struct dmesg_mapped */
	struct klog_rec rec;
	struct klog_finding f;
};

/*
 * What the scanning threads find out about a line, all but the order-dependent part:
 * of its record and finding, what the reduce reads (dmesg_parser_feed_parsed(),
 * on_dmesg_record(), ci_klog_classified()). Kept small, for each is written on one
 * core and read on another: the whole record and finding are four times the size.
 */
struct dmesg_mapped {
	int parsed;			/* dmesg_parse()'s */
	const char *what;
	/* the record's */
	const char *msg, *host;
	uint32_t msg_len, host_len;
	uint64_t usec;
	double ts;
	bool has_monotonic;
	bool time_only;			/* the time is all the line gives of it */
	bool time_unread;		/* usec and ts: the line's leading time, for reduce to read */
	/* a record with no host that starts nothing (a boot marker, the banner) */
	bool may_repeat;
	/* what dmesg_repeats() compares, in one word: 0 but for records */
	union {
		struct {
			uint8_t format;
			uint8_t kind;	/* the finding's */
			bool record;
			uint8_t zero;	/* padding, kept 0 for the word */
			uint32_t module_len;
		};
		uint64_t same;
	};
	uint64_t module_head;		/* the module's first 8 bytes, or fewer and zeros */
	const char *module;
	/* how far the line is from where msg, host and module point: see dmesg_at() */
	intptr_t moved;
};

/* Where @p, a pointer of @d into its line, is in the line */
static const char *dmesg_at(const struct dmesg_mapped *d, const char *p)
{
	return p ? p + d->moved : NULL;
}

_Static_assert(KLOG_FORMAT__MAX <= UINT8_MAX && KLOG_FINDING__MAX <= UINT8_MAX,
	       "dmesg_mapped holds a klog_format and a klog_finding_kind in a byte");

/* What a thread keeps: the classifier's memo, and what it found of whole lines */
struct dmesg_state {
	struct klog_memo *memo;
	struct linecache *lines;	/* NULL: none (out of memory) */
};

/* Of a line seen before, by the text after its time: all but the time */
struct dmesg_known {
	bool needle;
	uintptr_t base;			/* where that text was when the line was read */
	struct dmesg_mapped d;		/* when it holds a needle */
};

/* distinct lines kept: each boot's log has a few thousand */
#define DMESG_KNOWN_LINES 4096

/* A thread's state, @lines: with a cache of lines (else the memo only); NULL: no memory */
static struct dmesg_state *dmesg_state_new(bool lines)
{
	struct dmesg_state *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	if (klog_memo_new(&st->memo) < 0) {
		free(st);
		return NULL;
	}
	if (lines && linecache_new(sizeof(struct dmesg_known), DMESG_KNOWN_LINES, &st->lines) < 0)
		st->lines = NULL;
	return st;
}

static void *dmesg_map_state_new(void *userdata)
{
	struct dmesg_reduce *dr = userdata;

	return dmesg_state_new(dr->x->time_blind);
}

static void dmesg_map_state_free(void *state)
{
	struct dmesg_state *st = state;

	if (!st)
		return;
	klog_memo_free(st->memo);
	linecache_free(st->lines);
	free(st);
}

static void dmesg_map_line(struct dmesg_state *st, const char *line, size_t len,
			   struct dmesg_mapped *d)
{
	struct klog_rec rec;
	struct klog_finding f;

	d->what = NULL;
	d->same = 0;
	d->may_repeat = false;
	d->parsed = dmesg_parse(line, len, &rec, &d->what);
	if (d->parsed != 1)
		return;
	d->record = true;
	d->may_repeat = !rec.host && line[0] != '-' && !ci_klog_banner(rec.msg, rec.msg_len);
	/* without memory (out of it), the same answer, more slowly */
	if (st)
		klog_classify_memo(st->memo, rec.msg, rec.msg_len, &f, NULL);
	else
		klog_classify(rec.msg, rec.msg_len, &f);
	/* lines are at most DMESG_LINE_MAX: lengths fit */
	d->msg = rec.msg;
	d->msg_len = (uint32_t)rec.msg_len;
	d->host = rec.host;
	d->host_len = (uint32_t)rec.host_len;
	d->usec = rec.usec;
	d->ts = rec.ts;
	d->format = (uint8_t)rec.format;
	d->has_monotonic = rec.has_monotonic;
	d->time_only = rec.has_monotonic && !rec.has_wallclock && !rec.prefix_len;
	d->time_unread = false;
	d->kind = (uint8_t)f.kind;
	/*
	 * A load that misses symbols logs one line a symbol: those lines are one run by
	 * class and module, but ci counts the load's attempts by symbol, so each is read
	 */
	if (f.kind == KLOG_FINDING_UNKNOWN_SYMBOL || f.kind == KLOG_FINDING_SYMBOL_VERSION ||
	    f.kind == KLOG_FINDING_SYMBOL_NAMESPACE)
		d->may_repeat = false;
	d->module = f.module;
	d->module_len = (uint32_t)f.module_len;
	d->moved = 0;
	d->module_head = 0;
	if (f.module)
		memcpy(&d->module_head, f.module,
		       f.module_len < sizeof(d->module_head) ? f.module_len : sizeof(d->module_head));
}

/*
 * Whether @d, its line @moved bytes from where its pointers point, is one more of the
 * record @prev, the line before it, as ci and the parser count lines: so that a run (a
 * load failing on every CPU) is reduced at once. Found where the lines are mapped, for
 * reduce may run on another core. Inline: asked of every line of a dense log.
 */
static inline __attribute__((always_inline)) bool
dmesg_repeats_moved(const struct dmesg_mapped *prev, const struct dmesg_mapped *d, intptr_t moved)
{
	const size_t head = sizeof(d->module_head);

	return prev && d->may_repeat && d->same == prev->same &&
	       d->module_head == prev->module_head &&
	       (d->module_len <= head || memcmp(d->module + moved + head,
						 dmesg_at(prev, prev->module) + head,
						 d->module_len - head) == 0);
}

static bool dmesg_repeats(const struct dmesg_mapped *prev, const struct dmesg_mapped *d)
{
	return dmesg_repeats_moved(prev, d, d->moved);
}

/* Of the line known as @k, its text after the time at @rest: how far it moved */
static intptr_t dmesg_known_moved(const struct dmesg_known *k, const char *rest)
{
	return (intptr_t)((uintptr_t)rest - k->base);
}

/*
 * stream_match.tag of a line that repeats the one before (dmesg_repeats()): reduce
 * counts it with its run and reads nothing else of it, so the line op leaves its
 * result unwritten.
 */
#define DMESG_TAG_REPEAT 1u

static void dmesg_map(void *userdata, void *state, struct stream_match *m, size_t n,
		      void *results)
{
	struct dmesg_mapped *d = results;

	for (size_t i = 0; i < n; i++)
		if (m[i].err >= 0) {
			dmesg_map_line(state, m[i].line, m[i].len, &d[i]);
			if (i && m[i - 1].err >= 0 && dmesg_repeats(&d[i - 1], &d[i]))
				m[i].tag = DMESG_TAG_REPEAT;
		}
}

/* The pointers of @d into its line: those a line's copy moves */
#define DMESG_MAPPED_PTRS 3
static void dmesg_mapped_ptrs(struct dmesg_mapped *d, const char **ret[DMESG_MAPPED_PTRS])
{
	ret[0] = &d->msg;
	ret[1] = &d->host;
	ret[2] = &d->module;
}

/*
 * Whether @d, of the line whose text after the time is @rest, holds for every line
 * with that text: a record with that time and nothing else of the time, and what
 * points into the line points after it.
 */
static bool dmesg_mapped_movable(struct dmesg_mapped *d, const char *rest, size_t len,
				 uint64_t usec)
{
	const char **p[DMESG_MAPPED_PTRS];

	if (d->parsed != 1 || !d->time_only || d->usec != usec)
		return false;
	dmesg_mapped_ptrs(d, p);
	for (int i = 0; i < DMESG_MAPPED_PTRS; i++)
		if (*p[i] && ((uintptr_t)*p[i] < (uintptr_t)rest ||
			      (uintptr_t)*p[i] > (uintptr_t)rest + len))
			return false;
	return true;
}

/* dmesg_line_known() of a line not known: searched, mapped, and kept when it can be */
static __attribute__((noinline)) int dmesg_line_new(struct dmesg_reduce *dr,
						    struct dmesg_state *st,
						    struct stream_match *m,
						    const struct dmesg_mapped *prev,
						    struct dmesg_mapped *d, size_t t, uint64_t h)
{
	const char *rest = m->line + t;
	struct dmesg_known *nk;
	uint64_t usec = 0;
	bool needle;

	needle = stream_needles_find(dr->x->needles, m->line, m->len) < m->len;
	if (needle) {
		dmesg_map_line(st, m->line, m->len, d);
		if (dmesg_repeats(prev, d))
			m->tag = DMESG_TAG_REPEAT;
	}
	if (t && needle)
		dmesg_time_prefix(m->line, m->len, &usec);
	if (t && (!needle || dmesg_mapped_movable(d, rest, m->len - t, usec)) &&
	    (nk = linecache_put(st->lines, rest, m->len - t, h))) {
		nk->needle = needle;
		nk->base = (uintptr_t)rest;
		if (needle) {
			nk->d = *d;
			nk->d.time_unread = true;
		}
	}
	return needle;
}

/* stream_scan_ops.line: a line seen before (but for its time) is copied, not parsed */
static int dmesg_line_known(void *userdata, void *state, struct stream_match *m,
			    const void *prev, void *result)
{
	struct dmesg_state *st = state;
	struct dmesg_mapped *d = result;
	const struct dmesg_known *k;
	uint64_t h = 0;
	size_t t = 0;

	/* the time is read by reduce, which skips most lines (runs) */
	if (st && st->lines)
		t = dmesg_time_shape(m->line, m->len);
	if (!t)
		return dmesg_line_new(userdata, st, m, prev, d, 0, 0);
	k = linecache_get(st->lines, m->line + t, m->len - t, &h);
	if (!k)
		return dmesg_line_new(userdata, st, m, prev, d, t, h);
	if (!k->needle)
		return 0;
	if (dmesg_repeats_moved(prev, &k->d, dmesg_known_moved(k, m->line + t))) {
		m->tag = DMESG_TAG_REPEAT;
		return 2;
	}
	*d = k->d;
	d->moved = dmesg_known_moved(k, m->line + t);
	return 1;
}

/* Whether the line at @p is the one @e keeps: a time, then the same text, then '\n' */
static inline bool dmesg_known_at(const struct linecache_entry *e, const char *p,
				  const char *end, size_t max_line)
{
	size_t len = DMESG_TIME_LEN + e->len;

	return len < (size_t)(end - p) && p[len] == '\n' && len <= max_line &&
	       dmesg_time_shape(p, len) && memcmp(p + DMESG_TIME_LEN, e->key, e->len) == 0;
}

/*
 * stream_scan_ops.run: the lines that come in the order they came last time, each as
 * dmesg_line_known() finds it by the cache's first try, but without a call a line.
 */
static size_t dmesg_run_known(void *userdata, void *state, struct stream_run *r)
{
	struct dmesg_state *st = state;
	struct linecache *lc = st ? st->lines : NULL;
	const struct dmesg_mapped *prev = r->prev;
	struct dmesg_mapped *d = r->results;
	char *p = r->text;
	const char *const end = r->text + r->len;
	size_t kept = 0;
	uint64_t lines = 0;
	struct linecache_entry *e;

	if (!lc)
		return 0;
	while ((e = linecache_predict(lc))) {
		const struct dmesg_known *k;
		intptr_t moved;
		size_t len;

		if (!dmesg_known_at(e, p, end, r->max_line)) {
			e = linecache_predict2(lc);
			if (!e || !dmesg_known_at(e, p, end, r->max_line))
				break;
			linecache_follows(lc, e);
		}
		k = linecache_value(lc, e);
		len = DMESG_TIME_LEN + e->len;
		if (k->needle) {
			if (kept == r->room)
				break;
			moved = dmesg_known_moved(k, p + DMESG_TIME_LEN);
			p[len] = '\0';
			r->m[kept] = (struct stream_match){ p, len, lines, 0, 0 };
			if (dmesg_repeats_moved(prev, &k->d, moved)) {
				r->m[kept].tag = DMESG_TAG_REPEAT;
			} else {
				d[kept] = k->d;
				d[kept].moved = moved;
				prev = &d[kept];
			}
			kept++;
		}
		linecache_hit(lc, e);
		lines++;
		p += len + 1;
	}
	r->kept = kept;
	r->lines = lines;
	r->prev = prev;
	return (size_t)(p - r->text);
}

/* Whether a needle can start inside a "[%5lu.%06lu]" time, as dmesg_time_prefix() reads */
static bool needle_in_time(const char *const *needles, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(needles[i]);

		for (size_t at = 0; at < DMESG_TIME_LEN; at++) {
			bool fits = true;

			for (size_t j = 0; j < len && at + j < DMESG_TIME_LEN && fits; j++) {
				char c = needles[i][j];
				size_t pos = at + j;

				if (pos == 0)
					fits = c == '[';
				else if (pos < 6)
					fits = c == ' ' || (c >= '0' && c <= '9');
				else if (pos == 6)
					fits = c == '.';
				else if (pos < DMESG_TIME_LEN - 1)
					fits = c >= '0' && c <= '9';
				else
					fits = c == ']';
			}
			if (fits)
				return true;
		}
	}
	return false;
}

/*
 * The record and finding of @d, as far as the reduce reads them: the rest of dr->rec
 * and dr->f stays as it was made (no facility, level or caller; no other fields of a
 * finding), which nothing after the scan reads.
 */
static void dmesg_unmap(struct dmesg_reduce *dr, const struct dmesg_mapped *d,
			const struct stream_match *m)
{
	dr->rec.format = (enum klog_format)d->format;
	dr->rec.has_monotonic = d->has_monotonic;
	dr->rec.usec = d->usec;
	dr->rec.ts = d->ts;
	if (d->time_unread) {
		/* as dmesg_parse() has it */
		dmesg_time_prefix(m->line, m->len, &dr->rec.usec);
		dr->rec.ts = (double)dr->rec.usec / 1e6;
	}
	dr->rec.msg = dmesg_at(d, d->msg);
	dr->rec.msg_len = d->msg_len;
	dr->rec.host = dmesg_at(d, d->host);
	dr->rec.host_len = d->host_len;
	dr->f.kind = (enum klog_finding_kind)d->kind;
	dr->f.module = dmesg_at(d, d->module);
	dr->f.module_len = d->module_len;
}

static int dmesg_reduce(void *userdata, const struct stream_match *m, size_t n, void *results)
{
	struct dmesg_reduce *dr = userdata;
	struct ci_input *x = dr->x;
	struct dmesg_mapped *d = results;
	int r = 0;

	for (size_t i = 0; i < n && r >= 0;) {
		uint64_t before = x->st.records, k;
		size_t j;

		if (m[i].err < 0) {
			bad_line(x, m[i].lineno, "line too long");
			i++;
			continue;
		}
		/* a repeat not counted with a run (after a line that heads none): found again */
		if (m[i].tag & DMESG_TAG_REPEAT)
			dmesg_map_line(dr->st, m[i].line, m[i].len, &d[i]);
		if (d[i].parsed == 1)
			dmesg_unmap(dr, &d[i], &m[i]);
		x->classified = d[i].parsed == 1 ? &dr->f : NULL;
		r = dmesg_line(x, dr->p, m[i].lineno, m[i].line, m[i].len, d[i].parsed, &dr->rec,
			       d[i].what);
		x->classified = NULL;
		if (r < 0 || d[i].parsed != 1 || d[i].host || x->st.records == before) {
			i++;
			continue;
		}
		/* the lines after it that say the same (a load failing on every CPU): at once */
		for (j = i + 1; j < n && m[j].err == 0 && (m[j].tag & DMESG_TAG_REPEAT); j++)
			;
		k = j - i - 1;
		if (!k) {
			i++;
			continue;
		}
		r = dmesg_parser_feed_records(dr->p, (enum klog_format)d[i].format, k);
		if (r == -EAGAIN) {
			r = 0;
			i++;
			continue;
		}
		if (r < 0)
			break;
		x->lineno = m[j - 1].lineno;
		x->st.records += k;
		r = ci_klog_repeat(x->ci, m[i + 1].lineno, m[j - 1].lineno, k);
		i = j;
	}
	return r;
}

static int read_dmesg(struct ci_input *x, char *line, size_t len)
{
	struct klog_parser_ops ops = { .record = on_dmesg_record, .bad_line = on_dmesg_bad_line };
	struct stream_scan_ops sops = { .result_size = sizeof(struct dmesg_mapped),
					.state_new = dmesg_map_state_new,
					.state_free = dmesg_map_state_free,
					.map = dmesg_map,
					.reduce = dmesg_reduce,
					.line = x->time_blind ? dmesg_line_known : NULL,
					.run = x->time_blind ? dmesg_run_known : NULL };
	struct dmesg_reduce dr = { .x = x, .rec = { .facility = -1, .level = -1 } };
	struct dmesg_parser *p;
	int r;

	r = dmesg_parser_new(x->path, &ops, x, &p);
	if (r < 0)
		return r;
	dr.p = p;
	dr.st = dmesg_state_new(false);
	do {
		struct klog_rec rec;
		const char *what = NULL;
		int parsed = dmesg_parse(line, len, &rec, &what);

		r = dmesg_line(x, p, stream_lineno(x->s), line, len, parsed, &rec, what);
		if (r < 0)
			break;
		/* once it is a kernel log, only lines that may hold a finding need parsing,
		 * and those on every CPU */
		x->st.filtered = x->filter && x->st.records > 0 && !x->journal;
		if (x->st.filtered) {
			r = stream_scan(x->s, x->needles, x->threads - 1, &sops, &dr);
			if (r < 0)
				stream_error(x, r);
			break;
		}
		r = next_line(x, false, &line, &len);
	} while (r > 0);
	if (r == 0)
		r = dmesg_parser_finish(p);
	dmesg_parser_free(p);
	dmesg_map_state_free(dr.st);
	return r;
}

/* kmsg records through kmsg.c's parser, which joins a line's continuation records */
struct kmsg_read {
	struct ci_input *x;
	uint64_t line;		/* the line being fed */
	uint64_t pending;	/* the line of the record the parser holds */
};

static int on_kmsg_record(void *userdata, const struct klog_rec *rec)
{
	struct kmsg_read *k = userdata;

	k->x->st.records++;
	return ci_klog(k->x->ci, k->pending, rec);
}

static void on_kmsg_bad_line(void *userdata, const struct kt_err *e)
{
	struct kmsg_read *k = userdata;

	/* the parser reports the line it was fed last */
	bad_line(k->x, k->line, e->what ? e->what : "malformed");
}

/*
 * Every line is parsed, the filter is not used: a continuation record is joined to the
 * record before it, which may hold no needle while the line they make does.
 */
static int read_kmsg(struct ci_input *x, char *line, size_t len)
{
	struct klog_parser_ops ops = { .record = on_kmsg_record, .bad_line = on_kmsg_bad_line };
	struct kmsg_read k = { .x = x };
	struct kmsg_parser *p;
	int r;

	r = kmsg_parser_new(x->path, &ops, &k, &p);
	if (r < 0)
		return r;
	for (;;) {
		const struct kmsg_stats *st = kmsg_parser_stats(p);
		uint64_t joined = st->joined, dict = st->dict_lines, bad = st->malformed;

		k.line = stream_lineno(x->s);
		r = kmsg_parser_feed(p, line, len);
		if (r < 0)
			break;
		/* a record line that starts a record of its own: the one the parser holds */
		if (st->joined == joined && st->dict_lines == dict && st->malformed == bad &&
		    !(len && line[0] == ' '))
			k.pending = k.line;
		for (;;) {
			r = x->max_bytes && stream_bytes(x->s) > x->max_bytes ?
				    0 :
				    stream_next_line(x->s, &line, &len);
			if (r != -E2BIG)
				break;
			k.line = stream_lineno(x->s);
			r = kmsg_parser_skip_line(p, "line too long");
			if (r < 0)
				goto out;
		}
		if (r < 0)
			stream_error(x, r);
		if (r <= 0)
			break;
	}
	if (r == 0)
		r = kmsg_parser_finish(p);
out:
	kmsg_parser_free(p);
	return r;
}

/* journalctl -o json: one object a line; kernel records have _TRANSPORT=kernel */
static int journal_json_line(struct ci_input *x, uint64_t lineno, const char *line, size_t len)
{
	static const char *const keys[] = { "MESSAGE", "_TRANSPORT", "SYSLOG_IDENTIFIER",
					    "__MONOTONIC_TIMESTAMP", "_BOOT_ID", "PRIORITY",
					    "_HOSTNAME" };
	enum { MESSAGE, TRANSPORT, IDENT, MONO, BOOT_ID, PRIORITY, HOST, N_KEYS };
	char *v[N_KEYS];
	size_t l[N_KEYS];
	int r;

	r = ci_json_fields(line, len, keys, N_KEYS, v, l);
	if (r == -EINVAL) {
		bad_line(x, lineno, "not a JSON object");
		return 0;
	}
	if (r < 0)
		return r;
	if (v[BOOT_ID] && strcmp(v[BOOT_ID], x->boot_id) != 0) {
		snprintf(x->boot_id, sizeof(x->boot_id), "%s", v[BOOT_ID]);
		r = ci_boot_mark(x->ci, lineno, x->boot_id);
	}
	if (r >= 0 && v[MESSAGE] && v[TRANSPORT] && strcmp(v[TRANSPORT], "kernel") == 0) {
		struct klog_rec rec = { .format = KLOG_FORMAT_JOURNAL_MONOTONIC,
					.facility = 0,
					.level = -1,
					.msg = v[MESSAGE],
					.msg_len = l[MESSAGE] };
		uint64_t usec;
		int prio;

		if (v[MONO]) {
			/* as kmsg's: a record whose time does not read is damaged */
			if (parse_u64(v[MONO], 10, &usec) < 0) {
				bad_line(x, lineno, "bad __MONOTONIC_TIMESTAMP");
				goto done;
			}
			rec.has_monotonic = true;
			rec.usec = usec;
			rec.ts = (double)usec / 1e6;
		}
		if (v[PRIORITY] && parse_int(v[PRIORITY], &prio) == 0)
			rec.level = prio;
		rec.host = v[HOST];
		rec.host_len = v[HOST] ? l[HOST] : 0;
		x->st.records++;
		r = ci_klog(x->ci, lineno, &rec);
	} else if (r >= 0 && v[MESSAGE] && v[IDENT]) {
		/* kmod and udev log through the journal without their "modprobe: " */
		_cleanup_free_ char *t = NULL;
		int n = asprintf(&t, "%s: %s", v[IDENT], v[MESSAGE]);

		r = n < 0 ? -ENOMEM : ci_text(x->ci, lineno, t, (size_t)n);
		if (r >= 0 && strcmp(v[IDENT], "systemd-udevd") == 0)
			r = ci_text(x->ci, lineno, v[MESSAGE], l[MESSAGE]);
	}
done:
	for (int i = 0; i < N_KEYS; i++)
		free(v[i]);
	return r;
}

static int read_journal_json(struct ci_input *x, char *line, size_t len)
{
	int r;

	x->boot_id[0] = '\0';
	do {
		r = journal_json_line(x, stream_lineno(x->s), line, len);
		if (r < 0)
			break;
		r = next_line(x, false, &line, &len);
	} while (r > 0);
	return r;
}

static int add_event_line(struct ci_input *x, double ts, int pid, uint64_t line)
{
	if (x->n_lines == x->cap_lines) {
		size_t cap = x->cap_lines ? x->cap_lines * 2 : 256;
		struct ci_event_line *nl = realloc(x->lines, cap * sizeof(*nl));

		if (!nl)
			return -ENOMEM;
		x->lines = nl;
		x->cap_lines = cap;
	}
	x->lines[x->n_lines++] = (struct ci_event_line){ ts, pid, line };
	return 0;
}

static bool is_line_event(enum ktrace_event_kind kind)
{
	switch (kind) {
	case KTRACE_EV_SYS_ENTER_FINIT_MODULE:
	case KTRACE_EV_SYS_EXIT_FINIT_MODULE:
	case KTRACE_EV_SYS_ENTER_INIT_MODULE:
	case KTRACE_EV_SYS_EXIT_INIT_MODULE:
	case KTRACE_EV_MODULE_REQUEST:
		return true;
	default:
		return false;
	}
}

static int on_trace_event(void *userdata, const struct ktrace_event *ev)
{
	struct ci_input *x = userdata;

	x->st.records++;
	/* the ledger pairs events in time order: a trace that goes back is counted */
	if (ev->kind != KTRACE_EV_LOST) {
		if (ev->ts_ns < x->trace_last_ns && !x->trace_back_steps++)
			x->trace_back_line = x->dat ? x->st.records : stream_lineno(x->s);
		x->trace_last_ns = ev->ts_ns;
	}
	/* a trace.dat's findings point at the event's number, as a text's at its line */
	if (x->dat && is_line_event(ev->kind))
		return add_event_line(x, ev->ts, ev->pid, x->st.records);
	return 0;
}

static void on_trace_bad_line(void *userdata, const struct kt_err *e)
{
	struct ci_input *x = userdata;

	bad_line(x, e->line ? e->line : x->s ? stream_lineno(x->s) : x->st.records,
		 e->what ? e->what : "malformed");
}

/* The line of each syscall and request event: the ledger keeps times, CI wants lines. */
static int note_event_line(struct ci_input *x, const char *line, size_t len)
{
	struct ktrace_line tl;
	const char *what;

	if (!memmem(line, len, "init_module", 11) && !memmem(line, len, "module_request", 14))
		return 0;
	if (ktrace_parse_line(line, len, &tl, &what) < 0 || tl.kind != KTRACE_LINE_EVENT ||
	    !is_line_event(tl.ev.kind))
		return 0;
	return add_event_line(x, tl.ev.ts, tl.ev.pid, stream_lineno(x->s));
}

/*
 * The trace (@trace, or the file at x->path) and the kernel log of its boot (x->boot_log,
 * may be NULL) as report reads them, into one ledger priced as report prices it: the
 * log's records name and explain the trace's attempts instead of being counted again.
 */
static int read_trace_as_report(struct ci_input *x, FILE *trace, struct collect_lookup *lk,
				bool idempotent, struct collect_result *ret)
{
	_cleanup_fclose_ FILE *own = NULL, *log = NULL;
	struct collect_input in = { .trace_path = x->path, .log_path = x->boot_log,
				    .klog_runs = true };
	int r;

	if (!trace) {
		r = input_fopen(x->path, ROOT_STREAM_MAX, &own);
		if (r < 0)
			return fail(x, r, CI_FAULT_FILE, x->path, 0, strerror(-r));
		trace = own;
	}
	if (x->boot_log) {
		r = input_fopen(x->boot_log, ROOT_STREAM_MAX, &log);
		if (r < 0)
			return fail(x, r, CI_FAULT_FILE, x->boot_log, 0, strerror(-r));
	}
	in.trace = trace;
	in.log = log;
	/* collect_read() says what went wrong itself */
	fail(x, 0, CI_FAULT_NONE, x->path, 0, NULL);
	return collect_read(lk, idempotent, &in, ret);
}

/*
 * A trace.dat from standard input (a file: it was told by its first bytes), as a stream
 * collect_read() can read from the start.
 */
static int reopen_fd(struct ci_input *x, int fd, FILE **ret)
{
	int dup_fd;

	if (lseek(fd, 0, SEEK_SET) < 0 || (dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0)
		return fail(x, -errno, CI_FAULT_FILE, x->path, 0, strerror(errno));
	*ret = fdopen(dup_fd, "re");
	if (!*ret) {
		int r = -errno;

		close(dup_fd);
		return fail(x, r, CI_FAULT_FILE, x->path, 0, strerror(-r));
	}
	return 0;
}

/*
 * A trace: text from @line on (the stream's next lines after it), or with @dat_fd >= 0
 * the trace.dat open on it. This read numbers the lines of its events, for the
 * findings; the attempts and their cost come from reading it again as report does.
 */
static int read_trace(struct ci_input *x, char *line, size_t len, int dat_fd)
{
	struct ktrace_parser_ops ops = { .event = on_trace_event, .bad_line = on_trace_bad_line };
	struct ci_tree *t = tree_get(x, NULL);
	/* the default release's tree names and prices the attempts, as report does */
	struct collect_lookup lk = { .idx = x->idx, .pm = x->pm,
				     .cat = t->ok ? t->sys.cat : NULL,
				     .k = t->ok ? &t->sys.k : NULL };
	_cleanup_fclose_ FILE *again = NULL;
	struct ktrace_parser *p = NULL;
	struct collect_result res = { 0 };
	struct loadpath lp;
	int r;

	loadpath_from_release(x->release, &lp);
	x->trace_last_ns = x->trace_back_steps = x->trace_back_line = 0;
	if (dat_fd >= 0) {
		struct kt_err err = { 0 };

		x->dat = true;
		r = tracedat_read_fd(dat_fd, x->path, &ops, x, NULL, &err);
		x->dat = false;
		if (r < 0) {
			fail(x, r, r == -ENOMEM ? CI_FAULT_NONE : CI_FAULT_FILE, x->path, 0,
			     err.what ? err.what : strerror(-r));
			goto out;
		}
		if (dat_fd == STDIN_FILENO) {
			r = reopen_fd(x, dat_fd, &again);
			if (r < 0)
				goto out;
		}
	} else {
		r = ktrace_parser_new(x->path, &ops, x, &p);
		if (r < 0)
			goto out;
		do {
			r = note_event_line(x, line, len);
			if (r >= 0)
				r = ktrace_parser_feed(p, line, len);
			if (r >= 0 && x->copy && (fwrite(line, 1, len, x->copy) != len ||
						  putc('\n', x->copy) == EOF))
				r = fail(x, -EIO, CI_FAULT_FILE, x->path, 0,
					 "cannot keep a copy of the decompressed trace");
			if (r < 0)
				goto out;
			r = next_line(x, false, &line, &len);
		} while (r > 0);
		if (r < 0)
			goto out;
		r = ktrace_parser_finish(p);
		if (r >= 0 && x->copy) {
			if (fflush(x->copy) != 0 || fseek(x->copy, 0, SEEK_SET) != 0)
				r = fail(x, -EIO, CI_FAULT_FILE, x->path, 0,
					 "cannot keep a copy of the decompressed trace");
			again = x->copy;
			x->copy = NULL;
		}
	}
	if (r >= 0 && x->trace_back_steps)
		note(x, CI_NOTE_TIME_BACK, x->trace_back_line, x->trace_back_steps, NULL);
	if (r >= 0)
		r = read_trace_as_report(x, again, &lk, lp.idempotent_finit, &res);
	if (r >= 0)
		r = ci_trace(x->ci, res.ledger, res.cost, x->lines, x->n_lines);
out:
	collect_result_done(&res);
	ktrace_parser_free(p);
	free(x->lines);
	x->lines = NULL;
	x->n_lines = x->cap_lines = 0;
	return r;
}

static int open_input(const char *path, int *ret_fd)
{
	int fd;

	if (strcmp(path, "-") == 0) {
		*ret_fd = STDIN_FILENO;
		return 0;
	}
	fd = input_open(path, ROOT_STREAM_MAX);
	if (fd < 0)
		return fd;
	*ret_fd = fd;
	return 0;
}

/* A trace.dat, told by its first bytes where they can be read without consuming them */
static bool is_tracedat(int fd)
{
	char head[TRACEDAT_MAGIC_LEN];

	return pread(fd, head, sizeof(head), 0) == (ssize_t)sizeof(head) &&
	       tracedat_sniff(head, sizeof(head));
}

/* A trace.dat input, as read_input() reads the others; closes @fd. */
static int read_tracedat_input(struct ci_input *x, const char *path, int fd)
{
	int r;

	r = ci_input_begin(x->ci, path, x->release);
	if (r >= 0) {
		ci_input_set_format(x->ci, format_names[CI_INPUT_TRACE_DAT], NULL);
		r = read_trace(x, NULL, 0, fd);
	}
	/* its "lines" are its events, as the evidence numbers them */
	x->st.lines = x->st.records;
	if (r >= 0)
		r = ci_input_end(x->ci, &x->st);
	if (fd != STDIN_FILENO)
		close(fd);
	return r;
}

/* One input, start to end. 0, or <0 with x->err set. */
static int read_input(struct ci_input *x, const char *path)
{
	const char *what = NULL;
	char *line;
	size_t len;
	int fd = -1, r;

	x->path = path;
	x->warned = 0;
	x->plain = false;
	x->journal = false;
	memset(&x->st, 0, sizeof(x->st));
	fail(x, 0, CI_FAULT_NONE, path, 0, NULL);
	r = open_input(path, &fd);
	if (r < 0)
		return fail(x, r, CI_FAULT_FILE, path, 0, strerror(-r));
	if (is_tracedat(fd))
		return read_tracedat_input(x, path, fd);
	r = stream_new(fd, 0, &x->s, &what);
	if (r < 0) {
		if (r == -EPROTONOSUPPORT)
			return fail(x, r, CI_FAULT_UNSUPPORTED, path, 0, what);
		return fail(x, r, CI_FAULT_FILE, path, 0, strerror(-r));
	}
	r = ci_input_begin(x->ci, path, x->release);
	if (r < 0)
		goto out;
	/* the first line that is not blank tells the format */
	do
		r = next_line(x, false, &line, &len);
	while (r > 0 && len == 0 && stream_lineno(x->s) < SNIFF_LINES);
	if (r > 0) {
		enum ci_input_format fmt = ci_input_sniff(line, len);

		ci_input_set_format(x->ci, format_names[fmt],
				    stream_compression_name(stream_compression(x->s)));
		switch (fmt) {
		case CI_INPUT_TRACE:
			/* what collect_read() cannot open again is read from a copy */
			if (strcmp(path, "-") == 0 || stream_compression(x->s)) {
				x->copy = tmpfile();
				if (!x->copy) {
					r = fail(x, -errno, CI_FAULT_FILE, path, 0,
						 "cannot keep a copy of the decompressed trace");
					break;
				}
			}
			r = read_trace(x, line, len, -1);
			if (x->copy)
				fclose(x->copy);
			x->copy = NULL;
			break;
		case CI_INPUT_TRACE_DAT:
			/* libtracecmd seeks: from a pipe or a decompressor it cannot read one */
			r = fail(x, -EINVAL, CI_FAULT_DAT_UNSEEKABLE, path, 0,
				 stream_compression(x->s) ? "a compressed one" : "a pipe");
			break;
		case CI_INPUT_KMSG:
			r = read_kmsg(x, line, len);
			break;
		case CI_INPUT_JOURNAL_JSON:
			r = read_journal_json(x, line, len);
			break;
		default:
			r = read_dmesg(x, line, len);
		}
	} else {
		ci_input_set_format(x->ci, "empty",
				    stream_compression_name(stream_compression(x->s)));
	}
	if (r < 0)
		goto out;
	x->st.lines = stream_lineno(x->s);
	if (stream_missing_newline(x->s) && x->st.lines)
		note(x, CI_NOTE_NO_NEWLINE, x->st.lines, 0, NULL);
	if (x->joining)
		ci_input_join(x->ci);
	r = ci_input_end(x->ci, &x->st);
out:
	x->s = stream_free(x->s);
	return r;
}

/* An input's format, as read_input() will sniff it; -1 when it cannot be told now */
static int input_format_of(const char *path)
{
	_cleanup_close_ int fd = -1;
	struct stream *s = NULL;
	const char *what = NULL;
	char *line;
	size_t len;
	int r, fmt = -1;

	if (strcmp(path, "-") == 0 || open_input(path, &fd) < 0)
		return -1;
	if (is_tracedat(fd))
		return CI_INPUT_TRACE_DAT;
	if (stream_new(fd, 0, &s, &what) < 0)
		return -1;
	fd = -1;	/* the stream's now */
	do
		r = stream_next_line(s, &line, &len);
	while (r > 0 && len == 0 && stream_lineno(s) < SNIFF_LINES);
	if (r > 0)
		fmt = ci_input_sniff(line, len);
	stream_free(s);
	return fmt;
}

/*
 * A trace and a kernel log given together are one boot, as report reads a capture's:
 * the trace's attempts are the boot's, the log's records join them. With one trace and
 * one kernel log among the inputs, the log's index in *ret_log and the trace's in
 * *ret_trace; else -1 (each input its own boots).
 */
static void pair_inputs(char *const *paths, size_t n, long *ret_log, long *ret_trace)
{
	int n_log = 0, n_trace = 0;

	*ret_log = *ret_trace = -1;
	for (size_t i = 0; i < n; i++) {
		int fmt = input_format_of(paths[i]);

		if (fmt == CI_INPUT_TRACE || fmt == CI_INPUT_TRACE_DAT) {
			n_trace++;
			*ret_trace = (long)i;
		} else if (fmt == CI_INPUT_DMESG || fmt == CI_INPUT_KMSG) {
			n_log++;
			*ret_log = (long)i;
		} else {
			/* a journal, or what cannot be read twice: no pairing */
			n_log += 2;
		}
	}
	if (n_log != 1 || n_trace != 1)
		*ret_log = *ret_trace = -1;
}

int ci_input_read(struct ci_input *in, struct ci_findings *c, const char *path,
		  struct ci_input_err *ret_err)
{
	int r;

	in->ci = c;
	in->err = ret_err;
	r = read_input(in, path);
	in->err = NULL;
	return r;
}

int ci_input_read_all(struct ci_input *in, struct ci_findings *c, char *const *paths, size_t n,
		      struct ci_input_err *ret_err)
{
	long log_i, trace_i;
	int r = 0;

	in->ci = c;
	in->err = ret_err;
	pair_inputs(paths, n, &log_i, &trace_i);
	for (size_t i = 0; i < n && r >= 0; i++) {
		if ((long)i == trace_i)
			continue;
		in->joining = (long)i == log_i;
		r = read_input(in, paths[i]);
		in->joining = false;
		if (r < 0 || (long)i != log_i)
			continue;
		/* the trace right after its log: they are one boot */
		in->boot_log = paths[log_i];
		r = read_input(in, paths[trace_i]);
		in->boot_log = NULL;
	}
	if (r >= 0 && trace_i >= 0 && log_i < 0)
		r = read_input(in, paths[trace_i]);
	in->err = NULL;
	return r;
}

/* The CPUs this process may run on (its affinity, as nproc(1) says), at most 8 */
static unsigned int default_threads(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	n = CPU_COUNT(&set);
	return n < 1 ? 1 : n > 8 ? 8 : (unsigned int)n;
}

int ci_input_new(const struct ci_input_opts *o, struct ci_input **ret,
		 struct ci_input_err *ret_err)
{
	_cleanup_free_ char *moddir = NULL;
	const char *const *needles;
	struct ci_input *x;
	struct kt_err e = { 0 };
	size_t n_needles;
	bool rejected;
	int r;

	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->err = ret_err;
	x->root_path = o->root;
	x->moduledir = o->moduledir;
	x->filter = o->filter;
	x->threads = o->threads ? o->threads : default_threads();
	x->max_bytes = o->max_bytes;
	x->note = o->note;
	x->userdata = o->userdata;
	x->cost_ops = (struct ci_cost_ops){ cost_kernel_of, cost_module_of, x };
	needles = ci_needles(&n_needles);
	x->time_blind = !needle_in_time(needles, n_needles);
	r = stream_needles_new(needles, n_needles, &x->needles);
	if (r < 0)
		goto fail;
	if (o->root) {
		r = root_new(o->root, &x->root);
		if (r < 0) {
			fail(x, r, CI_FAULT_ROOT, o->root, 0, strerror(-r));
			goto fail;
		}
		if (kt_release_resolve(x->root, o->release, x->release_buf,
				       sizeof(x->release_buf), &rejected) != KT_RELEASE_NONE)
			x->release = x->release_buf;
	} else {
		x->release = o->release;
	}
	/* the trace's aliases and already-loaded modules, when a tree was given */
	if (x->root || o->moduledir) {
		if (!x->root && root_new("/", &x->idx_root) < 0)
			x->idx_root = NULL;
		if (o->moduledir) {
			moddir = strdup(o->moduledir);
		} else if (x->release) {
			char rel[300];

			snprintf(rel, sizeof(rel), "lib/modules/%s", x->release);
			if (root_abspath(x->root, rel, &moddir) < 0)
				moddir = NULL;
		}
		if (moddir && (x->root || x->idx_root))
			collect_modindex_new(x->root ? x->root : x->idx_root, moddir, &x->idx);
		if (x->root && proc_modules_read(x->root, &x->pm, &e) < 0)
			x->pm = NULL;
		if (x->pm)
			collect_warn_repeated("proc/modules", x->pm->n_repeated,
					      x->pm->repeated_line);
	}
	x->err = NULL;
	*ret = x;
	return 0;
fail:
	x->err = NULL;
	ci_input_free(x);
	return r;
}

struct ci_input *ci_input_free(struct ci_input *x)
{
	if (!x)
		return NULL;
	for (size_t i = 0; i < x->n_trees; i++)
		tree_close(&x->trees[i]);
	proc_modules_free(x->pm);
	modindex_free(x->idx);
	root_free(x->idx_root);
	root_free(x->root);
	stream_needles_free(x->needles);
	free(x);
	return NULL;
}

const struct ci_cost_ops *ci_input_cost_ops(struct ci_input *in)
{
	return &in->cost_ops;
}
