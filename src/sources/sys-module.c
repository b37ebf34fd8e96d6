/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/macro.h"
#include "util/parse-num.h"
#include "sys-module.h"

#define ATTR_MAX 4096

/* Reads a one-line attribute into @buf without its newline. */
static int read_attr(const struct kt_root *root, const char *path, char *buf, size_t bufsz,
		     struct kt_err *reterr)
{
	_cleanup_free_ char *data = NULL;
	size_t len;
	int r;

	r = root_read_file(root, path, ATTR_MAX, &data, &len);
	if (r == -EFBIG) {
		kt_err_set(reterr, path, 1, "attribute too long");
		return -EINVAL;
	}
	if (r < 0)
		return r;
	if (memchr(data, '\0', len)) {
		kt_err_set(reterr, path, 1, "attribute contains a NUL byte");
		return -EINVAL;
	}
	while (len > 0 && (data[len - 1] == '\n' || data[len - 1] == '\r'))
		data[--len] = '\0';
	if (strchr(data, '\n')) {
		kt_err_set(reterr, path, 2, "attribute has more than one line");
		return -EINVAL;
	}
	if (len >= bufsz) {
		kt_err_set(reterr, path, 1, "attribute too long");
		return -EINVAL;
	}
	memcpy(buf, data, len + 1);
	return 0;
}

static int read_u64_attr(const struct kt_root *root, const char *path, uint64_t *ret,
			 bool *ret_has, struct kt_err *reterr)
{
	char buf[64];
	int r;

	r = read_attr(root, path, buf, sizeof(buf), reterr);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	if (parse_u64(buf, 10, ret) < 0) {
		kt_err_set(reterr, path, 1, "value is not a number");
		return -EINVAL;
	}
	*ret_has = true;
	return 0;
}

static int read_holders(const struct kt_root *root, const char *path, struct sys_module *m)
{
	DIR *d;
	struct dirent *de;
	size_t cap = 0;
	int fd, r = 0;

	fd = root_open(root, path, O_RDONLY | O_DIRECTORY);
	if (fd == -ENOENT || fd == -ENOTDIR)
		return 0;
	if (fd < 0)
		return fd;
	d = fdopendir(fd);
	if (!d) {
		r = -errno;
		close(fd);
		return r;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (m->n_holders + 2 > cap) {
			char **nh;

			cap = cap ? cap * 2 : 8;
			nh = realloc(m->holders, cap * sizeof(char *));
			if (!nh) {
				r = -ENOMEM;
				break;
			}
			m->holders = nh;
		}
		m->holders[m->n_holders] = strdup(de->d_name);
		if (!m->holders[m->n_holders]) {
			r = -ENOMEM;
			break;
		}
		m->holders[++m->n_holders] = NULL;
	}
	closedir(d);
	return r;
}

void sys_module_done(struct sys_module *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n_holders; i++)
		free(m->holders[i]);
	free(m->holders);
	memset(m, 0, sizeof(*m));
}

int sys_module_read(const struct kt_root *root, const char *name, struct sys_module *ret,
		    struct kt_err *reterr)
{
	struct sys_module m = {0};
	char path[256], buf[64];
	int r;

	if (!name[0] || strchr(name, '/') || strlen(name) > 64)
		return -EINVAL;
	snprintf(path, sizeof(path), "sys/module/%s", name);
	if (!root_exists(root, path))
		return -ENOENT;

	snprintf(path, sizeof(path), "sys/module/%s/coresize", name);
	r = read_u64_attr(root, path, &m.coresize, &m.has_coresize, reterr);
	if (r < 0)
		goto fail;
	snprintf(path, sizeof(path), "sys/module/%s/initsize", name);
	r = read_u64_attr(root, path, &m.initsize, &m.has_initsize, reterr);
	if (r < 0)
		goto fail;

	snprintf(path, sizeof(path), "sys/module/%s/refcnt", name);
	r = read_attr(root, path, buf, sizeof(buf), reterr);
	if (r == 0) {
		if (parse_int(buf, &m.refcnt) < 0) {
			kt_err_set(reterr, path, 1, "value is not a number");
			r = -EINVAL;
			goto fail;
		}
		m.has_refcnt = true;
	} else if (r != -ENOENT) {
		goto fail;
	}

	snprintf(path, sizeof(path), "sys/module/%s/initstate", name);
	r = read_attr(root, path, m.initstate, sizeof(m.initstate), reterr);
	if (r == 0 && strcmp(m.initstate, "live") && strcmp(m.initstate, "coming") &&
	    strcmp(m.initstate, "going")) {
		kt_err_set(reterr, path, 1, "unknown initstate");
		r = -EINVAL;
	}
	if (r < 0 && r != -ENOENT)
		goto fail;

	snprintf(path, sizeof(path), "sys/module/%s/taint", name);
	r = read_attr(root, path, m.taint, sizeof(m.taint), reterr);
	if (r < 0 && r != -ENOENT)
		goto fail;

	snprintf(path, sizeof(path), "sys/module/%s/holders", name);
	r = read_holders(root, path, &m);
	if (r < 0)
		goto fail;
	*ret = m;
	return 0;
fail:
	sys_module_done(&m);
	return r;
}

int sys_module_compression_read(const struct kt_root *root, char *buf, size_t bufsz,
				struct kt_err *reterr)
{
	return read_attr(root, "sys/module/compression", buf, bufsz, reterr);
}
