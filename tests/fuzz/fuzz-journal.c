/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * journald's export format (journalctl -o export) as report --boot converts it into
 * /dev/kmsg records: the whole input through journal_klog_convert(); what it writes
 * must be one record a line that the kmsg parser reads, message bytes intact.
 */
#include <stdio.h>

#include "sources/journal-klog.h"
#include "sources/kmsg.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz-journal-out", MFD_CLOEXEC);
	const char *what = NULL;
	uint64_t records = 0, lines = 0;
	char *out, *p, *end;
	off_t n;
	int r;

	if (fd < 0)
		return 0;
	r = journal_klog_convert((const char *)data, size, fd, &records, &what);
	CHECK(r == 0 || r == -EBADMSG || r == -ENOMEM);
	if (r == -EBADMSG)
		CHECK(what);
	n = lseek(fd, 0, SEEK_END);
	CHECK(n >= 0);
	out = malloc((size_t)n + 1);
	if (!out) {
		close(fd);
		return 0;
	}
	CHECK(pread(fd, out, (size_t)n, 0) == n);
	out[n] = '\0';
	for (p = out, end = out + n; p < end; lines++) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		struct klog_rec rec;
		const char *why = NULL;

		/* every record ends in '\n'; none has one inside, nor a NUL */
		CHECK(nl);
		CHECK(!memchr(p, '\0', (size_t)(nl - p)));
		*nl = '\0';
		CHECK(kmsg_parse_line(p, (size_t)(nl - p), &rec, &why) == 0);
		CHECK(rec.has_seq && rec.seq == lines);
		p = nl + 1;
	}
	/* on success, as many records as said; on failure, those before the damage */
	if (r == 0)
		CHECK(lines == records);
	free(out);
	close(fd);
	return 0;
}
