/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tep-decode.h"
#include "event.h"

/*
 * The binary ring buffer of an instance: per_cpu/cpuN/trace_pipe_raw, read a sub-buffer
 * (page) at a time with libtracefs, and the pages decoded with libtraceevent (kbuffer
 * for the page, tep-decode.c for each record) against the event formats of the
 * tracefs they came from. No text is printed or parsed: what live mode reads this way
 * costs a fraction of reading trace_pipe.
 */
struct tep_handle;
struct tep_record;
struct trace_seq;

struct ktrace_raw;

/*
 * Opens the raw buffers of the instance at @inst_path (relative to the tracefs mount
 * @tfd, at @tracefs_path) with the formats of @formats (NULL-terminated): "system/event"
 * for one event, "system" for every event of a small system (ftrace, a kprobe group).
 * No symbols: ktrace_raw_kallsyms(). 0, or -errno with *reterr_why (static text).
 */
int ktrace_raw_open(int tfd, const char *tracefs_path, const char *inst_path,
		     unsigned int ncpus, const char *const *formats, struct ktrace_raw **ret,
		     const char **reterr_why);
struct ktrace_raw *ktrace_raw_free(struct ktrace_raw *r);
/* The formats the pages are decoded with. Owned by @r. */
struct tep_handle *ktrace_raw_tep(const struct ktrace_raw *r);
/* Symbols for the kernel stacks (/proc/kallsyms' text). 0 or -EINVAL. */
int ktrace_raw_kallsyms(struct ktrace_raw *r, const char *text);
unsigned int ktrace_raw_ncpus(const struct ktrace_raw *r);

typedef int (*ktrace_raw_page_fn)(void *userdata, unsigned int cpu, const void *page,
				   size_t len);
/*
 * Reads the pages each CPU's buffer holds now (the last one may be part full), at most
 * @max_pages a CPU, handing each to @page. 1 when any came, 0 none, -errno (or the
 * callback's). A CPU that had more than @max_pages is "behind" until a read drains it.
 */
int ktrace_raw_read(struct ktrace_raw *r, ktrace_raw_page_fn page, void *userdata,
		     unsigned int max_pages);
/* Per CPU: did the last ktrace_raw_read() leave pages unread? Owned by @r. */
const bool *ktrace_raw_behind(const struct ktrace_raw *r);

/*
 * Pages in (each CPU's in the order read), events out: decoded, a kernel stack given to
 * the event before it on its CPU, every CPU's merged by time. Each CPU's buffer is read
 * in turn, so a CPU read later has events newer than what an earlier one could give
 * yet: events go out only once they are older than the newest by a margin (and than
 * the last read of a CPU left behind), the rest at the end.
 */
struct raw_stream;

struct raw_stream_ops {
	/*
	 * As soon as decoded, in each CPU's order (not merged): for what must be done while
	 * the task still runs (its files, its parents). Optional; no frames yet.
	 */
	int (*decoded)(void *userdata, const struct ktrace_event *ev);
	/* In time order. @rec: the record the event came from (its data valid during the call only) */
	int (*event)(void *userdata, const struct ktrace_event *ev, const struct tep_record *rec);
	/* a page or record the formats cannot decode; optional */
	void (*bad)(void *userdata, const char *what);
};

int raw_stream_new(struct tep_handle *tep, ktrace_comm_fn comm, void *comm_userdata,
		   unsigned int ncpus, const struct raw_stream_ops *ops, void *userdata,
		   struct raw_stream **ret);
struct raw_stream *raw_stream_free(struct raw_stream *s);
/* Decodes @page of @cpu; nothing is emitted before raw_stream_flush(). 0 or -errno. */
int raw_stream_page(struct raw_stream *s, unsigned int cpu, const void *page, size_t len);
/*
 * Before each round of reads of every CPU's buffer: from then on, raw_stream_flush()
 * lets out only what is older than the newest event decoded before the round began.
 */
void raw_stream_round(struct raw_stream *s);
/*
 * Emits, in time order, the events more than @age seconds older than the newest one
 * decoded (and, given rounds, older than the newest before the last round began), and
 * not newer than the last of a CPU @behind says was not drained (NULL: none); @age < 0:
 * everything (the end). 0 or -errno.
 */
int raw_stream_flush(struct raw_stream *s, double age, const bool *behind);
const struct ktrace_stats *raw_stream_stats(const struct raw_stream *s);

/*
 * The text of @ev (from @rec; a kernel stack given to it as its frames) appended to @s:
 * the line trace_pipe would have printed, with the body libtraceevent prints from the
 * event's format (trace-cmd's), then " => fn" lines for its stack; "CPU:N [LOST M
 * EVENTS]" for a LOST event (@rec NULL). The time in microseconds, rounded as
 * trace_pipe rounds it; @comm NULL prints "<...>". The text parser reads it back into
 * @ev. 0 or -ENOMEM.
 */
int raw_format_event(struct tep_handle *tep, struct trace_seq *s, const struct ktrace_event *ev,
		     const struct tep_record *rec, const char *comm);

/*
 * @ev made what the text parser reads back from raw_format_event()'s line, for a reader
 * that skips the text (live top): the time rounded to the microsecond, the task named
 * @comm (NULL: "<...>"), a marker's line breaks made spaces (its text then in @buf, of
 * @len bytes, which must outlive @ev's use). The same attempts come of either.
 */
void raw_event_as_text(struct ktrace_event *ev, const char *comm, char *buf, size_t len);
