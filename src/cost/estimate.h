/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "ledger/ledger.h"
#include "loadpath.h"

/*
 * The vmap cost model: which buffers a load attempt holds when it ends in each outcome,
 * on each kernel generation, and their sizes as vmallocinfo and the vmalloc tracepoints
 * count them (whole pages plus one guard page per area).
 */

/* What the model needs to know about one module file (cost/modfile.c fills it). */
struct cost_module {
	uint64_t file_size;
	bool compressed;
	bool xz;
	uint64_t decompressed_size;
	uint64_t xz_dict_size;		/* 0 unless xz */
	uint64_t zstd_workspace;	/* 0 unless zstd */
	bool has_layout;
	uint64_t mem[7];		/* 6.4+: bytes per mod_mem_type, page-aligned */
	uint64_t core_size, init_size;	/* <=6.3: core_layout and init_layout */
};

struct cost_kernel {
	struct loadpath lp;
	bool in_kernel_decompress;	/* CONFIG_MODULE_DECOMPRESS */
	uint64_t page_size;
};

/* One vm area of @bytes as vmallocinfo and alloc_vmap_area count it: pages + guard. */
uint64_t cost_area(const struct cost_kernel *k, uint64_t bytes);
/*
 * A vmalloc() of @bytes: its area, plus the area of its page array when that array is
 * larger than a page (__vmalloc_area_node() then vmallocs it too: above 2 MiB on 4 KiB
 * pages). vmap() takes the caller's array: cost_area() alone.
 */
uint64_t cost_vmalloc(const struct cost_kernel *k, uint64_t bytes);

/*
 * The bytes @a allocates by class (enum vmap_class), given its module file @m (NULL:
 * unknown, then only what needs no file is estimated: init_module's copy of @a->len).
 * Returns true when the estimate is complete (every buffer could be sized).
 */
/* The final layout's bytes (every memory type's area, or core and init) */
uint64_t cost_layout(const struct cost_kernel *k, const struct cost_module *m);

bool cost_estimate_attempt(const struct cost_kernel *k, const struct attempt *a,
			   const struct cost_module *m, uint64_t ret_bytes[_VMAP_MAX]);

/*
 * The x86-64 module area with KASLR, as Debian builds it: MODULES_END - MODULES_VADDR
 * (0xffffffffff000000 - 0xffffffffc0000000). Every module's layout is allocated in it.
 */
#define COST_MODULES_LEN 0x3f000000ull

/*
 * Is @m's layout one the kernel could have allocated (section headers can lie)? 0, or
 * -EFBIG when it is larger than the module area, -ERANGE when @loaded_size (the loaded
 * module's size, /proc/modules; 0: not loaded) and the layout's core differ by more
 * than 4 times and 1 MiB. *ret_bytes: the layout's bytes that were compared.
 */
int cost_layout_check(const struct cost_module *m, uint64_t loaded_size, uint64_t *ret_bytes);
