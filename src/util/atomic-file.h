/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdio.h>
#include <sys/types.h>

/*
 * A file replaced whole or not at all, for readers that may look at any moment (a
 * node_exporter scrape): written as ".NAME.XXXXXX" beside it, then renamed over it.
 * Readers that take only "*.prom" never see the temporary.
 */
struct atomic_file;

/* The temporary, mode @mode, in @path's directory. 0 or -errno. */
int atomic_file_new(const char *path, mode_t mode, struct atomic_file **ret);
/* Where to write. Owned by @a. */
FILE *atomic_file_stream(struct atomic_file *a);
/* Flushed, synced, renamed to the path, the directory synced. 0 or -errno. */
int atomic_file_commit(struct atomic_file *a);
/* Removes the temporary unless committed. */
struct atomic_file *atomic_file_free(struct atomic_file *a);
