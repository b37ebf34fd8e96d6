/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel under study (session/system.c): the one release resolver and the one
 * judgement of in-kernel decompression, over roots made here, so that every command
 * that opens a system answers alike.
 */
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

#include "session/system.h"
#include "util/root.h"

static int rm_cb(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static char *make_root(void)
{
	const char *t = getenv("TMPDIR");
	char *d;

	assert_true(asprintf(&d, "%s/kmodtop-system-XXXXXX", t && t[0] ? t : "/tmp") > 0);
	assert_non_null(mkdtemp(d));
	return d;
}

static void remove_root(char *d)
{
	nftw(d, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	free(d);
}

static void put(const char *dir, const char *rel, const char *data, size_t len)
{
	char *p, *s;
	FILE *f;

	assert_true(asprintf(&p, "%s/%s", dir, rel) > 0);
	for (s = p + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		assert_true(mkdir(p, 0755) == 0 || errno == EEXIST);
		*s = '/';
	}
	f = fopen(p, "we");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	free(p);
}

static void put_str(const char *dir, const char *rel, const char *s)
{
	put(dir, rel, s, strlen(s));
}

static void open_system(const char *dir, const char *release, struct kt_system *sys)
{
	assert_int_equal(kt_system_open(&(struct kt_system_opts){ .root = dir, .release = release },
					sys),
			 0);
}

static void release_from_osrelease(void **state)
{
	char *d = make_root();
	struct kt_system sys;

	(void)state;
	put_str(d, "proc/sys/kernel/osrelease", "6.12.118+deb12-amd64\r\n");
	open_system(d, NULL, &sys);
	assert_string_equal(kt_system_release(&sys), "6.12.118+deb12-amd64");
	assert_string_equal(kt_system_release_from(&sys), "proc/sys/kernel/osrelease");
	assert_false(sys.release_rejected);
	assert_true(sys.lp.known);
	/* the module tree follows the release */
	assert_non_null(sys.moduledir);
	assert_non_null(strstr(sys.moduledir, "/lib/modules/6.12.118+deb12-amd64"));
	kt_system_close(&sys);

	/* --kernel-release wins over the root's */
	open_system(d, "6.1.0-57-amd64", &sys);
	assert_string_equal(kt_system_release(&sys), "6.1.0-57-amd64");
	assert_string_equal(kt_system_release_from(&sys), "--kernel-release");
	kt_system_close(&sys);
	remove_root(d);
}

/* What is not a release's name is none, whichever command asks */
static void release_rejected(void **state)
{
	static const struct {
		const char *text;
		size_t len;
	} bad[] = {
		{ "../../etc\n", 10 },
		{ "6.1\nGRUB_TIMEOUT=0\n", 20 },
		{ "6.1\0x\n", 6 },
		{ "6.1 foo\n", 8 },
		{ "\x1b]52;c;x\x07\n", 11 },
		{ "\n", 1 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *d = make_root();
		struct kt_system sys;

		put(d, "proc/sys/kernel/osrelease", bad[i].text, bad[i].len);
		open_system(d, NULL, &sys);
		assert_null(kt_system_release(&sys));
		assert_null(kt_system_release_from(&sys));
		assert_true(sys.release_rejected);
		assert_null(sys.moduledir);
		kt_system_close(&sys);
		remove_root(d);
	}
}

static void release_none(void **state)
{
	char *d = make_root();
	struct kt_system sys;

	(void)state;
	open_system(d, NULL, &sys);
	assert_null(kt_system_release(&sys));
	assert_false(sys.release_rejected);
	assert_int_equal(sys.moduledir_err, -ENOENT);
	kt_system_close(&sys);
	remove_root(d);
}

/*
 * In-kernel decompression: sysfs says yes; else the configuration on a release that
 * has MODULE_INIT_COMPRESSED_FILE (5.17+); else the release alone.
 */
static void decompression_judgement(void **state)
{
	static const struct {
		const char *release;
		const char *config;	/* NULL: no boot/config-R */
		const char *sysfs;	/* NULL: no sys/module/compression */
		bool expect;
	} cases[] = {
		{ "6.12.0", NULL, "xz\n", true },
		{ "6.12.0", "CONFIG_MODULE_DECOMPRESS=y\n", NULL, true },
		{ "6.12.0", "# CONFIG_MODULE_DECOMPRESS is not set\n", NULL, false },
		{ "5.10.0", "CONFIG_MODULE_DECOMPRESS=y\n", NULL, false },
		{ "6.12.0", NULL, NULL, true },
		{ "5.10.0", NULL, NULL, false },
		{ "6.12.0", "# CONFIG_MODULE_DECOMPRESS is not set\n", "zstd\n", true },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *d = make_root(), rel[64];
		struct kt_system sys;

		put_str(d, "proc/sys/kernel/osrelease", cases[i].release);
		if (cases[i].config) {
			snprintf(rel, sizeof(rel), "boot/config-%s", cases[i].release);
			put_str(d, rel, cases[i].config);
		}
		if (cases[i].sysfs)
			put_str(d, "sys/module/compression", cases[i].sysfs);
		open_system(d, NULL, &sys);
		if (kt_system_in_kernel_decompression(&sys) != cases[i].expect ||
		    sys.k.in_kernel_decompress != cases[i].expect)
			fail_msg("case %zu (%s, config %s, sysfs %s): expected %d", i,
				 cases[i].release, cases[i].config ? "yes" : "no",
				 cases[i].sysfs ? "yes" : "no", cases[i].expect);
		kt_system_close(&sys);
		remove_root(d);
	}
}

static void root_missing(void **state)
{
	struct kt_system sys;

	(void)state;
	assert_true(kt_system_open(&(struct kt_system_opts){ .root = "/nonexistent/kmodtop" },
				   &sys) < 0);
}

/*
 * Without a root (ci over logs saved elsewhere) nothing of this machine stands in for
 * the kernel under study: the release is the one asked for, or none (not uname), the
 * module tree is --moduledir's, and without configuration or sysfs the release alone
 * judges in-kernel decompression.
 */
static void no_root(void **state)
{
	char *d = make_root();
	struct kt_system sys;

	(void)state;
	assert_int_equal(kt_system_open(&(struct kt_system_opts){ .no_root = true }, &sys), 0);
	assert_null(sys.root);
	assert_null(kt_system_release(&sys));
	assert_null(sys.moduledir);
	assert_null(sys.kconfig);
	assert_false(sys.has_compression);
	kt_system_open_module_tree(&sys, false);
	assert_null(sys.idx);
	assert_null(sys.cat);
	kt_system_close(&sys);

	/* the release's own rules: 6.12 decompresses, 5.10 cannot */
	assert_int_equal(kt_system_open(&(struct kt_system_opts){ .no_root = true,
								   .release = "6.12.1",
								   .root = "/nonexistent" },
					&sys),
			 0);
	assert_string_equal(kt_system_release(&sys), "6.12.1");
	assert_null(sys.moduledir);
	assert_true(sys.k.in_kernel_decompress);
	kt_system_close(&sys);
	assert_int_equal(kt_system_open(&(struct kt_system_opts){ .no_root = true,
								   .release = "5.10.0" },
					&sys),
			 0);
	assert_false(sys.k.in_kernel_decompress);
	kt_system_close(&sys);

	/* --moduledir is the tree, with no root to read an index's modprobe.d from */
	assert_int_equal(kt_system_open(&(struct kt_system_opts){ .no_root = true,
								   .moduledir = d },
					&sys),
			 0);
	assert_string_equal(sys.moduledir, d);
	assert_true(sys.has_moduledir);
	kt_system_open_module_tree(&sys, false);
	assert_null(sys.idx);
	kt_system_close(&sys);
	remove_root(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(release_from_osrelease),
		cmocka_unit_test(release_rejected),
		cmocka_unit_test(release_none),
		cmocka_unit_test(decompression_judgement),
		cmocka_unit_test(root_missing),
		cmocka_unit_test(no_root),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
