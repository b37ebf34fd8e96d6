/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel logs as JSON spread over lines: `journalctl -o json-pretty` (each entry an
 * object from a "{" line to a "}" line) and util-linux's `dmesg --json` (one document,
 * {"dmesg": [...]}). Each record's evidence line is the line of its message's key.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "session/ci-input-private.h"
#include "sources/dmesg-json.h"
#include "sources/stream.h"
#include "util/array.h"
#include "util/macro.h"

/* A dmesg --json document is the kernel's ring buffer: a few MiB; more is no such thing */
#define JSON_DOC_MAX (64u << 20)

struct json_doc {
	char *text;
	size_t len, cap;
	uint64_t first;			/* its first line */
	uint64_t *msg_lines;		/* the lines of its message keys, in order */
	size_t n_msg, cap_msg;
};

static int doc_append(struct json_doc *d, const char *line, size_t len)
{
	int r;

	if (d->len + len + 2 > JSON_DOC_MAX)
		return -EFBIG;
	r = array_grow_uninit((void **)&d->text, d->len + len + 1, &d->cap, 1);
	if (r < 0)
		return r;
	memcpy(d->text + d->len, line, len);
	d->len += len;
	d->text[d->len++] = '\n';
	d->text[d->len] = '\0';
	return 0;
}

static int doc_msg_line(struct json_doc *d, uint64_t lineno)
{
	int r = array_grow_uninit((void **)&d->msg_lines, d->n_msg, &d->cap_msg,
				  sizeof(*d->msg_lines));

	if (r < 0)
		return r;
	d->msg_lines[d->n_msg++] = lineno;
	return 0;
}

static const char *skip_blanks(const char *s, size_t *len)
{
	while (*len && (*s == ' ' || *s == '\t')) {
		s++;
		(*len)--;
	}
	while (*len && (s[*len - 1] == ' ' || s[*len - 1] == '\t' || s[*len - 1] == '\r'))
		(*len)--;
	return s;
}

bool ci_input_json_spread(const char *line, size_t len)
{
	line = skip_blanks(line, &len);
	return len == 1 && *line == '{';
}

static int on_dmesg_rec(void *userdata, size_t index, const struct dmesg_json_rec *r)
{
	struct ci_input *x = ((void **)userdata)[0];
	const struct json_doc *d = ((void **)userdata)[1];
	uint64_t lineno = index < d->n_msg ? d->msg_lines[index] : d->first;
	struct klog_rec rec = { .format = KLOG_FORMAT_DMESG, .facility = r->facility,
				.level = r->level, .msg = r->msg, .msg_len = r->msg_len };

	/* a record's text holds no NUL (the kernel escapes what it cannot print): damaged */
	if (memchr(r->msg, '\0', r->msg_len)) {
		ci_input_bad_line(x, lineno, "a NUL byte in a record's message");
		return 0;
	}
	if (r->has_time) {
		rec.has_monotonic = true;
		rec.ts = r->time;
		rec.usec = (uint64_t)(r->time * 1e6 + 0.5);
	}
	x->st.records++;
	return ci_klog(x->ci, lineno, &rec);
}

int ci_input_read_json_spread(struct ci_input *x, char *line, size_t len)
{
	struct json_doc d = { 0 };
	bool dmesg = false, in_entry = false;
	int r = 1;

	ci_set_input_format_detail(x->ci, "journal-json-pretty",
				   "JSON objects over lines (journalctl -o json-pretty)");

	for (; r > 0; r = ci_input_next_line(x, false, &line, &len)) {
		uint64_t lineno = stream_lineno(x->s);
		size_t n = len;
		const char *t = skip_blanks(line, &n);

		if (!in_entry && !dmesg) {
			if (!n)
				continue;
			if (n != 1 || *t != '{') {
				ci_input_bad_line(x, lineno, "not a JSON object");
				continue;
			}
			in_entry = true;
			d.len = 0;
			d.n_msg = 0;
			d.first = lineno;
		}
		r = doc_append(&d, line, len);
		if (r < 0)
			break;
		/* the document's first key tells which: dmesg's array, or a journal entry */
		if (!dmesg && d.n_msg == 0 && has_prefix(t, n, "\"dmesg\"")) {
			dmesg = true;
			ci_set_input_format(x->ci, "kernel-log-json", NULL);
			ci_set_input_format_detail(x->ci, "dmesg-json",
						   "a JSON document of records (dmesg --json)");
		}
		/* each record's message key, one a line as the tools print them, or more */
		for (const char *k = t, *key = dmesg ? "\"msg\"" : "\"MESSAGE\"";
		     (k = memmem(k, n - (size_t)(k - t), key, strlen(key)));
		     k += strlen(key)) {
			r = doc_msg_line(&d, lineno);
			if (r < 0)
				break;
		}
		if (r < 0)
			break;
		/* journalctl closes each entry with "}" alone at the line's start */
		if (!dmesg && len && line[0] == '}' && n == 1) {
			in_entry = false;
			r = ci_input_journal_json_object(x, d.n_msg ? d.msg_lines[0] : d.first,
							 d.text, d.len);
			if (r < 0)
				break;
			r = 1;
		}
	}
	if (r == -EFBIG)
		r = ci_input_fail(x, r, CI_FAULT_CORRUPT, x->path, d.first,
				  "a JSON document of more than 64 MiB");
	else if (r == -ENOMEM)
		r = ci_input_fail(x, r, CI_FAULT_NONE, x->path, 0, NULL);
	if (r == 0 && dmesg) {
		void *ud[2] = { x, &d };

		r = dmesg_json_each(d.text, d.len, on_dmesg_rec, ud);
		if (r == -EINVAL) {
			ci_input_bad_line(x, d.first, "not a whole dmesg --json document");
			r = 0;
		}
	} else if (r == 0 && in_entry) {
		ci_input_bad_line(x, d.first, "a JSON object cut short");
	}
	free(d.text);
	free(d.msg_lines);
	return r;
}
