/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "util/service-notify.h"

int service_notify_to(const char *socket_path, const char *state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len, slen = strlen(state);
	socklen_t salen;
	ssize_t n;
	int fd, r;

	if (!socket_path || !socket_path[0])
		return 0;
	if (socket_path[0] != '/' && socket_path[0] != '@')
		return -EAFNOSUPPORT;
	len = strlen(socket_path);
	/* a path needs its NUL; an abstract name has none and may fill sun_path */
	if (len > sizeof(sa.sun_path) - (socket_path[0] == '/') || len < 2)
		return -EINVAL;
	memcpy(sa.sun_path, socket_path, len);
	if (sa.sun_path[0] == '@') {
		/* the abstract name is exactly its bytes: the address length says where it ends */
		sa.sun_path[0] = '\0';
		salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len);
	} else {
		salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len + 1);
	}
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* the manager takes the sender's credentials from the socket (SO_PASSCRED) */
	n = sendto(fd, state, slen, MSG_NOSIGNAL, (const struct sockaddr *)&sa, salen);
	r = n < 0 ? -errno : (size_t)n == slen ? 1 : -EMSGSIZE;
	close(fd);
	return r;
}

int service_notify(const char *state)
{
	return service_notify_to(getenv("NOTIFY_SOCKET"), state);
}
