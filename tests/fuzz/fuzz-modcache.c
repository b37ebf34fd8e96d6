/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The module file cache's packs (src/cost/modfile.c): a pack in the cache directory is
 * only as trustworthy as the directory, and a crash or a lie there would be believed
 * by every later scan. The input is a pack, read as the pack of the directory it names
 * itself (so that real packs get past the directory check), once as it is and once
 * with its CRC made right (so that mutations get past the checksum). Whatever reads
 * back must encode to a pack that reads back and encodes to the same bytes: the
 * records survive a write-back unchanged. Seed with packs a real scan wrote.
 */
#include <errno.h>
#include <lzma.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost/modfile.h"
#include "fuzz.h"

/* magic, version, record count, directory length, then the directory */
#define HEAD 20

static void check_pack(const uint8_t *data, size_t size, const char *dir)
{
	uint8_t *out = NULL, *again = NULL;
	size_t n_out = 0, n_again = 0;
	int r = modfile_cache_pack_recode(data, size, dir, &out, &n_out);

	CHECK(r == 0 || r == 1 || r == -ENOMEM);
	if (r != 1) {
		CHECK(!out && n_out == 0);
		return;
	}
	/* only the reserved field is not kept, so the size is the same */
	CHECK(n_out == size);
	r = modfile_cache_pack_recode(out, n_out, dir, &again, &n_again);
	CHECK(r == 1 || r == -ENOMEM);
	if (r == 1)
		CHECK(n_again == n_out && memcmp(again, out, n_out) == 0);
	free(again);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t dl = 0, crc;
	char *dir, *fixed;

	if (size >= HEAD)
		for (int i = 0; i < 4; i++)
			dl |= (uint32_t)data[16 + i] << (8 * i);
	/* the directory the pack names, or a fixed one when it names none */
	if (size >= HEAD && dl > 0 && dl <= size - HEAD && !memchr(data + HEAD, '\0', dl))
		dir = fuzz_dup(data + HEAD, dl);
	else
		dir = fuzz_dup("/lib/modules/6.12.0/kernel", 26);
	if (!dir)
		return 0;
	check_pack(data, size, dir);
	if (size >= 4) {
		fixed = fuzz_dup(data, size);
		if (fixed) {
			crc = lzma_crc32((const uint8_t *)fixed, size - 4, 0);
			for (int i = 0; i < 4; i++)
				fixed[size - 4 + i] = (char)(crc >> (8 * i));
			check_pack((const uint8_t *)fixed, size, dir);
			free(fixed);
		}
	}
	free(dir);
	return 0;
}
