/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Names, comm and log text come from the kernel and from other machines' logs: before
 * they reach a terminal, control characters (C0, DEL, C1), backslashes and invalid
 * UTF-8 are written as \xNN / \\ so they can never drive the terminal. Valid
 * printable UTF-8 passes through. Returns a new string or NULL on ENOMEM.
 */
char *escape_dup(const char *s, size_t len);
/*
 * escape_dup() for a name shown where "-" or "(unnamed)" stand for no name: a name that
 * is one of those has its first byte written as \xNN, so that it reads as itself.
 */
char *escape_name_dup(const char *s, size_t len);
/* True for a name escape_name_dup() writes otherwise than escape_dup() */
bool escape_name_is_placeholder(const char *s, size_t len);
/* True if escape_dup() would change @s. */
bool escape_needed(const char *s, size_t len);
/* The columns escape_dup()'s text of @s takes on a terminal: one a character */
size_t escape_width(const char *s, size_t len);
/* escape_dup()'s text of @s, written to @f without a copy */
void escape_fputs(const char *s, size_t len, FILE *f);

/*
 * JSON must be UTF-8 (RFC 8259): a copy of @s with every byte that starts no valid
 * sequence replaced by U+FFFD; valid text, control characters included, is kept as it
 * is (JSON escapes those itself). NULL on ENOMEM.
 */
char *utf8_repair_dup(const char *s, size_t len);
bool utf8_valid(const char *s, size_t len);

/*
 * Length of the valid, shortest-form UTF-8 sequence at @s (at least one byte, @left
 * bytes readable) and its code point in *ret_cp; 0 for a byte that starts none.
 */
size_t utf8_decode(const unsigned char *s, size_t left, uint32_t *ret_cp);
