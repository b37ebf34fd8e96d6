/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/io.h"
#include "util/linereader.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/parse-num.h"
#include "util/root.h"
#include "cmd/ci-config.h"

/* A baseline is one earlier report */
#define BASELINE_MAX (64 << 20)

static const struct {
	const char *key;
	int opt;
} config_keys[] = {
	{ "max-duplicates", OPT_MAX_DUPLICATES },
	{ "max-failures", OPT_MAX_FAILURES },
	{ "max-wasted", OPT_MAX_WASTED },
	{ "fail-on", OPT_FAIL_ON },
	{ "allow", OPT_ALLOW },
	{ "baseline", OPT_BASELINE },
	{ "tolerance", OPT_TOLERANCE },
	{ "junit", OPT_JUNIT },
	{ "sarif", OPT_SARIF },
};

void ci_settings_done(struct ci_settings *s)
{
	for (size_t i = 0; i < s->opt.n_allow; i++)
		free(s->opt.allow[i]);
	free(s->opt.allow);
	free(s->baseline);
	free(s->junit);
	free(s->sarif);
	free(s->config);
}

static int set_count(const char *v, int64_t *ret)
{
	uint64_t n;

	if (parse_u64(v, 10, &n) < 0 || n > INT64_MAX)
		return -EINVAL;
	*ret = (int64_t)n;
	return 0;
}

static int add_classes(struct ci_options *o, const char *list, const char **ret_bad,
		       char *bad, size_t bad_size)
{
	_cleanup_free_ char *dup = strdup(list);
	char *save = NULL;

	if (!dup)
		return -ENOMEM;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int cls;

		while (*t == ' ')
			t++;
		for (char *e = t + strlen(t); e > t && e[-1] == ' ';)
			*--e = '\0';
		if (!*t)
			continue;
		cls = ci_class_find(t);
		if (cls >= 0) {
			o->fail_on |= 1ull << cls;
			continue;
		}
		/* group names: "failures" and friends */
		for (size_t i = 0; i < ci_class_count(); i++)
			if (strcmp(ci_group_name(ci_class_group(i)), t) == 0)
				o->fail_on |= 1ull << i, cls = (int)i;
		if (cls < 0) {
			snprintf(bad, bad_size, "%s", t);
			*ret_bad = bad;
			return -EINVAL;
		}
	}
	return 0;
}

static int add_allow(struct ci_options *o, const char *list)
{
	_cleanup_free_ char *dup = strdup(list);
	char *save = NULL;

	if (!dup)
		return -ENOMEM;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char **na, *p;

		while (*t == ' ')
			t++;
		for (char *e = t + strlen(t); e > t && e[-1] == ' ';)
			*--e = '\0';
		if (!*t)
			continue;
		na = realloc(o->allow, (o->n_allow + 1) * sizeof(char *));
		if (!na)
			return -ENOMEM;
		o->allow = na;
		p = strdup(t);
		if (!p)
			return -ENOMEM;
		for (char *q = p; *q; q++)
			if (*q == '-')
				*q = '_';
		o->allow[o->n_allow++] = p;
	}
	return 0;
}

int ci_settings_set_path(char **dst, const char *v)
{
	char *p = strdup(v);

	if (!p)
		return -ENOMEM;
	free(*dst);
	*dst = p;
	return 0;
}

/*
 * Applies one setting; @origin names it in messages ("--max-failures", "'ci.conf':3").
 * A config file does not override the command line, except lists, which add up.
 */
int ci_settings_apply(struct ci_settings *s, int opt, const char *v, const char *origin,
		      bool cmdline)
{
	size_t slot = (size_t)(opt - OPT_CMD_BASE);
	const char *bad = NULL;
	char badbuf[64];
	uint64_t size;
	double tol;
	char *end;
	int r = 0;

	if (!cmdline && s->set[slot] && opt != OPT_FAIL_ON && opt != OPT_ALLOW)
		return 0;
	if (cmdline)
		s->set[slot] = true;
	switch (opt) {
	case OPT_MAX_DUPLICATES:
		r = set_count(v, &s->opt.max_duplicates);
		break;
	case OPT_MAX_FAILURES:
		r = set_count(v, &s->opt.max_failures);
		break;
	case OPT_MAX_WASTED:
		r = ci_parse_size(v, &size);
		if (r == 0 && size > INT64_MAX)
			r = -ERANGE;
		if (r == 0)
			s->opt.max_wasted = (int64_t)size;
		break;
	case OPT_FAIL_ON:
		r = add_classes(&s->opt, v, &bad, badbuf, sizeof(badbuf));
		if (r == -EINVAL) {
			log_error("%s: unknown finding class '%s' (see kmodtop(8), CI FINDINGS)",
				  origin, bad);
			return r;
		}
		break;
	case OPT_ALLOW:
		r = add_allow(&s->opt, v);
		break;
	case OPT_BASELINE:
		r = ci_settings_set_path(&s->baseline, v);
		break;
	case OPT_TOLERANCE:
		errno = 0;
		tol = strtod(v, &end);
		if (end == v || *end || errno || !isfinite(tol) || tol < 0)
			r = -EINVAL;
		else
			s->opt.tolerance = tol;
		break;
	case OPT_JUNIT:
		r = ci_settings_set_path(&s->junit, v);
		break;
	case OPT_SARIF:
		r = ci_settings_set_path(&s->sarif, v);
		break;
	}
	if (r == -ENOMEM)
		log_error("out of memory");
	else if (r < 0)
		log_error("%s: invalid value '%s'", origin, v);
	return r;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

int ci_settings_read_config(struct ci_settings *s, const char *path)
{
	_cleanup_fclose_ FILE *f = NULL;
	struct linereader lr;
	char *line;
	size_t len;
	int r;

	r = input_fopen(path, 1 << 20, &f);
	if (r < 0) {
		log_error("--config '%s': %s", path, strerror(-r));
		return r;
	}
	linereader_init(&lr, f, 4096);
	while ((r = linereader_next(&lr, &line, &len)) != 0) {
		char origin[300], *key, *value, *eq, *hash;
		size_t k;

		snprintf(origin, sizeof(origin), "'%s':%u", path, lr.lineno);
		if (r < 0) {
			log_error("%s: %s", origin, r == -E2BIG ? "line too long" : strerror(-r));
			goto out;
		}
		/* '#' starts a comment at the line's start or after a blank */
		for (hash = line; (hash = strchr(hash, '#')); hash++)
			if (hash == line || hash[-1] == ' ' || hash[-1] == '\t') {
				*hash = '\0';
				break;
			}
		key = trim(line);
		if (!*key)
			continue;
		eq = strchr(key, '=');
		if (!eq) {
			log_error("%s: expected 'key = value'", origin);
			r = -EINVAL;
			goto out;
		}
		*eq = '\0';
		key = trim(key);
		value = trim(eq + 1);
		for (k = 0; k < ARRAY_SIZE(config_keys); k++)
			if (strcmp(config_keys[k].key, key) == 0)
				break;
		if (k == ARRAY_SIZE(config_keys)) {
			log_error("%s: unknown key '%s'", origin, key);
			r = -EINVAL;
			goto out;
		}
		if (!*value) {
			log_error("%s: '%s' has no value", origin, key);
			r = -EINVAL;
			goto out;
		}
		r = ci_settings_apply(s, config_keys[k].opt, value, origin, false);
		if (r < 0)
			goto out;
	}
out:
	linereader_done(&lr);
	return r;
}

int ci_settings_read_baseline(const char *path, struct ci_fmt_baseline **ret)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_close_ int fd = -1;
	const char *what = NULL;
	size_t len = 0, cap = 0;
	int r;

	fd = input_open(path, ROOT_STREAM_MAX);
	if (fd < 0) {
		log_error("--baseline '%s': %s", path, strerror(-fd));
		return fd;
	}
	for (;;) {
		ssize_t n;

		if (len == cap) {
			char *nb;

			cap = cap ? cap * 2 : 65536;
			if (cap > BASELINE_MAX) {
				log_error("--baseline '%s': bigger than %d MiB", path,
					  BASELINE_MAX >> 20);
				return -EFBIG;
			}
			nb = realloc(buf, cap);
			if (!nb)
				return -ENOMEM;
			buf = nb;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			log_error("--baseline '%s': %s", path, strerror(errno));
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	r = ci_baseline_parse(buf, len, ret, &what);
	if (r == -EINVAL)
		log_error("--baseline '%s': %s", path, what);
	else if (r < 0)
		log_error("out of memory");
	return r;
}
