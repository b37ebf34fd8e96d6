/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "modfile.h"

/* Between modfile.c (one file), modfile-layout.c and modfile-cache.c. */

/*
 * Lays out the ELF image @img, which libelf may modify: modfile_layout_elf() on an
 * image that is already the caller's copy.
 */
int modfile_layout_image(uint8_t *img, size_t len, struct modfile_layout *ret, char *name,
			 enum modfile_name_source *ret_source);

/* Opens a module file as finit_module()'s kernel_read_file() would take it: -EINVAL if not regular. */
int modfile_open(const char *path, int *ret_fd, struct stat *ret_st);

/* The analysis of the open file @fd (regular, @st from fstat()), @path for its name. */
int modfile_analyze_fd(int fd, const struct stat *st, const char *path, unsigned int flags,
		       struct modfile_info *ret);
