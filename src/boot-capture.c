/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/boot-cmdline.h"
#include "sources/kmsg-follow.h"
#include "util/root.h"
#include "boot-capture.h"

/* per_cpu/cpuN/stats: "overrun: N" and "dropped events: N" summed */
static void read_lost(int tfd, struct boot_capture *bc)
{
	for (unsigned int cpu = 0; cpu < 8192; cpu++) {
		char rel[64], *text = NULL;
		size_t len;
		const char *keys[] = { "overrun: ", "dropped events: " };

		snprintf(rel, sizeof(rel), "per_cpu/cpu%u/stats", cpu);
		if (tracefs_read_file(tfd, rel, 1 << 16, &text, &len) < 0)
			break;
		bc->has_lost = true;
		for (size_t k = 0; k < 2; k++) {
			const char *v = strstr(text, keys[k]);

			if (v)
				bc->lost += strtoull(v + strlen(keys[k]), NULL, 10);
		}
		free(text);
	}
}

/* The kernel log from its oldest record, into a memfd */
static int dump_kmsg(int *ret_fd)
{
	struct kmsg_follow *kf = NULL;
	int fd, r;

	fd = memfd_create("kmodtop-kmsg", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = kmsg_follow_open(NULL, true, NULL, NULL, fd, &kf);
	if (r >= 0)
		r = kmsg_follow_read(kf);
	kmsg_follow_free(kf);
	if (r < 0) {
		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

struct bundle {
	char name[64];
	char id32[33];			/* the boot id's 32 hex digits */
	struct timespec mtime;
};

/*
 * A boot id as 32 lowercase hex digits: /proc's "%pU" form has dashes, systemd's %b
 * (kmodtop-boot.service's bundle name) has none. 0 or -EINVAL.
 */
static int id32(const char *s, size_t len, char ret[33])
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (c == '-' && len == BOOT_ID_LEN)
			continue;
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) || n == 32)
			return -EINVAL;
		ret[n++] = c;
	}
	ret[n] = '\0';
	return n == 32 ? 0 : -EINVAL;
}

static int newest_first(const void *a, const void *b)
{
	const struct bundle *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? 1 : -1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* The boot bundles under ROOT/var/lib/kmodtop: boot-<boot id> directories */
static int list_bundles(const struct kt_root *root, struct bundle **ret, size_t *ret_n)
{
	struct bundle *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;
	int fd;

	*ret = NULL;
	*ret_n = 0;
	fd = root_open(root, BOOT_BUNDLE_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return fd == -ENOENT ? 0 : fd;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d))) {
		char id[33];
		struct stat st;

		if (strncmp(de->d_name, "boot-", 5) != 0 || strlen(de->d_name) >= sizeof(v->name) ||
		    id32(de->d_name + 5, strlen(de->d_name + 5), id) < 0 ||
		    fstatat(dirfd(d), de->d_name, &st, 0) < 0 || !S_ISDIR(st.st_mode))
			continue;
		if (n == cap) {
			struct bundle *nv = realloc(v, (cap = cap ? cap * 2 : 8) * sizeof(*v));

			if (!nv) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = nv;
		}
		memcpy(v[n].name, de->d_name, strlen(de->d_name) + 1);
		memcpy(v[n].id32, id, sizeof(id));
		v[n].mtime = st.st_mtim;
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), newest_first);
	*ret = v;
	*ret_n = n;
	return 0;
}

static int use_bundle(const struct kt_root *root, const char *name, struct boot_capture *bc)
{
	char rel[128];

	snprintf(rel, sizeof(rel), BOOT_BUNDLE_DIR "/%s", name);
	bc->source = BOOT_SOURCE_BUNDLE;
	snprintf(bc->boot_id, sizeof(bc->boot_id), "%.*s", BOOT_ID_LEN, name + 5);
	return root_abspath(root, rel, &bc->bundle);
}

int boot_capture_find(const char *root_path, int n, struct boot_capture *bc,
		      const char **ret_why)
{
	struct kt_root *root = NULL;
	struct bundle *v = NULL;
	struct kt_err e = { 0 };
	char *cmdline = NULL, this_id[33];
	size_t nv = 0, len, k = 0;
	int r;

	memset(bc, 0, sizeof(*bc));
	bc->trace_fd = bc->log_fd = -1;
	*ret_why = NULL;
	r = root_new(root_path ? root_path : "/", &root);
	if (r < 0)
		return r;
	if (boot_id_read(root, bc->boot_id, &e) < 0 ||
	    id32(bc->boot_id, strlen(bc->boot_id), this_id) < 0)
		bc->boot_id[0] = this_id[0] = '\0';
	r = list_bundles(root, &v, &nv);
	if (r < 0)
		goto out;
	bc->bundles = (unsigned int)nv;
	if (n < 0) {
		/* earlier boots: the bundles of other boot ids, newest first */
		for (size_t i = 0; i < nv; i++) {
			if (this_id[0] && strcmp(v[i].id32, this_id) == 0)
				continue;
			if (++k == (size_t)-n) {
				r = use_bundle(root, v[i].name, bc);
				goto out;
			}
		}
		*ret_why = "no bundle of that earlier boot under /" BOOT_BUNDLE_DIR
			   " (kmodtop-boot.service writes one a boot)";
		r = -ENOENT;
		goto out;
	}
	if (root_read_file(root, "proc/cmdline", 1 << 16, &cmdline, &len) == 0 &&
	    boot_cmdline_traces_modules(cmdline)) {
		bc->source = BOOT_SOURCE_CMDLINE;
		if (root_is_live_system(root)) {
			struct tracefs_mount mnt = { .fd = -1 };
			const char *why = NULL;

			r = tracefs_mount_find(NULL, NULL, false, &mnt, &why);
			if (r < 0) {
				*ret_why = why ? why : "tracefs is not mounted";
				goto out;
			}
			bc->trace_fd = openat(mnt.fd, "trace", O_RDONLY | O_CLOEXEC);
			if (bc->trace_fd < 0) {
				r = -errno;
				*ret_why = "the global trace buffer cannot be read (root?)";
				tracefs_mount_done(&mnt);
				goto out;
			}
			if (asprintf(&bc->trace_name, "%s/trace", mnt.path) < 0)
				bc->trace_name = NULL;
			read_lost(mnt.fd, bc);
			tracefs_mount_done(&mnt);
			if (!bc->trace_name) {
				r = -ENOMEM;
				goto out;
			}
			r = dump_kmsg(&bc->log_fd);
			if (r < 0)
				*ret_why = "/dev/kmsg cannot be read";
		}
		goto out;
	}
	/* no command line capture: this boot's bundle */
	for (size_t i = 0; i < nv; i++) {
		if (this_id[0] && strcmp(v[i].id32, this_id) == 0) {
			r = use_bundle(root, v[i].name, bc);
			goto out;
		}
	}
	*ret_why = "this boot was not captured: its kernel command line has no "
		   "trace_event= for module events (kmodtop boot-setup) and /" BOOT_BUNDLE_DIR
		   " has no bundle of its boot id (kmodtop-boot.service)";
	r = -ENOENT;
out:
	free(cmdline);
	free(v);
	root_free(root);
	if (r < 0)
		boot_capture_done(bc);
	return r;
}

void boot_capture_done(struct boot_capture *bc)
{
	if (bc->trace_fd >= 0)
		close(bc->trace_fd);
	if (bc->log_fd >= 0)
		close(bc->log_fd);
	free(bc->bundle);
	free(bc->trace_name);
	bc->bundle = bc->trace_name = NULL;
	bc->trace_fd = bc->log_fd = -1;
}
