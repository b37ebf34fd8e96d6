/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * An index of array positions by hash: the caller keeps the records (in an array that
 * may move) and says how to hash and compare them. Lookups of names among 10^6 modules,
 * requesters or findings stay constant-time where a scan was linear.
 */
struct hindex;

#define HINDEX_NONE SIZE_MAX

typedef bool (*hindex_eq_fn)(size_t pos, const void *key, const void *userdata);

int hindex_new(struct hindex **ret);
struct hindex *hindex_free(struct hindex *h);
/* A position added with @hash that @eq matches to @key, or HINDEX_NONE; callers add a key once */
size_t hindex_find(const struct hindex *h, uint64_t hash, hindex_eq_fn eq, const void *key,
		   const void *userdata);
/* 0 or -ENOMEM */
int hindex_add(struct hindex *h, uint64_t hash, size_t pos);

/*
 * A word at a time, for keys read millions of times (log messages, names): the same
 * @p, @n and @seed give the same hash.
 */
uint64_t hash_words(const void *p, size_t n, uint64_t seed);
/* FNV-1a over @n bytes, chained from @h (start with HASH_INIT) */
#define HASH_INIT UINT64_C(0xcbf29ce484222325)
uint64_t hash_bytes(uint64_t h, const void *p, size_t n);
/* a NUL-terminated string or NULL (which hashes apart from "") */
uint64_t hash_str(uint64_t h, const char *s);
