/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * Helpers shared by the libFuzzer targets (built by build.sh with clang) and by their
 * regression runner (regress.c, built by automake with the configured compiler).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken promise of the API is a finding too: crash so libFuzzer keeps the input. */
#define CHECK(x) ((x) ? (void)0 : abort())

static inline unsigned int fuzz_count_lines(const char *s, size_t len)
{
	unsigned int n = 0;

	for (size_t i = 0; i < len; i++)
		n += s[i] == '\n';
	return n + (len && s[len - 1] != '\n');
}

/* A copy of @len bytes plus a NUL, in a block of exactly that size: ASan sees overreads. */
static inline char *fuzz_dup(const void *p, size_t len)
{
	char *s = malloc(len + 1);

	if (!s)
		return NULL;
	memcpy(s, p, len);
	s[len] = '\0';
	return s;
}

/* Does the piece [s, s + n) lie inside [base, base + len]? An empty piece always does. */
static inline bool fuzz_within(const char *s, size_t n, const char *base, size_t len)
{
	return n == 0 || (s && s >= base && s + n <= base + len);
}

/* Reads every byte of a piece, so ASan sees a dangling or overlong one. */
static inline unsigned int fuzz_touch(const char *s, size_t n)
{
	volatile unsigned int sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += (unsigned char)s[i];
	return sum;
}

/* An anonymous file holding @data, positioned at its start: -1 on failure. */
static inline int fuzz_memfd(const void *data, size_t size)
{
	const char *p = data;
	int fd = memfd_create("fuzz", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	while (size > 0) {
		ssize_t n = write(fd, p, size);

		if (n <= 0) {
			close(fd);
			return -1;
		}
		p += n;
		size -= (size_t)n;
	}
	if (lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}
