/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "output/openmetrics.h"
#include "util/atomic-file.h"
#include "util/macro.h"

/* The exposition of the families and samples @fn writes, and om_finish()'s result */
struct written {
	char *text;
	int r;
};

static struct written write_with(enum om_flavour fl, void (*fn)(struct om *m))
{
	struct written w = { 0 };
	size_t len;
	FILE *f = open_memstream(&w.text, &len);
	struct om *m = NULL;

	assert_non_null(f);
	assert_int_equal(om_new(fl, f, &m), 0);
	fn(m);
	w.r = om_finish(m);
	om_free(m);
	fclose(f);
	return w;
}

static void test_label_names(void **state)
{
	assert_true(om_label_name_valid("host"));
	assert_true(om_label_name_valid("_x"));
	assert_true(om_label_name_valid("a_9"));
	assert_true(om_label_name_valid("Host_Name"));
	assert_false(om_label_name_valid(""));
	assert_false(om_label_name_valid(NULL));
	assert_false(om_label_name_valid("9a"));
	assert_false(om_label_name_valid("__name__"));
	assert_false(om_label_name_valid("__"));
	assert_false(om_label_name_valid("a-b"));
	assert_false(om_label_name_valid("a.b"));
	assert_false(om_label_name_valid("a:b"));
	assert_false(om_label_name_valid("h\xc3\xa9"));
}

static void test_escape(void **state)
{
	static const char in[] = "a\\b\"c\nd\te\0f";
	char *s = om_escape_label_value(in, sizeof(in) - 1);

	/* the three escapes of the format; a tab or a NUL is not one */
	assert_int_equal(memcmp(s, "a\\\\b\\\"c\\nd\te\0f", 14), 0);
	assert_int_equal(s[14], '\0');
	free(s);
	s = om_escape_label_value("", 0);
	assert_string_equal(s, "");
	free(s);
}

static void families(struct om *m)
{
	const struct om_label l[] = { { "module", "xfs" }, { "outcome", "loaded" } };

	/* no sample: the family is left out */
	om_family(m, "t_empty", OM_GAUGE, NULL, "Nothing.");
	om_family(m, "t_attempts", OM_COUNTER, NULL, "Calls; \"quoted\", back\\slash\nnewline.");
	om_sample_u64(m, l, ARRAY_SIZE(l), 3);
	om_sample_u64(m, NULL, 0, UINT64_MAX);
	om_family(m, "t_size_bytes", OM_GAUGE, "bytes", "Bytes.");
	om_sample_u64(m, (const struct om_label[]){ { "module", NULL } }, 1, 0);
	om_family(m, "t_time_seconds", OM_GAUGE, "seconds", "Time.");
	om_sample_f64(m, NULL, 0, 16.732703);
	om_sample_f64(m, (const struct om_label[]){ { "x", "a" } }, 1, 0.1);
	om_sample_f64(m, (const struct om_label[]){ { "x", "b" } }, 1, 1e-7);
	om_sample_f64(m, (const struct om_label[]){ { "x", "c" } }, 1, NAN);
	om_sample_f64(m, (const struct om_label[]){ { "x", "d" } }, 1, INFINITY);
	om_sample_f64(m, (const struct om_label[]){ { "x", "e" } }, 1, 1.0 / 3);
}

static void test_openmetrics(void **state)
{
	struct written w = write_with(OM_OPENMETRICS, families);

	assert_int_equal(w.r, 0);
	assert_string_equal(
		w.text,
		"# HELP t_attempts Calls; \\\"quoted\\\", back\\\\slash\\nnewline.\n"
		"# TYPE t_attempts counter\n"
		"t_attempts_total{module=\"xfs\",outcome=\"loaded\"} 3\n"
		"t_attempts_total 18446744073709551615\n"
		"# HELP t_size_bytes Bytes.\n"
		"# TYPE t_size_bytes gauge\n"
		"# UNIT t_size_bytes bytes\n"
		"t_size_bytes{module=\"\"} 0\n"
		"# HELP t_time_seconds Time.\n"
		"# TYPE t_time_seconds gauge\n"
		"# UNIT t_time_seconds seconds\n"
		"t_time_seconds 16.732703\n"
		"t_time_seconds{x=\"a\"} 0.1\n"
		"t_time_seconds{x=\"b\"} 1e-07\n"
		"t_time_seconds{x=\"e\"} 0.3333333333333333\n"
		"# EOF\n");
	free(w.text);
}

static void test_prometheus(void **state)
{
	struct written w = write_with(OM_PROMETHEUS, families);

	/* the family of a counter is its samples' name; no UNIT, no EOF; no \" in HELP */
	assert_int_equal(w.r, 0);
	assert_string_equal(
		w.text,
		"# HELP t_attempts_total Calls; \"quoted\", back\\\\slash\\nnewline.\n"
		"# TYPE t_attempts_total counter\n"
		"t_attempts_total{module=\"xfs\",outcome=\"loaded\"} 3\n"
		"t_attempts_total 18446744073709551615\n"
		"# HELP t_size_bytes Bytes.\n"
		"# TYPE t_size_bytes gauge\n"
		"t_size_bytes{module=\"\"} 0\n"
		"# HELP t_time_seconds Time.\n"
		"# TYPE t_time_seconds gauge\n"
		"t_time_seconds 16.732703\n"
		"t_time_seconds{x=\"a\"} 0.1\n"
		"t_time_seconds{x=\"b\"} 1e-07\n"
		"t_time_seconds{x=\"e\"} 0.3333333333333333\n");
	free(w.text);
}

/* Kernel names: as the text report shows them, then the format's escapes */
static void hostile(struct om *m)
{
	const struct om_label l[] = {
		{ "a", "back\\slash" },
		{ "b", "q\"uote" },
		{ "c", "new\nline" },
		{ "d", "x\033[2Jy" },
		{ "e", "b\377a\300d" },
		{ "f", "caf\xc3\xa9" },
		{ "g", "\xc2\x9b" },		/* C1 CSI */
		{ "h", "\xe2\x80\xae" },	/* a bidi override */
	};

	assert_int_equal(om_add_const_label(m, "host", "h\"1\\\n2"), 0);
	om_family(m, "t_info", OM_GAUGE, NULL, "Info.");
	om_sample_u64(m, l, ARRAY_SIZE(l), 1);
}

static void test_hostile_values(void **state)
{
	struct written w = write_with(OM_OPENMETRICS, hostile);

	assert_int_equal(w.r, 0);
	/* --label's value as given; then a\b b"c as \\ and \", controls and bad bytes \\xNN */
	assert_non_null(strstr(w.text, "t_info{host=\"h\\\"1\\\\\\n2\","
				       "a=\"back\\\\\\\\slash\",b=\"q\\\"uote\","
				       "c=\"new\\\\x0aline\",d=\"x\\\\x1b[2Jy\","
				       "e=\"b\\\\xffa\\\\xc0d\",f=\"caf\xc3\xa9\","
				       "g=\"\\\\xc2\\\\x9b\",h=\"\\\\xe2\\\\x80\\\\xae\"} 1\n"));
	free(w.text);
}

static void bad_unit(struct om *m)
{
	om_family(m, "t_size", OM_GAUGE, "bytes", "Not named for its unit.");
	om_sample_u64(m, NULL, 0, 1);
}

static void bad_counter(struct om *m)
{
	om_family(m, "t_calls_total", OM_COUNTER, NULL, "Named with _total.");
	om_sample_u64(m, NULL, 0, 1);
}

static void bad_label(struct om *m)
{
	om_family(m, "t_x", OM_GAUGE, NULL, "A bad label name.");
	om_sample_u64(m, (const struct om_label[]){ { "a-b", "x" } }, 1, 1);
}

static void no_family(struct om *m)
{
	om_sample_u64(m, NULL, 0, 1);
}

static void test_errors(void **state)
{
	void (*fns[])(struct om *m) = { bad_unit, bad_counter, bad_label, no_family };
	struct om *m = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(fns); i++) {
		struct written w = write_with(OM_OPENMETRICS, fns[i]);

		assert_int_equal(w.r, -EINVAL);
		free(w.text);
	}
	assert_int_equal(om_new(OM_OPENMETRICS, stdout, &m), 0);
	assert_int_equal(om_add_const_label(m, "9", "x"), -EINVAL);
	assert_int_equal(om_add_const_label(m, "host", "b\377d"), -EINVAL);
	om_free(m);
}

/* a full disk: the error comes back from om_finish() */
static void test_write_error(void **state)
{
	FILE *f = fopen("/dev/full", "we");
	struct om *m = NULL;

	if (!f)
		skip();
	assert_int_equal(om_new(OM_PROMETHEUS, f, &m), 0);
	om_family(m, "t_x", OM_GAUGE, NULL, "X.");
	om_sample_u64(m, NULL, 0, 1);
	assert_int_equal(om_finish(m), -ENOSPC);
	om_free(m);
	fclose(f);
}

static void test_atomic_file(void **state)
{
	char dir[] = "/tmp/kmodtop-atomic.XXXXXX", path[64], buf[16] = { 0 };
	struct atomic_file *a;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/m.prom", dir);
	/* not committed: nothing is left */
	assert_int_equal(atomic_file_new(path, 0644, &a), 0);
	fputs("half", atomic_file_stream(a));
	atomic_file_free(a);
	assert_int_equal(rmdir(dir), 0);
	assert_non_null(mkdtemp(strcpy(dir, "/tmp/kmodtop-atomic.XXXXXX")));
	snprintf(path, sizeof(path), "%s/m.prom", dir);
	assert_int_equal(atomic_file_new(path, 0644, &a), 0);
	fputs("whole", atomic_file_stream(a));
	assert_int_equal(atomic_file_commit(a), 0);
	atomic_file_free(a);
	f = fopen(path, "re");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "whole");
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
	/* a directory that does not exist, a path that names none */
	assert_int_equal(atomic_file_new("/nonexistent/kmodtop/m.prom", 0644, &a), -ENOENT);
	assert_int_equal(atomic_file_new("/tmp/", 0644, &a), -EISDIR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_label_names),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_openmetrics),
		cmocka_unit_test(test_prometheus),
		cmocka_unit_test(test_hostile_values),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_atomic_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
