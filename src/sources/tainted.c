/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <string.h>

#include "util/macro.h"
#include "util/parse-num.h"
#include "tainted.h"

#define TAINTED_PATH "proc/sys/kernel/tainted"

/* kernel/panic.c taint_flags[], bit order */
static const char taint_letters[] = "PFSRMBUDAWCIOELKXTNJ";

int tainted_parse(const char *s, uint64_t *ret)
{
	char buf[32];
	size_t n = strlen(s);

	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
		n--;
	if (n == 0 || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return parse_u64(buf, 10, ret);
}

int tainted_read(const struct kt_root *root, uint64_t *ret, struct kt_err *reterr)
{
	_cleanup_free_ char *data = NULL;
	size_t len;
	int r;

	r = root_read_file(root, TAINTED_PATH, 64, &data, &len);
	if (r == -EFBIG) {
		kt_err_set(reterr, TAINTED_PATH, 1, "value too long");
		return -EINVAL;
	}
	if (r < 0) {
		kt_err_set(reterr, TAINTED_PATH, 0, NULL);
		return r;
	}
	if (memchr(data, '\0', len) || tainted_parse(data, ret) < 0) {
		kt_err_set(reterr, TAINTED_PATH, 1, "value is not a number");
		return -EINVAL;
	}
	return 0;
}

char *tainted_letters(uint64_t mask, char *buf, size_t bufsz)
{
	size_t o = 0;

	for (unsigned int bit = 0; bit < 64 && o + 1 < bufsz; bit++) {
		if (!(mask & (1ull << bit)))
			continue;
		buf[o++] = bit < sizeof(taint_letters) - 1 ? taint_letters[bit] : '?';
	}
	buf[o] = '\0';
	return buf;
}
