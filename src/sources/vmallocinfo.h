/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hindex;

#include "util/kt-err.h"
#include "util/root.h"

/* The kind words vmalloc_info_show() prints after the numbers (mm/vmalloc.c). */
enum {
	VMA_IOREMAP = 1u << 0,
	VMA_VMALLOC = 1u << 1,
	VMA_VMAP = 1u << 2,
	VMA_USER = 1u << 3,
	VMA_VPAGES = 1u << 4,
	VMA_SPARSE = 1u << 5,
	VMA_DMA_COHERENT = 1u << 6,
	VMA_VM_MAP_RAM = 1u << 7,	/* "vm_map_ram": no vm_struct */
	VMA_UNPURGED = 1u << 8,		/* "unpurged vm_area": lazily freed */
	VMA_UNKNOWN_FLAG = 1u << 15,	/* a word this parser does not know yet */
};

struct vmalloc_numa {
	unsigned int node;
	uint64_t pages;
};

/* Ordered by size, so that it has no padding: a vmallocinfo can list millions */
struct vmalloc_area {
	uint64_t start, end;	/* as printed: real, hashed (%pK) or zero */
	uint64_t size;		/* includes the guard page */
	char *caller;		/* symbol name, or NULL; "0x..." when unsymbolised */
	uint64_t caller_off, caller_len;
	char *caller_module;	/* "[mod]" suffix of %pS, without brackets, or NULL */
	uint64_t pages;
	uint64_t phys;
	struct vmalloc_numa *numa;
	size_t n_numa;
	unsigned int flags;
	bool has_pages, has_phys;
};

enum vmalloc_addr_mode {
	VMALLOC_ADDR_REAL,	/* kernel addresses: root with kptr_restrict=1, or no_hash_pointers */
	VMALLOC_ADDR_HASHED,	/* %pK hashed (kptr_restrict=0, the default) */
	VMALLOC_ADDR_ZERO,	/* kptr_restrict=2, or no CAP_SYSLOG */
	VMALLOC_ADDR_UNKNOWN,	/* empty file */
};

struct vmallocinfo {
	struct vmalloc_area *areas;	/* in file order */
	size_t n;
	enum vmalloc_addr_mode addr_mode;
	unsigned int unknown_flag_lines;
	/* vmallocinfo_update() only: the text parsed, and where each area's line ends */
	char *text;
	size_t text_len;
	size_t *line_end;
	size_t n_zero, n_high;	/* what addr_mode is decided by */
	/*
	 * vmallocinfo_read*() only: each caller and caller module kept once, the areas
	 * pointing here; a million lines name a few dozen
	 */
	char **strs;
	size_t n_strs, cap_strs;
	struct hindex *str_idx;
	/* vmallocinfo_read() only: lines of an address range listed before, dropped */
	size_t n_repeated;
	unsigned int repeated_line;	/* the first of them */
	/* vmallocinfo_read_filtered() only: areas its callback took, and each kept one's line */
	size_t n_dropped;
	unsigned int *line_no;
};

/*
 * What vmallocinfo_update() changed: areas [start, start + removed) of the previous
 * read were replaced by [start, start + added) of the new one; the rest are the same
 * lines (the areas before @start keep their index, those after move by added - removed).
 */
struct vmallocinfo_change {
	size_t start, removed, added;
};

/* Parses one line in place. 0, or -EINVAL with *reterr_what, or -ENOMEM. */
int vmallocinfo_parse_line(char *line, size_t len, struct vmalloc_area *ret_area,
			   const char **reterr_what);
void vmalloc_area_done(struct vmalloc_area *a);

/* A root's proc/vmallocinfo, a repeated address range dropped (n_repeated says) */
int vmallocinfo_read(const struct kt_root *root, struct vmallocinfo **ret,
		     struct kt_err *reterr);
/*
 * Whether vmallocinfo_read_filtered() keeps an area it read: false when the callback
 * has counted the area its own way and it is dropped (its line still counts towards
 * addr_mode; a repeat of a dropped line is not recognised).
 */
typedef bool (*vmalloc_keep_fn)(const struct vmalloc_area *a, void *userdata);
/* vmallocinfo_read() keeping only the areas @keep says to keep (n_dropped the others) */
int vmallocinfo_read_filtered(const struct kt_root *root, vmalloc_keep_fn keep,
			      void *userdata, struct vmallocinfo **ret, struct kt_err *reterr);
int vmallocinfo_read_file(FILE *f, const char *path, struct vmallocinfo **ret,
			  struct kt_err *reterr);
struct vmallocinfo *vmallocinfo_free(struct vmallocinfo *vi);

/*
 * Parses @text (@len bytes, copied) into *vi, reusing the areas of the lines it shares
 * with the text of the previous update (a common prefix and suffix): a refresh where a
 * module came or went parses a few lines, not all of them. *vi NULL, or from
 * vmallocinfo_read*(), is a full parse. The result equals vmallocinfo_read_file() of
 * @text. On failure *vi is unchanged. @ret_change may be NULL. Areas keep their place
 * in memory only until the next update.
 */
int vmallocinfo_update(struct vmallocinfo **vi, const char *text, size_t len,
		       const char *path, struct vmallocinfo_change *ret_change,
		       struct kt_err *reterr);
/* vmallocinfo_update() with ROOT/proc/vmallocinfo. */
int vmallocinfo_reread(const struct kt_root *root, struct vmallocinfo **vi,
		       struct vmallocinfo_change *ret_change, struct kt_err *reterr);
const char *vmalloc_addr_mode_name(enum vmalloc_addr_mode m);
