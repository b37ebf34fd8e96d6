/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench/modsizes: sizes every module file under the given directories through
 * cost/modfile.c, the way a kmodtop scan does, for bench/sizes.sh to time.
 *
 *	bench/modsizes [--layout] [--cache DIR | --no-cache] [--verbose] DIR|FILE...
 *
 * Prints one summary line (files, errors, bytes) and with --verbose one line per file.
 * Exit status 0, or 1 when any file failed.
 */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cost/modfile.h"

static struct {
	unsigned int flags;
	bool verbose;
	struct modfile_cache *cache;
	size_t files, errors, hits;
	uint64_t file_bytes, image_bytes, dict_bytes, layout_bytes;
} g;

static bool is_module(const char *path)
{
	static const char *const suffixes[] = { ".ko", ".ko.xz", ".ko.zst", ".ko.gz" };
	size_t n = strlen(path);

	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t l = strlen(suffixes[i]);

		if (n >= l && strcmp(path + n - l, suffixes[i]) == 0)
			return true;
	}
	return false;
}

static void one(const char *path, const struct stat *sb)
{
	enum modfile_cache_status st = MODFILE_CACHE_OFF;
	struct modfile_info mi;
	int r;

	g.files++;
	if (g.cache)
		r = modfile_cache_analyze_stat(g.cache, path, sb, g.flags, &mi, &st);
	else
		r = modfile_analyze_flags(path, g.flags, &mi);
	if (r < 0) {
		g.errors++;
		fprintf(stderr, "modsizes: %s: %s\n", path, strerror(-r));
		return;
	}
	g.hits += st == MODFILE_CACHE_HIT;
	g.file_bytes += mi.file_size;
	g.image_bytes += mi.decompressed_size;
	g.dict_bytes += mi.xz_dict_size;
	if (mi.has_layout)
		for (int t = 0; t < _MEMT_MAX; t++)
			g.layout_bytes += mi.layout.mem[t];
	if (!g.verbose)
		return;
	printf("%s %s cache=%d file=%" PRIu64 " image=%" PRIu64 " dict=%" PRIu64 " name=%s", path,
	       modfile_comp_name(mi.comp), (int)st, mi.file_size, mi.decompressed_size, mi.xz_dict_size,
	       mi.name);
	if (mi.has_layout) {
		for (int t = 0; t < _MEMT_MAX; t++)
			printf(" %s=%" PRIu64, modfile_mem_type_name(t), mi.layout.mem[t]);
		printf(" core=%" PRIu64 " init=%" PRIu64 " coresize64=%" PRIu64
		       " initsize64=%" PRIu64,
		       mi.layout.core_size, mi.layout.init_size, mi.layout.sysfs_coresize_64,
		       mi.layout.sysfs_initsize_64);
	} else if (g.flags & MODFILE_LAYOUT) {
		printf(" layout=%s", strerror(-mi.layout_err));
	}
	putchar('\n');
}

/*
 * A lean walk (no nftw: it stats every directory twice): one fstatat() per module file,
 * whose result feeds modfile_cache_analyze_stat(), so a cache hit costs nothing more.
 */
static void walk(int dfd, char *path, size_t len, size_t cap)
{
	struct dirent *e;
	DIR *d;

	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		struct stat st;

		if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
			continue;
		if (len + 1 + l + 1 > cap)
			continue;
		path[len] = '/';
		memcpy(path + len + 1, e->d_name, l + 1);
		if (e->d_type == DT_DIR) {
			int sub = openat(dirfd(d), e->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (sub >= 0)
				walk(sub, path, len + 1 + l, cap);
		} else if ((e->d_type == DT_REG || e->d_type == DT_UNKNOWN) && is_module(e->d_name) &&
			   fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			if (S_ISREG(st.st_mode))
				one(path, &st);
		}
		path[len] = '\0';
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "layout", no_argument, NULL, 'l' },
		{ "cache", required_argument, NULL, 'c' },
		{ "no-cache", no_argument, NULL, 'n' },
		{ "verbose", no_argument, NULL, 'v' },
		{}
	};
	const char *cache_dir = NULL;
	bool use_cache = true;
	int c;

	while ((c = getopt_long(argc, argv, "lc:nv", opts, NULL)) >= 0) {
		switch (c) {
		case 'l':
			g.flags |= MODFILE_LAYOUT;
			break;
		case 'c':
			cache_dir = optarg;
			use_cache = true;
			break;
		case 'n':
			use_cache = false;
			break;
		case 'v':
			g.verbose = true;
			break;
		default:
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: %s [--layout] [--cache DIR|--no-cache] [--verbose] DIR...\n",
			argv[0]);
		return 2;
	}
	if (use_cache) {
		if (modfile_cache_open(cache_dir, &g.cache) < 0) {
			fprintf(stderr, "modsizes: out of memory\n");
			return 1;
		}
		if (!modfile_cache_enabled(g.cache))
			fprintf(stderr, "modsizes: cache refused: %s\n",
				strerror(-modfile_cache_error(g.cache)));
	}
	for (int i = optind; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			char path[PATH_MAX];
			size_t l = strlen(argv[i]);
			int dfd;

			if (l >= sizeof(path))
				continue;
			memcpy(path, argv[i], l + 1);
			while (l > 1 && path[l - 1] == '/')
				path[--l] = '\0';
			dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (dfd >= 0)
				walk(dfd, path, l, sizeof(path));
		} else
			one(argv[i], NULL);
	}
	printf("files=%zu errors=%zu cache_hits=%zu file_bytes=%" PRIu64 " image_bytes=%" PRIu64
	       " xz_dict_bytes=%" PRIu64 " layout_bytes=%" PRIu64 "\n",
	       g.files, g.errors, g.hits, g.file_bytes, g.image_bytes, g.dict_bytes,
	       g.layout_bytes);
	modfile_cache_free(g.cache);
	return g.errors ? 1 : 0;
}
