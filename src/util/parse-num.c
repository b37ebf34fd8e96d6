/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "parse-num.h"

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

int parse_u64(const char *s, int base, uint64_t *ret)
{
	unsigned long long v;
	char *end;

	s = skip_ws(s);
	/* strto*() would skip \n\v\f\r itself, and a '-' behind them would wrap around */
	if (*s == '-' || *s == '+' || *s == '\0' || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno == ERANGE)
		return -ERANGE;
	if (end == s || errno)
		return -EINVAL;
	end = (char *)skip_ws(end);
	if (*end != '\0')
		return -EINVAL;
	*ret = v;
	return 0;
}

int parse_i64(const char *s, int base, int64_t *ret)
{
	long long v;
	char *end;

	s = skip_ws(s);
	if (*s == '\0' || *s == '+' || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, base);
	if (errno == ERANGE)
		return -ERANGE;
	if (end == s || errno)
		return -EINVAL;
	end = (char *)skip_ws(end);
	if (*end != '\0')
		return -EINVAL;
	*ret = v;
	return 0;
}

int parse_u32(const char *s, int base, uint32_t *ret)
{
	uint64_t v;
	int r = parse_u64(s, base, &v);

	if (r < 0)
		return r;
	if (v > UINT32_MAX)
		return -ERANGE;
	*ret = (uint32_t)v;
	return 0;
}

int parse_int(const char *s, int *ret)
{
	int64_t v;
	int r = parse_i64(s, 10, &v);

	if (r < 0)
		return r;
	if (v < INT_MIN || v > INT_MAX)
		return -ERANGE;
	*ret = (int)v;
	return 0;
}

/* digit value + 1 in base 16; 0 for anything else */
static const unsigned char digit_val[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
	['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* the digit's value, or UINT_MAX: not a digit in any base */
static unsigned int digit_of(char c)
{
	return (unsigned int)digit_val[(unsigned char)c] - 1;
}

/*
 * The digits of [*s, end) into *ret, as strtoull does: all of them consumed, overflow
 * reported (-ERANGE) after the last one; -EINVAL when there are none. A NUL ends the
 * string, as it would end the copy.
 */
static int digits_n(const char **s, const char *end, unsigned int base, uint64_t *ret)
{
	const char *p = *s, *q;
	uint64_t v = 0;
	bool over = false;
	unsigned int d;

	/* strtoull(base 16) takes "0x" only when a hex digit follows */
	if (base == 16 && end - p >= 3 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
	    digit_of(p[2]) < 16)
		p += 2;
	/* one pass; an overflow is only possible near the top, checked there */
	q = p;
	if (base == 10) {
		for (; q < end && (d = (unsigned int)(*q - '0')) < 10; q++) {
			if (__builtin_expect(v >= UINT64_MAX / 10, 0))
				over |= v > UINT64_MAX / 10 || d > UINT64_MAX % 10;
			v = v * 10 + d;
		}
	} else {
		const char *nz;

		/* more than 16 digits after the leading zeros overflow */
		while (q < end && *q == '0')
			q++;
		for (nz = q; q < end && (d = digit_of(*q)) < 16; q++)
			v = v << 4 | d;
		over = q - nz > 16;
	}
	if (q == p)
		return -EINVAL;
	*s = q;
	if (over)
		return -ERANGE;
	*ret = v;
	return 0;
}

/*
 * The common case, digits only and too few to overflow (a trace line's pid, cpu,
 * timestamp, arguments): their value, without the general path's look at spaces,
 * prefixes and overflow. False for anything else, which the general path then takes.
 */
static bool plain_digits(const char *s, size_t n, unsigned int base, uint64_t *ret)
{
	uint64_t v = 0;

	if (n == 0 || n > (base == 16 ? 16u : 19u))
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned int d = digit_of(s[i]);

		if (d >= base)
			return false;
		v = v * base + d;
	}
	*ret = v;
	return true;
}

/* trailing spaces and tabs, then the end (or a NUL) */
static bool only_ws_left(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p == end || *p == '\0';
}

/* A copy for the bases parsed by strto*() itself; -EINVAL if it is too long for @buf. */
static int copy_n(const char *s, size_t n, char *buf, size_t size)
{
	if (n >= size)
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return 0;
}

int parse_u64_n(const char *s, size_t n, int base, uint64_t *ret)
{
	const char *end = s + n, *p = s;
	uint64_t v;
	int r;

	if (base != 10 && base != 16) {
		char buf[128];

		if (copy_n(s, n, buf, sizeof(buf)) < 0)
			return -EINVAL;
		return parse_u64(buf, base, ret);
	}
	if (plain_digits(s, n, (unsigned int)base, ret))
		return 0;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	r = digits_n(&p, end, (unsigned int)base, &v);
	if (r < 0)
		return r;
	if (!only_ws_left(p, end))
		return -EINVAL;
	*ret = v;
	return 0;
}

int parse_i64_n(const char *s, size_t n, int base, int64_t *ret)
{
	const char *end = s + n, *p = s;
	bool neg = false;
	uint64_t v;
	int r;

	if (base != 10 && base != 16) {
		char buf[128];

		if (copy_n(s, n, buf, sizeof(buf)) < 0)
			return -EINVAL;
		return parse_i64(buf, base, ret);
	}
	if (plain_digits(s, n, (unsigned int)base, &v)) {
		if (v > (uint64_t)INT64_MAX)
			return -ERANGE;
		*ret = (int64_t)v;
		return 0;
	}
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p < end && *p == '-') {
		neg = true;
		p++;
	}
	r = digits_n(&p, end, (unsigned int)base, &v);
	if (r < 0)
		return r;
	if (neg ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX)
		return -ERANGE;
	if (!only_ws_left(p, end))
		return -EINVAL;
	*ret = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}
