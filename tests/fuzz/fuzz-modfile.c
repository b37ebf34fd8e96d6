/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Module files from an untrusted tree: the input is a whole file (.ko, .ko.xz, .ko.zst,
 * .ko.gz, sniffed by magic) through both analysis depths, and the same bytes as an ELF
 * image straight into the layout. Seed with small real modules, plain and compressed.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost/modfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken promise of the API is a finding too: crash so libFuzzer keeps the input. */
#define CHECK(x) ((x) ? (void)0 : abort())

/* Bounds decompression bombs to what a run can afford (a real module is < 64 MiB). */
#define FUZZ_MAX_IMAGE (16u << 20)

static void check_layout(const struct modfile_layout *l)
{
	uint64_t core = 0, init = 0;

	for (int t = 0; t < _MEMT_MAX; t++) {
		CHECK(l->mem[t] % 4096 == 0);
		if (t == MEMT_INIT_TEXT || t == MEMT_INIT_DATA || t == MEMT_INIT_RODATA)
			init += l->mem[t];
		else
			core += l->mem[t];
	}
	CHECK(l->core_size % 4096 == 0 && l->init_size % 4096 == 0);
	/* unsigned int sums in the kernel: compare modulo 2^32 */
	CHECK(l->sysfs_coresize_64 == (uint32_t)core);
	CHECK(l->sysfs_initsize_64 == (uint32_t)init);
	CHECK(l->sysfs_coresize_pre64 == l->core_size);
	CHECK(l->sysfs_initsize_pre64 == l->init_size);
}

static void check_info(const struct modfile_info *mi, size_t size, unsigned int flags)
{
	CHECK(mi->file_size == size);
	CHECK(mi->comp <= MODFILE_GZIP);
	CHECK(mi->decompressed_size <= FUZZ_MAX_IMAGE || mi->comp == MODFILE_PLAIN);
	CHECK(mi->comp == MODFILE_PLAIN ? mi->decompressed_size == size : true);
	CHECK(mi->comp == MODFILE_XZ || mi->xz_dict_size == 0);
	CHECK(mi->comp == MODFILE_ZSTD || mi->zstd_window_size == 0);
	CHECK(memchr(mi->name, '\0', sizeof(mi->name)));
	if (!(flags & MODFILE_LAYOUT)) {
		CHECK(!mi->has_layout && mi->layout_err == 0);
		return;
	}
	CHECK(mi->has_layout ? mi->layout_err == 0 : mi->layout_err == -ENOEXEC);
	if (mi->has_layout)
		check_layout(&mi->layout);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct modfile_info sizes, full;
	struct modfile_layout l;
	char name[64];
	enum modfile_name_source src;
	int rs, rf, r;

	rs = modfile_analyze_buffer(data, size, MODFILE_SIZES, FUZZ_MAX_IMAGE, &sizes);
	CHECK(rs == 0 || rs == -EBADMSG || rs == -EFBIG || rs == -ENOMEM);
	if (rs == 0)
		check_info(&sizes, size, MODFILE_SIZES);

	rf = modfile_analyze_buffer(data, size, MODFILE_LAYOUT, FUZZ_MAX_IMAGE, &full);
	CHECK(rf == 0 || rf == -EBADMSG || rf == -EFBIG || rf == -ENOMEM);
	if (rf == 0) {
		check_info(&full, size, MODFILE_LAYOUT);
		/* decoding succeeded, so the cheap path read the same sizes */
		CHECK(rs == 0);
		CHECK(sizes.decompressed_size == full.decompressed_size);
		CHECK(sizes.xz_dict_size == full.xz_dict_size);
	}

	r = modfile_layout_elf(data, size, &l, name, &src);
	CHECK(r == 0 || r == -ENOEXEC || r == -ENOMEM);
	if (r == 0) {
		check_layout(&l);
		CHECK(memchr(name, '\0', sizeof(name)));
		/* a plain image is laid out the same through either door */
		CHECK(rf == 0 && full.comp == MODFILE_PLAIN && full.has_layout);
		CHECK(memcmp(&l, &full.layout, sizeof(l)) == 0);
	}
	return 0;
}
