/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <stdio.h>

#include "units.h"

char *format_bytes(uint64_t bytes, char *buf, size_t bufsz)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	int u = -1;

	if (bytes < 1024) {
		snprintf(buf, bufsz, "%" PRIu64 " B", bytes);
		return buf;
	}
	while (v >= 1024.0 && u < 5) {
		v /= 1024.0;
		u++;
	}
	/* 1023.99 KiB would print as "1024 KiB": move up a unit instead */
	if (v >= 999.5 && u < 5) {
		v /= 1024.0;
		u++;
	}
	snprintf(buf, bufsz, v < 9.995 ? "%.2f %s" : v < 99.95 ? "%.1f %s" : "%.0f %s", v,
		 unit[u]);
	return buf;
}
