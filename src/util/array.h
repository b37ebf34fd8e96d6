/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>
#include <stdlib.h>

/*
 * Makes room in *arr (elements of @size, *cap of them allocated) for element @n: when
 * n < *cap nothing happens, otherwise the capacity doubles (16 at first). New elements
 * are zeroed. 0, or -ENOMEM (also when the new size would not fit in a size_t); on error
 * *arr and *cap are unchanged.
 */
int array_grow(void **arr, size_t n, size_t *cap, size_t size);

/*
 * The same, the new elements left as realloc() leaves them: for arrays whose elements
 * are written whole as they are added. Zeroing touches the whole new capacity at once
 * (live top's ledger under a storm: a stall of 0.3 s, and pages never used).
 */
int array_grow_uninit(void **arr, size_t n, size_t *cap, size_t size);

/*
 * Call after element @n of *arr was made room for (capacity @cap): when @n is the first
 * element in a new ARRAY_PREFAULT-byte chunk of the array, asks the kernel to map the
 * chunk after it (MADV_POPULATE_WRITE) before it is written. One call instead of a fault
 * a page: half the cost a page where faults trap to a hypervisor. Only a hint: nothing
 * happens where the kernel does not know it (before 5.14).
 */
#define ARRAY_PREFAULT (64 * 1024)
void array_prefault(void *arr, size_t n, size_t cap, size_t size);

/*
 * qsort() for arrays that may be empty: an empty array here is often NULL, and qsort()'s
 * base is declared nonnull even for 0 elements (UBSan stops on it).
 */
static inline void array_sort(void *arr, size_t n, size_t size,
			      int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(arr, n, size, cmp);
}
