/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>

/* What the module tree holds, by compression: how this system ships its modules. */
struct moduledir_stats {
	size_t ko, ko_xz, ko_zst, ko_gz;
	size_t other;
};

/* Walks @dir (an absolute path; it may be outside the root: --moduledir). */
int moduledir_scan(const char *dir, struct moduledir_stats *ret);
/* "xz", "zstd", "gzip", "none" (plain .ko), "mixed" or NULL when empty. */
const char *moduledir_compression(const struct moduledir_stats *st);
