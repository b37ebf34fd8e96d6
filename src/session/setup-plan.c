/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "util/macro.h"
#include "util/version.h"
#include "session/setup-plan.h"
#include "session/system.h"

/*
 * "[local] global counter": the selected one. Caller frees. A root's file is not
 * trusted: the name goes into the script as a word, so only a clock name's characters.
 */
static char *selected_clock(const char *text)
{
	const char *a = strchr(text, '['), *b = a ? strchr(a, ']') : NULL;

	if (!b || b == a + 1 || b - a > 32 ||
	    strspn(a + 1, "abcdefghijklmnopqrstuvwxyz0123456789_-") != (size_t)(b - a - 1))
		return NULL;
	return strndup(a + 1, (size_t)(b - a - 1));
}

/* The release lands in shell text: kt_release_resolve() takes only a release's name */
static char *plan_release(const struct kt_root *root, const char *given)
{
	char buf[256];
	bool rejected;

	if (kt_release_resolve(root, given, buf, sizeof(buf), &rejected) == KT_RELEASE_NONE)
		return NULL;
	return strdup(buf);
}

int setup_plan_init(struct setup_plan *sp, const char *root_path, const char *release,
		    const struct setup_plan_opts *o)
{
	bool own_kernel = !o->btf;
	const char *why;
	size_t len = 0;
	const char *ev;
	int r;

	memset(sp, 0, sizeof(*sp));
	sp->mnt.fd = -1;
	sp->ss = (struct setup_script){ .instance = o->instance, .group = "kmodtop" };
	r = root_new(root_path ? root_path : "/", &sp->root);
	if (r < 0) {
		if (o->btf)
			kernel_btf_free(o->btf);
		return r;
	}
	sp->live = root_is_live_system(sp->root);
	if (own_kernel) {
		sp->btf_err = kernel_btf_read(sp->root, &sp->btf);
	} else {
		sp->btf = o->btf;
	}
	if (own_kernel && sp->live && ktrace_mount_find(NULL, NULL, false, &sp->mnt, &why) >= 0) {
		sp->ss.tracefs = sp->mnt.path;
		if (ktrace_read_file(sp->mnt.fd, "available_filter_functions", 64u << 20,
				      &sp->funcs, &len) < 0)
			sp->funcs = NULL;
		if (ktrace_read_file(sp->mnt.fd, "trace_clock", 4096, &sp->clock_text, &len) >= 0)
			sp->clock = selected_clock(sp->clock_text);
	} else if (own_kernel && !sp->live) {
		if (root_read_file(sp->root, "sys/kernel/tracing/available_filter_functions",
				   64u << 20, &sp->funcs, &len) < 0)
			sp->funcs = NULL;
		if (root_read_file(sp->root, "sys/kernel/tracing/trace_clock", 4096,
				   &sp->clock_text, &len) >= 0)
			sp->clock = selected_clock(sp->clock_text);
	}
	load_probes_plan(sp->btf, sp->funcs, sp->funcs ? strlen(sp->funcs) : 0, &sp->plan);
	for (int k = 0; k < _LOAD_PROBE_MAX; k++) {
		const struct load_probe *p = &sp->plan.p[k];
		struct setup_script *ss = &sp->ss;

		if (p->ok) {
			sp->probes[ss->n_probes++] = (struct setup_probe){ p->event, p->symbol,
									   p->args, p->filter,
									   p->gives };
			continue;
		}
		snprintf(sp->missing_buf[ss->n_missing], sizeof(sp->missing_buf[0]),
			 "%s on %s(): %s", p->event, p->symbol, p->why);
		sp->missing[ss->n_missing] = sp->missing_buf[ss->n_missing];
		ss->n_missing++;
	}
	/* the events this kernel has, when its tracefs can be asked */
	for (size_t i = 0; (ev = ktrace_wanted_event(i, NULL)); i++) {
		char rel[160];
		bool have = true;

		if (sp->mnt.fd >= 0) {
			snprintf(rel, sizeof(rel), "events/%s", ev);
			have = faccessat(sp->mnt.fd, rel, F_OK, 0) == 0;
		} else if (own_kernel && !sp->live &&
			   root_exists(sp->root, "sys/kernel/tracing/events")) {
			snprintf(rel, sizeof(rel), "sys/kernel/tracing/events/%s", ev);
			have = root_exists(sp->root, rel);
		}
		if (have && sp->ss.n_events < ARRAY_SIZE(sp->events))
			sp->events[sp->ss.n_events++] = ev;
	}
	sp->release = plan_release(sp->root, own_kernel ? release : o->release);
	loadpath_from_release(sp->release, &sp->lp);
	sp->ss.release = sp->release;
	sp->ss.generation = sp->lp.known ? loadpath_summary(&sp->lp) : NULL;
	sp->ss.clock = sp->clock;
	sp->ss.events = sp->events;
	sp->ss.probes = sp->probes;
	sp->ss.missing = sp->missing;
	if (o->measure) {
		sp->ss.buffer_kb = SETUP_MEASURE_BUFFER_KB;
		if (sp->lp.known && kver_cmp_mm(&sp->lp.v, 6, 2) >= 0)
			sp->ss.measure_tracepoint = true;
		else
			sp->ss.measure_kprobe_args = "size=$arg1:u64";
	}
	return 0;
}

int setup_plan_release(const char *root_path, char **ret)
{
	struct kt_root *root;
	int r;

	r = root_new(root_path ? root_path : "/", &root);
	if (r < 0)
		return r;
	*ret = plan_release(root, NULL);
	root_free(root);
	return *ret ? 0 : -ENOENT;
}

void setup_plan_done(struct setup_plan *sp)
{
	free(sp->funcs);
	free(sp->clock_text);
	free(sp->clock);
	free(sp->release);
	kernel_btf_free(sp->btf);
	ktrace_mount_done(&sp->mnt);
	root_free(sp->root);
	memset(sp, 0, sizeof(*sp));
	sp->mnt.fd = -1;
}
