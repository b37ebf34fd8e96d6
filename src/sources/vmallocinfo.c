/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/linereader.h"
#include "util/macro.h"
#include "util/parse-num.h"
#include "vmallocinfo.h"

#define PROC_VMALLOCINFO "proc/vmallocinfo"

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

static int parse_hex_token(const char *s, uint64_t *ret)
{
	if (strncmp(s, "0x", 2) != 0)
		return -EINVAL;
	return parse_u64(s + 2, 16, ret);
}

/* "sym+0xoff/0xlen" (%pS); a bare "0xffff..." when the address has no symbol */
static int parse_caller(char *tok, struct vmalloc_area *a)
{
	char *plus, *slash;

	if (strncmp(tok, "0x", 2) == 0) {
		a->caller = strdup(tok);
		return a->caller ? 0 : -ENOMEM;
	}
	plus = strrchr(tok, '+');
	if (!plus)
		return -EINVAL;
	slash = strchr(plus, '/');
	if (!slash)
		return -EINVAL;
	*plus = '\0';
	*slash = '\0';
	if (!tok[0] || parse_hex_token(plus + 1, &a->caller_off) < 0 ||
	    parse_hex_token(slash + 1, &a->caller_len) < 0)
		return -EINVAL;
	a->caller = strdup(tok);
	return a->caller ? 0 : -ENOMEM;
}

static bool is_caller_token(const char *t)
{
	/* a caller has "+0x"; flags and key=value words do not */
	return strstr(t, "+0x") != NULL || (strncmp(t, "0x", 2) == 0 && !strchr(t, '-'));
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

int vmallocinfo_parse_line(char *line, size_t len, struct vmalloc_area *ret_area,
			   const char **reterr_what)
{
	struct vmalloc_area a = {0};
	char *save = NULL, *t, *dash;
	int r = -EINVAL, idx = 0;

	if (memchr(line, '\0', len)) {
		*reterr_what = "line contains a NUL byte";
		return -EINVAL;
	}
	t = strtok_r(line, " \t", &save);
	if (!t) {
		*reterr_what = "empty line";
		return -EINVAL;
	}
	dash = strchr(t, '-');
	if (!dash) {
		*reterr_what = "missing address range";
		return -EINVAL;
	}
	*dash = '\0';
	if (parse_hex_token(t, &a.start) < 0 || parse_hex_token(dash + 1, &a.end) < 0) {
		/* early in boot hashed pointers print as "(ptrval)" */
		if (strstr(t, "ptrval") || strstr(dash + 1, "ptrval")) {
			a.start = a.end = 0;
		} else {
			*reterr_what = "address is not a hex number";
			return -EINVAL;
		}
	}
	t = strtok_r(NULL, " \t", &save);
	if (!t) {
		*reterr_what = "missing size";
		return -EINVAL;
	}
	if (parse_u64(t, 10, &a.size) < 0) {
		*reterr_what = "size is not a number";
		return -EINVAL;
	}
	while ((t = strtok_r(NULL, " \t", &save))) {
		size_t i;

		idx++;
		if (strcmp(t, "vm_map_ram") == 0) {
			a.flags |= VMA_VM_MAP_RAM;
			continue;
		}
		if (strcmp(t, "unpurged") == 0) {
			t = strtok_r(NULL, " \t", &save);
			if (!t || strcmp(t, "vm_area") != 0) {
				*reterr_what = "malformed unpurged vm_area line";
				goto fail;
			}
			a.flags |= VMA_UNPURGED;
			continue;
		}
		if (strncmp(t, "pages=", 6) == 0) {
			if (parse_u64(t + 6, 10, &a.pages) < 0) {
				*reterr_what = "pages= is not a number";
				goto fail;
			}
			a.has_pages = true;
			continue;
		}
		if (strncmp(t, "phys=", 5) == 0) {
			/* "%pa" prints 0x-prefixed; very old kernels printed "%llx" */
			const char *p = strncmp(t + 5, "0x", 2) == 0 ? t + 7 : t + 5;

			if (parse_u64(p, 16, &a.phys) < 0) {
				*reterr_what = "phys= is not a hex number";
				goto fail;
			}
			a.has_phys = true;
			continue;
		}
		if (t[0] == 'N' && t[1] >= '0' && t[1] <= '9' && strchr(t, '=')) {
			char *eq = strchr(t, '=');
			uint32_t node;
			uint64_t pages;

			*eq = '\0';
			if (parse_u32(t + 1, 10, &node) < 0 || parse_u64(eq + 1, 10, &pages) < 0) {
				*reterr_what = "malformed N<node>= count";
				goto fail;
			}
			r = add_numa(&a, node, pages);
			if (r < 0)
				goto fail_nomsg;
			continue;
		}
		if (idx == 1 && !a.caller && is_caller_token(t)) {
			r = parse_caller(t, &a);
			if (r == -EINVAL)
				*reterr_what = "malformed caller symbol";
			if (r < 0)
				goto fail_nomsg;
			continue;
		}
		if (t[0] == '[' && a.caller && !a.caller_module && idx == 2) {
			size_t tl = strlen(t);

			if (tl < 3 || t[tl - 1] != ']') {
				*reterr_what = "malformed [module] suffix";
				goto fail;
			}
			a.caller_module = strndup(t + 1, tl - 2);
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
