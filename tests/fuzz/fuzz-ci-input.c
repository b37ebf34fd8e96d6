/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `kmodtop ci` over one fuzzed input file, as the command reads it: the stream (plain
 * or compressed), the input detector (ci_input_sniff(): trace, kmsg, journal JSON or
 * kernel log text), the reader it picks (with the needle filter on), the findings, the
 * ledger of a trace, the gates, and every output format.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ci/ci.h"
#include "output/output.h"
#include "session/ci-input.h"
#include "util/log.h"
#include "views/ci.h"
#include "fuzz.h"

/*
 * A few KiB of zstd are gigabytes of text: a real log that size is fine, a fuzz run is
 * not. The reader sees the end of the input past FUZZ_MAX_TEXT decompressed bytes.
 */
#define FUZZ_MAX_TEXT (8u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ci_input *in[2];
	static FILE *devnull;
	struct ci_options opt = { .max_duplicates = 0, .max_failures = 0, .max_wasted = -1,
				  .fail_on = ~0ull };
	struct ci_input_err err;
	struct ci_findings *c = NULL;
	enum ci_result res;
	struct out *o = NULL;
	char path[64];
	int fd, r;

	if (!devnull) {
		log_set_quiet(1);
		/* with the needle filter and without: the same code must hold either way */
		for (int f = 0; f < 2; f++)
			CHECK(ci_input_new(&(struct ci_input_opts){ .filter = f,
								    .max_bytes = FUZZ_MAX_TEXT },
					   &in[f], &err) == 0);
		devnull = fopen("/dev/null", "we");
		CHECK(devnull);
	}
	/* the detector on the first line as given, without the stream */
	if (size) {
		const char *nl = memchr(data, '\n', size);
		size_t len = nl ? (size_t)(nl - (const char *)data) : size;
		char *line = fuzz_dup(data, len);

		if (line) {
			CHECK(ci_input_sniff(line, len) <= CI_INPUT_TRACE_DAT);
			free(line);
		}
	}

	fd = fuzz_memfd(data, size);
	if (fd < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (ci_new(&opt, NULL, &c) < 0)
		goto out;
	r = ci_input_read(in[size % 2 == 0], c, path, &err);
	/* -EINVAL: a trace.dat libtracecmd will not read, said as such */
	CHECK(r == 0 || r == -EBADMSG || r == -ENOMEM || r == -EPROTONOSUPPORT || r == -EINVAL);
	if (r < 0)
		goto out;
	CHECK(ci_finish(c, &res) == 0);
	CHECK(res <= CI_UNKNOWN_WASTE);
	for (size_t i = 0; i < ci_finding_count(c); i++) {
		struct ci_finding_info fi;

		ci_finding_get(c, i, &fi);
		CHECK(fi.cls && fi.path && fi.count > 0 && fi.first_line <= fi.last_line &&
		      fi.attempts <= fi.count);
	}
	for (size_t i = 0; i < ci_boot_count(c); i++)
		CHECK(ci_boot_release(c, i));
	for (int json = 0; json <= 1; json++) {
		CHECK(out_new(json ? OUT_JSON : OUT_TEXT, json, devnull, &o) == 0);
		CHECK(ci_render(c, o) == 0);
		CHECK(out_finish(o) == 0);
		o = out_free(o);
	}
	CHECK(ci_write_junit(c, devnull) == 0);
	CHECK(ci_write_sarif(c, devnull, true) == 0);
	CHECK(ci_write_github(c, devnull) == 0);
out:
	out_free(o);
	ci_free(c);
	close(fd);
	return 0;
}
