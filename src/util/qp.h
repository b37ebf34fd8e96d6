/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A mail body kept undecoded in quoted-printable (RFC 2045 6.7), as mailing-list
 * archives keep it: '=' at a physical line's end is a soft break (the two lines are
 * one), "=XX" is the byte XX ("=0A" a newline inside a physical line). Optionally an
 * HTML part on top of it: <br>, <div>, </div>, <p>, </p> end a line, other tags are
 * dropped, a few entities are decoded.
 *
 * The decoder turns physical lines into decoded lines, each with a map back to the
 * physical lines it came from, so that what is found in a decoded line can be told by
 * the physical line that holds it.
 */

/* Lines looked at to tell a quoted-printable body (qp_sniff) */
#define QP_SNIFF_LINES 64
/* RFC 2045: an encoded line is at most 76 characters, its soft break's '=' included */
#define QP_LINE_MAX 76
/* Physical lines one decoded line keeps apart in its map; the rest count as its last */
#define QP_MAP_MAX 64

/*
 * What the first lines of an input show of the encoding. A body is quoted-printable
 * when no line is longer than the encoding allows and several lines hold escapes of
 * bytes the encoding must escape: one '=' at a line's end ("key=") never makes one.
 */
struct qp_sniff {
	unsigned int lines;
	unsigned int escaped;		/* lines with an "=XX" the encoding must write */
	unsigned int soft;		/* lines ending in a soft break */
	unsigned int html;		/* lines with <br>, <div>, </div> or </p> */
	bool too_long;			/* a line longer than QP_LINE_MAX */
};

/* Counts one physical line (its '\r' or '\n' at the end allowed) */
void qp_sniff_line(struct qp_sniff *s, const char *line, size_t len);
/* Whether the lines counted so far make a quoted-printable body */
bool qp_sniff_is_qp(const struct qp_sniff *s);
/* Whether they make one of an HTML part */
bool qp_sniff_is_html(const struct qp_sniff *s);

/* A decoded line, valid until the next call to the decoder */
struct qp_line {
	const char *text;		/* NUL-terminated after @len */
	size_t len;
	uint64_t first;			/* the physical line its first byte came from */
	/* offsets in @text where the next physical lines start: @first + 1, ... */
	const size_t *starts;
	size_t n_starts;
};

/* The physical line that holds @line's byte at offset @off */
uint64_t qp_line_at(const struct qp_line *line, size_t off);

struct qp_decoder;

/* A decoder whose decoded lines are at most @max_len bytes (longer ones are cut) */
int qp_decoder_new(size_t max_len, bool html, struct qp_decoder **ret);
struct qp_decoder *qp_decoder_free(struct qp_decoder *d);

typedef int (*qp_line_fn)(void *userdata, const struct qp_line *line);

/*
 * Decodes physical line @lineno (@line, @len, without its '\n'); @fn is called for each
 * decoded line it ends. Returns 0, or the first negative value @fn returns.
 */
int qp_decoder_feed(struct qp_decoder *d, uint64_t lineno, const char *line, size_t len,
		    qp_line_fn fn, void *userdata);
/* The last decoded line, when the input ends in a soft break; 0 or @fn's error */
int qp_decoder_finish(struct qp_decoder *d, qp_line_fn fn, void *userdata);
