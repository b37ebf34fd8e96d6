/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "cost/catalog.h"
#include "sources/kconfig.h"
#include "sources/modindex.h"
#include "sources/sys-module.h"
#include "util/macro.h"
#include "util/root.h"
#include "util/version.h"
#include "session/system.h"

/* osrelease as the kernel writes it: one line, a name as uname -r gives it */
static bool osrelease_text(char *buf, size_t len)
{
	while (len && buf[len - 1] && strchr("\n\r \t", buf[len - 1]))
		buf[--len] = '\0';
	return len && !memchr(buf, '\0', len) && kver_release_ok(buf);
}

enum kt_release_from kt_release_resolve(const struct kt_root *root, const char *asked,
					char *buf, size_t size, bool *ret_rejected)
{
	_cleanup_free_ char *text = NULL;
	struct utsname u;
	size_t len;

	*ret_rejected = false;
	if (asked) {
		snprintf(buf, size, "%s", asked);
		return KT_RELEASE_ARG;
	}
	if (root_read_file(root, "proc/sys/kernel/osrelease", 255, &text, &len) == 0) {
		if (osrelease_text(text, len)) {
			snprintf(buf, size, "%s", text);
			return KT_RELEASE_OSRELEASE;
		}
		*ret_rejected = true;
	}
	if (root_is_live_system(root) && uname(&u) == 0) {
		snprintf(buf, size, "%s", u.release);
		return KT_RELEASE_UNAME;
	}
	if (size)
		buf[0] = '\0';
	return KT_RELEASE_NONE;
}

int kt_system_open(const struct kt_system_opts *o, struct kt_system *ret)
{
	struct kt_system *sys = ret;
	const char *release;
	int r;

	memset(sys, 0, sizeof(*sys));
	if (o->no_root) {
		if (o->release) {
			snprintf(sys->release, sizeof(sys->release), "%s", o->release);
			sys->release_from = KT_RELEASE_ARG;
		}
	} else {
		r = root_new(o->root ? o->root : "/", &sys->root);
		if (r < 0)
			return r;
		sys->live = root_is_live_system(sys->root);
		sys->release_from = kt_release_resolve(sys->root, o->release, sys->release,
						       sizeof(sys->release),
						       &sys->release_rejected);
	}
	release = kt_system_release(sys);
	loadpath_from_release(release, &sys->lp);

	if (sys->root)
		sys->kconfig_err = kconfig_read(sys->root, release, &sys->kconfig,
						&sys->kconfig_e);
	else
		sys->kconfig_err = -ENOENT;
	if (sys->kconfig_err < 0)
		sys->kconfig = NULL;
	/* a damaged file is named as the warning names it, not by the pattern */
	snprintf(sys->kconfig_path, sizeof(sys->kconfig_path), "%s",
		 sys->kconfig			? sys->kconfig->source :
		 sys->kconfig_e.path[0]		? sys->kconfig_e.path :
						  "boot/config-RELEASE");

	sys->compression_err = sys->root ? sys_module_compression_read(sys->root,
									sys->compression,
									sizeof(sys->compression),
									&sys->compression_e) :
					   -ENOENT;
	sys->has_compression = sys->compression_err == 0;

	if (o->moduledir) {
		sys->moduledir = strdup(o->moduledir);
		if (!sys->moduledir)
			goto oom;
	} else if (release && sys->root) {
		char rel[300];

		snprintf(rel, sizeof(rel), "lib/modules/%s", release);
		r = root_abspath(sys->root, rel, &sys->moduledir);
		if (r == -ENOMEM)
			goto oom;
		if (r < 0)
			sys->moduledir = NULL;
	}
	if (sys->moduledir) {
		sys->moduledir_err = moduledir_scan(sys->moduledir, &sys->mds);
		sys->has_moduledir = sys->moduledir_err == 0;
	} else {
		sys->moduledir_err = -ENOENT;
	}

	sys->k.lp = sys->lp;
	sys->k.page_size = 4096;
	sys->k.in_kernel_decompress = kt_system_in_kernel_decompression(sys);
	return 0;
oom:
	kt_system_close(sys);
	return -ENOMEM;
}

void kt_system_open_module_tree(struct kt_system *sys, bool use_cache)
{
	if (!sys->has_moduledir || sys->idx || sys->cat)
		return;
	/* libkmod reads modprobe.d from a root: without one, no index */
	sys->index_err = sys->root ? modindex_new(sys->root, sys->moduledir, &sys->idx) :
				     -ENOENT;
	if (sys->index_err < 0)
		sys->idx = NULL;
	if (catalog_new(sys->moduledir, use_cache, NULL, &sys->cat) < 0)
		sys->cat = NULL;
}

void kt_system_close(struct kt_system *sys)
{
	catalog_free(sys->cat);
	modindex_free(sys->idx);
	kconfig_free(sys->kconfig);
	free(sys->moduledir);
	root_free(sys->root);
	memset(sys, 0, sizeof(*sys));
}

const char *kt_system_release_from(const struct kt_system *sys)
{
	switch (sys->release_from) {
	case KT_RELEASE_ARG:
		return "--kernel-release";
	case KT_RELEASE_OSRELEASE:
		return "proc/sys/kernel/osrelease";
	case KT_RELEASE_UNAME:
		return "uname";
	case KT_RELEASE_NONE:
		break;
	}
	return NULL;
}

bool kt_system_in_kernel_decompression(const struct kt_system *sys)
{
	if (sys->has_compression)
		return true;
	if (sys->kconfig)
		return kconfig_enabled(sys->kconfig, "CONFIG_MODULE_DECOMPRESS") &&
		       sys->lp.decompress_capable;
	return sys->lp.decompress_capable;
}
