/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>

#include "fuzz.h"
#include "sources/modsyms.h"

/*
 * record's bundle of module symbols: the line parser, the filter record writes the file
 * with, and the table report reads back (a hostile bundle is any bytes). What the filter
 * keeps parses again to the same symbols, and every lookup lands on one of them.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct modsyms *ms = NULL;
	struct kt_err e = { 0 };
	char *buf = NULL;
	size_t bl = 0, n = 0;
	FILE *in, *out;
	int r;

	in = fmemopen((void *)data, size ? size : 1, "r");
	if (!in)
		return 0;
	if (!size) {
		fclose(in);
		return 0;
	}
	out = open_memstream(&buf, &bl);
	if (!out) {
		fclose(in);
		return 0;
	}
	r = modsyms_filter(in, out, &n);
	fclose(in);
	fclose(out);
	CHECK(r == 0 || r == -ENOMEM || r == -EIO);
	if (r == 0) {
		/* what the filter wrote is a table of exactly those symbols */
		in = fmemopen(buf, bl ? bl : 1, "r");
		if (in && bl) {
			r = modsyms_read_file(in, "filtered", &ms, &e);
			CHECK(r == 0 || r == -ENOMEM);
			CHECK(r < 0 || modsyms_count(ms) == n);
			ms = modsyms_free(ms);
		}
		if (in)
			fclose(in);
	}
	free(buf);

	in = fmemopen((void *)data, size, "r");
	if (!in)
		return 0;
	r = modsyms_read_file(in, "fuzz", &ms, &e);
	fclose(in);
	CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
	if (r == -EINVAL)
		CHECK(e.line > 0);
	if (r == 0) {
		const char *mod = NULL;
		uint64_t probes[] = { 0, 1, UINT64_MAX, 0xffffffffc0545580ull };

		for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
			const char *fn = modsyms_lookup(ms, probes[i], &mod);

			CHECK(!fn || (*fn && mod && *mod));
		}
		/* each line's own address finds a name */
		for (const char *p = (const char *)data, *end = p + size; p < end;) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
			const char *name, *m, *what;
			size_t nlen, mlen;
			uint64_t addr;

			if (modsyms_parse_line(p, len, &addr, &name, &nlen, &m, &mlen, &what) == 1)
				CHECK(modsyms_lookup(ms, addr, NULL) != NULL);
			p += len + 1;
		}
		modsyms_free(ms);
	}
	return 0;
}
