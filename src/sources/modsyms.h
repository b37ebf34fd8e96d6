/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/kt-err.h"

/*
 * Modules' text symbols, in /proc/kallsyms' line format ("ffffffffc05455a0 t alg_bind
 * [af_alg]"): what turns a raw kernel address inside a module (a trace printed without
 * the module's symbols, e.g. one loaded after the reader took kallsyms) back into the
 * function the kernel's own trace names. record keeps them in its bundle, under
 * MODSYMS_PATH; lines of the kernel image's symbols, data symbols and zero addresses
 * (kallsyms read without CAP_SYSLOG) are left out.
 */
#define MODSYMS_PATH "capture/module-symbols"
/* A bundle's file: a few hundred thousand lines of 60 bytes is far below this */
#define MODSYMS_MAX (256ULL << 20)
/* The longest a kallsyms name is (KSYM_NAME_LEN, 512 since 6.1) and a module's name */
#define MODSYMS_NAME_MAX 512

struct modsyms;
struct kt_root;

/*
 * One kallsyms line: 1 with the module text symbol's fields (pointers into @line), 0 for
 * a line that is not one (kernel image, data, zero address), -EINVAL with *ret_what for
 * a line that is not a kallsyms line at all.
 */
int modsyms_parse_line(const char *line, size_t len, uint64_t *ret_addr, const char **ret_name,
		       size_t *ret_name_len, const char **ret_module, size_t *ret_module_len,
		       const char **ret_what);

/* The module text symbols of @f (a kallsyms stream) written to @out as they came. */
int modsyms_filter(FILE *f, FILE *out, size_t *ret_n);

/* A table of @f's module text symbols, sorted by address. 0 or -errno (*reterr set). */
int modsyms_read_file(FILE *f, const char *path, struct modsyms **ret, struct kt_err *reterr);
/* @root's MODSYMS_PATH: -ENOENT when it has none. */
int modsyms_read(const struct kt_root *root, struct modsyms **ret, struct kt_err *reterr);
struct modsyms *modsyms_free(struct modsyms *s);
size_t modsyms_count(const struct modsyms *s);

/*
 * The function of a module @addr is in: the closest symbol at or below it, not further
 * than MODSYMS_REACH (a module's last function is followed by other memory). Its name,
 * or NULL; *ret_module (may be NULL) its module. Owned by @s.
 */
#define MODSYMS_REACH (1u << 20)
const char *modsyms_lookup(const struct modsyms *s, uint64_t addr, const char **ret_module);
