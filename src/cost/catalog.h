/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "estimate.h"
#include "modfile.h"

/*
 * The module files of a module tree, by module name, analysed on demand (and through
 * the cache). Names are normalised the way kmod compares them: '-' is '_'.
 */
struct catalog_entry {
	char *path;
	char name[64];
	uint64_t file_size;		/* from the directory walk: no analysis needed */
	unsigned int done;		/* MODFILE_* flags analysed with, +1; 0: not yet */
	int err;			/* analysis error, 0 when fine */
	struct modfile_info info;
	struct cost_module cm;
	/*
	 * A layout not believed (cost_layout_check()): cm.has_layout is then false, its
	 * attempts unestimated. 0 or its error, and the bytes the check compared.
	 */
	int layout_doubt;
	uint64_t layout_doubt_bytes, layout_doubt_loaded;
	bool loaded_checked, layout_doubt_noted;
};

struct catalog {
	struct catalog_entry *e;	/* sorted by name */
	size_t n;
	struct modfile_cache *cache;	/* NULL: none asked for; else see modfile_cache_enabled() */
	size_t analyzed;		/* files analysed so far (for progress) */
	/* called now and then while analysing; optional (a terminal shows progress) */
	void (*progress)(void *userdata, size_t done, size_t total);
	void *progress_userdata;
	/* called once for a file refused by its size (-EFBIG); optional */
	void (*too_big)(const char *path);
};

/* @cache_dir NULL: the default ($XDG_CACHE_HOME/kmodtop); @use_cache false: none. */
int catalog_new(const char *moduledir, bool use_cache, const char *cache_dir,
		struct catalog **ret);
struct catalog *catalog_free(struct catalog *c);
/* The entry of module @name, or NULL. Owned by @c. */
struct catalog_entry *catalog_find(struct catalog *c, const char *name);
/* Analyses @e (MODFILE_SIZES or MODFILE_LAYOUT) if not done yet: 0, or its error. */
int catalog_analyze(struct catalog *c, struct catalog_entry *e, unsigned int flags);
/* The model's view of @e's file, or NULL when it could not be analysed. */
const struct cost_module *catalog_cost_module(struct catalog *c, struct catalog_entry *e);
/*
 * The same, with the layout checked against the loaded module's size @loaded_size
 * (0: not loaded) the first time one is given.
 */
const struct cost_module *catalog_cost_module_loaded(struct catalog *c, struct catalog_entry *e,
						     uint64_t loaded_size);
void catalog_normalize(char *name);
