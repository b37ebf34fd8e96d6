/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "util/kt-err.h"
#include "util/root.h"

/* sys/kernel/debug/modules/stats (CONFIG_MODULE_STATS, kernel/module/stats.c, 6.4+) */
enum modstat_counter {
	MODSTAT_MODS_LOADED,
	MODSTAT_FAILED_KREAD,
	MODSTAT_FAILED_DECOMPRESS,
	MODSTAT_FAILED_BECOMING,
	MODSTAT_FAILED_LOAD,
	MODSTAT_TOTAL_SIZE,
	MODSTAT_TEXT_SIZE,
	MODSTAT_FAILED_KREAD_BYTES,
	MODSTAT_FAILED_DECOMPRESS_BYTES,
	MODSTAT_FAILED_BECOMING_BYTES,
	MODSTAT_FAILED_KMOD_BYTES,
	MODSTAT_WASTED_BYTES,
	MODSTAT_AVG_SIZE,
	MODSTAT_AVG_TEXT_SIZE,
	MODSTAT_AVG_FAIL_KREAD_BYTES,
	MODSTAT_AVG_FAIL_BECOMING_BYTES,
	MODSTAT_AVG_FAIL_DECOMPRESS_BYTES,
	MODSTAT_AVG_FAIL_LOAD_BYTES,
	_MODSTAT_MAX,
};

struct modstats_dup {
	char *name;
	uint64_t count;
	char *reason;		/* "Becoming", "Load", "Becoming & Load", "Bug-on-stats" */
};

struct modstats_extra {
	char *label;		/* a counter this parser does not know: kept, not dropped */
	uint64_t value;
};

struct modstats {
	bool has[_MODSTAT_MAX];
	uint64_t v[_MODSTAT_MAX];
	struct modstats_dup *dups;
	size_t n_dups;
	struct modstats_extra *extra;
	size_t n_extra;
};

/* JSON key and text label (the current kernel spelling) of a counter. */
const char *modstat_key(enum modstat_counter c);
const char *modstat_label(enum modstat_counter c);

/* Parses the whole file's text. 0, -EINVAL (*reterr with line), -ENOMEM. */
int modstats_parse(const char *text, size_t len, const char *path, struct modstats **ret,
		   struct kt_err *reterr);
/* -ENOENT when the kernel lacks CONFIG_MODULE_STATS (or debugfs is not there). */
int modstats_read(const struct kt_root *root, struct modstats **ret, struct kt_err *reterr);
struct modstats *modstats_free(struct modstats *ms);
