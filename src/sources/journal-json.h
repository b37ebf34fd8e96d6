/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>

/*
 * One line of `journalctl -o json`: the values of @keys in the JSON object @line as
 * bytes: strings as they decode, numbers as their text, arrays of byte values
 * (journald's form for text that is not UTF-8) as those bytes; NULL when absent or null.
 * @ret_values[i] (NUL-terminated, caller frees) and @ret_lens[i]. 0, -EINVAL when @line
 * is no JSON object, -ENOMEM.
 */
int journal_json_fields(const char *line, size_t len, const char *const *keys, size_t n,
			char **ret_values, size_t *ret_lens);
