/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "util/root.h"

/*
 * Module lookups through libkmod, aimed at the root's module tree and modprobe.d:
 * aliases to modules, module to file and dependencies. libkmod can be aimed for this
 * (kmod_new(dirname, config_paths)); it cannot for loaded-module state, which is why
 * proc-modules.c and sys-module.c parse those themselves.
 */
struct modindex;

/*
 * @moduledir: absolute path of lib/modules/RELEASE. Config is read under @root only.
 * -EBADMSG: the binary indexes of a root other than this machine's are damaged (libkmod
 * would crash on them); callers then go without aliases and dependencies.
 */
int modindex_new(const struct kt_root *root, const char *moduledir, struct modindex **ret);
struct modindex *modindex_free(struct modindex *idx);
/*
 * What libkmod said while it read the root's modprobe.d (bad lines, one message a
 * line, raw as the files hold them: escape before showing), at most 4 KiB of it, and
 * in *ret_lines how many lines it said in all; NULL and 0 when it said nothing.
 */
const char *modindex_config_log(const struct modindex *idx, size_t *ret_lines);

/*
 * Modules an alias (or a module name) resolves to, as modprobe would: 0 with
 * *ret_names (NULL-terminated, caller frees with modindex_names_free) and *ret_n,
 * which may be 0 (resolves to no module). Builtin modules are marked "name (builtin)".
 */
int modindex_lookup(struct modindex *idx, const char *alias, char ***ret_names, size_t *ret_n);
/* Dependencies modprobe loads first: modules.dep, then softdep "pre:". Same ownership. */
int modindex_deps(struct modindex *idx, const char *name, char ***ret_names, size_t *ret_n);
/* The module's file, or -ENOENT. Caller frees. */
int modindex_path(struct modindex *idx, const char *name, char **ret_path);
void modindex_names_free(char **names);

/*
 * The .modinfo of module @name's file, as modinfo(8) shows it (libkmod reads and
 * decompresses the file: the caller bounds what it may cost first), plus the signer:
 * @fn is called per key and value (raw bytes from the file: escape before showing) and
 * may stop the walk with a negative value, which is returned. 0, -ENOENT (no file),
 * -EINVAL when the file is not a regular file, or -errno.
 */
int modindex_modinfo(struct modindex *idx, const char *name,
		     int (*fn)(void *userdata, const char *key, const char *value),
		     void *userdata);
