/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sources/proc-modules.h"
#include "sources/vmallocinfo.h"
#include "loadpath.h"

/* What a vmallocinfo area is, judged by its caller (%pS of the allocator's caller). */
enum area_class {
	AREA_OTHER,
	AREA_MODULE,		/* module core/init memory (load_module, move_module, execmem, ...) */
	AREA_KREAD,		/* kernel_read_file: finit_module's copy of the file */
	AREA_USER_COPY,		/* init_module's copy of the user buffer */
	AREA_DECOMPRESS,	/* module_decompress: vmap of the decompressed pages, workspaces */
};

/* How an area was tied to its module, from the strongest evidence down. */
enum join_method {
	JOIN_NONE,
	JOIN_ADDRESS,		/* real addresses: area start == module base, or adjacency */
	JOIN_CHAIN,		/* hashed addresses: chained areas anchored on module bases */
	JOIN_SIZE,		/* only the size fits, and only one module has that size */
};

enum join_confidence {
	CONF_NONE,
	CONF_LOW,
	CONF_MEDIUM,
	CONF_HIGH,
	CONF_EXACT,
};

/* Ordered by size, so that it has no padding: one per module area, and they can be many */
struct modmem_area {
	size_t area;		/* index into vmallocinfo */
	long module;		/* index into proc_modules, -1 when not joined */
	uint64_t pos;		/* real start address, known or reconstructed */
	enum area_class cls;
	bool is_base;		/* starts at the module's base address (text/core) */
	bool pos_known;
};

struct modmem_module {
	size_t n_areas;
	uint64_t area_bytes;	/* as vmallocinfo counts them, guard pages included */
	uint64_t mem_bytes;	/* area_bytes less one guard page per area */
	enum join_method method;
	enum join_confidence confidence;
	bool size_matches;	/* mem_bytes == the size in proc/modules */
};

struct modmem {
	struct modmem_area *areas;	/* only areas of a module-loading class */
	size_t n;
	struct modmem_module *mods;	/* parallel to proc_modules */
	size_t n_mods;
	enum join_method method;	/* the strongest method the address mode allowed */
	uint64_t module_area_bytes;	/* every AREA_MODULE area */
	size_t n_module_areas;
	size_t n_unjoined;		/* AREA_MODULE areas tied to no module */
	uint64_t unjoined_bytes;
	size_t n_leftover;		/* kread/user-copy/decompress areas: a load in flight */
	uint64_t leftover_bytes;
	size_t n_chains;		/* hashed mode: chains of adjacent areas found */
	size_t n_chains_anchored;
	/* modmem_add_unlisted(): module-loading areas in the totals above, in no list */
	size_t n_unlisted;
	size_t n_other_dropped;		/* areas of no module-loading class past the cap */
};

/*
 * A real vmallocinfo has a few module areas a loaded module, and other areas (thread
 * stacks, ioremaps) by the thousand. The first MODMEM_AREAS_KEPT of each are kept and
 * joined; past them an area is only counted: a file of millions of lines costs no
 * more memory than this many.
 */
#define MODMEM_AREAS_KEPT 65536u

/* What modmem_keep_area() counted instead of keeping */
struct modmem_rest {
	size_t kept_module, kept_other;		/* areas kept so far */
	size_t n_module;			/* AREA_MODULE areas dropped */
	uint64_t module_bytes;
	size_t n_leftover;			/* kread/user-copy/decompress areas dropped */
	uint64_t leftover_bytes;
	size_t n_other;
};

enum area_class area_classify(const struct vmalloc_area *a);
/* kread, user-copy, decompress: areas a load holds only while it is in flight */
bool area_class_in_flight(enum area_class c);
const char *area_class_name(enum area_class c);
const char *join_method_name(enum join_method m);
const char *join_confidence_name(enum join_confidence c);

/* The guard page every vm_struct area carries (unless VM_NO_GUARD). */
#define MODMEM_GUARD_SIZE 4096u

/* A vmalloc_keep_fn for vmallocinfo_read_filtered(), @userdata a struct modmem_rest */
bool modmem_keep_area(const struct vmalloc_area *a, void *userdata);
/* The areas @rest counted into @mm's totals, as areas tied to no module */
void modmem_add_unlisted(struct modmem *mm, const struct modmem_rest *rest);

int modmem_join(const struct proc_modules *pm, const struct vmallocinfo *vi,
		const struct loadpath *lp, struct modmem **ret);
struct modmem *modmem_free(struct modmem *mm);
