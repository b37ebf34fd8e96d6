/*
 * tests/vm/workload.c — the module-load workload run inside the test-bed guest.
 *
 * Build: gcc -static -O2 -pthread -o workload workload.c
 *
 * Runs, in order, the steps described in tests/fixtures/README.md ("The workload").
 * Before each step it writes "STEP name" to tracefs trace_marker (top level and every
 * instance) and appends "STEP uptime name" to DIR/steps.log.  Every syscall it makes
 * that matters is logged to DIR/workload.log as one line:
 *   TRUTH finit  pid= tid= path= flags= ret= errno= t=
 *   TRUTH init   pid= tid= path= len= ret= errno= t=
 *   TRUTH socket pid= tid= family= type= proto= ret= errno= t=
 *   TRUTH mount  pid= tid= source= target= type= ret= errno= t=
 *   TRUTH modprobe pid= tid= module= status= t=   (-w boot: a modprobe it ran, exited)
 * and, with -w boot, kmt-truth.so's lines for the modprobes' own calls (module=, comm=).
 * (t = CLOCK_MONOTONIC seconds when the call returned; tid = thread index in the step).
 * Child programs (modprobe, rmmod, mount) write their stderr to the same log.
 * DIR/workload-steps.log gets "STEP name start= end=" per step, in the clock of t=, so
 * that a checker can put every TRUTH line in its step exactly.
 *
 * Each step runs in a child process renamed with prctl(PR_SET_NAME) after a plausible
 * requester ("-c daemons", the default: systemd-udevd, mount.nfs, dkms, NetworkManager,
 * charon, bluetoothd, udisksd) or all named "storm" ("-c storm", like the first captures).
 *
 * "-w storms" runs the second workload instead, of fresh storms on modules the first
 * leaves alone: 100 concurrent finit_module() of dummy while it is not loaded, then 100
 * while it is Live, 32 of btrfs without its dependencies, and 8 modprobe of tun per CPU
 * at once (udev's coldplug, one worker per CPU).
 *
 * "-w boot" runs the third, the boot storm tests/vm/init starts first thing with
 * kmt.boot=1 (tests/vm/check-boot.py), on modules neither other workload touches:
 * boot-coldplug, 4 modprobe per CPU of each of loop, dm-crypt and udf at once (udev's
 * coldplug: the same few modules asked for by a worker per device), and boot-autoload,
 * 2 mounts per CPU of iso9660 and of squashfs at once, each from a process of its own
 * name (udev-worker-N): the kernel's request_module("fs-iso9660"/"fs-squashfs") and
 * the modprobes it starts. The modprobes' own calls are logged by kmt-truth.so
 * (tests/vm/truth-preload.c), which the workload preloads through /etc/ld.so.preload
 * for the time of the steps: TRUTH finit/init lines with module=, in the same log.
 *
 * Usage: workload [-o DIR] [-m MODDIR] [-c daemons|storm] [-M MODPROBE] [-s step,...]
 *                 [-w main|storms|boot] [-l]
 *        workload -K FILE   copy the kernel log records (/dev/kmsg) to FILE and exit
 *   -o DIR     where workload.log, steps.log and snapshots/ go (default .)
 *   -m MODDIR  module tree (default /lib/modules/$(uname -r))
 *   -M PROG    modprobe program of the modprobe-xfs steps (default: the first modprobe in
 *              /sbin, /usr/sbin, /bin, /usr/bin — Debian's kmod in the test bed; busybox's
 *              modprobe tries finit_module(fd, 0) before decompressing, kmod 30 does not)
 *   -s LIST    run only these steps (markers are still written for them only)
 *   -l         list the steps and exit
 * Exit status: 0 when every step ran (syscall failures are expected and logged), 1 on
 * setup errors.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MODULE_INIT_COMPRESSED_FILE
#define MODULE_INIT_COMPRESSED_FILE 4
#endif
#ifndef AF_BLUETOOTH
#define AF_BLUETOOTH 31
#endif
#ifndef PF_KEY
#define PF_KEY 15
#endif
#define PF_KEY_V2 2
#define IPPROTO_SCTP_ 132

static const char *outdir = ".";
static char moddir[512];
static int logfd = -1;
static int steps_fd = -1;
static int bounds_fd = -1;
static int comm_storm;
static char *only_steps;
static const char *modprobe_prog;

static char xfs_path[700], nfs_path[700], dummy_path[700], btrfs_path[700];
static int xfs_flags, nfs_flags, dummy_flags, btrfs_flags;

/* ---- logging ---------------------------------------------------------- */

static double now_mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void logline(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	/* one write per line on an O_APPEND fd: lines from threads never interleave */
	if (write(logfd, buf, n) < 0)
		perror("workload: log write");
}

static void say(const char *fmt, ...)
{
	va_list ap;
	fprintf(stdout, "workload: ");
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

static void read_uptime(char *buf, size_t len)
{
	int fd = open("/proc/uptime", O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, len - 1) : -1;
	char *sp;

	if (fd >= 0)
		close(fd);
	if (n <= 0) {
		snprintf(buf, len, "%.2f", now_mono());
		return;
	}
	buf[n] = 0;
	sp = strchr(buf, ' ');
	if (sp)
		*sp = 0;
}

static void write_marker_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	if (fd < 0)
		return;
	if (write(fd, text, strlen(text)) < 0)
		fprintf(stderr, "workload: write %s: %s\n", path, strerror(errno));
	close(fd);
}

static void marker(const char *name)
{
	static const char *roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char text[256], path[600], up[64];
	const char *root = NULL;
	struct stat st;
	DIR *d;
	struct dirent *de;
	size_t i;

	snprintf(text, sizeof(text), "STEP %s", name);
	for (i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		snprintf(path, sizeof(path), "%s/trace_marker", roots[i]);
		if (stat(path, &st) == 0) {
			root = roots[i];
			break;
		}
	}
	if (root) {
		write_marker_file(path, text);
		snprintf(path, sizeof(path), "%s/instances", root);
		d = opendir(path);
		while (d && (de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/instances/%s/trace_marker", root, de->d_name);
			write_marker_file(path, text);
		}
		if (d)
			closedir(d);
	}
	read_uptime(up, sizeof(up));
	dprintf(steps_fd, "STEP %s %s\n", up, name);
	say("STEP %s (uptime %s)", name, up);
}

/* ---- helpers ---------------------------------------------------------- */

static void set_comm(const char *daemon)
{
	prctl(PR_SET_NAME, comm_storm ? "storm" : daemon, 0, 0, 0);
}

/* run argv in a child with stderr (and stdout) going to the log; returns exit status */
static int run(const char *comm, char *const argv[])
{
	pid_t pid = fork();
	int st = 0;

	if (pid < 0) {
		perror("workload: fork");
		return -1;
	}
	if (pid == 0) {
		dup2(logfd, 2);
		dup2(logfd, 1);
		if (comm)
			prctl(PR_SET_NAME, comm, 0, 0, 0);
		execv(argv[0], argv);
		dprintf(2, "workload: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static const char *find_tool(const char *name)
{
	static char buf[4][128];
	static int slot;
	static const char *dirs[] = { "/sbin", "/usr/sbin", "/bin", "/usr/bin" };
	char *b = buf[slot++ & 3];
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(b, sizeof(buf[0]), "%s/%s", dirs[i], name);
		if (access(b, X_OK) == 0)
			return b;
	}
	snprintf(b, sizeof(buf[0]), "/sbin/%s", name);
	return b;
}

/* fork a child for a step, named like its requester; the parent waits */
typedef void (*step_body)(void *arg);

static void in_child(const char *daemon, step_body body, void *arg)
{
	pid_t pid = fork();
	int st;

	if (pid < 0) {
		perror("workload: fork");
		return;
	}
	if (pid == 0) {
		set_comm(daemon);
		body(arg);
		_exit(0);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
}

/* ---- threads ---------------------------------------------------------- */

enum kind { K_FINIT, K_INIT, K_SOCKET };

struct storm {
	enum kind kind;
	int nthreads;
	double seconds;   /* loop until this long after the start; 0 = one call each */
	const char *path;
	int flags;
	int family, type, proto;
	int keep_fds;     /* sockets: keep them open until the step ends */
	pthread_barrier_t barrier;
	double deadline;
	void *image;      /* K_INIT: the file's bytes */
	size_t image_len;
};

struct targ {
	struct storm *s;
	int idx;
	int fds[4];
	int nfds;
};

static void do_finit(struct storm *s, int idx)
{
	int fd = open(s->path, O_RDONLY | O_CLOEXEC);
	long r;
	int e;

	if (fd < 0) {
		logline("TRUTH open pid=%d tid=%d path=%s ret=-1 errno=%d t=%.6f",
			getpid(), idx, s->path, errno, now_mono());
		return;
	}
	r = syscall(SYS_finit_module, fd, "", s->flags);
	e = r < 0 ? errno : 0;
	logline("TRUTH finit pid=%d tid=%d path=%s flags=%d ret=%ld errno=%d t=%.6f",
		getpid(), idx, s->path, s->flags, r, e, now_mono());
	close(fd);
}

static void do_init(struct storm *s, int idx)
{
	long r = syscall(SYS_init_module, s->image, (unsigned long)s->image_len, "");
	int e = r < 0 ? errno : 0;

	logline("TRUTH init pid=%d tid=%d path=%s len=%zu ret=%ld errno=%d t=%.6f",
		getpid(), idx, s->path, s->image_len, r, e, now_mono());
}

static int do_socket(struct storm *s, int idx)
{
	int fd = socket(s->family, s->type, s->proto);
	int e = fd < 0 ? errno : 0;

	logline("TRUTH socket pid=%d tid=%d family=%d type=%d proto=%d ret=%d errno=%d t=%.6f",
		getpid(), idx, s->family, s->type, s->proto, fd < 0 ? -1 : 0, e, now_mono());
	return fd;
}

static void *thread_main(void *p)
{
	struct targ *t = p;
	struct storm *s = t->s;

	pthread_barrier_wait(&s->barrier);
	do {
		switch (s->kind) {
		case K_FINIT:
			do_finit(s, t->idx);
			break;
		case K_INIT:
			do_init(s, t->idx);
			break;
		case K_SOCKET: {
			int fd = do_socket(s, t->idx);
			if (fd >= 0 && s->keep_fds && t->nfds < 4)
				t->fds[t->nfds++] = fd;
			else if (fd >= 0)
				close(fd);
			break;
		}
		}
	} while (s->seconds > 0 && now_mono() < s->deadline);
	return NULL;
}

static void run_storm(void *arg)
{
	struct storm *s = arg;
	static pthread_t th[128];
	static struct targ ta[128];
	int i, j, n = s->nthreads > 128 ? 128 : s->nthreads;

	pthread_barrier_init(&s->barrier, NULL, n);
	s->deadline = now_mono() + s->seconds;
	for (i = 0; i < n; i++) {
		ta[i].s = s;
		ta[i].idx = i;
		ta[i].nfds = 0;
		if (pthread_create(&th[i], NULL, thread_main, &ta[i]) != 0) {
			fprintf(stderr, "workload: pthread_create failed\n");
			exit(1);
		}
	}
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < n; i++)
		for (j = 0; j < ta[i].nfds; j++)
			close(ta[i].fds[j]);
}

/* ---- files ------------------------------------------------------------ */

static int file_compressed(const char *p)
{
	size_t n = strlen(p);
	return (n > 3 && !strcmp(p + n - 3, ".xz")) || (n > 3 && !strcmp(p + n - 3, ".gz")) ||
	       (n > 4 && !strcmp(p + n - 4, ".zst"));
}

/* flags for finit_module of this file: MODULE_INIT_COMPRESSED_FILE when it is compressed
 * and the kernel decompresses that format itself (/sys/module/compression) */
static int flags_for(const char *p)
{
	char c[32] = "";
	int fd, n;
	size_t len = strlen(p);

	if (!file_compressed(p))
		return 0;
	fd = open("/sys/module/compression", O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, c, sizeof(c) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	c[n] = 0;
	if ((!strncmp(c, "xz", 2) && !strcmp(p + len - 3, ".xz")) ||
	    (!strncmp(c, "gzip", 4) && !strcmp(p + len - 3, ".gz")) ||
	    (!strncmp(c, "zstd", 4) && !strcmp(p + len - 4, ".zst")))
		return MODULE_INIT_COMPRESSED_FILE;
	return 0;
}

static int find_module_file(const char *rel, char *out, size_t outlen)
{
	static const char *sfx[] = { "", ".xz", ".zst", ".gz" };
	size_t i;

	for (i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		snprintf(out, outlen, "%s/%s%s", moddir, rel, sfx[i]);
		if (access(out, R_OK) == 0)
			return 0;
	}
	out[0] = 0;
	return -1;
}

static void *slurp(const char *p, size_t *len)
{
	int fd = open(p, O_RDONLY);
	struct stat st;
	char *buf;
	size_t got = 0;

	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	buf = malloc(st.st_size ? st.st_size : 1);
	while (buf && got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, st.st_size - got);
		if (r <= 0)
			break;
		got += r;
	}
	close(fd);
	*len = got;
	return buf;
}

static void snapshot(const char *src, const char *name)
{
	char dst[700];
	int fd;

	/* /proc files report st_size 0: read in a loop */
	fd = open(src, O_RDONLY);
	if (fd < 0)
		return;
	snprintf(dst, sizeof(dst), "%s/snapshots/%s", outdir, name);
	{
		int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		char buf[65536];
		ssize_t r;
		while (out >= 0 && (r = read(fd, buf, sizeof(buf))) > 0)
			if (write(out, buf, r) != r)
				break;
		if (out >= 0)
			close(out);
	}
	close(fd);
}

/* ---- steps ------------------------------------------------------------ */

static void step_modprobe_xfs(void)
{
	char *argv[] = { (char *)(modprobe_prog ? modprobe_prog : find_tool("modprobe")), "xfs", NULL };
	int st = run(NULL, argv);
	say("%s xfs: exit %d", argv[0], st);
}

static void step_storm_xfs(int seconds, const char *daemon)
{
	struct storm s = { .kind = K_FINIT, .nthreads = 8, .seconds = seconds,
			   .path = xfs_path, .flags = xfs_flags };
	if (!xfs_path[0]) {
		say("no xfs module file: step skipped");
		return;
	}
	in_child(daemon, run_storm, &s);
}

static void step_storm_live_xfs(void)
{
	step_storm_xfs(2, "systemd-udevd");
	snapshot("/proc/vmallocinfo", "vmallocinfo.after-live-storm");
}

static void step_rmmod_xfs(void)
{
	char *argv[] = { (char *)find_tool("rmmod"), "xfs", NULL };
	int st = run(NULL, argv);
	say("rmmod xfs: exit %d", st);
}

static void step_storm_fresh_xfs(void)
{
	step_storm_xfs(2, "systemd-udevd");
}

static void step_missing_deps_nfs(void)
{
	struct storm s = { .kind = K_FINIT, .nthreads = 2, .seconds = 1,
			   .path = nfs_path, .flags = nfs_flags };
	if (!nfs_path[0]) {
		say("no nfs module file: step skipped");
		return;
	}
	in_child("mount.nfs", run_storm, &s);
}

static void step_bad_garbage(void)
{
	static const char *gpath = "/tmp/garbage.ko";
	struct storm s = { .kind = K_FINIT, .nthreads = 1, .path = gpath, .flags = 0 };
	char buf[4096];
	int fd, rnd, i;

	mkdir("/tmp", 01777);
	fd = open(gpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	rnd = open("/dev/urandom", O_RDONLY);
	if (fd < 0) {
		say("cannot create %s: %s", gpath, strerror(errno));
		return;
	}
	for (i = 0; i < 25; i++) { /* 100 KiB of random bytes */
		if (rnd < 0 || read(rnd, buf, sizeof(buf)) != sizeof(buf)) {
			size_t k;
			for (k = 0; k < sizeof(buf); k++)
				buf[k] = (char)(rand() & 0xff);
		}
		buf[0] = i ? buf[0] : 0x42; /* never a valid ELF magic */
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			break;
	}
	close(fd);
	if (rnd >= 0)
		close(rnd);
	in_child("dkms", run_storm, &s);
}

static void step_bad_raw_compressed_init(void)
{
	struct storm s = { .kind = K_INIT, .nthreads = 1, .path = xfs_path };

	if (!xfs_path[0])
		return;
	s.image = slurp(xfs_path, &s.image_len);
	if (!s.image) {
		say("cannot read %s", xfs_path);
		return;
	}
	in_child("dkms", run_storm, &s);
	free(s.image);
}

static void step_bad_compressed_noflag(void)
{
	struct storm s = { .kind = K_FINIT, .nthreads = 1, .path = nfs_path, .flags = 0 };

	if (!nfs_path[0] || !file_compressed(nfs_path)) {
		say("modules are not compressed: no call in this step");
		return;
	}
	in_child("dkms", run_storm, &s);
}

static void step_socket(const char *daemon, int n, int family, int type, int proto)
{
	struct storm s = { .kind = K_SOCKET, .nthreads = n, .family = family, .type = type,
			   .proto = proto, .keep_fds = 1 };
	in_child(daemon, run_storm, &s);
}

static void step_autoload_sctp_storm(void)
{
	step_socket("NetworkManager", 16, AF_INET, SOCK_STREAM, IPPROTO_SCTP_);
}

static void step_autoload_af_key(void)
{
	step_socket("charon", 4, PF_KEY, SOCK_RAW, PF_KEY_V2);
}

static void step_autoload_missing_bt(void)
{
	step_socket("bluetoothd", 6, AF_BLUETOOTH, SOCK_SEQPACKET, 0);
}

static void mount_body(void *arg)
{
	int r, e;
	(void)arg;
	r = mount("/dev/null", "/mnt", "vfat", MS_RDONLY, NULL);
	e = r < 0 ? errno : 0;
	logline("TRUTH mount pid=%d tid=0 source=/dev/null target=/mnt type=vfat ret=%d errno=%d t=%.6f",
		getpid(), r, e, now_mono());
	if (r == 0)
		umount("/mnt");
}

static void step_autoload_vfat(void)
{
	mkdir("/mnt", 0755);
	if (comm_storm) {
		/* as in the first captures: busybox mount, its error message in the log */
		char *argv[] = { (char *)find_tool("mount"), "-t", "vfat", "/dev/null", "/mnt", NULL };
		int st = run(NULL, argv);
		say("mount -t vfat: exit %d", st);
		if (st == 0) {
			char *uargv[] = { (char *)find_tool("umount"), "/mnt", NULL };
			run(NULL, uargv);
		}
		return;
	}
	in_child("udisksd", mount_body, NULL);
}

/* ---- the second workload (-w storms) ------------------------------------- */

static void storm_once(const char *daemon, int n, const char *path, int flags)
{
	struct storm s = { .kind = K_FINIT, .nthreads = n, .path = path, .flags = flags };

	if (!path[0]) {
		say("no module file: step skipped");
		return;
	}
	in_child(daemon, run_storm, &s);
}

static void step_storm100_fresh_dummy(void)
{
	storm_once("systemd-udevd", 100, dummy_path, dummy_flags);
}

static void step_storm100_live_dummy(void)
{
	storm_once("systemd-udevd", 100, dummy_path, dummy_flags);
}

static void step_storm_missing_deps_btrfs(void)
{
	storm_once("mount.btrfs", 32, btrfs_path, btrfs_flags);
}

/* udev's coldplug: a worker per CPU, each running modprobe for the same alias */
static void modprobe_per_cpu_body(void *arg)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int n = (int)(ncpu > 0 ? ncpu : 1) * 8, st;
	pid_t pids[1024];
	const char *mp = modprobe_prog ? modprobe_prog : find_tool("modprobe");

	(void)arg;
	if (n > 1024)
		n = 1024;
	for (int i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			char *argv[] = { (char *)mp, "tun", NULL };

			dup2(logfd, 2);
			dup2(logfd, 1);
			execv(argv[0], argv);
			_exit(127);
		}
	}
	for (int i = 0; i < n; i++)
		if (pids[i] > 0)
			while (waitpid(pids[i], &st, 0) < 0 && errno == EINTR)
				;
	say("%d modprobe tun at once", n);
}

static void step_modprobe_per_cpu_tun(void)
{
	in_child("systemd-udevd", modprobe_per_cpu_body, NULL);
}


/* ---- the third workload (-w boot): a boot storm ------------------------------ */

#define BOOT_PER_CPU 4          /* coldplug: modprobes per CPU of each module */
#define BOOT_MOUNTS_PER_CPU 2   /* autoload: requesters per CPU of each fs type */
#define TRUTH_SO "/lib/kmt-truth.so"
#define TRUTH_LINK "/run/kmt-truth.log"
#define PRELOAD "/etc/ld.so.preload"

static const char *const coldplug_modules[] = { "loop", "dm-crypt", "udf" };
static const char *const autoload_types[] = { "iso9660", "squashfs" };

static int ncpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

/* kmt-truth.so in every dynamically linked program from now on (the kernel's
 * modprobes too), writing to this run's workload.log */
static int truth_on(void)
{
	char log[700];
	int fd;

	if (access(TRUTH_SO, R_OK) != 0) {
		say("no %s: the modprobes' calls are not logged", TRUTH_SO);
		return -1;
	}
	snprintf(log, sizeof(log), "%s/workload.log", outdir);
	if (outdir[0] != '/') {
		char cwd[512];
		if (getcwd(cwd, sizeof(cwd)))
			snprintf(log, sizeof(log), "%s/%s/workload.log", cwd, outdir);
	}
	mkdir("/run", 0755);
	unlink(TRUTH_LINK);
	if (symlink(log, TRUTH_LINK) != 0) {
		say("symlink %s: %s", TRUTH_LINK, strerror(errno));
		return -1;
	}
	fd = open(PRELOAD, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || dprintf(fd, "%s\n", TRUTH_SO) < 0) {
		say("%s: %s", PRELOAD, strerror(errno));
		if (fd >= 0)
			close(fd);
		unlink(TRUTH_LINK);
		return -1;
	}
	close(fd);
	return 0;
}

static void truth_off(void)
{
	unlink(PRELOAD);
	unlink(TRUTH_LINK);
}

/* fork n children that wait on a pipe; closing it starts them all at once */
struct gate {
	int fd[2];
};

static void gate_wait(struct gate *g)
{
	char c;
	close(g->fd[1]);
	while (read(g->fd[0], &c, 1) < 0 && errno == EINTR)
		;
	close(g->fd[0]);
}

static void coldplug_body(void *arg)
{
	int per = ncpus() * BOOT_PER_CPU, nmod = sizeof(coldplug_modules) / sizeof(coldplug_modules[0]);
	int n = per * nmod, st;
	pid_t pids[1024];
	const char *mods[1024];
	const char *mp = modprobe_prog ? modprobe_prog : find_tool("modprobe");
	struct gate g;

	(void)arg;
	if (n > 1024)
		n = 1024;
	if (pipe(g.fd) != 0) {
		say("pipe: %s", strerror(errno));
		return;
	}
	/* interleaved: loop, dm-crypt, udf, loop, ... as udev's workers pick up devices */
	for (int i = 0; i < n; i++) {
		mods[i] = coldplug_modules[i % nmod];
		pids[i] = fork();
		if (pids[i] == 0) {
			char *argv[] = { (char *)mp, (char *)mods[i], NULL };

			gate_wait(&g);
			dup2(logfd, 2);
			dup2(logfd, 1);
			execv(argv[0], argv);
			_exit(127);
		}
	}
	close(g.fd[0]);
	close(g.fd[1]);
	for (int i = 0; i < n; i++) {
		if (pids[i] <= 0)
			continue;
		while (waitpid(pids[i], &st, 0) < 0 && errno == EINTR)
			;
		logline("TRUTH modprobe pid=%d tid=%d module=%s status=%d t=%.6f", pids[i], i,
			mods[i], WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), now_mono());
	}
	say("%d modprobe at once (%d per CPU of each of %d modules)", n, BOOT_PER_CPU, nmod);
}

static void step_boot_coldplug(void)
{
	in_child("systemd-udevd", coldplug_body, NULL);
}

static void boot_mount(int idx, const char *type)
{
	char target[64];
	int r, e;

	snprintf(target, sizeof(target), "/mnt/kmt-boot-%d", idx);
	r = mount("/dev/null", target, type, MS_RDONLY, NULL);
	e = r < 0 ? errno : 0;
	logline("TRUTH mount pid=%d tid=%d source=/dev/null target=%s type=%s ret=%d errno=%d t=%.6f",
		getpid(), idx, target, type, r, e, now_mono());
	if (r == 0)
		umount(target);
}

static void step_boot_autoload(void)
{
	int per = ncpus() * BOOT_MOUNTS_PER_CPU;
	int nt = sizeof(autoload_types) / sizeof(autoload_types[0]);
	int n = per * nt, st;
	pid_t pids[256];
	struct gate g;

	if (n > 256)
		n = 256;
	mkdir("/mnt", 0755);
	for (int i = 0; i < n; i++) {
		char target[64];
		snprintf(target, sizeof(target), "/mnt/kmt-boot-%d", i);
		mkdir(target, 0755);
	}
	if (pipe(g.fd) != 0) {
		say("pipe: %s", strerror(errno));
		return;
	}
	for (int i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			char comm[16];

			/* a requester of its own name, as udev names its workers */
			snprintf(comm, sizeof(comm), "udev-worker-%d", i);
			prctl(PR_SET_NAME, comm_storm ? "storm" : comm, 0, 0, 0);
			gate_wait(&g);
			boot_mount(i, autoload_types[i % nt]);
			_exit(0);
		}
	}
	close(g.fd[0]);
	close(g.fd[1]);
	for (int i = 0; i < n; i++)
		if (pids[i] > 0)
			while (waitpid(pids[i], &st, 0) < 0 && errno == EINTR)
				;
	for (int i = 0; i < n; i++) {
		char target[64];
		snprintf(target, sizeof(target), "/mnt/kmt-boot-%d", i);
		rmdir(target);
	}
	say("%d mounts at once (%d per CPU of each of %d types)", n, BOOT_MOUNTS_PER_CPU, nt);
}

/*
 * Waiters a signal wakes: one call loads xfs, others ask for the same file while it
 * does, and SIGALRM reaches them before it is done. 6.5+ parks them in
 * idempotent_wait_for_completion(), which returns EINTR; 6.1 has each read and lay out
 * the module itself and then wait in add_unformed_module() for the leader's to form,
 * which returns ERESTARTSYS (EINTR here: the handler has no SA_RESTART). kmodtop must
 * name and class every one (check-run.py).
 */
static void on_alarm(int sig)
{
	(void)sig;
}

static void interrupted_body(void *arg)
{
	struct storm s = { .kind = K_FINIT, .path = xfs_path, .flags = xfs_flags };
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	pid_t leader, w[16];
	int n = 2 * ncpus(), st;

	(void)arg;
	if (n > 16)
		n = 16;
	/* before the forks: a signal that comes early must not kill a waiter */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	leader = fork();
	if (leader == 0) {
		do_finit(&s, 0);
		_exit(0);
	}
	/* the leader reads first; the waiters come while it decompresses and lays out */
	usleep(5000);
	for (int i = 0; i < n; i++) {
		w[i] = fork();
		if (w[i] == 0) {
			do_finit(&s, i + 1);
			_exit(0);
		}
	}
	usleep(40000);
	for (int i = 0; i < n; i++)
		if (w[i] > 0)
			kill(w[i], SIGALRM);
	for (int i = 0; i < n; i++)
		if (w[i] > 0)
			while (waitpid(w[i], &st, 0) < 0 && errno == EINTR)
				;
	if (leader > 0)
		while (waitpid(leader, &st, 0) < 0 && errno == EINTR)
			;
	say("%d waiters signalled during a load of xfs", n);
}

static void step_interrupted_waiters(void)
{
	if (!xfs_path[0]) {
		say("no xfs module file: step skipped");
		return;
	}
	/* xfs Live since storm-fresh-xfs: unload it so that the leader loads */
	step_rmmod_xfs();
	in_child("systemd-udevd", interrupted_body, NULL);
}

static const struct step_desc {
	const char *name;
	void (*fn)(void);
} storm_steps[] = {
	{ "storm100-fresh-dummy", step_storm100_fresh_dummy },
	{ "storm100-live-dummy", step_storm100_live_dummy },
	{ "storm-missing-deps-btrfs", step_storm_missing_deps_btrfs },
	{ "modprobe-per-cpu-tun", step_modprobe_per_cpu_tun },
};

static const struct step_desc boot_steps[] = {
	{ "boot-coldplug", step_boot_coldplug },
	{ "boot-autoload", step_boot_autoload },
};

static const struct step_desc main_steps[] = {
	{ "modprobe-xfs", step_modprobe_xfs },
	{ "modprobe-xfs-again", step_modprobe_xfs },
	{ "storm-live-xfs", step_storm_live_xfs },
	{ "rmmod-xfs", step_rmmod_xfs },
	{ "storm-fresh-xfs", step_storm_fresh_xfs },
	{ "missing-deps-nfs", step_missing_deps_nfs },
	{ "bad-garbage", step_bad_garbage },
	{ "bad-raw-compressed-init", step_bad_raw_compressed_init },
	{ "bad-compressed-noflag", step_bad_compressed_noflag },
	{ "autoload-sctp-storm", step_autoload_sctp_storm },
	{ "autoload-af-key", step_autoload_af_key },
	{ "autoload-missing-bt", step_autoload_missing_bt },
	{ "autoload-vfat", step_autoload_vfat },
	{ "interrupted-waiters", step_interrupted_waiters },
};

static const struct step_desc *steps = main_steps;
static size_t n_steps = sizeof(main_steps) / sizeof(main_steps[0]);

static int wanted(const char *name)
{
	const char *p;
	size_t n = strlen(name);

	if (!only_steps)
		return 1;
	for (p = only_steps; (p = strstr(p, name)); p += n)
		if ((p == only_steps || p[-1] == ',') && (p[n] == 0 || p[n] == ','))
			return 1;
	return 0;
}

/* copy every /dev/kmsg record ("prio,seq,usec,flags;message") to a file */
static int dump_kmsg(const char *dst)
{
	char buf[8192];
	int in = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (in < 0 || out < 0) {
		fprintf(stderr, "workload: kmsg: %s\n", strerror(errno));
		return 1;
	}
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));
		if (n > 0) {
			if (write(out, buf, n) != n)
				return 1;
			continue;
		}
		if (n < 0 && errno == EPIPE) /* records overwritten: go on */
			continue;
		if (n < 0 && errno == EINTR)
			continue;
		break;
	}
	close(in);
	close(out);
	return 0;
}

static void usage(int rc)
{
	fprintf(rc ? stderr : stdout,
		"usage: workload [-o DIR] [-m MODDIR] [-c daemons|storm] [-M MODPROBE] [-s step,...]\n"
		"                [-w main|storms|boot] [-l]\n"
		"       workload -K FILE\n");
	exit(rc);
}

int main(int argc, char **argv)
{
	char path[700];
	struct utsname u;
	size_t i;
	int c;

	moddir[0] = 0;
	while ((c = getopt(argc, argv, "o:m:c:M:s:w:lhK:")) != -1) {
		switch (c) {
		case 'o': outdir = optarg; break;
		case 'm': snprintf(moddir, sizeof(moddir), "%s", optarg); break;
		case 'c':
			if (!strcmp(optarg, "storm"))
				comm_storm = 1;
			else if (strcmp(optarg, "daemons"))
				usage(2);
			break;
		case 's': only_steps = optarg; break;
		case 'w':
			if (!strcmp(optarg, "storms")) {
				steps = storm_steps;
				n_steps = sizeof(storm_steps) / sizeof(storm_steps[0]);
			} else if (!strcmp(optarg, "boot")) {
				steps = boot_steps;
				n_steps = sizeof(boot_steps) / sizeof(boot_steps[0]);
			} else if (strcmp(optarg, "main")) {
				usage(2);
			}
			break;
		case 'M': modprobe_prog = optarg; break;
		case 'l':
			for (i = 0; i < n_steps; i++)
				printf("%s\n", steps[i].name);
			return 0;
		case 'h': usage(0); break;
		case 'K': return dump_kmsg(optarg);
		default: usage(2);
		}
	}
	if (!moddir[0]) {
		if (uname(&u) < 0) {
			perror("workload: uname");
			return 1;
		}
		snprintf(moddir, sizeof(moddir), "/lib/modules/%s", u.release);
	}
	signal(SIGPIPE, SIG_IGN);
	mkdir(outdir, 0755);
	snprintf(path, sizeof(path), "%s/snapshots", outdir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/workload.log", outdir);
	logfd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	snprintf(path, sizeof(path), "%s/steps.log", outdir);
	steps_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	snprintf(path, sizeof(path), "%s/workload-steps.log", outdir);
	bounds_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (logfd < 0 || steps_fd < 0 || bounds_fd < 0) {
		fprintf(stderr, "workload: cannot open logs in %s: %s\n", outdir, strerror(errno));
		return 1;
	}

	find_module_file("kernel/fs/xfs/xfs.ko", xfs_path, sizeof(xfs_path));
	find_module_file("kernel/fs/nfs/nfs.ko", nfs_path, sizeof(nfs_path));
	find_module_file("kernel/drivers/net/dummy.ko", dummy_path, sizeof(dummy_path));
	find_module_file("kernel/fs/btrfs/btrfs.ko", btrfs_path, sizeof(btrfs_path));
	xfs_flags = xfs_path[0] ? flags_for(xfs_path) : 0;
	nfs_flags = nfs_path[0] ? flags_for(nfs_path) : 0;
	dummy_flags = dummy_path[0] ? flags_for(dummy_path) : 0;
	btrfs_flags = btrfs_path[0] ? flags_for(btrfs_path) : 0;
	say("modules in %s; xfs=%s flags=%d; nfs=%s flags=%d; comm style %s", moddir,
	    xfs_path[0] ? xfs_path : "(none)", xfs_flags, nfs_path[0] ? nfs_path : "(none)",
	    nfs_flags, comm_storm ? "storm" : "daemons");

	if (steps == boot_steps && truth_on() == 0)
		say("the modprobes' calls go to %s/workload.log (%s)", outdir, TRUTH_SO);
	for (i = 0; i < n_steps; i++) {
		double t0;
		if (!wanted(steps[i].name))
			continue;
		t0 = now_mono();
		marker(steps[i].name);
		steps[i].fn();
		dprintf(bounds_fd, "STEP %s start=%.6f end=%.6f\n", steps[i].name, t0, now_mono());
	}
	if (steps == boot_steps)
		truth_off();
	/* step names are keys for the checkers: the second and third workloads end apart */
	marker(steps == storm_steps ? "storms-done" : steps == boot_steps ? "boot-done" : "done");
	return 0;
}
