/* SPDX-License-Identifier: GPL-2.0-or-later */
/* util/qp.c: a quoted-printable body's decoder, its line map, and its sniff */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/qp.h"

#define MAX_OUT 16

/* The decoded lines of a test, with where their bytes came from */
struct decoded {
	size_t n;
	char text[MAX_OUT][128];
	size_t len[MAX_OUT];
	uint64_t first[MAX_OUT];
	/* the physical line of each decoded byte, by qp_line_at() */
	uint64_t at[MAX_OUT][128];
};

static int on_line(void *userdata, const struct qp_line *l)
{
	struct decoded *o = userdata;

	assert_true(o->n < MAX_OUT);
	assert_true(l->len < sizeof(o->text[0]));
	assert_int_equal(l->text[l->len], '\0');
	memcpy(o->text[o->n], l->text, l->len + 1);
	o->len[o->n] = l->len;
	o->first[o->n] = l->first;
	for (size_t i = 0; i < l->len; i++)
		o->at[o->n][i] = qp_line_at(l, i);
	o->n++;
	return 0;
}

/* Decodes @lines (physical lines 1..n) with a decoder of decoded lines of @max bytes */
static void decode(struct decoded *o, size_t max, bool html, const char *const *lines, size_t n)
{
	struct qp_decoder *d;

	memset(o, 0, sizeof(*o));
	assert_int_equal(qp_decoder_new(max, html, &d), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(qp_decoder_feed(d, i + 1, lines[i], strlen(lines[i]), on_line, o), 0);
	assert_int_equal(qp_decoder_finish(d, on_line, o), 0);
	qp_decoder_free(d);
}

static void test_qp_soft_break(void **state)
{
	static const char *const in[] = { "[ 40.9475=", "71] bpf_testmod: loading", "next" };
	struct decoded o;

	(void)state;
	decode(&o, 1024, false, in, 3);
	assert_int_equal(o.n, 2);
	assert_string_equal(o.text[0], "[ 40.947571] bpf_testmod: loading");
	assert_int_equal(o.first[0], 1);
	/* the time's first digits on line 1, the rest and the message on line 2 */
	assert_int_equal(o.at[0][0], 1);
	assert_int_equal(o.at[0][8], 1);
	assert_int_equal(o.at[0][9], 2);
	assert_int_equal(o.at[0][13], 2);
	assert_string_equal(o.text[1], "next");
	assert_int_equal(o.first[1], 3);
}

static void test_qp_newline_inside(void **state)
{
	static const char *const in[] = { "> one=0A> two=0A=", "> three", "four=0A" };
	struct decoded o;

	(void)state;
	decode(&o, 1024, false, in, 3);
	assert_int_equal(o.n, 5);
	assert_string_equal(o.text[0], "> one");
	assert_string_equal(o.text[1], "> two");
	/* an empty line between "=0A=" and the next: none, the soft break joins */
	assert_string_equal(o.text[2], "> three");
	assert_string_equal(o.text[3], "four");
	assert_string_equal(o.text[4], "");
	assert_int_equal(o.first[0], 1);
	assert_int_equal(o.first[1], 1);
	/* "> three" starts after the soft break of line 1: its bytes are line 2's */
	assert_int_equal(o.at[2][0], 2);
	assert_int_equal(o.first[3], 3);
}

static void test_qp_escapes(void **state)
{
	static const char *const in[] = {
		"memmap=3D\"1G$0x80000000\"=20", "caf=C3=A9 [=C2=A0 512.18]", "a=3d=ZZ=", "b=0",
	};
	struct decoded o;

	(void)state;
	decode(&o, 1024, false, in, 4);
	assert_int_equal(o.n, 3);
	assert_string_equal(o.text[0], "memmap=\"1G$0x80000000\" ");
	/* a multi-byte UTF-8 escape is its bytes; a no-break space a blank */
	assert_string_equal(o.text[1], "caf\xc3\xa9 [  512.18]");
	/* lower-case hex decoded all the same, '=' before no hex kept */
	assert_string_equal(o.text[2], "a==ZZb=0");
}

static void test_qp_nul(void **state)
{
	static const char *const in[] = { "a=00b" };
	struct decoded o;

	(void)state;
	decode(&o, 1024, false, in, 1);
	assert_int_equal(o.n, 1);
	assert_int_equal(o.len[0], 3);
	assert_memory_equal(o.text[0], "a\0b", 4);
}

static void test_qp_huge_line(void **state)
{
	static const char *const in[] = {
		"0123456789=", "0123456789=", "0123456789=", "0123456789", "end",
	};
	struct decoded o;

	(void)state;
	decode(&o, 16, false, in, 5);
	/* 40 bytes in lines of at most 16 */
	assert_int_equal(o.n, 4);
	assert_int_equal(o.len[0], 16);
	assert_int_equal(o.len[1], 16);
	assert_int_equal(o.len[2], 8);
	assert_string_equal(o.text[2], "23456789");
	/* the map of a cut line goes on from where it was cut */
	assert_int_equal(o.at[1][0], 2);
	assert_int_equal(o.at[1][15], 4);
	assert_int_equal(o.at[2][0], 4);
	assert_string_equal(o.text[3], "end");
}

static void test_qp_ends_in_soft_break(void **state)
{
	static const char *const in[] = { "last words=" };
	struct decoded o;

	(void)state;
	decode(&o, 1024, false, in, 1);
	assert_int_equal(o.n, 1);
	assert_string_equal(o.text[0], "last words");
}

static void test_qp_html(void **state)
{
	static const char *const in[] = {
		"<div>a<br>[=C2=A0 512.1] b &gt; c &amp; &quot;d&quot; &#39;e&#39; &bogus; &=",
		"nbsp;f</div><div><br></div><DIV>g<br/>h</p>x &lt",
	};
	struct decoded o;

	(void)state;
	decode(&o, 1024, true, in, 2);
	assert_int_equal(o.n, 6);
	assert_string_equal(o.text[0], "a");
	assert_string_equal(o.text[1], "[  512.1] b > c & \"d\" 'e' &bogus;  f");
	/* the entity cut by the soft break is line 2's byte */
	assert_int_equal(o.at[1][o.len[1] - 1], 2);
	assert_string_equal(o.text[2], "");
	assert_string_equal(o.text[3], "g");
	assert_string_equal(o.text[4], "h");
	assert_string_equal(o.text[5], "x &lt");
}

static struct qp_sniff sniff(const char *const *lines, size_t n)
{
	struct qp_sniff s = { 0 };

	for (size_t i = 0; i < n; i++)
		qp_sniff_line(&s, lines[i], strlen(lines[i]));
	return s;
}

static void test_qp_sniff(void **state)
{
	static const char *const qp[] = {
		"July 19, 2021 3:29 AM, \"Yonghong Song\" <yhs@fb.com> wrote:=0A=0A> The bpf=",
		" selftest tc_bpf failed with latest bpf-next. The following is the comman=",
		"d to run and the=0A> result:=0A> =0A> $ ./test_progs -n 132=0A> [ 40.9475=",
		"71] bpf_testmod: loading out-of-tree module taints kernel.=0A> test_tc_bp=",
	};
	/* plain text that ends lines with '=' and holds '=' before hex digits */
	static const char *const plain[] = {
		"setting key=", "options foo=", "value=", "mask=FF set=", "reg=0A", "CONFIG_X=",
	};
	/* each kept out by one rule: a newline at a line's end, a byte of no UTF-8
	 * sequence, a blank inside a line */
	static const char *const plain_ends[] = { "reg=0A", "irq=0D", "key=", "opt=" };
	static const char *const plain_high[] = { "mask=FF set", "x=C3 y", "key=", "opt=" };
	static const char *const plain_blank[] = { "a=20 b", "c=09 d", "key=", "opt=" };
	/* a line longer than the encoding allows */
	static const char *const long_line[] = {
		"a=3D=", "b=3D=", "c=3D=",
		"[    0.000000] Linux version 6.1.0 (gcc (Debian 12.2.0-14) 12.2.0) #1 SMP =0A=",
	};
	/* escapes an encoder never writes: printable ASCII */
	static const char *const needless[] = { "x=41=", "y=42=", "z=43=", "w=44=" };
	static const char *const html[] = {
		"<div>ry to enble=", "</div><div>[=C2=A0 512.182327] jailhouse: loading=",
		"=3D=3D&gt;command<br>x=", "y",
	};
	struct qp_sniff s;

	(void)state;
	s = sniff(qp, 4);
	assert_true(qp_sniff_is_qp(&s));
	assert_false(qp_sniff_is_html(&s));
	s = sniff(plain, 6);
	assert_false(qp_sniff_is_qp(&s));
	s = sniff(plain_ends, 4);
	assert_false(qp_sniff_is_qp(&s));
	s = sniff(plain_high, 4);
	assert_false(qp_sniff_is_qp(&s));
	s = sniff(plain_blank, 4);
	assert_false(qp_sniff_is_qp(&s));
	s = sniff(long_line, 4);
	assert_false(qp_sniff_is_qp(&s));
	s = sniff(long_line, 3);
	assert_true(qp_sniff_is_qp(&s));
	s = sniff(needless, 4);
	assert_false(qp_sniff_is_qp(&s));
	s = sniff(html, 4);
	assert_true(qp_sniff_is_qp(&s));
	assert_true(qp_sniff_is_html(&s));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qp_soft_break),
		cmocka_unit_test(test_qp_newline_inside),
		cmocka_unit_test(test_qp_escapes),
		cmocka_unit_test(test_qp_nul),
		cmocka_unit_test(test_qp_huge_line),
		cmocka_unit_test(test_qp_ends_in_soft_break),
		cmocka_unit_test(test_qp_html),
		cmocka_unit_test(test_qp_sniff),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
