/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record's bundle writer (session/bundle.h): the live system's files copied under the
 * same paths, and the module files the collection's attempts touched, named by the
 * ledger the report on the bundle will build.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cost/catalog.h"
#include "cost/estimate.h"
#include "cost/loadpath.h"
#include "ledger/ledger.h"
#include "sources/modindex.h"
#include "sources/modsyms.h"
#include "sources/proc-modules.h"
#include "sources/trace/event.h"
#include "util/io.h"
#include "util/macro.h"
#include "util/root.h"
#include "session/bundle.h"
#include "session/collect.h"
#include "session/live.h"

static int mkdir_p_at(int dfd, const char *rel)
{
	char buf[4096];

	if (snprintf(buf, sizeof(buf), "%s", rel) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdirat(dfd, buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdirat(dfd, buf, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static int create_at(int dfd, const char *rel)
{
	const char *slash = strrchr(rel, '/');
	int fd;

	if (slash) {
		char parent[4096];
		int r;

		snprintf(parent, sizeof(parent), "%.*s", (int)(slash - rel), rel);
		r = mkdir_p_at(dfd, parent);
		if (r < 0)
			return r;
	}
	/* read back too: the spools are parsed for the module names */
	fd = openat(dfd, rel, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0644);
	return fd < 0 ? -errno : fd;
}

static int copy_fd(int in, int out)
{
	char buf[65536];

	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));
		int r;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		r = fd_write_all(out, buf, (size_t)n);
		if (r < 0)
			return r;
	}
}

/* Copies a root-relative file of the live system into the bundle, same path. */
static int bundle_copy(struct bundle *b, const char *rel, bool optional)
{
	int in, out, r;

	in = root_open(b->src, rel, O_RDONLY);
	if (in < 0) {
		if (!optional || in != -ENOENT) {
			b->missing++;
			fprintf(b->notes, "missing %s: %s\n", rel, strerror(-in));
		}
		return in;
	}
	out = create_at(b->dfd, rel);
	if (out < 0) {
		close(in);
		if (!b->err)
			b->err = out;
		return out;
	}
	r = copy_fd(in, out);
	close(in);
	if (close(out) < 0 && r >= 0)
		r = -errno;
	if (r < 0) {
		/* a file that cannot be read is missing; one that cannot be written fails */
		if (r == -EIO || r == -ENOSPC || r == -EDQUOT || r == -EROFS) {
			if (!b->err)
				b->err = r;
		} else {
			b->missing++;
			fprintf(b->notes, "missing %s: %s\n", rel, strerror(-r));
			unlinkat(b->dfd, rel, 0);
		}
		return r;
	}
	b->copied++;
	return 0;
}

static int bundle_write(struct bundle *b, const char *rel, const char *text)
{
	int fd = create_at(b->dfd, rel), r;

	if (fd < 0)
		return fd;
	r = fd_write_all(fd, text, strlen(text));
	close(fd);
	return r;
}

static void bundle_sys_module(struct bundle *b, const struct proc_module *m)
{
	static const char *const attrs[] = { "coresize", "initsize", "initstate", "refcnt",
					     "taint" };
	char rel[512];
	struct dirent *de;
	DIR *d;
	int fd;

	if (strchr(m->name, '/'))
		return;
	for (size_t i = 0; i < ARRAY_SIZE(attrs); i++) {
		snprintf(rel, sizeof(rel), "sys/module/%s/%s", m->name, attrs[i]);
		bundle_copy(b, rel, true);
	}
	/* holders/ holds symlinks; their names are what the report reads */
	snprintf(rel, sizeof(rel), "sys/module/%s/holders", m->name);
	fd = root_open(b->src, rel, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	mkdir_p_at(b->dfd, rel);
	while ((de = readdir(d))) {
		char hrel[1024];
		int h;

		if (de->d_name[0] == '.')
			continue;
		snprintf(hrel, sizeof(hrel), "%s/%s", rel, de->d_name);
		h = create_at(b->dfd, hrel);
		if (h >= 0)
			close(h);
	}
	closedir(d);
}

/* *.conf of one modprobe.d directory: softdeps and aliases the report resolves with */
static void bundle_conf_dir(struct bundle *b, const char *rel)
{
	struct dirent *de;
	DIR *d;
	int fd = root_open(b->src, rel, O_RDONLY | O_DIRECTORY);

	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		char frel[1024];

		if (n < 6 || strcmp(de->d_name + n - 5, ".conf") != 0)
			continue;
		snprintf(frel, sizeof(frel), "%s/%s", rel, de->d_name);
		bundle_copy(b, frel, true);
	}
	closedir(d);
}

/* depmod's indexes and lists: every modules.* at the top of lib/modules/R */
static void bundle_module_indexes(struct bundle *b, const char *release)
{
	char rel[512];
	struct dirent *de;
	DIR *d;
	int fd;

	snprintf(rel, sizeof(rel), "lib/modules/%s", release);
	fd = root_open(b->src, rel, O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		b->missing++;
		fprintf(b->notes, "missing %s: %s\n", rel, strerror(-fd));
		return;
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d))) {
		char frel[1024];

		if (strncmp(de->d_name, "modules.", 8) != 0)
			continue;
		snprintf(frel, sizeof(frel), "%s/%s", rel, de->d_name);
		bundle_copy(b, frel, true);
	}
	closedir(d);
}

/* Module names the collection saw: loads, unloads, requests (resolved), log lines */
struct names {
	char **v;
	size_t n, cap;
	struct modindex *idx;
	bool oom;
};

static void names_add(struct names *nm, const char *s, size_t len)
{
	char *c;

	if (!len || len > 255 || memchr(s, '/', len))
		return;
	for (size_t i = 0; i < nm->n; i++)
		if (strlen(nm->v[i]) == len && memcmp(nm->v[i], s, len) == 0)
			return;
	if (nm->n == nm->cap) {
		size_t ncap = nm->cap ? nm->cap * 2 : 32;
		char **nv = realloc(nm->v, ncap * sizeof(*nv));

		if (!nv) {
			nm->oom = true;
			return;
		}
		nm->v = nv;
		nm->cap = ncap;
	}
	c = strndup(s, len);
	if (!c) {
		nm->oom = true;
		return;
	}
	/* '-' and '_' are the same in module names: keep the kernel's spelling */
	for (char *p = c; *p; p++)
		if (*p == '-')
			*p = '_';
	nm->v[nm->n++] = c;
}

static void names_add_resolved(struct names *nm, const char *alias, size_t len)
{
	char buf[256], **res = NULL;
	size_t n = 0;

	if (!nm->idx || len >= sizeof(buf))
		return;
	memcpy(buf, alias, len);
	buf[len] = '\0';
	if (modindex_lookup(nm->idx, buf, &res, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++)
		if (!strstr(res[i], " (builtin)"))
			names_add(nm, res[i], strlen(res[i]));
	modindex_names_free(res);
}

static int names_on_event(void *userdata, const struct ktrace_event *ev)
{
	struct names *nm = userdata;

	switch (ev->kind) {
	case KTRACE_EV_MODULE_LOAD:
	case KTRACE_EV_MODULE_FREE:
		names_add(nm, ev->module_load.name.s, ev->module_load.name.len);
		break;
	case KTRACE_EV_MODULE_REQUEST:
		names_add_resolved(nm, ev->module_request.name.s, ev->module_request.name.len);
		break;
	default:
		break;
	}
	return 0;
}

static void names_on_size_fit(void *userdata, const char *module)
{
	names_add(userdata, module, strlen(module));
}

/*
 * The ledger the report on the bundle builds, over the same trace and log, with the
 * bundle's proc/modules and depmod's indexes: the modules its attempts name (log,
 * kmodtop_fd markers, autoload, size), and every file whose size fit an unnamed attempt.
 * The report on the bundle names by size among the files the bundle holds only: with
 * every file that fit here copied, it finds the one file, or the several, found here.
 */
static void names_from_ledger(struct bundle *b, struct names *nm, const char *release,
			      int trace_fd, int kmsg_fd)
{
	struct collect_lookup lk = { .idx = nm->idx, .size_fit = names_on_size_fit,
				     .size_fit_userdata = nm };
	struct collect_input in = { .on_event = names_on_event, .userdata = nm,
				    .ledger_only = true };
	struct cost_kernel k = { .page_size = 4096 };
	struct proc_modules *pm = NULL;
	struct catalog *cat = NULL;
	struct collect_result res = {0};
	char rel[300], *moduledir = NULL, *tpath = NULL, *lpath = NULL;
	int fd, r;

	loadpath_from_release(release, &k.lp);
	lk.k = &k;
	fd = openat(b->dfd, "proc/modules", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		FILE *f = fdopen(fd, "re");

		if (f) {
			proc_modules_read_file(f, "proc/modules", &pm, &(struct kt_err){0});
			fclose(f);
		} else {
			close(fd);
		}
	}
	lk.pm = pm;
	snprintf(rel, sizeof(rel), "lib/modules/%s", release);
	if (root_abspath(b->src, rel, &moduledir) == 0 &&
	    catalog_new(moduledir, true, NULL, &cat) == 0)
		lk.cat = cat;
	if (collect_open_spool(trace_fd, "sys/kernel/tracing/trace", &in.trace, &tpath) < 0)
		in.trace = NULL;
	if (collect_open_spool(kmsg_fd, "capture/kmsg.raw", &in.log, &lpath) < 0)
		in.log = NULL;
	in.trace_path = tpath;
	in.log_path = lpath;
	r = in.trace || in.log ? collect_read(&lk, k.lp.idempotent_finit, &in, &res) : 0;
	if (r == -ENOMEM)
		nm->oom = true;
	for (size_t i = 0; res.ledger && i < res.ledger->n_attempts; i++) {
		const char *m = res.ledger->attempts[i].module;

		if (m)
			names_add(nm, m, strlen(m));
	}
	for (size_t i = 0; res.ledger && i < res.ledger->n_klog; i++) {
		const char *m = res.ledger->klog[i].module;

		if (m)
			names_add(nm, m, strlen(m));
	}
	fprintf(b->notes, "module files by size: %s\n",
		lk.cat ? "every file that fit an attempt" : "no module tree");
	collect_result_done(&res);
	if (in.trace)
		fclose(in.trace);
	if (in.log)
		fclose(in.log);
	free(tpath);
	free(lpath);
	catalog_free(cat);
	free(moduledir);
	proc_modules_free(pm);
}

/* The files of the modules the attempts touched, and of what modprobe loads with them */
static void bundle_module_files(struct bundle *b, const char *release, int trace_fd, int kmsg_fd)
{
	struct names nm = {0};
	char moduledir[512];

	snprintf(moduledir, sizeof(moduledir), "/lib/modules/%s", release);
	if (modindex_new(b->src, moduledir, &nm.idx) < 0)
		nm.idx = NULL;
	if (nm.idx)
		collect_modindex_config_warn(nm.idx);
	names_from_ledger(b, &nm, release, trace_fd, kmsg_fd);
	/* modprobe loads the dependencies first: their attempts are in the trace too */
	for (size_t i = 0; nm.idx && i < nm.n && i < 4096; i++) {
		char **deps = NULL;
		size_t nd = 0;

		if (modindex_deps(nm.idx, nm.v[i], &deps, &nd) < 0)
			continue;
		for (size_t k = 0; k < nd; k++)
			names_add(&nm, deps[k], strlen(deps[k]));
		modindex_names_free(deps);
	}
	for (size_t i = 0; nm.idx && i < nm.n; i++) {
		char *path = NULL;

		if (modindex_path(nm.idx, nm.v[i], &path) == 0 && path[0] == '/')
			bundle_copy(b, path + 1, false);
		free(path);
	}
	fprintf(b->notes, "module names seen: %zu\n", nm.n);
	if (nm.oom && !b->err)
		b->err = -ENOMEM;
	for (size_t i = 0; i < nm.n; i++)
		free(nm.v[i]);
	free(nm.v);
	modindex_free(nm.idx);
}

/*
 * The modules' text symbols, from the end of the recording: a module loaded during it
 * came after the trace reader took kallsyms, and its call sites are raw addresses in
 * the spool. Only those lines: the kernel image's own are already in the spool's names.
 */
static void bundle_module_symbols(struct bundle *b)
{
	_cleanup_fclose_ FILE *in = NULL;
	FILE *out;
	size_t n = 0;
	int fd, r;

	r = root_fopen_max(b->src, "proc/kallsyms", ROOT_TABLE_MAX, &in);
	if (r < 0) {
		b->missing++;
		fprintf(b->notes, "missing proc/kallsyms: %s\n", strerror(-r));
		return;
	}
	fd = create_at(b->dfd, MODSYMS_PATH);
	if (fd < 0) {
		if (!b->err)
			b->err = fd;
		return;
	}
	out = fdopen(fd, "w");
	if (!out) {
		close(fd);
		if (!b->err)
			b->err = -ENOMEM;
		return;
	}
	r = modsyms_filter(in, out, &n);
	if (fclose(out) != 0 && r >= 0)
		r = -errno;
	if (r < 0 && !b->err)
		b->err = r;
	if (r >= 0 && !n) {
		/* zero addresses (no CAP_SYSLOG, kptr_restrict) or no modules: nothing to keep */
		unlinkat(b->dfd, MODSYMS_PATH, 0);
		fprintf(b->notes, "module symbols: none with an address in proc/kallsyms\n");
	} else if (r >= 0) {
		fprintf(b->notes, "module symbols: %zu text symbols in %s\n", n, MODSYMS_PATH);
	}
}

int bundle_snapshot(struct bundle *b, const char *release)
{
	static const char *const files[] = {
		"proc/modules", "proc/vmallocinfo", "proc/meminfo", "proc/sys/kernel/osrelease",
		"proc/sys/kernel/tainted", "proc/sys/kernel/kptr_restrict",
		"proc/sys/kernel/random/boot_id",
	};
	static const char *const conf_dirs[] = {
		"etc/modprobe.d", "run/modprobe.d", "usr/lib/modprobe.d", "lib/modprobe.d",
	};
	struct proc_modules *pm = NULL;
	struct kt_err e = {0};
	char rel[512];

	for (size_t i = 0; i < ARRAY_SIZE(files); i++)
		bundle_copy(b, files[i], false);
	if (proc_modules_read(b->src, &pm, &e) == 0) {
		for (size_t i = 0; i < pm->n; i++)
			bundle_sys_module(b, &pm->mods[i]);
		proc_modules_free(pm);
	}
	bundle_copy(b, "sys/module/compression", true);
	bundle_copy(b, "sys/kernel/debug/modules/stats", true);
	snprintf(rel, sizeof(rel), "boot/config-%s", release);
	if (bundle_copy(b, rel, true) == -ENOENT)
		bundle_copy(b, "proc/config.gz", true);
	for (size_t i = 0; i < ARRAY_SIZE(conf_dirs); i++)
		bundle_conf_dir(b, conf_dirs[i]);
	bundle_module_indexes(b, release);
	bundle_module_files(b, release, b->trace_fd, b->kmsg_fd);
	bundle_module_symbols(b);
	snprintf(rel, sizeof(rel), "%s\n", release);
	bundle_write(b, "capture/uname-r", rel);
	if (b->err)
		return b->err;
	/* on disk before the rename says the bundle is complete */
	if (fflush(b->notes) != 0 || fsync(fileno(b->notes)) < 0 ||
	    (b->trace_fd >= 0 && fsync(b->trace_fd) < 0) || (b->kmsg_fd >= 0 && fsync(b->kmsg_fd) < 0))
		return -errno;
	return 0;
}

int bundle_default_dir(char *buf, size_t len, const char *release)
{
	time_t t = time(NULL);
	struct tm tm;
	char when[32];

	if (!localtime_r(&t, &tm) || !strftime(when, sizeof(when), "%Y%m%d-%H%M%S", &tm))
		return -EINVAL;
	return snprintf(buf, len, "kmodtop-%s-%s", release, when) < (int)len ? 0 : -ENAMETOOLONG;
}

/* Does @dir hold anything? 0 no, 1 yes, -errno */
static int dir_has_entries(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int r = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) {
			r = 1;
			break;
		}
	closedir(d);
	return r;
}

int bundle_begin(struct bundle *b, const char *arg, const char **reterr_path)
{
	static const char marker[] =
		"This kmodtop bundle is incomplete: 'kmodtop record' was writing it and did "
		"not finish.\nA complete bundle has no such file, and is renamed from "
		"DIR.partial to DIR.\n";
	struct stat st;
	char *real;
	size_t len;
	int r, fd;

	*reterr_path = arg;
	b->dir = strdup(arg);
	if (!b->dir)
		return -ENOMEM;
	/* "out/" is "out": ".partial" goes after the name, not inside it */
	for (len = strlen(b->dir); len > 1 && b->dir[len - 1] == '/'; len--)
		b->dir[len - 1] = '\0';
	if (stat(b->dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			return -ENOTDIR;
		r = dir_has_entries(b->dir);
		if (r != 0)
			return r < 0 ? r : -ENOTEMPTY;
		/* through a symlink: the bundle goes where it points, as DIR/file would */
		real = realpath(b->dir, NULL);
		if (!real)
			return -errno;
		free(b->dir);
		b->dir = real;
	} else if (errno != ENOENT) {
		return -errno;
	}
	if (asprintf(&b->partial, "%s.partial", b->dir) < 0) {
		b->partial = NULL;
		return -ENOMEM;
	}
	*reterr_path = b->partial;
	if (mkdir(b->partial, 0755) < 0)
		return -errno;
	b->made = true;
	b->dfd = open(b->partial, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (b->dfd < 0)
		return -errno;
	fd = create_at(b->dfd, BUNDLE_MARKER);
	if (fd < 0)
		return fd;
	r = fd_write_all(fd, marker, sizeof(marker) - 1);
	if (close(fd) < 0 && r >= 0)
		r = -errno;
	return r;
}

int bundle_finish(struct bundle *b)
{
	if (unlinkat(b->dfd, BUNDLE_MARKER, 0) < 0)
		return -errno;
	if (fsync(b->dfd) < 0)
		return -errno;
	/* ENOTEMPTY or EEXIST: something was put in DIR meanwhile; it stays as it is */
	if (rename(b->partial, b->dir) < 0)
		return -errno;
	b->made = false;
	return 0;
}

int bundle_abandon(struct bundle *b, bool discard, const char *why)
{
	int fd;

	if (!b->made)
		return 0;
	b->made = false;
	if (discard) {
		unlinkat(b->dfd, BUNDLE_MARKER, 0);
		unlinkat(b->dfd, "capture", AT_REMOVEDIR);
		if (rmdir(b->partial) == 0)
			return 0;
	}
	fd = b->dfd >= 0 ? openat(b->dfd, BUNDLE_MARKER, O_WRONLY | O_APPEND | O_CLOEXEC) : -1;
	if (fd >= 0) {
		dprintf(fd, "It stopped: %s.\n", why);
		close(fd);
	}
	return 1;
}

void bundle_init(struct bundle *b, const struct kt_root *src)
{
	*b = (struct bundle){ .src = src, .dfd = -1, .trace_fd = -1, .kmsg_fd = -1 };
}

void bundle_done(struct bundle *b)
{
	if (b->notes)
		fclose(b->notes);
	if (b->trace_fd >= 0)
		close(b->trace_fd);
	if (b->kmsg_fd >= 0)
		close(b->kmsg_fd);
	if (b->dfd >= 0)
		close(b->dfd);
	free(b->dir);
	free(b->partial);
	bundle_init(b, b->src);
}

int bundle_open_spools(struct bundle *b, const char *release)
{
	int fd;

	b->trace_fd = create_at(b->dfd, "sys/kernel/tracing/trace");
	if (b->trace_fd < 0)
		return b->trace_fd;
	b->kmsg_fd = create_at(b->dfd, "capture/kmsg.raw");
	if (b->kmsg_fd < 0)
		return b->kmsg_fd;
	fd = create_at(b->dfd, "capture/record.txt");
	if (fd < 0)
		return fd;
	b->notes = fdopen(fd, "we");
	if (!b->notes) {
		int r = -errno;

		close(fd);
		return r;
	}
	fprintf(b->notes, "kmodtop %s record of %s\n", PACKAGE_VERSION, release);
	return 0;
}

void bundle_note_live(struct bundle *b, const struct live_status *st)
{
	fprintf(b->notes, "seconds: %.3f\nended by: %s\ninstance: %s\ntrace: %s\nmeasure: %s\n"
		"lost trace events: %" PRIu64 "\n'<...>' task names resolved: %" PRIu64
		", left: %" PRIu64 "\nkmsg: %s\nkmsg records: %" PRIu64 "\n",
		st->seconds, st->ended_by ? st->ended_by : "duration",
		st->instance[0] ? st->instance : "-",
		st->trace_err ? strerror(-st->trace_err) : "ok",
		!st->measure_asked ? "off" : st->measure == KTRACE_MEASURE_TRACEPOINT ? "tracepoint"
			: st->measure == KTRACE_MEASURE_KPROBE ? "kprobe" : "none",
		st->lost_total, st->comms_resolved, st->comms_unknown,
		st->kmsg_err ? strerror(-st->kmsg_err) : "ok", st->kmsg_records);
	fprintf(b->notes, "trace read from: %s%s%s%s\n", st->raw ? "trace_pipe_raw" : "trace_pipe",
		!st->raw && st->raw_why ? " (" : "", !st->raw && st->raw_why ? st->raw_why : "",
		!st->raw && st->raw_why ? ")" : "");
	/* what the setup cost, and how much of it a service manager waited for */
	fprintf(b->notes, "ready after: %.3f s\nsetup:", st->ready_after);
	for (size_t i = 0; i < st->n_steps; i++)
		fprintf(b->notes, "%s %s %.3f s", i ? "," : "", st->steps[i].what,
			st->steps[i].seconds);
	fputc('\n', b->notes);
	fprintf(b->notes, "vmallocinfo samples: %zu, peak in flight: %" PRIu64 " bytes, %zu areas\n",
		st->vs.samples, st->vs.peak_inflight_bytes, st->vs.peak_inflight_areas);
	for (size_t i = 0; i < st->n_events; i++)
		if (st->events[i].err)
			fprintf(b->notes, "missing event %s: no %s%s%s%s\n", st->events[i].name,
				st->events[i].loses, st->events[i].why ? " (" : "",
				st->events[i].why ? st->events[i].why : "",
				st->events[i].why ? ")" : "");
	/* the report on the bundle then says the source is missing, not that it was empty */
	if (st->trace_err) {
		unlinkat(b->dfd, "sys/kernel/tracing/trace", 0);
		close(b->trace_fd);
		b->trace_fd = -1;
	}
	if (st->kmsg_err) {
		unlinkat(b->dfd, "capture/kmsg.raw", 0);
		close(b->kmsg_fd);
		b->kmsg_fd = -1;
	}
}
