/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "io.h"
#include "macro.h"
#include "root.h"

/* refusals already told, by path hash: a file opened ten times is named once */
#define ROOT_SEEN_MAX 64

struct kt_root {
	int fd;
	char *dir;
	bool live;
	uint32_t *seen;
	size_t n_seen;
};

static root_refusal_fn *refusal_fn;

void root_set_refusal_handler(root_refusal_fn *fn)
{
	refusal_fn = fn;
}

const char *root_refusal_text(int err)
{
	switch (err) {
	case -EXDEV:
		return "a symlink leads out of the root, not read";
	case -ELOOP:
		return "too many symlinks (a loop?), not read";
	case -EISDIR:
		return "a directory, not a file, not read";
	case -ENXIO:
		return "not a regular file (a FIFO, socket or device), not read";
	case -EFBIG:
		return "larger than such a file can be, not read";
	default:
		return NULL;
	}
}

static void refused(const struct kt_root *root, const char *relpath, int err)
{
	uint32_t h = 2166136261u;
	struct kt_root *r = (struct kt_root *)root;

	if (!refusal_fn || !root_refusal_text(err))
		return;
	for (const char *p = relpath; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	h ^= (uint32_t)-err;
	for (size_t i = 0; i < r->n_seen; i++)
		if (r->seen[i] == h)
			return;
	if (r->n_seen < ROOT_SEEN_MAX)
		r->seen[r->n_seen++] = h;
	refusal_fn(root->dir, relpath, err);
}

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
	root->seen = calloc(ROOT_SEEN_MAX, sizeof(*root->seen));
	if (!root->dir || !root->seen) {
		root_free(root);
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
	free(root->seen);
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

#define WALK_MAX_DEPTH 128
#define WALK_MAX_LINKS 40

int root_walk_open(int dirfd, const char *relpath, int flags)
{
	int stack[WALK_MAX_DEPTH + 1];
	size_t depth = 0;
	unsigned int links = 0;
	_cleanup_free_ char *path = strdup(relpath);
	const char *p;
	int r;

	if (!path)
		return -ENOMEM;
	if (path[0] == '/')
		return -EXDEV;
	stack[0] = dirfd;
	p = path;
	for (;;) {
		char name[NAME_MAX + 1];
		const char *end, *rest;
		struct stat st;
		size_t len;
		bool last;
		int fd;

		while (*p == '/')
			p++;
		if (!*p) {
			/* the path ends on a directory already walked ("a/b/", "a/..") */
			r = openat(stack[depth], ".", flags | O_CLOEXEC | O_NOFOLLOW);
			r = r < 0 ? -errno : r;
			break;
		}
		end = strchrnul(p, '/');
		len = (size_t)(end - p);
		if (len > NAME_MAX) {
			r = -ENAMETOOLONG;
			break;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		for (rest = end; *rest == '/'; rest++)
			;
		last = !*rest;
		p = end;
		if (strcmp(name, ".") == 0)
			continue;
		if (strcmp(name, "..") == 0) {
			if (depth == 0) {
				r = -EXDEV;
				break;
			}
			close(stack[depth--]);
			continue;
		}
		fd = openat(stack[depth], name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0) {
			r = -errno;
			if (fd >= 0)
				close(fd);
			break;
		}
		if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t n = readlinkat(fd, "", target, sizeof(target) - 1);
			char *np;

			close(fd);
			if (n < 0) {
				r = -errno;
				break;
			}
			target[n] = '\0';
			if (++links > WALK_MAX_LINKS) {
				r = -ELOOP;
				break;
			}
			/* an absolute target is the host's, never the root's */
			if (target[0] == '/') {
				r = -EXDEV;
				break;
			}
			if (asprintf(&np, "%s/%s", target, end) < 0) {
				r = -ENOMEM;
				break;
			}
			free(path);
			path = np;
			p = path;
			continue;
		}
		if (last) {
			close(fd);
			/* O_NOFOLLOW: swapped for a symlink since fstat() is ELOOP, not followed */
			r = openat(stack[depth], name, flags | O_CLOEXEC | O_NOFOLLOW);
			r = r < 0 ? -errno : r;
			break;
		}
		if (!S_ISDIR(st.st_mode)) {
			close(fd);
			r = -ENOTDIR;
			break;
		}
		if (depth == WALK_MAX_DEPTH) {
			close(fd);
			r = -ENAMETOOLONG;
			break;
		}
		stack[++depth] = fd;
	}
	while (depth > 0)
		close(stack[depth--]);
	return r;
}

/* -ENOSYS once: kernels before 5.6 */
static bool no_openat2;

static int open_beneath(const struct kt_root *root, const char *relpath, int flags)
{
	struct open_how how = {
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};

	/* openat2() takes with O_PATH only the flags O_PATH knows */
	if (!(flags & O_PATH))
		flags |= O_NOCTTY;
	flags |= O_CLOEXEC;
	how.flags = (uint64_t)flags;

	if (root->live) {
		int fd = openat(root->fd, relpath, flags);

		return fd < 0 ? -errno : fd;
	}
	for (int tries = 0; !no_openat2 && tries < 8; tries++) {
		long fd = syscall(SYS_openat2, root->fd, relpath, &how, sizeof(how));

		if (fd >= 0)
			return (int)fd;
		/* EAGAIN: a rename raced the lookup; ENOSYS: old kernel; EPERM: seccomp */
		if (errno == ENOSYS || errno == EPERM)
			no_openat2 = true;
		else if (errno != EAGAIN)
			return -errno;
	}
	return root_walk_open(root->fd, relpath, flags);
}

/*
 * Opened without blocking (a FIFO's open() waits for a writer), then refused unless a
 * regular file of at most @max bytes: a FIFO or a device (/dev/zero) would be read
 * forever. procfs, sysfs and tracefs files are regular too, of size 0 or 4096.
 */
static int open_file(const struct kt_root *root, const char *relpath, int flags, uint64_t max,
		     bool tell_big)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	int fl;

	if (relpath[0] == '/')
		return -EINVAL;
	fd = open_beneath(root, relpath, flags & O_PATH ? flags : flags | O_NONBLOCK);
	if (fd < 0) {
		refused(root, relpath, fd);
		return fd;
	}
	if (flags & (O_DIRECTORY | O_PATH)) {
		int ret = fd;

		fd = -1;
		return ret;
	}
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode)) {
		int r = S_ISDIR(st.st_mode) ? -EISDIR : -ENXIO;

		refused(root, relpath, r);
		return r;
	}
	/* the live kernel's files give nominal sizes (0, 4096); a captured copy its own */
	if (!root->live && (uint64_t)st.st_size > max) {
		if (tell_big)
			refused(root, relpath, -EFBIG);
		return -EFBIG;
	}
	if (!(flags & O_NONBLOCK)) {
		fl = fcntl(fd, F_GETFL);
		if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0)
			return -errno;
	}
	fl = fd;
	fd = -1;
	return fl;
}

int root_open(const struct kt_root *root, const char *relpath, int flags)
{
	return open_file(root, relpath, flags, ROOT_STREAM_MAX, true);
}

int root_fopen_max(const struct kt_root *root, const char *relpath, uint64_t max,
		   FILE **ret_file)
{
	return fd_fdopen_read(open_file(root, relpath, O_RDONLY, max, true), ret_file);
}

int root_fopen(const struct kt_root *root, const char *relpath, FILE **ret_file)
{
	return root_fopen_max(root, relpath, ROOT_STREAM_MAX, ret_file);
}

bool root_exists(const struct kt_root *root, const char *relpath)
{
	int fd;

	if (relpath[0] == '/')
		return false;
	fd = open_beneath(root, relpath, O_PATH);
	if (fd < 0) {
		refused(root, relpath, fd);
		return false;
	}
	close(fd);
	return true;
}

int root_abspath(const struct kt_root *root, const char *relpath, char **ret_path)
{
	char *p;
	size_t n = strlen(root->dir);

	/* the library that takes the path follows symlinks: refuse one leading out first */
	if (!root->live) {
		int fd = open_beneath(root, relpath, O_PATH);

		if (fd >= 0)
			close(fd);
		else if (fd == -EXDEV || fd == -ELOOP) {
			refused(root, relpath, fd);
			return fd;
		}
	}
	while (n > 1 && root->dir[n - 1] == '/')
		n--;
	if (asprintf(&p, "%.*s%s%s", (int)n, root->dir, n == 1 && root->dir[0] == '/' ? "" : "/",
		     relpath) < 0)
		return -ENOMEM;
	*ret_path = p;
	return 0;
}

int root_check_dir(const struct kt_root *root, const char *relpath)
{
	DIR *d;
	struct dirent *de;
	int fd, r = 0;

	if (root->live)
		return 0;
	fd = open_beneath(root, relpath, O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		refused(root, relpath, fd);
		return fd;
	}
	d = fdopendir(fd);
	if (!d) {
		r = -errno;
		close(fd);
		return r;
	}
	while ((de = readdir(d))) {
		_cleanup_free_ char *rel = NULL;
		int efd;

		if (de->d_type != DT_LNK && de->d_type != DT_UNKNOWN)
			continue;
		if (asprintf(&rel, "%s/%s", relpath, de->d_name) < 0) {
			r = -ENOMEM;
			break;
		}
		efd = open_beneath(root, rel, O_PATH);
		if (efd >= 0) {
			close(efd);
		} else if (efd == -EXDEV || efd == -ELOOP) {
			refused(root, rel, efd);
			r = efd;
			break;
		}
	}
	closedir(d);
	return r;
}

int root_read_file(const struct kt_root *root, const char *relpath, size_t max,
		   char **ret_buf, size_t *ret_len)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, cap = 4096;

	/* too large is the caller's to tell, in its own words */
	fd = open_file(root, relpath, O_RDONLY, max, false);
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
