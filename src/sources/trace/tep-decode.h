/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"

/*
 * Binary trace records (a trace.dat's, a live ring buffer's) decoded with libtraceevent,
 * against the event formats the tep_handle holds, into the struct ktrace_event the
 * text parser gives: the same kinds and fields, so that the ledger cannot tell which
 * way a trace came. Fields are found by name in each event's format, once per event
 * id; a field an event lacks (a kernel that has another layout) makes the record an
 * UNKNOWN event, as a line the text parser does not know.
 */
struct tep_handle;
struct tep_record;
struct ktrace_decoder;

/*
 * The comm of @pid for a record's header: a trace.dat has the kernel's saved command
 * lines (libtraceevent's), a live buffer has none (the caller's own table). NULL: "<...>".
 */
typedef const char *(*ktrace_comm_fn)(void *userdata, int pid);

/* @comm NULL: libtraceevent's command lines. 0 or -ENOMEM. */
int ktrace_decoder_new(struct tep_handle *tep, ktrace_comm_fn comm, void *userdata,
		       struct ktrace_decoder **ret);
struct ktrace_decoder *ktrace_decoder_free(struct ktrace_decoder *d);

/*
 * Decodes @rec into *@ret. Strings point into @rec's data or into @d (valid until the
 * next call). 0; 1 when @rec is a kernel stack (its frames are in @d, for
 * ktrace_decoder_frames(), to go with the event before it on its CPU); -EINVAL for a
 * record the formats cannot decode (a damaged one: *ret then says UNKNOWN).
 */
int ktrace_decoder_decode(struct ktrace_decoder *d, struct tep_record *rec,
			  struct ktrace_event *ret);
/* The frames of the last kernel stack decoded; owned by @d, valid until then. */
const struct ktrace_frame *ktrace_decoder_frames(const struct ktrace_decoder *d,
						 size_t *ret_n);
