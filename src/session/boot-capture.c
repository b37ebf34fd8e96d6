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

#include "util/array.h"
#include "sources/journal-klog.h"
#include "sources/kmsg-follow.h"
#include "util/root.h"
#include "util/parse-num.h"
#include "session/boot-capture.h"

/* per_cpu/cpuN/stats: "overrun: N" and "dropped events: N" summed */
static void read_lost(int tfd, struct boot_capture *bc)
{
	for (unsigned int cpu = 0; cpu < 8192; cpu++) {
		char rel[64], *text = NULL;
		size_t len;
		const char *keys[] = { "overrun: ", "dropped events: " };

		snprintf(rel, sizeof(rel), "per_cpu/cpu%u/stats", cpu);
		if (ktrace_read_file(tfd, rel, 1 << 16, &text, &len) < 0)
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

/* @word's value in /proc/cmdline (the last one given), or NULL; into @buf */
static const char *cmdline_value(const char *cmdline, const char *key, char *buf, size_t size)
{
	const char *found = NULL, *p = cmdline;
	size_t klen = strlen(key), n = 0;

	while (*p) {
		const char *end;

		while (*p == ' ' || *p == '\n' || *p == '\t')
			p++;
		end = p + strcspn(p, " \n\t");
		if ((size_t)(end - p) > klen && memcmp(p, key, klen) == 0) {
			found = p + klen;
			n = (size_t)(end - found);
		}
		p = end;
	}
	if (!found || n >= size)
		return NULL;
	memcpy(buf, found, n);
	buf[n] = '\0';
	return buf;
}

static void note_change(struct boot_capture *bc, const char *what)
{
	size_t at = strlen(bc->changed);

	snprintf(bc->changed + at, sizeof(bc->changed) - at, "%s%s", at ? ", " : "", what);
}

/*
 * Is the global buffer still set up as the command line did it: its module events
 * enabled, overwrite off when trace_options=nooverwrite was given?
 */
static void check_buffer(int tfd, const char *cmdline, struct boot_capture *bc)
{
	char buf[1024], *text = NULL, *save = NULL;
	const char *v;
	size_t len;

	v = cmdline_value(cmdline, "trace_event=", buf, sizeof(buf));
	for (char *ev = v ? strtok_r(buf, ",", &save) : NULL; ev; ev = strtok_r(NULL, ",", &save)) {
		char rel[300], *colon = strchr(ev, ':');

		if (!colon || strncmp(ev, "module:", 7) != 0)
			continue;
		*colon = '\0';
		if (!colon[1] || strcmp(colon + 1, "*") == 0)
			snprintf(rel, sizeof(rel), "events/%s/enable", ev);
		else
			snprintf(rel, sizeof(rel), "events/%s/%s/enable", ev, colon + 1);
		*colon = ':';
		if (ktrace_read_file(tfd, rel, 64, &text, &len) < 0)
			continue;
		/* "1" all on; "0" off, "X" some (a subsystem's enable) */
		if (text[0] != '1') {
			char what[96];

			snprintf(what, sizeof(what), "%.64s is %s", ev,
				 text[0] == '0' ? "disabled" : "partly disabled");
			note_change(bc, what);
		}
		free(text);
		text = NULL;
	}
	v = cmdline_value(cmdline, "trace_options=", buf, sizeof(buf));
	if (v && strstr(v, "nooverwrite") &&
	    ktrace_read_file(tfd, "trace_options", 1 << 16, &text, &len) == 0) {
		/* the file lists "overwrite" or "nooverwrite", one option a line */
		if (!strstr(text, "\nnooverwrite\n") && strncmp(text, "nooverwrite\n", 12) != 0)
			note_change(bc, "overwrite is on");
		free(text);
	}
}

/* Does the dump start at the boot's first record (sequence number 0)? */
static bool kmsg_dump_complete(int fd)
{
	char head[64];
	ssize_t n = pread(fd, head, sizeof(head) - 1, 0);
	const char *comma;

	if (n <= 0)
		return false;
	head[n] = '\0';
	comma = strchr(head, ',');
	return comma && comma[1] == '0' && comma[2] == ',';
}

/* journald's copy of boot @id's kernel log into a memfd; @dir NULL: the system's */
static int dump_journal(const char *dir, const char *id, int *ret_fd, char **ret_name,
			struct boot_capture *bc)
{
	const char *what = NULL;
	uint64_t records;
	int fd, r;

	fd = memfd_create("kmodtop-journal", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = journal_klog_dump(getenv("KMODTOP_JOURNALCTL"), dir, id, fd, &records, &what);
	/* a journal without that boot is no fault; no journalctl or one not understood is */
	if (r < 0 && r != -ENODATA && r != -ENOMEM) {
		bc->journal_err = r;
		bc->journal_what = what;
	}
	if (r >= 0 && asprintf(ret_name, "journalctl -k -b %s", id) < 0)
		r = -ENOMEM;
	if (r < 0) {
		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

/* This boot's kernel log for a command line capture; none is no error */
static int boot_log(const struct kt_root *root, const char *id, struct boot_capture *bc)
{
	char *dir = NULL;
	int r;

	if (!root_is_live_system(root)) {
		/* kmodtop's own capture of the root goes first (report's defaults) */
		if (root_exists(root, "capture/kmsg.raw") || root_exists(root, "capture/dmesg.txt") ||
		    !id[0] || !root_exists(root, "var/log/journal"))
			return 0;
		r = root_abspath(root, "var/log/journal", &dir);
		if (r < 0)
			return r;
		r = dump_journal(dir, id, &bc->log_fd, &bc->log_name, bc);
		free(dir);
		return r == -ENOMEM ? r : 0;
	}
	r = dump_kmsg(&bc->log_fd);
	if (r >= 0 && kmsg_dump_complete(bc->log_fd)) {
		bc->log_name = strdup("/dev/kmsg");
		return bc->log_name ? 0 : -ENOMEM;
	}
	/* the ring buffer has wrapped (or cannot be read): journald may have kept it */
	if (id[0]) {
		int jfd = -1;
		char *name = NULL;

		if (dump_journal(NULL, id, &jfd, &name, bc) == 0) {
			if (bc->log_fd >= 0)
				close(bc->log_fd);
			bc->log_fd = jfd;
			bc->log_name = name;
			return 0;
		}
	}
	if (r < 0)
		return r;
	bc->log_partial = true;
	bc->log_name = strdup("/dev/kmsg");
	return bc->log_name ? 0 : -ENOMEM;
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
	array_sort(v, n, sizeof(*v), newest_first);
	*ret = v;
	*ret_n = n;
	return 0;
}

static int use_bundle_in(const struct kt_root *root, const char *dir, const char *name,
			 struct boot_capture *bc)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "%s/%s", dir, name);
	bc->source = BOOT_SOURCE_BUNDLE;
	snprintf(bc->boot_id, sizeof(bc->boot_id), "%.*s", BOOT_ID_LEN, name + 5);
	return root_abspath(root, rel, &bc->bundle);
}

static int use_bundle(const struct kt_root *root, const char *name, struct boot_capture *bc)
{
	return use_bundle_in(root, BOOT_BUNDLE_DIR, name, bc);
}

/*
 * This boot's bundle where the recording writes it, ROOT/run/kmodtop/boot-ID: there
 * from the end of the recording until record moves it (or for good when the move
 * could not be made). Not its .partial: that is still being written.
 */
static bool run_bundle(const struct kt_root *root, const char *id32, char *name, size_t len)
{
	char rel[128];
	struct stat st;
	int fd;

	snprintf(name, len, "boot-%s", id32);
	snprintf(rel, sizeof(rel), BOOT_RUN_DIR "/%s", name);
	fd = root_open(root, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode)) {
		close(fd);
		return false;
	}
	close(fd);
	return true;
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
	    boot_capture_cmdline_traces(cmdline)) {
		bc->source = BOOT_SOURCE_CMDLINE;
		if (!root_is_live_system(root)) {
			/* a root's copy of tracefs, as far as it has one */
			int tfd = root_open(root, "sys/kernel/tracing",
					    O_RDONLY | O_DIRECTORY | O_CLOEXEC);

			if (tfd >= 0) {
				check_buffer(tfd, cmdline, bc);
				close(tfd);
			}
		} else {
			struct ktrace_mount mnt = { .fd = -1 };
			const char *why = NULL;

			r = ktrace_mount_find(NULL, NULL, false, &mnt, &why);
			if (r < 0) {
				*ret_why = why ? why : "tracefs is not mounted";
				goto out;
			}
			bc->trace_fd = openat(mnt.fd, "trace", O_RDONLY | O_CLOEXEC);
			if (bc->trace_fd < 0) {
				r = -errno;
				*ret_why = "the global trace buffer cannot be read (root?)";
				ktrace_mount_done(&mnt);
				goto out;
			}
			if (asprintf(&bc->trace_name, "%s/trace", mnt.path) < 0)
				bc->trace_name = NULL;
			read_lost(mnt.fd, bc);
			check_buffer(mnt.fd, cmdline, bc);
			ktrace_mount_done(&mnt);
			if (!bc->trace_name) {
				r = -ENOMEM;
				goto out;
			}
		}
		r = boot_log(root, this_id, bc);
		if (r < 0)
			*ret_why = "neither /dev/kmsg nor the journal has this boot's kernel log";
		goto out;
	}
	/* no command line capture: this boot's bundle */
	for (size_t i = 0; i < nv; i++) {
		if (this_id[0] && strcmp(v[i].id32, this_id) == 0) {
			r = use_bundle(root, v[i].name, bc);
			goto out;
		}
	}
	if (this_id[0]) {
		char name[48];

		if (run_bundle(root, this_id, name, sizeof(name))) {
			r = use_bundle_in(root, BOOT_RUN_DIR, name, bc);
			goto out;
		}
	}
	*ret_why = "this boot was not captured: its kernel command line has no "
		   "trace_event= for module events (kmodtop boot-setup) and neither /"
		   BOOT_BUNDLE_DIR " nor /" BOOT_RUN_DIR " has a bundle of its boot id "
		   "(kmodtop-boot.service)";
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
	free(bc->log_name);
	bc->bundle = bc->trace_name = bc->log_name = NULL;
	bc->trace_fd = bc->log_fd = -1;
}

int boot_capture_parse_index(const char *s, int32_t *ret)
{
	uint32_t v;

	if (s[0] == '-')
		s++;
	else if (strcmp(s, "0") != 0)
		return -EINVAL;
	if (parse_u32(s, 10, &v) < 0 || v > 100000)
		return -EINVAL;
	*ret = -(int32_t)v;
	return 0;
}

bool boot_capture_cmdline_traces(const char *cmdline)
{
	/* trace_event=...module:module_load... (or module:* / module:) as a word */
	for (const char *p = cmdline; (p = strstr(p, "trace_event=")); p++) {
		const char *end;

		if (p != cmdline && p[-1] != ' ' && p[-1] != '\t' && p[-1] != '"')
			continue;
		end = p + strcspn(p, " \t\n");
		for (const char *q = p; (q = strstr(q, "module:")) && q < end; q++)
			if (q[-1] == '=' || q[-1] == ',')
				return true;
	}
	return false;
}
