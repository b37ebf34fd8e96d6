/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "sources/meminfo.h"
#include "sources/modsyms.h"
#include "sources/proc-modules.h"
#include "sources/vmallocinfo.h"
#include "util/macro.h"
#include "util/root.h"
#include "session/collect.h"
#include "session/top-replay.h"

/*
 * A captured root replayed by its clock: the trace's and the kernel log's events as
 * they happened, the snapshots in capture/snapshots/ at the steps that name them, and
 * the root's final proc files at the end.
 */

struct snapshot {
	double ts;
	char *name;	      /* "boot", "after-live-storm", "final" */
	struct top_vm_figures vm; /* has_vm */
	bool has_vm;
	struct proc_modules *pm; /* NULL: no modules snapshot at this time */
};

struct top_replay {
	const struct kt_system *st;
	char decompress[64];		/* kt_system_decompression_text() */
	struct top_warn w;
	struct top_history h;
	struct collect_lookup lk;
	struct top_detail ic;
	struct proc_modules *final_pm;
	struct modsyms *syms;		/* record's module symbols, for raw call sites */
	struct meminfo mi;
	bool has_mi;
	struct snapshot *snaps;
	size_t n_snaps;
	size_t *done; /* attempts by completion */
	size_t n_done_all;
	double *done_ts;
	double speed, t;
	bool started;
	size_t cur_done, cur_req, cur_klog, cur_tl, cur_snap, cur_lost, cur_step;
	unsigned int idle; /* refreshes in a row in which nothing happened */
	uint64_t lost;
	struct top_modstate *mods; /* one per history name */
	size_t n_mods;
	struct top_source sources[8];
	struct top_sample s;
	char vm_from[96];
};

static int cmp_done(const void *pa, const void *pb, void *ctx)
{
	const struct top_replay *rp = ctx;
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	double ta = rp->done_ts[a], tb = rp->done_ts[b];

	if (ta != tb)
		return ta < tb ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* "live-storm" names the step whose name has those words: "storm-live-xfs" */
static bool words_in(const char *words, const char *step)
{
	char buf[128], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", words);
	for (char *w = strtok_r(buf, "-_", &save); w; w = strtok_r(NULL, "-_", &save)) {
		char sb[128], *s2 = NULL;
		bool found = false;

		snprintf(sb, sizeof(sb), "%s", step);
		for (char *x = strtok_r(sb, "-_", &s2); x && !found;
		     x = strtok_r(NULL, "-_", &s2))
			found = strcmp(w, x) == 0;
		if (!found)
			return false;
	}
	return true;
}

/*
 * When a snapshot in capture/snapshots/ was taken: "boot" before the trace, and
 * "after-WORDS" at the start of the step after the step named by WORDS (the capture
 * scripts write them at the end of that step). NAN when the name says nothing.
 */
static double snapshot_time(const struct top_replay *rp, const char *name)
{
	const struct ledger *l = rp->h.ledger;

	if (strcmp(name, "boot") == 0)
		return -INFINITY;
	if (strncmp(name, "after-", 6) != 0 || !l)
		return NAN;
	for (size_t i = 0; i < l->n_steps; i++)
		if (words_in(name + 6, l->steps[i].name))
			return i + 1 < l->n_steps ? l->steps[i + 1].ts : rp->h.t_end;
	return NAN;
}

static int add_snapshot(struct top_replay *rp, double ts, const char *name,
			struct snapshot **ret)
{
	struct snapshot *ns;

	for (size_t i = 0; i < rp->n_snaps; i++)
		if (strcmp(rp->snaps[i].name, name) == 0) {
			*ret = &rp->snaps[i];
			return 0;
		}
	ns = realloc(rp->snaps, (rp->n_snaps + 1) * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	rp->snaps = ns;
	ns = &rp->snaps[rp->n_snaps];
	memset(ns, 0, sizeof(*ns));
	ns->ts = ts;
	ns->name = strdup(name);
	if (!ns->name)
		return -ENOMEM;
	rp->n_snaps++;
	*ret = ns;
	return 0;
}

static int cmp_snap(const void *pa, const void *pb)
{
	const struct snapshot *a = pa, *b = pb;

	return a->ts < b->ts ? -1 : a->ts > b->ts;
}

static int read_snapshots(struct top_replay *rp)
{
	_cleanup_free_ char *dir = NULL;
	DIR *d;
	struct dirent *de;
	int r = 0;

	if (root_abspath(rp->st->root, "capture/snapshots", &dir) < 0)
		return 0;
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		bool vm = strncmp(de->d_name, "vmallocinfo.", 12) == 0;
		bool mods = strncmp(de->d_name, "modules.", 8) == 0;
		const char *name = vm ? de->d_name + 12 : de->d_name + 8;
		char rel[300];
		struct snapshot *sn;
		struct kt_err e = { 0 };
		FILE *f;
		double ts;

		if (!vm && !mods)
			continue;
		ts = snapshot_time(rp, name);
		if (isnan(ts)) {
			top_warnf(&rp->w,
				  "'capture/snapshots/%s': no step named by '%s', ignoring",
				  de->d_name, name);
			continue;
		}
		snprintf(rel, sizeof(rel), "capture/snapshots/%s", de->d_name);
		if (root_fopen(rp->st->root, rel, &f) < 0)
			continue;
		r = add_snapshot(rp, ts, name, &sn);
		if (r < 0) {
			fclose(f);
			break;
		}
		if (vm) {
			struct vmallocinfo *vi = NULL;

			int rv = vmallocinfo_read_file(f, rel, &vi, &e);

			if (rv == 0) {
				top_vm_figures_of(vi, &sn->vm);
				sn->has_vm = true;
			} else {
				top_warn_unusable(&rp->w, rel, rv == -ENOENT ? -EIO : rv, &e);
			}
			vmallocinfo_free(vi);
		} else {
			int rm = proc_modules_read_file(f, rel, &sn->pm, &e);

			if (rm < 0) {
				top_warn_unusable(&rp->w, rel, rm == -ENOENT ? -EIO : rm, &e);
				sn->pm = NULL;
			}
		}
		fclose(f);
	}
	closedir(d);
	array_sort(rp->snaps, rp->n_snaps, sizeof(*rp->snaps), cmp_snap);
	return r;
}

struct top_replay *top_replay_free(struct top_replay *rp)
{
	if (!rp)
		return NULL;
	for (size_t i = 0; i < rp->n_snaps; i++) {
		free(rp->snaps[i].name);
		proc_modules_free(rp->snaps[i].pm);
	}
	free(rp->snaps);
	free(rp->done);
	free(rp->done_ts);
	free(rp->mods);
	proc_modules_free(rp->final_pm);
	modsyms_free(rp->syms);
	top_history_done(&rp->h);
	free(rp);
	return NULL;
}

/* Sets the module states from a proc/modules snapshot. */
static void apply_modules(struct top_replay *rp, const struct proc_modules *pm)
{
	for (size_t i = 0; i < rp->n_mods; i++) {
		rp->mods[i].present = false;
		rp->mods[i].holders = NULL;
		rp->mods[i].n_holders = 0;
	}
	for (size_t k = 0; k < pm->n; k++) {
		const struct proc_module *pmod = &pm->mods[k];
		/* every snapshot's names were added when it was read: found, not added */
		long i = top_history_name(&rp->h, pmod->name, strlen(pmod->name));

		if (i < 0 || (size_t)i >= rp->n_mods)
			continue;
		rp->mods[i].present = true;
		rp->mods[i].state = pmod->state;
		rp->mods[i].has_size = true;
		rp->mods[i].size = pmod->size;
		rp->mods[i].holders = (const char *const *)pmod->holders;
		rp->mods[i].n_holders = pmod->n_holders;
	}
}

int top_replay_new(const struct kt_system *st, double speed, const struct top_warn *w,
		   struct top_failure *ret_fail, struct top_replay **ret)
{
	struct top_replay *rp = calloc(1, sizeof(*rp));
	struct kt_err e = { 0 };
	const struct snapshot *first_mods = NULL;
	size_t ns = 0;
	int r;

	if (!rp)
		return -ENOMEM;
	rp->st = st;
	if (w)
		rp->w = *w;
	rp->speed = speed;
	r = proc_modules_read(st->root, &rp->final_pm, &e);
	if (r < 0 && r != -ENOENT) {
		ret_fail->has_err = true;
		ret_fail->err = e;
		goto fail;
	}
	if (r == 0)
		collect_warn_repeated("proc/modules", rp->final_pm->n_repeated,
				      rp->final_pm->repeated_line);
	memset(&e, 0, sizeof(e));
	r = meminfo_read(st->root, &rp->mi, &e);
	rp->has_mi = r == 0;
	if (r < 0)
		top_warn_unusable(&rp->w, "proc/meminfo", r, &e);
	memset(&e, 0, sizeof(e));
	r = modsyms_read(st->root, &rp->syms, &e);
	if (r == -ENOMEM)
		goto fail;
	rp->lk.syms = rp->syms;
	rp->lk.idx = st->idx;
	rp->lk.pm = rp->final_pm;
	rp->h.pm = rp->final_pm;
	r = top_history_read(&rp->h, st, &rp->lk, &rp->w);
	if (r < 0)
		goto fail;
	if (!rp->h.has_trace && !rp->h.has_log)
		top_warnf(&rp->w,
			  "'%s': no trace (sys/kernel/tracing/trace) and no kernel log "
			  "(capture/kmsg.raw, capture/dmesg.txt): nothing to replay",
			  root_dir(st->root));
	r = read_snapshots(rp);
	if (r < 0)
		goto fail;
	/* the final state, at the end of the capture */
	{
		struct snapshot *fin;
		struct vmallocinfo *vi = NULL;

		r = add_snapshot(rp, rp->h.t_end, "final", &fin);
		if (r < 0)
			goto fail;
		memset(&e, 0, sizeof(e));
		r = vmallocinfo_read(st->root, &vi, &e);
		if (r == 0) {
			collect_warn_repeated("proc/vmallocinfo", vi->n_repeated,
					      vi->repeated_line);
			top_vm_figures_of(vi, &fin->vm);
			fin->has_vm = true;
		} else {
			top_warn_unusable(&rp->w, "proc/vmallocinfo", r, &e);
		}
		r = 0;
		vmallocinfo_free(vi);
		fin->ts = rp->h.t_end;
		array_sort(rp->snaps, rp->n_snaps, sizeof(*rp->snaps), cmp_snap);
	}
	for (size_t i = 0; i < rp->n_snaps; i++)
		for (size_t k = 0; rp->snaps[i].pm && k < rp->snaps[i].pm->n; k++) {
			const char *n = rp->snaps[i].pm->mods[k].name;

			if (top_history_name(&rp->h, n, strlen(n)) < 0) {
				r = -ENOMEM;
				goto fail;
			}
		}
	for (size_t k = 0; rp->final_pm && k < rp->final_pm->n; k++) {
		const char *n = rp->final_pm->mods[k].name;

		if (top_history_name(&rp->h, n, strlen(n)) < 0) {
			r = -ENOMEM;
			goto fail;
		}
	}
	rp->mods = calloc(rp->h.n_names ? rp->h.n_names : 1, sizeof(*rp->mods));
	if (!rp->mods) {
		r = -ENOMEM;
		goto fail;
	}
	rp->n_mods = rp->h.n_names;
	for (size_t i = 0; i < rp->h.n_names; i++)
		rp->mods[i].name = rp->h.names[i];
	/* sizes: the last proc/modules that lists the module */
	if (rp->final_pm)
		apply_modules(rp, rp->final_pm);
	for (size_t i = 0; i < rp->n_snaps; i++)
		if (rp->snaps[i].pm && !first_mods)
			first_mods = &rp->snaps[i];
	/*
	 * The modules at the start: a snapshot taken before the trace, else the final list
	 * with the trace's loads and unloads undone.
	 */
	if (first_mods && first_mods->ts <= rp->h.t0) {
		for (size_t i = 0; i < rp->h.n_names; i++) {
			rp->mods[i].present = false;
			rp->mods[i].holders = NULL;
			rp->mods[i].n_holders = 0;
		}
		for (size_t k = 0; k < first_mods->pm->n; k++) {
			const struct proc_module *pmod = &first_mods->pm->mods[k];
			long i = top_history_name(&rp->h, pmod->name, strlen(pmod->name));

			if (i >= 0 && (size_t)i < rp->n_mods) {
				rp->mods[i].present = true;
				rp->mods[i].holders = (const char *const *)pmod->holders;
				rp->mods[i].n_holders = pmod->n_holders;
			}
		}
	} else {
		for (size_t i = rp->h.n_tl; i-- > 0;)
			rp->mods[rp->h.tl[i].mod].present = rp->h.tl[i].kind == TOP_TL_FREE;
	}

	/* attempts in the order they end: an attempt shows up when its syscall returned */
	if (rp->h.ledger && rp->h.ledger->n_attempts) {
		const struct ledger *l = rp->h.ledger;

		rp->done = malloc(l->n_attempts * sizeof(*rp->done));
		rp->done_ts = malloc(l->n_attempts * sizeof(*rp->done_ts));
		if (!rp->done || !rp->done_ts) {
			r = -ENOMEM;
			goto fail;
		}
		for (size_t i = 0; i < l->n_attempts; i++) {
			rp->done[i] = i;
			rp->done_ts[i] = l->attempts[i].complete ? l->attempts[i].end
								 : rp->h.t_end;
		}
		qsort_r(rp->done, l->n_attempts, sizeof(*rp->done), cmp_done, rp);
		rp->n_done_all = l->n_attempts;
	}

	if (rp->h.has_trace)
		rp->sources[ns++] = (struct top_source){ "trace", TOP_SRC_REPLAY, NULL };
	else
		rp->sources[ns++] =
			(struct top_source){ "trace", TOP_SRC_MISSING, "not captured" };
	if (rp->h.has_log)
		rp->sources[ns++] =
			(struct top_source){ rp->h.log_format, TOP_SRC_REPLAY, NULL };
	else
		rp->sources[ns++] =
			(struct top_source){ "kmsg", TOP_SRC_MISSING, "not captured" };
	rp->sources[ns++] = (struct top_source){ "vmallocinfo", TOP_SRC_REPLAY, NULL };
	rp->sources[ns++] =
		rp->final_pm ? (struct top_source){ "modules", TOP_SRC_REPLAY, NULL }
			     : (struct top_source){ "modules", TOP_SRC_MISSING, NULL };
	if (!st->idx)
		rp->sources[ns++] =
			(struct top_source){ "module index", TOP_SRC_MISSING, NULL };
	if (!root_exists(st->root, "sys/kernel/debug/modules/stats"))
		rp->sources[ns++] =
			(struct top_source){ "module_stats", TOP_SRC_MISSING, NULL };
	rp->s.sources = rp->sources;
	rp->s.n_sources = ns;

	rp->ic.st = st;
	rp->ic.trace_ncpus =
		rp->h.trace_stats.ncpus > 0 ? (unsigned int)rp->h.trace_stats.ncpus : 0;
	rp->s.release = kt_system_release(st);
	rp->s.lp = &st->lp;
	kt_system_decompression_text(st, rp->decompress, sizeof(rp->decompress));
	rp->s.decompress = rp->decompress;
	rp->s.ledger = rp->h.ledger;
	rp->s.cost = rp->h.cost ? rp->h.cost->att : NULL;
	rp->s.done = rp->done;
	rp->s.replay = true;
	rp->s.speed = speed;
	rp->s.replay_start = rp->h.t0;
	rp->s.replay_end = rp->h.t_end;
	rp->s.start = rp->h.t0;
	/* measured bytes need the vmap allocations in the trace: a capture has them or not */
	rp->s.measured = rp->h.ledger && rp->h.ledger->saw_vmap_events;
	rp->s.measured_why = "no vmap events in the trace";
	rp->s.module_info = top_detail_module_info;
	rp->s.symbol_module = top_detail_symbol_module;
	rp->s.userdata = &rp->ic;
	rp->t = rp->h.t0;
	*ret = rp;
	return 0;
fail:
	top_replay_free(rp);
	return r < 0 ? r : -EINVAL;
}

/*
 * Idle refreshes a replay shows in a row before it jumps over the rest of the idle
 * stretch: one trace line at 999999 s must not cost 666,665 frames.
 */
#define REPLAY_IDLE_REFRESHES 5

/* The capture time of the next thing the replay shows after rp->t; t_end at the latest. */
static double replay_next_ts(const struct top_replay *rp)
{
	const struct ledger *l = rp->h.ledger;
	double next = rp->h.t_end;

#define NEXT_AT(ts)                                  \
	do {                                         \
		double ts_ = (ts);                   \
		if (ts_ > rp->t && ts_ < next)       \
			next = ts_;                  \
	} while (0)
	if (rp->cur_done < rp->n_done_all)
		NEXT_AT(rp->done_ts[rp->done[rp->cur_done]]);
	if (rp->cur_tl < rp->h.n_tl)
		NEXT_AT(rp->h.tl[rp->cur_tl].ts);
	if (rp->cur_snap < rp->n_snaps)
		NEXT_AT(rp->snaps[rp->cur_snap].ts);
	if (rp->cur_lost < rp->h.n_lost)
		NEXT_AT(rp->h.lost_ts[rp->cur_lost]);
	if (l && rp->cur_req < l->n_requests)
		NEXT_AT(l->requests[rp->cur_req].ts);
	/* a finding without a clock comes at the end: t_end */
	if (l && rp->cur_klog < l->n_klog && !isnan(l->klog[rp->cur_klog].ts))
		NEXT_AT(l->klog[rp->cur_klog].ts);
	if (l && rp->cur_step < l->n_steps)
		NEXT_AT(l->steps[rp->cur_step].ts);
#undef NEXT_AT
	return next;
}

int top_replay_sample(void *userdata, double dt, const struct top_sample **ret)
{
	struct top_replay *rp = userdata;
	const struct ledger *l = rp->h.ledger;
	struct top_sample *s = &rp->s;
	const struct snapshot *vm = NULL;
	size_t before = rp->cur_done + rp->cur_req + rp->cur_klog + rp->cur_tl +
			rp->cur_snap + rp->cur_lost + rp->cur_step;
	double step = dt * rp->speed;

	s->skipped = 0;
	if (rp->speed <= 0) {
		rp->t = rp->h.t_end;
	} else {
		double next = replay_next_ts(rp);

		/*
		 * After a few idle refreshes, whole refreshes up to the one that shows the
		 * next event are skipped: the clock stays on its grid of steps.
		 */
		if (rp->idle >= REPLAY_IDLE_REFRESHES && step > 0 && next > rp->t + step) {
			double k = ceil((next - rp->t) / step) - 1;

			s->skipped = k * step;
			rp->t += s->skipped;
		}
		rp->t += step;
	}
	if (rp->t >= rp->h.t_end)
		rp->t = rp->h.t_end;
	s->finished = rp->t >= rp->h.t_end;
	s->now = rp->t;

	while (rp->cur_done < rp->n_done_all &&
	       rp->done_ts[rp->done[rp->cur_done]] <= rp->t)
		rp->cur_done++;
	s->n_done = rp->cur_done;
	if (l) {
		while (rp->cur_req < l->n_requests &&
		       l->requests[rp->cur_req].ts <= rp->t)
			rp->cur_req++;
		/* findings without a clock, and those after the trace, come at the end */
		while (rp->cur_klog < l->n_klog &&
		       (s->finished || (!isnan(l->klog[rp->cur_klog].ts) &&
					l->klog[rp->cur_klog].ts <= rp->t)))
			rp->cur_klog++;
		s->n_requests = rp->cur_req;
		s->n_klog = rp->cur_klog;
		while (rp->cur_step < l->n_steps && l->steps[rp->cur_step].ts <= rp->t)
			rp->cur_step++;
		s->step = rp->cur_step ? l->steps[rp->cur_step - 1].name : NULL;
	}
	while (rp->cur_lost < rp->h.n_lost && rp->h.lost_ts[rp->cur_lost] <= rp->t)
		rp->lost += rp->h.lost_n[rp->cur_lost++];
	s->lost_events = rp->lost;

	/* modules: the trace's loads and unloads, resynchronised by snapshots */
	while (rp->cur_tl < rp->h.n_tl && rp->h.tl[rp->cur_tl].ts <= rp->t) {
		const struct top_tl_event *e = &rp->h.tl[rp->cur_tl++];

		rp->mods[e->mod].present = e->kind == TOP_TL_LOAD;
		rp->mods[e->mod].state = MODULE_LIVE;
	}
	while (rp->cur_snap < rp->n_snaps && rp->snaps[rp->cur_snap].ts <= rp->t) {
		const struct snapshot *sn = &rp->snaps[rp->cur_snap++];

		if (sn->pm && sn->ts > rp->h.t0)
			apply_modules(rp, sn->pm);
	}
	if (s->finished && rp->final_pm)
		apply_modules(rp, rp->final_pm);
	s->mods = rp->mods;
	s->n_mods = rp->n_mods;

	for (size_t i = 0; i < rp->n_snaps; i++)
		if (rp->snaps[i].has_vm && rp->snaps[i].ts <= rp->t)
			vm = &rp->snaps[i];
	s->has_vmalloc = vm && rp->has_mi && rp->mi.has_vmalloc_total;
	if (vm) {
		bool final = strcmp(vm->name, "final") == 0;

		/* at the end, meminfo's own VmallocUsed; before, the snapshot's pages */
		s->vmalloc_used = final && rp->mi.has_vmalloc_used ? rp->mi.vmalloc_used
								   : vm->vm.used;
		s->vmalloc_modules = vm->vm.modules;
		s->vmalloc_total = rp->mi.vmalloc_total;
		snprintf(rp->vm_from, sizeof(rp->vm_from), "%s",
			 final ? "proc/vmallocinfo" : vm->name);
		s->vmalloc_from = rp->vm_from;
	}
	if (rp->cur_done + rp->cur_req + rp->cur_klog + rp->cur_tl + rp->cur_snap +
		    rp->cur_lost + rp->cur_step ==
	    before)
		rp->idle++;
	else
		rp->idle = 0;
	*ret = s;
	return 0;
}
