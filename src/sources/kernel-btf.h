/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/root.h"

/*
 * The kernel's own description of its types, sys/kernel/btf/vmlinux (CONFIG_DEBUG_INFO_BTF),
 * read with libbpf's BTF API. kmodtop asks it where a structure keeps a field and which
 * argument of a function has a given name, so that the kprobes it places fetch what
 * this very kernel has there: the offsets move between releases and configurations
 * (struct file's f_path is at 16 on Debian's 6.1 and at 64 on its 6.12).
 */
struct kernel_btf;

/* Reads ROOT/sys/kernel/btf/vmlinux. 0, -ENOENT (no BTF), -EINVAL (not BTF), -errno. */
int kernel_btf_read(const struct kt_root *root, struct kernel_btf **ret);
/* The same from a blob in memory (copied). */
int kernel_btf_new(const void *data, size_t len, struct kernel_btf **ret);
struct kernel_btf *kernel_btf_free(struct kernel_btf *b);

/*
 * The byte offset of @path in struct @type: "f_path.dentry" is f_path's offset in struct
 * file plus dentry's in f_path's type; members of anonymous structs and unions are found
 * as the compiler finds them. 0, -ENOENT (no such struct or member), -EINVAL (a bit
 * field, or a member on the way that is not a struct or union).
 */
int kernel_btf_offset(const struct kernel_btf *b, const char *type, const char *path,
		      uint32_t *ret_offset);
/* The size in bytes of the type of @path in struct @type (as kernel_btf_offset()). */
int kernel_btf_member_size(const struct kernel_btf *b, const char *type, const char *path,
			   uint32_t *ret_size);
/* 1-based position of parameter @param of function @func: $argN. 0 or -ENOENT. */
int kernel_btf_param(const struct kernel_btf *b, const char *func, const char *param,
		     unsigned int *ret_index);
/* Does BTF know @func as a function (one with a body of its own, not inlined)? */
bool kernel_btf_has_func(const struct kernel_btf *b, const char *func);
/* The value of enumerator @name (of any enum). 0 or -ENOENT. */
int kernel_btf_enum_value(const struct kernel_btf *b, const char *name, int64_t *ret);
