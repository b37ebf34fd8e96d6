/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>

#include "kernel-btf.h"

/*
 * The BTF of a kernel that is installed but not running, from its boot image
 * (/boot/vmlinuz-RELEASE): x86's bzImage carries the compressed vmlinux ELF after its
 * setup code; Debian compresses 6.1 with xz and 6.12 with zstd. The first xz, zstd or
 * gzip stream in the file is decompressed, and its .BTF section is what
 * /sys/kernel/btf/vmlinux holds once that kernel runs.
 *
 * Reads @fd from its start. 0; -ENOENT when no stream holds an ELF with a .BTF section
 * (@ret_why says which step failed, static text); -EFBIG past VMLINUZ_VMLINUX_MAX
 * decompressed; -EINVAL for a .BTF that libbpf refuses; -errno.
 */
int vmlinuz_btf_read(int fd, struct kernel_btf **ret, const char **ret_why);

#define VMLINUZ_VMLINUX_MAX (1024u << 20)

/*
 * The same from an image in memory (not modified), with at most @max_vmlinux bytes
 * decompressed (a fuzzer's inputs expand as no kernel does).
 */
int vmlinuz_btf_from_image(const void *data, size_t len, size_t max_vmlinux,
			   struct kernel_btf **ret, const char **ret_why);
