/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The live raw path (sources/trace/raw.c) against the trace.dat path on the same
 * records: the 6.1 guest's storms as trace-cmd took them (tests/fixtures/tracedat/).
 * Every record of the file is laid out again in ring-buffer sub-buffers, one CPU's after
 * another as the kernel writes them (the layout kbuffer reads: a page header, 32-bit
 * event headers with 27-bit time deltas, time extends, long records with their length
 * word), and fed a few pages a CPU at a time, as live mode reads the per-CPU buffers.
 * What comes out, decoded and as the text the spool gets back through the text parser,
 * must be the events the trace.dat reader gives, in time order across CPUs, and a page
 * that says it follows lost events must say how many. (The file has no kernel stacks:
 * those of the raw path are checked in the VM test bed, record --measure against the
 * kernel's own measurement.)
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <event-parse.h>
#include <trace-cmd.h>
#include <trace-seq.h>

#include "sources/trace/tracedat.h"
#include "sources/trace/text.h"
#include "sources/trace/raw.h"

#define DAT FIXTURES_DIR "/tracedat/debian-6.1-storms.dat"
/* a quarter of the kernel's 4 KiB sub-buffer: more page boundaries to cross */
#define PAGE 1024
#define HDR 16			/* u64 time stamp, long commit (64-bit) */
#define MISSED_AT 40		/* CPU 0's page that says events were lost before it */
#define MISSED_N 7

struct rec {
	unsigned long long ts;
	int size;
	unsigned char *data;
};

struct cpu_recs {
	struct rec *r;
	size_t n, cap;
};

struct page {
	unsigned int cpu;
	unsigned long long first_ts, last_ts;
	size_t len;
	unsigned char data[PAGE];
};

struct sigs {
	char **s;
	size_t n, cap;
	unsigned long long last_ts;
	bool ordered;
	unsigned int lost, lost_count;
};

struct ctx {
	struct tep_handle *tep;
	struct cpu_recs cpus[8];
	unsigned int ncpus;
	struct page *pages;
	size_t npages;
	struct sigs ref, raw, text;
	/* live top's way: every field the ledger reads, from the text and as decoded */
	struct sigs full_text, full_direct;
	size_t syscall_lines;
	struct ktrace_parser *tp;
	struct trace_seq seq;
};

static void sig_add(struct sigs *g, const struct ktrace_event *ev, bool us)
{
	char buf[512];
	unsigned long long t = us ? (ev->ts_ns + 500) / 1000 : ev->ts_ns;
	const struct ktrace_str *k = NULL;

	if (ev->kind == KTRACE_EV_LOST) {
		g->lost++;
		g->lost_count += (unsigned int)ev->lost.count;
		return;
	}
	if (t < g->last_ts)
		g->ordered = false;
	g->last_ts = t;
	switch (ev->kind) {
	case KTRACE_EV_MODULE_LOAD:
	case KTRACE_EV_MODULE_FREE:
		k = &ev->module_load.name;
		break;
	case KTRACE_EV_MODULE_REQUEST:
		k = &ev->module_request.name;
		break;
	case KTRACE_EV_MARKER:
		k = &ev->marker.text;
		break;
	case KTRACE_EV_PROBE_KREAD:
		k = &ev->probe_kread.path;
		break;
	case KTRACE_EV_PROBE_NAME:
		k = &ev->probe_name.name;
		break;
	case KTRACE_EV_SCHED_PROCESS_EXEC:
		k = &ev->exec.filename;
		break;
	default:
		break;
	}
	snprintf(buf, sizeof(buf), "%llu %u %d %s %.*s fd=%d ret=%" PRId64 " frames=%zu %.*s %.*s", t,
		 ev->cpu, ev->pid, ktrace_event_kind_name(ev->kind), (int)ev->comm.len, ev->comm.s,
		 ev->kind == KTRACE_EV_SYS_ENTER_FINIT_MODULE ? ev->finit_module.fd : -1,
		 (int64_t)(ev->kind == KTRACE_EV_SYS_EXIT_FINIT_MODULE ||
				   ev->kind == KTRACE_EV_SYS_EXIT_INIT_MODULE
			   ? ev->sys_exit.ret
			   : 0),
		 ev->n_frames, k ? (int)k->len : 0, k ? k->s : "",
		 ev->n_frames ? (int)ev->frames[ev->n_frames - 1].fn.sym.len : 0,
		 ev->n_frames ? ev->frames[ev->n_frames - 1].fn.sym.s : "");
	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 1024;
		g->s = realloc(g->s, g->cap * sizeof(*g->s));
		assert_non_null(g->s);
	}
	g->s[g->n++] = strdup(buf);
}

static void push(struct sigs *g, const char *s)
{
	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 1024;
		g->s = realloc(g->s, g->cap * sizeof(*g->s));
		assert_non_null(g->s);
	}
	g->s[g->n] = strdup(s);
	assert_non_null(g->s[g->n]);
	g->n++;
}

#define S(x) (int)(x).len, (x).s

/* Everything of @ev that the ledger (ledger_feed_trace()) reads, exactly */
static void sig_full(struct sigs *g, const struct ktrace_event *ev)
{
	char buf[4096];
	int n;

	n = snprintf(buf, sizeof(buf), "%a %" PRIu64 " %u %d %d [%.*s] %s", ev->ts, ev->ts_ns,
		     ev->cpu, ev->pid, ev->tgid, S(ev->comm), ktrace_event_kind_name(ev->kind));
	switch (ev->kind) {
	case KTRACE_EV_SYS_ENTER_FINIT_MODULE:
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, " fd=%d flags=%u",
			      ev->finit_module.fd, ev->finit_module.flags);
		break;
	case KTRACE_EV_SYS_ENTER_INIT_MODULE:
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, " len=%" PRIu64, ev->init_module.len);
		break;
	case KTRACE_EV_SYS_EXIT_FINIT_MODULE:
	case KTRACE_EV_SYS_EXIT_INIT_MODULE:
	case KTRACE_EV_SYS_EXIT_DELETE_MODULE:
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, " ret=%" PRId64, ev->sys_exit.ret);
		break;
	case KTRACE_EV_MODULE_LOAD:
	case KTRACE_EV_MODULE_FREE:
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, " [%.*s]", S(ev->module_load.name));
		break;
	case KTRACE_EV_MODULE_REQUEST:
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, " [%.*s] wait=%d at [%.*s]",
			      S(ev->module_request.name), ev->module_request.wait,
			      S(ev->module_request.call_site.sym));
		break;
	case KTRACE_EV_SCHED_PROCESS_FORK:
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, " %d [%.*s] -> %d [%.*s]",
			      ev->fork.pid, S(ev->fork.comm), ev->fork.child_pid,
			      S(ev->fork.child_comm));
		break;
	case KTRACE_EV_SCHED_PROCESS_EXEC:
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, " [%.*s]", S(ev->exec.filename));
		break;
	case KTRACE_EV_TASK_RENAME:
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, " %d [%.*s]", ev->rename.pid,
			      S(ev->rename.newcomm));
		break;
	case KTRACE_EV_MARKER:
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, " [%.*s] step [%.*s]",
			      S(ev->marker.text), S(ev->marker.step));
		break;
	case KTRACE_EV_ALLOC_VMAP_AREA:
	case KTRACE_EV_ALLOC_VMAP_AREA_KPROBE:
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, " size=%" PRIu64 " failed=%d res=%d",
			      ev->vmap_alloc.size, ev->vmap_alloc.failed, ev->vmap_alloc.has_result);
		break;
	case KTRACE_EV_LOST:
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, " lost=%" PRIu64 "/%d",
			      ev->lost.count, ev->lost.uncounted);
		break;
	default:
		break;
	}
	for (size_t i = 0; i < ev->n_frames && n < 3000; i++)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, " => [%.*s] [%.*s]",
			      S(ev->frames[i].fn.sym), S(ev->frames[i].fn.module));
	push(g, buf);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void sigs_free(struct sigs *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->s[i]);
	free(g->s);
}

/* The same events, whatever the order of those with one time stamp */
static void assert_same(struct sigs *a, struct sigs *b)
{
	qsort(a->s, a->n, sizeof(*a->s), cmp_str);
	qsort(b->s, b->n, sizeof(*b->s), cmp_str);
	for (size_t i = 0; i < a->n && i < b->n; i++)
		if (strcmp(a->s[i], b->s[i]) != 0)
			fail_msg("event %zu differs:\n  %s\n  %s", i, a->s[i], b->s[i]);
	assert_int_equal(a->n, b->n);
}

/* --- the reference: the trace.dat reader ------------------------------------------- */

static int ref_event(void *userdata, const struct ktrace_event *ev)
{
	sig_add(userdata, ev, false);
	return 0;
}

static int text_event(void *userdata, const struct ktrace_event *ev)
{
	struct ctx *c = userdata;

	sig_add(&c->text, ev, true);
	sig_full(&c->full_text, ev);
	return 0;
}

/* --- the records, laid out again as ring-buffer pages -------------------------------- */

static int collect(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct ctx *c = data;
	struct cpu_recs *q;

	assert_true(cpu >= 0 && cpu < 8);
	if ((unsigned int)cpu + 1 > c->ncpus)
		c->ncpus = (unsigned int)cpu + 1;
	q = &c->cpus[cpu];
	if (q->n == q->cap) {
		q->cap = q->cap ? q->cap * 2 : 256;
		q->r = realloc(q->r, q->cap * sizeof(*q->r));
		assert_non_null(q->r);
	}
	q->r[q->n].ts = rec->ts;
	q->r[q->n].size = rec->size;
	q->r[q->n].data = malloc((size_t)rec->size);
	assert_non_null(q->r[q->n].data);
	memcpy(q->r[q->n].data, rec->data, (size_t)rec->size);
	q->n++;
	return 0;
}

static void put4(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static struct page *page_new(struct ctx *c, unsigned int cpu, unsigned long long ts)
{
	struct page *pg;

	c->pages = realloc(c->pages, (c->npages + 1) * sizeof(*c->pages));
	assert_non_null(c->pages);
	pg = &c->pages[c->npages++];
	memset(pg, 0, sizeof(*pg));
	pg->cpu = cpu;
	pg->first_ts = ts;
	memcpy(pg->data, &ts, 8);
	pg->len = HDR;
	return pg;
}

static void page_close(struct page *pg, bool missed)
{
	uint64_t commit = pg->len - HDR;

	if (missed) {
		uint64_t n = MISSED_N;

		/* RB_MISSED_EVENTS | RB_MISSED_STORED, the count after the data */
		commit |= (1ULL << 31) | (1ULL << 30);
		memcpy(pg->data + pg->len, &n, 8);
		pg->len += 8;
	}
	memcpy(pg->data + 8, &commit, 8);
}

static void lay_out(struct ctx *c)
{
	for (unsigned int cpu = 0; cpu < c->ncpus; cpu++) {
		struct cpu_recs *q = &c->cpus[cpu];
		struct page *pg = NULL;
		unsigned long long prev = 0;
		unsigned int npage = 0;
		bool missed = false;

		for (size_t i = 0; i < q->n; i++) {
			struct rec *r = &q->r[i];
			size_t need = (size_t)r->size + 4 + 8 + (r->size > 112 ? 4 : 0);
			unsigned long long delta;

			assert_true(r->size % 4 == 0);
			if (!pg || pg->len + need + 8 > PAGE) {
				if (pg)
					page_close(pg, missed);
				pg = page_new(c, cpu, r->ts);
				missed = cpu == 0 && ++npage == MISSED_AT;
				prev = r->ts;
			}
			delta = r->ts - prev;
			if (delta >= (1ULL << 27)) {
				/* RINGBUF_TYPE_TIME_EXTEND: 27 bits here, the rest in a word */
				put4(pg->data + pg->len, 30 | (uint32_t)(delta & ((1u << 27) - 1)) << 5);
				put4(pg->data + pg->len + 4, (uint32_t)(delta >> 27));
				pg->len += 8;
				delta = 0;
			}
			if (r->size <= 112) {
				put4(pg->data + pg->len, (uint32_t)(r->size / 4) | (uint32_t)delta << 5);
				pg->len += 4;
			} else {
				put4(pg->data + pg->len, (uint32_t)delta << 5);
				put4(pg->data + pg->len + 4, (uint32_t)r->size + 4);
				pg->len += 8;
			}
			memcpy(pg->data + pg->len, r->data, (size_t)r->size);
			pg->len += (size_t)r->size;
			prev = r->ts;
			pg->last_ts = r->ts;
			/* the last page of a CPU is the part-full one live mode reads */
		}
		if (pg)
			page_close(pg, missed);
	}
}

/* --- the raw path ------------------------------------------------------------------- */

static const char *dat_comm(void *userdata, int pid)
{
	return tep_data_comm_from_pid(userdata, pid);
}

static int raw_ev(void *userdata, const struct ktrace_event *ev, const struct tep_record *rec)
{
	struct ctx *c = userdata;
	const char *comm = ev->pid ? tep_data_comm_from_pid(c->tep, ev->pid) : "<idle>";

	struct ktrace_event e = *ev;
	char mark[8192];

	sig_add(&c->raw, ev, false);
	/* as live top takes it, with no text between */
	raw_event_as_text(&e, ev->kind == KTRACE_EV_LOST ? NULL : comm, mark, sizeof(mark));
	sig_full(&c->full_direct, &e);
	/* and as the spool has it: a line (or lines) the text parser reads back */
	trace_seq_reset(&c->seq);
	assert_int_equal(raw_format_event(c->tep, &c->seq, ev, rec, comm), 0);
	if (rec && !ev->n_frames) {
		/* the lines written by hand are libtraceevent's own, byte for byte */
		struct trace_seq ref;
		unsigned long long us = (rec->ts + 500) / 1000;

		trace_seq_init(&ref);
		trace_seq_printf(&ref, "%16s-%-7d [%03u] %5llu.%06llu: ", comm ? comm : "<...>",
				 ev->pid, ev->cpu, us / 1000000, us % 1000000);
		tep_print_event(c->tep, &ref, (struct tep_record *)rec, "%s: %s", TEP_PRINT_NAME,
				TEP_PRINT_INFO);
		while (ref.len && (ref.buffer[ref.len - 1] == '\n' || ref.buffer[ref.len - 1] == '\r'))
			ref.len--;
		trace_seq_putc(&ref, '\n');
		trace_seq_terminate(&ref);
		trace_seq_terminate(&c->seq);
		if (ev->kind != KTRACE_EV_MARKER)
			assert_string_equal(c->seq.buffer, ref.buffer);
		if (strstr(ref.buffer, ": sys_"))
			c->syscall_lines++;
		trace_seq_destroy(&ref);
	}
	for (char *p = c->seq.buffer, *end = p + c->seq.len; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p));

		assert_non_null(nl);
		assert_int_equal(ktrace_parser_feed(c->tp, p, (size_t)(nl - p)), 0);
		p = nl + 1;
	}
	return 0;
}

static void feed_pages(struct ctx *c, struct raw_stream *rs, unsigned int per_round)
{
	size_t *next = calloc(c->ncpus, sizeof(*next));
	bool *behind = calloc(c->ncpus, sizeof(*behind));
	size_t left = c->npages;

	assert_non_null(next);
	assert_non_null(behind);
	/* each round: a few pages of each CPU in turn, then what is old enough goes out */
	while (left) {
		for (unsigned int cpu = 0; cpu < c->ncpus; cpu++) {
			unsigned int fed = 0;

			for (; next[cpu] < c->npages && fed < per_round; next[cpu]++) {
				struct page *pg = &c->pages[next[cpu]];

				if (pg->cpu != cpu)
					continue;
				assert_int_equal(raw_stream_page(rs, cpu, pg->data, pg->len), 0);
				fed++;
				left--;
			}
			while (next[cpu] < c->npages && c->pages[next[cpu]].cpu != cpu)
				next[cpu]++;
			behind[cpu] = next[cpu] < c->npages;
		}
		assert_int_equal(raw_stream_flush(rs, 0.05, behind), 0);
	}
	assert_int_equal(raw_stream_flush(rs, -1, NULL), 0);
	free(next);
	free(behind);
}

/*
 * Rounds as a busy machine makes them: CPU 1 read, then CPU 0 read @lag ns later (its
 * events of that time already there), each drained; the next round only after all that
 * was read was written. CPU 1's events of the lag come a round later, older than much
 * of what CPU 0 gave.
 */
static void feed_slow_rounds(struct ctx *c, struct raw_stream *rs, unsigned long long lag)
{
	bool *behind = calloc(c->ncpus, sizeof(*behind));
	bool *fed = calloc(c->npages, sizeof(*fed));
	unsigned long long at = 0, newest = 0;
	size_t left = c->npages;

	assert_non_null(behind);
	assert_non_null(fed);
	assert_true(c->ncpus == 2);
	while (left) {
		raw_stream_round(rs);
		for (unsigned int k = 0; k < 2; k++) {
			unsigned int cpu = 1 - k;
			unsigned long long read_at = at + k * lag;

			for (size_t i = 0; i < c->npages; i++) {
				struct page *pg = &c->pages[i];

				if (fed[i] || pg->cpu != cpu)
					continue;
				if (pg->first_ts >= read_at)
					break;
				assert_int_equal(raw_stream_page(rs, cpu, pg->data, pg->len), 0);
				fed[i] = true;
				left--;
				if (pg->last_ts > newest)
					newest = pg->last_ts;
			}
		}
		assert_int_equal(raw_stream_flush(rs, 0.05, behind), 0);
		/* the next round begins once what was read had been written */
		at = (newest > at ? newest : at) + lag / 4 + 1;
	}
	assert_int_equal(raw_stream_flush(rs, -1, NULL), 0);
	free(fed);
	free(behind);
}

static void run(unsigned int per_round, unsigned long long lag)
{
	struct tracecmd_input *top = tracecmd_open(DAT, TRACECMD_FL_LOAD_NO_PLUGINS), *h;
	struct ktrace_parser_ops pops = { .event = text_event };
	struct ktrace_parser_ops rops = { .event = ref_event };
	struct raw_stream_ops ops = { .event = raw_ev };
	struct raw_stream *rs;
	struct ktrace_stats st;
	struct kt_err err = { 0 };
	struct ctx c = { 0 };
	int fd;

	c.ref.ordered = c.raw.ordered = c.text.ordered = true;
	c.full_text.ordered = c.full_direct.ordered = true;
	assert_non_null(top);
	h = tracecmd_buffer_instance_handle(top, 0);
	assert_non_null(h);
	c.tep = tracecmd_get_tep(h);
	assert_int_equal(tracecmd_iterate_events(h, NULL, 0, collect, &c), 0);
	assert_true(c.ncpus == 2);
	lay_out(&c);
	assert_true(c.npages > 2 * MISSED_AT);

	/* the reference: the file through the trace.dat reader */
	fd = open(DAT, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(tracedat_read_fd(fd, DAT, &rops, &c.ref, &st, &err), 0);
	close(fd);

	trace_seq_init(&c.seq);
	assert_int_equal(ktrace_parser_new("spool", &pops, &c, &c.tp), 0);
	assert_int_equal(raw_stream_new(c.tep, dat_comm, c.tep, c.ncpus, &ops, &c, &rs), 0);
	if (lag)
		feed_slow_rounds(&c, rs, lag);
	else
		feed_pages(&c, rs, per_round);
	assert_int_equal(ktrace_parser_finish(c.tp), 0);

	/* in time order across the CPUs, though each CPU was read in turn */
	assert_true(c.raw.ordered);
	assert_true(c.ref.n > 2000);
	assert_int_equal(raw_stream_stats(rs)->orphan_stacks, 0);
	assert_int_equal(raw_stream_stats(rs)->malformed, 0);
	/* the page that followed lost events said so, with the count */
	assert_int_equal(c.raw.lost, 1);
	assert_int_equal(c.raw.lost_count, MISSED_N);
	assert_int_equal(c.text.lost_count, MISSED_N);
	assert_int_equal(c.ref.lost, 0);
	assert_same(&c.ref, &c.raw);

	/* the text the spool gets: the same events, to the microsecond */
	for (size_t i = 0; i < c.ref.n; i++) {
		unsigned long long t;
		char *sp = strchr(c.ref.s[i], ' ');
		char buf[600];

		assert_int_equal(sscanf(c.ref.s[i], "%llu", &t), 1);
		snprintf(buf, sizeof(buf), "%llu%s", (t + 500) / 1000, sp);
		free(c.ref.s[i]);
		c.ref.s[i] = strdup(buf);
	}
	assert_same(&c.ref, &c.text);

	/*
	 * Decoded and made as the text reads (live top), in the same order: every field
	 * the ledger takes is what the text parser gives, the time to the bit
	 */
	assert_true(c.syscall_lines > 400);
	assert_int_equal(c.full_direct.n, c.full_text.n);
	for (size_t i = 0; i < c.full_text.n; i++)
		if (strcmp(c.full_direct.s[i], c.full_text.s[i]) != 0)
			fail_msg("event %zu differs:\n  direct %s\n  text   %s", i,
				 c.full_direct.s[i], c.full_text.s[i]);

	raw_stream_free(rs);
	ktrace_parser_free(c.tp);
	trace_seq_destroy(&c.seq);
	sigs_free(&c.ref);
	sigs_free(&c.raw);
	sigs_free(&c.text);
	sigs_free(&c.full_text);
	sigs_free(&c.full_direct);
	for (unsigned int i = 0; i < c.ncpus; i++) {
		for (size_t k = 0; k < c.cpus[i].n; k++)
			free(c.cpus[i].r[k].data);
		free(c.cpus[i].r);
	}
	free(c.pages);
	tracecmd_close(h);
	tracecmd_close(top);
}

static void test_one_page_a_round(void **state)
{
	run(1, 0);
}

static void test_many_pages_a_round(void **state)
{
	run(16, 0);
}

/* a round that takes half a second between CPUs: what it read is still merged in order */
static void test_slow_rounds(void **state)
{
	run(0, 500000000ULL);
}

/* Pages that do not hold what they say: counted, never read past */
static void test_bad_pages(void **state)
{
	struct tracecmd_input *top = tracecmd_open(DAT, TRACECMD_FL_LOAD_NO_PLUGINS), *h;
	struct raw_stream_ops ops = { 0 };
	struct raw_stream *rs;
	unsigned char pg[PAGE];
	uint64_t commit;

	assert_non_null(top);
	h = tracecmd_buffer_instance_handle(top, 0);
	assert_int_equal(raw_stream_new(tracecmd_get_tep(h), NULL, NULL, 2, &ops, NULL, &rs), 0);
	memset(pg, 0, sizeof(pg));
	/* a commit beyond the bytes read */
	commit = PAGE;
	memcpy(pg + 8, &commit, 8);
	assert_int_equal(raw_stream_page(rs, 0, pg, 100), 0);
	/* a CPU the stream does not have, a page shorter than its header */
	assert_int_equal(raw_stream_page(rs, 5, pg, sizeof(pg)), 0);
	assert_int_equal(raw_stream_page(rs, 0, pg, 8), 0);
	assert_int_equal(raw_stream_stats(rs)->malformed, 3);
	/* garbage within the commit: whatever it decodes to, nothing read past the page */
	for (unsigned int seed = 1; seed < 200; seed++) {
		srand(seed);
		for (size_t i = 16; i < sizeof(pg); i++)
			pg[i] = (unsigned char)rand();
		commit = (uint64_t)(rand() % (PAGE - 16));
		memcpy(pg + 8, &commit, 8);
		assert_true(raw_stream_page(rs, seed % 2, pg, sizeof(pg)) >= 0);
	}
	assert_int_equal(raw_stream_flush(rs, -1, NULL), 0);
	raw_stream_free(rs);
	tracecmd_close(h);
	tracecmd_close(top);
}

/* ---- the formats a raw reader loads ------------------------------------------------ */

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";

static void put_file(const char *top, const char *rel, const char *text)
{
	char path[512], *sl;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	for (sl = strchr(path + strlen(top) + 1, '/'); sl; sl = strchr(sl + 1, '/')) {
		*sl = '\0';
		mkdir(path, 0755);
		*sl = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void put_format(const char *top, const char *sys, const char *name, int id)
{
	char rel[256], text[1024];

	snprintf(rel, sizeof(rel), "events/%s/%s/format", sys, name);
	snprintf(text, sizeof(text),
		 "name: %s\nID: %d\nformat:\n"
		 "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		 "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		 "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		 "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		 "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
		 "\tfield:unsigned long fd;\toffset:16;\tsize:8;\tsigned:0;\n\n"
		 "print fmt: \"fd: 0x%%08lx\", ((unsigned long)(REC->fd))\n",
		 name, id);
	put_file(top, rel, text);
}

/*
 * What is traced and nothing more: the events named one by one, not the rest of their
 * system (the syscalls system has hundreds, seconds to load under emulation); a
 * system named alone (ftrace, a kprobe group) whole
 */
static void test_open_formats(void **state)
{
	char top[] = "/tmp/kmodtop-test-raw-XXXXXX";
	const char *formats[] = { "ftrace", "syscalls/sys_enter_finit_module", NULL };
	const char *why = NULL;
	struct ktrace_raw *r = NULL;
	struct tep_handle *tep;
	int tfd;

	assert_non_null(mkdtemp(top));
	put_file(top, "events/header_page", header_page);
	put_format(top, "syscalls", "sys_enter_finit_module", 700);
	put_format(top, "syscalls", "sys_enter_read", 701);
	put_format(top, "ftrace", "print", 5);
	put_format(top, "ftrace", "kernel_stack", 4);
	tfd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(tfd >= 0);
	/* no per-CPU buffer to open: the formats are what is looked at */
	assert_int_equal(ktrace_raw_open(tfd, top, "instances/x", 1, formats, &r, &why), 0);
	tep = ktrace_raw_tep(r);
	assert_non_null(tep_find_event_by_name(tep, "syscalls", "sys_enter_finit_module"));
	assert_null(tep_find_event_by_name(tep, "syscalls", "sys_enter_read"));
	assert_non_null(tep_find_event_by_name(tep, "ftrace", "print"));
	assert_non_null(tep_find_event_by_name(tep, "ftrace", "kernel_stack"));
	assert_int_equal(tep_get_header_page_size(tep), 8);
	ktrace_raw_free(r);

	/* without header_page no page can be read: refused, with why */
	put_file(top, "events/header_page", "");
	r = NULL;
	assert_true(ktrace_raw_open(tfd, top, "instances/x", 1, formats, &r, &why) < 0);
	assert_null(r);
	assert_non_null(why);
	close(tfd);
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
		assert_int_equal(system(cmd), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_page_a_round),
		cmocka_unit_test(test_many_pages_a_round),
		cmocka_unit_test(test_slow_rounds),
		cmocka_unit_test(test_bad_pages),
		cmocka_unit_test(test_open_formats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
