/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* "512 B", "24.0 KiB", "2.47 MiB": IEC units, three significant digits. Returns @buf. */
char *format_bytes(uint64_t bytes, char *buf, size_t bufsz);
