/*
 * tests/vm/truth-preload.c — kmt-truth.so: the boot workload's log of the module loads
 * that kmod's modprobe makes, its own and the kernel's (request_module()'s usermode
 * helper), from inside those processes.
 *
 * Build: gcc -shared -fPIC -O2 -o kmt-truth.so truth-preload.c
 *
 * `workload -w boot` lists this library in /etc/ld.so.preload for the time of its
 * steps, and points /run/kmt-truth.log at its workload.log. The dynamic loader then
 * preloads it into every dynamically linked program, the modprobes the kernel starts
 * with a fixed environment included (no LD_PRELOAD there). It wraps the two ways
 * Debian's kmod 30 loads a module, both through libc: syscall(__NR_finit_module, ...)
 * (an uncompressed file) and init_module() (a decompressed image), makes the call
 * unchanged and appends one line per call to /run/kmt-truth.log when that exists:
 *   TRUTH finit pid= tid=0 module= path= flags= ret= errno= t= comm=
 *   TRUTH init  pid= tid=0 module= path=- len= ret= errno= t= comm=
 * (t = CLOCK_MONOTONIC when the call returned, as workload.c writes it; module = the
 * file's base name for finit_module, the image's .modinfo name= for init_module, '-'
 * and '_' as the kernel spells them). Nothing here reads tracefs: it is a truth that
 * shares nothing with the trace. Every other syscall() goes through untouched.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define TRUTH_LOG "/run/kmt-truth.log"

typedef long (*syscall_fn)(long, ...);

static syscall_fn real_syscall(void)
{
	static syscall_fn fn;

	if (!fn)
		fn = (syscall_fn)dlsym(RTLD_NEXT, "syscall");
	return fn;
}

static double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void comm_of_self(char *buf, size_t len)
{
	int fd = open("/proc/self/comm", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, len - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		n = 0;
	buf[n] = 0;
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = 0;
	for (char *p = buf; *p; p++)
		if (*p == ' ')
			*p = '_';
}

/* the kernel's spelling of a module name: '-' is '_' */
static void kernel_name(char *s)
{
	for (; *s; s++)
		if (*s == '-')
			*s = '_';
}

/* "name=" of the image's .modinfo section; "?" when the image is not one we can read */
static void image_name(const void *img, unsigned long len, char *out, size_t outlen)
{
	const unsigned char *b = img;
	const Elf64_Ehdr *eh = img;
	const Elf64_Shdr *sh, *strs;

	snprintf(out, outlen, "?");
	if (!img || len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff > len || eh->e_shnum > (len - eh->e_shoff) / sizeof(Elf64_Shdr) ||
	    eh->e_shstrndx >= eh->e_shnum)
		return;
	sh = (const Elf64_Shdr *)(b + eh->e_shoff);
	strs = &sh[eh->e_shstrndx];
	if (strs->sh_offset > len || strs->sh_size > len - strs->sh_offset)
		return;
	for (unsigned int i = 0; i < eh->e_shnum; i++) {
		const char *p, *end;

		if (sh[i].sh_name >= strs->sh_size ||
		    strncmp((const char *)b + strs->sh_offset + sh[i].sh_name, ".modinfo",
			    strs->sh_size - sh[i].sh_name) != 0)
			continue;
		if (sh[i].sh_offset > len || sh[i].sh_size > len - sh[i].sh_offset)
			return;
		p = (const char *)b + sh[i].sh_offset;
		end = p + sh[i].sh_size;
		while (p < end) {
			size_t n = strnlen(p, (size_t)(end - p));

			if (n > 5 && strncmp(p, "name=", 5) == 0) {
				snprintf(out, outlen, "%.*s", (int)(n - 5), p + 5);
				kernel_name(out);
				return;
			}
			p += n + 1;
		}
		return;
	}
}

/* the module name of a file: its base name up to ".ko" */
static void file_name(const char *path, char *out, size_t outlen)
{
	const char *base = strrchr(path, '/');
	char *ko;

	snprintf(out, outlen, "%s", base ? base + 1 : path);
	ko = strstr(out, ".ko");
	if (ko)
		*ko = 0;
	kernel_name(out);
	if (!*out)
		snprintf(out, outlen, "?");
}

static void put_line(const char *line)
{
	int fd = open(TRUTH_LOG, O_WRONLY | O_APPEND | O_CLOEXEC);

	if (fd < 0)
		return;
	/* one write on an O_APPEND file: lines of concurrent processes never mix */
	ssize_t w = write(fd, line, strlen(line));

	(void)w;
	close(fd);
}

long syscall(long n, ...)
{
	syscall_fn fn = real_syscall();
	long a[6], r;
	va_list ap;
	int e;

	va_start(ap, n);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	if (n != SYS_finit_module)
		return fn(n, a[0], a[1], a[2], a[3], a[4], a[5]);

	{
		char link[64], path[512], name[512], comm[32], line[1280];
		ssize_t k;
		int saved;

		snprintf(link, sizeof(link), "/proc/self/fd/%d", (int)a[0]);
		k = readlink(link, path, sizeof(path) - 1);
		path[k > 0 ? k : 0] = 0;
		r = fn(n, a[0], a[1], a[2]);
		e = r < 0 ? errno : 0;
		saved = errno;
		file_name(k > 0 ? path : "?", name, sizeof(name));
		comm_of_self(comm, sizeof(comm));
		snprintf(line, sizeof(line),
			 "TRUTH finit pid=%d tid=0 module=%s path=%s flags=%d ret=%ld errno=%d "
			 "t=%.6f comm=%s\n",
			 getpid(), name, k > 0 ? path : "?", (int)a[2], r, e, now_mono(), comm);
		put_line(line);
		errno = saved;
	}
	return r;
}

int init_module(void *image, unsigned long len, const char *args)
{
	syscall_fn fn = real_syscall();
	char name[256], comm[32], line[1024];
	long r;
	int e, saved;

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	image_name(image, len, name, sizeof(name));
	r = fn(SYS_init_module, (long)image, (long)len, (long)args);
	e = r < 0 ? errno : 0;
	saved = errno;
	comm_of_self(comm, sizeof(comm));
	snprintf(line, sizeof(line),
		 "TRUTH init pid=%d tid=0 module=%s path=- len=%lu ret=%ld errno=%d t=%.6f "
		 "comm=%s\n",
		 getpid(), name, len, r, e, now_mono(), comm);
	put_line(line);
	errno = saved;
	return (int)r;
}
