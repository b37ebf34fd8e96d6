/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "sources/journal-json.h"

/* a field's value as bytes: journald writes text that is not UTF-8 as an array of bytes */
static int field_bytes(json_object *v, char **ret, size_t *ret_len)
{
	const char *s;
	size_t n = 0;
	char *b;

	if (json_object_is_type(v, json_type_array)) {
		size_t len = json_object_array_length(v);

		b = malloc(len + 1);
		if (!b)
			return -ENOMEM;
		for (size_t i = 0; i < len; i++) {
			json_object *e = json_object_array_get_idx(v, i);
			int64_t x = json_object_get_int64(e);

			if (!json_object_is_type(e, json_type_int) || x < 0 || x > 255)
				continue;
			b[n++] = (char)(x & 0xff);
		}
	} else {
		s = json_object_get_string(v);
		n = json_object_is_type(v, json_type_string) ?
			    (size_t)json_object_get_string_len(v) :
			    (s ? strlen(s) : 0);
		b = malloc(n + 1);
		if (!b)
			return -ENOMEM;
		if (n)
			memcpy(b, s, n);
	}
	b[n] = '\0';
	*ret = b;
	*ret_len = n;
	return 0;
}

int journal_json_fields(const char *line, size_t len, const char *const *keys, size_t n,
			char **ret_values, size_t *ret_lens)
{
	struct json_tokener *tok;
	json_object *doc;
	int r = 0;

	for (size_t i = 0; i < n; i++) {
		ret_values[i] = NULL;
		ret_lens[i] = 0;
	}
	if (len > INT_MAX)
		return -EINVAL;
	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	doc = json_tokener_parse_ex(tok, line, (int)len);
	if (!doc || json_tokener_get_error(tok) != json_tokener_success ||
	    !json_object_is_type(doc, json_type_object))
		r = -EINVAL;
	json_tokener_free(tok);
	for (size_t i = 0; r == 0 && i < n; i++) {
		json_object *v;

		if (!json_object_object_get_ex(doc, keys[i], &v) || !v)
			continue;
		r = field_bytes(v, &ret_values[i], &ret_lens[i]);
	}
	if (r < 0)
		for (size_t i = 0; i < n; i++) {
			free(ret_values[i]);
			ret_values[i] = NULL;
			ret_lens[i] = 0;
		}
	json_object_put(doc);
	return r;
}
