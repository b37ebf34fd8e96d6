/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "sources/dmesg-json.h"
#include "util/macro.h"

/* util-linux's names for levels and facilities (dmesg --decode) */
static int name_index(const char *s, const char *const *names, size_t n)
{
	for (size_t i = 0; s && i < n; i++)
		if (strcmp(s, names[i]) == 0)
			return (int)i;
	return -1;
}

static void read_priority(json_object *o, struct dmesg_json_rec *rec)
{
	static const char *const levels[] = { "emerg", "alert", "crit", "err",
					      "warn", "notice", "info", "debug" };
	static const char *const facilities[] = { "kern", "user", "mail", "daemon", "auth",
						  "syslog", "lpr", "news", "uucp", "cron",
						  "authpriv", "ftp" };
	json_object *v;

	rec->facility = rec->level = -1;
	if (json_object_object_get_ex(o, "pri", &v)) {
		if (json_object_is_type(v, json_type_int)) {
			int64_t p = json_object_get_int64(v);

			if (p >= 0 && p < 8 * 24) {
				rec->facility = (int)(p >> 3);
				rec->level = (int)(p & 7);
			}
		} else if (json_object_is_type(v, json_type_string)) {
			rec->level = name_index(json_object_get_string(v), levels, ARRAY_SIZE(levels));
		}
	}
	if (json_object_object_get_ex(o, "fac", &v) && json_object_is_type(v, json_type_string))
		rec->facility = name_index(json_object_get_string(v), facilities,
					   ARRAY_SIZE(facilities));
}

int dmesg_json_each(const char *doc, size_t len, dmesg_json_fn fn, void *userdata)
{
	struct json_tokener *tok;
	json_object *root, *arr;
	int r = 0;

	if (len > INT_MAX)
		return -EINVAL;
	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	root = json_tokener_parse_ex(tok, doc, (int)len);
	/* one document: only blanks after it */
	for (size_t i = root ? json_tokener_get_parse_end(tok) : len; i < len; i++)
		if (!strchr(" \t\r\n", doc[i])) {
			json_object_put(root);
			root = NULL;
			break;
		}
	if (!root || json_tokener_get_error(tok) != json_tokener_success ||
	    !json_object_is_type(root, json_type_object) ||
	    !json_object_object_get_ex(root, "dmesg", &arr) ||
	    !json_object_is_type(arr, json_type_array))
		r = -EINVAL;
	json_tokener_free(tok);
	for (size_t i = 0; r == 0 && i < json_object_array_length(arr); i++) {
		json_object *o = json_object_array_get_idx(arr, i), *v;
		struct dmesg_json_rec rec = { 0 };

		if (!json_object_is_type(o, json_type_object) ||
		    !json_object_object_get_ex(o, "msg", &v) || !json_object_is_type(v, json_type_string))
			continue;
		rec.msg = json_object_get_string(v);
		rec.msg_len = (size_t)json_object_get_string_len(v);
		if (json_object_object_get_ex(o, "time", &v) &&
		    (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int))) {
			rec.time = json_object_get_double(v);
			rec.has_time = rec.time >= 0 && rec.time < 1e12;
		}
		read_priority(o, &rec);
		r = fn(userdata, i, &rec);
	}
	json_object_put(root);
	return r;
}
