/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sources/meminfo.h"
#include "sources/vmallocinfo.h"

/*
 * vmallocinfo sampled during a live collection: the areas of loads in flight
 * (kernel_read_file, init_module's copy, module_decompress: area_class_in_flight())
 * at their largest, and the least vmalloc space left.
 */
struct vmsample {
	size_t samples;
	uint64_t inflight_bytes;	/* the last sample's, vmallocinfo sizes */
	size_t inflight_areas;
	uint64_t peak_inflight_bytes;	/* the most bytes in flight in one sample */
	size_t peak_inflight_areas;	/* the most areas in flight in one sample */
	bool has_headroom;		/* a sample had VmallocTotal */
	uint64_t min_headroom_bytes;	/* VmallocTotal - VmallocUsed, the least seen */
	/* per area of the last vmallocinfo: what it added to the sums */
	struct vmsample_fig *fig;
	size_t n_fig;
	uint64_t used;			/* pages * 4096 over the areas: VmallocUsed's count */
};

/*
 * Takes one sample of @vi, which vmallocinfo_update() changed by @ch from the @vi of
 * the last sample (@ch NULL: a new vmallocinfo, looked at whole). Only the areas @ch
 * replaced are classified again. @mi may be NULL or lack VmallocUsed (4.4 to 5.3
 * print 0): the areas' pages stand in. 0 or -ENOMEM (the sample is not taken).
 */
int vmsample_add(struct vmsample *s, const struct vmallocinfo *vi,
		 const struct vmallocinfo_change *ch, const struct meminfo *mi);
void vmsample_done(struct vmsample *s);
