/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/array.h"
#include "util/linereader.h"
#include "util/hindex.h"
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

/* the canonical kernel half, 4- or 5-level paging: an address as it is, not %pK-hashed */
static bool addr_is_kernel(uint64_t s)
{
	return s >> 47 == 0x1ffff || s >> 55 == 0x1ff;
}

/* the smallest PAGE_SIZE of any architecture: pages= of it must fit in the size */
#define VMALLOC_MIN_PAGE_SIZE 4096u
/* no area is larger than the kernel half of a 57-bit (5-level paging) address space */
#define VMALLOC_AREA_MAX (UINT64_C(1) << 56)

/*
 * What mm/vmalloc.c prints holds together: "start-end size" with end = start + size
 * (the guard page included) and pages= that fit in the size. Hashed (%pK: 32-bit
 * values, each address hashed apart) and zeroed addresses say nothing about the size;
 * the size and the pages still do. NULL when the area is possible.
 */
static const char *area_impossible(const struct vmalloc_area *a)
{
	if (addr_is_kernel(a->start)) {
		if (a->end < a->start)
			return "address range ends before it starts";
		if (a->size > a->end - a->start)
			return "size larger than its address range";
	}
	if (a->size > VMALLOC_AREA_MAX)
		return "size larger than any vmalloc area can be";
	if (a->has_pages && a->pages > a->size / VMALLOC_MIN_PAGE_SIZE)
		return "pages= do not fit in the size";
	return NULL;
}

int vmallocinfo_parse_line(char *line, size_t len, struct vmalloc_area *ret_area,
			   const char **reterr_what)
{
	struct vmalloc_area a = {0};
	const char *what;
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
	what = area_impossible(&a);
	if (what) {
		*reterr_what = what;
		goto fail;
	}
	*ret_area = a;
	return 0;
fail:
	r = -EINVAL;
fail_nomsg:
	vmalloc_area_done(&a);
	return r;
}

/* An area of @vi gone: its strings are the table's when vmallocinfo_read*() kept them */
static void area_drop(const struct vmallocinfo *vi, struct vmalloc_area *a)
{
	if (!vi->str_idx) {
		vmalloc_area_done(a);
		return;
	}
	free(a->numa);
	memset(a, 0, sizeof(*a));
}

static bool str_is(size_t pos, const void *key, const void *userdata)
{
	const struct vmallocinfo *vi = userdata;

	return strcmp(vi->strs[pos], key) == 0;
}

/* *@s (malloc()ed) kept once in @vi's table: taken over, or freed for the copy there */
static int keep_once(struct vmallocinfo *vi, char **s)
{
	uint64_t h;
	size_t pos;

	if (!*s)
		return 0;
	h = hash_str(HASH_INIT, *s);
	pos = hindex_find(vi->str_idx, h, str_is, *s, vi);
	if (pos != HINDEX_NONE) {
		free(*s);
		*s = vi->strs[pos];
		return 0;
	}
	if (array_grow((void **)&vi->strs, vi->n_strs, &vi->cap_strs, sizeof(*vi->strs)) < 0 ||
	    hindex_add(vi->str_idx, h, vi->n_strs) < 0)
		return -ENOMEM;
	vi->strs[vi->n_strs++] = *s;
	return 0;
}

/* A parsed area's strings into @vi's table; on failure the area is released */
static int area_keep(struct vmallocinfo *vi, struct vmalloc_area *a)
{
	if (keep_once(vi, &a->caller) < 0) {
		vmalloc_area_done(a);
		return -ENOMEM;
	}
	if (keep_once(vi, &a->caller_module) < 0) {
		free(a->caller_module);
		free(a->numa);
		memset(a, 0, sizeof(*a));
		return -ENOMEM;
	}
	return 0;
}

struct vmallocinfo *vmallocinfo_free(struct vmallocinfo *vi)
{
	size_t i;

	if (!vi)
		return NULL;
	for (i = 0; i < vi->n; i++)
		area_drop(vi, &vi->areas[i]);
	for (i = 0; i < vi->n_strs; i++)
		free(vi->strs[i]);
	free(vi->strs);
	hindex_free(vi->str_idx);
	free(vi->areas);
	free(vi->text);
	free(vi->line_end);
	free(vi->line_no);
	free(vi);
	return NULL;
}

DEFINE_FREEP(struct vmallocinfo, vmallocinfo_free)

/* what detect_addr_mode() counts: zero addresses, and those in the kernel half */
static void addr_count(const struct vmalloc_area *a, size_t *zero, size_t *high)
{
	if (a->start == 0)
		(*zero)++;
	else if (addr_is_kernel(a->start))
		(*high)++;
}

static enum vmalloc_addr_mode addr_mode_of(size_t n, size_t zero, size_t high)
{
	if (n == 0)
		return VMALLOC_ADDR_UNKNOWN;
	if (zero == n)
		return VMALLOC_ADDR_ZERO;
	/* %pK hashes are 32 bits wide on 64-bit kernels (ptr_to_hashval) */
	if (high == n - zero)
		return VMALLOC_ADDR_REAL;
	return VMALLOC_ADDR_HASHED;
}

struct read_ctx {
	struct vmallocinfo *vi;
	size_t cap;
	vmalloc_keep_fn keep;
	void *userdata;
	unsigned int lineno;
};

static int read_line(void *userdata, char *line, size_t len, const char **ret_what)
{
	struct read_ctx *c = userdata;
	struct vmallocinfo *vi = c->vi;
	struct vmalloc_area *a;
	int r;

	if (vi->n == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 256;
		struct vmalloc_area *na = realloc(vi->areas, ncap * sizeof(*na));
		unsigned int *nl;

		if (!na)
			return -ENOMEM;
		vi->areas = na;
		if (c->keep) {
			nl = realloc(vi->line_no, ncap * sizeof(*nl));
			if (!nl)
				return -ENOMEM;
			vi->line_no = nl;
		}
		c->cap = ncap;
	}
	c->lineno++;
	a = &vi->areas[vi->n];
	r = vmallocinfo_parse_line(line, len, a, ret_what);
	if (r < 0)
		return r;
	/* every line read says what the addresses are, kept or not */
	addr_count(a, &vi->n_zero, &vi->n_high);
	if (a->flags & VMA_UNKNOWN_FLAG)
		vi->unknown_flag_lines++;
	if (c->keep && !c->keep(a, c->userdata)) {
		vmalloc_area_done(a);
		vi->n_dropped++;
		return 0;
	}
	r = area_keep(vi, a);
	if (r < 0)
		return r;
	if (vi->line_no)
		vi->line_no[vi->n] = c->lineno;
	vi->n++;
	return 0;
}

static int read_file_filtered(FILE *f, const char *path, vmalloc_keep_fn keep,
			      void *userdata, struct vmallocinfo **ret, struct kt_err *reterr)
{
	_cleanup_(vmallocinfo_freep) struct vmallocinfo *vi = NULL;
	struct read_ctx c = { .keep = keep, .userdata = userdata };
	int r;

	vi = calloc(1, sizeof(*vi));
	if (!vi || hindex_new(&vi->str_idx) < 0)
		return -ENOMEM;
	c.vi = vi;
	r = linereader_each(f, path, 0, read_line, &c, reterr);
	if (r < 0)
		return r;
	vi->addr_mode = addr_mode_of(vi->n + vi->n_dropped, vi->n_zero, vi->n_high);
	*ret = vi;
	vi = NULL;
	return 0;
}

int vmallocinfo_read_file(FILE *f, const char *path, struct vmallocinfo **ret,
			  struct kt_err *reterr)
{
	return read_file_filtered(f, path, NULL, NULL, ret, reterr);
}

static bool area_is(size_t pos, const void *key, const void *userdata)
{
	const struct vmallocinfo *vi = userdata;
	const struct vmalloc_area *a = key;

	return vi->areas[pos].start == a->start && vi->areas[pos].end == a->end;
}

/*
 * The kernel lists an address range once: a repeated line (a copy pasted twice) is
 * dropped rather than counted again. Zero addresses (kptr_restrict=2) say nothing.
 */
static int drop_repeats(struct vmallocinfo *vi)
{
	struct hindex *seen = NULL;
	size_t i, k = 0;
	int r = hindex_new(&seen);

	for (i = 0; r >= 0 && i < vi->n; i++) {
		struct vmalloc_area *a = &vi->areas[i];
		uint64_t h = hash_bytes(hash_bytes(HASH_INIT, &a->start, sizeof(a->start)), &a->end,
					sizeof(a->end));

		if (a->start && hindex_find(seen, h, area_is, a, vi) != HINDEX_NONE) {
			/* each line is one area: line i + 1, unless some were dropped */
			if (!vi->n_repeated++)
				vi->repeated_line = vi->line_no ? vi->line_no[i] : (unsigned int)(i + 1);
			area_drop(vi, a);
			continue;
		}
		if (k != i) {
			vi->areas[k] = *a;
			if (vi->line_no)
				vi->line_no[k] = vi->line_no[i];
		}
		if (vi->areas[k].start)
			r = hindex_add(seen, h, k);
		k++;
	}
	for (; i < vi->n; i++)
		area_drop(vi, &vi->areas[i]);
	vi->n = k;
	hindex_free(seen);
	return r;
}

int vmallocinfo_read_filtered(const struct kt_root *root, vmalloc_keep_fn keep,
			      void *userdata, struct vmallocinfo **ret, struct kt_err *reterr)
{
	_cleanup_fclose_ FILE *f = NULL;
	struct vmallocinfo *vi;
	int r;

	r = root_fopen_max(root, PROC_VMALLOCINFO, ROOT_TABLE_MAX, &f);
	if (r < 0) {
		kt_err_set(reterr, PROC_VMALLOCINFO, 0, NULL);
		return r;
	}
	r = read_file_filtered(f, PROC_VMALLOCINFO, keep, userdata, &vi, reterr);
	if (r < 0)
		return r;
	r = drop_repeats(vi);
	if (r < 0) {
		vmallocinfo_free(vi);
		return r;
	}
	*ret = vi;
	return 0;
}

int vmallocinfo_read(const struct kt_root *root, struct vmallocinfo **ret,
		     struct kt_err *reterr)
{
	return vmallocinfo_read_filtered(root, NULL, NULL, ret, reterr);
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

/*
 * The lines of [text + from, text + to) parsed into @areas (room for all of them),
 * their ends into @ends; line numbers start after @first lines.
 */
static int parse_lines(const char *text, size_t from, size_t to, size_t first,
		       const char *path, struct vmalloc_area *areas, size_t *ends,
		       size_t *ret_n, struct kt_err *reterr)
{
	char *line = NULL;
	size_t line_cap = 0, k = 0;
	const char *p;
	int r = 0;

	for (p = text + from; p < text + to;) {
		const char *nl = memchr(p, '\n', (size_t)(text + to - p));
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(text + to - p);
		const char *what = NULL;
		unsigned int lineno = (unsigned int)(first + k + 1);

		if (ll > LINEREADER_DEFAULT_MAX) {
			kt_err_set(reterr, path, lineno, "line too long");
			r = -EINVAL;
			break;
		}
		if (ll + 1 > line_cap) {
			char *nb = realloc(line, ll + 1);

			if (!nb) {
				r = -ENOMEM;
				break;
			}
			line = nb;
			line_cap = ll + 1;
		}
		/* parsed from a copy: parsing cuts a line into tokens in place */
		memcpy(line, p, ll);
		line[ll] = '\0';
		r = vmallocinfo_parse_line(line, ll, &areas[k], &what);
		if (r < 0) {
			if (r == -EINVAL)
				kt_err_set(reterr, path, lineno, what);
			break;
		}
		p += ll + (nl ? 1 : 0);
		ends[k++] = (size_t)(p - text);
	}
	free(line);
	if (r < 0) {
		while (k > 0)
			vmalloc_area_done(&areas[--k]);
		return r;
	}
	*ret_n = k;
	return 0;
}

/* vmallocinfo_update() that takes @text (malloc()ed, NUL at @len) over, also on failure */
static int update_take(struct vmallocinfo **vip, char *text, size_t len, const char *path,
		       struct vmallocinfo_change *ret_change, struct kt_err *reterr)
{
	struct vmallocinfo *vi = *vip;
	size_t pre_b = 0, pre_a = 0, suf_a = 0, q = len, qo = 0, n_mid, removed, i, n;
	size_t zero = 0, high = 0, unknown = 0;
	struct vmalloc_area *mid = NULL;
	size_t *mid_end = NULL;
	int r = -ENOMEM;

	if (!vi || !vi->text) {
		/* a first read: everything is new */
		struct vmallocinfo *nv = calloc(1, sizeof(*nv));

		if (!nv)
			goto out;
		n_mid = count_lines(text, len);
		nv->areas = malloc((n_mid + 1) * sizeof(*nv->areas));
		nv->line_end = malloc((n_mid + 1) * sizeof(*nv->line_end));
		if (!nv->areas || !nv->line_end) {
			vmallocinfo_free(nv);
			goto out;
		}
		r = parse_lines(text, 0, len, 0, path, nv->areas, nv->line_end, &nv->n, reterr);
		if (r < 0) {
			vmallocinfo_free(nv);
			goto out;
		}
		for (i = 0; i < nv->n; i++) {
			addr_count(&nv->areas[i], &nv->n_zero, &nv->n_high);
			if (nv->areas[i].flags & VMA_UNKNOWN_FLAG)
				nv->unknown_flag_lines++;
		}
		nv->addr_mode = addr_mode_of(nv->n, nv->n_zero, nv->n_high);
		nv->text = text;
		nv->text_len = len;
		text = NULL;
		if (ret_change)
			*ret_change = (struct vmallocinfo_change){ 0, vi ? vi->n : 0, nv->n };
		vmallocinfo_free(vi);
		*vip = nv;
		return 0;
	}

	{
		size_t m = vi->text_len < len ? vi->text_len : len, s;

		pre_b = common_prefix(vi->text, text, m);
		if (pre_b == vi->text_len && pre_b == len) {
			/* the same text: the same areas */
			if (ret_change)
				*ret_change = (struct vmallocinfo_change){ vi->n, 0, 0 };
			r = 0;
			goto out;
		}
		/* back to the start of the line the difference is in */
		while (pre_b > 0 && text[pre_b - 1] != '\n')
			pre_b--;
		pre_a = lines_before(vi, pre_b);
		s = common_suffix(vi->text + vi->text_len, text + len, m - pre_b);
		q = len - s;
		qo = vi->text_len - s;
		/* forward to a line start in both texts */
		while (q < len && !((q == pre_b || text[q - 1] == '\n') &&
				    (qo == pre_b || vi->text[qo - 1] == '\n'))) {
			const char *nl = memchr(text + q, '\n', len - q);

			q = nl ? (size_t)(nl + 1 - text) : len;
			qo = vi->text_len - (len - q);
		}
		if (q == len)
			qo = vi->text_len;
		suf_a = vi->n - lines_before(vi, qo);
	}

	/* the new lines first, aside: a bad one leaves *vip as it was */
	n_mid = count_lines(text + pre_b, q - pre_b);
	mid = malloc((n_mid + 1) * sizeof(*mid));
	mid_end = malloc((n_mid + 1) * sizeof(*mid_end));
	if (!mid || !mid_end)
		goto out;
	r = parse_lines(text, pre_b, q, pre_a, path, mid, mid_end, &n_mid, reterr);
	if (r < 0)
		goto out;
	removed = vi->n - pre_a - suf_a;
	n = pre_a + n_mid + suf_a;
	if (n > vi->n) {
		struct vmalloc_area *na = realloc(vi->areas, n * sizeof(*na));
		size_t *ne;

		if (na)
			vi->areas = na;
		ne = na ? realloc(vi->line_end, n * sizeof(*ne)) : NULL;
		if (!ne) {
			for (i = 0; i < n_mid; i++)
				vmalloc_area_done(&mid[i]);
			r = -ENOMEM;
			goto out;
		}
		vi->line_end = ne;
	}

	/* the replaced areas go, those after them move, the new ones go in between */
	for (i = pre_a; i < pre_a + removed; i++) {
		addr_count(&vi->areas[i], &zero, &high);
		if (vi->areas[i].flags & VMA_UNKNOWN_FLAG)
			unknown++;
		vmalloc_area_done(&vi->areas[i]);
	}
	vi->n_zero -= zero;
	vi->n_high -= high;
	vi->unknown_flag_lines -= (unsigned int)unknown;
	memmove(vi->areas + pre_a + n_mid, vi->areas + pre_a + removed,
		suf_a * sizeof(*vi->areas));
	memmove(vi->line_end + pre_a + n_mid, vi->line_end + pre_a + removed,
		suf_a * sizeof(*vi->line_end));
	for (i = pre_a + n_mid; i < n; i++)
		vi->line_end[i] = vi->line_end[i] - vi->text_len + len;
	for (i = 0; i < n_mid; i++) {
		vi->areas[pre_a + i] = mid[i];
		vi->line_end[pre_a + i] = mid_end[i];
		addr_count(&mid[i], &vi->n_zero, &vi->n_high);
		if (mid[i].flags & VMA_UNKNOWN_FLAG)
			vi->unknown_flag_lines++;
	}
	vi->n = n;
	vi->addr_mode = addr_mode_of(vi->n, vi->n_zero, vi->n_high);
	free(vi->text);
	vi->text = text;
	vi->text_len = len;
	text = NULL;
	if (ret_change)
		*ret_change = (struct vmallocinfo_change){ pre_a, removed, n_mid };
	r = 0;
out:
	free(mid);
	free(mid_end);
	free(text);
	return r;
}

int vmallocinfo_update(struct vmallocinfo **vip, const char *text, size_t len,
		       const char *path, struct vmallocinfo_change *ret_change,
		       struct kt_err *reterr)
{
	char *copy = malloc(len + 1);

	if (!copy)
		return -ENOMEM;
	memcpy(copy, text, len);
	copy[len] = '\0';
	return update_take(vip, copy, len, path, ret_change, reterr);
}

int vmallocinfo_reread(const struct kt_root *root, struct vmallocinfo **vi,
		       struct vmallocinfo_change *ret_change, struct kt_err *reterr)
{
	_cleanup_close_ int fd = -1;
	char *buf;
	/* room for the previous text and a little: no doubling copies of 10 MB */
	size_t len = 0, cap = (*vi && (*vi)->text ? (*vi)->text_len : 0) + 65536;

	fd = root_open(root, PROC_VMALLOCINFO, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		kt_err_set(reterr, PROC_VMALLOCINFO, 0, NULL);
		return fd;
	}
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t k;

		if (len + 1 >= cap) {
			char *nb;

			if (cap > VMALLOCINFO_TEXT_MAX) {
				free(buf);
				kt_err_set(reterr, PROC_VMALLOCINFO, 0, "file too large");
				return -EFBIG;
			}
			nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		k = read(fd, buf + len, cap - len - 1);
		if (k < 0) {
			int r = -errno;

			if (r == -EINTR)
				continue;
			free(buf);
			kt_err_set(reterr, PROC_VMALLOCINFO, 0, NULL);
			return r;
		}
		if (k == 0)
			break;
		len += (size_t)k;
	}
	buf[len] = '\0';
	return update_take(vi, buf, len, PROC_VMALLOCINFO, ret_change, reterr);
}
