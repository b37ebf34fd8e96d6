/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sys/module attributes. The input is written into a scratch root as
 * sys/module/m/{coresize,initsize,refcnt,initstate,taint}, sys/module/compression and
 * the entries of sys/module/m/holders/, then read back through sys_module_read():
 *
 *   byte 0       bit i set: attribute i is absent (bit 6: holders is a file, not a folder)
 *   the rest     the attributes' contents in that order, separated by 0x1e; the last
 *                piece names the holders, one a line
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include "sources/sys-module.h"
#include "fuzz.h"

#define SEP 0x1e
#define MAX_HOLDERS 8

static const char *const attrs[] = { "m/coresize", "m/initsize", "m/refcnt", "m/initstate",
				     "m/taint", "compression" };
#define N_ATTRS (sizeof(attrs) / sizeof(attrs[0]))

static char top[256];		/* the scratch root */
static char dir[300];		/* its sys/module */

static void rm_holders(void)
{
	char path[600];
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof(path), "%s/m/holders", dir);
	if (unlink(path) == 0)
		return;
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char p[900];

		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", path, de->d_name);
		unlink(p);
	}
	closedir(d);
	rmdir(path);
}

static void cleanup(void)
{
	char path[600];

	rm_holders();
	for (size_t i = 0; i < N_ATTRS; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, attrs[i]);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/m", dir);
	rmdir(path);
	rmdir(dir);
	snprintf(path, sizeof(path), "%s/sys", top);
	rmdir(path);
	rmdir(top);
}

static int setup(void)
{
	char path[600];
	const char *tmp = getenv("TMPDIR");

	snprintf(top, sizeof(top), "%s/kmodtop-fuzz-sys.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(top))
		return -1;
	snprintf(path, sizeof(path), "%s/sys", top);
	snprintf(dir, sizeof(dir), "%s/sys/module", top);
	if (mkdir(path, 0700) < 0 || mkdir(dir, 0700) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/m", dir);
	if (mkdir(path, 0700) < 0)
		return -1;
	atexit(cleanup);
	return 0;
}

static int write_file(const char *path, const char *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ssize_t w = 0;

	if (fd < 0)
		return -1;
	if (n)
		w = write(fd, p, n);
	close(fd);
	return w == (ssize_t)n ? 0 : -1;
}

/* Creates the holders named in @p (one a line); returns how many were made. */
static size_t make_holders(const char *p, size_t n, bool as_file)
{
	char path[600];
	const char *end = p + n;
	size_t made = 0;

	snprintf(path, sizeof(path), "%s/m/holders", dir);
	if (as_file) {
		write_file(path, p, n);
		return 0;
	}
	if (mkdir(path, 0700) < 0)
		return 0;
	while (p < end && made < MAX_HOLDERS) {
		const char *nl = memchr(p, '\n', end - p);
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char hp[900];

		if (len && len < 128 && p[0] != '.' && !memchr(p, '/', len) &&
		    !memchr(p, '\0', len)) {
			snprintf(hp, sizeof(hp), "%s/%.*s", path, (int)len, p);
			if (access(hp, F_OK) != 0 && write_file(hp, "", 0) == 0)
				made++;
		}
		p += len + 1;
	}
	return made;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct kt_root *root;
	const char *p = (const char *)data + 1, *end = (const char *)data + size;
	struct sys_module m;
	struct kt_err e = { 0 };
	char path[600], comp[32];
	unsigned int absent;
	size_t holders = 0;
	int r;

	if (!root && (setup() < 0 || root_new(top, &root) < 0))
		abort();
	if (size == 0)
		return 0;
	absent = data[0];
	rm_holders();
	for (size_t i = 0; i <= N_ATTRS; i++) {
		const char *sep = i < N_ATTRS ? memchr(p, SEP, end > p ? end - p : 0) : NULL;
		size_t len = p < end ? (sep ? (size_t)(sep - p) : (size_t)(end - p)) : 0;

		if (i == N_ATTRS) {
			holders = make_holders(p, len, absent & 0x40);
			break;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, attrs[i]);
		unlink(path);
		if (!(absent & (1u << i)) && write_file(path, p, len) < 0)
			return 0;
		p += len + (sep != NULL);
		if (!sep)
			p = end;
	}

	r = sys_module_read(root, "m", &m, &e);
	CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
	if (r == 0) {
		CHECK(memchr(m.initstate, '\0', sizeof(m.initstate)));
		CHECK(!m.initstate[0] || !strcmp(m.initstate, "live") ||
		      !strcmp(m.initstate, "coming") || !strcmp(m.initstate, "going"));
		CHECK(memchr(m.taint, '\0', sizeof(m.taint)));
		CHECK(m.has_coresize == !(absent & 1) && m.has_initsize == !(absent & 2));
		CHECK(m.n_holders == holders);
		CHECK(!m.holders || !m.holders[m.n_holders]);
		for (size_t i = 0; i < m.n_holders; i++)
			CHECK(m.holders[i] && m.holders[i][0]);
		sys_module_done(&m);
	} else if (r == -EINVAL) {
		CHECK(e.what && strncmp(e.path, "sys/module/m/", 13) == 0);
	}

	memset(&e, 0, sizeof(e));
	r = sys_module_compression_read(root, comp, sizeof(comp), &e);
	CHECK(r == 0 || r == -EINVAL || r == -ENOENT || r == -ENOMEM);
	if (r == 0)
		CHECK(strlen(comp) < sizeof(comp) && !strchr(comp, '\n'));
	else if (r == -EINVAL)
		CHECK(e.what && strcmp(e.path, "sys/module/compression") == 0);

	/* names are path components: these must be refused before any file is opened */
	CHECK(sys_module_read(root, "", &m, &e) == -EINVAL);
	CHECK(sys_module_read(root, "m/../m", &m, &e) == -EINVAL);
	return 0;
}
