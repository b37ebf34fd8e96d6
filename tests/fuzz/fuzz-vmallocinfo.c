/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/proc-modules.h"
#include "sources/vmallocinfo.h"
#include "cost/loadpath.h"
#include "cost/modmem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(x) ((x) ? (void)0 : abort())

/*
 * Input: vmallocinfo text, or "proc/modules text\n----\nvmallocinfo text". Without the
 * separator the areas are joined to debian-6.12-xz's modules, so the hashed-address
 * chain reconstruction and the subset search meet hostile areas.
 */
#define SEPARATOR "\n----\n"

static const char default_modules[] = "vfat 24576 0 - Live 0xffffffffc05ac000\n"
				      "fat 102400 1 vfat, Live 0xffffffffc0590000\n"
				      "af_key 53248 0 - Live 0xffffffffc0580000\n"
				      "xfrm_algo 16384 1 af_key, Live 0xffffffffc0579000\n"
				      "sctp 524288 2 - Live 0xffffffffc04f7000\n"
				      "ip6_udp_tunnel 16384 1 sctp, Live 0xffffffffc04df000\n"
				      "udp_tunnel 36864 1 sctp, Live 0xffffffffc04ea000\n"
				      "xfs 2592768 0 - Live 0xffffffffc0266000\n"
				      "crc32c_generic 12288 1 - Live 0xffffffffc0260000\n"
				      "libcrc32c 12288 2 sctp,xfs, Live 0xffffffffc0256000\n";

static unsigned int count_lines(const char *s, size_t len)
{
	unsigned int n = 0;

	for (size_t i = 0; i < len; i++)
		n += s[i] == '\n';
	return n + (len && s[len - 1] != '\n');
}

static void check_area(const struct vmalloc_area *a)
{
	uint64_t s = a->start;

	CHECK(a->n_numa == 0 || a->numa);
	CHECK(!a->caller_module || a->caller);
	CHECK(!a->caller || a->caller[0]);
	/* a size that fits its range (real addresses), any area, and its pages */
	if (s >> 47 == 0x1ffff || s >> 55 == 0x1ff)
		CHECK(a->end >= s && a->size <= a->end - s);
	CHECK(a->size <= UINT64_C(1) << 56);
	CHECK(!a->has_pages || a->pages <= a->size / 4096);
}

static void check_join(const struct proc_modules *pm, const struct vmallocinfo *vi,
		       const char *release)
{
	struct modmem *mm = NULL;
	struct loadpath lp;
	size_t joined = 0;
	int r;

	loadpath_from_release(release, &lp);
	r = modmem_join(pm, vi, &lp, &mm);
	CHECK(r == 0 || r == -ENOMEM);
	if (r < 0)
		return;
	CHECK(mm->n <= vi->n && mm->n_mods == pm->n);
	CHECK(mm->n_module_areas + mm->n_leftover == mm->n);
	CHECK(mm->n_unjoined <= mm->n_module_areas);
	for (size_t i = 0; i < mm->n; i++) {
		const struct modmem_area *ma = &mm->areas[i];

		CHECK(ma->area < vi->n);
		CHECK(i == 0 || ma->area > mm->areas[i - 1].area);
		CHECK(ma->module >= -1 && ma->module < (long)pm->n);
		CHECK(ma->cls == AREA_MODULE || ma->module == -1);
		CHECK(area_classify(&vi->areas[ma->area]) == ma->cls);
	}
	for (size_t m = 0; m < pm->n; m++) {
		CHECK(mm->mods[m].mem_bytes <= mm->mods[m].area_bytes);
		CHECK(!mm->mods[m].size_matches || mm->mods[m].mem_bytes == pm->mods[m].size);
		joined += mm->mods[m].n_areas;
	}
	CHECK(joined + mm->n_unjoined == mm->n_module_areas);
	modmem_free(mm);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *end = text + size, *p, *sep;
	struct proc_modules *pm = NULL;
	struct vmallocinfo *vi = NULL;
	struct kt_err e = { 0 };
	size_t vsize;
	FILE *f;
	int r;

	sep = memmem(text, size, SEPARATOR, strlen(SEPARATOR));
	if (sep) {
		f = fmemopen((void *)text, sep - text + 1, "r");
		if (!f)
			return 0;
		r = proc_modules_read_file(f, "proc/modules", &pm, &e);
		fclose(f);
		if (r < 0)
			return 0;
		text = sep + strlen(SEPARATOR);
	} else {
		f = fmemopen((void *)default_modules, sizeof(default_modules) - 1, "r");
		CHECK(f);
		CHECK(proc_modules_read_file(f, "proc/modules", &pm, &e) == 0);
		fclose(f);
	}
	vsize = end - text;

	for (p = text; p < end;) {
		const char *nl = memchr(p, '\n', end - p);
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *line = malloc(len + 1);	/* exact size: ASan sees any overread */
		const char *what = NULL;
		struct vmalloc_area a;

		if (!line)
			goto out;
		memcpy(line, p, len);
		line[len] = '\0';
		r = vmallocinfo_parse_line(line, len, &a, &what);
		CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
		if (r == 0) {
			check_area(&a);
			vmalloc_area_done(&a);
		} else if (r == -EINVAL) {
			CHECK(what);
		}
		free(line);
		p += len + 1;
	}

	if (vsize == 0)
		goto out;
	f = fmemopen((void *)text, vsize, "r");
	if (!f)
		goto out;
	memset(&e, 0, sizeof(e));
	r = vmallocinfo_read_file(f, "proc/vmallocinfo", &vi, &e);
	fclose(f);
	if (r < 0) {
		CHECK(!vi);
		if (r == -EINVAL)
			CHECK(e.what && e.line >= 1 && e.line <= count_lines(text, vsize));
		goto out;
	}
	CHECK(vi->n <= count_lines(text, vsize));
	CHECK(vi->unknown_flag_lines <= vi->n);
	for (size_t i = 0; i < vi->n; i++)
		check_area(&vi->areas[i]);
	check_join(pm, vi, "6.1.0-57-amd64");
	check_join(pm, vi, "6.12.118+deb12-amd64");
out:
	vmallocinfo_free(vi);
	proc_modules_free(pm);
	return 0;
}
