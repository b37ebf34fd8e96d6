/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/io.h"
#include "util/parse-num.h"
#include "journal-klog.h"

/* journalctl's output is read whole; a boot's kernel log is a few MiB */
#define OUTPUT_MAX (512u << 20)
/* a kernel record's text is at most 1 KiB (PRINTKRB_RECORD_MAX); be generous */
#define FIELD_MAX (64u << 10)

struct entry {
	const char *msg;
	size_t msg_len;
	int prio, fac;
	uint64_t usec;
	bool has_source_usec;
	bool not_kernel;
};

static bool field_name_ok(const char *s, size_t n)
{
	if (!n || n > 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

static bool is(const char *name, size_t n, const char *lit)
{
	return n == strlen(lit) && memcmp(name, lit, n) == 0;
}

static void small_int(const char *v, size_t n, int *ret)
{
	uint64_t x;

	if (parse_u64_n(v, n, 10, &x) == 0 && x < 256)
		*ret = (int)x;
}

static void take_field(struct entry *e, const char *name, size_t nlen, const char *v,
		       size_t vlen)
{
	uint64_t u;

	if (is(name, nlen, "MESSAGE")) {
		e->msg = v;
		e->msg_len = vlen;
	} else if (is(name, nlen, "PRIORITY")) {
		small_int(v, vlen, &e->prio);
	} else if (is(name, nlen, "SYSLOG_FACILITY")) {
		small_int(v, vlen, &e->fac);
	} else if (is(name, nlen, "_SOURCE_MONOTONIC_TIMESTAMP")) {
		if (parse_u64_n(v, vlen, 10, &u) == 0) {
			e->usec = u;
			e->has_source_usec = true;
		}
	} else if (is(name, nlen, "__MONOTONIC_TIMESTAMP")) {
		if (!e->has_source_usec && parse_u64_n(v, vlen, 10, &u) == 0)
			e->usec = u;
	} else if (is(name, nlen, "_TRANSPORT")) {
		e->not_kernel = !is(v, vlen, "kernel");
	}
}

/* One record as /dev/kmsg prints it (kernel/printk: msg_add_ext_text()) */
static int emit(int fd, const struct entry *e, uint64_t seq)
{
	static const char hex[] = "0123456789abcdef";
	size_t cap = e->msg_len * 4 + 96, n;
	char *line = malloc(cap);
	int r;

	if (!line)
		return -ENOMEM;
	n = (size_t)snprintf(line, cap, "%d,%" PRIu64 ",%" PRIu64 ",-;",
			     (e->fac & 0xff) << 3 | (e->prio & 7), seq, e->usec);
	for (size_t i = 0; i < e->msg_len; i++) {
		unsigned char c = (unsigned char)e->msg[i];

		if (c < ' ' || c >= 127 || c == '\\') {
			line[n++] = '\\';
			line[n++] = 'x';
			line[n++] = hex[c >> 4];
			line[n++] = hex[c & 15];
		} else {
			line[n++] = (char)c;
		}
	}
	line[n++] = '\n';
	r = fd_write_all(fd, line, n);
	free(line);
	return r;
}

int journal_klog_convert(const char *buf, size_t len, int out_fd, uint64_t *ret_records,
			 const char **reterr_what)
{
	struct entry e = { .prio = 6 };
	bool open = false;
	uint64_t seq = 0;
	size_t pos = 0;
	int r;

	*ret_records = 0;
	while (pos < len) {
		const char *line = buf + pos, *nl = memchr(line, '\n', len - pos), *eq;
		size_t n;

		if (!nl) {
			*reterr_what = "the journal's export ends inside an entry";
			return -EBADMSG;
		}
		n = (size_t)(nl - line);
		pos += n + 1;
		if (n == 0) {
			/* the end of an entry */
			if (open && e.msg && !e.not_kernel) {
				r = emit(out_fd, &e, seq++);
				if (r < 0)
					return r;
			}
			e = (struct entry){ .prio = 6 };
			open = false;
			continue;
		}
		open = true;
		eq = memchr(line, '=', n);
		if (eq) {
			if (!field_name_ok(line, (size_t)(eq - line))) {
				*reterr_what = "not the journal's export format (a bad field name)";
				return -EBADMSG;
			}
			take_field(&e, line, (size_t)(eq - line), eq + 1, (size_t)(nl - eq - 1));
			continue;
		}
		/* a binary field: its name, a 64-bit little-endian size, the data, '\n' */
		{
			uint64_t size = 0;
			const unsigned char *p = (const unsigned char *)buf + pos;

			if (!field_name_ok(line, n) || len - pos < 8) {
				*reterr_what = "not the journal's export format (a bad binary field)";
				return -EBADMSG;
			}
			for (int i = 7; i >= 0; i--)
				size = size << 8 | p[i];
			pos += 8;
			if (size > FIELD_MAX || size >= len - pos || buf[pos + size] != '\n') {
				*reterr_what = "not the journal's export format (a bad binary field size)";
				return -EBADMSG;
			}
			take_field(&e, line, n, buf + pos, (size_t)size);
			pos += (size_t)size + 1;
		}
	}
	if (open && e.msg && !e.not_kernel) {
		r = emit(out_fd, &e, seq++);
		if (r < 0)
			return r;
	}
	*ret_records = seq;
	return 0;
}

/* journalctl's standard output, whole; its exit status */
static int run(const char *journalctl, char *const argv[], char **ret_buf, size_t *ret_len,
	       int *ret_status)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;
	int fds[2], status, r = 0;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		r = -errno;
		close(fds[0]);
		close(fds[1]);
		return r;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (dup2(fds[1], STDOUT_FILENO) < 0 || null < 0 || dup2(null, STDIN_FILENO) < 0 ||
		    dup2(null, STDERR_FILENO) < 0)
			_exit(126);
		execvp(journalctl, argv);
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(fds[1]);
	for (;;) {
		ssize_t n;

		if (cap - len < 65536) {
			char *nb;

			if (cap >= OUTPUT_MAX) {
				r = -EFBIG;
				break;
			}
			nb = realloc(buf, cap ? cap * 2 : 1 << 20);
			if (!nb) {
				r = -ENOMEM;
				break;
			}
			buf = nb;
			cap = cap ? cap * 2 : 1 << 20;
		}
		n = read(fds[0], buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fds[0]);
	if (r < 0)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			status = -1;
			break;
		}
	if (r < 0) {
		free(buf);
		return r;
	}
	*ret_buf = buf;
	*ret_len = len;
	*ret_status = status;
	return 0;
}

int journal_klog_dump(const char *journalctl, const char *journal_dir, const char *boot_id,
		      int out_fd, uint64_t *ret_records, const char **reterr_what)
{
	char dir_arg[4200], *buf = NULL;
	char *argv[12];
	size_t len = 0;
	int n = 0, status = 0, r;

	*ret_records = 0;
	*reterr_what = NULL;
	if (!journalctl)
		journalctl = "journalctl";
	argv[n++] = (char *)journalctl;
	if (journal_dir) {
		if ((size_t)snprintf(dir_arg, sizeof(dir_arg), "--directory=%s", journal_dir) >=
		    sizeof(dir_arg))
			return -ENAMETOOLONG;
		argv[n++] = dir_arg;
	}
	argv[n++] = (char *)"-k";
	argv[n++] = (char *)"-b";
	argv[n++] = (char *)boot_id;
	argv[n++] = (char *)"-o";
	argv[n++] = (char *)"export";
	argv[n++] = (char *)"--output-fields=MESSAGE,PRIORITY,SYSLOG_FACILITY,_TRANSPORT,"
			     "_SOURCE_MONOTONIC_TIMESTAMP";
	argv[n++] = (char *)"--no-pager";
	argv[n] = NULL;
	r = run(journalctl, argv, &buf, &len, &status);
	if (r < 0)
		return r;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		free(buf);
		return -ENOENT;
	}
	/* journalctl fails for a boot it has no entries of: no data, not an error */
	r = journal_klog_convert(buf, len, out_fd, ret_records, reterr_what);
	free(buf);
	if (r < 0)
		return r;
	return *ret_records ? 0 : -ENODATA;
}
