/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include "util/array.h"
#include "catalog.h"

static _Thread_local struct catalog *walk_cat;
static _Thread_local size_t walk_cap;
static _Thread_local int walk_err;

void catalog_normalize(char *name)
{
	for (char *p = name; *p; p++)
		if (*p == '-')
			*p = '_';
}

static bool module_suffix(const char *base, size_t *ret_stem)
{
	static const char *const sfx[] = { ".ko", ".ko.xz", ".ko.zst", ".ko.gz" };
	size_t n = strlen(base);

	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		size_t m = strlen(sfx[i]);

		if (n > m && strcmp(base + n - m, sfx[i]) == 0) {
			*ret_stem = n - m;
			return true;
		}
	}
	return false;
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	const char *base = path + ftw->base;
	struct catalog_entry *e;
	size_t stem;

	if (type != FTW_F || !module_suffix(base, &stem) || stem >= sizeof(e->name))
		return 0;
	if (walk_cat->n == walk_cap) {
		size_t ncap = walk_cap ? walk_cap * 2 : 256;
		struct catalog_entry *ne = realloc(walk_cat->e, ncap * sizeof(*ne));

		if (!ne) {
			walk_err = -ENOMEM;
			return 1;
		}
		walk_cat->e = ne;
		walk_cap = ncap;
	}
	e = &walk_cat->e[walk_cat->n];
	memset(e, 0, sizeof(*e));
	e->path = strdup(path);
	if (!e->path) {
		walk_err = -ENOMEM;
		return 1;
	}
	memcpy(e->name, base, stem);
	e->name[stem] = '\0';
	catalog_normalize(e->name);
	e->file_size = (uint64_t)st->st_size;
	walk_cat->n++;
	return 0;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct catalog_entry *x = a, *y = b;

	return strcmp(x->name, y->name);
}

int catalog_new(const char *moduledir, bool use_cache, const char *cache_dir,
		struct catalog **ret)
{
	struct catalog *c = calloc(1, sizeof(*c));
	int r;

	if (!c)
		return -ENOMEM;
	/* a cache that cannot be used is no error: analysis just is not kept, and the
	 * handle says why (modfile_cache_error()) */
	if (use_cache && modfile_cache_open(cache_dir, &c->cache) < 0)
		c->cache = NULL;
	walk_cat = c;
	walk_cap = 0;
	walk_err = 0;
	/* FTW_PHYS: a symlink in a captured tree must not lead the walk out of it */
	r = nftw(moduledir, visit, 16, FTW_PHYS);
	walk_cat = NULL;
	if (walk_err || r < 0) {
		r = walk_err ? walk_err : -errno;
		catalog_free(c);
		return r;
	}
	array_sort(c->e, c->n, sizeof(*c->e), entry_cmp);
	*ret = c;
	return 0;
}

struct catalog *catalog_free(struct catalog *c)
{
	if (!c)
		return NULL;
	for (size_t i = 0; i < c->n; i++)
		free(c->e[i].path);
	free(c->e);
	if (c->cache) {
		modfile_cache_flush(c->cache);
		modfile_cache_free(c->cache);
	}
	free(c);
	return NULL;
}

struct catalog_entry *catalog_find(struct catalog *c, const char *name)
{
	struct catalog_entry key;

	if (!c || strlen(name) >= sizeof(key.name))
		return NULL;
	strcpy(key.name, name);
	catalog_normalize(key.name);
	return bsearch(&key, c->e, c->n, sizeof(*c->e), entry_cmp);
}

static void doubt_layout(struct catalog_entry *e, uint64_t loaded_size)
{
	uint64_t bytes;
	int r = cost_layout_check(&e->cm, loaded_size, &bytes);

	if (r == 0)
		return;
	e->cm.has_layout = false;
	e->layout_doubt = r;
	e->layout_doubt_bytes = bytes;
	e->layout_doubt_loaded = loaded_size;
}

static void fill_cost_module(struct catalog_entry *e)
{
	const struct modfile_info *i = &e->info;
	struct cost_module *m = &e->cm;

	memset(m, 0, sizeof(*m));
	m->file_size = i->file_size;
	m->compressed = i->comp != MODFILE_PLAIN;
	m->xz = i->comp == MODFILE_XZ;
	m->decompressed_size = i->decompressed_size;
	m->xz_dict_size = i->xz_dict_size;
	/* module_zstd_decompress() vmallocs zstd_dstream_workspace_bound(window): same lib */
	if (i->comp == MODFILE_ZSTD && i->zstd_window_size)
		m->zstd_workspace = ZSTD_estimateDStreamSize(i->zstd_window_size);
	m->has_layout = i->has_layout;
	for (int t = 0; t < 7; t++)
		m->mem[t] = i->layout.mem[t];
	m->core_size = i->layout.core_size;
	m->init_size = i->layout.init_size;
	/* lying section headers: a layout no module area holds is no estimate */
	if (m->has_layout)
		doubt_layout(e, 0);
}

int catalog_analyze(struct catalog *c, struct catalog_entry *e, unsigned int flags)
{
	enum modfile_cache_status st;

	/* sizes are part of a layout analysis: no need to go back for less */
	if (e->done && (e->done - 1 == flags || e->done - 1 == MODFILE_LAYOUT || e->err))
		return e->err;
	e->done = flags + 1;
	c->analyzed++;
	if (c->progress && c->analyzed % 32 == 0)
		c->progress(c->progress_userdata, c->analyzed, c->n);
	e->err = c->cache ? modfile_cache_analyze(c->cache, e->path, flags, &e->info, &st)
			  : modfile_analyze_flags(e->path, flags, &e->info);
	if (e->err == 0)
		fill_cost_module(e);
	else if (e->err == -EFBIG && c->too_big)
		c->too_big(e->path);
	return e->err;
}

const struct cost_module *catalog_cost_module(struct catalog *c, struct catalog_entry *e)
{
	if (!e || catalog_analyze(c, e, MODFILE_LAYOUT) < 0)
		return NULL;
	return &e->cm;
}

const struct cost_module *catalog_cost_module_loaded(struct catalog *c, struct catalog_entry *e,
						     uint64_t loaded_size)
{
	const struct cost_module *m = catalog_cost_module(c, e);

	if (m && loaded_size && !e->loaded_checked) {
		e->loaded_checked = true;
		if (e->cm.has_layout)
			doubt_layout(e, loaded_size);
	}
	return m;
}
