/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "kmsg.h"

/*
 * Following /dev/kmsg on a live system: every record the kernel logs from now (or,
 * with since_boot, every record still in the ring buffer) goes to the kmsg push
 * parser of kmsg.c, the one offline captures go through, and optionally verbatim to a
 * spool file descriptor (a bundle's capture/kmsg.raw is such a spool).
 *
 * One read() of /dev/kmsg returns one record: its text line and its dictionary lines.
 * EPIPE means the kernel overwrote records before they were read; the next read()
 * returns the oldest record left. Each EPIPE is counted, and the records lost come out
 * of the sequence numbers (the parser's seq_gaps).
 */
struct kmsg_follow;

struct kmsg_follow_stats {
	uint64_t reads;			/* records read */
	uint64_t bytes;
	uint64_t epipe;			/* times records were overwritten before read */
	uint64_t lost;			/* records missing from the sequence numbers */
};

/*
 * Opens @path (NULL: "/dev/kmsg") non-blocking, at its end unless @since_boot. @ops
 * may be NULL (no records wanted: a spool only). @spool_fd (-1: none) gets every
 * record as read; it is not owned. 0 or -errno.
 */
int kmsg_follow_open(const char *path, bool since_boot, const struct klog_parser_ops *ops,
		     void *userdata, int spool_fd, struct kmsg_follow **ret);
struct kmsg_follow *kmsg_follow_free(struct kmsg_follow *kf);
/* For poll(): readable when a record is waiting. */
int kmsg_follow_fd(const struct kmsg_follow *kf);
/*
 * Reads every record waiting now into the parser and the spool. 0 when no more is
 * waiting; -errno for a read or spool error, or the record callback's error.
 */
int kmsg_follow_read(struct kmsg_follow *kf);
/* Emits the record still pending in the parser (its dictionary is complete). */
int kmsg_follow_finish(struct kmsg_follow *kf);
/*
 * For the unit tests: read(2) of the open fd through @fn, a fake /dev/kmsg that
 * returns one record a call and can fail with EPIPE, as no pipe or file can. @fn
 * returns as read(2) does, with errno set; NULL restores read(2).
 */
typedef ssize_t (*kmsg_follow_read_fn)(int fd, void *buf, size_t len, void *userdata);
void kmsg_follow_set_read(struct kmsg_follow *kf, kmsg_follow_read_fn fn, void *userdata);
/* Owned by @kf. */
const struct kmsg_follow_stats *kmsg_follow_stats(const struct kmsg_follow *kf);
const struct kmsg_stats *kmsg_follow_parser_stats(const struct kmsg_follow *kf);
