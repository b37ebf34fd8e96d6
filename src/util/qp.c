/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/parse-num.h"
#include "qp.h"

/* "=XX" in upper-case hex, as an encoder writes it (RFC 2045 6.7 (1)): XX, or -1 */
static int encoded_byte(const char *p, const char *end)
{
	if (end - p < 3 || p[0] != '=')
		return -1;
	for (int i = 1; i <= 2; i++)
		if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'A' && p[i] <= 'F')))
			return -1;
	return hex_digit(p[1]) * 16 + hex_digit(p[2]);
}

/*
 * Whether the escape at @p is one an encoder writes and plain text hardly holds: '='
 * itself, a blank protected at a line's end, a newline with text after it, a UTF-8
 * sequence of two escapes or more. "reg=0A" or "mask=FF " are no such escapes.
 */
static bool qp_escape(const char *p, const char *end)
{
	int v = encoded_byte(p, end), next;

	switch (v) {
	case '=':
		return true;
	case ' ':
	case '\t':
		return p + 3 == end;
	case '\n':
	case '\r':
		return p + 3 < end;
	default:
		next = encoded_byte(p + 3, end);
		return v >= 0xc2 && v <= 0xf4 && next >= 0x80 && next <= 0xbf;
	}
}

static bool has_html_break(const char *s, size_t len)
{
	static const char *const marks[] = { "<br", "<BR", "<div", "</div", "</p>", "<DIV" };

	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (memmem(s, len, marks[i], strlen(marks[i])))
			return true;
	return false;
}

void qp_sniff_line(struct qp_sniff *s, const char *line, size_t len)
{
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	s->lines++;
	if (len > QP_LINE_MAX) {
		s->too_long = true;
		return;
	}
	if (len && line[len - 1] == '=')
		s->soft++;
	for (size_t i = 0; i + 2 < len; i++) {
		if (line[i] == '=' && qp_escape(line + i, line + len)) {
			s->escaped++;
			break;
		}
	}
	if (has_html_break(line, len))
		s->html++;
}

bool qp_sniff_is_qp(const struct qp_sniff *s)
{
	return !s->too_long && s->escaped >= 2 && s->escaped + s->soft >= 4;
}

bool qp_sniff_is_html(const struct qp_sniff *s)
{
	return qp_sniff_is_qp(s) && s->html >= 2;
}

uint64_t qp_line_at(const struct qp_line *line, size_t off)
{
	size_t k = 0;

	while (k < line->n_starts && line->starts[k] <= off)
		k++;
	return line->first + k;
}

enum html_state { HTML_TEXT, HTML_TAG, HTML_ENTITY };

struct qp_decoder {
	char *buf;
	size_t max_len, len;
	uint64_t lineno;		/* the physical line being decoded */
	uint64_t first;
	size_t starts[QP_MAP_MAX];
	size_t n_starts;
	bool soft;			/* the last physical line ended in a soft break */
	qp_line_fn fn;
	void *userdata;
	int err;
	/* an HTML part */
	bool html;
	enum html_state hs;
	char tok[16];
	size_t tok_len;
};

int qp_decoder_new(size_t max_len, bool html, struct qp_decoder **ret)
{
	struct qp_decoder *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->buf = malloc(max_len + 1);
	if (!d->buf) {
		free(d);
		return -ENOMEM;
	}
	d->max_len = max_len;
	d->html = html;
	*ret = d;
	return 0;
}

struct qp_decoder *qp_decoder_free(struct qp_decoder *d)
{
	if (d) {
		free(d->buf);
		free(d);
	}
	return NULL;
}

static void end_line(struct qp_decoder *d)
{
	struct qp_line l;

	while (d->len && d->buf[d->len - 1] == '\r')
		d->len--;
	d->buf[d->len] = '\0';
	l = (struct qp_line){ d->buf, d->len, d->first, d->starts, d->n_starts };
	if (!d->err) {
		int r = d->fn(d->userdata, &l);

		d->err = r < 0 ? r : 0;
	}
	d->len = 0;
	d->n_starts = 0;
	d->first = d->lineno;
}

static void put(struct qp_decoder *d, char c)
{
	/* a mail client's no-break space (U+00A0) for a run of blanks is a blank */
	if (c == (char)0xa0 && d->len && d->buf[d->len - 1] == (char)0xc2) {
		d->buf[d->len - 1] = ' ';
		return;
	}
	/* a decoded line is bounded like any line: a longer one is cut */
	if (d->len >= d->max_len)
		end_line(d);
	d->buf[d->len++] = c;
}

static void puts_n(struct qp_decoder *d, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		put(d, s[i]);
}

static void html_tag(struct qp_decoder *d)
{
	char name[8];
	size_t i = 0, n = 0;

	if (i < d->tok_len && d->tok[i] == '/')
		i++;
	while (i < d->tok_len && n < sizeof(name) - 1 && d->tok[i] != ' ' && d->tok[i] != '/' &&
	       d->tok[i] != '\t')
		name[n++] = (char)(d->tok[i++] | 0x20);
	name[n] = '\0';
	/* a block's start or end ends a line of text; "<div><br></div>" is one empty line */
	if (strcmp(name, "br") == 0 || ((strcmp(name, "div") == 0 || strcmp(name, "p") == 0) && d->len))
		end_line(d);
}

static void html_entity(struct qp_decoder *d)
{
	static const struct { const char *name; char c; } entities[] = {
		{ "gt", '>' }, { "lt", '<' }, { "amp", '&' }, { "quot", '"' },
		{ "#39", '\'' }, { "apos", '\'' }, { "nbsp", ' ' }, { "#160", ' ' },
	};

	for (size_t i = 0; i < sizeof(entities) / sizeof(entities[0]); i++) {
		if (strlen(entities[i].name) == d->tok_len &&
		    memcmp(entities[i].name, d->tok, d->tok_len) == 0) {
			put(d, entities[i].c);
			return;
		}
	}
	put(d, '&');
	puts_n(d, d->tok, d->tok_len);
	put(d, ';');
}

/* A decoded byte, through the HTML part's reading when there is one */
static void out(struct qp_decoder *d, char c)
{
	if (!d->html) {
		put(d, c);
		return;
	}
	switch (d->hs) {
	case HTML_TAG:
		if (c == '>') {
			html_tag(d);
			d->hs = HTML_TEXT;
		} else if (d->tok_len < sizeof(d->tok)) {
			d->tok[d->tok_len++] = c;
		}
		return;
	case HTML_ENTITY:
		if (c == ';') {
			html_entity(d);
			d->hs = HTML_TEXT;
			return;
		}
		if (d->tok_len < 6 && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				       (c >= '0' && c <= '9') || c == '#')) {
			d->tok[d->tok_len++] = c;
			return;
		}
		/* no entity: the text as it stands */
		d->hs = HTML_TEXT;
		put(d, '&');
		puts_n(d, d->tok, d->tok_len);
		break;
	case HTML_TEXT:
		break;
	}
	if (c == '<' || c == '&') {
		d->hs = c == '<' ? HTML_TAG : HTML_ENTITY;
		d->tok_len = 0;
		return;
	}
	put(d, c);
}

/* A hard line end, or an encoded newline */
static void hard_end(struct qp_decoder *d)
{
	if (d->html && d->hs == HTML_ENTITY) {
		put(d, '&');
		puts_n(d, d->tok, d->tok_len);
	}
	d->hs = HTML_TEXT;
	end_line(d);
}

int qp_decoder_feed(struct qp_decoder *d, uint64_t lineno, const char *line, size_t len,
		    qp_line_fn fn, void *userdata)
{
	bool soft;

	d->fn = fn;
	d->userdata = userdata;
	d->err = 0;
	d->lineno = lineno;
	if (!d->soft) {
		d->first = lineno;
		d->n_starts = 0;
	} else if (d->n_starts < QP_MAP_MAX) {
		d->starts[d->n_starts++] = d->len;
	}
	/* trailing blanks are the transport's (RFC 2045 6.7 (3)), not the text's */
	while (len && (line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
		len--;
	soft = len && line[len - 1] == '=';
	if (soft)
		len--;
	for (size_t i = 0; i < len; i++) {
		int hi, lo;

		if (line[i] == '=' && i + 2 < len && (hi = hex_digit(line[i + 1])) >= 0 &&
		    (lo = hex_digit(line[i + 2])) >= 0) {
			char c = (char)(hi * 16 + lo);

			i += 2;
			if (c == '\n')
				hard_end(d);
			else
				out(d, c);
			continue;
		}
		out(d, line[i]);
	}
	d->soft = soft;
	if (!soft)
		hard_end(d);
	return d->err;
}

int qp_decoder_finish(struct qp_decoder *d, qp_line_fn fn, void *userdata)
{
	d->fn = fn;
	d->userdata = userdata;
	d->err = 0;
	if (d->soft && (d->len || d->n_starts))
		hard_end(d);
	d->soft = false;
	return d->err;
}
