/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>

#include "sources/dmesg-text.h"
#include "util/parse-num.h"
#include "util/hindex.h"
#include "util/macro.h"
#include "klog-findings.h"

/* --- running a format backwards ---------------------------------------------------- */

#define MAX_CONV 8
/* Lazy %s matching backtracks: every byte looked at counts, so no line is slow. */
#define STEP_BUDGET 100000
/* A printk record holds at most 1 KiB of text (PRINTKRB_RECORD_MAX): longer is none */
#define MSG_MAX 4096
/* matcher flag: the format may end before the message does, its final '\n' too */
#define MATCH_SENTENCE (1u << 31)

enum conv_type {
	CONV_STR,	/* %s %ps %pS %.*s */
	CONV_CHAR,	/* %c */
	CONV_INT,	/* %d %i %li %lld */
	CONV_UINT,	/* %u %lu %llu */
	CONV_HEX,	/* %x %lx, "%#x" with its 0x */
	CONV_PERCENT,
};

struct conv {
	enum conv_type type;
	bool alt;	/* '#' */
};

struct capture {
	const char *s;
	size_t len;
	int64_t num;
};

struct matcher {
	const char *end;
	unsigned int flags;
	unsigned int steps;
	struct capture caps[MAX_CONV];
	/* where the format's end met the message (up to the end but for a prefix) */
	const char *stop;
};

/* Reads the conversion after a '%'; returns the format after it, or NULL if unknown. */
static const char *parse_conv(const char *f, struct conv *c)
{
	c->alt = false;
	if (*f == '%') {
		c->type = CONV_PERCENT;
		return f + 1;
	}
	while (*f == '-' || *f == '+' || *f == ' ' || *f == '#' || *f == '0') {
		if (*f == '#')
			c->alt = true;
		f++;
	}
	if (*f == '*')
		f++;
	while (*f >= '0' && *f <= '9')
		f++;
	if (*f == '.') {
		f++;
		if (*f == '*')
			f++;
		while (*f >= '0' && *f <= '9')
			f++;
	}
	while (*f == 'h' || *f == 'l' || *f == 'z' || *f == 'j' || *f == 't' || *f == 'L')
		f++;
	switch (*f) {
	case 's':
		c->type = CONV_STR;
		return f + 1;
	case 'p':
		/* kernel %p extensions: %ps %pS %pV %pGg ... print text */
		c->type = CONV_STR;
		f++;
		while ((*f >= 'a' && *f <= 'z') || (*f >= 'A' && *f <= 'Z'))
			f++;
		return f;
	case 'c':
		c->type = CONV_CHAR;
		return f + 1;
	case 'd':
	case 'i':
		c->type = CONV_INT;
		return f + 1;
	case 'u':
		c->type = CONV_UINT;
		return f + 1;
	case 'x':
	case 'X':
		c->type = CONV_HEX;
		return f + 1;
	default:
		return NULL;
	}
}

/* A number at @m; returns the message after it, or NULL. */
static const char *match_number(const struct conv *c, const char *m, const char *end,
				int64_t *ret)
{
	uint64_t v = 0;
	bool neg = false;
	const char *start;

	while (m < end && *m == ' ')	/* field widths pad with spaces */
		m++;
	if (c->type == CONV_INT && m < end && (*m == '-' || *m == '+')) {
		neg = *m == '-';
		m++;
	}
	if (c->type == CONV_HEX) {
		if (c->alt && end - m > 2 && m[0] == '0' &&
		    (m[1] == 'x' || m[1] == 'X') && hex_digit(m[2]) >= 0)
			m += 2;
		start = m;
		while (m < end && hex_digit(*m) >= 0) {
			if (v >> 60)
				return NULL;
			v = v << 4 | (uint64_t)hex_digit(*m);
			m++;
		}
	} else {
		start = m;
		while (m < end && *m >= '0' && *m <= '9') {
			if (v > (UINT64_MAX - 9) / 10)
				return NULL;
			v = v * 10 + (uint64_t)(*m - '0');
			m++;
		}
	}
	if (m == start)
		return NULL;
	if (neg) {
		if (v > (uint64_t)INT64_MAX + 1)
			return NULL;
		*ret = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
	} else {
		/* %lu beyond INT64_MAX wraps; sizes never get there */
		*ret = (int64_t)v;
	}
	return m;
}

static bool match(struct matcher *mt, const char *f, const char *m, unsigned int ci)
{
	const char *end = mt->end;

	if (++mt->steps > STEP_BUDGET)
		return false;
	for (;;) {
		struct conv c;
		const char *nf;

		if (*f == '\0') {
			mt->stop = m;
			/* a message going on past a newline is a multi-line record */
			return m == end || *m == '\n' || (mt->flags & KLOG_FORMAT_PREFIX);
		}
		if (*f == '\n') {
			/* dmesg splits a record at newlines: the rest is elsewhere */
			if (m == end)
				return true;
			if ((mt->flags & MATCH_SENTENCE) && f[1] == '\0') {
				mt->stop = m;
				return true;
			}
			if (*m != '\n')
				return false;
			f++;
			m++;
			continue;
		}
		if (*f != '%') {
			/* a paste or a retyped line often lacks the sentence's final '.' */
			if (m == end && *f == '.' &&
			    (f[1] == '\0' || (f[1] == '\n' && f[2] == '\0')))
				return true;
			if (m == end || *m != *f)
				return false;
			f++;
			m++;
			continue;
		}
		nf = parse_conv(f + 1, &c);
		if (!nf || ci >= MAX_CONV)
			return false;
		switch (c.type) {
		case CONV_PERCENT:
			if (m == end || *m != '%')
				return false;
			f = nf;
			m++;
			continue;
		case CONV_CHAR:
			if (m == end)
				return false;
			mt->caps[ci].s = m;
			mt->caps[ci].len = 1;
			f = nf;
			m++;
			ci++;
			continue;
		case CONV_INT:
		case CONV_UINT:
		case CONV_HEX: {
			const char *after = match_number(&c, m, end, &mt->caps[ci].num);

			if (!after)
				return false;
			mt->caps[ci].s = m;
			mt->caps[ci].len = (size_t)(after - m);
			f = nf;
			m = after;
			ci++;
			continue;
		}
		case CONV_STR: {
			const char *p;
			bool last = *nf == '\0' || (*nf == '\n' && nf[1] == '\0');

			if (last && !(mt->flags & KLOG_FORMAT_PREFIX)) {
				/* the rest of the line (up to a continuation newline) */
				p = memchr(m, '\n', (size_t)(end - m));
				mt->caps[ci].s = m;
				mt->caps[ci].len = (size_t)((p ? p : end) - m);
				mt->stop = p ? p : end;
				return true;
			}
			/*
			 * Shortest first, at least one byte unless nothing follows:
			 * "%s: Unknown symbol" takes the module up to the first
			 * ": Unknown symbol".
			 */
			for (p = last ? m : m + 1; p <= end; p++) {
				if (++mt->steps > STEP_BUDGET)
					return false;
				if (p > m && p[-1] == '\n')
					break;
				if (*nf != '%' && *nf != '\n' && *nf != '\0' &&
				    (p == end || *p != *nf))
					continue;
				mt->caps[ci].s = m;
				mt->caps[ci].len = (size_t)(p - m);
				if (match(mt, nf, p, ci + 1))
					return true;
				if (mt->steps > STEP_BUDGET)
					return false;
			}
			return false;
		}
		}
	}
}

/* The first literal run of the format, to skip entries cheaply. */
static bool may_match(const struct klog_format_entry *e, const char *msg, size_t len)
{
	const char *f = e->format, *q;
	size_t n;

	while (*f == '%') {
		struct conv c;

		q = parse_conv(f + 1, &c);
		if (!q)
			return true;
		f = q;
	}
	for (q = f; *q && *q != '%' && *q != '\n'; q++)
		;
	n = (size_t)(q - f);
	/* the final '.' may be missing (match()) */
	if (n && f[n - 1] == '.' && (*q == '\0' || (q[0] == '\n' && q[1] == '\0')))
		n--;
	if (n == 0)
		return true;
	if (f == e->format)
		return len >= n && memcmp(msg, f, n) == 0;
	return memmem(msg, len, f, n) != NULL;
}

/* kmod's path_to_modname(): the basename, up to its first '.' ("master/ec_master.ko") */
static void module_of_path(struct klog_finding *r)
{
	const char *s = r->module, *end = r->module + r->module_len, *p, *dot;

	for (p = s; p < end; p++)
		if (*p == '/')
			s = p + 1;
	dot = memchr(s, '.', (size_t)(end - s));
	if (dot)
		end = dot;
	if (end == s)
		return;		/* "/" or ".ko": keep what was printed */
	r->module = s;
	r->module_len = (size_t)(end - s);
}

/*
 * A module name is one word: text the paste put before the kernel's "%s:" (a syslog-ng
 * head "... store1(kern.warning) kernel: flashcache", a commented "# [Fri Sep 19 ...]
 * apml_sbrmi", a timestamp cut to " 3498.540131] dm_dedup") is not part of it.
 */
static void module_last_word(struct klog_finding *r)
{
	const char *s = r->module, *end = r->module + r->module_len, *p;

	for (p = s; p < end; p++)
		if (*p == ' ' || *p == '\t')
			s = p + 1;
	/* nor is the inline code's or emphasis's mark before it ("says: `mali: ...") */
	while (s < end && strchr("`*_'\"", *s))
		s++;
	if (s == r->module || s == end)
		return;
	r->module = s;
	r->module_len = (size_t)(end - s);
}

/*
 * glibc's strerror() texts of the errors a module load ends with, as userspace loaders
 * print them, and kmod's own (mod_strerror()): the log says the text, not the number.
 */
static int errno_of_text(const char *t, size_t len)
{
	static const struct {
		const char *text;
		int err;
	} texts[] = {
		{ "Function not implemented", ENOSYS },
		{ "Key was rejected by service", EKEYREJECTED },
		{ "Required key not available", ENOKEY },
		{ "Unknown symbol in module", ENOENT },
		/* module-init-tools' and kmod's own text for ENOENT */
		{ "Unknown symbol in module, or unknown parameter (see dmesg)", ENOENT },
		/* busybox's moderror(), in lower case */
		{ "unknown symbol in module, or unknown parameter", ENOENT },
		{ "invalid module format", ENOEXEC },
		{ "module has wrong symbol version", ESRCH },
		{ "No such file or directory", ENOENT },
		{ "Invalid module format", ENOEXEC },
		{ "Exec format error", ENOEXEC },
		{ "Invalid parameters", EINVAL },
		{ "Invalid argument", EINVAL },
		{ "Module has wrong symbol version", ESRCH },
		{ "No such process", ESRCH },
		{ "File exists", EEXIST },
		{ "Module already in kernel", EEXIST },
		{ "Operation not permitted", EPERM },
		{ "No such device", ENODEV },
		{ "No such device or address", ENXIO },
		{ "Device or resource busy", EBUSY },
		{ "Cannot allocate memory", ENOMEM },
		/* bionic's EOPNOTSUPP (Android's libmodprobe); glibc says "Operation not supported" */
		{ "Operation not supported on transport endpoint", EOPNOTSUPP },
		{ "Operation not supported", EOPNOTSUPP },
		{ "Out of memory", ENOMEM },	/* bionic's ENOMEM */
		{ "Bad message", EBADMSG },
		{ "Package not installed", ENOPKG },
		{ "Timer expired", ETIME },
	};

	for (size_t i = 0; i < ARRAY_SIZE(texts); i++) {
		size_t n = strlen(texts[i].text);

		if (len == n && memcmp(t, texts[i].text, n) == 0)
			return texts[i].err;
	}
	return 0;
}

/*
 * A strerror() text that @t starts with, followed by a blank and more words (a loader's
 * line quoted in a sentence that goes on: "... Invalid module format and this can be
 * found in dmesg ..."): its length, or 0.
 */
static size_t errno_text_head(const char *t, size_t len, int *ret_err)
{
	/* the longest first: "No such device or address" before "No such device" */
	for (size_t n = len; n-- > 1;)
		if (t[n] == ' ' && t[n - 1] != ' ' && (*ret_err = errno_of_text(t, n)))
			return n;
	return 0;
}

/*
 * Tasks that load modules: a vmalloc failure in another task (the BPF JIT allocating
 * from the module area, a driver's buffer) is not a module load's. Comms as the kernel
 * keeps them, cut to 15 bytes ("systemd-modules" is systemd-modules-load).
 */
static bool loader_comm(const char *comm, size_t len)
{
	static const char *const comms[] = {
		"insmod", "modprobe", "systemd-udevd", "(udev-worker)", "udevd",
		"systemd-modules", "systemd", "kmodloader", "kmod",
	};

	for (size_t i = 0; i < ARRAY_SIZE(comms); i++)
		if (len == strlen(comms[i]) && memcmp(comm, comms[i], len) == 0)
			return true;
	return false;
}

/*
 * A loader quotes the name it was given ("Failed to find module '%s'"): quoted words
 * with a blank between them are no module's name (systemd-modules-load reading a
 * modprobe.d line, 'blacklist usblp', from modules-load.d). The load failed, no module
 * named. The capture is looked at only where the format has text before it.
 */
static bool quoted_phrase(const struct klog_format_entry *e, const struct matcher *mt,
			  const struct klog_finding *r)
{
	const char *s = r->module, *end = s + r->module_len;

	if (e->format[0] == '%' && r->module == mt->caps[0].s)
		return false;
	return s[-1] == '\'' && end < mt->end && *end == '\'' && memchr(s, ' ', r->module_len);
}

static void fill(const struct klog_format_entry *e, const struct matcher *mt,
		 struct klog_finding *ret)
{
	struct klog_finding r = {
		.kind = e->kind,
		.format = e->format,
		.source = e->source,
		.err = e->err,
	};
	const char *sl;
	unsigned int i;

	for (sl = e->slots, i = 0; *sl && i < MAX_CONV; sl++, i++) {
		const struct capture *c = &mt->caps[i];

		switch (*sl) {
		case 'm':
			r.module = c->s;
			r.module_len = c->len;
			break;
		case 's':
			r.symbol = c->s;
			r.symbol_len = c->len;
			break;
		case 't':
			r.text = c->s;
			r.text_len = c->len;
			break;
		case 'u':
			r.text2 = c->s;
			r.text2_len = c->len;
			break;
		case 'n':
			if (r.n_num < KLOG_FINDING_NUMS)
				r.num[r.n_num++] = c->num;
			break;
		default:
			break;
		}
	}
	if (r.module && r.module_len && quoted_phrase(e, mt, &r)) {
		r.module = NULL;
		r.module_len = 0;
	}
	if (r.module && r.module_len && r.module[0] != '(')
		module_last_word(&r);
	if ((e->flags & KLOG_FORMAT_MODULE_PATH) && r.module)
		module_of_path(&r);
	if ((e->flags & KLOG_FORMAT_ERRNO_TEXT) && r.text && !r.err)
		r.err = errno_of_text(r.text, r.text_len);
	if (r.kind == KLOG_FINDING_VMALLOC_ERROR && r.text && !loader_comm(r.text, r.text_len))
		r.kind = KLOG_FINDING_VMALLOC_OTHER;
	/* elf_validity_check() calls it "(missing .modinfo section or name field)" */
	if (r.module && r.module_len && r.module[0] == '(') {
		r.text = r.module;
		r.text_len = r.module_len;
		r.module = NULL;
		r.module_len = 0;
	}
	*ret = r;
}

/*
 * Whether a three-byte UTF-8 character (CJK, kana, full-width punctuation) ends right
 * before p: prose in those scripts has no blanks between words, so a name pasted into
 * it starts right after such a character (two Chinese characters, then "panel_x:
 * loading out-of-tree ...").
 */
static bool after_wide_char(const char *msg, const char *p)
{
	const unsigned char *u = (const unsigned char *)p;

	return p - msg >= 3 && (u[-3] & 0xf0) == 0xe0 && (u[-2] & 0xc0) == 0x80 &&
	       (u[-1] & 0xc0) == 0x80;
}

/* A name pasted into such prose: the module's name is what follows the last wide
 * character (a Chinese word, then "hello: loading ..." names hello), none when nothing
 * follows it */
static void module_after_wide_chars(struct klog_finding *r)
{
	for (size_t i = r->module_len; i >= 3; i--)
		if (after_wide_char(r->module, r->module + i)) {
			r->module += i;
			r->module_len -= i;
			if (!r->module_len)
				r->module = NULL;
			return;
		}
}

/*
 * Whether a name can be a module's: the kernel prints any name a module has, quotes and
 * escapes included (kmodtop escapes them on output), but a name with no letter or digit
 * ("…" for the name in a tutorial), with a paste's mask in it, or ending in the quote
 * whose opening module_last_word() cut ("***module" in quotes) is the reporter's.
 */
static bool module_name_chars(const char *s, size_t len)
{
	bool alnum = false;

	if (len && (s[len - 1] == '"' || s[len - 1] == '`'))
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '*')
			return false;
		if (isalnum((unsigned char)s[i]))
			alnum = true;
	}
	return alnum;
}

/* Module and symbol names are single words: "insmod: ERROR: ... Unknown symbol" is not */
static bool words(const struct klog_format_entry *e, const struct matcher *mt)
{
	for (unsigned int i = 0; e->slots[i] && i < MAX_CONV; i++)
		if ((e->slots[i] == 'm' || e->slots[i] == 's') &&
		    (memchr(mt->caps[i].s, ' ', mt->caps[i].len) || !mt->caps[i].len))
			return false;
	return true;
}

/* A reporter who cuts the timestamps of a dmesg writes an ellipsis in their brackets */
size_t klog_elided_time(const char *s, size_t len)
{
	if (len > 6 && s[0] == '[' && (!memcmp(s + 1, "...] ", 5) || !memcmp(s + 1, "\xe2\x80\xa6] ", 5)))
		return 6;
	return 0;
}

/* Markdown around a pasted line: "> ", "# ", "- ", "`...`", "**...**" */
const char *klog_skip_markup(const char *s, size_t *len)
{
	size_t n = *len;

	while (n && strchr("`>#*-", s[0])) {
		size_t k = 1;

		while (k < n && s[k] == s[0])
			k++;
		if (s[0] == '-' && (k >= n || s[k] != ' '))
			break;		/* "---[ end trace ]" and the like are the kernel's */
		while (k < n && s[k] == ' ')
			k++;
		s += k;
		n -= k;
	}
	while (n && (s[n - 1] == '`' || s[n - 1] == '*'))
		n--;
	/* a markdown table's row of one cell, "| insmod: error inserting ... | " */
	if (n > 4 && s[0] == '|' && s[1] == ' ') {
		size_t e = n;

		while (e > 2 && (s[e - 1] == ' ' || s[e - 1] == '\t'))
			e--;
		/* one cell: a row of more is a table's, not a pasted line */
		if (e > 4 && s[e - 1] == '|' && s[e - 2] == ' ' && !memmem(s + 2, e - 4, " | ", 3)) {
			for (e -= 2; e > 2 && s[e - 1] == ' '; e--)
				;
			s += 2;
			n = e - 2;
		}
	}
	/* a message quoted whole in prose: "insmod: error inserting ..." */
	if (n > 2 && s[0] == '"' && s[n - 1] == '"') {
		s++;
		n -= 2;
	}
	/* a markdown link that holds the line, "[638704](insmod: ERROR: ...)": its target
	 * unless that is an address, else its text */
	if (n > 4 && s[0] == '[' && s[n - 1] == ')') {
		const char *close = memchr(s, ']', n);

		if (close && close + 1 < s + n - 1 && close[1] == '(') {
			const char *t = close + 2;
			size_t tn = (size_t)(s + n - 1 - t);

			if (!memmem(t, tn, "://", 3)) {
				s = t;
				n = tn;
			} else {
				n = (size_t)(close - s - 1);
				s++;
			}
		}
	}
	*len = n;
	return s;
}

/*
 * Past syslog's tag, with or without the host before it, when no date is left of its
 * head ("[    9.910348] kernel: rapiddisk: ...", "archlinux kernel: **Lockdown: ..."):
 * neither is the module's name.
 */
static const char *skip_kernel_tag(const char *s, size_t *len)
{
	const char *sp;
	size_t n = *len;

	if (n > 8 && memcmp(s, "kernel: ", 8) == 0) {
		*len = n - 8;
		return s + 8;
	}
	sp = memchr(s, ' ', n);
	if (!sp || sp == s || memchr(s, ':', (size_t)(sp - s)) || memchr(s, '[', (size_t)(sp - s)))
		return s;
	if ((size_t)(s + n - sp) > 9 && memcmp(sp + 1, "kernel: ", 8) == 0) {
		*len = (size_t)(s + n - (sp + 9));
		return sp + 9;
	}
	return s;
}

/* ubox's syslog idents: its insmod logs as "kmod", kmodloader as itself */
static bool skip_ubox_ident(const char **msg, size_t *len)
{
	static const char *const idents[] = { "kmod: ", "kmodloader: " };

	for (size_t i = 0; i < ARRAY_SIZE(idents); i++) {
		size_t n = strlen(idents[i]);

		if (*len > n && memcmp(*msg, idents[i], n) == 0) {
			*msg += n;
			*len -= n;
			return true;
		}
	}
	return false;
}

/* A module file's name: "*.ko", compressed or not */
static bool ko_file(const char *s, size_t len)
{
	static const char *const ends[] = { ".ko", ".ko.gz", ".ko.xz", ".ko.zst" };

	for (size_t i = 0; i < ARRAY_SIZE(ends); i++) {
		size_t n = strlen(ends[i]);

		if (len > n && memcmp(s + len - n, ends[i], n) == 0)
			return true;
	}
	return false;
}

/* A 2.4 module's object file's name: "*.o" */
static bool obj_file(const char *s, size_t len)
{
	return len > 2 && s[len - 2] == '.' && s[len - 1] == 'o';
}

/* Whether @e matches @msg, all of it unless @flags has KLOG_FORMAT_PREFIX; then *ret
 * filled and *@stop (may be NULL) where the match ended */
static bool classify_entry_at(const struct klog_format_entry *e, const char *msg, size_t len,
			      unsigned int flags, struct klog_finding *ret, const char **stop)
{
	struct matcher mt;

	if (!may_match(e, msg, len))
		return false;
	memset(&mt, 0, sizeof(mt));
	mt.end = msg + len;
	mt.flags = e->flags | flags;
	if (!match(&mt, e->format, msg, 0))
		return false;
	if (stop)
		*stop = mt.stop;
	if ((e->flags & KLOG_FORMAT_WORDS) && !words(e, &mt))
		return false;
	if (e->flags & KLOG_FORMAT_KO_FILE) {
		const char *sl = strchr(e->slots, 'm');
		const struct capture *c = sl ? &mt.caps[sl - e->slots] : NULL;

		if (!c || !ko_file(c->s, c->len))
			return false;
	}
	if ((e->flags & KLOG_FORMAT_OBJ_FILE) && !obj_file(mt.caps[0].s, mt.caps[0].len))
		return false;
	if (e->text2_is) {
		size_t n = strlen(e->text2_is);
		const char *sl = strchr(e->slots, 'u');
		const struct capture *c = sl ? &mt.caps[sl - e->slots] : NULL;

		if (!c || c->len != n || memcmp(c->s, e->text2_is, n) != 0)
			return false;
	}
	fill(e, &mt, ret);
	/* libkmod's echo of each init_module() that failed, at kmod's INFO priority
	 * ("modprobe: INFO: Failed to insert module '%s': File exists" under modprobe -v):
	 * dependencies already live among them; a load that fails has the tool's ERROR line */
	if (e->kind == KLOG_FINDING_MODPROBE_ERROR &&
	    memmem(msg, len, "INFO: Failed to insert module '", 31)) {
		memset(ret, 0, sizeof(*ret));
		ret->kind = KLOG_FINDING_NONE;
		return false;
	}
	/* a loader names the alias it looked up when no module has it ("modprobe: module
	 * 'pci:v00008086d...' not found"): a bus alias is no module's name */
	if (e->kind == KLOG_FINDING_MODPROBE_ERROR && ret->module &&
	    memchr(ret->module, ':', ret->module_len)) {
		memset(ret, 0, sizeof(*ret));
		ret->kind = KLOG_FINDING_NONE;
		return false;
	}
	/* a printf format, not a log: the kernel's source quoted after its message */
	if (ret->module && ret->module_len && ret->module[0] == '%') {
		memset(ret, 0, sizeof(*ret));
		ret->kind = KLOG_FINDING_NONE;
		return false;
	}
	if (ret->module)
		module_after_wide_chars(ret);
	/* a placeholder or a masked name names no module; the finding stays */
	if (ret->module && !module_name_chars(ret->module, ret->module_len)) {
		ret->module = NULL;
		ret->module_len = 0;
	}
	/* the kernel names a module by its name, never a path: a word with a '/' is the
	 * text a console interleaved before the name ("serting '/lib/scjbd: version ...") */
	if (e->kind != KLOG_FINDING_MODPROBE_ERROR && e->kind != KLOG_FINDING_UDEV_WORKER_TIMEOUT &&
	    ret->module && memchr(ret->module, '/', ret->module_len)) {
		memset(ret, 0, sizeof(*ret));
		ret->kind = KLOG_FINDING_NONE;
		return false;
	}
	return true;
}

/* Whether @e matches all of @msg; then *ret filled */
static bool classify_entry(const struct klog_format_entry *e, const char *msg, size_t len,
			   struct klog_finding *ret)
{
	return classify_entry_at(e, msg, len, 0, ret, NULL);
}

/*
 * A kernel line retyped without the colon after the module's name ("iscsi_trgt
 * disagrees about version of symbol module_layout"): read as "name: rest" only when
 * the first word can be a module's name (lower case, digits, '_', '-': no sentence's
 * first word) and the rest is a whole kernel wording that follows the name's "%s: ".
 */
static int classify_without_colon(const char *msg, size_t len, struct klog_finding *ret)
{
	char buf[MSG_MAX + 1];
	bool letter = false;
	size_t w;

	for (w = 0; w < len; w++) {
		char c = msg[w];

		if (c >= 'a' && c <= 'z')
			letter = true;
		else if (!((c >= '0' && c <= '9') || c == '_' || c == '-'))
			break;
	}
	if (!letter || w == len || msg[w] != ' ' || w + 1 == len || msg[w + 1] == ' ')
		return 0;
	memcpy(buf, msg, w);
	buf[w] = ':';
	memcpy(buf + w + 1, msg + w, len - w);
	for (size_t i = 0; i < klog_wordings_n; i++) {
		const struct klog_format_entry *e = &klog_wordings[i];
		const char **p[4] = { &ret->module, &ret->symbol, &ret->text, &ret->text2 };

		/* the name's "%s: ", then words, not another conversion */
		if (strncmp(e->format, "%s: ", 4) != 0 || e->slots[0] != 'm' ||
		    e->format[4] == '%' || (e->flags & KLOG_FORMAT_PREFIX) ||
		    e->kind == KLOG_FINDING_MODPROBE_ERROR ||
		    e->kind == KLOG_FINDING_UDEV_WORKER_TIMEOUT)
			continue;
		if (!classify_entry(e, buf, len + 1, ret))
			continue;
		/* back into the message: past the name, one byte less */
		for (size_t k = 0; k < ARRAY_SIZE(p); k++)
			if (*p[k]) {
				size_t off = (size_t)(*p[k] - buf);

				*p[k] = msg + (off <= w ? off : off - 1);
			}
		return 1;
	}
	memset(ret, 0, sizeof(*ret));
	ret->kind = KLOG_FINDING_NONE;
	return 0;
}

/*
 * Two kernel sentences no other text says, quoted whole in prose, a title or inline
 * code, with the module's "%s: " before them or without it ("... one: Loading
 * out-of-tree module taints kernel.  Is this ...", "` module verification failed:
 * signature and/or  required key missing - tainting kernel`"): the taint and the
 * missing signature, of that module or of none named.
 */
static int classify_kernel_phrase(const char *msg, size_t len, struct klog_finding *ret)
{
	static const struct {
		const char *phrase;	/* from its first word's second letter */
		const char *before;	/* what must come before it on the line, or NULL */
		enum klog_finding_kind kind;
	} phrases[] = {
		{ "oading out-of-tree module taints kernel", NULL, KLOG_FINDING_TAINT },
		{ "required key missing - tainting kernel", "odule verification failed: signature and/or ",
		  KLOG_FINDING_SIG_MISSING },
	};
	const char *at = NULL, *start, *name, *end = msg + len;
	size_t i = ARRAY_SIZE(phrases);

	/* the first on the line; the rest of the line may hold the other (->rest) */
	for (size_t k = 0; k < ARRAY_SIZE(phrases); k++) {
		const char *p = memmem(msg, at ? (size_t)(at - msg) : len, phrases[k].phrase,
				       strlen(phrases[k].phrase));

		if (p) {
			at = p;
			i = k;
		}
	}
	if (!at)
		return 0;
	if (phrases[i].before) {
		size_t bn = strlen(phrases[i].before);

		/* 3.13-3.16 print two blanks before "required" */
		start = at - bn - (at - msg > (ptrdiff_t)bn && at[-1] == ' ' && at[-2] == ' ');
		if (start <= msg || memcmp(start, phrases[i].before, bn - 1))
			return 0;
		start--;
		if ((*start | 0x20) != 'm')
			return 0;
	} else {
		start = at - 1;
		if (start < msg || (*start | 0x20) != 'l')
			return 0;
	}
	/* a word's start: after a blank or a mark, not glued to another word */
	if (start > msg && (isalnum((unsigned char)start[-1]) || start[-1] == '_'))
		return 0;
	memset(ret, 0, sizeof(*ret));
	ret->kind = phrases[i].kind;
	if (at + strlen(phrases[i].phrase) < end)
		ret->rest = at + strlen(phrases[i].phrase);
	for (size_t k = 0; k < klog_wordings_n; k++)
		if (klog_wordings[k].kind == ret->kind &&
		    strstr(klog_wordings[k].format, phrases[i].phrase)) {
			ret->format = klog_wordings[k].format;
			ret->source = klog_wordings[k].source;
			ret->err = klog_wordings[k].err;
			break;
		}
	/* the module's "%s: " right before, when there is one */
	if (start - msg > 2 && start[-1] == ' ' && start[-2] == ':') {
		for (name = start - 2; name > msg && (isalnum((unsigned char)name[-1]) ||
						      name[-1] == '_' || name[-1] == '-'); name--)
			;
		/* at the line's start, after a quote's mark or a time's "] ": not prose's
		 * last word before a colon ("except for one: Loading ...") */
		if (name < start - 2 && (name == msg || strchr("`\"'(", name[-1]) ||
					 (name - msg > 1 && name[-1] == ' ' && name[-2] == ']') ||
					 after_wide_char(msg, name))) {
			ret->module = name;
			ret->module_len = (size_t)(start - 2 - name);
		}
	}
	return 1;
}

/* kmod's "Module %s not found in directory %s" after its priority: a one-word name and
 * the module directory, an absolute path */
static bool names_module_dir(const char *s, size_t len)
{
	const char *sp, *dir;

	if (len < 8 || memcmp(s, "Module ", 7) != 0 || !(sp = memchr(s + 7, ' ', len - 7)) ||
	    sp == s + 7)
		return false;
	dir = sp + 24;
	return dir < s + len && memcmp(sp, " not found in directory /", 25) == 0;
}

/*
 * kmod's "Module %s not found in directory %s" cut short after the module's name (a
 * journal shown at a terminal's width: "... modprobe: FATAL: Module tun not found in
 * direct"): read as the whole wording when what is left is a beginning of it.
 */
static int classify_cut_not_found(const char *msg, size_t len, struct klog_finding *ret)
{
	static const char *const heads[] = { "modprobe: FATAL: Module ",
					     "modprobe: WARNING: Module " };
	static const char tail[] = " not found in directory /";
	char buf[MSG_MAX + sizeof(tail)];
	const char *name, *sp;
	size_t h, rest;

	for (h = 0; h < ARRAY_SIZE(heads); h++)
		if (len > strlen(heads[h]) && memcmp(msg, heads[h], strlen(heads[h])) == 0)
			break;
	if (h == ARRAY_SIZE(heads))
		return 0;
	name = msg + strlen(heads[h]);
	sp = memchr(name, ' ', (size_t)(msg + len - name));
	if (!sp || sp == name)
		return 0;
	rest = (size_t)(msg + len - sp);
	/* " not found" at least, and no more than a beginning of the tail */
	if (rest < 10 || rest >= sizeof(tail) - 1 || memcmp(sp, tail, rest) != 0)
		return 0;
	memcpy(buf, msg, len);
	memcpy(buf + len, tail + rest, sizeof(tail) - 1 - rest);
	buf[len + sizeof(tail) - 1 - rest] = 'x';
	for (size_t k = 0; k < klog_wordings_n; k++)
		if (klog_wordings[k].kind == KLOG_FINDING_MODPROBE_ERROR &&
		    classify_entry(&klog_wordings[k], buf, len + sizeof(tail) - rest, ret) && ret->module) {
			/* back into the message: the name is before the cut; the directory is not */
			ret->module = msg + (ret->module - buf);
			ret->text = NULL;
			ret->text_len = 0;
			return 1;
		}
	memset(ret, 0, sizeof(*ret));
	ret->kind = KLOG_FINDING_NONE;
	return 0;
}

/*
 * How much of @s a quote holds: up to its closing mark (ASCII or typographic double
 * quote, a backtick, a CJK corner bracket or full stop), or all of it
 */
static size_t quoted_len(const char *s, size_t len)
{
	static const char *const closing[] = {
		"\"", "`", "\xe2\x80\x9d", "\xe3\x80\x8d", "\xe3\x80\x82",
	};
	size_t n = len;

	for (size_t i = 0; i < ARRAY_SIZE(closing); i++) {
		const char *c = memmem(s, n, closing[i], strlen(closing[i]));

		if (c)
			n = (size_t)(c - s);
	}
	return n;
}

/*
 * An insmod's error retyped without its program's words, after other words:
 * - kmod's "could not insert module %s: %s" without its "insmod: ERROR: " ("I get the
 *   error: could not insert module usbtv.ko: ...") or with a sentence's capital
 *   ("ERROR: Could not insert module 88x2bu.ko: ..."), after a blank;
 * - module-init-tools' "error inserting '%s': %li %s" without its "insmod: " or with a
 *   capital, after any mark that is no letter or digit (a blank, a quote, full-width
 *   ones too: "... \u201cError inserting './xxx.ko': -1 Invalid module format\u201d").
 * Read from those words as the loader's wording of a module file (*.ko).
 */
static int classify_retyped_insmod(const char *msg, size_t len, struct klog_finding *ret)
{
	static const struct {
		const char *words;	/* from the second letter of the wording's first word */
		const char *head;	/* what the wording has before that letter */
		bool any_mark;		/* after any mark, or only after a blank */
		unsigned int flags;	/* the wording's, beyond KLOG_FORMAT_MODULE_PATH */
	} retyped[] = {
		{ "ould not insert module ", "c", false, KLOG_FORMAT_KO_FILE },
		{ "rror inserting '", "insmod: e", true, KLOG_FORMAT_ERRNO_TEXT },
	};
	char buf[MSG_MAX + 16];
	const char **p[4] = { &ret->module, &ret->symbol, &ret->text, &ret->text2 };

	for (size_t w = 0; w < ARRAY_SIZE(retyped); w++) {
		const char *words = retyped[w].words, *head = retyped[w].head;
		size_t wn = strlen(words), hn = strlen(head);

		for (const char *at = memmem(msg, len, words, wn); at;
		     at = memmem(at + wn, (size_t)(msg + len - at) - wn, words, wn)) {
			const char *s = at - 1;
			size_t n;

			if (s < msg || (*s | 0x20) != head[hn - 1])
				continue;
			if (s > msg && (retyped[w].any_mark ? isalnum((unsigned char)s[-1]) : s[-1] != ' '))
				continue;
			n = (size_t)(msg + len - at);
			/* a module file's path, as a retyped line names it: "'./xxx.ko': "; a
			 * markdown table's row is read cell by cell, not here */
			if (retyped[w].any_mark) {
				const char *ko = memmem(at, n, ".ko': ", 6);

				if (!ko || *msg == '|')
					continue;
				n = (size_t)(ko - at) + quoted_len(ko, (size_t)(msg + len - ko));
			}
			memcpy(buf, head, hn);
			memcpy(buf + hn, at, n);
			for (size_t k = 0; k < klog_wordings_n; k++)
				if (klog_wordings[k].kind == KLOG_FINDING_MODPROBE_ERROR &&
				    (klog_wordings[k].flags & retyped[w].flags) &&
				    !strncmp(klog_wordings[k].format, head, hn) &&
				    !strncmp(klog_wordings[k].format + hn, words, wn) &&
				    classify_entry(&klog_wordings[k], buf, hn + n, ret) &&
				    /* a hand copy says an errno's words, not just any */
				    (!retyped[w].any_mark || ret->err)) {
					/* back into the message */
					for (size_t j = 0; j < ARRAY_SIZE(p); j++)
						if (*p[j])
							*p[j] = at + (*p[j] - (buf + hn));
					return 1;
				}
		}
	}
	return 0;
}

/*
 * kmod's stderr line inside another line: after another program's words (Bottlerocket's
 * driverdog, "... failed - stderr: modprobe: ERROR: ..."), after an ident in a kernel
 * record ("driverdog[2088]: modprobe: ERROR: ..."), or in inline code mid-sentence ("and
 * `modprobe: ERROR: could not insert 'x': ...`."). kmod's program and priority words
 * ("%s: %s: %s", tools/log.c) mark it; only a loader's wording is read from there.
 */
static int classify_quoted_loader(const char *msg, size_t len, struct klog_finding *ret);

/*
 * classify_quoted_loader(), and where a strerror() text the loader's line ends with is
 * followed by other words, the line cut after it: the rest is prose, which may quote
 * another line (->rest).
 */
static int classify_quoted_loader_cut(const char *msg, size_t len, struct klog_finding *ret)
{
	size_t n;
	int err;

	if (!classify_quoted_loader(msg, len, ret))
		return 0;
	if (!ret->err && ret->text && ret->text + ret->text_len == msg + len &&
	    (n = errno_text_head(ret->text, ret->text_len, &err))) {
		ret->err = err;
		ret->text_len = n;
		ret->rest = ret->text + n;
	}
	return 1;
}

/*
 * kmod's line retyped with its priority mangled: in lower case, priority and all
 * ("modprobe: error: could not insert '8192eu': invalid argument"), or without the
 * colon after it ("modprobe: ERROR could not insert 'bnxt_en': Exec format error");
 * tools/log.c prints "%s: ERROR: ". Read from kmod's own words after the priority, as
 * the line retyped without its program's words.
 */
static int classify_retyped_priority(const char *msg, size_t len, struct klog_finding *ret)
{
	static const struct {
		const char *head;
		size_t kept;		/* its last bytes that are the wording's own */
	} heads[] = {
		{ "modprobe: error: ", 0 },
		{ "insmod: error: ", 0 },
		/* only before "could not insert", whose quoted name or path marks it */
		{ "modprobe: ERROR could not insert ", 17 },
		{ "insmod: ERROR could not insert ", 17 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(heads); i++) {
		size_t hn = strlen(heads[i].head);
		const char *at = memmem(msg, len, heads[i].head, hn);

		if (!at || (at > msg && isalnum((unsigned char)at[-1])))
			continue;
		at += hn - heads[i].kept;
		for (size_t k = 0; k < klog_wordings_n; k++)
			if (klog_wordings[k].kind == KLOG_FINDING_MODPROBE_ERROR &&
			    !strncmp(klog_wordings[k].format, "could not insert ", 17) &&
			    classify_entry(&klog_wordings[k], at, (size_t)(msg + len - at), ret))
				return 1;
	}
	return 0;
}

/* Whether @s follows a "\n" written out in two characters, a backslash and an 'n' */
static bool escaped_newline_before(const char *msg, const char *s)
{
	return s - msg >= 2 && s[-2] == '\\' && s[-1] == 'n';
}

/*
 * Whether a loader's line quoted after other words may start at @s, its program's name:
 * after a blank or a quote's mark; after a status's "..." that a script printed without
 * its newline ("Configuring device ...modprobe: FATAL: ..."); or after the "\n" another
 * program wrote for a newline it escaped (Go's %q, logrus, JSON: "...'\nmodprobe: ...")
 */
static bool quoted_loader_starts(const char *msg, const char *s)
{
	if (strchr(" `\"'*_(", s[-1]))
		return true;
	if (s - msg >= 3 && memcmp(s - 3, "...", 3) == 0)
		return true;
	return escaped_newline_before(msg, s);
}

static int classify_quoted_loader(const char *msg, size_t len, struct klog_finding *ret)
{
	static const char *const prio[] = { ": ERROR: ", ": FATAL: ", ": WARNING: ",
					    ": can't change directory to '" };
	static const char *const progs[] = { "modprobe", "insmod" };
	static const char *const mit[] = { " FATAL: Error ", " WARNING: Error " };
	bool prog = true;

	/* kmod's FATAL lines ("Module %s not found.") read like any program's sentence:
	 * only in inline code, or the one that names the module directory; its ERROR lines
	 * quote the module; busybox's xchdir() line is its own words */
	for (size_t i = 0; i < ARRAY_SIZE(prio); i++) {
		/* each follows a program's name: most lines hold neither, one search each */
		if (i == 0 && !memmem(msg, len, "modprobe: ", 10) && !memmem(msg, len, "insmod: ", 8)) {
			prog = false;
			break;
		}
		size_t plen = strlen(prio[i]);
		const char *at = memmem(msg, len, prio[i], plen);

		for (size_t j = 0; at && j < ARRAY_SIZE(progs); j++) {
			size_t pn = strlen(progs[j]), n;
			const char *s = at - pn, *close;

			if (s <= msg || memcmp(s, progs[j], pn) != 0 || !quoted_loader_starts(msg, s) ||
			    ((i == 1 || i == 2) && s[-1] != '`' &&
			     !names_module_dir(at + plen, (size_t)(msg + len - at) - plen)))
				continue;
			n = (size_t)(msg + len - s);
			/* inline code: up to its closing mark */
			if (s[-1] == '`' && (close = memchr(s, '`', n)))
				n = (size_t)(close - s);
			/* an escaped newline's line: up to the next one */
			else if (escaped_newline_before(msg, s) && (close = memmem(s, n, "\\n", 2)))
				n = (size_t)(close - s);
			for (size_t k = 0; k < klog_wordings_n; k++)
				if (klog_wordings[k].kind == KLOG_FINDING_MODPROBE_ERROR &&
				    classify_entry(&klog_wordings[k], s, n, ret))
					return 1;
		}
	}
	/* module-init-tools' modprobe names no program: its "FATAL: Error ..." lines (the
	 * wordings that name the module) after other words, a shell's command and its
	 * output pasted on one line ("$ sudo modprobe wl FATAL: Module wl not found.
	 * FATAL: Error running install command for wl") */
	for (size_t i = 0; i < ARRAY_SIZE(mit); i++) {
		size_t plen = strlen(mit[i]);

		for (const char *at = memmem(msg, len, mit[i], plen); at;
		     at = memmem(at + plen, (size_t)(msg + len - at) - plen, mit[i], plen))
			for (size_t k = 0; k < klog_wordings_n; k++)
				if (klog_wordings[k].kind == KLOG_FINDING_MODPROBE_ERROR &&
				    !strncmp(klog_wordings[k].format, mit[i] + 1, plen - 1) &&
				    classify_entry(&klog_wordings[k], at + 1, (size_t)(msg + len - at) - 1, ret))
					return 1;
	}
	if (prog && classify_retyped_priority(msg, len, ret))
		return 1;
	if (classify_retyped_insmod(msg, len, ret))
		return 1;
	/* kmod's "%s: ERROR: " cut before the priority, as prose quotes it ("fails with:
	 * "ERROR: could not insert 'x': Exec format error""): its quoted name the mark */
	if (len > 25 && !memcmp(msg, "ERROR: could not insert '", 25))
		for (size_t k = 0; k < klog_wordings_n; k++)
			if (klog_wordings[k].kind == KLOG_FINDING_MODPROBE_ERROR &&
			    !strncmp(klog_wordings[k].format, "could not insert '", 18) &&
			    classify_entry(&klog_wordings[k], msg + 7, len - 7, ret))
				return 1;
	memset(ret, 0, sizeof(*ret));
	ret->kind = KLOG_FINDING_NONE;
	return 0;
}

/*
 * Past a syslog priority, "<4>", left before a message with no timestamp (busybox's
 * dmesg, dmesg -r on a kernel without printk times): not part of the module's name.
 */
static const char *skip_level_prefix(const char *s, size_t *len)
{
	size_t n = *len, k = 1;

	if (n < 4 || s[0] != '<')
		return s;
	while (k < n && k <= 3 && s[k] >= '0' && s[k] <= '9')
		k++;
	if (k == 1 || k >= n || s[k] != '>')
		return s;
	*len = n - k - 1;
	return s + k + 1;
}

/*
 * A line of a quoted-printable mail body kept undecoded ends with the encoding's mark
 * for a hard line end: "=20" (a trailing space the encoding protects) or "=0A" (an
 * encoded newline), the latter followed by a soft break's '='. The length without it,
 * or @len when the line has none.
 */
static size_t qp_line_end(const char *s, size_t len)
{
	size_t n = len;

	if (n > 4 && memcmp(s + n - 4, "=0A=", 4) == 0)
		n -= 4;
	else if (n > 3 && (memcmp(s + n - 3, "=0A", 3) == 0 || memcmp(s + n - 3, "=20", 3) == 0))
		n -= 3;
	else
		return len;
	while (n && s[n - 1] == ' ')
		n--;
	return n;
}

/*
 * A line quoted inside prose whose parenthesis the prose closes after the kernel's own
 * ("(with error:" on the line before, "... (err 0))"): the length without the prose's
 * ')', or @len.
 */
static size_t prose_unquoted(const char *s, size_t len)
{
	size_t open = 0, close = 0;

	if (len > 2 && s[len - 1] == ')') {
		for (size_t i = 0; i < len; i++) {
			open += s[i] == '(';
			close += s[i] == ')';
		}
		return close > open ? len - 1 : len;
	}
	return len;
}

/*
 * A line padded with blanks after its text: a serial console's line filled out to the
 * terminal's width, a paste's trailing spaces. No wording kmodtop reads ends in a
 * blank, and a '%s' at a wording's end would take them in (a strerror() text no longer
 * mapped back to its errno). The length without them.
 */
static size_t padded_end(const char *s, size_t len)
{
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	return len;
}

static int classify_line(const char *msg, size_t len, struct klog_finding *ret);

/*
 * A message quoted in double quotes mid-sentence ('fails with: "ERROR: could not insert
 * 'x': Exec format error". dmesg shows: "module: x86/modules: Skipping ..."'): each
 * quoted text read as a line, the first that holds a finding. Only a quote opened
 * after a blank and closed before a blank, punctuation or the line's end, and holding
 * the ": " every wording kmodtop reads has after a name or a program (an audit
 * record's comm="x" or a path in quotes is none).
 */
static int classify_prose_quote(const char *msg, size_t len, struct klog_finding *ret)
{
	const char *p = msg, *end = msg + len, *q, *close;

	while (p < end && (p = memchr(p, '"', (size_t)(end - p)))) {
		q = p + 1;
		close = memchr(q, '"', (size_t)(end - q));
		if (!close)
			break;
		if (p > msg && p[-1] == ' ' && close - q > 8 &&
		    (close + 1 == end || memchr(" .,;:)", close[1], 6)) &&
		    memmem(q, (size_t)(close - q), ": ", 2) &&
		    classify_line(q, (size_t)(close - q), ret)) {
			/* the prose may quote another line after this one */
			ret->rest = close + 1 < end ? close + 1 : NULL;
			return 1;
		}
		p = close + 1;
	}
	memset(ret, 0, sizeof(*ret));
	ret->kind = KLOG_FINDING_NONE;
	return 0;
}

/*
 * A line a blog or a word processor typeset: its quotes turned into typographic ones,
 * U+2018/U+2019 for ' and U+201C/U+201D for " (busybox's "insmod: can't insert
 * '%s': %s" with them), three bytes of UTF-8 each. Read, when it is no finding as it
 * stands, with ASCII quotes; the finding's spans are mapped back into @msg.
 */
static int classify_typeset_quotes(const char *msg, size_t len, struct klog_finding *ret)
{
	char buf[MSG_MAX + 1];
	size_t at[MSG_MAX / 3 + 1], nat = 0, n = 0;
	const char **p[4] = { &ret->module, &ret->symbol, &ret->text, &ret->text2 };
	size_t *pl[4] = { &ret->module_len, &ret->symbol_len, &ret->text_len, &ret->text2_len };

	if (len > MSG_MAX || !memmem(msg, len, "\xe2\x80", 2))
		return 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = i + 2 < len && (unsigned char)msg[i] == 0xe2 &&
				  (unsigned char)msg[i + 1] == 0x80 ? (unsigned char)msg[i + 2] : 0;

		if (c == 0x98 || c == 0x99 || c == 0x9c || c == 0x9d) {
			at[nat++] = n;
			buf[n++] = c <= 0x99 ? '\'' : '"';
			i += 2;
		} else {
			buf[n++] = msg[i];
		}
	}
	if (!nat || !classify_line(buf, n, ret))
		return 0;
	for (size_t k = 0; k < ARRAY_SIZE(p); k++)
		if (*p[k]) {
			size_t off = (size_t)(*p[k] - buf), end = off + *pl[k], a = 0, b = 0;

			for (size_t j = 0; j < nat; j++) {
				a += at[j] < off;
				b += at[j] < end;
			}
			*p[k] = msg + off + 2 * a;
			*pl[k] = end + 2 * b - (off + 2 * a);
		}
	return 1;
}

/*
 * dmesg's time "[%5lu.%06lu] " at @p, ending before @end: the length up to the message
 * after it, or 0. Followed by a word, as a record's message starts: a time in a
 * message's own words is seldom so.
 */
static size_t dmesg_time_at(const char *p, const char *end)
{
	const char *q = p + 1, *dot;

	if (end - p < 12 || *p != '[')
		return 0;
	while (q < end && *q == ' ')
		q++;
	dot = q;
	while (dot < end && isdigit((unsigned char)*dot))
		dot++;
	if (dot == q || end - dot < 10 || *dot != '.')
		return 0;
	for (int i = 1; i <= 6; i++)
		if (!isdigit((unsigned char)dot[i]))
			return 0;
	if (dot[7] != ']' || dot[8] != ' ' || dot[9] == ' ')
		return 0;
	return (size_t)(dot + 9 - p);
}

/*
 * The start of a syslog or journal head ("Mon DD HH:MM:SS host ", an ISO time, a month
 * in any of the locales dmesg_syslog_head() reads) that ends right before @at, its
 * "kernel: ", after a blank; or NULL. The head is at most a line's worth before it.
 */
#define SYSLOG_HEAD_MAX 96
static const char *syslog_head_before(const char *msg, const char *at)
{
	const char *lim = at - msg > SYSLOG_HEAD_MAX ? at - SYSLOG_HEAD_MAX : msg;

	for (const char *h = at - 1; h >= lim; h--)
		if ((h == msg || h[-1] == ' ') && h[0] != ' ' &&
		    dmesg_syslog_head(h, (size_t)(at + 8 - h)) == (size_t)(at - h))
			return h;
	return NULL;
}

/*
 * Another record's head after a message on the same line: a terminal or a mail client
 * lost the line break between two records ("... dvb_dmxdev_init Oct 18 23:08:01 host
 * kernel: [ 7590.369228] em28xx_dvb: Unknown symbol ..."). Syslog's head with the
 * kernel's tag, or dmesg's time, after a blank. The length of the first record's
 * message, *@next where the next one's starts; 0 when there is none.
 */
static size_t next_record_head(const char *msg, size_t len, size_t *next)
{
	const char *end = msg + len, *p, *head = NULL, *after = NULL;
	size_t t;

	for (p = msg; (p = memchr(p, '[', (size_t)(end - p))); p++)
		if (p > msg + 1 && p[-1] == ' ' && (t = dmesg_time_at(p, end))) {
			head = p;
			after = p + t;
			break;
		}
	/* a syslog head before the time, or without one, before the first time */
	for (p = msg; (p = memmem(p, (size_t)((head ? head : end) - p), "kernel: ", 8)); p += 8) {
		const char *h = syslog_head_before(msg, p);

		if (!h)
			continue;
		if (!head || p + 8 != head)
			after = p + 8;
		head = h;
		break;
	}
	if (!head)
		return 0;
	while (head > msg && head[-1] == ' ')
		head--;
	if (after == end)
		return 0;
	/* a message before it, not a paste's markup ("| Jun 4 22:07:54 host kernel: ") */
	for (p = msg; p < head && !isdigit((unsigned char)*p) && !((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z');
	     p++)
		;
	if (p == head)
		return 0;
	*next = (size_t)(after - msg);
	return (size_t)(head - msg);
}

int klog_classify(const char *msg, size_t len, struct klog_finding *ret)
{
	size_t n, next;
	int r;

	if (msg) {
		while (len && (msg[len - 1] == '\n' || msg[len - 1] == '\r'))
			len--;
		len = padded_end(msg, len);
	}
	/* two records run together: each on its own, the first that has a finding */
	if (msg && len <= MSG_MAX && (n = next_record_head(msg, len, &next))) {
		if (klog_classify(msg, n, ret)) {
			if (!ret->rest)
				ret->rest = msg + next;
			return 1;
		}
		return klog_classify(msg + next, len - next, ret);
	}
	r = classify_line(msg, len, ret);
	/* the line as it stands first: a kernel line that ends in "=20" stays as it is */
	if (r || !msg)
		return r;
	if ((n = qp_line_end(msg, len)) != len && n)
		return classify_line(msg, n, ret);
	if ((n = prose_unquoted(msg, len)) != len && n && classify_line(msg, n, ret))
		return 1;
	if (classify_typeset_quotes(msg, len, ret))
		return 1;
	/* a line of a patch or diff, '+' before it (a log quoted in a commit message, a
	 * test's expected output): read past the mark; the wording must match all the same */
	if (len > 1 && msg[0] == '+' && msg[1] != '+' && msg[1] != ' ' &&
	    classify_line(msg + 1, len - 1, ret))
		return 1;
	return classify_prose_quote(msg, len, ret);
}

/*
 * A kernel wording at the start of @msg (after the name before it), ended by a
 * sentence rather than the line's end: prose after a quoted line goes on ("...
 * kernel.log: module: nvidia: Unknown rela relocation: 4 The common cause ..."). Only
 * wordings that end in their own words or a number (a final "%s" would take nothing),
 * and only before a blank and a capital, a '.' or the end.
 */
static int classify_sentence_head(const char *msg, size_t len, struct klog_finding *ret)
{
	const char *end = msg + len, *stop;

	for (size_t i = 0; i < klog_wordings_n; i++) {
		const struct klog_format_entry *e = &klog_wordings[i];
		size_t fl = strlen(e->format);

		if (e->kind == KLOG_FINDING_MODPROBE_ERROR || (e->flags & KLOG_FORMAT_PREFIX) ||
		    (fl > 2 && e->format[fl - 1] == '\n' && e->format[fl - 2] == 's' &&
		     e->format[fl - 3] == '%') || (fl > 1 && e->format[fl - 1] == 's' &&
						   e->format[fl - 2] == '%'))
			continue;
		if (!classify_entry_at(e, msg, len, KLOG_FORMAT_PREFIX | MATCH_SENTENCE, ret, &stop) ||
		    !stop)
			continue;
		if (stop == end || *stop == '.' ||
		    (*stop == ' ' && stop + 1 < end && stop[1] >= 'A' && stop[1] <= 'Z')) {
			ret->rest = stop < end ? stop : NULL;
			return 1;
		}
	}
	memset(ret, 0, sizeof(*ret));
	ret->kind = KLOG_FINDING_NONE;
	return 0;
}

int klog_classify_rest(const char *msg, size_t len, struct klog_finding *ret)
{
	if (klog_classify(msg, len, ret))
		return 1;
	if (!msg || len > MSG_MAX)
		return 0;
	while (len && (msg[len - 1] == '\n' || msg[len - 1] == '\r'))
		len--;
	while (len && (*msg == ' ' || *msg == '\t')) {
		msg++;
		len--;
	}
	return len ? classify_sentence_head(msg, len, ret) : 0;
}

static int classify_line(const char *msg, size_t len, struct klog_finding *ret)
{
	size_t i;

	/* "not a finding" is an answer too: callers may look at ret->kind alone */
	memset(ret, 0, sizeof(*ret));
	ret->kind = KLOG_FINDING_NONE;
	if (!msg)
		return 0;
	if (len == 0 || len > MSG_MAX)
		return 0;
	/* a line a paste indented (a markdown code block of four spaces) */
	while (len && (*msg == ' ' || *msg == '\t')) {
		msg++;
		len--;
	}
	msg = skip_kernel_tag(msg, &len);
	msg = klog_skip_markup(msg, &len);
	msg = skip_level_prefix(msg, &len);
	if (len == 0)
		return 0;
	for (i = 0; i < klog_wordings_n; i++)
		if (classify_entry(&klog_wordings[i], msg, len, ret))
			return 1;
	if (skip_ubox_ident(&msg, &len))
		for (i = 0; i < klog_wordings_n; i++)
			if (!strncmp(klog_wordings[i].source, "ubox ", 5) &&
			    classify_entry(&klog_wordings[i], msg, len, ret))
				return 1;
	if (classify_cut_not_found(msg, len, ret))
		return 1;
	if (classify_quoted_loader_cut(msg, len, ret))
		return 1;
	if (classify_without_colon(msg, len, ret))
		return 1;
	return classify_kernel_phrase(msg, len, ret);
}

/*
 * Kernel lines about modules that are no finding: they make a paste a kernel log (read,
 * not refused as "nothing to analyse") and say nothing of a load's outcome.
 */
static const char *const module_lines[] = {
	/* kernel/module_signing.c (3.7-4.2): a signature by a key the kernel lacks */
	"Request for unknown module key '%s' err %ld",
	/* security/lockdown/lockdown.c lock_kernel_down() (5.4+; the distributions'
	 * lockdown patches before): from here on unsigned modules are refused */
	"Kernel is locked down from %s; see man kernel_lockdown.7",
	/* NVIDIA's module (nv.c): its user-space libraries and it disagree, the first of
	 * four lines */
	"NVRM: API mismatch: the client has the version %s, but",
};

bool klog_module_line(const char *msg, size_t len)
{
	while (len && (msg[len - 1] == '\n' || msg[len - 1] == '\r'))
		len--;
	if (len == 0 || len > MSG_MAX)
		return false;
	msg = skip_kernel_tag(msg, &len);
	msg = klog_skip_markup(msg, &len);
	msg = skip_level_prefix(msg, &len);
	for (size_t i = 0; i < ARRAY_SIZE(module_lines); i++) {
		struct matcher mt = { .end = msg + len };

		if (match(&mt, module_lines[i], msg, 0))
			return true;
	}
	return false;
}

/* How many decimal digits @s starts with */
static size_t digits(const char *s, size_t len)
{
	size_t n = 0;

	while (n < len && s[n] >= '0' && s[n] <= '9')
		n++;
	return n;
}

static bool is_lower_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* @s[0..len) starts with exactly @n lower-case hex digits, as "%02x" prints them */
static bool hex_digits(const char *s, size_t len, size_t n)
{
	if (len < n || (len > n && is_lower_hex(s[n])))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_lower_hex(s[i]))
			return false;
	return true;
}

/*
 * lib/dump_stack.c's "CPU: %d PID: %d Comm: %.20s ..." (3.10 on; 6.11 added "UID: %u "
 * after the CPU): the head of every oops, warning and lockdep splat
 */
static bool dump_stack_line(const char *s, size_t len)
{
	static const char *const words[] = { "CPU: ", " UID: ", " PID: " };
	size_t n;

	for (size_t i = 0; i < ARRAY_SIZE(words); i++) {
		size_t w = strlen(words[i]);

		if (len < w || memcmp(s, words[i], w)) {
			if (i == 1)
				continue;	/* before 6.11: no UID */
			return false;
		}
		s += w;
		len -= w;
		n = digits(s, len);
		if (!n)
			return false;
		s += n;
		len -= n;
	}
	return len > 7 && !memcmp(s, " Comm: ", 7);
}

/*
 * dev_printk()'s "%s %s: " of a PCI device: the driver's name, then the device's,
 * "%04x:%02x:%02x.%d" (drivers/pci/probe.c's pci_setup_device())
 */
static bool pci_device_line(const char *s, size_t len)
{
	const char *sp = memchr(s, ' ', len < 64 ? len : 64);
	size_t at;

	if (!sp || sp == s)
		return false;
	for (const char *c = s; c < sp; c++)
		if (!(*c >= 'a' && *c <= 'z') && !(*c >= 'A' && *c <= 'Z') &&
		    !(*c >= '0' && *c <= '9') && *c != '_' && *c != '-')
			return false;
	at = (size_t)(sp - s) + 1;
	s += at;
	len -= at;
	return hex_digits(s, len, 4) && len > 13 && s[4] == ':' && hex_digits(s + 5, len - 5, 2) &&
	       s[7] == ':' && hex_digits(s + 8, len - 8, 2) && s[10] == '.' && s[11] >= '0' &&
	       s[11] <= '7' && s[12] == ':' && s[13] == ' ';
}

/*
 * The heads of lines only a kernel prints, each from its source: oopses and warnings
 * (print_modules(), dump_stack_print_info(), CUT_HERE, print_oops_end_marker(),
 * panic(), __warn(), x86's __show_regs()), start_kernel()'s command line, and the
 * subsystems every boot log holds (audit_log_end(), the DRM core's, ACPI's, ext4's)
 */
static bool kernel_head_line(const char *s, size_t len)
{
	static const char *const heads[] = {
		"Modules linked in:", "Hardware name: ", "------------[ cut here ]------------",
		"---[ end trace ", "---[ end Kernel panic - not syncing", "Kernel panic - not syncing: ",
		"WARNING: CPU: ", "BUG: unable to handle ", "BUG: kernel NULL pointer dereference",
		"BUG: KASAN: ", "BUG: soft lockup - CPU#", "RIP: 0010:", "RIP: 0033:",
		"Kernel command line: ", "audit: type=", "[drm] ", "[drm:", "ACPI: ", "ACPI Error: ",
		"ACPI BIOS Error ", "EXT4-fs (", "EXT4-fs error (",
		/* kernel/hung_task.c's report of a task blocked too long */
		"\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.",
	};

	if (len < 6)
		return false;
	/* most lines begin with none of these letters: one test */
	if (!strchr("MH-KWBRa[AE\"I", s[0]))
		return false;
	/* hung_task.c: "INFO: task %s:%d blocked for more than %ld seconds." */
	if (len > 11 && !memcmp(s, "INFO: task ", 11))
		return memmem(s, len, " blocked for more than ", 23) != NULL;
	for (size_t i = 0; i < ARRAY_SIZE(heads); i++) {
		size_t n = strlen(heads[i]);

		if (len >= n && !memcmp(s, heads[i], n))
			return true;
	}
	return false;
}

/*
 * dev_printk()'s "%s %s: " of a USB, SCSI or ATA device: "usb 1-1.2: ", "usb usb3: ",
 * "sd 0:0:0:0: ", "scsi 2:0:0:0: ", "scsi host2: ", and libata's "ata1: ", "ata1.00: "
 */
static bool bus_device_line(const char *s, size_t len)
{
	size_t n, k;

	if (len > 6 && !memcmp(s, "ata", 3) && (n = digits(s + 3, len - 3))) {
		k = 3 + n;
		if (k + 1 < len && s[k] == '.' && (n = digits(s + k + 1, len - k - 1)) == 2)
			k += 1 + n;
		return k + 1 < len && s[k] == ':' && s[k + 1] == ' ';
	}
	if (len > 6 && !memcmp(s, "usb ", 4)) {
		k = 4;
		if (len > 8 && !memcmp(s + k, "usb", 3))
			k += 3;
		else if ((n = digits(s + k, len - k)) && k + n < len && s[k + n] == '-')
			k += n + 1;
		else
			return false;
		/* the port path: "1", "1.2", "1.2.4" */
		while ((n = digits(s + k, len - k))) {
			k += n;
			if (k < len && s[k] == '.')
				k++;
			else
				break;
		}
		return n && k + 1 < len && s[k] == ':' && s[k + 1] == ' ';
	}
	if (len > 10 && (!memcmp(s, "sd ", 3) || !memcmp(s, "sr ", 3) || !memcmp(s, "scsi ", 5))) {
		k = s[1] == 'c' ? 5 : 3;
		if (len > k + 5 && !memcmp(s + k, "host", 4))
			k += 4;
		else
			for (int part = 0; part < 3; part++) {
				if (!(n = digits(s + k, len - k)) || k + n >= len || s[k + n] != ':')
					return false;
				k += n + 1;
			}
		return (n = digits(s + k, len - k)) && k + n + 1 < len && s[k + n] == ':' &&
		       s[k + n + 1] == ' ';
	}
	return false;
}

bool klog_kernel_line(const char *msg, size_t len)
{
	if (klog_module_line(msg, len))
		return true;
	while (len && (msg[len - 1] == '\n' || msg[len - 1] == '\r' || msg[len - 1] == ' '))
		len--;
	if (len == 0 || len > MSG_MAX)
		return false;
	/* a paste's indentation, or a mail's quote of an untimed report */
	while (len && (*msg == ' ' || *msg == '\t' || *msg == '>')) {
		msg++;
		len--;
	}
	msg = skip_kernel_tag(msg, &len);
	msg = skip_level_prefix(msg, &len);
	/* the x86 and arm64 stack dumps' heads (show_trace_log_lvl(), dump_backtrace()) */
	if ((len == 11 && (!memcmp(msg, "Call Trace:", 11) || !memcmp(msg, "Call trace:", 11))))
		return true;
	return dump_stack_line(msg, len) || pci_device_line(msg, len) ||
	       kernel_head_line(msg, len) || bus_device_line(msg, len);
}

/* past a mail quote's marks and the indentation before a line's text */
static const char *skip_quote(const char *s, size_t *len)
{
	while (*len && (*s == '>' || *s == ' ' || *s == '\t')) {
		s++;
		(*len)--;
	}
	return s;
}

size_t klog_join_cut(const char *a, size_t alen, const char *b, size_t blen, char *buf,
		     size_t size)
{
	size_t n, quoted;
	bool soft;

	while (alen && a[alen - 1] == '\r')
		alen--;
	while (blen && b[blen - 1] == '\r')
		blen--;
	quoted = alen;
	a = skip_quote(a, &alen);
	quoted -= alen;
	/* quoted-printable's soft line break: the '=' stands for nothing, not a space */
	soft = alen && a[alen - 1] == '=';
	/* after a soft break in an unquoted, unindented line, the next line's blanks are
	 * the text's own: the encoder may break right before a space ("taints=", " kernel.") */
	if (!soft || quoted)
		b = skip_quote(b, &blen);
	if (soft)
		alen--;
	else
		while (alen && (a[alen - 1] == ' ' || a[alen - 1] == '\t'))
			alen--;
	if (!alen || !blen)
		return 0;
	n = alen + !soft + blen;
	if (n >= size)
		return 0;
	memcpy(buf, a, alen);
	if (!soft)
		buf[alen] = ' ';
	memcpy(buf + alen + !soft, b, blen);
	buf[n] = '\0';
	return n;
}

size_t klog_join_cut_minus(const char *a, size_t alen, const char *b, size_t blen, char *buf,
			   size_t size)
{
	size_t n, sp;

	while (alen && a[alen - 1] == '\r')
		alen--;
	while (blen && b[blen - 1] == '\r')
		blen--;
	/* a soft break joins with no space already */
	if (alen && a[alen - 1] == '=')
		return 0;
	n = klog_join_cut(a, alen, b, blen, buf, size);
	b = skip_quote(b, &blen);
	if (!n || !blen || n < blen + 3 || !isdigit((unsigned char)*b))
		return 0;
	/* printf's "%d" puts no blank after a minus sign: one before a digit was the wrap's */
	sp = n - blen - 1;
	if (buf[sp] != ' ' || buf[sp - 1] != '-' || (buf[sp - 2] != ' ' && buf[sp - 2] != '('))
		return 0;
	memmove(buf + sp, buf + sp + 1, blen);
	buf[--n] = '\0';
	return n;
}

/* --- the memo -------------------------------------------------------------------------- */

#define MEMO_SLOTS 4096
#define MEMO_WAYS 2
#define MEMO_MSG 256		/* and a distribution kernel's "Linux version" banner */

/* A remembered answer: strings as offsets into the message (UINT16_MAX: NULL). */
struct memo_slot {
	uint64_t hash;
	uint64_t user;
	uint32_t used;			/* when last asked: of the set's ways, the oldest goes */
	uint16_t len;
	uint16_t off[4], n[4];
	uint16_t rest;			/* its offset, or UINT16_MAX: none */
	int16_t kind;
	int16_t err;
	uint8_t n_num;
	uint8_t idx;			/* klog_wordings[] entry: format and source */
	int64_t num[KLOG_FINDING_NUMS];
	char msg[MEMO_MSG];
};

/*
 * Set-associative: a log holds a few hundred messages that repeat, and two of them
 * in one direct-mapped slot would push each other out at every repetition.
 */
struct klog_memo {
	struct memo_slot slots[MEMO_SLOTS];
	uint32_t tick;
};

int klog_memo_new(struct klog_memo **ret)
{
	*ret = calloc(1, sizeof(**ret));
	return *ret ? 0 : -ENOMEM;
}

struct klog_memo *klog_memo_free(struct klog_memo *m)
{
	free(m);
	return NULL;
}

static const char **memo_field(struct klog_finding *f, int i, size_t **ret_len)
{
	switch (i) {
	case 0:
		*ret_len = &f->module_len;
		return &f->module;
	case 1:
		*ret_len = &f->symbol_len;
		return &f->symbol;
	case 2:
		*ret_len = &f->text_len;
		return &f->text;
	default:
		*ret_len = &f->text2_len;
		return &f->text2;
	}
}

static bool memo_store(struct memo_slot *s, uint64_t h, const char *msg, size_t len,
		       const struct klog_finding *f)
{
	struct klog_finding c = *f;

	for (int i = 0; i < 4; i++) {
		size_t *n;
		const char **p = memo_field(&c, i, &n);

		if (!*p) {
			s->off[i] = UINT16_MAX;
			s->n[i] = 0;
			continue;
		}
		if (*p < msg || (size_t)(*p - msg) + *n > len)
			goto forget;
		s->off[i] = (uint16_t)(*p - msg);
		s->n[i] = (uint16_t)*n;
	}
	if (f->rest && (f->rest < msg || (size_t)(f->rest - msg) > len))
		goto forget;
	s->rest = f->rest ? (uint16_t)(f->rest - msg) : UINT16_MAX;
	s->idx = UINT8_MAX;
	for (size_t i = 0; i < klog_wordings_n && i < UINT8_MAX; i++)
		if (klog_wordings[i].format == f->format) {
			s->idx = (uint8_t)i;
			break;
		}
	if (f->kind != KLOG_FINDING_NONE && s->idx == UINT8_MAX)
		goto forget;
	s->hash = h;
	s->len = (uint16_t)len;
	s->kind = (int16_t)f->kind;
	s->err = (int16_t)f->err;
	s->n_num = (uint8_t)f->n_num;
	memcpy(s->num, f->num, sizeof(s->num));
	s->user = 0;
	memcpy(s->msg, msg, len);
	return true;
forget:
	s->len = UINT16_MAX;	/* half overwritten: matches no message */
	return false;
}

static void memo_load(const struct memo_slot *s, const char *msg, struct klog_finding *ret)
{
	/* copied, not memset(), which is slow at this size */
	static const struct klog_finding empty;

	*ret = empty;
	ret->kind = s->kind;
	if (s->kind == KLOG_FINDING_NONE)
		return;
	ret->format = klog_wordings[s->idx].format;
	ret->source = klog_wordings[s->idx].source;
	ret->err = s->err;
	ret->n_num = s->n_num;
	memcpy(ret->num, s->num, sizeof(ret->num));
	if (s->rest != UINT16_MAX)
		ret->rest = msg + s->rest;
	for (int i = 0; i < 4; i++) {
		size_t *n;
		const char **p = memo_field(ret, i, &n);

		if (s->off[i] != UINT16_MAX) {
			*p = msg + s->off[i];
			*n = s->n[i];
		}
	}
}

int klog_classify_memo(struct klog_memo *m, const char *msg, size_t len,
		       struct klog_finding *ret, uint64_t **ret_user)
{
	struct memo_slot *set, *s;
	uint64_t h;
	int r;

	if (ret_user)
		*ret_user = NULL;
	if (!msg || len > MEMO_MSG)
		return klog_classify(msg, len, ret);
	h = hash_words(msg, len, 3);
	set = &m->slots[(h & (MEMO_SLOTS / MEMO_WAYS - 1)) * MEMO_WAYS];
	m->tick++;
	s = set;
	for (int w = 0; w < MEMO_WAYS; w++) {
		if (set[w].hash == h && set[w].len == len && memcmp(set[w].msg, msg, len) == 0) {
			set[w].used = m->tick;
			memo_load(&set[w], msg, ret);
			if (ret_user)
				*ret_user = &set[w].user;
			return ret->kind != KLOG_FINDING_NONE;
		}
		/* unsigned difference: right across the tick's wrap */
		if (m->tick - set[w].used > m->tick - s->used)
			s = &set[w];
	}
	s->used = m->tick;
	r = klog_classify(msg, len, ret);
	if (memo_store(s, h, msg, len, ret) && ret_user)
		*ret_user = &s->user;
	return r;
}
