/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "version.h"

static int read_uint(const char **s, unsigned int *ret)
{
	unsigned long v;
	char *end;

	if (!isdigit((unsigned char)**s))
		return -EINVAL;
	errno = 0;
	v = strtoul(*s, &end, 10);
	if (errno || v > 100000)
		return -EINVAL;
	*ret = (unsigned int)v;
	*s = end;
	return 0;
}

int kver_parse(const char *release, struct kver *ret)
{
	struct kver v = {0};
	const char *s = release;

	if (read_uint(&s, &v.major) < 0 || *s != '.')
		return -EINVAL;
	s++;
	if (read_uint(&s, &v.minor) < 0)
		return -EINVAL;
	if (*s == '.') {
		s++;
		if (read_uint(&s, &v.patch) < 0)
			v.patch = 0;
	}
	*ret = v;
	return 0;
}

int kver_cmp_mm(const struct kver *v, unsigned int major, unsigned int minor)
{
	if (v->major != major)
		return v->major < major ? -1 : 1;
	if (v->minor != minor)
		return v->minor < minor ? -1 : 1;
	return 0;
}

bool kver_release_ok(const char *release)
{
	size_t n = strspn(release, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789._-+~");

	return n > 0 && n <= 64 && release[n] == '\0';
}
