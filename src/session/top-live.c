/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sources/meminfo.h"
#include "sources/proc-modules.h"
#include "sources/vmallocinfo.h"
#include "util/array.h"
#include "util/io.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/root.h"
#include "session/boot-capture.h"
#include "session/collect.h"
#include "session/live.h"
#include "session/top-live.h"

/*
 * The system's files polled at every refresh (ROOT/proc: proc/modules, vmallocinfo,
 * meminfo); on the running system, with the live collection's attempts (kmodtop's
 * tracefs instance and /dev/kmsg), and under a captured root with its history read
 * once.
 */

struct top_live {
	const struct kt_system *st;
	char decompress[64];		/* kt_system_decompression_text() */
	struct top_warn w;
	struct top_failure fail;	/* why a sample failed, with its -errno */
	struct top_history h;
	struct collect_lookup lk;
	struct top_detail ic;
	/* a live system: kmodtop's tracefs instance and /dev/kmsg, spooled */
	struct live_session *lv;
	bool measure;
	struct collect_stream *cs;	/* the spools, read as they grow, into one ledger */
	size_t n_updates;
	double update_secs, update_max;
	size_t *ldone;			/* settled complete attempts, in the order they settled */
	size_t n_ldone, cap_ldone;
	size_t n_listed;		/* settled attempts looked at for ldone */
	size_t trace_src, kmsg_src;	/* their entries in sources[] */
	char trace_why[80], kmsg_why[80];
	struct proc_modules *pm, *first_pm;
	char *pm_text; /* what pm was parsed from */
	size_t pm_len;
	bool pm_valid;
	struct top_vm_figures vm;
	bool vm_valid;
	/* the first failed read of each (said when the terminal is back): 0 when none */
	int vm_r, mi_r;
	struct kt_err vm_err, mi_err;
	/* the last vmallocinfo, re-read where it changed, and each area's figures */
	struct vmallocinfo *vi;
	struct vm_area_fig {
		uint64_t used, modules;
	} *vm_fig;
	size_t n_vm_fig;
	struct top_modstate *mods;
	size_t cap_mods;
	size_t *done;
	struct top_source sources[8];
	struct top_sample s;
	double t;
};

static double monotonic_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct top_live *top_live_free(struct top_live *p)
{
	if (!p)
		return NULL;
	/* first: the instance must go whatever else fails */
	p->lv = live_free(p->lv);
	collect_stream_free(p->cs);
	free(p->ldone);
	vmallocinfo_free(p->vi);
	free(p->vm_fig);
	free(p->pm_text);
	proc_modules_free(p->pm);
	proc_modules_free(p->first_pm);
	free(p->mods);
	free(p->done);
	top_history_done(&p->h);
	free(p);
	return NULL;
}

/*
 * The figures after vmallocinfo_reread(): only the areas it replaced are looked at,
 * the others keep theirs (a module load changes three lines of 100,000).
 */
static int vm_figures_update(struct top_live *p, const struct vmallocinfo_change *ch)
{
	size_t n = p->vi->n, tail = p->n_vm_fig - ch->start - ch->removed;
	struct vm_area_fig *f;

	if (n > p->n_vm_fig) {
		f = realloc(p->vm_fig, n * sizeof(*f));
		if (!f)
			return -ENOMEM;
		p->vm_fig = f;
	}
	f = p->vm_fig;
	for (size_t i = ch->start; i < ch->start + ch->removed; i++) {
		p->vm.used -= f[i].used;
		p->vm.modules -= f[i].modules;
	}
	memmove(f + ch->start + ch->added, f + ch->start + ch->removed, tail * sizeof(*f));
	for (size_t i = ch->start; i < ch->start + ch->added; i++) {
		top_vm_area_figures(&p->vi->areas[i], &f[i].used, &f[i].modules);
		p->vm.used += f[i].used;
		p->vm.modules += f[i].modules;
	}
	p->n_vm_fig = n;
	p->vm.areas = n;
	return 0;
}

/*
 * Live attempts. The spools are read as they grow, each byte once, into one ledger
 * that ledger_settle() decides as events come: what links attempts across each other
 * (waiters, fallbacks, requests, names from the log) is decided again only for the
 * attempts that may still change, and an attempt that ended long enough ago (about
 * a second, see ledger.c) is settled for good. Only settled attempts are shown, so a
 * row never changes its mind; what top shows is what `report` says of the same
 * events. A refresh costs the new events and the few seconds still open, not the
 * history.
 */
/* trace_pipe reads (64 KiB) per refresh: a flood must not stall the screen */
#define LIVE_READS 256

static int cmp_end(const void *pa, const void *pb, void *ctx)
{
	const struct ledger *l = ctx;
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	double ta = l->attempts[a].end, tb = l->attempts[b].end;

	if (ta != tb)
		return ta < tb ? -1 : 1;
	return a < b ? -1 : a > b;
}

static int settle_attempts(struct top_live *p)
{
	struct top_sample *s = &p->s;
	const struct ktrace_stats *ts;
	const struct ledger *l;
	double t0 = monotonic_now(), t1;
	size_t from = p->n_ldone;
	int r, quiet;

	/* as the report: the modules now stand for those Live before, where no event says */
	p->lk.pm = p->pm;
	/* the terminal is top's: bad lines are counted in the header instead */
	quiet = log_set_quiet(1);
	r = collect_stream_feed(p->cs);
	if (r >= 0)
		r = collect_stream_settle(p->cs);
	log_set_quiet(quiet);
	if (r < 0)
		return r;
	l = collect_stream_ledger(p->cs);
	/* attempts settled since the last refresh, by end: a done list only grows */
	if (l->n_settled &&
	    array_grow_uninit((void **)&p->ldone, l->n_settled - 1, &p->cap_ldone,
			      sizeof(*p->ldone)) < 0)
		return -ENOMEM;
	for (; p->n_listed < l->n_settled; p->n_listed++) {
		if (!l->attempts[p->n_listed].complete)
			continue;
		array_prefault(p->ldone, p->n_ldone, p->cap_ldone, sizeof(*p->ldone));
		p->ldone[p->n_ldone++] = p->n_listed;
	}
	qsort_r(p->ldone + from, p->n_ldone - from, sizeof(*p->ldone), cmp_end, (void *)l);
	s->ledger = l;
	s->cost = collect_stream_cost(p->cs);
	s->done = p->ldone;
	s->n_done = p->n_ldone;
	s->n_requests = l->n_requests;
	s->requests_change = true;
	s->n_requests_final = l->n_requests_settled;
	s->n_klog = l->n_klog;
	if (p->measure && l->saw_vmap_events)
		s->measured = true;
	ts = collect_stream_trace_stats(p->cs);
	if (ts && ts->malformed) {
		snprintf(p->trace_why, sizeof(p->trace_why), "%" PRIu64 " bad lines", ts->malformed);
		p->sources[p->trace_src].why = p->trace_why;
	}
	t1 = monotonic_now();
	p->n_updates++;
	p->update_secs += t1 - t0;
	if (t1 - t0 > p->update_max)
		p->update_max = t1 - t0;
	return 0;
}

static int engine_sample(struct top_live *p)
{
	const char *why;
	uint64_t lost;
	int r;

	/* the trace's own clock moves on when nothing else does: attempts settle by it */
	(void)live_mark_now(p->lv);
	r = live_poll(p->lv, LIVE_READS);
	/* a source that was never there keeps its reason (needs root, no tracefs) */
	if (p->sources[p->trace_src].state == TOP_SRC_LIVE &&
	    (r < 0 || live_trace_error(p->lv, &why) < 0)) {
		p->sources[p->trace_src].state = TOP_SRC_MISSING;
		p->sources[p->trace_src].why = "reading it failed";
	}
	if (p->sources[p->kmsg_src].state == TOP_SRC_LIVE && live_kmsg_error(p->lv, &why) < 0) {
		p->sources[p->kmsg_src].state = TOP_SRC_MISSING;
		p->sources[p->kmsg_src].why = p->kmsg_why[0] ? p->kmsg_why : "reading it failed";
	}
	if (live_lost_now(p->lv, &lost) == 0)
		p->s.lost_events = lost;
	/* even with nothing new: time passing settles attempts (the log's last record) */
	return settle_attempts(p);
}

/* What the header says of a source that is not there: short, the man page has more */
static const char *trace_reason(int err, const char *why)
{
	/* unprivileged, tracefs may not even be found: root is what is missing */
	if (err == -EACCES || err == -EPERM || geteuid() != 0)
		return "needs root";
	if (why && strstr(why, "mount"))
		return "no tracefs";
	return why ? why : strerror(-err);
}

static const char *kmsg_reason(int err, const char *why)
{
	if (err == -ENOENT)
		return "no /dev/kmsg";
	if (why && strstr(why, "dmesg_restrict"))
		return "dmesg_restrict";
	if (err == -EACCES || err == -EPERM)
		return "needs CAP_SYSLOG";
	return why ? why : strerror(-err);
}

/*
 * The boot's capture, when the kernel command line set one up (boot-setup): the global
 * buffer's events so far, header lines left out. Read before the live instance starts,
 * so that all of them are older than its first event (what comes in between, a few
 * milliseconds, is in neither). 0 and NULL when there is none.
 */
static int boot_trace_text(char **ret, size_t *ret_len)
{
	struct boot_capture bc;
	const char *why = NULL;
	char *buf = NULL, *out;
	size_t len = 0, cap = 0, n_out = 0;
	int r;

	*ret = NULL;
	*ret_len = 0;
	r = boot_capture_find(NULL, 0, &bc, &why);
	if (r < 0 || bc.source != BOOT_SOURCE_CMDLINE || bc.trace_fd < 0) {
		if (r >= 0)
			boot_capture_done(&bc);
		return 0;
	}
	for (;;) {
		ssize_t n;

		if (cap - len < 65536) {
			char *nb = realloc(buf, cap = cap ? cap * 2 : (1u << 20));

			if (!nb) {
				r = -ENOMEM;
				goto out;
			}
			buf = nb;
		}
		n = read(bc.trace_fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	/* the event lines, in place: "# tracer: nop" and the like describe another read */
	out = buf;
	for (size_t at = 0; at < len;) {
		char *nl = memchr(buf + at, '\n', len - at);
		size_t l = nl ? (size_t)(nl - (buf + at)) + 1 : len - at;

		if (buf[at] != '#') {
			memmove(out + n_out, buf + at, l);
			n_out += l;
		}
		at += l;
	}
	*ret = buf;
	*ret_len = n_out;
	buf = NULL;
	r = 0;
out:
	free(buf);
	boot_capture_done(&bc);
	return r;
}

static int top_event(void *userdata, const struct ktrace_event *ev)
{
	return collect_stream_event(userdata, ev);
}

static void top_bad(void *userdata, const char *what)
{
	collect_stream_bad(userdata, what);
}

static const struct live_sink_ops top_sink_ops = { .event = top_event, .bad = top_bad };

/* collect_stream_feed()'s turn for the trace: what the live buffers decoded */
static int top_pull(void *userdata)
{
	struct top_live *p = userdata;

	return live_pull_events(p->lv);
}

static int engine_start(struct top_live *p, size_t *ns, struct top_failure *ret_fail)
{
	struct live_opts lo = { .measure = p->measure,
				.release = kt_system_release(p->st) };
	const char *why = NULL;
	char *boot = NULL;
	size_t boot_len = 0;
	int r, err;

	/* a boot capture: top opens on its attempts, with the kernel log from boot on */
	if (boot_trace_text(&boot, &boot_len) < 0)
		top_warnf(&p->w, "the boot's trace (kernel command line) cannot be read: left out");
	if (boot)
		lo.since_boot = true;
	r = live_start(&lo, -1, -1, &p->lv);
	if (r < 0) {
		free(boot);
		ret_fail->what = "live collection";
		return r;
	}
	/* before the instance's first line: the spool is read in order */
	if (boot && live_trace_fd(p->lv) >= 0) {
		r = fd_write_all(live_trace_fd(p->lv), boot, boot_len);
		if (r < 0) {
			free(boot);
			ret_fail->what = "live collection: the boot's trace";
			return r;
		}
		p->sources[(*ns)++] = (struct top_source){ "boot trace", TOP_SRC_ONCE, NULL };
	}
	free(boot);
	p->lk.idx = p->st->idx;
	p->lk.cat = p->st->cat;
	p->lk.k = &p->st->k;
	r = collect_stream_new(&p->lk, p->st->lp.idempotent_finit, live_trace_fd(p->lv),
			       live_trace_name(p->lv), live_kmsg_fd(p->lv), &p->cs);
	if (r < 0) {
		ret_fail->what = "live collection";
		return r;
	}
	/* the raw buffers' events go to the ledger as decoded: no text between them */
	if (live_set_sink(p->lv, &top_sink_ops, p->cs) == 0) {
		r = collect_stream_direct(p->cs, top_pull, p);
		if (r < 0) {
			ret_fail->what = "live collection";
			return r;
		}
	}
	p->trace_src = *ns;
	err = live_trace_error(p->lv, &why);
	p->sources[(*ns)++] = err ? (struct top_source){ "trace", TOP_SRC_MISSING,
							 trace_reason(err, why) }
				  : (struct top_source){ "trace", TOP_SRC_LIVE, NULL };
	p->kmsg_src = *ns;
	err = live_kmsg_error(p->lv, &why);
	if (err)
		snprintf(p->kmsg_why, sizeof(p->kmsg_why), "%s", kmsg_reason(err, why));
	p->sources[(*ns)++] = err ? (struct top_source){ "kmsg", TOP_SRC_MISSING, p->kmsg_why }
				  : (struct top_source){ "kmsg", TOP_SRC_LIVE, NULL };
	if (!p->measure)
		p->s.measured_why = "--measure";
	else if (live_trace_error(p->lv, &why) < 0)
		p->s.measured_why = "no trace";
	else if (!live_measuring(p->lv, &why))
		p->s.measured_why = why ? why : "not measured";
	else
		p->s.measured = true;
	return 0;
}

/*
 * proc/modules at every refresh, parsed only when its bytes changed. proc/vmallocinfo
 * (100,000 lines on a big machine) only then too: module areas come and go with the
 * modules, and VmallocUsed comes from proc/meminfo every time.
 */
int top_live_sample(void *userdata, double dt, const struct top_sample **ret)
{
	struct top_live *p = userdata;
	struct top_sample *s = &p->s;
	_cleanup_free_ char *buf = NULL;
	struct kt_err e = { 0 };
	struct meminfo mi;
	bool changed = false;
	size_t len = 0;
	int r;

	p->t = monotonic_now();
	s->now = p->t;
	r = root_read_file(p->st->root, "proc/modules", 64u << 20, &buf, &len);
	if (r < 0) {
		p->sources[0].state = TOP_SRC_MISSING;
		p->sources[0].why = r == -ENOENT ? "no module support" : "unreadable";
		proc_modules_free(p->pm);
		p->pm = NULL;
		p->pm_valid = false;
		s->n_mods = 0;
	} else if (!p->pm_valid || len != p->pm_len || memcmp(buf, p->pm_text, len) != 0) {
		FILE *f = fmemopen(buf, len ? len : 1, "r");
		struct proc_modules *pm = NULL;

		if (!f)
			return -errno;
		if (!len)
			fgetc(f); /* an empty file: fmemopen() needs a size */
		r = proc_modules_read_file(f, "proc/modules", &pm, &e);
		fclose(f);
		if (r == -ENOMEM)
			return r;
		if (r < 0) {
			p->fail.has_err = true;
			p->fail.err = e;
			return r;
		}
		proc_modules_free(p->pm);
		p->pm = pm;
		free(p->pm_text);
		p->pm_text = buf;
		p->pm_len = len;
		buf = NULL;
		p->pm_valid = true;
		changed = true;
		p->sources[0].state = TOP_SRC_LIVE;
		if (p->pm->n > p->cap_mods) {
			struct top_modstate *nm =
				realloc(p->mods, p->pm->n * sizeof(*nm));

			if (!nm)
				return -ENOMEM;
			p->mods = nm;
			p->cap_mods = p->pm->n;
		}
		for (size_t i = 0; i < p->pm->n; i++)
			p->mods[i] = (struct top_modstate){
				p->pm->mods[i].name,
				true,
				p->pm->mods[i].state,
				true,
				p->pm->mods[i].size,
				(const char *const *)p->pm->mods[i].holders,
				p->pm->mods[i].n_holders,
			};
		s->mods = p->mods;
		s->n_mods = p->pm->n;
	}

	if (changed || !p->vm_valid) {
		struct vmallocinfo_change ch;

		memset(&e, 0, sizeof(e));
		r = vmallocinfo_reread(p->st->root, &p->vi, &ch, &e);
		if (r == 0)
			r = vm_figures_update(p, &ch);
		if (r == -ENOMEM)
			return r;
		if (r == 0) {
			p->vm_valid = true;
			p->sources[1].state = TOP_SRC_LIVE;
			p->sources[1].why = NULL;
		} else {
			p->vm_valid = false;
			p->sources[1].state = TOP_SRC_MISSING;
			p->sources[1].why =
				r == -EACCES || r == -EPERM ? "needs root"
				: r == -ENOENT		    ? NULL
							    : "damaged";
			if (!p->vm_r) {
				p->vm_r = r;
				p->vm_err = e;
			}
			/* the next read is a whole one */
			p->vi = vmallocinfo_free(p->vi);
			p->n_vm_fig = 0;
			memset(&p->vm, 0, sizeof(p->vm));
		}
	}
	memset(&mi, 0, sizeof(mi));
	memset(&e, 0, sizeof(e));
	r = p->vm_valid ? meminfo_read(p->st->root, &mi, &e) : -ENOENT;
	if (r < 0 && r != -ENOENT && !p->mi_r) {
		p->mi_r = r;
		p->mi_err = e;
	}
	if (r == 0 && mi.has_vmalloc_total) {
		s->has_vmalloc = true;
		s->vmalloc_total = mi.vmalloc_total;
		s->vmalloc_used = mi.has_vmalloc_used ? mi.vmalloc_used : p->vm.used;
		s->vmalloc_modules = p->vm.modules;
		s->vmalloc_from = NULL;
	} else {
		s->has_vmalloc = false;
	}
	if (p->lv) {
		r = engine_sample(p);
		if (r < 0)
			return r;
	}
	(void)dt;
	*ret = s;
	return 0;
}

int top_live_new(const struct kt_system *st, bool measure, const struct top_warn *w,
		 struct top_failure *ret_fail, struct top_live **ret)
{
	struct top_live *p = calloc(1, sizeof(*p));
	struct kt_err e = { 0 };
	size_t ns = 0;
	int r;

	if (!p)
		return -ENOMEM;
	p->st = st;
	if (w)
		p->w = *w;
	p->sources[ns++] = (struct top_source){ "proc/modules", TOP_SRC_LIVE, NULL };
	p->sources[ns++] = (struct top_source){ "vmallocinfo", TOP_SRC_LIVE, NULL };
	p->measure = measure;
	if (root_is_live_system(st->root)) {
		r = engine_start(p, &ns, ret_fail);
		if (r < 0)
			goto fail;
	} else {
		/* a captured root: its history once, as the report reads it */
		r = proc_modules_read(st->root, &p->first_pm, &e);
		if (r < 0 && r != -ENOENT) {
			ret_fail->has_err = true;
			ret_fail->err = e;
			goto fail;
		}
		if (r == 0)
			collect_warn_repeated("proc/modules", p->first_pm->n_repeated,
					      p->first_pm->repeated_line);
		p->lk.idx = st->idx;
		p->lk.pm = p->first_pm;
		r = top_history_read(&p->h, st, &p->lk, &p->w);
		if (r < 0)
			goto fail;
		p->sources[ns++] =
			p->h.has_trace
				? (struct top_source){ "trace", TOP_SRC_ONCE, NULL }
				: (struct top_source){ "trace", TOP_SRC_MISSING, NULL };
		p->sources[ns++] =
			p->h.has_log
				? (struct top_source){ p->h.log_format, TOP_SRC_ONCE,
						       NULL }
				: (struct top_source){ "kmsg", TOP_SRC_MISSING, NULL };
		if (p->h.ledger && p->h.ledger->n_attempts) {
			const struct ledger *l = p->h.ledger;

			p->done = malloc(l->n_attempts * sizeof(*p->done));
			if (!p->done) {
				r = -ENOMEM;
				goto fail;
			}
			for (size_t i = 0; i < l->n_attempts; i++)
				p->done[i] = i;
			p->s.n_done = l->n_attempts;
		}
		p->s.ledger = p->h.ledger;
		p->s.cost = p->h.cost ? p->h.cost->att : NULL;
		p->s.done = p->done;
		p->s.n_requests = p->h.ledger ? p->h.ledger->n_requests : 0;
		p->s.n_klog = p->h.ledger ? p->h.ledger->n_klog : 0;
		p->s.lost_events = p->h.trace_stats.lost_events;
		p->s.measured = p->h.ledger && p->h.ledger->saw_vmap_events;
		p->s.measured_why = "no vmap events in the trace";
	}
	if (!root_exists(st->root, "sys/kernel/debug/modules/stats"))
		p->sources[ns++] =
			(struct top_source){ "module_stats", TOP_SRC_MISSING, NULL };
	p->s.sources = p->sources;
	p->s.n_sources = ns;
	p->ic.st = st;
	p->ic.trace_ncpus =
		p->h.trace_stats.ncpus > 0 ? (unsigned int)p->h.trace_stats.ncpus : 0;
	p->s.release = kt_system_release(st);
	p->s.lp = &st->lp;
	kt_system_decompression_text(st, p->decompress, sizeof(p->decompress));
	p->s.decompress = p->decompress;
	p->s.module_info = top_detail_module_info;
	p->s.symbol_module = top_detail_symbol_module;
	p->s.userdata = &p->ic;
	/*
	 * The first sample comes at once, with what was there before it (a captured
	 * root's history, a live collection's setup): a rate over that near-zero interval
	 * would be absurd, so it has none.
	 */
	p->s.start = NAN;
	*ret = p;
	return 0;
fail:
	top_live_free(p);
	return r;
}

struct live_session *top_live_engine(const struct top_live *p)
{
	return p->lv;
}

const struct top_failure *top_live_failure(const struct top_live *p)
{
	return &p->fail;
}

void top_live_update_stats(const struct top_live *p, size_t *ret_n, double *ret_secs,
			   double *ret_max)
{
	*ret_n = p->n_updates;
	*ret_secs = p->update_secs;
	*ret_max = p->update_max;
}

void top_live_warn_reads(const struct top_live *p)
{
	if (p->vm_r)
		top_warn_unusable(&p->w, "proc/vmallocinfo", p->vm_r, &p->vm_err);
	if (p->mi_r)
		top_warn_unusable(&p->w, "proc/meminfo", p->mi_r, &p->mi_err);
}
