/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"

size_t utf8_decode(const unsigned char *s, size_t left, uint32_t *ret_cp)
{
	uint32_t cp;
	size_t n, i;

	if (s[0] < 0x80) {
		*ret_cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n > left)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, out of range */
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	*ret_cp = cp;
	return n;
}

/* Length of a valid, printable UTF-8 sequence at @s, or 0. */
static size_t utf8_valid_len(const unsigned char *s, size_t left)
{
	uint32_t cp;
	size_t n = utf8_decode(s, left, &cp);

	if (!n)
		return 0;
	if (cp < 0x20 || cp == 0x7f || cp == '\\')
		return 0;
	/* C1 controls (U+0080..U+009F) */
	if (cp >= 0x80 && cp <= 0x9f)
		return 0;
	/* bidi overrides and isolates can reorder what a terminal shows */
	if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069))
		return 0;
	return n;
}

/* What escape_dup() makes of the byte(s) at @u (@left of them): bytes taken, bytes out */
static size_t escape_step(const unsigned char *u, size_t left, size_t *ret_out)
{
	size_t n;

	/* printable ASCII, the usual case, as it is */
	if (u[0] >= 0x20 && u[0] < 0x7f && u[0] != '\\') {
		*ret_out = 1;
		return 1;
	}
	n = utf8_valid_len(u, left);
	if (n) {
		*ret_out = n;
		return n;
	}
	*ret_out = u[0] == '\\' ? 2 : 4;
	return 1;
}

bool escape_needed(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, n, k;

	while (i < len) {
		n = escape_step(u + i, len - i, &k);
		if (k != n)
			return true;
		i += n;
	}
	return false;
}

size_t escape_width(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, w = 0, n, k;

	while (i < len) {
		n = escape_step(u + i, len - i, &k);
		/* a character as it is, "\\" or "\xNN" */
		w += k == n ? 1 : k;
		i += n;
	}
	return w;
}

void escape_fputs(const char *s, size_t len, FILE *f)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, from = 0, n, k;
	char esc[5];

	while (i < len) {
		n = escape_step(u + i, len - i, &k);
		if (k == n) {
			i += n;
			continue;
		}
		/* the bytes as they are so far, then this one escaped */
		fwrite(s + from, 1, i - from, f);
		if (k == 2)
			fputs("\\\\", f);
		else {
			snprintf(esc, sizeof(esc), "\\x%02x", u[i]);
			fputs(esc, f);
		}
		from = ++i;
	}
	fwrite(s + from, 1, i - from, f);
}

char *escape_dup(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, size = 0, n, k;
	char *out, *p;

	/* the exact size: tables keep thousands of these at once */
	while (i < len) {
		i += escape_step(u + i, len - i, &k);
		if (size > SIZE_MAX - 1 - k)
			return NULL;
		size += k;
	}
	out = malloc(size + 1);
	if (!out)
		return NULL;
	p = out;
	for (i = 0; i < len; i += n) {
		n = escape_step(u + i, len - i, &k);
		if (k == n)
			memcpy(p, u + i, n);
		else if (k == 2)
			memcpy(p, "\\\\", 2);
		else
			snprintf(p, 5, "\\x%02x", u[i]);
		p += k;
	}
	*p = '\0';
	return out;
}

char *utf8_repair_dup(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	char *out, *p;
	size_t i = 0;

	if (len > (SIZE_MAX - 1) / 3)
		return NULL;
	out = malloc(len * 3 + 1);
	if (!out)
		return NULL;
	p = out;
	while (i < len) {
		uint32_t cp;
		size_t n = utf8_decode(u + i, len - i, &cp);

		if (n) {
			memcpy(p, u + i, n);
			p += n;
			i += n;
		} else {
			memcpy(p, "\xef\xbf\xbd", 3);
			p += 3;
			i++;
		}
	}
	*p = '\0';
	return out;
}

bool utf8_valid(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	while (i < len) {
		uint32_t cp;
		size_t n = utf8_decode(u + i, len - i, &cp);

		if (!n)
			return false;
		i += n;
	}
	return true;
}

bool escape_name_is_placeholder(const char *s, size_t len)
{
	return (len == 1 && s[0] == '-') || (len == 9 && memcmp(s, "(unnamed)", 9) == 0);
}

char *escape_name_dup(const char *s, size_t len)
{
	char *rest, *out;

	if (!escape_name_is_placeholder(s, len))
		return escape_dup(s, len);
	rest = escape_dup(s + 1, len - 1);
	if (!rest || asprintf(&out, "\\x%02x%s", (unsigned char)s[0], rest) < 0)
		out = NULL;
	free(rest);
	return out;
}
