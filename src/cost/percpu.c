/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <string.h>

#include "percpu.h"

static uint64_t attempt_total(const struct cost_kernel *k, const struct cost_module *m,
			      enum attempt_outcome outcome, bool compressed_flag)
{
	struct attempt a = {
		.syscall = ATTEMPT_FINIT,
		.flags = compressed_flag ? 4 : 0,
		.outcome = outcome,
		.leader = -1,
		.request = -1,
	};
	uint64_t b[_VMAP_MAX], sum = 0;

	/* without in-kernel decompression a compressed file goes through init_module */
	if (m->compressed && !(compressed_flag && k->in_kernel_decompress)) {
		a.syscall = ATTEMPT_INIT;
		a.len = m->decompressed_size;
	}
	cost_estimate_attempt(k, &a, m, b);
	for (int c = 0; c < _VMAP_MAX; c++)
		sum += b[c];
	return sum;
}

void percpu_risk_estimate(const struct cost_kernel *k, const struct cost_module *m,
			  unsigned int ncpus, bool fails, bool compressed_flag,
			  struct percpu_risk *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->per_duplicate = attempt_total(k, m, OUTCOME_DUP_LIVE, compressed_flag);
	ret->per_failure = attempt_total(k, m, OUTCOME_INIT_FAILED, compressed_flag);
	if (!ncpus)
		return;
	if (fails) {
		ret->worst = ret->per_failure * ncpus;
		/* merged waiters return the leader's error without loading again */
		ret->merged = k->lp.idempotent_finit ? ret->per_failure : ret->worst;
	} else {
		ret->worst = ret->per_duplicate * (ncpus - 1);
		ret->merged = k->lp.idempotent_finit ? 0 : ret->worst;
	}
}
