/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ledger/klog-findings.h"
#include "sources/journal-json.h"
#include "sources/dmesg-text.h"
#include "sources/kmsg.h"
#include "sources/stream.h"
#include "util/linecache.h"
#include "util/macro.h"
#include "util/parse-num.h"
#include "session/ci-input-private.h"

/*
 * ci's kernel log readers: dmesg text in every rendering (scanned on several threads,
 * lines seen before copied rather than parsed), /dev/kmsg records, journalctl JSON.
 */

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
	return ci_boot_mark(x->ci, ci_input_line_at(x, lineno, NULL), id[0] ? id : NULL);
}

static int on_dmesg_record(void *userdata, const struct klog_rec *rec)
{
	struct ci_input *x = userdata;

	/* journalctl text marks boots with lines of its own: those need every line */
	if (!x->st.records && rec->format >= KLOG_FORMAT_JOURNAL_SHORT)
		x->journal = true;
	if (!x->timed) {
		x->timed = true;
		x->first_format = rec->format;
		x->first_caller = rec->caller_kind != 0;
		x->first_level = rec->level >= 0;
		x->first_prefixed = rec->prefix_len > 0;
		x->first_inner_time = rec->has_monotonic && rec->has_wallclock;
	}
	x->st.records++;
	if (x->classified)
		return ci_klog_classified(x->ci, x->lineno, rec, x->classified);
	return ci_klog(x->ci, ci_input_line_at(x, x->lineno, rec->msg), rec);
}

static void on_dmesg_bad_line(void *userdata, const struct kt_err *e)
{
	struct ci_input *x = userdata;

	ci_input_bad_line(x, ci_input_line_at(x, x->lineno, NULL), e->what ? e->what : "malformed");
}

/*
 * Whether @line, in an input with no timestamped record so far and no banner, is a
 * kernel message all the same: one the classifier knows, as a console paste or dmesg
 * -t shows it ("do_init_module: 'x'->init suspiciously returned 255, ..."). Not the
 * lines of loaders (modprobe, systemd), which ci_text() reads, nor a journal's lines of
 * other programs: "host foo[1]: bar: Unknown symbol baz" is no kernel's.
 */
static bool untimed_kernel_line(struct ci_input *x, const char *line, size_t len)
{
	struct klog_finding f;

	if (!len || memchr(line, '\0', len) || dmesg_syslog_head(line, len))
		return false;
	/*
	 * in a log with timestamps, a line without one is a kernel line only when it is a
	 * kernel wording that names its module ("> zram: module verification failed: ...",
	 * quoted after the timestamped paste): never other text that merely looks like one
	 */
	if (x->timed) {
		/* a record whose time did not read ("[99999999999.000000] ") is skipped, said */
		if (line[0] == '[' || line[0] == '<' || !x->needles ||
		    stream_needles_find(x->needles, line, len) >= len ||
		    !klog_classify(line, len, &f) || !f.module)
			return false;
	} else if (!klog_classify(line, len, &f)) {
		return klog_kernel_line(line, len);
	}
	return f.kind != KLOG_FINDING_MODPROBE_ERROR && f.kind != KLOG_FINDING_UDEV_WORKER_TIMEOUT;
}

/* After a time the paste cut ("[...] "): a kernel wording, not a loader's line */
static bool elided_kernel_line(const char *msg, size_t len)
{
	struct klog_finding f;

	if (!klog_classify(msg, len, &f))
		return false;
	return f.kind != KLOG_FINDING_MODPROBE_ERROR && f.kind != KLOG_FINDING_UDEV_WORKER_TIMEOUT;
}

/*
 * A line that is no timestamped record: other text (a serial console's), or, once a
 * banner without timestamp was seen, a kernel message of a log without timestamps, or
 * before any timestamped record, a kernel message the classifier knows (a paste with
 * neither timestamps nor banner: read as one boot without times, not refused).
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
		ci_set_input_format(x->ci, "kernel-log-plain", NULL);
	}
	if (!x->plain && untimed_kernel_line(x, line, len)) {
		/* a log with timestamps stays one: this line is a kernel wording quoted in it */
		if (!x->untimed && !x->timed)
			ci_set_input_format(x->ci, "kernel-log-plain", NULL);
		x->untimed = x->untimed || !x->timed;
	} else if (!x->plain) {
		size_t ind = 0, head, cut;

		/* past a paste's indentation, as parse_indented() reads records */
		while (ind < len && (line[ind] == ' ' || line[ind] == '\t'))
			ind++;
		head = dmesg_syslog_head(line + ind, len - ind);
		if (head)
			head += ind;

		cut = klog_elided_time(line + ind, len - ind);
		if (cut && elided_kernel_line(line + ind + cut, len - ind - cut)) {
			rec.msg = line + ind + cut;
			rec.msg_len = len - ind - cut;
			x->st.records++;
			return ci_klog(x->ci, lineno, &rec);
		}
		if (len && !x->st.records)
			x->text_before++;
		if (head)
			x->other_programs++;
		/* another program's journal line: ci reads "ident[pid]: message" */
		return ci_text(x->ci, ci_input_line_at(x, lineno, line + head), line + head,
			       len - head);
	}
	if (!len || memchr(line, '\0', len))
		return 0;
	rec.msg = line;
	rec.msg_len = len;
	x->st.records++;
	return ci_klog(x->ci, ci_input_line_at(x, lineno, line), &rec);
}

/* Whether @line holds a finding of its own: the scan's answer when it has one */
static bool line_finding(struct ci_input *x, const char *line, size_t len)
{
	struct klog_finding f;

	if (x->classified)
		return x->classified->kind != KLOG_FINDING_NONE;
	return klog_classify(line, len, &f) == 1;
}

/* Whether @s ends a sentence: a '.' or a ')' (" ... (see dmesg)") */
static bool cut_closed(const char *s, size_t n)
{
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	return n && (s[n - 1] == '.' || s[n - 1] == ')');
}

/*
 * Whether @msg starts as kmod's modprobe or insmod lines do. In a log with timestamps an
 * untimed line is held as a first half only then: a mail client wraps a loader's line
 * among the records ("insmod: ERROR: could not insert module" / "/lib/.../x.ko:" /
 * "Unknown symbol in module"), and join_cut() takes only a loader's wording there.
 */
static bool loader_head(const char *msg, size_t n)
{
	while (n && (*msg == ' ' || *msg == '\t'))
		msg++, n--;
	return has_prefix(msg, n, "insmod: ") || has_prefix(msg, n, "modprobe: ");
}

/*
 * Keeps the line just read when it may be the first half of one that a paste split in
 * two: a time alone, a quoted-printable soft break ('=' at its end), a message that is
 * a module's name and its colon (the kernel's "%s: " before the wording), or a line
 * holding a word of ci's wordings with no finding of its own (a wording cut short).
 * Only text lines of a paste without timestamps: in a kernel log, a line of other
 * text joined to the next one would make a kernel line of something the kernel never
 * said.
 */
static void hold_cut(struct ci_input *x, uint64_t lineno, const char *line, size_t len,
		     bool record, const struct klog_rec *rec)
{
	const char *msg = record ? rec->msg : line;
	size_t n = record ? rec->msg_len : len;
	bool time_only = false, cut, weak = false;

	x->cut_lineno = 0;
	if (!record && x->timed && !loader_head(msg, n))
		return;
	/* the common case first: a line with a finding of its own, as the scan found */
	if (x->classified && x->classified->kind != KLOG_FINDING_NONE)
		return;
	while (n && (msg[n - 1] == '\r' || msg[n - 1] == ' '))
		n--;
	if (n >= sizeof(x->cut))
		return;
	if (!n) {
		/* a time alone: a record with nothing else to say */
		if (!record || !rec->has_monotonic)
			return;
		cut = time_only = true;
	} else if (msg[n - 1] == '=') {
		cut = true;
	} else if (msg[n - 1] == ':' && record) {
		cut = !memchr(msg, ' ', n - 1);
	} else if (x->classified) {
		/* handed out by the needle filter, and no finding */
		cut = true;
	} else if (x->cut_any || (x->needles && stream_needles_find(x->needles, msg, n) < n)) {
		cut = !line_finding(x, msg, n);
	} else {
		/*
		 * a record without a needle that ends no sentence: the first half of one
		 * whose second holds the needle ("... target %llx can not be" / "addressed
		 * by the 32-bit offset ..."), joined only to a line that has one
		 */
		cut = weak = record && x->needles && !cut_closed(msg, n);
	}
	if (!cut || memchr(msg, '\0', n))
		return;
	x->cut_weak = weak;
	memcpy(x->cut, msg, n);
	x->cut_len = n;
	x->cut_lineno = lineno;
	x->cut_at = ci_input_line_at(x, lineno, msg);
	x->cut_parts = 0;
	x->cut_record = record;
	x->cut_time_only = time_only;
	if (record) {
		x->cut_rec = *rec;
		x->cut_rec.msg = NULL;
		x->cut_rec.msg_len = 0;
		x->cut_rec.host = NULL;
		x->cut_rec.host_len = 0;
		x->cut_rec.dict = NULL;
		x->cut_rec.dict_len = 0;
	}
}


/* a mail client wraps a loader's line with a long path in three or four */
#define CUT_PARTS_MAX 3

/*
 * Whether two lines joined still wait for more: a '(' not closed yet ("Error
 * inserting %s (%s): %s" cut inside its path) or a ':' at the end (cut before the
 * message). A whole sentence is no half of another.
 */
static bool cut_open(const char *s, size_t n)
{
	int depth = 0;

	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n && s[n - 1] == ':')
		return true;
	for (size_t i = 0; i < n; i++)
		depth += (s[i] == '(') - (s[i] == ')');
	return depth > 0;
}

/*
 * The line after a held one (hold_cut()), when the two make one line of a known
 * wording and this one has no finding of its own: read as that line. Its evidence is
 * the line where the message starts: the first, or this one after a time alone. When
 * the two make no line of a wording yet, the joined text is held in turn (a line
 * wrapped in three or four), up to CUT_PARTS_MAX joins.
 * 1 when taken, 2 when held joined, 0 when not, or <0.
 */
static int join_cut(struct ci_input *x, uint64_t lineno, const char *line, size_t len,
		    int parsed, const struct klog_rec *rec)
{
	char joined[KLOG_JOIN_MAX];
	struct klog_finding f;
	struct klog_rec jrec;
	uint64_t at = x->cut_at;
	size_t n;
	int r;

	x->cut_lineno = 0;
	/* a timestamped record starts a line of its own */
	if (parsed == 1 && rec->msg_len)
		return 0;
	if (len >= sizeof(joined) || memchr(line, '\0', len))
		return 0;
	/* a line read as a finding of its own stays one */
	if (klog_classify(line, len, &f) &&
	    (!x->timed || f.kind == KLOG_FINDING_MODPROBE_ERROR ||
	     f.kind == KLOG_FINDING_UDEV_WORKER_TIMEOUT))
		return 0;
	if (x->cut_time_only) {
		while (len && (*line == ' ' || *line == '\t'))
			len--, line++;
		while (len && line[len - 1] == '\r')
			len--;
		if (!len)
			return 0;
		memcpy(joined, line, len);
		joined[len] = '\0';
		n = len;
		at = ci_input_line_at(x, lineno, line);
	} else {
		n = klog_join_cut(x->cut, x->cut_len, line, len, joined, sizeof(joined));
	}
	if (!n)
		return 0;
	/*
	 * a loader's line read with no module but ending open, before its message ("...
	 * command_do() Error" / "running install command '/bin/false' for module x:" /
	 * "retcode 1"): the module's name is in it, so the wording cut short took it; held
	 * for the line that ends it
	 */
	if (klog_classify(joined, n, &f) && f.kind == KLOG_FINDING_MODPROBE_ERROR &&
	    !f.module_len && cut_open(joined, n) && !x->cut_time_only &&
	    x->cut_parts < CUT_PARTS_MAX && n < sizeof(x->cut)) {
		memcpy(x->cut, joined, n);
		x->cut_len = n;
		x->cut_lineno = lineno;
		x->cut_parts++;
		return 2;
	}
	if (!klog_classify(joined, n, &f) && !x->cut_time_only) {
		/* a mail client's break after a negative number's minus sign */
		char alt[KLOG_JOIN_MAX];
		size_t m = klog_join_cut_minus(x->cut, x->cut_len, line, len, alt, sizeof(alt));

		if (m && klog_classify(alt, m, &f)) {
			memcpy(joined, alt, m + 1);
			n = m;
		}
	}
	if (!klog_classify(joined, n, &f)) {
		/*
		 * a wording still open: inside its parenthesis, or before its message; or a
		 * paste's line a mail wrapped twice ("insmod: error inserting" / "'/lib/
		 * .../reiserfs.ko': -1" / "invalid module format"), its first line no whole
		 * sentence and starting with a word of ci's wordings, held for a third line
		 */
		if (x->cut_time_only || x->cut_parts >= CUT_PARTS_MAX || n >= sizeof(x->cut) ||
		    !x->needles || stream_needles_find(x->needles, joined, n) >= n)
			return 0;
		if (!cut_open(joined, n) &&
		    (x->cut_record || x->cut_parts || cut_closed(x->cut, x->cut_len) ||
		     stream_needles_find(x->needles, x->cut, x->cut_len) != 0))
			return 0;
		memcpy(x->cut, joined, n);
		x->cut_len = n;
		x->cut_lineno = lineno;
		x->cut_parts++;
		return 2;
	}
	if (!x->cut_record) {
		/* a paste without timestamps: kernel wordings, or a loader's line */
		if (f.kind == KLOG_FINDING_MODPROBE_ERROR || f.kind == KLOG_FINDING_UDEV_WORKER_TIMEOUT)
		{
			r = ci_text(x->ci, at, joined, n);
			return r < 0 ? r : 1;
		}
		if (x->timed || x->plain)
			return 0;
		if (!x->untimed)
			ci_set_input_format(x->ci, "kernel-log-plain", NULL);
		x->untimed = true;
		jrec = (struct klog_rec){ .format = KLOG_FORMAT_DMESG, .facility = -1, .level = -1 };
		x->st.records++;
	} else {
		jrec = x->cut_rec;
	}
	jrec.msg = joined;
	jrec.msg_len = n;
	x->lineno = at;
	r = ci_klog(x->ci, at, &jrec);
	return r < 0 ? r : 1;
}

/* One line of a kernel log, parsed (@parsed, @rec, @what as dmesg_parse() gives them). */
static int dmesg_line(struct ci_input *x, struct dmesg_parser *p, uint64_t lineno, const char *line,
		      size_t len, int parsed, const struct klog_rec *rec, const char *what)
{
	uint64_t before = x->st.records;
	bool record;
	int r;

	x->lineno = lineno;
	if (x->cut_lineno && x->cut_lineno + 1 == lineno &&
	    (!x->cut_weak || stream_needles_find(x->needles, line, len) < len)) {
		r = join_cut(x, lineno, line, len, parsed, rec);
		x->lineno = lineno;
		if (r < 0)
			return r;
		/* the parser counts the line all the same, as one of no record */
		if (r)
			return dmesg_parser_feed_parsed(p, 0, rec, NULL);
	}
	if (line[0] == '-' && line[1] == '-' && (r = boot_marker(x, lineno, line, len)) < 0)
		return r;
	r = dmesg_parser_feed_parsed(p, parsed, rec, what);
	if (r < 0)
		return r;
	record = x->st.records != before;
	if (!record)
		r = plain_line(x, lineno, line, len);
	if (r >= 0)
		hold_cut(x, lineno, line, len, record && parsed == 1, rec);
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
	/* the finding's rest (klog_finding.rest) as an offset into msg, 0: none */
	uint32_t rest;
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
	/*
	 * ci_klog_detail() of the message: a repeat's is written too, for a load's lines
	 * that miss symbols are one run, counted by symbol (each line's, from the cache)
	 */
	uint64_t detail;
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

/*
 * dmesg_parse() of a line a paste indented ("  avril 19 06:28:05 host kernel: ..." in a
 * markdown list) or a mail quoted ("> Sep 18 15:31:36 host kernel: ..."): a journal's or
 * syslog's head is read past the spaces and quote marks put before it. A line that
 * parses as it is, or that is no record past them either, stays as it is.
 */
static int parse_indented(const char *line, size_t len, struct klog_rec *rec,
			  const char **what)
{
	int r = dmesg_parse(line, len, rec, what);
	size_t k = 0;

	if (r != 0)
		return r;
	while (k < len && (line[k] == ' ' || line[k] == '\t' || line[k] == '>'))
		k++;
	if (k == 0 || k == len || dmesg_parse(line + k, len - k, rec, what) != 1)
		return 0;
	rec->prefix_len += k;
	return 1;
}

static void dmesg_map_line(struct dmesg_state *st, const char *line, size_t len,
			   struct dmesg_mapped *d)
{
	struct klog_rec rec;
	struct klog_finding f;

	d->what = NULL;
	d->same = 0;
	d->detail = 0;
	d->may_repeat = false;
	d->parsed = parse_indented(line, len, &rec, &d->what);
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
	/* hashed here, on the scanning threads, and kept with a known line */
	d->detail = ci_klog_detail(f.kind, rec.msg, rec.msg_len);
	d->module = f.module;
	d->module_len = (uint32_t)f.module_len;
	d->rest = f.rest ? (uint32_t)(f.rest - rec.msg) : 0;
	/* a line of more findings than its first is no repeat of one alike */
	if (f.rest)
		d->may_repeat = false;
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
		d->detail = k->d.detail;
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
			r->m[kept] = (struct stream_match){ p, len, lines, 0, 0, r->text };
			if (dmesg_repeats_moved(prev, &k->d, moved)) {
				r->m[kept].tag = DMESG_TAG_REPEAT;
				d[kept].detail = k->d.detail;
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
bool ci_input_needle_in_time(const char *const *needles, size_t n)
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
	dr->f.rest = d->rest ? dr->rec.msg + d->rest : NULL;
}

/* Where the line that ends at @end starts, after a '\n' or '\0' at or after @lim; @lim if none */
static const char *line_start(const char *lim, const char *end)
{
	const char *nl = end > lim ? memrchr(lim, '\n', (size_t)(end - lim)) : NULL;
	const char *from = nl ? nl + 1 : lim, *z;

	/* a block's lines may end in '\0' instead: only within this line's bytes */
	z = end > from ? memrchr(from, '\0', (size_t)(end - from)) : NULL;
	return z ? z + 1 : from;
}

/*
 * The line before @m, one the needle filter did not hand out, when @m holds no record
 * (it may be the second half of a line split in two): found in the block before @m's
 * line (not before m->block, at most KLOG_JOIN_MAX bytes back) and held if it ends cut.
 */
static void hold_unseen(struct ci_input *x, const struct stream_match *m)
{
	const char *end = m->line - 1, *start, *lim;
	struct klog_rec rec;
	const char *what;
	int parsed;

	if (!m->block || m->lineno < 2 || end <= m->block || (*end != '\n' && *end != '\0'))
		return;
	lim = end - m->block > KLOG_JOIN_MAX ? end - KLOG_JOIN_MAX : m->block;
	start = line_start(lim, end);
	/* a whole line only: its start seen, not the block's */
	if (start == lim)
		return;
	parsed = parse_indented(start, (size_t)(end - start), &rec, &what);
	/*
	 * @m holds a needle: this line may be a first half without one ("... target %llx
	 * can not be" / "addressed by the 32-bit offset ..."); join_cut() takes the two
	 * only as a whole wording
	 */
	x->cut_any = true;
	hold_cut(x, m->lineno - 1, start, (size_t)(end - start), parsed == 1, &rec);
	x->cut_any = false;
}

/*
 * After a run (records alike, counted at once), its last line @m[@j - 1] may be the
 * first half of a line split in two (hold_cut()): looked at when the next line the
 * scan found follows it, once a run.
 */
static void hold_run_end(struct dmesg_reduce *dr, const struct stream_match *m, size_t j,
			 size_t n)
{
	struct dmesg_mapped last;

	if (j >= n || m[j].err || m[j].lineno != m[j - 1].lineno + 1)
		return;
	dmesg_map_line(dr->st, m[j - 1].line, m[j - 1].len, &last);
	if (last.parsed != 1)
		return;
	dmesg_unmap(dr, &last, &m[j - 1]);
	dr->x->classified = &dr->f;
	hold_cut(dr->x, m[j - 1].lineno, m[j - 1].line, m[j - 1].len, true, &dr->rec);
	dr->x->classified = NULL;
}

/* ci_klog_repeat_details() of the repeats @m[from..to), a few at a time */
static int dmesg_repeat_details(struct ci_input *x, const struct stream_match *m,
				const struct dmesg_mapped *d, size_t from, size_t to)
{
	uint64_t lines[128], details[128];
	int r = 0;

	while (from < to && r >= 0) {
		size_t n = to - from < ARRAY_SIZE(lines) ? to - from : ARRAY_SIZE(lines);

		for (size_t i = 0; i < n; i++) {
			lines[i] = m[from + i].lineno;
			details[i] = d[from + i].detail;
		}
		r = ci_klog_repeat_details(x->ci, lines, details, n);
		from += n;
	}
	return r;
}

/*
 * The line after the one held as the first half of a line split in two (hold_cut()),
 * when this second half holds no needle ("... disagrees about version of symbol" /
 * "dvb_dmxdev_init") and the needle filter did not hand it out: read back from the
 * block of @m, the next line handed out (right after it, or a few lines of other text
 * later), and joined to the held one.
 */
#define JOIN_GAP_LINES 16
static int join_gap(struct ci_input *x, const struct stream_match *m)
{
	const char *end = m->line - 1, *start, *lim, *what;
	uint64_t back = m->lineno - x->cut_lineno - 1;
	struct klog_rec rec;
	int parsed, r;

	/*
	 * the second half is @back lines before @m: the lines between hold no needle,
	 * read back in @m's block, a few lines of at most KLOG_JOIN_MAX bytes
	 */
	for (;;) {
		if (!m->block || end <= m->block || (*end != '\n' && *end != '\0'))
			return 0;
		lim = end - m->block > KLOG_JOIN_MAX ? end - KLOG_JOIN_MAX : m->block;
		start = line_start(lim, end);
		/* a whole line only: a block holds whole lines, so its start is one's too */
		if (start == lim && lim != m->block)
			return 0;
		if (--back == 0)
			break;
		end = start - 1;
	}
	parsed = parse_indented(start, (size_t)(end - start), &rec, &what);
	r = join_cut(x, x->cut_lineno + 1, start, (size_t)(end - start), parsed, &rec);
	/* held joined still: @m may go on with it */
	if (r != 2)
		x->cut_lineno = 0;
	return r < 0 ? r : 0;
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
			ci_input_bad_line(x, m[i].lineno, "line too long");
			i++;
			continue;
		}
		/* a repeat not counted with a run (after a line that heads none): found again */
		if (m[i].tag & DMESG_TAG_REPEAT)
			dmesg_map_line(dr->st, m[i].line, m[i].len, &d[i]);
		/* further than the line after next: not after a quoted-printable soft break,
		 * which ends most lines of an encoded mail and whose second half is no wrap */
		if (x->cut_lineno && x->cut_lineno + 2 <= m[i].lineno &&
		    m[i].lineno - x->cut_lineno <= JOIN_GAP_LINES &&
		    (x->cut_lineno + 2 == m[i].lineno || x->cut[x->cut_len - 1] != '=') &&
		    (r = join_gap(x, &m[i])) < 0)
			break;
		if (d[i].parsed == 1)
			dmesg_unmap(dr, &d[i], &m[i]);
		if (d[i].parsed != 1 && x->cut_lineno + 1 != m[i].lineno &&
		    (!i || m[i - 1].lineno + 1 != m[i].lineno))
			hold_unseen(x, &m[i]);
		x->classified = d[i].parsed == 1 ? &dr->f : NULL;
		r = dmesg_line(x, dr->p, m[i].lineno, m[i].line, m[i].len, d[i].parsed, &dr->rec,
			       d[i].what);
		x->classified = NULL;
		/* a line held as a split one's first half heads no run: its second half may
		 * be among the lines alike that follow */
		if (r < 0 || d[i].parsed != 1 || d[i].host || x->st.records == before ||
		    x->cut_lineno == m[i].lineno) {
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
		if (d[i].detail)
			r = dmesg_repeat_details(x, m, d, i + 1, j);
		else
			r = ci_klog_repeat(x->ci, m[i + 1].lineno, m[j - 1].lineno, k);
		/* a run's records are alike: with a finding, its last line is held by none */
		if (r >= 0 && d[i].kind == KLOG_FINDING_NONE)
			hold_run_end(dr, m, j, n);
		i = j;
	}
	return r;
}

/* The format a kernel log text input was read as, and what told it, for the reader */
static void dmesg_format_detail(struct ci_input *x, const struct dmesg_stats *st)
{
	char reason[CI_FORMAT_REASON_MAX];
	const char *detail, *why = NULL;
	enum klog_format most = x->first_format;

	for (int i = 0; i < KLOG_FORMAT__MAX; i++)
		if (st->by_format[i] > st->by_format[most])
			most = (enum klog_format)i;
	if (x->plain) {
		ci_set_input_format_detail(x->ci, "plain",
					   "no timestamps: kernel lines from the 'Linux version' "
					   "banner on");
		return;
	}
	if (!x->timed) {
		if (x->untimed)
			ci_set_input_format_detail(x->ci, "plain",
						   "no timestamps or banner: the kernel messages "
						   "ci knows, as one boot");
		else if (x->other_programs)
			ci_set_input_format_detail(x->ci, "journal-short",
						   "journal or syslog lines, none from the kernel");
		else
			ci_set_input_format_detail(x->ci, "text", "no kernel log line found");
		return;
	}
	switch (most) {
	case KLOG_FORMAT_DMESG:
		detail = x->text_before || x->first_prefixed ? "console" : "dmesg";
		snprintf(reason, sizeof(reason), "[    0.000000] timestamps%s%s%s",
			 x->first_caller ? " with caller ids" : "",
			 x->first_level ? " after a level prefix" : "",
			 x->text_before || x->first_prefixed ? " among other text (a serial "
							       "console with noise)" : "");
		why = reason;
		break;
	case KLOG_FORMAT_DMESG_CTIME:
		detail = "dmesg-T";
		why = "[Wed Dec  2 13:01:21 2026] timestamps (dmesg -T)";
		break;
	case KLOG_FORMAT_DMESG_HUMAN:
		detail = "dmesg-H";
		why = "[Jan18 08:23] minutes and [  +0.000031] deltas (dmesg -H, --reltime)";
		break;
	case KLOG_FORMAT_DMESG_ISO:
		detail = "dmesg-iso";
		why = "ISO times with a comma (dmesg --time-format=iso)";
		break;
	case KLOG_FORMAT_JOURNAL_SHORT:
		/* journald's short output drops the kernel's own time; rsyslog keeps it */
		if (x->first_inner_time) {
			detail = "syslog";
			why = "month names, host, 'kernel:' and the kernel's [ s.us] timestamps "
			      "(rsyslog kern.log)";
		} else {
			detail = "journal-short";
			why = "month names, host and 'kernel:' (journalctl short, syslog)";
		}
		break;
	case KLOG_FORMAT_JOURNAL_MONOTONIC:
		detail = "journal-monotonic";
		why = "[ s.us] timestamps, host and 'kernel:' (journalctl -o short-monotonic)";
		break;
	case KLOG_FORMAT_JOURNAL_ISO:
		detail = "journal-iso";
		why = "ISO times, host and 'kernel:' (journalctl -o short-iso)";
		break;
	default:
		detail = "kmsg";
		why = "/dev/kmsg records";
	}
	ci_set_input_format_detail(x->ci, detail, why);
}

/* ci_input_text_fn: a line of kernel log text, parsed, @ctx the dmesg parser */
static int dmesg_text_line(struct ci_input *x, void *ctx, uint64_t lineno, const char *line,
			   size_t len)
{
	struct klog_rec rec;
	const char *what = NULL;
	int parsed = parse_indented(line, len, &rec, &what);

	return dmesg_line(x, ctx, lineno, line, len, parsed, &rec, what);
}

int ci_input_read_dmesg(struct ci_input *x, char *line, size_t len)
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
	/* a quoted-printable mail body is read decoded, all of it; another, from its head on */
	r = ci_input_read_qp(x, &line, &len, dmesg_text_line, p);
	while (r > 0) {
		r = dmesg_text_line(x, p, stream_lineno(x->s), line, len);
		if (r < 0)
			break;
		/* once it is a kernel log, only lines that may hold a finding need parsing,
		 * and those on every CPU */
		x->st.filtered = x->filter && x->st.records > 0 && !x->journal;
		if (x->st.filtered) {
			r = stream_scan(x->s, x->needles, x->threads - 1, &sops, &dr);
			if (r < 0)
				ci_input_stream_error(x, r);
			break;
		}
		r = ci_input_next_line(x, false, &line, &len);
	}
	if (r == 0)
		r = dmesg_parser_finish(p);
	if (r == 0)
		dmesg_format_detail(x, dmesg_parser_stats(p));
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
	ci_input_bad_line(k->x, k->line, e->what ? e->what : "malformed");
}

/*
 * Every line is parsed, the filter is not used: a continuation record is joined to the
 * record before it, which may hold no needle while the line they make does.
 */
int ci_input_read_kmsg(struct ci_input *x, char *line, size_t len)
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
			ci_input_stream_error(x, r);
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
int ci_input_journal_json_object(struct ci_input *x, uint64_t lineno, const char *line,
				 size_t len)
{
	static const char *const keys[] = { "MESSAGE", "_TRANSPORT", "SYSLOG_IDENTIFIER",
					    "__MONOTONIC_TIMESTAMP", "_BOOT_ID", "PRIORITY",
					    "_HOSTNAME" };
	enum { MESSAGE, TRANSPORT, IDENT, MONO, BOOT_ID, PRIORITY, HOST, N_KEYS };
	char *v[N_KEYS];
	size_t l[N_KEYS];
	int r;

	r = journal_json_fields(line, len, keys, N_KEYS, v, l);
	if (r == -EINVAL) {
		ci_input_bad_line(x, lineno, "not a JSON object");
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
				ci_input_bad_line(x, lineno, "bad __MONOTONIC_TIMESTAMP");
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

int ci_input_read_journal_json(struct ci_input *x, char *line, size_t len)
{
	int r;

	x->boot_id[0] = '\0';
	if (ci_input_json_spread(line, len))
		return ci_input_read_json_spread(x, line, len);
	do {
		r = ci_input_journal_json_object(x, stream_lineno(x->s), line, len);
		if (r < 0)
			break;
		r = ci_input_next_line(x, false, &line, &len);
	} while (r > 0);
	return r;
}
