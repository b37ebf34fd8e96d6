/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/meminfo.h"
#include "sources/tainted.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(x) ((x) ? (void)0 : abort())

/*
 * meminfo_read() needs a root; its loop is the linereader and the parser below. The
 * whole input also goes through tainted_parse(), the other one-value file of proc/.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	struct meminfo mi = { 0 };
	char *copy;
	uint64_t v;
	int r;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *line = malloc(len + 1);	/* exact size: ASan sees any overread */
		struct meminfo before = mi;
		const char *what = NULL;

		if (!line)
			return 0;
		memcpy(line, p, len);
		line[len] = '\0';
		r = meminfo_parse_line(line, len, &mi, &what);
		CHECK(r == 0 || r == 1 || r == -EINVAL);
		if (r < 0)
			CHECK(what);
		/* nothing changes unless a field was set */
		if (r != 1)
			CHECK(before.vmalloc_total == mi.vmalloc_total &&
			      before.vmalloc_used == mi.vmalloc_used &&
			      before.vmalloc_chunk == mi.vmalloc_chunk &&
			      before.mem_total == mi.mem_total &&
			      before.has_vmalloc_total == mi.has_vmalloc_total &&
			      before.has_vmalloc_used == mi.has_vmalloc_used &&
			      before.has_vmalloc_chunk == mi.has_vmalloc_chunk &&
			      before.has_mem_total == mi.has_mem_total);
		free(line);
		p += len + 1;
	}
	CHECK(!mi.has_vmalloc_total || mi.vmalloc_total % 1024 == 0);
	CHECK(!mi.has_vmalloc_used || mi.vmalloc_used % 1024 == 0);

	copy = malloc(size + 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	r = tainted_parse(copy, &v);
	CHECK(r == 0 || r == -EINVAL || r == -ERANGE);
	free(copy);
	return 0;
}
