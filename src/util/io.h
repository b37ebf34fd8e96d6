/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Writes all of @p, going on after short writes and EINTR. 0 or -errno. */
int fd_write_all(int fd, const void *p, size_t len);

/*
 * Opens the directory @dir for files others must not swap or read: @dir itself no
 * symbolic link, owned by the effective user, writable by no one else. The fd, or
 * -errno with *reterr_why (static text) when it is refused: -ELOOP "is a symbolic
 * link", -EPERM "is owned by another user" / "is writable by group or others".
 */
int dir_open_private(const char *dir, const char **reterr_why);

/*
 * Flushes @f and says whether everything written to it arrived: 0, or -errno of the
 * write that failed (-ENOSPC on a full disk, -EPIPE), -EIO when it left none.
 */
int stream_flush(FILE *f);

/*
 * A file named on the command line, opened for reading without hanging: a FIFO's
 * open() does not wait for a writer (one without any reads as empty), a directory is
 * -EISDIR, a device or socket (/dev/zero, read forever) -ENXIO, a regular file larger
 * than @max -EFBIG. A file descriptor, or -errno.
 */
int input_open(const char *path, uint64_t max);
/* @fd (or the -errno it is) as a stdio stream for reading; @fd is closed on failure. 0 or -errno. */
int fd_fdopen_read(int fd, FILE **ret_file);
/* input_open() as a stdio stream. 0 or -errno. */
int input_fopen(const char *path, uint64_t max, FILE **ret_file);
