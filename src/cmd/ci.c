/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cost/catalog.h"
#include "cost/cost.h"
#include "cost/estimate.h"
#include "cost/loadpath.h"
#include "ledger/klog-findings.h"
#include "ledger/ledger.h"
#include "output/ci-formats.h"
#include "output/output.h"
#include "sources/dmesg-text.h"
#include "sources/kconfig.h"
#include "sources/kmsg.h"
#include "sources/modindex.h"
#include "sources/proc-modules.h"
#include "sources/stream.h"
#include "sources/sys-module.h"
#include "sources/trace/tracedat.h"
#include "sources/trace/text.h"
#include "util/atomic-file.h"
#include "util/io.h"
#include "util/linecache.h"
#include "util/linereader.h"
#include "util/io.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/parse-num.h"
#include "util/root.h"
#include "views/ci.h"
#include "cmd/cmd.h"
#include "session/collect.h"

/* Exit codes of `ci` (man page: EXIT STATUS); kselftest's skip is 4 */
enum {
	CI_EXIT_PASS = 0,
	CI_EXIT_FAIL = 1,
	CI_EXIT_USAGE = 2,
	CI_EXIT_EMPTY = 4,
};

/* Skipped lines reported per input: the first few, then a count */
#define BAD_LINE_WARNINGS 10
/* Lines looked at for the input's format before it counts as kernel log text */
#define SNIFF_LINES 64
/* Release-specific module trees kept open */
#define MAX_TREES 8

static void ci_usage(FILE *f)
{
	fputs("Usage: kmodtop [OPTIONS] ci [OPTIONS] FILE... | -\n"
	      "\n"
	      "Read saved kernel logs and traces (dmesg, dmesg -T, /dev/kmsg, journalctl -k in\n"
	      "short, short-monotonic, short-iso or json form, serial consoles, tracefs or\n"
	      "trace-cmd report text; gzip, xz or zstd compressed), report module load findings\n"
	      "per boot, and fail when a gate is exceeded.\n"
	      "\n"
	      "Gates:\n"
	      "      --max-duplicates=N    fail when a boot has more than N duplicate load attempts\n"
	      "      --max-failures=N      fail when a boot has more than N failed load attempts\n"
	      "      --max-wasted=SIZE     fail when a boot wasted more vmap space (K, M, G)\n"
	      "      --fail-on=CLASS[,...] fail on any finding of these classes or groups\n"
	      "                            ('--fail-on=help' lists them)\n"
	      "      --allow=MODULE[,...]  ignore these modules in every gate (patterns)\n"
	      "      --baseline=FILE       an earlier 'ci --json' output: fail on new offending\n"
	      "                            modules and on counts that grew\n"
	      "      --tolerance=PERCENT   growth over the baseline that still passes (default 0)\n"
	      "      --config=FILE         the same settings, one 'key = value' a line\n"
	      "\n"
	      "Formats (any number at once; the report goes to standard output):\n"
	      "      --junit=FILE          JUnit XML: a testcase per gate and offending module\n"
	      "      --sarif=FILE          SARIF 2.1.0: a rule per finding class\n"
	      "      --github[=FILE]       GitHub Actions annotations (default: standard output)\n"
	      "      --no-filter           parse every line (slower; the same findings)\n"
	      "      --threads=N           scan kernel logs on N threads (default: the CPUs\n"
	      "                            this process may run on, at most 8)\n"
	      "  -h, --help                show this help\n"
	      "\n"
	      "Module files for waste estimates come from --root or --moduledir; without them\n"
	      "only counts are reported. The global options (--root, --kernel-release,\n"
	      "--moduledir, -j, -p, --color) may also follow the command.\n"
	      "Exit status: 0 every gate passed, 1 a gate failed, 2 usage error or unreadable\n"
	      "input, 4 nothing to analyse.\n",
	      f);
}

#include "cmd/ci-config.h"

/* Output that did not arrive fails ci as an unwritable report does (exit status 2) */
static int stdout_check(const char *what)
{
	int r = stream_flush(stdout);

	if (r < 0)
		log_error("writing %s: %s", what, strerror(-r));
	return r;
}

/* --fail-on=help: the classes and the groups, one a line, the name first */
static void list_classes(void)
{
	for (size_t i = 0; i < ci_class_count(); i++)
		printf("%-34s %-10s %s\n", ci_class_name(i),
		       ci_group_name(ci_class_group(i)), ci_class_help(i));
	for (int g = 0; g < _CI_GROUP_MAX; g++)
		printf("%-34s %-10s every class of the group\n", ci_group_name(g),
		       "(group)");
}


/* --- module trees for estimates ------------------------------------------------------- */

struct tree {
	char *release;			/* NULL: the default release */
	bool ok;
	struct cost_kernel k;
	struct catalog *cat;
};

struct cost_ctx {
	struct kt_root *root;		/* --root, or NULL */
	const char *moduledir;		/* --moduledir */
	const char *release;		/* --kernel-release, else the root's */
	char root_release[256];
	struct tree trees[MAX_TREES];
	size_t n_trees;
};

static void cost_ctx_done(struct cost_ctx *x)
{
	for (size_t i = 0; i < x->n_trees; i++) {
		free(x->trees[i].release);
		catalog_free(x->trees[i].cat);
	}
}

static void tree_init(struct cost_ctx *x, struct tree *t, const char *release)
{
	_cleanup_free_ char *moduledir = NULL;
	struct kconfig *kc = NULL;
	struct kt_err e = {0};
	char comp[32];

	if (x->moduledir) {
		moduledir = strdup(x->moduledir);
	} else if (x->root && release) {
		char rel[300];

		snprintf(rel, sizeof(rel), "lib/modules/%s", release);
		if (root_abspath(x->root, rel, &moduledir) < 0)
			moduledir = NULL;
	}
	if (!moduledir)
		return;
	if (catalog_new(moduledir, true, NULL, &t->cat) < 0) {
		t->cat = NULL;
		return;
	}
	collect_note_cache(t->cat);
	collect_catalog_warnings(t->cat);
	loadpath_from_release(release, &t->k.lp);
	t->k.page_size = 4096;
	/* what the captured kernel says; without a root, what its release can do */
	t->k.in_kernel_decompress = t->k.lp.decompress_capable;
	if (x->root) {
		if (kconfig_read(x->root, release, &kc, &e) == 0)
			t->k.in_kernel_decompress =
				kconfig_enabled(kc, "CONFIG_MODULE_DECOMPRESS");
		if (sys_module_compression_read(x->root, comp, sizeof(comp), &e) == 0)
			t->k.in_kernel_decompress = true;
		kconfig_free(kc);
	}
	t->ok = true;
}

static struct tree *tree_get(struct cost_ctx *x, const char *release)
{
	struct tree *t;

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
		catalog_free(x->trees[MAX_TREES - 1].cat);
		free(x->trees[MAX_TREES - 1].release);
		x->n_trees--;
	}
	t = &x->trees[x->n_trees++];
	memset(t, 0, sizeof(*t));
	t->release = release ? strdup(release) : NULL;
	tree_init(x, t, release);
	return t;
}

static int cost_kernel_of(void *userdata, const char *release, struct cost_kernel *ret)
{
	struct tree *t = tree_get(userdata, release);

	if (!t->ok)
		return -ENOENT;
	*ret = t->k;
	return 0;
}

static const struct cost_module *cost_module_of(void *userdata, const char *release,
						const char *name)
{
	struct tree *t = tree_get(userdata, release);
	char norm[64];

	if (!t->ok)
		return NULL;
	snprintf(norm, sizeof(norm), "%s", name);
	catalog_normalize(norm);
	return catalog_cost_module(t->cat, catalog_find(t->cat, norm));
}

/* --- inputs -------------------------------------------------------------------------- */

enum input_format {
	FMT_DMESG,			/* every text rendering dmesg-text.c knows */
	FMT_KMSG,
	FMT_JOURNAL_JSON,
	FMT_TRACE,
	FMT_TRACE_DAT,			/* trace-cmd's binary trace.dat, by its magic */
};

static const char *const format_names[] = {
	[FMT_DMESG] = "kernel-log-text",
	[FMT_KMSG] = "kmsg",
	[FMT_JOURNAL_JSON] = "journal-json",
	[FMT_TRACE] = "trace",
	[FMT_TRACE_DAT] = "trace-dat",
};

struct run {
	struct ci_findings *ci;
	struct cost_ctx *cost;
	const struct global_opts *g;
	struct kt_root *idx_root;	/* modprobe.d for the module index: --root, or / */
	struct modindex *idx;
	struct proc_modules *pm;
	const struct stream_needles *needles;
	bool filter;
	/* no needle can start inside a kernel time: lines alike but for it are alike */
	bool time_blind;
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
	struct ledger *ledger;
	struct ci_event_line *lines;
	size_t n_lines, cap_lines;
	/* a trace.dat: no lines, its events are numbered instead */
	bool dat;
	/* the trace is read again by collect_read(): this read only numbers its lines */
	bool lines_only;
	/* the kernel log of the trace's boot (given with it), and whether it is being read */
	const char *boot_log;
	bool joining;
};

static void bad_line(struct run *x, uint64_t line, const char *what)
{
	x->st.skipped++;
	if (++x->warned <= BAD_LINE_WARNINGS)
		log_warn("'%s':%llu: %s, skipping", x->path, (unsigned long long)line, what);
	else if (x->warned == BAD_LINE_WARNINGS + 1)
		log_warn("'%s': more skipped lines, not shown", x->path);
}

static bool has_prefix(const char *s, size_t len, const char *p)
{
	size_t n = strlen(p);

	return len >= n && memcmp(s, p, n) == 0;
}

static enum input_format sniff(const char *line, size_t len)
{
	struct ktrace_line tl;
	struct klog_rec rec;
	const char *what, *p = line;
	char buf[512];
	size_t n = len < sizeof(buf) - 1 ? len : sizeof(buf) - 1;

	while (p < line + len && (*p == ' ' || *p == '\t'))
		p++;
	if (p < line + len && *p == '{')
		return FMT_JOURNAL_JSON;
	if (tracedat_sniff(line, len))
		return FMT_TRACE_DAT;
	if (has_prefix(line, len, "# tracer:") || has_prefix(line, len, "cpus=") ||
	    has_prefix(line, len, "version = ") || has_prefix(line, len, "CPU ") ||
	    has_prefix(line, len, "# entries-in-buffer"))
		return FMT_TRACE;
	if (ktrace_parse_line(line, len, &tl, &what) == 0 && tl.kind == KTRACE_LINE_EVENT &&
	    tl.ev.kind != KTRACE_EV_UNKNOWN)
		return FMT_TRACE;
	/* kmsg_parse_line() decodes in place: try a copy */
	memcpy(buf, line, n);
	buf[n] = '\0';
	if (kmsg_parse_line(buf, n, &rec, &what) == 0)
		return FMT_KMSG;
	return FMT_DMESG;
}

/* journalctl's "-- Boot 0123abcd... --" between boots (and "-- Reboot --" of old ones) */
static int boot_marker(struct run *x, uint64_t lineno, const char *line, size_t len)
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
	struct run *x = userdata;

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
	struct run *x = userdata;

	bad_line(x, x->lineno, e->what ? e->what : "malformed");
}

static void log_stream_error(struct run *x, int r)
{
	if (r == -EBADMSG)
		log_error("'%s': corrupt or truncated %s data near line %llu", x->path,
			  stream_compression_name(stream_compression(x->s)),
			  (unsigned long long)stream_lineno(x->s) + 1);
	else if (r == -ENOMEM)
		;	/* said once, by read_input() */
	else if (r == -EAGAIN)
		log_error("'%s': cannot start a thread: %s", x->path, strerror(-r));
	else
		log_error("'%s': %s", x->path, strerror(-r));
}

/* Reads the next line, fully or filtered: 1 line, 0 end, <0 fatal (logged). */
static int next_line(struct run *x, bool filtered, char **line, size_t *len)
{
	for (;;) {
		int r = filtered ? stream_next_match(x->s, x->needles, line, len)
				 : stream_next_line(x->s, line, len);

		if (r == -E2BIG) {
			bad_line(x, stream_lineno(x->s), "line too long");
			continue;
		}
		if (r < 0)
			log_stream_error(x, r);
		return r;
	}
}

/*
 * A line that is no timestamped record: other text (a serial console's), or, once a
 * banner without timestamp was seen, a kernel message of a log without timestamps.
 */
static int plain_line(struct run *x, uint64_t lineno, const char *line, size_t len)
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
static int dmesg_line(struct run *x, struct dmesg_parser *p, uint64_t lineno, const char *line,
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
	struct run *x;
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
	struct run *x = dr->x;
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

static int read_dmesg(struct run *x, char *line, size_t len)
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
				log_stream_error(x, r);
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
	struct run *x;
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
static int read_kmsg(struct run *x, char *line, size_t len)
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
			r = stream_next_line(x->s, &line, &len);
			if (r != -E2BIG)
				break;
			k.line = stream_lineno(x->s);
			r = kmsg_parser_skip_line(p, "line too long");
			if (r < 0)
				goto out;
		}
		if (r < 0)
			log_stream_error(x, r);
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
static int journal_json_line(struct run *x, uint64_t lineno, const char *line, size_t len)
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

static int read_journal_json(struct run *x, char *line, size_t len)
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

static int add_event_line(struct run *x, double ts, int pid, uint64_t line)
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
	struct run *x = userdata;
	int r;

	x->st.records++;
	/* the ledger pairs events in time order: a trace that goes back is counted */
	if (ev->kind != KTRACE_EV_LOST) {
		if (ev->ts_ns < x->trace_last_ns && !x->trace_back_steps++)
			x->trace_back_line = x->dat ? x->st.records : stream_lineno(x->s);
		x->trace_last_ns = ev->ts_ns;
	}
	/* a trace.dat's findings point at the event's number, as a text's at its line */
	if (x->dat && is_line_event(ev->kind)) {
		r = add_event_line(x, ev->ts, ev->pid, x->st.records);
		if (r < 0)
			return r;
	}
	if (x->lines_only)
		return 0;
	return ledger_feed_trace(x->ledger, ev);
}

static void on_trace_bad_line(void *userdata, const struct kt_err *e)
{
	struct run *x = userdata;

	bad_line(x, e->line ? e->line : x->s ? stream_lineno(x->s) : x->st.records,
		 e->what ? e->what : "malformed");
}

/* The line of each syscall and request event: the ledger keeps times, CI wants lines. */
static int note_event_line(struct run *x, const char *line, size_t len)
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
 * The trace at x->path and the kernel log of its boot (x->boot_log, may be NULL) as
 * report reads them, into one ledger priced as report prices it: the log's records
 * name and explain the trace's attempts instead of being counted again.
 */
static int read_trace_as_report(struct run *x, struct collect_lookup *lk, bool idempotent,
				struct collect_result *ret)
{
	_cleanup_fclose_ FILE *trace = NULL, *log = NULL;
	struct collect_input in = { .trace_path = x->path, .log_path = x->boot_log,
				    .klog_runs = true };
	int r;

	r = input_fopen(x->path, ROOT_STREAM_MAX, &trace);
	if (r < 0) {
		log_error("'%s': %s", x->path, strerror(-r));
		return r;
	}
	if (x->boot_log) {
		r = input_fopen(x->boot_log, ROOT_STREAM_MAX, &log);
		if (r < 0) {
			log_error("'%s': %s", x->boot_log, strerror(-r));
			return r;
		}
	}
	in.trace = trace;
	in.log = log;
	/* the counting read just done warned about its lines: this one need not again */
	return collect_read(lk, idempotent, &in, ret);
}

/*
 * A trace: text from @line on (the stream's next lines after it), or with @dat_fd >= 0
 * the trace.dat open on it, read by libtracecmd as report reads one.
 */
static int read_trace(struct run *x, char *line, size_t len, int dat_fd)
{
	struct ktrace_parser_ops ops = { .event = on_trace_event, .bad_line = on_trace_bad_line };
	struct tree *t = tree_get(x->cost, NULL);
	/* the default release's tree names and prices the attempts, as report does */
	struct collect_lookup lk = { .idx = x->idx, .pm = x->pm, .cat = t->ok ? t->cat : NULL,
				     .k = t->ok ? &t->k : NULL };
	struct ledger_ops lops;
	struct ktrace_parser *p = NULL;
	struct cost_result *cost = NULL;
	struct collect_result res = { 0 };
	struct loadpath lp;
	int r;

	collect_ledger_ops(&lk, &lops);
	loadpath_from_release(x->cost->release, &lp);
	r = ledger_new(&lops, lp.idempotent_finit, &x->ledger);
	if (r < 0)
		return r;
	x->trace_last_ns = x->trace_back_steps = x->trace_back_line = 0;
	if (dat_fd >= 0) {
		struct kt_err err = { 0 };

		x->dat = true;
		r = tracedat_read_fd(dat_fd, x->path, &ops, x, NULL, &err);
		x->dat = false;
		if (r < 0) {
			if (r != -ENOMEM)
				log_error("'%s': %s", x->path, err.what ? err.what : strerror(-r));
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
			if (r < 0)
				goto out;
			r = next_line(x, false, &line, &len);
		} while (r > 0);
		if (r < 0)
			goto out;
		r = ktrace_parser_finish(p);
	}
	if (r >= 0 && x->trace_back_steps)
		log_warn("'%s':%llu: the trace goes back in time near here, %llu time(s) in all "
			 "(per-CPU trace files one after another?): load attempts paired in the "
			 "file's order may be wrong; kmodtop report reads such a file sorted",
			 x->path, (unsigned long long)x->trace_back_line,
			 (unsigned long long)x->trace_back_steps);
	if (r >= 0 && x->lines_only) {
		r = read_trace_as_report(x, &lk, lp.idempotent_finit, &res);
		if (r >= 0)
			r = ci_trace(x->ci, res.ledger, res.cost, x->lines, x->n_lines);
		goto out;
	}
	if (r >= 0)
		r = ledger_finish(x->ledger);
	if (r >= 0)
		collect_warn_forgotten(x->path, x->ledger);
	if (r >= 0 && t->ok)
		r = cost_compute(x->ledger, &t->k, collect_cost_module, &lk, &cost);
	if (t->ok)
		collect_note_layouts(t->cat);
	if (r >= 0)
		r = ci_trace(x->ci, x->ledger, cost, x->lines, x->n_lines);
out:
	collect_result_done(&res);
	cost_result_free(cost);
	ktrace_parser_free(p);
	x->ledger = ledger_free(x->ledger);
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
static int read_tracedat_input(struct run *x, const char *path, int fd)
{
	int r;

	r = ci_input_begin(x->ci, path, x->cost->release);
	if (r >= 0) {
		ci_input_set_format(x->ci, format_names[FMT_TRACE_DAT], NULL);
		x->lines_only = fd != STDIN_FILENO;
		r = read_trace(x, NULL, 0, fd);
		x->lines_only = false;
	}
	/* its "lines" are its events, as the evidence numbers them */
	x->st.lines = x->st.records;
	if (r >= 0)
		r = ci_input_end(x->ci, &x->st);
	if (r == -ENOMEM)
		log_error("out of memory");
	if (fd != STDIN_FILENO)
		close(fd);
	return r;
}

/* One input, start to end. 0, or <0 after logging (exit 2). */
static int read_input(struct run *x, const char *path)
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
	r = open_input(path, &fd);
	if (r < 0) {
		log_error("'%s': %s", path, strerror(-r));
		return r;
	}
	if (is_tracedat(fd))
		return read_tracedat_input(x, path, fd);
	r = stream_new(fd, 0, &x->s, &what);
	if (r < 0) {
		if (r == -EPROTONOSUPPORT)
			log_error("'%s': %s compressed input is not supported (gzip, xz, zstd are)",
				  path, what);
		else
			log_error("'%s': %s", path, strerror(-r));
		return r;
	}
	r = ci_input_begin(x->ci, path, x->cost->release);
	if (r < 0)
		goto out;
	/* the first line that is not blank tells the format */
	do
		r = next_line(x, false, &line, &len);
	while (r > 0 && len == 0 && stream_lineno(x->s) < SNIFF_LINES);
	if (r > 0) {
		enum input_format fmt = sniff(line, len);

		ci_input_set_format(x->ci, format_names[fmt],
				    stream_compression_name(stream_compression(x->s)));
		switch (fmt) {
		case FMT_TRACE:
			/* what collect_read() can open again: a file, uncompressed */
			x->lines_only = strcmp(path, "-") != 0 && !stream_compression(x->s);
			r = read_trace(x, line, len, -1);
			x->lines_only = false;
			break;
		case FMT_TRACE_DAT:
			/* libtracecmd seeks: from a pipe or a decompressor it cannot read one */
			log_error("'%s': a trace.dat is read from an uncompressed file, not %s",
				  path, stream_compression(x->s) ? "a compressed one" : "a pipe");
			r = -EINVAL;
			break;
		case FMT_KMSG:
			r = read_kmsg(x, line, len);
			break;
		case FMT_JOURNAL_JSON:
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
		log_warn("'%s':%llu: the last line has no newline (truncated log?)", path,
			 (unsigned long long)x->st.lines);
	if (x->joining)
		ci_input_join(x->ci);
	r = ci_input_end(x->ci, &x->st);
out:
	if (r == -ENOMEM)
		log_error("out of memory");
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
		return FMT_TRACE_DAT;
	if (stream_new(fd, 0, &s, &what) < 0)
		return -1;
	fd = -1;	/* the stream's now */
	do
		r = stream_next_line(s, &line, &len);
	while (r > 0 && len == 0 && stream_lineno(s) < SNIFF_LINES);
	if (r > 0)
		fmt = sniff(line, len);
	stream_free(s);
	return fmt;
}

/*
 * A trace and a kernel log given together are one boot, as report reads a capture's:
 * the trace's attempts are the boot's, the log's records join them. With one trace and
 * one kernel log among the inputs, the log's index in *ret_log and the trace's in
 * *ret_trace; else -1 (each input its own boots).
 */
static void pair_inputs(int argc, char **argv, int first, int *ret_log, int *ret_trace)
{
	int n_log = 0, n_trace = 0;

	*ret_log = *ret_trace = -1;
	for (int i = first; i < argc; i++) {
		int fmt = input_format_of(argv[i]);

		if (fmt == FMT_TRACE || fmt == FMT_TRACE_DAT) {
			n_trace++;
			*ret_trace = i;
		} else if (fmt == FMT_DMESG || fmt == FMT_KMSG) {
			n_log++;
			*ret_log = i;
		} else {
			/* a journal, or what cannot be read twice: no pairing */
			n_log += 2;
		}
	}
	if (n_log != 1 || n_trace != 1)
		*ret_log = *ret_trace = -1;
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


/*
 * A file is replaced whole, a temporary renamed over the name: a reader never sees half
 * of it, and a symlink someone else planted at the name (in a shared directory) is
 * replaced, never written through. A symlink of the user's own or root's is followed,
 * as the shell's > would (/dev/stdout, whatever standard output is); so is a name for a
 * pipe or a terminal.
 */
static bool write_in_place(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return false;
	if (S_ISLNK(st.st_mode))
		return st.st_uid == geteuid() || st.st_uid == 0;
	return S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode);
}

static int write_file(const char *opt, const char *path, const struct ci_findings *ci, bool pretty,
		      int (*fn)(const struct ci_findings *, FILE *, bool))
{
	struct atomic_file *af = NULL;
	FILE *f = NULL;
	int r = 0;

	if (write_in_place(path)) {
		f = fopen(path, "we");
		if (!f)
			r = -errno;
	} else {
		r = atomic_file_new(path, 0644, &af);
		if (r >= 0)
			f = atomic_file_stream(af);
	}
	if (r >= 0)
		r = fn(ci, f, pretty);
	if (af) {
		if (r >= 0)
			r = atomic_file_commit(af);
		atomic_file_free(af);
	} else if (f) {
		errno = 0;
		if (fclose(f) != 0 && r >= 0)
			r = errno ? -errno : -EIO;
	}
	if (r < 0)
		log_error("%s '%s': %s", opt, path, strerror(-r));
	return r;
}

static int junit_fn(const struct ci_findings *ci, FILE *f, bool pretty)
{
	return ci_write_junit(ci, f);
}

static int sarif_fn(const struct ci_findings *ci, FILE *f, bool pretty)
{
	return ci_write_sarif(ci, f, pretty);
}

static int github_fn(const struct ci_findings *ci, FILE *f, bool pretty)
{
	return ci_write_github(ci, f);
}

static int setup_release(struct cost_ctx *cx, const struct global_opts *g)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r;

	if (g->root) {
		r = root_new(g->root, &cx->root);
		if (r < 0) {
			log_error("--root '%s': %s", g->root, strerror(-r));
			return r;
		}
	}
	cx->moduledir = g->moduledir;
	cx->release = g->release;
	if (!cx->release && cx->root &&
	    root_read_file(cx->root, "proc/sys/kernel/osrelease", 255, &buf, &len) == 0) {
		while (len && buf[len - 1] && strchr("\n\r \t", buf[len - 1]))
			buf[--len] = '\0';
		if (len && !strchr(buf, '/') && !memchr(buf, '\n', len)) {
			snprintf(cx->root_release, sizeof(cx->root_release), "%s", buf);
			cx->release = cx->root_release;
		}
	}
	return 0;
}

int cmd_ci(int argc, char **argv, struct global_opts *g)
{
	static const struct option long_options[] = {
		GLOBAL_LONG_OPTIONS,
		{ "max-duplicates", required_argument, NULL, OPT_MAX_DUPLICATES },
		{ "max-failures", required_argument, NULL, OPT_MAX_FAILURES },
		{ "max-wasted", required_argument, NULL, OPT_MAX_WASTED },
		{ "fail-on", required_argument, NULL, OPT_FAIL_ON },
		{ "allow", required_argument, NULL, OPT_ALLOW },
		{ "baseline", required_argument, NULL, OPT_BASELINE },
		{ "tolerance", required_argument, NULL, OPT_TOLERANCE },
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "junit", required_argument, NULL, OPT_JUNIT },
		{ "sarif", required_argument, NULL, OPT_SARIF },
		{ "github", optional_argument, NULL, OPT_GITHUB },
		{ "no-filter", no_argument, NULL, OPT_NO_FILTER },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct ci_settings s = { .opt = { .max_duplicates = -1, .max_failures = -1,
				       .max_wasted = -1 } };
	struct ci_fmt_baseline *baseline = NULL;
	struct stream_needles *nd = NULL;
	struct cost_ctx cx = {0};
	struct ci_cost_ops cops = { cost_kernel_of, cost_module_of, &cx };
	struct run x = {0};
	struct out *o = NULL;
	const char *github = NULL;
	bool want_github = false, no_filter = false, stdin_seen = false;
	uint32_t threads = 0;
	enum ci_result res;
	const char *const *needles;
	size_t n_needles;
	int opt, r, ret = CI_EXIT_USAGE, log_i, trace_i;

	while ((opt = getopt_long(argc, argv, GLOBAL_SHORT_OPTIONS "h", long_options, NULL)) != -1) {
		char origin[32];

		switch (opt) {
		case 'h':
			ci_usage(stdout);
			if (stdout_check("the help") >= 0)
				ret = CI_EXIT_PASS;
			goto out;
		case '?':
			cmd_usage_error("ci", long_options, argv, optind);
			goto out;
		case OPT_CONFIG:
			if (ci_settings_set_path(&s.config, optarg) < 0)
				goto out;
			continue;
		case OPT_GITHUB:
			want_github = true;
			github = optarg;
			continue;
		case OPT_NO_FILTER:
			no_filter = true;
			continue;
		case OPT_THREADS:
			if (parse_u32(optarg, 10, &threads) < 0 || threads < 1 || threads > 64) {
				log_error("ci: --threads '%s': expected 1 to 64", optarg);
				goto out;
			}
			continue;
		case OPT_FAIL_ON:
			if (strcmp(optarg, "help") == 0) {
				list_classes();
				if (stdout_check("the classes") >= 0)
					ret = CI_EXIT_PASS;
				goto out;
			}
			break;
		}
		if (opt >= OPT_CMD_BASE) {
			snprintf(origin, sizeof(origin), "--%s", long_options[0].name);
			for (const struct option *lo = long_options; lo->name; lo++)
				if (lo->val == opt)
					snprintf(origin, sizeof(origin), "--%s", lo->name);
			if (ci_settings_apply(&s, opt, optarg, origin, true) < 0)
				goto out;
			continue;
		}
		if (global_opt_handle(g, opt, optarg) <= 0)
			goto out;
	}
	if (s.config && ci_settings_read_config(&s, s.config) < 0)
		goto out;
	if (optind >= argc) {
		log_error("ci: no input (FILE..., or - for standard input)");
		fputs("Try 'kmodtop ci --help' for more information.\n", stderr);
		goto out;
	}
	for (int i = optind; i < argc; i++) {
		if (strcmp(argv[i], "-") != 0)
			continue;
		if (stdin_seen) {
			log_error("ci: standard input ('-') given twice");
			goto out;
		}
		stdin_seen = true;
	}
	if (want_github && !github && g->json) {
		log_error("ci: --github and --json both write to standard output; "
			  "use --github=FILE");
		goto out;
	}
	color_init(g->color, !g->json && isatty(STDOUT_FILENO));

	if (s.baseline) {
		if (ci_settings_read_baseline(s.baseline, &baseline) < 0)
			goto out;
		s.opt.baseline = baseline;
		s.opt.baseline_path = s.baseline;
	}
	if (setup_release(&cx, g) < 0)
		goto out;
	needles = ci_needles(&n_needles);
	r = stream_needles_new(needles, n_needles, &nd);
	if (r < 0) {
		log_error("ci: needles: %s", strerror(-r));
		goto out;
	}
	r = ci_new(&s.opt, &cops, &x.ci);
	if (r < 0) {
		log_error("out of memory");
		goto out;
	}
	x.cost = &cx;
	x.g = g;
	x.needles = nd;
	x.time_blind = !needle_in_time(needles, n_needles);
	x.filter = !no_filter;
	x.threads = threads ? threads : default_threads();
	/* the trace's aliases and already-loaded modules, when a tree was given */
	if (cx.root || g->moduledir) {
		_cleanup_free_ char *moddir = NULL;
		struct kt_err e = {0};

		if (!cx.root && root_new("/", &x.idx_root) < 0)
			x.idx_root = NULL;
		if (g->moduledir) {
			moddir = strdup(g->moduledir);
		} else if (cx.release) {
			char rel[300];

			snprintf(rel, sizeof(rel), "lib/modules/%s", cx.release);
			if (root_abspath(cx.root, rel, &moddir) < 0)
				moddir = NULL;
		}
		if (moddir && (cx.root || x.idx_root))
			collect_modindex_new(cx.root ? cx.root : x.idx_root, moddir, &x.idx);
		if (g->root && proc_modules_read(cx.root, &x.pm, &e) < 0)
			x.pm = NULL;
		if (x.pm)
			collect_warn_repeated("proc/modules", x.pm->n_repeated,
					      x.pm->repeated_line);
	}

	pair_inputs(argc, argv, optind, &log_i, &trace_i);
	for (int i = optind; i < argc; i++) {
		if (i == trace_i)
			continue;
		x.joining = i == log_i;
		r = read_input(&x, argv[i]);
		x.joining = false;
		if (r < 0)
			goto out;
		if (i != log_i && trace_i < 0)
			continue;
		if (i == log_i) {
			/* the trace right after its log: they are one boot */
			x.boot_log = argv[log_i];
			r = read_input(&x, argv[trace_i]);
			x.boot_log = NULL;
			if (r < 0)
				goto out;
		}
	}
	if (trace_i >= 0 && log_i < 0 && read_input(&x, argv[trace_i]) < 0)
		goto out;

	r = ci_finish(x.ci, &res);
	if (r < 0) {
		log_error("out of memory");
		goto out;
	}
	if (want_github && !github) {
		r = ci_write_github(x.ci, stdout);
		if (r < 0) {
			log_error("writing the annotations: %s", strerror(-r));
			goto out;
		}
	}
	r = out_new(g->json ? OUT_JSON : OUT_TEXT, g->pretty, stdout, &o);
	if (r >= 0)
		r = ci_render(x.ci, o);
	if (r >= 0)
		r = out_finish(o);
	if (r < 0) {
		log_error("writing the report: %s", strerror(-r));
		goto out;
	}
	if (s.junit && write_file("--junit", s.junit, x.ci, false, junit_fn) < 0)
		goto out;
	if (s.sarif && write_file("--sarif", s.sarif, x.ci, g->pretty, sarif_fn) < 0)
		goto out;
	if (github && write_file("--github", github, x.ci, false, github_fn) < 0)
		goto out;

	switch (res) {
	case CI_PASS:
		ret = CI_EXIT_PASS;
		break;
	case CI_FAIL:
		ret = CI_EXIT_FAIL;
		break;
	case CI_EMPTY:
		/* a code of its own: CI harnesses read it as "skipped" (kselftest) */
		log_info("nothing to analyse: no kernel log records or trace events in the input");
		ret = CI_EXIT_EMPTY;
		break;
	case CI_UNKNOWN_WASTE:
		log_error("--max-wasted: no waste estimate (pass --root or --moduledir for module "
			  "files, or a trace with vmalloc events)");
		ret = CI_EXIT_USAGE;
		break;
	}
out:
	out_free(o);
	ci_free(x.ci);
	proc_modules_free(x.pm);
	modindex_free(x.idx);
	root_free(x.idx_root);
	stream_needles_free(nd);
	ci_baseline_free(baseline);
	cost_ctx_done(&cx);
	root_free(cx.root);
	ci_settings_done(&s);
	return ret;
}
