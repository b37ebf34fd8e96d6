/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic-file.h"

struct atomic_file {
	char *path, *tmp, *dir;
	FILE *f;
	bool committed;
};

int atomic_file_new(const char *path, mode_t mode, struct atomic_file **ret)
{
	struct atomic_file *a = calloc(1, sizeof(*a));
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	int fd, r;

	if (!a)
		return -ENOMEM;
	if (!*base) {
		free(a);
		return -EISDIR;
	}
	a->path = strdup(path);
	a->dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path))
		       : strdup(".");
	if (!a->path || !a->dir || asprintf(&a->tmp, "%s/.%s.XXXXXX", a->dir, base) < 0) {
		a->tmp = NULL;
		r = -ENOMEM;
		goto fail;
	}
	fd = mkostemp(a->tmp, O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		free(a->tmp);
		a->tmp = NULL;
		goto fail;
	}
	/* mkostemp() makes it 0600: the reader is often another user (node_exporter's) */
	if (fchmod(fd, mode) < 0 || !(a->f = fdopen(fd, "w"))) {
		r = -errno;
		close(fd);
		goto fail;
	}
	*ret = a;
	return 0;
fail:
	atomic_file_free(a);
	return r;
}

FILE *atomic_file_stream(struct atomic_file *a)
{
	return a->f;
}

int atomic_file_commit(struct atomic_file *a)
{
	int r = 0, dfd;

	errno = 0;
	if (fflush(a->f) != 0 || ferror(a->f))
		r = errno ? -errno : -EIO;
	/* the data on disk before the name points at it: no empty file after a crash */
	if (r == 0 && fsync(fileno(a->f)) < 0)
		r = -errno;
	if (fclose(a->f) != 0 && r == 0)
		r = -errno;
	a->f = NULL;
	if (r == 0 && rename(a->tmp, a->path) < 0)
		r = -errno;
	if (r < 0)
		return r;
	a->committed = true;
	dfd = open(a->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return 0;
}

struct atomic_file *atomic_file_free(struct atomic_file *a)
{
	if (!a)
		return NULL;
	if (a->f)
		fclose(a->f);
	if (a->tmp && !a->committed)
		unlink(a->tmp);
	free(a->tmp);
	free(a->dir);
	free(a->path);
	free(a);
	return NULL;
}
