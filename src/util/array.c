// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
