/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <byteswap.h>
#include <linux/btf.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "util/macro.h"
#include "kernel-btf.h"

/* vmlinux BTF is 4-6 MiB on distribution kernels; anything far past that is not it */
#define BTF_MAX (64u << 20)
/* anonymous members nest a few deep in practice; a hostile blob may nest forever */
#define MAX_DEPTH 8

struct kernel_btf {
	struct btf *btf;
};

/* Sources log nothing: libbpf would print its complaints about a bad blob on stderr */
static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

/*
 * libbpf takes the type section where the header says, at any byte: a header length or
 * type offset that is not a multiple of 4 (the kernel's is 24, 0) would have every
 * struct btf_type read from a misaligned address. Such a blob is not a kernel's.
 */
static bool header_aligned(const void *data, size_t len)
{
	struct btf_header h;

	if (len < sizeof(h))
		return false;
	memcpy(&h, data, sizeof(h));
	if (h.magic == bswap_16(BTF_MAGIC)) {
		h.hdr_len = bswap_32(h.hdr_len);
		h.type_off = bswap_32(h.type_off);
	} else if (h.magic != BTF_MAGIC) {
		return false;
	}
	return h.hdr_len % 4 == 0 && h.type_off % 4 == 0;
}

int kernel_btf_new(const void *data, size_t len, struct kernel_btf **ret)
{
	struct kernel_btf *b;
	struct btf *btf;

	if (len == 0 || len > BTF_MAX || !header_aligned(data, len))
		return -EINVAL;
	libbpf_set_print(quiet);
	btf = btf__new(data, (__u32)len);
	if (!btf)
		return errno == ENOMEM ? -ENOMEM : -EINVAL;
	b = calloc(1, sizeof(*b));
	if (!b) {
		btf__free(btf);
		return -ENOMEM;
	}
	b->btf = btf;
	*ret = b;
	return 0;
}

int kernel_btf_read(const struct kt_root *root, struct kernel_btf **ret)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r;

	r = root_read_file(root, "sys/kernel/btf/vmlinux", BTF_MAX, &buf, &len);
	if (r < 0)
		return r == -EFBIG ? -EINVAL : r;
	return kernel_btf_new(buf, len, ret);
}

struct kernel_btf *kernel_btf_free(struct kernel_btf *b)
{
	if (!b)
		return NULL;
	btf__free(b->btf);
	free(b);
	return NULL;
}

/* @id with typedefs and const/volatile/restrict stripped, or NULL */
static const struct btf_type *skip_mods(const struct btf *btf, __u32 id, __u32 *ret_id)
{
	for (int i = 0; i < 32; i++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (!t)
			return NULL;
		if (!btf_is_mod(t) && !btf_is_typedef(t)) {
			if (ret_id)
				*ret_id = id;
			return t;
		}
		id = t->type;
	}
	return NULL;	/* a loop of typedefs: not a kernel's */
}

/*
 * Member @name of composite @t (at @base bits), looking into anonymous members the way
 * C does. 1 found (offset in bits, its type), 0 not, -EINVAL a bit field.
 */
static int find_member(const struct btf *btf, const struct btf_type *t, const char *name,
		       uint64_t base, int depth, uint64_t *ret_bits, __u32 *ret_type)
{
	const struct btf_member *m = btf_members(t);
	unsigned int n = btf_vlen(t);

	if (depth > MAX_DEPTH)
		return 0;
	for (unsigned int i = 0; i < n; i++) {
		const char *mn = btf__name_by_offset(btf, m[i].name_off);
		uint64_t bits = base + btf_member_bit_offset(t, i);

		if (mn && mn[0]) {
			if (strcmp(mn, name) != 0)
				continue;
			if (btf_member_bitfield_size(t, i))
				return -EINVAL;
			*ret_bits = bits;
			*ret_type = m[i].type;
			return 1;
		}
		/* an anonymous struct or union: its members are the parent's */
		const struct btf_type *mt = skip_mods(btf, m[i].type, NULL);
		int r;

		if (!mt || !btf_is_composite(mt))
			continue;
		r = find_member(btf, mt, name, bits, depth + 1, ret_bits, ret_type);
		if (r != 0)
			return r;
	}
	return 0;
}

/* The struct (or union) named @type: the one with members when several share the name */
static const struct btf_type *find_composite(const struct btf *btf, const char *type)
{
	const struct btf_type *empty = NULL;
	__u32 n = btf__type_cnt(btf);

	for (__u32 id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name;

		if (!t || !btf_is_composite(t))
			continue;
		name = btf__name_by_offset(btf, t->name_off);
		if (!name || strcmp(name, type) != 0)
			continue;
		if (btf_vlen(t))
			return t;
		if (!empty)
			empty = t;
	}
	return empty;
}

static int resolve_path(const struct kernel_btf *b, const char *type, const char *path,
			uint32_t *ret_offset, __u32 *ret_type)
{
	const struct btf_type *t;
	uint64_t bits = 0;
	char part[128];
	__u32 tid = 0;

	if (!b || !type || !path || !*path)
		return -EINVAL;
	t = find_composite(b->btf, type);
	if (!t)
		return -ENOENT;
	for (const char *p = path; *p;) {
		size_t len = strcspn(p, ".");
		uint64_t mbits;
		int r;

		if (!len || len >= sizeof(part))
			return -EINVAL;
		memcpy(part, p, len);
		part[len] = '\0';
		if (!t || !btf_is_composite(t))
			return -EINVAL;
		r = find_member(b->btf, t, part, 0, 0, &mbits, &tid);
		if (r < 0)
			return r;
		if (r == 0)
			return -ENOENT;
		bits += mbits;
		p += len;
		if (*p == '.')
			p++;
		t = skip_mods(b->btf, tid, &tid);
	}
	if (bits % 8 || bits / 8 > UINT32_MAX)
		return -EINVAL;
	*ret_offset = (uint32_t)(bits / 8);
	if (ret_type)
		*ret_type = tid;
	return 0;
}

int kernel_btf_offset(const struct kernel_btf *b, const char *type, const char *path,
		      uint32_t *ret_offset)
{
	return resolve_path(b, type, path, ret_offset, NULL);
}

int kernel_btf_member_size(const struct kernel_btf *b, const char *type, const char *path,
			   uint32_t *ret_size)
{
	uint32_t off;
	__u32 tid;
	__s64 sz;
	int r = resolve_path(b, type, path, &off, &tid);

	if (r < 0)
		return r;
	sz = btf__resolve_size(b->btf, tid);
	if (sz <= 0 || sz > UINT32_MAX)
		return -EINVAL;
	*ret_size = (uint32_t)sz;
	return 0;
}

static const struct btf_type *find_func_proto(const struct kernel_btf *b, const char *func)
{
	__s32 id;
	const struct btf_type *t;

	if (!b || !func)
		return NULL;
	id = btf__find_by_name_kind(b->btf, func, BTF_KIND_FUNC);
	if (id < 0)
		return NULL;
	t = btf__type_by_id(b->btf, (__u32)id);
	if (!t)
		return NULL;
	t = btf__type_by_id(b->btf, t->type);
	return t && btf_is_func_proto(t) ? t : NULL;
}

bool kernel_btf_has_func(const struct kernel_btf *b, const char *func)
{
	return find_func_proto(b, func) != NULL;
}

int kernel_btf_param(const struct kernel_btf *b, const char *func, const char *param,
		     unsigned int *ret_index)
{
	const struct btf_type *t = find_func_proto(b, func);
	const struct btf_param *p;

	if (!t || !param)
		return -ENOENT;
	p = btf_params(t);
	for (unsigned int i = 0; i < btf_vlen(t); i++) {
		const char *n = btf__name_by_offset(b->btf, p[i].name_off);

		if (n && strcmp(n, param) == 0) {
			*ret_index = i + 1;
			return 0;
		}
	}
	return -ENOENT;
}

int kernel_btf_enum_value(const struct kernel_btf *b, const char *name, int64_t *ret)
{
	__u32 n;

	if (!b || !name)
		return -ENOENT;
	n = btf__type_cnt(b->btf);
	for (__u32 id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(b->btf, id);

		if (!t || !btf_is_any_enum(t))
			continue;
		for (unsigned int i = 0; i < btf_vlen(t); i++) {
			const char *en;

			if (btf_is_enum64(t)) {
				const struct btf_enum64 *e = &btf_enum64(t)[i];

				en = btf__name_by_offset(b->btf, e->name_off);
				if (en && strcmp(en, name) == 0) {
					*ret = (int64_t)btf_enum64_value(e);
					return 0;
				}
				continue;
			}
			const struct btf_enum *e = &btf_enum(t)[i];

			en = btf__name_by_offset(b->btf, e->name_off);
			if (en && strcmp(en, name) == 0) {
				/* BTF_KIND_ENUM values are 32 bits, signed unless kflag says not */
				*ret = btf_kflag(t) ? (int64_t)(uint32_t)e->val : (int64_t)e->val;
				return 0;
			}
		}
	}
	return -ENOENT;
}
