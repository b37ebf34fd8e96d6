/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/linereader.h"
#include "util/macro.h"
#include "util/parse-num.h"
#include "kmsg.h"

#define KMSG_LINE_MAX LINEREADER_DEFAULT_MAX

const char *klog_format_name(enum klog_format f)
{
	static const char *const names[KLOG_FORMAT__MAX] = {
		[KLOG_FORMAT_KMSG] = "kmsg",
		[KLOG_FORMAT_DMESG] = "dmesg",
		[KLOG_FORMAT_DMESG_CTIME] = "dmesg-ctime",
		[KLOG_FORMAT_DMESG_ISO] = "dmesg-iso",
		[KLOG_FORMAT_DMESG_HUMAN] = "dmesg-human",
		[KLOG_FORMAT_JOURNAL_SHORT] = "journal-short",
		[KLOG_FORMAT_JOURNAL_MONOTONIC] = "journal-short-monotonic",
		[KLOG_FORMAT_JOURNAL_ISO] = "journal-short-iso",
	};

	if ((unsigned int)f >= KLOG_FORMAT__MAX)
		return "invalid";
	return names[f];
}

size_t kmsg_unescape(const char *src, size_t len, char *dst)
{
	size_t i = 0, o = 0;

	/* the kernel writes '\' itself as \x5c, so every "\x" starts an escape */
	while (i < len) {
		if (src[i] == '\\' && i + 3 < len && src[i + 1] == 'x' &&
		    hex_digit(src[i + 2]) >= 0 && hex_digit(src[i + 3]) >= 0) {
			dst[o++] = (char)(hex_digit(src[i + 2]) << 4 | hex_digit(src[i + 3]));
			i += 4;
			continue;
		}
		dst[o++] = src[i++];
	}
	return o;
}

static int field_u64(const char *s, const char *end, uint64_t *ret)
{
	char buf[32];
	size_t n = (size_t)(end - s);

	if (n == 0 || n >= sizeof(buf) || s[0] < '0' || s[0] > '9')
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return parse_u64(buf, 10, ret);
}

int kmsg_parse_line(char *line, size_t len, struct klog_rec *ret_rec,
		    const char **reterr_what)
{
	struct klog_rec rec = { .format = KLOG_FORMAT_KMSG, .facility = -1, .level = -1 };
	char *end, *semi, *p, *comma;
	uint64_t prio, v;
	int field;

	if (len && line[len - 1] == '\r')
		len--;
	end = line + len;
	if (memchr(line, '\0', len)) {
		*reterr_what = "line contains a NUL byte";
		return -EINVAL;
	}
	if (len && line[0] == ' ') {
		char *eq = memchr(line + 1, '=', len - 1);

		if (!eq || eq == line + 1) {
			*reterr_what = "dictionary line is not KEY=value";
			return -EINVAL;
		}
		rec.dict = line + 1;
		rec.dict_len = kmsg_unescape(line + 1, len - 1, line + 1);
		ret_rec->dict = rec.dict;
		ret_rec->dict_len = rec.dict_len;
		return 1;
	}
	semi = memchr(line, ';', len);
	if (!semi) {
		*reterr_what = "not a kmsg record (no ';' after the header)";
		return -EINVAL;
	}
	/* "prio,seq,usec,flags[,caller=T123][,more]": fields may be added at the end */
	for (p = line, field = 0; p <= semi; p = comma + 1, field++) {
		comma = memchr(p, ',', (size_t)(semi - p));
		if (!comma)
			comma = semi;
		switch (field) {
		case 0:
			if (field_u64(p, comma, &prio) < 0 || prio > 0xffff) {
				*reterr_what = "kmsg priority is not a number";
				return -EINVAL;
			}
			rec.facility = (int)(prio >> 3);
			rec.level = (int)(prio & 7);
			break;
		case 1:
			if (field_u64(p, comma, &rec.seq) < 0) {
				*reterr_what = "kmsg sequence number is not a number";
				return -EINVAL;
			}
			rec.has_seq = true;
			break;
		case 2:
			if (field_u64(p, comma, &rec.usec) < 0) {
				*reterr_what = "kmsg timestamp is not a number";
				return -EINVAL;
			}
			rec.has_monotonic = true;
			rec.ts = (double)rec.usec / 1e6;
			break;
		case 3:
			if (comma - p != 1) {
				*reterr_what = "kmsg flags field is not one character";
				return -EINVAL;
			}
			rec.kmsg_flags = *p;
			break;
		default:
			if (comma - p > 8 && memcmp(p, "caller=", 7) == 0 &&
			    (p[7] == 'T' || p[7] == 'C') &&
			    field_u64(p + 8, comma, &v) == 0 && v <= UINT32_MAX) {
				rec.caller_kind = p[7];
				rec.caller_id = (uint32_t)v;
			}
			break;
		}
		if (comma == semi)
			break;
	}
	if (field < 3) {
		*reterr_what = "kmsg header has fewer than 4 fields";
		return -EINVAL;
	}
	rec.msg = semi + 1;
	rec.msg_len = kmsg_unescape(semi + 1, (size_t)(end - semi - 1), semi + 1);
	*ret_rec = rec;
	return 0;
}

/* --- the push parser ---------------------------------------------------------------- */

enum pending_state {
	PENDING_NONE,
	PENDING_RECORD,
	PENDING_DROPPED,	/* malformed header: its dictionary lines go with it */
};

struct kmsg_parser {
	char *path;
	struct klog_parser_ops ops;
	void *userdata;
	enum pending_state state;
	struct klog_rec rec;	/* msg points into line */
	char *line;
	size_t line_cap;
	char *next;		/* the record line after it, parsed before it goes out */
	size_t next_cap;
	char *dict;
	size_t dict_len, dict_cap;
	bool have_seq;
	uint64_t last_seq;
	unsigned int lineno;
	struct kmsg_stats stats;
};

int kmsg_parser_new(const char *path, const struct klog_parser_ops *ops, void *userdata,
		    struct kmsg_parser **ret_parser)
{
	struct kmsg_parser *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->path = strdup(path ? path : "");
	if (!p->path) {
		free(p);
		return -ENOMEM;
	}
	if (ops)
		p->ops = *ops;
	p->userdata = userdata;
	*ret_parser = p;
	return 0;
}

struct kmsg_parser *kmsg_parser_free(struct kmsg_parser *p)
{
	if (!p)
		return NULL;
	free(p->line);
	free(p->next);
	free(p->dict);
	free(p->path);
	free(p);
	return NULL;
}

const struct kmsg_stats *kmsg_parser_stats(const struct kmsg_parser *p)
{
	return &p->stats;
}

static void bad_line(struct kmsg_parser *p, const char *what)
{
	struct kt_err err;

	p->stats.malformed++;
	if (!p->ops.bad_line)
		return;
	kt_err_set(&err, p->path, p->lineno, what);
	p->ops.bad_line(p->userdata, &err);
}

static int emit(struct kmsg_parser *p)
{
	int r = 0;

	if (p->state == PENDING_RECORD) {
		p->rec.dict = p->dict_len ? p->dict : NULL;
		p->rec.dict_len = p->dict_len;
		p->stats.records++;
		if (p->ops.record)
			r = p->ops.record(p->userdata, &p->rec);
	}
	p->state = PENDING_NONE;
	p->dict_len = 0;
	return r < 0 ? r : 0;
}

int kmsg_parser_skip_line(struct kmsg_parser *p, const char *what)
{
	int r;

	p->lineno++;
	p->stats.lines++;
	r = emit(p);
	p->state = PENDING_DROPPED;
	bad_line(p, what);
	return r;
}

static int dict_reserve(struct kmsg_parser *p, size_t n)
{
	size_t need = p->dict_len + n + 1, ncap;
	char *nd;

	if (need <= p->dict_cap)
		return 0;
	ncap = p->dict_cap ? p->dict_cap : 128;
	while (ncap < need)
		ncap *= 2;
	nd = realloc(p->dict, ncap);
	if (!nd)
		return -ENOMEM;
	p->dict = nd;
	p->dict_cap = ncap;
	return 0;
}

static int feed_dict(struct kmsg_parser *p, const char *line, size_t len)
{
	struct klog_rec rec;
	const char *what;
	char *d;
	int r;

	if (p->state == PENDING_NONE) {
		bad_line(p, "dictionary line without a record before it");
		return 0;
	}
	if (p->state == PENDING_DROPPED)
		return 0;	/* its record was reported already */
	r = dict_reserve(p, len);
	if (r < 0)
		return r;
	/* decode in the dictionary buffer itself, past what it holds */
	d = p->dict + p->dict_len;
	memcpy(d, line, len);
	r = kmsg_parse_line(d, len, &rec, &what);
	if (r < 0) {
		bad_line(p, what);
		return 0;
	}
	memmove(d, rec.dict, rec.dict_len);
	d[rec.dict_len] = '\n';
	p->dict_len += rec.dict_len + 1;
	p->stats.dict_lines++;
	return 0;
}

static int buf_reserve(char **buf, size_t *cap, size_t need)
{
	size_t ncap = *cap > 256 ? *cap : 256;
	char *nb;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	nb = realloc(*buf, ncap);
	if (!nb)
		return -ENOMEM;
	*buf = nb;
	*cap = ncap;
	return 0;
}

/*
 * Is @n, the record line after the pending record, a fragment of the same line?
 * (Documentation/ABI/testing/dev-kmsg; kernel/printk/printk.c, devkmsg_read() and
 * msg_print_ext_header() / info_print_ext_header().)
 *
 * 3.5 to 4.8: a line whose fragments printk could not merge in its buffer (another
 * CPU printed meanwhile, the buffer was full) is stored as several records; the first
 * is flagged 'c' and each one after it '+', the kernel deciding from the record before
 * it in the log. A '+' is joined to the record before it.
 *
 * 4.9 and later ("printk: remove games with previous record flags") emit no '+': the
 * flag is 'c' for a record that began with KERN_CONT and could not be added to the
 * line it continues, '-' otherwise. From 5.10 (the lockless ring buffer) that is a
 * pr_cont() whose line was already closed: another record was stored in between, the
 * line outgrew its record (a long "Modules linked in:"), or it had ended with a
 * newline. So the record before a 'c' is often another task's. With
 * CONFIG_PRINTK_CALLER (5.1+, "caller=T123") a 'c' from the same caller as the record
 * before it is joined; without caller ids a 'c' is left on its own, as dmesg(1) and
 * journald do, since nothing tells which earlier record it continues. (On 3.5 to 4.8,
 * which have no caller ids either, a 'c' begins its line: not joined to what precedes
 * it.)
 *
 * Never across a gap in the sequence numbers: the record in between is lost.
 */
static bool kmsg_continues(const struct kmsg_parser *p, const struct klog_rec *n)
{
	const struct klog_rec *prev = &p->rec;
	bool both_callers = prev->caller_kind && n->caller_kind;
	bool same_caller = both_callers && prev->caller_kind == n->caller_kind &&
			   prev->caller_id == n->caller_id;

	if (p->state != PENDING_RECORD || !p->have_seq || n->seq != p->last_seq + 1)
		return false;
	/* what a joined record can hold: as much as one line */
	if ((size_t)(prev->msg - p->line) + prev->msg_len + n->msg_len > KMSG_LINE_MAX)
		return false;
	if (n->kmsg_flags == '+')
		return !both_callers || same_caller;
	return n->kmsg_flags == 'c' && same_caller;
}

/* Appends the fragment's text to the pending record's, in p->line past its end */
static int kmsg_join(struct kmsg_parser *p, const struct klog_rec *n)
{
	size_t at = (size_t)(p->rec.msg - p->line);
	int r = buf_reserve(&p->line, &p->line_cap, at + p->rec.msg_len + n->msg_len + 1);

	if (r < 0)
		return r;
	memcpy(p->line + at + p->rec.msg_len, n->msg, n->msg_len);
	p->rec.msg = p->line + at;
	p->rec.msg_len += n->msg_len;
	p->line[at + p->rec.msg_len] = '\0';
	p->stats.joined++;
	return 0;
}

int kmsg_parser_feed(struct kmsg_parser *p, const char *line, size_t len)
{
	struct klog_rec rec;
	const char *what;
	char *tmp;
	size_t tcap;
	int r, e;

	p->lineno++;
	p->stats.lines++;
	if (len && line[0] == ' ') {
		if (len > KMSG_LINE_MAX) {
			bad_line(p, "line too long");
			return 0;
		}
		return feed_dict(p, line, len);
	}

	if (len > KMSG_LINE_MAX) {
		/* a record line completes the one before: its text may go now */
		e = emit(p);
		p->state = PENDING_DROPPED;
		bad_line(p, "line too long");
		return e;
	}
	/* parse a copy: escapes are decoded in place and the record outlives @line */
	r = buf_reserve(&p->next, &p->next_cap, len + 1);
	if (r < 0)
		return r;
	memcpy(p->next, line, len);
	p->next[len] = '\0';
	r = kmsg_parse_line(p->next, len, &rec, &what);
	if (r != 0) {
		e = emit(p);
		p->state = PENDING_DROPPED;
		bad_line(p, r < 0 ? what : "dictionary line without a record before it");
		return e;
	}
	if (kmsg_continues(p, &rec)) {
		/* one more fragment of the pending record's line: it waits on */
		p->last_seq = rec.seq;
		return kmsg_join(p, &rec);
	}
	e = emit(p);
	if (p->have_seq && rec.seq > p->last_seq + 1)
		p->stats.seq_gaps += rec.seq - p->last_seq - 1;
	else if (p->have_seq && rec.seq <= p->last_seq)
		p->stats.seq_restarts++;
	p->have_seq = true;
	p->last_seq = rec.seq;
	/* the record's buffer becomes the pending one's: rec.msg points into it */
	tmp = p->line, p->line = p->next, p->next = tmp;
	tcap = p->line_cap, p->line_cap = p->next_cap, p->next_cap = tcap;
	p->rec = rec;
	p->state = PENDING_RECORD;
	return e;
}

int kmsg_parser_finish(struct kmsg_parser *p)
{
	return emit(p);
}

DEFINE_LINEREADER_SINK(kmsg_sink, struct kmsg_parser, kmsg_parser, "record handler failed");

int kmsg_read_file(FILE *f, const char *path, const struct klog_parser_ops *ops,
		   void *userdata, struct kmsg_stats *ret_stats, struct kt_err *reterr)
{
	struct kmsg_parser *p;
	int r;

	r = kmsg_parser_new(path, ops, userdata, &p);
	if (r < 0)
		return r;
	r = linereader_feed(f, path, KMSG_LINE_MAX, &kmsg_sink, p, reterr);
	if (r >= 0 && ret_stats)
		*ret_stats = p->stats;
	kmsg_parser_free(p);
	return r;
}
