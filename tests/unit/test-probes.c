/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The naming probes: the kernel's BTF as libbpf reads it (sources/kernel-btf.c), the
 * probe plan made from it (sources/load-probes.c) and the setup script that places
 * the probes without kmodtop (output/setup-script.c). The BTF blobs are built here
 * with libbpf's writer, laid out as Debian's 6.1 and 6.12 kernels lay out the structs
 * the probes read (the offsets the test bed's guests showed: struct file's f_path at
 * 16 and at 64), so that a plan taking an offset from anywhere but the BTF fails.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <cmocka.h>

#include "output/boot-cmdline.h"
#include "session/boot-capture.h"
#include "output/setup-script.h"
#include "sources/kernel-btf.h"
#include "sources/load-probes.h"

struct layout {
	unsigned int f_path, f_inode;	/* struct file */
	unsigned int d_name;		/* struct dentry */
	unsigned int i_size;		/* struct inode */
	unsigned int id_arg;		/* kernel_read_file()'s id: 1-based */
	int reading_module;
	bool find_module_all;
	bool i_size_bitfield;		/* a broken layout: i_size a bit field */
	const char *layout_fn;		/* "module_alloc", "execmem_alloc" or NULL */
};

/* Debian 6.1.0-57-amd64 and 6.12.118+deb12-amd64 (bpftool btf dump of their vmlinux) */
static const struct layout deb61 = { 16, 32, 32, 80, 6, 2, true, false, "module_alloc" };
static const struct layout deb612 = { 64, 40, 32, 80, 6, 2, true, false, "execmem_alloc" };

/* A BTF blob with the types the probes need, laid out as @lo says. Caller frees. */
static void *make_btf(const struct layout *lo, uint32_t *ret_len)
{
	struct btf *b = btf__new_empty();
	int ll, u32, u64, chr, vd, pchr, path, qstr, anon, anon_s, dentry, inode, file, pfile;
	int pdentry, pinode, en, proto, sz, bl;
	const void *raw;
	void *copy;

	assert_non_null(b);
	ll = btf__add_int(b, "long long int", 8, BTF_INT_SIGNED);
	u32 = btf__add_int(b, "unsigned int", 4, 0);
	u64 = btf__add_int(b, "long long unsigned int", 8, 0);
	chr = btf__add_int(b, "char", 1, BTF_INT_SIGNED);
	bl = btf__add_int(b, "_Bool", 1, BTF_INT_BOOL);
	sz = btf__add_typedef(b, "size_t", u64);
	vd = btf__add_ptr(b, 0);
	pchr = btf__add_ptr(b, btf__add_const(b, chr));

	/* struct dentry is defined below, once struct qstr is; as vmlinux has them, a
	 * declaration first and an empty struct of the same name (it must not be taken) */
	dentry = btf__add_fwd(b, "dentry", BTF_FWD_STRUCT);
	pdentry = btf__add_ptr(b, dentry);
	btf__add_struct(b, "dentry", 0);
	path = btf__add_struct(b, "path", 16);
	assert_int_equal(btf__add_field(b, "mnt", vd, 0, 0), 0);
	assert_int_equal(btf__add_field(b, "dentry", pdentry, 64, 0), 0);
	/* struct qstr { union { struct { u32 hash; u32 len; }; u64 hash_len; }; name } */
	anon_s = btf__add_struct(b, NULL, 8);
	assert_int_equal(btf__add_field(b, "hash", u32, 0, 0), 0);
	assert_int_equal(btf__add_field(b, "len", u32, 32, 0), 0);
	anon = btf__add_union(b, NULL, 8);
	assert_int_equal(btf__add_field(b, NULL, anon_s, 0, 0), 0);
	assert_int_equal(btf__add_field(b, "hash_len", u64, 0, 0), 0);
	qstr = btf__add_struct(b, "qstr", 16);
	assert_int_equal(btf__add_field(b, NULL, anon, 0, 0), 0);
	assert_int_equal(btf__add_field(b, "name", pchr, 64, 0), 0);
	/* dentry's own fields: what comes before d_name does not matter */
	inode = btf__add_struct(b, "inode", 624);
	assert_int_equal(btf__add_field(b, "i_mode", u32, 0, 0), 0);
	assert_int_equal(btf__add_field(b, "i_size", ll, lo->i_size * 8,
					lo->i_size_bitfield ? 3 : 0), 0);
	pinode = btf__add_ptr(b, inode);
	file = btf__add_struct(b, "file", 232);
	assert_int_equal(btf__add_field(b, "f_inode", pinode, lo->f_inode * 8, 0), 0);
	assert_int_equal(btf__add_field(b, "f_path", path, lo->f_path * 8, 0), 0);
	pfile = btf__add_ptr(b, file);
	en = btf__add_enum(b, "kernel_read_file_id", 4);
	assert_int_equal(btf__add_enum_value(b, "READING_UNKNOWN", 0), 0);
	assert_int_equal(btf__add_enum_value(b, "READING_FIRMWARE", 1), 0);
	assert_int_equal(btf__add_enum_value(b, "READING_MODULE", lo->reading_module), 0);

	proto = btf__add_func_proto(b, ll);
	assert_int_equal(btf__add_func_param(b, "file", pfile), 0);
	for (unsigned int i = 2; i < lo->id_arg; i++) {
		char n[16];

		snprintf(n, sizeof(n), "arg%u", i);
		assert_int_equal(btf__add_func_param(b, n, sz), 0);
	}
	assert_int_equal(btf__add_func_param(b, "id", en), 0);
	assert_true(btf__add_func(b, "kernel_read_file", BTF_FUNC_GLOBAL, proto) > 0);
	if (lo->find_module_all) {
		proto = btf__add_func_proto(b, vd);
		assert_int_equal(btf__add_func_param(b, "name", pchr), 0);
		assert_int_equal(btf__add_func_param(b, "len", sz), 0);
		assert_int_equal(btf__add_func_param(b, "even_unformed", bl), 0);
		assert_true(btf__add_func(b, "find_module_all", BTF_FUNC_STATIC, proto) > 0);
	}
	if (lo->layout_fn && strcmp(lo->layout_fn, "execmem_alloc") == 0) {
		/* void *execmem_alloc(enum execmem_type type, size_t size) */
		proto = btf__add_func_proto(b, vd);
		assert_int_equal(btf__add_func_param(b, "type", u32), 0);
		assert_int_equal(btf__add_func_param(b, "size", sz), 0);
		assert_true(btf__add_func(b, "execmem_alloc", BTF_FUNC_GLOBAL, proto) > 0);
	} else if (lo->layout_fn) {
		/* void *module_alloc(unsigned long size) */
		proto = btf__add_func_proto(b, vd);
		assert_int_equal(btf__add_func_param(b, "size", u64), 0);
		assert_true(btf__add_func(b, "module_alloc", BTF_FUNC_GLOBAL, proto) > 0);
	}
	/* struct dentry's d_name, now that struct qstr exists */
	assert_true(btf__add_struct(b, "dentry", 192) > 0);
	assert_int_equal(btf__add_field(b, "d_flags", u32, 0, 0), 0);
	assert_int_equal(btf__add_field(b, "d_name", qstr, lo->d_name * 8, 0), 0);
	raw = btf__raw_data(b, ret_len);
	assert_non_null(raw);
	copy = malloc(*ret_len);
	assert_non_null(copy);
	memcpy(copy, raw, *ret_len);
	btf__free(b);
	return copy;
}

static struct kernel_btf *btf_of(const struct layout *lo)
{
	struct kernel_btf *k = NULL;
	uint32_t len;
	void *raw = make_btf(lo, &len);

	assert_int_equal(kernel_btf_new(raw, len, &k), 0);
	free(raw);
	return k;
}

static void test_btf_offsets(void **state)
{
	struct kernel_btf *k = btf_of(&deb612);
	uint32_t off, size;
	unsigned int arg;
	int64_t v;

	assert_int_equal(kernel_btf_offset(k, "file", "f_path", &off), 0);
	assert_int_equal(off, 64);
	/* a path through a member's own struct */
	assert_int_equal(kernel_btf_offset(k, "file", "f_path.dentry", &off), 0);
	assert_int_equal(off, 72);
	/* members of anonymous unions and structs are found as C finds them */
	assert_int_equal(kernel_btf_offset(k, "qstr", "len", &off), 0);
	assert_int_equal(off, 4);
	assert_int_equal(kernel_btf_offset(k, "qstr", "hash_len", &off), 0);
	assert_int_equal(off, 0);
	/* of two structs named dentry, the one with members */
	assert_int_equal(kernel_btf_offset(k, "dentry", "d_name.name", &off), 0);
	assert_int_equal(off, 40);
	assert_int_equal(kernel_btf_member_size(k, "inode", "i_size", &size), 0);
	assert_int_equal(size, 8);
	assert_int_equal(kernel_btf_param(k, "kernel_read_file", "file", &arg), 0);
	assert_int_equal(arg, 1);
	assert_int_equal(kernel_btf_param(k, "kernel_read_file", "id", &arg), 0);
	assert_int_equal(arg, 6);
	assert_int_equal(kernel_btf_enum_value(k, "READING_MODULE", &v), 0);
	assert_int_equal(v, 2);
	assert_true(kernel_btf_has_func(k, "find_module_all"));
	assert_false(kernel_btf_has_func(k, "early_mod_check"));

	/* what is not there */
	assert_int_equal(kernel_btf_offset(k, "file", "f_pos", &off), -ENOENT);
	assert_int_equal(kernel_btf_offset(k, "nosuch", "x", &off), -ENOENT);
	assert_int_equal(kernel_btf_offset(k, "file", "f_path.nosuch", &off), -ENOENT);
	/* into a pointer: not a member path */
	assert_int_equal(kernel_btf_offset(k, "file", "f_inode.i_size", &off), -EINVAL);
	assert_int_equal(kernel_btf_offset(k, "file", "", &off), -EINVAL);
	assert_int_equal(kernel_btf_offset(k, "file", "f_path..dentry", &off), -EINVAL);
	assert_int_equal(kernel_btf_param(k, "kernel_read_file", "nosuch", &arg), -ENOENT);
	assert_int_equal(kernel_btf_param(k, "nosuch", "file", &arg), -ENOENT);
	assert_int_equal(kernel_btf_enum_value(k, "READING_NOSUCH", &v), -ENOENT);
	kernel_btf_free(k);
	assert_null(kernel_btf_free(NULL));
}

static void test_btf_hostile(void **state)
{
	struct layout bf = deb612;
	struct kernel_btf *k = NULL;
	char garbage[4096];
	uint32_t len, off;
	void *raw;

	/* not BTF at all, empty, truncated: refused, nothing printed */
	for (size_t i = 0; i < sizeof(garbage); i++)
		garbage[i] = (char)(i * 131 + 7);
	assert_int_equal(kernel_btf_new(garbage, sizeof(garbage), &k), -EINVAL);
	assert_int_equal(kernel_btf_new(garbage, 0, &k), -EINVAL);
	raw = make_btf(&deb61, &len);
	for (uint32_t cut = 1; cut < len; cut += len / 23 + 1)
		assert_int_equal(kernel_btf_new(raw, cut, &k), -EINVAL);
	/*
	 * a header one byte longer, the types moved after it: libbpf would take them from
	 * a misaligned address (UBSan's finding in fuzz-btf); refused before it parses
	 */
	{
		unsigned char *pad = malloc(len + 1);
		uint32_t hl;

		assert_non_null(pad);
		memcpy(&hl, (unsigned char *)raw + 4, 4);
		memcpy(pad, raw, hl);
		pad[hl] = 0;
		memcpy(pad + hl + 1, (unsigned char *)raw + hl, len - hl);
		hl++;
		memcpy(pad + 4, &hl, 4);
		assert_int_equal(kernel_btf_new(pad, len + 1, &k), -EINVAL);
		/* the same blob with its header at the length it says: accepted */
		hl--;
		memcpy(pad + 4, &hl, 4);
		memcpy(pad + hl, (unsigned char *)raw + hl, len - hl);
		assert_int_equal(kernel_btf_new(pad, len, &k), 0);
		k = kernel_btf_free(k);
		free(pad);
	}
	/* a lying string offset: libbpf's checks refuse it */
	((unsigned char *)raw)[len - 1] ^= 0xff;
	if (kernel_btf_new(raw, len, &k) == 0)
		k = kernel_btf_free(k);
	free(raw);

	/* a bit field is no place to fetch from */
	bf.i_size_bitfield = true;
	k = btf_of(&bf);
	assert_int_equal(kernel_btf_offset(k, "inode", "i_size", &off), -EINVAL);
	kernel_btf_free(k);
}

static void test_plan(void **state)
{
	const struct layout *los[] = { &deb61, &deb612 };
	const char *want[] = {
		"size=+80(+32($arg1)):s64 id=$arg6:s32 path=+0(+40(+24($arg1))):string",
		"size=+80(+40($arg1)):s64 id=$arg6:s32 path=+0(+40(+72($arg1))):string",
	};

	for (size_t i = 0; i < 2; i++) {
		struct kernel_btf *k = btf_of(los[i]);
		struct load_probe_plan p;

		load_probes_plan(k, NULL, 0, &p);
		assert_true(p.p[LOAD_PROBE_KREAD].ok);
		assert_string_equal(p.p[LOAD_PROBE_KREAD].event, "kmodtop_kread");
		assert_string_equal(p.p[LOAD_PROBE_KREAD].symbol, "kernel_read_file");
		assert_string_equal(p.p[LOAD_PROBE_KREAD].args, want[i]);
		assert_string_equal(p.p[LOAD_PROBE_KREAD].filter, "id == 2");
		assert_true(p.p[LOAD_PROBE_NAME].ok);
		assert_string_equal(p.p[LOAD_PROBE_NAME].args, "name=+0($arg1):string");
		/* the layout: module_alloc(size) on 6.1, execmem_alloc(type, size) on 6.12 */
		assert_true(p.p[LOAD_PROBE_LAYOUT].ok);
		assert_string_equal(p.p[LOAD_PROBE_LAYOUT].event, "kmodtop_layout");
		assert_string_equal(p.p[LOAD_PROBE_LAYOUT].symbol, los[i]->layout_fn);
		assert_string_equal(p.p[LOAD_PROBE_LAYOUT].args,
				    i == 0 ? "size=$arg1:u64" : "size=$arg2:u64");
		kernel_btf_free(k);
	}
}

static void test_plan_gaps(void **state)
{
	struct layout lo = deb612;
	struct load_probe_plan p;
	struct kernel_btf *k;
	static const char funcs[] = "kernel_read_file_from_fd\n"
				    "xfs_init [xfs]\n"
				    "kernel_read_file";

	/* no BTF: nothing planned, and why */
	load_probes_plan(NULL, NULL, 0, &p);
	assert_false(p.p[LOAD_PROBE_KREAD].ok);
	assert_false(p.p[LOAD_PROBE_NAME].ok);
	assert_non_null(strstr(p.p[LOAD_PROBE_NAME].why, "BTF"));

	/* find_module_all inlined: only kmodtop_kread, the other said why */
	lo.find_module_all = false;
	k = btf_of(&lo);
	load_probes_plan(k, NULL, 0, &p);
	assert_true(p.p[LOAD_PROBE_KREAD].ok);
	assert_false(p.p[LOAD_PROBE_NAME].ok);
	assert_non_null(p.p[LOAD_PROBE_NAME].why);
	kernel_btf_free(k);

	/* neither allocator: no layout probe, and why (the newest one's reason) */
	lo = deb612;
	lo.layout_fn = NULL;
	k = btf_of(&lo);
	load_probes_plan(k, NULL, 0, &p);
	assert_true(p.p[LOAD_PROBE_KREAD].ok);
	assert_false(p.p[LOAD_PROBE_LAYOUT].ok);
	assert_non_null(strstr(p.p[LOAD_PROBE_LAYOUT].why, "BTF has no such function"));
	kernel_btf_free(k);
	/* execmem_alloc not traceable on a kernel that has both: module_alloc is taken */
	k = btf_of(&deb61);
	{
		static const char f2[] = "kernel_read_file\nmodule_alloc\nexecmem_alloc_x\n";

		load_probes_plan(k, f2, strlen(f2), &p);
	}
	assert_true(p.p[LOAD_PROBE_LAYOUT].ok);
	assert_string_equal(p.p[LOAD_PROBE_LAYOUT].symbol, "module_alloc");
	kernel_btf_free(k);

	/* available_filter_functions decides when it can be read: a prefix is no match */
	k = btf_of(&deb612);
	load_probes_plan(k, funcs, strlen(funcs), &p);
	assert_true(p.p[LOAD_PROBE_KREAD].ok);
	assert_false(p.p[LOAD_PROBE_NAME].ok);
	assert_non_null(strstr(p.p[LOAD_PROBE_NAME].why, "available_filter_functions"));
	load_probes_plan(k, "kernel_read_file_from_fd\n", 25, &p);
	assert_false(p.p[LOAD_PROBE_KREAD].ok);
	kernel_btf_free(k);
	assert_true(load_probes_func_listed(funcs, strlen(funcs), "xfs_init"));
	assert_true(load_probes_func_listed(funcs, strlen(funcs), "kernel_read_file"));
	assert_false(load_probes_func_listed(funcs, strlen(funcs), "kernel_read"));
	assert_false(load_probes_func_listed(funcs, strlen(funcs), "xfs"));
	assert_false(load_probes_func_listed("", 0, "x"));
}

/* Runs @script with @cmd in a shell against the fake tracefs @t; its exit status */
static int run_script(const char *script, const char *t, const char *cmd)
{
	char buf[8192];

	snprintf(buf, sizeof(buf), "T='%s' G=kmt sh -e -c '. %s; %s' 2>/dev/null", t, script, cmd);
	return system(buf);
}

static char *slurp(const char *path)
{
	static char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static void test_setup_script(void **state)
{
	struct kernel_btf *k = btf_of(&deb61);
	struct load_probe_plan p;
	struct setup_probe probes[_LOAD_PROBE_MAX];
	static const char *const events[] = { "module/module_load", "syscalls/sys_enter_finit_module" };
	struct setup_script ss = {
		.release = "6.1.0-57-amd64", .tracefs = "/sys/kernel/tracing",
		.instance = "kmodtop", .group = "kmodtop", .clock = "global",
		.events = events, .n_events = 2, .probes = probes,
	};
	char dir[] = "/tmp/kmodtop-setup-XXXXXX", path[256], t[256], rel[1600];
	const char *s;
	FILE *f;

	load_probes_plan(k, NULL, 0, &p);
	for (int i = 0; i < _LOAD_PROBE_MAX; i++)
		probes[ss.n_probes++] = (struct setup_probe){ p.p[i].event, p.p[i].symbol,
							      p.p[i].args, p.p[i].filter, p.p[i].gives };
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/setup.sh", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(setup_script_write(f, &ss), 0);
	fclose(f);
	snprintf(rel, sizeof(rel), "sh -n %s", path);
	assert_int_equal(system(rel), 0);
	s = slurp(path);
	assert_non_null(strstr(s, "trace-cmd record -B \"$KMODTOP_BUFFER\" -C global"));
	assert_non_null(strstr(s, "-e \"$G:kmodtop_kread\" -f 'id == 2'"));
	assert_non_null(strstr(s, "-e module:module_load"));

	/* against a fake tracefs: what the functions write is what the plan says */
	snprintf(t, sizeof(t), "%s/t", dir);
	assert_int_equal(mkdir(t, 0755), 0);
	assert_int_equal(run_script(path, t, "kmodtop_probes_add"), 0);
	snprintf(rel, sizeof(rel), "%s/kprobe_events", t);
	s = slurp(rel);
	assert_non_null(s);
	assert_string_equal(s, "p:kmt/kmodtop_kread kernel_read_file "
			       "size=+80(+32($arg1)):s64 id=$arg6:s32 "
			       "path=+0(+40(+24($arg1))):string\n"
			       "p:kmt/kmodtop_name find_module_all name=+0($arg1):string\n"
			       "p:kmt/kmodtop_layout module_alloc size=$arg1:u64\n");
	snprintf(rel, sizeof(rel),
		 "mkdir -p %s/events/module/module_load %s/events/syscalls/sys_enter_finit_module "
		 "%s/events/kmt/kmodtop_kread %s/events/kmt/kmodtop_name "
		 "%s/events/kmt/kmodtop_layout", t, t, t, t, t);
	assert_int_equal(system(rel), 0);
	assert_int_equal(run_script(path, t, "kmodtop_enable \"$T\"; kmodtop_mark \"$T\""), 0);
	snprintf(rel, sizeof(rel), "%s/events/kmt/kmodtop_kread/filter", t);
	assert_string_equal(slurp(rel), "id == 2\n");
	snprintf(rel, sizeof(rel), "%s/events/kmt/kmodtop_name/enable", t);
	assert_string_equal(slurp(rel), "1\n");
	snprintf(rel, sizeof(rel), "%s/events/module/module_load/enable", t);
	assert_string_equal(slurp(rel), "1\n");
	snprintf(rel, sizeof(rel), "%s/trace_marker", t);
	assert_string_equal(slurp(rel), "kmodtop_probes kread name layout\n");
	assert_int_equal(run_script(path, t, "kmodtop_probes_remove"), 0);
	snprintf(rel, sizeof(rel), "%s/kprobe_events", t);
	assert_non_null(strstr(slurp(rel), "-:kmt/kmodtop_kread\n-:kmt/kmodtop_name\n"
					   "-:kmt/kmodtop_layout\n"));
	snprintf(rel, sizeof(rel), "rm -rf %s", dir);
	assert_int_equal(system(rel), 0);
	kernel_btf_free(k);
}


/* boot-setup's command line: the kernel's separators, and grub's quoting of it */
static void test_boot_cmdline(void **state)
{
	static const char *const events[] = { "module/module_load", "syscalls/sys_enter_finit_module" };
	struct setup_probe probes[] = {
		{ "kmodtop_kread", "kernel_read_file", "size=+80(+40($arg1)):s64 id=$arg2:s32", "id == 2", "" },
		{ "kmodtop_name", "find_module_all", "name=+0($arg1):string", "", "" },
	};
	struct setup_script ss = { .group = "kmodtop", .events = events, .n_events = 2,
				   .probes = probes, .n_probes = 2 };
	char *cmd = NULL, *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(boot_cmdline_new(&ss, 1024, &cmd), 0);
	assert_string_equal(cmd,
		"trace_event=module:module_load,syscalls:sys_enter_finit_module "
		"kprobe_event=p:kmodtop/kmodtop_kread,kernel_read_file,size=+80(+40($arg1)):s64,"
		"id=$arg2:s32;p:kmodtop/kmodtop_name,find_module_all,name=+0($arg1):string "
		"trace_buf_size=1024K trace_options=nooverwrite trace_clock=global");
	assert_true(boot_capture_cmdline_traces(cmd));

	/* grub: sh sources the file, GRUB reads grub.cfg; ';' and '$' inside single quotes */
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(boot_cmdline_write_grub(f, cmd, "6.12.1"), 0);
	fclose(f);
	assert_non_null(strstr(text, BOOT_CMDLINE_GRUB_MARK " for 6.12.1"));
	assert_non_null(strstr(text, "GRUB_CMDLINE_LINUX_DEFAULT=\"${GRUB_CMDLINE_LINUX_DEFAULT} "
				     "trace_event=module:module_load,syscalls:sys_enter_finit_module "
				     "'kprobe_event=p:kmodtop/kmodtop_kread,kernel_read_file,"
				     "size=+80(+40(\\$arg1)):s64,id=\\$arg2:s32;"));
	assert_non_null(strstr(text, ":string' trace_buf_size=1024K trace_options=nooverwrite trace_clock=global\"\n"));
	free(text);
	text = NULL;
	/* what a drop-in cannot carry is refused, not written half-quoted */
	f = open_memstream(&text, &len);
	assert_int_equal(boot_cmdline_write_grub(f, "a=\"b\"", NULL), -EINVAL);
	assert_int_equal(boot_cmdline_write_grub(f, "a=`b`", NULL), -EINVAL);
	assert_int_equal(boot_cmdline_write_grub(f, "a=\\b", NULL), -EINVAL);
	fclose(f);
	free(text);
	free(cmd);

	/* an argument holding the kernel's separators cannot be written */
	probes[1].args = "name=+0($arg1):string,x";
	assert_int_equal(boot_cmdline_new(&ss, 1024, &cmd), -EINVAL);
	probes[1].args = "a;b";
	assert_int_equal(boot_cmdline_new(&ss, 1024, &cmd), -EINVAL);

	/* which command lines set the capture up */
	assert_true(boot_capture_cmdline_traces("quiet trace_event=module:module_load"));
	assert_true(boot_capture_cmdline_traces("trace_event=sched:sched_switch,module:*"));
	assert_true(boot_capture_cmdline_traces("a \"trace_event=module:\""));
	assert_false(boot_capture_cmdline_traces("trace_event=sched:sched_switch mymodule:x"));
	assert_false(boot_capture_cmdline_traces("xtrace_event=module:module_load"));
	assert_false(boot_capture_cmdline_traces("trace_event=sched:module_x"));
	assert_false(boot_capture_cmdline_traces("trace_event=foomodule:x"));
	assert_false(boot_capture_cmdline_traces(""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_btf_offsets),
		cmocka_unit_test(test_btf_hostile),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_plan_gaps),
		cmocka_unit_test(test_setup_script),
		cmocka_unit_test(test_boot_cmdline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
