/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "root.h"

struct kt_root {
	int fd;
	char *dir;
	bool live;
};

int root_new(const char *dir, struct kt_root **ret_root)
{
	struct kt_root *root;
	struct stat st, st_slash;
	int fd;

	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	root = calloc(1, sizeof(*root));
	if (!root) {
		close(fd);
		return -ENOMEM;
	}
	root->fd = fd;
	root->dir = strdup(dir);
	if (!root->dir) {
		close(fd);
		free(root);
		return -ENOMEM;
	}
	/* "/" by identity, not by spelling: --root=/ and --root=//. are the live system too */
	if (fstat(fd, &st) == 0 && stat("/", &st_slash) == 0)
		root->live = st.st_dev == st_slash.st_dev && st.st_ino == st_slash.st_ino;
	*ret_root = root;
	return 0;
}

struct kt_root *root_free(struct kt_root *root)
{
	if (!root)
		return NULL;
	close(root->fd);
	free(root->dir);
	free(root);
	return NULL;
}

const char *root_dir(const struct kt_root *root)
{
	return root->dir;
}

bool root_is_live_system(const struct kt_root *root)
{
	return root->live;
}

int root_open(const struct kt_root *root, const char *relpath, int flags)
{
	int fd;

	if (relpath[0] == '/')
		return -EINVAL;
	fd = openat(root->fd, relpath, flags | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	return fd;
}

int root_fopen(const struct kt_root *root, const char *relpath, FILE **ret_file)
{
	FILE *f;
	int fd;

	fd = root_open(root, relpath, O_RDONLY);
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

bool root_exists(const struct kt_root *root, const char *relpath)
{
	if (relpath[0] == '/')
		return false;
	return faccessat(root->fd, relpath, F_OK, 0) == 0;
}

int root_abspath(const struct kt_root *root, const char *relpath, char **ret_path)
{
	char *p;
	size_t n = strlen(root->dir);

	while (n > 1 && root->dir[n - 1] == '/')
		n--;
	if (asprintf(&p, "%.*s%s%s", (int)n, root->dir, n == 1 && root->dir[0] == '/' ? "" : "/",
		     relpath) < 0)
		return -ENOMEM;
	*ret_path = p;
	return 0;
}

int root_read_file(const struct kt_root *root, const char *relpath, size_t max,
		   char **ret_buf, size_t *ret_len)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, cap = 4096;

	fd = root_open(root, relpath, O_RDONLY);
	if (fd < 0)
		return fd;
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (len + 1 >= cap) {
			char *nb;

			if (cap > max + 1)
				return -EFBIG;
			cap *= 2;
			nb = realloc(buf, cap);
			if (!nb)
				return -ENOMEM;
			buf = nb;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		len += n;
		if (len > max)
			return -EFBIG;
	}
	buf[len] = '\0';
	*ret_buf = buf;
	*ret_len = len;
	buf = NULL;
	return 0;
}
