/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <unistd.h>

#include "io.h"

int fd_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
