/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <ftw.h>
#include <string.h>

#include "moduledir.h"

static _Thread_local struct moduledir_stats *walk_stats;

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	const char *base = path + ftw->base;

	if (type != FTW_F)
		return 0;
	if (has_suffix(base, ".ko"))
		walk_stats->ko++;
	else if (has_suffix(base, ".ko.xz"))
		walk_stats->ko_xz++;
	else if (has_suffix(base, ".ko.zst"))
		walk_stats->ko_zst++;
	else if (has_suffix(base, ".ko.gz"))
		walk_stats->ko_gz++;
	return 0;
}

int moduledir_scan(const char *dir, struct moduledir_stats *ret)
{
	struct moduledir_stats st = {0};
	int r;

	walk_stats = &st;
	/* FTW_PHYS: a symlink in a captured tree must not lead the walk out of it */
	r = nftw(dir, visit, 16, FTW_PHYS);
	walk_stats = NULL;
	if (r < 0)
		return -errno;
	*ret = st;
	return 0;
}

const char *moduledir_compression(const struct moduledir_stats *st)
{
	int kinds = !!st->ko + !!st->ko_xz + !!st->ko_zst + !!st->ko_gz;

	if (kinds == 0)
		return NULL;
	if (kinds > 1)
		return "mixed";
	return st->ko_xz ? "xz" : st->ko_zst ? "zstd" : st->ko_gz ? "gzip" : "none";
}
