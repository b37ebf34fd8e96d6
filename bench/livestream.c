/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench/livestream: live top's refresh without a kernel. A trace file is appended to
 * an in-memory spool LINES lines at a time (live top's trace_pipe reads between two
 * refreshes), and after each append the stream top uses (collect_stream_feed() and
 * collect_stream_settle(), in bench_refresh()) takes what came. bench/top.sh runs it
 * under callgrind with --dump-after=bench_refresh: one count per refresh, to see that
 * a refresh costs the new events, not the history.
 *
 *	bench/livestream TRACE LINES
 *
 * Prints two lines: refreshes, attempts, settled attempts; then the CPU time (user and
 * system, CLOCK_PROCESS_CPUTIME_ID) of a whole refresh, the spool's append included
 * as live top's reader writes it: mean, and max, over the refreshes of LINES lines but
 * the first (no history yet). Exit status 0, or 1 on error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "session/collect.h"
#include "ledger/ledger.h"

__attribute__((noinline)) int bench_refresh(struct collect_stream *cs);

int bench_refresh(struct collect_stream *cs)
{
	int r = collect_stream_feed(cs);

	return r < 0 ? r : collect_stream_settle(cs);
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int append(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct collect_lookup lk = { 0 };
	struct collect_stream *cs = NULL;
	const struct ledger *l;
	char *line = NULL, *chunk = NULL;
	size_t cap = 0, len = 0, ccap = 0, n = 0, per, refreshes = 0, timed = 0;
	double cpu_sum = 0, cpu_max = 0, t0;
	ssize_t got;
	FILE *f;
	int fd, r = 0;

	if (argc != 3 || (per = strtoul(argv[2], NULL, 10)) == 0) {
		fprintf(stderr, "usage: %s TRACE LINES\n", argv[0]);
		return 2;
	}
	f = fopen(argv[1], "re");
	fd = memfd_create("trace", MFD_CLOEXEC);
	if (!f || fd < 0) {
		fprintf(stderr, "livestream: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	/* no module tree: naming by alias or size is left out, the passes all run */
	r = collect_stream_new(&lk, true, fd, argv[1], -1, &cs);
	while (r >= 0 && (got = getline(&line, &cap, f)) >= 0) {
		if (len + (size_t)got > ccap) {
			char *c = realloc(chunk, ccap = 2 * (len + (size_t)got));

			if (!c) {
				r = -ENOMEM;
				break;
			}
			chunk = c;
		}
		memcpy(chunk + len, line, (size_t)got);
		len += (size_t)got;
		if (++n % per)
			continue;
		t0 = cpu_now();
		r = append(fd, chunk, len);
		len = 0;
		if (r >= 0)
			r = bench_refresh(cs);
		if (refreshes++) {
			double t = cpu_now() - t0;

			cpu_sum += t;
			cpu_max = t > cpu_max ? t : cpu_max;
			timed++;
		}
	}
	if (r >= 0 && len) {
		r = append(fd, chunk, len);
		if (r >= 0)
			r = bench_refresh(cs);
		refreshes++;
	}
	if (r >= 0)
		r = collect_stream_finish(cs);
	if (r >= 0) {
		l = collect_stream_ledger(cs);
		printf("%zu refreshes, %zu attempts, %zu settled\n", refreshes, l->n_attempts,
		       l->n_settled);
		printf("cpu per refresh: %.6f s mean of %zu, max %.6f s\n",
		       timed ? cpu_sum / (double)timed : 0, timed, cpu_max);
	} else {
		fprintf(stderr, "livestream: %s\n", strerror(-r));
	}
	collect_stream_free(cs);
	free(line);
	free(chunk);
	fclose(f);
	close(fd);
	return r < 0;
}
