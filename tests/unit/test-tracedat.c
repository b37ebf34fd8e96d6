/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sizes a trace.dat declares, checked before libtracecmd reads it
 * (sources/trace/tracedat.c): libtracecmd 1.3 allocates what a size field says before
 * reading that many bytes and keeps it when the read comes up short, and crashes
 * closing a buffer whose CPU data lies past the end. Each test patches one field of a
 * real file (the 6.1 guest's storms as trace-cmd wrote them, version 7 with zstd, and
 * two pages of it converted to version 6, the fuzz seed) and expects the file refused
 * with the reason; the unpatched files must still give their events.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <zstd.h>

#include "sources/trace/tracedat.h"

/*
 * Under ASan's leak checker: libtracecmd 1.3.1's tracecmd_parse_trace_clock() drops
 * the clock name it sscanf()s with "%ms" when a version 6 trace.dat names its clock
 * twice (every trace-cmd v6 file): a few bytes a handle, libtracecmd's; its frames have
 * no frame pointers, so the stack ends at the sscanf. kmodtop never uses "%m".
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:__isoc99_vsscanf\n";
}

#define V7 FIXTURES_DIR "/tracedat/debian-6.1-storms.dat"
#define V6 FIXTURES_DIR "/../fuzz/seeds/tracedat/storms-v6.dat"

struct file {
	unsigned char *d;
	size_t n;
};

static struct file load(const char *path)
{
	struct file f = { 0 };
	struct stat sb;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &sb), 0);
	f.n = (size_t)sb.st_size;
	f.d = malloc(f.n);
	assert_non_null(f.d);
	assert_int_equal(read(fd, f.d, f.n), (ssize_t)f.n);
	close(fd);
	return f;
}

static uint64_t get(const struct file *f, size_t off, size_t n)
{
	uint64_t v = 0;

	assert_true(off + n <= f->n);
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)f->d[off + i] << (8 * i);
	return v;
}

static void put(struct file *f, size_t off, size_t n, uint64_t v)
{
	assert_true(off + n <= f->n);
	for (size_t i = 0; i < n; i++)
		f->d[off + i] = (unsigned char)(v >> (8 * i));
}

static int count_event(void *userdata, const struct ktrace_event *ev)
{
	(*(uint64_t *)userdata)++;
	return 0;
}

/* Reads @f as a trace.dat: 0 or -errno, the reason in *what, the events in *n */
static int read_dat(const struct file *f, const char **what, uint64_t *n)
{
	struct ktrace_parser_ops ops = { .event = count_event };
	struct ktrace_stats st;
	struct kt_err e = { 0 };
	int fd = memfd_create("test-tracedat", MFD_CLOEXEC), r;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, f->d, f->n), (ssize_t)f->n);
	*n = 0;
	r = tracedat_read_fd(fd, "patched.dat", &ops, n, &st, &e);
	close(fd);
	*what = e.what;
	if (r < 0)
		assert_string_equal(e.path, "patched.dat");
	return r;
}

static void expect_refused(const struct file *f, const char *why)
{
	const char *what;
	uint64_t n;

	assert_int_equal(read_dat(f, &what, &n), -EINVAL);
	assert_non_null(what);
	if (!strstr(what, why))
		fail_msg("refused for \"%s\", not \"%s\"", what, why);
}

/* Version 7: the offset of the first options section (after the compression's name and version) */
static size_t v7_options(const struct file *f)
{
	size_t off = 10 + strlen((const char *)f->d + 10) + 1 + 6;

	off += strlen((const char *)f->d + off) + 1;
	off += strlen((const char *)f->d + off) + 1;
	return (size_t)get(f, off, 8);
}

/* Version 7: the offset of option @id's 4-byte size in the first options section */
static size_t v7_option(const struct file *f, unsigned int id)
{
	size_t sec = v7_options(f), off = sec + 16, end = off + get(f, sec + 8, 8);

	while (off + 6 <= end) {
		if (get(f, off, 2) == id)
			return off + 2;
		off += 6 + get(f, off + 2, 4);
	}
	fail_msg("no option %u", id);
	return 0;
}

static void test_real_files_read(void **state)
{
	const char *paths[] = { V7, V6 };
	const char *what;
	uint64_t n;

	for (size_t i = 0; i < 2; i++) {
		struct file f = load(paths[i]);

		assert_int_equal(read_dat(&f, &what, &n), 0);
		assert_true(n > 0);
		free(f.d);
	}
}

/* The fuzzer's find: one flipped byte made an option declare 128 MiB */
static void test_v7_option_larger_than_section(void **state)
{
	struct file f = load(V7);

	put(&f, v7_option(&f, 16), 4, 0x08000000);	/* TRACECMD_OPTION_HEADER_INFO */
	expect_refused(&f, "larger than its section");
	free(f.d);
}

static void test_v7_section_larger_than_file(void **state)
{
	struct file f = load(V7);

	size_t off = v7_options(&f);

	/* one byte more than the file has after the section's header */
	put(&f, off + 8, 8, f.n - (off + 16) + 1);
	expect_refused(&f, "larger than the file");
	free(f.d);
}

static void test_v7_too_many_cpus(void **state)
{
	struct file f = load(V7);

	put(&f, v7_option(&f, 8) + 4, 4, 0x40000000);	/* TRACECMD_OPTION_CPUCOUNT */
	expect_refused(&f, "more CPUs");
	free(f.d);
}

/* The first section after the header that is compressed: its inflated size */
static void test_v7_compressed_inflates_beyond(void **state)
{
	struct file f = load(V7);
	size_t off;

	/* the sections follow each other from the header's end to the first options */
	off = 10 + strlen((const char *)f.d + 10) + 1 + 6;
	off += strlen((const char *)f.d + off) + 1;
	off += strlen((const char *)f.d + off) + 1 + 8;
	while (!(get(&f, off + 2, 2) & 1))
		off += 16 + get(&f, off + 8, 8);
	assert_true(get(&f, off + 20, 4) < 0x10000000);
	put(&f, off + 20, 4, 0xffffffff);
	expect_refused(&f, "inflates beyond");
	free(f.d);
}

/* Version 7's sections from the header's end: the offset of section @id's header */
static size_t v7_section(const struct file *f, unsigned int id)
{
	size_t off = 10 + strlen((const char *)f->d + 10) + 1 + 6;

	off += strlen((const char *)f->d + off) + 1;
	off += strlen((const char *)f->d + off) + 1 + 8;
	while (get(f, off, 2) != id)
		off += 16 + get(f, off + 8, 8);
	return off;
}

/* A size inside a compressed section: header_page's, inflated, patched, compressed again */
static void test_v7_size_inside_compressed_section(void **state)
{
	struct file f = load(V7);
	size_t off = v7_section(&f, 16), csize, rsize, n;
	unsigned char *text;

	assert_true(get(&f, off + 2, 2) & 1);
	csize = get(&f, off + 16, 4);
	rsize = get(&f, off + 20, 4);
	text = malloc(rsize);
	assert_non_null(text);
	assert_int_equal(ZSTD_decompress(text, rsize, f.d + off + 24, csize), rsize);
	assert_memory_equal(text, "header_page", 12);
	/* its size, 8 bytes after the name */
	text[12 + 4] = 0x70;
	n = ZSTD_compress(f.d + off + 24, csize, text, rsize, 19);
	assert_false(ZSTD_isError(n));
	put(&f, off + 16, 4, n);
	expect_refused(&f, "compressed section");
	free(text);
	free(f.d);
}

/* Version 7: the first CPU with data of the buffer named "kmttc": the offset of its data */
static size_t v7_kmttc_cpu_data(const struct file *f)
{
	size_t sec = v7_options(f);

	while (sec) {
		size_t off = sec + 16, end = off + get(f, sec + 8, 8), next = 0;

		while (off + 6 <= end) {
			size_t id = get(f, off, 2), len = get(f, off + 2, 4), p = off + 6;

			if (id == 0) {
				next = get(f, p, 8);
				break;
			}
			if (id == 3 && strcmp((const char *)f->d + p + 8, "kmttc") == 0) {
				size_t cpus;

				p += 8 + sizeof("kmttc");
				p += strlen((const char *)f->d + p) + 1 + 4;	/* clock, page size */
				cpus = get(f, p, 4);
				for (size_t c = 0; c < cpus; c++)
					if (get(f, p + 4 + 20 * c + 12, 8))
						return get(f, p + 4 + 20 * c + 4, 8);
			}
			off = p + len;
		}
		sec = next;
	}
	fail_msg("no kmttc buffer");
	return 0;
}

/* A compressed CPU's chunk count: more than its bytes could hold */
static void test_v7_too_many_chunks(void **state)
{
	struct file f = load(V7);
	size_t off = v7_kmttc_cpu_data(&f);

	assert_true(get(&f, off, 4) > 0 && get(&f, off, 4) < 1000);
	put(&f, off, 4, 0x40000000);
	expect_refused(&f, "more chunks");
	free(f.d);
}

/* A compressed CPU's first chunk does not inflate: libtracecmd crashed closing the file */
static void test_v7_chunk_not_inflating(void **state)
{
	struct file f = load(V7);
	size_t off = v7_kmttc_cpu_data(&f) + 4;

	/* the zstd frame's magic, right after the chunk's two sizes */
	assert_int_equal(get(&f, off + 8, 4), 0xfd2fb528);
	put(&f, off + 8, 4, 0);
	expect_refused(&f, "do not inflate");
	free(f.d);
}

/* Version 6: header_page's 8-byte size, right after the page size and its name */
static void test_v6_header_larger_than_file(void **state)
{
	struct file f = load(V6);
	size_t off = 10 + 2 + 1 + 1 + 4 + sizeof("header_page");

	assert_int_equal(get(&f, off, 8) < f.n, true);
	put(&f, off, 8, 0x100000000ull);
	expect_refused(&f, "larger than the file");
	free(f.d);
}

/* Version 6: CPU 0's first page says it holds more than a page (its commit word) */
static void test_v6_first_page_overfull(void **state)
{
	struct file f = load(V6);
	const unsigned char *p = memmem(f.d, f.n, "flyrecord", 10);
	size_t off;

	p = memmem(p + 10, f.n - (size_t)(p + 10 - f.d), "flyrecord", 10);
	assert_non_null(p);
	off = get(&f, (size_t)(p - f.d) + 10, 8);
	assert_true(get(&f, off + 8, 8) <= 4096);
	put(&f, off + 8, 8, 4097);
	expect_refused(&f, "more than a page");
	free(f.d);
}

/*
 * Version 6: CPU 0's first record says its length word is 0: kbuffer's next record
 * would be 4 bytes before it, and libtracecmd read it forever
 */
static void test_v6_record_length_below_4(void **state)
{
	struct file f = load(V6);
	const unsigned char *p = memmem(f.d, f.n, "flyrecord", 10);
	size_t off;

	p = memmem(p + 10, f.n - (size_t)(p + 10 - f.d), "flyrecord", 10);
	assert_non_null(p);
	off = get(&f, (size_t)(p - f.d) + 10, 8) + 16;
	put(&f, off, 4, 0);	/* type_len 0: a length word follows */
	put(&f, off + 4, 4, 0);
	/* without the check this never returns: fail instead of hanging the suite */
	alarm(60);
	expect_refused(&f, "shorter than its own length word");
	alarm(0);
	free(f.d);
}

/* Version 6: the page header's format gives the time stamp 4 bytes */
static void test_v6_page_header_timestamp(void **state)
{
	struct file f = load(V6);
	unsigned char *p = memmem(f.d, f.n, "timestamp;\toffset:0;\tsize:8;", 28);

	assert_non_null(p);
	p[26] = '4';
	expect_refused(&f, "time stamp");
	free(f.d);
}

/*
 * Version 6: module_load's __print_flags() names a field the event lacks (libtraceevent
 * 1.7.1 dereferences NULL parsing it)
 */
static void test_v6_print_format_unknown_field(void **state)
{
	struct file f = load(V6);
	unsigned char *p = memmem(f.d, f.n, "__print_flags(REC->taints", 25);

	assert_non_null(p);
	memcpy(p + 19, "tatnsi", 6);
	expect_refused(&f, "names a field");
	free(f.d);
}

/* Version 6: a byte no kernel writes in user_stack's array size (libtraceevent crashed) */
static void test_v6_format_not_ascii(void **state)
{
	struct file f = load(V6);
	unsigned char *p = memmem(f.d, f.n, "caller[8]", 9);

	assert_non_null(p);
	p[7] = 0xbf;
	expect_refused(&f, "bytes no kernel writes");
	free(f.d);
}

/* Version 6: the UNAME option without its NUL (libtracecmd strdup()s it, reading past it) */
static void test_v6_uname_unterminated(void **state)
{
	struct file f = load(V6);
	unsigned char *p = memmem(f.d, f.n, "x86_64", 7);

	assert_non_null(p);
	p[6] = 'x';
	expect_refused(&f, "has no end");
	free(f.d);
}

/* Version 6: the trace clock's size after the top level's CPU table */
static void test_v6_clock_larger_than_file(void **state)
{
	struct file f = load(V6);
	const unsigned char *p = memmem(f.d, f.n, "flyrecord", 10);
	size_t off;

	assert_non_null(p);
	off = (size_t)(p - f.d) + 10 + 2 * 16;
	assert_int_equal(get(&f, off, 8), 8);	/* "[global]" */
	put(&f, off, 8, 0x3b32000000000008ull);
	expect_refused(&f, "larger than the file");
	free(f.d);
}

/* The page size libtracecmd divides by: 0 */
static void test_page_size_zero(void **state)
{
	struct file f = load(V6);

	assert_int_equal(get(&f, 14, 4), 4096);
	put(&f, 14, 4, 0);
	expect_refused(&f, "page size");
	free(f.d);
}

/* Version 6: the buffer's CPU 1 data (its second "flyrecord"): libtracecmd crashed on it */
static void test_v6_cpu_data_past_end(void **state)
{
	struct file f = load(V6);
	const unsigned char *p = memmem(f.d, f.n, "flyrecord", 10);
	size_t off;

	assert_non_null(p);
	p = memmem(p + 10, f.n - (size_t)(p + 10 - f.d), "flyrecord", 10);
	assert_non_null(p);
	off = (size_t)(p - f.d) + 10 + 16 + 8;
	assert_true(get(&f, off, 8) > 0);
	put(&f, off, 8, f.n);
	expect_refused(&f, "past its end");
	free(f.d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_files_read),
		cmocka_unit_test(test_v7_option_larger_than_section),
		cmocka_unit_test(test_v7_section_larger_than_file),
		cmocka_unit_test(test_v7_too_many_cpus),
		cmocka_unit_test(test_v7_compressed_inflates_beyond),
		cmocka_unit_test(test_v7_size_inside_compressed_section),
		cmocka_unit_test(test_v7_too_many_chunks),
		cmocka_unit_test(test_v7_chunk_not_inflating),
		cmocka_unit_test(test_v6_header_larger_than_file),
		cmocka_unit_test(test_v6_cpu_data_past_end),
		cmocka_unit_test(test_page_size_zero),
		cmocka_unit_test(test_v6_print_format_unknown_field),
		cmocka_unit_test(test_v6_format_not_ascii),
		cmocka_unit_test(test_v6_uname_unterminated),
		cmocka_unit_test(test_v6_clock_larger_than_file),
		cmocka_unit_test(test_v6_first_page_overfull),
		cmocka_unit_test(test_v6_page_header_timestamp),
		cmocka_unit_test(test_v6_record_length_below_4),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
