/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/io.h"
#include "util/tree-move.h"

static int copy_file_at(int sfd, int dfd, const char *name, mode_t mode)
{
	char buf[65536];
	int in, out, r = 0;

	in = openat(sfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (in < 0)
		return -errno;
	out = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode & 07777);
	if (out < 0) {
		r = -errno;
		close(in);
		return r;
	}
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : 0;
			break;
		}
		r = fd_write_all(out, buf, (size_t)n);
		if (r < 0)
			break;
	}
	close(in);
	if (close(out) < 0 && r >= 0)
		r = -errno;
	return r;
}

/* Copies what directory @sfd holds into directory @dfd (both closed here) */
static int copy_dir(int sfd, int dfd)
{
	struct dirent *de;
	DIR *d = fdopendir(sfd);
	int r = 0;

	if (!d) {
		r = -errno;
		close(sfd);
		close(dfd);
		return r;
	}
	while (r >= 0 && (errno = 0, de = readdir(d))) {
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			r = -errno;
		} else if (S_ISREG(st.st_mode)) {
			r = copy_file_at(dirfd(d), dfd, de->d_name, st.st_mode);
		} else if (S_ISDIR(st.st_mode)) {
			int s2, d2;

			if (mkdirat(dfd, de->d_name, st.st_mode & 07777) < 0) {
				r = -errno;
				continue;
			}
			s2 = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
			d2 = s2 >= 0 ? openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
			if (s2 < 0 || d2 < 0) {
				r = -errno;
				if (s2 >= 0)
					close(s2);
				continue;
			}
			r = copy_dir(s2, d2);
		} else if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t n = readlinkat(dirfd(d), de->d_name, target, sizeof(target) - 1);

			if (n < 0 || (size_t)n >= sizeof(target) - 1) {
				r = n < 0 ? -errno : -ENAMETOOLONG;
				continue;
			}
			target[n] = '\0';
			if (symlinkat(target, dfd, de->d_name) < 0)
				r = -errno;
		} else {
			r = -ENOTSUP;
		}
	}
	if (r >= 0 && errno)
		r = -errno;
	closedir(d);
	if (fsync(dfd) < 0 && r >= 0)
		r = -errno;
	close(dfd);
	return r;
}

static int remove_at(int pfd, const char *name)
{
	struct dirent *de;
	DIR *d;
	int fd, r = 0;

	if (unlinkat(pfd, name, 0) == 0)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return errno == ENOENT ? 0 : -errno;
	fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		r = -errno;
		close(fd);
		return r;
	}
	while ((de = readdir(d))) {
		int q;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		q = remove_at(dirfd(d), de->d_name);
		if (q < 0 && r >= 0)
			r = q;
	}
	closedir(d);
	if (unlinkat(pfd, name, AT_REMOVEDIR) < 0 && r >= 0)
		r = -errno;
	return r;
}

int tree_remove(const char *path)
{
	return remove_at(AT_FDCWD, path);
}

int tree_move(const char *from, const char *to)
{
	struct stat st;
	int sfd, dfd, r;

	if (rename(from, to) == 0)
		return 0;
	if (errno != EXDEV)
		return -errno;
	if (lstat(from, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (mkdir(to, st.st_mode & 07777) < 0)
		return -errno;
	sfd = open(from, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	dfd = sfd >= 0 ? open(to, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	if (sfd < 0 || dfd < 0) {
		r = -errno;
		if (sfd >= 0)
			close(sfd);
		tree_remove(to);
		return r;
	}
	r = copy_dir(sfd, dfd);
	if (r < 0) {
		tree_remove(to);
		return r;
	}
	/* the copy is whole: a source that cannot all be removed costs only the space */
	tree_remove(from);
	return 0;
}
