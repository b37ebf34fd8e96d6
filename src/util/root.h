/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * The directory every kernel file is read from: "/" on a live system, or a captured
 * tree (--root). Sources open root-relative paths ("proc/modules", no leading slash)
 * through it, so a bypass stands out in review. Nothing ever writes inside a root.
 */
struct kt_root;

int root_new(const char *dir, struct kt_root **ret_root);
struct kt_root *root_free(struct kt_root *root);

/* The directory as given, for messages. Owned by @root. */
const char *root_dir(const struct kt_root *root);
/* True for "/": live-only powers (tracing, following /dev/kmsg) are allowed. */
bool root_is_live_system(const struct kt_root *root);

/* A file descriptor, or -errno. @relpath must not start with '/'. */
int root_open(const struct kt_root *root, const char *relpath, int flags);
int root_fopen(const struct kt_root *root, const char *relpath, FILE **ret_file);
bool root_exists(const struct kt_root *root, const char *relpath);
/* An absolute path for libraries that only take paths (libkmod). Caller frees. */
int root_abspath(const struct kt_root *root, const char *relpath, char **ret_path);

/*
 * Reads a whole (small, sysfs/procfs-style) file. Fails with -EFBIG past @max bytes.
 * The buffer is NUL-terminated; *ret_len excludes the terminator. Caller frees.
 */
int root_read_file(const struct kt_root *root, const char *relpath, size_t max,
		   char **ret_buf, size_t *ret_len);
