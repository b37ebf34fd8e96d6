/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/macro.h"
#include "util/parse-num.h"
#include "modstats.h"

#define MODSTATS_PATH "sys/kernel/debug/modules/stats"

/*
 * Every spelling the kernel has printed: the merged code (6.4+, read_file_mod_stats())
 * first, then the labels of the 20230328-module-alloc-opts branch it grew from.
 */
static const struct {
	const char *key;
	const char *labels[3];
} counters[_MODSTAT_MAX] = {
	[MODSTAT_MODS_LOADED] = { "mods_loaded", { "Mods ever loaded", "Modules loaded" } },
	[MODSTAT_FAILED_KREAD] = { "failed_kread", { "Mods failed on kread" } },
	[MODSTAT_FAILED_DECOMPRESS] = { "failed_decompress", { "Mods failed on decompress" } },
	[MODSTAT_FAILED_BECOMING] = { "failed_becoming", { "Mods failed on becoming" } },
	[MODSTAT_FAILED_LOAD] = { "failed_load", { "Mods failed on load" } },
	[MODSTAT_TOTAL_SIZE] = { "total_size", { "Total module size" } },
	[MODSTAT_TEXT_SIZE] = { "total_text_size", { "Total mod text size" } },
	[MODSTAT_FAILED_KREAD_BYTES] = { "failed_kread_bytes", { "Failed kread bytes" } },
	[MODSTAT_FAILED_DECOMPRESS_BYTES] = { "failed_decompress_bytes",
					      { "Failed decompress bytes" } },
	[MODSTAT_FAILED_BECOMING_BYTES] = { "failed_becoming_bytes", { "Failed becoming bytes" } },
	[MODSTAT_FAILED_KMOD_BYTES] = { "failed_kmod_bytes", { "Failed kmod bytes" } },
	[MODSTAT_WASTED_BYTES] = { "virtual_mem_wasted_bytes", { "Virtual mem wasted bytes" } },
	[MODSTAT_AVG_SIZE] = { "average_mod_size", { "Average mod size" } },
	[MODSTAT_AVG_TEXT_SIZE] = { "average_mod_text_size", { "Average mod text size" } },
	[MODSTAT_AVG_FAIL_KREAD_BYTES] = { "avg_fail_kread_bytes", { "Avg fail kread bytes" } },
	[MODSTAT_AVG_FAIL_BECOMING_BYTES] = { "avg_fail_becoming_bytes",
					      { "Avg fail becoming bytes" } },
	[MODSTAT_AVG_FAIL_DECOMPRESS_BYTES] = { "avg_fail_decomp_bytes",
						{ "Avg fail decomp bytes" } },
	[MODSTAT_AVG_FAIL_LOAD_BYTES] = { "average_fail_load_bytes",
					  { "Average fail load bytes" } },
};

static const char *const dup_headers[] = { "Duplicate failed modules:", "Failed modules:" };

const char *modstat_key(enum modstat_counter c)
{
	return c < _MODSTAT_MAX ? counters[c].key : NULL;
}

const char *modstat_label(enum modstat_counter c)
{
	return c < _MODSTAT_MAX ? counters[c].labels[0] : NULL;
}

struct modstats *modstats_free(struct modstats *ms)
{
	size_t i;

	if (!ms)
		return NULL;
	for (i = 0; i < ms->n_dups; i++) {
		free(ms->dups[i].name);
		free(ms->dups[i].reason);
	}
	for (i = 0; i < ms->n_extra; i++)
		free(ms->extra[i].label);
	free(ms->dups);
	free(ms->extra);
	free(ms);
	return NULL;
}

DEFINE_FREEP(struct modstats, modstats_free)

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

static int add_dup(struct modstats *ms, char *line, const char **what)
{
	char *f[3], *save = NULL, *t;
	struct modstats_dup *nd;
	uint64_t count;
	int n = 0;

	/* "%25s\t%15lu\t%25s": the reason may contain spaces ("Becoming & Load") */
	for (t = strtok_r(line, "\t", &save); t && n < 3; t = strtok_r(NULL, "\t", &save))
		f[n++] = trim(t);
	if (n < 3) {
		*what = "duplicate entry has fewer than 3 tab-separated fields";
		return -EINVAL;
	}
	if (!f[0][0] || parse_u64(f[1], 10, &count) < 0) {
		*what = "duplicate entry count is not a number";
		return -EINVAL;
	}
	nd = realloc(ms->dups, (ms->n_dups + 1) * sizeof(*nd));
	if (!nd)
		return -ENOMEM;
	ms->dups = nd;
	nd[ms->n_dups].name = strdup(f[0]);
	nd[ms->n_dups].reason = strdup(f[2]);
	nd[ms->n_dups].count = count;
	ms->n_dups++;
	if (!nd[ms->n_dups - 1].name || !nd[ms->n_dups - 1].reason)
		return -ENOMEM;
	return 0;
}

static int add_counter(struct modstats *ms, char *line, const char **what)
{
	char *tab = strchr(line, '\t'), *label, *value;
	struct modstats_extra *ne;
	uint64_t v;
	size_t c, l;

	if (!tab) {
		*what = "counter line has no tab";
		return -EINVAL;
	}
	*tab = '\0';
	label = trim(line);
	value = trim(tab + 1);
	if (!label[0]) {
		*what = "counter has no label";
		return -EINVAL;
	}
	if (parse_u64(value, 10, &v) < 0) {
		*what = "counter value is not a number";
		return -EINVAL;
	}
	for (c = 0; c < _MODSTAT_MAX; c++)
		for (l = 0; l < ARRAY_SIZE(counters[c].labels) && counters[c].labels[l]; l++)
			if (strcmp(label, counters[c].labels[l]) == 0) {
				ms->v[c] = v;
				ms->has[c] = true;
				return 0;
			}
	ne = realloc(ms->extra, (ms->n_extra + 1) * sizeof(*ne));
	if (!ne)
		return -ENOMEM;
	ms->extra = ne;
	ne[ms->n_extra].label = strdup(label);
	ne[ms->n_extra].value = v;
	if (!ne[ms->n_extra].label)
		return -ENOMEM;
	ms->n_extra++;
	return 0;
}

int modstats_parse(const char *text, size_t len, const char *path, struct modstats **ret,
		   struct kt_err *reterr)
{
	_cleanup_(modstats_freep) struct modstats *ms = NULL;
	_cleanup_free_ char *copy = NULL;
	bool in_dups = false, saw_header = false;
	unsigned int lineno = 0;
	char *p, *nl;
	int r;

	if (memchr(text, '\0', len)) {
		const char *z = memchr(text, '\0', len);
		unsigned int ln = 1;

		for (const char *q = text; q < z; q++)
			ln += *q == '\n';
		kt_err_set(reterr, path, ln, "line contains a NUL byte");
		return -EINVAL;
	}
	ms = calloc(1, sizeof(*ms));
	copy = strndup(text, len);
	if (!ms || !copy)
		return -ENOMEM;
	for (p = copy; p && *p; p = nl) {
		const char *what = NULL;
		char *line = p, *t;
		size_t i;

		nl = strchr(p, '\n');
		if (nl)
			*nl++ = '\0';
		lineno++;
		t = trim(line);
		if (!t[0])
			continue;
		for (i = 0; i < ARRAY_SIZE(dup_headers); i++)
			if (strcmp(t, dup_headers[i]) == 0)
				break;
		if (i < ARRAY_SIZE(dup_headers)) {
			in_dups = true;
			continue;
		}
		if (in_dups && !saw_header && strncasecmp(t, "Module-name", 11) == 0) {
			saw_header = true;
			continue;
		}
		r = in_dups ? add_dup(ms, line, &what) : add_counter(ms, line, &what);
		if (r == -EINVAL) {
			kt_err_set(reterr, path, lineno, what);
			return r;
		}
		if (r < 0)
			return r;
	}
	if (!ms->has[MODSTAT_MODS_LOADED] && ms->n_extra == 0) {
		kt_err_set(reterr, path, lineno ? lineno : 1, "no module statistics counters found");
		return -EINVAL;
	}
	*ret = ms;
	ms = NULL;
	return 0;
}

int modstats_read(const struct kt_root *root, struct modstats **ret, struct kt_err *reterr)
{
	_cleanup_free_ char *data = NULL;
	size_t len;
	int r;

	/* The kernel rebuilds the report on every read(): one read of the whole file */
	r = root_read_file(root, MODSTATS_PATH, 1 << 20, &data, &len);
	if (r == -EFBIG) {
		kt_err_set(reterr, MODSTATS_PATH, 0, "file larger than 1 MiB");
		return -EINVAL;
	}
	if (r < 0) {
		kt_err_set(reterr, MODSTATS_PATH, 0, NULL);
		return r;
	}
	return modstats_parse(data, len, MODSTATS_PATH, ret, reterr);
}
