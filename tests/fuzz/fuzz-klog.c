/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel log classifier (ledger/klog-findings.c): the whole input as one message,
 * then each line, each in a block of its exact size. Every piece of a finding must
 * point into the message; the classifier must not depend on a terminator.
 */
#include "klog-check.h"

static void classify(const char *p, size_t len)
{
	char *msg = malloc(len ? len : 1);	/* no terminator: ASan sees any overread */
	struct klog_finding f, g;
	int r;

	if (!msg)
		return;
	memcpy(msg, p, len);
	r = klog_classify(msg, len, &f);
	CHECK(r == 0 || r == 1);
	if (r == 1) {
		check_finding(&f, msg, len);
		/* pure: the same answer twice */
		CHECK(klog_classify(msg, len, &g) == 1 && g.kind == f.kind && g.module == f.module);
	} else {
		CHECK(f.kind == KLOG_FINDING_NONE);
	}
	free(msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;

	classify(p, size);
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (nl || p != (const char *)data)
			classify(p, len);
		p += len + 1;
	}
	return 0;
}
