/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/macro.h"
#include "kmsg-follow.h"
#include "util/io.h"

/* printk's CONSOLE_EXT_LOG_MAX is 8 KiB: a record never needs more than this */
#define KMSG_RECORD_MAX (16 * 1024)

struct kmsg_follow {
	int fd;
	int spool_fd;
	kmsg_follow_read_fn read;	/* NULL: read(2) */
	void *read_userdata;
	struct kmsg_parser *parser;
	struct kmsg_follow_stats stats;
	char buf[KMSG_RECORD_MAX];
};

int kmsg_follow_open(const char *path, bool since_boot, const struct klog_parser_ops *ops,
		     void *userdata, int spool_fd, struct kmsg_follow **ret)
{
	struct kmsg_follow *kf;
	int r;

	if (!path)
		path = "/dev/kmsg";
	kf = calloc(1, sizeof(*kf));
	if (!kf)
		return -ENOMEM;
	kf->spool_fd = spool_fd;
	kf->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (kf->fd < 0) {
		r = -errno;
		free(kf);
		return r;
	}
	/* devkmsg_llseek(): SEEK_END is "after the last record", the next one logged */
	if (!since_boot && lseek(kf->fd, 0, SEEK_END) < 0) {
		r = -errno;
		kmsg_follow_free(kf);
		return r;
	}
	r = kmsg_parser_new(path, ops, userdata, &kf->parser);
	if (r < 0) {
		kmsg_follow_free(kf);
		return r;
	}
	*ret = kf;
	return 0;
}

struct kmsg_follow *kmsg_follow_free(struct kmsg_follow *kf)
{
	if (!kf)
		return NULL;
	if (kf->fd >= 0)
		close(kf->fd);
	kmsg_parser_free(kf->parser);
	free(kf);
	return NULL;
}

int kmsg_follow_fd(const struct kmsg_follow *kf)
{
	return kf->fd;
}

/* One record: its text line, then " KEY=value" dictionary lines, each ending in '\n' */
static int feed_record(struct kmsg_follow *kf, const char *rec, size_t len)
{
	const char *p = rec, *end = rec + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		int r = kmsg_parser_feed(kf->parser, p, (size_t)(le - p));

		if (r < 0)
			return r;
		p = le + 1;
	}
	return 0;
}

void kmsg_follow_set_read(struct kmsg_follow *kf, kmsg_follow_read_fn fn, void *userdata)
{
	kf->read = fn;
	kf->read_userdata = userdata;
}

int kmsg_follow_read(struct kmsg_follow *kf)
{
	for (;;) {
		ssize_t n = kf->read ? kf->read(kf->fd, kf->buf, sizeof(kf->buf), kf->read_userdata)
				     : read(kf->fd, kf->buf, sizeof(kf->buf));
		int r;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return 0;
			if (errno == EPIPE) {
				/* overwritten before we read them: count and go on */
				kf->stats.epipe++;
				continue;
			}
			return -errno;
		}
		if (n == 0)
			return 0;
		kf->stats.reads++;
		kf->stats.bytes += (uint64_t)n;
		if (kf->spool_fd >= 0) {
			r = fd_write_all(kf->spool_fd, kf->buf, (size_t)n);
			if (r < 0)
				return r;
		}
		r = feed_record(kf, kf->buf, (size_t)n);
		if (r < 0)
			return r;
		kf->stats.lost = kmsg_parser_stats(kf->parser)->seq_gaps;
	}
}

int kmsg_follow_finish(struct kmsg_follow *kf)
{
	return kmsg_parser_finish(kf->parser);
}

const struct kmsg_follow_stats *kmsg_follow_stats(const struct kmsg_follow *kf)
{
	return &kf->stats;
}

const struct kmsg_stats *kmsg_follow_parser_stats(const struct kmsg_follow *kf)
{
	return kmsg_parser_stats(kf->parser);
}
