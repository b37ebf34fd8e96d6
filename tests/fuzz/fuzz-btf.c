/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "sources/kernel-btf.h"
#include "sources/load-probes.h"
#include "fuzz.h"

/*
 * A root's sys/kernel/btf/vmlinux, through libbpf's parser (Debian's, not instrumented)
 * and kmodtop's walk of it (sources/kernel-btf.c: members through anonymous structs,
 * typedef chains, enums): the probe plan comes out whole or says why not. The input's
 * first line, when it has one, is also taken as an available_filter_functions list.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kernel_btf *b = NULL;
	struct load_probe_plan p;
	const char *nl = memchr(data, '\n', size);
	uint32_t off;
	int r;

	r = kernel_btf_new(data, size, &b);
	CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
	if (r < 0)
		return 0;
	load_probes_plan(b, NULL, 0, &p);
	for (int k = 0; k < _LOAD_PROBE_MAX; k++)
		CHECK(p.p[k].ok ? p.p[k].args[0] != '\0' : p.p[k].why != NULL);
	if (nl)
		load_probes_plan(b, (const char *)data, (size_t)(nl - (const char *)data), &p);
	r = kernel_btf_offset(b, "file", "f_path.dentry", &off);
	CHECK(r == 0 || r == -ENOENT || r == -EINVAL);
	kernel_btf_free(b);
	return 0;
}
