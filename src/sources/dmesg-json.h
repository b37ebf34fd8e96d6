/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* One record of util-linux's `dmesg --json` */
struct dmesg_json_rec {
	const char *msg;		/* valid during the callback; bytes as the string decodes */
	size_t msg_len;
	bool has_time;
	double time;			/* seconds since boot */
	int facility;			/* -1 when not said */
	int level;			/* 0..7, -1 when not said */
};

typedef int (*dmesg_json_fn)(void *userdata, size_t index, const struct dmesg_json_rec *rec);

/*
 * `dmesg --json` (util-linux 2.35+): {"dmesg": [{"pri": 6, "time": 0.000000, "msg":
 * "..."}, ...]}, "pri" the syslog priority (facility * 8 + level) or, with
 * --decode, "fac" and "pri" as names. Calls @fn for each record in order, with its
 * index in the array; a record without a "msg" string is skipped. 0, -EINVAL when
 * @doc is no such document, -ENOMEM, or @fn's first negative value.
 */
int dmesg_json_each(const char *doc, size_t len, dmesg_json_fn fn, void *userdata);
