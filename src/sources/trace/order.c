/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/array.h"
#include "tracedat.h"
#include "text.h"
#include "order.h"

/* An event line and the lines after it up to the next: [start, end) of the text */
struct order_rec {
	uint64_t ts_ns;
	size_t start, end;
};

struct order_text {
	char *text;
	size_t len;
	size_t preamble;	/* bytes before the first event line */
	struct order_rec *recs;
	size_t n;
	size_t at;		/* next byte to hand out, counting the preamble first */
	size_t rec, off;	/* the record being handed out, and the offset in it */
};

static int rec_cmp(const void *a, const void *b)
{
	const struct order_rec *x = a, *y = b;

	/* stable: equal times keep the file's order */
	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static ssize_t order_read(void *cookie, char *buf, size_t size)
{
	struct order_text *o = cookie;
	size_t done = 0;

	while (done < size) {
		const char *src;
		size_t left, k;

		if (o->at < o->preamble) {
			src = o->text + o->at;
			left = o->preamble - o->at;
		} else if (o->rec < o->n) {
			const struct order_rec *r = &o->recs[o->rec];

			src = o->text + r->start + o->off;
			left = r->end - r->start - o->off;
		} else {
			break;
		}
		k = left < size - done ? left : size - done;
		memcpy(buf + done, src, k);
		done += k;
		if (o->at < o->preamble) {
			o->at += k;
		} else {
			o->off += k;
			if (o->off == o->recs[o->rec].end - o->recs[o->rec].start) {
				o->rec++;
				o->off = 0;
			}
		}
	}
	return (ssize_t)done;
}

static int order_close(void *cookie)
{
	struct order_text *o = cookie;

	free(o->text);
	free(o->recs);
	free(o);
	return 0;
}

/*
 * The event time of an event line, false for any other line. A known event whose fields
 * do not decode (a request whose name's newline cut it) is a record of its own too, but
 * only lines that decode count where time goes back: the others give no event.
 */
static bool event_time(const char *line, size_t len, uint64_t *ret, bool *ret_decoded)
{
	return len <= KTRACE_ORDER_LINE_MAX && ktrace_line_time(line, len, ret, ret_decoded);
}

/* Reads the whole of @fd (@size bytes) into o->text, a newline after the last line */
static int read_all(int fd, size_t size, struct order_text *o)
{
	size_t got = 0;

	o->text = malloc(size + 1);
	if (!o->text)
		return -ENOMEM;
	while (got < size) {
		ssize_t n = pread(fd, o->text + got, size - got, (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	/* moved before other lines, a last line without newline would join them */
	if (got && o->text[got - 1] != '\n')
		o->text[got++] = '\n';
	o->len = got;
	return 0;
}

/* The records of o->text, and where time goes back */
static int split_records(struct order_text *o, struct ktrace_order *ret)
{
	size_t cap = 0, pos = 0;
	uint64_t lineno = 0, prev = 0;
	bool have_prev = false;

	while (pos < o->len) {
		const char *nl = memchr(o->text + pos, '\n', o->len - pos);
		size_t len = (size_t)(nl - (o->text + pos));
		uint64_t ts;
		bool decoded;

		lineno++;
		if (event_time(o->text + pos, len, &ts, &decoded)) {
			if (o->n == cap) {
				size_t ncap = cap ? cap * 2 : 1024;
				struct order_rec *nr = realloc(o->recs, ncap * sizeof(*nr));

				if (!nr)
					return -ENOMEM;
				o->recs = nr;
				cap = ncap;
			}
			if (o->n)
				o->recs[o->n - 1].end = pos;
			else
				o->preamble = pos;
			o->recs[o->n++] = (struct order_rec){ .ts_ns = ts, .start = pos };
			if (decoded && have_prev && ts < prev) {
				if (!ret->back_steps)
					ret->first_line = lineno;
				ret->back_steps++;
			}
			if (decoded) {
				prev = ts;
				have_prev = true;
			}
		}
		pos += len + 1;
	}
	if (o->n)
		o->recs[o->n - 1].end = o->len;
	else
		o->preamble = o->len;
	return 0;
}

int ktrace_order_fwrap(FILE **f, struct ktrace_order *ret)
{
	static const cookie_io_functions_t io = { .read = order_read, .close = order_close };
	struct order_text *o;
	struct stat st;
	FILE *nf;
	int fd = fileno(*f), r;

	*ret = (struct ktrace_order){ 0 };
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 0 ||
	    (uint64_t)st.st_size > KTRACE_ORDER_MAX)
		return 0;
	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	r = read_all(fd, (size_t)st.st_size, o);
	/* trace-cmd's binary trace.dat has no lines: its reader orders it */
	if (r >= 0 && tracedat_sniff(o->text, o->len)) {
		order_close(o);
		return 0;
	}
	if (r >= 0)
		r = split_records(o, ret);
	if (r < 0 || !ret->back_steps) {
		order_close(o);
		ret->checked = r >= 0;
		return r < 0 ? r : 0;
	}
	ret->checked = true;
	array_sort(o->recs, o->n, sizeof(*o->recs), rec_cmp);
	nf = fopencookie(o, "r", io);
	if (!nf) {
		order_close(o);
		return -ENOMEM;
	}
	fclose(*f);
	*f = nf;
	ret->sorted = true;
	return 0;
}

/* --- the reorder window --------------------------------------------------------------- */

/* A record's lines, each "u32 length, the refusal's text or NULL, the bytes" */
struct reorder_rec {
	uint64_t ts_ns, seq;
	unsigned int lineno;
	char *buf;
	size_t len, cap;
};

struct ktrace_reorder {
	struct ktrace_parser *p;
	struct reorder_rec *heap;	/* a min-heap by (time, input order) */
	size_t n, cap, bytes;
	struct reorder_rec cur;		/* the record lines go to, until the next event */
	bool have_cur;
	uint64_t seq, last_in, last_out;
	bool any_in, any_out;
	struct ktrace_stats order;	/* only the order counts */
};

int ktrace_reorder_new(struct ktrace_parser *p, struct ktrace_reorder **ret)
{
	struct ktrace_reorder *o = calloc(1, sizeof(*o));

	if (!o)
		return -ENOMEM;
	o->p = p;
	*ret = o;
	return 0;
}

struct ktrace_reorder *ktrace_reorder_free(struct ktrace_reorder *o)
{
	if (!o)
		return NULL;
	for (size_t i = 0; i < o->n; i++)
		free(o->heap[i].buf);
	free(o->heap);
	free(o->cur.buf);
	free(o);
	return NULL;
}

static bool rec_before(const struct reorder_rec *a, const struct reorder_rec *b)
{
	return a->ts_ns != b->ts_ns ? a->ts_ns < b->ts_ns : a->seq < b->seq;
}

static void heap_swap(struct reorder_rec *h, size_t i, size_t j)
{
	struct reorder_rec t = h[i];

	h[i] = h[j];
	h[j] = t;
}

static void heap_up(struct reorder_rec *h, size_t i)
{
	while (i && rec_before(&h[i], &h[(i - 1) / 2])) {
		heap_swap(h, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void heap_down(struct reorder_rec *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;

		if (l < n && rec_before(&h[l], &h[m]))
			m = l;
		if (l + 1 < n && rec_before(&h[l + 1], &h[m]))
			m = l + 1;
		if (m == i)
			return;
		heap_swap(h, i, m);
		i = m;
	}
}

/* Hands @r's lines to the parser, numbered as in the input */
static int rec_out(struct ktrace_reorder *o, const struct reorder_rec *r)
{
	size_t at = 0;
	unsigned int lineno = r->lineno;
	int k;

	while (at < r->len) {
		uint32_t len;
		const char *what;

		memcpy(&len, r->buf + at, sizeof(len));
		memcpy(&what, r->buf + at + sizeof(len), sizeof(what));
		at += sizeof(len) + sizeof(what);
		ktrace_parser_set_line(o->p, lineno++);
		if (what) {
			ktrace_parser_skip_line(o->p, what);
			continue;
		}
		k = ktrace_parser_feed(o->p, r->buf + at, len);
		at += len;
		if (k < 0)
			return k;
	}
	return 0;
}

/* Lets the oldest record out */
static int pop_oldest(struct ktrace_reorder *o)
{
	struct reorder_rec r = o->heap[0];
	int k;

	o->heap[0] = o->heap[--o->n];
	heap_down(o->heap, o->n, 0);
	o->bytes -= r.cap + sizeof(r);
	/* the newest let out: anything older coming later is out of order */
	if (!o->any_out || r.ts_ns > o->last_out)
		o->last_out = r.ts_ns;
	o->any_out = true;
	k = rec_out(o, &r);
	free(r.buf);
	return k;
}

static int rec_append(struct reorder_rec *r, const char *line, uint32_t len, const char *what)
{
	size_t need = r->len + sizeof(len) + sizeof(what) + len;

	if (need > r->cap) {
		size_t ncap = r->cap ? r->cap : 256;
		char *nb;

		while (ncap < need)
			ncap *= 2;
		nb = realloc(r->buf, ncap);
		if (!nb)
			return -ENOMEM;
		r->buf = nb;
		r->cap = ncap;
	}
	memcpy(r->buf + r->len, &len, sizeof(len));
	memcpy(r->buf + r->len + sizeof(len), &what, sizeof(what));
	r->len += sizeof(len) + sizeof(what);
	if (len)
		memcpy(r->buf + r->len, line, len);
	r->len += len;
	return 0;
}

/* A line that is not an event line: to the record before it, or straight out */
static int other_line(struct ktrace_reorder *o, const char *line, size_t len,
		      const char *what, unsigned int lineno)
{
	if (!o->have_cur) {
		ktrace_parser_set_line(o->p, lineno);
		if (what) {
			ktrace_parser_skip_line(o->p, what);
			return 0;
		}
		return ktrace_parser_feed(o->p, line, len);
	}
	return rec_append(&o->cur, line, (uint32_t)len, what);
}

/* The record before is whole: into the window */
static int push_cur(struct ktrace_reorder *o)
{
	if (!o->have_cur)
		return 0;
	if (o->n == o->cap) {
		size_t ncap = o->cap ? o->cap * 2 : 256;
		struct reorder_rec *nh = realloc(o->heap, ncap * sizeof(*nh));

		if (!nh)
			return -ENOMEM;
		o->heap = nh;
		o->cap = ncap;
	}
	o->heap[o->n] = o->cur;
	o->bytes += o->cur.cap + sizeof(o->cur);
	heap_up(o->heap, o->n++);
	memset(&o->cur, 0, sizeof(o->cur));
	o->have_cur = false;
	return 0;
}

int ktrace_reorder_feed(struct ktrace_reorder *o, const char *line, size_t len,
			 unsigned int lineno)
{
	uint64_t ts;
	bool decoded;
	int k;

	if (len > KTRACE_ORDER_LINE_MAX || !ktrace_line_time(line, len, &ts, &decoded))
		return other_line(o, line, len, NULL, lineno);

	/* counted as the events that come of them: a line that decodes to none is dropped */
	if (decoded && o->any_in && ts < o->last_in)
		o->order.back_steps++;
	if (decoded) {
		o->last_in = ts;
		o->any_in = true;
	}
	k = push_cur(o);
	if (k < 0)
		return k;
	/* the window full: the oldest out */
	while (o->n && (o->n >= KTRACE_REORDER_RECORDS || o->bytes >= KTRACE_REORDER_BYTES)) {
		k = pop_oldest(o);
		if (k < 0)
			return k;
	}
	if (decoded && o->any_out && ts < o->last_out && !o->order.late++)
		o->order.late_line = lineno;
	o->cur = (struct reorder_rec){ .ts_ns = ts, .seq = o->seq++, .lineno = lineno };
	o->have_cur = true;
	return rec_append(&o->cur, line, (uint32_t)len, NULL);
}

int ktrace_reorder_skip_line(struct ktrace_reorder *o, const char *what, unsigned int lineno)
{
	return other_line(o, NULL, 0, what, lineno);
}

int ktrace_reorder_finish(struct ktrace_reorder *o, struct ktrace_stats *ret_stats)
{
	int r = push_cur(o), k;

	while (o->n) {
		k = pop_oldest(o);
		if (k < 0 && r == 0)
			r = k;
	}
	k = ktrace_parser_finish(o->p);
	if (k < 0 && r == 0)
		r = k;
	if (ret_stats) {
		*ret_stats = *ktrace_parser_stats(o->p);
		ret_stats->back_steps = o->order.back_steps;
		ret_stats->late = o->order.late;
		ret_stats->late_line = o->order.late_line;
	}
	return r;
}
