/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/kt-err.h"
#include "util/root.h"

/*
 * One kernel log record, whatever text it came from: /dev/kmsg (kmsg.c) or the
 * dmesg / journalctl / syslog / serial-console renderings (dmesg-text.c).
 */
enum klog_format {
	/* /dev/kmsg: "6,339,5140900,-;msg" + " KEY=value" lines */
	KLOG_FORMAT_KMSG,
	/* "[    1.234567] msg": dmesg, busybox, serial console */
	KLOG_FORMAT_DMESG,
	KLOG_FORMAT_DMESG_CTIME,	/* dmesg -T: "[Wed Dec  2 13:01:21 2026] msg" */
	/* dmesg --time-format=iso: "2026-12-02T13:01:21,123456+00:00 msg" */
	KLOG_FORMAT_DMESG_ISO,
	/* dmesg -H: "[Jan18 08:23] msg", then "[  +0.000031] msg" deltas */
	KLOG_FORMAT_DMESG_HUMAN,
	/* "Dec 02 13:01:21 host kernel: msg" (also syslog files) */
	KLOG_FORMAT_JOURNAL_SHORT,
	KLOG_FORMAT_JOURNAL_MONOTONIC,	/* "[   12.345678] host kernel: msg" */
	KLOG_FORMAT_JOURNAL_ISO,	/* "2026-12-02T13:01:21+0000 host kernel: msg" */
	KLOG_FORMAT__MAX
};

struct klog_rec {
	enum klog_format format;
	/*
	 * Seconds: since boot when has_monotonic, else wall clock (wall_sec + wall_usec).
	 * Both are known for syslog lines that carry the kernel's "[ 1.234567]" inside.
	 */
	double ts;
	bool has_monotonic;
	uint64_t usec;			/* since boot, exact, when has_monotonic */
	bool has_wallclock;
	/* since the epoch: UTC when wall_has_tz, else local time */
	int64_t wall_sec;
	uint32_t wall_usec;
	/* false for "Dec 02 13:01:21": counted from 1970 */
	bool wall_has_year;
	bool wall_has_tz;
	int facility;			/* -1 when the format does not say */
	int level;			/* 0 (emerg) .. 7 (debug), -1 when not known */
	bool has_seq;
	uint64_t seq;			/* kmsg sequence number */
	/* kmsg: '-', 'c' or '+' (continuation: see kmsg_parser_feed()); else 0 */
	char kmsg_flags;
	/* 'T' (task) or 'C' (CPU) with CONFIG_PRINTK_CALLER, else 0 */
	char caller_kind;
	uint32_t caller_id;
	/* Raw bytes (kmsg's \xNN escapes decoded), not NUL-terminated, maybe not UTF-8 */
	const char *msg;
	size_t msg_len;
	/* kmsg: the dictionary, "SUBSYSTEM=acpi\nDEVICE=+acpi:PNP0A03:00\n", or empty */
	const char *dict;
	size_t dict_len;
	const char *host;		/* journal/syslog formats, else NULL */
	size_t host_len;
	/* bytes of other text before the record on its line */
	size_t prefix_len;
};

const char *klog_format_name(enum klog_format f);

/* --- /dev/kmsg --------------------------------------------------------------------- */

/*
 * The kernel's devkmsg_read() format (kernel/printk/printk.c info_print_ext_header()):
 * "%u,%llu,%llu,%c[,caller=T%u];" then the text with bytes < 0x20, >= 0x7f and '\'
 * written as \xNN, then '\n'; then one " KEY=value\n" line per dictionary entry.
 *
 * Parses one line in place (the escapes are decoded into @line). 0 for a record line;
 * 1 for a dictionary line, when only ret_rec->dict/dict_len are set (to "KEY=value");
 * -EINVAL with *reterr_what for a malformed line.
 */
int kmsg_parse_line(char *line, size_t len, struct klog_rec *ret_rec,
		    const char **reterr_what);

/* Decodes \xNN escapes; @dst may be @src. Returns the new length. */
size_t kmsg_unescape(const char *src, size_t len, char *dst);

struct kmsg_stats {
	uint64_t lines;
	uint64_t records;
	uint64_t dict_lines;
	uint64_t malformed;		/* lines skipped, reported through bad_line */
	uint64_t seq_gaps;		/* records missing between sequence numbers */
	uint64_t seq_restarts;		/* the sequence went backwards (another boot) */
	uint64_t joined;		/* continuation records joined to the one before */
};

struct klog_parser_ops {
	/* A complete record; valid only during the call. A negative return stops. */
	int (*record)(void *userdata, const struct klog_rec *rec);
	/* A skipped line. Optional. */
	void (*bad_line)(void *userdata, const struct kt_err *err);
};

struct kmsg_parser;

int kmsg_parser_new(const char *path, const struct klog_parser_ops *ops, void *userdata,
		    struct kmsg_parser **ret_parser);
struct kmsg_parser *kmsg_parser_free(struct kmsg_parser *p);
/*
 * Feeds one line without its newline (a live /dev/kmsg read() returns one record: feed
 * each of its lines). A record is emitted when the next record line or finish() comes,
 * so its dictionary is complete, and its continuation records are joined to it: a
 * '+' record (3.5 to 4.8), or a 'c' record of the same caller (caller=, 5.1+), right
 * after it in the sequence (see kmsg_continues()). Malformed lines are counted,
 * reported and skipped: 0. Negative only for -ENOMEM or the callback's error.
 */
int kmsg_parser_feed(struct kmsg_parser *p, const char *line, size_t len);
/*
 * A line the reader refused (too long, NUL byte), reported as @what. It may have been
 * a record or a dictionary line: the pending record goes out now, and dictionary lines
 * up to the next record are dropped. Returns what the callback returned.
 */
int kmsg_parser_skip_line(struct kmsg_parser *p, const char *what);
int kmsg_parser_finish(struct kmsg_parser *p);
/* Owned by @p; valid until kmsg_parser_free(). */
const struct kmsg_stats *kmsg_parser_stats(const struct kmsg_parser *p);

/* A saved /dev/kmsg dump ("capture/kmsg.raw"). 0 or -errno; @ret_stats may be NULL. */
int kmsg_read_file(FILE *f, const char *path, const struct klog_parser_ops *ops,
		   void *userdata, struct kmsg_stats *ret_stats, struct kt_err *reterr);
