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

#include "helpers.h"
#include "util/root.h"
#include "sources/proc-modules.h"

/* A root with proc/modules holding @data (or no proc/ at all when @data is NULL). */
static char *make_root(const void *data, size_t len)
{
	char *d = make_tmpdir();

	if (data)
		write_file(d, "proc/modules", data, len);
	return d;
}

/* Parses a copy of @text, so string literals can be used. */
static int parse(const char *text, struct proc_module *m, const char **what)
{
	char *copy = strdup(text);
	int r;

	assert_non_null(copy);
	*what = NULL;
	memset(m, 0x5a, sizeof(*m));
	r = proc_modules_parse_line(copy, strlen(copy), m, what);
	free(copy);
	return r;
}

static void expect_bad(const char *text, const char *what_want)
{
	struct proc_module m, before;
	const char *what;

	memset(&before, 0x5a, sizeof(before));
	assert_int_equal(parse(text, &m, &what), -EINVAL);
	assert_non_null(what);
	assert_string_equal(what, what_want);
	/* ret_ is only set on success */
	assert_memory_equal(&m, &before, sizeof(m));
}

static int read_text(const char *text, size_t len, struct proc_modules **list, struct kt_err *e)
{
	FILE *f = mem_file(text, len);
	int r;

	memset(e, 0, sizeof(*e));
	*list = NULL;
	r = proc_modules_read_file(f, "proc/modules", list, e);
	fclose(f);
	return r;
}

static void expect_read_error(const char *text, size_t len, unsigned int line, const char *what)
{
	struct proc_modules *list;
	struct kt_err e;

	assert_int_equal(read_text(text, len, &list, &e), -EINVAL);
	assert_null(list);
	assert_string_equal(e.path, "proc/modules");
	assert_int_equal(e.line, line);
	assert_non_null(e.what);
	assert_string_equal(e.what, what);
}

/* ---- real lines ------------------------------------------------------------------ */

static void test_line_debian_61(void **state)
{
	struct proc_module m;
	const char *what;

	/* debian-6.1-plain/proc/modules */
	assert_int_equal(parse("vfat 24576 0 - Live 0xffffffffc0476000", &m, &what), 0);
	assert_string_equal(m.name, "vfat");
	assert_int_equal(m.size, 24576);
	assert_int_equal(m.refcount, 0);
	assert_int_equal(m.n_holders, 0);
	assert_false(m.permanent);
	assert_int_equal(m.state, MODULE_LIVE);
	assert_true(m.address == 0xffffffffc0476000ull);
	assert_string_equal(m.taint, "");
	assert_null(what);
	proc_module_done(&m);
	assert_null(m.name);

	assert_int_equal(parse("fat 90112 1 vfat, Live 0xffffffffc0497000", &m, &what), 0);
	assert_string_equal(m.name, "fat");
	assert_int_equal(m.size, 90112);
	assert_int_equal(m.refcount, 1);
	assert_int_equal(m.n_holders, 1);
	assert_string_equal(m.holders[0], "vfat");
	assert_null(m.holders[1]);
	proc_module_done(&m);

	assert_int_equal(parse("libcrc32c 16384 2 sctp,xfs, Live 0xffffffffc0281000", &m, &what),
			 0);
	assert_int_equal(m.refcount, 2);
	assert_int_equal(m.n_holders, 2);
	assert_string_equal(m.holders[0], "sctp");
	assert_string_equal(m.holders[1], "xfs");
	assert_null(m.holders[2]);
	assert_true(m.address == 0xffffffffc0281000ull);
	proc_module_done(&m);

	assert_int_equal(parse("xfs 1970176 0 - Live 0xffffffffc028f000", &m, &what), 0);
	assert_int_equal(m.size, 1970176);
	proc_module_done(&m);
}

static void test_line_debian_612(void **state)
{
	struct proc_module m;
	const char *what;

	/* debian-6.12-xz/proc/modules */
	assert_int_equal(parse("xfs 2592768 0 - Live 0xffffffffc0266000", &m, &what), 0);
	assert_string_equal(m.name, "xfs");
	assert_int_equal(m.size, 2592768);
	assert_true(m.address == 0xffffffffc0266000ull);
	proc_module_done(&m);

	assert_int_equal(parse("ip6_udp_tunnel 16384 1 sctp, Live 0xffffffffc04df000", &m, &what),
			 0);
	assert_string_equal(m.name, "ip6_udp_tunnel");
	assert_int_equal(m.n_holders, 1);
	assert_string_equal(m.holders[0], "sctp");
	proc_module_done(&m);

	/* custom-6.12-modstats/proc/modules */
	assert_int_equal(parse("libcrc32c 12288 1 xfs, Live 0xffffffffc0196000", &m, &what), 0);
	assert_int_equal(m.size, 12288);
	assert_int_equal(m.refcount, 1);
	assert_string_equal(m.holders[0], "xfs");
	proc_module_done(&m);
}

static void test_line_permanent_taint_states(void **state)
{
	struct proc_module m;
	const char *what;

	/* print_unload_info(): a module with init but no exit */
	assert_int_equal(parse("nls_cp437 16384 1 [permanent], Live 0xffffffffc0a00000", &m, &what),
			 0);
	assert_true(m.permanent);
	assert_int_equal(m.n_holders, 0);
	assert_non_null(m.holders);
	assert_null(m.holders[0]);
	proc_module_done(&m);

	assert_int_equal(parse("foo 16384 2 bar,[permanent], Live 0xffffffffc0a00000", &m, &what),
			 0);
	assert_true(m.permanent);
	assert_int_equal(m.n_holders, 1);
	assert_string_equal(m.holders[0], "bar");
	proc_module_done(&m);

	/* module_flags(): out-of-tree, unsigned, proprietary */
	assert_int_equal(parse("nvidia 54685696 0 - Live 0xffffffffc1000000 (POE)", &m, &what), 0);
	assert_string_equal(m.taint, "POE");
	assert_int_equal(m.size, 54685696);
	proc_module_done(&m);

	assert_int_equal(parse("lp 16384 0 - Live 0xffffffffc1000000 (OE+)", &m, &what), 0);
	assert_string_equal(m.taint, "OE+");
	proc_module_done(&m);

	assert_int_equal(parse("xfs 2592768 1 - Loading 0xffffffffc0266000", &m, &what), 0);
	assert_int_equal(m.state, MODULE_LOADING);
	assert_string_equal(module_state_name(m.state), "Loading");
	proc_module_done(&m);

	assert_int_equal(parse("sctp 524288 0 - Unloading 0xffffffffc04f7000 (E)", &m, &what), 0);
	assert_int_equal(m.state, MODULE_UNLOADING);
	assert_string_equal(module_state_name(m.state), "Unloading");
	assert_string_equal(m.taint, "E");
	proc_module_done(&m);

	/* delete_module() dropped the base reference; the exit function is running */
	assert_int_equal(parse("xfs 1990656 -1 - Unloading 0xffffffffc0a4e000", &m, &what), 0);
	assert_int_equal(m.state, MODULE_UNLOADING);
	assert_int_equal(m.refcount, 0);
	proc_module_done(&m);
	assert_int_equal(parse("xfs 1990656 -1 - Live 0xffffffffc0a4e000", &m, &what), -EINVAL);
	assert_string_equal(what, "refcount is negative");
	assert_int_equal(parse("xfs 1990656 -2 - Unloading 0xffffffffc0a4e000", &m, &what),
			 -EINVAL);
	assert_string_equal(what, "refcount is negative");

	assert_string_equal(module_state_name(MODULE_LIVE), "Live");

	/* !CONFIG_MODULE_UNLOAD prints " - -" */
	assert_int_equal(parse("vfat 24576 - - Live 0xffffffffc0476000", &m, &what), 0);
	assert_int_equal(m.refcount, -1);
	assert_int_equal(m.n_holders, 0);
	proc_module_done(&m);

	/* hidden address (no CAP_SYSLOG): "0x%px" of NULL */
	assert_int_equal(parse("vfat 24576 0 - Live 0x0000000000000000", &m, &what), 0);
	assert_true(m.address == 0);
	proc_module_done(&m);

	/* tabs and extra trailing fields are accepted */
	assert_int_equal(parse("vfat\t24576\t0\t-\tLive\t0xffffffffc0476000\t(O)\textra", &m, &what),
			 0);
	assert_string_equal(m.taint, "O");
	proc_module_done(&m);

	/* very old kernels had no address */
	assert_int_equal(parse("vfat 24576 0 - Live", &m, &what), 0);
	assert_true(m.address == 0);
	proc_module_done(&m);

	proc_module_done(NULL);
}

/* ---- malformed lines ------------------------------------------------------------- */

static void test_line_malformed(void **state)
{
	struct proc_module m;
	const char *what;
	char nul[] = "vfat 24576 0 - Live\0 0x0";
	char name64[80];

	expect_bad("", "empty line");
	expect_bad("   \t ", "empty line");
	expect_bad("vfat", "missing size");
	expect_bad("vfat 24576", "missing refcount");
	expect_bad("vfat 24576 0", "missing holders");
	expect_bad("vfat 24576 0 -", "missing state");
	expect_bad("vfat 24k 0 - Live 0x0", "size is not a number");
	expect_bad("vfat -1 0 - Live 0x0", "size is not a number");
	expect_bad("vfat 18446744073709551616 0 - Live 0x0", "size is not a number");
	expect_bad("vfat 24576 x - Live 0x0", "refcount is not a number");
	expect_bad("vfat 24576 99999999999 - Live 0x0", "refcount is not a number");
	expect_bad("vfat 24576 0 - Dead 0x0", "unknown module state");
	expect_bad("vfat 24576 0 - live 0x0", "unknown module state");
	expect_bad("vfat 24576 0 - Live 0xzz", "address is not a hex number");
	expect_bad("vfat 24576 0 - Live -0x1", "address is not a hex number");
	expect_bad("vfat 24576 0 - Live 0x0 (POE", "malformed taint flags");
	expect_bad("vfat 24576 0 - Live 0x0 POE", "malformed taint flags");
	expect_bad("vfat 24576 0 - Live 0x0 (", "malformed taint flags");
	expect_bad("vfat 24576 0 - Live 0x0 (ABCDEFGHIJKLMNOP)", "malformed taint flags");
	expect_bad("a/b 24576 0 - Live 0x0", "invalid module name");
	expect_bad("vfat 24576 1 fat,a/b, Live 0x0", "holder is not a module name");
	memset(name64, 'n', 64);
	strcpy(name64 + 64, " 1 0 - Live 0x0");
	expect_bad(name64, "invalid module name");
	/* 63 bytes is MODULE_NAME_LEN - 1: allowed */
	memmove(name64 + 63, name64 + 64, strlen(name64 + 64) + 1);
	assert_int_equal(parse(name64, &m, &what), 0);
	assert_int_equal(strlen(m.name), 63);
	proc_module_done(&m);

	/* the 16-byte taint buffer holds 15 letters */
	assert_int_equal(parse("vfat 24576 0 - Live 0x0 (ABCDEFGHIJKLMNO)", &m, &what), 0);
	assert_string_equal(m.taint, "ABCDEFGHIJKLMNO");
	proc_module_done(&m);

	what = NULL;
	assert_int_equal(proc_modules_parse_line(nul, sizeof(nul) - 1, &m, &what), -EINVAL);
	assert_string_equal(what, "line contains a NUL byte");
}

/* ---- files ----------------------------------------------------------------------- */

/* debian-6.1-plain/proc/modules, as captured */
static const char modules_61[] =
	"vfat 24576 0 - Live 0xffffffffc0476000\n"
	"fat 90112 1 vfat, Live 0xffffffffc0497000\n"
	"af_key 45056 0 - Live 0xffffffffc048b000\n"
	"xfrm_algo 16384 1 af_key, Live 0xffffffffc0471000\n"
	"sctp 446464 2 - Live 0xffffffffc04b5000\n"
	"ip6_udp_tunnel 20480 1 sctp, Live 0xffffffffc0485000\n"
	"udp_tunnel 28672 1 sctp, Live 0xffffffffc047d000\n"
	"xfs 1970176 0 - Live 0xffffffffc028f000\n"
	"crc32c_generic 16384 1 - Live 0xffffffffc028a000\n"
	"libcrc32c 16384 2 sctp,xfs, Live 0xffffffffc0281000\n";

static void test_read_file_fixture_text(void **state)
{
	struct proc_modules *list;
	const struct proc_module *m;
	struct kt_err e;

	assert_int_equal(read_text(modules_61, sizeof(modules_61) - 1, &list, &e), 0);
	assert_non_null(list);
	assert_int_equal(list->n, 10);
	assert_false(list->addresses_hidden);
	assert_string_equal(list->mods[0].name, "vfat");
	assert_string_equal(list->mods[9].name, "libcrc32c");
	m = proc_modules_find(list, "sctp");
	assert_non_null(m);
	assert_int_equal(m->size, 446464);
	assert_int_equal(m->refcount, 2);
	assert_ptr_equal(proc_modules_find(list, "libcrc32c"), &list->mods[9]);
	assert_null(proc_modules_find(list, "btrfs"));
	assert_null(proc_modules_find(NULL, "xfs"));
	/* nothing is reported on success */
	assert_int_equal(e.line, 0);
	assert_null(e.what);
	proc_modules_free(list);
	assert_null(proc_modules_free(NULL));
}

static void test_read_file_hidden_addresses(void **state)
{
	static const char text[] = "vfat 24576 0 - Live 0x0000000000000000\n"
				   "fat 102400 1 vfat, Live 0x0000000000000000\n";
	static const char mixed[] = "vfat 24576 0 - Live 0x0000000000000000\n"
				    "fat 102400 1 vfat, Live 0xffffffffc0590000\n";
	struct proc_modules *list;
	struct kt_err e;

	assert_int_equal(read_text(text, sizeof(text) - 1, &list, &e), 0);
	assert_int_equal(list->n, 2);
	assert_true(list->addresses_hidden);
	proc_modules_free(list);

	assert_int_equal(read_text(mixed, sizeof(mixed) - 1, &list, &e), 0);
	assert_false(list->addresses_hidden);
	proc_modules_free(list);

	/* an empty file: no modules loaded, nothing hidden */
	assert_int_equal(read_text("", 0, &list, &e), 0);
	assert_non_null(list);
	assert_int_equal(list->n, 0);
	assert_false(list->addresses_hidden);
	proc_modules_free(list);

	/* a missing final newline (truncated read) still yields the last module */
	assert_int_equal(read_text("vfat 24576 0 - Live 0x0", 23, &list, &e), 0);
	assert_int_equal(list->n, 1);
	proc_modules_free(list);
}

static void test_read_file_many(void **state)
{
	/* more than the initial capacity of the module array */
	size_t cap = 300 * 64, n = 0;
	char *text = malloc(cap);
	struct proc_modules *list;
	struct kt_err e;

	assert_non_null(text);
	for (unsigned int i = 0; i < 300; i++)
		n += snprintf(text + n, cap - n, "mod%u %u 0 - Live 0xffffffffc%07x\n", i,
			      4096 * (i + 1), i * 0x1000);
	assert_int_equal(read_text(text, n, &list, &e), 0);
	assert_int_equal(list->n, 300);
	assert_string_equal(list->mods[299].name, "mod299");
	assert_int_equal(list->mods[299].size, 300 * 4096);
	proc_modules_free(list);
	free(text);
}

/* a module listed twice (a copy pasted twice) is read once, the repeat's line kept */
static void test_read_file_repeated_module(void **state)
{
	static const char text[] = "dummy 16384 0 - Live 0xffffffffc0000000\n"
				   "xfs 8192 1 - Live 0xffffffffc0010000\n"
				   "dummy 16384 0 - Live 0xffffffffc0000000\n"
				   "ext4 4096 0 - Live 0xffffffffc0020000\n"
				   "xfs 8192 1 - Live 0xffffffffc0010000\n";
	struct proc_modules *list;
	struct kt_err e;

	assert_int_equal(read_text(text, sizeof(text) - 1, &list, &e), 0);
	assert_int_equal(list->n, 3);
	assert_string_equal(list->mods[0].name, "dummy");
	assert_string_equal(list->mods[1].name, "xfs");
	assert_string_equal(list->mods[2].name, "ext4");
	assert_int_equal(list->n_repeated, 2);
	assert_int_equal(list->repeated_line, 3);
	assert_ptr_equal(proc_modules_find(list, "ext4"), &list->mods[2]);
	proc_modules_free(list);
}

static void test_read_file_errors(void **state)
{
	static const char truncated[] = "vfat 24576 0 - Live 0x0\nfat 90112 1 vf";
	static const char missing[] = "vfat 24576 0 - Live 0x0\nfat 90112 vfat, Live 0x0\n";
	static const char size[] = "a 1 0 - Live 0x0\nb 2 0 - Live 0x0\nc 3x 0 - Live 0x0\n";
	static const char state_[] = "vfat 24576 0 - Going 0x0\n";
	static const char nul[] = "vfat 24576 0 - Live 0x0\nfat 9\0" "0112 1 vfat, Live 0x0\n";
	static const char blank[] = "vfat 24576 0 - Live 0x0\n\nfat 90112 1 vfat, Live 0x0\n";
	static const char garbage[] = "\x7f" "ELF\x02\x01\x01\n";
	static const char html[] = "<html><body>404 Not Found</body></html>\n";
	size_t big = 1 << 20, n;
	char *text;

	expect_read_error(truncated, sizeof(truncated) - 1, 2, "missing state");
	/* the refcount is missing: "vfat," lands in its column */
	expect_read_error(missing, sizeof(missing) - 1, 2, "refcount is not a number");
	expect_read_error(size, sizeof(size) - 1, 3, "size is not a number");
	expect_read_error(state_, sizeof(state_) - 1, 1, "unknown module state");
	expect_read_error(nul, sizeof(nul) - 1, 2, "line contains a NUL byte");
	expect_read_error(blank, sizeof(blank) - 1, 2, "empty line");
	expect_read_error(garbage, sizeof(garbage) - 1, 1, "missing size");
	expect_read_error(html, sizeof(html) - 1, 1, "missing holders");

	text = malloc(big + 128);
	assert_non_null(text);
	n = sprintf(text, "vfat 24576 0 - Live 0x0\nfat 90112 1 vfat, Live 0x0\n");
	memset(text + n, 'a', big);
	n += big;
	n += sprintf(text + n, " 1 0 - Live 0x0\n");
	expect_read_error(text, n, 3, "line too long");
	free(text);
}

static void test_read_root(void **state)
{
	static const char bad[] = "vfat 24576 0 - Live 0x0\nfat x 1 vfat, Live 0x0\n";
	struct proc_modules *list = NULL;
	struct kt_root *root;
	struct kt_err e = { 0 };
	char *dir;

	dir = make_root(modules_61, sizeof(modules_61) - 1);
	assert_int_equal(root_new(dir, &root), 0);
	assert_int_equal(proc_modules_read(root, &list, &e), 0);
	assert_int_equal(list->n, 10);
	assert_string_equal(list->mods[7].name, "xfs");
	proc_modules_free(list);
	root_free(root);
	remove_tree(dir);

	dir = make_root(bad, sizeof(bad) - 1);
	assert_int_equal(root_new(dir, &root), 0);
	list = NULL;
	assert_int_equal(proc_modules_read(root, &list, &e), -EINVAL);
	assert_null(list);
	assert_string_equal(e.path, "proc/modules");
	assert_int_equal(e.line, 2);
	assert_string_equal(e.what, "size is not a number");
	root_free(root);
	remove_tree(dir);

	/* no proc/modules: a kernel without CONFIG_MODULES */
	dir = make_root(NULL, 0);
	assert_int_equal(root_new(dir, &root), 0);
	memset(&e, 0, sizeof(e));
	assert_int_equal(proc_modules_read(root, &list, &e), -ENOENT);
	assert_null(list);
	assert_string_equal(e.path, "proc/modules");
	assert_int_equal(e.line, 0);
	assert_null(e.what);
	root_free(root);
	remove_tree(dir);
}

static void test_read_fixtures(void **state)
{
	static const struct {
		const char *root;
		size_t n;
		const char *first, *last;
	} fx[] = {
		{ FIXTURES_DIR "/debian-6.1-plain", 10, "vfat", "libcrc32c" },
		{ FIXTURES_DIR "/debian-6.12-xz", 10, "vfat", "libcrc32c" },
		{ FIXTURES_DIR "/custom-6.12-modstats", 5, "vfat", "libcrc32c" },
	};

	for (size_t i = 0; i < sizeof(fx) / sizeof(fx[0]); i++) {
		struct proc_modules *list = NULL;
		struct kt_root *root;
		struct kt_err e = { 0 };

		assert_int_equal(root_new(fx[i].root, &root), 0);
		assert_int_equal(proc_modules_read(root, &list, &e), 0);
		assert_int_equal(list->n, fx[i].n);
		assert_false(list->addresses_hidden);
		assert_string_equal(list->mods[0].name, fx[i].first);
		assert_string_equal(list->mods[list->n - 1].name, fx[i].last);
		for (size_t j = 0; j < list->n; j++) {
			const struct proc_module *m = &list->mods[j];

			assert_int_equal(m->state, MODULE_LIVE);
			assert_int_equal(m->size % 4096, 0);
			assert_true(m->address >> 32 == 0xffffffff);
			assert_true(m->refcount >= 0);
			assert_string_equal(m->taint, "");
			/* every holder is itself a loaded module */
			for (size_t h = 0; h < m->n_holders; h++)
				assert_non_null(proc_modules_find(list, m->holders[h]));
		}
		proc_modules_free(list);
		root_free(root);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_debian_61),
		cmocka_unit_test(test_line_debian_612),
		cmocka_unit_test(test_line_permanent_taint_states),
		cmocka_unit_test(test_line_malformed),
		cmocka_unit_test(test_read_file_fixture_text),
		cmocka_unit_test(test_read_file_hidden_addresses),
		cmocka_unit_test(test_read_file_many),
		cmocka_unit_test(test_read_file_repeated_module),
		cmocka_unit_test(test_read_file_errors),
		cmocka_unit_test(test_read_root),
		cmocka_unit_test(test_read_fixtures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
