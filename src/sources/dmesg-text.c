/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#include "util/linereader.h"
#include "util/macro.h"
#include "dmesg-text.h"

#define DMESG_LINE_MAX LINEREADER_DEFAULT_MAX
#define HOST_MAX 255

static const char *const months[12] = {
	"Jan", "Feb", "Mar", "Apr", "May", "Jun",
	"Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
};
static const char *const weekdays[7] = {
	"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun",
};

/* util-linux dmesg -x names (include/pathnames.h facilitynames[], prioritynames[]) */
static const char *const facilities[] = {
	"kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news", "uucp", "cron",
	"authpriv", "ftp", "res0", "res1", "res2", "res3", "local0", "local1", "local2",
	"local3", "local4", "local5", "local6", "local7",
};
static const char *const levels[] = {
	"emerg", "alert", "crit", "err", "warn", "notice", "info", "debug",
};

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static const char *skip_spaces(const char *s, const char *end)
{
	while (s < end && *s == ' ')
		s++;
	return s;
}

static bool starts_with(const char *s, const char *end, const char *lit)
{
	size_t n = strlen(lit);

	return (size_t)(end - s) >= n && memcmp(s, lit, n) == 0;
}

/* Exactly @n digits (or 1..@n when @n_min is 1) into *ret; returns the end or NULL. */
static const char *digits(const char *s, const char *end, unsigned int n_min,
			  unsigned int n_max, uint64_t *ret)
{
	uint64_t v = 0;
	unsigned int n = 0;

	while (s < end && is_digit(*s) && n < n_max) {
		v = v * 10 + (uint64_t)(*s - '0');
		s++;
		n++;
	}
	if (n < n_min || (s < end && is_digit(*s)))
		return NULL;
	*ret = v;
	return s;
}

static int word_index(const char *s, const char *end, const char *const *words, size_t n,
		      size_t *ret_len)
{
	size_t i;

	if (s >= end)
		return -1;
	for (i = 0; i < n; i++) {
		size_t l;

		/* most lines are no "kern  :info  : " prefix: the first byte rules them out */
		if (words[i][0] != *s)
			continue;
		l = strlen(words[i]);
		if ((size_t)(end - s) >= l && memcmp(s, words[i], l) == 0 &&
		    (s + l == end || !((s[l] >= 'a' && s[l] <= 'z') || is_digit(s[l])))) {
			*ret_len = l;
			return (int)i;
		}
	}
	return -1;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static void set_wall(struct klog_rec *rec, int64_t year, int mon, int day, int hh, int mm,
		     int ss)
{
	rec->has_wallclock = true;
	rec->wall_sec =
		days_from_civil(year, mon, day) * 86400 + hh * 3600 + mm * 60 + ss;
}

/* "HH:MM:SS" */
static const char *parse_hms(const char *s, const char *end, int *hh, int *mm, int *ss)
{
	uint64_t h, m, c;

	s = digits(s, end, 2, 2, &h);
	if (!s || s >= end || *s != ':')
		return NULL;
	s = digits(s + 1, end, 2, 2, &m);
	if (!s || s >= end || *s != ':')
		return NULL;
	s = digits(s + 1, end, 2, 2, &c);
	if (!s || h > 23 || m > 59 || c > 60)
		return NULL;
	*hh = (int)h;
	*mm = (int)m;
	*ss = (int)c;
	return s;
}

/* ".123456" or ",123456" (1..9 digits) as microseconds */
static const char *parse_frac(const char *s, const char *end, uint32_t *ret_usec)
{
	const char *p = s + 1;
	uint64_t v = 0;
	unsigned int n = 0;

	while (p < end && is_digit(*p) && n < 9) {
		v = v * 10 + (uint64_t)(*p - '0');
		p++;
		n++;
	}
	if (n == 0)
		return NULL;
	for (; n < 6; n++)
		v *= 10;
	for (; n > 6; n--)
		v /= 10;
	*ret_usec = (uint32_t)v;
	return p;
}

/* Eight ASCII digits, the first in the lowest byte: whether they are, and their value */
static bool all_digits8(uint64_t x)
{
	const uint64_t hi = UINT64_C(0xf0f0f0f0f0f0f0f0), zeros = UINT64_C(0x3030303030303030);

	/* '0'..'9' is 0x3_, and stays so with 6 added */
	return (x & hi) == zeros && ((x + UINT64_C(0x0606060606060606)) & hi) == zeros;
}

static uint64_t digits8_value(uint64_t x)
{
	x -= UINT64_C(0x3030303030303030);
	x = (x * 10 + (x >> 8)) & UINT64_C(0x00ff00ff00ff00ff);
	x = (x * 100 + (x >> 16)) & UINT64_C(0x0000ffff0000ffff);
	return (x * 10000 + (x >> 32)) & UINT64_C(0xffffffff);
}

/*
 * The common case of parse_mono_bracket(), at fixed offsets and eight bytes at a time:
 * "[%5lu.%06lu]" with at most five digits of seconds (spaces, then digits). NULL for
 * anything else, which the general code reads.
 */
static const char *mono_bracket_fast(const char *s, const char *end, uint64_t *ret_usec)
{
	const uint64_t low5 = UINT64_C(0xffffffffff), high5 = UINT64_C(0x8080808080);
	uint64_t a, b, sec, sp, t;

	if (end - s < 14)
		return NULL;
	memcpy(&a, s, 8);		/* "[sssss.u" */
	memcpy(&b, s + 6, 8);		/* ".uuuuuu]" */
	a = le64toh(a);
	b = le64toh(b);
	if ((a & 0xff) != '[' || (b & 0xff) != '.' || (b >> 56) != ']')
		return NULL;
	/* the seconds: which of their five bytes are spaces (0x80 in each) */
	sec = (a >> 8) & low5;
	t = sec ^ UINT64_C(0x2020202020);
	sp = ~((((t & UINT64_C(0x7f7f7f7f7f)) + UINT64_C(0x7f7f7f7f7f)) | t)) & high5;
	/* spaces only before the digits, and one digit at least */
	if ((sp & ~(sp << 8) & ~UINT64_C(0x80)) || (sp & UINT64_C(0x8000000000)))
		return NULL;
	sec = (sec | sp >> 3) << 24 | UINT64_C(0x303030);	/* ' ' | 0x10 is '0' */
	b = ((b >> 8) & UINT64_C(0xffffffffffff)) << 16 | UINT64_C(0x3030);
	if (!all_digits8(sec) || !all_digits8(b))
		return NULL;
	*ret_usec = digits8_value(sec) * 1000000 + digits8_value(b);
	return s + 14;
}

/*
 * "[    1.234567]" as the kernel prints it ("[%5lu.%06lu]", print_time()), with dmesg
 * -d's " <    0.000123>" delta inside. Six to nine fraction digits: "[3.11]" is text.
 */
static const char *parse_mono_bracket(const char *s, const char *end, uint64_t *ret_usec)
{
	const char *p;
	uint64_t sec, frac;
	unsigned int n;

	if (s >= end || *s != '[')
		return NULL;
	p = mono_bracket_fast(s, end, ret_usec);
	if (p)
		return p;
	p = skip_spaces(s + 1, end);
	p = digits(p, end, 1, 12, &sec);
	if (!p || p >= end || *p != '.')
		return NULL;
	s = ++p;
	p = digits(p, end, 6, 9, &frac);
	if (!p)
		return NULL;
	for (n = (unsigned int)(p - s); n > 6; n--)
		frac /= 10;
	if (starts_with(p, end, " <")) {
		const char *q = skip_spaces(p + 2, end);
		uint64_t dummy;

		q = digits(q, end, 1, 12, &dummy);
		if (!q || q >= end || *q != '.')
			return NULL;
		q = digits(q + 1, end, 1, 9, &dummy);
		if (!q || q >= end || *q != '>')
			return NULL;
		p = q + 1;
	}
	if (p >= end || *p != ']')
		return NULL;
	*ret_usec = sec * 1000000 + frac;
	return p + 1;
}

/* "[    T123]" / "[     C1]" after the time with CONFIG_PRINTK_CALLER */
static const char *parse_caller(const char *s, const char *end, struct klog_rec *rec)
{
	const char *p;
	uint64_t id;
	char kind;

	if (s >= end || *s != '[')
		return NULL;
	p = skip_spaces(s + 1, end);
	if (p >= end || (*p != 'T' && *p != 'C'))
		return NULL;
	kind = *p;
	p = digits(p + 1, end, 1, 10, &id);
	if (!p || p >= end || *p != ']' || id > UINT32_MAX)
		return NULL;
	rec->caller_kind = kind;
	rec->caller_id = (uint32_t)id;
	return p + 1;
}

/* dmesg -T: "[Wed Dec  2 13:01:21 2026]" (strftime "%a %b %e %H:%M:%S %Y") */
static const char *parse_ctime_bracket(const char *s, const char *end,
				       struct klog_rec *rec)
{
	const char *p = s + 1;
	uint64_t day, year;
	size_t l;
	int mon, hh, mm, ss;

	if (word_index(p, end, weekdays, ARRAY_SIZE(weekdays), &l) < 0)
		return NULL;
	p += l;
	if (p >= end || *p != ' ')
		return NULL;
	p++;
	mon = word_index(p, end, months, ARRAY_SIZE(months), &l);
	if (mon < 0)
		return NULL;
	p = skip_spaces(p + l, end);
	p = digits(p, end, 1, 2, &day);
	if (!p || day < 1 || day > 31 || p >= end || *p != ' ')
		return NULL;
	p = parse_hms(p + 1, end, &hh, &mm, &ss);
	if (!p || p >= end || *p != ' ')
		return NULL;
	p = digits(p + 1, end, 4, 4, &year);
	if (!p || p >= end || *p != ']')
		return NULL;
	set_wall(rec, (int64_t)year, mon + 1, (int)day, hh, mm, ss);
	rec->wall_has_year = true;
	return p + 1;
}

/* "2026-12-02T13:01:21[.,frac](Z|+HH:MM|+HHMM)"; *ret_comma for dmesg's "," */
static const char *parse_iso(const char *s, const char *end, struct klog_rec *rec,
			     bool *ret_comma)
{
	const char *p;
	uint64_t y, mo, d;
	int hh, mm, ss;
	uint32_t usec = 0;

	p = digits(s, end, 4, 4, &y);
	if (!p || p >= end || *p != '-')
		return NULL;
	p = digits(p + 1, end, 2, 2, &mo);
	if (!p || p >= end || *p != '-' || mo < 1 || mo > 12)
		return NULL;
	p = digits(p + 1, end, 2, 2, &d);
	if (!p || p >= end || (*p != 'T' && *p != ' ') || d < 1 || d > 31)
		return NULL;
	p = parse_hms(p + 1, end, &hh, &mm, &ss);
	if (!p)
		return NULL;
	*ret_comma = false;
	if (p < end && (*p == '.' || *p == ',')) {
		*ret_comma = *p == ',';
		p = parse_frac(p, end, &usec);
		if (!p)
			return NULL;
	}
	set_wall(rec, (int64_t)y, (int)mo, (int)d, hh, mm, ss);
	rec->wall_has_year = true;
	rec->wall_usec = usec;
	if (p < end && *p == 'Z') {
		rec->wall_has_tz = true;
		return p + 1;
	}
	if (p < end && (*p == '+' || *p == '-')) {
		int sign = *p == '-' ? -1 : 1;
		uint64_t th, tm;

		/* "+HHMM" runs the digits together: take two at a time */
		if (end - p < 5 || !is_digit(p[1]) || !is_digit(p[2]))
			return NULL;
		th = (uint64_t)((p[1] - '0') * 10 + (p[2] - '0'));
		p += 3;
		if (*p == ':')
			p++;
		p = digits(p, end, 2, 2, &tm);
		if (!p || th > 14 || tm > 59)
			return NULL;
		rec->wall_sec -= sign * (int64_t)(th * 3600 + tm * 60);
		rec->wall_has_tz = true;
	}
	return p;
}

/*
 * Month abbreviations as journalctl and rsyslog print them under LC_TIME (strftime %b,
 * glibc's localedata abmon and ab_alt_mon), lower case: an input's letters are folded
 * to ASCII lower case before they are compared, so "MAR", "Mar" and "mar" are one.
 * The month only orders lines within a file; no two languages here give one
 * abbreviation two months.
 */
static const struct {
	const char *name;
	int month;			/* 0 = January */
} month_names[] = {
	/* en, and whatever de, nl, sv, da, nb, pl and it share with it */
	{ "jan", 0 }, { "feb", 1 }, { "mar", 2 }, { "apr", 3 }, { "may", 4 }, { "jun", 5 },
	{ "jul", 6 }, { "aug", 7 }, { "sep", 8 }, { "oct", 9 }, { "nov", 10 }, { "dec", 11 },
	/* de: Jan Feb Maer Apr Mai Jun Jul Aug Sep Okt Nov Dez (UTF-8 a-umlaut) */
	{ "m\xc3\xa4r", 2 }, { "mai", 4 }, { "okt", 9 }, { "dez", 11 },
	/* fr: janv. fevr. mars avr. (avril in newer glibc) mai juin juil. aout sept. oct.
	 * nov. dec., accented in UTF-8 */
	{ "janv.", 0 }, { "f\xc3\xa9vr.", 1 }, { "mars", 2 }, { "avr.", 3 }, { "avril", 3 },
	{ "juin", 5 }, { "juil.", 6 }, { "ao\xc3\xbbt", 7 }, { "sept.", 8 }, { "oct.", 9 },
	{ "nov.", 10 }, { "d\xc3\xa9" "c.", 11 },
	/* es: ene feb mar abr may jun jul ago sep oct nov dic */
	{ "ene", 0 }, { "abr", 3 }, { "ago", 7 }, { "dic", 11 },
	/* it: gen feb mar apr mag giu lug ago set ott nov dic */
	{ "gen", 0 }, { "mag", 4 }, { "giu", 5 }, { "lug", 6 }, { "set", 8 }, { "ott", 9 },
	/* pt: jan fev mar abr mai jun jul ago set out nov dez */
	{ "fev", 1 }, { "out", 9 },
	/* nl: jan feb mrt apr mei jun jul aug sep okt nov dec */
	{ "mrt", 2 }, { "mei", 4 },
	/* sv, da: maj; nb: jan. feb. mars april mai juni juli aug. sep. okt. nov. des. */
	{ "maj", 4 }, { "jan.", 0 }, { "feb.", 1 }, { "april", 3 }, { "juni", 5 },
	{ "juli", 6 }, { "aug.", 7 }, { "sep.", 8 }, { "okt.", 9 }, { "des.", 11 },
	/* pl: sty lut mar kwi maj cze lip sie wrz paz (z acute) lis gru */
	{ "sty", 0 }, { "lut", 1 }, { "kwi", 3 }, { "cze", 5 }, { "lip", 6 }, { "sie", 7 },
	{ "wrz", 8 }, { "pa\xc5\xba", 9 }, { "lis", 10 }, { "gru", 11 },
	/* ru (Cyrillic, UTF-8): yanv fev mar apr maya (may) iyun iyul avg sen okt noya dek, and
	 * the capitalised forms older glibc printed */
	{ "\xd1\x8f\xd0\xbd\xd0\xb2", 0 }, { "\xd1\x84\xd0\xb5\xd0\xb2", 1 },
	{ "\xd0\xbc\xd0\xb0\xd1\x80", 2 }, { "\xd0\xb0\xd0\xbf\xd1\x80", 3 },
	{ "\xd0\xbc\xd0\xb0\xd1\x8f", 4 }, { "\xd0\xbc\xd0\xb0\xd0\xb9", 4 },
	{ "\xd0\xb8\xd1\x8e\xd0\xbd", 5 }, { "\xd0\xb8\xd1\x8e\xd0\xbb", 6 },
	{ "\xd0\xb0\xd0\xb2\xd0\xb3", 7 }, { "\xd1\x81\xd0\xb5\xd0\xbd", 8 },
	{ "\xd0\xbe\xd0\xba\xd1\x82", 9 }, { "\xd0\xbd\xd0\xbe\xd1\x8f", 10 },
	{ "\xd0\xb4\xd0\xb5\xd0\xba", 11 },
	{ "\xd0\xaf\xd0\xbd\xd0\xb2", 0 }, { "\xd0\xa4\xd0\xb5\xd0\xb2", 1 },
	{ "\xd0\x9c\xd0\xb0\xd1\x80", 2 }, { "\xd0\x90\xd0\xbf\xd1\x80", 3 },
	{ "\xd0\x9c\xd0\xb0\xd0\xb9", 4 }, { "\xd0\x98\xd1\x8e\xd0\xbd", 5 },
	{ "\xd0\x98\xd1\x8e\xd0\xbb", 6 }, { "\xd0\x90\xd0\xb2\xd0\xb3", 7 },
	{ "\xd0\xa1\xd0\xb5\xd0\xbd", 8 }, { "\xd0\x9e\xd0\xba\xd1\x82", 9 },
	{ "\xd0\x9d\xd0\xbe\xd1\x8f", 10 }, { "\xd0\x94\xd0\xb5\xd0\xba", 11 },
};

/* The longest of month_names[], in bytes */
#define MONTH_NAME_MAX 6

static char ascii_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/*
 * zh_CN, zh_TW and ja_JP write a month as its number and U+6708, ko_KR as its number and
 * U+C6D4 ("5\u6708 31 09:19:05"); older glibc and ja/ko pad it with a space, which the
 * caller has skipped with the paste's indentation. 0..11, or -1.
 */
static int numbered_month(const char *s, const char *end, size_t *ret_len)
{
	static const char *const suffixes[] = { "\xe6\x9c\x88", "\xec\x9b\x94" };
	size_t l = 0;
	int mon = 0;

	while (l < 2 && s + l < end && s[l] >= '0' && s[l] <= '9')
		mon = mon * 10 + (s[l++] - '0');
	if (!l || mon < 1 || mon > 12 || end - (s + l) < 4)
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(suffixes); i++)
		if (!memcmp(s + l, suffixes[i], 3) && s[l + 3] == ' ') {
			*ret_len = l + 3;
			return mon - 1;
		}
	return -1;
}

/* The month a syslog-style line starts with, its name followed by a space: 0..11, or -1 */
static int month_index(const char *s, const char *end, size_t *ret_len)
{
	char low[MONTH_NAME_MAX];
	size_t l = 0;

	if (s < end && *s >= '0' && *s <= '9')
		return numbered_month(s, end, ret_len);

	/* most lines that are not a journal's: no space within a month name's length */
	while (l < (size_t)(end - s) && l <= MONTH_NAME_MAX && s[l] != ' ')
		l++;
	if (l < 3 || l > MONTH_NAME_MAX || s + l >= end)
		return -1;
	for (size_t i = 0; i < l; i++)
		low[i] = ascii_lower(s[i]);
	for (size_t i = 0; i < ARRAY_SIZE(month_names); i++)
		if (strlen(month_names[i].name) == l && memcmp(month_names[i].name, low, l) == 0) {
			*ret_len = l;
			return month_names[i].month;
		}
	return -1;
}

/*
 * dmesg -H (--human, --reltime): util-linux prints "[%b%e %H:%M] " ("[Jan18 08:23]",
 * "[Jan 8 08:23]") for the first record of each minute and "[  %+8.06f] " (or
 * "[ %+9.06f] " from 10 s) for the delta to the record before it ("[  +0.000031]").
 * The minute is kept as the wall clock; a delta line carries no time of its own, for
 * its time is the sum of every delta since the minute's line.
 */
static const char *parse_human_bracket(const char *s, const char *end,
				       struct klog_rec *rec)
{
	const char *p = s + 1;
	uint64_t day, hh, mm, sec, frac;
	int mon = -1;

	if (p < end && *p == ' ') {
		p = skip_spaces(p, end);
		if (p >= end || *p != '+')
			return NULL;
		p = digits(p + 1, end, 1, 2, &sec);
		/* util-linux prints the delta with "%+8.06f": a locale's decimal comma too */
		if (!p || p >= end || (*p != '.' && *p != ','))
			return NULL;
		p = digits(p + 1, end, 6, 6, &frac);
		if (!p || p >= end || *p != ']')
			return NULL;
		return p + 1;
	}
	if (end - p < 3)
		return NULL;
	for (int i = 0; i < 12; i++)
		if (ascii_lower(p[0]) == ascii_lower(months[i][0]) &&
		    ascii_lower(p[1]) == ascii_lower(months[i][1]) &&
		    ascii_lower(p[2]) == ascii_lower(months[i][2]))
			mon = i;
	if (mon < 0)
		return NULL;
	p += 3;
	/* %e: the day padded with a space */
	if (p < end && *p == ' ')
		p++;
	p = digits(p, end, 1, 2, &day);
	if (!p || day < 1 || day > 31 || p >= end || *p != ' ')
		return NULL;
	p = digits(p + 1, end, 2, 2, &hh);
	if (!p || hh > 23 || p >= end || *p != ':')
		return NULL;
	p = digits(p + 1, end, 2, 2, &mm);
	if (!p || mm > 59 || p >= end || *p != ']')
		return NULL;
	set_wall(rec, 1970, mon + 1, (int)day, (int)hh, (int)mm, 0);
	return p + 1;
}

/*
 * journal/syslog short: "Dec 02 13:01:21[.123456]" (syslog pads the day: "Dec  2"), the
 * month in any case and in the common locales ("mar 29", "MAR 29", "janv. 05")
 */
static const char *parse_short_time(const char *s, const char *end, struct klog_rec *rec)
{
	const char *p;
	uint64_t day;
	size_t l;
	int mon, hh, mm, ss;
	uint32_t usec = 0;

	mon = month_index(s, end, &l);
	if (mon < 0 || s + l >= end || s[l] != ' ')
		return NULL;
	p = skip_spaces(s + l, end);
	p = digits(p, end, 1, 2, &day);
	if (!p || day < 1 || day > 31 || p >= end || *p != ' ')
		return NULL;
	p = parse_hms(p + 1, end, &hh, &mm, &ss);
	if (!p)
		return NULL;
	if (p < end && *p == '.') {
		p = parse_frac(p, end, &usec);
		if (!p)
			return NULL;
	}
	/* no year is printed: count from 1970, which keeps order within a year */
	set_wall(rec, 1970, mon + 1, (int)day, hh, mm, ss);
	rec->wall_usec = usec;
	return p;
}

/*
 * After a journal/syslog timestamp: " host ident: msg". 1 with the message for ident
 * "kernel", 0 for any other program.
 */
static int parse_host_ident(const char *s, const char *end, struct klog_rec *rec,
			    const char **ret_msg)
{
	const char *host, *h_end, *ident, *colon;

	if (s >= end || *s != ' ')
		return 0;
	host = s + 1;
	h_end = memchr(host, ' ', (size_t)(end - host));
	if (!h_end || h_end == host || h_end - host > HOST_MAX)
		return 0;
	ident = h_end + 1;
	/* the ident runs to the first ':' or ' ': it is "kernel" only if these 7 bytes are */
	if (end - ident < 7 || memcmp(ident, "kernel:", 7) != 0)
		return 0;
	colon = ident + 6;
	rec->host = host;
	rec->host_len = (size_t)(h_end - host);
	colon++;
	if (colon < end && *colon == ' ')
		colon++;
	*ret_msg = colon;
	return 1;
}

/*
 * After a journal timestamp with no host (journalctl --no-hostname, or a line cut for a
 * bug report): " kernel: msg". 1 with the message.
 */
static int parse_kernel_ident(const char *s, const char *end, const char **ret_msg)
{
	if (end - s < 8 || memcmp(s, " kernel:", 8) != 0)
		return 0;
	s += 8;
	if (s < end && *s == ' ')
		s++;
	*ret_msg = s;
	return 1;
}

size_t dmesg_syslog_head(const char *line, size_t len)
{
	const char *end = line + len, *p, *host_end;
	struct klog_rec rec;
	bool comma;

	p = len && is_digit(*line) ? parse_iso(line, end, &rec, &comma) : NULL;
	/* a month in digits ("5\u6708") starts with one too */
	if (!p)
		p = parse_short_time(line, end, &rec);
	if (!p || p >= end || *p != ' ')
		return 0;
	host_end = memchr(p + 1, ' ', (size_t)(end - p - 1));
	if (!host_end || host_end == p + 1 || host_end - p - 1 > HOST_MAX)
		return 0;
	return (size_t)(host_end + 1 - line);
}

/* "kern  :info  : " (dmesg -x, "%-6s:%-6s: ") */
static const char *parse_decode_prefix(const char *s, const char *end,
				       struct klog_rec *rec)
{
	const char *p;
	size_t l;
	int fac, lvl;

	fac = word_index(s, end, facilities, ARRAY_SIZE(facilities), &l);
	if (fac < 0)
		return NULL;
	p = skip_spaces(s + l, end);
	if (p >= end || *p != ':')
		return NULL;
	lvl = word_index(p + 1, end, levels, ARRAY_SIZE(levels), &l);
	if (lvl < 0)
		return NULL;
	p = skip_spaces(p + 1 + l, end);
	if (p >= end || *p != ':')
		return NULL;
	rec->facility = fac;
	rec->level = lvl;
	p++;
	return p < end && *p == ' ' ? p + 1 : p;
}

/* "<6>" (dmesg -r, consoles that print the level) */
static const char *parse_prio_prefix(const char *s, const char *end, struct klog_rec *rec)
{
	const char *p;
	uint64_t prio;

	if (s >= end || *s != '<')
		return NULL;
	p = digits(s + 1, end, 1, 5, &prio);
	if (!p || p >= end || *p != '>' || prio > 0xffff)
		return NULL;
	rec->facility = (int)(prio >> 3);
	rec->level = (int)(prio & 7);
	return p + 1;
}

static void set_msg(struct klog_rec *rec, const char *s, const char *end)
{
	rec->msg = s;
	rec->msg_len = (size_t)(end - s);
}

/* A "[    1.234567] " at the start of a syslog line's message: the kernel's own time. */
static void take_inner_monotonic(struct klog_rec *rec, const char *end)
{
	uint64_t usec;
	const char *p = parse_mono_bracket(rec->msg, end, &usec);

	if (!p)
		return;
	rec->has_monotonic = true;
	rec->usec = usec;
	if (p < end && *p == ' ')
		p++;
	set_msg(rec, p, end);
}

static void finish_ts(struct klog_rec *rec)
{
	if (rec->has_monotonic)
		rec->ts = (double)rec->usec / 1e6;
	else if (rec->has_wallclock)
		rec->ts = (double)rec->wall_sec + (double)rec->wall_usec / 1e6;
}

/* The record starting at @s; @anywhere: inside other text, where only "[ s.us]" counts */
static int parse_at(const char *s, const char *end, struct klog_rec *rec, bool anywhere)
{
	const char *p = s, *q, *msg;
	bool prefixed = false, comma;
	uint64_t usec;

	/* neither prefix starts with the '[' of most lines */
	if (!anywhere && p < end && *p != '[') {
		q = parse_prio_prefix(p, end, rec);
		if (!q)
			q = parse_decode_prefix(p, end, rec);
		if (q) {
			p = q;
			prefixed = true;
		}
	}
	if (p < end && *p == '[') {
		q = parse_mono_bracket(p, end, &usec);
		if (q) {
			const char *c;

			rec->format = KLOG_FORMAT_DMESG;
			rec->has_monotonic = true;
			rec->usec = usec;
			c = q < end && *q == ' ' ? q + 1 : q;
			c = parse_caller(c, end, rec);
			if (c)
				q = c;
			if (q < end && *q == ' ')
				q++;
			set_msg(rec, q, end);
			/* short-monotonic "[ 12.3] host kernel: msg"; q-1 is the space */
			if (!prefixed && !rec->caller_kind &&
			    parse_host_ident(q - 1, end, rec, &msg) == 1) {
				rec->format = KLOG_FORMAT_JOURNAL_MONOTONIC;
				set_msg(rec, msg, end);
			}
			return 1;
		}
		if (anywhere)
			return 0;
		q = parse_ctime_bracket(p, end, rec);
		if (q) {
			rec->format = KLOG_FORMAT_DMESG_CTIME;
		} else {
			q = parse_human_bracket(p, end, rec);
			if (!q)
				return 0;
			rec->format = KLOG_FORMAT_DMESG_HUMAN;
		}
		if (q < end && *q == ' ')
			q++;
		set_msg(rec, q, end);
		return 1;
	}
	if (anywhere || prefixed)
		return 0;
	if (is_digit(*p) && (q = parse_iso(p, end, rec, &comma))) {
		if (comma) {
			/* dmesg writes "%04d-%02d-%02dT%02d:%02d:%02d,%06ld%+03d:%02d" */
			rec->format = KLOG_FORMAT_DMESG_ISO;
			if (q < end && *q == ' ')
				q++;
			set_msg(rec, q, end);
			return 1;
		}
		if (parse_host_ident(q, end, rec, &msg) != 1 &&
		    parse_kernel_ident(q, end, &msg) != 1)
			return 0;
		rec->format = KLOG_FORMAT_JOURNAL_ISO;
		set_msg(rec, msg, end);
		take_inner_monotonic(rec, end);
		return 1;
	}
	q = parse_short_time(p, end, rec);
	if (!q || (parse_host_ident(q, end, rec, &msg) != 1 &&
		   parse_kernel_ident(q, end, &msg) != 1))
		return 0;
	rec->format = KLOG_FORMAT_JOURNAL_SHORT;
	set_msg(rec, msg, end);
	take_inner_monotonic(rec, end);
	return 1;
}

/*
 * "[ -1.000000]" or a time of more than 12 digits of seconds at the start of a line: a
 * kernel time no kernel printed (print_time() has %5lu of a u64 nanosecond clock), so
 * a damaged record rather than other text.
 */
static bool bad_mono_bracket(const char *s, const char *end)
{
	const char *p;
	uint64_t frac;
	size_t n = 0;
	bool neg;

	if (s >= end || *s != '[')
		return false;
	p = skip_spaces(s + 1, end);
	neg = p < end && *p == '-';
	p += neg;
	while (p < end && is_digit(*p)) {
		p++;
		n++;
	}
	if (!n || (!neg && n <= 12) || p >= end || *p != '.')
		return false;
	p = digits(p + 1, end, 6, 9, &frac);
	return p && p < end && *p == ']';
}

/*
 * What a record is before parsing, copied in. Not const, never written: GCC turns the
 * copy of a const, mostly zero template into a memset(), a slow rep stos at this size.
 */
static struct klog_rec empty_rec = { .facility = -1, .level = -1 };

int dmesg_parse_line(const char *line, size_t len, struct klog_rec *ret_rec,
		     const char **reterr_what)
{
	const char *end = line + len, *s = line, *p;
	struct klog_rec *rec = ret_rec;

	if (len && line[len - 1] == '\r')
		end--;
	if (memchr(line, '\0', (size_t)(end - line))) {
		*reterr_what = "line contains a NUL byte";
		return -EINVAL;
	}
	/* serial consoles leave carriage returns at line starts */
	while (s < end && *s == '\r')
		s++;
	*rec = empty_rec;
	if (parse_at(s, end, rec, false) == 1) {
		rec->prefix_len = (size_t)(s - line);
		finish_ts(rec);
		return 1;
	}
	if (bad_mono_bracket(s, end)) {
		*reterr_what = "kernel timestamp out of range";
		return -EINVAL;
	}
	/* other text first: a prompt, a CI runner's timestamp, an escape sequence */
	for (p = s + 1; p < end; p++) {
		if (*p != '[')
			continue;
		*rec = empty_rec;
		if (parse_at(p, end, rec, true) == 1) {
			rec->prefix_len = (size_t)(p - line);
			finish_ts(rec);
			return 1;
		}
	}
	return 0;
}

/* --- the push parser ---------------------------------------------------------------- */

struct dmesg_parser {
	char *path;
	struct klog_parser_ops ops;
	void *userdata;
	/* the host of journal lines seen so far, to recognise other programs' lines */
	char host[HOST_MAX + 1];
	size_t host_len;
	unsigned int lineno;
	struct dmesg_stats stats;
};

int dmesg_parser_new(const char *path, const struct klog_parser_ops *ops, void *userdata,
		     struct dmesg_parser **ret_parser)
{
	struct dmesg_parser *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->path = strdup(path ? path : "");
	if (!p->path) {
		free(p);
		return -ENOMEM;
	}
	if (ops)
		p->ops = *ops;
	p->userdata = userdata;
	*ret_parser = p;
	return 0;
}

struct dmesg_parser *dmesg_parser_free(struct dmesg_parser *p)
{
	if (!p)
		return NULL;
	free(p->path);
	free(p);
	return NULL;
}

const struct dmesg_stats *dmesg_parser_stats(const struct dmesg_parser *p)
{
	return &p->stats;
}

static void bad_line(struct dmesg_parser *p, const char *what)
{
	struct kt_err err;

	p->stats.malformed++;
	if (!p->ops.bad_line)
		return;
	kt_err_set(&err, p->path, p->lineno, what);
	p->ops.bad_line(p->userdata, &err);
}

int dmesg_parser_skip_line(struct dmesg_parser *p, const char *what)
{
	p->lineno++;
	p->stats.lines++;
	bad_line(p, what);
	return 0;
}

/*
 * "[ 12.3] host systemd[1]: msg" in journalctl -o short-monotonic output is another
 * program's line: the host is known from the kernel's lines around it.
 */
static bool is_other_journal_line(const struct dmesg_parser *p,
				  const struct klog_rec *rec)
{
	const char *m = rec->msg, *end = rec->msg + rec->msg_len, *c;

	if (!p->host_len || rec->format != KLOG_FORMAT_DMESG ||
	    rec->msg_len <= p->host_len || memcmp(m, p->host, p->host_len) != 0 ||
	    m[p->host_len] != ' ')
		return false;
	for (c = m + p->host_len + 1; c < end && *c != ' '; c++)
		if (*c == ':')
			return c + 1 == end || c[1] == ' ';
	return false;
}

size_t dmesg_time_prefix(const char *line, size_t len, uint64_t *ret_usec)
{
	if (!len || line[0] != '[' || !mono_bracket_fast(line, line + len, ret_usec))
		return 0;
	return DMESG_TIME_LEN;
}

int dmesg_parse(const char *line, size_t len, struct klog_rec *ret_rec, const char **reterr_what)
{
	if (len > DMESG_LINE_MAX) {
		*reterr_what = "line too long";
		return -E2BIG;
	}
	return dmesg_parse_line(line, len, ret_rec, reterr_what);
}

int dmesg_parser_feed_records(struct dmesg_parser *p, enum klog_format format, uint64_t n)
{
	/* as is_other_journal_line() sees them */
	if (p->host_len && format == KLOG_FORMAT_DMESG)
		return -EAGAIN;
	if ((unsigned int)format >= KLOG_FORMAT__MAX)
		return -EINVAL;
	p->lineno += (unsigned int)n;
	p->stats.lines += n;
	p->stats.records += n;
	p->stats.by_format[format] += n;
	return 0;
}

int dmesg_parser_feed_parsed(struct dmesg_parser *p, int parsed, const struct klog_rec *rec,
			     const char *what)
{
	int r;

	p->lineno++;
	p->stats.lines++;
	if (parsed < 0) {
		bad_line(p, what);
		return 0;
	}
	if (parsed == 0 || is_other_journal_line(p, rec)) {
		p->stats.other_lines++;
		return 0;
	}
	if (rec->host && rec->host_len <= HOST_MAX) {
		memcpy(p->host, rec->host, rec->host_len);
		p->host_len = rec->host_len;
	}
	p->stats.records++;
	p->stats.by_format[rec->format]++;
	if (p->ops.record) {
		r = p->ops.record(p->userdata, rec);
		if (r < 0)
			return r;
	}
	return 0;
}

int dmesg_parser_feed(struct dmesg_parser *p, const char *line, size_t len)
{
	struct klog_rec rec;
	const char *what = NULL;
	int r = dmesg_parse(line, len, &rec, &what);

	return dmesg_parser_feed_parsed(p, r, &rec, what);
}

int dmesg_parser_finish(struct dmesg_parser *p)
{
	/* lines are records on their own: nothing waits */
	return 0;
}

DEFINE_LINEREADER_SINK(dmesg_sink, struct dmesg_parser, dmesg_parser, "record handler failed");

int dmesg_read_file(FILE *f, const char *path, const struct klog_parser_ops *ops,
		    void *userdata, struct dmesg_stats *ret_stats, struct kt_err *reterr)
{
	struct dmesg_parser *p;
	int r;

	r = dmesg_parser_new(path, ops, userdata, &p);
	if (r < 0)
		return r;
	r = linereader_feed(f, path, DMESG_LINE_MAX, &dmesg_sink, p, reterr);
	if (r >= 0 && ret_stats)
		*ret_stats = p->stats;
	dmesg_parser_free(p);
	return r;
}
