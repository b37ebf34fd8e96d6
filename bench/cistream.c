/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench/cistream TRACE [LOG]: collect_read_each() over a trace (and its kernel log), as
 * ci would read it, each attempt counted as it settles and then forgotten: prints the
 * totals as JSON. bench/memory.sh measures its peak RSS against ci's target.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "session/collect.h"
#include "ledger/ledger.h"

struct totals {
	uint64_t attempts, failed, duplicates;
	size_t most_kept;
};

static int on_attempt(void *userdata, const struct ledger *l, const struct attempt *a,
		      const struct attempt_cost *cost)
{
	struct totals *t = userdata;

	(void)cost;
	t->attempts++;
	t->failed += attempt_is_failure(a);
	t->duplicates += attempt_is_duplicate(a);
	if (l->n_attempts > t->most_kept)
		t->most_kept = l->n_attempts;
	return 0;
}

int main(int argc, char **argv)
{
	struct totals t = { 0 };
	struct collect_lookup lk = { 0 };
	struct collect_each each = { .on_attempt = on_attempt, .userdata = &t };
	struct collect_input in = { .klog_runs = true };
	struct collect_result res;
	int r;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s TRACE [LOG]\n", argv[0]);
		return 2;
	}
	in.trace_path = argv[1];
	in.trace = fopen(argv[1], "re");
	in.log_path = argc > 2 ? argv[2] : NULL;
	in.log = argc > 2 ? fopen(argv[2], "re") : NULL;
	if (!in.trace || (argc > 2 && !in.log)) {
		perror("fopen");
		return 1;
	}
	r = collect_read_each(&lk, true, &in, &each, &res);
	if (r < 0) {
		fprintf(stderr, "collect_read_each: %s\n", strerror(-r));
		return 1;
	}
	printf("{\"attempts\": %" PRIu64 ", \"failed\": %" PRIu64 ", \"duplicates\": %" PRIu64
	       ", \"most_kept\": %zu, \"forgotten\": %zu}\n", t.attempts, t.failed, t.duplicates,
	       t.most_kept, res.ledger->n_forgotten);
	collect_result_done(&res);
	fclose(in.trace);
	if (in.log)
		fclose(in.log);
	return 0;
}
