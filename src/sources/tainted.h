/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdint.h>

#include "util/kt-err.h"
#include "util/root.h"

/* proc/sys/kernel/tainted: the taint bit mask. */
int tainted_parse(const char *s, uint64_t *ret);
int tainted_read(const struct kt_root *root, uint64_t *ret, struct kt_err *reterr);
/*
 * The letters of the set bits, in kernel/panic.c taint_flags[] order ("POE"): @buf gets
 * one letter per set bit it knows, '?' for unknown bits. Returns @buf.
 */
char *tainted_letters(uint64_t mask, char *buf, size_t bufsz);
