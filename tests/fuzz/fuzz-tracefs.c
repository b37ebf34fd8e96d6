/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Trace text: tracefs "trace"/"trace_pipe" lines and "trace-cmd report" lines, with
 * their "<stack trace>" blocks. Every line through the pure parser (all pieces must lie
 * in the line), the whole input through the push parser (events and frames must stay
 * readable during the callback) and through the file reader.
 */
#include <stdio.h>

#include "sources/trace/read.h"
#include "sources/trace/text.h"
#include "fuzz.h"

static bool str_in(const struct ktrace_str *s, const char *line, size_t len)
{
	return fuzz_within(s->s, s->len, line, len);
}

static bool sym_in(const struct ktrace_sym *s, const char *line, size_t len)
{
	return str_in(&s->text, line, len) && str_in(&s->sym, line, len) &&
	       str_in(&s->module, line, len);
}

static void check_event_in(const struct ktrace_event *ev, const char *line, size_t len)
{
	CHECK(ev->kind < KTRACE_EV__MAX);
	CHECK(ev->format <= KTRACE_FMT_EITHER);
	CHECK(str_in(&ev->comm, line, len) && str_in(&ev->flags, line, len));
	CHECK(str_in(&ev->system, line, len) && str_in(&ev->name, line, len));
	CHECK(str_in(&ev->fields, line, len));
	CHECK(ktrace_event_kind_name(ev->kind));
	switch (ev->kind) {
	case KTRACE_EV_MODULE_REQUEST:
		CHECK(str_in(&ev->module_request.name, line, len));
		CHECK(sym_in(&ev->module_request.call_site, line, len));
		break;
	case KTRACE_EV_MODULE_LOAD:
	case KTRACE_EV_MODULE_FREE:
		CHECK(str_in(&ev->module_load.name, line, len));
		CHECK(str_in(&ev->module_load.taints, line, len));
		break;
	case KTRACE_EV_MODULE_GET:
	case KTRACE_EV_MODULE_PUT:
		CHECK(str_in(&ev->module_refcnt.name, line, len));
		CHECK(sym_in(&ev->module_refcnt.call_site, line, len));
		break;
	case KTRACE_EV_SCHED_PROCESS_FORK:
		CHECK(str_in(&ev->fork.comm, line, len));
		CHECK(str_in(&ev->fork.child_comm, line, len));
		break;
	case KTRACE_EV_SCHED_PROCESS_EXEC:
		CHECK(str_in(&ev->exec.filename, line, len));
		break;
	case KTRACE_EV_TASK_RENAME:
		CHECK(str_in(&ev->rename.oldcomm, line, len));
		CHECK(str_in(&ev->rename.newcomm, line, len));
		break;
	case KTRACE_EV_MARKER:
		CHECK(str_in(&ev->marker.text, line, len));
		CHECK(str_in(&ev->marker.step, line, len));
		break;
	case KTRACE_EV_KPROBE:
	case KTRACE_EV_ALLOC_VMAP_AREA_KPROBE:
		CHECK(sym_in(&ev->kprobe.probe, line, len));
		CHECK(str_in(&ev->kprobe.args, line, len));
		break;
	default:
		break;
	}
}

static unsigned int touch_str(const struct ktrace_str *s)
{
	return fuzz_touch(s->s, s->len);
}

static unsigned int touch_sym(const struct ktrace_sym *s)
{
	return touch_str(&s->text) + touch_str(&s->sym) + touch_str(&s->module);
}

struct ctx {
	uint64_t events, bad;
	double last_ts;
};

static int on_event(void *userdata, const struct ktrace_event *ev)
{
	struct ctx *c = userdata;

	c->events++;
	CHECK(ev->kind < KTRACE_EV__MAX && ev->kind != KTRACE_EV_STACK);
	CHECK(ev->n_frames == 0 || ev->frames);
	touch_str(&ev->comm);
	touch_str(&ev->flags);
	touch_str(&ev->system);
	touch_str(&ev->name);
	touch_str(&ev->fields);
	for (size_t i = 0; i < ev->n_frames; i++)
		touch_sym(&ev->frames[i].fn);
	if (ev->kind == KTRACE_EV_MODULE_REQUEST)
		touch_sym(&ev->module_request.call_site);
	if (ev->kind == KTRACE_EV_KPROBE || ev->kind == KTRACE_EV_ALLOC_VMAP_AREA_KPROBE)
		touch_sym(&ev->kprobe.probe);
	return 0;
}

static void on_bad_line(void *userdata, const struct kt_err *e)
{
	struct ctx *c = userdata;

	c->bad++;
	CHECK(e->what);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct ktrace_parser_ops ops = { .event = on_event,
						       .bad_line = on_bad_line };
	const char *p = (const char *)data, *end = p + size;
	struct ktrace_parser *tp = NULL;
	struct ktrace_stats st;
	struct ctx c = { 0 }, cf = { 0 };
	struct kt_err e = { 0 };
	uint64_t fed = 0;
	FILE *f;
	int r;

	if (ktrace_parser_new("sys/kernel/tracing/trace", &ops, &c, &tp) < 0)
		return 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *line = fuzz_dup(p, len);
		struct ktrace_line tl;
		struct ktrace_sym sym;
		const char *what = NULL;

		if (!line)
			break;
		r = ktrace_parse_line(line, len, &tl, &what);
		CHECK(r == 0 || r == -EINVAL);
		if (r < 0) {
			CHECK(what);
		} else if (tl.kind == KTRACE_LINE_EVENT) {
			check_event_in(&tl.ev, line, len);
		} else if (tl.kind == KTRACE_LINE_FRAME) {
			CHECK(sym_in(&tl.frame.fn, line, len));
		} else {
			CHECK(tl.kind == KTRACE_LINE_HEADER);
		}
		ktrace_sym_split(line, len, &sym);
		CHECK(sym_in(&sym, line, len));
		/* the push parser gets the line in a block of its own, freed right after */
		r = ktrace_parser_feed(tp, line, len);
		CHECK(r == 0 || r == -ENOMEM);
		fed++;
		free(line);
		p += len + 1;
	}
	r = ktrace_parser_finish(tp);
	CHECK(r == 0 || r == -ENOMEM);
	if (r == 0) {
		const struct ktrace_stats *s = ktrace_parser_stats(tp);

		CHECK(s->events == c.events && s->malformed <= s->lines);
		CHECK(s->lines == fed);
	}
	ktrace_parser_free(tp);

	if (size == 0)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	r = ktrace_events_read_file(f, "sys/kernel/tracing/trace", &ops, &cf, &st, &e);
	fclose(f);
	CHECK(r == 0 || r == -ENOMEM);
	if (r == 0)
		CHECK(st.events == cf.events);
	return 0;
}
