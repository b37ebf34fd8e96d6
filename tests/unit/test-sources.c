/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <zlib.h>

#include "helpers.h"
#include "util/macro.h"
#include "util/root.h"
#include "sources/dmesg-json.h"
#include "sources/boot-id.h"
#include "sources/dmesg-text.h"
#include "sources/kconfig.h"
#include "sources/meminfo.h"
#include "sources/modstats.h"
#include "sources/modsyms.h"
#include "sources/proc-modules.h"
#include "sources/sys-module.h"
#include "sources/tainted.h"
#include "sources/vmallocinfo.h"
#include "cost/loadpath.h"
#include "cost/modmem.h"
#include "cost/vmsample.h"

#define FX_61 FIXTURES_DIR "/debian-6.1-plain"
#define FX_612 FIXTURES_DIR "/debian-6.12-xz"
#define FX_CUSTOM FIXTURES_DIR "/custom-6.12-modstats"

/* ---- helpers --------------------------------------------------------------------- */

static unsigned int count_lines(const char *s, size_t len)
{
	unsigned int n = 0;

	for (size_t i = 0; i < len; i++)
		n += s[i] == '\n';
	return n + (len && s[len - 1] != '\n');
}

/* ---- vmallocinfo: lines ---------------------------------------------------------- */

static int vparse(const char *text, struct vmalloc_area *a, const char **what)
{
	char *copy = strdup(text);
	int r;

	assert_non_null(copy);
	*what = NULL;
	memset(a, 0x5a, sizeof(*a));
	r = vmallocinfo_parse_line(copy, strlen(copy), a, what);
	free(copy);
	return r;
}

static void test_vmalloc_line_61(void **state)
{
	struct vmalloc_area a;
	const char *what;

	/* debian-6.1-plain/proc/vmallocinfo */
	assert_int_equal(vparse("0xffffffffc0281000-0xffffffffc0286000   20480 "
				"load_module+0xbb7/0x21a0 pages=4 vmalloc N0=4",
				&a, &what),
			 0);
	assert_true(a.start == 0xffffffffc0281000ull);
	assert_true(a.end == 0xffffffffc0286000ull);
	assert_int_equal(a.size, 20480);
	assert_string_equal(a.caller, "load_module");
	assert_int_equal(a.caller_off, 0xbb7);
	assert_int_equal(a.caller_len, 0x21a0);
	assert_null(a.caller_module);
	assert_true(a.has_pages);
	assert_int_equal(a.pages, 4);
	assert_false(a.has_phys);
	assert_int_equal(a.flags, VMA_VMALLOC);
	assert_int_equal(a.n_numa, 1);
	assert_int_equal(a.numa[0].node, 0);
	assert_int_equal(a.numa[0].pages, 4);
	assert_int_equal(area_classify(&a), AREA_MODULE);
	vmalloc_area_done(&a);
	assert_null(a.caller);

	assert_int_equal(vparse("0xffffd181c0005000-0xffffd181c0007000    8192 "
				"acpi_os_map_iomem+0x1b6/0x1d0 phys=0x000000007ffe1000 ioremap",
				&a, &what),
			 0);
	assert_string_equal(a.caller, "acpi_os_map_iomem");
	assert_true(a.has_phys);
	assert_true(a.phys == 0x7ffe1000);
	assert_false(a.has_pages);
	assert_int_equal(a.flags, VMA_IOREMAP);
	assert_int_equal(a.n_numa, 0);
	assert_int_equal(area_classify(&a), AREA_OTHER);
	vmalloc_area_done(&a);

	assert_int_equal(vparse("0xffffd181c0000000-0xffffd181c0005000   20480 "
				"irq_init_percpu_irqstack+0xf0/0x120 vmap",
				&a, &what),
			 0);
	assert_string_equal(a.caller, "irq_init_percpu_irqstack");
	assert_int_equal(a.caller_off, 0xf0);
	assert_int_equal(a.flags, VMA_VMAP);
	vmalloc_area_done(&a);

	/* the 1 MiB xz dictionary of an in-kernel decompression (6.12's stack shows
	 * __vmalloc_node_noprof called from xz_dec_lzma2_reset) is part of the load */
	assert_int_equal(vparse("0xffffc90000a00000-0xffffc90000b01000 1052672 "
				"xz_dec_lzma2_reset+0x16d/0x1b0 pages=256 vmalloc N0=256",
				&a, &what),
			 0);
	assert_int_equal(area_classify(&a), AREA_DECOMPRESS);
	assert_true(area_class_in_flight(area_classify(&a)));
	vmalloc_area_done(&a);

	assert_int_equal(vparse("0xffffd181c03fc000-0xffffd181c0401000   20480 unpurged vm_area",
				&a, &what),
			 0);
	assert_int_equal(a.flags, VMA_UNPURGED);
	assert_null(a.caller);
	assert_int_equal(a.size, 20480);
	assert_int_equal(area_classify(&a), AREA_OTHER);
	vmalloc_area_done(&a);
}

static void test_vmalloc_line_612(void **state)
{
	struct vmalloc_area a;
	const char *what;

	/* debian-6.12-xz/proc/vmallocinfo: %pK hashes */
	assert_int_equal(vparse("0x000000003d0faa57-0x00000000c022163a  958464 "
				"load_module+0x784/0x21b0 pages=233 vmalloc N0=233",
				&a, &what),
			 0);
	assert_true(a.start == 0x3d0faa57);
	assert_true(a.end == 0xc022163a);
	assert_int_equal(a.size, 958464);
	assert_string_equal(a.caller, "load_module");
	assert_int_equal(a.caller_off, 0x784);
	assert_int_equal(a.caller_len, 0x21b0);
	assert_int_equal(a.pages, 233);
	assert_int_equal(a.numa[0].pages, 233);
	vmalloc_area_done(&a);

	assert_int_equal(vparse("0x00000000b5279adf-0x0000000066430a19    8192 "
				"hpet_enable+0x9e/0x500 phys=0x00000000fed00000 ioremap",
				&a, &what),
			 0);
	assert_true(a.phys == 0xfed00000);
	assert_int_equal(a.flags, VMA_IOREMAP);
	vmalloc_area_done(&a);

	/* custom-6.12-modstats */
	assert_int_equal(vparse("0x000000008ad4f567-0x000000004643af10   20480 unpurged vm_area",
				&a, &what),
			 0);
	assert_int_equal(a.flags, VMA_UNPURGED);
	vmalloc_area_done(&a);

	/* capture/snapshots: hashing not ready yet early in boot */
	assert_int_equal(vparse("0x(____ptrval____)-0x(____ptrval____)  512000 "
				"load_module+0x857/0x2470 pages=124 vmalloc N0=124",
				&a, &what),
			 0);
	assert_true(a.start == 0 && a.end == 0);
	assert_int_equal(a.size, 512000);
	assert_string_equal(a.caller, "load_module");
	assert_int_equal(a.pages, 124);
	vmalloc_area_done(&a);

	assert_int_equal(vparse("0x(____ptrval____)-0x(____ptrval____)   20480 unpurged vm_area",
				&a, &what),
			 0);
	assert_int_equal(a.flags, VMA_UNPURGED);
	vmalloc_area_done(&a);
}

static void test_vmalloc_line_kinds(void **state)
{
	struct vmalloc_area a;
	const char *what;

	/* vmap_block areas print no caller */
	assert_int_equal(vparse("0xffffb3a5c0200000-0xffffb3a5c0400000 2097152 vm_map_ram", &a,
				&what),
			 0);
	assert_int_equal(a.flags, VMA_VM_MAP_RAM);
	assert_null(a.caller);
	assert_int_equal(a.size, 2097152);
	vmalloc_area_done(&a);

	/* %pS of a symbol in a module */
	assert_int_equal(vparse("0xffffb3a5c0de5000-0xffffb3a5c0dea000   20480 "
				"drm_buddy_init+0x6c/0x1a0 [drm_buddy] pages=4 vmalloc N0=4",
				&a, &what),
			 0);
	assert_string_equal(a.caller, "drm_buddy_init");
	assert_int_equal(a.caller_off, 0x6c);
	assert_int_equal(a.caller_len, 0x1a0);
	assert_string_equal(a.caller_module, "drm_buddy");
	assert_int_equal(a.pages, 4);
	assert_int_equal(a.flags, VMA_VMALLOC);
	vmalloc_area_done(&a);
	assert_null(a.caller_module);

	assert_int_equal(vparse("0xffffb3a5c0de5000-0xffffb3a5c0de7000    8192 "
				"bpf_map_area_mmapable_alloc+0x3c/0x80 pages=1 vmalloc user N0=1",
				&a, &what),
			 0);
	assert_int_equal(a.flags, VMA_VMALLOC | VMA_USER);
	vmalloc_area_done(&a);

	assert_int_equal(vparse("0xffffb3a5c1000000-0xffffb3a5c1041000  266240 "
				"kvmalloc_node_noprof+0x43/0xd0 pages=64 vmalloc vpages N0=32 N1=32",
				&a, &what),
			 0);
	assert_int_equal(a.flags, VMA_VMALLOC | VMA_VPAGES);
	assert_int_equal(a.n_numa, 2);
	assert_int_equal(a.numa[1].node, 1);
	assert_int_equal(a.numa[1].pages, 32);
	vmalloc_area_done(&a);

	assert_int_equal(vparse("0xffffb3a5c1000000-0xffffb3a5c1003000 12288 "
				"dma_common_contiguous_remap+0x9a/0xc0 pages=2 vmap dma-coherent",
				&a, &what),
			 0);
	assert_int_equal(a.flags, VMA_VMAP | VMA_DMA_COHERENT);
	vmalloc_area_done(&a);

	assert_int_equal(vparse("0xffffb3a5c1000000-0xffffb3a5c1003000 12288 "
				"pcpu_get_vm_areas+0x0/0x100 sparse",
				&a, &what),
			 0);
	assert_int_equal(a.flags, VMA_SPARSE);
	assert_int_equal(a.caller_off, 0);
	vmalloc_area_done(&a);

	/* an unknown word is remembered, not an error */
	assert_int_equal(vparse("0xffffb3a5c1000000-0xffffb3a5c1003000 12288 "
				"foo+0x1/0x2 pages=2 vmalloc huge N0=2",
				&a, &what),
			 0);
	assert_int_equal(a.flags, VMA_VMALLOC | VMA_UNKNOWN_FLAG);
	assert_int_equal(a.pages, 2);
	vmalloc_area_done(&a);

	/* an address %pS could not symbolise; old kernels' phys without 0x */
	assert_int_equal(vparse("0xffffb3a5c1000000-0xffffb3a5c1003000 12288 "
				"0xffffffffc0a01234 phys=fed00000 ioremap",
				&a, &what),
			 0);
	assert_string_equal(a.caller, "0xffffffffc0a01234");
	assert_true(a.phys == 0xfed00000);
	vmalloc_area_done(&a);

	/* "[...]" is a module only right after the caller; elsewhere an unknown word */
	assert_int_equal(vparse("0x1000-0x3000 8192 foo+0x1/0x2 pages=1 vmalloc [bar] N0=1", &a,
				&what),
			 0);
	assert_null(a.caller_module);
	assert_int_equal(a.flags, VMA_VMALLOC | VMA_UNKNOWN_FLAG);
	vmalloc_area_done(&a);
	assert_int_equal(vparse("0x1000-0x3000 8192 [bar] vmalloc", &a, &what), 0);
	assert_null(a.caller);
	assert_null(a.caller_module);
	assert_int_equal(a.flags, VMA_VMALLOC | VMA_UNKNOWN_FLAG);
	vmalloc_area_done(&a);

	/* a caller alone, nothing after it */
	assert_int_equal(vparse("0x1000-0x3000 8192 foo+0x1/0x2", &a, &what), 0);
	assert_string_equal(a.caller, "foo");
	assert_int_equal(a.flags, 0);
	vmalloc_area_done(&a);

	vmalloc_area_done(NULL);
}

static void expect_vbad(const char *text, const char *want)
{
	struct vmalloc_area a, before;
	const char *what;

	memset(&before, 0x5a, sizeof(before));
	assert_int_equal(vparse(text, &a, &what), -EINVAL);
	assert_non_null(what);
	assert_string_equal(what, want);
	assert_memory_equal(&a, &before, sizeof(a));
}

static void test_vmalloc_line_malformed(void **state)
{
	char nul[] = "0x1000-0x3000 8192 foo+0x1/0x2\0 vmalloc";
	struct vmalloc_area a;
	const char *what = NULL;

	expect_vbad("", "empty line");
	expect_vbad(" \t", "empty line");
	expect_vbad("garbage", "missing address range");
	expect_vbad("0x1000 8192 foo+0x1/0x2", "missing address range");
	expect_vbad("0xzz-0x3000 8192 foo+0x1/0x2", "address is not a hex number");
	expect_vbad("1000-3000 8192 foo+0x1/0x2", "address is not a hex number");
	expect_vbad("0x1000-0x-3000 8192 foo+0x1/0x2", "address is not a hex number");
	expect_vbad("0x1000-0x3000", "missing size");
	expect_vbad("0x1000-0x3000 8k foo+0x1/0x2", "size is not a number");
	expect_vbad("0x1000-0x3000 -8192 foo+0x1/0x2", "size is not a number");
	expect_vbad("0x1000-0x3000 8192 foo+0x1/0x2 pages=", "pages= is not a number");
	expect_vbad("0x1000-0x3000 8192 foo+0x1/0x2 pages=-1", "pages= is not a number");
	expect_vbad("0x1000-0x3000 8192 foo+0x1/0x2 phys=0xzz ioremap", "phys= is not a hex number");
	expect_vbad("0x1000-0x3000 8192 foo+0x1/0x2 pages=1 vmalloc N0=x",
		    "malformed N<node>= count");
	expect_vbad("0x1000-0x3000 8192 foo+0x1/0x2 pages=1 vmalloc N99999999999=1",
		    "malformed N<node>= count");
	expect_vbad("0x1000-0x3000 8192 unpurged", "malformed unpurged vm_area line");
	expect_vbad("0x1000-0x3000 8192 unpurged area", "malformed unpurged vm_area line");
	expect_vbad("0x1000-0x3000 8192 foo+0xzz/0x2 vmalloc", "malformed caller symbol");
	expect_vbad("0x1000-0x3000 8192 foo+0x1 vmalloc", "malformed caller symbol");
	expect_vbad("0x1000-0x3000 8192 +0x1/0x2 vmalloc", "malformed caller symbol");
	expect_vbad("0x1000-0x3000 8192 foo+0x1/0x2 [drm vmalloc", "malformed [module] suffix");
	expect_vbad("0x1000-0x3000 8192 foo+0x1/0x2 [] vmalloc", "malformed [module] suffix");
	/* failures after allocations (caller, numa) free them: valgrind checks */
	expect_vbad("0x1000-0x3000 8192 foo+0x1/0x2 [m] pages=1 vmalloc N0=1 N1=x",
		    "malformed N<node>= count");

	assert_int_equal(vmallocinfo_parse_line(nul, sizeof(nul) - 1, &a, &what), -EINVAL);
	assert_string_equal(what, "line contains a NUL byte");
}

/*
 * vmalloc_info_show() prints "start-end size" with end = start + size and pages= that
 * fit in the size: a line where they do not hold together is damaged. Only real
 * addresses say anything about the size; %pK hashes each one apart (32-bit values).
 */
static void test_vmalloc_line_impossible(void **state)
{
	struct vmalloc_area a;
	const char *what;

	(void)state;
	/* the audit's line: 16 EiB in one page of range */
	expect_vbad("0xffffffffc0005000-0xffffffffc0006000 18446744073709551615 "
		    "load_module+0x857/0x2470 pages=18446744073709551615 vmalloc",
		    "size larger than its address range");
	expect_vbad("0xffffffffc0005000-0xffffffffc0006000 8192 load_module+0x857/0x2470 "
		    "pages=1 vmalloc",
		    "size larger than its address range");
	/* 5-level paging's vmalloc space */
	expect_vbad("0xffa0000000001000-0xffa0000000003000 12288 foo+0x1/0x2 vmalloc",
		    "size larger than its address range");
	expect_vbad("0xffffffffc0006000-0xffffffffc0005000 4096 load_module+0x857/0x2470 "
		    "pages=1 vmalloc",
		    "address range ends before it starts");
	/* an end that is not a kernel address is below a real start */
	expect_vbad("0xffffffffc0006000-0x0000000000001000 4096 foo+0x1/0x2 vmalloc",
		    "address range ends before it starts");
	expect_vbad("0xffffffffc0005000-0xffffffffc0007000 8192 load_module+0x857/0x2470 "
		    "pages=3 vmalloc N0=3",
		    "pages= do not fit in the size");
	/* pages * 4096 wraps to 4096 here: the check must not multiply */
	expect_vbad("0x1000-0x3000 8192 foo+0x1/0x2 pages=4503599627370497 vmalloc",
		    "pages= do not fit in the size");
	expect_vbad("0x00000000c022163a-0x000000003d0faa57 18446744073709551615 "
		    "load_module+0x857/0x2470 pages=4 vmalloc",
		    "size larger than any vmalloc area can be");
	expect_vbad("0x0000000000000000-0x0000000000000000 72057594037936128 foo+0x1/0x2 vmalloc",
		    "size larger than any vmalloc area can be");
	expect_vbad("0x(____ptrval____)-0x(____ptrval____) 8192 load_module+0x857/0x2470 "
		    "pages=3 vmalloc",
		    "pages= do not fit in the size");
	/* failures after allocations (caller, module, numa) free them: valgrind checks */
	expect_vbad("0xffffffffc0005000-0xffffffffc0006000 8192 foo+0x1/0x2 [m] pages=1 "
		    "vmalloc N0=1",
		    "size larger than its address range");

	/* what holds: size == range, no guard page (VM_NO_GUARD: pages fill the size) */
	assert_int_equal(vparse("0xffffffffc0005000-0xffffffffc0007000 8192 foo+0x1/0x2 "
				"pages=2 vmalloc N0=2",
				&a, &what),
			 0);
	assert_int_equal(a.size, 8192);
	assert_int_equal(a.pages, 2);
	vmalloc_area_done(&a);
	/* a size below its range is not what the kernel prints, but is no wrong number */
	assert_int_equal(vparse("0xffffffffc0005000-0xffffffffc0009000 8192 foo+0x1/0x2 vmalloc",
				&a, &what),
			 0);
	assert_int_equal(a.size, 8192);
	vmalloc_area_done(&a);
	/* an empty area at the very top of the kernel half */
	assert_int_equal(vparse("0xfffffffffffff000-0xfffffffffffff000 0 foo+0x1/0x2 vmalloc",
				&a, &what),
			 0);
	vmalloc_area_done(&a);
	/* hashed: an inverted range with any size up to 2^56 (debian-6.12-xz's line) */
	assert_int_equal(vparse("0x00000000c022163a-0x000000003d0faa57  958464 "
				"load_module+0x784/0x21b0 pages=233 vmalloc N0=233",
				&a, &what),
			 0);
	assert_int_equal(a.size, 958464);
	vmalloc_area_done(&a);
	assert_int_equal(vparse("0x0000000000000000-0x0000000000000000 72057594037927936 "
				"foo+0x1/0x2 vmalloc",
				&a, &what),
			 0);
	assert_true(a.size == UINT64_C(1) << 56);
	vmalloc_area_done(&a);
}

/* ---- vmallocinfo: files ---------------------------------------------------------- */

static struct vmallocinfo *vread_text(const char *text, size_t len, int want_r,
				      struct kt_err *e)
{
	struct vmallocinfo *vi = NULL;
	FILE *f = mem_file(text, len);

	memset(e, 0, sizeof(*e));
	assert_int_equal(vmallocinfo_read_file(f, "proc/vmallocinfo", &vi, e), want_r);
	fclose(f);
	if (want_r < 0)
		assert_null(vi);
	return vi;
}

/* A large vmallocinfo names a few callers: each kept once, not once a line */
static void test_vmalloc_callers_once(void **state)
{
	static const char text[] =
		"0xffffc90000000000-0xffffc90000002000    8192 load_module+0x857/0x2470 pages=1 vmalloc N0=1\n"
		"0xffffc90000002000-0xffffc90000004000    8192 load_module+0x857/0x2470 pages=1 vmalloc N0=1\n"
		"0xffffc90000004000-0xffffc90000006000    8192 bpf_map_area_alloc+0x2c/0x40 [drm_buddy] pages=1 vmalloc N0=1\n"
		"0xffffc90000006000-0xffffc90000008000    8192 bpf_map_area_alloc+0x2c/0x40 [drm_buddy] pages=1 vmalloc N0=1\n"
		"0xffffc90000008000-0xffffc9000000a000    8192 load_module+0x900/0x2470 pages=1 vmalloc N0=1\n";
	struct vmallocinfo *vi;
	struct kt_err e;

	(void)state;
	vi = vread_text(text, strlen(text), 0, &e);
	assert_int_equal(vi->n, 5);
	assert_string_equal(vi->areas[0].caller, "load_module");
	assert_ptr_equal(vi->areas[0].caller, vi->areas[1].caller);
	assert_ptr_equal(vi->areas[0].caller, vi->areas[4].caller);
	assert_int_equal(vi->areas[4].caller_off, 0x900);
	assert_string_equal(vi->areas[2].caller, "bpf_map_area_alloc");
	assert_ptr_equal(vi->areas[2].caller, vi->areas[3].caller);
	assert_string_equal(vi->areas[2].caller_module, "drm_buddy");
	assert_ptr_equal(vi->areas[2].caller_module, vi->areas[3].caller_module);
	assert_int_equal(vi->n_strs, 3);
	vmallocinfo_free(vi);
}

static bool keep_but_drop_me(const struct vmalloc_area *a, void *userdata)
{
	(void)userdata;
	return strcmp(a->caller, "drop_me") != 0;
}

/*
 * Areas a filter drops are not kept, yet their lines still decide the address mode,
 * and a repeat after them is named by its line in the file, not by its place among
 * the areas kept.
 */
static void test_vmalloc_read_filtered(void **state)
{
	static const char text[] =
		"0xffffc90000000000-0xffffc90000002000    8192 load_module+0x857/0x2470 pages=1 vmalloc N0=1\n"
		"0x00000000deadbeef-0x00000000deadc0de    8192 drop_me+0x1/0x2 pages=1 vmalloc N0=1\n"
		"0x00000000feedface-0x00000000feedfad0    8192 drop_me+0x1/0x2 pages=1 vmalloc N0=1\n"
		"0xffffc90000002000-0xffffc90000004000    8192 load_module+0x857/0x2470 pages=1 vmalloc N0=1\n"
		"0xffffc90000000000-0xffffc90000002000    8192 load_module+0x857/0x2470 pages=1 vmalloc N0=1\n";
	struct kt_root *root;
	struct vmallocinfo *vi;
	struct kt_err e = { 0 };
	char *dir = make_tmpdir();

	(void)state;
	assert_int_equal(root_new(dir, &root), 0);
	write_str(dir, "proc/vmallocinfo", text);
	assert_int_equal(vmallocinfo_read_filtered(root, keep_but_drop_me, NULL, &vi, &e), 0);
	assert_int_equal(vi->n, 2);
	assert_int_equal(vi->n_dropped, 2);
	assert_int_equal(vi->areas[1].start, 0xffffc90000002000);
	/* the dropped lines' addresses are no kernel addresses: hashed, as unfiltered */
	assert_int_equal(vi->addr_mode, VMALLOC_ADDR_HASHED);
	assert_int_equal(vi->n_repeated, 1);
	assert_int_equal(vi->repeated_line, 5);
	vmallocinfo_free(vi);

	assert_int_equal(vmallocinfo_read(root, &vi, &e), 0);
	assert_int_equal(vi->n, 4);
	assert_int_equal(vi->addr_mode, VMALLOC_ADDR_HASHED);
	assert_int_equal(vi->repeated_line, 5);
	vmallocinfo_free(vi);
	root_free(root);
	remove_tree(dir);
}

/* One of each per area of a vmallocinfo that can list millions: no padding inside */
#define M(t, f) sizeof(((t *)0)->f)
#define ROUND8(n) (((n) + 7) / 8 * 8)
static void test_vmalloc_area_packed(void **state)
{
	size_t area = M(struct vmalloc_area, start) + M(struct vmalloc_area, end) +
		      M(struct vmalloc_area, size) + M(struct vmalloc_area, caller) +
		      M(struct vmalloc_area, caller_off) + M(struct vmalloc_area, caller_len) +
		      M(struct vmalloc_area, caller_module) + M(struct vmalloc_area, pages) +
		      M(struct vmalloc_area, phys) + M(struct vmalloc_area, numa) +
		      M(struct vmalloc_area, n_numa) + M(struct vmalloc_area, flags) +
		      M(struct vmalloc_area, has_pages) + M(struct vmalloc_area, has_phys);
	size_t ma = M(struct modmem_area, area) + M(struct modmem_area, module) +
		    M(struct modmem_area, pos) + M(struct modmem_area, cls) +
		    M(struct modmem_area, is_base) + M(struct modmem_area, pos_known);

	(void)state;
	assert_int_equal(sizeof(struct vmalloc_area), ROUND8(area));
	assert_int_equal(sizeof(struct modmem_area), ROUND8(ma));
}
#undef M
#undef ROUND8

static void check_addr_mode(const char *text, enum vmalloc_addr_mode want)
{
	struct vmallocinfo *vi;
	struct kt_err e;

	vi = vread_text(text, strlen(text), 0, &e);
	assert_string_equal(vmalloc_addr_mode_name(vi->addr_mode), vmalloc_addr_mode_name(want));
	vmallocinfo_free(vi);
}

static void test_vmalloc_addr_mode(void **state)
{
	check_addr_mode("0xffffffffc0281000-0xffffffffc0286000 20480 load_module+0xbb7/0x21a0 "
			"pages=4 vmalloc N0=4\n"
			"0xffffd181c0000000-0xffffd181c0005000 20480 irq_init_percpu_irqstack+"
			"0xf0/0x120 vmap\n",
			VMALLOC_ADDR_REAL);
	/* 5-level paging puts vmalloc space at 0xffa0... */
	check_addr_mode("0xffa0000000001000-0xffa0000000003000 8192 foo+0x1/0x2 vmalloc\n",
			VMALLOC_ADDR_REAL);
	check_addr_mode("0x00000000ac00999b-0x00000000be32d74a 20480 irq_init_percpu_irqstack+"
			"0xf4/0x130 vmap\n"
			"0x00000000be32d74a-0x00000000de6e825a 8192 acpi_os_map_iomem+0x1a9/0x1e0 "
			"phys=0x000000007ffe1000 ioremap\n",
			VMALLOC_ADDR_HASHED);
	/* one real-looking address among hashes: still hashed */
	check_addr_mode("0xffffffffc0281000-0xffffffffc0286000 20480 foo+0x1/0x2 vmalloc\n"
			"0x00000000be32d74a-0x00000000de6e825a 8192 foo+0x1/0x2 vmalloc\n",
			VMALLOC_ADDR_HASHED);
	check_addr_mode("0x0000000000000000-0x0000000000000000 20480 irq_init_percpu_irqstack+"
			"0xf4/0x130 vmap\n"
			"0x0000000000000000-0x0000000000000000 8192 load_module+0x784/0x21b0 "
			"pages=1 vmalloc N0=1\n",
			VMALLOC_ADDR_ZERO);
	check_addr_mode("0x(____ptrval____)-0x(____ptrval____) 8192 load_module+0x784/0x21b0 "
			"pages=1 vmalloc N0=1\n",
			VMALLOC_ADDR_ZERO);
	/* zeroed lines do not spoil real ones */
	check_addr_mode("0x0000000000000000-0x0000000000000000 8192 foo+0x1/0x2 vmalloc\n"
			"0xffffffffc0281000-0xffffffffc0286000 20480 foo+0x1/0x2 vmalloc\n",
			VMALLOC_ADDR_REAL);
	check_addr_mode("", VMALLOC_ADDR_UNKNOWN);
	assert_string_equal(vmalloc_addr_mode_name(VMALLOC_ADDR_UNKNOWN), "unknown");
}

static void test_vmalloc_read_fixtures(void **state)
{
	static const struct {
		const char *path;
		enum vmalloc_addr_mode mode;
	} fx[] = {
		{ FX_61 "/proc/vmallocinfo", VMALLOC_ADDR_REAL },
		{ FX_612 "/proc/vmallocinfo", VMALLOC_ADDR_HASHED },
		{ FX_CUSTOM "/proc/vmallocinfo", VMALLOC_ADDR_HASHED },
		{ FX_61 "/capture/snapshots/vmallocinfo.after-live-storm", VMALLOC_ADDR_REAL },
		{ FX_612 "/capture/snapshots/vmallocinfo.boot", VMALLOC_ADDR_ZERO },
		{ FX_612 "/capture/snapshots/vmallocinfo.after-live-storm", VMALLOC_ADDR_ZERO },
		{ FX_CUSTOM "/capture/snapshots/vmallocinfo.after-live-storm", VMALLOC_ADDR_ZERO },
	};

	for (size_t i = 0; i < sizeof(fx) / sizeof(fx[0]); i++) {
		struct vmallocinfo *vi;
		struct kt_err e;
		size_t len, unpurged = 0, words = 0;
		char *text = read_file(fx[i].path, &len);

		vi = vread_text(text, len, 0, &e);
		assert_int_equal(vi->n, count_lines(text, len));
		assert_int_equal(vi->addr_mode, fx[i].mode);
		assert_int_equal(vi->unknown_flag_lines, 0);
		for (const char *p = text; (p = strstr(p, "unpurged vm_area")); p++)
			unpurged++;
		for (size_t j = 0; j < vi->n; j++) {
			const struct vmalloc_area *a = &vi->areas[j];

			assert_int_equal(a->size % 4096, 0);
			if (a->flags & VMA_UNPURGED) {
				words++;
				continue;
			}
			/* every other captured line names its caller */
			assert_non_null(a->caller);
			if (a->has_pages) {
				uint64_t sum = 0;

				/* the guard page is in size, not in pages */
				assert_true(a->pages * 4096 + 4096 <= a->size);
				for (size_t k = 0; k < a->n_numa; k++)
					sum += a->numa[k].pages;
				assert_int_equal(sum, a->pages);
			}
			if (fx[i].mode == VMALLOC_ADDR_REAL)
				assert_int_equal(a->end - a->start, a->size);
		}
		assert_int_equal(words, unpurged);
		vmallocinfo_free(vi);
		free(text);
	}
	assert_null(vmallocinfo_free(NULL));
}

static void test_vmalloc_read_errors(void **state)
{
	static const char bad3[] = "0x1000-0x3000 8192 foo+0x1/0x2 vmalloc\n"
				   "0x3000-0x5000 8192 foo+0x1/0x2 vmalloc\n"
				   "0x5000-0x7000 8192 foo+0x1/0x2 pages=two vmalloc\n";
	static const char nul[] = "0x1000-0x3000 8192 foo+0x1/0x2 vmalloc\n"
				  "0x3000-0x5000 8192 fo\0o+0x1/0x2 vmalloc\n";
	static const char unknown[] = "0x1000-0x3000 8192 foo+0x1/0x2 vmalloc huge\n"
				      "0x3000-0x5000 8192 foo+0x1/0x2 vmalloc\n"
				      "0x5000-0x7000 8192 foo+0x1/0x2 vmalloc shiny new\n";
	struct vmallocinfo *vi;
	struct kt_err e;
	size_t big = 1 << 20, n;
	char *text;

	vread_text(bad3, sizeof(bad3) - 1, -EINVAL, &e);
	assert_string_equal(e.path, "proc/vmallocinfo");
	assert_int_equal(e.line, 3);
	assert_string_equal(e.what, "pages= is not a number");

	vread_text(nul, sizeof(nul) - 1, -EINVAL, &e);
	assert_int_equal(e.line, 2);
	assert_string_equal(e.what, "line contains a NUL byte");

	/* an impossible size is a damaged line of the file, named with its line */
	{
		static const char range[] =
			"0xffffffffc0000000-0xffffffffc0005000 20480 load_module+0x857/0x2470 "
			"pages=4 vmalloc N0=4\n"
			"0xffffffffc0005000-0xffffffffc0006000 18446744073709551615 "
			"load_module+0x857/0x2470 pages=18446744073709551615 vmalloc\n";

		vread_text(range, sizeof(range) - 1, -EINVAL, &e);
		assert_int_equal(e.line, 2);
		assert_string_equal(e.what, "size larger than its address range");
		/* and so for a re-read (the incremental parse), which keeps the previous areas */
		vi = NULL;
		assert_int_equal(vmallocinfo_update(&vi, range, (size_t)(strchr(range, '\n') + 1 - range),
						    "proc/vmallocinfo", NULL, &e),
				 0);
		assert_int_equal(vi->n, 1);
		memset(&e, 0, sizeof(e));
		assert_int_equal(vmallocinfo_update(&vi, range, sizeof(range) - 1,
						    "proc/vmallocinfo", NULL, &e),
				 -EINVAL);
		assert_int_equal(e.line, 2);
		assert_string_equal(e.what, "size larger than its address range");
		assert_int_equal(vi->n, 1);
		assert_int_equal(vi->areas[0].size, 20480);
		vmallocinfo_free(vi);
	}

	vread_text("\n", 1, -EINVAL, &e);
	assert_int_equal(e.line, 1);
	assert_string_equal(e.what, "empty line");

	text = malloc(big + 64);
	assert_non_null(text);
	n = sprintf(text, "0x1000-0x3000 8192 ");
	memset(text + n, 'x', big);
	n += big;
	text[n++] = '\n';
	vread_text(text, n, -EINVAL, &e);
	assert_int_equal(e.line, 1);
	assert_string_equal(e.what, "line too long");
	free(text);

	vi = vread_text(unknown, sizeof(unknown) - 1, 0, &e);
	assert_int_equal(vi->n, 3);
	assert_int_equal(vi->unknown_flag_lines, 2);
	vmallocinfo_free(vi);
}

/* ---- meminfo --------------------------------------------------------------------- */

static int mparse(const char *text, struct meminfo *mi, const char **what)
{
	char *copy = strdup(text);
	int r;

	assert_non_null(copy);
	*what = NULL;
	r = meminfo_parse_line(copy, strlen(copy), mi, what);
	free(copy);
	return r;
}

static void test_meminfo_lines(void **state)
{
	struct meminfo mi = { 0 };
	const char *what;
	char nul[] = "VmallocUsed: \0 8532 kB";

	assert_int_equal(mparse("VmallocTotal:   34359738367 kB", &mi, &what), 1);
	assert_true(mi.has_vmalloc_total);
	assert_true(mi.vmalloc_total == 34359738367ull * 1024);
	assert_int_equal(mparse("VmallocUsed:        8532 kB", &mi, &what), 1);
	assert_int_equal(mi.vmalloc_used, 8532 * 1024);
	assert_int_equal(mparse("VmallocChunk:          0 kB", &mi, &what), 1);
	assert_true(mi.has_vmalloc_chunk);
	assert_int_equal(mi.vmalloc_chunk, 0);
	assert_int_equal(mparse("MemTotal:        2014152 kB", &mi, &what), 1);
	assert_int_equal(mi.mem_total, 2014152ull * 1024);
	/* other lines are not ours */
	assert_int_equal(mparse("MemFree:         1794952 kB", &mi, &what), 0);
	assert_int_equal(mparse("HugePages_Total:       0", &mi, &what), 0);
	assert_int_equal(mparse("", &mi, &what), 0);
	assert_int_equal(mparse("garbage", &mi, &what), 0);
	assert_int_equal(mparse("MemTotalish: 5 kB", &mi, &what), 0);
	assert_int_equal(mi.mem_total, 2014152ull * 1024);

	/* the largest kB count that fits in bytes, and the first that does not */
	assert_int_equal(mparse("VmallocTotal: 18014398509481983 kB", &mi, &what), 1);
	assert_true(mi.vmalloc_total == UINT64_MAX - 1023);
	assert_int_equal(mparse("VmallocTotal: 18014398509481984 kB", &mi, &what), -EINVAL);
	assert_string_equal(what, "value out of range");
	assert_int_equal(mparse("VmallocUsed: 99999999999999999999 kB", &mi, &what), -EINVAL);
	assert_string_equal(what, "value is not a number");
	assert_int_equal(mparse("VmallocUsed: abc kB", &mi, &what), -EINVAL);
	assert_string_equal(what, "value is not a number");
	assert_int_equal(mparse("VmallocUsed: -5 kB", &mi, &what), -EINVAL);
	assert_string_equal(what, "value is not a number");
	assert_int_equal(mparse("VmallocUsed:  kB", &mi, &what), -EINVAL);
	assert_string_equal(what, "value is not a number");
	assert_int_equal(mparse("VmallocUsed: 8532", &mi, &what), -EINVAL);
	assert_string_equal(what, "value has no kB unit");
	assert_int_equal(mi.vmalloc_used, 8532 * 1024);	/* untouched by failures */

	what = NULL;
	assert_int_equal(meminfo_parse_line(nul, sizeof(nul) - 1, &mi, &what), -EINVAL);
	assert_string_equal(what, "line contains a NUL byte");
}

static void test_meminfo_read(void **state)
{
	static const struct {
		const char *root;
		uint64_t total_kb, used_kb, mem_kb;
	} fx[] = {
		{ FX_61, 34359738367ull, 8532, 2014152 },
		{ FX_612, 34359738367ull, 8828, 2021156 },
		{ FX_CUSTOM, 34359738367ull, 3476, 2025608 },
	};
	struct kt_root *root;
	struct meminfo mi;
	struct kt_err e;
	char *dir;

	for (size_t i = 0; i < sizeof(fx) / sizeof(fx[0]); i++) {
		memset(&mi, 0, sizeof(mi));
		assert_int_equal(root_new(fx[i].root, &root), 0);
		assert_int_equal(meminfo_read(root, &mi, &e), 0);
		assert_true(mi.has_vmalloc_total && mi.has_vmalloc_used && mi.has_vmalloc_chunk &&
			    mi.has_mem_total);
		assert_true(mi.vmalloc_total == fx[i].total_kb * 1024);
		assert_true(mi.vmalloc_used == fx[i].used_kb * 1024);
		assert_true(mi.mem_total == fx[i].mem_kb * 1024);
		assert_int_equal(mi.vmalloc_chunk, 0);
		root_free(root);
	}

	dir = make_tmpdir();
	assert_int_equal(root_new(dir, &root), 0);
	memset(&e, 0, sizeof(e));
	assert_int_equal(meminfo_read(root, &mi, &e), -ENOENT);
	assert_string_equal(e.path, "proc/meminfo");

	/* a kernel without the vmalloc lines: read, nothing set */
	write_str(dir, "proc/meminfo", "MemTotal:        2014152 kB\nMemFree: 1 kB\n");
	memset(&mi, 0xff, sizeof(mi));
	assert_int_equal(meminfo_read(root, &mi, &e), 0);
	assert_true(mi.has_mem_total);
	assert_false(mi.has_vmalloc_total);
	assert_false(mi.has_vmalloc_used);

	write_str(dir, "proc/meminfo", "MemTotal:        2014152 kB\nMemFree: 1 kB\n"
				       "VmallocTotal:   lots kB\n");
	memset(&e, 0, sizeof(e));
	assert_int_equal(meminfo_read(root, &mi, &e), -EINVAL);
	assert_string_equal(e.path, "proc/meminfo");
	assert_int_equal(e.line, 3);
	assert_string_equal(e.what, "value is not a number");

	write_file(dir, "proc/meminfo", "MemTotal: 1 kB\nMemFree:\0 1 kB\n", 30);
	memset(&e, 0, sizeof(e));
	assert_int_equal(meminfo_read(root, &mi, &e), -EINVAL);
	assert_int_equal(e.line, 2);
	assert_string_equal(e.what, "line contains a NUL byte");
	root_free(root);
	remove_tree(dir);
}

/* ---- tainted --------------------------------------------------------------------- */

static void test_tainted(void **state)
{
	struct kt_root *root;
	struct kt_err e;
	uint64_t v = 7;
	char buf[32], big[65], *dir;

	assert_int_equal(tainted_parse("0\n", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(tainted_parse("12289\n", &v), 0);
	assert_int_equal(v, 12289);
	assert_int_equal(tainted_parse("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	v = 7;
	assert_int_equal(tainted_parse("", &v), -EINVAL);
	assert_int_equal(tainted_parse("\n", &v), -EINVAL);
	assert_int_equal(tainted_parse("-1\n", &v), -EINVAL);
	assert_int_equal(tainted_parse("0x10\n", &v), -EINVAL);
	assert_int_equal(tainted_parse("1\n2\n", &v), -EINVAL);
	assert_int_equal(tainted_parse("12345678901234567890123456789012345\n", &v), -EINVAL);
	assert_int_equal(v, 7);

	/* kernel/panic.c taint_flags[]: P=0, O=12, E=13 */
	assert_string_equal(tainted_letters(0, buf, sizeof(buf)), "");
	assert_string_equal(tainted_letters(1u << 0 | 1u << 12 | 1u << 13, buf, sizeof(buf)),
			    "POE");
	assert_string_equal(tainted_letters(1u << 9, buf, sizeof(buf)), "W");
	assert_string_equal(tainted_letters(1u << 15, buf, sizeof(buf)), "K");
	assert_string_equal(tainted_letters(1u << 19, buf, sizeof(buf)), "J");
	assert_string_equal(tainted_letters(0xfffff, buf, sizeof(buf)), "PFSRMBUDAWCIOELKXTNJ");
	assert_string_equal(tainted_letters(1ull << 20 | 1ull << 63, buf, sizeof(buf)), "??");
	/* a short buffer is cut, NUL-terminated */
	memset(buf, 'z', sizeof(buf));
	assert_string_equal(tainted_letters(0xfffff, buf, 4), "PFS");
	assert_int_equal(buf[4], 'z');

	assert_int_equal(root_new(FX_61, &root), 0);
	v = 7;
	assert_int_equal(tainted_read(root, &v, &e), 0);
	assert_int_equal(v, 0);
	root_free(root);

	dir = make_tmpdir();
	assert_int_equal(root_new(dir, &root), 0);
	memset(&e, 0, sizeof(e));
	assert_int_equal(tainted_read(root, &v, &e), -ENOENT);
	assert_string_equal(e.path, "proc/sys/kernel/tainted");
	write_str(dir, "proc/sys/kernel/tainted", "12289\n");
	assert_int_equal(tainted_read(root, &v, &e), 0);
	assert_int_equal(v, 12289);
	assert_string_equal(tainted_letters(v, buf, sizeof(buf)), "POE");
	write_str(dir, "proc/sys/kernel/tainted", "tainted\n");
	memset(&e, 0, sizeof(e));
	assert_int_equal(tainted_read(root, &v, &e), -EINVAL);
	assert_int_equal(e.line, 1);
	assert_string_equal(e.what, "value is not a number");
	write_file(dir, "proc/sys/kernel/tainted", "1\0002\n", 4);
	assert_int_equal(tainted_read(root, &v, &e), -EINVAL);
	assert_string_equal(e.what, "value is not a number");
	memset(big, '1', sizeof(big));
	write_file(dir, "proc/sys/kernel/tainted", big, sizeof(big));
	memset(&e, 0, sizeof(e));
	assert_int_equal(tainted_read(root, &v, &e), -EINVAL);
	assert_string_equal(e.what, "value too long");
	assert_int_equal(v, 12289);
	root_free(root);
	remove_tree(dir);
}

/* ---- boot_id --------------------------------------------------------------------- */

static void test_boot_id(void **state)
{
	static const char good[] = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
	struct kt_root *root;
	struct kt_err e;
	char id[BOOT_ID_LEN + 1], big[200], *dir;

	assert_int_equal(boot_id_parse(good, strlen(good), id), 0);
	assert_string_equal(id, good);
	assert_int_equal(boot_id_parse("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0\n", 37, id), 0);
	assert_string_equal(id, good);
	/* wrong length, dashes, case, a NUL, a second line, a terminal escape */
	assert_int_equal(boot_id_parse("", 0, id), -EINVAL);
	assert_int_equal(boot_id_parse("\n", 1, id), -EINVAL);
	assert_int_equal(boot_id_parse(good, strlen(good) - 1, id), -EINVAL);
	assert_int_equal(boot_id_parse("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f00", 37, id), -EINVAL);
	assert_int_equal(boot_id_parse("0f1e2d3c4b5a-6978-8796-a5b4c3d2e1f0-", 36, id), -EINVAL);
	assert_int_equal(boot_id_parse("0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0", 36, id), -EINVAL);
	assert_int_equal(boot_id_parse("0f1e2d3c-4b5a-6978-8796-a5b4c3d2\0e1f", 36, id), -EINVAL);
	assert_int_equal(boot_id_parse("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0\n\n", 38, id), -EINVAL);
	assert_int_equal(boot_id_parse("0f1e2d3c-4b5a-6978-8796-a5b4c3d2\033[2J", 36, id), -EINVAL);

	dir = make_tmpdir();
	assert_int_equal(root_new(dir, &root), 0);
	memset(&e, 0, sizeof(e));
	assert_int_equal(boot_id_read(root, id, &e), -ENOENT);
	assert_string_equal(e.path, "proc/sys/kernel/random/boot_id");
	write_str(dir, "proc/sys/kernel/random/boot_id", "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0\n");
	assert_int_equal(boot_id_read(root, id, &e), 0);
	assert_string_equal(id, good);
	write_str(dir, "proc/sys/kernel/random/boot_id", "not a uuid\n");
	memset(&e, 0, sizeof(e));
	assert_int_equal(boot_id_read(root, id, &e), -EINVAL);
	assert_int_equal(e.line, 1);
	assert_string_equal(e.what, "not a UUID");
	memset(big, 'a', sizeof(big));
	write_file(dir, "proc/sys/kernel/random/boot_id", big, sizeof(big));
	memset(&e, 0, sizeof(e));
	assert_int_equal(boot_id_read(root, id, &e), -EINVAL);
	assert_string_equal(e.what, "value too long");
	root_free(root);
	remove_tree(dir);
}

/* ---- module symbols (record's bundle) ---------------------------------------------- */

/* /proc/kallsyms as a 6.12 guest printed it, as root: the kernel's own lines, a module's */
static const char kallsyms_612[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 t do_one_initcall\n"
	"ffffffffc0545000 t af_alg_link_sg\t[af_alg]\n"
	"ffffffffc0545580 t alg_bind\t[af_alg]\n"
	"ffffffffc0545700 T af_alg_release\t[af_alg]\n"
	"ffffffffc0548000 d af_alg_ops\t[af_alg]\n"
	"ffffffffc0550000 t tun_chr_open\t[tun]\n"
	"ffffffffc0550400 t tun_get_user\t[tun]\n";

static void test_modsyms(void **state)
{
	struct kt_root *root;
	struct modsyms *ms = NULL;
	struct kt_err e = { 0 };
	const char *mod = NULL, *what = NULL, *name, *m;
	size_t nl, ml, n = 0;
	uint64_t addr;
	char *dir, *buf = NULL;
	size_t bl = 0;
	FILE *in, *out;

	(void)state;
	/* record keeps the module text lines only */
	in = fmemopen((void *)kallsyms_612, strlen(kallsyms_612), "r");
	out = open_memstream(&buf, &bl);
	assert_non_null(in);
	assert_non_null(out);
	assert_int_equal(modsyms_filter(in, out, &n), 0);
	fclose(in);
	fclose(out);
	assert_int_equal(n, 5);
	assert_null(strstr(buf, "_stext"));
	assert_null(strstr(buf, "af_alg_ops"));
	assert_non_null(strstr(buf, "ffffffffc0545580 t alg_bind\t[af_alg]\n"));

	dir = make_tmpdir();
	assert_int_equal(root_new(dir, &root), 0);
	assert_int_equal(modsyms_read(root, &ms, &e), -ENOENT);
	assert_string_equal(e.path, MODSYMS_PATH);
	write_str(dir, MODSYMS_PATH, buf);
	free(buf);
	assert_int_equal(modsyms_read(root, &ms, &e), 0);
	assert_int_equal(modsyms_count(ms), 5);
	/* the call site the bundle left raw: alg_bind+0x29 in af_alg */
	assert_string_equal(modsyms_lookup(ms, 0xffffffffc05455a9ull, &mod), "alg_bind");
	assert_string_equal(mod, "af_alg");
	assert_string_equal(modsyms_lookup(ms, 0xffffffffc0545580ull, NULL), "alg_bind");
	assert_string_equal(modsyms_lookup(ms, 0xffffffffc0550401ull, &mod), "tun_get_user");
	assert_string_equal(mod, "tun");
	/* below every module, or far past the last function: nothing */
	assert_null(modsyms_lookup(ms, 0xffffffff81001010ull, NULL));
	assert_null(modsyms_lookup(ms, 0xffffffffc0550400ull + MODSYMS_REACH, NULL));
	ms = modsyms_free(ms);

	/* not kallsyms: refused with the line; zero addresses (no CAP_SYSLOG) kept out */
	write_str(dir, MODSYMS_PATH, "0000000000000000 t alg_bind\t[af_alg]\nnot kallsyms\n");
	memset(&e, 0, sizeof(e));
	assert_int_equal(modsyms_read(root, &ms, &e), -EINVAL);
	assert_int_equal(e.line, 2);
	assert_int_equal(modsyms_parse_line("0000000000000000 t x\t[m]", 24, &addr, &name, &nl,
					    &m, &ml, &what), 0);
	assert_int_equal(modsyms_parse_line("ffffffffc0545580 t x\t[m", 23, &addr, &name, &nl,
					    &m, &ml, &what), -EINVAL);
	assert_int_equal(modsyms_parse_line("1ffffffffc0545580 t x\t[m]", 25, &addr, &name, &nl,
					    &m, &ml, &what), -EINVAL);
	root_free(root);
	remove_tree(dir);
}

/* ---- modstats -------------------------------------------------------------------- */

static struct modstats *msparse(const char *text, int want_r, struct kt_err *e)
{
	struct modstats *ms = NULL;

	memset(e, 0, sizeof(*e));
	assert_int_equal(modstats_parse(text, strlen(text), "stats", &ms, e), want_r);
	if (want_r < 0)
		assert_null(ms);
	return ms;
}

static void test_modstats_fixture(void **state)
{
	struct modstats *ms = NULL;
	struct kt_root *root;
	struct kt_err e = { 0 };

	assert_int_equal(root_new(FX_CUSTOM, &root), 0);
	assert_int_equal(modstats_read(root, &ms, &e), 0);
	root_free(root);
	assert_true(ms->has[MODSTAT_MODS_LOADED]);
	assert_int_equal(ms->v[MODSTAT_MODS_LOADED], 6);
	assert_int_equal(ms->v[MODSTAT_FAILED_KREAD], 0);
	assert_int_equal(ms->v[MODSTAT_FAILED_BECOMING], 14);
	assert_int_equal(ms->v[MODSTAT_FAILED_LOAD], 12);
	assert_int_equal(ms->v[MODSTAT_TOTAL_SIZE], 6152192);
	assert_int_equal(ms->v[MODSTAT_TEXT_SIZE], 1855488);
	assert_int_equal(ms->v[MODSTAT_FAILED_BECOMING_BYTES], 49777884);
	assert_int_equal(ms->v[MODSTAT_FAILED_KMOD_BYTES], 28528416);
	assert_int_equal(ms->v[MODSTAT_WASTED_BYTES], 78306300);
	assert_int_equal(ms->v[MODSTAT_AVG_FAIL_LOAD_BYTES], 2377368);
	/* the kernel only prints the decompress/kread averages when nonzero */
	assert_false(ms->has[MODSTAT_AVG_FAIL_KREAD_BYTES]);
	assert_false(ms->has[MODSTAT_AVG_FAIL_DECOMPRESS_BYTES]);
	assert_int_equal(ms->n_extra, 0);
	assert_int_equal(ms->n_dups, 1);
	assert_string_equal(ms->dups[0].name, "xfs");
	assert_int_equal(ms->dups[0].count, 9);
	assert_string_equal(ms->dups[0].reason, "Becoming");
	modstats_free(ms);
	assert_null(modstats_free(NULL));

	/* labels and keys come from one table */
	assert_string_equal(modstat_key(MODSTAT_WASTED_BYTES), "virtual_mem_wasted_bytes");
	assert_string_equal(modstat_label(MODSTAT_MODS_LOADED), "Mods ever loaded");
	assert_null(modstat_key(_MODSTAT_MAX));
	assert_null(modstat_label(_MODSTAT_MAX));
	for (int c = 0; c < _MODSTAT_MAX; c++) {
		assert_non_null(modstat_key(c));
		assert_non_null(modstat_label(c));
	}
}

static void test_modstats_old_labels(void **state)
{
	/* the 20230328-module-alloc-opts spelling */
	static const char old[] = "           Modules loaded\t4\n"
				  "     Mods failed on kread\t0\n"
				  "  Mods failed on becoming\t2\n"
				  "      Mods failed on load\t1\n"
				  " Virtual mem wasted bytes\t12345\n"
				  "Failed modules:\n"
				  "              module-name\t how-many-times\t reason\n"
				  "                      xfs\t              2\t               Becoming\n"
				  "                     sctp\t              1\t                   Load\n";
	struct modstats *ms;
	struct kt_err e;

	ms = msparse(old, 0, &e);
	assert_true(ms->has[MODSTAT_MODS_LOADED]);
	assert_int_equal(ms->v[MODSTAT_MODS_LOADED], 4);
	assert_int_equal(ms->v[MODSTAT_FAILED_BECOMING], 2);
	assert_int_equal(ms->v[MODSTAT_FAILED_LOAD], 1);
	assert_int_equal(ms->v[MODSTAT_WASTED_BYTES], 12345);
	assert_int_equal(ms->n_dups, 2);
	assert_string_equal(ms->dups[1].name, "sctp");
	assert_int_equal(ms->dups[1].count, 1);
	assert_string_equal(ms->dups[1].reason, "Load");
	modstats_free(ms);
}

static void test_modstats_dups_and_extra(void **state)
{
	static const char text[] = "         Mods ever loaded\t6\r\n"
				   "   Mods failed on warp drive\t3\n"
				   "\n"
				   "Duplicate failed modules:\n"
				   "              Module-name\t How-many-times\t                   Reason\n"
				   "                      xfs\t              9\t        Becoming & Load\n"
				   "                   libfoo\t              1\t           Bug-on-stats\n";
	static const char no_dups[] = "Mods ever loaded\t0\n";
	struct modstats *ms;
	struct kt_err e;

	ms = msparse(text, 0, &e);
	assert_int_equal(ms->v[MODSTAT_MODS_LOADED], 6);
	/* an unknown counter is kept */
	assert_int_equal(ms->n_extra, 1);
	assert_string_equal(ms->extra[0].label, "Mods failed on warp drive");
	assert_int_equal(ms->extra[0].value, 3);
	assert_int_equal(ms->n_dups, 2);
	assert_string_equal(ms->dups[0].name, "xfs");
	assert_int_equal(ms->dups[0].count, 9);
	assert_string_equal(ms->dups[0].reason, "Becoming & Load");
	assert_string_equal(ms->dups[1].reason, "Bug-on-stats");
	modstats_free(ms);

	ms = msparse(no_dups, 0, &e);
	assert_int_equal(ms->n_dups, 0);
	assert_int_equal(ms->v[MODSTAT_MODS_LOADED], 0);
	modstats_free(ms);
}

static void test_modstats_malformed(void **state)
{
	static const char nul[] = "Mods ever loaded\t6\nMods failed\0 on kread\t0\n";
	struct modstats *ms = NULL;
	struct kt_err e;

	msparse("", -EINVAL, &e);
	assert_string_equal(e.path, "stats");
	assert_int_equal(e.line, 1);
	assert_string_equal(e.what, "no module statistics counters found");

	msparse("\n\n\n", -EINVAL, &e);
	assert_int_equal(e.line, 3);
	assert_string_equal(e.what, "no module statistics counters found");

	msparse("garbage\n", -EINVAL, &e);
	assert_int_equal(e.line, 1);
	assert_string_equal(e.what, "counter line has no tab");

	/* truncated in the middle of a line */
	msparse("Mods ever loaded\t6\nMods failed on kr", -EINVAL, &e);
	assert_int_equal(e.line, 2);
	assert_string_equal(e.what, "counter line has no tab");

	msparse("Mods ever loaded\t6\nMods failed on kread\tmany\n", -EINVAL, &e);
	assert_int_equal(e.line, 2);
	assert_string_equal(e.what, "counter value is not a number");

	msparse("Mods ever loaded\t-6\n", -EINVAL, &e);
	assert_string_equal(e.what, "counter value is not a number");

	msparse("\t6\n", -EINVAL, &e);
	assert_string_equal(e.what, "counter has no label");

	msparse("Mods ever loaded\t6\nDuplicate failed modules:\nModule-name\tn\tReason\nxfs\t9\n",
		-EINVAL, &e);
	assert_int_equal(e.line, 4);
	assert_string_equal(e.what, "duplicate entry has fewer than 3 tab-separated fields");

	msparse("Mods ever loaded\t6\nDuplicate failed modules:\nxfs\tnine\tLoad\n", -EINVAL, &e);
	assert_int_equal(e.line, 3);
	assert_string_equal(e.what, "duplicate entry count is not a number");

	msparse("Mods ever loaded\t6\nDuplicate failed modules:\n   \t9\tLoad\n", -EINVAL, &e);
	assert_string_equal(e.what, "duplicate entry count is not a number");

	memset(&e, 0, sizeof(e));
	assert_int_equal(modstats_parse(nul, sizeof(nul) - 1, "stats", &ms, &e), -EINVAL);
	assert_null(ms);
	assert_int_equal(e.line, 2);
	assert_string_equal(e.what, "line contains a NUL byte");

	/* only @len bytes count: the rest of the buffer is not read */
	assert_int_equal(modstats_parse("Mods ever loaded\t6\ngarbage", 19, "stats", &ms, &e), 0);
	assert_int_equal(ms->v[MODSTAT_MODS_LOADED], 6);
	modstats_free(ms);
}

static void test_modstats_read_root(void **state)
{
	struct modstats *ms = NULL;
	struct kt_root *root;
	struct kt_err e;
	char *dir = make_tmpdir(), *big;

	assert_int_equal(root_new(dir, &root), 0);
	memset(&e, 0, sizeof(e));
	assert_int_equal(modstats_read(root, &ms, &e), -ENOENT);
	assert_string_equal(e.path, "sys/kernel/debug/modules/stats");

	write_str(dir, "sys/kernel/debug/modules/stats", "Mods ever loaded\t6\nbroken line\n");
	memset(&e, 0, sizeof(e));
	assert_int_equal(modstats_read(root, &ms, &e), -EINVAL);
	assert_null(ms);
	assert_string_equal(e.path, "sys/kernel/debug/modules/stats");
	assert_int_equal(e.line, 2);

	big = malloc((1 << 20) + 2);
	assert_non_null(big);
	memset(big, '\n', (1 << 20) + 2);
	write_file(dir, "sys/kernel/debug/modules/stats", big, (1 << 20) + 2);
	free(big);
	memset(&e, 0, sizeof(e));
	assert_int_equal(modstats_read(root, &ms, &e), -EINVAL);
	assert_string_equal(e.what, "file larger than 1 MiB");
	root_free(root);
	remove_tree(dir);
}

/* ---- kconfig --------------------------------------------------------------------- */

static void test_kconfig_lines(void **state)
{
	const char *name, *value, *what;
	char l1[] = "CONFIG_MODULES=y", l2[] = "CONFIG_XFS_FS=m",
	     l3[] = "CONFIG_MODULE_SIG_HASH=\"sha512\"", l4[] = "# CONFIG_MODULE_STATS is not set",
	     l5[] = "# Automatically generated file; DO NOT EDIT.", l6[] = "", l7[] = "CONFIG_X=y\r",
	     l8[] = "garbage", l9[] = "FOO=y", l10[] = "CONFIG_=y", l11[] = "CONFIG_A B=y",
	     l12[] = "# CONFIG_ is not set", l13[] = "CONFIG_EMPTY=", l14[] = "CONFIG_A=y\0=m";

	assert_int_equal(kconfig_parse_line(l1, strlen(l1), &name, &value, &what), 1);
	assert_string_equal(name, "CONFIG_MODULES");
	assert_string_equal(value, "y");
	assert_int_equal(kconfig_parse_line(l2, strlen(l2), &name, &value, &what), 1);
	assert_string_equal(value, "m");
	assert_int_equal(kconfig_parse_line(l3, strlen(l3), &name, &value, &what), 1);
	assert_string_equal(name, "CONFIG_MODULE_SIG_HASH");
	assert_string_equal(value, "\"sha512\"");
	assert_int_equal(kconfig_parse_line(l4, strlen(l4), &name, &value, &what), 1);
	assert_string_equal(name, "CONFIG_MODULE_STATS");
	assert_string_equal(value, "n");
	assert_int_equal(kconfig_parse_line(l5, strlen(l5), &name, &value, &what), 0);
	assert_int_equal(kconfig_parse_line(l6, strlen(l6), &name, &value, &what), 0);
	assert_int_equal(kconfig_parse_line(l7, strlen(l7), &name, &value, &what), 1);
	assert_string_equal(value, "y");
	assert_int_equal(kconfig_parse_line(l12, strlen(l12), &name, &value, &what), 0);
	assert_int_equal(kconfig_parse_line(l13, strlen(l13), &name, &value, &what), 1);
	assert_string_equal(value, "");

	what = NULL;
	assert_int_equal(kconfig_parse_line(l8, strlen(l8), &name, &value, &what), -EINVAL);
	assert_string_equal(what, "expected CONFIG_NAME=value");
	assert_int_equal(kconfig_parse_line(l9, strlen(l9), &name, &value, &what), -EINVAL);
	assert_int_equal(kconfig_parse_line(l10, strlen(l10), &name, &value, &what), -EINVAL);
	assert_int_equal(kconfig_parse_line(l11, strlen(l11), &name, &value, &what), -EINVAL);
	assert_int_equal(kconfig_parse_line(l14, sizeof(l14) - 1, &name, &value, &what), -EINVAL);
	assert_string_equal(what, "line contains a NUL byte");
}

static void test_kconfig_parse(void **state)
{
	static const char text[] = "#\n"
				   "# Automatically generated file; DO NOT EDIT.\n"
				   "#\n"
				   "CONFIG_MODULES=y\n"
				   "CONFIG_XFS_FS=m\n"
				   "CONFIG_MODULE_SIG_HASH=\"sha512\"\n"
				   "# CONFIG_MODULE_STATS is not set\n"
				   "\n"
				   "CONFIG_LOG_BUF_SHIFT=17";	/* no final newline */
	static const char broken[] = "CONFIG_A=y\n# c\nCONFIG_B=y\nbroken\nCONFIG_C=y\n";
	struct kconfig *kc = NULL;
	struct kt_err e = { 0 };

	assert_int_equal(kconfig_parse(text, sizeof(text) - 1, "boot/config-x", &kc, &e), 0);
	assert_int_equal(kc->n, 5);
	assert_string_equal(kc->source, "boot/config-x");
	assert_string_equal(kconfig_get(kc, "CONFIG_MODULES"), "y");
	assert_string_equal(kconfig_get(kc, "CONFIG_XFS_FS"), "m");
	assert_string_equal(kconfig_get(kc, "CONFIG_MODULE_SIG_HASH"), "\"sha512\"");
	assert_string_equal(kconfig_get(kc, "CONFIG_MODULE_STATS"), "n");
	assert_string_equal(kconfig_get(kc, "CONFIG_LOG_BUF_SHIFT"), "17");
	assert_null(kconfig_get(kc, "CONFIG_NOPE"));
	assert_null(kconfig_get(kc, "MODULES"));
	assert_true(kconfig_enabled(kc, "CONFIG_MODULES"));
	assert_true(kconfig_enabled(kc, "CONFIG_XFS_FS"));
	assert_false(kconfig_enabled(kc, "CONFIG_MODULE_STATS"));
	assert_false(kconfig_enabled(kc, "CONFIG_MODULE_SIG_HASH"));
	assert_false(kconfig_enabled(kc, "CONFIG_NOPE"));
	kconfig_free(kc);
	assert_null(kconfig_free(NULL));
	assert_null(kconfig_get(NULL, "CONFIG_MODULES"));

	/* no entries at all (fuzz-kconfig: qsort() of a NULL array, caught by UBSan) */
	kc = NULL;
	assert_int_equal(kconfig_parse("", 0, "x", &kc, &e), 0);
	assert_int_equal(kc->n, 0);
	assert_null(kconfig_get(kc, "CONFIG_MODULES"));
	kconfig_free(kc);
	kc = NULL;
	assert_int_equal(kconfig_parse("#\n# CONFIG_ is not set\n\n", 24, "x", &kc, &e), 0);
	assert_int_equal(kc->n, 0);
	assert_false(kconfig_enabled(kc, "CONFIG_MODULES"));
	kconfig_free(kc);

	kc = NULL;
	assert_int_equal(kconfig_parse(broken, strlen(broken), "boot/config-x", &kc, &e), -EINVAL);
	assert_null(kc);
	assert_string_equal(e.path, "boot/config-x");
	assert_int_equal(e.line, 4);
	assert_string_equal(e.what, "expected CONFIG_NAME=value");

	assert_int_equal(kconfig_parse("CONFIG_A=y\nCONFIG_B\0=y\n", 23, "c", &kc, &e), -EINVAL);
	assert_int_equal(e.line, 2);
	assert_string_equal(e.what, "line contains a NUL byte");
}

static void test_kconfig_read_fixtures(void **state)
{
	static const struct {
		const char *root, *release, *stats;
	} fx[] = {
		{ FX_61, "6.1.0-57-amd64", NULL },
		{ FX_612, "6.12.118+deb12-amd64", NULL },
		{ FX_CUSTOM, "6.12.118", "y" },
	};

	for (size_t i = 0; i < sizeof(fx) / sizeof(fx[0]); i++) {
		struct kconfig *kc = NULL;
		struct kt_root *root;
		struct kt_err e = { 0 };
		char want[128];
		const char *v;

		assert_int_equal(root_new(fx[i].root, &root), 0);
		assert_int_equal(kconfig_read(root, fx[i].release, &kc, &e), 0);
		snprintf(want, sizeof(want), "boot/config-%s", fx[i].release);
		assert_string_equal(kc->source, want);
		assert_true(kc->n > 1000);
		assert_string_equal(kconfig_get(kc, "CONFIG_MODULES"), "y");
		v = kconfig_get(kc, "CONFIG_MODULE_STATS");
		if (fx[i].stats)
			assert_string_equal(v, fx[i].stats);
		else
			assert_true(v == NULL || strcmp(v, "n") == 0);
		/* sorted for bsearch: every entry finds itself */
		for (size_t j = 0; j < kc->n; j += 97)
			assert_ptr_equal(kconfig_get(kc, kc->e[j].name), kc->e[j].value);
		kconfig_free(kc);

		/* a release that is not there: proc/config.gz, also missing */
		kc = NULL;
		memset(&e, 0, sizeof(e));
		assert_int_equal(kconfig_read(root, "9.9.9", &kc, &e), -ENOENT);
		assert_null(kc);
		assert_string_equal(e.path, "proc/config.gz");
		/* a release is a file name, never a path */
		assert_int_equal(kconfig_read(root, "../boot/config-6.1.0-57-amd64", &kc, &e),
				 -ENOENT);
		root_free(root);
	}
}

static void write_gz(const char *dir, const char *rel, const char *text, size_t len,
		     size_t repeat)
{
	char *p = prepare_path(dir, rel);
	gzFile gz = gzopen(p, "wb");

	assert_non_null(gz);
	for (size_t i = 0; i < repeat; i++)
		assert_int_equal(gzwrite(gz, text, (unsigned int)len), (int)len);
	assert_int_equal(gzclose(gz), Z_OK);
	free(p);
}

static void test_kconfig_read_gz(void **state)
{
	static const char cfg[] = "#\n# Linux/x86 6.12.0 Kernel Configuration\n#\n"
				  "CONFIG_MODULES=y\n"
				  "CONFIG_MODULE_COMPRESS_XZ=y\n"
				  "# CONFIG_MODULE_STATS is not set\n"
				  "CONFIG_IKCONFIG_PROC=y\n";
	struct kconfig *kc = NULL;
	struct kt_root *root;
	struct kt_err e = { 0 };
	char *dir = make_tmpdir(), *path, *gz;
	size_t len;

	assert_int_equal(root_new(dir, &root), 0);
	write_gz(dir, "proc/config.gz", cfg, sizeof(cfg) - 1, 1);
	assert_int_equal(kconfig_read(root, "6.12.0", &kc, &e), 0);
	assert_string_equal(kc->source, "proc/config.gz");
	assert_int_equal(kc->n, 4);
	assert_true(kconfig_enabled(kc, "CONFIG_MODULE_COMPRESS_XZ"));
	assert_string_equal(kconfig_get(kc, "CONFIG_MODULE_STATS"), "n");
	kconfig_free(kc);
	kc = NULL;
	/* also without a release */
	assert_int_equal(kconfig_read(root, NULL, &kc, &e), 0);
	assert_string_equal(kc->source, "proc/config.gz");
	kconfig_free(kc);
	kc = NULL;

	/* boot/config-RELEASE wins over proc/config.gz */
	write_str(dir, "boot/config-6.12.0", "CONFIG_MODULES=m\n");
	assert_int_equal(kconfig_read(root, "6.12.0", &kc, &e), 0);
	assert_string_equal(kc->source, "boot/config-6.12.0");
	assert_string_equal(kconfig_get(kc, "CONFIG_MODULES"), "m");
	kconfig_free(kc);
	kc = NULL;

	/* a parse error inside the gz names the gz */
	write_gz(dir, "proc/config.gz", "CONFIG_A=y\nnot a config line\n", 29, 1);
	memset(&e, 0, sizeof(e));
	assert_int_equal(kconfig_read(root, "1.0", &kc, &e), -EINVAL);
	assert_string_equal(e.path, "proc/config.gz");
	assert_int_equal(e.line, 2);

	/* a damaged CRC-32 trailer */
	write_gz(dir, "proc/config.gz", cfg, sizeof(cfg) - 1, 1);
	assert_true(asprintf(&path, "%s/proc/config.gz", dir) > 0);
	gz = read_file(path, &len);
	gz[len - 8] ^= 0xff;
	write_file(dir, "proc/config.gz", gz, len);
	memset(&e, 0, sizeof(e));
	assert_int_equal(kconfig_read(root, "1.0", &kc, &e), -EINVAL);
	assert_null(kc);
	assert_string_equal(e.path, "proc/config.gz");
	assert_string_equal(e.what, "corrupt gzip data");

	/* garbage after a valid gzip header */
	memset(gz + 10, 0xff, len - 10);
	write_file(dir, "proc/config.gz", gz, len);
	memset(&e, 0, sizeof(e));
	assert_int_equal(kconfig_read(root, "1.0", &kc, &e), -EINVAL);
	assert_string_equal(e.what, "corrupt gzip data");
	free(gz);

	/* a truncated file is corrupt too, not a shorter config */
	write_gz(dir, "proc/config.gz", cfg, sizeof(cfg) - 1, 200);
	gz = read_file(path, &len);
	write_file(dir, "proc/config.gz", gz, len / 2);
	memset(&e, 0, sizeof(e));
	assert_int_equal(kconfig_read(root, "1.0", &kc, &e), -EINVAL);
	assert_null(kc);
	assert_string_equal(e.what, "corrupt gzip data");
	free(gz);

	/* a gzip bomb stops at 16 MiB */
	write_gz(dir, "proc/config.gz", "# padding padding padding padding padding pad\n", 47,
		 (17u << 20) / 47);
	memset(&e, 0, sizeof(e));
	assert_int_equal(kconfig_read(root, "1.0", &kc, &e), -EINVAL);
	assert_string_equal(e.what, "file larger than 16 MiB");

	free(path);
	root_free(root);
	remove_tree(dir);
}

/* ---- sys/module ------------------------------------------------------------------ */

static void test_sys_module_fixtures(void **state)
{
	static const char *const roots[] = { FX_61, FX_612, FX_CUSTOM };

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		struct proc_modules *pm = NULL;
		struct kt_root *root;
		struct kt_err e = { 0 };
		char comp[16];

		assert_int_equal(root_new(roots[i], &root), 0);
		assert_int_equal(proc_modules_read(root, &pm, &e), 0);
		for (size_t j = 0; j < pm->n; j++) {
			const struct proc_module *m = &pm->mods[j];
			struct sys_module sm;

			memset(&sm, 0, sizeof(sm));
			assert_int_equal(sys_module_read(root, m->name, &sm, &e), 0);
			assert_true(sm.has_coresize && sm.has_initsize && sm.has_refcnt);
			/* proc/modules counts every memory type, init included */
			assert_int_equal(sm.coresize + sm.initsize, m->size);
			assert_int_equal(sm.refcnt, m->refcount);
			assert_string_equal(sm.initstate, "live");
			assert_string_equal(sm.taint, m->taint);
			sys_module_done(&sm);
			assert_null(sm.holders);
		}
		assert_int_equal(sys_module_read(root, "not_loaded", &(struct sys_module){ 0 }, &e),
				 -ENOENT);
		memset(comp, 0, sizeof(comp));
		if (strcmp(roots[i], FX_612) == 0) {
			assert_int_equal(sys_module_compression_read(root, comp, sizeof(comp), &e),
					 0);
			assert_string_equal(comp, "xz");
		}
		proc_modules_free(pm);
		root_free(root);
	}
	sys_module_done(NULL);
}

static void expect_sys_error(struct kt_root *root, const char *name, const char *path,
			     unsigned int line, const char *what)
{
	struct sys_module sm;
	struct kt_err e;

	memset(&e, 0, sizeof(e));
	memset(&sm, 0x5a, sizeof(sm));
	assert_int_equal(sys_module_read(root, name, &sm, &e), -EINVAL);
	assert_string_equal(e.path, path);
	assert_int_equal(e.line, line);
	assert_non_null(e.what);
	assert_string_equal(e.what, what);
}

static void test_sys_module_malformed(void **state)
{
	struct kt_root *root;
	struct sys_module sm;
	struct kt_err e = { 0 };
	char *dir = make_tmpdir(), big[5000];

	assert_int_equal(root_new(dir, &root), 0);

	/* a builtin module: a directory without the load attributes */
	write_str(dir, "sys/module/builtin/parameters/x", "1\n");
	memset(&sm, 0x5a, sizeof(sm));
	assert_int_equal(sys_module_read(root, "builtin", &sm, &e), 0);
	assert_false(sm.has_coresize);
	assert_false(sm.has_initsize);
	assert_false(sm.has_refcnt);
	assert_string_equal(sm.initstate, "");
	assert_int_equal(sm.n_holders, 0);
	sys_module_done(&sm);

	/* holders/ is a directory of symlinks */
	write_str(dir, "sys/module/held/coresize", "16384\n");
	write_str(dir, "sys/module/held/initstate", "coming\n");
	write_str(dir, "sys/module/held/taint", "OE\n");
	write_str(dir, "sys/module/held/holders/sctp", "");
	write_str(dir, "sys/module/held/holders/xfs", "");
	assert_int_equal(sys_module_read(root, "held", &sm, &e), 0);
	assert_int_equal(sm.coresize, 16384);
	assert_string_equal(sm.initstate, "coming");
	assert_string_equal(sm.taint, "OE");
	assert_int_equal(sm.n_holders, 2);
	assert_null(sm.holders[2]);
	assert_true((strcmp(sm.holders[0], "sctp") == 0 && strcmp(sm.holders[1], "xfs") == 0) ||
		    (strcmp(sm.holders[0], "xfs") == 0 && strcmp(sm.holders[1], "sctp") == 0));
	sys_module_done(&sm);

	write_str(dir, "sys/module/a/coresize", "abc\n");
	expect_sys_error(root, "a", "sys/module/a/coresize", 1, "value is not a number");
	write_str(dir, "sys/module/b/coresize", "-4096\n");
	expect_sys_error(root, "b", "sys/module/b/coresize", 1, "value is not a number");
	write_str(dir, "sys/module/c/coresize", "4096\n");
	write_str(dir, "sys/module/c/initsize", "4096\n8192\n");
	expect_sys_error(root, "c", "sys/module/c/initsize", 2, "attribute has more than one line");
	write_file(dir, "sys/module/d/coresize", "40\00096\n", 6);
	expect_sys_error(root, "d", "sys/module/d/coresize", 1, "attribute contains a NUL byte");
	memset(big, '1', sizeof(big));
	write_file(dir, "sys/module/e/coresize", big, sizeof(big));
	expect_sys_error(root, "e", "sys/module/e/coresize", 1, "attribute too long");
	write_file(dir, "sys/module/f/coresize", big, 100);
	expect_sys_error(root, "f", "sys/module/f/coresize", 1, "attribute too long");
	write_str(dir, "sys/module/g/refcnt", "many\n");
	expect_sys_error(root, "g", "sys/module/g/refcnt", 1, "value is not a number");
	write_str(dir, "sys/module/h/initstate", "dead\n");
	expect_sys_error(root, "h", "sys/module/h/initstate", 1, "unknown initstate");
	write_str(dir, "sys/module/i/initstate", "live and well, thank you\n");
	expect_sys_error(root, "i", "sys/module/i/initstate", 1, "attribute too long");
	write_str(dir, "sys/module/j/taint", "ABCDEFGHIJKLMNOPQRSTU\n");
	expect_sys_error(root, "j", "sys/module/j/taint", 1, "attribute too long");
	/* CRLF endings are stripped */
	write_str(dir, "sys/module/k/coresize", "4096\r\n");
	assert_int_equal(sys_module_read(root, "k", &sm, &e), 0);
	assert_int_equal(sm.coresize, 4096);
	sys_module_done(&sm);

	/* names are path components */
	assert_int_equal(sys_module_read(root, "", &sm, &e), -EINVAL);
	assert_int_equal(sys_module_read(root, "../module/a", &sm, &e), -EINVAL);
	assert_int_equal(sys_module_read(root, "a/b", &sm, &e), -EINVAL);
	memset(big, 'n', 65);
	big[65] = '\0';
	assert_int_equal(sys_module_read(root, big, &sm, &e), -EINVAL);
	assert_int_equal(sys_module_read(root, "missing", &sm, &e), -ENOENT);

	root_free(root);
	remove_tree(dir);
}

/* ---- modmem ---------------------------------------------------------------------- */

struct fixture {
	struct kt_root *root;
	struct proc_modules *pm;
	struct vmallocinfo *vi;
	struct loadpath lp;
};

static void fixture_load(struct fixture *fx, const char *dir)
{
	struct kt_err e = { 0 };
	char *rel = NULL;
	size_t len;

	memset(fx, 0, sizeof(*fx));
	assert_int_equal(root_new(dir, &fx->root), 0);
	assert_int_equal(proc_modules_read(fx->root, &fx->pm, &e), 0);
	assert_int_equal(vmallocinfo_read(fx->root, &fx->vi, &e), 0);
	assert_int_equal(root_read_file(fx->root, "proc/sys/kernel/osrelease", 256, &rel, &len), 0);
	rel[strcspn(rel, "\n")] = '\0';
	loadpath_from_release(rel, &fx->lp);
	assert_true(fx->lp.known);
	free(rel);
}

static void fixture_done(struct fixture *fx)
{
	proc_modules_free(fx->pm);
	vmallocinfo_free(fx->vi);
	root_free(fx->root);
}

/* Every module joined, every module-class area claimed, sizes adding up: from the inputs. */
static void check_fully_joined(const struct fixture *fx, const struct modmem *mm)
{
	size_t in_vi = 0;

	assert_int_equal(mm->n_mods, fx->pm->n);
	for (size_t i = 0; i < fx->vi->n; i++)
		if (area_classify(&fx->vi->areas[i]) == AREA_MODULE)
			in_vi++;
	assert_true(in_vi > 0);
	assert_int_equal(mm->n_module_areas, in_vi);
	assert_int_equal(mm->n_unjoined, 0);
	assert_int_equal(mm->unjoined_bytes, 0);

	/* every module-class area is claimed by exactly one module */
	for (size_t i = 0; i < mm->n; i++) {
		const struct modmem_area *ma = &mm->areas[i];

		assert_true(ma->area < fx->vi->n);
		for (size_t j = 0; j < i; j++)
			assert_int_not_equal(mm->areas[j].area, ma->area);
		if (ma->cls != AREA_MODULE)
			continue;
		assert_true(ma->module >= 0 && (size_t)ma->module < fx->pm->n);
	}

	for (size_t m = 0; m < fx->pm->n; m++) {
		uint64_t sum = 0, bytes = 0;
		size_t n = 0;

		for (size_t i = 0; i < mm->n; i++) {
			const struct vmalloc_area *a = &fx->vi->areas[mm->areas[i].area];

			if (mm->areas[i].module != (long)m)
				continue;
			assert_true(a->size > MODMEM_GUARD_SIZE);
			sum += a->size - MODMEM_GUARD_SIZE;
			bytes += a->size;
			n++;
		}
		/* the module's areas, less a guard page each, are its proc/modules size */
		assert_true(n > 0);
		assert_int_equal(sum, fx->pm->mods[m].size);
		assert_int_equal(mm->mods[m].n_areas, n);
		assert_int_equal(mm->mods[m].area_bytes, bytes);
		assert_int_equal(mm->mods[m].mem_bytes, sum);
		assert_true(mm->mods[m].size_matches);
	}
}

static void test_modmem_61(void **state)
{
	struct modmem *mm = NULL;
	struct fixture fx;

	fixture_load(&fx, FX_61);
	assert_int_equal(fx.vi->addr_mode, VMALLOC_ADDR_REAL);
	assert_false(fx.lp.per_type_alloc);
	assert_int_equal(modmem_join(fx.pm, fx.vi, &fx.lp, &mm), 0);
	assert_int_equal(mm->method, JOIN_ADDRESS);
	check_fully_joined(&fx, mm);
	for (size_t m = 0; m < fx.pm->n; m++) {
		assert_int_equal(mm->mods[m].method, JOIN_ADDRESS);
		assert_string_equal(join_confidence_name(mm->mods[m].confidence), "exact");
	}
	/* with real addresses the base area starts where proc/modules says */
	for (size_t i = 0; i < mm->n; i++) {
		const struct modmem_area *ma = &mm->areas[i];

		if (ma->is_base)
			assert_true(fx.vi->areas[ma->area].start ==
				    fx.pm->mods[ma->module].address);
		assert_true(ma->pos_known);
		assert_true(ma->pos == fx.vi->areas[ma->area].start);
	}
	modmem_free(mm);
	fixture_done(&fx);
}

static void test_modmem_612(void **state)
{
	static const char *const roots[] = { FX_612, FX_CUSTOM };

	for (size_t r = 0; r < sizeof(roots) / sizeof(roots[0]); r++) {
		struct modmem *mm = NULL;
		struct fixture fx;

		fixture_load(&fx, roots[r]);
		assert_int_equal(fx.vi->addr_mode, VMALLOC_ADDR_HASHED);
		assert_true(fx.lp.per_type_alloc);
		assert_int_equal(modmem_join(fx.pm, fx.vi, &fx.lp, &mm), 0);
		assert_int_equal(mm->method, JOIN_CHAIN);
		assert_true(mm->n_chains_anchored > 0);
		assert_true(mm->n_chains_anchored <= mm->n_chains);
		check_fully_joined(&fx, mm);
		for (size_t m = 0; m < fx.pm->n; m++) {
			assert_int_equal(mm->mods[m].method, JOIN_CHAIN);
			assert_true(mm->mods[m].confidence >= CONF_MEDIUM);
			/* 6.4+: text, data, rodata, ... one area each */
			assert_true(mm->mods[m].n_areas >= 2);
		}
		/* the reconstructed base positions are the module addresses */
		for (size_t i = 0; i < mm->n; i++)
			if (mm->areas[i].is_base)
				assert_true(mm->areas[i].pos ==
					    fx.pm->mods[mm->areas[i].module].address);
		modmem_free(mm);
		fixture_done(&fx);
	}
}

/*
 * What kptr_restrict=2 shows: zeroes the hex digits of the "0xSTART-0xEND" range
 * (@first_field, vmallocinfo) or of the " 0x..." address (proc/modules) of every line.
 */
static void zero_hex_at(char *text, size_t len, bool first_field)
{
	char *line = text, *end = text + len;

	while (line < end) {
		char *nl = memchr(line, '\n', end - line), *p, *tok_end;

		if (!nl)
			nl = end;
		if (first_field) {
			tok_end = memchr(line, ' ', nl - line);
			if (!tok_end)
				tok_end = nl;
			for (p = line; p < tok_end; p++)
				if (*p != 'x' && *p != '-' && !(p[0] == '0' && p[1] == 'x'))
					*p = '0';
		} else {
			p = memmem(line, nl - line, " 0x", 3);
			if (p)
				for (p += 3; p < nl && *p != ' '; p++)
					*p = '0';
		}
		line = nl + 1;
	}
}

static struct proc_modules *read_modules_zeroed(const char *root)
{
	struct proc_modules *pm = NULL;
	struct kt_err e = { 0 };
	char *path, *text;
	size_t len;
	FILE *f;

	assert_true(asprintf(&path, "%s/proc/modules", root) > 0);
	text = read_file(path, &len);
	free(path);
	zero_hex_at(text, len, false);
	assert_null(strstr(text, "0xffff"));
	f = mem_file(text, len);
	assert_int_equal(proc_modules_read_file(f, "proc/modules", &pm, &e), 0);
	fclose(f);
	free(text);
	assert_true(pm->addresses_hidden);
	return pm;
}

static struct vmallocinfo *read_vmalloc_zeroed(const char *root)
{
	struct vmallocinfo *vi = NULL;
	struct kt_err e = { 0 };
	char *path, *text;
	size_t len;
	FILE *f;

	assert_true(asprintf(&path, "%s/proc/vmallocinfo", root) > 0);
	text = read_file(path, &len);
	free(path);
	zero_hex_at(text, len, true);
	f = mem_file(text, len);
	assert_int_equal(vmallocinfo_read_file(f, "proc/vmallocinfo", &vi, &e), 0);
	fclose(f);
	free(text);
	assert_int_equal(vi->addr_mode, VMALLOC_ADDR_ZERO);
	return vi;
}

/*
 * What a join by size alone may claim, judged here from the inputs: a module is only
 * joined when its size is unique among modules and among the module-class areas.
 */
static void check_size_join(const struct proc_modules *pm, const struct vmallocinfo *vi,
			    const struct loadpath *lp, const struct modmem *mm)
{
	size_t joined = 0, claimed = 0;

	assert_int_equal(mm->method, JOIN_SIZE);
	assert_int_equal(mm->n_chains_anchored, 0);
	for (size_t m = 0; m < pm->n; m++) {
		size_t same_mods = 0, same_areas = 0;

		for (size_t j = 0; j < pm->n; j++)
			same_mods += pm->mods[j].size == pm->mods[m].size;
		for (size_t i = 0; i < vi->n; i++)
			same_areas += area_classify(&vi->areas[i]) == AREA_MODULE &&
				      vi->areas[i].size - MODMEM_GUARD_SIZE == pm->mods[m].size;
		if (lp->per_type_alloc) {
			/* one module is several areas: size proves nothing */
			assert_int_equal(mm->mods[m].method, JOIN_NONE);
			assert_int_equal(mm->mods[m].n_areas, 0);
		} else if (same_mods == 1 && same_areas == 1) {
			assert_int_equal(mm->mods[m].method, JOIN_SIZE);
			assert_int_equal(mm->mods[m].confidence, CONF_MEDIUM);
			assert_int_equal(mm->mods[m].n_areas, 1);
			assert_true(mm->mods[m].size_matches);
			joined++;
		} else if (same_areas > 0) {
			assert_int_equal(mm->mods[m].method, JOIN_SIZE);
			assert_int_equal(mm->mods[m].confidence, CONF_LOW);
			assert_int_equal(mm->mods[m].n_areas, 0);
		} else {
			assert_int_equal(mm->mods[m].method, JOIN_NONE);
		}
	}
	for (size_t i = 0; i < mm->n; i++)
		claimed += mm->areas[i].module >= 0;
	assert_int_equal(claimed, joined);
	assert_int_equal(mm->n_unjoined, mm->n_module_areas - joined);
}

static void test_modmem_hidden_module_addresses(void **state)
{
	static const char *const roots[] = { FX_61, FX_612, FX_CUSTOM };

	for (size_t r = 0; r < sizeof(roots) / sizeof(roots[0]); r++) {
		struct modmem *mm = NULL;
		struct fixture fx;
		struct proc_modules *zeroed;

		fixture_load(&fx, roots[r]);
		zeroed = read_modules_zeroed(roots[r]);
		/* vmallocinfo as captured (real on 6.1, hashed on 6.12): nothing to anchor on */
		assert_int_equal(modmem_join(zeroed, fx.vi, &fx.lp, &mm), 0);
		check_size_join(zeroed, fx.vi, &fx.lp, mm);
		modmem_free(mm);
		proc_modules_free(zeroed);
		fixture_done(&fx);
	}
}

static void test_modmem_zero_addresses(void **state)
{
	static const char *const roots[] = { FX_61, FX_612, FX_CUSTOM };

	for (size_t r = 0; r < sizeof(roots) / sizeof(roots[0]); r++) {
		struct modmem *mm = NULL;
		struct fixture fx;
		struct proc_modules *zeroed;
		struct vmallocinfo *vz;

		fixture_load(&fx, roots[r]);
		vz = read_vmalloc_zeroed(roots[r]);
		zeroed = read_modules_zeroed(roots[r]);
		/* kptr_restrict=2: both files zeroed */
		assert_int_equal(modmem_join(zeroed, vz, &fx.lp, &mm), 0);
		check_size_join(zeroed, vz, &fx.lp, mm);
		modmem_free(mm);
		/* zeroed vmallocinfo, real module addresses: still nothing to go on */
		assert_int_equal(modmem_join(fx.pm, vz, &fx.lp, &mm), 0);
		check_size_join(fx.pm, vz, &fx.lp, mm);
		modmem_free(mm);
		vmallocinfo_free(vz);
		proc_modules_free(zeroed);
		fixture_done(&fx);
	}

	/* the ptrval snapshots of early boot */
	{
		struct modmem *mm = NULL;
		struct vmallocinfo *vi = NULL;
		struct fixture fx;
		struct kt_err e = { 0 };
		FILE *f;

		fixture_load(&fx, FX_612);
		f = fopen(FX_612 "/capture/snapshots/vmallocinfo.after-live-storm", "re");
		assert_non_null(f);
		assert_int_equal(vmallocinfo_read_file(f, "x", &vi, &e), 0);
		fclose(f);
		assert_int_equal(vi->addr_mode, VMALLOC_ADDR_ZERO);
		assert_int_equal(modmem_join(fx.pm, vi, &fx.lp, &mm), 0);
		assert_int_equal(mm->method, JOIN_SIZE);
		assert_int_equal(mm->n_unjoined, mm->n_module_areas);
		modmem_free(mm);
		vmallocinfo_free(vi);
		fixture_done(&fx);
	}
}

static void join_text(const char *modules, const char *vmalloc, const char *release,
		      struct proc_modules **pm, struct vmallocinfo **vi, struct modmem **mm)
{
	struct kt_err e = { 0 };
	struct loadpath lp;
	FILE *f;

	loadpath_from_release(release, &lp);
	f = mem_file(modules, strlen(modules));
	assert_int_equal(proc_modules_read_file(f, "proc/modules", pm, &e), 0);
	fclose(f);
	f = mem_file(vmalloc, strlen(vmalloc));
	assert_int_equal(vmallocinfo_read_file(f, "proc/vmallocinfo", vi, &e), 0);
	fclose(f);
	assert_int_equal(modmem_join(*pm, *vi, &lp, mm), 0);
}

/*
 * Hashed areas linked end to start form a chain; it is placed on the module bases
 * only where two or more of its areas land on bases, at a single offset.
 */
static void test_modmem_chain_synthetic(void **state)
{
	static const char vmalloc[] = "0x00000000aaaa0001-0x00000000bbbb0002 8192 "
				      "load_module+0x784/0x21b0 pages=1 vmalloc N0=1\n"
				      "0x00000000bbbb0002-0x00000000cccc0003 8192 "
				      "load_module+0x784/0x21b0 pages=1 vmalloc N0=1\n"
				      "0x00000000cccc0003-0x00000000dddd0004 8192 "
				      "load_module+0x784/0x21b0 pages=1 vmalloc N0=1\n";
	/* a: areas 0 and 1, b: area 2 */
	static const char two[] = "a 8192 0 - Live 0xffffffffc0001000\n"
				  "b 4096 0 - Live 0xffffffffc0005000\n";
	/* one base fits the chain three ways */
	static const char one[] = "a 8192 0 - Live 0xffffffffc0001000\n";
	static const char pair[] = "0x00000000aaaa0001-0x00000000bbbb0002 8192 "
				   "load_module+0x784/0x21b0 pages=1 vmalloc N0=1\n"
				   "0x00000000bbbb0002-0x00000000cccc0003 8192 "
				   "load_module+0x784/0x21b0 pages=1 vmalloc N0=1\n";
	static const char three[] = "a 4096 0 - Live 0xffffffffc0001000\n"
				    "b 4096 0 - Live 0xffffffffc0003000\n"
				    "c 4096 0 - Live 0xffffffffc0005000\n";
	struct proc_modules *pm = NULL;
	struct vmallocinfo *vi = NULL;
	struct modmem *mm = NULL;

	join_text(two, vmalloc, "6.12.0", &pm, &vi, &mm);
	assert_int_equal(vi->addr_mode, VMALLOC_ADDR_HASHED);
	assert_int_equal(mm->method, JOIN_CHAIN);
	assert_int_equal(mm->n_chains, 1);
	assert_int_equal(mm->n_chains_anchored, 1);
	assert_int_equal(mm->areas[0].module, 0);
	assert_int_equal(mm->areas[1].module, 0);
	assert_int_equal(mm->areas[2].module, 1);
	assert_true(mm->areas[0].pos == 0xffffffffc0001000ull);
	assert_true(mm->areas[1].pos == 0xffffffffc0003000ull);
	assert_true(mm->areas[2].pos == 0xffffffffc0005000ull);
	assert_true(mm->areas[0].is_base && !mm->areas[1].is_base && mm->areas[2].is_base);
	assert_int_equal(mm->mods[0].confidence, CONF_HIGH);
	assert_int_equal(mm->mods[1].confidence, CONF_HIGH);
	assert_int_equal(mm->n_unjoined, 0);
	modmem_free(mm);
	vmallocinfo_free(vi);
	proc_modules_free(pm);

	join_text(one, vmalloc, "6.12.0", &pm, &vi, &mm);
	assert_int_equal(mm->n_chains, 1);
	assert_int_equal(mm->n_chains_anchored, 0);
	assert_int_equal(mm->method, JOIN_SIZE);
	assert_int_equal(mm->mods[0].method, JOIN_NONE);
	assert_int_equal(mm->n_unjoined, 3);
	for (size_t i = 0; i < mm->n; i++)
		assert_false(mm->areas[i].pos_known);
	modmem_free(mm);
	vmallocinfo_free(vi);
	proc_modules_free(pm);

	/* two placements with two hits each: ambiguous, not anchored */
	join_text(three, pair, "6.12.0", &pm, &vi, &mm);
	assert_int_equal(mm->n_chains, 1);
	assert_int_equal(mm->n_chains_anchored, 0);
	assert_int_equal(mm->n_unjoined, 2);
	modmem_free(mm);
	vmallocinfo_free(vi);
	proc_modules_free(pm);
}

/*
 * Two modules of one size and one area of that size: which module owns the area is
 * unknown, whichever order they come in.
 */
static void test_modmem_size_ambiguous(void **state)
{
	static const char modules[] = "a 16384 0 - Live 0x0000000000000000\n"
				      "b 16384 0 - Live 0x0000000000000000\n"
				      "c 24576 0 - Live 0x0000000000000000\n";
	static const char vmalloc[] = "0x0000000000000000-0x0000000000000000   20480 "
				      "load_module+0xbb7/0x21a0 pages=4 vmalloc N0=4\n"
				      "0x0000000000000000-0x0000000000000000   28672 "
				      "load_module+0xbb7/0x21a0 pages=6 vmalloc N0=6\n";
	struct proc_modules *pm = NULL;
	struct vmallocinfo *vi = NULL;
	struct modmem *mm = NULL;
	struct kt_err e = { 0 };
	struct loadpath lp;
	FILE *f;

	loadpath_from_release("6.1.0-57-amd64", &lp);
	f = mem_file(modules, sizeof(modules) - 1);
	assert_int_equal(proc_modules_read_file(f, "proc/modules", &pm, &e), 0);
	fclose(f);
	f = mem_file(vmalloc, sizeof(vmalloc) - 1);
	assert_int_equal(vmallocinfo_read_file(f, "proc/vmallocinfo", &vi, &e), 0);
	fclose(f);

	assert_int_equal(modmem_join(pm, vi, &lp, &mm), 0);
	check_size_join(pm, vi, &lp, mm);
	assert_int_equal(mm->mods[0].confidence, CONF_LOW);
	assert_int_equal(mm->mods[1].confidence, CONF_LOW);
	assert_int_equal(mm->mods[1].n_areas, 0);
	assert_int_equal(mm->mods[2].confidence, CONF_MEDIUM);
	assert_int_equal(mm->n_unjoined, 1);
	modmem_free(mm);
	vmallocinfo_free(vi);
	proc_modules_free(pm);
}

static void test_modmem_empty(void **state)
{
	struct proc_modules pm = { 0 };
	struct vmallocinfo vi = { 0 };
	struct loadpath lp;
	struct modmem *mm = NULL;

	loadpath_from_release("6.1.0", &lp);
	assert_int_equal(modmem_join(&pm, &vi, &lp, &mm), 0);
	assert_int_equal(mm->n, 0);
	assert_int_equal(mm->n_mods, 0);
	assert_int_equal(mm->n_unjoined, 0);
	modmem_free(mm);
	assert_null(modmem_free(NULL));

	assert_string_equal(join_method_name(JOIN_CHAIN), "address-chain");
	assert_string_equal(join_method_name(JOIN_NONE), "none");
	assert_string_equal(join_confidence_name(CONF_MEDIUM), "medium");
	assert_string_equal(area_class_name(AREA_KREAD), "kread");
	assert_string_equal(area_class_name(AREA_OTHER), "other");
}

/* ---- vmallocinfo_update: the incremental reparse equals a full parse --------------- */

/* appends one random line to @buf at @len; a bad one when @bad */
static size_t vm_random_line(char *buf, size_t len, unsigned int *seed, bool bad)
{
	unsigned long long a = 0xffffc90000000000ull + (unsigned long long)rand_r(seed) * 4096;
	unsigned int x = (unsigned int)rand_r(seed) % 64 + 1, sz = (x + 1) * 4096;
	unsigned long long e = a + sz;
	char *o = buf + len;
	int n;

	if (bad)
		return len + (size_t)sprintf(o, "0x%016llx-0x%016llx notasize\n", a, a);
	switch ((unsigned int)rand_r(seed) % 7) {
	case 0:
		n = sprintf(o, "0x%016llx-0x%016llx %8u load_module+0x857/0x2470 pages=%u vmalloc N0=%u\n",
			    a, e, sz, x, x);
		break;
	case 1:
		n = sprintf(o, "0x%016llx-0x%016llx %8u alloc_thread_stack_node+0x1c6/0x2d0 pages=%u vmalloc N0=%u\n",
			    a, e, sz, x, x);
		break;
	case 2:
		n = sprintf(o, "0x%016llx-0x%016llx %8u acpi_os_map_iomem+0x1a9/0x1e0 phys=0x%08x ioremap\n",
			    a, e, sz, x * 4096);
		break;
	case 3:
		n = sprintf(o, "0x%016llx-0x%016llx %8u drm_buddy_init+0x3e/0x130 [drm_buddy] pages=%u vmalloc vpages N0=%u N1=%u\n",
			    a, e, sz, x, x / 2, x - x / 2);
		break;
	case 4:
		n = sprintf(o, "0x%016llx-0x%016llx %8u pcpu_get_vm_areas+0x0/0x1100 vmalloc something_new\n",
			    a, e, sz);
		break;
	case 5:
		n = sprintf(o, "0x%016llx-0x%016llx %8u unpurged vm_area\n", a, e, sz);
		break;
	default:
		n = sprintf(o, "0x%016llx-0x%016llx %8u 0xffffffffc0a01234 pages=%u vmalloc\n", a, e,
			    sz, x);
		break;
	}
	return len + (size_t)n;
}

static void vm_assert_same(const struct vmallocinfo *a, const struct vmallocinfo *b)
{
	assert_int_equal(a->n, b->n);
	assert_int_equal(a->addr_mode, b->addr_mode);
	assert_int_equal(a->unknown_flag_lines, b->unknown_flag_lines);
	for (size_t i = 0; i < a->n; i++) {
		const struct vmalloc_area *x = &a->areas[i], *y = &b->areas[i];

		assert_int_equal(x->start, y->start);
		assert_int_equal(x->end, y->end);
		assert_int_equal(x->size, y->size);
		assert_true((!x->caller && !y->caller) ||
			    (x->caller && y->caller && strcmp(x->caller, y->caller) == 0));
		assert_true((!x->caller_module && !y->caller_module) ||
			    (x->caller_module && y->caller_module &&
			     strcmp(x->caller_module, y->caller_module) == 0));
		assert_int_equal(x->caller_off, y->caller_off);
		assert_int_equal(x->caller_len, y->caller_len);
		assert_int_equal(x->has_pages, y->has_pages);
		assert_int_equal(x->has_phys, y->has_phys);
		assert_int_equal(x->pages, y->pages);
		assert_int_equal(x->phys, y->phys);
		assert_int_equal(x->flags, y->flags);
		assert_int_equal(x->n_numa, y->n_numa);
		for (size_t j = 0; j < x->n_numa; j++) {
			assert_int_equal(x->numa[j].node, y->numa[j].node);
			assert_int_equal(x->numa[j].pages, y->numa[j].pages);
		}
	}
}

/* lines of @text, as offsets of their starts (and the end) */
static size_t vm_line_starts(const char *text, size_t len, size_t *starts)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		if (i == 0 || text[i - 1] == '\n')
			starts[n++] = i;
	starts[n] = len;
	return n;
}

static void test_vmalloc_update_random_edits(void **state)
{
	enum { LINES = 300, CAP = 1 << 17 };
	char *text = malloc(CAP), *next = malloc(CAP);
	size_t *starts = malloc((CAP / 8) * sizeof(*starts));
	struct vmallocinfo *vi = NULL;
	unsigned int seed = 4242, partial = 0, failed = 0;
	size_t len = 0;

	(void)state;
	assert_non_null(text);
	assert_non_null(next);
	assert_non_null(starts);
	for (int i = 0; i < LINES; i++)
		len = vm_random_line(text, len, &seed, false);
	{
		/* the first update starts from a plain read: a full parse */
		struct kt_err e = { 0 };
		FILE *f = mem_file(text, len);

		assert_int_equal(vmallocinfo_read_file(f, "proc/vmallocinfo", &vi, &e), 0);
		fclose(f);
	}
	for (int round = 0; round < 400; round++) {
		struct vmallocinfo *full = NULL, *before = vi;
		struct vmallocinfo_change ch = { 7, 7, 7 };
		struct kt_err e1 = { 0 }, e2 = { 0 };
		size_t nl = vm_line_starts(text, len, starts), old_n = vi ? vi->n : 0;
		size_t a = nl ? (size_t)rand_r(&seed) % (nl + 1) : 0;
		size_t b = a + (nl - a ? (size_t)rand_r(&seed) % (nl - a + 1) % 8 : 0);
		unsigned int kind = (unsigned int)rand_r(&seed) % 10;
		bool bad = kind == 0;
		size_t nlen = 0;
		int r1, r2;
		FILE *f;

		/* lines [a, b) replaced by 0-3 new ones; now and then a byte edited in place */
		memcpy(next, text, starts[a]);
		nlen = starts[a];
		if (kind == 1 && a < nl) {
			size_t off = starts[a] + (size_t)rand_r(&seed) % (starts[a + 1] - starts[a]);

			memcpy(next, text, len);
			nlen = len;
			if (next[off] >= '0' && next[off] <= '8')
				next[off]++;
		} else {
			for (int k = rand_r(&seed) % 4; k > 0 && nlen + 256 < CAP; k--)
				nlen = vm_random_line(next, nlen, &seed, bad && k == 1);
			memcpy(next + nlen, text + starts[b], len - starts[b]);
			nlen += len - starts[b];
		}
		/* sometimes no newline at the end */
		if (kind == 2 && nlen && next[nlen - 1] == '\n')
			nlen--;
		if (kind == 3 && nlen && next[nlen - 1] != '\n')
			next[nlen++] = '\n';

		f = mem_file(next, nlen);
		r1 = vmallocinfo_read_file(f, "proc/vmallocinfo", &full, &e1);
		fclose(f);
		r2 = vmallocinfo_update(&vi, next, nlen, "proc/vmallocinfo", &ch, &e2);
		assert_int_equal(r2, r1);
		if (r1 < 0) {
			/* the same error, and the previous read kept */
			assert_int_equal(e1.line, e2.line);
			assert_string_equal(e1.what, e2.what);
			assert_ptr_equal(vi, before);
			failed++;
			continue;
		}
		vm_assert_same(vi, full);
		assert_int_equal(vi->n, old_n - ch.removed + ch.added);
		assert_true(ch.start + ch.added <= vi->n);
		/* most rounds must have kept areas: else this tested full parses only */
		if (ch.added < vi->n / 2)
			partial++;
		vmallocinfo_free(full);
		memcpy(text, next, nlen);
		len = nlen;
	}
	assert_true(partial > 250);
	assert_true(failed > 10);
	vmallocinfo_free(vi);
	free(text);
	free(next);
	free(starts);
}

/* ---- vmsample: loads in flight and headroom over a sequence of vmallocinfo reads ---- */

/*
 * A finit_module() of an xz module as the 6.12 trace shows it: kernel_read_file()
 * vmallocs the file, module_decompress() vmaps the pages it filled, the file copy is
 * freed, then the vmap, and load_module's areas remain.
 */
#define VMS_KREAD "0x00000000a1b2c3d4-0x00000000e5f60718  761856 kernel_read_file+0x1a1/0x2d0 pages=185 vmalloc N0=185\n"
#define VMS_DECOMP "0x00000000e5f60718-0x0000000011223344 1118208 module_decompress+0x2c4/0x4c0 vmap\n"
#define VMS_MOD "0x0000000011223344-0x0000000055667788   24576 load_module+0x784/0x21b0 pages=5 vmalloc N0=5\n"

/* @base with @ins put in after its @at-th line */
static char *vms_text(const char *base, size_t at, const char *ins, size_t *ret_len)
{
	const char *p = base;
	size_t head, len = strlen(base), il = strlen(ins);
	char *t;

	for (size_t i = 0; i < at; i++) {
		p = strchr(p, '\n');
		assert_non_null(p);
		p++;
	}
	head = (size_t)(p - base);
	t = malloc(len + il + 1);
	assert_non_null(t);
	memcpy(t, base, head);
	memcpy(t + head, ins, il);
	memcpy(t + head + il, p, len - head + 1);
	*ret_len = len + il;
	return t;
}

static uint64_t vms_pages_bytes(const struct vmallocinfo *vi)
{
	uint64_t u = 0;

	for (size_t i = 0; i < vi->n; i++)
		u += vi->areas[i].has_pages ? vi->areas[i].pages * 4096 : 0;
	return u;
}

static void test_vmsample_sequence(void **state)
{
	static const char *const ins[] = {
		"", VMS_KREAD, VMS_KREAD VMS_DECOMP, VMS_DECOMP, VMS_MOD VMS_MOD VMS_MOD,
	};
	static const uint64_t want_bytes[] = { 0, 761856, 761856 + 1118208, 1118208, 0 };
	static const size_t want_areas[] = { 0, 1, 2, 1, 0 };
	struct vmsample inc = { 0 }, nomi = { 0 };
	struct vmallocinfo *vi = NULL;
	struct kt_root *root = NULL;
	struct meminfo mi = { 0 };
	struct kt_err e = { 0 };
	uint64_t max_used = 0;
	size_t blen;
	char *base;

	(void)state;
	base = read_file(FX_612 "/proc/vmallocinfo", &blen);
	assert_int_equal(root_new(FX_612, &root), 0);
	assert_int_equal(meminfo_read(root, &mi, &e), 0);
	assert_true(mi.has_vmalloc_total && mi.has_vmalloc_used);
	for (size_t k = 0; k < ARRAY_SIZE(ins); k++) {
		struct vmallocinfo_change ch;
		struct vmallocinfo *full = NULL;
		struct vmsample whole = { 0 };
		struct meminfo m = mi;
		size_t len;
		char *t = vms_text(base, 60, ins[k], &len);
		FILE *f;

		assert_int_equal(vmallocinfo_update(&vi, t, len, "proc/vmallocinfo", &ch, &e), 0);
		/* past the first read only the lines that changed are looked at again */
		if (k)
			assert_true(ch.added <= 3 && ch.removed <= 3);
		/* VmallocUsed grows with what the sample holds */
		m.vmalloc_used = mi.vmalloc_used + want_bytes[k];
		if (m.vmalloc_used > max_used)
			max_used = m.vmalloc_used;
		assert_int_equal(vmsample_add(&inc, vi, &ch, &m), 0);
		assert_int_equal(vmsample_add(&nomi, vi, &ch, NULL), 0);
		assert_int_equal(inc.inflight_bytes, want_bytes[k]);
		assert_int_equal(inc.inflight_areas, want_areas[k]);

		/* the running sums equal a sample of a whole read of the same text */
		f = mem_file(t, len);
		assert_int_equal(vmallocinfo_read_file(f, "proc/vmallocinfo", &full, &e), 0);
		fclose(f);
		assert_int_equal(vmsample_add(&whole, full, NULL, NULL), 0);
		assert_int_equal(whole.inflight_bytes, inc.inflight_bytes);
		assert_int_equal(whole.inflight_areas, inc.inflight_areas);
		assert_int_equal(whole.used, inc.used);
		assert_int_equal(whole.used, vms_pages_bytes(full));
		vmsample_done(&whole);
		vmallocinfo_free(full);
		free(t);
	}
	assert_int_equal(inc.samples, ARRAY_SIZE(ins));
	assert_int_equal(inc.peak_inflight_bytes, 761856 + 1118208);
	assert_int_equal(inc.peak_inflight_areas, 2);
	assert_true(inc.has_headroom);
	assert_int_equal(max_used, mi.vmalloc_used + 761856 + 1118208);
	assert_int_equal(inc.min_headroom_bytes, mi.vmalloc_total - max_used);
	assert_false(nomi.has_headroom);
	assert_int_equal(nomi.peak_inflight_bytes, inc.peak_inflight_bytes);

	/* without VmallocUsed (4.4 to 5.3 print 0) the areas' pages stand in */
	{
		struct vmsample z = { 0 };
		struct meminfo m = mi;

		m.vmalloc_used = 0;
		assert_int_equal(vmsample_add(&z, vi, NULL, &m), 0);
		assert_int_equal(z.min_headroom_bytes, mi.vmalloc_total - vms_pages_bytes(vi));
		vmsample_done(&z);
	}
	vmsample_done(&inc);
	vmsample_done(&nomi);
	vmallocinfo_free(vi);
	root_free(root);
	free(base);
}

/* ---- journal and syslog months ---------------------------------------------------- */

/*
 * A journal line's month in any case and the common locales (glibc localedata abmon, as
 * journalctl prints %b): shapes from https://github.com/ARCHLabs/Archlabs-Iso/issues/123
 * ("cze 24 12:31:58 arch-pc systemd-modules-load[168]: ...") with the kernel's ident.
 */
static void test_dmesg_months(void **state)
{
	static const struct {
		const char *mon;
		int month;
	} cases[] = {
		{ "Jan", 1 }, { "mar", 3 }, { "MAR", 3 }, { "M\xc3\xa4r", 3 }, { "Mai", 5 },
		{ "janv.", 1 }, { "f\xc3\xa9vr.", 2 }, { "d\xc3\xa9" "c.", 12 }, { "ene", 1 },
		{ "gen", 1 }, { "set", 9 }, { "out", 10 }, { "mrt", 3 }, { "cze", 6 },
		{ "pa\xc5\xba", 10 }, { "\xd0\xbc\xd0\xb0\xd1\x80", 3 }, { "des.", 12 },
		/* zh/ja "5\u6708", ko "11\uc6d4" (glibc abmon; the shape of
		 * https://github.com/linuxdeepin/deepin-anything/issues/38) */
		{ "5\xe6\x9c\x88", 5 }, { "12\xe6\x9c\x88", 12 }, { "11\xec\x9b\x94", 11 },
	};
	const char *what = NULL;
	struct klog_rec rec, jan;
	char line[160];

	(void)state;
	assert_int_equal(dmesg_parse_line("Jan 24 12:31:58 h kernel: x", 27, &jan, &what), 1);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int n = snprintf(line, sizeof(line),
				 "%s 24 12:31:58 arch-pc kernel: vboxguest: Unknown symbol x (err -2)",
				 cases[i].mon);

		assert_int_equal(dmesg_parse_line(line, (size_t)n, &rec, &what), 1);
		assert_int_equal(rec.format, KLOG_FORMAT_JOURNAL_SHORT);
		assert_int_equal(rec.msg_len, strlen("vboxguest: Unknown symbol x (err -2)"));
		/* the month orders lines within a file: 24th of month m, from January's */
		assert_true(rec.has_wallclock);
		assert_int_equal((rec.wall_sec - jan.wall_sec) / 86400 >= 28 * (cases[i].month - 1) &&
				 (rec.wall_sec - jan.wall_sec) / 86400 <= 31 * (cases[i].month - 1), 1);
		/* the same line of another program: its time and host, no record */
		n = snprintf(line, sizeof(line),
			     "%s 24 12:31:58 arch-pc systemd-modules-load[168]: Failed", cases[i].mon);
		assert_int_equal(dmesg_parse_line(line, (size_t)n, &rec, &what), 0);
		assert_int_equal(dmesg_syslog_head(line, (size_t)n),
				 strlen(cases[i].mon) + strlen(" 24 12:31:58 arch-pc "));
	}
	/* words that are no month: text */
	assert_int_equal(dmesg_parse_line("foo 24 12:31:58 h kernel: x", 27, &rec, &what), 0);
	assert_int_equal(dmesg_parse_line("marc 24 12:31:58 h kernel: x", 28, &rec, &what), 0);
	assert_int_equal(dmesg_syslog_head("Unknown symbol, said he", 23), 0);
	assert_int_equal(dmesg_syslog_head("mar 29 18:37:56", 15), 0);
	/* a number that is no month, or no month's sign after it */
	static const char *const no_month[] = {
		"13\xe6\x9c\x88 24 12:31:58 h kernel: x", "0\xe6\x9c\x88 24 12:31:58 h kernel: x",
		"5 24 12:31:58 h kernel: x", "5\xe6\x9c 24 12:31:58 h kernel: x", "5\xe6\x9c\x88",
	};
	for (size_t i = 0; i < ARRAY_SIZE(no_month); i++)
		assert_int_equal(dmesg_parse_line(no_month[i], strlen(no_month[i]), &rec, &what), 0);
	assert_int_equal(dmesg_syslog_head("2026-12-02T13:01:21+0000 host foo: x", 36),
			 strlen("2026-12-02T13:01:21+0000 host "));
}

/* ---- dmesg --json ------------------------------------------------------------------- */

struct json_seen {
	char msg[4][64];
	int level[4], facility[4];
	double time[4];
	bool has_time[4];
	size_t index[4];
	size_t n;
};

static int on_json_rec(void *userdata, size_t index, const struct dmesg_json_rec *r)
{
	struct json_seen *s = userdata;

	assert_true(s->n < 4);
	snprintf(s->msg[s->n], sizeof(s->msg[0]), "%.*s", (int)r->msg_len, r->msg);
	s->level[s->n] = r->level;
	s->facility[s->n] = r->facility;
	s->time[s->n] = r->time;
	s->has_time[s->n] = r->has_time;
	s->index[s->n++] = index;
	return 0;
}

/* util-linux's dmesg --json: "pri" a number (facility * 8 + level), or names with --decode */
static void test_dmesg_json(void **state)
{
	static const char doc[] =
		"{\n   \"dmesg\": [\n      {\n         \"pri\": 30,\n         \"time\":     5.123456,\n"
		"         \"msg\": \"nvidia: Unknown symbol x (err -2)\"\n      },{\"pri\": 3},"
		"{\"fac\": \"kern\", \"pri\": \"warn\", \"msg\": \"a\\u00e9\"},"
		"{\"pri\": 999, \"time\": -1, \"msg\": \"b\"}, 7\n   ]\n}\n";
	static const char *const bad[] = {
		"", "{", "[]", "{\"dmesg\": 1}", "{\"journal\": []}", "{\"dmesg\": []} trailing",
	};
	struct json_seen s = { 0 };

	(void)state;
	assert_int_equal(dmesg_json_each(doc, strlen(doc), on_json_rec, &s), 0);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.msg[0], "nvidia: Unknown symbol x (err -2)");
	assert_int_equal(s.facility[0], 3);
	assert_int_equal(s.level[0], 6);
	assert_true(s.has_time[0] && s.time[0] > 5.123 && s.time[0] < 5.124);
	/* the record without "msg" skipped, the index kept */
	assert_int_equal(s.index[1], 2);
	assert_string_equal(s.msg[1], "a\xc3\xa9");
	assert_int_equal(s.facility[1], 0);
	assert_int_equal(s.level[1], 4);
	assert_false(s.has_time[1]);
	/* a priority out of range and a negative time: not known */
	assert_int_equal(s.level[2], -1);
	assert_false(s.has_time[2]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&s, 0, sizeof(s));
		assert_int_equal(dmesg_json_each(bad[i], strlen(bad[i]), on_json_rec, &s), -EINVAL);
		assert_int_equal(s.n, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vmalloc_line_61),
		cmocka_unit_test(test_vmalloc_line_612),
		cmocka_unit_test(test_vmalloc_line_kinds),
		cmocka_unit_test(test_vmalloc_update_random_edits),
		cmocka_unit_test(test_vmalloc_line_malformed),
		cmocka_unit_test(test_vmalloc_line_impossible),
		cmocka_unit_test(test_vmalloc_addr_mode),
		cmocka_unit_test(test_vmalloc_read_fixtures),
		cmocka_unit_test(test_vmalloc_callers_once),
		cmocka_unit_test(test_vmalloc_read_filtered),
		cmocka_unit_test(test_vmalloc_area_packed),
		cmocka_unit_test(test_vmalloc_read_errors),
		cmocka_unit_test(test_meminfo_lines),
		cmocka_unit_test(test_meminfo_read),
		cmocka_unit_test(test_tainted),
		cmocka_unit_test(test_modstats_fixture),
		cmocka_unit_test(test_modstats_old_labels),
		cmocka_unit_test(test_modstats_dups_and_extra),
		cmocka_unit_test(test_modstats_malformed),
		cmocka_unit_test(test_modstats_read_root),
		cmocka_unit_test(test_kconfig_lines),
		cmocka_unit_test(test_kconfig_parse),
		cmocka_unit_test(test_kconfig_read_fixtures),
		cmocka_unit_test(test_kconfig_read_gz),
		cmocka_unit_test(test_sys_module_fixtures),
		cmocka_unit_test(test_sys_module_malformed),
		cmocka_unit_test(test_modmem_61),
		cmocka_unit_test(test_modmem_612),
		cmocka_unit_test(test_modmem_hidden_module_addresses),
		cmocka_unit_test(test_modmem_zero_addresses),
		cmocka_unit_test(test_modmem_chain_synthetic),
		cmocka_unit_test(test_modmem_size_ambiguous),
		cmocka_unit_test(test_modmem_empty),
		cmocka_unit_test(test_vmsample_sequence),
		cmocka_unit_test(test_boot_id),
		cmocka_unit_test(test_dmesg_months),
		cmocka_unit_test(test_dmesg_json),
		cmocka_unit_test(test_modsyms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
