/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/modstats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(x) ((x) ? (void)0 : abort())

static unsigned int count_lines(const char *s, size_t len)
{
	unsigned int n = 0;

	for (size_t i = 0; i < len; i++)
		n += s[i] == '\n';
	return n + (len && s[len - 1] != '\n');
}

/* libFuzzer's buffer has exactly @size bytes and no terminator: ASan sees overreads. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct modstats *ms = NULL;
	struct kt_err e = { 0 };
	int r;

	r = modstats_parse((const char *)data, size, "sys/kernel/debug/modules/stats", &ms, &e);
	CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
	if (r < 0) {
		CHECK(!ms);
		if (r == -EINVAL) {
			CHECK(e.what && strcmp(e.path, "sys/kernel/debug/modules/stats") == 0);
			CHECK(e.line >= 1 && e.line <= (count_lines((const char *)data, size) ?: 1));
		}
		return 0;
	}
	CHECK(ms->has[MODSTAT_MODS_LOADED] || ms->n_extra > 0);
	for (size_t i = 0; i < ms->n_dups; i++)
		CHECK(ms->dups[i].name && ms->dups[i].name[0] && ms->dups[i].reason);
	for (size_t i = 0; i < ms->n_extra; i++)
		CHECK(ms->extra[i].label && ms->extra[i].label[0]);
	for (int c = 0; c < _MODSTAT_MAX; c++)
		CHECK(ms->has[c] || ms->v[c] == 0);
	modstats_free(ms);
	return 0;
}
