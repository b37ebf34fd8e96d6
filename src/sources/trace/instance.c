/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "util/linereader.h"
#include "util/macro.h"
#include "util/parse-num.h"
#include "instance.h"

#ifndef TRACEFS_MAGIC
#define TRACEFS_MAGIC 0x74726163
#endif
/* include/linux/proc_ns.h: PROC_PID_INIT_INO, the initial PID namespace */
#define PID_INIT_INO 0xEFFFFFFCU

#define INSTANCE_PREFIX "kmodtop-"
#define GROUP_PREFIX "kmodtop_"
#define PROBE_EVENT "alloc_vmap_area"

/* ---- small file helpers: every path relative to the tracefs mount ---------------- */

static int write_at(int tfd, const char *path, const char *text, bool append)
{
	size_t len = strlen(text);
	ssize_t n;
	int fd, r = 0;

	/* never O_TRUNC: see the header */
	fd = openat(tfd, path, O_WRONLY | O_CLOEXEC | O_NOCTTY | (append ? O_APPEND : 0));
	if (fd < 0)
		return -errno;
	do
		n = write(fd, text, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		r = -errno;
	else if ((size_t)n != len)
		r = -EIO;
	close(fd);
	return r;
}

/* Up to @max bytes of a small file, NUL-terminated. Caller frees. */
static int read_at(int tfd, const char *path, size_t max, char **ret, size_t *ret_len)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;

	fd = openat(tfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	buf = malloc(max + 1);
	if (!buf)
		return -ENOMEM;
	while (len < max) {
		ssize_t n = read(fd, buf + len, max - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*ret = buf;
	*ret_len = len;
	buf = NULL;
	return 0;
}

int ktrace_read_file(int tfd, const char *path, size_t max, char **ret, size_t *ret_len)
{
	return read_at(tfd, path, max, ret, ret_len);
}

static bool exists_at(int tfd, const char *path)
{
	return faccessat(tfd, path, F_OK, 0) == 0;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* ---- default file system operations ---------------------------------------------- */

static int default_mkdir(int dirfd, const char *path, void *userdata)
{
	return mkdirat(dirfd, path, 0755) < 0 ? -errno : 0;
}

static int default_rmdir(int dirfd, const char *path, void *userdata)
{
	return unlinkat(dirfd, path, AT_REMOVEDIR) < 0 ? -errno : 0;
}

static bool default_pid_is_kmodtop(pid_t pid, void *userdata)
{
	char path[64], comm[32];
	struct stat st;
	ssize_t n;
	int fd;

	/*
	 * In a child PID namespace the pid in another process's instance name may be a
	 * pid of a namespace we cannot see: keep every instance rather than guess.
	 */
	if (stat("/proc/self/ns/pid", &st) == 0 && st.st_ino != PID_INIT_INO)
		return true;
	if (kill(pid, 0) < 0 && errno == ESRCH)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;	/* it exists; what it is, we cannot tell */
	n = read(fd, comm, sizeof(comm) - 1);
	close(fd);
	if (n <= 0)
		return true;
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
	/* the pid was reused by another program: the instance is a leftover */
	return strcmp(comm, "kmodtop") == 0;
}

static void ops_init(struct ktrace_fs_ops *dst, const struct ktrace_fs_ops *src)
{
	*dst = src ? *src : (struct ktrace_fs_ops){0};
	if (!dst->mkdir)
		dst->mkdir = default_mkdir;
	if (!dst->rmdir)
		dst->rmdir = default_rmdir;
	if (!dst->pid_is_kmodtop)
		dst->pid_is_kmodtop = default_pid_is_kmodtop;
}

/* ---- finding the mount ------------------------------------------------------------ */

static size_t unescape_octal(char *s)
{
	char *w = s;

	for (char *p = s; *p; p++) {
		if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
		    p[3] >= '0' && p[3] <= '7') {
			*w++ = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
			p += 3;
		} else {
			*w++ = *p;
		}
	}
	*w = '\0';
	return (size_t)(w - s);
}

/*
 * "36 25 0:12 / /sys/kernel/tracing rw,nosuid shared:15 - tracefs tracefs rw"
 * (proc(5)): the mount point is field 5; the type follows the " - " separator.
 */
int ktrace_mountinfo_parse_line(char *line, char **ret_mnt, char **ret_fstype)
{
	char *f[64], *p = line;
	size_t n = 0;

	while (*p && n < ARRAY_SIZE(f)) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		f[n++] = p;
		p += strcspn(p, " ");
		if (*p)
			*p++ = '\0';
	}
	/* id parent maj:min root mount-point options [optional...] - type source super */
	for (size_t i = 6; i + 1 < n; i++) {
		if (strcmp(f[i], "-") != 0)
			continue;
		unescape_octal(f[4]);
		*ret_mnt = f[4];
		*ret_fstype = f[i + 1];
		return 0;
	}
	return -EINVAL;
}

static int open_tracefs_dir(const char *path, bool check_magic)
{
	struct statfs sf;
	int fd;

	/* not O_PATH: a plain open triggers debugfs's automount of "tracing" */
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (check_magic && (fstatfs(fd, &sf) < 0 || (unsigned long)sf.f_type != TRACEFS_MAGIC)) {
		close(fd);
		return -ENOENT;
	}
	return fd;
}

static int mount_set(struct ktrace_mount *ret, int fd, const char *path, bool mounted)
{
	ret->path = strdup(path);
	if (!ret->path) {
		close(fd);
		/* nobody would know to unmount it: it goes now */
		if (mounted)
			umount2(path, MNT_DETACH);
		return -ENOMEM;
	}
	ret->fd = fd;
	ret->mounted = mounted;
	return 0;
}

int ktrace_mount_find(const char *const *candidates, const char *mountinfo, bool may_mount,
		       struct ktrace_mount *ret, const char **reterr_why)
{
	static const char *const defaults[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing",
						NULL };
	const char *unused_why;
	int first_err = -ENOENT, fd;
	FILE *f;

	/* callers that only want a mount, if any, pass no reason */
	if (!reterr_why)
		reterr_why = &unused_why;
	*ret = (struct ktrace_mount){ .fd = -1 };
	for (size_t i = 0; (candidates ? candidates : defaults)[i]; i++) {
		const char *c = (candidates ? candidates : defaults)[i];

		fd = open_tracefs_dir(c, true);
		if (fd >= 0)
			return mount_set(ret, fd, c, false);
		if (fd != -ENOENT && first_err == -ENOENT)
			first_err = fd;
	}
	f = fopen(mountinfo ? mountinfo : "/proc/self/mountinfo", "re");
	if (f) {
		struct linereader lr;
		char *line, *mnt, *type;
		size_t len;
		int r;

		linereader_init(&lr, f, LINEREADER_DEFAULT_MAX);
		while ((r = linereader_next(&lr, &line, &len)) != 0) {
			if (r < 0 && r != -E2BIG && r != -EBADMSG)
				break;
			if (r < 0 || ktrace_mountinfo_parse_line(line, &mnt, &type) < 0 ||
			    strcmp(type, "tracefs") != 0)
				continue;
			fd = open_tracefs_dir(mnt, false);
			if (fd >= 0) {
				r = mount_set(ret, fd, mnt, false);
				linereader_done(&lr);
				fclose(f);
				return r;
			}
			if (first_err == -ENOENT)
				first_err = fd;
		}
		linereader_done(&lr);
		fclose(f);
	}
	if (first_err != -ENOENT) {
		*reterr_why = first_err == -EACCES || first_err == -EPERM
				      ? "tracefs cannot be opened (it needs root)"
				      : "tracefs is there but cannot be opened";
		return first_err;
	}
	if (!may_mount) {
		*reterr_why = "tracefs is not mounted (mounting it needs root)";
		return -ENOENT;
	}
	/*
	 * In a mount namespace of our own when we can: the mount is then never seen by the
	 * rest of the system and goes away with the process, even after kill -9. (The
	 * instance itself is the kernel's, visible through every tracefs mount.)
	 */
	if (unshare(CLONE_NEWNS) == 0)
		mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
	if (mount("tracefs", defaults[0], "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
		int r = -errno;

		*reterr_why = r == -ENODEV ? "the kernel has no tracefs (CONFIG_TRACING)"
			      : r == -ENOENT ? "no /sys/kernel/tracing to mount tracefs on"
					     : "tracefs is not mounted and mounting it failed";
		return r;
	}
	fd = open_tracefs_dir(defaults[0], false);
	if (fd < 0) {
		umount2(defaults[0], MNT_DETACH);
		*reterr_why = "tracefs mounted but cannot be opened";
		return fd;
	}
	return mount_set(ret, fd, defaults[0], true);
}

void ktrace_mount_done(struct ktrace_mount *m)
{
	if (m->fd >= 0)
		close(m->fd);
	m->fd = -1;
	/* a tracer started meanwhile may hold it: detach rather than fail */
	if (m->mounted && m->path && umount2(m->path, 0) < 0)
		umount2(m->path, MNT_DETACH);
	m->mounted = false;
	free(m->path);
	m->path = NULL;
}

/* ---- stale instances and probes ------------------------------------------------- */

/* "kmodtop-1234" -> 1234; 0 when the name is not exactly ours */
static pid_t pid_from_name(const char *name, const char *prefix, size_t name_len)
{
	size_t pl = strlen(prefix);
	uint64_t v;
	char num[24];

	if (name_len <= pl || name_len - pl >= sizeof(num) || strncmp(name, prefix, pl) != 0)
		return 0;
	memcpy(num, name + pl, name_len - pl);
	num[name_len - pl] = '\0';
	if (num[0] < '1' || num[0] > '9' || parse_u64(num, 10, &v) < 0 || v > 0x7fffffff)
		return 0;
	return (pid_t)v;
}

static int remove_probe(int tfd, const char *group, const char *event)
{
	char cmd[160];
	int r = 0;

	snprintf(cmd, sizeof(cmd), "-:%s/%s\n", group, event);
	/* EBUSY while an instance being removed still holds it enabled: wait a little */
	for (int i = 0; i < 20; i++) {
		r = write_at(tfd, "kprobe_events", cmd, true);
		if (r != -EBUSY)
			break;
		sleep_ms(25);
	}
	return r;
}

static void stale_note(struct ktrace_stale *st, int r)
{
	if (r < 0) {
		st->failed++;
		if (!st->first_err)
			st->first_err = r;
	}
}

int ktrace_cleanup_stale(int tfd, pid_t self, const struct ktrace_fs_ops *user_ops,
			  struct ktrace_stale *ret)
{
	struct ktrace_fs_ops ops;
	struct ktrace_stale st = {0};
	struct dirent *de;
	char *text = NULL;
	size_t len;
	DIR *d;
	int fd;

	ops_init(&ops, user_ops);
	fd = openat(tfd, "instances", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		int r = -errno;

		close(fd);
		return r;
	}
	while ((de = readdir(d))) {
		pid_t pid = pid_from_name(de->d_name, INSTANCE_PREFIX, strlen(de->d_name));
		char path[300];
		int r;

		if (!pid)
			continue;
		if (pid != self && ops.pid_is_kmodtop(pid, ops.userdata)) {
			st.kept++;
			continue;
		}
		snprintf(path, sizeof(path), "instances/%s", de->d_name);
		r = ops.rmdir(tfd, path, ops.userdata);
		if (r == 0)
			st.instances++;
		stale_note(&st, r);
	}
	closedir(d);

	/* "p:kmodtop_1234/alloc_vmap_area alloc_vmap_area size=$arg1:u64" */
	if (read_at(tfd, "kprobe_events", 1 << 20, &text, &len) == 0) {
		for (char *line = text, *next; line && *line; line = next) {
			char *colon, *slash, *evend, group[64], event[128];
			pid_t pid;
			int r;

			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			colon = strchr(line, ':');
			slash = colon ? strchr(colon, '/') : NULL;
			if (!slash || (line[0] != 'p' && line[0] != 'r'))
				continue;
			evend = slash + 1 + strcspn(slash + 1, " \t");
			if ((size_t)(slash - colon - 1) >= sizeof(group) ||
			    (size_t)(evend - slash - 1) >= sizeof(event) || evend == slash + 1)
				continue;
			memcpy(group, colon + 1, (size_t)(slash - colon - 1));
			group[slash - colon - 1] = '\0';
			memcpy(event, slash + 1, (size_t)(evend - slash - 1));
			event[evend - slash - 1] = '\0';
			pid = pid_from_name(group, GROUP_PREFIX, strlen(group));
			if (!pid)
				continue;
			if (pid != self && ops.pid_is_kmodtop(pid, ops.userdata)) {
				st.kept++;
				continue;
			}
			r = remove_probe(tfd, group, event);
			if (r == 0)
				st.probes++;
			stale_note(&st, r);
		}
		free(text);
	}
	*ret = st;
	return 0;
}

/* ---- the instance ---------------------------------------------------------------- */

static int inst_write(struct ktrace_instance *ti, const char *rel, const char *text)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", ti->path, rel);
	return write_at(ti->tfd, path, text, false);
}

static bool inst_exists(struct ktrace_instance *ti, const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", ti->path, rel);
	return exists_at(ti->tfd, path);
}

static void add_status(struct ktrace_instance *ti, const char *name, const char *loses, int err)
{
	if (ti->n_events < KTRACE_MAX_EVENTS)
		ti->events[ti->n_events++] =
			(struct ktrace_event_status){ .name = name, .loses = loses, .err = err };
}

/* Enables events/@name in the instance; -ENOENT when the kernel has no such event. */
static int enable_event(struct ktrace_instance *ti, const char *name)
{
	char rel[200];

	snprintf(rel, sizeof(rel), "events/%s/enable", name);
	if (!inst_exists(ti, rel))
		return -ENOENT;
	return inst_write(ti, rel, "1");
}

static const struct {
	const char *name;
	const char *loses;
} wanted_events[] = {
	{ "module/module_load", "module names from module_load" },
	{ "module/module_free", "module unloads and init failures" },
	{ "module/module_request", "autoload requests and who made them" },
	{ "syscalls/sys_enter_finit_module", "finit_module calls (failed loads, duplicates)" },
	{ "syscalls/sys_exit_finit_module", "finit_module results" },
	{ "syscalls/sys_enter_init_module", "init_module calls" },
	{ "syscalls/sys_exit_init_module", "init_module results" },
	{ "syscalls/sys_enter_delete_module", "delete_module calls" },
	{ "syscalls/sys_exit_delete_module", "delete_module results" },
	{ "sched/sched_process_fork", "the parents of requesters" },
	{ "sched/sched_process_exec", "process names after exec" },
	{ "task/task_rename", "task names set by prctl() after fork" },
};

const char *ktrace_wanted_event(size_t i, const char **ret_loses)
{
	if (i >= ARRAY_SIZE(wanted_events))
		return NULL;
	if (ret_loses)
		*ret_loses = wanted_events[i].loses;
	return wanted_events[i].name;
}

/* The instance's directory @rel to read: 0 with *ret_dir NULL where it is not, or -ENOMEM */
static int inst_opendir(struct ktrace_instance *ti, const char *rel, DIR **ret_dir)
{
	char path[256];
	int fd;

	*ret_dir = NULL;
	snprintf(path, sizeof(path), "%s/%s", ti->path, rel);
	fd = openat(ti->tfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	*ret_dir = fdopendir(fd);
	if (!*ret_dir) {
		close(fd);
		return -ENOMEM;
	}
	return 0;
}

/* module:* as the kernel has it today or later, but the per-refcount events */
static int enable_other_module_events(struct ktrace_instance *ti)
{
	struct dirent *de;
	DIR *d;
	int r = inst_opendir(ti, "events/module", &d);

	if (r < 0 || !d)
		return r;
	while ((de = readdir(d)) && r >= 0) {
		char name[300];
		bool known = false;

		if (de->d_name[0] == '.' || strcmp(de->d_name, "module_get") == 0 ||
		    strcmp(de->d_name, "module_put") == 0)
			continue;
		snprintf(name, sizeof(name), "module/%s", de->d_name);
		for (size_t i = 0; i < ARRAY_SIZE(wanted_events) && !known; i++)
			known = strcmp(wanted_events[i].name, name) == 0;
		if (known)
			continue;
		snprintf(name, sizeof(name), "events/module/%s/enable", de->d_name);
		if (inst_exists(ti, name))
			r = inst_write(ti, name, "1");
	}
	closedir(d);
	return r;
}

/*
 * Adds "p:kmodtop_PID/@event @symbol @args" (or r: with @ret) to kprobe_events and notes
 * it for the teardown. 0 or -errno (-ENOENT, -EINVAL: the kernel refused it).
 */
static int add_probe(struct ktrace_instance *ti, const char *event, const char *symbol,
		     const char *args)
{
	char def[512];
	int r;

	if (ti->n_probes == KTRACE_MAX_PROBES)
		return -ENOSPC;
	if (!ti->group[0])
		snprintf(ti->group, sizeof(ti->group), GROUP_PREFIX "%d", (int)ti->pid);
	snprintf(def, sizeof(def), "p:%s/%s %s%s%s\n", ti->group, event, symbol,
		 args[0] ? " " : "", args);
	r = write_at(ti->tfd, "kprobe_events", def, true);
	if (r < 0)
		return r;
	snprintf(ti->probes[ti->n_probes++], sizeof(ti->probes[0]), "%s", event);
	return 0;
}

/* Writes @text into events/GROUP/@event/@file of the instance */
static int probe_write(struct ktrace_instance *ti, const char *event, const char *file,
		       const char *text)
{
	char rel[200];

	snprintf(rel, sizeof(rel), "events/%s/%s/%s", ti->group, event, file);
	return inst_write(ti, rel, text);
}

static int setup_measure(struct ktrace_instance *ti, const struct ktrace_instance_opts *o)
{
	int r;

	if (!o->stacktrace_in_instance) {
		ti->measure_why = "this kernel's stacktrace trigger writes into the top-level "
				  "buffer (before 5.17), which is not kmodtop's";
		return 0;
	}
	if (inst_exists(ti, "events/vmalloc/alloc_vmap_area/enable")) {
		r = inst_write(ti, "events/vmalloc/alloc_vmap_area/trigger", "stacktrace");
		if (r >= 0)
			r = inst_write(ti, "events/vmalloc/alloc_vmap_area/enable", "1");
		if (r < 0) {
			ti->measure_why = "enabling vmalloc:alloc_vmap_area with a stack trace failed";
			return r;
		}
		ti->measure = KTRACE_MEASURE_TRACEPOINT;
		return 0;
	}
	/* before 6.2 there is no vmalloc tracepoint: a kprobe in our own group */
	if (!exists_at(ti->tfd, "kprobe_events")) {
		ti->measure_why = "no vmalloc:alloc_vmap_area tracepoint (before 6.2) and no "
				  "kprobe events (CONFIG_KPROBE_EVENTS)";
		return 0;
	}
	r = add_probe(ti, PROBE_EVENT, "alloc_vmap_area", "size=$arg1:u64");
#if defined(__x86_64__)
	/* kernels without the $argN fetch (before 4.20): the first argument's register */
	if (r == -EINVAL)
		r = add_probe(ti, PROBE_EVENT, "alloc_vmap_area", "size=%di:u64");
#endif
	if (r < 0) {
		if (!ti->n_probes)
			ti->group[0] = '\0';
		ti->measure_why = r == -ENOENT || r == -EINVAL
					  ? "no vmalloc:alloc_vmap_area tracepoint (before 6.2) and "
					    "alloc_vmap_area cannot be probed"
					  : "no vmalloc:alloc_vmap_area tracepoint (before 6.2) and "
					    "adding a kprobe failed";
		return 0;
	}
	r = probe_write(ti, PROBE_EVENT, "trigger", "stacktrace");
	if (r >= 0)
		r = probe_write(ti, PROBE_EVENT, "enable", "1");
	if (r < 0) {
		ti->measure_why = "enabling the alloc_vmap_area kprobe with a stack trace failed";
		return r;
	}
	ti->measure = KTRACE_MEASURE_KPROBE;
	return 0;
}

static const char *const probe_status_names[_LOAD_PROBE_MAX] = {
	[LOAD_PROBE_KREAD] = "kprobes/kmodtop_kread",
	[LOAD_PROBE_NAME] = "kprobes/kmodtop_name",
	[LOAD_PROBE_LAYOUT] = "kprobes/kmodtop_layout",
};

/*
 * The naming probes (load-probes.h): each one the kernel takes is enabled with its
 * filter; one it refuses is a missing event, as a missing tracepoint is. Only a write
 * into the instance that fails fails the setup.
 */
static int setup_probes(struct ktrace_instance *ti, const struct load_probe_plan *plan)
{
	bool have_kprobes = exists_at(ti->tfd, "kprobe_events");

	for (int k = 0; k < _LOAD_PROBE_MAX; k++) {
		const struct load_probe *p = &plan->p[k];
		const char *why = p->why;
		int r = -ENOENT;

		if (!p->ok) {
			/* the plan's reason */
		} else if (!have_kprobes) {
			why = "no kprobe events (CONFIG_KPROBE_EVENTS)";
		} else {
			r = add_probe(ti, p->event, p->symbol, p->args);
			if (r < 0)
				why = r == -EINVAL ? "the kernel refused its fetch arguments"
				      : r == -ENOENT ? "the kernel cannot probe that function"
						     : "adding the kprobe failed";
		}
		if (r == 0 && p->filter[0]) {
			r = probe_write(ti, p->event, "filter", p->filter);
			if (r < 0)
				return r;
		}
		if (r == 0) {
			r = probe_write(ti, p->event, "enable", "1");
			if (r < 0)
				return r;
			ti->probe_on[k] = true;
		}
		add_status(ti, probe_status_names[k], p->loses, r);
		if (r < 0)
			ti->events[ti->n_events - 1].why = why;
	}
	if (!ti->n_probes)
		ti->group[0] = '\0';
	return 0;
}

static int count_cpus(struct ktrace_instance *ti)
{
	struct dirent *de;
	unsigned int n = 0;
	DIR *d;
	int r = inst_opendir(ti, "per_cpu", &d);

	if (r < 0 || !d)
		return r;
	while ((de = readdir(d))) {
		uint64_t v;

		if (strncmp(de->d_name, "cpu", 3) == 0 && parse_u64(de->d_name + 3, 10, &v) == 0 &&
		    v < 65536 && v + 1 > n)
			n = (unsigned int)v + 1;
	}
	closedir(d);
	ti->ncpus = n;
	return 0;
}

int ktrace_stats_parse(const char *text, size_t len, uint64_t *ret_overrun,
			uint64_t *ret_dropped)
{
	static const char *const keys[] = { "overrun:", "dropped events:" };
	uint64_t val[2] = {0};
	bool seen = false;
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;

		for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
			size_t kl = strlen(keys[k]);
			char num[32];
			const char *v;
			size_t vl;

			/* "commit overrun:" is another counter: match at the line start */
			if ((size_t)(le - p) <= kl || strncmp(p, keys[k], kl) != 0)
				continue;
			v = p + kl;
			while (v < le && *v == ' ')
				v++;
			vl = (size_t)(le - v);
			if (!vl || vl >= sizeof(num))
				return -EINVAL;
			memcpy(num, v, vl);
			num[vl] = '\0';
			if (parse_u64(num, 10, &val[k]) < 0)
				return -EINVAL;
			if (k == 0)
				seen = true;
		}
		p = le + 1;
	}
	if (!seen)
		return -EINVAL;
	*ret_overrun = val[0];
	*ret_dropped = val[1];
	return 0;
}

static int read_lost_raw(const struct ktrace_instance *ti, uint64_t *out)
{
	for (unsigned int c = 0; c < ti->ncpus; c++) {
		_cleanup_free_ char *text = NULL;
		uint64_t ov, dr;
		char path[256];
		size_t len;
		int r;

		snprintf(path, sizeof(path), "%s/per_cpu/cpu%u/stats", ti->path, c);
		r = read_at(ti->tfd, path, 4096, &text, &len);
		if (r == -ENOENT) {
			out[c] = 0; /* a gap in the CPU numbers */
			continue;
		}
		if (r < 0)
			return r;
		r = ktrace_stats_parse(text, len, &ov, &dr);
		if (r < 0)
			return r;
		out[c] = ov + dr;
	}
	return 0;
}

int ktrace_instance_lost(const struct ktrace_instance *ti, uint64_t *ret_lost)
{
	int r = read_lost_raw(ti, ret_lost);

	if (r < 0)
		return r;
	for (unsigned int c = 0; c < ti->ncpus && ti->lost_base; c++)
		ret_lost[c] = ret_lost[c] >= ti->lost_base[c] ? ret_lost[c] - ti->lost_base[c] : 0;
	return 0;
}

/* "local [global] counter uptime": the name in brackets, into @buf */
static bool clock_selected(const char *text, char *buf, size_t len)
{
	const char *a = strchr(text, '['), *b = a ? strchr(a, ']') : NULL;

	if (!b || b == a + 1 || (size_t)(b - a - 1) >= len)
		return false;
	memcpy(buf, a + 1, (size_t)(b - a - 1));
	buf[b - a - 1] = '\0';
	return true;
}

/*
 * A new instance starts with the default clock ("local"), but the kernel moves the
 * top-level buffer to "global" when it finds the TSC unstable (common in VMs), and
 * users pick their own. Timestamps are only comparable with other traces and with the
 * kernel log in the top-level buffer's clock: take it over (reading it changes nothing).
 */
static int inherit_clock(struct ktrace_instance *ti)
{
	_cleanup_free_ char *top = NULL, *own = NULL;
	char want[32], path[300];
	size_t len;

	if (read_at(ti->tfd, "trace_clock", 4096, &top, &len) < 0 ||
	    !clock_selected(top, want, sizeof(want)))
		return 0;	/* no clock choice on this kernel: nothing to match */
	snprintf(path, sizeof(path), "%s/trace_clock", ti->path);
	if (read_at(ti->tfd, path, 4096, &own, &len) == 0 &&
	    clock_selected(own, ti->clock, sizeof(ti->clock)) && strcmp(ti->clock, want) == 0)
		return 0;
	snprintf(ti->clock, sizeof(ti->clock), "%s", want);
	return inst_write(ti, "trace_clock", want);
}

int ktrace_instance_new(int tfd, pid_t pid, const struct ktrace_instance_opts *o,
			 const struct ktrace_fs_ops *ops, struct ktrace_instance **ret,
			 const char **reterr_what)
{
	struct ktrace_instance *ti;
	char buf[32];
	int r;

	*ret = NULL;
	ti = calloc(1, sizeof(*ti));
	if (!ti)
		return -ENOMEM;
	/*
	 * A handle of its own: a teardown that failed is retried later (at exit), after
	 * the caller may have closed its mount fd, and the number reused for another file.
	 */
	ti->tfd = fcntl(tfd, F_DUPFD_CLOEXEC, 3);
	if (ti->tfd < 0) {
		r = -errno;
		*reterr_what = "duplicating the tracefs directory handle failed";
		free(ti);
		return r;
	}
	ti->pid = pid;
	ti->pipe_fd = -1;
	ti->marker_fd = -1;
	ops_init(&ti->ops, ops);
	snprintf(ti->name, sizeof(ti->name), INSTANCE_PREFIX "%d", (int)pid);
	snprintf(ti->path, sizeof(ti->path), "instances/%s", ti->name);

	r = ti->ops.mkdir(ti->tfd, ti->path, ti->ops.userdata);
	if (r == -EEXIST) {
		/* an earlier process with our pid left it: it is stale by definition */
		r = ti->ops.rmdir(ti->tfd, ti->path, ti->ops.userdata);
		if (r >= 0)
			r = ti->ops.mkdir(ti->tfd, ti->path, ti->ops.userdata);
	}
	if (r < 0) {
		*reterr_what = r == -ENOENT ? "this tracefs has no instances/ directory"
					    : "creating the instance failed";
		close(ti->tfd);
		free(ti);
		return r;
	}
	ti->created = true;

	/* first: a clock change empties the buffer */
	r = inherit_clock(ti);
	if (r < 0) {
		*reterr_what = "setting the instance's trace clock to the top-level one failed";
		goto fail;
	}
	/* quiet while it is being set up; ktrace_instance_start() turns it on */
	r = inst_write(ti, "tracing_on", "0");
	if (r < 0) {
		*reterr_what = "turning the new instance's tracing off failed";
		goto fail;
	}
	/*
	 * From 6.1 poll() on trace_pipe waits for buffer_percent (default 50) of a full
	 * buffer ("tracing/ring-buffer: Have polling block on watermark"); 0 wakes it at
	 * the first event, so that the reader sees a finit_module() while it runs.
	 * Optional: older kernels wake at every event anyway.
	 */
	inst_write(ti, "buffer_percent", "0");
	if (o && o->buffer_kb) {
		snprintf(buf, sizeof(buf), "%u", o->buffer_kb);
		r = inst_write(ti, "buffer_size_kb", buf);
		if (r < 0) {
			*reterr_what = "setting the instance's buffer size failed";
			goto fail;
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(wanted_events); i++) {
		r = enable_event(ti, wanted_events[i].name);
		if (r < 0 && r != -ENOENT) {
			*reterr_what = "enabling an event in the instance failed";
			goto fail;
		}
		add_status(ti, wanted_events[i].name, wanted_events[i].loses, r);
	}
	r = enable_other_module_events(ti);
	if (r < 0) {
		*reterr_what = "enabling the module events failed";
		goto fail;
	}
	if (o && o->measure) {
		r = setup_measure(ti, o);
		if (r < 0) {
			*reterr_what = ti->measure_why;
			goto fail;
		}
	}
	if (o && o->probes) {
		r = setup_probes(ti, o->probes);
		if (r < 0) {
			*reterr_what = "enabling a naming kprobe in the instance failed";
			goto fail;
		}
	}
	r = count_cpus(ti);
	if (r >= 0 && ti->ncpus) {
		ti->lost_base = calloc(ti->ncpus, sizeof(*ti->lost_base));
		r = ti->lost_base ? read_lost_raw(ti, ti->lost_base) : -ENOMEM;
		if (r < 0 && r != -ENOMEM) {
			/* counted from zero: a fresh instance has lost nothing yet */
			memset(ti->lost_base, 0, ti->ncpus * sizeof(*ti->lost_base));
			r = 0;
		}
	}
	if (r < 0) {
		*reterr_what = "out of memory";
		goto fail;
	}
	*ret = ti;
	return 0;
fail:
	/* what could not be removed goes back to the caller, to retry and to tell */
	ktrace_instance_teardown(ti);
	*ret = ti->created || ti->group[0] ? ti : ktrace_instance_free(ti);
	return r;
}

int ktrace_instance_start(struct ktrace_instance *ti)
{
	return ktrace_instance_start_reading(ti, true);
}

int ktrace_instance_trace_on(struct ktrace_instance *ti)
{
	char path[256];

	if (ti->marker_fd < 0) {
		snprintf(path, sizeof(path), "%s/trace_marker", ti->path);
		/* optional: without it kmodtop only cannot mark its own evidence */
		ti->marker_fd = openat(ti->tfd, path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	}
	return inst_write(ti, "tracing_on", "1");
}

int ktrace_instance_start_reading(struct ktrace_instance *ti, bool text)
{
	char path[256];
	int fd;

	/* trace_pipe and trace_pipe_raw take events from one buffer: one or the other */
	if (text && ti->pipe_fd < 0) {
		snprintf(path, sizeof(path), "%s/trace_pipe", ti->path);
		fd = openat(ti->tfd, path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
		if (fd < 0)
			return -errno;
		ti->pipe_fd = fd;
	}
	return ktrace_instance_trace_on(ti);
}

int ktrace_instance_mark(struct ktrace_instance *ti, const char *text, size_t len)
{
	ssize_t n;

	if (ti->marker_fd < 0)
		return -EBADF;
	n = write(ti->marker_fd, text, len);
	if (n < 0)
		return -errno;
	/* the kernel cuts a marker at its size limit (4 KiB and more): say so */
	return (size_t)n == len ? 0 : -EMSGSIZE;
}

int ktrace_instance_stop(struct ktrace_instance *ti)
{
	return ti->created ? inst_write(ti, "tracing_on", "0") : 0;
}

ssize_t ktrace_instance_read(struct ktrace_instance *ti, char *buf, size_t len)
{
	ssize_t n;

	if (ti->pipe_fd < 0)
		return -EBADF;
	n = read(ti->pipe_fd, buf, len);
	if (n < 0)
		return -errno;
	/* tracefs says "nothing" with EAGAIN on a non-blocking pipe; a 0 means the same */
	return n ? n : -EAGAIN;
}

int ktrace_instance_teardown(struct ktrace_instance *ti)
{
	int r = 0, q;

	if (ti->pipe_fd >= 0) {
		close(ti->pipe_fd);
		ti->pipe_fd = -1;
	}
	/* an open file of the instance keeps rmdir at EBUSY */
	if (ti->marker_fd >= 0) {
		close(ti->marker_fd);
		ti->marker_fd = -1;
	}
	if (ti->created) {
		char rel[200];

		inst_write(ti, "tracing_on", "0");
		/* rmdir disables them too; this lets the probes go even if rmdir cannot */
		for (unsigned int i = 0; ti->group[0] && i < ti->n_probes; i++) {
			snprintf(rel, sizeof(rel), "events/%s/%s/enable", ti->group, ti->probes[i]);
			inst_write(ti, rel, "0");
			if (strcmp(ti->probes[i], PROBE_EVENT) == 0) {
				snprintf(rel, sizeof(rel), "events/%s/%s/trigger", ti->group,
					 ti->probes[i]);
				inst_write(ti, rel, "!stacktrace");
			}
		}
		/* EBUSY while another program holds a file of the instance open */
		for (int i = 0; i < 40; i++) {
			q = ti->ops.rmdir(ti->tfd, ti->path, ti->ops.userdata);
			if (q != -EBUSY)
				break;
			sleep_ms(25);
		}
		if (q == 0 || q == -ENOENT)
			ti->created = false;
		else
			r = q;
	}
	if (ti->group[0]) {
		unsigned int left = 0;

		for (unsigned int i = 0; i < ti->n_probes; i++) {
			q = remove_probe(ti->tfd, ti->group, ti->probes[i]);
			if (q == 0 || q == -ENOENT)
				continue;
			/* kept for a retry */
			memmove(ti->probes[left++], ti->probes[i], sizeof(ti->probes[0]));
			if (!r)
				r = q;
		}
		ti->n_probes = left;
		if (!left)
			ti->group[0] = '\0';
	}
	return r;
}

struct ktrace_instance *ktrace_instance_free(struct ktrace_instance *ti)
{
	if (!ti)
		return NULL;
	ktrace_instance_teardown(ti);
	if (ti->tfd >= 0)
		close(ti->tfd);
	free(ti->lost_base);
	free(ti);
	return NULL;
}
