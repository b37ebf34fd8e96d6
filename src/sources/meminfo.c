/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "util/linereader.h"
#include "util/macro.h"
#include "util/parse-num.h"
#include "meminfo.h"

#define PROC_MEMINFO "proc/meminfo"

static const struct {
	const char *label;
	size_t value, has;
} fields[] = {
	{ "MemTotal:", offsetof(struct meminfo, mem_total), offsetof(struct meminfo, has_mem_total) },
	{ "VmallocTotal:", offsetof(struct meminfo, vmalloc_total),
	  offsetof(struct meminfo, has_vmalloc_total) },
	{ "VmallocUsed:", offsetof(struct meminfo, vmalloc_used),
	  offsetof(struct meminfo, has_vmalloc_used) },
	{ "VmallocChunk:", offsetof(struct meminfo, vmalloc_chunk),
	  offsetof(struct meminfo, has_vmalloc_chunk) },
};

int meminfo_parse_line(char *line, size_t len, struct meminfo *mi, const char **reterr_what)
{
	size_t i, ll;
	char *v, *unit;
	uint64_t n;

	if (memchr(line, '\0', len)) {
		*reterr_what = "line contains a NUL byte";
		return -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(fields); i++) {
		ll = strlen(fields[i].label);
		if (strncmp(line, fields[i].label, ll) == 0)
			break;
	}
	if (i == ARRAY_SIZE(fields))
		return 0;
	v = line + ll;
	unit = strstr(v, " kB");
	if (!unit) {
		*reterr_what = "value has no kB unit";
		return -EINVAL;
	}
	*unit = '\0';
	if (parse_u64(v, 10, &n) < 0) {
		*reterr_what = "value is not a number";
		return -EINVAL;
	}
	if (n > UINT64_MAX / 1024) {
		*reterr_what = "value out of range";
		return -EINVAL;
	}
	*(uint64_t *)((char *)mi + fields[i].value) = n * 1024;
	*(bool *)((char *)mi + fields[i].has) = true;
	return 1;
}

static int read_line(void *userdata, char *line, size_t len, const char **ret_what)
{
	int r = meminfo_parse_line(line, len, userdata, ret_what);

	return r < 0 ? r : 0;
}

int meminfo_read(const struct kt_root *root, struct meminfo *ret, struct kt_err *reterr)
{
	_cleanup_fclose_ FILE *f = NULL;
	struct meminfo mi = {0};
	int r;

	r = root_fopen_max(root, PROC_MEMINFO, ROOT_SMALL_MAX, &f);
	if (r < 0) {
		kt_err_set(reterr, PROC_MEMINFO, 0, NULL);
		return r;
	}
	r = linereader_each(f, PROC_MEMINFO, 0, read_line, &mi, reterr);
	if (r < 0)
		return r;
	*ret = mi;
	return 0;
}
