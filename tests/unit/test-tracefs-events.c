/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sources/trace/order.h"
#include "sources/trace/read.h"
#include "sources/trace/text.h"

#ifndef FIXTURES_DIR
#define FIXTURES_DIR "tests/fixtures"
#endif

#define assert_str(got, lit)                                                   \
	do {                                                                   \
		struct ktrace_str g_ = (got);                                 \
		assert_int_equal(g_.len, strlen(lit));                         \
		if (g_.len)                                                    \
			assert_memory_equal(g_.s, (lit), g_.len);              \
	} while (0)

static int parse(const char *line, struct ktrace_line *l, const char **what)
{
	*what = NULL;
	return ktrace_parse_line(line, strlen(line), l, what);
}

static void parse_event(const char *line, struct ktrace_event *ev)
{
	struct ktrace_line l;
	const char *what;

	assert_int_equal(parse(line, &l, &what), 0);
	assert_int_equal(l.kind, KTRACE_LINE_EVENT);
	*ev = l.ev;
}

/* @len SIZE_MAX: the whole C string (others give a length to keep a NUL inside) */
static void expect_malformed(const char *line, size_t len)
{
	struct ktrace_line l;
	const char *what = NULL;

	if (len == SIZE_MAX)
		len = strlen(line);
	assert_int_equal(ktrace_parse_line(line, len, &l, &what), -EINVAL);
	assert_non_null(what);
}

/* --- single lines, copied from the captures --------------------------------------- */

static void test_context_columns(void **state)
{
	struct ktrace_event ev;

	/* debian-6.12-xz: comm with '/' and ':' and a dash before the pid */
	parse_event("    kworker/u8:0-12      [001] .....    14.093206: alloc_vmap_area: va_start: "
		    "18446692164739563520 size=20480 align=16384 vstart=0xffffd0ca00000000 "
		    "vend=0xfffff0c9ffffffff failed=0",
		    &ev);
	assert_str(ev.comm, "kworker/u8:0");
	assert_int_equal(ev.pid, 12);
	assert_int_equal(ev.tgid, -1);
	assert_int_equal(ev.cpu, 1);
	assert_str(ev.flags, ".....");
	assert_int_equal(ev.ts_ns, 14093206000ull);
	assert_int_equal(ev.ts_digits, 6);
	assert_true(fabs(ev.ts - 14.093206) < 1e-9);
	assert_str(ev.name, "alloc_vmap_area");
	assert_int_equal(ev.format, KTRACE_FMT_EITHER);

	parse_event("  cryptomgr_test-159     [000] .....     4.787953: module_get: crc32c_generic "
		    "call_site=__crypto_alg_lookup refcnt=4",
		    &ev);
	assert_str(ev.comm, "cryptomgr_test");
	assert_int_equal(ev.pid, 159);

	parse_event("        modprobe-157     [001] .N.1.     4.854536: sys_init_module -> 0x0", &ev);
	assert_str(ev.flags, ".N.1.");
	assert_int_equal(ev.kind, KTRACE_EV_SYS_EXIT_INIT_MODULE);
	assert_int_equal(ev.sys_exit.ret, 0);
}

static void test_module_events(void **state)
{
	struct ktrace_event ev;

	parse_event("           storm-207     [000] .....    14.446452: module_request: "
		    "net-pf-2-proto-132 wait=1 call_site=inet_create",
		    &ev);
	assert_int_equal(ev.kind, KTRACE_EV_MODULE_REQUEST);
	assert_str(ev.module_request.name, "net-pf-2-proto-132");
	assert_true(ev.module_request.wait);
	assert_str(ev.module_request.call_site.sym, "inet_create");

	parse_event("        modprobe-102     [000] .....     3.176337: module_request: crypto-crc32c "
		    "wait=1 call_site=crypto_alg_mod_lookup",
		    &ev);
	assert_str(ev.module_request.name, "crypto-crc32c");

	/* an untainted load ends in "name " */
	parse_event("        modprobe-157     [000] .....     4.622529: module_load: libcrc32c ", &ev);
	assert_int_equal(ev.kind, KTRACE_EV_MODULE_LOAD);
	assert_str(ev.module_load.name, "libcrc32c");
	assert_str(ev.module_load.taints, "");

	parse_event("        modprobe-1240    [001] .....    12.400001: module_load: nvidia POE", &ev);
	assert_str(ev.module_load.name, "nvidia");
	assert_str(ev.module_load.taints, "POE");

	parse_event("           rmmod-177     [001] .....     9.550179: module_free: xfs", &ev);
	assert_int_equal(ev.kind, KTRACE_EV_MODULE_FREE);
	assert_str(ev.module_load.name, "xfs");

	parse_event("  cryptomgr_test-104     [000] ...1.     3.289723: module_put: crc32c_generic "
		    "call_site=crypto_destroy_tfm refcnt=5",
		    &ev);
	assert_int_equal(ev.kind, KTRACE_EV_MODULE_PUT);
	assert_str(ev.module_refcnt.name, "crc32c_generic");
	assert_str(ev.module_refcnt.call_site.sym, "crypto_destroy_tfm");
	assert_int_equal(ev.module_refcnt.refcnt, 5);

	/* %pS with offset and module */
	parse_event("        modprobe-1       [000] .....     1.000000: module_get: foo "
		    "call_site=bar_init+0x1c/0x50 [bar] refcnt=2",
		    &ev);
	assert_str(ev.module_refcnt.call_site.sym, "bar_init");
	assert_str(ev.module_refcnt.call_site.module, "bar");
	assert_str(ev.module_refcnt.call_site.text, "bar_init+0x1c/0x50 [bar]");
}

static void test_syscall_events(void **state)
{
	struct ktrace_event ev;

	/* tracefs prints the arguments in unprefixed hex: "fd: a" is fd 10 */
	parse_event("           storm-174     [001] ...1.     7.181447: sys_finit_module(fd: a, "
		    "uargs: 4a3195, flags: 4)",
		    &ev);
	assert_int_equal(ev.kind, KTRACE_EV_SYS_ENTER_FINIT_MODULE);
	assert_int_equal(ev.format, KTRACE_FMT_TRACE);
	assert_str(ev.name, "sys_finit_module");
	assert_int_equal(ev.finit_module.fd, 10);
	assert_int_equal(ev.finit_module.uargs, 0x4a3195);
	assert_int_equal(ev.finit_module.flags, 4);

	parse_event("           storm-168     [000] .N.1.     6.543296: sys_finit_module -> "
		    "0xffffffffffffffef",
		    &ev);
	assert_int_equal(ev.kind, KTRACE_EV_SYS_EXIT_FINIT_MODULE);
	assert_int_equal(ev.sys_exit.ret, -EEXIST);

	parse_event("        modprobe-157     [000] ...1.     4.588932: sys_finit_module -> "
		    "0xfffffffffffffff8",
		    &ev);
	assert_int_equal(ev.sys_exit.ret, -ENOEXEC);

	parse_event("        modprobe-78      [001] ...1.     4.730904: sys_init_module(umod: "
		    "7ffa9b5f3010, len: 484a49, uargs: df8ed70)",
		    &ev);
	assert_int_equal(ev.kind, KTRACE_EV_SYS_ENTER_INIT_MODULE);
	assert_int_equal(ev.init_module.umod, 0x7ffa9b5f3010ull);
	assert_int_equal(ev.init_module.len, 0x484a49);
	assert_int_equal(ev.init_module.uargs, 0xdf8ed70);

	parse_event("        modprobe-254     [001] ...1.    15.121151: sys_init_module -> "
		    "0xfffffffffffffff0",
		    &ev);
	assert_int_equal(ev.sys_exit.ret, -EBUSY);

	parse_event("           rmmod-177     [001] ...1.     9.459130: sys_delete_module(name_user: "
		    "7ffcd5cb4c68, flags: 880)",
		    &ev);
	assert_int_equal(ev.kind, KTRACE_EV_SYS_ENTER_DELETE_MODULE);
	assert_int_equal(ev.delete_module.name_user, 0x7ffcd5cb4c68ull);
	assert_int_equal(ev.delete_module.flags, 0x880);

	parse_event("           rmmod-177     [001] ...1.     9.578399: sys_delete_module -> 0x0", &ev);
	assert_int_equal(ev.kind, KTRACE_EV_SYS_EXIT_DELETE_MODULE);
	assert_int_equal(ev.sys_exit.ret, 0);

	/* the verbose option adds the argument types */
	parse_event("        modprobe-1       [000] ...1.     1.000000: sys_finit_module(int fd: 3, "
		    "const char __user * uargs: 5bfb41, int flags: 0)",
		    &ev);
	assert_int_equal(ev.finit_module.fd, 3);
	assert_int_equal(ev.finit_module.uargs, 0x5bfb41);

	/* decimal return values (raw output) and a 32-bit kernel's 8 hex digits */
	parse_event("        modprobe-1       [000] ...1.     1.000000: sys_exit_finit_module: "
		    "__syscall_nr=313 ret=-17",
		    &ev);
	assert_int_equal(ev.sys_exit.ret, -17);
	parse_event("        modprobe-1       [000] ...1.     1.000000: sys_finit_module -> 0xffffffef",
		    &ev);
	assert_int_equal(ev.sys_exit.ret, -17);
}

/* kmodtop's naming probes, as the 6.12 and 6.1 guests printed them (tracefs, trace-cmd) */
static void test_naming_probes(void **state)
{
	struct ktrace_event ev;

	parse_event("   systemd-udevd-1666    [001] .....   110.559954: kmodtop_kread: "
		    "(kernel_read_file+0x4/0x330) size=3572 id=2 path=\"dummy.ko.xz\"",
		    &ev);
	assert_int_equal(ev.kind, KTRACE_EV_PROBE_KREAD);
	assert_int_equal(ev.probe_kread.size, 3572);
	assert_int_equal(ev.probe_kread.id, 2);
	assert_str(ev.probe_kread.path, "dummy.ko.xz");
	parse_event("   systemd-udevd-1666    [000] .....   110.604859: kmodtop_name: "
		    "(find_module_all+0x4/0xd0) name=\"dummy\"",
		    &ev);
	assert_int_equal(ev.kind, KTRACE_EV_PROBE_NAME);
	assert_str(ev.probe_name.name, "dummy");
	/* trace-cmd report: the address alone, the name padded to 20 columns */
	parse_event("           storm-173   [000]    14.129052: kmodtop_kread:        "
		    "(ffffffff8b0b2474) size=102400 id=2 path=\"garbage.ko\"",
		    &ev);
	assert_int_equal(ev.kind, KTRACE_EV_PROBE_KREAD);
	assert_int_equal(ev.probe_kread.size, 102400);
	assert_str(ev.probe_kread.path, "garbage.ko");
	parse_event("           storm-168   [000]    12.529454: kmodtop_name:         "
		    "(ffffffff8ada5f44) name=\"xfs\"",
		    &ev);
	assert_str(ev.probe_name.name, "xfs");

	/* a file name is anything but '/' and NUL: quotes and "key=" in it change nothing */
	parse_event("               x-1       [000] .....     1.000000: kmodtop_kread: "
		    "(kernel_read_file+0x4/0x330) size=10 id=2 path=\"a\" size=99 id=7 \"b.ko\"",
		    &ev);
	assert_int_equal(ev.probe_kread.size, 10);
	assert_int_equal(ev.probe_kread.id, 2);
	assert_str(ev.probe_kread.path, "a\" size=99 id=7 \"b.ko");
	/* the kernel could not fetch the string: the size still counts */
	parse_event("               x-1       [000] .....     1.000000: kmodtop_kread: "
		    "(kernel_read_file+0x4/0x330) size=10 id=2 path=(fault)",
		    &ev);
	assert_int_equal(ev.kind, KTRACE_EV_PROBE_KREAD);
	assert_int_equal(ev.probe_kread.path.len, 0);
	/* without the id fetch (another setup): -1 */
	parse_event("               x-1       [000] .....     1.000000: kmodtop_kread: "
		    "(kernel_read_file+0x4/0x330) size=10 path=\"x.ko\"",
		    &ev);
	assert_int_equal(ev.probe_kread.id, -1);
	/* escape bytes in a name are kept raw; the output escapes them */
	parse_event("               x-1       [000] .....     1.000000: kmodtop_name: "
		    "(find_module_all+0x4/0xd0) name=\"\x1b[31mred\"",
		    &ev);
	assert_str(ev.probe_name.name, "\x1b[31mred");

	expect_malformed("               x-1       [000] .....     1.000000: kmodtop_kread: "
			 "(kernel_read_file+0x4/0x330) path=\"x.ko\"", SIZE_MAX);
	expect_malformed("               x-1       [000] .....     1.000000: kmodtop_kread: "
			 "(kernel_read_file+0x4/0x330) size=-5 path=\"x.ko\"", SIZE_MAX);
	expect_malformed("               x-1       [000] .....     1.000000: kmodtop_kread: "
			 "(kernel_read_file+0x4/0x330) size=99999999999999999999", SIZE_MAX);
	expect_malformed("               x-1       [000] .....     1.000000: kmodtop_kread: "
			 "size=5", SIZE_MAX);
	expect_malformed("               x-1       [000] .....     1.000000: kmodtop_name: "
			 "(find_module_all+0x4/0xd0) name=\"unterminated", SIZE_MAX);
	expect_malformed("               x-1       [000] .....     1.000000: kmodtop_name: "
			 "(find_module_all+0x4/0xd0) name=\"\"", SIZE_MAX);
	expect_malformed("               x-1       [000] .....     1.000000: kmodtop_name: "
			 "(find_module_all+0x4/0xd0)", SIZE_MAX);

	/* the layout probe: execmem_alloc() on 6.10+, module_alloc() before */
	parse_event("        modprobe-423     [001] .....    19.450900: kmodtop_layout: "
		    "(execmem_alloc+0x4/0x1a0) size=61440", &ev);
	assert_int_equal(ev.kind, KTRACE_EV_PROBE_LAYOUT);
	assert_int_equal(ev.probe_layout.size, 61440);
	parse_event("        modprobe-280     [001] .....    11.135300: kmodtop_layout:       "
		    "(ffffffff8b0b2474) size=20480", &ev);
	assert_int_equal(ev.probe_layout.size, 20480);
	expect_malformed("               x-1       [000] .....     1.000000: kmodtop_layout: "
			 "(module_alloc+0x4/0x40)", SIZE_MAX);
	expect_malformed("               x-1       [000] .....     1.000000: kmodtop_layout: "
			 "(module_alloc+0x4/0x40) size=999999999999999999999", SIZE_MAX);
	expect_malformed("               x-1       [000] .....     1.000000: kmodtop_layout: "
			 "(module_alloc+0x4/0x40) size=0x", SIZE_MAX);
}

static void test_marker_vmalloc_sched(void **state)
{
	struct ktrace_event ev;

	parse_event("            init-1       [000] .....     9.587105: tracing_mark_write: STEP "
		    "storm-fresh-xfs",
		    &ev);
	assert_int_equal(ev.kind, KTRACE_EV_MARKER);
	assert_str(ev.marker.text, "STEP storm-fresh-xfs");
	assert_str(ev.marker.step, "storm-fresh-xfs");

	parse_event("            init-1       [000] .....     1.000000: tracing_mark_write: hello", &ev);
	assert_str(ev.marker.text, "hello");
	assert_str(ev.marker.step, "");

	/* 6.12 tracepoint: va_start in decimal */
	parse_event("           storm-168     [000] .....     7.174487: alloc_vmap_area: va_start: "
		    "18446692164739944448 size=761856 align=1 vstart=0xffffd0ca00000000 "
		    "vend=0xfffff0c9ffffffff failed=0",
		    &ev);
	assert_int_equal(ev.kind, KTRACE_EV_ALLOC_VMAP_AREA);
	assert_int_equal(ev.vmap_alloc.addr, 18446692164739944448ull);
	assert_int_equal(ev.vmap_alloc.size, 761856);
	assert_int_equal(ev.vmap_alloc.align, 1);
	assert_int_equal(ev.vmap_alloc.vstart, 0xffffd0ca00000000ull);
	assert_int_equal(ev.vmap_alloc.vend, 0xfffff0c9ffffffffull);
	assert_false(ev.vmap_alloc.failed);
	assert_true(ev.vmap_alloc.has_result);

	/* 6.1: a kprobe "kmt/alloc_vmap_area size=%si:u64" stands in */
	parse_event("           storm-112     [000] .....     4.105954: alloc_vmap_area: "
		    "(alloc_vmap_area+0x0/0x880) size=4222976",
		    &ev);
	assert_int_equal(ev.kind, KTRACE_EV_ALLOC_VMAP_AREA_KPROBE);
	assert_int_equal(ev.vmap_alloc.size, 4222976);
	assert_false(ev.vmap_alloc.has_result);
	assert_false(ev.vmap_alloc.has_align);
	assert_str(ev.kprobe.probe.sym, "alloc_vmap_area");

	/* the default kprobe name, and x64 fetch types printing hex */
	parse_event("           storm-112     [000] .....     4.105954: p_alloc_vmap_area_0: "
		    "(alloc_vmap_area+0x0/0x880) size=0x5000 align=0x4000",
		    &ev);
	assert_int_equal(ev.kind, KTRACE_EV_ALLOC_VMAP_AREA_KPROBE);
	assert_int_equal(ev.vmap_alloc.size, 0x5000);
	assert_true(ev.vmap_alloc.has_align);
	assert_int_equal(ev.vmap_alloc.align, 0x4000);

	/* any other probe: location and raw arguments */
	parse_event("           storm-112     [000] .....     4.105954: p_load_module_0: "
		    "(load_module+0x0/0x2200) len=123",
		    &ev);
	assert_int_equal(ev.kind, KTRACE_EV_KPROBE);
	assert_str(ev.kprobe.probe.sym, "load_module");
	assert_str(ev.kprobe.args, "len=123");

	parse_event("     kworker/1:1-46      [001] .N...     3.787059: free_vmap_area_noflush: "
		    "va_start=0xffffd0ca00428000 nr_lazy=60 nr_lazy_max=16384",
		    &ev);
	assert_int_equal(ev.kind, KTRACE_EV_FREE_VMAP_AREA_NOFLUSH);
	assert_int_equal(ev.vmap_free.addr, 0xffffd0ca00428000ull);
	assert_int_equal(ev.vmap_free.nr_lazy, 60);
	assert_int_equal(ev.vmap_free.nr_lazy_max, 16384);

	parse_event("     kworker/1:1-46      [001] .....     3.787059: purge_vmap_area_lazy: "
		    "start=0xffffd0ca00000000 end=0xffffd0ca00400000 num_purged=12",
		    &ev);
	assert_int_equal(ev.kind, KTRACE_EV_PURGE_VMAP_AREA_LAZY);
	assert_int_equal(ev.vmap_purge.npurged, 12);

	parse_event("            bash-1234    [002] .....    10.000000: sched_process_fork: "
		    "comm=bash pid=1234 child_comm=bash child_pid=1240",
		    &ev);
	assert_int_equal(ev.kind, KTRACE_EV_SCHED_PROCESS_FORK);
	assert_str(ev.fork.comm, "bash");
	assert_int_equal(ev.fork.pid, 1234);
	assert_str(ev.fork.child_comm, "bash");
	assert_int_equal(ev.fork.child_pid, 1240);

	/* comm values may hold spaces */
	parse_event("     my prog-77      [002] .....    10.000000: sched_process_fork: "
		    "comm=my prog pid=77 child_comm=my prog pid=2 child_pid=78",
		    &ev);
	assert_str(ev.comm, "my prog");
	assert_str(ev.fork.comm, "my prog");
	assert_str(ev.fork.child_comm, "my prog pid=2");
	assert_int_equal(ev.fork.child_pid, 78);

	parse_event("        modprobe-1240    [002] .....    10.000100: sched_process_exec: "
		    "filename=/sbin/modprobe pid=1240 old_pid=1240",
		    &ev);
	assert_int_equal(ev.kind, KTRACE_EV_SCHED_PROCESS_EXEC);
	assert_str(ev.exec.filename, "/sbin/modprobe");
	assert_int_equal(ev.exec.pid, 1240);
	assert_int_equal(ev.exec.old_pid, 1240);

	/* the 6.1 guest: exec renames too; the header still has the name from before */
	parse_event("        workload-138     [001] ...1.     5.371716: task_rename: pid=138 "
		    "oldcomm=workload newcomm=modprobe oom_score_adj=0",
		    &ev);
	assert_int_equal(ev.kind, KTRACE_EV_TASK_RENAME);
	assert_str(ev.comm, "workload");
	assert_int_equal(ev.rename.pid, 138);
	assert_str(ev.rename.oldcomm, "workload");
	assert_str(ev.rename.newcomm, "modprobe");
	/* prctl(PR_SET_NAME) takes any bytes: spaces and "=" in both names */
	parse_event("            a b-90       [000] .....     1.000000: task_rename: pid=90 "
		    "oldcomm=a b newcomm=x newcomm=y oom_score_adj=-1000",
		    &ev);
	assert_str(ev.rename.oldcomm, "a b");
	assert_str(ev.rename.newcomm, "x newcomm=y");
	/* 6.13+ dropped pid= (always the current task): the line's pid */
	parse_event("        workload-140     [000] .....     1.000000: task_rename: "
		    "oldcomm=workload newcomm=udisksd oom_score_adj=0",
		    &ev);
	assert_int_equal(ev.rename.pid, 140);
	assert_str(ev.rename.oldcomm, "workload");
	assert_str(ev.rename.newcomm, "udisksd");
	/* trace-cmd: the same fields after the padded name */
	parse_event("        workload-141   [001]  5.371716: task_rename:          pid=141 "
		    "oldcomm=workload newcomm=charon oom_score_adj=0",
		    &ev);
	assert_int_equal(ev.rename.pid, 141);
	assert_str(ev.rename.newcomm, "charon");
	expect_malformed("        workload-138     [001] .....     5.3: task_rename: pid=138 "
			 "newcomm=modprobe oom_score_adj=0", SIZE_MAX);
	expect_malformed("        workload-138     [001] .....     5.3: task_rename: pid=x "
			 "oldcomm=a newcomm=b oom_score_adj=0", SIZE_MAX);
	expect_malformed("        workload-138     [001] .....     5.3: task_rename: pid=138 "
			 "newcomm=b oldcomm=a oom_score_adj=0", SIZE_MAX);
}

/* --- the other line shapes ---------------------------------------------------------- */

static void test_variants(void **state)
{
	struct ktrace_line l;
	struct ktrace_event ev;
	const char *what;

	/* irq-info off: no flags column */
	parse_event("        modprobe-203     [000]     0.938668: module_load: e1000e ", &ev);
	assert_str(ev.flags, "");
	assert_str(ev.module_load.name, "e1000e");

	/* pre-5.x 4-character flags and "%-5d" pid */
	parse_event("        modprobe-203   [000] d..1     0.938668: module_free: e1000e", &ev);
	assert_str(ev.flags, "d..1");
	assert_int_equal(ev.pid, 203);

	/* record-tgid */
	parse_event("        modprobe-203     (    200) [000] .....     0.938668: module_free: x",
		    &ev);
	assert_int_equal(ev.tgid, 200);
	assert_int_equal(ev.cpu, 0);
	parse_event("           <...>-203     (-------) [003] .....     0.938668: module_free: x",
		    &ev);
	assert_str(ev.comm, "<...>");
	assert_int_equal(ev.tgid, -1);
	assert_int_equal(ev.cpu, 3);

	/* trace-cmd report: no flags, names padded to 20 columns, the format file's fmt */
	parse_event("        modprobe-157   [000]     4.586660: sys_enter_finit_module: fd: "
		    "0x00000003, uargs: 0x005bfb41, flags: 0x00000004",
		    &ev);
	assert_int_equal(ev.kind, KTRACE_EV_SYS_ENTER_FINIT_MODULE);
	assert_int_equal(ev.format, KTRACE_FMT_TRACE_CMD);
	assert_int_equal(ev.finit_module.fd, 3);
	assert_int_equal(ev.finit_module.flags, 4);
	parse_event("        modprobe-157   [000]     4.588932: sys_exit_finit_module: "
		    "0xfffffffffffffff8",
		    &ev);
	assert_int_equal(ev.kind, KTRACE_EV_SYS_EXIT_FINIT_MODULE);
	assert_int_equal(ev.sys_exit.ret, -ENOEXEC);
	parse_event("        modprobe-157   [000] .....  4.622529: module_load:          libcrc32c ",
		    &ev);
	assert_int_equal(ev.format, KTRACE_FMT_TRACE_CMD);
	assert_str(ev.module_load.name, "libcrc32c");
	parse_event("            init-1     [001]     4.578855: print:                "
		    "tracing_mark_write: STEP modprobe-xfs",
		    &ev);
	assert_int_equal(ev.kind, KTRACE_EV_MARKER);
	assert_str(ev.marker.step, "modprobe-xfs");
	/* trace-cmd -t: nanoseconds */
	parse_event("            init-1     [001]     4.578855123: module_free: x", &ev);
	assert_int_equal(ev.ts_ns, 4578855123ull);
	assert_int_equal(ev.ts_digits, 9);
	/* counter clocks */
	parse_event("            init-1     [001] 123456789012: module_free: x", &ev);
	assert_int_equal(ev.ts_ns, 123456789012ull);
	assert_int_equal(ev.ts_digits, 0);
	/* system:name, as perf prints it */
	parse_event("            init-1     [001]     1.000000: module:module_load: x ", &ev);
	assert_str(ev.system, "module");
	assert_str(ev.name, "module_load");
	assert_int_equal(ev.kind, KTRACE_EV_MODULE_LOAD);
	/* sym-offset option on the marker's ip */
	parse_event("            init-1     [001] .....     1.000000: "
		    "tracing_mark_write+0x5c/0xa0: STEP x",
		    &ev);
	assert_int_equal(ev.kind, KTRACE_EV_MARKER);
	assert_str(ev.marker.step, "x");

	/* trace-cmd's stack event and frames */
	parse_event("          <idle>-0     [003] 58549.289092: kernel_stack:         <stack trace >",
		    &ev);
	assert_int_equal(ev.kind, KTRACE_EV_STACK);
	assert_int_equal(ev.format, KTRACE_FMT_TRACE_CMD);
	assert_int_equal(parse("=> schedule (ffffffff814b260e)", &l, &what), 0);
	assert_int_equal(l.kind, KTRACE_LINE_FRAME);
	assert_str(l.frame.fn.sym, "schedule");

	/* headers */
	assert_int_equal(parse("cpus=2", &l, &what), 0);
	assert_int_equal(l.kind, KTRACE_LINE_HEADER);
	assert_int_equal(l.ncpus, 2);
	assert_int_equal(parse("# entries-in-buffer/entries-written: 1695/1700   #P:2", &l, &what),
			 0);
	assert_int_equal(l.entries, 1695);
	assert_int_equal(l.written, 1700);
	assert_int_equal(l.ncpus, 2);
	assert_int_equal(parse("#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION", &l, &what),
			 0);
	assert_int_equal(l.kind, KTRACE_LINE_HEADER);
	assert_int_equal(parse("version = 6", &l, &what), 0);
	assert_int_equal(l.kind, KTRACE_LINE_HEADER);
	assert_int_equal(parse("CPU 1 is empty", &l, &what), 0);
	assert_int_equal(l.kind, KTRACE_LINE_HEADER);
	assert_int_equal(parse("", &l, &what), 0);
	assert_int_equal(l.kind, KTRACE_LINE_HEADER);

	/* lost events */
	assert_int_equal(parse("CPU:1 [LOST 1234 EVENTS]", &l, &what), 0);
	assert_int_equal(l.ev.kind, KTRACE_EV_LOST);
	assert_int_equal(l.ev.cpu, 1);
	assert_int_equal(l.ev.lost.count, 1234);
	assert_false(l.ev.lost.uncounted);
	/* the "trace" file's iterator knows only that the writer passed it */
	assert_int_equal(parse("CPU:3 [LOST EVENTS]", &l, &what), 0);
	assert_int_equal(l.kind, KTRACE_LINE_EVENT);
	assert_int_equal(l.ev.kind, KTRACE_EV_LOST);
	assert_int_equal(l.ev.cpu, 3);
	assert_int_equal(l.ev.lost.count, 0);
	assert_true(l.ev.lost.uncounted);
	assert_int_equal(parse("CPU:3 [LOST EVENTS]  ", &l, &what), 0);
	assert_true(l.ev.lost.uncounted);
	assert_int_equal(parse("CPU:3 [LOST x EVENTS]", &l, &what), -EINVAL);
	assert_int_equal(parse("CPU:3 [LOST EVENTS] x", &l, &what), -EINVAL);
	assert_int_equal(parse("CPU:3 [LOST EVENTS", &l, &what), -EINVAL);
	assert_int_equal(parse("CPU:0 [12 EVENTS DROPPED]", &l, &what), 0);
	assert_int_equal(l.ev.lost.count, 12);
	assert_false(l.ev.lost.uncounted);
	assert_int_equal(parse("CPU:0 [EVENTS DROPPED]", &l, &what), 0);
	assert_int_equal(l.ev.kind, KTRACE_EV_LOST);
	assert_true(l.ev.lost.uncounted);

	/* CRLF */
	parse_event("           rmmod-177     [001] .....     9.550179: module_free: xfs\r", &ev);
	assert_str(ev.module_load.name, "xfs");

	/* function tracer lines are unknown events with the raw text */
	parse_event("            bash-1977  [000] .... 17284.993652: sys_close <-system_call_fastpath",
		    &ev);
	assert_int_equal(ev.kind, KTRACE_EV_UNKNOWN);
	assert_str(ev.fields, "sys_close <-system_call_fastpath");
	parse_event("            bash-1977  [000] .... 17284.993652: sched_switch: prev_comm=bash",
		    &ev);
	assert_int_equal(ev.kind, KTRACE_EV_UNKNOWN);
	assert_str(ev.name, "sched_switch");
	assert_str(ev.fields, "prev_comm=bash");
}

static void test_hostile_comm(void **state)
{
	struct ktrace_event ev;

	/* the pid is the last "-digits" before the CPU column */
	parse_event("          a-1-2-33     [001] .....     1.000000: module_free: x", &ev);
	assert_str(ev.comm, "a-1-2");
	assert_int_equal(ev.pid, 33);
	/* a comm that looks like a context itself */
	parse_event(" x-5 [001] 1.0:-7     [000] .....     2.000000: module_free: x", &ev);
	assert_str(ev.comm, "x-5 [001] 1.0:");
	assert_int_equal(ev.pid, 7);
	assert_int_equal(ev.cpu, 0);
	/* escape sequences stay raw bytes; escaping is the view's job */
	parse_event("\x1b[31mevil\x1b[0m-99     [000] .....     2.000000: module_free: x", &ev);
	assert_str(ev.comm, "\x1b[31mevil\x1b[0m");
	assert_int_equal(ev.pid, 99);
	/* an empty comm (prctl(PR_SET_NAME, "")) */
	parse_event("                -5       [000] .....     2.000000: module_free: x", &ev);
	assert_str(ev.comm, "");
	assert_int_equal(ev.pid, 5);
	/* a marker whose text looks like another line does not fool the context */
	parse_event("            init-1       [000] .....     1.000000: tracing_mark_write: a-2 "
		    "[001] ..... 2.0: module_free: y",
		    &ev);
	assert_int_equal(ev.kind, KTRACE_EV_MARKER);
	assert_int_equal(ev.pid, 1);
}

static void test_malformed_lines(void **state)
{
	static const char *const bad[] = {
		/* truncated */
		"            init-1       [001] .....     3.06",
		"            init-1       [001] .....",
		"            init-1       [001",
		"            init-",
		/* non-numeric */
		"            init-x       [001] .....     3.067367: module_free: x",
		"            init-1       [0a1] .....     3.067367: module_free: x",
		"            init-1       [001] .....     3.0x7367: module_free: x",
		"            init-1       [001] .....     .067367: module_free: x",
		"            init-1       [001] .....     3.0673670000: module_free: x",
		/* missing or bad fields of known events */
		"            init-1       [001] .....     3.067367: module_load: ",
		"            init-1       [001] .....     3.067367: module_free: ",
		"            init-1       [001] .....     3.067367: module_get: foo call_site=bar",
		"            init-1       [001] .....     3.067367: module_get: foo refcnt=x "
		"call_site=bar refcnt=zz",
		"            init-1       [001] .....     3.067367: module_request: foo wait=1",
		"            init-1       [001] .....     3.067367: module_request: foo wait=7 "
		"call_site=x",
		"            init-1       [001] .....     3.067367: sys_finit_module(fd: 3, uargs: 1)",
		"            init-1       [001] .....     3.067367: sys_finit_module(fd: zz, uargs: 1, "
		"flags: 0)",
		"            init-1       [001] .....     3.067367: sys_finit_module(fd: 3",
		"            init-1       [001] .....     3.067367: sys_finit_module -> nope",
		"            init-1       [001] .....     3.067367: sys_finit_module -> ",
		"            init-1       [001] .....     3.067367: alloc_vmap_area: size=1",
		"            init-1       [001] .....     3.067367: alloc_vmap_area: va_start: 1 size=x "
		"align=1 vstart=0x0 vend=0x0 failed=0",
		"            init-1       [001] .....     3.067367: alloc_vmap_area: "
		"(alloc_vmap_area+0x0/0x880) len=1",
		"            init-1       [001] .....     3.067367: sched_process_fork: comm=a pid=x "
		"child_comm=b child_pid=2",
		"            init-1       [001] .....     3.067367: sched_process_exec: pid=1 old_pid=1",
		"CPU:x [LOST 1 EVENTS]",
		"CPU:1 [LOST many EVENTS]",
		"just some text",
		"=> ",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ktrace_line l;
		const char *what = NULL;

		if (ktrace_parse_line(bad[i], strlen(bad[i]), &l, &what) != -EINVAL)
			fail_msg("accepted: \"%s\"", bad[i]);
		assert_non_null(what);
	}
	/* a NUL byte inside */
	expect_malformed("  init-1 [001] .....  3.0\0: module_free: x", 42);
}

/* --- the push parser ---------------------------------------------------------------- */

struct collected {
	struct ktrace_event ev[64];
	char comm[64][20];
	char frames[64][4][48];	/* first frames' text, copied */
	size_t n_frames[64];
	size_t n;
	unsigned int bad_lines[16];
	const char *bad_what[16];
	size_t n_bad;
	int fail_at;		/* return -EIO from the event callback at this event */
};

static int collect(void *userdata, const struct ktrace_event *ev)
{
	struct collected *c = userdata;
	size_t i;

	if (c->fail_at && (int)c->n + 1 == c->fail_at) {
		c->n++;
		return -EIO;
	}
	if (c->n >= 64)
		return 0;
	c->ev[c->n] = *ev;
	snprintf(c->comm[c->n], sizeof(c->comm[0]), "%.*s", (int)ev->comm.len, ev->comm.s);
	c->n_frames[c->n] = ev->n_frames;
	for (i = 0; i < ev->n_frames && i < 4; i++)
		snprintf(c->frames[c->n][i], sizeof(c->frames[0][0]), "%.*s",
			 (int)ev->frames[i].fn.sym.len, ev->frames[i].fn.sym.s);
	c->n++;
	return 0;
}

static void collect_bad(void *userdata, const struct kt_err *err)
{
	struct collected *c = userdata;

	if (c->n_bad < 16) {
		c->bad_lines[c->n_bad] = err->line;
		c->bad_what[c->n_bad] = err->what;
	}
	c->n_bad++;
}

static const struct ktrace_parser_ops collect_ops = {
	.event = collect,
	.bad_line = collect_bad,
};

static int feed_text(struct ktrace_parser *p, const char *text)
{
	const char *s = text;
	int r = 0;

	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		int k = ktrace_parser_feed(p, s, len);

		if (k < 0 && r == 0)
			r = k;
		s += len + (nl ? 1 : 0);
	}
	return r;
}

/* debian-6.1-plain lines 470-500: CPU 1's event and stack come between CPU 0's */
static const char interleaved[] =
	"           storm-112     [000] ...1.     4.105835: sys_finit_module(fd: 3, uargs: 4a3195, flags: 0)\n"
	"           storm-112     [000] .....     4.105954: alloc_vmap_area: (alloc_vmap_area+0x0/0x880) size=4222976\n"
	"           storm-111     [001] .....     4.106060: alloc_vmap_area: (alloc_vmap_area+0x0/0x880) size=20480\n"
	"           storm-111     [001] .....     4.106081: <stack trace>\n"
	" => kprobe_trace_func\n"
	" => kprobe_dispatcher\n"
	" => kprobe_ftrace_handler\n"
	" => 0xffffffffc027f0c8\n"
	" => alloc_vmap_area\n"
	" => __get_vm_area_node\n"
	" => __vmalloc_node_range\n"
	" => copy_process\n"
	" => kernel_clone\n"
	" => __do_sys_clone3\n"
	" => do_syscall_64\n"
	" => entry_SYSCALL_64_after_hwframe\n"
	"           storm-112     [000] .....     4.106083: <stack trace>\n"
	" => kprobe_trace_func\n"
	" => kprobe_dispatcher\n"
	" => kprobe_ftrace_handler\n"
	" => 0xffffffffc027f0c8\n"
	" => alloc_vmap_area\n"
	" => __get_vm_area_node\n"
	" => __vmalloc_node_range\n"
	" => __vmalloc_node\n"
	" => kernel_read_file\n"
	" => kernel_read_file_from_fd\n"
	" => __do_sys_finit_module\n"
	" => do_syscall_64\n"
	" => entry_SYSCALL_64_after_hwframe\n"
	"           storm-112     [000] .....     4.106126: alloc_vmap_area: (alloc_vmap_area+0x0/0x880) size=16384\n";

static void test_parser_stacks_interleaved(void **state)
{
	struct ktrace_parser *p;
	struct collected *c = calloc(1, sizeof(*c));
	const struct ktrace_stats *st;

	assert_non_null(c);
	assert_int_equal(ktrace_parser_new("trace", &collect_ops, c, &p), 0);
	assert_int_equal(feed_text(p, interleaved), 0);
	assert_int_equal(ktrace_parser_finish(p), 0);

	assert_int_equal(c->n, 4);
	assert_int_equal(c->ev[0].kind, KTRACE_EV_SYS_ENTER_FINIT_MODULE);
	assert_int_equal(c->n_frames[0], 0);
	/* CPU 0's read buffer gets the kernel_read_file stack that came after CPU 1's */
	assert_int_equal(c->ev[1].kind, KTRACE_EV_ALLOC_VMAP_AREA_KPROBE);
	assert_int_equal(c->ev[1].vmap_alloc.size, 4222976);
	assert_int_equal(c->n_frames[1], 13);
	assert_string_equal(c->comm[1], "storm");
	assert_int_equal(c->ev[2].vmap_alloc.size, 20480);
	assert_int_equal(c->ev[2].cpu, 1);
	assert_int_equal(c->n_frames[2], 12);
	assert_string_equal(c->frames[2][3], "0xffffffffc027f0c8");
	/* the last event has no stack yet at finish */
	assert_int_equal(c->n_frames[3], 0);
	assert_int_equal(c->n_bad, 0);

	st = ktrace_parser_stats(p);
	assert_int_equal(st->events, 4);
	assert_int_equal(st->stacks, 2);
	assert_int_equal(st->frames, 25);
	assert_int_equal(st->malformed, 0);
	assert_int_equal(st->by_kind[KTRACE_EV_ALLOC_VMAP_AREA_KPROBE], 3);
	ktrace_parser_free(p);
	free(c);
}

/* the same with CPU 1 as CPU 600: a CPU beyond the parser's per-CPU table */
static void test_parser_stacks_high_cpu(void **state)
{
	struct ktrace_parser *p;
	struct collected *c = calloc(1, sizeof(*c));
	char *text = strdup(interleaved), *q;

	assert_non_null(c);
	assert_non_null(text);
	while ((q = strstr(text, "[001]")))
		memcpy(q, "[600]", 5);
	assert_int_equal(ktrace_parser_new("trace", &collect_ops, c, &p), 0);
	assert_int_equal(feed_text(p, text), 0);
	assert_int_equal(ktrace_parser_finish(p), 0);
	assert_int_equal(c->n, 4);
	assert_int_equal(c->n_frames[0], 0);
	assert_int_equal(c->n_frames[1], 13);
	assert_int_equal(c->ev[2].cpu, 600);
	assert_int_equal(c->n_frames[2], 12);
	assert_int_equal(c->n_frames[3], 0);
	assert_int_equal(c->n_bad, 0);
	ktrace_parser_free(p);
	free(text);
	free(c);
}

static void test_parser_frames_of_event(void **state)
{
	struct ktrace_parser *p;
	struct collected *c = calloc(1, sizeof(*c));
	const char *l1 = "            init-1       [000] .....     3.744966: alloc_vmap_area: va_start: "
			 "18446692164739170304 size=20480 align=16384 vstart=0xffffd0ca00000000 "
			 "vend=0xfffff0c9ffffffff failed=0";
	const char *l2 = "            init-1       [000] .....     3.746771: <stack trace>";
	const char *l3 = " => trace_event_raw_event_alloc_vmap_area";
	const char *l4 = "            init-1       [000] .....     3.760317: module_free: x";

	assert_non_null(c);
	assert_int_equal(ktrace_parser_new("trace", &collect_ops, c, &p), 0);
	assert_int_equal(ktrace_parser_feed(p, l1, strlen(l1)), 0);
	assert_int_equal(ktrace_parser_feed(p, l2, strlen(l2)), 0);
	assert_int_equal(ktrace_parser_feed(p, l3, strlen(l3)), 0);
	/* nothing out yet: more frames could follow */
	assert_int_equal(c->n, 0);
	assert_int_equal(ktrace_parser_feed(p, l4, strlen(l4)), 0);
	assert_int_equal(c->n, 1);
	assert_int_equal(c->n_frames[0], 1);
	assert_string_equal(c->frames[0][0], "trace_event_raw_event_alloc_vmap_area");
	assert_int_equal(ktrace_parser_finish(p), 0);
	assert_int_equal(c->n, 2);
	/* finish twice: nothing left */
	assert_int_equal(ktrace_parser_finish(p), 0);
	assert_int_equal(c->n, 2);
	ktrace_parser_free(p);
	free(c);
}

static void test_parser_bad_lines(void **state)
{
	struct ktrace_parser *p;
	struct collected *c = calloc(1, sizeof(*c));
	const struct ktrace_stats *st;
	static const char text[] =
		"# tracer: nop\n"							/* 1 */
		" => orphan_frame\n"							/* 2 */
		"            init-1       [000] .....     1.000000: module_load: xfs \n"	/* 3 */
		"            init-1       [000] .....     1.1\n"			/* 4 */
		"garbage\n"								/* 5 */
		"            init-1       [001] .....     1.200000: module_get: xfs call_site=x\n" /* 6 */
		"            init-1       [001] .....     1.200001: <stack trace>\n"	/* 7 */
		" => swallowed_with_its_event\n"					/* 8 */
		"            init-1       [001] .....     1.300000: sched_switch: prev_comm=a\n" /* 9 */
		"            init-9       [002] .....     1.300001: <stack trace>\n"	/* 10 */
		" => nobody\n"								/* 11 */
		"CPU:2 [LOST 7 EVENTS]\n"						/* 12 */
		"            init-1       [000] .....     1.400000: module_free: xfs\n"	/* 13 */
		"CPU:0 [LOST EVENTS]\n";						/* 14 */

	assert_non_null(c);
	assert_int_equal(ktrace_parser_new("sys/kernel/tracing/trace", &collect_ops, c, &p), 0);
	assert_int_equal(feed_text(p, text), 0);
	assert_int_equal(ktrace_parser_finish(p), 0);

	/* later events are neither lost nor shifted */
	assert_int_equal(c->n, 5);
	assert_int_equal(c->ev[0].kind, KTRACE_EV_MODULE_LOAD);
	assert_int_equal(c->n_frames[0], 0);
	assert_int_equal(c->ev[1].kind, KTRACE_EV_UNKNOWN);
	assert_int_equal(c->ev[2].kind, KTRACE_EV_LOST);
	assert_int_equal(c->ev[2].lost.count, 7);
	assert_int_equal(c->ev[3].kind, KTRACE_EV_MODULE_FREE);
	assert_true(fabs(c->ev[3].ts - 1.4) < 1e-9);
	assert_int_equal(c->ev[4].kind, KTRACE_EV_LOST);
	assert_true(c->ev[4].lost.uncounted);

	assert_int_equal(c->n_bad, 5);
	assert_int_equal(c->bad_lines[0], 2);	/* frame without a stack header */
	assert_int_equal(c->bad_lines[1], 4);	/* truncated */
	assert_int_equal(c->bad_lines[2], 5);	/* garbage */
	assert_int_equal(c->bad_lines[3], 6);	/* module_get without refcnt */
	assert_int_equal(c->bad_lines[4], 10);	/* a stack whose CPU had no event */
	assert_string_equal(c->bad_what[3], "module_get/put without name, call_site= or refcnt=");

	st = ktrace_parser_stats(p);
	assert_int_equal(st->lines, 14);
	assert_int_equal(st->malformed, 4);
	assert_int_equal(st->orphan_stacks, 1);
	assert_int_equal(st->unknown, 1);
	assert_int_equal(st->lost_events, 7);
	assert_int_equal(st->lost_uncounted, 1);
	assert_int_equal(st->header_lines, 1);
	assert_int_equal(st->events, 5);
	ktrace_parser_free(p);
	free(c);
}

static void test_parser_huge_and_nul_lines(void **state)
{
	struct ktrace_parser *p;
	struct collected *c = calloc(1, sizeof(*c));
	size_t big = 1024 * 1024;
	char *line = malloc(big);
	const char *ok = "            init-1       [000] .....     1.400000: module_free: xfs";
	static const char nul[] = "            init-1       [000] .....     1.4\0000: module_free: x";

	assert_non_null(c);
	assert_non_null(line);
	memset(line, 'a', big);
	memcpy(line, ok, strlen(ok));	/* a valid start, then 1 MiB of junk */
	assert_int_equal(ktrace_parser_new("trace", &collect_ops, c, &p), 0);
	assert_int_equal(ktrace_parser_feed(p, line, big), 0);
	assert_int_equal(ktrace_parser_feed(p, nul, sizeof(nul) - 1), 0);
	assert_int_equal(ktrace_parser_feed(p, ok, strlen(ok)), 0);
	assert_int_equal(ktrace_parser_finish(p), 0);
	assert_int_equal(c->n, 1);
	assert_int_equal(c->n_bad, 2);
	assert_int_equal(c->bad_lines[0], 1);
	assert_string_equal(c->bad_what[0], "line too long");
	assert_int_equal(c->bad_lines[1], 2);
	assert_string_equal(c->bad_what[1], "line contains a NUL byte");
	ktrace_parser_free(p);
	free(line);
	free(c);
}

static void test_parser_empty_and_callback_error(void **state)
{
	struct ktrace_parser *p;
	struct collected *c = calloc(1, sizeof(*c));
	const char *a = "            init-1       [000] .....     1.000000: module_free: a";
	const char *b = "            init-1       [000] .....     2.000000: module_free: b";
	const char *d = "            init-1       [000] .....     3.000000: module_free: d";

	assert_non_null(c);
	assert_int_equal(ktrace_parser_new(NULL, NULL, NULL, &p), 0);
	assert_int_equal(ktrace_parser_finish(p), 0);
	assert_int_equal(ktrace_parser_stats(p)->events, 0);
	assert_int_equal(ktrace_parser_feed(p, "", 0), 0);
	assert_int_equal(ktrace_parser_stats(p)->header_lines, 1);
	assert_null(ktrace_parser_free(p));
	assert_null(ktrace_parser_free(NULL));

	c->fail_at = 1;
	assert_int_equal(ktrace_parser_new("trace", &collect_ops, c, &p), 0);
	assert_int_equal(ktrace_parser_feed(p, a, strlen(a)), 0);
	assert_int_equal(ktrace_parser_feed(p, b, strlen(b)), -EIO);
	/* the parser goes on after an error of the callback */
	assert_int_equal(ktrace_parser_feed(p, d, strlen(d)), 0);
	assert_int_equal(ktrace_parser_finish(p), 0);
	assert_int_equal(c->n, 3);
	ktrace_parser_free(p);
	free(c);
}

static void test_read_file(void **state)
{
	static const char text[] = "cpus=2\n"
				   "            init-1     [001]     4.578855: print:                "
				   "tracing_mark_write: STEP modprobe-xfs\n"
				   "        modprobe-157   [000]     4.586660: sys_enter_finit_module: "
				   "fd: 0x00000003, uargs: 0x005bfb41, flags: 0x00000000\n"
				   "        modprobe-157   [000]     4.586661: kernel_stack:         "
				   "<stack trace >\n"
				   "=> load_module (ffffffff8121a0db)\n"
				   "=> __do_sys_finit_module (ffffffff8121e9fb)\n"
				   "bad \0 line\n"
				   "        modprobe-157   [000]     4.588932: sys_exit_finit_module: "
				   "0xfffffffffffffff8";	/* no final newline */
	struct collected *c = calloc(1, sizeof(*c));
	struct ktrace_stats st;
	struct kt_err err = {0};
	FILE *f;

	assert_non_null(c);
	f = fmemopen((void *)text, sizeof(text) - 1, "r");
	assert_non_null(f);
	assert_int_equal(ktrace_events_read_file(f, "report.txt", &collect_ops, c, &st, &err), 0);
	fclose(f);
	assert_int_equal(c->n, 3);
	assert_int_equal(c->ev[0].kind, KTRACE_EV_MARKER);
	assert_int_equal(c->ev[1].kind, KTRACE_EV_SYS_ENTER_FINIT_MODULE);
	assert_int_equal(c->n_frames[1], 2);
	assert_string_equal(c->frames[1][0], "load_module");
	assert_int_equal(c->ev[2].sys_exit.ret, -ENOEXEC);
	assert_int_equal(st.ncpus, 2);
	assert_int_equal(st.malformed, 1);
	assert_int_equal(c->n_bad, 1);
	assert_int_equal(c->bad_lines[0], 7);
	free(c);
}

/* --- the captures ------------------------------------------------------------------- */

struct fixture_counts {
	unsigned long module_load, steps, finit_enter, finit_exit, init_exit, with_frames,
		eexist;
	double last_ts;
	bool out_of_order;
};

static int count_events(void *userdata, const struct ktrace_event *ev)
{
	struct fixture_counts *fc = userdata;

	if (ev->kind == KTRACE_EV_MODULE_LOAD)
		fc->module_load++;
	if (ev->kind == KTRACE_EV_MARKER && ev->marker.step.len)
		fc->steps++;
	if (ev->kind == KTRACE_EV_SYS_ENTER_FINIT_MODULE)
		fc->finit_enter++;
	if (ev->kind == KTRACE_EV_SYS_EXIT_FINIT_MODULE) {
		fc->finit_exit++;
		if (ev->sys_exit.ret == -EEXIST)
			fc->eexist++;
	}
	if (ev->kind == KTRACE_EV_SYS_EXIT_INIT_MODULE)
		fc->init_exit++;
	if (ev->n_frames)
		fc->with_frames++;
	return 0;
}

static void check_fixture(const char *name, unsigned long module_loads,
			  enum ktrace_event_kind vmap_kind)
{
	static const struct ktrace_parser_ops ops = { .event = count_events };
	struct fixture_counts fc = {0};
	struct ktrace_stats st;
	struct kt_err err = {0};
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/sys/kernel/tracing/trace", FIXTURES_DIR, name);
	f = fopen(path, "re");
	assert_non_null(f);
	assert_int_equal(ktrace_events_read_file(f, path, &ops, &fc, &st, &err), 0);
	fclose(f);

	assert_int_equal(st.malformed, 0);
	assert_int_equal(st.orphan_stacks, 0);
	assert_int_equal(st.unknown, 0);
	assert_int_equal(st.ncpus, 2);
	/* every ring-buffer entry the header counts is an event or a stack */
	assert_int_equal((int64_t)(st.events + st.stacks), st.entries);
	assert_int_equal(fc.module_load, module_loads);
	assert_int_equal(fc.steps, 14);
	assert_int_equal(fc.finit_enter, fc.finit_exit);
	assert_true(fc.eexist > 0);
	/* each vmap allocation has its stack, nothing else has one */
	assert_int_equal(st.stacks, st.by_kind[vmap_kind]);
	assert_int_equal(fc.with_frames, st.by_kind[vmap_kind]);
}

static void test_fixture_traces(void **state)
{
	if (access(FIXTURES_DIR "/debian-6.1-plain/sys/kernel/tracing/trace", R_OK) != 0)
		skip();
	check_fixture("debian-6.1-plain", 17, KTRACE_EV_ALLOC_VMAP_AREA_KPROBE);
	check_fixture("debian-6.12-xz", 15, KTRACE_EV_ALLOC_VMAP_AREA);
	if (access(FIXTURES_DIR "/custom-6.12-modstats/sys/kernel/tracing/trace", R_OK) == 0)
		check_fixture("custom-6.12-modstats", 6, KTRACE_EV_ALLOC_VMAP_AREA);
}

static int count_event(void *userdata, const struct ktrace_event *ev)
{
	(void)ev;
	(*(int *)userdata)++;
	return 0;
}

/* Live: the last event of a quiet CPU goes out once newer ones are far enough ahead */
/* snd_hda_codec's request: its modalias text ends in '\n', which the trace prints as is */
static const char request_newline[] =
	"     kworker/1:2-88      [001] .....     3.412771: module_request: hdaudio:v1AF40022r00100101a01\n"
	" wait=1 call_site=hda_codec_driver_probe+0x8b/0x1c0 [snd_hda_codec]\n"
	"     kworker/1:2-88      [001] .....     3.412903: module_request: hdaudio:v1AF40022r00100101a01\n"
	"     kworker/1:2-88      [001] .....     3.413020: module_request: snd-hda-codec-generic "
	"wait=1 call_site=hda_codec_driver_probe+0x8b/0x1c0 [snd_hda_codec]\n";

struct requests {
	char name[4][64];
	unsigned int line[4];
	bool wait[4];
	char site[4][48];
	size_t n;
	unsigned int bad_line[4];
	size_t n_bad;
};

static int request_event(void *userdata, const struct ktrace_event *ev)
{
	struct requests *q = userdata;
	const struct ktrace_module_request *r = &ev->module_request;

	if (ev->kind != KTRACE_EV_MODULE_REQUEST || q->n >= 4)
		return 0;
	snprintf(q->name[q->n], sizeof(q->name[0]), "%.*s", (int)r->name.len, r->name.s);
	snprintf(q->site[q->n], sizeof(q->site[0]), "%.*s", (int)r->call_site.sym.len,
		 r->call_site.sym.s);
	q->wait[q->n] = r->wait;
	q->line[q->n++] = ev->line;
	return 0;
}

static void request_bad(void *userdata, const struct kt_err *err)
{
	struct requests *q = userdata;

	if (q->n_bad < 4)
		q->bad_line[q->n_bad] = err->line;
	q->n_bad++;
}

static void test_request_name_newline(void **state)
{
	static const struct ktrace_parser_ops ops = { .event = request_event,
						      .bad_line = request_bad };
	struct requests q = { 0 };
	struct ktrace_parser *p;

	(void)state;
	assert_int_equal(ktrace_parser_new("trace", &ops, &q, &p), 0);
	assert_int_equal(feed_text(p, request_newline), 0);
	assert_int_equal(ktrace_parser_finish(p), 0);
	/* the first, joined across its line break, keeps the '\n' of its name */
	assert_true(q.n == 2);
	assert_string_equal(q.name[0], "hdaudio:v1AF40022r00100101a01\n");
	assert_true(q.wait[0]);
	assert_string_equal(q.site[0], "hda_codec_driver_probe");
	assert_int_equal(q.line[0], 1);
	/* one cut off (the next line an event of its own): bad at its own line, not joined */
	assert_true(q.n_bad == 1);
	assert_int_equal(q.bad_line[0], 3);
	assert_int_equal(ktrace_parser_stats(p)->malformed, 1);
	assert_string_equal(q.name[1], "snd-hda-codec-generic");
	assert_int_equal(q.line[1], 4);
	ktrace_parser_free(p);

	/* cut off at the end of the trace: bad, not lost */
	memset(&q, 0, sizeof(q));
	assert_int_equal(ktrace_parser_new("trace", &ops, &q, &p), 0);
	assert_int_equal(feed_text(p, "     kworker/1:2-88      [001] .....     3.412903: "
				      "module_request: hdaudio:v1AF40022r00100101a01\n"), 0);
	assert_int_equal(ktrace_parser_finish(p), 0);
	ktrace_parser_free(p);
	assert_true(q.n == 0 && q.n_bad == 1);
	assert_int_equal(q.bad_line[0], 1);
}

static void test_parser_flush_older(void **state)
{
	static const char *const lines[] = {
		"        modprobe-157     [001] .....     4.500000: sys_finit_module -> 0x0",
		"        kmodtop-99       [000] .....     4.550000: tracing_mark_write: kmodtop_now",
		"        kmodtop-99       [000] .....     4.700000: tracing_mark_write: kmodtop_now",
	};
	struct ktrace_parser_ops ops = { .event = count_event };
	struct ktrace_parser *p;
	int n = 0;

	(void)state;
	assert_int_equal(ktrace_parser_new("t", &ops, &n, &p), 0);
	for (size_t i = 0; i < 2; i++)
		assert_int_equal(ktrace_parser_feed(p, lines[i], strlen(lines[i])), 0);
	/* CPU 1's event may still get a stack: it holds the rest back */
	assert_int_equal(n, 0);
	assert_int_equal(ktrace_parser_flush_older(p, 0.1), 0);
	assert_int_equal(n, 0);
	assert_int_equal(ktrace_parser_feed(p, lines[2], strlen(lines[2])), 0);
	/* 0.2 s behind the newest: out, with the first marker; the newest waits */
	assert_int_equal(ktrace_parser_flush_older(p, 0.1), 0);
	assert_int_equal(n, 2);
	assert_int_equal(ktrace_parser_finish(p), 0);
	assert_int_equal(n, 3);
	ktrace_parser_free(p);
}

/* --- the reorder window of the text reader ------------------------------------------ */

struct seen {
	uint64_t ts[8];
	unsigned int line[8];
	size_t n, all;
	uint64_t last_ns;
	size_t back;
};

static int seen_event(void *userdata, const struct ktrace_event *ev)
{
	struct seen *w = userdata;

	if (w->n < 8) {
		w->ts[w->n] = ev->ts_ns;
		w->line[w->n++] = ev->line;
	}
	w->back += w->all++ && ev->ts_ns < w->last_ns;
	w->last_ns = ev->ts_ns;
	return 0;
}

/* debian-6.12-xz's lines, CPU 1's request written after CPU 0's later finit_module */
static const char slightly_back[] =
	"# tracer: nop\n"
	"           storm-207     [000] ...1.    14.446100: sys_finit_module(fd: 3, uargs: 4a3195, flags: 0)\n"
	"           storm-208     [001] .....    14.446452: module_request: "
	"net-pf-2-proto-132 wait=1 call_site=inet_create+0x2f5/0x3a0\n"
	"           storm-207     [000] .....    14.446300: alloc_vmap_area: va_start: "
	"18446692164742389760 size=4222976 align=1 vstart=0xffffd0ca00000000 "
	"vend=0xffffefca00000000 failed=0\n"
	"           storm-207     [000] .....    14.446310: <stack trace>\n"
	" => alloc_vmap_area\n"
	" => __do_sys_finit_module\n"
	"           storm-207     [000] ...1.    14.446900: sys_finit_module -> 0x0\n";

static void test_reorder_window(void **state)
{
	static const struct ktrace_parser_ops ops = { .event = seen_event };
	struct seen w = { 0 };
	struct ktrace_stats st;
	struct kt_err err = { 0 };
	FILE *f = fmemopen((void *)slightly_back, sizeof(slightly_back) - 1, "r");
	char *big = NULL;
	size_t big_len = 0;

	(void)state;
	assert_non_null(f);
	assert_int_equal(ktrace_events_read_file(f, "t", &ops, &w, &st, &err), 0);
	fclose(f);
	/* in time order, each with its own line of the input, the stack with its event */
	assert_true(w.n == 4);
	assert_true(w.back == 0);
	assert_int_equal(w.line[0], 2);
	assert_int_equal(w.line[1], 4);
	assert_int_equal(w.line[2], 3);
	assert_int_equal(w.line[3], 8);
	assert_int_equal(st.stacks, 1);
	assert_true(st.back_steps == 1 && st.late == 0 && st.late_line == 0);

	/* further back than the window holds: out as it came, counted, its line named */
	f = open_memstream(&big, &big_len);
	assert_non_null(f);
	for (unsigned int i = 0; i <= KTRACE_REORDER_RECORDS; i++)
		fprintf(f, "         kmodtop-99      [000] .....    20.%06u: tracing_mark_write: x\n", i);
	fputs("           storm-207     [000] ...1.    14.446900: sys_finit_module -> 0x0\n", f);
	fclose(f);
	memset(&w, 0, sizeof(w));
	f = fmemopen(big, big_len, "r");
	assert_non_null(f);
	assert_int_equal(ktrace_events_read_file(f, "t", &ops, &w, &st, &err), 0);
	fclose(f);
	free(big);
	assert_true(w.all == KTRACE_REORDER_RECORDS + 2);
	assert_true(w.back == 1);
	assert_true(st.back_steps == 1 && st.late == 1);
	assert_int_equal(st.late_line, KTRACE_REORDER_RECORDS + 2);
}

/* A trace sorted whole: the request cut by its name's newline keeps its own place */
static void test_order_cut_request(void **state)
{
	static const char text[] =
		"     kworker/1:2-88      [001] .....     3.000100: module_free: snd_hwdep\n"
		"     kworker/1:2-88      [001] .....     3.000300: module_request: hdaudio:v1AF40022r00100101a01\n"
		" wait=1 call_site=hda_codec_driver_probe+0x8b/0x1c0 [snd_hda_codec]\n"
		"           udevd-90      [000] .....     3.000050: module_free: snd_pcm\n"
		"           udevd-90      [000] .....     3.000200: module_free: snd_timer\n";
	static const struct ktrace_parser_ops ops = { .event = seen_event };
	char path[] = "/tmp/kmodtop-order-XXXXXX";
	struct ktrace_order ord;
	struct seen w = { 0 };
	struct ktrace_stats st;
	struct kt_err err = { 0 };
	int fd = mkstemp(path);
	FILE *f;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)(sizeof(text) - 1));
	close(fd);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(ktrace_order_fwrap(&f, &ord), 0);
	assert_true(ord.sorted && ord.back_steps == 1);
	/* sorted whole, before any reader: the request last, its fields right after it */
	{
		char line[256];
		unsigned int n = 0;

		while (fgets(line, sizeof(line), f)) {
			n++;
			if (n == 4)
				assert_non_null(strstr(line, "3.000300: module_request"));
			if (n == 5)
				assert_true(strncmp(line, " wait=1 ", 8) == 0);
		}
		assert_int_equal(n, 5);
		fclose(f);
		f = fopen(path, "r");
	}
	assert_int_equal(ktrace_events_read_file(f, "t", &ops, &w, &st, &err), 0);
	fclose(f);
	assert_true(w.n == 4 && st.malformed == 0);
	assert_true(w.ts[0] == 3000050000ULL && w.ts[1] == 3000100000ULL &&
		    w.ts[2] == 3000200000ULL && w.ts[3] == 3000300000ULL);
	assert_true(st.by_kind[KTRACE_EV_MODULE_REQUEST] == 1);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_context_columns),
		cmocka_unit_test(test_module_events),
		cmocka_unit_test(test_syscall_events),
		cmocka_unit_test(test_marker_vmalloc_sched),
		cmocka_unit_test(test_variants),
		cmocka_unit_test(test_hostile_comm),
		cmocka_unit_test(test_malformed_lines),
		cmocka_unit_test(test_parser_stacks_interleaved),
		cmocka_unit_test(test_parser_stacks_high_cpu),
		cmocka_unit_test(test_parser_frames_of_event),
		cmocka_unit_test(test_parser_bad_lines),
		cmocka_unit_test(test_parser_huge_and_nul_lines),
		cmocka_unit_test(test_parser_empty_and_callback_error),
		cmocka_unit_test(test_naming_probes),
		cmocka_unit_test(test_read_file),
		cmocka_unit_test(test_fixture_traces),
		cmocka_unit_test(test_parser_flush_older),
		cmocka_unit_test(test_request_name_newline),
		cmocka_unit_test(test_reorder_window),
		cmocka_unit_test(test_order_cut_request),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
