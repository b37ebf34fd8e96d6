/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdint.h>

#include "sources/load-probes.h"
#include "sources/vmlinuz.h"
#include "fuzz.h"

/*
 * A kernel boot image as `boot-setup --vmlinuz` reads it (sources/vmlinuz.c): the first
 * xz, zstd or gzip stream after any bytes, decompressed (Debian's liblzma, libzstd and
 * zlib), its ELF's section headers walked with libelf, the .BTF section to libbpf.
 * Whatever the bytes: a BTF, or an error with its reason; no read outside the input.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kernel_btf *b = NULL;
	struct load_probe_plan p;
	const char *why = NULL;
	int r;

	r = vmlinuz_btf_from_image(data, size, 8u << 20, &b, &why);
	CHECK(r == 0 || r == -ENOENT || r == -EINVAL || r == -EFBIG || r == -ENOMEM);
	CHECK(r == 0 ? b != NULL : why != NULL);
	if (r < 0)
		return 0;
	load_probes_plan(b, NULL, 0, &p);
	kernel_btf_free(b);
	return 0;
}
