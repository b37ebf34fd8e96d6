/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/hindex.h"
#include "util/linereader.h"
#include "util/macro.h"
#include "util/parse-num.h"
#include "proc-modules.h"

#define PROC_MODULES "proc/modules"

const char *module_state_name(enum module_state s)
{
	switch (s) {
	case MODULE_LIVE:
		return "Live";
	case MODULE_LOADING:
		return "Loading";
	case MODULE_UNLOADING:
		return "Unloading";
	}
	return "?";
}

void proc_module_done(struct proc_module *m)
{
	size_t i;

	if (!m)
		return;
	free(m->name);
	for (i = 0; i < m->n_holders; i++)
		free(m->holders[i]);
	free(m->holders);
	memset(m, 0, sizeof(*m));
}

static bool valid_module_name(const char *s)
{
	/* The kernel allows any bytes but '/' (and '\0') before MODULE_NAME_LEN; keep what it keeps */
	return s[0] && strlen(s) < 64 && !strchr(s, '/');
}

static int parse_holders(char *tok, struct proc_module *m, const char **reterr_what)
{
	char *save = NULL, *h;
	size_t n = 0;

	/* "-" (none), "dep1,dep2," or "[permanent]," (print_unload_info()) */
	if (strcmp(tok, "-") == 0)
		return 0;
	for (char *p = tok; *p; p++)
		if (*p == ',')
			n++;
	m->holders = calloc(n + 2, sizeof(char *));
	if (!m->holders)
		return -ENOMEM;
	for (h = strtok_r(tok, ",", &save); h; h = strtok_r(NULL, ",", &save)) {
		if (strcmp(h, "[permanent]") == 0) {
			m->permanent = true;
			continue;
		}
		if (!valid_module_name(h)) {
			*reterr_what = "holder is not a module name";
			return -EINVAL;
		}
		m->holders[m->n_holders] = strdup(h);
		if (!m->holders[m->n_holders])
			return -ENOMEM;
		m->n_holders++;
	}
	return 0;
}

int proc_modules_parse_line(char *line, size_t len, struct proc_module *ret_mod,
			    const char **reterr_what)
{
	struct proc_module m = {0};
	char *tok[7] = {0};
	char *save = NULL, *t;
	size_t n = 0;
	uint64_t v;
	int r;

	if (memchr(line, '\0', len)) {
		*reterr_what = "line contains a NUL byte";
		return -EINVAL;
	}
	for (t = strtok_r(line, " \t", &save); t && n < ARRAY_SIZE(tok);
	     t = strtok_r(NULL, " \t", &save))
		tok[n++] = t;
	if (n == 0) {
		*reterr_what = "empty line";
		return -EINVAL;
	}
	if (n < 5) {
		*reterr_what = n < 2 ? "missing size" : n < 3 ? "missing refcount"
			     : n < 4 ? "missing holders" : "missing state";
		return -EINVAL;
	}
	if (!valid_module_name(tok[0])) {
		*reterr_what = "invalid module name";
		return -EINVAL;
	}
	if (parse_u64(tok[1], 10, &m.size) < 0) {
		*reterr_what = "size is not a number";
		return -EINVAL;
	}
	if (strcmp(tok[2], "-") == 0) {
		m.refcount = -1;
	} else if (parse_int(tok[2], &m.refcount) < 0) {
		*reterr_what = "refcount is not a number";
		return -EINVAL;
	}
	if (strcmp(tok[4], "Live") == 0)
		m.state = MODULE_LIVE;
	else if (strcmp(tok[4], "Loading") == 0)
		m.state = MODULE_LOADING;
	else if (strcmp(tok[4], "Unloading") == 0)
		m.state = MODULE_UNLOADING;
	else {
		*reterr_what = "unknown module state";
		return -EINVAL;
	}
	/*
	 * The kernel prints refcnt - MODULE_REF_BASE: delete_module() drops the base
	 * reference before the module's exit runs, so a module being removed shows -1
	 * ("xfs ... -1 - Unloading" in the 6.1 guest during rmmod). No user holds it.
	 * Below that, or -1 in another state, no kernel counts.
	 */
	if (strcmp(tok[2], "-") != 0 && m.refcount == -1 && m.state == MODULE_UNLOADING) {
		m.refcount = 0;
	} else if (strcmp(tok[2], "-") != 0 && m.refcount < 0) {
		*reterr_what = "refcount is negative";
		return -EINVAL;
	}
	if (n >= 6) {
		if (parse_u64(tok[5], 16, &v) < 0) {
			*reterr_what = "address is not a hex number";
			return -EINVAL;
		}
		m.address = v;
	}
	if (n >= 7) {
		size_t tl = strlen(tok[6]);

		if (tl < 2 || tok[6][0] != '(' || tok[6][tl - 1] != ')' ||
		    tl - 2 >= sizeof(m.taint)) {
			*reterr_what = "malformed taint flags";
			return -EINVAL;
		}
		memcpy(m.taint, tok[6] + 1, tl - 2);
		m.taint[tl - 2] = '\0';
	}
	m.name = strdup(tok[0]);
	if (!m.name)
		return -ENOMEM;
	r = parse_holders(tok[3], &m, reterr_what);
	if (r < 0) {
		proc_module_done(&m);
		return r;
	}
	*ret_mod = m;
	return 0;
}

struct proc_modules *proc_modules_free(struct proc_modules *list)
{
	size_t i;

	if (!list)
		return NULL;
	for (i = 0; i < list->n; i++)
		proc_module_done(&list->mods[i]);
	free(list->mods);
	hindex_free(list->by_name);
	free(list);
	return NULL;
}

DEFINE_FREEP(struct proc_modules, proc_modules_free)

struct read_ctx {
	struct proc_modules *list;
	size_t cap, nonzero;
};

static int read_line(void *userdata, char *line, size_t len, const char **ret_what)
{
	struct read_ctx *c = userdata;
	struct proc_modules *list = c->list;
	int r;

	if (list->n == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 64;
		struct proc_module *nm = realloc(list->mods, ncap * sizeof(*nm));

		if (!nm)
			return -ENOMEM;
		list->mods = nm;
		c->cap = ncap;
	}
	r = proc_modules_parse_line(line, len, &list->mods[list->n], ret_what);
	if (r < 0)
		return r;
	list->n++;
	return 0;
}

static bool name_is(size_t pos, const void *key, const void *userdata)
{
	const struct proc_modules *list = userdata;

	return strcmp(list->mods[pos].name, key) == 0;
}

/*
 * 10^6 modules are looked up by name once per attempt: not a scan each. The kernel
 * lists a name once: a repeated line (a copy pasted twice) is dropped, not counted
 * again, and the first one's line kept for a warning.
 */
static int index_names(struct proc_modules *list)
{
	int r = hindex_new(&list->by_name);
	size_t i, k = 0;

	for (i = 0; r >= 0 && i < list->n; i++) {
		uint64_t h = hash_str(HASH_INIT, list->mods[i].name);

		if (hindex_find(list->by_name, h, name_is, list->mods[i].name, list) !=
		    HINDEX_NONE) {
			/* each line is one module: line i + 1 */
			if (!list->n_repeated++)
				list->repeated_line = (unsigned int)(i + 1);
			proc_module_done(&list->mods[i]);
			continue;
		}
		if (k != i)
			list->mods[k] = list->mods[i];
		r = hindex_add(list->by_name, h, k++);
	}
	/* on failure, the entries not reached yet are freed here, the kept ones by the list's */
	for (; i < list->n; i++)
		proc_module_done(&list->mods[i]);
	list->n = k;
	return r;
}

int proc_modules_read_file(FILE *f, const char *path, struct proc_modules **ret_list,
			   struct kt_err *reterr)
{
	_cleanup_(proc_modules_freep) struct proc_modules *list = NULL;
	struct read_ctx c = {0};
	int r;

	list = calloc(1, sizeof(*list));
	if (!list)
		return -ENOMEM;
	c.list = list;
	r = linereader_each(f, path, 0, read_line, &c, reterr);
	if (r < 0)
		return r;
	r = index_names(list);
	if (r < 0)
		return r;
	/* of the modules kept: a repeated line's address is not one more module's */
	c.nonzero = 0;
	for (size_t i = 0; i < list->n; i++)
		c.nonzero += list->mods[i].address != 0;
	list->addresses_hidden = list->n > 0 && c.nonzero == 0;
	*ret_list = list;
	list = NULL;
	return 0;
}

int proc_modules_read(const struct kt_root *root, struct proc_modules **ret_list,
		      struct kt_err *reterr)
{
	_cleanup_fclose_ FILE *f = NULL;
	int r;

	r = root_fopen_max(root, PROC_MODULES, ROOT_TABLE_MAX, &f);
	if (r < 0) {
		kt_err_set(reterr, PROC_MODULES, 0, NULL);
		return r;
	}
	return proc_modules_read_file(f, PROC_MODULES, ret_list, reterr);
}

const struct proc_module *proc_modules_find(const struct proc_modules *list, const char *name)
{
	size_t pos;

	if (!list)
		return NULL;
	if (!list->by_name) {
		/* a list not made by the reader */
		for (size_t i = 0; i < list->n; i++)
			if (strcmp(list->mods[i].name, name) == 0)
				return &list->mods[i];
		return NULL;
	}
	pos = hindex_find(list->by_name, hash_str(HASH_INIT, name), name_is, name, list);
	return pos == HINDEX_NONE ? NULL : &list->mods[pos];
}
