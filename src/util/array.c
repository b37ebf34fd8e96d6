// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/array.h"

static int grow(void **arr, size_t n, size_t *cap, size_t size, bool zero)
{
	size_t ncap;
	void *na;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap : 16;
	while (ncap <= n) {
		if (ncap > SIZE_MAX / 2)
			return -ENOMEM;
		ncap *= 2;
	}
	/* an element count from a hostile file must not wrap the byte count */
	if (size && ncap > SIZE_MAX / size)
		return -ENOMEM;
	na = realloc(*arr, ncap * size);
	if (!na)
		return -ENOMEM;
	if (zero)
		memset((char *)na + *cap * size, 0, (ncap - *cap) * size);
	*arr = na;
	*cap = ncap;
	return 0;
}

int array_grow(void **arr, size_t n, size_t *cap, size_t size)
{
	return grow(arr, n, cap, size, true);
}

int array_grow_uninit(void **arr, size_t n, size_t *cap, size_t size)
{
	return grow(arr, n, cap, size, false);
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

void array_prefault(void *arr, size_t n, size_t cap, size_t size)
{
	static uintptr_t page;
	uintptr_t lo, hi, end;
	size_t off = n * size;

	/* only the first element that starts in a chunk asks */
	if (!arr || n >= cap || (n && off / ARRAY_PREFAULT == (off - size) / ARRAY_PREFAULT))
		return;
	if (!page) {
		long ps = sysconf(_SC_PAGESIZE);

		page = ps > 0 ? (uintptr_t)ps : 4096;
	}
	lo = (uintptr_t)arr + (off / ARRAY_PREFAULT + 1) * ARRAY_PREFAULT;
	end = (uintptr_t)arr + cap * size;
	hi = lo + ARRAY_PREFAULT < end ? lo + ARRAY_PREFAULT : end;
	lo &= ~(page - 1);
	hi &= ~(page - 1);
	if (lo < hi)
		(void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
}
