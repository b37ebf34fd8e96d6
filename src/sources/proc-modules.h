/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/kt-err.h"
#include "util/root.h"

enum module_state {
	MODULE_LIVE,
	MODULE_LOADING,
	MODULE_UNLOADING,
};

struct hindex;

/* One line of proc/modules (kernel/module/procfs.c m_show()). */
struct proc_module {
	char *name;
	uint64_t size;		/* bytes, page-aligned per memory type */
	int refcount;		/* -1 without CONFIG_MODULE_UNLOAD ("-") */
	char **holders;		/* NULL-terminated; "[permanent]" is not a holder */
	size_t n_holders;
	bool permanent;
	enum module_state state;
	uint64_t address;	/* 0 when hidden (no CAP_SYSLOG / kptr_restrict) */
	char taint[16];		/* letters between the parentheses, "" when untainted */
};

struct proc_modules {
	struct proc_module *mods;	/* in file order (newest first) */
	size_t n;
	bool addresses_hidden;		/* every address read as 0 */
	struct hindex *by_name;		/* mods by name, the first of each; built by the reader */
	/* lines naming a module listed before, dropped by the reader; the first one's line */
	size_t n_repeated;
	unsigned int repeated_line;
};

const char *module_state_name(enum module_state s);

/*
 * Parses one line in place (@line is modified). Allocates the name and holders, freed by
 * proc_module_done(). 0, or -EINVAL with *reterr_what, or -ENOMEM.
 */
int proc_modules_parse_line(char *line, size_t len, struct proc_module *ret_mod,
			    const char **reterr_what);
void proc_module_done(struct proc_module *m);

/* Reads ROOT/proc/modules. -ENOENT when the kernel has no module support. */
int proc_modules_read(const struct kt_root *root, struct proc_modules **ret_list,
		      struct kt_err *reterr);
int proc_modules_read_file(FILE *f, const char *path, struct proc_modules **ret_list,
			   struct kt_err *reterr);
struct proc_modules *proc_modules_free(struct proc_modules *list);
const struct proc_module *proc_modules_find(const struct proc_modules *list, const char *name);
