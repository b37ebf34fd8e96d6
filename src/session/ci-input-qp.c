/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A kernel log kept as a quoted-printable mail body (a mailing-list archive's): told
 * from the input's first lines, read decoded as a whole, each decoded line's findings
 * told by the physical line of the input that holds their message.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "session/ci-input-private.h"
#include "sources/stream.h"
#include "util/qp.h"

/* The first lines, held while they tell whether the input is quoted-printable */
struct qp_head {
	char text[QP_SNIFF_LINES][QP_LINE_MAX + 2];
	size_t len[QP_SNIFF_LINES];
	uint64_t lineno[QP_SNIFF_LINES];
	size_t n;
};

struct qp_read {
	struct ci_input *x;
	ci_input_text_fn fn;
	void *ctx;
	uint64_t decoded;		/* decoded lines so far */
};

static int on_decoded(void *userdata, const struct qp_line *l)
{
	struct qp_read *q = userdata;
	struct ci_input *x = q->x;
	int r;

	x->qp_line = l;
	x->qp_lineno = ++q->decoded;
	r = q->fn(x, q->ctx, q->decoded, l->text, l->len);
	x->qp_line = NULL;
	return r;
}

/* @more: whether @line is a line read after @h's */
static int read_decoded(struct ci_input *x, const struct qp_head *h, bool html, bool more,
			char *line, size_t len, ci_input_text_fn fn, void *ctx)
{
	struct qp_read q = { .x = x, .fn = fn, .ctx = ctx };
	struct qp_decoder *d;
	int r;

	r = qp_decoder_new(STREAM_LINE_MAX_DEFAULT, html, &d);
	if (r < 0)
		return ci_input_fail(x, r, CI_FAULT_NONE, x->path, 0, NULL);
	for (size_t i = 0; i < h->n && r >= 0; i++)
		r = qp_decoder_feed(d, h->lineno[i], h->text[i], h->len[i], on_decoded, &q);
	while (r >= 0 && more) {
		r = qp_decoder_feed(d, stream_lineno(x->s), line, len, on_decoded, &q);
		if (r >= 0) {
			r = ci_input_next_line(x, false, &line, &len);
			more = r > 0;
		}
	}
	if (r >= 0)
		r = qp_decoder_finish(d, on_decoded, &q);
	qp_decoder_free(d);
	return r < 0 ? r : 0;
}

int ci_input_read_qp(struct ci_input *x, char **line, size_t *len, ci_input_text_fn fn,
		     void *ctx)
{
	struct qp_sniff sn = { 0 };
	struct qp_head *h = malloc(sizeof(*h));
	int r = 1;

	if (!h)
		return ci_input_fail(x, -ENOMEM, CI_FAULT_NONE, x->path, 0, NULL);
	h->n = 0;
	/* no per-byte work past the window, and none past a line too long for the encoding */
	while (r > 0 && h->n < QP_SNIFF_LINES) {
		qp_sniff_line(&sn, *line, *len);
		if (sn.too_long || *len > QP_LINE_MAX + 1) {
			sn.too_long = true;
			break;
		}
		memcpy(h->text[h->n], *line, *len);
		h->text[h->n][*len] = '\0';
		h->len[h->n] = *len;
		h->lineno[h->n++] = stream_lineno(x->s);
		r = ci_input_next_line(x, false, line, len);
	}
	if (r >= 0 && qp_sniff_is_qp(&sn)) {
		r = read_decoded(x, h, qp_sniff_is_html(&sn), r > 0, *line, *len, fn, ctx);
		free(h);
		return r;
	}
	for (size_t i = 0; i < h->n && r >= 0; i++) {
		int k = fn(x, ctx, h->lineno[i], h->text[i], h->len[i]);

		if (k < 0)
			r = k;
	}
	free(h);
	return r < 0 ? r : r > 0;
}

uint64_t ci_input_line_at(const struct ci_input *x, uint64_t lineno, const char *at)
{
	const struct qp_line *l = x->qp_line;

	if (!l)
		return lineno;
	if (lineno != x->qp_lineno || !at || at < l->text || at > l->text + l->len)
		return l->first;
	return qp_line_at(l, (size_t)(at - l->text));
}
