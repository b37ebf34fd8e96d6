/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* What every kernel log record promises, whatever text it came from (kmsg.h). */
#include "sources/kmsg.h"
#include "ledger/klog-findings.h"
#include "fuzz.h"

static inline void check_finding(const struct klog_finding *f, const char *msg, size_t len)
{
	CHECK(f->kind > KLOG_FINDING_NONE && f->kind < KLOG_FINDING__MAX);
	CHECK(f->format && f->source && klog_finding_kind_name(f->kind));
	CHECK(f->n_num <= KLOG_FINDING_NUMS);
	CHECK(fuzz_within(f->module, f->module_len, msg, len));
	CHECK(fuzz_within(f->symbol, f->symbol_len, msg, len));
	CHECK(fuzz_within(f->text, f->text_len, msg, len));
	CHECK(fuzz_within(f->text2, f->text2_len, msg, len));
}

/* A record's message through the classifier: findings must point into it. */
static inline void classify_rec(const struct klog_rec *rec)
{
	struct klog_finding f;
	int r = klog_classify(rec->msg, rec->msg_len, &f);

	CHECK(r == 0 || r == 1);
	if (r == 1)
		check_finding(&f, rec->msg, rec->msg_len);
	else
		CHECK(f.kind == KLOG_FINDING_NONE);
}

/* @line: the line the record was parsed from (NULL: the strings may point anywhere). */
static inline void check_rec(const struct klog_rec *rec, const char *line, size_t len)
{
	CHECK(rec->format < KLOG_FORMAT__MAX && klog_format_name(rec->format));
	CHECK(rec->level >= -1 && rec->level <= 7);
	CHECK(rec->msg || rec->msg_len == 0);
	CHECK(rec->host || rec->host_len == 0);
	CHECK(rec->wall_usec < 1000000);
	if (line) {
		CHECK(fuzz_within(rec->msg, rec->msg_len, line, len));
		CHECK(fuzz_within(rec->host, rec->host_len, line, len));
		CHECK(fuzz_within(rec->dict, rec->dict_len, line, len));
		CHECK(rec->prefix_len <= len);
	}
	fuzz_touch(rec->msg, rec->msg_len);
	fuzz_touch(rec->host, rec->host_len);
	fuzz_touch(rec->dict, rec->dict_len);
	classify_rec(rec);
}

/* The records a parser passed to ops->record, for its stats to agree with */
struct rec_count {
	uint64_t records;
};

/* ops->bad_line: a skipped line always says why */
static inline void check_bad_line(void *userdata, const struct kt_err *e)
{
	(void)userdata;
	CHECK(e->what);
}
