/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "util/io.h"
#include "ci-formats.h"
#include "output.h"

/* --- a growing string ------------------------------------------------------------------ */

struct sbuf {
	char *s;
	size_t len, cap;
	bool oom;
};

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		char *p;

		while (cap < b->len + n + 1)
			cap *= 2;
		p = realloc(b->s, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->s = p;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void sb_str(struct sbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

/* The string, or NULL on ENOMEM (then nothing is left to free). */
static char *sb_done(struct sbuf *b)
{
	if (b->oom) {
		free(b->s);
		return NULL;
	}
	if (!b->s)
		return strdup("");
	return b->s;
}

/* --- XML ------------------------------------------------------------------------------- */

char *ci_xml_escape(const char *s, size_t len)
{
	static const char replacement[] = "\xef\xbf\xbd";	/* U+FFFD */
	const unsigned char *p = (const unsigned char *)s;
	struct sbuf b = {0};
	size_t i = 0;

	while (i < len) {
		uint32_t ucp;
		size_t n = utf8_decode(p + i, len - i, &ucp);
		/* -1: a byte that starts no valid sequence, replaced on its own */
		int32_t cp = n ? (int32_t)ucp : -1;
		char ref[16];

		switch (cp) {
		case '&':
			sb_str(&b, "&amp;");
			break;
		case '<':
			sb_str(&b, "&lt;");
			break;
		case '>':
			sb_str(&b, "&gt;");
			break;
		case '"':
			sb_str(&b, "&quot;");
			break;
		case '\'':
			sb_str(&b, "&apos;");
			break;
		case '\t':
		case '\n':
		case '\r':
			/* as references they survive attribute-value normalisation */
			snprintf(ref, sizeof(ref), "&#%d;", (int)cp);
			sb_str(&b, ref);
			break;
		default:
			if (cp < 0 || cp < 0x20 || cp == 0xfffe || cp == 0xffff) {
				/* not a Char of XML 1.0: not even &#1; is allowed */
				sb_str(&b, replacement);
			} else if (cp >= 0x7f && cp <= 0x9f) {
				/* allowed but "discouraged" (XML 1.0 section 2.2): keep visible */
				snprintf(ref, sizeof(ref), "&#x%X;", (unsigned int)cp);
				sb_str(&b, ref);
			} else {
				sb_add(&b, s + i, n);
			}
		}
		i += n ? n : 1;
	}
	return sb_done(&b);
}

/*
 * JUnit is read by people: control characters shown as \xNN first, as in text output.
 * An attribute is one line: a newline in it is content, escaped as well.
 */
static char *junit_escape(const char *v)
{
	char *t = escape_dup(v, strlen(v)), *e;

	if (!t)
		return NULL;
	e = ci_xml_escape(t, strlen(t));
	free(t);
	return e;
}

static int xml_attr(FILE *f, const char *name, const char *v)
{
	char *e = junit_escape(v ? v : "");

	if (!e)
		return -ENOMEM;
	fprintf(f, " %s=\"%s\"", name, e);
	free(e);
	return 0;
}

/* element text: lines the caller escaped, joined by the newlines that are its own */
static int xml_text(FILE *f, const char *v)
{
	char *e = ci_xml_escape(v, strlen(v));

	if (!e)
		return -ENOMEM;
	fputs(e, f);
	free(e);
	return 0;
}

struct junit_counts {
	size_t tests, failures, skipped;
};

static struct junit_counts suite_counts(const struct ci_fmt_suite *s)
{
	struct junit_counts c = { .tests = s->n };

	for (size_t i = 0; i < s->n; i++) {
		c.failures += s->cases[i].failure_message != NULL;
		c.skipped += !s->cases[i].failure_message && s->cases[i].skipped_message;
	}
	return c;
}

static void counts_attrs(FILE *f, const struct junit_counts *c)
{
	fprintf(f, " tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" time=\"0\"",
		c->tests, c->failures, c->skipped);
}

static int junit_case(FILE *f, const struct ci_fmt_testcase *t)
{
	int r = 0;

	fputs("    <testcase", f);
	r |= xml_attr(f, "classname", t->classname);
	r |= xml_attr(f, "name", t->name);
	fputs(" time=\"0\">\n", f);
	if (t->failure_message) {
		fputs("      <failure", f);
		r |= xml_attr(f, "type", t->failure_type ? t->failure_type : "failure");
		r |= xml_attr(f, "message", t->failure_message);
		fputs(">", f);
		if (t->failure_text)
			r |= xml_text(f, t->failure_text);
		fputs("</failure>\n", f);
	} else if (t->skipped_message) {
		fputs("      <skipped", f);
		r |= xml_attr(f, "message", t->skipped_message);
		fputs("/>\n", f);
	}
	if (t->system_out) {
		fputs("      <system-out>", f);
		r |= xml_text(f, t->system_out);
		fputs("</system-out>\n", f);
	}
	fputs("    </testcase>\n", f);
	return r ? -ENOMEM : 0;
}

int ci_junit_write(FILE *f, const char *name, const struct ci_fmt_suite *suites, size_t n)
{
	struct junit_counts all = {0};
	int r = 0;

	for (size_t i = 0; i < n; i++) {
		struct junit_counts c = suite_counts(&suites[i]);

		all.tests += c.tests;
		all.failures += c.failures;
		all.skipped += c.skipped;
	}
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", f);
	r |= xml_attr(f, "name", name);
	counts_attrs(f, &all);
	fputs(">\n", f);
	for (size_t i = 0; i < n; i++) {
		struct junit_counts c = suite_counts(&suites[i]);

		fputs("  <testsuite", f);
		r |= xml_attr(f, "name", suites[i].name);
		counts_attrs(f, &c);
		fputs(">\n", f);
		for (size_t k = 0; k < suites[i].n && r == 0; k++)
			r = junit_case(f, &suites[i].cases[k]);
		fputs("  </testsuite>\n", f);
	}
	fputs("</testsuites>\n", f);
	if (r)
		return -ENOMEM;
	return stream_flush(f);
}

/* --- SARIF ----------------------------------------------------------------------------- */

static const char *level_name(enum ci_fmt_level l)
{
	switch (l) {
	case CI_FMT_ERROR:
		return "error";
	case CI_FMT_WARNING:
		return "warning";
	default:
		return "note";
	}
}

/*
 * A path as a URI reference (RFC 3986): unreserved characters, '/' and the
 * sub-delimiters stay, everything else is %-encoded; absolute paths become file: URIs.
 * Standard input has no file: "stdin".
 */
static char *path_to_uri(const char *path)
{
	static const char keep[] = "-._~/!$&'()*+,;=:@";
	struct sbuf b = {0};

	if (strcmp(path, "-") == 0)
		return strdup("stdin");
	if (path[0] == '/')
		sb_str(&b, "file://");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		char enc[4];

		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || (*p && strchr(keep, *p))) {
			sb_add(&b, (const char *)p, 1);
			continue;
		}
		snprintf(enc, sizeof(enc), "%%%02X", *p);
		sb_add(&b, enc, 3);
	}
	return sb_done(&b);
}

/* json-c's adders take ownership even on failure: a NULL value is the only sign */
static bool jadd(json_object *o, const char *k, json_object *v)
{
	if (!v)
		return false;
	if (json_object_object_add(o, k, v) < 0) {
		json_object_put(v);
		return false;
	}
	return true;
}

static json_object *jtext(const char *s)
{
	json_object *o = json_object_new_object();

	if (o && !jadd(o, "text", json_object_new_string(s ? s : ""))) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static json_object *sarif_location(const struct ci_fmt_location *l, int id, const char *msg)
{
	json_object *loc = json_object_new_object(), *phys = json_object_new_object();
	json_object *art = json_object_new_object();
	char *uri = path_to_uri(l->file ? l->file : "-");
	bool ok = loc && phys && art && uri;

	ok = ok && jadd(art, "uri", json_object_new_string(uri));
	ok = ok && jadd(phys, "artifactLocation", json_object_get(art));
	if (ok && l->line) {
		json_object *region = json_object_new_object();

		ok = region && jadd(region, "startLine", json_object_new_uint64(l->line)) &&
		     jadd(phys, "region", json_object_get(region));
		json_object_put(region);
	}
	ok = ok && jadd(loc, "physicalLocation", json_object_get(phys));
	if (ok && id >= 0)
		ok = jadd(loc, "id", json_object_new_int(id)) && jadd(loc, "message", jtext(msg));
	free(uri);
	json_object_put(art);
	json_object_put(phys);
	if (!ok) {
		json_object_put(loc);
		return NULL;
	}
	return loc;
}

static json_object *sarif_rule(const struct ci_fmt_rule *r)
{
	json_object *o = json_object_new_object(), *conf = json_object_new_object();
	bool ok = o && conf;

	ok = ok && jadd(o, "id", json_object_new_string(r->id));
	ok = ok && jadd(o, "shortDescription", jtext(r->description));
	ok = ok && jadd(conf, "level", json_object_new_string(level_name(r->level)));
	ok = ok && jadd(o, "defaultConfiguration", json_object_get(conf));
	json_object_put(conf);
	if (!ok) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static json_object *sarif_result(const struct ci_fmt_rule *rules, const struct ci_fmt_result *r)
{
	json_object *o = json_object_new_object(), *locs = json_object_new_array();
	json_object *props = json_object_new_object();
	/* the message is shown to people, as text output shows it; properties keep names exact */
	char *msg = escape_dup(r->message, strlen(r->message));
	bool ok = o && locs && props && msg;

	ok = ok && jadd(o, "ruleId", json_object_new_string(rules[r->rule].id));
	ok = ok && jadd(o, "ruleIndex", json_object_new_uint64(r->rule));
	ok = ok && jadd(o, "level", json_object_new_string(level_name(r->level)));
	ok = ok && jadd(o, "message", jtext(msg));
	if (ok) {
		json_object *l = sarif_location(&r->first, -1, NULL);

		ok = l && json_object_array_add(locs, l) == 0;
		if (!ok)
			json_object_put(l);
	}
	ok = ok && jadd(o, "locations", json_object_get(locs));
	if (ok && r->last.line && r->last.line != r->first.line) {
		json_object *rel = json_object_new_array();
		json_object *l = sarif_location(&r->last, 1, "last evidence line");

		ok = rel && l && json_object_array_add(rel, l) == 0;
		if (!ok)
			json_object_put(l);
		ok = ok && jadd(o, "relatedLocations", json_object_get(rel));
		json_object_put(rel);
	}
	if (ok && r->module)
		ok = jadd(props, "module", json_object_new_string(r->module));
	ok = ok && jadd(props, "attempts", json_object_new_uint64(r->attempts));
	ok = ok && jadd(props, "evidence_lines", json_object_new_uint64(r->count));
	ok = ok && jadd(props, "count", json_object_new_uint64(r->count));
	if (ok && r->requester)
		ok = jadd(props, "requester", json_object_new_string(r->requester));
	ok = ok && jadd(props, "allowed", json_object_new_boolean(r->allowed));
	ok = ok && jadd(o, "properties", json_object_get(props));
	json_object_put(locs);
	json_object_put(props);
	free(msg);
	if (!ok) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

int ci_sarif_write(FILE *f, const char *version, bool pretty, const struct ci_fmt_rule *rules,
		   size_t n_rules, const struct ci_fmt_result *results, size_t n_results)
{
	json_object *doc = json_object_new_object(), *runs = json_object_new_array();
	json_object *run = json_object_new_object(), *tool = json_object_new_object();
	json_object *driver = json_object_new_object(), *rl = json_object_new_array();
	json_object *res = json_object_new_array();
	bool ok = doc && runs && run && tool && driver && rl && res;
	int r = 0;

	ok = ok && jadd(doc, "$schema",
			json_object_new_string("https://json.schemastore.org/sarif-2.1.0.json"));
	ok = ok && jadd(doc, "version", json_object_new_string("2.1.0"));
	ok = ok && jadd(driver, "name", json_object_new_string("kmodtop"));
	ok = ok && jadd(driver, "version", json_object_new_string(version));
	for (size_t i = 0; ok && i < n_rules; i++) {
		json_object *o = sarif_rule(&rules[i]);

		ok = o && json_object_array_add(rl, o) == 0;
		if (!ok)
			json_object_put(o);
	}
	ok = ok && jadd(driver, "rules", json_object_get(rl));
	ok = ok && jadd(tool, "driver", json_object_get(driver));
	ok = ok && jadd(run, "tool", json_object_get(tool));
	for (size_t i = 0; ok && i < n_results; i++) {
		json_object *o = results[i].rule < n_rules ? sarif_result(rules, &results[i]) : NULL;

		ok = o && json_object_array_add(res, o) == 0;
		if (!ok)
			json_object_put(o);
	}
	ok = ok && jadd(run, "results", json_object_get(res));
	ok = ok && json_object_array_add(runs, json_object_get(run)) == 0;
	ok = ok && jadd(doc, "runs", json_object_get(runs));
	if (ok) {
		int flags = JSON_C_TO_STRING_NOSLASHESCAPE |
			    (pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED
				    : JSON_C_TO_STRING_PLAIN);
		const char *s = json_object_to_json_string_ext(doc, flags);

		if (!s || out_json_fputs(s, f) < 0) {
			r = -ENOMEM;
		} else {
			r = stream_flush(f);
		}
	} else {
		r = -ENOMEM;
	}
	json_object_put(res);
	json_object_put(rl);
	json_object_put(driver);
	json_object_put(tool);
	json_object_put(run);
	json_object_put(runs);
	json_object_put(doc);
	return r;
}

/* --- GitHub Actions -------------------------------------------------------------------- */

/*
 * Workflow command escaping (actions/toolkit command.ts): the message escapes '%', CR
 * and LF; property values also ':' and ','.
 */
static int gh_escape(FILE *f, const char *v, bool property)
{
	/*
	 * annotations end up on a log page: control characters as \xNN, as in text; every
	 * field is one line, so a newline in it is content and escaped too
	 */
	char *e = v ? escape_dup(v, strlen(v)) : NULL;

	if (v && !e)
		return -ENOMEM;
	for (const char *s = e; s && *s; s++) {
		switch (*s) {
		case '%':
			fputs("%25", f);
			break;
		case '\r':
			fputs("%0D", f);
			break;
		case '\n':
			fputs("%0A", f);
			break;
		case ':':
			fputs(property ? "%3A" : ":", f);
			break;
		case ',':
			fputs(property ? "%2C" : ",", f);
			break;
		default:
			fputc(*s, f);
		}
	}
	free(e);
	return 0;
}

int ci_github_write(FILE *f, const struct ci_fmt_annotation *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *sep = " ";
		int r = 0;

		fprintf(f, "::%s", a[i].level == CI_FMT_ERROR	  ? "error"
				   : a[i].level == CI_FMT_WARNING ? "warning"
								  : "notice");
		if (a[i].file) {
			fputs(" file=", f);
			r |= gh_escape(f, a[i].file, true);
			sep = ",";
			if (a[i].line) {
				fprintf(f, ",line=%" PRIu64, a[i].line);
				if (a[i].end_line > a[i].line)
					fprintf(f, ",endLine=%" PRIu64, a[i].end_line);
			}
		}
		if (a[i].title) {
			fprintf(f, "%stitle=", sep);
			r |= gh_escape(f, a[i].title, true);
		}
		fputs("::", f);
		r |= gh_escape(f, a[i].message, false);
		fputc('\n', f);
		if (r < 0)
			return -ENOMEM;
	}
	return stream_flush(f);
}

/* --- JSON lines ---------------------------------------------------------------------- */

/* --- baseline -------------------------------------------------------------------------- */

struct ci_fmt_baseline *ci_baseline_free(struct ci_fmt_baseline *b)
{
	if (!b)
		return NULL;
	for (size_t i = 0; i < b->n; i++) {
		free(b->items[i].class);
		free(b->items[i].module);
	}
	free(b->items);
	free(b);
	return NULL;
}

static bool get_u64(json_object *o, const char *key, uint64_t *ret, bool *ret_null)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return false;
	if (!v) {
		if (ret_null) {
			*ret_null = true;
			return true;
		}
		return false;
	}
	if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
		return false;
	*ret = json_object_get_uint64(v);
	if (ret_null)
		*ret_null = false;
	return true;
}

static int baseline_item(json_object *row, struct ci_fmt_baseline_item *it, const char **what)
{
	json_object *v;
	bool null;

	if (!json_object_is_type(row, json_type_object) ||
	    !json_object_object_get_ex(row, "class", &v) || !json_object_is_type(v, json_type_string)) {
		*what = "a finding without a class";
		return -EINVAL;
	}
	it->class = strdup(json_object_get_string(v));
	if (!it->class)
		return -ENOMEM;
	if (json_object_object_get_ex(row, "module", &v) && v) {
		if (!json_object_is_type(v, json_type_string)) {
			*what = "a finding's module is not a string";
			return -EINVAL;
		}
		it->module = strdup(json_object_get_string(v));
		if (!it->module)
			return -ENOMEM;
	}
	/* schema 2 compares attempts; a baseline of schema 1 has its lines only */
	if (!get_u64(row, "attempts", &it->count, NULL) &&
	    !get_u64(row, "count", &it->count, NULL)) {
		*what = "a finding without a count";
		return -EINVAL;
	}
	if (get_u64(row, "wasted", &it->wasted, &null))
		it->wasted_known = !null;
	return 0;
}

int ci_baseline_parse(const char *buf, size_t len, struct ci_fmt_baseline **ret,
		      const char **reterr_what)
{
	struct json_tokener *tok;
	json_object *doc, *v, *findings;
	struct ci_fmt_baseline *b = NULL;
	bool null;
	int r;

	if (len > INT_MAX) {
		*reterr_what = "too big";
		return -EINVAL;
	}
	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	doc = json_tokener_parse_ex(tok, buf, (int)len);
	if (!doc || json_tokener_get_error(tok) != json_tokener_success) {
		json_tokener_free(tok);
		json_object_put(doc);
		*reterr_what = "not a JSON document";
		return -EINVAL;
	}
	json_tokener_free(tok);
	r = -EINVAL;
	if (!json_object_is_type(doc, json_type_object) ||
	    !json_object_object_get_ex(doc, "command", &v) || !json_object_is_type(v, json_type_string) ||
	    strcmp(json_object_get_string(v), "ci") != 0) {
		*reterr_what = "not the output of 'kmodtop ci --json'";
		goto out;
	}
	if (!json_object_object_get_ex(doc, "findings", &findings) ||
	    !json_object_is_type(findings, json_type_array)) {
		*reterr_what = "no findings array";
		goto out;
	}
	b = calloc(1, sizeof(*b));
	if (!b) {
		r = -ENOMEM;
		goto out;
	}
	b->n = json_object_array_length(findings);
	b->items = calloc(b->n ? b->n : 1, sizeof(*b->items));
	if (!b->items) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < b->n; i++) {
		r = baseline_item(json_object_array_get_idx(findings, i), &b->items[i], reterr_what);
		if (r < 0)
			goto out;
	}
	if (json_object_object_get_ex(doc, "totals", &v) && json_object_is_type(v, json_type_object)) {
		get_u64(v, "boots", &b->boots, NULL);
		if (get_u64(v, "wasted", &b->wasted, &null))
			b->wasted_known = !null;
	}
	*ret = b;
	b = NULL;
	r = 0;
out:
	ci_baseline_free(b);
	json_object_put(doc);
	return r;
}
