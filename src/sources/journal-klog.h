/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

/*
 * The kernel log of one boot as systemd-journald keeps it, through journalctl(1) in
 * its export format (systemd's "Journal Export Format": FIELD=value lines, binary
 * fields with a 64-bit length, a blank line after each entry):
 *
 *	journalctl [--directory=DIR] -k -b BOOT_ID -o export --output-fields=...
 *
 * journald reads /dev/kmsg from the oldest record when it starts, so it keeps the
 * early boot even when the kernel's ring buffer has since wrapped. Each kernel record
 * is written to @out_fd as /dev/kmsg would give it ("PRI,SEQ,USEC,-;text" with
 * \xNN escapes), with the record's own time (_SOURCE_MONOTONIC_TIMESTAMP, the kmsg
 * timestamp journald stores) and sequence numbers counted from 0 (journald keeps
 * none), so that the kmsg parser reads it like a dump of /dev/kmsg.
 *
 * @journal_dir: NULL for the system's journal, else a directory of journal files
 * (ROOT/var/log/journal). @boot_id: 32 hex digits. @journalctl: the program (NULL:
 * "journalctl" from PATH).
 *
 * 0 with *ret_records > 0; -ENOENT when journalctl cannot be run; -ENODATA when the
 * journal has no kernel record of that boot; -EBADMSG for output that is not the
 * export format (*reterr_what says what); -errno.
 */
int journal_klog_dump(const char *journalctl, const char *journal_dir, const char *boot_id,
		      int out_fd, uint64_t *ret_records, const char **reterr_what);

/*
 * The export format's entries from a buffer, for the parser alone (tests, fuzzing):
 * as journal_klog_dump() writes them to @out_fd. 0 or -EBADMSG/-errno.
 */
int journal_klog_convert(const char *buf, size_t len, int out_fd, uint64_t *ret_records,
			 const char **reterr_what);
