/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/ci-formats.h"
#include "output/output.h"
#include "session/ci-input.h"
#include "util/atomic-file.h"
#include "util/io.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/parse-num.h"
#include "views/ci.h"
#include "cmd/cmd.h"
#include "cmd/ci-config.h"

/* Exit codes of `ci` (man page: EXIT STATUS); kselftest's skip is 4 */
enum {
	CI_EXIT_PASS = 0,
	CI_EXIT_FAIL = 1,
	CI_EXIT_USAGE = 2,
	CI_EXIT_EMPTY = 4,
};

static void ci_usage(FILE *f)
{
	fputs("Usage: kmodtop [OPTIONS] ci [OPTIONS] FILE... | -\n"
	      "\n"
	      "Read saved kernel logs and traces (dmesg, dmesg -T, dmesg --json, /dev/kmsg,\n"
	      "journalctl -k in short, short-monotonic, short-iso, json or json-pretty form,\n"
	      "serial consoles, pastes and mails (quoted-printable too), tracefs or trace-cmd\n"
	      "report text; gzip, xz or zstd compressed), report module load findings\n"
	      "per boot, and fail when a gate is exceeded.\n"
	      "\n"
	      "Gates:\n"
	      "      --max-duplicates=N    fail when a boot has more than N duplicate load attempts\n"
	      "      --max-failures=N      fail when a boot has more than N failed load attempts\n"
	      "      --max-wasted=SIZE     fail when a boot wasted more vmap space (K, M, G)\n"
	      "      --fail-on=CLASS[,...] fail on any finding of these classes or groups\n"
	      "                            ('--fail-on=help' lists them)\n"
	      "      --allow=MODULE[,...]  ignore these modules in every gate (patterns)\n"
	      "      --baseline=FILE       an earlier 'ci --json' output: fail on new offending\n"
	      "                            modules and on counts that grew\n"
	      "      --tolerance=PERCENT   growth over the baseline that still passes (default 0)\n"
	      "      --config=FILE         the same settings, one 'key = value' a line\n"
	      "\n"
	      "Formats (any number at once; the report goes to standard output):\n"
	      "      --junit=FILE          JUnit XML: a testcase per gate and offending module\n"
	      "      --sarif=FILE          SARIF 2.1.0: a rule per finding class\n"
	      "      --github[=FILE]       GitHub Actions annotations (default: standard output)\n"
	      "      --no-filter           parse every line (slower; the same findings)\n"
	      "      --threads=N           scan kernel logs on N threads (default: the CPUs\n"
	      "                            this process may run on, at most 8)\n"
	      "  -h, --help                show this help\n"
	      "\n"
	      "Module files for waste estimates come from --root or --moduledir; without them\n"
	      "only counts are reported. The global options (--root, --kernel-release,\n"
	      "--moduledir, -j, -p, --color) may also follow the command.\n"
	      "Exit status: 0 every gate passed, 1 a gate failed, 2 usage error or unreadable\n"
	      "input, 4 nothing to analyse.\n",
	      f);
}

/* Output that did not arrive fails ci as an unwritable report does (exit status 2) */
static int stdout_check(const char *what)
{
	int r = stream_flush(stdout);

	if (r < 0)
		log_error("writing %s: %s", what, strerror(-r));
	return r;
}

/* --fail-on=help: the classes and the groups, one a line, the name first */
static void list_classes(void)
{
	for (size_t i = 0; i < ci_class_count(); i++)
		printf("%-34s %-10s %s\n", ci_class_name(i),
		       ci_group_name(ci_class_group(i)), ci_class_help(i));
	for (int g = 0; g < _CI_GROUP_MAX; g++)
		printf("%-34s %-10s every class of the group\n", ci_group_name(g),
		       "(group)");
}


/*
 * A file is replaced whole, a temporary renamed over the name: a reader never sees half
 * of it, and a symlink someone else planted at the name (in a shared directory) is
 * replaced, never written through. A symlink of the user's own or root's is followed,
 * as the shell's > would (/dev/stdout, whatever standard output is); so is a name for a
 * pipe or a terminal.
 */
static bool write_in_place(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return false;
	if (S_ISLNK(st.st_mode))
		return st.st_uid == geteuid() || st.st_uid == 0;
	return S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode);
}

static int write_file(const char *opt, const char *path, const struct ci_findings *ci, bool pretty,
		      int (*fn)(const struct ci_findings *, FILE *, bool))
{
	struct atomic_file *af = NULL;
	FILE *f = NULL;
	int r = 0;

	if (write_in_place(path)) {
		f = fopen(path, "we");
		if (!f)
			r = -errno;
	} else {
		r = atomic_file_new(path, 0644, &af);
		if (r >= 0)
			f = atomic_file_stream(af);
	}
	if (r >= 0)
		r = fn(ci, f, pretty);
	if (af) {
		if (r >= 0)
			r = atomic_file_commit(af);
		atomic_file_free(af);
	} else if (f) {
		errno = 0;
		if (fclose(f) != 0 && r >= 0)
			r = errno ? -errno : -EIO;
	}
	if (r < 0)
		log_error("%s '%s': %s", opt, path, strerror(-r));
	return r;
}

static int junit_fn(const struct ci_findings *ci, FILE *f, bool pretty)
{
	return ci_write_junit(ci, f);
}

static int sarif_fn(const struct ci_findings *ci, FILE *f, bool pretty)
{
	return ci_write_sarif(ci, f, pretty);
}

static int github_fn(const struct ci_findings *ci, FILE *f, bool pretty)
{
	return ci_write_github(ci, f);
}

/* What ci_input's notes say, worded */
static void input_note(void *userdata, const struct ci_input_note *n)
{
	switch (n->kind) {
	case CI_NOTE_SKIPPED_LINE:
		log_warn("'%s':%llu: %s, skipping", n->path, (unsigned long long)n->line, n->what);
		break;
	case CI_NOTE_MORE_SKIPPED:
		log_warn("'%s': more skipped lines, not shown", n->path);
		break;
	case CI_NOTE_TIME_BACK:
		log_warn("'%s':%llu: the trace goes back in time near here, %llu time(s) in all "
			 "(per-CPU trace files one after another?): load attempts paired in the "
			 "file's order may be wrong; kmodtop report reads such a file sorted",
			 n->path, (unsigned long long)n->line, (unsigned long long)n->count);
		break;
	case CI_NOTE_NO_NEWLINE:
		log_warn("'%s':%llu: the last line has no newline (truncated log?)", n->path,
			 (unsigned long long)n->line);
		break;
	}
}

/* Why reading the inputs failed (@r), worded */
static void input_error(int r, const struct ci_input_err *e)
{
	switch (e->fault) {
	case CI_FAULT_NONE:
		if (r == -ENOMEM)
			log_error("out of memory");
		break;
	case CI_FAULT_ROOT:
		log_error("--root '%s': %s", e->path, e->what);
		break;
	case CI_FAULT_FILE:
		log_error("'%s': %s", e->path, e->what);
		break;
	case CI_FAULT_CORRUPT:
		log_error("'%s': corrupt or truncated %s data near line %llu", e->path, e->what,
			  (unsigned long long)e->line);
		break;
	case CI_FAULT_THREAD:
		log_error("'%s': cannot start a thread: %s", e->path, e->what);
		break;
	case CI_FAULT_UNSUPPORTED:
		log_error("'%s': %s compressed input is not supported (gzip, xz, zstd are)",
			  e->path, e->what);
		break;
	case CI_FAULT_DAT_UNSEEKABLE:
		log_error("'%s': a trace.dat is read from an uncompressed file, not %s", e->path,
			  e->what);
		break;
	}
}

int cmd_ci(int argc, char **argv, struct global_opts *g)
{
	static const struct option long_options[] = {
		GLOBAL_LONG_OPTIONS,
		{ "max-duplicates", required_argument, NULL, OPT_MAX_DUPLICATES },
		{ "max-failures", required_argument, NULL, OPT_MAX_FAILURES },
		{ "max-wasted", required_argument, NULL, OPT_MAX_WASTED },
		{ "fail-on", required_argument, NULL, OPT_FAIL_ON },
		{ "allow", required_argument, NULL, OPT_ALLOW },
		{ "baseline", required_argument, NULL, OPT_BASELINE },
		{ "tolerance", required_argument, NULL, OPT_TOLERANCE },
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "junit", required_argument, NULL, OPT_JUNIT },
		{ "sarif", required_argument, NULL, OPT_SARIF },
		{ "github", optional_argument, NULL, OPT_GITHUB },
		{ "no-filter", no_argument, NULL, OPT_NO_FILTER },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct ci_settings s = { .opt = { .max_duplicates = -1, .max_failures = -1,
				       .max_wasted = -1 } };
	struct ci_fmt_baseline *baseline = NULL;
	struct ci_input_err err = { 0 };
	struct ci_input *in = NULL;
	struct ci_findings *c = NULL;
	struct out *o = NULL;
	const char *github = NULL;
	bool want_github = false, no_filter = false, stdin_seen = false;
	uint32_t threads = 0;
	enum ci_result res;
	int opt, r, ret = CI_EXIT_USAGE;

	while ((opt = getopt_long(argc, argv, GLOBAL_SHORT_OPTIONS "h", long_options, NULL)) != -1) {
		char origin[32];

		switch (opt) {
		case 'h':
			ci_usage(stdout);
			if (stdout_check("the help") >= 0)
				ret = CI_EXIT_PASS;
			goto out;
		case '?':
			cmd_usage_error("ci", long_options, argv, optind);
			goto out;
		case OPT_CONFIG:
			if (ci_settings_set_path(&s.config, optarg) < 0)
				goto out;
			continue;
		case OPT_GITHUB:
			want_github = true;
			github = optarg;
			continue;
		case OPT_NO_FILTER:
			no_filter = true;
			continue;
		case OPT_THREADS:
			if (parse_u32(optarg, 10, &threads) < 0 || threads < 1 || threads > 64) {
				log_error("ci: --threads '%s': expected 1 to 64", optarg);
				goto out;
			}
			continue;
		case OPT_FAIL_ON:
			if (strcmp(optarg, "help") == 0) {
				list_classes();
				if (stdout_check("the classes") >= 0)
					ret = CI_EXIT_PASS;
				goto out;
			}
			break;
		}
		if (opt >= OPT_CMD_BASE) {
			snprintf(origin, sizeof(origin), "--%s", long_options[0].name);
			for (const struct option *lo = long_options; lo->name; lo++)
				if (lo->val == opt)
					snprintf(origin, sizeof(origin), "--%s", lo->name);
			if (ci_settings_apply(&s, opt, optarg, origin, true) < 0)
				goto out;
			continue;
		}
		if (global_opt_handle(g, opt, optarg) <= 0)
			goto out;
	}
	if (s.config && ci_settings_read_config(&s, s.config) < 0)
		goto out;
	if (optind >= argc) {
		log_error("ci: no input (FILE..., or - for standard input)");
		fputs("Try 'kmodtop ci --help' for more information.\n", stderr);
		goto out;
	}
	for (int i = optind; i < argc; i++) {
		if (strcmp(argv[i], "-") != 0)
			continue;
		if (stdin_seen) {
			log_error("ci: standard input ('-') given twice");
			goto out;
		}
		stdin_seen = true;
	}
	if (want_github && !github && g->json) {
		log_error("ci: --github and --json both write to standard output; "
			  "use --github=FILE");
		goto out;
	}
	color_init(g->color, !g->json && isatty(STDOUT_FILENO));

	if (s.baseline) {
		if (ci_settings_read_baseline(s.baseline, &baseline) < 0)
			goto out;
		s.opt.baseline = baseline;
		s.opt.baseline_path = s.baseline;
	}
	r = ci_input_new(&(struct ci_input_opts){ .root = g->root,
						  .release = g->release,
						  .moduledir = g->moduledir,
						  .filter = !no_filter,
						  .threads = threads,
						  .note = input_note },
			 &in, &err);
	if (r < 0) {
		input_error(r, &err);
		goto out;
	}
	r = ci_new(&s.opt, ci_input_cost_ops(in), &c);
	if (r < 0) {
		log_error("out of memory");
		goto out;
	}
	r = ci_input_read_all(in, c, argv + optind, (size_t)(argc - optind), &err);
	if (r < 0) {
		input_error(r, &err);
		goto out;
	}

	r = ci_finish(c, &res);
	if (r < 0) {
		log_error("out of memory");
		goto out;
	}
	if (want_github && !github) {
		r = ci_write_github(c, stdout);
		if (r < 0) {
			log_error("writing the annotations: %s", strerror(-r));
			goto out;
		}
	}
	r = out_new(g->json ? OUT_JSON : OUT_TEXT, g->pretty, stdout, &o);
	if (r >= 0)
		r = ci_render(c, o);
	if (r >= 0)
		r = out_finish(o);
	if (r < 0) {
		log_error("writing the report: %s", strerror(-r));
		goto out;
	}
	if (s.junit && write_file("--junit", s.junit, c, false, junit_fn) < 0)
		goto out;
	if (s.sarif && write_file("--sarif", s.sarif, c, g->pretty, sarif_fn) < 0)
		goto out;
	if (github && write_file("--github", github, c, false, github_fn) < 0)
		goto out;

	switch (res) {
	case CI_PASS:
		ret = CI_EXIT_PASS;
		break;
	case CI_FAIL:
		ret = CI_EXIT_FAIL;
		break;
	case CI_EMPTY:
		/* a code of its own: CI harnesses read it as "skipped" (kselftest) */
		log_info("nothing to analyse: no kernel log records or trace events in the input");
		ret = CI_EXIT_EMPTY;
		break;
	case CI_UNKNOWN_WASTE:
		log_error("--max-wasted: no waste estimate (pass --root or --moduledir for module "
			  "files, or a trace with vmalloc events)");
		ret = CI_EXIT_USAGE;
		break;
	}
out:
	out_free(o);
	ci_free(c);
	ci_input_free(in);
	ci_baseline_free(baseline);
	ci_settings_done(&s);
	return ret;
}
