/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#include "util/kt-err.h"
#include "util/root.h"
#include "sources/kmsg.h"

/*
 * Kernel log text as people save it, told apart per line (a serial console mixes
 * kernel lines with everything else):
 *   "[    1.234567] msg"                    dmesg, busybox dmesg, console (printk.time)
 *   "[    1.234567][    T1] msg"            the same with CONFIG_PRINTK_CALLER
 *   "<6>[    1.234567] msg"                 dmesg -r, console with a level prefix
 *   "kern  :info  : [    1.234567] msg"     dmesg -x
 *   "[    1.234567 <    0.000123>] msg"     dmesg -d
 *   "[Wed Dec  2 13:01:21 2026] msg"        dmesg -T
 *   "2026-12-02T13:01:21,123456+00:00 msg"  dmesg --time-format=iso
 *   "Dec 02 13:01:21 host kernel: msg"      journalctl -k (short, short-precise), syslog
 *   "[   12.345678] host kernel: msg"       journalctl -k -o short-monotonic
 *   "2026-12-02T13:01:21+0000 host kernel: msg"  journalctl -k -o short-iso(-precise)
 * and anywhere in a line, "prefix text [    1.234567] msg" (console output after a prompt
 * or a CI runner's own timestamp). Journal lines of other programs, "-- Boot ... --"
 * and everything else are not kernel lines: counted, not reported.
 */

/*
 * 1 for a kernel log line (*ret_rec filled, strings point into @line), 0 for other
 * text, -EINVAL with *reterr_what for a line that cannot be text (a NUL byte) or a
 * damaged kernel line (a timestamp no kernel prints). *ret_rec is undefined unless
 * 1 is returned. A trailing '\r' is ignored.
 */
int dmesg_parse_line(const char *line, size_t len, struct klog_rec *ret_rec,
		     const char **reterr_what);

/*
 * The time and host a journal or syslog line of any program starts with ("mar 29
 * 18:37:56 host ", "2026-12-02T13:01:21+0000 host "): its length, or 0. Such a line
 * that dmesg_parse_line() does not take is another program's.
 */
size_t dmesg_syslog_head(const char *line, size_t len);

struct dmesg_stats {
	uint64_t lines;
	uint64_t records;
	uint64_t by_format[KLOG_FORMAT__MAX];
	uint64_t other_lines;		/* not kernel log lines: skipped */
	uint64_t malformed;		/* reported through bad_line */
};

struct dmesg_parser;

int dmesg_parser_new(const char *path, const struct klog_parser_ops *ops, void *userdata,
		     struct dmesg_parser **ret_parser);
struct dmesg_parser *dmesg_parser_free(struct dmesg_parser *p);
/*
 * Feeds one line (without its newline); kernel lines go to ops->record at once. Other
 * lines are counted, malformed ones reported too: 0. Negative only for the callback's
 * error.
 */
int dmesg_parser_feed(struct dmesg_parser *p, const char *line, size_t len);
/*
 * dmesg_parser_feed() in two steps, for lines parsed on other threads: dmesg_parse() is
 * dmesg_parse_line() with the parser's limit on line length (-E2BIG), pure;
 * dmesg_parser_feed_parsed() takes what it returned, lines in order.
 */
int dmesg_parse(const char *line, size_t len, struct klog_rec *ret_rec, const char **reterr_what);
/*
 * The kernel's own "[%5lu.%06lu]" at the start of @line, at most five digits of
 * seconds: its length (DMESG_TIME_LEN) with *@ret_usec, or 0. Of two lines that start
 * so and go on alike, dmesg_parse() gives the same record but for the time.
 */
#define DMESG_TIME_LEN 14
size_t dmesg_time_prefix(const char *line, size_t len, uint64_t *ret_usec);
/*
 * The same answer without reading the time, in a few instructions: inline, for it is
 * asked of every line of a dense log.
 */
static inline size_t dmesg_time_shape(const char *line, size_t len)
{
	uint64_t usec;

#if defined(__x86_64__)
	/* 16 bytes at once, when there are: one bit a byte for each class it may be in */
	if (len >= 16) {
		const __m128i v = _mm_loadu_si128((const __m128i *)line);
		const __m128i d = _mm_sub_epi8(v, _mm_set1_epi8('0'));
		const __m128i fixed = _mm_setr_epi8('[', 0, 0, 0, 0, 0, '.', 0, 0, 0, 0, 0, 0, ']',
						    0, 0);
		unsigned int dig, sp, fix, lead;

		dig = (unsigned int)_mm_movemask_epi8(
			_mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d));
		sp = (unsigned int)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')));
		fix = (unsigned int)_mm_movemask_epi8(_mm_cmpeq_epi8(v, fixed));
		/* "[" 0, "." 6, "]" 13; digits 5 and 7..12; 1..4 spaces then digits */
		lead = (sp >> 1) & 0xf;
		if ((fix & 0x2041) != 0x2041 || (dig & 0x1fa0) != 0x1fa0 ||
		    ((dig | sp) & 0x1e) != 0x1e || (lead & (lead + 1)))
			return 0;
		return DMESG_TIME_LEN;
	}
#endif
	return dmesg_time_prefix(line, len, &usec);
}
int dmesg_parser_feed_parsed(struct dmesg_parser *p, int parsed, const struct klog_rec *rec,
			     const char *what);
/*
 * @n more lines, each a record of @format without a host that dmesg_parse() gave: what
 * dmesg_parser_feed_parsed() counts of them, without calling ops->record (the caller
 * passes them on). 0, or -EAGAIN when a journal's host is known, so that such a line
 * may be another program's (feed them one by one then).
 */
int dmesg_parser_feed_records(struct dmesg_parser *p, enum klog_format format, uint64_t n);
/* A line the reader refused (too long, NUL byte): counted and reported as @what. 0. */
int dmesg_parser_skip_line(struct dmesg_parser *p, const char *what);
int dmesg_parser_finish(struct dmesg_parser *p);
/* Owned by @p; valid until dmesg_parser_free(). */
const struct dmesg_stats *dmesg_parser_stats(const struct dmesg_parser *p);

int dmesg_read_file(FILE *f, const char *path, const struct klog_parser_ops *ops,
		    void *userdata, struct dmesg_stats *ret_stats, struct kt_err *reterr);
