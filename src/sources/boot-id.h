/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>

#include "util/kt-err.h"
#include "util/root.h"

/*
 * proc/sys/kernel/random/boot_id: the UUID the kernel draws at boot ("%pU", lowercase),
 * the same for the whole boot and another at the next. 37 bytes with the NUL.
 */
#define BOOT_ID_LEN 36

/* @s (a trailing newline allowed) as a boot id into @ret; 0 or -EINVAL */
int boot_id_parse(const char *s, size_t len, char ret[BOOT_ID_LEN + 1]);
int boot_id_read(const struct kt_root *root, char ret[BOOT_ID_LEN + 1],
		 struct kt_err *reterr);
