/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "load-probes.h"

static const char *const events[_LOAD_PROBE_MAX] = {
	[LOAD_PROBE_KREAD] = "kmodtop_kread",
	[LOAD_PROBE_NAME] = "kmodtop_name",
	[LOAD_PROBE_LAYOUT] = "kmodtop_layout",
};

/* Where a module's final memory is allocated, newest first: 6.10 moved it to execmem */
static const char *const layout_symbols[] = { "execmem_alloc", "module_alloc" };

const char *load_probe_event(enum load_probe_kind k)
{
	return k < _LOAD_PROBE_MAX ? events[k] : "?";
}

bool load_probes_func_listed(const char *funcs, size_t len, const char *name)
{
	size_t n = strlen(name);
	const char *p = funcs, *end = funcs + len;

	if (!funcs || !n)
		return false;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;

		/* "kernel_read_file" or "xfs_foo [xfs]" */
		if ((size_t)(le - p) >= n && memcmp(p, name, n) == 0 &&
		    (p + n == le || p[n] == ' ' || p[n] == '\t'))
			return true;
		p = le + 1;
	}
	return false;
}

static bool func_placeable(const struct kernel_btf *btf, const char *funcs, size_t len,
			   const char *name, const char **why)
{
	if (funcs) {
		if (load_probes_func_listed(funcs, len, name))
			return true;
		*why = "not in available_filter_functions (inlined, or not traceable)";
		return false;
	}
	if (kernel_btf_has_func(btf, name))
		return true;
	*why = "BTF has no such function (inlined, or another kernel)";
	return false;
}

/* "+OFF(...)": one dereference at a BTF offset */
static int kread_args(const struct kernel_btf *btf, char *buf, size_t sz, char *filter,
		      size_t fsz, const char **why)
{
	uint32_t dentry, name, inode, isize, isize_len;
	unsigned int file_arg, id_arg;
	int64_t reading_module;

	if (kernel_btf_param(btf, "kernel_read_file", "file", &file_arg) < 0 ||
	    kernel_btf_param(btf, "kernel_read_file", "id", &id_arg) < 0) {
		*why = "BTF does not name kernel_read_file()'s file and id arguments";
		return -1;
	}
	if (kernel_btf_enum_value(btf, "READING_MODULE", &reading_module) < 0) {
		*why = "BTF has no READING_MODULE (enum kernel_read_file_id)";
		return -1;
	}
	if (kernel_btf_offset(btf, "file", "f_path.dentry", &dentry) < 0 ||
	    kernel_btf_offset(btf, "dentry", "d_name.name", &name) < 0 ||
	    kernel_btf_offset(btf, "file", "f_inode", &inode) < 0 ||
	    kernel_btf_offset(btf, "inode", "i_size", &isize) < 0 ||
	    kernel_btf_member_size(btf, "inode", "i_size", &isize_len) < 0 || isize_len != 8) {
		*why = "BTF lacks struct file's f_path.dentry or f_inode, struct dentry's "
		       "d_name.name or struct inode's i_size";
		return -1;
	}
	/* the string last: everything after path=" is the name, whatever it holds */
	snprintf(buf, sz,
		 "size=+%" PRIu32 "(+%" PRIu32 "($arg%u)):s64 id=$arg%u:s32 "
		 "path=+0(+%" PRIu32 "(+%" PRIu32 "($arg%u))):string",
		 isize, inode, file_arg, id_arg, name, dentry, file_arg);
	snprintf(filter, fsz, "id == %" PRId64, reading_module);
	return 0;
}

/* kmodtop_layout: the first allocator of the list this kernel has, and its size argument */
static void plan_layout(const struct kernel_btf *btf, const char *funcs, size_t funcs_len,
			struct load_probe *l)
{
	unsigned int size_arg;

	for (size_t i = 0; i < sizeof(layout_symbols) / sizeof(layout_symbols[0]); i++) {
		const char *why = NULL;

		if (!func_placeable(btf, funcs, funcs_len, layout_symbols[i], &why)) {
			if (i == 0)
				l->why = why;
			continue;
		}
		l->symbol = layout_symbols[i];
		if (kernel_btf_param(btf, l->symbol, "size", &size_arg) < 0) {
			l->why = "BTF does not name the allocator's size argument";
			return;
		}
		snprintf(l->args, sizeof(l->args), "size=$arg%u:u64", size_arg);
		l->ok = true;
		return;
	}
}

void load_probes_plan(const struct kernel_btf *btf, const char *funcs, size_t funcs_len,
		      struct load_probe_plan *ret)
{
	struct load_probe *k = &ret->p[LOAD_PROBE_KREAD], *n = &ret->p[LOAD_PROBE_NAME];
	struct load_probe *l = &ret->p[LOAD_PROBE_LAYOUT];
	unsigned int name_arg;

	memset(ret, 0, sizeof(*ret));
	*k = (struct load_probe){
		.event = events[LOAD_PROBE_KREAD],
		.symbol = "kernel_read_file",
		.gives = "the file each finit_module() read and its size; which calls paid "
			 "and which waited (6.5+)",
		.loses = "finit_module() calls named by the file the kernel read, and "
			 "idempotent waiters told from payers by evidence, not timing",
	};
	*n = (struct load_probe){
		.event = events[LOAD_PROBE_NAME],
		.symbol = "find_module_all",
		.gives = "the module's name at the duplicate check, for finit_module() and "
			 "init_module()",
		.loses = "duplicates and failed loads named by the kernel's duplicate check",
	};
	*l = (struct load_probe){
		.event = events[LOAD_PROBE_LAYOUT],
		.symbol = layout_symbols[0],
		.gives = "which failed loads allocated the module's final layout",
		.loses = "duplicates that raced a load of their module past the early check "
			 "charged by evidence (6.4+), not given as a range",
	};
	if (!btf) {
		k->why = n->why = l->why =
			"no kernel BTF (sys/kernel/btf/vmlinux, CONFIG_DEBUG_INFO_BTF)";
		return;
	}
	plan_layout(btf, funcs, funcs_len, l);
	if (func_placeable(btf, funcs, funcs_len, k->symbol, &k->why))
		k->ok = kread_args(btf, k->args, sizeof(k->args), k->filter, sizeof(k->filter),
				   &k->why) == 0;
	if (func_placeable(btf, funcs, funcs_len, n->symbol, &n->why)) {
		if (kernel_btf_param(btf, n->symbol, "name", &name_arg) < 0) {
			n->why = "BTF does not name find_module_all()'s name argument";
		} else {
			snprintf(n->args, sizeof(n->args), "name=+0($arg%u):string", name_arg);
			n->ok = true;
		}
	}
}
