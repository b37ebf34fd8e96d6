/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/macro.h"
#include "modmem.h"
#include "vmsample.h"

struct vmsample_fig {
	uint64_t inflight;	/* the area's size when a load's, else 0 */
	uint64_t used;
	bool is_inflight;
};

static void fig_of(const struct vmalloc_area *a, struct vmsample_fig *f)
{
	f->is_inflight = area_class_in_flight(area_classify(a));
	f->inflight = f->is_inflight ? a->size : 0;
	/* VmallocUsed is vmalloc_nr_pages: the pages vmalloc() backed its areas with */
	f->used = a->has_pages ? a->pages * 4096 : 0;
}

static void fig_add(struct vmsample *s, const struct vmsample_fig *f)
{
	s->inflight_bytes += f->inflight;
	s->inflight_areas += f->is_inflight;
	s->used += f->used;
}

static void fig_sub(struct vmsample *s, const struct vmsample_fig *f)
{
	s->inflight_bytes -= f->inflight;
	s->inflight_areas -= f->is_inflight;
	s->used -= f->used;
}

int vmsample_add(struct vmsample *s, const struct vmallocinfo *vi,
		 const struct vmallocinfo_change *ch, const struct meminfo *mi)
{
	struct vmallocinfo_change whole = { 0, s->n_fig, vi->n };
	struct vmsample_fig *f = s->fig;
	size_t tail;

	if (!ch)
		ch = &whole;
	if (ch->start + ch->removed > s->n_fig ||
	    vi->n != s->n_fig - ch->removed + ch->added)
		ch = &whole;	/* not a change of what was sampled last */
	if (vi->n > s->n_fig) {
		f = realloc(s->fig, vi->n * sizeof(*f));
		if (!f)
			return -ENOMEM;
		s->fig = f;
	}
	for (size_t i = ch->start; i < ch->start + ch->removed; i++)
		fig_sub(s, &f[i]);
	tail = s->n_fig - ch->start - ch->removed;
	memmove(f + ch->start + ch->added, f + ch->start + ch->removed, tail * sizeof(*f));
	for (size_t i = ch->start; i < ch->start + ch->added; i++) {
		fig_of(&vi->areas[i], &f[i]);
		fig_add(s, &f[i]);
	}
	s->n_fig = vi->n;

	s->samples++;
	if (s->inflight_bytes > s->peak_inflight_bytes)
		s->peak_inflight_bytes = s->inflight_bytes;
	if (s->inflight_areas > s->peak_inflight_areas)
		s->peak_inflight_areas = s->inflight_areas;
	if (mi && mi->has_vmalloc_total) {
		uint64_t used = mi->has_vmalloc_used && mi->vmalloc_used ? mi->vmalloc_used : s->used;
		uint64_t room = mi->vmalloc_total > used ? mi->vmalloc_total - used : 0;

		if (!s->has_headroom || room < s->min_headroom_bytes)
			s->min_headroom_bytes = room;
		s->has_headroom = true;
	}
	return 0;
}

void vmsample_done(struct vmsample *s)
{
	free(s->fig);
	memset(s, 0, sizeof(*s));
}
