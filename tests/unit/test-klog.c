/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sources/dmesg-text.h"
#include "sources/kmsg.h"
#include "sources/kmsg-follow.h"
#include "ledger/klog-findings.h"

#ifndef FIXTURES_DIR
#define FIXTURES_DIR "tests/fixtures"
#endif

#define assert_mem(ptr, len, lit)                                              \
	do {                                                                   \
		assert_int_equal((len), strlen(lit));                          \
		if (len)                                                       \
			assert_memory_equal((ptr), (lit), (len));              \
	} while (0)

/* --- /dev/kmsg lines ---------------------------------------------------------------- */

static int kmsg_line(const char *line, struct klog_rec *rec, const char **what)
{
	static char buf[4096];
	size_t len = strlen(line);

	assert_true(len < sizeof(buf));
	memcpy(buf, line, len + 1);
	*what = NULL;
	return kmsg_parse_line(buf, len, rec, what);
}

static void test_kmsg_parse_line(void **state)
{
	struct klog_rec rec;
	const char *what;

	/* debian-6.12-xz capture/kmsg.raw */
	assert_int_equal(kmsg_line("4,350,10607831,-;nfs: Unknown symbol rpc_put_task (err -2)",
				   &rec, &what),
			 0);
	assert_int_equal(rec.format, KLOG_FORMAT_KMSG);
	assert_int_equal(rec.level, 4);
	assert_int_equal(rec.facility, 0);
	assert_true(rec.has_seq);
	assert_int_equal(rec.seq, 350);
	assert_true(rec.has_monotonic);
	assert_int_equal(rec.usec, 10607831);
	assert_true(fabs(rec.ts - 10.607831) < 1e-9);
	assert_int_equal(rec.kmsg_flags, '-');
	assert_mem(rec.msg, rec.msg_len, "nfs: Unknown symbol rpc_put_task (err -2)");

	/* the kernel escapes control bytes and '\' itself: decoded to raw bytes */
	assert_int_equal(kmsg_line("6,92,232344,-;rcu: \\x09RCU event tracing is enabled.", &rec,
				   &what),
			 0);
	assert_mem(rec.msg, rec.msg_len, "rcu: \tRCU event tracing is enabled.");
	assert_int_equal(kmsg_line("6,283,1659334,-;ACPI: \\x5c_SB_.LNKC: Enabled at IRQ 11", &rec,
				   &what),
			 0);
	assert_mem(rec.msg, rec.msg_len, "ACPI: \\_SB_.LNKC: Enabled at IRQ 11");
	assert_int_equal(kmsg_line("3,346,4239836,-;Invalid ELF header magic: != \\x7fELF", &rec,
				   &what),
			 0);
	assert_mem(rec.msg, rec.msg_len, "Invalid ELF header magic: != \177ELF");
	assert_int_equal(rec.level, 3);

	/* CONFIG_PRINTK_CALLER, a userspace facility, a continuation flag, an empty text */
	assert_int_equal(kmsg_line("14,5,6,c,caller=T1234,future=1;hello", &rec, &what), 0);
	assert_int_equal(rec.facility, 1);
	assert_int_equal(rec.level, 6);
	assert_int_equal(rec.kmsg_flags, 'c');
	assert_int_equal(rec.caller_kind, 'T');
	assert_int_equal(rec.caller_id, 1234);
	assert_int_equal(kmsg_line("6,7,8,-;", &rec, &what), 0);
	assert_int_equal(rec.msg_len, 0);

	/* an escape sequence in the text comes out as the raw ESC byte */
	assert_int_equal(kmsg_line("6,7,8,-;\\x1b[31mred\\x1b[0m\\x0anext line", &rec, &what), 0);
	assert_mem(rec.msg, rec.msg_len, "\x1b[31mred\x1b[0m\nnext line");

	/* a dictionary line */
	assert_int_equal(kmsg_line(" DEVICE=+acpi:PNP0A03:00", &rec, &what), 1);
	assert_mem(rec.dict, rec.dict_len, "DEVICE=+acpi:PNP0A03:00");
}

static void test_kmsg_malformed(void **state)
{
	static const char *const bad[] = {
		"6,339",			/* truncated: no ';' */
		"6,339,5140900;msg",		/* a field missing */
		"x,1,2,-;msg",			/* non-numeric */
		"6,1x,2,-;msg",
		"6,1,-2,-;msg",
		"6,1,2,--;msg",			/* flags are one character */
		",,,;msg",
		"",
		"plain text",
		" NOEQUALS",			/* dictionary line without '=' */
		" =value",
	};
	struct klog_rec rec;
	const char *what;
	size_t i;
	char nul[] = "6,1,2,-;a\0b";

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (kmsg_line(bad[i], &rec, &what) != -EINVAL)
			fail_msg("accepted: \"%s\"", bad[i]);
		assert_non_null(what);
	}
	assert_int_equal(kmsg_parse_line(nul, sizeof(nul) - 1, &rec, &what), -EINVAL);
	assert_string_equal(what, "line contains a NUL byte");
}

struct recs {
	struct klog_rec rec[32];
	char msg[32][128];
	char dict[32][128];
	size_t n;
	unsigned int bad_lines[16];
	const char *bad_what[16];
	size_t n_bad;
};

static int collect(void *userdata, const struct klog_rec *rec)
{
	struct recs *c = userdata;

	if (c->n < 32) {
		c->rec[c->n] = *rec;
		snprintf(c->msg[c->n], sizeof(c->msg[0]), "%.*s", (int)rec->msg_len, rec->msg);
		snprintf(c->dict[c->n], sizeof(c->dict[0]), "%.*s", (int)rec->dict_len,
			 rec->dict ? rec->dict : "");
	}
	c->n++;
	return 0;
}

static void collect_bad(void *userdata, const struct kt_err *err)
{
	struct recs *c = userdata;

	if (c->n_bad < 16) {
		c->bad_lines[c->n_bad] = err->line;
		c->bad_what[c->n_bad] = err->what;
	}
	c->n_bad++;
}

static const struct klog_parser_ops collect_ops = { .record = collect, .bad_line = collect_bad };

static void test_kmsg_parser(void **state)
{
	/* debian-6.12-xz capture/kmsg.raw lines 184-188, then hostile lines */
	static const char *const lines[] = {
		"6,183,991273,-;ACPI: PCI Root Bridge [PCI0] (domain 0000 [bus 00-ff])",
		"6,184,991972,-;acpi PNP0A03:00: _OSC: OS supports [ASPM ClockPM Segments MSI HPX-Type3]",
		" SUBSYSTEM=acpi",
		" DEVICE=+acpi:PNP0A03:00",
		"6,185,992137,-;acpi PNP0A03:00: _OSC: not requesting OS control; OS requires [ExtendedConfig ASPM ClockPM MSI]\r",
		"6,190,1,-;a gap of four records",	/* line 6 */
		"6,garbage",				/* line 7: malformed */
		" SUBSYSTEM=dropped_with_it",		/* line 8: swallowed */
		"6,191,2,-;dict escapes",		/* line 9 */
		" DEVICE=+x\\x5cy",
		" broken",				/* line 11: malformed dict */
		"6,3,3,-;next boot",			/* line 12: the sequence restarts */
	};
	struct recs *c = calloc(1, sizeof(*c));
	struct kmsg_parser *p;
	const struct kmsg_stats *st;
	size_t i;

	assert_non_null(c);
	assert_int_equal(kmsg_parser_new("capture/kmsg.raw", &collect_ops, c, &p), 0);
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		assert_int_equal(kmsg_parser_feed(p, lines[i], strlen(lines[i])), 0);
	/* the last record waits for its dictionary */
	assert_int_equal(c->n, 5);
	assert_int_equal(kmsg_parser_finish(p), 0);
	assert_int_equal(c->n, 6);

	assert_string_equal(c->dict[0], "");
	assert_null(c->rec[0].dict);
	assert_string_equal(c->msg[1],
			    "acpi PNP0A03:00: _OSC: OS supports [ASPM ClockPM Segments MSI HPX-Type3]");
	assert_string_equal(c->dict[1], "SUBSYSTEM=acpi\nDEVICE=+acpi:PNP0A03:00\n");
	assert_int_equal(c->rec[2].seq, 185);
	assert_string_equal(c->msg[2], "acpi PNP0A03:00: _OSC: not requesting OS control; OS "
				       "requires [ExtendedConfig ASPM ClockPM MSI]");
	assert_string_equal(c->msg[3], "a gap of four records");
	assert_string_equal(c->dict[3], "");
	assert_string_equal(c->msg[4], "dict escapes");
	assert_string_equal(c->dict[4], "DEVICE=+x\\y\n");
	assert_string_equal(c->msg[5], "next boot");

	assert_int_equal(c->n_bad, 2);
	assert_int_equal(c->bad_lines[0], 7);
	assert_int_equal(c->bad_lines[1], 11);
	assert_string_equal(c->bad_what[1], "dictionary line is not KEY=value");

	st = kmsg_parser_stats(p);
	assert_int_equal(st->lines, 12);
	assert_int_equal(st->records, 6);
	assert_int_equal(st->dict_lines, 3);
	assert_int_equal(st->malformed, 2);
	assert_int_equal(st->seq_gaps, 4 + 0);
	assert_int_equal(st->seq_restarts, 1);
	kmsg_parser_free(p);
	free(c);
}

/*
 * Continuation records as kernels write them to /dev/kmsg: 3.5 to 4.8 flag the first
 * fragment of a line printk could not merge 'c' and each one after it '+'; 4.9 and
 * later write no '+', and a 'c' (a KERN_CONT that could not be added to its line) is
 * joined only when caller= shows it is the same task's as the record before it.
 */
static void test_kmsg_continuation(void **state)
{
	static const char *const lines[] = {
		/* 4.4: an oops's module list, another CPU's printk between its pieces */
		"4,1523,96543210,c;Modules linked in: xfs libcrc32c",	/* 1 */
		" SUBSYSTEM=first",
		"4,1524,96543388,+; crc32c_generic",
		"4,1525,96543390,+; [last unloaded: nfs]",
		" SUBSYSTEM=third",
		"6,1526,96544000,-;e1000: eth0 NIC Link is Up",		/* 6: a line of its own */
		/* 4.4: a finding split so, classified once joined */
		"4,1527,96550000,c;nfs: Unknown symbol ",			/* 7 */
		"4,1528,96550001,+;rpc_put_task (err -2)",
		/* a '+' after records lost (seq 1530 missing): not joined to 1529 */
		"4,1529,96560000,c;before the gap",				/* 9 */
		"4,1531,96560002,+;after the gap",
		/* 6.x, CONFIG_PRINTK_CALLER: the line outgrew its record, same task */
		"4,900,5000000,-,caller=T412;Modules linked in: sctp ip6_udp_tunnel",	/* 11 */
		"4,901,5000001,c,caller=T412; udp_tunnel af_key",
		/* another task's record, then the first task's pr_cont(): not joined */
		"6,902,5000002,-,caller=T97;usb 1-1: new high-speed USB device",	/* 13 */
		"4,903,5000003,c,caller=T412; xfrm_algo",
		/* a '+' from another caller (never written by a kernel): not joined */
		"4,904,5000004,+,caller=C1; not mine",				/* 15 */
		/* 4.9+ without caller ids: which record a 'c' continues is unknown */
		"6,905,5000005,-;eth0: renamed from",				/* 16 */
		"6,906,5000006,c; veth1",
	};
	struct recs *c = calloc(1, sizeof(*c));
	struct kmsg_parser *p;
	struct klog_finding f;
	const struct kmsg_stats *st;

	assert_non_null(c);
	assert_int_equal(kmsg_parser_new("kmsg.raw", &collect_ops, c, &p), 0);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		assert_int_equal(kmsg_parser_feed(p, lines[i], strlen(lines[i])), 0);
	assert_int_equal(kmsg_parser_finish(p), 0);
	assert_int_equal(c->n_bad, 0);
	assert_int_equal(c->n, 11);

	assert_string_equal(c->msg[0], "Modules linked in: xfs libcrc32c crc32c_generic "
					"[last unloaded: nfs]");
	/* the first fragment's header, every fragment's dictionary */
	assert_int_equal(c->rec[0].seq, 1523);
	assert_int_equal(c->rec[0].usec, 96543210);
	assert_int_equal(c->rec[0].level, 4);
	assert_string_equal(c->dict[0], "SUBSYSTEM=first\nSUBSYSTEM=third\n");
	assert_string_equal(c->msg[1], "e1000: eth0 NIC Link is Up");
	assert_string_equal(c->msg[2], "nfs: Unknown symbol rpc_put_task (err -2)");
	memset(&f, 0, sizeof(f));
	assert_int_equal(klog_classify(c->msg[2], strlen(c->msg[2]), &f), 1);
	assert_int_equal(f.kind, KLOG_FINDING_UNKNOWN_SYMBOL);
	assert_mem(f.module, f.module_len, "nfs");
	assert_mem(f.symbol, f.symbol_len, "rpc_put_task");
	assert_string_equal(c->msg[3], "before the gap");
	assert_string_equal(c->msg[4], "after the gap");
	assert_string_equal(c->msg[5],
			    "Modules linked in: sctp ip6_udp_tunnel udp_tunnel af_key");
	assert_int_equal(c->rec[5].caller_id, 412);
	assert_string_equal(c->msg[6], "usb 1-1: new high-speed USB device");
	assert_string_equal(c->msg[7], " xfrm_algo");
	assert_int_equal(c->rec[7].kmsg_flags, 'c');
	assert_string_equal(c->msg[8], " not mine");
	assert_string_equal(c->msg[9], "eth0: renamed from");
	assert_string_equal(c->msg[10], " veth1");

	st = kmsg_parser_stats(p);
	assert_int_equal(st->lines, 17);
	assert_int_equal(st->records, 11);
	assert_int_equal(st->joined, 4);
	assert_int_equal(st->dict_lines, 2);
	assert_int_equal(st->seq_gaps, 1);
	/* 1523 to 1531, then 900: one restart */
	assert_int_equal(st->seq_restarts, 1);
	kmsg_parser_free(p);

	/* a chain is never longer than a line: the fragment past 64 KiB starts a record */
	{
		size_t half = 40 * 1024;
		char *a = malloc(half + 32), *b = malloc(half + 32);

		assert_non_null(a);
		assert_non_null(b);
		memset(c, 0, sizeof(*c));
		assert_int_equal(kmsg_parser_new("kmsg.raw", &collect_ops, c, &p), 0);
		memcpy(a, "4,1,1,c;", 8);
		memset(a + 8, 'a', half);
		memcpy(b, "4,2,2,+;", 8);
		memset(b + 8, 'b', half);
		assert_int_equal(kmsg_parser_feed(p, a, half + 8), 0);
		assert_int_equal(kmsg_parser_feed(p, b, half + 8), 0);
		assert_int_equal(kmsg_parser_feed(p, "4,3,3,+;tail", 12), 0);
		assert_int_equal(kmsg_parser_finish(p), 0);
		assert_int_equal(c->n, 2);
		assert_int_equal(c->rec[0].msg_len, half);
		assert_int_equal(c->rec[1].msg_len, half + 4);
		assert_int_equal(kmsg_parser_stats(p)->joined, 1);
		kmsg_parser_free(p);
		free(a);
		free(b);
	}
	free(c);
}

/*
 * A fake /dev/kmsg: one record a read(), as devkmsg_read() returns them, or an error.
 * EPIPE is what the kernel returns once when records were overwritten before they
 * were read; the read after it returns the oldest record still there.
 */
struct fake_kmsg {
	const char *const *steps;	/* a record's text, or NULL: fail with errs[i] */
	const int *errs;
	size_t n, at;
};

static ssize_t fake_kmsg_read(int fd, void *buf, size_t len, void *userdata)
{
	struct fake_kmsg *fk = userdata;
	size_t i = fk->at;

	if (i >= fk->n) {
		errno = EAGAIN;
		return -1;
	}
	fk->at++;
	if (!fk->steps[i]) {
		errno = fk->errs[i];
		return -1;
	}
	assert_true(strlen(fk->steps[i]) <= len);
	memcpy(buf, fk->steps[i], strlen(fk->steps[i]));
	return (ssize_t)strlen(fk->steps[i]);
}

static void test_kmsg_follow_epipe(void **state)
{
	static const char *const steps[] = {
		"6,100,5000000,-;first\n",
		"6,101,5000100,-;second\n SUBSYSTEM=usb\n",
		NULL,					/* EPIPE: 102 to 149 overwritten */
		"4,150,9000000,-;oldest left\n",
		"4,151,9000001,-;after it\n",
		NULL,					/* EAGAIN: nothing more now */
		"3,152,9500000,-;next poll\n",
		NULL,					/* EPIPE again: 153 to 159 */
		NULL,					/* EINTR: read again */
		"3,160,9600000,-;last\n",
	};
	static const int errs[] = { 0, 0, EPIPE, 0, 0, EAGAIN, 0, EPIPE, EINTR, 0 };
	static const char spooled[] = "6,100,5000000,-;first\n6,101,5000100,-;second\n"
				      " SUBSYSTEM=usb\n4,150,9000000,-;oldest left\n"
				      "4,151,9000001,-;after it\n3,152,9500000,-;next poll\n"
				      "3,160,9600000,-;last\n";
	struct fake_kmsg fk = { steps, errs, sizeof(steps) / sizeof(steps[0]), 0 };
	struct recs *c = calloc(1, sizeof(*c));
	const struct kmsg_follow_stats *st;
	struct kmsg_follow *kf = NULL;
	char buf[512];
	FILE *spool = tmpfile();
	size_t n;

	assert_non_null(c);
	assert_non_null(spool);
	assert_int_equal(kmsg_follow_open("/dev/null", false, &collect_ops, c, fileno(spool), &kf),
			 0);
	kmsg_follow_set_read(kf, fake_kmsg_read, &fk);

	/* the first poll: up to EAGAIN, through the first EPIPE */
	assert_int_equal(kmsg_follow_read(kf), 0);
	assert_int_equal(fk.at, 6);
	st = kmsg_follow_stats(kf);
	assert_int_equal(st->reads, 4);
	assert_int_equal(st->epipe, 1);
	assert_int_equal(st->lost, 48);
	/* the last record waits for the dictionary lines it may still get */
	assert_int_equal(c->n, 3);
	assert_string_equal(c->msg[1], "second");
	assert_string_equal(c->dict[1], "SUBSYSTEM=usb\n");
	assert_string_equal(c->msg[2], "oldest left");

	/* the next poll: another EPIPE, an EINTR */
	assert_int_equal(kmsg_follow_read(kf), 0);
	assert_int_equal(kmsg_follow_finish(kf), 0);
	st = kmsg_follow_stats(kf);
	assert_int_equal(st->reads, 6);
	assert_int_equal(st->epipe, 2);
	assert_int_equal(st->lost, 48 + 7);
	assert_int_equal(st->bytes, strlen(spooled));
	assert_int_equal(kmsg_follow_parser_stats(kf)->seq_gaps, 55);
	assert_int_equal(c->n, 6);
	assert_string_equal(c->msg[5], "last");
	assert_int_equal(c->rec[5].seq, 160);

	/* the spool has the records as read, nothing for the errors */
	rewind(spool);
	n = fread(buf, 1, sizeof(buf) - 1, spool);
	buf[n] = '\0';
	assert_string_equal(buf, spooled);

	/* any other error stops the reading, and says which */
	{
		static const char *const bad[] = { "6,161,9700000,-;x\n", NULL };
		static const int bad_errs[] = { 0, EIO };
		struct fake_kmsg fb = { bad, bad_errs, 2, 0 };

		kmsg_follow_set_read(kf, fake_kmsg_read, &fb);
		assert_int_equal(kmsg_follow_read(kf), -EIO);
		assert_int_equal(kmsg_follow_stats(kf)->epipe, 2);
	}
	kmsg_follow_free(kf);
	fclose(spool);
	free(c);
}

static void test_kmsg_read_file_hostile(void **state)
{
	size_t big = 1024 * 1024, n = 0;
	char *text = malloc(big + 256);
	struct recs *c = calloc(1, sizeof(*c));
	struct kmsg_stats st;
	struct kt_err err = {0};
	FILE *f;

	assert_non_null(text);
	assert_non_null(c);
	n += (size_t)sprintf(text + n, " ORPHAN=1\n");		/* 1: dict without record */
	n += (size_t)sprintf(text + n, "6,1,1,-;first\n");	/* 2 */
	n += (size_t)sprintf(text + n, "6,2,2,-;");		/* 3: 1 MiB line */
	memset(text + n, 'x', big);
	n += big;
	text[n++] = '\n';
	n += (size_t)sprintf(text + n, " DEVICE=lost\n");	/* 4: dropped with line 3 */
	memcpy(text + n, "6,3,3,-;a\0b\n", 12);		/* 5: NUL byte */
	n += 12;
	n += (size_t)sprintf(text + n, "6,4,4,-;last");	/* 6: no final newline */

	f = fmemopen(text, n, "r");
	assert_non_null(f);
	assert_int_equal(kmsg_read_file(f, "kmsg.raw", &collect_ops, c, &st, &err), 0);
	fclose(f);
	assert_int_equal(c->n, 2);
	assert_string_equal(c->msg[0], "first");
	assert_string_equal(c->dict[0], "");
	assert_string_equal(c->msg[1], "last");
	assert_int_equal(st.malformed, 3);
	assert_int_equal(c->bad_lines[0], 1);
	assert_int_equal(c->bad_lines[1], 3);
	assert_string_equal(c->bad_what[1], "line too long");
	assert_int_equal(c->bad_lines[2], 5);
	assert_string_equal(c->bad_what[2], "line contains a NUL byte");

	/* empty input */
	memset(c, 0, sizeof(*c));
	f = fmemopen(text, 0, "r");
	if (f) {
		assert_int_equal(kmsg_read_file(f, "kmsg.raw", &collect_ops, c, &st, &err), 0);
		fclose(f);
		assert_int_equal(st.lines, 0);
		assert_int_equal(c->n, 0);
	}
	free(text);
	free(c);
}

/* --- dmesg, journalctl, syslog, consoles ------------------------------------------------ */

static int dline(const char *line, struct klog_rec *rec)
{
	const char *what = NULL;

	return dmesg_parse_line(line, strlen(line), rec, &what);
}

static void test_dmesg_formats(void **state)
{
	struct klog_rec rec;

	/* capture/dmesg.txt (busybox) */
	assert_int_equal(dline("[   10.607831] nfs: Unknown symbol rpc_put_task (err -2)", &rec), 1);
	assert_int_equal(rec.format, KLOG_FORMAT_DMESG);
	assert_true(rec.has_monotonic);
	assert_int_equal(rec.usec, 10607831);
	assert_false(rec.has_wallclock);
	assert_int_equal(rec.level, -1);
	assert_int_equal(rec.facility, -1);
	assert_false(rec.has_seq);
	assert_mem(rec.msg, rec.msg_len, "nfs: Unknown symbol rpc_put_task (err -2)");
	assert_int_equal(dline("[    0.232344] rcu: \tRCU event tracing is enabled.", &rec), 1);
	assert_mem(rec.msg, rec.msg_len, "rcu: \tRCU event tracing is enabled.");
	assert_int_equal(dline("[    4.239836] Invalid ELF header magic: != \177ELF", &rec), 1);
	assert_mem(rec.msg, rec.msg_len, "Invalid ELF header magic: != \177ELF");
	assert_int_equal(dline("[    0.000000] Command line: console=ttyS0 quiet panic=-1 ", &rec), 1);
	assert_mem(rec.msg, rec.msg_len, "Command line: console=ttyS0 quiet panic=-1 ");
	assert_int_equal(dline("[12345678.123456] big uptime", &rec), 1);
	assert_int_equal(rec.usec, 12345678123456ull);
	/* the edges of the fixed-offset reading and what it leaves to the general one */
	assert_int_equal(dline("[12345.678901] five digits", &rec), 1);
	assert_int_equal(rec.usec, 12345678901ull);
	assert_mem(rec.msg, rec.msg_len, "five digits");
	assert_int_equal(dline("[00001.000002]", &rec), 1);
	assert_int_equal(rec.usec, 1000002);
	assert_int_equal(rec.msg_len, 0);
	assert_int_equal(dline("[    1.2345678] seven", &rec), 1);
	assert_int_equal(rec.usec, 1234567);
	assert_int_equal(dline("[    1.234567 <    0.000123>] delta", &rec), 1);
	assert_int_equal(rec.usec, 1234567);
	assert_mem(rec.msg, rec.msg_len, "delta");
	assert_int_equal(dline("[ 1 2.345678] gap", &rec), 0);
	assert_int_equal(dline("[     .345678] none", &rec), 0);
	assert_int_equal(dline("[   1a.345678] letter", &rec), 0);
	assert_int_equal(dline("[    1.23456a] letter", &rec), 0);

	/* dmesg -T */
	assert_int_equal(dline("[Wed Dec  2 13:01:21 2026] xfs: loading", &rec), 1);
	assert_int_equal(rec.format, KLOG_FORMAT_DMESG_CTIME);
	assert_false(rec.has_monotonic);
	assert_true(rec.has_wallclock);
	assert_true(rec.wall_has_year);
	assert_false(rec.wall_has_tz);
	assert_int_equal(rec.wall_sec, 1796216481);
	assert_true(fabs(rec.ts - 1796216481.0) < 1e-6);
	assert_mem(rec.msg, rec.msg_len, "xfs: loading");

	/* journalctl -k (short, short-precise), and a syslog file with the kernel's time */
	assert_int_equal(dline("Dec 02 13:01:21 host kernel: xfs: loading", &rec), 1);
	assert_int_equal(rec.format, KLOG_FORMAT_JOURNAL_SHORT);
	assert_false(rec.wall_has_year);
	assert_int_equal(rec.wall_sec, 28990881);
	assert_mem(rec.host, rec.host_len, "host");
	assert_mem(rec.msg, rec.msg_len, "xfs: loading");
	assert_int_equal(dline("Dec 02 13:01:21.123456 host kernel: x", &rec), 1);
	assert_int_equal(rec.wall_usec, 123456);
	assert_int_equal(dline("Dec  2 13:01:21 host kernel: [   12.345678] xfs: loading", &rec), 1);
	assert_true(rec.has_monotonic);
	assert_true(rec.has_wallclock);
	assert_int_equal(rec.usec, 12345678);
	assert_true(fabs(rec.ts - 12.345678) < 1e-9);
	assert_mem(rec.msg, rec.msg_len, "xfs: loading");

	/* short-monotonic */
	assert_int_equal(dline("[   12.345678] host kernel: xfs: loading", &rec), 1);
	assert_int_equal(rec.format, KLOG_FORMAT_JOURNAL_MONOTONIC);
	assert_int_equal(rec.usec, 12345678);
	assert_mem(rec.host, rec.host_len, "host");
	assert_mem(rec.msg, rec.msg_len, "xfs: loading");

	/* short-iso, both offset spellings, and short-iso-precise */
	assert_int_equal(dline("2026-12-02T13:01:21+0000 host kernel: xfs: loading", &rec), 1);
	assert_int_equal(rec.format, KLOG_FORMAT_JOURNAL_ISO);
	assert_true(rec.wall_has_tz);
	assert_int_equal(rec.wall_sec, 1796216481);
	assert_int_equal(dline("2026-12-02T14:01:21+01:00 host kernel: x", &rec), 1);
	assert_int_equal(rec.wall_sec, 1796216481);
	assert_int_equal(dline("2026-12-02T13:01:21.500000Z host kernel: x", &rec), 1);
	assert_int_equal(rec.wall_usec, 500000);

	/* dmesg --time-format=iso */
	assert_int_equal(dline("2026-12-02T13:01:21,123456+00:00 xfs: loading", &rec), 1);
	assert_int_equal(rec.format, KLOG_FORMAT_DMESG_ISO);
	assert_int_equal(rec.wall_usec, 123456);
	assert_mem(rec.msg, rec.msg_len, "xfs: loading");

	/* dmesg -H: the minute, then deltas with no time of their own (tests/corpus 036) */
	assert_int_equal(dline("[Jan18 08:23] nvidia_fs: module using GPL-only symbols uses "
			       "symbols from proprietary module nvidia.", &rec), 1);
	assert_int_equal(rec.format, KLOG_FORMAT_DMESG_HUMAN);
	assert_true(rec.has_wallclock);
	assert_false(rec.has_monotonic);
	assert_int_equal(rec.wall_sec, 17 * 86400 + 8 * 3600 + 23 * 60);
	assert_mem(rec.msg, rec.msg_len,
		   "nvidia_fs: module using GPL-only symbols uses symbols from proprietary "
		   "module nvidia.");
	assert_int_equal(dline("[Jan 8 08:23] x", &rec), 1);
	assert_int_equal(rec.wall_sec, 7 * 86400 + 8 * 3600 + 23 * 60);
	assert_int_equal(dline("[  +0.000031] nvidia_fs: Unknown symbol nvidia_p2p_get_pages "
			       "(err -2)", &rec), 1);
	assert_int_equal(rec.format, KLOG_FORMAT_DMESG_HUMAN);
	assert_false(rec.has_wallclock);
	assert_false(rec.has_monotonic);
	assert_mem(rec.msg, rec.msg_len, "nvidia_fs: Unknown symbol nvidia_p2p_get_pages (err -2)");
	assert_int_equal(dline("[ +12.000031] x", &rec), 1);
	assert_mem(rec.msg, rec.msg_len, "x");
	/* not dmesg -H: no '+', no minute, a month that is none */
	assert_int_equal(dline("[  0.000031x] x", &rec), 0);
	assert_int_equal(dline("[  +0.31] x", &rec), 0);
	assert_int_equal(dline("[Jan18 08:23:11] x", &rec), 0);
	assert_int_equal(dline("[Jab18 08:23] x", &rec), 0);

	/* dmesg -x, dmesg -r, dmesg -d */
	assert_int_equal(dline("kern  :warn  : [   10.607831] nfs: Unknown symbol x (err -2)", &rec),
			 1);
	assert_int_equal(rec.facility, 0);
	assert_int_equal(rec.level, 4);
	assert_int_equal(rec.usec, 10607831);
	assert_int_equal(dline("<4>[   10.607831] nfs: x", &rec), 1);
	assert_int_equal(rec.level, 4);
	assert_int_equal(dline("<14>[   10.607831] user: x", &rec), 1);
	assert_int_equal(rec.facility, 1);
	assert_int_equal(rec.level, 6);
	assert_int_equal(dline("[   10.607831 <    0.000123>] delta", &rec), 1);
	assert_int_equal(rec.usec, 10607831);
	assert_mem(rec.msg, rec.msg_len, "delta");

	/* CONFIG_PRINTK_CALLER: console style and util-linux style */
	assert_int_equal(dline("[    0.000000][    T0] Linux version 6.12", &rec), 1);
	assert_int_equal(rec.caller_kind, 'T');
	assert_int_equal(rec.caller_id, 0);
	assert_mem(rec.msg, rec.msg_len, "Linux version 6.12");
	assert_int_equal(dline("[    1.000000] [    C1] irq work", &rec), 1);
	assert_int_equal(rec.caller_kind, 'C');
	assert_int_equal(rec.caller_id, 1);
	assert_mem(rec.msg, rec.msg_len, "irq work");
}

static void test_dmesg_console_and_other(void **state)
{
	static const char *const other[] = {
		"[  OK  ] Started systemd-udevd.service.",	/* systemd on a console */
		"-- Boot 0123456789abcdef --",
		"Dec 02 13:01:21 host systemd[1]: Started foo.",
		"2026-12-02T13:01:21+0000 host systemd-udevd[99]: x",
		"Python [3.11] says hi",
		"login: ",
		"",
		"[ 1.5] too few fraction digits",
		"[Xyz Dec  2 13:01:21 2026] bad weekday",
		"Dec 32 13:01:21 host kernel: bad day",
		"2026-13-02T13:01:21+0000 host kernel: bad month",
	};
	struct klog_rec rec;
	const char *what;
	size_t i;

	for (i = 0; i < sizeof(other) / sizeof(other[0]); i++)
		if (dline(other[i], &rec) != 0)
			fail_msg("taken for a kernel line: \"%s\"", other[i]);

	/* serial consoles: a prompt or a CI runner's stamp before the kernel's line */
	assert_int_equal(dline("root@vm:~# [   12.345678] xfs: loading", &rec), 1);
	assert_int_equal(rec.format, KLOG_FORMAT_DMESG);
	assert_int_equal(rec.prefix_len, 11);
	assert_mem(rec.msg, rec.msg_len, "xfs: loading");
	assert_int_equal(dline("2026-12-02T13:01:21.1234567Z \x1b[0m[    1.000000] x", &rec), 1);
	assert_int_equal(rec.usec, 1000000);
	/* CRLF and carriage returns at the start */
	assert_int_equal(dline("\r[    1.000000] serial\r", &rec), 1);
	assert_mem(rec.msg, rec.msg_len, "serial");
	assert_int_equal(rec.prefix_len, 1);
	/* invalid UTF-8 stays raw */
	assert_int_equal(dline("[    1.000000] bad \xff\xfe utf8", &rec), 1);
	assert_mem(rec.msg, rec.msg_len, "bad \xff\xfe utf8");
	/* a NUL byte */
	assert_int_equal(dmesg_parse_line("[    1.000000] a\0b", 17, &rec, &what), -EINVAL);
	assert_string_equal(what, "line contains a NUL byte");
}

static void test_dmesg_parser(void **state)
{
	static const char *const lines[] = {
		"SeaBIOS (version 1.16.2-debian-1.16.2-1)",		/* 1: other */
		"[    0.000000] Linux version 6.12.118+deb12-amd64",	/* 2 */
		"Welcome to Debian GNU/Linux 12 (bookworm)!",		/* 3: other */
		"[   10.607831] nfs: Unknown symbol rpc_put_task (err -2)\r", /* 4 */
		"[   12.000000] vm kernel: journal line",		/* 5: short-monotonic */
		"[   12.100000] vm systemd[1]: Started foo.",		/* 6: another program */
		"[   12.200000] vm kernel: second",			/* 7 */
		"Dec 02 13:01:21 vm kernel: short",			/* 8 */
	};
	struct recs *c = calloc(1, sizeof(*c));
	struct dmesg_parser *p;
	const struct dmesg_stats *st;
	static const char nul[] = "[    1.0] a\0";
	char *big;
	size_t i;

	assert_non_null(c);
	assert_int_equal(dmesg_parser_new("console.log", &collect_ops, c, &p), 0);
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		assert_int_equal(dmesg_parser_feed(p, lines[i], strlen(lines[i])), 0);
	assert_int_equal(dmesg_parser_feed(p, nul, sizeof(nul) - 1), 0);	/* 9 */
	big = malloc(1024 * 1024);
	assert_non_null(big);
	memset(big, '[', 1024 * 1024);
	assert_int_equal(dmesg_parser_feed(p, big, 1024 * 1024), 0);	/* 10 */
	memcpy(big, "[    1.000000] ", 15);
	assert_int_equal(dmesg_parser_feed(p, big, 60000), 0);		/* 11: long, fine */
	free(big);
	assert_int_equal(dmesg_parser_finish(p), 0);

	assert_int_equal(c->n, 6);
	assert_string_equal(c->msg[0], "Linux version 6.12.118+deb12-amd64");
	assert_string_equal(c->msg[1], "nfs: Unknown symbol rpc_put_task (err -2)");
	assert_string_equal(c->msg[2], "journal line");
	assert_string_equal(c->msg[3], "second");
	assert_string_equal(c->msg[4], "short");
	assert_int_equal(c->rec[5].msg_len, 60000 - 15);
	assert_int_equal(c->n_bad, 2);
	assert_int_equal(c->bad_lines[0], 9);
	assert_int_equal(c->bad_lines[1], 10);
	assert_string_equal(c->bad_what[1], "line too long");

	st = dmesg_parser_stats(p);
	assert_int_equal(st->lines, 11);
	assert_int_equal(st->records, 6);
	assert_int_equal(st->other_lines, 3);
	assert_int_equal(st->malformed, 2);
	assert_int_equal(st->by_format[KLOG_FORMAT_DMESG], 3);
	assert_int_equal(st->by_format[KLOG_FORMAT_JOURNAL_MONOTONIC], 2);
	assert_int_equal(st->by_format[KLOG_FORMAT_JOURNAL_SHORT], 1);
	dmesg_parser_free(p);
	assert_null(dmesg_parser_free(NULL));
	free(c);
}

/* --- findings, each from the kernel's format string ----------------------------------------- */

static struct klog_finding classify_fmt(enum klog_finding_kind want, const char *msg)
{
	struct klog_finding f;

	memset(&f, 0, sizeof(f));
	if (klog_classify(msg, strlen(msg), &f) != 1)
		fail_msg("not classified: \"%s\"", msg);
	if (f.kind != want)
		fail_msg("\"%s\": %s, not %s", msg, klog_finding_kind_name(f.kind),
			 klog_finding_kind_name(want));
	return f;
}

#define assert_field(ptr, len, lit)                                            \
	do {                                                                   \
		assert_non_null(ptr);                                          \
		assert_mem(ptr, len, lit);                                     \
	} while (0)

static void test_finding_unknown_symbol(void **state)
{
	char buf[256];
	struct klog_finding f;

	snprintf(buf, sizeof(buf), "%s: Unknown symbol %s (err %d)\n", "nfs", "rpc_put_task", -2);
	f = classify_fmt(KLOG_FINDING_UNKNOWN_SYMBOL, buf);
	assert_field(f.module, f.module_len, "nfs");
	assert_field(f.symbol, f.symbol_len, "rpc_put_task");
	assert_int_equal(f.n_num, 1);
	assert_int_equal(f.num[0], -2);
	assert_int_equal(f.err, ENOENT);
	assert_string_equal(f.source, "kernel/module/main.c");
	/* resolve_symbol() errors other than ENOENT */
	snprintf(buf, sizeof(buf), "%s: Unknown symbol %s (err %d)\n", "foo", "bar", -22);
	f = classify_fmt(KLOG_FINDING_UNKNOWN_SYMBOL, buf);
	assert_int_equal(f.num[0], -22);
}

static void test_finding_autoload(void **state)
{
	char buf[256];
	struct klog_finding f;

	/* pr_fmt "module: " (the custom-6.12-modstats capture), and the WARN() form */
	snprintf(buf, sizeof(buf), "module: module-autoload: duplicate request for module %s\n",
		 "net-pf-2-proto-132-type-1");
	f = classify_fmt(KLOG_FINDING_AUTOLOAD_DUPLICATE, buf);
	assert_field(f.module, f.module_len, "net-pf-2-proto-132-type-1");
	snprintf(buf, sizeof(buf), "module-autoload: duplicate request for module %s\n", "intel_qat");
	f = classify_fmt(KLOG_FINDING_AUTOLOAD_DUPLICATE, buf);
	assert_field(f.module, f.module_len, "intel_qat");

	snprintf(buf, sizeof(buf),
		 "request_module: kmod_concurrent_max (%u) close to 0 (max_modprobes: %u), for module %s, throttling...",
		 0u, 50u, "net-pf-10");
	f = classify_fmt(KLOG_FINDING_KMOD_THROTTLED, buf);
	assert_field(f.module, f.module_len, "net-pf-10");
	assert_int_equal(f.n_num, 2);
	assert_int_equal(f.num[0], 0);
	assert_int_equal(f.num[1], 50);

	snprintf(buf, sizeof(buf),
		 "request_module: modprobe %s cannot be processed, kmod busy with %d threads for more than %d seconds now",
		 "fs-vfat", 50, 5);
	f = classify_fmt(KLOG_FINDING_KMOD_BUSY, buf);
	assert_field(f.module, f.module_len, "fs-vfat");
	assert_int_equal(f.num[0], 50);
	assert_int_equal(f.num[1], 5);
	assert_int_equal(f.err, ETIME);

	snprintf(buf, sizeof(buf), "request_module fs-%.*s succeeded, but still no fs?\n", 4,
		 "vfatXX");
	f = classify_fmt(KLOG_FINDING_FS_STILL_MISSING, buf);
	assert_field(f.module, f.module_len, "vfat");
}

static void test_finding_vmalloc(void **state)
{
	char buf[512];
	struct klog_finding f;

	snprintf(buf, sizeof(buf),
		 "vmap allocation for size %lu failed: use vmalloc=<size> to increase size\n",
		 2498560ul);
	f = classify_fmt(KLOG_FINDING_VMAP_FAILED, buf);
	assert_int_equal(f.num[0], 2498560);
	assert_int_equal(f.err, ENOMEM);

	/* warn_alloc(): "%s: %pV, mode:%#x(%pGg), nodemask=%*pbl", comm first */
	f = classify_fmt(KLOG_FINDING_VMALLOC_ERROR,
			 "systemd-udevd: vmalloc error: size 327680, vm_struct allocation failed, "
			 "mode:0xcc0(GFP_KERNEL), nodemask=(null),cpuset=/,mems_allowed=0-3");
	assert_field(f.text, f.text_len, "systemd-udevd");
	assert_int_equal(f.num[0], 327680);
	snprintf(buf, sizeof(buf), "%s: vmalloc error: size %lu, vm_struct allocation failed%s",
		 "modprobe", 4096ul, ". Retrying.");
	f = classify_fmt(KLOG_FINDING_VMALLOC_ERROR, buf);
	assert_int_equal(f.num[0], 4096);
	snprintf(buf, sizeof(buf), "%s: vmalloc error: size %lu, failed to allocate pages",
		 "modprobe", 8192ul);
	f = classify_fmt(KLOG_FINDING_VMALLOC_ERROR, buf);
	assert_int_equal(f.num[0], 8192);

	f = classify_fmt(KLOG_FINDING_EXECMEM_FAILED, "execmem: unable to allocate memory");
}

static void test_finding_probe(void **state)
{
	char buf[256];
	struct klog_finding f;

	/* doc/log-messages.md 5.8, acpi-cpufreq after another cpufreq driver registered */
	snprintf(buf, sizeof(buf), "%s: probe of %s failed with error %d\n", "acpi-cpufreq",
		 "acpi-cpufreq", -17);
	f = classify_fmt(KLOG_FINDING_PROBE_FAILED, buf);
	assert_field(f.module, f.module_len, "acpi-cpufreq");
	assert_field(f.text, f.text_len, "acpi-cpufreq");
	assert_int_equal(f.num[0], -17);
	/* since 6.9 dev_err(dev, "probe with driver %s failed with error %d\n") */
	snprintf(buf, sizeof(buf), "%s %s: probe with driver %s failed with error %d\n", "platform",
		 "acpi-cpufreq", "acpi-cpufreq", -17);
	f = classify_fmt(KLOG_FINDING_PROBE_FAILED, buf);
	assert_field(f.module, f.module_len, "acpi-cpufreq");
	assert_field(f.text, f.text_len, "acpi-cpufreq");
	assert_int_equal(f.num[0], -17);
}

static void test_finding_versions_signatures(void **state)
{
	char buf[512];
	struct klog_finding f;

	snprintf(buf, sizeof(buf), "%s: disagrees about version of symbol %s\n", "nvidia",
		 "module_layout");
	f = classify_fmt(KLOG_FINDING_SYMBOL_VERSION, buf);
	assert_field(f.module, f.module_len, "nvidia");
	assert_field(f.symbol, f.symbol_len, "module_layout");

	snprintf(buf, sizeof(buf),
		 "%s: module verification failed: signature and/or required key missing - tainting kernel\n",
		 "zfs");
	f = classify_fmt(KLOG_FINDING_SIG_MISSING, buf);
	assert_field(f.module, f.module_len, "zfs");

	snprintf(buf, sizeof(buf), "Loading of %s is rejected\n", "unsigned module");
	f = classify_fmt(KLOG_FINDING_SIG_REJECTED, buf);
	assert_field(f.text, f.text_len, "unsigned module");
	assert_int_equal(f.err, EKEYREJECTED);

	snprintf(buf, sizeof(buf), "Lockdown: %s: %s is restricted; see man kernel_lockdown.7\n",
		 "modprobe", "unsigned module loading");
	f = classify_fmt(KLOG_FINDING_SIG_REJECTED, buf);
	assert_field(f.text, f.text_len, "modprobe");
	/* other lockdown reasons are not about modules */
	snprintf(buf, sizeof(buf), "Lockdown: %s: %s is restricted; see man kernel_lockdown.7\n",
		 "cat", "debugfs access");
	assert_int_equal(klog_classify(buf, strlen(buf), &f), 0);

	snprintf(buf, sizeof(buf), "%s: version magic '%s' should be '%s'\n", "foo",
		 "6.1.0 SMP mod_unload", "6.12.0 SMP preempt mod_unload");
	f = classify_fmt(KLOG_FINDING_VERMAGIC, buf);
	assert_field(f.module, f.module_len, "foo");
	assert_field(f.text, f.text_len, "6.1.0 SMP mod_unload");
	assert_field(f.text2, f.text2_len, "6.12.0 SMP preempt mod_unload");

	snprintf(buf, sizeof(buf), "Module %s is blacklisted\n", "pcspkr");
	f = classify_fmt(KLOG_FINDING_BLACKLISTED, buf);
	assert_field(f.module, f.module_len, "pcspkr");
	assert_int_equal(f.err, EPERM);
}

static void test_finding_elf(void **state)
{
	char buf[512];
	struct klog_finding f;

	snprintf(buf, sizeof(buf),
		 "module %s: .gnu.linkonce.this_module section size must match the kernel's built struct module size at run time\n",
		 "foo");
	f = classify_fmt(KLOG_FINDING_THIS_MODULE_SIZE, buf);
	assert_field(f.module, f.module_len, "foo");
	assert_int_equal(f.err, ENOEXEC);
	/* the name falls back to a description: no module then */
	snprintf(buf, sizeof(buf),
		 "module %s: .gnu.linkonce.this_module section size must match the kernel's built struct module size at run time\n",
		 "(missing .modinfo section or name field)");
	f = classify_fmt(KLOG_FINDING_THIS_MODULE_SIZE, buf);
	assert_null(f.module);
	assert_field(f.text, f.text_len, "(missing .modinfo section or name field)");

	/* ELFMAG: raw in dmesg text, "\x7f" escaped in /dev/kmsg when not decoded */
	snprintf(buf, sizeof(buf), "Invalid ELF header magic: != %s\n", "\177ELF");
	f = classify_fmt(KLOG_FINDING_BAD_ELF, buf);
	f = classify_fmt(KLOG_FINDING_BAD_ELF, "Invalid ELF header magic: != \\x7fELF");
	assert_int_equal(f.err, ENOEXEC);
	snprintf(buf, sizeof(buf), "Invalid ELF header type: %u != %u\n", 2u, 1u);
	f = classify_fmt(KLOG_FINDING_BAD_ELF, buf);
	assert_int_equal(f.n_num, 2);
	assert_int_equal(f.num[0], 2);
	assert_int_equal(f.num[1], 1);
}

static void test_finding_init_return(void **state)
{
	struct klog_finding f;

	/* one printk with a newline: one kmsg record, two dmesg lines */
	f = classify_fmt(KLOG_FINDING_INIT_BAD_RETURN,
			 "do_init_module: 'foo'->init suspiciously returned 1, it should follow 0/-E "
			 "convention\ndo_init_module: loading module anyway...");
	assert_field(f.module, f.module_len, "foo");
	assert_int_equal(f.num[0], 1);
	f = classify_fmt(KLOG_FINDING_INIT_BAD_RETURN,
			 "do_init_module: 'foo'->init suspiciously returned 1, it should follow 0/-E "
			 "convention");
	assert_field(f.module, f.module_len, "foo");
}

static void test_finding_modprobe(void **state)
{
	struct klog_finding f;

	f = classify_fmt(KLOG_FINDING_MODPROBE_ERROR,
			 "modprobe: FATAL: Module bluetooth not found in directory /lib/modules/6.12");
	assert_field(f.module, f.module_len, "bluetooth");
	assert_field(f.text, f.text_len, "/lib/modules/6.12");
	assert_int_equal(f.err, ENOENT);
	f = classify_fmt(KLOG_FINDING_MODPROBE_ERROR,
			 "modprobe: ERROR: could not insert 'nfs': Unknown symbol in module, or "
			 "unknown parameter (see dmesg)");
	assert_int_equal(f.err, ENOENT);
	f = classify_fmt(KLOG_FINDING_MODPROBE_ERROR,
			 "modprobe: ERROR: could not insert 'crc32c_intel': No such device");
	assert_field(f.text, f.text_len, "No such device");
	assert_int_equal(f.err, ENODEV);	/* mapped back from the text */
}

/*
 * Older kernels' wordings, each as a line from the field. Sources:
 *   openzfs/spl#58 (https://github.com/openzfs/spl/issues/58), 2.6-era syslog
 *   jwrdegoede/rtl8189ES_linux#92 (https://github.com/jwrdegoede/rtl8189ES_linux/issues/92)
 *   AOSC-Dev/aosc-os-abbs#2594 (https://github.com/AOSC-Dev/aosc-os-abbs/issues/2594), 5.9
 *   openzfs/zfs#9814 (https://github.com/openzfs/zfs/issues/9814), 4.4 on aarch64
 */
static void test_finding_old_wordings(void **state)
{
	struct klog_finding f;

	f = classify_fmt(KLOG_FINDING_UNKNOWN_SYMBOL, "zfs: Unknown symbol vn_rdwr");
	assert_field(f.module, f.module_len, "zfs");
	assert_field(f.symbol, f.symbol_len, "vn_rdwr");
	assert_int_equal(f.n_num, 0);
	assert_int_equal(f.err, ENOENT);
	/* the newer line still gives its error, not a symbol "rpc_put_task (err -2)" */
	f = classify_fmt(KLOG_FINDING_UNKNOWN_SYMBOL, "nfs: Unknown symbol rpc_put_task (err -2)");
	assert_field(f.symbol, f.symbol_len, "rpc_put_task");
	assert_int_equal(f.num[0], -2);

	f = classify_fmt(KLOG_FINDING_SIG_MISSING,
			 "8189fs: module verification failed: signature and/or  required key "
			 "missing - tainting kernel");
	assert_field(f.module, f.module_len, "8189fs");

	f = classify_fmt(KLOG_FINDING_TAINT,
			 "nvidia_uvm: module uses symbols from proprietary module nvidia, inheriting "
			 "taint.");
	assert_field(f.module, f.module_len, "nvidia_uvm");
	assert_field(f.text, f.text_len, "nvidia");
	assert_null(f.symbol);

	/*
	 * Read in the kernel's source (doc/log-messages.md, "Wordings by version"): 3.13's
	 * simplify_symbols() printed PTR_ERR(ksym), 0 for a symbol not found at all
	 * (lookfiresu123/my_linux-3.13.0@6aa800e3 kernel/module.c); 5.10's prints the
	 * -ENOENT it returns (Rtoax/linux-5.10.13@0703e285 kernel/module.c).
	 */
	f = classify_fmt(KLOG_FINDING_UNKNOWN_SYMBOL, "spl: Unknown symbol kmem_cache_alloc (err 0)");
	assert_field(f.module, f.module_len, "spl");
	assert_field(f.symbol, f.symbol_len, "kmem_cache_alloc");
	assert_int_equal(f.n_num, 1);
	assert_int_equal(f.num[0], 0);
	assert_int_equal(f.err, ENOENT);
	/* 3.13's setup_load_info() names no module ("No module found in object\n") */
	f = classify_fmt(KLOG_FINDING_BAD_ELF, "No module found in object");
	assert_null(f.module);
	assert_int_equal(f.err, ENOEXEC);
	f = classify_fmt(KLOG_FINDING_BAD_ELF, "hello: No module found in object");
	assert_field(f.module, f.module_len, "hello");
	/* the same file: the staging notice, vermagic, ctors, obsolete parameters */
	f = classify_fmt(KLOG_FINDING_TAINT,
			 "r8188eu: module is from the staging directory, the quality is unknown, "
			 "you have been warned.");
	assert_field(f.module, f.module_len, "r8188eu");
	f = classify_fmt(KLOG_FINDING_BAD_ELF, "Module len 4096 truncated");
	assert_int_equal(f.num[0], 4096);
	f = classify_fmt(KLOG_FINDING_LOAD_WARNING, "foo: Ignoring obsolete parameters");
	assert_field(f.module, f.module_len, "foo");
	f = classify_fmt(KLOG_FINDING_LOAD_ERROR, "foo: has both .ctors and .init_array.");
	assert_int_equal(f.err, EINVAL);
	/* 5.10's set_license() and its later "license taints" line without the licence */
	f = classify_fmt(KLOG_FINDING_TAINT, "wl: module license 'MIXED/Proprietary' taints kernel.");
	assert_field(f.text, f.text_len, "MIXED/Proprietary");
	f = classify_fmt(KLOG_FINDING_TAINT, "nvidia: module license taints kernel.");
	assert_field(f.module, f.module_len, "nvidia");
	assert_null(f.text);

	f = classify_fmt(KLOG_FINDING_VMALLOC_ERROR, "vmalloc: allocation failure: 3760332 bytes");
	assert_int_equal(f.n_num, 1);
	assert_int_equal(f.num[0], 3760332);
	/* the same report, the line before: 4.4 still ended the vmap sentence with '.', as
	 * 3.13's alloc_vmap_area() did (lookfiresu123/my_linux-3.13.0@5f5eafc3 mm/vmalloc.c) */
	f = classify_fmt(KLOG_FINDING_VMAP_FAILED,
			 "vmap allocation for size 3866624 failed: use vmalloc=<size> to increase "
			 "size.");
	assert_int_equal(f.num[0], 3866624);
}

/*
 * inherit_taint() refuses a GPL-only user of a proprietary module's symbol, and
 * simplify_symbols() then prints the symbol's "Unknown symbol": one missing symbol, two
 * lines, one failure. The first line is its own class, outside the failures. Sources:
 *   NVIDIA/gds-nvidia-fs#48 (https://github.com/NVIDIA/gds-nvidia-fs/issues/48), 6.5
 *   openzfs/zfs#10831 (https://github.com/openzfs/zfs/issues/10831), 5.9.1: no symbol yet
 */
static void test_finding_gpl_companion(void **state)
{
	struct klog_finding f;

	f = classify_fmt(KLOG_FINDING_GPL_FROM_PROPRIETARY,
			 "nvidia_fs: module using GPL-only symbols uses symbols "
			 "nvidia_p2p_dma_unmap_pages from proprietary module nvidia.");
	assert_field(f.module, f.module_len, "nvidia_fs");
	assert_field(f.symbol, f.symbol_len, "nvidia_p2p_dma_unmap_pages");
	assert_field(f.text, f.text_len, "nvidia");
	assert_string_equal(klog_finding_kind_name(f.kind), "gpl-from-proprietary");
	f = classify_fmt(KLOG_FINDING_UNKNOWN_SYMBOL,
			 "nvidia_fs: Unknown symbol nvidia_p2p_dma_unmap_pages (err -2)");
	assert_field(f.symbol, f.symbol_len, "nvidia_p2p_dma_unmap_pages");

	f = classify_fmt(KLOG_FINDING_GPL_FROM_PROPRIETARY,
			 "zfs: module using GPL-only symbols uses symbols from proprietary module "
			 "zlua.");
	assert_field(f.module, f.module_len, "zfs");
	assert_field(f.text, f.text_len, "zlua");
	assert_null(f.symbol);
}

/*
 * vmalloc failures by task: a loader's is a load's failure, another task's is not.
 *   vel21ripn/nDPI#49 (https://github.com/vel21ripn/nDPI/issues/49): OpenWrt's kmodloader
 *   Ysurac/openmptcprouter#1256 (https://github.com/Ysurac/openmptcprouter/issues/1256):
 *     a Raspberry Pi's BPF JIT (module_alloc from bpf_jit_binary_alloc) in "tracebox"
 */
static void test_finding_vmalloc_task(void **state)
{
	struct klog_finding f;

	f = classify_fmt(KLOG_FINDING_VMALLOC_ERROR,
			 "kmodloader: vmalloc: allocation failure: 425984 bytes, "
			 "mode:0x14000c0(GFP_KERNEL), nodemask=(null)");
	assert_field(f.text, f.text_len, "kmodloader");
	assert_int_equal(f.num[0], 425984);
	f = classify_fmt(KLOG_FINDING_VMALLOC_OTHER,
			 "tracebox: vmalloc: allocation failure: 32768 bytes, mode:0xcc0(GFP_KERNEL), "
			 "nodemask=(null),cpuset=/,mems_allowed=0");
	assert_field(f.text, f.text_len, "tracebox");
	assert_int_equal(f.num[0], 32768);
	assert_int_equal(f.err, ENOMEM);
	assert_string_equal(klog_finding_kind_name(f.kind), "vmalloc-error-other");
	/* the 5.x wording from systemd-udevd (doc/log-messages.md 5.6) stays a failure */
	f = classify_fmt(KLOG_FINDING_VMALLOC_ERROR,
			 "systemd-udevd: vmalloc error: size 327680, vm_struct allocation failed, "
			 "mode:0xcc0(GFP_KERNEL), nodemask=(null),cpuset=/,mems_allowed=0-3");
}

/*
 * Userspace loaders. Sources:
 *   systemd/systemd#161 (https://github.com/systemd/systemd/issues/161), journal
 *   openbmc/openbmc#238 (https://github.com/openbmc/openbmc/issues/238): PID 1's line in
 *     the kernel log ("kernel[942]: systemd[1]: ...")
 *   juliagoda/CH341SER#47 (https://github.com/juliagoda/CH341SER/issues/47): kmod insmod
 *   busybox: modutils/insmod.c's "can't insert '%s': %s" with issue #33's file name
 */
static void test_finding_userspace_loaders(void **state)
{
	struct klog_finding f;

	f = classify_fmt(KLOG_FINDING_MODPROBE_ERROR,
			 "systemd[1]: Failed to insert module 'kdbus': Function not implemented");
	assert_field(f.module, f.module_len, "kdbus");
	assert_field(f.text, f.text_len, "Function not implemented");
	assert_int_equal(f.err, ENOSYS);
	f = classify_fmt(KLOG_FINDING_MODPROBE_ERROR,
			 "Jun 11 12:44:16 ank systemd[1]: Failed to insert module 'kdbus': Function "
			 "not implemented");
	assert_field(f.module, f.module_len, "kdbus");
	f = classify_fmt(KLOG_FINDING_MODPROBE_ERROR,
			 "Failed to insert module 'ipv6': Function not implemented");
	assert_field(f.module, f.module_len, "ipv6");
	assert_int_equal(f.err, ENOSYS);

	/* ARCHLabs/Archlabs-Iso#123: older systemd-modules-load, no "module"; only with
	 * its ident, for any program may say "Failed to insert 'x'" */
	f = classify_fmt(KLOG_FINDING_MODPROBE_ERROR,
			 "systemd-modules-load[168]: Failed to insert 'vboxguest': No such device");
	assert_field(f.module, f.module_len, "vboxguest");
	assert_int_equal(f.err, ENODEV);
	f = classify_fmt(KLOG_FINDING_MODPROBE_ERROR,
			 "systemd-modules-load: Failed to insert 'vboxsf': No such device");
	assert_field(f.module, f.module_len, "vboxsf");
	assert_int_equal(klog_classify("Failed to insert 'vboxsf': No such device", 41, &f), 0);
	assert_int_equal(klog_classify("psql[4]: Failed to insert 'row 1': File exists", 46, &f), 0);

	f = classify_fmt(KLOG_FINDING_MODPROBE_ERROR,
			 "insmod: can't insert 'unsigned.ko': Key was rejected by service");
	assert_field(f.module, f.module_len, "unsigned");
	assert_int_equal(f.err, EKEYREJECTED);

	f = classify_fmt(KLOG_FINDING_MODPROBE_ERROR,
			 "insmod: ERROR: could not insert module ch34x.ko: Key was rejected by "
			 "service");
	assert_field(f.module, f.module_len, "ch34x");
	assert_int_equal(f.err, EKEYREJECTED);
	/* issue #33: a path, the module is its basename up to the first '.' (kmod's rule) */
	f = classify_fmt(KLOG_FINDING_MODPROBE_ERROR,
			 "insmod: ERROR: could not insert module master/ec_master.ko: Unknown symbol "
			 "in module");
	assert_field(f.module, f.module_len, "ec_master");
	assert_int_equal(f.err, ENOENT);
	f = classify_fmt(KLOG_FINDING_MODPROBE_ERROR,
			 "insmod: ERROR: could not insert module /lib/modules/6.1/x/foo-bar.ko.xz: "
			 "Invalid module format");
	assert_field(f.module, f.module_len, "foo-bar");
	assert_int_equal(f.err, ENOEXEC);
}

/*
 * Loaders before kmod and systemd's "not found", from tests/corpus:
 *   Huawei/TCP_option_address#14 (2.6.32 el6, module-init-tools insmod)
 *   rapido-linux/rapido#87 (systemd-modules-load's "Failed to find module")
 *   pkoutoupis/rapiddisk#60 (a journal's "kernel: " tag left in front of the message)
 */
static void test_finding_corpus_loaders(void **state)
{
	struct klog_finding f;

	f = classify_fmt(KLOG_FINDING_MODPROBE_ERROR,
			 "insmod: error inserting 'toa.ko': -1 Unknown symbol in module");
	assert_field(f.module, f.module_len, "toa");
	assert_int_equal(f.err, ENOENT);

	f = classify_fmt(KLOG_FINDING_MODPROBE_ERROR,
			 "systemd-modules-load[112]: Failed to find module 'scsi_dh_alua'");
	assert_field(f.module, f.module_len, "scsi_dh_alua");
	assert_int_equal(f.err, ENOENT);
	f = classify_fmt(KLOG_FINDING_MODPROBE_ERROR, "Failed to find module 'spi-pxa2xx'");
	assert_field(f.module, f.module_len, "spi-pxa2xx");

	f = classify_fmt(KLOG_FINDING_TAINT,
			 "kernel: rapiddisk: loading out-of-tree module taints kernel.");
	assert_field(f.module, f.module_len, "rapiddisk");
	f = classify_fmt(KLOG_FINDING_SIG_MISSING,
			 "kernel: rapiddisk: module verification failed: signature and/or required "
			 "key missing - tainting kernel");
	assert_field(f.module, f.module_len, "rapiddisk");
}

/*
 * module-init-tools' modprobe and libkmod's failed install commands, from tests/corpus:
 *   openzfs/spl#10, openzfs/zfs#3051 (module-init-tools, "WARNING:"/"FATAL: Error inserting")
 *   Nakildias/sc0710#7 (systemd-modules-load logging libkmod's install command)
 *   cisagov/kali-packer#6 (a debug build's "file:line func()", cut short by the journal)
 * and the 2.6-era "FATAL: Error running install command for %s" of module-init-tools
 */
static void test_finding_install_commands(void **state)
{
	struct klog_finding f;

	f = classify_fmt(KLOG_FINDING_MODPROBE_ERROR,
			 "WARNING: Error inserting spl (/lib/modules/2.6.32-bpo.4-686/addon/spl/spl/"
			 "spl.ko): Unknown symbol in module, or unknown parameter (see dmesg)");
	assert_field(f.module, f.module_len, "spl");
	assert_int_equal(f.err, ENOENT);
	f = classify_fmt(KLOG_FINDING_MODPROBE_ERROR,
			 "FATAL: Error inserting zfs (/lib/modules/2.6.32-504.1.3.el6.x86_64/extra/"
			 "zfs.ko): Unknown symbol in module, or unknown parameter (see dmesg)");
	assert_field(f.module, f.module_len, "zfs");
	f = classify_fmt(KLOG_FINDING_MODPROBE_ERROR, "FATAL: Error running install command for nvidia");
	assert_field(f.module, f.module_len, "nvidia");

	f = classify_fmt(KLOG_FINDING_MODPROBE_ERROR,
			 "Error running install command '/sbin/modprobe --ignore-install snd-pcm && "
			 "/sbin/modprobe snd-seq' for module snd_pcm: retcode 1");
	assert_field(f.module, f.module_len, "snd_pcm");
	assert_field(f.text, f.text_len,
		     "/sbin/modprobe --ignore-install snd-pcm && /sbin/modprobe snd-seq");
	f = classify_fmt(KLOG_FINDING_MODPROBE_ERROR,
			 "modprobe: ERROR: ../libkmod/libkmod-module.c:977 command_do() Error "
			 "running install command for wl");
	assert_field(f.module, f.module_len, "wl");
	f = classify_fmt(KLOG_FINDING_MODPROBE_ERROR,
			 "modprobe: ERROR: Error running install command '/bin/false' for module "
			 "algif_aead: retcode 1");
	assert_field(f.module, f.module_len, "algif_aead");
	/* cut where the module would be: a failure of no known module */
	f = classify_fmt(KLOG_FINDING_MODPROBE_ERROR,
			 "modprobe: ERROR: ../libkmod/libkmod-module.c:990 command_do() Error "
			 "running install command 'modprobe >");
	assert_null(f.module);

	/* not a loader's: a kernel WARNING and words around the name */
	static const char *const none[] = {
		"WARNING: CPU: 0 PID: 29 at mm/vmalloc.c:150 vmap_page_range_noflush+0xea/0x19c",
		"FATAL: Error inserting the module (see above): x",
	};

	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		assert_int_equal(klog_classify(none[i], strlen(none[i]), &f), 0);
}

/* Writes a sample message for @e: each conversion replaced by a value its slot names. */
static void build_sample(const struct klog_format_entry *e, char *buf, size_t size)
{
	const char *f = e->format, *slot = e->slots;
	size_t n = 0;

	while (*f && n + 64 < size) {
		const char *v;
		char conv, num[32];
		bool alt = false;

		if (*f != '%') {
			buf[n++] = *f++;
			continue;
		}
		f++;
		if (*f == '%') {
			buf[n++] = *f++;
			continue;
		}
		while (strchr("-+ #0", *f)) {
			alt |= *f == '#';
			f++;
		}
		while (*f == '*' || *f == '.' || (*f >= '0' && *f <= '9'))
			f++;
		while (strchr("hlzjtL", *f))
			f++;
		conv = *f++;
		if (conv == 'p')
			while ((*f >= 'a' && *f <= 'z') || (*f >= 'A' && *f <= 'Z'))
				f++;
		switch (*slot ? *slot++ : '-') {
		case 'm':
			/* a module file where only one is taken */
			v = e->flags & KLOG_FORMAT_KO_FILE  ? "mod_a.ko" :
			    e->flags & KLOG_FORMAT_OBJ_FILE ? "mod_a.o" : "mod_a";
			break;
		case 's':
			v = "sym_b";
			break;
		case 't':
			/* a vmalloc failure is a load's in a loader's task */
			v = e->kind == KLOG_FINDING_VMALLOC_ERROR ? "modprobe" : "text c";
			break;
		case 'u':
			v = e->text2_is ? e->text2_is : "text d";
			break;
		default:
			/* modutils' object file, before its message */
			v = (e->flags & KLOG_FORMAT_OBJ_FILE) && !n ? "mod_a.o" : "dash";
			break;
		}
		if (conv == 'd' || conv == 'i')
			v = "-17";
		else if (conv == 'u')
			v = "4096";
		else if (conv == 'x' || conv == 'X') {
			snprintf(num, sizeof(num), "%s1f", alt ? "0x" : "");
			v = num;
		}
		n += (size_t)snprintf(buf + n, size - n, "%s", v);
	}
	buf[n] = '\0';
}

static void test_findings_every_format(void **state)
{
	const struct klog_format_entry *t;
	size_t n, i;

	t = klog_formats(&n);
	assert_true(n > 80);
	for (i = 0; i < n; i++) {
		const struct klog_format_entry *e = &t[i];
		struct klog_finding f;
		char buf[512];
		const char *s;
		unsigned int nums = 0;

		assert_true(e->kind > KLOG_FINDING_NONE && e->kind < KLOG_FINDING__MAX);
		assert_non_null(e->source);
		build_sample(e, buf, sizeof(buf));
		memset(&f, 0, sizeof(f));
		if (klog_classify(buf, strlen(buf), &f) != 1)
			fail_msg("format %zu not recognised: \"%s\"", i, buf);
		if (f.format != e->format)
			fail_msg("\"%s\" matched \"%s\", not its own \"%s\"", buf, f.format, e->format);
		assert_int_equal(f.kind, e->kind);
		assert_int_equal(f.err, e->err);
		assert_string_not_equal(klog_finding_kind_name(f.kind), "invalid");
		for (s = e->slots; *s; s++) {
			if (*s == 'm')
				assert_field(f.module, f.module_len, "mod_a");
			if (*s == 's')
				assert_field(f.symbol, f.symbol_len, "sym_b");
			if (*s == 'n')
				nums++;
		}
		assert_int_equal(f.n_num, nums);
		if (nums && strstr(e->format, "%d"))
			assert_true(f.num[0] == -17 || f.num[0] == 4096 || f.num[0] == 0x1f ||
				    f.num[1] == -17);
	}
}

static void test_findings_none_and_hostile(void **state)
{
	static const char *const plain[] = {
		"SGI XFS with ACLs, security attributes, realtime, quota, no debug enabled",
		"acpiphp: Slot [3] registered",
		"NET: Registered PF_KEY protocol family",
		"random: crng init done",
		"Linux version 6.12.118+deb12-amd64 (debian-kernel@lists.debian.org)",
		"sctp: Hash tables configured (bind 256/256)",
		"nfs: Unknown symbol",			/* truncated finding */
		"nfs: Unknown symbol x (err -x)",	/* non-numeric */
		"vmap allocation for size failed: use vmalloc=<size> to increase size",
		": Unknown symbol x (err -2)",		/* no module */
		"",
		"\n",
	};
	struct klog_finding f;
	size_t i, big = 1024 * 1024;
	char *s;
	int r;

	for (i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		f.kind = KLOG_FINDING_BAD_ELF;
		if (klog_classify(plain[i], strlen(plain[i]), &f) != 0)
			fail_msg("a finding: \"%s\" (%s)", plain[i], klog_finding_kind_name(f.kind));
		assert_int_equal(f.kind, KLOG_FINDING_NONE);
		assert_null(f.module);
	}
	assert_int_equal(klog_classify(NULL, 0, &f), 0);

	/* 1 MiB is no printk record; 4 KiB of separators keeps backtracking bounded */
	s = malloc(big);
	assert_non_null(s);
	for (i = 0; i < big; i++)
		s[i] = i % 2 ? ' ' : ':';
	assert_int_equal(klog_classify(s, big, &f), 0);
	r = klog_classify(s, 4096, &f);
	assert_true(r == 0 || r == 1);
	memcpy(s, "nfs: Unknown symbol ", 20);
	r = klog_classify(s, 4096, &f);
	assert_true(r == 0 || r == 1);
	memcpy(s, "a: b: c: d: e: f: g: h: ", 24);
	r = klog_classify(s, 4000, &f);
	assert_true(r == 0 || r == 1);
	/* NUL bytes inside a message are just bytes */
	memcpy(s, "x: Unknown symbol y\0z (err -2)", 30);
	assert_int_equal(klog_classify(s, 30, &f), 1);
	assert_int_equal(f.symbol_len, 3);
	free(s);
}

/* --- the captures ------------------------------------------------------------------- */

struct finding_counts {
	unsigned long by_kind[KLOG_FINDING__MAX];
	unsigned long records;
};

static int count_findings(void *userdata, const struct klog_rec *rec)
{
	struct finding_counts *fc = userdata;
	struct klog_finding f;

	fc->records++;
	if (klog_classify(rec->msg, rec->msg_len, &f) == 1)
		fc->by_kind[f.kind]++;
	return 0;
}

static void check_capture(const char *name, unsigned long autoload_dups)
{
	static const struct klog_parser_ops ops = { .record = count_findings };
	struct finding_counts k = {0}, d = {0};
	struct kmsg_stats ks;
	struct dmesg_stats ds;
	struct kt_err err = {0};
	char path[512];
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "%s/%s/capture/kmsg.raw", FIXTURES_DIR, name);
	f = fopen(path, "re");
	assert_non_null(f);
	assert_int_equal(kmsg_read_file(f, path, &ops, &k, &ks, &err), 0);
	fclose(f);
	snprintf(path, sizeof(path), "%s/%s/capture/dmesg.txt", FIXTURES_DIR, name);
	f = fopen(path, "re");
	assert_non_null(f);
	assert_int_equal(dmesg_read_file(f, path, &ops, &d, &ds, &err), 0);
	fclose(f);

	assert_int_equal(ks.malformed, 0);
	assert_int_equal(ks.seq_gaps, 0);
	assert_int_equal(ks.records, ks.lines - ks.dict_lines);
	assert_int_equal(ds.malformed, 0);
	assert_int_equal(ds.other_lines, 0);
	assert_int_equal(ds.records, ds.by_format[KLOG_FORMAT_DMESG]);
	/* both renderings of one log give the same findings */
	for (i = 0; i < KLOG_FINDING__MAX; i++)
		assert_int_equal(k.by_kind[i], d.by_kind[i]);
	assert_true(k.by_kind[KLOG_FINDING_UNKNOWN_SYMBOL] > 100);
	assert_true(k.by_kind[KLOG_FINDING_BAD_ELF] >= 1);
	assert_int_equal(k.by_kind[KLOG_FINDING_AUTOLOAD_DUPLICATE], autoload_dups);
}

static void test_fixture_logs(void **state)
{
	if (access(FIXTURES_DIR "/debian-6.12-xz/capture/kmsg.raw", R_OK) != 0)
		skip();
	check_capture("debian-6.1-plain", 0);
	check_capture("debian-6.12-xz", 0);
	/* CONFIG_MODULE_DEBUG_AUTOLOAD_DUPS: the SCTP storm's duplicate requests */
	if (access(FIXTURES_DIR "/custom-6.12-modstats/capture/kmsg.raw", R_OK) == 0)
		check_capture("custom-6.12-modstats", 38);
}

/* dmesg_parser_feed_records(): what feeding the records one by one counts */
static void test_dmesg_feed_records(void **state)
{
	static const char *const lines[] = {
		"[    1.000000] nfs: Unknown symbol a (err -2)",
		"[    1.100000] nfs: Unknown symbol b (err -2)",
		"[    1.200000] nfs: Unknown symbol c (err -2)",
		"[    1.300000] nfs: Unknown symbol d (err -2)",
	};
	struct dmesg_parser *one, *many;
	struct klog_rec rec;
	const char *what;

	(void)state;
	assert_int_equal(dmesg_parser_new("a.log", NULL, NULL, &one), 0);
	assert_int_equal(dmesg_parser_new("a.log", NULL, NULL, &many), 0);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(dmesg_parser_feed(one, lines[i], strlen(lines[i])), 0);
	assert_int_equal(dmesg_parse(lines[0], strlen(lines[0]), &rec, &what), 1);
	assert_int_equal(dmesg_parser_feed_parsed(many, 1, &rec, NULL), 0);
	assert_int_equal(dmesg_parser_feed_records(many, rec.format, 3), 0);
	assert_memory_equal(dmesg_parser_stats(one), dmesg_parser_stats(many),
			    sizeof(struct dmesg_stats));
	assert_int_equal(dmesg_parser_stats(many)->records, 4);
	assert_int_equal(dmesg_parser_stats(many)->by_format[KLOG_FORMAT_DMESG], 4);
	dmesg_parser_free(many);
	dmesg_parser_free(one);

	/* once a journal's host is known, a kernel-looking line may be another program's */
	{
		static const char journal[] = "[    2.000000] vm kernel: nfs: Unknown symbol a";

		assert_int_equal(dmesg_parser_new("j.log", NULL, NULL, &many), 0);
		assert_int_equal(dmesg_parser_feed(many, journal, sizeof(journal) - 1), 0);
		assert_int_equal(dmesg_parser_stats(many)->records, 1);
		assert_int_equal(dmesg_parser_feed_records(many, KLOG_FORMAT_DMESG, 2), -EAGAIN);
		assert_int_equal(dmesg_parser_feed_records(many, KLOG_FORMAT__MAX, 2), -EINVAL);
		assert_int_equal(dmesg_parser_stats(many)->records, 1);
		dmesg_parser_free(many);
	}
}

/* "[%5lu.%06lu]" read byte by byte: what dmesg_time_prefix() must agree with */
static size_t time_prefix_ref(const char *s, size_t len, uint64_t *ret_usec)
{
	uint64_t sec = 0, frac = 0;
	int i = 1;

	if (len < 14 || s[0] != '[' || s[6] != '.' || s[13] != ']')
		return 0;
	while (i < 5 && s[i] == ' ')
		i++;
	for (; i < 6; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		sec = sec * 10 + (uint64_t)(s[i] - '0');
	}
	for (i = 7; i < 13; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		frac = frac * 10 + (uint64_t)(s[i] - '0');
	}
	*ret_usec = sec * 1000000 + frac;
	return 14;
}

static void test_time_prefix_random(void **state)
{
	/* the bytes around the digits' and the space's codes, and those the format has */
	static const char alphabet[] = { ' ', '0', '1', '5', '9', '/', ':', '[', ']', '.', '\0',
					 '\x10', '\x20' | '\x80', '\x30' | '\x80', 'a', '\t' };
	unsigned int seed = 20;
	size_t agreed = 0, read = 0;

	(void)state;
	for (int n = 0; n < 400000; n++) {
		char s[24] = "[    1.234567] ";
		uint64_t u1 = 0, u2 = 0;
		size_t r1, r2, len = 14 + (size_t)(rand_r(&seed) % 6);
		/* a valid time, then one to three bytes changed */
		int changes = rand_r(&seed) % 4;

		if (rand_r(&seed) % 2) {
			uint64_t v = (uint64_t)rand_r(&seed) % 100000;

			snprintf(s, sizeof(s), "[%5lu.%06lu]", (unsigned long)v,
				 (unsigned long)((unsigned int)rand_r(&seed) % 1000000));
		}
		/* what follows the time, up to 20 bytes: dmesg_time_shape() reads 16 at once */
		for (size_t i = 14; i < 20; i++)
			s[i] = alphabet[rand_r(&seed) % sizeof(alphabet)];
		for (int c = 0; c < changes; c++)
			s[rand_r(&seed) % 14] = alphabet[rand_r(&seed) % sizeof(alphabet)];
		r1 = dmesg_time_prefix(s, len, &u1);
		r2 = time_prefix_ref(s, len, &u2);
		assert_int_equal(r1, r2);
		assert_int_equal(dmesg_time_shape(s, len), r2);
		if (r1)
			assert_int_equal(u1, u2);
		agreed++;
		read += r1 != 0;
	}
	/* both kinds were seen: the test did test */
	assert_true(read > 100000 && agreed - read > 100000);
	{
		uint64_t u;

		assert_int_equal(dmesg_time_prefix("[99999.999999]", 14, &u), 14);
		assert_int_equal(u, UINT64_C(99999999999));
		assert_int_equal(dmesg_time_prefix("[    0.000000]", 14, &u), 14);
		assert_int_equal(u, 0);
		assert_int_equal(dmesg_time_prefix("[    0.000000", 13, &u), 0);
		assert_int_equal(dmesg_time_prefix("[ 1 23.000000]", 14, &u), 0);
		assert_int_equal(dmesg_time_prefix("[     .000000]", 14, &u), 0);
		assert_int_equal(dmesg_time_prefix("[123456.00000]", 14, &u), 0);
	}
}

/*
 * Lines of the held-out corpus (tests/corpus/logs 049+): a module name is one word
 * whatever the paste put before it, and markdown around a line is not part of it.
 */
static void test_finding_heldout_pastes(void **state)
{
	static const struct {
		const char *line, *module;
		enum klog_finding_kind kind;
	} cases[] = {
		/* facebookarchive/flashcache#33: syslog-ng's own head, 2.6.36 */
		{ "2011.10.15 21:50:37 store1(kern.warning) kernel: flashcache: Unknown symbol __divdi3 (err 0)",
		  "flashcache", KLOG_FINDING_UNKNOWN_SYMBOL },
		/* dmdedup/dmdedup3.19#46: the paste cut the first timestamp's '[' */
		{ " 3498.540131] dm_dedup: Unknown symbol dm_btree_insert (err 0)",
		  "dm_dedup", KLOG_FINDING_UNKNOWN_SYMBOL },
		/* amd/apml_modules#4: dmesg -T commented out in a shell transcript */
		{ "# [Fri Sep 19 11:05:26 2025] apml_sbrmi: Unknown symbol __devm_regmap_init_i3c (err -2)",
		  "apml_sbrmi", KLOG_FINDING_UNKNOWN_SYMBOL },
		/* LWSS/Cartographer#1: every line in inline code */
		{ "`cartographer: version magic '5.1.6-arch1-1-ARCH SMP preempt mod_unload ' should be '5.1.7-arch1-1-ARCH SMP preempt mod_unload '`",
		  "cartographer", KLOG_FINDING_VERMAGIC },
		/* rhgndf/fl2000_drm#1: a markdown quote */
		{ "> insmod: ERROR: could not insert module /usr/src/fl2000_drm/fl2000.ko: Unknown symbol in module",
		  "fl2000", KLOG_FINDING_MODPROBE_ERROR },
		/* dkms-project/dkms#347: a diff block's "- " and a stray "``" */
		{ "- modprobe: ERROR: could not insert 'rtw_8723d': Key was rejected by service``",
		  "rtw_8723d", KLOG_FINDING_MODPROBE_ERROR },
	};
	struct klog_finding f;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(klog_classify(cases[i].line, strlen(cases[i].line), &f), 1);
		assert_int_equal(f.kind, cases[i].kind);
		assert_field(f.module, f.module_len, cases[i].module);
	}
	/* the kernel's own dashes stay: no finding, and no crash on markup alone */
	assert_int_equal(klog_classify("---[ end trace 0000000000000000 ]---", 35, &f), 0);
	assert_int_equal(klog_classify("``", 2, &f), 0);
	assert_int_equal(klog_classify("> ", 2, &f), 0);
}

static void test_finding_last_pastes(void **state)
{
	static const struct {
		const char *line, *module, *symbol;
		enum klog_finding_kind kind;
		int err;
	} cases[] = {
		/* taint lines pasted without their final '.' */
		{ "> sch_cake: module license 'unspecified' taints kernel", "sch_cake", NULL,
		  KLOG_FINDING_TAINT, 0 },
		{ "hello_mod: loading out-of-tree module taints kernel", "hello_mod", NULL,
		  KLOG_FINDING_TAINT, 0 },
		/* a markdown link that holds the line */
		{ "[638704](insmod: ERROR: could not insert module rtl8188fu.ko: Invalid module format)",
		  "rtl8188fu", NULL, KLOG_FINDING_MODPROBE_ERROR, ENOEXEC },
		{ "[rtl8188fu: Unknown symbol usb_get_dev (err -2)](https://example.org/x)",
		  "rtl8188fu", "usb_get_dev", KLOG_FINDING_UNKNOWN_SYMBOL, ENOENT },
		/* host and tag with no date, bold markup */
		{ "archlinux kernel: **Lockdown: modprobe: unsigned module loading is restricted; see man kernel_lockdown.7**",
		  NULL, NULL, KLOG_FINDING_SIG_REJECTED, EPERM },
		/* retyped without the colon: the symbol points into the message */
		{ "iscsi_trgt disagrees about version of symbol module_layout", "iscsi_trgt",
		  "module_layout", KLOG_FINDING_SYMBOL_VERSION, EINVAL },
		/* Android init's libmodprobe */
		{ "init: Failed to insmod '/lib/modules/btintel.ko' with args '': Exec format error",
		  "btintel", NULL, KLOG_FINDING_MODPROBE_ERROR, ENOEXEC },
		{ "init: Failed to insmod '/vendor/lib/modules/snd-soc-x.ko' with args 'a=1 b=2'",
		  "snd-soc-x", NULL, KLOG_FINDING_MODPROBE_ERROR, 0 },
		{ "init: LoadWithAliases was unable to load btintel", "btintel", NULL,
		  KLOG_FINDING_MODPROBE_ERROR, 0 },
	};
	static const char *const none[] = {
		/* a sentence's first word is no module name */
		"It disagrees about version of symbol module_layout",
		/* the rest must be the whole wording */
		"iscsi_trgt really disagrees about version of symbol module_layout",
		"[see the log](https://example.org/dmesg.txt)",
		"host kernel: all fine",
		/* only the final '.' may be missing, not a word */
		"hello_mod: loading out-of-tree module taints",
	};
	struct klog_finding f;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (klog_classify(cases[i].line, strlen(cases[i].line), &f) != 1)
			fail_msg("not recognised: \"%s\"", cases[i].line);
		assert_int_equal(f.kind, cases[i].kind);
		assert_int_equal(f.err, cases[i].err);
		if (cases[i].module)
			assert_field(f.module, f.module_len, cases[i].module);
		else
			assert_null(f.module);
		if (cases[i].symbol)
			assert_field(f.symbol, f.symbol_len, cases[i].symbol);
		if (f.module)
			assert_true(f.module >= cases[i].line &&
				    f.module + f.module_len <= cases[i].line + strlen(cases[i].line));
	}
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		if (klog_classify(none[i], strlen(none[i]), &f) != 0)
			fail_msg("a finding in \"%s\": %s", none[i], klog_finding_kind_name(f.kind));
}

/*
 * One line for each row of doc/log-messages.md's "Wordings by version", each rendered
 * as the kernel of that era prints it; the trees the versions were read from are named
 * in the table (repository@commit path).
 */
static void test_finding_wordings_by_version(void **state)
{
	static const struct {
		const char *line;
		enum klog_finding_kind kind;
		const char *module; /* NULL: none expected */
	} rows[] = {
		/* 2.6.32: no error; 3.10 - 4.9: PTR_ERR(), 0; 5.9+: -ENOENT */
		{ "zfs: Unknown symbol vn_rdwr", KLOG_FINDING_UNKNOWN_SYMBOL, "zfs" },
		{ "spl: Unknown symbol kmem_cache_alloc (err 0)", KLOG_FINDING_UNKNOWN_SYMBOL,
		  "spl" },
		{ "nfs: Unknown symbol rpc_put_task (err -2)", KLOG_FINDING_UNKNOWN_SYMBOL, "nfs" },
		/* 3.13 - 3.19: two spaces; up to 3.12 and 4.0+: one */
		{ "wl: module verification failed: signature and/or  required key missing - "
		  "tainting kernel",
		  KLOG_FINDING_SIG_MISSING, "wl" },
		{ "wl: module verification failed: signature and/or required key missing - "
		  "tainting kernel",
		  KLOG_FINDING_SIG_MISSING, "wl" },
		/* 5.9 - 5.17 name no symbol, 5.19+ do */
		{ "nvidia_uvm: module uses symbols from proprietary module nvidia, inheriting "
		  "taint.",
		  KLOG_FINDING_TAINT, "nvidia_uvm" },
		{ "nvidia_uvm: module uses symbols nvidia_p2p_put_pages from proprietary module "
		  "nvidia, inheriting taint.",
		  KLOG_FINDING_TAINT, "nvidia_uvm" },
		{ "nvidia_fs: module using GPL-only symbols uses symbols from proprietary module "
		  "nvidia.",
		  KLOG_FINDING_GPL_FROM_PROPRIETARY, "nvidia_fs" },
		{ "nvidia_fs: module using GPL-only symbols uses symbols nvidia_p2p_dma_unmap_pages "
		  "from proprietary module nvidia.",
		  KLOG_FINDING_GPL_FROM_PROPRIETARY, "nvidia_fs" },
		{ "wl: module license 'MIXED/Proprietary' taints kernel.", KLOG_FINDING_TAINT,
		  "wl" },
		{ "ndiswrapper: module license taints kernel.", KLOG_FINDING_TAINT, "ndiswrapper" },
		/* up to 4.12 no name, 4.13 - 6.3 the name */
		{ "No module found in object", KLOG_FINDING_BAD_ELF, NULL },
		{ "hello: No module found in object", KLOG_FINDING_BAD_ELF, "hello" },
		/* 2.6.32 - 5.11 */
		{ "Module len 4096 truncated", KLOG_FINDING_BAD_ELF, NULL },
		{ "zfs: version magic '2.6.18-8.el5 SMP mod_unload gcc-4.1' should be "
		  "'2.6.18-92.el5 SMP mod_unload gcc-4.1'",
		  KLOG_FINDING_VERMAGIC, "zfs" },
		{ "r8188eu: module is from the staging directory, the quality is unknown, you have "
		  "been warned.",
		  KLOG_FINDING_TAINT, "r8188eu" },
		{ "foo: has both .ctors and .init_array.", KLOG_FINDING_LOAD_ERROR, "foo" },
		{ "foo: Ignoring obsolete parameters", KLOG_FINDING_LOAD_WARNING, "foo" },
		{ "foo: module sysfs not initialized", KLOG_FINDING_LOAD_ERROR, "foo" },
		{ "foo: module is already loaded", KLOG_FINDING_ALREADY_LOADED, "foo" },
		/* warn_alloc_failed(), 3.x - 4.4: the message alone, with its newline */
		{ "vmalloc: allocation failure: 3760332 bytes", KLOG_FINDING_VMALLOC_ERROR, NULL },
		{ "vmalloc: allocation failure, allocated 1052672 of 3760128 bytes",
		  KLOG_FINDING_VMALLOC_ERROR, NULL },
		/* warn_alloc(), 4.9 - 5.12: the comm first, the mode after */
		{ "modprobe: vmalloc: allocation failure: 3760332 bytes, mode:0x24080c2"
		  "(GFP_KERNEL|__GFP_HIGHMEM|__GFP_ZERO), nodemask=(null)",
		  KLOG_FINDING_VMALLOC_ERROR, NULL },
		{ "insmod: vmalloc: allocation failure, allocated 1052672 of 3760128 bytes, "
		  "mode:0x24080c2(GFP_KERNEL|__GFP_HIGHMEM|__GFP_ZERO)",
		  KLOG_FINDING_VMALLOC_ERROR, NULL },
		/* 5.14 - 5.15 without the NOFAIL suffix, 5.17+ with it */
		{ "insmod: vmalloc error: size 8192, vm_struct allocation failed, "
		  "mode:0xcc0(GFP_KERNEL), nodemask=(null),cpuset=/,mems_allowed=0",
		  KLOG_FINDING_VMALLOC_ERROR, NULL },
		{ "insmod: vmalloc error: size 8192, vm_struct allocation failed. Retrying., "
		  "mode:0xcc0(GFP_KERNEL|__GFP_NOFAIL), nodemask=(null)",
		  KLOG_FINDING_VMALLOC_ERROR, NULL },
		/* 5.14 - 6.3 with the order, 6.4+ without */
		{ "modprobe: vmalloc error: size 8192, page order 0, failed to allocate pages, "
		  "mode:0xcc0(GFP_KERNEL)",
		  KLOG_FINDING_VMALLOC_ERROR, NULL },
		{ "modprobe: vmalloc error: size 8192, failed to allocate pages, "
		  "mode:0xcc0(GFP_KERNEL)",
		  KLOG_FINDING_VMALLOC_ERROR, NULL },
		/* 2.6.32 - 4.4 end the vmap sentence with '.', 4.9 - 6.10 do not; 6.11 names
		 * the address range instead */
		{ "vmap allocation for size 3866624 failed: use vmalloc=<size> to increase size.",
		  KLOG_FINDING_VMAP_FAILED, NULL },
		{ "vmap allocation for size 2498560 failed: use vmalloc=<size> to increase size",
		  KLOG_FINDING_VMAP_FAILED, NULL },
		{ "vmalloc_node_range for size 2498560 failed: Address range restricted to "
		  "0xffffffffc0000000 - 0xffffffffff000000",
		  KLOG_FINDING_VMAP_FAILED, NULL },
		/* up to 4.12; 4.13 - 6.3; 4.13+ */
		{ "request_module: runaway loop modprobe net-pf-10", KLOG_FINDING_KMOD_GAVE_UP,
		  "net-pf-10" },
		{ "request_module: kmod_concurrent_max (0) close to 0 (max_modprobes: 50), for "
		  "module fs-foo, throttling...",
		  KLOG_FINDING_KMOD_THROTTLED, "fs-foo" },
		{ "request_module: modprobe fs-foo cannot be processed, kmod busy with 50 threads "
		  "for more than 5 seconds now",
		  KLOG_FINDING_KMOD_BUSY, "fs-foo" },
		/* 5.4+ */
		{ "Lockdown: modprobe: unsigned module loading is restricted; see man "
		  "kernel_lockdown.7",
		  KLOG_FINDING_SIG_REJECTED, NULL },
		/* 5.4 ("%s is rejected"), 5.9 ("%s: %s is rejected"), 5.11, 5.12+ */
		{ "Loading of unsigned module is rejected", KLOG_FINDING_SIG_REJECTED, NULL },
		{ "wl: Loading of unsigned module is rejected", KLOG_FINDING_SIG_REJECTED, "wl" },
		{ "wl: loading of module with unavailable key is rejected",
		  KLOG_FINDING_SIG_REJECTED, "wl" },
		{ "Loading of module with unsupported crypto is rejected",
		  KLOG_FINDING_SIG_REJECTED, NULL },
		/* 5.17+ gzip and xz, 6.2+ zstd */
		{ "not a gzip compressed module", KLOG_FINDING_DECOMPRESS_FAILED, NULL },
		{ "not an xz compressed module", KLOG_FINDING_DECOMPRESS_FAILED, NULL },
		{ "not a zstd compressed module", KLOG_FINDING_DECOMPRESS_FAILED, NULL },
		/* up to 6.8 pr_warn(), 6.9+ dev_err() */
		{ "e1000e: probe of 0000:00:19.0 failed with error -2", KLOG_FINDING_PROBE_FAILED,
		  "e1000e" },
		{ "pci 0000:00:19.0: probe with driver e1000e failed with error -2",
		  KLOG_FINDING_PROBE_FAILED, "e1000e" },
	};
	struct klog_finding f;

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		f = classify_fmt(rows[i].kind, rows[i].line);
		if (rows[i].module)
			assert_field(f.module, f.module_len, rows[i].module);
		else
			assert_null(f.module);
	}
}

/* A classify_case: a line, the module and kind and errno it must give */
struct classify_case {
	const char *line, *module;
	enum klog_finding_kind kind;
	int err;
};

/* Each of @cases classified as it says, and none of @none a finding */
static void check_classified(const struct classify_case *cases, size_t n,
			     const char *const *none, size_t n_none)
{
	struct klog_finding f;

	for (size_t i = 0; i < n; i++) {
		if (klog_classify(cases[i].line, strlen(cases[i].line), &f) != 1)
			fail_msg("not recognised: \"%s\"", cases[i].line);
		assert_int_equal(f.kind, cases[i].kind);
		assert_int_equal(f.err, cases[i].err);
		if (cases[i].module)
			assert_field(f.module, f.module_len, cases[i].module);
		else
			assert_null(f.module);
	}
	for (size_t i = 0; i < n_none; i++)
		if (klog_classify(none[i], strlen(none[i]), &f) != 0)
			fail_msg("a finding in \"%s\": %s", none[i], klog_finding_kind_name(f.kind));
}

/* the third held-out batch (tests/corpus 088-132): lines from those logs */
static void test_finding_third_batch(void **state)
{
	static const struct classify_case cases[] = {
		/* OpenWrt's ubox loader: bare on a console, or with its syslog ident */
		{ "failed to insert /lib/modules/5.4.40/wl.ko", "wl", KLOG_FINDING_MODPROBE_ERROR, 0 },
		{ "kmod: failed to read full module /lib/modules/3.10.14/mt7615.ko", "mt7615",
		  KLOG_FINDING_MODPROBE_ERROR, 0 },
		{ "`kmodloader: failed to mmap /lib/modules/4.14.121/mt7628.ko`", "mt7628",
		  KLOG_FINDING_MODPROBE_ERROR, 0 },
		{ "kmodloader: failed to load the .modinfo section from /lib/modules/6.1.80/ehci-fsl.ko",
		  "ehci-fsl", KLOG_FINDING_MODPROBE_ERROR, 0 },
		/* busybox modprobe without its module directory */
		{ "modprobe: can't change directory to '/lib/modules': No such file or directory",
		  NULL, KLOG_FINDING_MODPROBE_ERROR, ENOENT },
		/* a module's BTF rejected: the load fails */
		{ "failed to validate module [mt76_usb] BTF: -22", "mt76_usb",
		  KLOG_FINDING_LOAD_ERROR, 0 },
		/* SELinux's lockdown check in its AVC record */
		{ "audit: type=1400 audit(1655302156.066:213): avc:  denied  { integrity } for  pid=2468 comm=\"insmod\" lockdown_reason=\"unsigned module loading\" scontext=system_u:system_r:kernel_t:s0 tcontext=system_u:system_r:kernel_t:s0 tclass=lockdown permissive=0",
		  NULL, KLOG_FINDING_SIG_REJECTED, EACCES },
		/* "<size>" dropped by a paste rendered as HTML */
		{ "vmap allocation for size 589824 failed: use vmalloc= to increase size.", NULL,
		  KLOG_FINDING_VMAP_FAILED, ENOMEM },
		/* the inline code's mark is not part of the module's name */
		{ "I try to load it, **dmesg** says: `mali: module verification failed: signature and/or required key missing - tainting kernel`",
		  "mali", KLOG_FINDING_SIG_MISSING, 0 },
	};
	static const char *const none[] = {
		/* ubox's words of anything but a module file */
		"failed to insert /var/lib/db/row.txt",
		"failed to insert the card",
		"kmod: failed to insert",
		/* another lockdown reason */
		"audit: type=1400 audit(1655302156.066:213): avc:  denied  { integrity } for  pid=2468 comm=\"x\" lockdown_reason=\"/dev/mem,kmem,port\" scontext=a tcontext=b tclass=lockdown permissive=0",
	};
	(void)state;
	check_classified(cases, sizeof(cases) / sizeof(cases[0]), none,
			 sizeof(none) / sizeof(none[0]));
}

/* Batch 4a's new wordings: x86 relocation, Chrome OS's LSM, the level prefix, old modprobe */
static void test_finding_batch_4a(void **state)
{
	static const struct classify_case cases[] = {
		/* x86's relocation check fails the load and names no module */
		{ "module: x86/modules: Skipping invalid relocation target, existing value is nonzero for type 2, loc 0000000012345678, val ffffffffc0a1b2c3",
		  NULL, KLOG_FINDING_LOAD_ERROR, ENOEXEC },
		/* Chrome OS's LSM refuses a module from outside its pinned root */
		{ "Chromium OS LSM: init_module denied module=\"/home/chronos/user/Downloads/usbip-core.ko\" pid=4242 cmdline=\"insmod usbip-core.ko\"",
		  "usbip-core", KLOG_FINDING_SIG_REJECTED, EPERM },
		/* a syslog priority before an untimed message is not the module's name */
		{ "<3>snd_foo: Unknown symbol snd_pcm_new (err -2)", "snd_foo",
		  KLOG_FINDING_UNKNOWN_SYMBOL, ENOENT },
		{ "`<4>vboxdrv: disagrees about version of symbol module_layout`", "vboxdrv",
		  KLOG_FINDING_SYMBOL_VERSION, EINVAL },
		/* module-init-tools' modprobe, with or without the sentence's '.' */
		{ "FATAL: Module nvidia_current not found.", "nvidia_current",
		  KLOG_FINDING_MODPROBE_ERROR, ENOENT },
		{ "FATAL: Module spl not found", "spl", KLOG_FINDING_MODPROBE_ERROR, ENOENT },
		/* kmod modprobe's error retyped without its program */
		{ "could not insert 'vboxnetflt': Operation not permitted", "vboxnetflt",
		  KLOG_FINDING_MODPROBE_ERROR, EPERM },
	};
	static const char *const none[] = {
		/* Chrome OS's LSM pinning its root on the first load, and its other words */
		"Chromium OS LSM: init_module locked module=\"/lib/modules/3.8.11/kernel/drivers/net/tun.ko\" pid=83 cmdline=\"modprobe tun\"",
		"Chromium OS LSM: init_module locking-ignored module=\"/tmp/x.ko\" pid=9 cmdline=\"insmod /tmp/x.ko\"",
		"Chromium OS LSM: module locking engaged.",
		/* a level prefix alone */
		"<4>",
		/* other words of the same shape */
		"FATAL: Module loading is disabled in this image",
		"could not insert 'a b': the index is full",
	};
	(void)state;
	check_classified(cases, sizeof(cases) / sizeof(cases[0]), none,
			 sizeof(none) / sizeof(none[0]));
}

/* batch 4b of held-out logs (tests/corpus 160-183): older loaders and kernels, Android 16 */
static void test_finding_batch_4b(void **state)
{
	static const struct {
		const char *line, *module;
		enum klog_finding_kind kind;
		int err;
	} cases[] = {
		/* 2.6's forced loads */
		{ "vmmon: no version magic, tainting kernel.", "vmmon", KLOG_FINDING_FORCED_LOAD, 0 },
		{ "ndiswrapper: no version for \"struct_module\" found: kernel tainted.",
		  "ndiswrapper", KLOG_FINDING_FORCED_LOAD, 0 },
		/* Android 16's libmodprobe and modprobe */
		{ "modprobe: LoadWithAliases was unable to load /system_dlkm/lib/modules/ptp_kvm.ko, tried: ptp_kvm",
		  "ptp_kvm", KLOG_FINDING_MODPROBE_ERROR, 0 },
		{ "modprobe: Failed to load module /system_dlkm/lib/modules/ptp_kvm.ko: Operation not supported on transport endpoint",
		  "ptp_kvm", KLOG_FINDING_MODPROBE_ERROR, EOPNOTSUPP },
		{ "[9:       modprobe:  465] modprobe: Failed to insmod '/vendor/lib/modules/scsc_wlan.ko' with args '': Out of memory",
		  "scsc_wlan", KLOG_FINDING_MODPROBE_ERROR, ENOMEM },
		/* busybox before 1.13 */
		{ "insmod: cannot insert `/lib/modules/ipt_mark.ko': Success (22): Success",
		  "ipt_mark", KLOG_FINDING_MODPROBE_ERROR, 0 },
		{ "modprobe: module ath_rate_minstrel not found", "ath_rate_minstrel",
		  KLOG_FINDING_MODPROBE_ERROR, ENOENT },
		{ "modprobe: failed to load module ath_rate_minstrel", "ath_rate_minstrel",
		  KLOG_FINDING_MODPROBE_ERROR, 0 },
		/* module-init-tools 0.8/0.9: `file' quoted, no program name */
		{ "Error inserting `./gameport.o': -1 Invalid module format", "gameport",
		  KLOG_FINDING_MODPROBE_ERROR, ENOEXEC },
		{ "insmod: error inserting `/lib/scsi_mod.o': -1 Unknown symbol in module",
		  "scsi_mod", KLOG_FINDING_MODPROBE_ERROR, ENOENT },
	};
	static const char *const none[] = {
		/* the same words of anything but a module load */
		"Failed to load module /usr/lib/python3/foo.py: No such file or directory",
		"python: Failed to load module plugin: not found",
		"module foo not found",
		"failed to load module ath_rate_minstrel",
	};
	struct klog_finding f;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (klog_classify(cases[i].line, strlen(cases[i].line), &f) != 1)
			fail_msg("not recognised: \"%s\"", cases[i].line);
		assert_int_equal(f.kind, cases[i].kind);
		assert_int_equal(f.err, cases[i].err);
		assert_field(f.module, f.module_len, cases[i].module);
	}
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		if (klog_classify(none[i], strlen(none[i]), &f) != 0)
			fail_msg("a finding in \"%s\": %s", none[i], klog_finding_kind_name(f.kind));
}

/* a journal line with no host (journalctl --no-hostname, or cut for a report) */
static void test_dmesg_journal_without_host(void **state)
{
	struct klog_rec rec;

	(void)state;
	assert_int_equal(dline("2020-07-15T19:16:02.121091+0000 kernel: status -71 num_proto_errs 1",
			       &rec), 1);
	assert_int_equal(rec.format, KLOG_FORMAT_JOURNAL_ISO);
	assert_null(rec.host);
	assert_mem(rec.msg, rec.msg_len, "status -71 num_proto_errs 1");
	assert_int_equal(dline("sep 26 17:13:03 kernel: usbcore: registered new interface driver rt2800usb",
			       &rec), 1);
	assert_int_equal(rec.format, KLOG_FORMAT_JOURNAL_SHORT);
	assert_mem(rec.msg, rec.msg_len, "usbcore: registered new interface driver rt2800usb");
	/* another program's line is none */
	assert_int_equal(dline("2020-07-15T19:16:02+0000 sshd[12]: Accepted publickey", &rec), 0);
	assert_int_equal(dline("2020-07-15T19:16:02+0000 kernelx: no", &rec), 0);
}

/* A line a paste split in two: joined only into a whole wording, from the corpus's real lines */
static void test_join_cut_lines(void **state)
{
	static const char qp_a[] = "wl: module verification failed: signature and/or required ke=";
	static const char qp_b[] = "y missing - tainting kernel";
	static const char wrap_a[] = "dvb_usb_dw2102:";
	static const char wrap_b[] = "disagrees about version of symbol dvb_usb_device_init";
	static const char quote_a[] = ">> tifm: version magic '2.6.10 686 REGPARM gcc-3.3' should be '2.6.10";
	static const char quote_b[] = ">REGPARM gcc-3.4'";
	static const char other_a[] = "usb 1-1: new high-speed USB device number 2 using ehci-pci";
	static const char key[] = "Request for unknown module key 'Magrathea: Glacier signing key: "
				  "5682f337b8a0a17eef58c6ac5e9a85712c9208df' err -11";
	char buf[KLOG_JOIN_MAX];
	struct klog_finding f;
	size_t n;

	(void)state;

	n = klog_join_cut(qp_a, strlen(qp_a), qp_b, strlen(qp_b), buf, sizeof(buf));
	assert_string_equal(buf, "wl: module verification failed: signature and/or required key "
				 "missing - tainting kernel");
	assert_int_equal(klog_classify(buf, n, &f), 1);
	assert_int_equal(f.kind, KLOG_FINDING_SIG_MISSING);

	n = klog_join_cut(wrap_a, strlen(wrap_a), wrap_b, strlen(wrap_b), buf, sizeof(buf));
	assert_int_equal(klog_classify(buf, n, &f), 1);
	assert_int_equal(f.kind, KLOG_FINDING_SYMBOL_VERSION);
	assert_int_equal(f.module_len, 14);

	n = klog_join_cut(quote_a, strlen(quote_a), quote_b, strlen(quote_b), buf, sizeof(buf));
	assert_string_equal(buf, "tifm: version magic '2.6.10 686 REGPARM gcc-3.3' should be "
				 "'2.6.10 REGPARM gcc-3.4'");
	assert_int_equal(klog_classify(buf, n, &f), 1);
	assert_int_equal(f.kind, KLOG_FINDING_VERMAGIC);

	/* two unrelated lines make no finding */
	n = klog_join_cut(other_a, strlen(other_a), wrap_b, strlen(wrap_b), buf, sizeof(buf));
	assert_true(n > 0);
	assert_int_equal(klog_classify(buf, n, &f), 0);
	/* nor does a half alone, nor a join too long for the buffer */
	assert_int_equal(klog_join_cut(wrap_a, strlen(wrap_a), ">  ", 3, buf, sizeof(buf)), 0);
	assert_int_equal(klog_join_cut(qp_a, strlen(qp_a), qp_b, strlen(qp_b), buf, 20), 0);

	/* kernel/module_signing.c's line of a key the kernel lacks: no finding, but known */
	assert_int_equal(klog_classify(key, strlen(key), &f), 0);
	assert_true(klog_module_line(key, strlen(key)));
	assert_false(klog_module_line(other_a, strlen(other_a)));
	assert_false(klog_module_line("Request for unknown module key", 30));
}

/* batch 5b of the held-out logs (tests/corpus 210-235): lines from those logs */
static void test_finding_batch_5b(void **state)
{
	static const struct classify_case cases[] = {
		/* the distributions' lockdown patches before 5.4 name no module */
		{ "Lockdown: systemd-udevd: Loading of unsigned module is restricted; see man kernel_lockdown.7",
		  NULL, KLOG_FINDING_SIG_REJECTED, EPERM },
		/* arm64's module_frob_arch_sections() */
		{ "v4l2loopback: module PLT section(s) missing", "v4l2loopback",
		  KLOG_FINDING_BAD_ELF, ENOEXEC },
		{ "foo: module GOT section(s) missing", "foo", KLOG_FINDING_BAD_ELF, ENOEXEC },
		/* kmod's stderr line inside another program's line, or after an ident */
		{ "driverdog[2088]: 23:10:41 [ERROR] '/usr/bin/modprobe' failed - stderr: modprobe: ERROR: could not insert 'nvidia': Operation not permitted",
		  "nvidia", KLOG_FINDING_MODPROBE_ERROR, EPERM },
		{ "driverdog[2088]: modprobe: ERROR: could not insert 'nvidia_uvm': Operation not permitted",
		  "nvidia_uvm", KLOG_FINDING_MODPROBE_ERROR, EPERM },
		/* in inline code mid-sentence: up to the closing mark */
		{ "For the above I got `openrazer-driver/3.6.1, 6.4.10-100.fc37.x86_64, x86_64: installed` and `modprobe: ERROR: could not insert 'razerkbd': Key was rejected by service`.",
		  "razerkbd", KLOG_FINDING_MODPROBE_ERROR, EKEYREJECTED },
		{ "see `modprobe: FATAL: Module hid_xpadneo not found in directory /lib/modules/6.16.3` here",
		  "hid_xpadneo", KLOG_FINDING_MODPROBE_ERROR, ENOENT },
	};
	static const char *const none[] = {
		/* the old wording with a reason that is not a missing signature */
		"Lockdown: modprobe: Loading of module with unavailable key is restricted; see man kernel_lockdown.7",
		/* kmod's words retyped without its priority's colon, and another program's ERROR */
		"googling for \"modprobe: ERROR could not insert Operation not permitted\"",
		"driverdog[2088]: [ERROR] '/usr/bin/modprobe' failed - stderr: nothing",
		/* the program's name inside another word, and no wording of kmod's after it */
		"xmodprobe: ERROR: could not insert 'nvidia': Operation not permitted",
		"said modprobe: ERROR: the disk is full",
		/* kmod's FATAL wording mid-line is read in inline code only (but the one that
		 * names the module directory: test_finding_batch_6b) */
		"said modprobe: FATAL: Module hid_xpadneo not found.",
	};

	(void)state;
	check_classified(cases, sizeof(cases) / sizeof(cases[0]), none,
			 sizeof(none) / sizeof(none[0]));
}

/* batch 5a (tests/corpus/heldout-5a): what mail bodies and prose do to a line */
static void test_finding_batch_5a(void **state)
{
	static const struct classify_case cases[] = {
		/* a quoted-printable body kept undecoded: its hard line end's "=20" or "=0A=" */
		{ "pptest: loading out-of-tree module taints kernel.=0A=", "pptest",
		  KLOG_FINDING_TAINT, 0 },
		{ "jailhouse: loading out-of-tree module taints kernel.=20", "jailhouse",
		  KLOG_FINDING_TAINT, 0 },
		{ "> uio_ivshmem: loading out-of-tree module taints kernel.=20", "uio_ivshmem",
		  KLOG_FINDING_TAINT, 0 },
		/* module-init-tools' modprobe through syslog, its ident in front */
		{ "modprobe: FATAL: Error inserting qla2200 (/lib/modules/2.6.14-rc4-rt5/kernel/"
		  "drivers/scsi/qla2xxx/qla2200.ko): Unknown symbol in module, or unknown "
		  "parameter (see dmesg)", "qla2200", KLOG_FINDING_MODPROBE_ERROR, ENOENT },
		/* a line quoted whole in prose, and one whose parenthesis the prose closes */
		{ "> \"insmod: error inserting 'nfsd.ko': -1 Unknown symbol in module\"", "nfsd",
		  KLOG_FINDING_MODPROBE_ERROR, ENOENT },
		{ "dvb_usb_dibusb_mc_common: Unknown symbol __symbol_get (err 0))",
		  "dvb_usb_dibusb_mc_common", KLOG_FINDING_UNKNOWN_SYMBOL, ENOENT },
	};
	static const char *const none[] = {
		/* the kernel names no module by a path: console text interleaved before it */
		"serting '/lib/scjbd: version magic '2.6.9-5.EL 686' should be '2.6.12-rc5'",
		/* the marks alone, and a balanced parenthesis, make nothing of other text */
		"loading out-of-tree module=20",
		"\"just a quote\"",
		"usbcore: registered new interface driver (dvb_usb))",
	};

	(void)state;
	check_classified(cases, sizeof(cases) / sizeof(cases[0]), none,
			 sizeof(none) / sizeof(none[0]));
}

/* Lines only a kernel prints, no finding: they make a paste without timestamps a kernel log */
static void test_kernel_line(void **state)
{
	static const char *const kernel[] = {
		"CPU: 1 PID: 5059 Comm: syz-executor306 Not tainted 6.7.0-rc2-syzkaller #0",
		"CPU: 0 UID: 0 PID: 78 Comm: kswapd0 Not tainted syzkaller #0 PREEMPT(full) ",
		"Call Trace:",
		"Call trace:",
		"<4>Call Trace:",
		"b43-pci-bridge 0000:06:02.0: PCI INT A -> GSI 21 (level, low) -> IRQ 21",
		"nvidia 0000:01:00.0: enabling device (0000 -> 0003)",
		"Request for unknown module key 'Magrathea: Glacier signing key: 1234' err -11",
		"Modules linked in: nvidia(PO) drm_kms_helper",
		"Hardware name: QEMU Standard PC (i440FX + PIIX, 1996), BIOS 1.16.2-debian-1.16.2-1 04/01/2014",
		"------------[ cut here ]------------",
		"---[ end trace 0000000000000000 ]---",
		"WARNING: CPU: 2 PID: 1 at kernel/module/main.c:1234 load_module+0x1/0x2",
		"RIP: 0010:load_module+0x1a/0x2b0",
		"Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)",
		"Kernel command line: BOOT_IMAGE=/vmlinuz root=/dev/sda1",
		"audit: type=1400 audit(1672654272.123:2): apparmor=\"STATUS\"",
		"[drm] Initialized i915 1.6.0 20201103 for 0000:00:02.0 on minor 0",
		"ACPI: Core revision 20220331",
		"EXT4-fs (sda1): mounted filesystem with ordered data mode",
		"usb 1-1: new high-speed USB device number 2 using xhci_hcd",
		"usb 1-1.2.4: new full-speed USB device number 5 using xhci_hcd",
		"usb usb3: New USB device found, idVendor=1d6b, idProduct=0003",
		"sd 0:0:0:0: [sda] 976773168 512-byte logical blocks",
		"scsi host2: ahci",
		"scsi 2:0:0:0: Direct-Access     ATA      Samsung SSD",
		"ata1: SATA link up 6.0 Gbps (SStatus 133 SControl 300)",
		"ata1.00: ATA-9: Samsung SSD 850 EVO 500GB, EMT02B6Q, max UDMA/133",
		"  INFO: task kworker/34:2:243325 blocked for more than 225 seconds.",
		"  \"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.",
		"  Call Trace:",
		"> > Modules linked in: nvidia(PO)",
	};
	static const char *const other[] = {
		"CPU: 1 Comm: x",
		"CPU: one PID: 2 Comm: x",
		"CPU: 1 PID: 2 Command: x",
		"Call Trace: see below",
		"b43 0000:06:02.0 is the card",
		"b43 0000:06:02.8: not a function",
		"b43 0000:06:2.0: one digit",
		"b43 0000:06:02.0:no space",
		"my card 0000:06:02.0: two words",
		"01:00.0 VGA compatible controller: NVIDIA Corporation",
		"",
		"Modules linked",
		"Hardware: a PC",
		"WARNING: something went wrong",
		"usb 1-: no port",
		"usb 1-1 is the port",
		"usb stick: my data",
		"sd 0:0:0: three parts",
		"sd card: full",
		"scsi hostile: x",
		"ata: a word",
		"ata1.0: one digit",
		"ata1 is the port",
		"ACPI is the firmware",
		"INFO: task done",
		"  Call Traces: none",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(kernel) / sizeof(kernel[0]); i++)
		assert_true(klog_kernel_line(kernel[i], strlen(kernel[i])));
	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
		struct klog_finding f;

		assert_false(klog_kernel_line(other[i], strlen(other[i])));
		assert_int_equal(klog_classify(other[i], strlen(other[i]), &f), 0);
	}
}

/* batch 6b of the held-out logs (tests/corpus 261-285): lines from those logs */
static void test_finding_batch_6b(void **state)
{
	static const struct classify_case cases[] = {
		/* modprobe -a's priority, bare or inside Docker's logfmt line */
		{ "modprobe: WARNING: Module bridge not found in directory /lib/modules/4.4.0-28-generic",
		  "bridge", KLOG_FINDING_MODPROBE_ERROR, ENOENT },
		{ "time=\"2024-11-29T20:40:42Z\" level=error msg=\"Running modprobe br_netfilter failed with message: modprobe: WARNING: Module br_netfilter not found in directory /lib/modules/5.15.0-1072-aws\\n\" error=\"exit status 1\"",
		  "br_netfilter", KLOG_FINDING_MODPROBE_ERROR, ENOENT },
		/* cut at a terminal's width after the module's name */
		{ "modprobe: FATAL: Module tun not found in direct", "tun",
		  KLOG_FINDING_MODPROBE_ERROR, ENOENT },
		{ "modprobe: WARNING: Module tun not found", "tun", KLOG_FINDING_MODPROBE_ERROR,
		  ENOENT },
		/* the FATAL line that names the module directory, after other words */
		{ "when I execute modprobe br_netfilter I get: modprobe: FATAL: Module br_netfilter not found in directory /lib/modules/4.19.193-31-rockchip-g044735a22a0e. I use rock3a",
		  "br_netfilter", KLOG_FINDING_MODPROBE_ERROR, ENOENT },
		{ "is CONFIG_TUN enabled in your kernel? `modprobe tun` failed with: modprobe: FATAL: Module tun not found in directory /lib/modules/6.6.28",
		  "tun", KLOG_FINDING_MODPROBE_ERROR, ENOENT },
		/* busybox's xchdir() after other words, or in inline code */
		{ "WARN[0000] Running modprobe bridge br_netfilter failed with message: modprobe: can't change directory to '4.4.10-rancher': No such file or directory",
		  NULL, KLOG_FINDING_MODPROBE_ERROR, ENOENT },
		{ "WARN[0000] Running modprobe nf_nat failed with message: `modprobe: can't change directory to '4.4.10-rancher': No such file or directory`, error: exit status 1",
		  NULL, KLOG_FINDING_MODPROBE_ERROR, ENOENT },
		/* kmod's first insmod */
		{ "Error: could not insert module /lib/modules/3.16.0-0.bpo.4-amd64/updates/dkms/zfs.ko: Unknown symbol in module",
		  "zfs", KLOG_FINDING_MODPROBE_ERROR, ENOENT },
		/* a kernel line in a markdown code block of four spaces */
		{ "    module vmmon: .gnu.linkonce.this_module section size must match the kernel's built struct module size at run time",
		  "vmmon", KLOG_FINDING_THIS_MODULE_SIZE, ENOEXEC },
	};
	static const char *const none[] = {
		/* no beginning of kmod's tail, or cut before it */
		"modprobe: FATAL: Module tun not found in the cache",
		"modprobe: FATAL: Module tun not",
		"modprobe: FATAL: Module  not found in",
		/* the short FATAL wording after words, and no module directory */
		"said modprobe: FATAL: Module tun not found.",
		"said modprobe: FATAL: Module tun not found in directory lib/modules",
		"said modprobe: WARNING: the cache is stale",
		/* busybox's program name inside another word */
		"xmodprobe: can't change directory to '4.4.10': No such file or directory",
		/* kmod's words with a name of two words */
		"Error: could not insert module foo bar: Unknown symbol in module",
		/* indentation alone, and indented prose */
		"    ",
		"    the module loaded fine",
	};

	(void)state;
	check_classified(cases, sizeof(cases) / sizeof(cases[0]), none,
			 sizeof(none) / sizeof(none[0]));
}

/* batch 6a of the held-out logs: lines as consoles and committed notes have them */
static void test_finding_batch_6a(void **state)
{
	static const struct classify_case cases[] = {
		/* a serial console's line padded with blanks to the terminal's width */
		{ "[  127.969741] hello_kernel: loading out-of-tree module taints kernel.          ",
		  "hello_kernel", KLOG_FINDING_TAINT, 0 },
		{ "hello_mod: loading out-of-tree module taints kernel.\t \t", "hello_mod",
		  KLOG_FINDING_TAINT, 0 },
		/* blanks after a loader's strerror() text: its errno still read */
		{ "insmod: ERROR: could not insert module hello-kernel.ko: Invalid module format    ",
		  "hello-kernel", KLOG_FINDING_MODPROBE_ERROR, ENOEXEC },
	};
	static const char *const none[] = {
		/* blanks alone, and other text padded with them */
		"          ",
		"random: crng init done                                                  ",
		"Unknown symbol foo (err -2)   ",
	};

	(void)state;
	check_classified(cases, sizeof(cases) / sizeof(cases[0]), none,
			 sizeof(none) / sizeof(none[0]));
}

static void test_finding_batch_7b(void **state)
{
	static const struct classify_case cases[] = {
		/* a kernel line quoted in double quotes mid-sentence, after a colon */
		{ "dmesg/journalctl output additionally shows: \"module: x86/modules: Skipping invalid relocation target, existing value is nonzero for type 1, loc 0000000085ff9d82, val ffffffffc148a694\".",
		  NULL, KLOG_FINDING_LOAD_ERROR, ENOEXEC },
		/* the first quote holds no wording, the second does; no punctuation after it */
		{ "I ran \"sudo modprobe rtw_8821a\" and dmesg said \"rtw_8821a: Unknown symbol rtw88xxa_power_on (err -2)\"",
		  "rtw_8821a", KLOG_FINDING_UNKNOWN_SYMBOL, ENOENT },
		{ "the log has \"nct6687: loading out-of-tree module taints kernel.\", then nothing",
		  "nct6687", KLOG_FINDING_TAINT, 0 },
	};
	static const char *const none[] = {
		/* a quote glued to a word, or left open, is no message quoted in prose */
		"it said x\"zenpower: Unknown symbol foo (err -2)\" once",
		"it said \"zenpower: Unknown symbol foo (err -2) and more",
		/* a quote closed inside a word: not the message's end */
		"see \"zenpower: Unknown symbol foo (err -2)\"s here",
		/* quoted values without a name's colon (an audit record's) */
		"audit: type=1400 audit(1.2:3): apparmor=\"STATUS\" operation=\"profile_load\" name=\"nvidia_modprobe\" comm=\"apparmor_parser\"",
		/* a quoted wording that is not the kernel's whole line */
		"prose: \"Unknown symbol in module\" again",
	};

	(void)state;
	check_classified(cases, sizeof(cases) / sizeof(cases[0]), none,
			 sizeof(none) / sizeof(none[0]));
}

/* batch 7a (tests/corpus 286-310): lines as web pages typeset them */
static void test_finding_batch_7a(void **state)
{
	static const struct classify_case cases[] = {
		/* busybox's insmod with typographic single quotes (U+2019, U+2018) */
		{ "insmod: can\xe2\x80\x99t insert \xe2\x80\x98" "board_config.ko\xe2\x80\x99: invalid parameter",
		  "board_config", KLOG_FINDING_MODPROBE_ERROR, 0 },
		/* kmod's line quoted whole in typographic double quotes (U+201C, U+201D) */
		{ "\xe2\x80\x9cmodprobe: FATAL: Module tun not found in directory /lib/modules/6.1.0\xe2\x80\x9d",
		  "tun", KLOG_FINDING_MODPROBE_ERROR, ENOENT },
		/* a kernel line with a typeset quote in its module's licence */
		{ "wl: module license \xe2\x80\x98unspecified\xe2\x80\x99 taints kernel.", "wl",
		  KLOG_FINDING_TAINT, 0 },
	};
	static const char *const none[] = {
		/* prose with typographic quotes and no wording */
		"it\xe2\x80\x99s a module: don\xe2\x80\x99t worry",
		"\xe2\x80\x9cUnknown symbol foo (err -2)\xe2\x80\x9d",
		/* a UTF-8 sequence cut at the line's end */
		"insmod: can\xe2\x80",
		"insmod: can\xe2",
	};

	(void)state;
	check_classified(cases, sizeof(cases) / sizeof(cases[0]), none,
			 sizeof(none) / sizeof(none[0]));
}

/* batch 7a's follow-up: 2.4 modutils' insmod, a table's cell, module-init-tools' lines
 * after a shell's command, kernel lines that make a paste a kernel log */
static void test_finding_batch_7a_followup(void **state)
{
	static const struct classify_case cases[] = {
		/* modutils' error() puts the file before the message: kmod's rule names it */
		{ "msdos.o: unresolved symbol fat_date_unix2dos", "msdos",
		  KLOG_FINDING_UNKNOWN_SYMBOL, ENOENT },
		{ "/lib/modules/2.4.18-3/kernel/fs/msdos/msdos.o: unresolved symbol fat_put_super",
		  "msdos", KLOG_FINDING_UNKNOWN_SYMBOL, ENOENT },
		{ "\"Warning: loading mymodule.o will taint the kernel: forced load\"", "mymodule",
		  KLOG_FINDING_FORCED_LOAD, 0 },
		{ "Warning: loading nvidia.o will taint the kernel: non-GPL license - NVIDIA",
		  "nvidia", KLOG_FINDING_TAINT, 0 },
		/* markdown table rows of one cell, with or without blanks after the row */
		{ "| insmod: error inserting 'poet_atkm.ko': -1 Invalid module format | ",
		  "poet_atkm", KLOG_FINDING_MODPROBE_ERROR, ENOEXEC },
		{ "| poet_atkm: version magic '2.6.5-1.358custom 686' should be '2.6.5-1.358 686' |",
		  "poet_atkm", KLOG_FINDING_VERMAGIC, ENOEXEC },
		/* module-init-tools' FATAL lines after the command, all on one line */
		{ "$ sudo modprobe wl FATAL: Module wl not found. FATAL: Error running install command for wl",
		  "wl", KLOG_FINDING_MODPROBE_ERROR, 0 },
		{ "# modprobe spl WARNING: Error inserting zlib_deflate (/lib/modules/zlib_deflate.ko): Invalid module format",
		  "zlib_deflate", KLOG_FINDING_MODPROBE_ERROR, ENOEXEC },
		/* kmod insmod's wording without "insmod: ERROR: ", in prose or capitalised */
		{ "I get the error: could not insert module usbtv.ko: invalid module format.",
		  "usbtv", KLOG_FINDING_MODPROBE_ERROR, 0 },
		{ "ERROR: Could not insert module 88x2bu.ko: Unknown symbol in module", "88x2bu",
		  KLOG_FINDING_MODPROBE_ERROR, ENOENT },
		{ "could not insert module /tmp/x.ko.xz: Key was rejected by service", "x",
		  KLOG_FINDING_MODPROBE_ERROR, EKEYREJECTED },
	};
	static const char *const none[] = {
		/* a verb in prose, no symbol named; a word list with blanks for a module */
		"msdos.o: unresolved symbol",
		"the loader said: unresolved symbol x",
		"Warning: loading my module will taint the kernel: forced load",
		/* a table of two cells; a cell that is no wording */
		"| insmod: error inserting 'x.ko': -1 Invalid module format | ok |",
		"| a cell | ",
		/* module-init-tools' words without a module, or glued to another word */
		"$ sudo modprobe wl FATAL: Module wl not found.",
		"$ sudo modprobe wlFATAL: Error running install command for wl",
		/* no module file, or glued to the word before */
		"the error: could not insert module usbtv: invalid module format",
		"I could not insert module x.ko",
		"Icould not insert module x.ko: Invalid module format",
	};
	static const char *const kernel[] = {
		"Kernel is locked down from Secure IPL mode; see man kernel_lockdown.7",
		"kernel: Kernel is locked down from EFI Secure Boot mode; see man kernel_lockdown.7",
		"NVRM: API mismatch: the client has the version 535.171.04, but",
	};
	static const char *const other[] = {
		"Kernel is locked down",
		"NVRM: API mismatch",
	};

	(void)state;
	check_classified(cases, sizeof(cases) / sizeof(cases[0]), none,
			 sizeof(none) / sizeof(none[0]));
	for (size_t i = 0; i < sizeof(kernel) / sizeof(kernel[0]); i++)
		if (!klog_kernel_line(kernel[i], strlen(kernel[i])))
			fail_msg("not a kernel line: \"%s\"", kernel[i]);
	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++)
		if (klog_kernel_line(other[i], strlen(other[i])))
			fail_msg("a kernel line: \"%s\"", other[i]);
}

/* batch 8a (tests/corpus 336-360): distributions' and system software's lines */
static void test_finding_batch_8a(void **state)
{
	static const struct classify_case cases[] = {
		/* busybox 1.13+ modprobe quotes the name: the quote is not part of it */
		{ "modprobe: module 'dm_mod' not found", "dm_mod", KLOG_FINDING_MODPROBE_ERROR,
		  ENOENT },
		/* riscv's (LoongArch's, MIPS's) relocation type without a handler */
		{ "cfbimgblt: Unknown relocation type 57", "cfbimgblt", KLOG_FINDING_LOAD_ERROR,
		  EINVAL },
		/* Android init's insmod builtin, after the command's words in a logcat line */
		{ "01-01 10:12:48.522     1     1 I (6)[1:init]: Command 'insmod /vendor/lib/modules/fpsgo.ko' action=boot (/vendor/etc/init/hw/init.mt6765.rc:1226) took 1ms and failed: finit_module for \"/vendor/lib/modules/fpsgo.ko\" failed: Exec format error",
		  "fpsgo", KLOG_FINDING_MODPROBE_ERROR, ENOEXEC },
		/* first-stage init's PLOG of the same words */
		{ "init: finit_module for \"/lib/modules/zsmalloc.ko\" failed: No such file or directory",
		  "zsmalloc", KLOG_FINDING_MODPROBE_ERROR, ENOENT },
	};
	static const char *const none[] = {
		/* a modalias no module has: the alias is no module's name */
		"modprobe: module 'pci:v00008086d00000126sv000017AAsd000021DAbc03sc00i00' not found",
		"modprobe: module usb:v1D6Bp0002d0409dc09dsc00dp00ic09isc00ip00in00 not found",
		"modprobe: FATAL: Module pci:v000010ECd00008168 not found in directory /lib/modules/6.1.0",
		/* the words without the kernel's module name */
		"Unknown relocation type 57",
		"init: finit_module for \"/lib/modules/zsmalloc.ko\" failed",
	};

	(void)state;
	check_classified(cases, sizeof(cases) / sizeof(cases[0]), none,
			 sizeof(none) / sizeof(none[0]));
}

/* batch 8b (tests/corpus 361-385): mailing-list pastes, modutils 2.4, wrapped lines */
static void test_finding_batch_8b(void **state)
{
	static const struct classify_case cases[] = {
		/* modutils' insmod of a 2.4 object file, bare or by its path */
		{ "msdos.o: unresolved symbol fat_date_unix2dos", "msdos",
		  KLOG_FINDING_UNKNOWN_SYMBOL, ENOENT },
		{ "/lib/modules/2.4.1-SMP/kernel/drivers/usb/storage/usb-storage.o: unresolved symbol usb_deregister",
		  "usb-storage", KLOG_FINDING_UNKNOWN_SYMBOL, ENOENT },
		/* modutils' insmod and modprobe, after the object file they work on */
		{ "/lib/modules/2.4.0lt/kernel/drivers/atm/fore200e_sba_fw.o: couldn't find the kernel version the module was compiled for",
		  "fore200e_sba_fw", KLOG_FINDING_MODPROBE_ERROR, 0 },
		{ "/lib/modules/2.4.0lt/kernel/drivers/atm/fore200e_sba_fw.o: insmod fore200e failed",
		  "fore200e", KLOG_FINDING_MODPROBE_ERROR, 0 },
	};
	static const char *const none[] = {
		/* the same words of no object file: a linker's, a library loader's */
		"libzc.so: unresolved symbol zc_log",
		"foo: unresolved symbol bar",
		"E wifi: insmod bcmdhd failed",
		/* depmod's install-time list names a module, but no load failed */
		"depmod: *** Unresolved symbols in /lib/modules/2.4.11-pre1/kernel/drivers/media/radio/miropcm20.o",
		/* halves of a wrapped dmesg line: no finding of their own */
		"budget_core: disagrees about version of symbol",
		"budget_core: Unknown symbol dvb_register_adapter (err",
	};
	static const char cut_a[] = ">>> [   14.916841] budget_core: Unknown symbol dvb_register_adapter (err";
	static const char cut_b[] = ">>> -22)";
	char buf[KLOG_JOIN_MAX];
	struct klog_finding f;
	size_t n;

	(void)state;
	check_classified(cases, sizeof(cases) / sizeof(cases[0]), none,
			 sizeof(none) / sizeof(none[0]));
	/* "(err" and "-22)" split by a mail client, both halves quoted */
	n = klog_join_cut(cut_a, strlen(cut_a), cut_b, strlen(cut_b), buf, sizeof(buf));
	assert_string_equal(buf, "[   14.916841] budget_core: Unknown symbol dvb_register_adapter "
				 "(err -22)");
	assert_int_equal(klog_classify(buf + 15, n - 15, &f), 1);
	assert_int_equal(f.kind, KLOG_FINDING_UNKNOWN_SYMBOL);
	assert_int_equal(f.module_len, 11);
}

/*
 * module-init-tools insmod's "error inserting '%s': %li %s" retyped without "insmod: "
 * or quoted mid-sentence, in ASCII or full-width quotes (tests/corpus 309)
 */
static void test_finding_retyped_mit_insmod(void **state)
{
	static const struct classify_case cases[] = {
		{ "\xe4\xbc\x9a\xe9\x81\x87\xe5\x88\xb0\xe2\x80\x9c" "Error inserting './xxx.ko': -1 "
		  "Invalid module format\xe2\x80\x9d\xe3\x80\x82", "xxx", KLOG_FINDING_MODPROBE_ERROR,
		  ENOEXEC },
		{ "I get \"insmod: error inserting './xxx.ko': -1 Invalid module format\".", "xxx",
		  KLOG_FINDING_MODPROBE_ERROR, ENOEXEC },
		{ "it says insmod: error inserting '/lib/modules/foo.ko': -1 Unknown symbol in module",
		  "foo", KLOG_FINDING_MODPROBE_ERROR, ENOENT },
	};
	static const char *const none[] = {
		/* glued to a word; no module file; a table's row; no errno's words */
		"terror inserting 'x.ko': -1 Invalid module format",
		"Error inserting 'foo': -1 Invalid module format",
		"| a | Error inserting 'x.ko': -1 Invalid module format |",
		"we saw error inserting 'x.ko': -1 and then nothing",
	};

	(void)state;
	check_classified(cases, sizeof(cases) / sizeof(cases[0]), none, sizeof(none) / sizeof(none[0]));
}

/* kernel/params.c's refusals of a module's parameters fail its load; at boot no module */
static void test_finding_param_errors(void **state)
{
	static const struct classify_case cases[] = {
		{ "snd_hda_intel: `foo' invalid for parameter `model'", "snd_hda_intel",
		  KLOG_FINDING_LOAD_ERROR, EINVAL },
		{ "iwlwifi: `99999999999' too large for parameter `x'", "iwlwifi",
		  KLOG_FINDING_LOAD_ERROR, ENOSPC },
		{ "nvidia: Unknown parameter `NVreg_Foo'", "nvidia", KLOG_FINDING_LOAD_ERROR, ENOENT },
	};
	static const char *const none[] = {
		"Booting kernel: Unknown parameter `foo'",
		"Booting kernel: `x' invalid for parameter `y'",
		"nvidia: Unknown parameter NVreg_Foo",
	};

	(void)state;
	check_classified(cases, sizeof(cases) / sizeof(cases[0]), none, sizeof(none) / sizeof(none[0]));
}

/* The findings of one message in order: its first, then each from the rest before */
static size_t findings_of(const char *msg, struct klog_finding *f, size_t max)
{
	const char *s = msg, *end = msg + strlen(msg);
	size_t n = 0;

	if (!klog_classify(s, (size_t)(end - s), &f[0]))
		return 0;
	for (n = 1; n < max && f[n - 1].rest; n++) {
		assert_true(f[n - 1].rest > s && f[n - 1].rest <= end);
		s = f[n - 1].rest;
		if (!klog_classify_rest(s, (size_t)(end - s), &f[n]))
			break;
	}
	return n;
}

/* Two records run onto one line, lines quoted in one paragraph: each its finding */
static void test_finding_two_on_one_line(void **state)
{
	static const struct {
		const char *msg;
		enum klog_finding_kind kind[2];
		const char *module[2];
	} two[] = {
		/* syslog's head and dmesg's time of a second record (a mail client's join) */
		{ "em28xx_dvb: disagrees about version of symbol dvb_dmxdev_init Oct 18 23:08:01 "
		  "mediapi kernel: [ 7590.369228] em28xx_dvb: Unknown symbol dvb_dmxdev_init (err -22)",
		  { KLOG_FINDING_SYMBOL_VERSION, KLOG_FINDING_UNKNOWN_SYMBOL },
		  { "em28xx_dvb", "em28xx_dvb" } },
		/* dmesg's time alone: a terminal lost the newline */
		{ "a: module verification failed: signature and/or required key missing - tainting "
		  "kernel [    1.240000] b: Unknown symbol x (err -2)",
		  { KLOG_FINDING_SIG_MISSING, KLOG_FINDING_UNKNOWN_SYMBOL }, { "a", "b" } },
		/* a journal's head without dmesg's time */
		{ "a: Unknown symbol x (err -2) Jan  5 01:02:03 host kernel: b: Unknown symbol y (err -2)",
		  { KLOG_FINDING_UNKNOWN_SYMBOL, KLOG_FINDING_UNKNOWN_SYMBOL }, { "a", "b" } },
		/* the journal's month as a locale prints it, or an ISO time (dmesg_syslog_head()) */
		{ "a: Unknown symbol x (err -2) m\xc3\xa4r 29 18:37:56 host kernel: b: Unknown symbol y (err -2)",
		  { KLOG_FINDING_UNKNOWN_SYMBOL, KLOG_FINDING_UNKNOWN_SYMBOL }, { "a", "b" } },
		{ "a: Unknown symbol x (err -2) 2026-12-02T13:01:21+0000 host kernel: b: Unknown symbol y (err -2)",
		  { KLOG_FINDING_UNKNOWN_SYMBOL, KLOG_FINDING_UNKNOWN_SYMBOL }, { "a", "b" } },
		/* two quotes in prose: kmod's line without its program, then the kernel's */
		{ "modprobe fails with: \"ERROR: could not insert 'hid_nintendo': Exec format error\". "
		  "dmesg shows: \"module: x86/modules: Skipping invalid relocation target, existing "
		  "value is nonzero for type 1, loc 0000000085ff9d82, val ffffffffc148a694\".",
		  { KLOG_FINDING_MODPROBE_ERROR, KLOG_FINDING_LOAD_ERROR }, { "hid_nintendo", NULL } },
		/* a loader's line in a sentence that goes on to quote the kernel's */
		{ "observed from insmod: insmod: ERROR: could not insert module .../nvidia-current.ko: "
		  "Invalid module format and in kernel.log: module: nvidia: Unknown rela relocation: 4 "
		  "The common cause is a testing system running a stable kernel.",
		  { KLOG_FINDING_MODPROBE_ERROR, KLOG_FINDING_LOAD_ERROR },
		  { "nvidia-current", "nvidia" } },
	};
	static const char *const one[] = {
		/* a record whose message holds a bracketed number: no record's head */
		"a: Unknown symbol x (err -2) [    1.240000]",
		"a: Unknown symbol x (err -2) at [ 12.345] b: c",
		"a: Unknown symbol x (err -2) [12345.678901]b: c",
		/* a paste's markup before a head is no first record */
		"| Jun 4 22:07:54 localhost kernel: poet_atkm: version magic '2.6.5 686' should be '2.6.6 686'",
		/* a wording that quotes itself: one line, one finding */
		"insmod: ERROR: could not insert module x.ko: Invalid module format",
		/* a number in prose that goes on in lower case is no wording's end */
		"ERROR: could not insert module x.ko: Invalid module format and then "
		"module: x: Unknown rela relocation: 4 or so",
	};
	struct klog_finding f[4];

	(void)state;
	for (size_t i = 0; i < sizeof(two) / sizeof(two[0]); i++) {
		assert_int_equal(findings_of(two[i].msg, f, sizeof(f) / sizeof(f[0])), 2);
		for (size_t k = 0; k < 2; k++) {
			assert_int_equal(f[k].kind, two[i].kind[k]);
			if (!two[i].module[k]) {
				assert_null(f[k].module);
				continue;
			}
			assert_int_equal(f[k].module_len, strlen(two[i].module[k]));
			assert_memory_equal(f[k].module, two[i].module[k], f[k].module_len);
		}
	}
	for (size_t i = 0; i < sizeof(one) / sizeof(one[0]); i++)
		assert_true(findings_of(one[i], f, sizeof(f) / sizeof(f[0])) <= 1);
	/* the first record's finding is its own, not the second's */
	assert_int_equal(klog_classify(two[0].msg, strlen(two[0].msg), f), 1);
	assert_int_equal(f[0].kind, KLOG_FINDING_SYMBOL_VERSION);
}

/*
 * Batch 9b (tests/corpus 421, 427, 429): dmesg -H's delta printed in a locale's decimal
 * comma; a record's time the reporter replaced by an ellipsis
 */
static void test_finding_batch_9b(void **state)
{
	struct klog_rec rec;
	struct klog_finding f;

	(void)state;
	assert_int_equal(dline("[  +0,003050] failed to validate module [vboxdrv] BTF: -22", &rec), 1);
	assert_int_equal(rec.format, KLOG_FORMAT_DMESG_HUMAN);
	assert_false(rec.has_monotonic);
	assert_mem(rec.msg, rec.msg_len, "failed to validate module [vboxdrv] BTF: -22");
	assert_int_equal(klog_classify(rec.msg, rec.msg_len, &f), 1);
	assert_int_equal(f.kind, KLOG_FINDING_LOAD_ERROR);
	assert_mem(f.module, f.module_len, "vboxdrv");
	/* after dmesg -x's facility and level */
	assert_int_equal(dline("kern  :warn  : [  +0,000002] failed to validate module [cpuid] BTF: -22",
			       &rec), 1);
	assert_int_equal(rec.format, KLOG_FORMAT_DMESG_HUMAN);
	assert_int_equal(rec.level, 4);
	assert_mem(rec.msg, rec.msg_len, "failed to validate module [cpuid] BTF: -22");
	assert_int_equal(dline("[ +12,000031] x", &rec), 1);
	/* a comma and no six digits, or another separator: no delta */
	assert_int_equal(dline("[  +0,31] x", &rec), 0);
	assert_int_equal(dline("[  +0;000002] x", &rec), 0);
	assert_int_equal(dline("[  +0,000002 x", &rec), 0);

	/* tests/corpus 421: the reporter wrote "[...]" for the record's time */
	static const char cut[] = "[...] module hello: .gnu.linkonce.this_module section size "
				  "must match the kernel's built struct module size at run time";
	assert_int_equal(klog_elided_time(cut, strlen(cut)), 6);
	assert_int_equal(klog_classify(cut + 6, strlen(cut) - 6, &f), 1);
	assert_int_equal(f.kind, KLOG_FINDING_THIS_MODULE_SIZE);
	assert_mem(f.module, f.module_len, "hello");
	assert_int_equal(klog_elided_time("[\xe2\x80\xa6] x: y", 10), 6);
	/* an ellipsis of other length, a time, or the mark alone: no cut time */
	assert_int_equal(klog_elided_time("[..] x", 6), 0);
	assert_int_equal(klog_elided_time("[....] x", 8), 0);
	assert_int_equal(klog_elided_time("[    1.000000] x", 16), 0);
	assert_int_equal(klog_elided_time("[...] ", 6), 0);
	assert_int_equal(klog_elided_time("[...]x", 6), 0);
}

/*
 * The taint's and the missing signature's sentences quoted whole in prose, a title or
 * inline code, with or without the module's "%s: " (tests/corpus 094, 188, 306)
 */
static void test_finding_kernel_phrase(void **state)
{
	static const struct classify_case cases[] = {
		{ "` module verification failed: signature and/or  required key missing - tainting "
		  "kernel` shown in output", NULL, KLOG_FINDING_SIG_MISSING, 0 },
		{ "Loading out-of-tree module taints kernel; 2017.3", NULL, KLOG_FINDING_TAINT, 0 },
		{ "the messages look right except for one: Loading out-of-tree module taints kernel.  "
		  "Is this something to worry about?", NULL, KLOG_FINDING_TAINT, 0 },
		{ "71] bpf_testmod: loading out-of-tree module taints kernel.=0A> test_tc_bp=",
		  "bpf_testmod", KLOG_FINDING_TAINT, 0 },
		{ "loading out-of-tree module taints kernel.   ", NULL, KLOG_FINDING_TAINT, 0 },
		{ "\xe2\x80\x9cloading out-of-tree module taints kernel.\xe2\x80\x9d", NULL,
		  KLOG_FINDING_TAINT, 0 },
	};
	static const char *const none[] = {
		"preloading out-of-tree module taints kernel",
		"the signature and/or required key missing - tainting kernel",
		"xmodule verification failed: signature and/or required key missing - tainting kernel",
		"loading out-of-tree modules taints kernels, they say",
	};

	(void)state;
	/* both on one line (tests/corpus 671): the first, then the other in its rest */
	{
		static const char two[] = "report two 'warning' :' 1.loading out-of-tree module "
					  "taints kernel.'  and  2. 'example: module verification "
					  "failed: signature and/or required key missing - tainting "
					  "kernel' after I insmod example.ko,.";
		struct klog_finding f;

		assert_int_equal(klog_classify(two, strlen(two), &f), 1);
		assert_int_equal(f.kind, KLOG_FINDING_TAINT);
		assert_null(f.module);
		assert_non_null(f.rest);
		assert_int_equal(klog_classify_rest(f.rest, strlen(f.rest), &f), 1);
		assert_int_equal(f.kind, KLOG_FINDING_SIG_MISSING);
		assert_field(f.module, f.module_len, "example");
	}
	check_classified(cases, sizeof(cases) / sizeof(cases[0]), none, sizeof(none) / sizeof(none[0]));
}

/* the held-out batch 9a (tests/corpus 386-410): lines from those logs */
static void test_finding_batch_9a(void **state)
{
	static const struct classify_case cases[] = {
		/* riscv's relocation out of a 32-bit PC-relative offset's reach */
		{ "br_netfilter: target ffffffe0000422d8 can not be addressed by the 32-bit offset from PC = 000000003dfd6deb",
		  "br_netfilter", KLOG_FINDING_LOAD_ERROR, EINVAL },
		/* busybox 1.13+ modprobe: a module modules.dep lacks, a load that failed */
		{ "modprobe: module nand not found in modules.dep", "nand",
		  KLOG_FINDING_MODPROBE_ERROR, ENOENT },
		{ "modprobe: can't load module cryptodev (extra/cryptodev.ko): unknown symbol in module, or unknown parameter",
		  "cryptodev", KLOG_FINDING_MODPROBE_ERROR, ENOENT },
		{ "modprobe: can't load module wl (kernel/net/wl.ko): invalid module format", "wl",
		  KLOG_FINDING_MODPROBE_ERROR, ENOEXEC },
		/* a licence string holding a newline: the record ends after the quote */
		{ "led_modul_Fritz_Box_HW198: module license '", "led_modul_Fritz_Box_HW198",
		  KLOG_FINDING_TAINT, 0 },
		/* a loader's line as a patch's added line */
		{ "+modprobe: can't load module cryptodev (extra/cryptodev.ko): unknown symbol in module, or unknown parameter",
		  "cryptodev", KLOG_FINDING_MODPROBE_ERROR, ENOENT },
	};
	static const char *const none[] = {
		/* a licence quoted and not closed, with text after the quote */
		"foo: module license 'GPL",
		/* the riscv line's first half alone */
		"br_netfilter: target ffffffe0000422d8 can not be",
		/* busybox's own words of a builtin module */
		"modprobe: module nand is builtin",
		/* a diff's header, and its added line of no wording */
		"+++ b/drivers/net/wireless/foo.c",
		"+modprobe: module",
	};

	(void)state;
	check_classified(cases, sizeof(cases) / sizeof(cases[0]), none,
			 sizeof(none) / sizeof(none[0]));
}

/* batch 10b of the held-out logs (tests/corpus 461-485): containers' and boards' lines */
static void test_finding_batch_10b(void **state)
{
	static const struct classify_case cases[] = {
		/* kmod's lines inside a Go-quoted string, its newlines written "\n" */
		{ "[WARNING SystemVerification]: unable to load kernel module: \"configs\", output: \"modprobe: ERROR: ../libkmod/libkmod.c:586 kmod_search_moddep() could not open moddep file '/lib/modules/4.15.0/modules.dep.bin'\\nmodprobe: FATAL: Module configs not found in directory /lib/modules/4.15.0-30deepin-generic\\n\", err: exit status 1",
		  "configs", KLOG_FINDING_MODPROBE_ERROR, ENOENT },
		{ "- `Running modprobe ip_vs failed with message: modprobe: ERROR: ../libkmod/libkmod.c:586 kmod_search_moddep() could not open moddep file '/lib/modules/4.4.0-119-generic/modules.dep.bin'\\nmodprobe: WARNING: Module ip_vs not found in directory /lib/modules/4.4.0-119-generic, error`",
		  "ip_vs", KLOG_FINDING_MODPROBE_ERROR, ENOENT },
		{ "msg=\"Running modprobe ip_vs failed with message: x\\nmodprobe: ERROR: could not insert 'ip_vs': Exec format error\\ninsmod /lib/modules/3.10.0/ip_vs.ko.xz\"",
		  "ip_vs", KLOG_FINDING_MODPROBE_ERROR, ENOEXEC },
		/* after a boot script's status, printed without its newline */
		{ "* Configuring host block device ...modprobe: FATAL: Module ext4 not found in directory /lib/modules/4.1.19",
		  "ext4", KLOG_FINDING_MODPROBE_ERROR, ENOENT },
		/* u-root's modprobe */
		{ "modprobe: Could not load module \"iptable_nat\": finit_module(&{0xc42007fdb0}, \"\", 0x0) failed: protocol wrong type for socket",
		  "iptable_nat", KLOG_FINDING_MODPROBE_ERROR, 0 },
	};
	static const char *const none[] = {
		/* the short FATAL wording after an escaped newline names no module directory */
		"output: \"x\\nmodprobe: FATAL: Module tun not found.\"",
		/* two dots, a slash and an 'n', a letter: no line starts there */
		"..modprobe: FATAL: Module tun not found in directory /lib/modules/6.1",
		"a/nmodprobe: FATAL: Module tun not found in directory /lib/modules/6.1",
		"xmodprobe: FATAL: Module tun not found in directory /lib/modules/6.1",
		/* u-root's wording with no name in its quotes */
		"modprobe: Could not load module \"\": file does not exist",
	};

	(void)state;
	check_classified(cases, sizeof(cases) / sizeof(cases[0]), none,
			 sizeof(none) / sizeof(none[0]));
}

/* held-out batch 10a: wordings a hand copy cut or lower-cased, and libkmod's INFO echo */
static void test_finding_batch_10a(void **state)
{
	struct klog_finding f;
	static const char *const lower[] = {
		"modprobe: error: could not insert '8192eu': invalid argument",
		"`modprobe: error: could not insert '8192eu': invalid argument`",
		"I get modprobe: error: could not insert '8192eu': Invalid argument",
	};
	static const char *const none[] = {
		/* libkmod's INFO line of a dependency already live (modprobe -vv) */
		"modprobe: INFO: Failed to insert module '/lib/modules/4.8.13-1-ARCH/kernel/drivers/"
		"net/wireless/rtlwifi/rtlwifi_dkms.ko': File exists",
		"modprobe: INFO: Failed to insert module '/lib/modules/x/snd.ko': Invalid argument",
		/* the lower-case priority glued to a word, and not kmod's wording after it */
		"xmodprobe: error: could not insert '8192eu': invalid argument",
		"modprobe: error: cannot open '8192eu'",
		/* the signature line cut anywhere else */
		"8192eu: module verification failed: signature and/or required key",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(lower) / sizeof(lower[0]); i++) {
		assert_int_equal(klog_classify(lower[i], strlen(lower[i]), &f), 1);
		assert_int_equal(f.kind, KLOG_FINDING_MODPROBE_ERROR);
		assert_mem(f.module, f.module_len, "8192eu");
	}
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		assert_int_equal(klog_classify(none[i], strlen(none[i]), &f), 0);
	/* systemd's own wording of the same words is still an error */
	static const char sd[] = "systemd-modules-load[211]: Failed to insert module 'vboxdrv': "
				 "Exec format error";
	assert_int_equal(klog_classify(sd, strlen(sd), &f), 1);
	assert_int_equal(f.kind, KLOG_FINDING_MODPROBE_ERROR);
	assert_mem(f.module, f.module_len, "vboxdrv");
	/* the signature line cut before " - tainting kernel" */
	static const char sig[] = "8192eu: module verification failed: signature and/or required key missing";
	assert_int_equal(klog_classify(sig, strlen(sig), &f), 1);
	assert_int_equal(f.kind, KLOG_FINDING_SIG_MISSING);
	assert_mem(f.module, f.module_len, "8192eu");
}

static void test_finding_batch_11a(void **state)
{
	struct klog_finding f;
	static const char *const toybox[] = {
		"insmod: failed to load ksu.ko: No such file or directory",
		"insmod: failed to load /data/local/tmp/ksu.ko: Exec format error",
		"insmod: failed to load ksu.ko.gz: File exists",
	};
	static const char *const none[] = {
		/* not a module file: toybox's words are too common to read alone */
		"insmod: failed to load config: No such file or directory",
		/* the words without toybox's program name */
		"failed to load ksu.ko: No such file or directory",
		"insmod: failed to load firmware: No such file or directory",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(toybox) / sizeof(toybox[0]); i++) {
		assert_int_equal(klog_classify(toybox[i], strlen(toybox[i]), &f), 1);
		assert_int_equal(f.kind, KLOG_FINDING_MODPROBE_ERROR);
		assert_mem(f.module, f.module_len, "ksu");
	}
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		assert_int_equal(klog_classify(none[i], strlen(none[i]), &f), 0);
}

/* Batch 11c (web pages): x86-64's relocation overflow, names that name no module */
static void test_finding_batch_11c(void **state)
{
	struct klog_finding f;
	static const char *const overflow[] = {
		"module: overflow in relocation type 10 val ffffffffa0060e58",
		"overflow in relocation type 11 val ffffa13780c0a0c1",
	};
	static const char *const no_name[] = {
		/* a tutorial's '…' where the module goes */
		"modprobe: ERROR: could not insert '…': Unknown symbol in module, or unknown "
		"parameter (see dmesg)",
		"8.3 modprobe: FATAL: Module … not found in directory /lib/modules/…",
		/* systemd-modules-load given a modprobe.d line as a module */
		"Aug 25 11:48:13 mypc systemd-modules-load[15630]: Failed to find module "
		"'blacklist usblp'",
		"Aug 25 11:48:13 mypc systemd-modules-load[15630]: Failed to find module "
		"'install usblp /bin/false'",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(overflow) / sizeof(overflow[0]); i++) {
		assert_int_equal(klog_classify(overflow[i], strlen(overflow[i]), &f), 1);
		assert_int_equal(f.kind, KLOG_FINDING_LOAD_ERROR);
		assert_int_equal(f.err, ENOEXEC);
		assert_null(f.module);
	}
	static const char mc[] = "module: `scsi_transport_sas' likely not compiled "
				 "with -mcmodel=kernel";
	assert_int_equal(klog_classify(mc, strlen(mc), &f), 1);
	assert_int_equal(f.kind, KLOG_FINDING_LOAD_ERROR);
	assert_mem(f.module, f.module_len, "scsi_transport_sas");
	for (size_t i = 0; i < sizeof(no_name) / sizeof(no_name[0]); i++) {
		assert_int_equal(klog_classify(no_name[i], strlen(no_name[i]), &f), 1);
		assert_int_equal(f.kind, KLOG_FINDING_MODPROBE_ERROR);
		assert_null(f.module);
	}
	/* a quoted name of one word is still the module */
	static const char one[] = "systemd-modules-load[1]: Failed to find module 'usblp'";
	assert_int_equal(klog_classify(one, strlen(one), &f), 1);
	assert_mem(f.module, f.module_len, "usblp");
	/* a name masked in quotes: the failure stays, no module */
	static const char masked[] = "\"***module\": disagrees about version of symbol device_add";
	assert_int_equal(klog_classify(masked, strlen(masked), &f), 1);
	assert_int_equal(f.kind, KLOG_FINDING_SYMBOL_VERSION);
	assert_null(f.module);
	/* the kernel's printk format quoted from its source is no log line */
	static const char src[] = "                               \"request_module: runaway loop "
				  "modprobe %s\\n\",";
	assert_int_equal(klog_classify(src, strlen(src), &f), 0);
	static const char loop[] = "    request_module: runaway loop modprobe char-major-5-1";
	assert_int_equal(klog_classify(loop, strlen(loop), &f), 1);
	assert_int_equal(f.kind, KLOG_FINDING_KMOD_GAVE_UP);
	assert_mem(f.module, f.module_len, "char-major-5-1");
}

/* kmod's rmmod and module-init-tools' rmmod: a removal refused, as modprobe -r's lines */
static void test_finding_rmmod(void **state)
{
	static const struct classify_case cases[] = {
		{ "rmmod: ERROR: Module snd_pcm is in use by: snd_hda_intel snd_hda_codec", "snd_pcm",
		  KLOG_FINDING_MODPROBE_ERROR, EBUSY },
		{ "rmmod: ERROR: Module nvidia is in use", "nvidia", KLOG_FINDING_MODPROBE_ERROR, EBUSY },
		{ "rmmod: ERROR: could not remove module hello.ko: Device or resource busy", "hello",
		  KLOG_FINDING_MODPROBE_ERROR, EBUSY },
		{ "ERROR: Module snd_ac97_codec is in use by snd_ens1371", "snd_ac97_codec",
		  KLOG_FINDING_MODPROBE_ERROR, EBUSY },
		{ "ERROR: Module foo does not exist in /proc/modules", "foo",
		  KLOG_FINDING_MODPROBE_ERROR, ENOENT },
	};
	static const char *const none[] = {
		"rmmod: ERROR: Module is in use",
		"ERROR: Module two words is in use",
		"rmmod: ERROR: missing module name.",
		"rmmod: ERROR: Module hello is not currently loaded",
		"rmmod: ERROR: Module ext4 is builtin.",
	};

	(void)state;
	check_classified(cases, sizeof(cases) / sizeof(cases[0]), none, sizeof(none) / sizeof(none[0]));
}

/* batch 13a: a quoted-printable soft break right before a space keeps the space */
static void test_join_cut_soft_break_space(void **state)
{
	static const char a[] = "chiasmus: module license 'SECUNET' taints=";
	static const char b[] = " kernel.";
	char buf[KLOG_JOIN_MAX];
	struct klog_finding f;
	size_t n;

	(void)state;

	n = klog_join_cut(a, strlen(a), b, strlen(b), buf, sizeof(buf));
	assert_string_equal(buf, "chiasmus: module license 'SECUNET' taints kernel.");
	assert_int_equal(klog_classify(buf, n, &f), 1);
	assert_int_equal(f.kind, KLOG_FINDING_TAINT);
	/* a soft break inside a word stays joined with no space */
	assert_int_equal(klog_join_cut("mo=", 3, "dule", 4, buf, sizeof(buf)), 6);
	assert_string_equal(buf, "module");
}

/* batch 13c: kmod's not-found line as modprobe -s hands it to syslog, whose ident is
 * the program's, so a log cut to the message starts at the priority */
static void test_finding_batch_13c(void **state)
{
	static const struct classify_case cases[] = {
		{ "FATAL: Module u2mfn not found in directory /lib/modules/4.14.186-grsec-workstation",
		  "u2mfn", KLOG_FINDING_MODPROBE_ERROR, ENOENT },
		{ "Jul 16 10:01:02 dom0 modprobe: FATAL: Module evdi not found in directory "
		  "/lib/modules/5.8.7-200.fc32.x86_64", "evdi", KLOG_FINDING_MODPROBE_ERROR, ENOENT },
	};
	static const char *const none[] = {
		"FATAL: Module not found in directory /lib/modules/6.1.0-13-amd64",
		"the docs say FATAL: Module foo not found in directory is harmless",
	};

	(void)state;
	check_classified(cases, sizeof(cases) / sizeof(cases[0]), none, sizeof(none) / sizeof(none[0]));
}

/*
 * The held-out batch 13b (tests/corpus 631-650): the taint's sentence pasted into
 * Chinese prose, its module's name glued to the word before it (632)
 */
static void test_finding_batch_13b(void **state)
{
	static const struct classify_case cases[] = {
		{ "\xe5\x87\xba\xe7\x8e\xb0panel_rpi_dsi_displays: loading out-of-tree module taints "
		  "kernel\xe9\x97\xae\xe9\xa2\x98\xef\xbc\x8c", "panel_rpi_dsi_displays",
		  KLOG_FINDING_TAINT, 0 },
		/* after full-width punctuation */
		{ "\xef\xbc\x9ahello: loading out-of-tree module taints kernel.", "hello",
		  KLOG_FINDING_TAINT, 0 },
		/* in a sentence: a two-byte letter (Cyrillic) is a blank-separated script's,
		 * continuation bytes alone are no character: no name */
		{ "\xd0\xb0hello: loading out-of-tree module taints kernel, \xd0\xb0", NULL,
		  KLOG_FINDING_TAINT, 0 },
		{ "\x80\x80\x80hello: loading out-of-tree module taints kernel, \xd0\xb0", NULL,
		  KLOG_FINDING_TAINT, 0 },
		/* a whole kernel line: the name after the wide character, an unknown symbol's too */
		{ "\xef\xbc\x9ahello: Unknown symbol foo (err -2)", "hello", KLOG_FINDING_UNKNOWN_SYMBOL,
		  ENOENT },
	};

	(void)state;
	check_classified(cases, sizeof(cases) / sizeof(cases[0]), NULL, 0);
}

/* held-out batch 14c: kmod's line retyped without the colon after its priority word */
static void test_finding_batch_14c(void **state)
{
	static const struct classify_case cases[] = {
		{ "modprobe: ERROR could not insert 'bnxt_en': Exec format error", "bnxt_en",
		  KLOG_FINDING_MODPROBE_ERROR, ENOEXEC },
		{ "It fails with modprobe: ERROR could not insert 'tg3': Exec format error", "tg3",
		  KLOG_FINDING_MODPROBE_ERROR, ENOEXEC },
		{ "insmod: ERROR could not insert module ./hello.ko: Invalid module format", "hello",
		  KLOG_FINDING_MODPROBE_ERROR, ENOEXEC },
	};
	static const char *const none[] = {
		/* glued to a word, or not kmod's wording after the priority */
		"xmodprobe: ERROR could not insert 'bnxt_en': Exec format error",
		"modprobe: ERROR could not load the config",
		/* the words in prose, no program before them */
		"ERROR could not insert the card into the slot: No such device",
	};

	(void)state;
	check_classified(cases, sizeof(cases) / sizeof(cases[0]), none,
			 sizeof(none) / sizeof(none[0]));
}

/* batch 14b: a mail client's break after a negative number's minus sign */
static void test_join_cut_minus_14b(void **state)
{
	static const char a[] = "> [   94.008475] nfsv4: Unknown symbol nfs4_client_id_uniquifier (err -";
	static const char b[] = "> 2)";
	char buf[KLOG_JOIN_MAX];
	struct klog_finding f;
	size_t n;

	(void)state;
	n = klog_join_cut_minus(a + 17, strlen(a + 17), b, strlen(b), buf, sizeof(buf));
	assert_string_equal(buf, "nfsv4: Unknown symbol nfs4_client_id_uniquifier (err -2)");
	assert_int_equal(n, strlen(buf));
	assert_true(klog_classify(buf, n, &f));
	assert_int_equal(f.kind, KLOG_FINDING_UNKNOWN_SYMBOL);
	assert_int_equal(f.err, ENOENT);
	/* the plain join keeps the space, and reads no finding */
	n = klog_join_cut(a + 17, strlen(a + 17), b, strlen(b), buf, sizeof(buf));
	assert_false(klog_classify(buf, n, &f));
	/* a dash before a word ("missing -" / "tainting kernel") keeps its space */
	assert_int_equal(klog_join_cut_minus("key missing -", 13, "tainting kernel", 15, buf,
					     sizeof(buf)), 0);
	/* a hyphen inside a word, a soft break, a second half with no digit: no join */
	assert_int_equal(klog_join_cut_minus("range 5-", 8, "2)", 2, buf, sizeof(buf)), 0);
	assert_int_equal(klog_join_cut_minus("(err -=", 7, "2)", 2, buf, sizeof(buf)), 0);
	assert_int_equal(klog_join_cut_minus("(err -", 6, "> x2)", 5, buf, sizeof(buf)), 0);
	assert_int_equal(klog_join_cut_minus("-", 1, "2", 1, buf, sizeof(buf)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time_prefix_random),
		cmocka_unit_test(test_dmesg_feed_records),
		cmocka_unit_test(test_kmsg_parse_line),
		cmocka_unit_test(test_kmsg_malformed),
		cmocka_unit_test(test_kmsg_parser),
		cmocka_unit_test(test_kmsg_continuation),
		cmocka_unit_test(test_kmsg_follow_epipe),
		cmocka_unit_test(test_kmsg_read_file_hostile),
		cmocka_unit_test(test_dmesg_formats),
		cmocka_unit_test(test_dmesg_console_and_other),
		cmocka_unit_test(test_dmesg_parser),
		cmocka_unit_test(test_finding_unknown_symbol),
		cmocka_unit_test(test_finding_autoload),
		cmocka_unit_test(test_finding_vmalloc),
		cmocka_unit_test(test_finding_probe),
		cmocka_unit_test(test_finding_versions_signatures),
		cmocka_unit_test(test_finding_elf),
		cmocka_unit_test(test_finding_init_return),
		cmocka_unit_test(test_finding_modprobe),
		cmocka_unit_test(test_finding_old_wordings),
		cmocka_unit_test(test_finding_gpl_companion),
		cmocka_unit_test(test_finding_vmalloc_task),
		cmocka_unit_test(test_finding_userspace_loaders),
		cmocka_unit_test(test_finding_corpus_loaders),
		cmocka_unit_test(test_finding_install_commands),
		cmocka_unit_test(test_findings_every_format),
		cmocka_unit_test(test_findings_none_and_hostile),
		cmocka_unit_test(test_fixture_logs),
		cmocka_unit_test(test_finding_heldout_pastes),
		cmocka_unit_test(test_finding_last_pastes),
		cmocka_unit_test(test_finding_wordings_by_version),
		cmocka_unit_test(test_finding_third_batch),
		cmocka_unit_test(test_finding_batch_4a),
		cmocka_unit_test(test_finding_batch_4b),
		cmocka_unit_test(test_dmesg_journal_without_host),
		cmocka_unit_test(test_join_cut_lines),
		cmocka_unit_test(test_finding_batch_5b),
		cmocka_unit_test(test_finding_batch_5a),
		cmocka_unit_test(test_kernel_line),
		cmocka_unit_test(test_finding_batch_6b),
		cmocka_unit_test(test_finding_batch_6a),
		cmocka_unit_test(test_finding_batch_7b),
		cmocka_unit_test(test_finding_batch_7a),
		cmocka_unit_test(test_finding_batch_7a_followup),
		cmocka_unit_test(test_finding_batch_8a),
		cmocka_unit_test(test_finding_batch_8b),
		cmocka_unit_test(test_finding_retyped_mit_insmod),
		cmocka_unit_test(test_finding_param_errors),
		cmocka_unit_test(test_finding_two_on_one_line),
		cmocka_unit_test(test_finding_batch_9b),
		cmocka_unit_test(test_finding_kernel_phrase),
		cmocka_unit_test(test_finding_batch_9a),
		cmocka_unit_test(test_finding_batch_10a),
		cmocka_unit_test(test_finding_batch_10b),
		cmocka_unit_test(test_finding_batch_11a),
		cmocka_unit_test(test_finding_batch_11c),
		cmocka_unit_test(test_finding_rmmod),
		cmocka_unit_test(test_join_cut_soft_break_space),
		cmocka_unit_test(test_finding_batch_13c),
		cmocka_unit_test(test_finding_batch_13b),
		cmocka_unit_test(test_finding_batch_14c),
		cmocka_unit_test(test_join_cut_minus_14b),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
