/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * What one thread worked out about lines it has seen, by the line's bytes: kernel logs
 * repeat a few thousand messages millions of times, and a value found once (a parse, a
 * classification) is copied faster than found again. Set-associative, the oldest of a
 * set goes; keys longer than LINECACHE_KEY_MAX are not kept.
 */
struct linecache;

#define LINECACHE_KEY_MAX 240

/* @value_size bytes a key, @n_entries keys (rounded up to a power of two): 0 or -ENOMEM */
int linecache_new(size_t value_size, size_t n_entries, struct linecache **ret);
struct linecache *linecache_free(struct linecache *lc);

/* The rest of linecache_get(), out of line: by the key's hash */
const void *linecache_find(struct linecache *lc, const char *key, size_t len,
			   uint64_t *ret_hash);

/* Private, here for linecache_get()'s first step, inline in the caller's loop */
struct linecache_entry {
	uint64_t hash;
	/* the entries asked for after this one the last two times (a line is followed by
	 * one of a few, as a log goes through the same sequences) */
	struct linecache_entry *next, *next2;
	uint32_t used;			/* when last asked: of a set's ways, the oldest goes */
	uint16_t len;
	bool full;
	char key[LINECACHE_KEY_MAX];
	/* the value follows, at value_off */
};

struct linecache {
	char *entries;
	size_t stride;			/* bytes of an entry with its value */
	size_t value_off;
	size_t n_sets;
	uint32_t tick;
	struct linecache_entry *last;	/* the entry asked for or put last */
};

static inline bool linecache_is_key(const struct linecache_entry *e, const char *key,
				    size_t len)
{
	return e->full && e->len == len && memcmp(e->key, key, len) == 0;
}

/*
 * For callers that follow a sequence themselves, as linecache_get() does first: the
 * entries that came after the last one asked for, the last time and the time before
 * (NULL: none; their keys may have been replaced since: compare), an entry's value, and
 * that an entry was asked for now (linecache_hit(); for linecache_predict2()'s,
 * linecache_follows() first). An entry, once filled, is never empty again.
 */
static inline struct linecache_entry *linecache_predict(const struct linecache *lc)
{
	return lc->last ? lc->last->next : NULL;
}

static inline struct linecache_entry *linecache_predict2(const struct linecache *lc)
{
	return lc->last ? lc->last->next2 : NULL;
}

/* @e comes after lc->last (not NULL) this time */
static inline void linecache_follows(struct linecache *lc, struct linecache_entry *e)
{
	struct linecache_entry *l = lc->last;

	if (l->next != e) {
		l->next2 = l->next;
		l->next = e;
	}
}

static inline void *linecache_value(const struct linecache *lc, struct linecache_entry *e)
{
	return (char *)e + lc->value_off;
}

static inline void linecache_hit(struct linecache *lc, struct linecache_entry *e)
{
	lc->last = e;
	e->used = ++lc->tick;
}

/*
 * The value kept for the @len bytes at @key (valid until the next linecache_put()),
 * or NULL; *@ret_hash is the key's hash, for linecache_put().
 */
static inline const void *linecache_get(struct linecache *lc, const char *key, size_t len,
					uint64_t *ret_hash)
{
	/*
	 * Logs repeat in runs and sequences (a load failing on every CPU, each boot's
	 * messages in the same order): the line that followed this one last time is
	 * tried first, without hashing.
	 */
	struct linecache_entry *e = linecache_predict(lc);

	if (e && linecache_is_key(e, key, len)) {
		linecache_hit(lc, e);
		*ret_hash = e->hash;
		return linecache_value(lc, e);
	}
	e = linecache_predict2(lc);
	if (e && linecache_is_key(e, key, len)) {
		linecache_follows(lc, e);
		linecache_hit(lc, e);
		*ret_hash = e->hash;
		return linecache_value(lc, e);
	}
	return linecache_find(lc, key, len, ret_hash);
}
/*
 * The place of @key's value (@hash from linecache_get(), which did not find it): the
 * caller fills it before the next call. NULL when @key is too long to be kept.
 */
void *linecache_put(struct linecache *lc, const char *key, size_t len, uint64_t hash);
