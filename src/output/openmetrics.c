/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "openmetrics.h"

struct om {
	enum om_flavour fl;
	FILE *f;
	int err;
	struct om_label *consts;	/* names and values owned */
	size_t n_consts;
	/* the family the next samples belong to; its header is written with the first */
	const char *name, *unit, *help;
	enum om_type type;
	bool header_done;
};

static void set_err(struct om *m, int err)
{
	if (!m->err)
		m->err = err;
}

int om_new(enum om_flavour fl, FILE *f, struct om **ret)
{
	struct om *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	m->fl = fl;
	m->f = f;
	*ret = m;
	return 0;
}

struct om *om_free(struct om *m)
{
	if (!m)
		return NULL;
	for (size_t i = 0; i < m->n_consts; i++) {
		free((char *)m->consts[i].name);
		free((char *)m->consts[i].value);
	}
	free(m->consts);
	free(m);
	return NULL;
}

bool om_label_name_valid(const char *s)
{
	if (!s || !*s || (s[0] == '_' && s[1] == '_'))
		return false;
	for (const char *p = s; *p; p++) {
		bool alpha = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			     *p == '_';

		if (!alpha && (p == s || *p < '0' || *p > '9'))
			return false;
	}
	return true;
}

int om_add_const_label(struct om *m, const char *name, const char *value)
{
	struct om_label *v;
	char *n, *val;

	if (!om_label_name_valid(name) || (value && !utf8_valid(value, strlen(value))))
		return -EINVAL;
	v = realloc(m->consts, (m->n_consts + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	m->consts = v;
	n = strdup(name);
	val = strdup(value ? value : "");
	if (!n || !val) {
		free(n);
		free(val);
		return -ENOMEM;
	}
	m->consts[m->n_consts++] = (struct om_label){ n, val };
	return 0;
}

/* One character as a quoted value (@help: a HELP text, where 0.0.4 has no \") wants it */
static void put_escaped(struct om *m, char c, bool help)
{
	if (c == '\\')
		fputs("\\\\", m->f);
	else if (c == '\n')
		fputs("\\n", m->f);
	else if (c == '"' && !(help && m->fl == OM_PROMETHEUS))
		fputs("\\\"", m->f);
	else
		fputc(c, m->f);
}

char *om_escape_label_value(const char *s, size_t len)
{
	char *out, *p;

	if (len > (SIZE_MAX - 1) / 2)
		return NULL;
	out = malloc(len * 2 + 1);
	if (!out)
		return NULL;
	p = out;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\\' || s[i] == '"' || s[i] == '\n') {
			*p++ = '\\';
			*p++ = s[i] == '\n' ? 'n' : s[i];
		} else {
			*p++ = s[i];
		}
	}
	*p = '\0';
	return out;
}

/* @from_kernel: shown as the text report shows names; else as given (--label) */
static void put_value(struct om *m, const char *v, bool from_kernel)
{
	size_t len = v ? strlen(v) : 0;
	char *esc = NULL;

	if (from_kernel && len && escape_needed(v, len)) {
		esc = escape_dup(v, len);
		if (!esc) {
			set_err(m, -ENOMEM);
			return;
		}
		v = esc;
	}
	fputc('"', m->f);
	for (const char *p = v; p && *p; p++)
		put_escaped(m, *p, false);
	fputc('"', m->f);
	free(esc);
}

void om_family(struct om *m, const char *name, enum om_type type, const char *unit,
	       const char *help)
{
	size_t nl = strlen(name), ul = unit ? strlen(unit) : 0;

	/* OpenMetrics: the unit is the name's last word; no _total on a counter's */
	if (unit &&
	    (nl <= ul || strcmp(name + nl - ul, unit) != 0 || name[nl - ul - 1] != '_'))
		set_err(m, -EINVAL);
	if (type == OM_COUNTER && nl >= 6 && strcmp(name + nl - 6, "_total") == 0)
		set_err(m, -EINVAL);
	m->name = name;
	m->type = type;
	m->unit = unit;
	m->help = help;
	m->header_done = false;
}

static const char *sample_suffix(const struct om *m)
{
	return m->type == OM_COUNTER ? "_total" : "";
}

static void write_header(struct om *m)
{
	/* the Prometheus format names a counter family by its samples' name */
	const char *suffix = m->fl == OM_PROMETHEUS ? sample_suffix(m) : "";

	fprintf(m->f, "# HELP %s%s ", m->name, suffix);
	for (const char *p = m->help; *p; p++)
		put_escaped(m, *p, true);
	fprintf(m->f, "\n# TYPE %s%s %s\n", m->name, suffix,
		m->type == OM_COUNTER ? "counter" : "gauge");
	if (m->unit && m->fl == OM_OPENMETRICS)
		fprintf(m->f, "# UNIT %s %s\n", m->name, m->unit);
	m->header_done = true;
}

static void put_labels(struct om *m, const struct om_label *labels, size_t n)
{
	bool first = true;

	if (!m->n_consts && !n)
		return;
	fputc('{', m->f);
	for (size_t k = 0; k < m->n_consts + n; k++) {
		const struct om_label *l = k < m->n_consts ? &m->consts[k]
							   : &labels[k - m->n_consts];

		if (!om_label_name_valid(l->name)) {
			set_err(m, -EINVAL);
			continue;
		}
		if (!first)
			fputc(',', m->f);
		first = false;
		fprintf(m->f, "%s=", l->name);
		put_value(m, l->value, k >= m->n_consts);
	}
	fputc('}', m->f);
}

static bool sample_begin(struct om *m, const struct om_label *labels, size_t n)
{
	if (!m->name) {
		set_err(m, -EINVAL);
		return false;
	}
	if (!m->header_done)
		write_header(m);
	fprintf(m->f, "%s%s", m->name, sample_suffix(m));
	put_labels(m, labels, n);
	fputc(' ', m->f);
	return true;
}

void om_sample_u64(struct om *m, const struct om_label *labels, size_t n, uint64_t v)
{
	if (sample_begin(m, labels, n))
		fprintf(m->f, "%" PRIu64 "\n", v);
}

void om_sample_f64(struct om *m, const struct om_label *labels, size_t n, double v)
{
	char buf[40];

	if (!isfinite(v))
		return;
	/* the shortest text that reads back as the same double, as the JSON has it */
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (sample_begin(m, labels, n))
		fprintf(m->f, "%s\n", buf);
}

int om_finish(struct om *m)
{
	if (m->fl == OM_OPENMETRICS)
		fputs("# EOF\n", m->f);
	errno = 0;
	if (fflush(m->f) != 0 || ferror(m->f))
		set_err(m, errno ? -errno : -EIO);
	return m->err;
}
