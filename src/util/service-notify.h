/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The service manager's readiness protocol (sd_notify(3), a stable interface): one
 * AF_UNIX datagram holding "READY=1", "STOPPING=1", "STATUS=..." lines, sent to the
 * socket named by $NOTIFY_SOCKET ("@NAME": NAME in the abstract namespace). Written
 * here in a few lines because libsystemd is not one of kmodtop's libraries.
 */

/*
 * Sends @state to @socket_path. 1 when sent; 0 when @socket_path is NULL or "" (not
 * run by a service manager that listens); -EINVAL for a name that does not fit a
 * socket address, -EAFNOSUPPORT for one that is neither a path nor "@NAME" (systemd's
 * "vsock:" addresses), or the -errno of the send.
 */
int service_notify_to(const char *socket_path, const char *state);

/* service_notify_to() the socket in $NOTIFY_SOCKET */
int service_notify(const char *state);
