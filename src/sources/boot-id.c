/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "util/macro.h"
#include "boot-id.h"

#define BOOT_ID_PATH "proc/sys/kernel/random/boot_id"

int boot_id_parse(const char *s, size_t len, char ret[BOOT_ID_LEN + 1])
{
	if (len && s[len - 1] == '\n')
		len--;
	if (len && s[len - 1] == '\r')	/* a copy made on another system */
		len--;
	if (len != BOOT_ID_LEN)
		return -EINVAL;
	/* 8-4-4-4-12 hex digits, as the kernel prints a UUID */
	for (size_t i = 0; i < len; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;
		bool hex = (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f');

		if (dash ? s[i] != '-' : !hex)
			return -EINVAL;
	}
	memcpy(ret, s, len);
	ret[len] = '\0';
	return 0;
}

int boot_id_read(const struct kt_root *root, char ret[BOOT_ID_LEN + 1],
		 struct kt_err *reterr)
{
	_cleanup_free_ char *data = NULL;
	size_t len;
	int r;

	r = root_read_file(root, BOOT_ID_PATH, 64, &data, &len);
	if (r == -EFBIG) {
		kt_err_set(reterr, BOOT_ID_PATH, 1, "value too long");
		return -EINVAL;
	}
	if (r < 0) {
		kt_err_set(reterr, BOOT_ID_PATH, 0, NULL);
		return r;
	}
	if (boot_id_parse(data, len, ret) < 0) {
		kt_err_set(reterr, BOOT_ID_PATH, 1, "not a UUID");
		return -EINVAL;
	}
	return 0;
}
