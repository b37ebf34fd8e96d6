/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * /dev/kmsg records ("6,339,5140900,-;msg" and " KEY=value" dictionary lines): each line
 * through kmsg_parse_line() (which decodes \xNN in place) and the unescaper, the whole
 * input through the push parser and the file reader, every message through the klog
 * classifier.
 */
#include <stdio.h>

#include "klog-check.h"

static int on_record(void *userdata, const struct klog_rec *rec)
{
	struct rec_count *c = userdata;

	c->records++;
	CHECK(rec->format == KLOG_FORMAT_KMSG);
	check_rec(rec, NULL, 0);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct klog_parser_ops ops = { .record = on_record,
						    .bad_line = check_bad_line };
	const char *p = (const char *)data, *end = p + size;
	struct kmsg_parser *kp = NULL;
	struct kmsg_stats st;
	struct rec_count c = { 0 }, cf = { 0 };
	struct kt_err e = { 0 };
	uint64_t fed = 0;
	FILE *f;
	int r;

	if (kmsg_parser_new("dev/kmsg", &ops, &c, &kp) < 0)
		return 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *line = fuzz_dup(p, len), *copy = fuzz_dup(p, len);
		struct klog_rec rec;
		const char *what = NULL;
		size_t n;

		if (!line || !copy) {
			free(line);
			free(copy);
			break;
		}
		/* decoding never grows the text */
		n = kmsg_unescape(p, len, copy);
		CHECK(n <= len);
		r = kmsg_parse_line(line, len, &rec, &what);
		CHECK(r == 0 || r == 1 || r == -EINVAL);
		if (r == 0)
			check_rec(&rec, line, len);
		else if (r == 1)
			CHECK(fuzz_within(rec.dict, rec.dict_len, line, len));
		else
			CHECK(what);
		memcpy(line, p, len);	/* undo the in-place decoding */
		r = kmsg_parser_feed(kp, line, len);
		CHECK(r == 0 || r == -ENOMEM);
		fed++;
		free(copy);
		free(line);
		p += len + 1;
	}
	r = kmsg_parser_finish(kp);
	CHECK(r == 0 || r == -ENOMEM);
	if (r == 0) {
		const struct kmsg_stats *s = kmsg_parser_stats(kp);

		CHECK(s->records == c.records && s->lines == fed);
		CHECK(s->records + s->dict_lines + s->malformed <= s->lines);
	}
	kmsg_parser_free(kp);

	if (size == 0)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	r = kmsg_read_file(f, "capture/kmsg.raw", &ops, &cf, &st, &e);
	fclose(f);
	CHECK(r == 0 || r == -ENOMEM);
	if (r == 0)
		CHECK(st.records == cf.records);
	return 0;
}
