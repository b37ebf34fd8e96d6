/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Binary records decoded with libtraceevent (sources/trace/tep-decode.c) against the text the
 * same records print as (trace-cmd report's lines, through the text parser): for every
 * record of a real trace.dat, the 6.1 guest's storms as the printed setup took them
 * with trace-cmd (tests/fixtures/tracedat/), the two must be the same event. Then the
 * records cut short, which must be refused, not read past.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <event-parse.h>
#include <trace-cmd.h>
#include <trace-seq.h>

#include "sources/trace/tep-decode.h"
#include "sources/trace/text.h"

#define DAT FIXTURES_DIR "/tracedat/debian-6.1-storms.dat"

struct ctx {
	struct tep_handle *tep;
	struct ktrace_decoder *d;
	struct trace_seq seq;
	unsigned int compared, stacks;
	unsigned int by_kind[KTRACE_EV__MAX];
};

static void assert_str_eq(struct ktrace_str a, struct ktrace_str b)
{
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.s, b.s, a.len);
}

/* What the text parser makes of the line trace-cmd report prints for @rec */
static void print_and_parse(struct ctx *c, struct tep_record *rec, struct ktrace_line *l)
{
	const char *what;
	int pid = tep_data_pid(c->tep, rec);
	const char *comm = tep_data_comm_from_pid(c->tep, pid);
	char *nl;

	trace_seq_reset(&c->seq);
	trace_seq_printf(&c->seq, "%16s-%-5d [%03d] %llu.%09llu: ", comm ? comm : "<...>", pid,
			 rec->cpu, rec->ts / 1000000000ULL, rec->ts % 1000000000ULL);
	tep_print_event(c->tep, &c->seq, rec, "%s: %s", TEP_PRINT_NAME, TEP_PRINT_INFO);
	trace_seq_terminate(&c->seq);
	nl = strchr(c->seq.buffer, '\n');
	assert_int_equal(ktrace_parse_line(c->seq.buffer,
					    nl ? (size_t)(nl - c->seq.buffer) : strlen(c->seq.buffer),
					    l, &what),
			 0);
}

static void compare(const struct ktrace_event *a, const struct ktrace_event *b)
{
	assert_int_equal(a->kind, b->kind);
	assert_int_equal(a->pid, b->pid);
	assert_int_equal(a->cpu, b->cpu);
	assert_int_equal(a->ts_ns, b->ts_ns);
	assert_str_eq(a->comm, b->comm);
	switch (a->kind) {
	case KTRACE_EV_SYS_ENTER_FINIT_MODULE:
		assert_int_equal(a->finit_module.fd, b->finit_module.fd);
		assert_int_equal(a->finit_module.flags, b->finit_module.flags);
		assert_int_equal(a->finit_module.uargs, b->finit_module.uargs);
		break;
	case KTRACE_EV_SYS_ENTER_INIT_MODULE:
		assert_int_equal(a->init_module.len, b->init_module.len);
		assert_int_equal(a->init_module.umod, b->init_module.umod);
		break;
	case KTRACE_EV_SYS_EXIT_FINIT_MODULE:
	case KTRACE_EV_SYS_EXIT_INIT_MODULE:
	case KTRACE_EV_SYS_EXIT_DELETE_MODULE:
		assert_int_equal(a->sys_exit.ret, b->sys_exit.ret);
		break;
	case KTRACE_EV_MODULE_LOAD:
	case KTRACE_EV_MODULE_FREE:
		assert_str_eq(a->module_load.name, b->module_load.name);
		break;
	case KTRACE_EV_MODULE_REQUEST:
		assert_str_eq(a->module_request.name, b->module_request.name);
		assert_int_equal(a->module_request.wait, b->module_request.wait);
		assert_str_eq(a->module_request.call_site.sym, b->module_request.call_site.sym);
		break;
	case KTRACE_EV_SCHED_PROCESS_FORK:
		assert_str_eq(a->fork.comm, b->fork.comm);
		assert_str_eq(a->fork.child_comm, b->fork.child_comm);
		assert_int_equal(a->fork.pid, b->fork.pid);
		assert_int_equal(a->fork.child_pid, b->fork.child_pid);
		break;
	case KTRACE_EV_SCHED_PROCESS_EXEC:
		assert_str_eq(a->exec.filename, b->exec.filename);
		assert_int_equal(a->exec.pid, b->exec.pid);
		assert_int_equal(a->exec.old_pid, b->exec.old_pid);
		break;
	case KTRACE_EV_TASK_RENAME:
		assert_int_equal(a->rename.pid, b->rename.pid);
		assert_str_eq(a->rename.oldcomm, b->rename.oldcomm);
		assert_str_eq(a->rename.newcomm, b->rename.newcomm);
		break;
	case KTRACE_EV_MARKER:
		assert_str_eq(a->marker.text, b->marker.text);
		assert_str_eq(a->marker.step, b->marker.step);
		break;
	case KTRACE_EV_PROBE_KREAD:
		assert_int_equal(a->probe_kread.size, b->probe_kread.size);
		assert_int_equal(a->probe_kread.id, b->probe_kread.id);
		assert_str_eq(a->probe_kread.path, b->probe_kread.path);
		break;
	case KTRACE_EV_PROBE_NAME:
		assert_str_eq(a->probe_name.name, b->probe_name.name);
		break;
	default:
		break;
	}
}

static int each(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct ctx *c = data;
	struct ktrace_event ev;
	struct ktrace_line l;
	int r = ktrace_decoder_decode(c->d, rec, &ev);

	assert_true(r == 0 || r == 1);
	if (r == 1) {
		c->stacks++;
		return 0;
	}
	print_and_parse(c, rec, &l);
	assert_int_equal(l.kind, KTRACE_LINE_EVENT);
	compare(&ev, &l.ev);
	c->by_kind[ev.kind]++;
	c->compared++;

	/* the same record cut short: refused (an UNKNOWN event), never read past its end */
	if (ev.kind != KTRACE_EV_UNKNOWN && rec->size > 8) {
		struct tep_record cut = *rec;
		void *copy = malloc((size_t)rec->size);

		assert_non_null(copy);
		for (int n = 8; n < rec->size; n += 4) {
			memcpy(copy, rec->data, (size_t)n);
			cut.data = copy;
			cut.size = n;
			r = ktrace_decoder_decode(c->d, &cut, &ev);
			assert_true(r == 0 || r == -EINVAL);
			if (r < 0)
				assert_int_equal(ev.kind, KTRACE_EV_UNKNOWN);
		}
		free(copy);
	}
	return 0;
}

static void test_decode_equals_text(void **state)
{
	struct tracecmd_input *top = tracecmd_open(DAT, TRACECMD_FL_LOAD_NO_PLUGINS), *h;
	struct ctx c = { 0 };

	assert_non_null(top);
	/* the printed setup's trace-cmd buffer */
	assert_int_equal(tracecmd_buffer_instances(top), 1);
	h = tracecmd_buffer_instance_handle(top, 0);
	assert_non_null(h);
	c.tep = tracecmd_get_tep(h);
	assert_int_equal(ktrace_decoder_new(c.tep, NULL, NULL, &c.d), 0);
	trace_seq_init(&c.seq);
	assert_int_equal(tracecmd_iterate_events(h, NULL, 0, each, &c), 0);
	/* the storms: every kind the ledger reads was there to compare */
	assert_true(c.compared > 2000);
	assert_true(c.by_kind[KTRACE_EV_SYS_ENTER_FINIT_MODULE] >= 232);
	assert_true(c.by_kind[KTRACE_EV_SYS_EXIT_FINIT_MODULE] >= 232);
	assert_true(c.by_kind[KTRACE_EV_PROBE_KREAD] > 0);
	assert_true(c.by_kind[KTRACE_EV_PROBE_NAME] > 0);
	assert_true(c.by_kind[KTRACE_EV_MODULE_LOAD] > 0);
	assert_true(c.by_kind[KTRACE_EV_SCHED_PROCESS_FORK] > 0);
	assert_true(c.by_kind[KTRACE_EV_TASK_RENAME] > 0);
	assert_true(c.by_kind[KTRACE_EV_MARKER] >= 5);
	trace_seq_destroy(&c.seq);
	ktrace_decoder_free(c.d);
	tracecmd_close(h);
	tracecmd_close(top);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_equals_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
