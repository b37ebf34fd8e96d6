/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "sources/boot-id.h"
#include "sources/trace/instance.h"

/*
 * `report --boot [N]`: where a boot's capture is. For this boot (N = 0), the global
 * trace buffer when the kernel command line set it up (`kmodtop boot-setup`), with
 * the kernel log from /dev/kmsg while it holds the boot's first record (it has the
 * sequence numbers and device dictionaries), else from journald's copy of that boot
 * (journalctl -k -b ID; under a root, its var/log/journal when it has no capture/
 * log of kmodtop's own); else the bundle kmodtop-boot.service wrote for this
 * boot id, ROOT/var/lib/kmodtop/boot-ID (ROOT/run/kmodtop/boot-ID before it is
 * moved there). For an earlier boot (N < 0), the N-th newest
 * bundle of another boot id. Under --root, the root's copies of the same files.
 */
#define BOOT_BUNDLE_DIR "var/lib/kmodtop"
/* where kmodtop-boot.service records (the only file system writable before udevd) */
#define BOOT_RUN_DIR "run/kmodtop"

enum boot_source {
	BOOT_SOURCE_CMDLINE,		/* the global trace buffer the command line filled */
	BOOT_SOURCE_BUNDLE,		/* a bundle of kmodtop-boot.service */
};

struct boot_capture {
	enum boot_source source;
	char boot_id[BOOT_ID_LEN + 1];	/* "" when unknown */
	char *bundle;			/* BOOT_SOURCE_BUNDLE: the bundle, an absolute path */
	/* live, BOOT_SOURCE_CMDLINE: tracefs's trace file and the kernel log so far */
	int trace_fd, log_fd;
	char *trace_name;		/* "/sys/kernel/tracing/trace" */
	/*
	 * Where log_fd's records come from: "/dev/kmsg", or "journalctl -k -b ID" when
	 * the kernel's ring buffer lost the boot's first records and journald kept them
	 */
	char *log_name;
	bool log_partial;		/* /dev/kmsg without its first records, no journal */
	/*
	 * journalctl asked for the log and failed: -ENOENT when it cannot be run, -EBADMSG
	 * for output not in the export format (@journal_what says how, static text). 0
	 * when not asked or it had the log or no record of that boot.
	 */
	int journal_err;
	const char *journal_what;
	/*
	 * Live: what of the command line's setup the global buffer has lost (events
	 * disabled, overwrite on) since boot, when something has: someone may have
	 * reset or reused it, and what it holds may not be the boot's. "" when none.
	 */
	char changed[160];
	/* per_cpu/cpuN/stats: events the full buffer dropped or overwrote */
	bool has_lost;
	uint64_t lost;
	unsigned int bundles;		/* boot bundles found (every boot id) */
};

/*
 * Finds boot @n's capture under @root_path (NULL: "/"). 0; -ENOENT when there is none
 * (@ret_why says what was looked for, static text); -errno.
 */
int boot_capture_find(const char *root_path, int n, struct boot_capture *bc,
		      const char **ret_why);
void boot_capture_done(struct boot_capture *bc);

/* --boot=N: 0, -1, -2... as journalctl -b counts back (at most 100000). 0 or -EINVAL */
int boot_capture_parse_index(const char *s, int32_t *ret);

/*
 * Does a kernel command line (/proc/cmdline) trace module events from boot: a
 * trace_event= word naming module:EVENT, module:* or module: among its events?
 */
bool boot_capture_cmdline_traces(const char *cmdline);

