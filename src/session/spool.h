/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The trace spool: what the live trace gives, written to a file descriptor as the text
 * trace_pipe (or trace-cmd) prints, which the trace parser then reads as it reads a
 * saved trace. On the way, task names the kernel had not cached yet ("<...>") are put
 * in, "[LOST n EVENTS]" lines are counted, and markers are written into the trace
 * itself (through ->mark): the file behind a finit_module() fd ("kmodtop_fd"), and the
 * parents of a requester that was running before the trace began ("kmodtop_parent").
 */
struct trace_spool;
struct ktrace_event;

struct trace_spool_ops {
	/* Writes @text into the trace as a marker; 0 or -errno. NULL: no markers. */
	int (*mark)(void *userdata, const char *text, size_t len);
};

struct trace_spool_stats {
	uint64_t comms_resolved, comms_unknown;	/* "<...>" tasks named, and not */
	uint64_t fds_marked, fds_unread;	/* finit_module fds named by a marker, and not */
	uint64_t *lost_seen;			/* per CPU, from "[LOST n EVENTS]" */
	uint64_t lost_uncounted;		/* "[LOST EVENTS]": lost, count not given */
};

/*
 * A spool writing to @fd (not owned), counting lost events for @ncpus CPUs. @ops may be
 * NULL (no markers). 0 or -ENOMEM.
 */
int trace_spool_new(int fd, unsigned int ncpus, const struct trace_spool_ops *ops,
		    void *userdata, struct trace_spool **ret);
struct trace_spool *trace_spool_free(struct trace_spool *sp);

/* Text as trace_pipe gives it, in pieces of any size: whole lines go out. */
void trace_spool_feed(struct trace_spool *sp, const char *p, size_t len);
/*
 * A decoded event from the raw buffers, before it is written: what it tells of task
 * names (fork, exec, rename), and its markers.
 */
void trace_spool_note(struct trace_spool *sp, const struct ktrace_event *ev);
/*
 * The name to print for a decoded event's task (NULL: not known; "<idle>" for pid 0),
 * counted as resolved or not; a lost-events record is counted instead (NULL).
 */
const char *trace_spool_comm(struct trace_spool *sp, const struct ktrace_event *ev);
/* Text that goes out as it is (the raw events printed, a header). */
void trace_spool_write(struct trace_spool *sp, const char *p, size_t len);
/* What is buffered, to the fd. 0, or the first -errno any write or allocation gave. */
int trace_spool_flush(struct trace_spool *sp);
/* The last line without its newline too, then flushed. */
int trace_spool_finish(struct trace_spool *sp);
int trace_spool_error(const struct trace_spool *sp);
const struct trace_spool_stats *trace_spool_stats(const struct trace_spool *sp);
