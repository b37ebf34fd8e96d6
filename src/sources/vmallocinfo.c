/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/linereader.h"
#include "util/macro.h"
#include "util/parse-num.h"
#include "vmallocinfo.h"

#define PROC_VMALLOCINFO "proc/vmallocinfo"
/* 1 GiB of text: ten million areas */
#define VMALLOCINFO_TEXT_MAX (1u << 30)

static const struct {
	const char *word;
	unsigned int flag;
} flag_words[] = {
	{ "ioremap", VMA_IOREMAP },
	{ "vmalloc", VMA_VMALLOC },
	{ "vmap", VMA_VMAP },
	{ "user", VMA_USER },
	{ "vpages", VMA_VPAGES },
	{ "sparse", VMA_SPARSE },
	{ "dma-coherent", VMA_DMA_COHERENT },
};

const char *vmalloc_addr_mode_name(enum vmalloc_addr_mode m)
{
	switch (m) {
	case VMALLOC_ADDR_REAL:
		return "real";
	case VMALLOC_ADDR_HASHED:
		return "hashed";
	case VMALLOC_ADDR_ZERO:
		return "zero";
	case VMALLOC_ADDR_UNKNOWN:
		break;
	}
	return "unknown";
}

void vmalloc_area_done(struct vmalloc_area *a)
{
	if (!a)
		return;
	free(a->caller);
	free(a->caller_module);
	free(a->numa);
	memset(a, 0, sizeof(*a));
}

/* "0x" and hex digits; @s is NUL-terminated at @n */
static int parse_hex_token(const char *s, size_t n, uint64_t *ret)
{
	if (n < 2 || s[0] != '0' || s[1] != 'x')
		return -EINVAL;
	return parse_u64_n(s + 2, n - 2, 16, ret);
}

static bool tok_is(const char *t, size_t n, const char *lit, size_t litlen)
{
	return n == litlen && memcmp(t, lit, n) == 0;
}

#define TOK_IS(t, n, lit) tok_is(t, n, lit, sizeof(lit) - 1)

/* "sym+0xoff/0xlen" (%pS); a bare "0xffff..." when the address has no symbol */
static int parse_caller(char *tok, size_t n, struct vmalloc_area *a)
{
	char *plus, *slash;

	if (n >= 2 && tok[0] == '0' && tok[1] == 'x') {
		a->caller = strndup(tok, n);
		return a->caller ? 0 : -ENOMEM;
	}
	plus = memrchr(tok, '+', n);
	if (!plus)
		return -EINVAL;
	slash = memchr(plus, '/', n - (size_t)(plus - tok));
	if (!slash)
		return -EINVAL;
	*plus = '\0';
	*slash = '\0';
	if (!tok[0] || parse_hex_token(plus + 1, (size_t)(slash - plus - 1), &a->caller_off) < 0 ||
	    parse_hex_token(slash + 1, n - (size_t)(slash + 1 - tok), &a->caller_len) < 0)
		return -EINVAL;
	a->caller = strndup(tok, (size_t)(plus - tok));
	return a->caller ? 0 : -ENOMEM;
}

static bool is_caller_token(const char *t, size_t n)
{
	/* a caller has "+0x"; flags and key=value words do not */
	if (n >= 2 && t[0] == '0' && t[1] == 'x' && !memchr(t, '-', n))
		return true;
	for (const char *p = t; (p = memchr(p, '+', n - (size_t)(p - t))); p++)
		if ((size_t)(t + n - p) >= 3 && p[1] == '0' && p[2] == 'x')
			return true;
	return false;
}

static int add_numa(struct vmalloc_area *a, unsigned int node, uint64_t pages)
{
	struct vmalloc_numa *n = realloc(a->numa, (a->n_numa + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	a->numa = n;
	a->numa[a->n_numa].node = node;
	a->numa[a->n_numa].pages = pages;
	a->n_numa++;
	return 0;
}

/* token separators for strtok_r(" \t"), and the NUL that ends the line */
static const bool is_sep[256] = { [' '] = true, ['\t'] = true, ['\0'] = true };

/*
 * strtok_r(" \t") without its per-call set scanning: the next token of the line at
 * *pos (NUL-terminated, no NUL inside), NUL-terminated in place, its length in *ret_n;
 * NULL when there is none.
 */
static char *next_token(char **pos, size_t *ret_n)
{
	char *p = *pos, *t;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p) {
		*pos = p;
		return NULL;
	}
	t = p;
	while (!is_sep[(unsigned char)*p])
		p++;
	*ret_n = (size_t)(p - t);
	if (*p) {
		*p = '\0';
		p++;
	}
	*pos = p;
	return t;
}

int vmallocinfo_parse_line(char *line, size_t len, struct vmalloc_area *ret_area,
			   const char **reterr_what)
{
	struct vmalloc_area a = {0};
	char *pos = line, *t, *dash;
	int r = -EINVAL, idx = 0;
	size_t n;

	if (memchr(line, '\0', len)) {
		*reterr_what = "line contains a NUL byte";
		return -EINVAL;
	}
	/* strtok_r() went by the NUL terminator too: the tokens end at line[len] */
	t = next_token(&pos, &n);
	if (!t) {
		*reterr_what = "empty line";
		return -EINVAL;
	}
	dash = memchr(t, '-', n);
	if (!dash) {
		*reterr_what = "missing address range";
		return -EINVAL;
	}
	*dash = '\0';
	if (parse_hex_token(t, (size_t)(dash - t), &a.start) < 0 ||
	    parse_hex_token(dash + 1, n - (size_t)(dash + 1 - t), &a.end) < 0) {
		/* early in boot hashed pointers print as "(ptrval)" */
		if (strstr(t, "ptrval") || strstr(dash + 1, "ptrval")) {
			a.start = a.end = 0;
		} else {
			*reterr_what = "address is not a hex number";
			return -EINVAL;
		}
	}
	t = next_token(&pos, &n);
	if (!t) {
		*reterr_what = "missing size";
		return -EINVAL;
	}
	if (parse_u64_n(t, n, 10, &a.size) < 0) {
		*reterr_what = "size is not a number";
		return -EINVAL;
	}
	while ((t = next_token(&pos, &n))) {
		size_t i;

		idx++;
		if (TOK_IS(t, n, "vmalloc")) {
			/* the commonest word first */
			a.flags |= VMA_VMALLOC;
			continue;
		}
		if (TOK_IS(t, n, "vm_map_ram")) {
			a.flags |= VMA_VM_MAP_RAM;
			continue;
		}
		if (TOK_IS(t, n, "unpurged")) {
			t = next_token(&pos, &n);
			if (!t || !TOK_IS(t, n, "vm_area")) {
				*reterr_what = "malformed unpurged vm_area line";
				goto fail;
			}
			a.flags |= VMA_UNPURGED;
			continue;
		}
		if (n >= 6 && memcmp(t, "pages=", 6) == 0) {
			if (parse_u64_n(t + 6, n - 6, 10, &a.pages) < 0) {
				*reterr_what = "pages= is not a number";
				goto fail;
			}
			a.has_pages = true;
			continue;
		}
		if (n >= 5 && memcmp(t, "phys=", 5) == 0) {
			/* "%pa" prints 0x-prefixed; very old kernels printed "%llx" */
			size_t k = n >= 7 && t[5] == '0' && t[6] == 'x' ? 7 : 5;

			if (parse_u64_n(t + k, n - k, 16, &a.phys) < 0) {
				*reterr_what = "phys= is not a hex number";
				goto fail;
			}
			a.has_phys = true;
			continue;
		}
		if (t[0] == 'N' && t[1] >= '0' && t[1] <= '9' && memchr(t, '=', n)) {
			char *eq = memchr(t, '=', n);
			uint64_t node, pages;

			*eq = '\0';
			if (parse_u64_n(t + 1, (size_t)(eq - t - 1), 10, &node) < 0 ||
			    node > UINT32_MAX ||
			    parse_u64_n(eq + 1, n - (size_t)(eq + 1 - t), 10, &pages) < 0) {
				*reterr_what = "malformed N<node>= count";
				goto fail;
			}
			r = add_numa(&a, (unsigned int)node, pages);
			if (r < 0)
				goto fail_nomsg;
			continue;
		}
		if (idx == 1 && !a.caller && is_caller_token(t, n)) {
			r = parse_caller(t, n, &a);
			if (r == -EINVAL)
				*reterr_what = "malformed caller symbol";
			if (r < 0)
				goto fail_nomsg;
			continue;
		}
		if (t[0] == '[' && a.caller && !a.caller_module && idx == 2) {
			if (n < 3 || t[n - 1] != ']') {
				*reterr_what = "malformed [module] suffix";
				goto fail;
			}
			a.caller_module = strndup(t + 1, n - 2);
			if (!a.caller_module) {
				r = -ENOMEM;
				goto fail_nomsg;
			}
			continue;
		}
		for (i = 0; i < ARRAY_SIZE(flag_words); i++)
			if (strcmp(t, flag_words[i].word) == 0)
				break;
		/* vmallocinfo gains words across kernels: remember, don't fail */
		a.flags |= i < ARRAY_SIZE(flag_words) ? flag_words[i].flag : VMA_UNKNOWN_FLAG;
	}
	*ret_area = a;
	return 0;
fail:
	r = -EINVAL;
fail_nomsg:
	vmalloc_area_done(&a);
	return r;
}

struct vmallocinfo *vmallocinfo_free(struct vmallocinfo *vi)
{
	size_t i;

	if (!vi)
		return NULL;
	for (i = 0; i < vi->n; i++)
		vmalloc_area_done(&vi->areas[i]);
	free(vi->areas);
	free(vi->text);
	free(vi->line_end);
	free(vi);
	return NULL;
}

DEFINE_FREEP(struct vmallocinfo, vmallocinfo_free)

static enum vmalloc_addr_mode detect_addr_mode(const struct vmallocinfo *vi)
{
	size_t i, zero = 0, high = 0;

	if (vi->n == 0)
		return VMALLOC_ADDR_UNKNOWN;
	for (i = 0; i < vi->n; i++) {
		uint64_t s = vi->areas[i].start;

		if (s == 0)
			zero++;
		else if (s >> 47 == 0x1ffff || s >> 55 == 0x1ff)
			high++; /* canonical kernel half, 4- or 5-level paging */
	}
	if (zero == vi->n)
		return VMALLOC_ADDR_ZERO;
	/* %pK hashes are 32 bits wide on 64-bit kernels (ptr_to_hashval) */
	if (high == vi->n - zero)
		return VMALLOC_ADDR_REAL;
	return VMALLOC_ADDR_HASHED;
}

struct read_ctx {
	struct vmallocinfo *vi;
	size_t cap;
};

static int read_line(void *userdata, char *line, size_t len, const char **ret_what)
{
	struct read_ctx *c = userdata;
	struct vmallocinfo *vi = c->vi;
	int r;

	if (vi->n == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 256;
		struct vmalloc_area *na = realloc(vi->areas, ncap * sizeof(*na));

		if (!na)
			return -ENOMEM;
		vi->areas = na;
		c->cap = ncap;
	}
	r = vmallocinfo_parse_line(line, len, &vi->areas[vi->n], ret_what);
	if (r < 0)
		return r;
	if (vi->areas[vi->n].flags & VMA_UNKNOWN_FLAG)
		vi->unknown_flag_lines++;
	vi->n++;
	return 0;
}

int vmallocinfo_read_file(FILE *f, const char *path, struct vmallocinfo **ret,
			  struct kt_err *reterr)
{
	_cleanup_(vmallocinfo_freep) struct vmallocinfo *vi = NULL;
	struct read_ctx c = {0};
	int r;

	vi = calloc(1, sizeof(*vi));
	if (!vi)
		return -ENOMEM;
	c.vi = vi;
	r = linereader_each(f, path, 0, read_line, &c, reterr);
	if (r < 0)
		return r;
	vi->addr_mode = detect_addr_mode(vi);
	*ret = vi;
	vi = NULL;
	return 0;
}

int vmallocinfo_read(const struct kt_root *root, struct vmallocinfo **ret,
		     struct kt_err *reterr)
{
	_cleanup_fclose_ FILE *f = NULL;
	int r;

	r = root_fopen(root, PROC_VMALLOCINFO, &f);
	if (r < 0) {
		kt_err_set(reterr, PROC_VMALLOCINFO, 0, NULL);
		return r;
	}
	return vmallocinfo_read_file(f, PROC_VMALLOCINFO, ret, reterr);
}

/* --- incremental re-reading ------------------------------------------------------ */

/* Length of the common prefix of @a and @b (@n bytes each): memcmp() by blocks. */
static size_t common_prefix(const char *a, const char *b, size_t n)
{
	size_t i = 0;

	while (n - i >= 4096 && memcmp(a + i, b + i, 4096) == 0)
		i += 4096;
	while (n - i >= 64 && memcmp(a + i, b + i, 64) == 0)
		i += 64;
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/* Length of the common suffix of the texts ending at @a and @b, at most @n bytes. */
static size_t common_suffix(const char *a, const char *b, size_t n)
{
	size_t i = 0;

	while (n - i >= 4096 && memcmp(a - i - 4096, b - i - 4096, 4096) == 0)
		i += 4096;
	while (n - i >= 64 && memcmp(a - i - 64, b - i - 64, 64) == 0)
		i += 64;
	while (i < n && a[-(ptrdiff_t)i - 1] == b[-(ptrdiff_t)i - 1])
		i++;
	return i;
}

/* How many lines of @vi end at or before byte @off (line_end is increasing). */
static size_t lines_before(const struct vmallocinfo *vi, size_t off)
{
	size_t lo = 0, hi = vi->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (vi->line_end[mid] <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t count_lines(const char *s, size_t len)
{
	size_t n = 0;
	const char *p = s, *end = s + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		n++;
		p = nl ? nl + 1 : end;
	}
	return n;
}

int vmallocinfo_update(struct vmallocinfo **vip, const char *text, size_t len,
		       const char *path, struct vmallocinfo_change *ret_change,
		       struct kt_err *reterr)
{
	struct vmallocinfo *old = *vip, *vi;
	size_t pre_b = 0, pre_a = 0, suf_a = 0, q = len, qo = 0, n_mid, removed, i, k;
	char *line = NULL;
	size_t line_cap = 0;
	const char *p;
	int r = -ENOMEM;

	if (old && old->text) {
		size_t m = old->text_len < len ? old->text_len : len, s;

		pre_b = common_prefix(old->text, text, m);
		if (pre_b == old->text_len && pre_b == len) {
			/* the same text: the same areas */
			if (ret_change)
				*ret_change = (struct vmallocinfo_change){ old->n, 0, 0 };
			return 0;
		}
		/* back to the start of the line the difference is in */
		while (pre_b > 0 && text[pre_b - 1] != '\n')
			pre_b--;
		pre_a = lines_before(old, pre_b);
		s = common_suffix(old->text + old->text_len, text + len, m - pre_b);
		q = len - s;
		qo = old->text_len - s;
		/* forward to a line start in both texts */
		while (q < len && !((q == pre_b || text[q - 1] == '\n') &&
				    (qo == pre_b || old->text[qo - 1] == '\n'))) {
			const char *nl = memchr(text + q, '\n', len - q);

			q = nl ? (size_t)(nl + 1 - text) : len;
			qo = old->text_len - (len - q);
		}
		if (q == len)
			qo = old->text_len;
		suf_a = old->n - lines_before(old, qo);
	}
	n_mid = count_lines(text + pre_b, q - pre_b);

	vi = calloc(1, sizeof(*vi));
	if (!vi)
		return -ENOMEM;
	vi->text = malloc(len + 1);
	vi->areas = malloc((pre_a + n_mid + suf_a + 1) * sizeof(*vi->areas));
	vi->line_end = malloc((pre_a + n_mid + suf_a + 1) * sizeof(*vi->line_end));
	if (!vi->text || !vi->areas || !vi->line_end)
		goto fail;
	memcpy(vi->text, text, len);
	vi->text[len] = '\0';
	vi->text_len = len;

	/* the new lines, parsed from a copy: parsing cuts a line into tokens in place */
	k = pre_a;
	for (p = text + pre_b; p < text + q;) {
		const char *nl = memchr(p, '\n', (size_t)(text + q - p));
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(text + q - p);
		const char *what = NULL;
		unsigned int lineno = (unsigned int)(k + 1);

		if (ll > LINEREADER_DEFAULT_MAX) {
			kt_err_set(reterr, path, lineno, "line too long");
			r = -EINVAL;
			goto fail;
		}
		if (ll + 1 > line_cap) {
			char *nb = realloc(line, ll + 1);

			if (!nb) {
				r = -ENOMEM;
				goto fail;
			}
			line = nb;
			line_cap = ll + 1;
		}
		memcpy(line, p, ll);
		line[ll] = '\0';
		r = vmallocinfo_parse_line(line, ll, &vi->areas[k], &what);
		if (r < 0) {
			if (r == -EINVAL)
				kt_err_set(reterr, path, lineno, what);
			goto fail;
		}
		p += ll + (nl ? 1 : 0);
		vi->line_end[k] = (size_t)(p - text);
		vi->n = ++k;
	}
	free(line);
	line = NULL;

	/* the lines before and after move over as they are */
	removed = old ? old->n - pre_a - suf_a : 0;
	if (old) {
		if (pre_a) {
			memcpy(vi->areas, old->areas, pre_a * sizeof(*vi->areas));
			memcpy(vi->line_end, old->line_end, pre_a * sizeof(*vi->line_end));
		}
		for (i = 0; i < suf_a; i++) {
			size_t o = old->n - suf_a + i;

			vi->areas[k + i] = old->areas[o];
			vi->line_end[k + i] = old->line_end[o] - old->text_len + len;
		}
		/* the old lines in between go with the old text */
		for (i = pre_a; i < old->n - suf_a; i++)
			vmalloc_area_done(&old->areas[i]);
		old->n = 0;
		vmallocinfo_free(old);
	}
	vi->n = pre_a + n_mid + suf_a;
	for (i = 0; i < vi->n; i++)
		if (vi->areas[i].flags & VMA_UNKNOWN_FLAG)
			vi->unknown_flag_lines++;
	vi->addr_mode = detect_addr_mode(vi);
	if (ret_change)
		*ret_change = (struct vmallocinfo_change){
			pre_a, removed, n_mid
		};
	*vip = vi;
	return 0;
fail:
	free(line);
	for (i = pre_a; i < vi->n; i++)
		vmalloc_area_done(&vi->areas[i]);
	vi->n = 0;
	vmallocinfo_free(vi);
	return r;
}

int vmallocinfo_reread(const struct kt_root *root, struct vmallocinfo **vi,
		       struct vmallocinfo_change *ret_change, struct kt_err *reterr)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	int r;

	r = root_read_file(root, PROC_VMALLOCINFO, VMALLOCINFO_TEXT_MAX, &buf, &len);
	if (r < 0) {
		kt_err_set(reterr, PROC_VMALLOCINFO, 0, NULL);
		return r;
	}
	return vmallocinfo_update(vi, buf, len, PROC_VMALLOCINFO, ret_change, reterr);
}
