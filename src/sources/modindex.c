/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <libkmod.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/macro.h"
#include "util/root.h"
#include "modindex.h"

struct modindex {
	struct kmod_ctx *ctx;
	char *config[5];
	char *config_log;	/* the first CONFIG_LOG_MAX bytes of what kmod_new() said */
	size_t config_log_lines;
};

#define CONFIG_LOG_MAX 4096

static const char *const config_dirs[] = {
	"etc/modprobe.d", "run/modprobe.d", "usr/lib/modprobe.d", "lib/modprobe.d",
};

static void silent_log(void *data, int priority, const char *file, int line, const char *fn,
		       const char *format, va_list args)
{
	/* library code logs nothing: errors come back as return values */
}

/*
 * libkmod trusts the binary indexes: a damaged one makes it write past its buffers
 * (seen: modules.dep.bin with scribbled nodes, "malloc(): invalid next size"). So
 * every index is walked once in a child first, by libkmod itself: kmod_dump_index()
 * reads every node a lookup can reach. A child that dies says the indexes are
 * damaged. 0, -EBADMSG, or -errno when the child could not run.
 */
static int indexes_check(struct modindex *idx)
{
	/* what the child holds stays reachable at its _exit() (valgrind's leak check) */
	static struct modindex *checking;
	int status, r;
	pid_t pid;

	checking = idx;
	pid = fork();
	if (pid < 0) {
		r = -errno;
		checking = NULL;
		return r;
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

		/* a missing index is no damage: lookups go without it */
		for (int t = KMOD_INDEX_MODULES_DEP; t <= KMOD_INDEX_MODULES_BUILTIN; t++)
			(void)kmod_dump_index(checking->ctx, (enum kmod_index)t, fd);
		/* not exit(): the parent's at-exit work (a tracing instance) is its own */
		_exit(0);
	}
	checking = NULL;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EBADMSG;
}

/* The first CONFIG_LOG_MAX bytes of @fd (from its start), and how many lines it has */
static int log_read(struct modindex *idx, int fd)
{
	char buf[4096];
	size_t kept = 0;
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	idx->config_log = calloc(1, CONFIG_LOG_MAX + 1);
	if (!idx->config_log)
		return -ENOMEM;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		size_t k;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (ssize_t i = 0; i < n; i++)
			idx->config_log_lines += buf[i] == '\n';
		k = (size_t)n < CONFIG_LOG_MAX - kept ? (size_t)n : CONFIG_LOG_MAX - kept;
		memcpy(idx->config_log + kept, buf, k);
		kept += k;
	}
	return 0;
}

/*
 * kmod_new() parses modprobe.d before a log function can be set, and the one it starts
 * with writes to stderr: a root's bad config line would reach the terminal raw. For
 * that call fd 2 is a memfd (/dev/null if there is none); what libkmod said is kept
 * for the caller to show, escaped.
 */
static int modindex_kmod_open(struct modindex *idx, const char *moduledir)
{
	int saved, fd, r = 0;

	fd = memfd_create("kmodtop-libkmod", MFD_CLOEXEC);
	if (fd < 0)
		fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	if (saved < 0 || (fflush(stderr), dup2(fd, STDERR_FILENO)) < 0) {
		r = -errno;
		if (saved >= 0)
			close(saved);
		close(fd);
		return r;
	}
	idx->ctx = kmod_new(moduledir, (const char *const *)idx->config);
	if (dup2(saved, STDERR_FILENO) < 0)
		r = -errno;
	close(saved);
	if (r == 0 && idx->ctx)
		(void)log_read(idx, fd);
	close(fd);
	if (r == 0 && !idx->ctx)
		r = -ENOMEM;
	return r;
}

const char *modindex_config_log(const struct modindex *idx, size_t *ret_lines)
{
	*ret_lines = idx->config_log && idx->config_log[0] ? idx->config_log_lines : 0;
	return *ret_lines ? idx->config_log : NULL;
}

int modindex_new(const struct kt_root *root, const char *moduledir, struct modindex **ret)
{
	int r;

	struct modindex *idx = calloc(1, sizeof(*idx));
	size_t n = 0;

	if (!idx)
		return -ENOMEM;
	/* the root's module tree (not a --moduledir elsewhere): its indexes stay inside */
	if (!root_is_live_system(root)) {
		_cleanup_free_ char *top = NULL;
		size_t len;

		if (root_abspath(root, "", &top) < 0) {
			modindex_free(idx);
			return -ENOMEM;
		}
		len = strlen(top);
		if (strncmp(moduledir, top, len) == 0 && moduledir[len]) {
			r = root_check_dir(root, moduledir + len);
			if (r == -EXDEV || r == -ELOOP) {
				modindex_free(idx);
				return r;
			}
		}
	}
	/* only the root's modprobe.d: never the host's when reading a captured tree */
	for (size_t i = 0; i < ARRAY_SIZE(config_dirs); i++) {
		/* libkmod follows a symlink in it out of the root: such a directory is left out */
		if (!root_exists(root, config_dirs[i]) || root_check_dir(root, config_dirs[i]) < 0)
			continue;
		if (root_abspath(root, config_dirs[i], &idx->config[n]) < 0) {
			modindex_free(idx);
			return -ENOMEM;
		}
		n++;
	}
	r = modindex_kmod_open(idx, moduledir);
	if (r < 0) {
		modindex_free(idx);
		return r;
	}
	kmod_set_log_fn(idx->ctx, silent_log, NULL);
	/*
	 * The indexes mapped once: without it every lookup opens and reads the index
	 * files again, and live top looks modules up at every refresh. A tree without
	 * them is read file by file, as before.
	 */
	(void)kmod_load_resources(idx->ctx);
	/* a captured root's indexes came from elsewhere; modprobe trusts this machine's */
	if (!root_is_live_system(root)) {
		r = indexes_check(idx);
		if (r < 0) {
			modindex_free(idx);
			return r;
		}
	}
	*ret = idx;
	return 0;
}

struct modindex *modindex_free(struct modindex *idx)
{
	if (!idx)
		return NULL;
	kmod_unref(idx->ctx);
	for (size_t i = 0; i < ARRAY_SIZE(idx->config); i++)
		free(idx->config[i]);
	free(idx->config_log);
	free(idx);
	return NULL;
}

void modindex_names_free(char **names)
{
	if (!names)
		return;
	for (char **p = names; *p; p++)
		free(*p);
	free(names);
}

static int names_add(char ***names, size_t *n, const char *name)
{
	char **nn;

	for (size_t i = 0; i < *n; i++)
		if (strcmp((*names)[i], name) == 0)
			return 0;
	nn = realloc(*names, (*n + 2) * sizeof(char *));
	if (!nn)
		return -ENOMEM;
	*names = nn;
	nn[*n] = strdup(name);
	if (!nn[*n])
		return -ENOMEM;
	nn[++*n] = NULL;
	return 0;
}

static int names_from_list(struct kmod_list *list, char ***ret_names, size_t *ret_n)
{
	struct kmod_list *l;
	char **names = calloc(1, sizeof(char *));
	size_t n = 0;
	int r = 0;

	if (!names)
		return -ENOMEM;
	kmod_list_foreach(l, list) {
		struct kmod_module *m = kmod_module_get_module(l);

		r = names_add(&names, &n, kmod_module_get_name(m));
		kmod_module_unref(m);
		if (r < 0)
			break;
	}
	if (r < 0) {
		modindex_names_free(names);
		return r;
	}
	*ret_names = names;
	*ret_n = n;
	return 0;
}

int modindex_lookup(struct modindex *idx, const char *alias, char ***ret_names, size_t *ret_n)
{
	struct kmod_list *list = NULL;
	int r;

	r = kmod_module_new_from_lookup(idx->ctx, alias, &list);
	if (r < 0)
		return r;
	r = names_from_list(list, ret_names, ret_n);
	kmod_module_unref_list(list);
	return r;
}

int modindex_deps(struct modindex *idx, const char *name, char ***ret_names, size_t *ret_n)
{
	struct kmod_module *mod = NULL;
	struct kmod_list *deps, *pre = NULL, *post = NULL, *l;
	char **names = NULL;
	size_t n = 0;
	int r;

	r = kmod_module_new_from_name(idx->ctx, name, &mod);
	if (r < 0)
		return r;
	deps = kmod_module_get_dependencies(mod);
	r = names_from_list(deps, &names, &n);
	kmod_module_unref_list(deps);
	if (r < 0)
		goto out;
	if (kmod_module_get_softdeps(mod, &pre, &post) == 0) {
		kmod_list_foreach(l, pre) {
			struct kmod_module *m = kmod_module_get_module(l);

			r = names_add(&names, &n, kmod_module_get_name(m));
			kmod_module_unref(m);
			if (r < 0)
				break;
		}
		kmod_module_unref_list(pre);
		kmod_module_unref_list(post);
	}
	if (r < 0)
		goto out;
	*ret_names = names;
	*ret_n = n;
	names = NULL;
out:
	modindex_names_free(names);
	kmod_module_unref(mod);
	return r;
}

int modindex_path(struct modindex *idx, const char *name, char **ret_path)
{
	struct kmod_module *mod = NULL;
	const char *p;
	int r;

	r = kmod_module_new_from_name(idx->ctx, name, &mod);
	if (r < 0)
		return r;
	p = kmod_module_get_path(mod);
	r = p ? 0 : -ENOENT;
	if (p) {
		*ret_path = strdup(p);
		if (!*ret_path)
			r = -ENOMEM;
	}
	kmod_module_unref(mod);
	return r;
}

int modindex_modinfo(struct modindex *idx, const char *name,
		     int (*fn)(void *userdata, const char *key, const char *value),
		     void *userdata)
{
	struct kmod_module *mod = NULL;
	struct kmod_list *info = NULL, *l;
	const char *p;
	struct stat sb;
	int fd, r;

	r = kmod_module_new_from_name(idx->ctx, name, &mod);
	if (r < 0)
		return r;
	p = kmod_module_get_path(mod);
	if (!p) {
		kmod_module_unref(mod);
		return -ENOENT;
	}
	/* libkmod's open() would block on a FIFO in its place */
	fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		kmod_module_unref(mod);
		return r;
	}
	r = fstat(fd, &sb) < 0 ? -errno : S_ISREG(sb.st_mode) ? 0 : -EINVAL;
	close(fd);
	if (r == 0) {
		r = kmod_module_get_info(mod, &info);
		r = r < 0 ? r : 0;
	}
	kmod_list_foreach(l, info) {
		const char *k = kmod_module_info_get_key(l), *v = kmod_module_info_get_value(l);

		if (r < 0)
			break;
		r = fn(userdata, k ? k : "", v ? v : "");
	}
	kmod_module_info_free_list(info);
	kmod_module_unref(mod);
	return r;
}
