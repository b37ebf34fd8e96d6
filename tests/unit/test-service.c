/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What kmodtop-boot.service relies on: the readiness datagram the manager waits for
 * (util/service-notify.c) and the bundle's move from /run to /var/lib/kmodtop
 * (util/tree-move.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/service-notify.h"
#include "util/tree-move.h"

/* A datagram socket bound to @path ("@NAME": abstract), as the manager's is */
static int bound_socket(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len = strlen(path);
	socklen_t salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_true(len < sizeof(sa.sun_path));
	memcpy(sa.sun_path, path, len);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	else
		salen++;
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, salen), 0);
	return fd;
}

static void assert_received(int fd, const char *want)
{
	char buf[512];
	ssize_t n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);

	assert_true(n >= 0);
	buf[n] = '\0';
	assert_string_equal(buf, want);
}

static void test_notify_path(void **state)
{
	char dir[] = "/tmp/kmodtop-notify-XXXXXX", path[128];
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/notify", dir);
	fd = bound_socket(path);
	assert_int_equal(service_notify_to(path, "READY=1\nSTATUS=recording"), 1);
	assert_received(fd, "READY=1\nSTATUS=recording");
	/* through the environment, as the manager passes it */
	setenv("NOTIFY_SOCKET", path, 1);
	assert_int_equal(service_notify("STOPPING=1"), 1);
	assert_received(fd, "STOPPING=1");
	unsetenv("NOTIFY_SOCKET");
	close(fd);
	unlink(path);
	rmdir(dir);
}

static void test_notify_abstract(void **state)
{
	char name[64];
	int fd;

	(void)state;
	snprintf(name, sizeof(name), "@kmodtop-test-notify-%ld", (long)getpid());
	fd = bound_socket(name);
	assert_int_equal(service_notify_to(name, "READY=1"), 1);
	assert_received(fd, "READY=1");
	/* neither a path nor '@': not an address of this protocol */
	assert_int_equal(service_notify_to(name + 1, "READY=1"), -EAFNOSUPPORT);
	close(fd);
}

static void test_notify_unset(void **state)
{
	(void)state;
	unsetenv("NOTIFY_SOCKET");
	assert_int_equal(service_notify("READY=1"), 0);
	assert_int_equal(service_notify_to(NULL, "READY=1"), 0);
	assert_int_equal(service_notify_to("", "READY=1"), 0);
}

static void test_notify_bad_address(void **state)
{
	struct sockaddr_un sa;
	char longpath[sizeof(sa.sun_path) + 2];

	(void)state;
	/* a path that leaves no room for its NUL, an abstract name longer than sun_path */
	memset(longpath, 'x', sizeof(longpath) - 1);
	longpath[sizeof(longpath) - 1] = '\0';
	longpath[0] = '/';
	longpath[sizeof(sa.sun_path)] = '\0';
	assert_int_equal(service_notify_to(longpath, "READY=1"), -EINVAL);
	longpath[sizeof(sa.sun_path)] = 'x';
	longpath[0] = '@';
	assert_int_equal(service_notify_to(longpath, "READY=1"), -EINVAL);
	assert_int_equal(service_notify_to("@", "READY=1"), -EINVAL);
	assert_int_equal(service_notify_to("vsock:2:1234", "READY=1"), -EAFNOSUPPORT);
	/* a path where nothing listens: the send's error */
	assert_int_equal(service_notify_to("/nonexistent/kmodtop/notify", "READY=1"), -ENOENT);
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void assert_file(const char *path, const char *want)
{
	char buf[256];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n >= 0);
	buf[n] = '\0';
	assert_string_equal(buf, want);
}

/*
 * /dev/shm is a tmpfs as /run is, and most often not the file system of /var/tmp:
 * there the copy is taken; the rename otherwise, and the result must be the same.
 */
static void move_between(const char *base_from, const char *base_to)
{
	char from[320], to[320], path[512], tmpl_from[256], tmpl_to[256];
	char link[64];
	struct stat st;
	ssize_t n;

	snprintf(tmpl_from, sizeof(tmpl_from), "%s/kmodtop-move-XXXXXX", base_from);
	snprintf(tmpl_to, sizeof(tmpl_to), "%s/kmodtop-move-XXXXXX", base_to);
	assert_non_null(mkdtemp(tmpl_from));
	assert_non_null(mkdtemp(tmpl_to));
	snprintf(from, sizeof(from), "%s/boot-1", tmpl_from);
	snprintf(to, sizeof(to), "%s/boot-1", tmpl_to);
	assert_int_equal(mkdir(from, 0755), 0);
	snprintf(path, sizeof(path), "%s/capture", from);
	assert_int_equal(mkdir(path, 0750), 0);
	snprintf(path, sizeof(path), "%s/capture/trace.txt", from);
	write_file(path, "trace\n", 0640);
	snprintf(path, sizeof(path), "%s/empty", from);
	write_file(path, "", 0644);
	snprintf(path, sizeof(path), "%s/link", from);
	assert_int_equal(symlink("capture/trace.txt", path), 0);

	assert_int_equal(tree_move(from, to), 0);
	assert_int_equal(stat(from, &st), -1);
	snprintf(path, sizeof(path), "%s/capture/trace.txt", to);
	assert_file(path, "trace\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	snprintf(path, sizeof(path), "%s/capture", to);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0750);
	snprintf(path, sizeof(path), "%s/empty", to);
	assert_file(path, "");
	snprintf(path, sizeof(path), "%s/link", to);
	n = readlink(path, link, sizeof(link) - 1);
	assert_int_equal(n, (ssize_t)strlen("capture/trace.txt"));
	link[n] = '\0';
	assert_string_equal(link, "capture/trace.txt");

	/* a target that is there already is not written into */
	assert_int_equal(mkdir(from, 0755), 0);
	assert_int_not_equal(tree_move(from, to), 0);
	assert_int_equal(stat(from, &st), 0);

	assert_int_equal(tree_remove(tmpl_from), 0);
	assert_int_equal(tree_remove(tmpl_to), 0);
	assert_int_equal(stat(tmpl_to, &st), -1);
}

static void test_move_same_fs(void **state)
{
	(void)state;
	move_between("/tmp", "/tmp");
}

static void test_move_across(void **state)
{
	struct stat a, b;

	(void)state;
	if (stat("/dev/shm", &a) < 0 || stat("/var/tmp", &b) < 0 || a.st_dev == b.st_dev) {
		/* the copy itself, from a file system to another, is what this would test */
		skip();
	}
	move_between("/dev/shm", "/var/tmp");
}

static void test_remove_missing(void **state)
{
	(void)state;
	assert_int_equal(tree_remove("/nonexistent/kmodtop-tree"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_notify_path),
		cmocka_unit_test(test_notify_abstract),
		cmocka_unit_test(test_notify_unset),
		cmocka_unit_test(test_notify_bad_address),
		cmocka_unit_test(test_move_same_fs),
		cmocka_unit_test(test_move_across),
		cmocka_unit_test(test_remove_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
