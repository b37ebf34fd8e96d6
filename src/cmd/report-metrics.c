/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report's metrics outputs: --openmetrics, --prometheus, --textfile DIR/FILE (written
 * whole under a temporary name, then renamed over, as node_exporter's textfile collector
 * wants) and their --label NAME=VALUE.
 */
#include <errno.h>
#include <signal.h>
#include <math.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "cost/catalog.h"
#include "cost/cost.h"
#include "cost/estimate.h"
#include "cost/loadpath.h"
#include "cost/percpu.h"
#include "ledger/klog-findings.h"
#include "ledger/ledger.h"
#include "ledger/summary.h"
#include "cost/modmem.h"
#include "output/output.h"
#include "sources/dmesg-text.h"
#include "sources/kconfig.h"
#include "sources/kmsg.h"
#include "sources/meminfo.h"
#include "sources/modindex.h"
#include "sources/moduledir.h"
#include "sources/modstats.h"
#include "sources/proc-modules.h"
#include "sources/stream.h"
#include "sources/sys-module.h"
#include "sources/tainted.h"
#include "sources/trace/text.h"
#include "sources/trace/order.h"
#include "sources/vmallocinfo.h"
#include "util/io.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/parse-num.h"
#include "util/root.h"
#include "util/atomic-file.h"
#include "util/escape.h"
#include "util/io.h"
#include "output/openmetrics.h"
#include "sources/boot-id.h"
#include "views/report.h"
#include "cmd/cmd.h"
#include "cmd/report.h"

/* NAME=VALUE: a label name kmodtop does not use itself, and a UTF-8 value */
int report_parse_label(struct metrics_opts *mo, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char *name;

	if (mo->n_labels == MAX_LABELS) {
		log_error("--label: at most %d labels", MAX_LABELS);
		return -EINVAL;
	}
	if (!eq) {
		log_error("--label '%s': not NAME=VALUE", arg);
		return -EINVAL;
	}
	name = strdup(arg);
	if (!name) {
		log_error("out of memory");
		return -ENOMEM;
	}
	name[eq - arg] = '\0';
	mo->labels[mo->n_labels].name = name;
	mo->labels[mo->n_labels].value = name + (eq - arg) + 1;
	mo->n_labels++;
	if (!om_label_name_valid(name)) {
		log_error("--label '%s': a label name is letters, digits and '_', not starting "
			  "with a digit or '__'", arg);
		return -EINVAL;
	}
	for (size_t i = 0; report_metric_label_names[i]; i++)
		if (!strcmp(name, report_metric_label_names[i])) {
			log_error("--label '%s': kmodtop's metrics use the label '%s' themselves",
				  arg, name);
			return -EINVAL;
		}
	for (size_t i = 0; i + 1 < mo->n_labels; i++)
		if (!strcmp(name, mo->labels[i].name)) {
			log_error("--label '%s': label '%s' given twice", arg, name);
			return -EINVAL;
		}
	/* Prometheus takes an empty value for no label at all */
	if (!eq[1]) {
		log_error("--label '%s': empty value", arg);
		return -EINVAL;
	}
	/* OpenMetrics is UTF-8: a value that is not is the caller's to fix, not ours */
	if (!utf8_valid(eq + 1, strlen(eq + 1))) {
		log_error("--label '%s': the value is not UTF-8", name);
		return -EINVAL;
	}
	return 0;
}

void report_metrics_opts_done(struct metrics_opts *mo)
{
	for (size_t i = 0; i < mo->n_labels; i++)
		free(mo->labels[i].name);
	free(mo->textfile_path);
}

/*
 * --textfile PATH: a directory (node_exporter's --collector.textfile.directory) gets
 * kmodtop.prom; otherwise PATH is the file, named NAME.prom as the collector wants,
 * in a directory that exists. Checked now, so that a mistyped path is refused before
 * a --duration's collection; written at the end (at boot the file system may become
 * writable only in between). The directory is held to the cache's rules: a file others
 * read is not written where someone else can swap the directory. EXIT_OK, or the exit
 * code.
 */
static int textfile_dir_check(const char *p, const char *dir)
{
	size_t len = strlen(dir);
	_cleanup_free_ char *d = NULL;
	const char *why = NULL;
	int fd;

	/* "DIR/" would follow a symlink that "DIR" names */
	while (len > 1 && dir[len - 1] == '/')
		len--;
	d = strndup(dir, len);
	if (!d) {
		log_error("out of memory");
		return EXIT_ERROR;
	}
	fd = dir_open_private(d, &why);
	if (fd >= 0) {
		close(fd);
		return EXIT_OK;
	}
	log_error("--textfile '%s': '%s' %s", p, dir, why ? why : strerror(-fd));
	return EXIT_ERROR;
}

int report_resolve_textfile(struct metrics_opts *mo)
{
	const char *p = mo->textfile, *slash;
	_cleanup_free_ char *dir = NULL;
	size_t len = strlen(p);
	struct stat st;

	if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (asprintf(&mo->textfile_path, "%s%skmodtop.prom", p,
			     len && p[len - 1] == '/' ? "" : "/") < 0) {
			mo->textfile_path = NULL;
			log_error("out of memory");
			return EXIT_ERROR;
		}
		return textfile_dir_check(p, p);
	}
	if (len <= 5 || strcmp(p + len - 5, ".prom") != 0) {
		log_error("--textfile '%s': not a directory, nor a file name ending in .prom "
			  "(node_exporter reads only those)", p);
		return EXIT_USAGE;
	}
	slash = strrchr(p, '/');
	dir = slash ? strndup(p, slash == p ? 1 : (size_t)(slash - p)) : strdup(".");
	mo->textfile_path = strdup(p);
	if (!dir || !mo->textfile_path) {
		log_error("out of memory");
		return EXIT_ERROR;
	}
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		log_error("--textfile '%s': '%s' is not a directory", p, dir);
		return EXIT_USAGE;
	}
	return textfile_dir_check(p, dir);
}

int report_write_metrics(const struct report_data *d, const struct metrics_opts *mo,
			 enum om_flavour fl, FILE *f)
{
	struct om *m = NULL;
	int r;

	r = om_new(fl, f, &m);
	for (size_t i = 0; r >= 0 && i < mo->n_labels; i++)
		r = om_add_const_label(m, mo->labels[i].name, mo->labels[i].value);
	if (r >= 0)
		r = report_render_metrics(d, m);
	if (r >= 0)
		r = om_finish(m);
	om_free(m);
	return r;
}

/* The Prometheus text into the textfile: a temporary, then renamed over it */
int report_write_textfile(const struct report_data *d, const struct metrics_opts *mo)
{
	struct atomic_file *af = NULL;
	int r;

	r = atomic_file_new(mo->textfile_path, 0644, &af);
	if (r >= 0)
		r = report_write_metrics(d, mo, OM_PROMETHEUS, atomic_file_stream(af));
	if (r >= 0)
		r = atomic_file_commit(af);
	atomic_file_free(af);
	return r;
}

int report_metrics_check(struct metrics_opts *mo, bool json)
{
	if (mo->openmetrics + mo->prometheus + json > 1) {
		log_error("report: one of -j, --openmetrics and --prometheus");
		return EXIT_USAGE;
	}
	if (mo->n_labels && !(mo->openmetrics || mo->prometheus || mo->textfile)) {
		log_error("report: --label goes with --openmetrics, --prometheus or --textfile");
		return EXIT_USAGE;
	}
	return mo->textfile ? report_resolve_textfile(mo) : EXIT_OK;
}
