/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kmodtop boot-setup: the kernel command line that traces module loads from the
 * kernel's start (output/boot-cmdline.h says what each word does and why the global
 * buffer), and with --apply / --remove the grub drop-in that adds it.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/boot-cmdline.h"
#include "output/output.h"
#include "sources/vmlinuz.h"
#include "util/atomic-file.h"
#include "util/io.h"
#include "util/log.h"
#include "cmd/cmd.h"
#include "session/setup-plan.h"

#define GRUB_DIR "etc/default/grub.d"
#define GRUB_DROPIN GRUB_DIR "/kmodtop.cfg"

enum {
	OPT_CMDLINE = OPT_CMD_BASE,
	OPT_APPLY,
	OPT_REMOVE,
	OPT_VMLINUZ,
};

static void boot_setup_usage(FILE *f)
{
	fputs("Usage: kmodtop [OPTIONS] boot-setup [--cmdline] [--vmlinuz FILE] [-j]\n"
	      "       kmodtop [OPTIONS] boot-setup --apply | --remove\n"
	      "\n"
	      "Print the kernel command line that traces module loads from the kernel's start\n"
	      "(trace_event=, kprobe_event= for the naming probes, trace_buf_size=,\n"
	      "trace_options=) into the global trace buffer, and how to add it; after the\n"
	      "reboot, `kmodtop report --boot` reads the capture.\n"
	      "\n"
	      "The probes' offsets come from the kernel's BTF: the running kernel's\n"
	      "/sys/kernel/btf/vmlinux, or for another release (--kernel-release) the\n"
	      "boot image /boot/vmlinuz-RELEASE.\n"
	      "\n"
	      "Options:\n"
	      "      --cmdline       print the command line alone, on one line\n"
	      "      --vmlinuz FILE  take the BTF from this kernel image\n"
	      "      --apply         write the grub drop-in " "/" GRUB_DROPIN "\n"
	      "                      (then run update-grub)\n"
	      "      --remove        delete that drop-in (then run update-grub)\n"
	      "  -h, --help          show this help\n"
	      "\n"
	      "The global options (--root, --kernel-release, -j, -p) may also follow the\n"
	      "command. Exit status: 0 done, 1 no BTF or a file could not be read or\n"
	      "written, 2 bad command line.\n",
	      f);
}

/* The release the root runs: its osrelease, else (live) uname. Caller frees. */
static char *running_release(const struct global_opts *g)
{
	char *r = NULL;

	return setup_plan_release(g->root, &r) < 0 ? NULL : r;
}

/* --vmlinuz FILE, else ROOT/boot/vmlinuz-RELEASE */
static int read_image_btf(const struct global_opts *g, const char *file, const char *release,
			  struct kernel_btf **ret, char **ret_path)
{
	const char *why = NULL;
	char rel[300];
	int fd, r;

	if (file) {
		*ret_path = strdup(file);
		fd = input_open(file, ROOT_STREAM_MAX);
		errno = fd < 0 ? -fd : 0;
	} else {
		struct kt_root *root;

		snprintf(rel, sizeof(rel), "boot/vmlinuz-%s", release);
		r = root_new(g->root ? g->root : "/", &root);
		if (r < 0)
			return r;
		r = root_abspath(root, rel, ret_path);
		fd = r < 0 ? -1 : root_open(root, rel, O_RDONLY | O_CLOEXEC);
		root_free(root);
		if (r < 0)
			return r;
		if (fd < 0) {
			log_error("'%s': %s: the BTF of a kernel that is not running comes from its "
				  "boot image (--vmlinuz FILE)", *ret_path, strerror(-fd));
			return fd;
		}
	}
	if (!*ret_path) {
		if (fd >= 0)
			close(fd);
		return -ENOMEM;
	}
	if (fd < 0) {
		r = -errno;
		log_error("'%s': %s", *ret_path, strerror(-r));
		return r;
	}
	r = vmlinuz_btf_read(fd, ret, &why);
	close(fd);
	if (r < 0)
		log_error("'%s': %s%s%s", *ret_path, why ? why : strerror(-r),
			  why && r != -ENOENT ? ": " : "", why && r != -ENOENT ? strerror(-r) : "");
	return r;
}

/*
 * Whether the drop-in is there, and if so whether kmodtop wrote it: only then may
 * --apply replace it or --remove delete it. 0 (*ret_there false: none), -EEXIST
 * another's file, or -errno when it cannot be read.
 */
static int dropin_check(const struct kt_root *root, bool *ret_there)
{
	char *text = NULL;
	size_t len;
	int r;

	*ret_there = false;
	r = root_read_file(root, GRUB_DROPIN, 1u << 20, &text, &len);
	if (r == -ENOENT)
		return 0;
	*ret_there = true;
	if (r < 0)
		return r;
	r = strncmp(text, BOOT_CMDLINE_GRUB_MARK, strlen(BOOT_CMDLINE_GRUB_MARK)) == 0 ? 0
										  : -EEXIST;
	free(text);
	return r;
}

static void log_dropin_error(const char *path, int r)
{
	if (r == -EEXIST)
		log_error("'%s': not written by kmodtop boot-setup: left as it is", path);
	else
		log_error("'%s': %s", path, strerror(-r));
}

static int apply(const struct setup_plan *sp, const char *cmdline)
{
	struct atomic_file *af = NULL;
	char *dir = NULL, *path = NULL;
	bool old;
	int r;

	r = root_abspath(sp->root, GRUB_DIR, &dir);
	if (r >= 0)
		r = root_abspath(sp->root, GRUB_DROPIN, &path);
	if (r < 0)
		goto out;
	if (!root_exists(sp->root, "etc/default")) {
		log_error("'%s': no /etc/default: is grub installed? Add the command line by "
			  "hand (kmodtop boot-setup prints it)", dir);
		r = -ENOENT;
		goto out;
	}
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		r = -errno;
		log_error("'%s': %s", dir, strerror(-r));
		goto out;
	}
	r = dropin_check(sp->root, &old);
	if (r < 0) {
		log_dropin_error(path, r);
		goto out;
	}
	r = atomic_file_new(path, 0644, &af);
	if (r >= 0)
		r = boot_cmdline_write_grub(atomic_file_stream(af), cmdline, sp->release);
	if (r == -EINVAL) {
		log_error("the command line holds a quote or a backslash that a grub drop-in "
			  "cannot carry: add it by hand");
		goto out;
	}
	if (r >= 0)
		r = atomic_file_commit(af);
	if (r < 0) {
		log_error("'%s': %s", path, strerror(-r));
		goto out;
	}
	printf("%s %s: GRUB_CMDLINE_LINUX_DEFAULT gets\n  %s\n", old ? "replaced" : "wrote",
	       path, cmdline);
	printf("Run update-grub (or grub-mkconfig -o /boot/grub/grub.cfg) and reboot; then\n"
	       "kmodtop report --boot. kmodtop boot-setup --remove undoes it.\n");
out:
	atomic_file_free(af);
	free(dir);
	free(path);
	return r < 0 ? EXIT_ERROR : EXIT_OK;
}

static int remove_dropin(const struct global_opts *g)
{
	struct kt_root *root = NULL;
	char *path = NULL;
	bool there;
	int r;

	r = root_new(g->root ? g->root : "/", &root);
	if (r >= 0)
		r = root_abspath(root, GRUB_DROPIN, &path);
	if (r < 0) {
		log_error("'%s': %s", g->root ? g->root : "/", strerror(-r));
		goto out;
	}
	r = dropin_check(root, &there);
	if (r < 0) {
		log_dropin_error(path, r);
		goto out;
	}
	if (!there) {
		printf("%s: not there, nothing to remove\n", path);
		goto out;
	}
	if (unlink(path) < 0) {
		r = -errno;
		log_error("'%s': %s", path, strerror(-r));
		goto out;
	}
	printf("removed %s\nRun update-grub (or grub-mkconfig -o /boot/grub/grub.cfg) for the\n"
	       "next boot to go without the boot capture.\n", path);
out:
	free(path);
	root_free(root);
	return r < 0 ? EXIT_ERROR : EXIT_OK;
}

static int print_json(const struct global_opts *g, const struct setup_plan *sp,
		      const char *btf_from, const char *cmdline)
{
	static const struct col_desc missing_cols[] = {
		{ "WHY", "why", COL_STR, 0, "a probe left out, and why" },
	};
	struct table *t = NULL;
	struct out *o;
	size_t row;
	int r;

	r = out_new(OUT_JSON, g->pretty, stdout, &o);
	if (r < 0)
		return r;
	out_str(o, "release", NULL, sp->release);
	out_str(o, "btf", NULL, btf_from);
	out_str(o, "cmdline", NULL, cmdline);
	out_u64(o, "cmdline_length", NULL, strlen(cmdline));
	out_u64(o, "cmdline_max", NULL, BOOT_CMDLINE_MAX);
	out_u64(o, "buffer_kb_per_cpu", NULL, BOOT_CMDLINE_BUF_KB);
	out_section_begin(o, "probes", NULL);
	for (size_t i = 0; i < sp->ss.n_probes; i++)
		out_str(o, sp->probes[i].event, NULL, sp->probes[i].symbol);
	out_section_end(o);
	/* an array, one object a probe left out: [{"why": "kmodtop_name on ...: ..."}] */
	r = table_new(missing_cols, 1, &t);
	for (size_t i = 0; r >= 0 && i < sp->ss.n_missing; i++) {
		r = table_add_row(t, &row);
		if (r >= 0)
			r = table_set_str(t, row, 0, sp->missing[i]);
	}
	if (r < 0) {
		table_free(t);
		out_free(o);
		return r;
	}
	out_table(o, "missing_probes", NULL, t);
	table_free(t);
	out_str(o, "grub_dropin", NULL, "/" GRUB_DROPIN);
	r = out_finish(o);
	out_free(o);
	return r;
}

static void print_text(const struct setup_plan *sp, const char *btf_from, const char *cmdline)
{
	printf("# kmodtop boot capture for %s (probe offsets from %s)\n",
	       sp->release ? sp->release : "this kernel", btf_from);
	printf("# The kernel command line words, %zu characters:\n\n%s\n\n", strlen(cmdline),
	       cmdline);
	printf("# They trace module loads, failed and repeated ones, and who asked, from the\n"
	       "# kernel's start into the global trace buffer (%u KiB per CPU; a full buffer\n"
	       "# keeps the boot's start). After the reboot: kmodtop report --boot\n"
	       "#\n"
	       "# To add them:\n"
	       "#   grub (Debian, Ubuntu):  kmodtop boot-setup --apply; update-grub\n"
	       "#                           (a drop-in, /" GRUB_DROPIN ")\n"
	       "#   grubby (Fedora, RHEL):  grubby --update-kernel=ALL --args=\"...\"\n"
	       "#   systemd-boot:           append them to /etc/kernel/cmdline, then\n"
	       "#                           kernel-install add $(uname -r) /boot/vmlinuz-$(uname -r)\n"
	       "#   once, at the boot menu: edit the entry's linux line (GRUB: 'e')\n"
	       "# In grub.cfg the kprobe_event= word needs single quotes (';' and '$' are\n"
	       "# GRUB syntax); --apply writes them.\n",
	       BOOT_CMDLINE_BUF_KB);
}

int cmd_boot_setup(int argc, char **argv, struct global_opts *g)
{
	static const struct option long_options[] = {
		GLOBAL_LONG_OPTIONS,
		{ "cmdline", no_argument, NULL, OPT_CMDLINE },
		{ "apply", no_argument, NULL, OPT_APPLY },
		{ "remove", no_argument, NULL, OPT_REMOVE },
		{ "vmlinuz", required_argument, NULL, OPT_VMLINUZ },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	bool arg_cmdline = false, arg_apply = false, arg_remove = false;
	const char *arg_vmlinuz = NULL;
	struct setup_plan sp;
	struct setup_plan_opts po = { .instance = "kmodtop" };
	struct kernel_btf *btf = NULL;
	char *running = NULL, *image = NULL, *cmdline = NULL, *btf_from = NULL;
	int c, r, rc = EXIT_ERROR;

	while ((c = getopt_long(argc, argv, GLOBAL_SHORT_OPTIONS "h", long_options, NULL)) !=
	       -1) {
		switch (c) {
		case OPT_CMDLINE: arg_cmdline = true; break;
		case OPT_APPLY: arg_apply = true; break;
		case OPT_REMOVE: arg_remove = true; break;
		case OPT_VMLINUZ: arg_vmlinuz = optarg; break;
		case 'h':
			boot_setup_usage(stdout);
			return EXIT_OK;
		case '?':
			cmd_usage_error("boot-setup", long_options, argv, optind);
			return EXIT_USAGE;
		default:
			r = global_opt_handle(g, c, optarg);
			if (r <= 0) {
				if (r == 0)
					boot_setup_usage(stderr);
				return EXIT_USAGE;
			}
		}
	}
	if (optind < argc) {
		log_error("boot-setup takes no arguments ('%s')", argv[optind]);
		return EXIT_USAGE;
	}
	if (arg_apply + arg_remove + arg_cmdline > 1) {
		log_error("--cmdline, --apply and --remove go one at a time");
		return EXIT_USAGE;
	}
	if ((arg_apply || arg_remove || arg_cmdline) && g->json) {
		log_error("-j describes the setup: not with --cmdline, --apply or --remove");
		return EXIT_USAGE;
	}
	if (arg_remove)
		return remove_dropin(g);

	/* another release than the running one (or the root's): its boot image */
	running = running_release(g);
	if (arg_vmlinuz || (g->release && (!running || strcmp(running, g->release) != 0))) {
		if (!arg_vmlinuz && !g->release) {
			log_error("which kernel? --kernel-release or --vmlinuz");
			goto out;
		}
		r = read_image_btf(g, arg_vmlinuz, g->release, &btf, &image);
		if (r < 0)
			goto out;
		po.btf = btf;
		po.release = g->release;
		btf = NULL;
	}
	r = setup_plan_init(&sp, g->root, g->release, &po);
	if (r < 0) {
		log_error("'%s': %s", g->root ? g->root : "/", strerror(-r));
		goto out;
	}
	if (!sp.btf && !po.btf && sp.release) {
		/* no sys/kernel/btf/vmlinux: the image of the release it runs, if installed */
		char rel[300];

		snprintf(rel, sizeof(rel), "boot/vmlinuz-%s", sp.release);
		if (root_exists(sp.root, rel)) {
			char *release = strdup(sp.release);

			setup_plan_done(&sp);
			if (!release)
				goto out;
			r = read_image_btf(g, NULL, release, &btf, &image);
			if (r >= 0) {
				po.btf = btf;
				po.release = release;
				btf = NULL;
				r = setup_plan_init(&sp, g->root, g->release, &po);
			}
			free(release);
			if (r < 0)
				goto out;
			po.release = NULL;
		}
	}
	if (!sp.btf) {
		log_error("'%s/sys/kernel/btf/vmlinux': %s: the naming probes need the kernel's "
			  "BTF (CONFIG_DEBUG_INFO_BTF); --vmlinuz FILE takes it from a boot image",
			  root_dir(sp.root),
			  sp.btf_err == -EINVAL ? "not BTF" : strerror(-sp.btf_err));
		goto done;
	}
	if (image) {
		btf_from = image;
		image = NULL;
	} else if (root_abspath(sp.root, "sys/kernel/btf/vmlinux", &btf_from) < 0) {
		goto done;
	}
	r = boot_cmdline_new(&sp.ss, BOOT_CMDLINE_BUF_KB, &cmdline);
	if (r < 0) {
		log_error("the probes cannot be put on a command line: %s",
			  r == -EINVAL ? "an argument holds ',' or ';'" : strerror(-r));
		goto done;
	}
	for (size_t i = 0; i < sp.ss.n_missing; i++)
		log_warn("%s: that probe is left out", sp.missing[i]);
	if (strlen(cmdline) >= BOOT_CMDLINE_MAX)
		log_warn("the command line is %zu characters: kernels built with a "
			 "COMMAND_LINE_SIZE of %d (x86) cut it",
			 strlen(cmdline), BOOT_CMDLINE_MAX);
	if (arg_apply) {
		rc = apply(&sp, cmdline);
	} else if (arg_cmdline) {
		printf("%s\n", cmdline);
		rc = EXIT_OK;
	} else if (g->json) {
		r = print_json(g, &sp, btf_from, cmdline);
		rc = r < 0 ? EXIT_ERROR : EXIT_OK;
	} else {
		print_text(&sp, btf_from, cmdline);
		rc = EXIT_OK;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		log_error("writing the output: %s", strerror(errno));
		rc = EXIT_ERROR;
	}
done:
	setup_plan_done(&sp);
out:
	kernel_btf_free(btf);
	free(running);
	free(image);
	free(cmdline);
	free(btf_from);
	return rc;
}
