/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/parse-num.h"
#include "util/array.h"
#include "util/linereader.h"
#include "util/macro.h"
#include "util/root.h"
#include "modsyms.h"

struct modsym {
	uint64_t addr;
	size_t name;			/* offsets into the pool, NUL-terminated */
	size_t module;
};

struct modsyms {
	struct modsym *v;
	size_t n, cap;
	char *pool;
	size_t pool_len, pool_cap;
	/* the module of the previous line: a module's lines come together */
	size_t last_module, last_module_len;
	bool has_last;
};

int modsyms_parse_line(const char *line, size_t len, uint64_t *ret_addr, const char **ret_name,
		       size_t *ret_name_len, const char **ret_module, size_t *ret_module_len,
		       const char **ret_what)
{
	const char *p = line, *end = line + len, *name, *tab, *mod;
	uint64_t addr = 0;
	size_t digits = 0;
	char type;

	/* kallsyms' s_show(): "%px %c %s\t[%s]" for a module's symbol, "%px %c %s" else */
	for (; p < end && hex_digit(*p) >= 0; p++, digits++) {
		if (digits == 16) {
			*ret_what = "address longer than 64 bits";
			return -EINVAL;
		}
		addr = addr << 4 | (uint64_t)hex_digit(*p);
	}
	if (!digits || end - p < 3 || p[0] != ' ' || p[2] != ' ') {
		*ret_what = "not an address, a type and a name";
		return -EINVAL;
	}
	type = p[1];
	name = p + 3;
	tab = memchr(name, '\t', (size_t)(end - name));
	if (!tab)
		return 0;	/* the kernel image's own */
	mod = tab + 1;
	if (end - mod < 3 || mod[0] != '[' || end[-1] != ']' || tab == name) {
		*ret_what = "a module symbol without [module]";
		return -EINVAL;
	}
	/* text only, and never a zero address: kallsyms without CAP_SYSLOG hides them */
	if ((type != 't' && type != 'T') || !addr)
		return 0;
	if ((size_t)(tab - name) >= MODSYMS_NAME_MAX || (size_t)(end - mod - 2) >= MODSYMS_NAME_MAX ||
	    memchr(name, ' ', (size_t)(tab - name)) || memchr(mod + 1, ']', (size_t)(end - mod - 2))) {
		*ret_what = "a symbol or module name that is not one";
		return -EINVAL;
	}
	*ret_addr = addr;
	*ret_name = name;
	*ret_name_len = (size_t)(tab - name);
	*ret_module = mod + 1;
	*ret_module_len = (size_t)(end - mod - 2);
	return 1;
}

int modsyms_filter(FILE *f, FILE *out, size_t *ret_n)
{
	struct linereader lr;
	size_t n = 0;
	char *line;
	size_t len;
	int r;

	linereader_init(&lr, f, MODSYMS_NAME_MAX * 2 + 64);
	while ((r = linereader_next(&lr, &line, &len)) != 0) {
		const char *name, *mod, *what;
		size_t nl, ml;
		uint64_t addr;

		if (r == -E2BIG || r == -EBADMSG)
			continue;
		if (r < 0)
			break;
		if (modsyms_parse_line(line, len, &addr, &name, &nl, &mod, &ml, &what) != 1)
			continue;
		if (fprintf(out, "%016" PRIx64 " t %.*s\t[%.*s]\n", addr, (int)nl, name, (int)ml,
			    mod) < 0) {
			r = -EIO;
			break;
		}
		n++;
	}
	linereader_done(&lr);
	if (ret_n)
		*ret_n = n;
	return r;
}

static int pool_add(struct modsyms *s, const char *str, size_t len, size_t *ret_off)
{
	int r = array_grow_uninit((void **)&s->pool, s->pool_len + len + 1, &s->pool_cap, 1);

	if (r < 0)
		return r;
	memcpy(s->pool + s->pool_len, str, len);
	s->pool[s->pool_len + len] = '\0';
	*ret_off = s->pool_len;
	s->pool_len += len + 1;
	return 0;
}

struct read_ctx {
	struct modsyms *s;
};

static int read_line(void *ctx, char *line, size_t len, const char **ret_what)
{
	struct modsyms *s = ((struct read_ctx *)ctx)->s;
	const char *name, *mod;
	size_t nl, ml, name_off, mod_off;
	uint64_t addr;
	int r = modsyms_parse_line(line, len, &addr, &name, &nl, &mod, &ml, ret_what);

	if (r <= 0)
		return r;
	if (s->has_last && s->last_module_len == ml &&
	    memcmp(s->pool + s->last_module, mod, ml) == 0) {
		mod_off = s->last_module;
	} else {
		r = pool_add(s, mod, ml, &mod_off);
		if (r < 0)
			return r;
		s->last_module = mod_off;
		s->last_module_len = ml;
		s->has_last = true;
	}
	r = pool_add(s, name, nl, &name_off);
	if (r < 0)
		return r;
	r = array_grow((void **)&s->v, s->n + 1, &s->cap, sizeof(*s->v));
	if (r < 0)
		return r;
	s->v[s->n++] = (struct modsym){ .addr = addr, .name = name_off, .module = mod_off };
	return 0;
}

static int by_addr(const void *a, const void *b)
{
	const struct modsym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* equal addresses (aliases): the first name in the pool, so the order is total */
	return (x->name > y->name) - (x->name < y->name);
}

int modsyms_read_file(FILE *f, const char *path, struct modsyms **ret, struct kt_err *reterr)
{
	struct modsyms *s = calloc(1, sizeof(*s));
	struct read_ctx c = { .s = s };
	int r;

	if (!s)
		return -ENOMEM;
	r = linereader_each(f, path, MODSYMS_NAME_MAX * 2 + 64, read_line, &c, reterr);
	if (r < 0) {
		modsyms_free(s);
		return r;
	}
	array_sort(s->v, s->n, sizeof(*s->v), by_addr);
	*ret = s;
	return 0;
}

int modsyms_read(const struct kt_root *root, struct modsyms **ret, struct kt_err *reterr)
{
	_cleanup_fclose_ FILE *f = NULL;
	int r = root_fopen_max(root, MODSYMS_PATH, MODSYMS_MAX, &f);

	if (r < 0) {
		kt_err_set(reterr, MODSYMS_PATH, 0, NULL);
		return r;
	}
	return modsyms_read_file(f, MODSYMS_PATH, ret, reterr);
}

struct modsyms *modsyms_free(struct modsyms *s)
{
	if (!s)
		return NULL;
	free(s->v);
	free(s->pool);
	free(s);
	return NULL;
}

size_t modsyms_count(const struct modsyms *s)
{
	return s ? s->n : 0;
}

const char *modsyms_lookup(const struct modsyms *s, uint64_t addr, const char **ret_module)
{
	size_t lo = 0, hi;
	const struct modsym *m;

	if (!s || !s->n)
		return NULL;
	/* the last symbol at or below @addr */
	hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	m = &s->v[lo - 1];
	if (addr - m->addr >= MODSYMS_REACH)
		return NULL;
	if (ret_module)
		*ret_module = s->pool + m->module;
	return s->pool + m->name;
}
