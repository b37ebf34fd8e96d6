/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

/*
 * strtoull/strtoll with every check kmod does (nothing parsed, trailing junk, ERANGE),
 * plus refusal of a leading '-' for unsigned values. 0 or -EINVAL/-ERANGE.
 * Base 0 accepts 0x prefixes; base 16 accepts an optional "0x".
 */
int parse_u64(const char *s, int base, uint64_t *ret);
int parse_i64(const char *s, int base, int64_t *ret);
int parse_u32(const char *s, int base, uint32_t *ret);
int parse_int(const char *s, int *ret);

/*
 * The same on the bytes [s, s + n) without copying them: what parse_u64/parse_i64 give
 * on a NUL-terminated copy, for the trace and vmallocinfo parsers that split lines in
 * place. Bases 10 and 16 are parsed here, others go through a copy.
 */
int parse_u64_n(const char *s, size_t n, int base, uint64_t *ret);
int parse_i64_n(const char *s, size_t n, int base, int64_t *ret);

/* The value of one hexadecimal digit, or -1 */
static inline int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}
