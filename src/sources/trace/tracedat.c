/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <trace-cmd.h>
#include <event-parse.h>

#include "util/trial.h"
#include "tep-decode.h"
#include "tracedat.h"

bool tracedat_sniff(const void *head, size_t len)
{
	return len >= TRACEDAT_MAGIC_LEN && memcmp(head, TRACEDAT_MAGIC, TRACEDAT_MAGIC_LEN) == 0;
}

/* Not in trace-cmd.h, exported by libtracecmd since 1.0 */
int tracecmd_cpus(struct tracecmd_input *handle);

struct dat_ctx {
	struct tep_handle *tep;
	uint64_t count;
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

/*
 * One CPU's next event, decoded, with the kernel stack that follows it on that CPU
 * (a stack entry is written right after its event, on the same CPU).
 */
struct head {
	struct tep_record *rec, *next;
	struct ktrace_event ev;
	struct ktrace_frame *frames;
	size_t cap_frames;
	char comm[32];
	bool valid, done;
};

struct reader {
	struct tracecmd_input *h;
	struct ktrace_decoder *d;
	struct head *heads;
	int ncpus;
	const struct ktrace_parser_ops *ops;
	void *userdata;
	struct ktrace_stats st;
	const char *path;
};

static void bad(struct reader *rd, const char *what)
{
	struct kt_err e;

	rd->st.malformed++;
	if (!rd->ops->bad_line)
		return;
	kt_err_set(&e, rd->path, 0, what);
	rd->ops->bad_line(rd->userdata, &e);
}

static int emit(struct reader *rd, struct ktrace_event *ev)
{
	rd->st.events++;
	ev->line = rd->st.events;
	rd->st.by_kind[ev->kind]++;
	if (ev->kind == KTRACE_EV_UNKNOWN)
		rd->st.unknown++;
	if (ev->kind == KTRACE_EV_LOST) {
		rd->st.lost_events += ev->lost.count;
		rd->st.lost_uncounted += ev->lost.uncounted;
	}
	return rd->ops->event ? rd->ops->event(rd->userdata, ev) : 0;
}

static struct tep_record *take(struct reader *rd, int cpu)
{
	struct head *hd = &rd->heads[cpu];
	struct tep_record *r = hd->next;

	if (r) {
		hd->next = NULL;
		return r;
	}
	return hd->done ? NULL : tracecmd_read_data(rd->h, cpu);
}

/* Fills @cpu's head: its next event, its stack attached. 0, or -ENOMEM from the callback */
static int fill(struct reader *rd, int cpu)
{
	struct head *hd = &rd->heads[cpu];
	struct tep_record *r;
	int k;

	while (!hd->valid) {
		r = take(rd, cpu);
		if (!r) {
			hd->done = true;
			return 0;
		}
		rd->st.lines++;
		if (r->missed_events) {
			struct ktrace_event lost = { .kind = KTRACE_EV_LOST, .cpu = (unsigned int)cpu,
						      .ts = (double)r->ts / 1e9, .ts_ns = r->ts };

			lost.lost.count = r->missed_events > 0 ? (uint64_t)r->missed_events : 0;
			lost.lost.uncounted = r->missed_events < 0;
			k = emit(rd, &lost);
			if (k < 0) {
				tracecmd_free_record(r);
				return k;
			}
		}
		k = ktrace_decoder_decode(rd->d, r, &hd->ev);
		if (k == 1) {
			/* a stack with no event before it here: the trace began inside it */
			rd->st.orphan_stacks++;
			tracecmd_free_record(r);
			continue;
		}
		if (k < 0)
			bad(rd, "a record its event format does not decode");
		hd->rec = r;
		hd->valid = true;
		snprintf(hd->comm, sizeof(hd->comm), "%.*s", (int)hd->ev.comm.len, hd->ev.comm.s);
		hd->ev.comm = (struct ktrace_str){ hd->comm, strlen(hd->comm) };
		/* its stack, if one follows */
		hd->next = take(rd, cpu);
		if (hd->next && ktrace_decoder_decode(rd->d, hd->next, &(struct ktrace_event){ 0 }) == 1) {
			size_t n;
			const struct ktrace_frame *fr = ktrace_decoder_frames(rd->d, &n);

			if (n > hd->cap_frames) {
				struct ktrace_frame *nf = realloc(hd->frames, n * sizeof(*nf));

				if (!nf)
					return -ENOMEM;
				hd->frames = nf;
				hd->cap_frames = n;
			}
			/* a stack of no frames: nothing to copy, and frames may be NULL yet */
			if (n)
				memcpy(hd->frames, fr, n * sizeof(*fr));
			hd->ev.frames = n ? hd->frames : NULL;
			hd->ev.n_frames = n;
			rd->st.stacks++;
			rd->st.frames += n;
			rd->st.lines++;
			tracecmd_free_record(hd->next);
			hd->next = NULL;
		}
	}
	return 0;
}

/* Every CPU's events, merged by time (the earliest head first; a tie to the lower CPU) */
static int read_all(struct reader *rd)
{
	int r;

	for (int c = 0; c < rd->ncpus; c++) {
		r = fill(rd, c);
		if (r < 0)
			return r;
	}
	for (;;) {
		int best = -1;

		for (int c = 0; c < rd->ncpus; c++)
			if (rd->heads[c].valid &&
			    (best < 0 || rd->heads[c].rec->ts < rd->heads[best].rec->ts))
				best = c;
		if (best < 0)
			return 0;
		r = emit(rd, &rd->heads[best].ev);
		tracecmd_free_record(rd->heads[best].rec);
		rd->heads[best].rec = NULL;
		rd->heads[best].valid = false;
		if (r < 0)
			return r;
		r = fill(rd, best);
		if (r < 0)
			return r;
	}
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

static int read_dat(int fd, const char *path, const struct ktrace_parser_ops *ops,
		    void *userdata, struct ktrace_stats *ret_stats, struct kt_err *reterr)
{
	struct tracecmd_input *top, *h;
	struct reader rd = { .ops = ops, .userdata = userdata, .path = path };
	int r, pick;

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
	rd.h = h;
	rd.st.ncpus = -1;
	rd.st.entries = rd.st.written = -1;
	rd.ncpus = tracecmd_cpus(h);
	if (rd.ncpus < 0 || rd.ncpus > 65536 || !tracecmd_get_tep(h)) {
		kt_err_set(reterr, path, 0, "no CPUs or no event formats in it");
		r = -EINVAL;
		goto out;
	}
	rd.st.ncpus = rd.ncpus;
	rd.heads = calloc((size_t)rd.ncpus + 1, sizeof(*rd.heads));
	r = rd.heads ? ktrace_decoder_new(tracecmd_get_tep(h), NULL, NULL, &rd.d) : -ENOMEM;
	if (r < 0) {
		kt_err_set(reterr, path, 0, "out of memory");
		goto out;
	}
	r = read_all(&rd);
	if (r < 0)
		kt_err_set(reterr, path, 0, "event handler failed");
	else if (ret_stats)
		*ret_stats = rd.st;
out:
	for (int c = 0; rd.heads && c < rd.ncpus; c++) {
		if (rd.heads[c].rec)
			tracecmd_free_record(rd.heads[c].rec);
		if (rd.heads[c].next)
			tracecmd_free_record(rd.heads[c].next);
		free(rd.heads[c].frames);
	}
	free(rd.heads);
	ktrace_decoder_free(rd.d);
	if (h != top)
		tracecmd_close(h);
	tracecmd_close(top);
	return r;
}

struct trial {
	int fd;
	const char *path;
};

static int count_event(void *userdata, const struct ktrace_event *ev)
{
	(void)ev;
	(*(uint64_t *)userdata)++;
	return 0;
}

static int trial_read_dat(void *arg)
{
	const struct trial *t = arg;
	struct ktrace_parser_ops none = { .event = count_event };
	struct kt_err e = { 0 };
	uint64_t n = 0;

	return read_dat(t->fd, t->path, &none, &n, NULL, &e);
}

/*
 * The trial read's time, for a hang only: generous, as valgrind or an emulated guest
 * read a trace.dat at far less than the MiB/s of a native read
 */
#define TRIAL_SECONDS_BASE 60
#define TRIAL_BYTES_PER_SECOND (64u << 10)

/*
 * libtracecmd 1.3 and libtraceevent 1.7 trust what a trace.dat says: corrupt files
 * crash them (fuzz-tracedat finds new ways within minutes) in more ways than
 * tracedat_check_sizes() can name ahead. So the file is read once in a child first,
 * and refused when the child dies of a signal or takes too long.
 */
static int trial_read(int fd, const char *path, struct kt_err *reterr)
{
	struct trial t = { fd, path };
	struct stat st;
	unsigned int secs = TRIAL_SECONDS_BASE;
	int r, sig;

	if (fstat(fd, &st) == 0 && st.st_size > 0)
		secs += (unsigned int)((uint64_t)st.st_size / TRIAL_BYTES_PER_SECOND);
	r = trial_in_child(trial_read_dat, &t, secs, &sig);
	if (r == -ECHILD) {
		kt_err_set(reterr, path, 0,
			   sig == SIGALRM
				   ? "libtracecmd did not finish reading it (a corrupt trace.dat)"
				   : "libtracecmd crashed reading it (a corrupt trace.dat)");
		return -EINVAL;
	}
	if (r < 0)
		kt_err_set(reterr, path, 0, "cannot start the trial read of it");
	return r;
}

int tracedat_read_fd(int fd, const char *path, const struct ktrace_parser_ops *ops,
		     void *userdata, struct ktrace_stats *ret_stats, struct kt_err *reterr)
{
	const char *why = NULL;
	int r;

	/* libtracecmd says what it dislikes on stderr; sources say nothing */
	tracecmd_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
	r = tracedat_check_sizes(fd, &why);
	if (r < 0) {
		kt_err_set(reterr, path, 0, r == -EINVAL ? why : "cannot read");
		return r;
	}
	r = trial_read(fd, path, reterr);
	if (r < 0)
		return r;
	return read_dat(fd, path, ops, userdata, ret_stats, reterr);
}
