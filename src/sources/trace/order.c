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

/* The event time of an event line, false for any other line */
static bool event_time(const char *line, size_t len, uint64_t *ret)
{
	struct ktrace_line l;
	const char *what;

	if (len > KTRACE_ORDER_LINE_MAX || ktrace_parse_line(line, len, &l, &what) < 0)
		return false;
	if (l.kind != KTRACE_LINE_EVENT || l.ev.kind == KTRACE_EV_LOST)
		return false;
	*ret = l.ev.ts_ns;
	return true;
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

		lineno++;
		if (event_time(o->text + pos, len, &ts)) {
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
			if (have_prev && ts < prev) {
				if (!ret->back_steps)
					ret->first_line = lineno;
				ret->back_steps++;
			}
			prev = ts;
			have_prev = true;
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
