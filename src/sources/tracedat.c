/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <trace-cmd.h>
#include <event-parse.h>
#include <trace-seq.h>

#include "tracedat.h"

bool tracedat_sniff(const void *head, size_t len)
{
	return len >= TRACEDAT_MAGIC_LEN && memcmp(head, TRACEDAT_MAGIC, TRACEDAT_MAGIC_LEN) == 0;
}

struct dat_ctx {
	struct tracefs_parser *p;
	struct tep_handle *tep;
	struct trace_seq seq;
	uint64_t count;
	int err;
};

/* The events the ledger is made of: what decides which buffer is the trace */
static int count_record(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct dat_ctx *c = data;
	struct tep_event *e = tep_find_event_by_record(c->tep, rec);

	if (e && e->system && e->name &&
	    (strcmp(e->system, "module") == 0 || strcmp(e->system, "syscalls") == 0 ||
	     strncmp(e->name, "kmodtop_", 8) == 0))
		c->count++;
	return 0;
}

/* Feeds the text in @s line by line: a kernel stack prints as several */
static int feed_text(struct dat_ctx *c, const char *s, size_t len)
{
	const char *end = s + len;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = (size_t)((nl ? nl : end) - s);
		int r = tracefs_parser_feed(c->p, s, n);

		if (r < 0)
			return r;
		s += n + 1;
	}
	return 0;
}

static int print_record(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct dat_ctx *c = data;
	const char *comm;
	int pid, r;

	if (c->err)
		return -1;
	if (rec->missed_events) {
		char lost[64];
		int n = rec->missed_events > 0
				? snprintf(lost, sizeof(lost), "CPU:%d [LOST %lld EVENTS]", rec->cpu,
					   rec->missed_events)
				: snprintf(lost, sizeof(lost), "CPU:%d [LOST EVENTS]", rec->cpu);

		r = tracefs_parser_feed(c->p, lost, (size_t)n);
		if (r < 0) {
			c->err = r;
			return -1;
		}
	}
	pid = tep_data_pid(c->tep, rec);
	comm = tep_data_comm_from_pid(c->tep, pid);
	trace_seq_reset(&c->seq);
	/* trace-cmd report's columns, with the exact nanoseconds */
	trace_seq_printf(&c->seq, "%16s-%-5d [%03d] %llu.%09llu: ", comm ? comm : "<...>", pid,
			 rec->cpu, rec->ts / 1000000000ULL, rec->ts % 1000000000ULL);
	tep_print_event(c->tep, &c->seq, rec, "%s: %s", TEP_PRINT_NAME, TEP_PRINT_INFO);
	trace_seq_terminate(&c->seq);
	if (c->seq.state != TRACE_SEQ__GOOD) {
		c->err = -ENOMEM;
		return -1;
	}
	r = feed_text(c, c->seq.buffer, c->seq.len);
	if (r < 0) {
		c->err = r;
		return -1;
	}
	return 0;
}

static uint64_t count_buffer(struct tracecmd_input *h)
{
	struct dat_ctx c = { .tep = tracecmd_get_tep(h) };

	if (!c.tep || tracecmd_iterate_events(h, NULL, 0, count_record, &c) < 0)
		return 0;
	return c.count;
}

/* Opens the trace.dat on @fd from its start, with a descriptor of its own. NULL: errno */
static struct tracecmd_input *open_dat(int fd)
{
	struct tracecmd_input *h;
	int dfd;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return NULL;
	/* tracecmd_close() closes the descriptor it was given */
	dfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (dfd < 0)
		return NULL;
	h = tracecmd_open_fd(dfd, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!h) {
		close(dfd);
		errno = EINVAL;
	}
	return h;
}

/*
 * The buffer to read: -1 the top level, else an instance's index. Reading a buffer's
 * records uses them up, so this pass has a handle of its own.
 */
static int pick_buffer(int fd)
{
	struct tracecmd_input *top = open_dat(fd);
	uint64_t best;
	int n, pick = -1;

	if (!top)
		return -1;
	n = tracecmd_buffer_instances(top);
	if (n > 0) {
		best = count_buffer(top);
		for (int i = 0; i < n; i++) {
			struct tracecmd_input *b = tracecmd_buffer_instance_handle(top, i);
			uint64_t k;

			if (!b)
				continue;
			k = count_buffer(b);
			if (k > best) {
				best = k;
				pick = i;
			}
			tracecmd_close(b);
		}
	}
	tracecmd_close(top);
	return pick;
}

int tracedat_read_fd(int fd, const char *path, const struct tracefs_parser_ops *ops,
		     void *userdata, struct tracefs_stats *ret_stats, struct kt_err *reterr)
{
	struct tracecmd_input *top, *h;
	struct dat_ctx c = { 0 };
	int r, pick;

	/* libtracecmd says what it dislikes on stderr; sources say nothing */
	tracecmd_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
	pick = pick_buffer(fd);
	top = open_dat(fd);
	if (!top) {
		r = -errno;
		kt_err_set(reterr, path, 0, r == -EINVAL ? "not a trace.dat libtracecmd can read "
							   "(truncated, or of a newer format)"
							 : "cannot read");
		return r;
	}
	h = pick >= 0 ? tracecmd_buffer_instance_handle(top, pick) : top;
	if (!h)
		h = top;
	c.tep = tracecmd_get_tep(h);
	trace_seq_init(&c.seq);
	r = c.tep ? tracefs_parser_new(path, ops, userdata, &c.p) : -EINVAL;
	if (r < 0) {
		kt_err_set(reterr, path, 0, r == -ENOMEM ? "out of memory" : "no event formats");
		goto out;
	}
	if (tracecmd_iterate_events(h, NULL, 0, print_record, &c) < 0 && !c.err)
		c.err = -EINVAL;
	r = c.err;
	if (r == -EINVAL)
		kt_err_set(reterr, path, 0, "libtracecmd could not read the records");
	else if (r < 0)
		kt_err_set(reterr, path, 0, "event handler failed");
	if (r >= 0) {
		r = tracefs_parser_finish(c.p);
		if (r < 0)
			kt_err_set(reterr, path, 0, "event handler failed");
	}
	if (r >= 0 && ret_stats)
		*ret_stats = *tracefs_parser_stats(c.p);
out:
	tracefs_parser_free(c.p);
	trace_seq_destroy(&c.seq);
	if (h != top)
		tracecmd_close(h);
	tracecmd_close(top);
	return r;
}
