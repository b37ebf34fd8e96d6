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
		[KLOG_FORMAT_JOURNAL_SHORT] = "journal-short",
		[KLOG_FORMAT_JOURNAL_MONOTONIC] = "journal-short-monotonic",
		[KLOG_FORMAT_JOURNAL_ISO] = "journal-short-iso",
	};

	if ((unsigned int)f >= KLOG_FORMAT__MAX)
		return "invalid";
	return names[f];
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

size_t kmsg_unescape(const char *src, size_t len, char *dst)
{
	size_t i = 0, o = 0;

	/* the kernel writes '\' itself as \x5c, so every "\x" starts an escape */
	while (i < len) {
		if (src[i] == '\\' && i + 3 < len && src[i + 1] == 'x' &&
		    hexval(src[i + 2]) >= 0 && hexval(src[i + 3]) >= 0) {
			dst[o++] = (char)(hexval(src[i + 2]) << 4 | hexval(src[i + 3]));
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

int kmsg_parser_feed(struct kmsg_parser *p, const char *line, size_t len)
{
	struct klog_rec rec;
	const char *what;
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

	/* a record line completes the one before: its text may go now */
	e = emit(p);
	if (len > KMSG_LINE_MAX) {
		p->state = PENDING_DROPPED;
		bad_line(p, "line too long");
		return e;
	}
	if (len + 1 > p->line_cap) {
		size_t ncap = len + 1 > 256 ? len + 1 : 256;
		char *nl = realloc(p->line, ncap);

		if (!nl)
			return -ENOMEM;
		p->line = nl;
		p->line_cap = ncap;
	}
	/* parse a copy: escapes are decoded in place and the record outlives @line */
	memcpy(p->line, line, len);
	p->line[len] = '\0';
	r = kmsg_parse_line(p->line, len, &rec, &what);
	if (r != 0) {
		p->state = PENDING_DROPPED;
		bad_line(p, r < 0 ? what : "dictionary line without a record before it");
		return e;
	}
	if (p->have_seq && rec.seq > p->last_seq + 1)
		p->stats.seq_gaps += rec.seq - p->last_seq - 1;
	else if (p->have_seq && rec.seq <= p->last_seq)
		p->stats.seq_restarts++;
	p->have_seq = true;
	p->last_seq = rec.seq;
	p->rec = rec;
	p->state = PENDING_RECORD;
	return e;
}

int kmsg_parser_finish(struct kmsg_parser *p)
{
	return emit(p);
}

int kmsg_read_file(FILE *f, const char *path, const struct klog_parser_ops *ops,
		   void *userdata, struct kmsg_stats *ret_stats, struct kt_err *reterr)
{
	struct kmsg_parser *p;
	const char *what;
	struct linereader lr;
	char *line;
	size_t len;
	int r;

	r = kmsg_parser_new(path, ops, userdata, &p);
	if (r < 0)
		return r;
	linereader_init(&lr, f, KMSG_LINE_MAX);
	for (;;) {
		r = linereader_next(&lr, &line, &len);
		if (r == 0)
			break;
		if (r == -E2BIG || r == -EBADMSG) {
			what = r == -E2BIG ? "line too long" : "line contains a NUL byte";
			r = kmsg_parser_skip_line(p, what);
			if (r < 0) {
				kt_err_set(reterr, path, lr.lineno,
					   "record handler failed");
				goto out;
			}
			continue;
		}
		if (r < 0) {
			kt_err_set(reterr, path, lr.lineno, "read error");
			goto out;
		}
		r = kmsg_parser_feed(p, line, len);
		if (r < 0) {
			kt_err_set(reterr, path, lr.lineno, "record handler failed");
			goto out;
		}
	}
	r = kmsg_parser_finish(p);
	if (r < 0) {
		kt_err_set(reterr, path, lr.lineno, "record handler failed");
		goto out;
	}
	if (ret_stats)
		*ret_stats = p->stats;
out:
	linereader_done(&lr);
	kmsg_parser_free(p);
	return r;
}

int kmsg_read(const struct kt_root *root, const char *relpath,
	      const struct klog_parser_ops *ops, void *userdata,
	      struct kmsg_stats *ret_stats, struct kt_err *reterr)
{
	_cleanup_fclose_ FILE *f = NULL;
	int r;

	if (!relpath)
		relpath = "capture/kmsg.raw";
	r = root_fopen(root, relpath, &f);
	if (r < 0) {
		kt_err_set(reterr, relpath, 0, "cannot open");
		return r;
	}
	return kmsg_read_file(f, relpath, ops, userdata, ret_stats, reterr);
}
