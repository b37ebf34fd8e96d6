/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cost/catalog.h"
#include "cost/percpu.h"
#include "ledger/ledger.h"
#include "sources/kconfig.h"
#include "sources/moduledir.h"
#include "sources/modindex.h"
#include "sources/sys-module.h"
#include "util/io.h"
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

void kt_system_decompression_text(const struct kt_system *sys, char *buf, size_t size)
{
	const char *files = sys->has_moduledir ? moduledir_compression(&sys->mds) : NULL;

	if (kt_system_in_kernel_decompression(sys))
		snprintf(buf, size, "in-kernel (%s)",
			 sys->has_compression ? sys->compression : files ? files : "?");
	else if (files && strcmp(files, "none") != 0)
		snprintf(buf, size, "userspace (%s files)", files);
	else if (files)
		snprintf(buf, size, "none (.ko files)");
	else
		snprintf(buf, size, "unknown");
}

unsigned int kt_system_count_cpus(const struct kt_system *sys, unsigned int trace_ncpus,
				  const char **ret_from)
{
	_cleanup_free_ char *buf = NULL;
	char path[64];
	unsigned int n;
	size_t len;

	for (n = 0; n < 65536; n++) {
		snprintf(path, sizeof(path), "sys/devices/system/cpu/cpu%u", n);
		if (!root_exists(sys->root, path))
			break;
	}
	if (n) {
		*ret_from = "sys/devices/system/cpu";
		return n;
	}
	if (root_read_file(sys->root, "proc/cpuinfo", 16 << 20, &buf, &len) == 0) {
		for (const char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
			n += strncmp(p, "processor", 9) == 0;
		if (n) {
			*ret_from = "proc/cpuinfo";
			return n;
		}
	}
	if (trace_ncpus) {
		*ret_from = "trace header";
		return trace_ncpus;
	}
	if (sys->live) {
		long v = sysconf(_SC_NPROCESSORS_CONF);

		if (v > 0) {
			*ret_from = "this machine";
			return (unsigned int)v;
		}
	}
	*ret_from = NULL;
	return 0;
}

int kt_system_cpu_modaliases(const struct kt_system *sys, char ***ret, const char **ret_from)
{
	_cleanup_free_ char *buf = NULL;
	char **v = calloc(4, sizeof(char *));
	size_t len, n = 0;

	if (!v)
		return -ENOMEM;
	if (root_read_file(sys->root, "sys/devices/system/cpu/cpu0/modalias", 65536, &buf,
			   &len) == 0 &&
	    len && !memchr(buf, '\0', len)) {
		while (len && buf[len - 1] == '\n')
			buf[--len] = '\0';
		v[n++] = strdup(buf);
		*ret_from = "sys/devices/system/cpu/cpu0/modalias";
	} else {
		/*
		 * x86 has NCAPINTS * 32 feature bits (21 words on 6.12): list them all, and
		 * stay under libkmod's PATH_MAX limit on an alias
		 */
		size_t cap = 64 + 0x2c0 * 5;
		char *s = malloc(cap), *p;

		if (s) {
			p = s + sprintf(s, "cpu:type:x86,ven0000fam0006mod0000:feature:");
			for (unsigned int f = 0; f < 0x2c0; f++)
				p += sprintf(p, ",%04X", f);
			sprintf(p, ",");
		}
		v[n++] = s;
		*ret_from = "any x86 CPU feature";
	}
	v[n++] = strdup("acpi:ACPI0007:");
	v[n++] = strdup("acpi:LNXCPU:");
	for (size_t i = 0; i < n; i++)
		if (!v[i]) {
			modindex_names_free(v);
			return -ENOMEM;
		}
	*ret = v;
	return 0;
}

bool kt_alias_is_percpu(const char *pattern)
{
	return strncmp(pattern, "cpu:type", 8) == 0 || strstr(pattern, "ACPI0007") ||
	       strstr(pattern, "LNXCPU");
}

static int alias_risks(const struct kt_system *sys, const struct ledger *l,
		       unsigned int ncpus, struct percpu_alias_risk *ret, size_t max,
		       size_t *ret_n, const char **ret_alias_from)
{
	char **aliases = NULL;
	size_t n_ret = 0;
	int r;

	r = kt_system_cpu_modaliases(sys, &aliases, ret_alias_from);
	if (r < 0)
		return r;
	for (size_t i = 0; aliases[i]; i++) {
		char **names = NULL;
		size_t n = 0;

		if (modindex_lookup(sys->idx, aliases[i], &names, &n) < 0)
			continue;
		for (size_t k = 0; k < n && n_ret < max; k++) {
			struct catalog_entry *e = catalog_find(sys->cat, names[k]);
			const struct cost_module *m = catalog_cost_module(sys->cat, e);
			struct percpu_alias_risk *p = &ret[n_ret];
			bool dup = false, fails = false;

			for (size_t q = 0; q < n_ret; q++)
				dup = dup || !strcmp(ret[q].name, e ? e->name : names[k]);
			if (!e || !m || dup)
				continue;
			for (size_t a = 0; l && a < l->n_attempts; a++) {
				const struct attempt *at = &l->attempts[a];

				fails = fails || (at->module && !strcmp(at->module, e->name) &&
						  at->outcome == OUTCOME_INIT_FAILED);
			}
			snprintf(p->name, sizeof(p->name), "%s", e->name);
			p->alias = i == 0 ? "cpu" : i == 1 ? "ACPI0007" : "LNXCPU";
			p->fails = fails;
			percpu_risk_estimate(&sys->k, m, ncpus, fails, sys->k.in_kernel_decompress,
					     &p->risk);
			n_ret++;
		}
		modindex_names_free(names);
	}
	modindex_names_free(aliases);
	*ret_n = n_ret;
	return 0;
}

static int module_deps(void *userdata, const char *module, char ***ret_names, size_t *ret_n)
{
	return modindex_deps(userdata, module, ret_names, ret_n);
}

static int names_add(char ***v, size_t *n, const char *name)
{
	char **nv;

	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i], name))
			return 0;
	nv = realloc(*v, sizeof(char *) * (*n + 2));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*n] = strdup(name);
	if (!nv[*n])
		return -ENOMEM;
	nv[++*n] = NULL;
	return 0;
}

/*
 * The modules of the tree with an alias every CPU matches, whatever the CPU: this CPU's
 * modalias may be unknown, and then vendor-specific ones (edac_mce_amd, powernow_k8)
 * would be missed. Into @v (NULL-terminated); a tree without modules.alias adds none.
 */
static int percpu_alias_modules(const struct kt_system *sys, char ***v, size_t *n)
{
	_cleanup_free_ char *path = NULL, *line = NULL;
	size_t cap = 0;
	FILE *f;
	int r = 0;

	if (asprintf(&path, "%s/modules.alias", sys->moduledir) < 0) {
		path = NULL;
		return -ENOMEM;
	}
	/* a FIFO or device in its place must not hang the report */
	if (input_fopen(path, ROOT_TABLE_MAX, &f) < 0)
		return 0;
	/* "alias PATTERN MODULE" */
	while (r >= 0 && getline(&line, &cap, f) > 0) {
		char *pat, *mod, *save = NULL;

		if (strncmp(line, "alias ", 6) != 0)
			continue;
		pat = strtok_r(line + 6, " \t\n", &save);
		mod = strtok_r(NULL, " \t\n", &save);
		if (pat && mod && kt_alias_is_percpu(pat))
			r = names_add(v, n, mod);
	}
	fclose(f);
	return r;
}

int kt_system_percpu_risks(const struct kt_system *sys, const struct ledger *l,
			   const struct cost_result *cost, unsigned int capture_ncpus,
			   unsigned int ncpus, struct kt_percpu_risks *ret)
{
	struct percpu_deps_ops deps = {
		.deps = module_deps, .names_free = modindex_names_free, .userdata = sys->idx,
	};
	char **names = NULL;
	size_t n_names = 0;
	int r = 0;

	ret->n_alias = ret->n_storms = 0;
	ret->storms_wasted_at_n = 0;
	ret->alias_from = NULL;
	if (sys->idx && sys->cat) {
		r = alias_risks(sys, l, ncpus, ret->alias, ret->max_alias, &ret->n_alias,
				&ret->alias_from);
		if (r < 0)
			return r;
		/* the storms' candidates: what a CPU's modaliases resolve to, or could */
		names = calloc(1, sizeof(char *));
		if (!names)
			return -ENOMEM;
		for (size_t i = 0; i < ret->n_alias && r >= 0; i++)
			r = names_add(&names, &n_names, ret->alias[i].name);
		if (r >= 0)
			r = percpu_alias_modules(sys, &names, &n_names);
	}
	if (r >= 0)
		r = percpu_storms_find(l, cost, capture_ncpus, ncpus, (const char *const *)names,
				       sys->idx ? &deps : NULL, ret->storms, ret->max_storms,
				       &ret->n_storms, &ret->storms_wasted_at_n);
	modindex_names_free(names);
	return r;
}
