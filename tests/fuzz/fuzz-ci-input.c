/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `kmodtop ci` over one fuzzed input file, as the command reads it: the stream (plain
 * or compressed), the input detector (sniff(): trace, kmsg, journal JSON or kernel log
 * text), the reader it picks (with the needle filter on), the findings, the ledger of a
 * trace, the gates, and every output format. cmd/ci.c is included whole: its input
 * path is static, and this keeps it out of the library.
 */
#include "sources/stream.h"

/*
 * A few KiB of zstd are gigabytes of text: a real log that size is fine, a fuzz run is
 * not. The reader sees the end of the input past FUZZ_MAX_TEXT decompressed bytes.
 */
#define FUZZ_MAX_TEXT (8u << 20)

static int bounded_next_line(struct stream *s, char **ret_line, size_t *ret_len)
{
	return stream_bytes(s) > FUZZ_MAX_TEXT ? 0 : stream_next_line(s, ret_line, ret_len);
}

static int bounded_next_match(struct stream *s, const struct stream_needles *nd,
			      char **ret_line, size_t *ret_len)
{
	return stream_bytes(s) > FUZZ_MAX_TEXT ? 0 :
						 stream_next_match(s, nd, ret_line, ret_len);
}

#define stream_next_line bounded_next_line
#define stream_next_match bounded_next_match
#include "../../src/cmd/ci.c"
#undef stream_next_line
#undef stream_next_match
#include "fuzz.h"

/* cmd/ci.c's option parsing calls into cmd/options.c, which is not linked */
int global_opt_handle(struct global_opts *g, int opt, const char *arg)
{
	(void)g;
	(void)opt;
	(void)arg;
	return 0;
}

void cmd_usage_error(const char *cmd, const struct option *opts, char *const *argv, int argind)
{
	(void)cmd;
	(void)opts;
	(void)argv;
	(void)argind;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct stream_needles *nd;
	static FILE *devnull;
	struct ci_options opt = { .max_duplicates = 0, .max_failures = 0, .max_wasted = -1,
				  .fail_on = ~0ull };
	struct cost_ctx cx = { 0 };
	struct run x = { 0 };
	enum ci_result res;
	struct out *o = NULL;
	char path[64];
	int fd, r;

	if (!nd) {
		const char *const *needles;
		size_t n;

		log_set_quiet(1);
		needles = ci_needles(&n);
		CHECK(stream_needles_new(needles, n, &nd) == 0);
		devnull = fopen("/dev/null", "we");
		CHECK(devnull);
	}
	/* the detector on the first line as given, without the stream */
	if (size) {
		const char *nl = memchr(data, '\n', size);
		size_t len = nl ? (size_t)(nl - (const char *)data) : size;
		char *line = fuzz_dup(data, len);

		if (line) {
			CHECK(sniff(line, len) <= FMT_TRACE_DAT);
			free(line);
		}
	}

	fd = fuzz_memfd(data, size);
	if (fd < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (ci_new(&opt, NULL, &x.ci) < 0)
		goto out;
	x.cost = &cx;
	x.needles = nd;
	x.filter = size % 2 == 0;	/* both ways: the same code must hold either way */
	r = read_input(&x, path);
	/* -EINVAL: a trace.dat libtracecmd will not read, said as such */
	CHECK(r == 0 || r == -EBADMSG || r == -ENOMEM || r == -EPROTONOSUPPORT || r == -EINVAL);
	if (r < 0)
		goto out;
	CHECK(ci_finish(x.ci, &res) == 0);
	CHECK(res <= CI_UNKNOWN_WASTE);
	for (size_t i = 0; i < ci_finding_count(x.ci); i++) {
		struct ci_finding_info fi;

		ci_finding_get(x.ci, i, &fi);
		CHECK(fi.cls && fi.path && fi.count > 0 && fi.first_line <= fi.last_line &&
		      fi.attempts <= fi.count);
	}
	for (size_t i = 0; i < ci_boot_count(x.ci); i++)
		CHECK(ci_boot_release(x.ci, i));
	for (int json = 0; json <= 1; json++) {
		CHECK(out_new(json ? OUT_JSON : OUT_TEXT, json, devnull, &o) == 0);
		CHECK(ci_render(x.ci, o) == 0);
		CHECK(out_finish(o) == 0);
		o = out_free(o);
	}
	CHECK(ci_write_junit(x.ci, devnull) == 0);
	CHECK(ci_write_sarif(x.ci, devnull, true) == 0);
	CHECK(ci_write_github(x.ci, devnull) == 0);
out:
	out_free(o);
	ci_free(x.ci);
	cost_ctx_done(&cx);
	close(fd);
	return 0;
}
