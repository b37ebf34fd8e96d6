/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * What several unit tests need around the code they test: files and temporary
 * directories, compressed copies of data, a ledger from trace lines. Each fails the
 * test (a cmocka assertion) rather than return an error.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ledger/ledger.h"

/* @len bytes of @data to read as a FILE (an empty file when @len is 0) */
FILE *mem_file(const void *data, size_t len);

/* A new directory below $TMPDIR (or /tmp); remove_tree() removes it, all in it, and frees @d */
char *make_tmpdir(void);
void remove_tree(char *d);

/* "@a/@b", for the caller to free */
char *path_join(const char *a, const char *b);

/* "@dir/@rel" after a "mkdir -p" of the directories @rel names, for the caller to free */
char *prepare_path(const char *dir, const char *rel);
/* Writes @dir/@rel, making the directories @rel names first ("mkdir -p") */
void write_file(const char *dir, const char *rel, const void *data, size_t len);
void write_str(const char *dir, const char *rel, const char *s);

/* The whole file at @path, NUL-terminated (not counted in *ret_len), for the caller to free */
void *read_file(const char *path, size_t *ret_len);

/* @in compressed by gzip (level 6), xz (preset 6, CRC64) or zstd (level 3), to free */
void *gzip_of(const void *in, size_t len, size_t *ret_len);
void *xz_of(const void *in, size_t len, size_t *ret_len);
void *zstd_of(const void *in, size_t len, size_t *ret_len);

struct ktrace_event;
/* A ktrace_parser_ops.event: @ev to the ledger @userdata */
int feed_ledger(void *userdata, const struct ktrace_event *ev);
/* A finished ledger of the trace text @lines (NULL-terminated); ledger_free() it */
struct ledger *ledger_from_lines_kernel(const char *const *lines, const struct ledger_ops *lops,
					bool idempotent);
/* The same with no ledger_ops, on a kernel whose finit_module() is idempotent */
struct ledger *ledger_from_lines(const char *const *lines);
