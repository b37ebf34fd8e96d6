/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ci/ci.h"

/*
 * The CI report formats other tools read: JUnit XML, SARIF 2.1.0 and GitHub Actions
 * workflow commands; and the reading side of `ci --json`, for --baseline. The view
 * (views/ci.c) fills these plain structures; only this file knows the syntaxes (json-c
 * for SARIF and the baseline, a hand-written escaper for XML: there is no XML library
 * among the dependencies). Strings are UTF-8; anything else is escaped here anyway.
 */

/* --- XML 1.0 --------------------------------------------------------------------------- */

/*
 * @s as XML character data that is also safe inside a quoted attribute: & < > " ' as
 * entities; TAB, LF, CR as character references (attribute values would normalise them
 * to spaces); other C0 controls, DEL-range C1 controls, U+FFFE/U+FFFF, surrogates and
 * invalid UTF-8 (not allowed in XML 1.0 at all, not even as references) as U+FFFD.
 * Returns a new string, or NULL on ENOMEM.
 */
char *ci_xml_escape(const char *s, size_t len);

/* --- JUnit ----------------------------------------------------------------------------- */

struct ci_fmt_testcase {
	const char *classname;
	const char *name;
	/* a failed check: both set; NULL when it passed */
	const char *failure_type;
	const char *failure_message;
	/*
	 * element content: lines the caller escaped (escape_dup()), each ending in a
	 * newline, so that only the caller's newlines start a line; may be NULL
	 */
	const char *failure_text;
	const char *skipped_message;	/* a check that could not run, or NULL */
	const char *system_out;		/* what it looked at, escaped as failure_text; may be NULL */
};

struct ci_fmt_suite {
	const char *name;
	const struct ci_fmt_testcase *cases;
	size_t n;
};

/* <testsuites> with one <testsuite> per suite. 0 or -ENOMEM, -errno of the stream. */
int ci_junit_write(FILE *f, const char *name, const struct ci_fmt_suite *suites, size_t n);

/* --- SARIF 2.1.0 ----------------------------------------------------------------------- */


struct ci_fmt_rule {
	const char *id;			/* "unknown-symbol" */
	const char *description;
	enum ci_fmt_level level;	/* defaultConfiguration */
};

struct ci_fmt_location {
	const char *file;		/* as given on the command line; "-": standard input */
	uint64_t line;			/* 1-based; 0: the file as a whole */
};

struct ci_fmt_result {
	size_t rule;			/* index into the rules */
	enum ci_fmt_level level;
	const char *message;
	struct ci_fmt_location first, last;
	/* properties */
	const char *module;		/* NULL: none */
	uint64_t count;			/* evidence lines */
	uint64_t attempts;
	const char *requester;		/* NULL: none */
	bool allowed;
};

/* One run of tool "kmodtop" @version. 0 or -ENOMEM, -errno of the stream. */
int ci_sarif_write(FILE *f, const char *version, bool pretty, const struct ci_fmt_rule *rules,
		   size_t n_rules, const struct ci_fmt_result *results, size_t n_results);

/* --- GitHub Actions -------------------------------------------------------------------- */

struct ci_fmt_annotation {
	enum ci_fmt_level level;	/* ::notice, ::warning, ::error */
	const char *file;		/* NULL: not tied to a file */
	uint64_t line, end_line;	/* 0: none */
	const char *title;
	const char *message;
};

/* "::error file=F,line=L,endLine=E,title=T::message" lines, values %-encoded. */
int ci_github_write(FILE *f, const struct ci_fmt_annotation *a, size_t n);

/* --- the baseline: an earlier `kmodtop ci --json` ------------------------------------- */


/*
 * Parses the document in @buf. 0, -EINVAL with *reterr_what (static text) when it is not
 * JSON or not a `ci --json` document, -ENOMEM.
 */
int ci_baseline_parse(const char *buf, size_t len, struct ci_fmt_baseline **ret,
		      const char **reterr_what);
struct ci_fmt_baseline *ci_baseline_free(struct ci_fmt_baseline *b);
