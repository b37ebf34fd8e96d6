/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <string.h>

#include "estimate.h"

#define MODULE_INIT_COMPRESSED_FILE 4

uint64_t cost_area(const struct cost_kernel *k, uint64_t bytes)
{
	uint64_t page = k->page_size ? k->page_size : 4096;

	if (!bytes)
		return 0;
	/* __get_vm_area_node() adds a guard page unless VM_NO_GUARD */
	return (bytes + page - 1) / page * page + page;
}

uint64_t cost_vmalloc(const struct cost_kernel *k, uint64_t bytes)
{
	uint64_t page = k->page_size ? k->page_size : 4096;
	uint64_t pages = (bytes + page - 1) / page;
	uint64_t array = pages * 8; /* sizeof(struct page *) on 64-bit */

	if (!bytes)
		return 0;
	return cost_area(k, bytes) + (array > page ? cost_vmalloc(k, array) : 0);
}

uint64_t cost_layout(const struct cost_kernel *k, const struct cost_module *m)
{
	uint64_t sum = 0;

	if (k->lp.per_type_alloc) {
		/* 6.4+ (ac3b43283923): one execmem/module_alloc area per non-empty type */
		for (int t = 0; t < 7; t++)
			sum += cost_vmalloc(k, m->mem[t]);
		return sum;
	}
	return cost_vmalloc(k, m->core_size) + cost_vmalloc(k, m->init_size);
}

/* Did the layout get allocated before this outcome was decided? */
static bool layout_allocated(const struct cost_kernel *k, const struct attempt *a)
{
	/* the kmodtop_layout probe saw the call, or saw that it allocated nothing */
	if (a->layout_probed && a->outcome != OUTCOME_LOADED)
		return a->layout_seen;
	switch (a->outcome) {
	case OUTCOME_LOADED:
	case OUTCOME_INIT_FAILED:
	case OUTCOME_MISSING_DEP:
		return true;
	case OUTCOME_DUP_LIVE:
		/* Since 6.4 the duplicate check runs before layout allocation: 064f4536d139 */
		return !k->lp.early_dup_check;
	case OUTCOME_DUP_CONCURRENT:
		/*
		 * EBUSY: before 6.4 it comes after the layout (add_unformed_module(), or a
		 * dependency still COMING in resolve_symbol_wait()); since 6.4 mostly from
		 * the early check on a GOING module, before it.
		 */
		return !k->lp.early_dup_check;
	default:
		return false;
	}
}

/*
 * The layout as the kmodtop_layout probe saw it: the sizes it was asked for, in areas
 * of whole pages plus a guard page each. Only their sum is kept, so rounding each area
 * up on its own may add up to a page per area more than this.
 */
static uint64_t layout_from_probe(const struct cost_kernel *k, const struct attempt *a)
{
	uint64_t page = k->page_size ? k->page_size : 4096;

	if (!a->layout_size)
		return 0;
	return (a->layout_size + page - 1) / page * page + (uint64_t)a->layout_areas * page;
}

bool cost_estimate_attempt(const struct cost_kernel *k, const struct attempt *a,
			   const struct cost_module *m, uint64_t ret_bytes[_VMAP_MAX])
{
	bool decompressing;

	memset(ret_bytes, 0, sizeof(uint64_t) * _VMAP_MAX);
	/* parked by idempotent finit_module (6.5+) or refused at the door: nothing */
	if (a->outcome == OUTCOME_WAITER || a->outcome == OUTCOME_DENIED)
		return true;
	/*
	 * With the kread probe traced, a finit_module() that did not reach kernel_read_file()
	 * allocated nothing (a 6.5+ waiter whose leader was not found, EBADF, ...); one that
	 * did read what the probe saw, whatever file it was.
	 */
	if (a->syscall == ATTEMPT_FINIT && a->probed && !a->kread_seen)
		return true;
	if (a->syscall == ATTEMPT_INIT)
		ret_bytes[VMAP_USER_COPY] = cost_vmalloc(k, a->len);
	if (a->syscall == ATTEMPT_FINIT && a->kread_seen)
		ret_bytes[VMAP_KREAD] = cost_vmalloc(k, a->kread_size);
	if (!m) {
		/*
		 * No module file (unnamed, or not in the tree): init_module's own copy of
		 * @a->len is priced above; a layout the probe saw needs no file either
		 */
		if (a->layout_probed && a->layout_seen && layout_allocated(k, a) &&
		    (a->syscall == ATTEMPT_INIT || a->kread_seen)) {
			ret_bytes[VMAP_LAYOUT] = layout_from_probe(k, a);
			/* a finit_module that decompressed in the kernel paid more than this */
			return a->syscall == ATTEMPT_INIT ||
			       !(a->flags & MODULE_INIT_COMPRESSED_FILE);
		}
		if (a->syscall == ATTEMPT_FINIT)
			/* no module file: complete only when the call stopped after the read */
			return a->kread_seen && (a->outcome == OUTCOME_BAD_FORMAT ||
						 a->outcome == OUTCOME_FALLBACK);
		return !layout_allocated(k, a);
	}

	if (a->syscall == ATTEMPT_FINIT && !a->kread_seen)
		ret_bytes[VMAP_KREAD] = cost_vmalloc(k, m->file_size);

	/* raw compressed bytes, or a compressed file without the flag: ENOEXEC after the read */
	if (a->outcome == OUTCOME_BAD_FORMAT || a->outcome == OUTCOME_FALLBACK)
		return true;

	decompressing = a->syscall == ATTEMPT_FINIT && m->compressed &&
			(a->flags & MODULE_INIT_COMPRESSED_FILE) && k->in_kernel_decompress &&
			k->lp.decompress_capable;
	if (decompressing) {
		/* lib/xz's decoder vmallocs the whole dictionary (xz_dec_lzma2_reset) */
		if (m->xz)
			ret_bytes[VMAP_DECOMPRESS] += cost_vmalloc(k, m->xz_dict_size);
		else
			ret_bytes[VMAP_DECOMPRESS] += cost_vmalloc(k, m->zstd_workspace);
		/* module_decompress() vmaps the pages it filled: its own page array */
		ret_bytes[VMAP_DECOMPRESS] += cost_area(k, m->decompressed_size);
	}
	if (layout_allocated(k, a)) {
		if (!m->has_layout)
			return false;
		ret_bytes[VMAP_LAYOUT] = cost_layout(k, m);
	}
	return true;
}

int cost_layout_check(const struct cost_module *m, uint64_t loaded_size, uint64_t *ret_bytes)
{
	uint64_t total = 0, per_type = 0, core = 0, lo, hi;

	/* both generations' sums, saturating: a lying sh_size reaches 2^64 */
	for (int t = 0; t < 7; t++) {
		per_type = per_type + m->mem[t] < per_type ? UINT64_MAX : per_type + m->mem[t];
		if (t < 4)
			core = core + m->mem[t] < core ? UINT64_MAX : core + m->mem[t];
	}
	total = m->core_size + m->init_size < m->core_size ? UINT64_MAX
							   : m->core_size + m->init_size;
	if (per_type > total)
		total = per_type;
	if (m->core_size > core)
		core = m->core_size;
	if (total > COST_MODULES_LEN) {
		*ret_bytes = total;
		return -EFBIG;
	}
	/* what /proc/modules shows once init memory is freed: the core */
	if (loaded_size) {
		lo = core < loaded_size ? core : loaded_size;
		hi = core < loaded_size ? loaded_size : core;
		if (hi / 4 > lo && hi - lo > (1u << 20)) {
			*ret_bytes = core;
			return -ERANGE;
		}
	}
	*ret_bytes = total;
	return 0;
}
