/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-cmd.h>
#include <trace-seq.h>

#include "sources/trace/raw.h"
#include "sources/trace/text.h"
#include "fuzz.h"

/*
 * Ring-buffer pages as live mode reads them from trace_pipe_raw (sources/trace/raw.c),
 * decoded against real event formats (the 6.1 guest's, from the trace.dat fixture),
 * then printed as the spool's text and read back by the line parser. The input is a
 * series of pages: a CPU byte (its high bits: how old what goes out after it must be),
 * a 16-bit length, that many bytes. Whatever they hold, no byte outside a page is read,
 * and every event decoded once goes out once.
 */
#define DAT FUZZ_DIR "/../fixtures/tracedat/debian-6.1-storms.dat"

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:tracecmd_alloc_fd\n";
}

struct ctx {
	struct tep_handle *tep;
	struct trace_seq seq;
	uint64_t n;
};

static int on_event(void *userdata, const struct ktrace_event *ev, const struct tep_record *rec)
{
	struct ctx *c = userdata;
	struct ktrace_line l;
	const char *what;

	CHECK(ev->kind < KTRACE_EV__MAX);
	CHECK(ev->kind == KTRACE_EV_LOST || rec != NULL);
	trace_seq_reset(&c->seq);
	CHECK(raw_format_event(c->tep, &c->seq, ev, rec, "fuzz") == 0);
	for (char *p = c->seq.buffer, *end = p + c->seq.len; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p));

		CHECK(nl != NULL);
		ktrace_parse_line(p, (size_t)(nl - p), &l, &what);
		p = nl + 1;
	}
	c->n++;
	return 0;
}

/* opened once, closed at exit: an optimiser may keep pointers only in registers */
static struct tracecmd_input *top, *inst;
static struct tep_handle *tep;

static void close_dat(void)
{
	tracecmd_close(inst);
	tracecmd_close(top);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct raw_stream_ops ops = { .event = on_event };
	struct raw_stream *rs;
	struct ctx c = { 0 };
	bool behind[2] = { false, true };
	size_t at = 0;

	if (!tep) {
		top = tracecmd_open(DAT, TRACECMD_FL_LOAD_NO_PLUGINS);
		CHECK(top != NULL);
		inst = tracecmd_buffer_instance_handle(top, 0);
		CHECK(inst != NULL);
		tep = tracecmd_get_tep(inst);
		CHECK(tep != NULL);
		atexit(close_dat);
	}
	c.tep = tep;
	trace_seq_init(&c.seq);
	CHECK(raw_stream_new(tep, NULL, NULL, 2, &ops, &c, &rs) == 0);
	while (at + 3 <= size) {
		uint8_t head = data[at];
		unsigned int cpu = head & 3;
		size_t len = (size_t)data[at + 1] | (size_t)data[at + 2] << 8;
		uint8_t *page;

		at += 3;
		if (len > size - at)
			len = size - at;
		/* exactly the page's bytes: ASan sees a read past them */
		page = malloc(len ? len : 1);
		CHECK(page != NULL);
		memcpy(page, data + at, len);
		/* some pages begin a round of reads: the merge's bound moves with them */
		if (head & 4)
			raw_stream_round(rs);
		CHECK(raw_stream_page(rs, cpu, page, len) == 0);
		free(page);
		at += len;
		CHECK(raw_stream_flush(rs, (head >> 2) / 64.0, behind) == 0);
	}
	CHECK(raw_stream_flush(rs, -1, NULL) == 0);
	CHECK(raw_stream_stats(rs)->events == c.n);
	raw_stream_free(rs);
	trace_seq_destroy(&c.seq);
	return 0;
}
