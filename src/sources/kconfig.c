/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/array.h"
#include "util/codec.h"
#include "util/macro.h"
#include "kconfig.h"

#define KCONFIG_MAX (16u << 20)

static bool valid_symbol(const char *s, size_t n)
{
	if (n <= 7 || strncmp(s, "CONFIG_", 7) != 0)
		return false;
	for (size_t i = 7; i < n; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

int kconfig_parse_line(char *line, size_t len, const char **ret_name, const char **ret_value,
		       const char **reterr_what)
{
	char *eq;

	if (memchr(line, '\0', len)) {
		*reterr_what = "line contains a NUL byte";
		return -EINVAL;
	}
	if (len && line[len - 1] == '\r')
		line[--len] = '\0';
	if (line[0] == '#') {
		static const char tail[] = " is not set";
		size_t tl = sizeof(tail) - 1;

		if (strncmp(line, "# CONFIG_", 9) != 0 || len < 9 + tl ||
		    strcmp(line + len - tl, tail) != 0)
			return 0; /* comment */
		line[len - tl] = '\0';
		if (!valid_symbol(line + 2, len - tl - 2))
			return 0;
		*ret_name = line + 2;
		*ret_value = "n";
		return 1;
	}
	if (line[0] == '\0')
		return 0;
	eq = strchr(line, '=');
	if (!eq || !valid_symbol(line, eq - line)) {
		*reterr_what = "expected CONFIG_NAME=value";
		return -EINVAL;
	}
	*eq = '\0';
	*ret_name = line;
	*ret_value = eq + 1;
	return 1;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct kconfig_entry *x = a, *y = b;

	return strcmp(x->name, y->name);
}

struct kconfig *kconfig_free(struct kconfig *kc)
{
	if (!kc)
		return NULL;
	for (size_t i = 0; i < kc->n; i++) {
		free(kc->e[i].name);
		free(kc->e[i].value);
	}
	free(kc->e);
	free(kc);
	return NULL;
}

DEFINE_FREEP(struct kconfig, kconfig_free)

int kconfig_parse(const char *text, size_t len, const char *path, struct kconfig **ret,
		  struct kt_err *reterr)
{
	_cleanup_(kconfig_freep) struct kconfig *kc = NULL;
	_cleanup_free_ char *copy = NULL;
	unsigned int lineno = 0;
	size_t cap = 0, off = 0;

	kc = calloc(1, sizeof(*kc));
	copy = malloc(len + 1);
	if (!kc || !copy)
		return -ENOMEM;
	memcpy(copy, text, len);
	copy[len] = '\0';
	snprintf(kc->source, sizeof(kc->source), "%s", path);
	while (off < len) {
		char *line = copy + off, *nl = memchr(line, '\n', len - off);
		size_t ll = nl ? (size_t)(nl - line) : len - off;
		const char *name, *value, *what = NULL;
		int r;

		off += ll + 1;
		lineno++;
		if (nl)
			*nl = '\0';
		r = kconfig_parse_line(line, ll, &name, &value, &what);
		if (r < 0) {
			kt_err_set(reterr, path, lineno, what);
			return r;
		}
		if (r == 0)
			continue;
		if (kc->n == cap) {
			struct kconfig_entry *ne;

			cap = cap ? cap * 2 : 1024;
			ne = realloc(kc->e, cap * sizeof(*ne));
			if (!ne)
				return -ENOMEM;
			kc->e = ne;
		}
		kc->e[kc->n].name = strdup(name);
		kc->e[kc->n].value = strdup(value);
		kc->n++;
		if (!kc->e[kc->n - 1].name || !kc->e[kc->n - 1].value)
			return -ENOMEM;
	}
	array_sort(kc->e, kc->n, sizeof(*kc->e), entry_cmp);
	*ret = kc;
	kc = NULL;
	return 0;
}

/*
 * proc/config.gz as zlib's gzread() reads it: members one after another, bytes after
 * them that start no member ignored, and a file that is no gzip read as it is.
 */
static int read_gz(const struct kt_root *root, const char *path, char **ret_buf,
		   size_t *ret_len)
{
	static const struct codec_options opts = {
		.flags = CODEC_CONCATENATED | CODEC_TRAILING_IGNORED,
		.max_out = KCONFIG_MAX,
	};
	uint8_t *buf;
	int fd, r;

	fd = root_open(root, path, O_RDONLY);
	if (fd < 0)
		return fd;
	r = codec_read_fd(fd, 1u << CODEC_GZIP, &opts, &buf, ret_len);
	close(fd);
	/* a file that cannot be read whole is as unusable as a corrupt one (gzread()) */
	if (r < 0)
		return r == -EFBIG || r == -ENOMEM ? r : -EBADMSG;
	*ret_buf = (char *)buf;
	return 0;
}

int kconfig_read(const struct kt_root *root, const char *release, struct kconfig **ret,
		 struct kt_err *reterr)
{
	_cleanup_free_ char *data = NULL;
	char path[256];
	size_t len;
	int r;

	r = -ENOENT;
	if (release && release[0] && !strchr(release, '/')) {
		snprintf(path, sizeof(path), "boot/config-%s", release);
		r = root_read_file(root, path, KCONFIG_MAX, &data, &len);
	}
	if (r == -ENOENT) {
		snprintf(path, sizeof(path), "proc/config.gz");
		r = read_gz(root, path, &data, &len);
		if (r == -EBADMSG) {
			kt_err_set(reterr, path, 0, "corrupt gzip data");
			return -EINVAL;
		}
	}
	if (r == -EFBIG) {
		kt_err_set(reterr, path, 0, "file larger than 16 MiB");
		return -EINVAL;
	}
	if (r < 0) {
		kt_err_set(reterr, path, 0, NULL);
		return r;
	}
	return kconfig_parse(data, len, path, ret, reterr);
}

const char *kconfig_get(const struct kconfig *kc, const char *name)
{
	struct kconfig_entry key = { .name = (char *)name }, *e;

	if (!kc || !kc->n)
		return NULL;
	e = bsearch(&key, kc->e, kc->n, sizeof(*kc->e), entry_cmp);
	return e ? e->value : NULL;
}

bool kconfig_enabled(const struct kconfig *kc, const char *name)
{
	const char *v = kconfig_get(kc, name);

	return v && (strcmp(v, "y") == 0 || strcmp(v, "m") == 0);
}
