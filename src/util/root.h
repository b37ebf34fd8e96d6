/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * The directory every kernel file is read from: "/" on a live system, or a captured
 * tree (--root). Sources open root-relative paths ("proc/modules", no leading slash)
 * through it, so a bypass stands out in review. Nothing ever writes inside a root.
 *
 * A root other than "/" is read beneath itself: a symlink whose target is absolute or
 * climbs above the root is refused (-EXDEV), as is a loop (-ELOOP). Only regular files
 * are read: a FIFO, socket or device is -ENXIO, a directory -EISDIR, each found without
 * blocking in open(). A captured file larger than its kind can be is -EFBIG.
 */
struct kt_root;

int root_new(const char *dir, struct kt_root **ret_root);
struct kt_root *root_free(struct kt_root *root);

/* The directory as given, for messages. Owned by @root. */
const char *root_dir(const struct kt_root *root);
/* True for "/": live-only powers (tracing, following /dev/kmsg) are allowed. */
bool root_is_live_system(const struct kt_root *root);

/*
 * Size caps of captured files by kind (a sparse 1 TiB file is not read to its end):
 * traces and kernel logs, the largest; proc/modules and proc/vmallocinfo, tables of at
 * most a few hundred thousand lines; the small procfs tables (meminfo).
 */
#define ROOT_STREAM_MAX (16ULL << 30)
#define ROOT_TABLE_MAX (1ULL << 30)
#define ROOT_SMALL_MAX (16ULL << 20)

/*
 * Told of each refusal above (once a path and reason), for a warning naming the file;
 * unset, refusals are only return codes. @err is one root_refusal_text() knows.
 */
typedef void root_refusal_fn(const char *dir, const char *relpath, int err);
void root_set_refusal_handler(root_refusal_fn *fn);
/* The words for a refusal's -errno ("a symlink leads out of the root"), or NULL. */
const char *root_refusal_text(int err);

/*
 * A file descriptor, or -errno. @relpath must not start with '/'. Flags without
 * O_DIRECTORY or O_PATH open a regular file of at most ROOT_STREAM_MAX bytes.
 */
int root_open(const struct kt_root *root, const char *relpath, int flags);
int root_fopen(const struct kt_root *root, const char *relpath, FILE **ret_file);
/* root_fopen() of a file refused past @max bytes (one of the ROOT_*_MAX) */
int root_fopen_max(const struct kt_root *root, const char *relpath, uint64_t max,
		   FILE **ret_file);
bool root_exists(const struct kt_root *root, const char *relpath);
/*
 * An absolute path for libraries that only take paths (libkmod). -EXDEV or -ELOOP when
 * the path itself leads out of the root. Caller frees.
 */
int root_abspath(const struct kt_root *root, const char *relpath, char **ret_path);

/*
 * For a directory a library reads by path: -EXDEV or -ELOOP (and a warning) when an
 * entry of it is a symlink out of the root. 0 on the live system.
 */
int root_check_dir(const struct kt_root *root, const char *relpath);

/*
 * The fallback of kernels without openat2(): @relpath opened below @dirfd one component
 * at a time, each symlink read and followed by hand. Absolute targets and ".." above
 * @dirfd are -EXDEV, more than 40 symlinks -ELOOP. A file descriptor, or -errno.
 */
int root_walk_open(int dirfd, const char *relpath, int flags);

/*
 * Reads a whole (small, sysfs/procfs-style) file. Fails with -EFBIG past @max bytes.
 * The buffer is NUL-terminated; *ret_len excludes the terminator. Caller frees.
 */
int root_read_file(const struct kt_root *root, const char *relpath, size_t max,
		   char **ret_buf, size_t *ret_len);
