/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "util/kt-err.h"
#include "util/root.h"

/* A kernel .config: boot/config-RELEASE, or proc/config.gz (CONFIG_IKCONFIG_PROC). */
struct kconfig_entry {
	char *name;	/* "CONFIG_MODULES" */
	char *value;	/* "y", "m", "\"sha512\"", or "n" for "# CONFIG_X is not set" */
};

struct kconfig {
	struct kconfig_entry *e;	/* sorted by name */
	size_t n;
	char source[256];		/* root-relative path it was read from */
};

/* 0 (ignored line), 1 (entry set in *ret), -EINVAL. In place; no allocation. */
int kconfig_parse_line(char *line, size_t len, const char **ret_name, const char **ret_value,
		       const char **reterr_what);
int kconfig_parse(const char *text, size_t len, const char *path, struct kconfig **ret,
		  struct kt_err *reterr);
/* Tries boot/config-@release, then proc/config.gz. -ENOENT when neither exists. */
int kconfig_read(const struct kt_root *root, const char *release, struct kconfig **ret,
		 struct kt_err *reterr);
struct kconfig *kconfig_free(struct kconfig *kc);

/* The value, or NULL when the option does not appear at all. Owned by @kc. */
const char *kconfig_get(const struct kconfig *kc, const char *name);
/* "y" or "m" */
bool kconfig_enabled(const struct kconfig *kc, const char *name);
