/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Runs one fuzz target's LLVMFuzzerTestOneInput() on files, without libFuzzer: the
 * crashes found by fuzzing (tests/fuzz/regressions/NAME/) and the hand-made seeds
 * (tests/fuzz/seeds/NAME/) in every `make check`, with the configured compiler, and
 * under valgrind and the sanitizers when those runs build it.
 *
 *	tests/fuzz/regress-NAME			those two folders
 *	tests/fuzz/regress-NAME FILE|DIR...	reproduces a crash without clang
 *
 * Built once per target with -DFUZZ_NAME='"NAME"' and -DFUZZ_DIR (the source folder).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path)
{
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	FILE *f = fopen(path, "rb");

	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	for (;;) {
		size_t n;

		if (len == cap) {
			uint8_t *nb;

			cap = cap ? cap * 2 : 65536;
			nb = realloc(buf, cap);
			if (!nb) {
				fclose(f);
				free(buf);
				return -1;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	fclose(f);
	/* libFuzzer's buffers are exactly as long as the input: so is this one */
	{
		uint8_t *exact = malloc(len ? len : 1);

		if (!exact) {
			free(buf);
			return -1;
		}
		memcpy(exact, buf, len);
		free(buf);
		printf("%s (%zu bytes)\n", path, len);
		fflush(stdout);
		LLVMFuzzerTestOneInput(exact, len);
		free(exact);
	}
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file in @dir, in name order; a missing folder has none. */
static int run_path(const char *path, unsigned int *count, bool missing_ok)
{
	struct stat st;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0;
	int r = 0;
	DIR *d;

	if (stat(path, &st) < 0) {
		if (missing_ok && errno == ENOENT)
			return 0;
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		(*count)++;
		return run_file(path);
	}
	d = opendir(path);
	if (!d) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		char **nn;

		if (de->d_name[0] == '.')
			continue;
		nn = realloc(names, (n + 1) * sizeof(*names));
		if (!nn || asprintf(&nn[n], "%s/%s", path, de->d_name) < 0) {
			names = nn ? nn : names;
			r = -1;
			break;
		}
		names = nn;
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), name_cmp);
	for (size_t i = 0; i < n; i++) {
		if (r == 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
			(*count)++;
			r = run_file(names[i]);
		}
		free(names[i]);
	}
	free(names);
	return r;
}

int main(int argc, char **argv)
{
	unsigned int count = 0;
	int r = 0;

	if (argc > 1) {
		for (int i = 1; i < argc && r == 0; i++)
			r = run_path(argv[i], &count, false);
	} else {
		r = run_path(FUZZ_DIR "/regressions/" FUZZ_NAME, &count, true);
		if (r == 0)
			r = run_path(FUZZ_DIR "/seeds/" FUZZ_NAME, &count, true);
	}
	printf("fuzz-%s: %u inputs\n", FUZZ_NAME, count);
	return r < 0 ? 99 : 0;
}
