/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>

#include "kt-err.h"

void kt_err_set(struct kt_err *err, const char *path, unsigned int line, const char *what)
{
	if (!err)
		return;
	snprintf(err->path, sizeof(err->path), "%s", path ? path : "");
	err->line = line;
	err->what = what;
}
