/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * Where a parse went wrong. Filled by sources on failure only; turned into words by
 * the command layer, never by the source itself.
 */
struct kt_err {
	char path[256];		/* root-relative, e.g. "proc/modules" */
	unsigned int line;	/* 1-based; 0 when not line-oriented */
	const char *what;	/* static text: "size is not a number" */
};

void kt_err_set(struct kt_err *err, const char *path, unsigned int line, const char *what);
