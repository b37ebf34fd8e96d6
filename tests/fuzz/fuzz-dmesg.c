/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel log text in every rendering dmesg-text.c tells apart (dmesg with and without
 * caller ids, levels, -x, -d, -T, iso; journalctl short, monotonic, iso; syslog; a
 * serial console with other text before the record): each line through
 * dmesg_parse_line(), the whole input through the push parser and the file reader,
 * every message through the klog classifier.
 */
#include <stdio.h>

#include "sources/dmesg-text.h"
#include "klog-check.h"

static int on_record(void *userdata, const struct klog_rec *rec)
{
	struct rec_count *c = userdata;

	c->records++;
	check_rec(rec, NULL, 0);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct klog_parser_ops ops = { .record = on_record,
						    .bad_line = check_bad_line };
	const char *p = (const char *)data, *end = p + size;
	struct dmesg_parser *dp = NULL;
	struct dmesg_stats st;
	struct rec_count c = { 0 }, cf = { 0 };
	struct kt_err e = { 0 };
	uint64_t fed = 0;
	FILE *f;
	int r;

	if (dmesg_parser_new("capture/dmesg.txt", &ops, &c, &dp) < 0)
		return 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *line = fuzz_dup(p, len);
		struct klog_rec rec;
		const char *what = NULL;

		if (!line)
			break;
		r = dmesg_parse_line(line, len, &rec, &what);
		CHECK(r == 0 || r == 1 || r == -EINVAL);
		{
			/* the kernel's time: the shape test agrees with the reading, and a line
			 * that starts with it is a record of that time */
			uint64_t usec;
			size_t t = dmesg_time_prefix(line, len, &usec);

			CHECK(dmesg_time_shape(line, len) == t);
			if (t && !memchr(line, '\0', len))
				CHECK(r == 1 && rec.has_monotonic && rec.usec == usec && !rec.prefix_len);
		}
		if (r == 1) {
			check_rec(&rec, line, len);
		} else if (r < 0) {
			CHECK(what);
		}
		r = dmesg_parser_feed(dp, line, len);
		CHECK(r == 0);
		fed++;
		free(line);
		p += len + 1;
	}
	r = dmesg_parser_finish(dp);
	CHECK(r == 0);
	{
		const struct dmesg_stats *s = dmesg_parser_stats(dp);
		uint64_t sum = 0;

		CHECK(s->records == c.records && s->lines == fed);
		for (int i = 0; i < KLOG_FORMAT__MAX; i++)
			sum += s->by_format[i];
		CHECK(sum == s->records);
		CHECK(s->records + s->other_lines + s->malformed <= s->lines);
	}
	dmesg_parser_free(dp);

	if (size == 0)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	r = dmesg_read_file(f, "capture/dmesg.txt", &ops, &cf, &st, &e);
	fclose(f);
	CHECK(r == 0 || r == -ENOMEM);
	if (r == 0)
		CHECK(st.records == cf.records);
	return 0;
}
