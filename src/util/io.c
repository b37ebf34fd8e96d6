/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io.h"

int fd_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int dir_open_private(const char *dir, const char **reterr_why)
{
	struct stat st;
	int fd, r;

	*reterr_why = NULL;
	/* O_NOFOLLOW: the directory itself must not be a symlink (ELOOP) */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		/* O_DIRECTORY reports a symlink as ENOTDIR */
		if ((r == -ENOTDIR || r == -ELOOP) && lstat(dir, &st) == 0 &&
		    S_ISLNK(st.st_mode)) {
			*reterr_why = "is a symbolic link";
			return -ELOOP;
		}
		return r;
	}
	/* only we (and root) may create files in it: what is in it needs no owner check */
	if (fstat(fd, &st) < 0) {
		r = -errno;
	} else if (st.st_uid != geteuid()) {
		*reterr_why = "is owned by another user";
		r = -EPERM;
	} else if (st.st_mode & 022) {
		*reterr_why = "is writable by group or others";
		r = -EPERM;
	} else {
		return fd;
	}
	close(fd);
	return r;
}

int input_open(const char *path, uint64_t max)
{
	struct stat st;
	int fd, fl, r;

	/* O_NONBLOCK: open() of a FIFO without a writer would wait for one forever */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		goto fail;
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		goto fail;
	}
	/* a device (/dev/zero) or socket never ends; a FIFO the user named does */
	if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
		errno = ENXIO;
		goto fail;
	}
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > max) {
		errno = EFBIG;
		goto fail;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0)
		goto fail;
	return fd;
fail:
	r = -errno;
	close(fd);
	return r;
}

int stream_flush(FILE *f)
{
	/* stdio keeps what a failed write() held: flushing again gives its errno */
	errno = 0;
	if (fflush(f) != 0 || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}

int fd_fdopen_read(int fd, FILE **ret_file)
{
	FILE *f;

	if (fd < 0)
		return fd;
	f = fdopen(fd, "re");
	if (!f) {
		int r = -errno;

		close(fd);
		return r;
	}
	*ret_file = f;
	return 0;
}

int input_fopen(const char *path, uint64_t max, FILE **ret_file)
{
	return fd_fdopen_read(input_open(path, max), ret_file);
}
