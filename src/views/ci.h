/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "ci/ci.h"
#include "output/output.h"

/* `kmodtop ci`'s report of a finished struct ci_findings (ci_finish()) */

/* Text or JSON (@o decides) */
int ci_render(const struct ci_findings *c, struct out *o);
int ci_write_junit(const struct ci_findings *c, FILE *f);
int ci_write_sarif(const struct ci_findings *c, FILE *f, bool pretty);
int ci_write_github(const struct ci_findings *c, FILE *f);
