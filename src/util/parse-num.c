/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

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
