/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hindex.h"

struct slot {
	uint64_t hash;
	size_t pos;		/* HINDEX_NONE: empty */
};

struct hindex {
	struct slot *slots;
	size_t n, cap;		/* cap: a power of two, or 0 */
};

int hindex_new(struct hindex **ret)
{
	struct hindex *h = calloc(1, sizeof(*h));

	if (!h)
		return -ENOMEM;
	*ret = h;
	return 0;
}

struct hindex *hindex_free(struct hindex *h)
{
	if (h)
		free(h->slots);
	free(h);
	return NULL;
}

size_t hindex_find(const struct hindex *h, uint64_t hash, hindex_eq_fn eq, const void *key,
		   const void *userdata)
{
	if (!h->cap)
		return HINDEX_NONE;
	/* linear probing */
	for (size_t i = hash & (h->cap - 1);; i = (i + 1) & (h->cap - 1)) {
		const struct slot *s = &h->slots[i];

		if (s->pos == HINDEX_NONE)
			return HINDEX_NONE;
		if (s->hash == hash && eq(s->pos, key, userdata))
			return s->pos;
	}
}

static void put(struct slot *slots, size_t cap, uint64_t hash, size_t pos)
{
	size_t i = hash & (cap - 1);

	while (slots[i].pos != HINDEX_NONE)
		i = (i + 1) & (cap - 1);
	slots[i].hash = hash;
	slots[i].pos = pos;
}

int hindex_add(struct hindex *h, uint64_t hash, size_t pos)
{
	/* at most half full */
	if ((h->n + 1) * 2 > h->cap) {
		size_t ncap = h->cap ? h->cap * 2 : 64;
		struct slot *ns;

		if (ncap < h->cap || ncap > SIZE_MAX / sizeof(*ns))
			return -ENOMEM;
		ns = malloc(ncap * sizeof(*ns));
		if (!ns)
			return -ENOMEM;
		for (size_t i = 0; i < ncap; i++)
			ns[i].pos = HINDEX_NONE;
		for (size_t i = 0; i < h->cap; i++)
			if (h->slots[i].pos != HINDEX_NONE)
				put(ns, ncap, h->slots[i].hash, h->slots[i].pos);
		free(h->slots);
		h->slots = ns;
		h->cap = ncap;
	}
	put(h->slots, h->cap, hash, pos);
	h->n++;
	return 0;
}

static inline uint64_t load64(const char *s)
{
	uint64_t w;

	memcpy(&w, s, 8);
	return w;
}

static inline uint64_t load32(const char *s)
{
	uint32_t w;

	memcpy(&w, s, 4);
	return w;
}

uint64_t hash_words(const void *p, size_t n, uint64_t seed)
{
	const char *s = p;
	const size_t len = n;
	uint64_t h = seed ^ (n * 0x9e3779b97f4a7c15ull), g = ~seed * 0xc4ceb9fe1a85ec53ull;

	/* two lanes: their multiplications do not wait for each other */
	while (n >= 16) {
		h = (h ^ load64(s)) * 0xff51afd7ed558ccdull;
		g = (g ^ load64(s + 8)) * 0xc4ceb9fe1a85ec53ull;
		h ^= h >> 32;
		g ^= g >> 29;
		s += 16;
		n -= 16;
	}
	if (n >= 8) {
		h = (h ^ load64(s)) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
		s += 8;
		n -= 8;
	}
	if (n) {
		uint64_t w;

		/* the last bytes by fixed-size loads, overlapping what was hashed */
		if (len >= 8)
			w = load64(s + n - 8);
		else if (n >= 4)
			w = load32(s) | load32(s + n - 4) << 32;
		else
			w = (uint64_t)(unsigned char)s[0] | (uint64_t)(unsigned char)s[n / 2] << 8 |
			    (uint64_t)(unsigned char)s[n - 1] << 16;
		g = (g ^ w) * 0x9e3779b97f4a7c15ull;
	}
	h ^= g ^ (g >> 31);
	h ^= h >> 29;
	h *= 0x94d049bb133111ebull;
	h ^= h >> 32;
	return h;
}

uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}

uint64_t hash_str(uint64_t h, const char *s)
{
	if (!s)
		return hash_bytes(h, "\xff", 1);
	/* with the NUL, so that ("ab", "c") and ("a", "bc") differ */
	return hash_bytes(h, s, strlen(s) + 1);
}
