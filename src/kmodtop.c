/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"
#include "util/root.h"
#include "cmd.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv, struct global_opts *g);
	const char *help;
} commands[] = {
	{ "report", cmd_report, "describe loaded modules and their place in vmalloc space" },
	{ "top", cmd_top, "watch module loads as they happen (interactive)" },
	{ "ci", cmd_ci, "check saved kernel logs and traces against gates, for CI" },
	{ "record", cmd_record, "collect load attempts live and write a bundle for --root" },
	{ "boot-setup", cmd_boot_setup, "the kernel command line that captures the boot's loads" },
};

static void usage(FILE *f)
{
	fputs("Usage: kmodtop [OPTIONS] COMMAND [ARGS]\n"
	      "\n"
	      "Show duplicate and failed kernel module loads and the vmalloc space they cost.\n"
	      "\n"
	      "Commands:\n",
	      f);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-11s %s\n", commands[i].name, commands[i].help);
	fputs("\n"
	      "Options:\n"
	      "      --root DIR            read every kernel file under DIR instead of /\n"
	      "      --kernel-release R    kernel release (default: ROOT/proc/sys/kernel/osrelease)\n"
	      "      --moduledir DIR       module tree (default: ROOT/lib/modules/RELEASE)\n"
	      "  -j, --json                JSON output\n"
	      "  -p, --pretty              indented JSON output (implies --json)\n"
	      "      --color[=WHEN]        colour text output: auto, always, never (default auto;\n"
	      "                            NO_COLOR in the environment turns auto off)\n"
	      "  -h, --help                show this help and exit\n"
	      "  -V, --version             show the version and exit\n"
	      "\n"
	      "With no command, kmodtop runs 'top' on a terminal and 'report' otherwise.\n"
	      "'kmodtop COMMAND --help' describes a command.\n"
	      "Exit status: 0 ok, 1 error, 2 usage error, 4 the kernel has no module support.\n"
	      "See kmodtop(8).\n",
	      f);
}

int global_opt_handle(struct global_opts *g, int opt, const char *arg)
{
	switch (opt) {
	case OPT_ROOT:
		g->root = arg;
		return 1;
	case OPT_RELEASE:
		g->release = arg;
		return 1;
	case OPT_MODULEDIR:
		g->moduledir = arg;
		return 1;
	case 'j':
		g->json = true;
		return 1;
	case 'p':
		g->json = true;
		g->pretty = true;
		return 1;
	case OPT_COLOR:
		if (color_when_parse(arg ? arg : "always", &g->color) < 0) {
			log_error("invalid --color value '%s' (auto, always, never)", arg);
			return -1;
		}
		return 1;
	}
	return 0;
}

/* A root's file refused before it was read: a warning naming it */
static void root_refusal(const char *dir, const char *relpath, int err)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	log_warn("'%.*s%s%s': %s", (int)n, dir, dir[n - 1] == '/' ? "" : "/", relpath,
		 root_refusal_text(err));
}

int main(int argc, char **argv)
{
	static const struct option long_options[] = {
		GLOBAL_LONG_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	struct global_opts g = { .color = COLOR_AUTO };
	const char *cmd;
	int c;

	root_set_refusal_handler(root_refusal);
	/* '+': stop at the command, whose own options follow it */
	while ((c = getopt_long(argc, argv, "+" GLOBAL_SHORT_OPTIONS "hV", long_options, NULL)) !=
	       -1) {
		int r;

		switch (c) {
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 'V':
			printf("kmodtop %s\n", PACKAGE_VERSION);
			return EXIT_OK;
		case '?':
			fputs("Try 'kmodtop --help' for more information.\n", stderr);
			return EXIT_USAGE;
		default:
			r = global_opt_handle(&g, c, optarg);
			if (r < 0)
				return EXIT_USAGE;
			if (r == 0)
				return EXIT_USAGE;
		}
	}
	/* a terminal gets the interactive view, a pipe or a file the report */
	cmd = optind < argc ? argv[optind]
	      : isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) ? "top"
							      : "report";
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(cmd, commands[i].name) == 0) {
			char *default_argv[] = { (char *)cmd, NULL };
			char **sub_argv = optind < argc ? argv + optind : default_argv;
			int sub_argc = optind < argc ? argc - optind : 1;

			optind = 0; /* reset getopt for the command's own options */
			return commands[i].fn(sub_argc, sub_argv, &g);
		}
	}
	log_error("unknown command '%s'", cmd);
	fputs("Try 'kmodtop --help' for more information.\n", stderr);
	return EXIT_USAGE;
}
