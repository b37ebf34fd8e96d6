/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "kernel-btf.h"

/*
 * The kprobes that name every load attempt and tell the calls that paid for a load
 * from the idempotent waiters of 6.5+, without tracing every vmalloc:
 *
 *   kmodtop_kread  kernel_read_file(): the file a finit_module() reads, and its size.
 *                  Only a call that gets past idempotent_init_module()'s wait reaches
 *                  it (6.5+); before 6.5 every finit_module() does. The filter keeps
 *                  module reads only (id == READING_MODULE): firmware and kexec read
 *                  through it too.
 *   kmodtop_name   find_module_all(): the module's own name (its .modinfo), as the
 *                  duplicate check looks it up: add_unformed_module() before 6.4,
 *                  early_mod_check() since. Both are inlined into load_module() in
 *                  Debian's builds; find_module_all() is not. The first of a call is
 *                  the check; later ones (the recheck after a wait) name the same.
 *   kmodtop_layout execmem_alloc() (6.10+), else module_alloc(): the module's final
 *                  memory, one call per area, and its size. Since 6.4 a duplicate
 *                  usually stops before it, but two loads of one module can both pass
 *                  the early check, and the one that loses at add_unformed_module()
 *                  has paid the layout: only this probe tells which did.
 *
 * Every offset, argument position and enum value comes from the kernel's BTF: none is
 * a constant here. A probe whose function or fields this kernel lacks is left out with
 * the reason, and the report falls back on the other evidence.
 */
enum load_probe_kind {
	LOAD_PROBE_KREAD,
	LOAD_PROBE_NAME,
	LOAD_PROBE_LAYOUT,
	_LOAD_PROBE_MAX,
};

struct load_probe {
	const char *event;		/* "kmodtop_kread" */
	const char *symbol;		/* "kernel_read_file" */
	char args[256];			/* fetch args: "size=+80(+40($arg1)):s64 ..." */
	char filter[48];		/* "id == 2", or "" */
	bool ok;
	const char *why;		/* !ok: why it cannot be placed (static text) */
	const char *gives;		/* what the report has from it */
	const char *loses;		/* what it lacks without it */
};

struct load_probe_plan {
	struct load_probe p[_LOAD_PROBE_MAX];
};

/*
 * Plans the probes for the kernel @btf describes (NULL: no BTF, every probe left out).
 * @funcs is the text of available_filter_functions (NULL: not readable; then BTF's
 * list of functions says what is out of line). Never fails: what is missing is in
 * the plan.
 */
void load_probes_plan(const struct kernel_btf *btf, const char *funcs, size_t funcs_len,
		      struct load_probe_plan *ret);
/* Is @name a function of @funcs (one per line, "name" or "name [module]")? */
bool load_probes_func_listed(const char *funcs, size_t len, const char *name);
/* The event names, in the order of enum load_probe_kind */
const char *load_probe_event(enum load_probe_kind k);
