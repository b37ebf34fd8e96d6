/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* a sum of sizes read from a file: stuck at UINT64_MAX rather than wrapped around */
static inline uint64_t add_sat_u64(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _printf_format_(a, b) __attribute__((format(printf, a, b)))
#define _must_check_ __attribute__((warn_unused_result))
#define _unused_ __attribute__((unused))

static inline void freep(void *p)
{
	free(*(void **)p);
}

static inline void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

static inline void closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}

#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_fclose_ _cleanup_(fclosep)
#define _cleanup_close_ _cleanup_(closep)

/* Defines type_freep() for use with _cleanup_(), from a NULL-accepting type_free(). */
#define DEFINE_FREEP(type, fn)                  \
	static inline void fn##p(type **p)      \
	{                                       \
		if (*p)                         \
			fn(*p);                 \
	}
