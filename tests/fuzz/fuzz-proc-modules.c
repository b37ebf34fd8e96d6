/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/proc-modules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken promise of the API is a finding too: crash so libFuzzer keeps the input. */
#define CHECK(x) ((x) ? (void)0 : abort())

static unsigned int count_lines(const char *s, size_t len)
{
	unsigned int n = 0;

	for (size_t i = 0; i < len; i++)
		n += s[i] == '\n';
	return n + (len && s[len - 1] != '\n');
}

static void check_module(const struct proc_module *m)
{
	CHECK(m->name && m->name[0]);
	CHECK(memchr(m->taint, '\0', sizeof(m->taint)));
	CHECK(m->n_holders == 0 || m->holders);
	for (size_t i = 0; i < m->n_holders; i++)
		CHECK(m->holders[i] && m->holders[i][0]);
	CHECK(!m->holders || !m->holders[m->n_holders]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	struct proc_modules *list = NULL;
	struct kt_err e = { 0 };
	FILE *f;
	int r;

	/* every line through the pure parser, also the ones after a bad line */
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *line = malloc(len + 1);	/* exact size: ASan sees any overread */
		const char *what = NULL;
		struct proc_module m;

		if (!line)
			return 0;
		memcpy(line, p, len);
		line[len] = '\0';
		r = proc_modules_parse_line(line, len, &m, &what);
		CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
		if (r == 0) {
			check_module(&m);
			proc_module_done(&m);
		} else if (r == -EINVAL) {
			CHECK(what);
		}
		free(line);
		p += len + 1;
	}

	if (size == 0)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	r = proc_modules_read_file(f, "proc/modules", &list, &e);
	fclose(f);
	if (r == 0) {
		size_t nonzero = 0;

		CHECK(list && list->n <= count_lines((const char *)data, size));
		for (size_t i = 0; i < list->n; i++) {
			check_module(&list->mods[i]);
			nonzero += list->mods[i].address != 0;
			CHECK(proc_modules_find(list, list->mods[i].name));
		}
		CHECK(list->addresses_hidden == (list->n > 0 && nonzero == 0));
		proc_modules_free(list);
	} else {
		CHECK(!list);
		if (r == -EINVAL) {
			CHECK(e.what && strcmp(e.path, "proc/modules") == 0);
			CHECK(e.line >= 1 && e.line <= count_lines((const char *)data, size));
		}
	}
	return 0;
}
