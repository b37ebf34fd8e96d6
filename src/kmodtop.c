/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <json-c/json.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include "util/escape.h"
#include "util/io.h"
#include "util/log.h"
#include "util/version.h"
#include "util/root.h"
#include "cmd/cmd.h"

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
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-11s %s\n", commands[i].name, commands[i].help);
	fputs("  help        this help; 'help COMMAND' describes a command\n"
	      "\n"
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
	      "'kmodtop help COMMAND' or 'kmodtop COMMAND --help' describes a command.\n"
	      "Exit status: 0 ok, 1 error, 2 usage error, 4 the kernel has no module support.\n"
	      "See kmodtop(8).\n",
	      f);
}

/*
 * What a bug report needs: the version, the libraries as configure found them, and the
 * ones loaded now where a library can say (a distribution may have updated them since).
 */
static void version(FILE *f)
{
	/* "v1.1": the number alone, as pkg-config gives it */
	const char *bpf_v = libbpf_version_string();

	fprintf(f,
		"kmodtop %s\n"
		"Copyright (C) the kmodtop authors. License GPL-2.0-or-later: this is free\n"
		"software; there is NO WARRANTY, to the extent permitted by law.\n"
		"\n"
		"built with: %s\n"
		"running with: json-c-%s zlib-%s liblzma-%s libzstd-%s libbpf-%s\n"
		"Report bugs to: %s\n"
		"Home page: %s\n",
		PACKAGE_VERSION, KMODTOP_BUILT_WITH, json_c_version(), zlibVersion(),
		lzma_version_string(), ZSTD_versionString(), bpf_v + (*bpf_v == 'v'),
		PACKAGE_BUGREPORT, PACKAGE_URL);
}

/*
 * Whatever a command printed must have arrived: a success whose output was lost (a
 * full disk, a closed pipe) is none, as coreutils' close_stdout() has it.
 */
static int exit_status(int rc)
{
	int r = stream_flush(stdout);

	if (r < 0 && rc == EXIT_OK) {
		log_error("writing standard output: %s", strerror(-r));
		return EXIT_ERROR;
	}
	return rc;
}

static const char *suggest_command(const char *word)
{
	static const char *const extra[] = { "help" };
	const char *best = NULL;
	unsigned int best_d = CMD_SUGGEST_MAX + 1;

	for (size_t i = 0; i < ARRAY_SIZE(commands) + ARRAY_SIZE(extra); i++) {
		const char *name = i < ARRAY_SIZE(commands) ? commands[i].name
							    : extra[i - ARRAY_SIZE(commands)];
		unsigned int dist = cmd_edit_distance(word, strlen(word), name);

		if (dist < best_d) {
			best_d = dist;
			best = name;
		}
	}
	return best;
}

static int unknown_command(const char *cmd)
{
	const char *best = suggest_command(cmd);

	if (best)
		log_error("unknown command '%s'; did you mean '%s'?", cmd, best);
	else
		log_error("unknown command '%s'", cmd);
	fputs("Try 'kmodtop help' for the list of commands.\n", stderr);
	return EXIT_USAGE;
}

/* "kmodtop COMMAND": getopt's messages name argv[0], the log its own prefix */
static int run_command(size_t i, int argc, char **argv, struct global_opts *g)
{
	static char prog[64];

	snprintf(prog, sizeof(prog), "kmodtop %s", commands[i].name);
	argv[0] = prog;
	log_set_command(commands[i].name);
	optind = 0; /* reset getopt for the command's own options */
	return commands[i].fn(argc, argv, g);
}

static int find_command(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (strcmp(name, commands[i].name) == 0)
			return (int)i;
	return -1;
}

/* kmodtop help [COMMAND] */
static int help(int argc, char **argv, struct global_opts *g)
{
	char *help_argv[] = { NULL, (char *)"--help", NULL };
	int i;

	log_set_command("help");
	if (argc > 2) {
		log_error("one command at most ('%s' is one too many)", argv[2]);
		fputs("Try 'kmodtop help' for the list of commands.\n", stderr);
		return EXIT_USAGE;
	}
	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		fputs("Usage: kmodtop help [COMMAND]\n"
		      "\n"
		      "Describe kmodtop and its commands, or COMMAND as 'kmodtop COMMAND --help' does.\n"
		      "\n"
		      "Exit status: 0 done, 2 no such command.\n",
		      stdout);
		return EXIT_OK;
	}
	if (argc < 2 || strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return fflush(stdout) == 0 && !ferror(stdout) ? EXIT_OK : EXIT_ERROR;
	}
	i = find_command(argv[1]);
	if (i < 0)
		return unknown_command(argv[1]);
	return run_command((size_t)i, 2, help_argv, g);
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
	char *default_argv[] = { NULL, NULL };
	const char *cmd;
	int c, i;

	/* getopt's messages start with argv[0]: "kmodtop", not the path it was run by */
	if (argc > 0)
		argv[0] = (char *)"kmodtop";
	root_set_refusal_handler(root_refusal);
	/* '+': stop at the command, whose own options follow it */
	while ((c = getopt_long(argc, argv, "+" GLOBAL_SHORT_OPTIONS "hV", long_options, NULL)) !=
	       -1) {
		int r;

		switch (c) {
		case 'h':
			usage(stdout);
			return exit_status(EXIT_OK);
		case 'V':
			version(stdout);
			return exit_status(EXIT_OK);
		case '?':
			cmd_usage_error(NULL, long_options, argv, optind);
			return EXIT_USAGE;
		default:
			r = global_opt_handle(&g, c, optarg);
			if (r < 0)
				return EXIT_USAGE;
			if (r == 0)
				return EXIT_USAGE;
		}
	}
	if (optind < argc && strcmp(argv[optind], "help") == 0)
		return exit_status(help(argc - optind, argv + optind, &g));
	/* a terminal gets the interactive view, a pipe or a file the report */
	cmd = optind < argc ? argv[optind]
	      : isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) ? "top"
							      : "report";
	i = find_command(cmd);
	if (i < 0)
		return unknown_command(cmd);
	if (optind < argc)
		return exit_status(run_command((size_t)i, argc - optind, argv + optind, &g));
	return exit_status(run_command((size_t)i, 1, default_argv, &g));
}
