/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>

/* Writes all of @p, going on after short writes and EINTR. 0 or -errno. */
int fd_write_all(int fd, const void *p, size_t len);
