/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "util/kt-err.h"
#include "util/root.h"

/* The vmalloc lines of proc/meminfo, in bytes (the file says kB). */
struct meminfo {
	bool has_vmalloc_total, has_vmalloc_used, has_vmalloc_chunk, has_mem_total;
	uint64_t vmalloc_total;
	uint64_t vmalloc_used;
	uint64_t vmalloc_chunk;
	uint64_t mem_total;
};

/* 0 (the line was not one we want: ignored), 1 (a field was set), -EINVAL. */
int meminfo_parse_line(char *line, size_t len, struct meminfo *mi, const char **reterr_what);
int meminfo_read(const struct kt_root *root, struct meminfo *ret, struct kt_err *reterr);
