/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>

/* The numeric head of a kernel release: "6.12.118+deb12-amd64" -> 6, 12, 118. */
struct kver {
	unsigned int major, minor, patch;
};

/* 0, or -EINVAL when @release does not start with MAJOR.MINOR. */
int kver_parse(const char *release, struct kver *ret);
/*
 * A release as uname -r gives one: 1 to 64 letters, digits and "._-+~". It names a
 * directory (lib/modules/RELEASE) and lands in shell text (the grub drop-in, the
 * print-setup script), so no '/', space, newline or shell syntax.
 */
bool kver_release_ok(const char *release);
/* <0, 0, >0 like strcmp, comparing major.minor only. */
int kver_cmp_mm(const struct kver *v, unsigned int major, unsigned int minor);
