// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "util/hindex.h"
#include "util/linecache.h"

#define WAYS 2
#define ENTRY_ALIGN 16
_Static_assert(ENTRY_ALIGN <= _Alignof(max_align_t), "calloc() aligns entries");

static size_t align_up(size_t n, size_t a)
{
	return (n + a - 1) / a * a;
}

int linecache_new(size_t value_size, size_t n_entries, struct linecache **ret)
{
	struct linecache *lc = calloc(1, sizeof(*lc));
	size_t n = WAYS;

	if (!lc)
		return -ENOMEM;
	while (n < n_entries && n < UINT32_MAX / 2)
		n *= 2;
	lc->value_off = align_up(sizeof(struct linecache_entry), ENTRY_ALIGN);
	lc->stride = align_up(lc->value_off + value_size, ENTRY_ALIGN);
	lc->n_sets = n / WAYS;
	/*
	 * Zeroed is empty (no hash, no links, not full); calloc()'s pages are touched
	 * only where entries are filled, not all at a thread's start.
	 */
	lc->entries = calloc(n, lc->stride);
	if (!lc->entries) {
		free(lc);
		return -ENOMEM;
	}
	*ret = lc;
	return 0;
}

struct linecache *linecache_free(struct linecache *lc)
{
	if (lc) {
		free(lc->entries);
		free(lc);
	}
	return NULL;
}

static struct linecache_entry *set_of(const struct linecache *lc, uint64_t hash)
{
	return (struct linecache_entry *)(lc->entries + (hash & (lc->n_sets - 1)) * WAYS * lc->stride);
}

static struct linecache_entry *way(const struct linecache *lc, struct linecache_entry *set, int w)
{
	return (struct linecache_entry *)((char *)set + (size_t)w * lc->stride);
}

/* @e comes after the entry asked for last: remember it, and that it is now the last */
static void *followed_by(struct linecache *lc, struct linecache_entry *e)
{
	if (lc->last)
		linecache_follows(lc, e);
	linecache_hit(lc, e);
	return linecache_value(lc, e);
}

const void *linecache_find(struct linecache *lc, const char *key, size_t len,
			   uint64_t *ret_hash)
{
	struct linecache_entry *set, *e;
	uint64_t h;

	h = hash_words(key, len, 5);
	*ret_hash = h;
	if (len > LINECACHE_KEY_MAX)
		return NULL;
	set = set_of(lc, h);
	for (int w = 0; w < WAYS; w++) {
		e = way(lc, set, w);
		if (e->full && e->hash == h && linecache_is_key(e, key, len))
			return followed_by(lc, e);
	}
	return NULL;
}

void *linecache_put(struct linecache *lc, const char *key, size_t len, uint64_t hash)
{
	struct linecache_entry *set, *old;

	if (len > LINECACHE_KEY_MAX)
		return NULL;
	set = set_of(lc, hash);
	old = set;
	for (int w = 0; w < WAYS; w++) {
		struct linecache_entry *e = way(lc, set, w);

		if (!e->full) {
			old = e;
			break;
		}
		/* unsigned difference: right across the tick's wrap */
		if (lc->tick - e->used > lc->tick - old->used)
			old = e;
	}
	old->hash = hash;
	old->len = (uint16_t)len;
	old->full = true;
	old->next = old->next2 = NULL;
	memcpy(old->key, key, len);
	return followed_by(lc, old);
}
