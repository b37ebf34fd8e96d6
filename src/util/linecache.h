/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

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

/*
 * The value kept for the @len bytes at @key (valid until the next linecache_put()),
 * or NULL; *@ret_hash is the key's hash, for linecache_put().
 */
const void *linecache_get(struct linecache *lc, const char *key, size_t len,
			  uint64_t *ret_hash);
/*
 * The place of @key's value (@hash from linecache_get(), which did not find it): the
 * caller fills it before the next call. NULL when @key is too long to be kept.
 */
void *linecache_put(struct linecache *lc, const char *key, size_t len, uint64_t hash);
