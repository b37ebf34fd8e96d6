/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/kconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(x) ((x) ? (void)0 : abort())

static unsigned int count_lines(const char *s, size_t len)
{
	unsigned int n = 0;

	for (size_t i = 0; i < len; i++)
		n += s[i] == '\n';
	return n + (len && s[len - 1] != '\n');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	struct kconfig *kc = NULL;
	struct kt_err e = { 0 };
	int r;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *line = malloc(len + 1);	/* exact size: ASan sees any overread */
		const char *name = NULL, *value = NULL, *what = NULL;

		if (!line)
			return 0;
		memcpy(line, p, len);
		line[len] = '\0';
		r = kconfig_parse_line(line, len, &name, &value, &what);
		CHECK(r == 0 || r == 1 || r == -EINVAL);
		if (r == 1) {
			/* both point into @line; "# CONFIG_X is not set" gives a static "n" */
			CHECK(name >= line && name < line + len + 1);
			CHECK(strcmp(value, "n") == 0 || (value >= line && value <= line + len + 1));
			CHECK(strncmp(name, "CONFIG_", 7) == 0 && strlen(name) > 7);
		} else if (r < 0) {
			CHECK(what);
		}
		free(line);
		p += len + 1;
	}

	r = kconfig_parse((const char *)data, size, "boot/config-fuzz", &kc, &e);
	CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
	if (r < 0) {
		CHECK(!kc);
		if (r == -EINVAL)
			CHECK(e.what && e.line >= 1 && e.line <= count_lines((const char *)data, size));
		return 0;
	}
	CHECK(strcmp(kc->source, "boot/config-fuzz") == 0);
	for (size_t i = 0; i < kc->n; i++) {
		CHECK(i == 0 || strcmp(kc->e[i - 1].name, kc->e[i].name) <= 0);
		/* bsearch finds every name (a duplicate may give its namesake's value) */
		CHECK(kconfig_get(kc, kc->e[i].name));
	}
	kconfig_free(kc);
	return 0;
}
