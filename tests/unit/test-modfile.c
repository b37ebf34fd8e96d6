/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cost/modfile.c against the fixtures' real module files and what the captured kernels
 * reported about them (sys/module/NAME/coresize, the vmalloc trace), plus hostile
 * files made here at test time. No size is written down in this file: every expected
 * number is read from a fixture or computed by an independent decoder.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include "helpers.h"
#include "cost/modfile.h"

#define FX_61 FIXTURES_DIR "/debian-6.1-plain"
#define FX_612 FIXTURES_DIR "/debian-6.12-xz"
#define FX_CUSTOM FIXTURES_DIR "/custom-6.12-modstats"

/* ---- helpers --------------------------------------------------------------------- */

/* Writes @dir/@name: its path, for the caller to free */
static char *write_path(const char *dir, const char *name, const void *data, size_t len)
{
	write_file(dir, name, data, len);
	return path_join(dir, name);
}

/* The first file whose path ends in @suffix below @dir (depth first), or NULL. */
static char *find_file(const char *dir, const char *suffix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *found = NULL;

	if (!d)
		return NULL;
	while (!found && (e = readdir(d))) {
		char *p;
		struct stat st;
		size_t l = strlen(e->d_name), sl = strlen(suffix);

		if (e->d_name[0] == '.')
			continue;
		p = path_join(dir, e->d_name);
		l = strlen(p);
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			found = find_file(p, suffix);
		else if (l >= sl && strcmp(p + l - sl, suffix) == 0)
			found = strdup(p);
		free(p);
	}
	closedir(d);
	return found;
}

/* Every module file below @dir, in a NULL-terminated array the caller frees. */
static void collect(const char *dir, char ***v, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		struct stat st;
		char *p;

		if (e->d_name[0] == '.')
			continue;
		p = path_join(dir, e->d_name);
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
			collect(p, v, n);
			free(p);
		} else if (strstr(e->d_name, ".ko")) {
			*v = realloc(*v, (*n + 2) * sizeof(**v));
			assert_non_null(*v);
			(*v)[(*n)++] = p;
			(*v)[*n] = NULL;
		} else {
			free(p);
		}
	}
	closedir(d);
}

static void free_strv(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* Decompresses a whole .xz with liblzma's streaming decoder, independently of modfile.c. */
static uint8_t *xz_decompress(const uint8_t *in, size_t len, size_t *ret_len)
{
	lzma_stream s = LZMA_STREAM_INIT;
	size_t cap = 1 << 20;
	uint8_t *out = malloc(cap);
	lzma_ret lr;

	assert_non_null(out);
	assert_int_equal(lzma_stream_decoder(&s, UINT64_MAX, 0), LZMA_OK);
	s.next_in = in;
	s.avail_in = len;
	s.next_out = out;
	s.avail_out = cap;
	while ((lr = lzma_code(&s, LZMA_FINISH)) == LZMA_OK) {
		size_t used = cap - s.avail_out;

		cap *= 2;
		out = realloc(out, cap);
		assert_non_null(out);
		s.next_out = out + used;
		s.avail_out = cap - used;
	}
	assert_int_equal(lr, LZMA_STREAM_END);
	*ret_len = cap - s.avail_out;
	lzma_end(&s);
	return out;
}

/* gzip(1)-style member of @in, via zlib's gzip wrapper. */
static uint8_t *gzip_compress(const uint8_t *in, size_t len, size_t *ret_len)
{
	z_stream zs = { 0 };
	size_t cap = compressBound(len) + 64;
	uint8_t *out = malloc(cap);

	assert_non_null(out);
	assert_int_equal(deflateInit2(&zs, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY),
			 Z_OK);
	zs.next_in = (Bytef *)in;
	zs.avail_in = len;
	zs.next_out = out;
	zs.avail_out = cap;
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	*ret_len = zs.total_out;
	deflateEnd(&zs);
	return out;
}

static uint8_t *zstd_compress(const uint8_t *in, size_t len, bool content_size, size_t *ret_len)
{
	size_t cap = ZSTD_compressBound(len), r;
	uint8_t *out = malloc(cap);
	ZSTD_CCtx *cc = ZSTD_createCCtx();

	assert_non_null(out);
	assert_non_null(cc);
	assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 3)));
	assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag,
							 content_size)));
	assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1)));
	if (!content_size) {
		/* streaming, as `zstd < in > out` does: no size known up front */
		ZSTD_inBuffer zi = { in, len, 0 };
		ZSTD_outBuffer zo = { out, cap, 0 };

		r = ZSTD_compressStream2(cc, &zo, &zi, ZSTD_e_end);
		assert_int_equal(r, 0);
		r = zo.pos;
	} else {
		r = ZSTD_compress2(cc, out, cap, in, len);
		assert_false(ZSTD_isError(r));
	}
	ZSTD_freeCCtx(cc);
	*ret_len = r;
	return out;
}

/* An .xz of @in whose LZMA2 dictionary is @dict. */
static uint8_t *xz_compress_dict(const uint8_t *in, size_t len, uint32_t dict, size_t *ret_len)
{
	lzma_options_lzma opt;
	lzma_filter f[2];
	size_t cap = lzma_stream_buffer_bound(len), pos = 0;
	uint8_t *out = malloc(cap);

	assert_non_null(out);
	assert_false(lzma_lzma_preset(&opt, 0));
	opt.dict_size = dict;
	f[0] = (lzma_filter){ LZMA_FILTER_LZMA2, &opt };
	f[1] = (lzma_filter){ LZMA_VLI_UNKNOWN, NULL };
	assert_int_equal(lzma_stream_buffer_encode(f, LZMA_CHECK_CRC32, NULL, in, len, out, &pos,
						   cap),
			 LZMA_OK);
	*ret_len = pos;
	return out;
}

/* The fixture's vfat module, decompressed: a small real module image. */
static uint8_t *vfat_image(size_t *ret_len)
{
	char *p = find_file(FX_612 "/lib/modules", "/vfat.ko.xz");
	uint8_t *z, *img;
	size_t zl;

	assert_non_null(p);
	z = read_file(p, &zl);
	img = xz_decompress(z, zl, ret_len);
	free(z);
	free(p);
	return img;
}

static bool layout_eq(const struct modfile_layout *a, const struct modfile_layout *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

static bool info_eq(const struct modfile_info *a, const struct modfile_info *b)
{
	return a->file_size == b->file_size && a->comp == b->comp &&
	       a->decompressed_size == b->decompressed_size &&
	       a->decompressed_exact == b->decompressed_exact &&
	       a->xz_dict_size == b->xz_dict_size && a->zstd_window_size == b->zstd_window_size &&
	       strcmp(a->name, b->name) == 0 && a->name_source == b->name_source &&
	       a->has_layout == b->has_layout && a->layout_err == b->layout_err &&
	       (!a->has_layout || layout_eq(&a->layout, &b->layout));
}

/* ---- sizes of the fixtures' real files -------------------------------------------- */

static void test_sizes_fixture_files(void **state)
{
	char **v = NULL;
	size_t n = 0, nxz = 0, nplain = 0;

	(void)state;
	collect(FIXTURES_DIR, &v, &n);
	assert_true(n > 0);
	for (size_t i = 0; i < n; i++) {
		struct modfile_info sizes, full;
		struct stat st;
		uint8_t *data;
		size_t len;

		assert_int_equal(stat(v[i], &st), 0);
		assert_int_equal(modfile_analyze_flags(v[i], MODFILE_SIZES, &sizes), 0);
		assert_int_equal(modfile_analyze(v[i], &full), 0);
		assert_int_equal(sizes.file_size, (uint64_t)st.st_size);
		assert_true(sizes.decompressed_exact);
		/* the cheap path and the full decompression agree */
		assert_int_equal(sizes.decompressed_size, full.decompressed_size);
		assert_int_equal(sizes.xz_dict_size, full.xz_dict_size);
		assert_true(full.has_layout);
		assert_int_equal(full.name_source, MODFILE_NAME_THIS_MODULE);
		assert_int_equal(sizes.name_source, MODFILE_NAME_FILE);
		/* kmod's file name rule and struct module's name agree for in-tree modules */
		assert_string_equal(sizes.name, full.name);

		data = read_file(v[i], &len);
		if (strstr(v[i], ".ko.xz")) {
			size_t dl;
			uint8_t *d = xz_decompress(data, len, &dl);

			assert_int_equal(sizes.comp, MODFILE_XZ);
			assert_int_equal(sizes.decompressed_size, dl);
			/* Debian compresses with --lzma2=dict=1MiB; the analysis must see a dict */
			assert_true(sizes.xz_dict_size >= 4096);
			free(d);
			nxz++;
		} else {
			assert_int_equal(sizes.comp, MODFILE_PLAIN);
			assert_int_equal(sizes.decompressed_size, len);
			assert_int_equal(sizes.xz_dict_size, 0);
			nplain++;
		}
		free(data);
	}
	assert_true(nxz > 0 && nplain > 0);
	free_strv(v);
}

/* The dictionary is read from the block header: made here with known sizes. */
static void test_xz_dict_sizes(void **state)
{
	static const uint32_t dicts[] = { 4096, 65536, 3u << 16, 1u << 20, 8u << 20 };
	char *dir = make_tmpdir();
	size_t il;
	uint8_t *img = vfat_image(&il);

	(void)state;
	for (size_t i = 0; i < sizeof(dicts) / sizeof(dicts[0]); i++) {
		struct modfile_info mi;
		size_t zl;
		uint8_t *z = xz_compress_dict(img, il, dicts[i], &zl);
		char *p = write_path(dir, "vfat.ko.xz", z, zl);

		assert_int_equal(modfile_analyze_flags(p, MODFILE_SIZES, &mi), 0);
		assert_int_equal(mi.xz_dict_size, dicts[i]);
		assert_int_equal(mi.decompressed_size, il);
		free(p);
		free(z);
	}
	free(img);
	remove_tree(dir);
}

/* ---- coresize of every loaded module of every fixture ------------------------------ */

static bool release_is_64(const char *fx)
{
	char *p = path_join(fx, "proc/sys/kernel/osrelease");
	unsigned int maj = 0, min = 0;
	size_t len;
	uint8_t *r = read_file(p, &len);

	assert_int_equal(sscanf((char *)r, "%u.%u", &maj, &min), 2);
	free(r);
	free(p);
	return maj > 6 || (maj == 6 && min >= 4);
}

/* The module file of @name through the fixture's modules.dep (fine in a test). */
static char *module_path(const char *fx, const char *moddir, const char *name)
{
	char *dep = path_join(moddir, "modules.dep"), *line = NULL, *found = NULL;
	size_t cap = 0;
	FILE *f = fopen(dep, "re");

	(void)fx;
	assert_non_null(f);
	while (!found && getline(&line, &cap, f) > 0) {
		char *colon = strchr(line, ':'), *b, n[128];
		size_t i;

		if (!colon)
			continue;
		*colon = '\0';
		b = strrchr(line, '/');
		b = b ? b + 1 : line;
		for (i = 0; i < sizeof(n) - 1 && b[i] && b[i] != '.'; i++)
			n[i] = b[i] == '-' ? '_' : b[i];
		n[i] = '\0';
		if (strcmp(n, name) == 0)
			found = path_join(moddir, line);
	}
	free(line);
	fclose(f);
	free(dep);
	return found;
}

static uint64_t read_u64_file(const char *path)
{
	size_t len;
	uint8_t *s = read_file(path, &len);
	unsigned long long v = 0;

	assert_int_equal(sscanf((char *)s, "%llu", &v), 1);
	free(s);
	return v;
}

static void check_fixture_coresize(const char *fx, size_t *ret_checked)
{
	char *sysmod = path_join(fx, "sys/module"), *libmod = path_join(fx, "lib/modules");
	char *release_file = path_join(fx, "proc/sys/kernel/osrelease"), *moddir, *rel;
	bool is64 = release_is_64(fx);
	struct dirent *e;
	size_t len;
	DIR *d;

	rel = (char *)read_file(release_file, &len);
	rel[strcspn(rel, "\n")] = '\0';
	moddir = path_join(libmod, rel);
	d = opendir(sysmod);
	assert_non_null(d);
	while ((e = readdir(d))) {
		char *cs, *is, *file;
		struct modfile_info mi;
		uint64_t coresize, initsize;
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		{
			char *md = path_join(sysmod, e->d_name);

			cs = path_join(md, "coresize");
			is = path_join(md, "initsize");
			free(md);
		}
		if (stat(cs, &st) < 0) {	/* built-in: no coresize */
			free(cs);
			free(is);
			continue;
		}
		coresize = read_u64_file(cs);
		initsize = read_u64_file(is);
		file = module_path(fx, moddir, e->d_name);
		assert_non_null(file);
		assert_int_equal(modfile_analyze(file, &mi), 0);
		assert_true(mi.has_layout);
		assert_string_equal(mi.name, e->d_name);
		if (is64)
			assert_int_equal(mi.layout.sysfs_coresize_64, coresize);
		else
			assert_int_equal(mi.layout.sysfs_coresize_pre64, coresize);
		/* Live: init memory freed, initsize reads 0 (the layout is checked by trace) */
		assert_int_equal(initsize, 0);
		assert_true(is64 ? mi.layout.sysfs_initsize_64 : mi.layout.sysfs_initsize_pre64);
		(*ret_checked)++;
		free(file);
		free(cs);
		free(is);
	}
	closedir(d);
	free(moddir);
	free(rel);
	free(release_file);
	free(libmod);
	free(sysmod);
}

static void test_coresize_all_fixtures(void **state)
{
	DIR *d = opendir(FIXTURES_DIR);
	struct dirent *e;
	size_t fixtures = 0, checked = 0;

	(void)state;
	assert_non_null(d);
	while ((e = readdir(d))) {
		char *fx, *sm;
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		fx = path_join(FIXTURES_DIR, e->d_name);
		sm = path_join(fx, "sys/module");
		if (stat(sm, &st) == 0 && S_ISDIR(st.st_mode)) {
			check_fixture_coresize(fx, &checked);
			fixtures++;
		}
		free(sm);
		free(fx);
	}
	closedir(d);
	assert_true(fixtures >= 3);
	assert_true(checked >= 25);
}

/* ---- the vmalloc trace: per-allocation sizes during one step ----------------------- */

enum alloc_kind { ALLOC_OTHER, ALLOC_LAYOUT, ALLOC_XZ_DICT, ALLOC_DECOMPRESS_VMAP };

struct alloc {
	uint64_t size;		/* as alloc_vmap_area sees it: with the guard page */
	enum alloc_kind kind;
	bool saw_vmap;
	long tid;
};

/* "           storm-181     [001] ..." -> 181 */
static long line_tid(const char *line)
{
	const char *br = strstr(line, " [");
	const char *p;

	if (!br)
		return -1;
	for (p = br; p > line && p[-1] == ' '; p--)
		;
	while (p > line && p[-1] != '-')
		p--;
	return p > line ? strtol(p, NULL, 10) : -1;
}

/* Every vmap area allocated in the trace while STEP @step ran, classified by stack. */
static size_t trace_step_allocs(const char *fx, const char *step, struct alloc **ret)
{
	char *p = path_join(fx, "sys/kernel/tracing/trace");
	size_t len, n = 0;
	char *buf = (char *)read_file(p, &len), *line, *save = NULL;
	struct alloc *v = NULL;
	bool in_step = false;
	char mark[128];

	snprintf(mark, sizeof(mark), "tracing_mark_write: STEP %s", step);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *sz;

		if (strstr(line, "tracing_mark_write: STEP ")) {
			in_step = strstr(line, mark) && strlen(strstr(line, mark)) == strlen(mark);
			continue;
		}
		if (!in_step)
			continue;
		if (strncmp(line, " => ", 4) == 0 && n) {
			struct alloc *a = &v[n - 1];

			if (a->kind != ALLOC_OTHER)
				continue;
			if (strstr(line, "execmem_alloc") || strstr(line, "module_alloc"))
				a->kind = ALLOC_LAYOUT;
			else if (strstr(line, "xz_dec_lzma2_reset"))
				a->kind = ALLOC_XZ_DICT;
			else if (strcmp(line + 4, "vmap") == 0)
				a->saw_vmap = true;
			else if (a->saw_vmap && strcmp(line + 4, "module_decompress") == 0)
				a->kind = ALLOC_DECOMPRESS_VMAP;
			continue;
		}
		if (strstr(line, " alloc_vmap_area: ") && (sz = strstr(line, " size="))) {
			v = realloc(v, (n + 1) * sizeof(*v));
			assert_non_null(v);
			v[n] = (struct alloc){ .size = strtoull(sz + 6, NULL, 10),
					       .tid = line_tid(line) };
			n++;
		}
	}
	free(buf);
	free(p);
	*ret = v;
	return n;
}

/*
 * storm-fresh-xfs loads xfs once (6.12: the idempotent finit merges the threads; 6.1:
 * every thread allocates the layout before its duplicate check): each layout area is
 * our per-type (6.12) or core/init (6.1) size plus one guard page, in move_module()'s
 * order. Live modules read initsize 0, so this is where the init sizes are checked.
 */
static void check_storm_fresh_xfs(const char *fx, const char *xfs_suffix, bool is64)
{
	char *libmod = path_join(fx, "lib/modules"), *file = find_file(libmod, xfs_suffix);
	uint64_t want[_MEMT_MAX + 2];
	struct modfile_info mi;
	struct alloc *a = NULL;
	size_t n, nwant = 0, nlayout = 0, ndict = 0, nvmap = 0;

	assert_non_null(file);
	assert_int_equal(modfile_analyze(file, &mi), 0);
	assert_true(mi.has_layout);
	if (is64) {
		for (int t = 0; t < _MEMT_MAX; t++)
			if (mi.layout.mem[t])
				want[nwant++] = mi.layout.mem[t] + 4096;
	} else {
		want[nwant++] = mi.layout.core_size + 4096;
		if (mi.layout.init_size)
			want[nwant++] = mi.layout.init_size + 4096;
	}
	n = trace_step_allocs(fx, "storm-fresh-xfs", &a);
	for (size_t i = 0; i < n; i++) {
		switch (a[i].kind) {
		case ALLOC_LAYOUT: {
			/* each task allocates the types in move_module()'s order */
			size_t seq = 0;

			for (size_t j = 0; j < i; j++)
				seq += a[j].kind == ALLOC_LAYOUT && a[j].tid == a[i].tid;
			assert_int_equal(a[i].size, want[seq % nwant]);
			nlayout++;
			break;
		}
		case ALLOC_XZ_DICT:
			/* xz_dec_lzma2_reset(): vmalloc(dict_size) */
			assert_int_equal(a[i].size, mi.xz_dict_size + 4096);
			ndict++;
			break;
		case ALLOC_DECOMPRESS_VMAP: {
			/* module_decompress(): vmap() of the pages the decoder filled */
			uint64_t pages = (mi.decompressed_size + 4095) / 4096;

			assert_int_equal(a[i].size, pages * 4096 + 4096);
			nvmap++;
			break;
		}
		default:
			break;
		}
	}
	assert_true(nlayout >= nwant);
	assert_int_equal(nlayout % nwant, 0);
	if (mi.comp == MODFILE_XZ)
		assert_true(ndict >= 1 && nvmap >= 1);
	free(a);
	free(file);
	free(libmod);
}

static void test_trace_layout_612(void **state)
{
	(void)state;
	check_storm_fresh_xfs(FX_612, "/xfs.ko.xz", true);
	check_storm_fresh_xfs(FX_CUSTOM, "/xfs.ko.xz", true);
}

static void test_trace_layout_61(void **state)
{
	(void)state;
	check_storm_fresh_xfs(FX_61, "/xfs.ko", false);
}

/* ---- every format gives the same answer -------------------------------------------- */

static void test_formats_agree(void **state)
{
	char *dir = make_tmpdir();
	size_t il, zl;
	uint8_t *img = vfat_image(&il), *z;
	struct modfile_info plain, mi;
	char *p;

	(void)state;
	p = write_path(dir, "vfat.ko", img, il);
	assert_int_equal(modfile_analyze(p, &plain), 0);
	assert_true(plain.has_layout);
	assert_int_equal(plain.decompressed_size, il);
	free(p);

	z = gzip_compress(img, il, &zl);
	p = write_path(dir, "vfat.ko.gz", z, zl);
	assert_int_equal(modfile_analyze(p, &mi), 0);
	assert_int_equal(mi.comp, MODFILE_GZIP);
	assert_int_equal(mi.file_size, zl);
	assert_int_equal(mi.decompressed_size, il);
	assert_true(layout_eq(&mi.layout, &plain.layout));
	assert_int_equal(modfile_analyze_flags(p, MODFILE_SIZES, &mi), 0);
	assert_int_equal(mi.decompressed_size, il);
	free(p);
	free(z);

	for (int cs = 0; cs <= 1; cs++) {
		z = zstd_compress(img, il, cs, &zl);
		p = write_path(dir, cs ? "vfat.ko.zst" : "nosize-vfat.ko.zst", z, zl);
		assert_int_equal(ZSTD_getFrameContentSize(z, zl) == ZSTD_CONTENTSIZE_UNKNOWN, !cs);
		assert_int_equal(modfile_analyze(p, &mi), 0);
		assert_int_equal(mi.comp, MODFILE_ZSTD);
		assert_int_equal(mi.decompressed_size, il);
		assert_true(mi.zstd_window_size > 0);
		assert_true(layout_eq(&mi.layout, &plain.layout));
		assert_int_equal(modfile_analyze_flags(p, MODFILE_SIZES, &mi), 0);
		assert_int_equal(mi.decompressed_size, il);
		assert_true(mi.decompressed_exact);
		free(p);
		free(z);
	}

	/* the buffer API sniffs the format and measures the same */
	z = xz_compress_dict(img, il, 1u << 20, &zl);
	assert_int_equal(modfile_analyze_buffer(z, zl, MODFILE_LAYOUT, 0, &mi), 0);
	assert_int_equal(mi.comp, MODFILE_XZ);
	assert_int_equal(mi.decompressed_size, il);
	assert_true(layout_eq(&mi.layout, &plain.layout));
	assert_string_equal(mi.name, plain.name);
	free(z);
	{
		struct modfile_layout l;
		char name[64];
		enum modfile_name_source src;

		assert_int_equal(modfile_layout_elf(img, il, &l, name, &src), 0);
		assert_true(layout_eq(&l, &plain.layout));
		assert_string_equal(name, "vfat");
		assert_int_equal(src, MODFILE_NAME_THIS_MODULE);
	}
	free(img);
	remove_tree(dir);
}

/* ---- hostile files ------------------------------------------------------------------ */

static void expect_fail(const char *dir, const char *name, const void *data, size_t len,
			unsigned int flags, int err)
{
	struct modfile_info mi;
	char *p = write_path(dir, name, data, len);

	assert_int_equal(modfile_analyze_flags(p, flags, &mi), err);
	free(p);
}

static void test_truncated(void **state)
{
	char *dir = make_tmpdir();
	size_t il, zl;
	uint8_t *img = vfat_image(&il), *z;

	(void)state;
	/* xz: the footer and index are at the end, so any cut is seen without decoding */
	z = xz_compress_dict(img, il, 1u << 20, &zl);
	{
		const size_t cuts[] = { 0, 6, 12, 13, zl / 2, zl - 12, zl - 1 };

		for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
			expect_fail(dir, "t.ko.xz", z, cuts[i], MODFILE_SIZES, -EBADMSG);
			expect_fail(dir, "t.ko.xz", z, cuts[i], MODFILE_LAYOUT, -EBADMSG);
		}
	}
	free(z);

	/* zstd without content size: counting reads to the end of the frame */
	z = zstd_compress(img, il, false, &zl);
	expect_fail(dir, "t.ko.zst", z, zl / 2, MODFILE_SIZES, -EBADMSG);
	expect_fail(dir, "t.ko.zst", z, zl - 1, MODFILE_LAYOUT, -EBADMSG);
	expect_fail(dir, "t.ko.zst", z, 5, MODFILE_SIZES, -EBADMSG);	/* header cut */
	free(z);
	/* with content size the header is trusted for sizes; decoding sees the cut */
	z = zstd_compress(img, il, true, &zl);
	expect_fail(dir, "t.ko.zst", z, zl / 2, MODFILE_LAYOUT, -EBADMSG);
	expect_fail(dir, "t.ko.zst", z, 4, MODFILE_SIZES, -EBADMSG);
	free(z);

	/* gzip is always inflated */
	z = gzip_compress(img, il, &zl);
	{
		const size_t cuts[] = { 0, 2, 9, 10, zl / 2, zl - 8 - 1 };

		for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
			expect_fail(dir, "t.ko.gz", z, cuts[i], MODFILE_SIZES, -EBADMSG);
			expect_fail(dir, "t.ko.gz", z, cuts[i], MODFILE_LAYOUT, -EBADMSG);
		}
	}
	free(z);

	/* a plain module cut short: sizes as read, no layout (the kernel says ENOEXEC) */
	{
		struct modfile_info mi;
		char *p = write_path(dir, "t.ko", img, il / 3);

		assert_int_equal(modfile_analyze(p, &mi), 0);
		assert_int_equal(mi.file_size, il / 3);
		assert_false(mi.has_layout);
		assert_int_equal(mi.layout_err, -ENOEXEC);
		free(p);
	}
	free(img);
	remove_tree(dir);
}

static void test_garbage(void **state)
{
	char *dir = make_tmpdir();
	uint8_t junk[8192];
	struct modfile_info mi;
	char *p;

	(void)state;
	srand(4);
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)rand();
	junk[0] = 0x42;	/* no magic by chance */

	/* a name promising a compression the content lacks */
	expect_fail(dir, "g.ko.xz", junk, sizeof(junk), MODFILE_SIZES, -EBADMSG);
	expect_fail(dir, "g.ko.zst", junk, sizeof(junk), MODFILE_SIZES, -EBADMSG);
	expect_fail(dir, "g.ko.gz", junk, sizeof(junk), MODFILE_SIZES, -EBADMSG);

	/* the right magic, then noise */
	memcpy(junk, "\xfd" "7zXZ\0", 6);
	expect_fail(dir, "g.ko.xz", junk, sizeof(junk), MODFILE_SIZES, -EBADMSG);
	expect_fail(dir, "g.ko.xz", junk, sizeof(junk), MODFILE_LAYOUT, -EBADMSG);
	memcpy(junk, "\x28\xb5\x2f\xfd", 4);
	expect_fail(dir, "g.ko.zst", junk, sizeof(junk), MODFILE_LAYOUT, -EBADMSG);
	memcpy(junk, "\x1f\x8b\x08\x00", 4);
	expect_fail(dir, "g.ko.gz", junk, sizeof(junk), MODFILE_SIZES, -EBADMSG);

	/* noise named .ko: a size, no layout */
	junk[0] = 0x42;
	p = write_path(dir, "g.ko", junk, sizeof(junk));
	assert_int_equal(modfile_analyze(p, &mi), 0);
	assert_int_equal(mi.comp, MODFILE_PLAIN);
	assert_int_equal(mi.decompressed_size, sizeof(junk));
	assert_false(mi.has_layout);
	assert_int_equal(mi.layout_err, -ENOEXEC);
	assert_string_equal(mi.name, "g");
	free(p);

	/* an ELF that is no relocatable module: this test program itself */
	{
		size_t len;
		uint8_t *self = read_file("/proc/self/exe", &len);
		struct modfile_layout l;

		assert_int_equal(modfile_layout_elf(self, len, &l, NULL, NULL), -ENOEXEC);
		assert_int_equal(modfile_layout_elf(junk, sizeof(junk), &l, NULL, NULL), -ENOEXEC);
		free(self);
	}

	/* not a regular file, and no file */
	assert_int_equal(modfile_analyze(dir, &mi), -EINVAL);
	p = path_join(dir, "missing.ko");
	assert_int_equal(modfile_analyze(p, &mi), -ENOENT);
	free(p);
	remove_tree(dir);
}

/* Offset and length of the Frame_Content_Size field of a zstd frame header. */
static void zstd_fcs_field(const uint8_t *z, size_t *ret_off, size_t *ret_len)
{
	uint8_t d = z[4];
	unsigned int fcs_flag = d >> 6, single = (d >> 5) & 1, did = d & 3;
	static const size_t did_len[] = { 0, 1, 2, 4 }, fcs_len[] = { 0, 2, 4, 8 };

	*ret_off = 5 + (single ? 0 : 1) + did_len[did];
	*ret_len = fcs_flag == 0 ? (single ? 1 : 0) : fcs_len[fcs_flag];
}

static void test_lying_sizes(void **state)
{
	char *dir = make_tmpdir();
	size_t il, zl;
	uint8_t *img = vfat_image(&il), *z;
	struct modfile_info mi;
	char *p;

	(void)state;
	/* gzip: ISIZE is a hint; the inflated count is the size */
	z = gzip_compress(img, il, &zl);
	z[zl - 4] ^= 0x5a;
	z[zl - 2] ^= 0x01;
	p = write_path(dir, "lie.ko.gz", z, zl);
	assert_int_equal(modfile_analyze_flags(p, MODFILE_SIZES, &mi), 0);
	assert_int_equal(mi.decompressed_size, il);
	assert_int_equal(modfile_analyze(p, &mi), 0);
	assert_int_equal(mi.decompressed_size, il);
	assert_true(mi.has_layout);
	free(p);
	free(z);

	/*
	 * zstd: a Frame_Content_Size that lies is believed by the header-only path (as
	 * documented) and refused by decoding, as the kernel's decoder would.
	 */
	z = zstd_compress(img, il, true, &zl);
	{
		size_t off, len;

		zstd_fcs_field(z, &off, &len);
		assert_true(len >= 2);
		z[off] ^= 0x10;
		assert_int_not_equal(ZSTD_getFrameContentSize(z, zl), il);
		p = write_path(dir, "lie.ko.zst", z, zl);
		assert_int_equal(modfile_analyze_flags(p, MODFILE_SIZES, &mi), 0);
		assert_int_equal(mi.decompressed_size, ZSTD_getFrameContentSize(z, zl));
		assert_int_equal(modfile_analyze(p, &mi), -EBADMSG);
		free(p);
	}
	free(z);

	/*
	 * xz: an index whose uncompressed size lies, with its CRC32 fixed up. The index is
	 * what the cheap path reads; decoding checks the blocks against it.
	 */
	z = xz_compress_dict(img, il, 1u << 20, &zl);
	{
		lzma_stream_flags ff;
		size_t ioff, isz, pos;
		uint32_t crc;
		lzma_vli v;

		assert_int_equal(lzma_stream_footer_decode(&ff, z + zl - 12), LZMA_OK);
		isz = (size_t)ff.backward_size;
		ioff = zl - 12 - isz;
		assert_int_equal(z[ioff], 0x00);	/* index indicator */
		pos = ioff + 1;
		assert_int_equal(lzma_vli_decode(&v, NULL, z, &pos, zl), LZMA_OK);
		assert_int_equal(v, 1);			/* one record */
		assert_int_equal(lzma_vli_decode(&v, NULL, z, &pos, zl), LZMA_OK);	/* unpadded */
		assert_int_equal(lzma_vli_decode(&v, NULL, z, &pos, zl), LZMA_OK);	/* uncompressed */
		assert_int_equal(v, il);
		/* the first byte of the size's varint: flip its lowest bit */
		{
			size_t start = pos - lzma_vli_size(v);

			z[start] ^= 0x01;
		}
		crc = lzma_crc32(z + ioff, isz - 4, 0);
		for (int i = 0; i < 4; i++)
			z[ioff + isz - 4 + i] = (uint8_t)(crc >> (8 * i));
		p = write_path(dir, "lie.ko.xz", z, zl);
		assert_int_equal(modfile_analyze_flags(p, MODFILE_SIZES, &mi), 0);
		assert_int_equal(mi.decompressed_size, il ^ 1);
		assert_int_equal(modfile_analyze(p, &mi), -EBADMSG);
		free(p);
	}
	/* and a flipped byte in the index without fixing the CRC: refused outright */
	z[zl - 12 - 5] ^= 0x40;
	expect_fail(dir, "crc.ko.xz", z, zl, MODFILE_SIZES, -EBADMSG);
	free(z);

	free(img);
	remove_tree(dir);
}

/* ---- cache --------------------------------------------------------------------------- */

struct cache_env {
	char *tmp, *cache, *mod, *mod_path;
};

static void cache_env_init(struct cache_env *e)
{
	size_t il, zl;
	uint8_t *img = vfat_image(&il), *z = xz_compress_dict(img, il, 1u << 20, &zl);

	e->tmp = make_tmpdir();
	e->cache = path_join(e->tmp, "cache/kmodtop");
	e->mod = path_join(e->tmp, "mods");
	assert_int_equal(mkdir(e->mod, 0755), 0);
	e->mod_path = write_path(e->mod, "vfat.ko.xz", z, zl);
	free(z);
	free(img);
}

static void cache_env_done(struct cache_env *e)
{
	free(e->cache);
	free(e->mod);
	free(e->mod_path);
	remove_tree(e->tmp);
}

static enum modfile_cache_status cached(const char *cache, const char *path, unsigned int flags,
					struct modfile_info *mi)
{
	struct modfile_cache *c = NULL;
	enum modfile_cache_status st = MODFILE_CACHE_OFF;

	assert_int_equal(modfile_cache_open(cache, &c), 0);
	assert_int_equal(modfile_cache_analyze(c, path, flags, mi, &st), 0);
	modfile_cache_free(c);
	return st;
}

/* The single pack file in the cache directory. */
static char *pack_path(const char *cache)
{
	DIR *d = opendir(cache);
	struct dirent *e;
	char *found = NULL;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		assert_non_null(strstr(e->d_name, ".mfc"));
		free(found);
		found = path_join(cache, e->d_name);
		n++;
	}
	closedir(d);
	assert_int_equal(n, 1);
	return found;
}

static void test_cache_hit_miss(void **state)
{
	struct cache_env e;
	struct modfile_info direct, a, b;
	struct stat st;

	(void)state;
	cache_env_init(&e);
	assert_int_equal(modfile_analyze(e.mod_path, &direct), 0);

	/* created on first use, parents too, 0700 */
	assert_int_equal(cached(e.cache, e.mod_path, MODFILE_SIZES, &a), MODFILE_CACHE_MISS);
	assert_int_equal(stat(e.cache, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(cached(e.cache, e.mod_path, MODFILE_SIZES, &b), MODFILE_CACHE_HIT);
	assert_true(info_eq(&a, &b));
	assert_false(b.has_layout);

	/* a sizes-only record does not answer a layout question; the layout one answers both */
	assert_int_equal(cached(e.cache, e.mod_path, MODFILE_LAYOUT, &a), MODFILE_CACHE_MISS);
	assert_true(info_eq(&a, &direct));
	assert_int_equal(cached(e.cache, e.mod_path, MODFILE_LAYOUT, &b), MODFILE_CACHE_HIT);
	assert_true(info_eq(&b, &direct));
	assert_int_equal(cached(e.cache, e.mod_path, MODFILE_SIZES, &b), MODFILE_CACHE_HIT);
	assert_true(b.has_layout);

	/* the one-shot API reads the same record */
	assert_int_equal(modfile_analyze_cached(e.mod_path, e.cache, &b), 0);
	assert_true(info_eq(&b, &direct));

	/* a second module in the same directory joins the pack */
	{
		char *p2 = path_join(e.mod, "vfat-copy.ko.xz"), *pk;
		size_t len;
		uint8_t *d = read_file(e.mod_path, &len);
		char *w = write_path(e.mod, "vfat-copy.ko.xz", d, len);

		assert_int_equal(cached(e.cache, p2, MODFILE_LAYOUT, &a), MODFILE_CACHE_MISS);
		assert_string_equal(a.name, "vfat");
		assert_int_equal(cached(e.cache, p2, MODFILE_LAYOUT, &a), MODFILE_CACHE_HIT);
		assert_int_equal(cached(e.cache, e.mod_path, MODFILE_LAYOUT, &a), MODFILE_CACHE_HIT);
		pk = pack_path(e.cache);
		free(pk);
		free(w);
		free(d);
		free(p2);
	}

	/* the file changes: same name, new mtime (and size) */
	{
		struct timespec ts[2] = { { 1, 0 }, { 1, 0 } };
		FILE *f = fopen(e.mod_path, "ae");

		assert_non_null(f);
		fputc(0, f);	/* stream padding would be 4 bytes: this breaks the file */
		fclose(f);
		assert_int_equal(modfile_analyze(e.mod_path, &a), -EBADMSG);
		/* failures are not cached, and do not poison the record */
		{
			struct modfile_cache *c = NULL;
			enum modfile_cache_status s;

			assert_int_equal(modfile_cache_open(e.cache, &c), 0);
			assert_int_equal(modfile_cache_analyze(c, e.mod_path, MODFILE_LAYOUT, &a, &s),
					 -EBADMSG);
			modfile_cache_free(c);
		}
		assert_int_equal(truncate(e.mod_path, (off_t)direct.file_size), 0);
		assert_int_equal(utimensat(AT_FDCWD, e.mod_path, ts, 0), 0);
		assert_int_equal(cached(e.cache, e.mod_path, MODFILE_LAYOUT, &a), MODFILE_CACHE_STALE);
		assert_true(info_eq(&a, &direct));
		assert_int_equal(cached(e.cache, e.mod_path, MODFILE_LAYOUT, &a), MODFILE_CACHE_HIT);
	}
	cache_env_done(&e);
}

static void corrupt_and_check(struct cache_env *e, const struct modfile_info *direct,
			      void (*damage)(const char *pack))
{
	struct modfile_info a;
	char *pk;

	assert_int_equal(cached(e->cache, e->mod_path, MODFILE_LAYOUT, &a), MODFILE_CACHE_HIT);
	pk = pack_path(e->cache);
	damage(pk);
	assert_int_equal(cached(e->cache, e->mod_path, MODFILE_LAYOUT, &a),
			 MODFILE_CACHE_INVALID);
	assert_true(info_eq(&a, direct));
	/* rebuilt */
	assert_int_equal(cached(e->cache, e->mod_path, MODFILE_LAYOUT, &a), MODFILE_CACHE_HIT);
	assert_true(info_eq(&a, direct));
	free(pk);
}

static void damage_flip(const char *pack)
{
	size_t len;
	uint8_t *d = read_file(pack, &len);
	FILE *f;

	d[len / 2] ^= 0x80;	/* a record's bytes: only the CRC can tell */
	f = fopen(pack, "we");
	assert_non_null(f);
	fwrite(d, 1, len, f);
	fclose(f);
	free(d);
}

static void damage_truncate(const char *pack)
{
	struct stat st;

	assert_int_equal(stat(pack, &st), 0);
	assert_int_equal(truncate(pack, st.st_size - 7), 0);
}

static void damage_empty(const char *pack)
{
	assert_int_equal(truncate(pack, 0), 0);
}

static void damage_magic(const char *pack)
{
	FILE *f = fopen(pack, "r+e");

	assert_non_null(f);
	fputs("GARBAGE!", f);
	fclose(f);
}

/* A well-formed pack of another directory under this directory's pack name. */
static void damage_foreign(const char *pack)
{
	struct modfile_cache *c = NULL;
	struct modfile_info mi;
	char *dir = strdup(pack), *other, *mod, *slash;
	size_t len;
	uint8_t *d;

	slash = strrchr(dir, '/');
	*slash = '\0';
	/* build the other pack in a scratch cache, then move it over ours */
	other = path_join(dir, "../other-cache");
	mod = path_join(dir, "../other-mods");
	assert_int_equal(mkdir(mod, 0755), 0);
	{
		char *src = find_file(FX_612 "/lib/modules", "/dummy.ko.xz");
		uint8_t *m;
		char *w;

		assert_non_null(src);
		m = read_file(src, &len);
		w = write_path(mod, "dummy.ko.xz", m, len);
		assert_int_equal(modfile_cache_open(other, &c), 0);
		assert_int_equal(modfile_cache_analyze(c, w, MODFILE_LAYOUT, &mi, NULL), 0);
		modfile_cache_free(c);
		free(w);
		free(m);
		free(src);
	}
	{
		char *opk = pack_path(other);

		d = read_file(opk, &len);
		free(opk);
	}
	{
		FILE *f = fopen(pack, "we");

		assert_non_null(f);
		fwrite(d, 1, len, f);
		fclose(f);
	}
	free(d);
	free(mod);
	free(other);
	free(dir);
}

static void test_cache_corrupt(void **state)
{
	void (*damages[])(const char *) = {
		damage_flip, damage_truncate, damage_empty, damage_magic, damage_foreign,
	};
	struct cache_env e;
	struct modfile_info direct, a;

	(void)state;
	cache_env_init(&e);
	assert_int_equal(modfile_analyze(e.mod_path, &direct), 0);
	assert_int_equal(cached(e.cache, e.mod_path, MODFILE_LAYOUT, &a), MODFILE_CACHE_MISS);
	for (size_t i = 0; i < sizeof(damages) / sizeof(damages[0]); i++)
		corrupt_and_check(&e, &direct, damages[i]);
	cache_env_done(&e);
}

static void test_cache_symlinks(void **state)
{
	struct cache_env e;
	struct modfile_info direct, a;
	struct modfile_cache *c = NULL;
	enum modfile_cache_status st;
	char *victim, *pk, *link_dir, *real_dir;
	size_t vlen;
	uint8_t *v;
	struct stat sb;

	(void)state;
	cache_env_init(&e);
	assert_int_equal(modfile_analyze(e.mod_path, &direct), 0);
	assert_int_equal(cached(e.cache, e.mod_path, MODFILE_LAYOUT, &a), MODFILE_CACHE_MISS);

	/* the pack replaced by a symlink to someone's file: not read, not written through */
	pk = pack_path(e.cache);
	victim = write_path(e.tmp, "victim", "precious\n", 9);
	assert_int_equal(unlink(pk), 0);
	assert_int_equal(symlink(victim, pk), 0);
	assert_int_equal(cached(e.cache, e.mod_path, MODFILE_LAYOUT, &a), MODFILE_CACHE_INVALID);
	assert_true(info_eq(&a, &direct));
	v = read_file(victim, &vlen);
	assert_int_equal(vlen, 9);
	assert_memory_equal(v, "precious\n", 9);
	free(v);
	assert_int_equal(lstat(pk, &sb), 0);
	assert_true(S_ISREG(sb.st_mode));	/* the link itself was replaced */
	assert_int_equal(cached(e.cache, e.mod_path, MODFILE_LAYOUT, &a), MODFILE_CACHE_HIT);

	/* a cache directory that is a symlink is refused: analysed, nothing written */
	real_dir = path_join(e.tmp, "real-cache");
	link_dir = path_join(e.tmp, "link-cache");
	assert_int_equal(mkdir(real_dir, 0700), 0);
	assert_int_equal(symlink(real_dir, link_dir), 0);
	assert_int_equal(modfile_cache_open(link_dir, &c), 0);
	assert_false(modfile_cache_enabled(c));
	assert_int_equal(modfile_cache_error(c), -ELOOP);
	assert_string_equal(modfile_cache_why(c), "is a symbolic link");
	assert_string_equal(modfile_cache_dir(c), link_dir);
	assert_int_equal(modfile_cache_analyze(c, e.mod_path, MODFILE_LAYOUT, &a, &st), 0);
	assert_int_equal(st, MODFILE_CACHE_OFF);
	assert_true(info_eq(&a, &direct));
	modfile_cache_free(c);
	{
		DIR *d = opendir(real_dir);
		struct dirent *de;
		int n = 0;

		assert_non_null(d);
		while ((de = readdir(d)))
			n += de->d_name[0] != '.';
		closedir(d);
		assert_int_equal(n, 0);
	}

	/* writable by others: refused */
	assert_int_equal(chmod(real_dir, 0777), 0);
	assert_int_equal(modfile_cache_open(real_dir, &c), 0);
	assert_false(modfile_cache_enabled(c));
	assert_int_equal(modfile_cache_error(c), -EPERM);
	assert_string_equal(modfile_cache_why(c), "is writable by group or others");
	assert_string_equal(modfile_cache_dir(c), real_dir);
	modfile_cache_free(c);

	/* another user's (only root can make one) */
	assert_int_equal(chmod(real_dir, 0700), 0);
	if (geteuid() == 0 && chown(real_dir, 65534, (gid_t)-1) == 0) {
		assert_int_equal(modfile_cache_open(real_dir, &c), 0);
		assert_false(modfile_cache_enabled(c));
		assert_int_equal(modfile_cache_error(c), -EPERM);
		assert_string_equal(modfile_cache_why(c), "is owned by another user");
		modfile_cache_free(c);
		assert_int_equal(chown(real_dir, 0, (gid_t)-1), 0);
	}
	/* and one of ours is used: the refusals above are not everything refused */
	assert_int_equal(modfile_cache_open(real_dir, &c), 0);
	assert_true(modfile_cache_enabled(c));
	assert_int_equal(modfile_cache_error(c), 0);
	assert_null(modfile_cache_why(c));
	modfile_cache_free(c);

	free(real_dir);
	free(link_dir);
	free(victim);
	free(pk);
	cache_env_done(&e);
}

static void test_cache_default_dir(void **state)
{
	const char *old_x = getenv("XDG_CACHE_HOME"), *old_h = getenv("HOME");
	char *sx = old_x ? strdup(old_x) : NULL, *sh = old_h ? strdup(old_h) : NULL, *d;

	(void)state;
	setenv("XDG_CACHE_HOME", "/x/cache", 1);
	assert_int_equal(modfile_cache_default_dir(&d), 0);
	assert_string_equal(d, "/x/cache/kmodtop");
	free(d);
	setenv("XDG_CACHE_HOME", "relative/cache", 1);	/* invalid per the XDG spec */
	setenv("HOME", "/home/u", 1);
	assert_int_equal(modfile_cache_default_dir(&d), 0);
	assert_string_equal(d, "/home/u/.cache/kmodtop");
	free(d);
	unsetenv("XDG_CACHE_HOME");
	unsetenv("HOME");
	assert_int_equal(modfile_cache_default_dir(&d), -ENOENT);
	{
		struct modfile_cache *c;

		/* no default: a handle that caches nothing and says why */
		assert_int_equal(modfile_cache_open(NULL, &c), 0);
		assert_false(modfile_cache_enabled(c));
		assert_int_equal(modfile_cache_error(c), -ENOENT);
		assert_null(modfile_cache_dir(c));
		assert_non_null(modfile_cache_why(c));
		modfile_cache_free(c);
	}

	if (sx)
		setenv("XDG_CACHE_HOME", sx, 1);
	if (sh)
		setenv("HOME", sh, 1);
	free(sx);
	free(sh);
}

static void test_names(void **state)
{
	char *p = find_file(FX_612 "/lib/modules", "/crc32c-intel.ko.xz");
	struct modfile_info mi;

	(void)state;
	assert_non_null(p);
	assert_int_equal(modfile_analyze_flags(p, MODFILE_SIZES, &mi), 0);
	assert_string_equal(mi.name, "crc32c_intel");
	assert_int_equal(mi.name_source, MODFILE_NAME_FILE);
	assert_int_equal(modfile_analyze(p, &mi), 0);
	assert_string_equal(mi.name, "crc32c_intel");
	assert_int_equal(mi.name_source, MODFILE_NAME_THIS_MODULE);
	free(p);
	assert_string_equal(modfile_comp_name(MODFILE_ZSTD), "zstd");
	assert_string_equal(modfile_mem_type_name(MEMT_RO_AFTER_INIT), "ro_after_init");
}


/*
 * The size cap (max_image) and images that are no ELF file: past the cap an error,
 * whatever the format, and from the size records alone where the format has them;
 * under it, an image of zeros is sized exactly but not laid out.
 */
static void test_image_cap(void **state)
{
	size_t n = 1u << 20, zl;
	uint8_t *zeros = calloc(1, n), *z;
	struct modfile_info mi;

	(void)state;
	assert_non_null(zeros);
	assert_int_equal(modfile_analyze_buffer(zeros, n, MODFILE_LAYOUT, n - 1, &mi), -EFBIG);
	z = gzip_compress(zeros, n, &zl);
	assert_int_equal(modfile_analyze_buffer(z, zl, MODFILE_LAYOUT, n - 1, &mi), -EFBIG);
	assert_int_equal(modfile_analyze_buffer(z, zl, MODFILE_LAYOUT, n, &mi), 0);
	assert_int_equal(mi.decompressed_size, n);
	assert_false(mi.has_layout);
	assert_int_equal(mi.layout_err, -ENOEXEC);
	free(z);
	for (int cs = 0; cs <= 1; cs++) {
		z = zstd_compress(zeros, n, cs, &zl);
		assert_int_equal(modfile_analyze_buffer(z, zl, MODFILE_LAYOUT, n - 1, &mi), -EFBIG);
		assert_int_equal(modfile_analyze_buffer(z, zl, MODFILE_LAYOUT, n, &mi), 0);
		assert_int_equal(mi.decompressed_size, n);
		assert_int_equal(mi.layout_err, -ENOEXEC);
		free(z);
	}
	z = xz_compress_dict(zeros, n, 1u << 20, &zl);
	assert_int_equal(modfile_analyze_buffer(z, zl, MODFILE_SIZES, n - 1, &mi), -EFBIG);
	assert_int_equal(modfile_analyze_buffer(z, zl, MODFILE_LAYOUT, n, &mi), 0);
	assert_int_equal(mi.decompressed_size, n);
	assert_int_equal(mi.layout_err, -ENOEXEC);
	free(z);
	free(zeros);
	/* the default cap: what no module is */
	assert_true(MODFILE_MAX_IMAGE <= (256ull << 20));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes_fixture_files),
		cmocka_unit_test(test_xz_dict_sizes),
		cmocka_unit_test(test_coresize_all_fixtures),
		cmocka_unit_test(test_trace_layout_612),
		cmocka_unit_test(test_trace_layout_61),
		cmocka_unit_test(test_formats_agree),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_lying_sizes),
		cmocka_unit_test(test_cache_hit_miss),
		cmocka_unit_test(test_cache_corrupt),
		cmocka_unit_test(test_cache_symlinks),
		cmocka_unit_test(test_cache_default_dir),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_image_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
