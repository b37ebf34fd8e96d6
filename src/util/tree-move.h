/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * Moves the directory tree @from to @to, which must not exist: rename(2) when both are
 * on one file system, else a copy (directories, regular files with their modes, and
 * symlinks; anything else is -ENOTSUP) and the removal of @from. A copy that fails
 * is removed again and @from stays whole. 0 or -errno.
 */
int tree_move(const char *from, const char *to);

/* rm -r: 0, or the first -errno (what could be removed is) */
int tree_remove(const char *path);
