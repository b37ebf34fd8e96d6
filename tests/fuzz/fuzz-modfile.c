/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Module files from an untrusted tree: the input is a whole file (.ko, .ko.xz, .ko.zst,
 * .ko.gz, sniffed by magic) through both analysis depths, from memory and from a file,
 * and the same bytes as an ELF image straight into the layout. Seed with small real
 * modules, plain and compressed.
 *
 * Each input is also analysed truncated and with its size fields lying, so that every
 * run meets them however the mutations go: the gzip ISIZE trailer, the zstd frame
 * header's content size, the xz index's uncompressed size (with its CRC made right,
 * so that the index is believed), and an ELF section's size and offset.
 */
#include <errno.h>
#include <lzma.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost/modfile.h"
#include "fuzz.h"


/* Bounds decompression bombs to what a run can afford (a real module is < 64 MiB). */
#define FUZZ_MAX_IMAGE (16u << 20)

static void check_layout(const struct modfile_layout *l)
{
	uint64_t core = 0, init = 0;

	for (int t = 0; t < _MEMT_MAX; t++) {
		CHECK(l->mem[t] % 4096 == 0);
		if (t == MEMT_INIT_TEXT || t == MEMT_INIT_DATA || t == MEMT_INIT_RODATA)
			init += l->mem[t];
		else
			core += l->mem[t];
	}
	CHECK(l->core_size % 4096 == 0 && l->init_size % 4096 == 0);
	/* unsigned int sums in the kernel: compare modulo 2^32 */
	CHECK(l->sysfs_coresize_64 == (uint32_t)core);
	CHECK(l->sysfs_initsize_64 == (uint32_t)init);
	CHECK(l->sysfs_coresize_pre64 == l->core_size);
	CHECK(l->sysfs_initsize_pre64 == l->init_size);
}

static void check_info(const struct modfile_info *mi, size_t size, unsigned int flags)
{
	CHECK(mi->file_size == size);
	CHECK(mi->comp <= MODFILE_GZIP);
	CHECK(mi->decompressed_size <= FUZZ_MAX_IMAGE || mi->comp == MODFILE_PLAIN);
	CHECK(mi->comp == MODFILE_PLAIN ? mi->decompressed_size == size : true);
	CHECK(mi->comp == MODFILE_XZ || mi->xz_dict_size == 0);
	CHECK(mi->comp == MODFILE_ZSTD || mi->zstd_window_size == 0);
	CHECK(memchr(mi->name, '\0', sizeof(mi->name)));
	if (!(flags & MODFILE_LAYOUT)) {
		CHECK(!mi->has_layout && mi->layout_err == 0);
		return;
	}
	CHECK(mi->has_layout ? mi->layout_err == 0 : mi->layout_err == -ENOEXEC);
	if (mi->has_layout)
		check_layout(&mi->layout);
}

static void analyze(const uint8_t *data, size_t size)
{
	struct modfile_info sizes, full;
	struct modfile_layout l;
	char name[64];
	enum modfile_name_source src;
	int rs, rf, r;

	rs = modfile_analyze_buffer(data, size, MODFILE_SIZES, FUZZ_MAX_IMAGE, &sizes);
	CHECK(rs == 0 || rs == -EBADMSG || rs == -EFBIG || rs == -ENOMEM);
	if (rs == 0)
		check_info(&sizes, size, MODFILE_SIZES);

	rf = modfile_analyze_buffer(data, size, MODFILE_LAYOUT, FUZZ_MAX_IMAGE, &full);
	CHECK(rf == 0 || rf == -EBADMSG || rf == -EFBIG || rf == -ENOMEM);
	if (rf == 0) {
		check_info(&full, size, MODFILE_LAYOUT);
		/* decoding succeeded, so the cheap path read the same sizes */
		CHECK(rs == 0);
		CHECK(sizes.decompressed_size == full.decompressed_size);
		CHECK(sizes.xz_dict_size == full.xz_dict_size);
	}

	r = modfile_layout_elf(data, size, &l, name, &src);
	CHECK(r == 0 || r == -ENOEXEC || r == -ENOMEM);
	if (r == 0) {
		check_layout(&l);
		CHECK(memchr(name, '\0', sizeof(name)));
		/* a plain image is laid out the same through either door */
		CHECK(rf == 0 && full.comp == MODFILE_PLAIN && full.has_layout);
		CHECK(memcmp(&l, &full.layout, sizeof(l)) == 0);
	}
}

/* The same bytes as a file: what a module tree gives (no name, so no promise by name). */
static void analyze_file(const uint8_t *data, size_t size)
{
	struct modfile_info fi, mi;
	char path[64];
	int fd = fuzz_memfd(data, size), r, rm;

	if (fd < 0)
		return;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	r = modfile_analyze_flags(path, MODFILE_SIZES, &fi);
	CHECK(r == 0 || r == -EBADMSG || r == -EFBIG || r == -ENOMEM);
	rm = modfile_analyze_buffer(data, size, MODFILE_SIZES, 0, &mi);
	/* memory and file agree on what they both read */
	CHECK((r == 0) == (rm == 0));
	if (r == 0)
		CHECK(fi.decompressed_size == mi.decompressed_size &&
		      fi.xz_dict_size == mi.xz_dict_size && fi.comp == mi.comp);
	close(fd);
}

static uint64_t get_le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void put_le(uint8_t *p, int n, uint64_t v)
{
	for (int i = 0; i < n; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

/* Reads an xz variable-length integer at @p (at most @n bytes): its length, or 0. */
static size_t vli_get(const uint8_t *p, size_t n, uint64_t *ret)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n && i < 9; i++) {
		v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			*ret = v;
			return i + 1;
		}
	}
	return 0;
}

/* Writes @v in exactly @len bytes (padding with continuation bytes is not allowed by
 * the format, so @v must need @len bytes): false if it does not fit. */
static bool vli_put(uint8_t *p, size_t len, uint64_t v)
{
	size_t need = 1;

	for (uint64_t t = v >> 7; t; t >>= 7)
		need++;
	if (need != len)
		return false;
	for (size_t i = 0; i < len; i++, v >>= 7)
		p[i] = (uint8_t)((v & 0x7f) | (i + 1 < len ? 0x80 : 0));
	return true;
}

/*
 * The xz index of the last stream (footer: CRC32, backward size, flags, "YZ"): its first
 * record's uncompressed size set to @delta more (or less), the index CRC32 made right.
 */
static bool xz_lie(uint8_t *buf, size_t size, int64_t delta)
{
	uint64_t back, n_rec, unpadded, usize;
	uint8_t *foot, *idx, *p, *end;
	size_t k;

	if (size < 12 + 12 || memcmp(buf + size - 2, "YZ", 2) != 0)
		return false;
	foot = buf + size - 12;
	back = (get_le(foot + 4, 4) + 1) * 4;
	if (back > (uint64_t)(foot - buf) || back < 8)
		return false;
	idx = foot - back;
	end = foot - 4;		/* the index CRC32 */
	if (idx[0] != 0)
		return false;
	p = idx + 1;
	if (!(k = vli_get(p, end - p, &n_rec)) || n_rec == 0)
		return false;
	p += k;
	if (!(k = vli_get(p, end - p, &unpadded)))
		return false;
	p += k;
	if (!(k = vli_get(p, end - p, &usize)))
		return false;
	if (delta < 0 && usize < (uint64_t)-delta)
		return false;
	if (!vli_put(p, k, usize + (uint64_t)delta))
		return false;
	put_le(end, 4, lzma_crc32(idx, (size_t)(end - idx), 0));
	return true;
}

/* The zstd frame header's content size field set to @v (as wide as the field is). */
static bool zstd_lie(uint8_t *buf, size_t size, uint64_t v)
{
	static const int did_len[4] = { 0, 1, 2, 4 };
	uint8_t fhd;
	int fcs_len;
	size_t off;

	if (size < 6 || get_le(buf, 4) != 0xfd2fb528)
		return false;
	fhd = buf[4];
	fcs_len = (int[]){ fhd & 0x20 ? 1 : 0, 2, 4, 8 }[fhd >> 6];
	off = 5 + !(fhd & 0x20) + (size_t)did_len[fhd & 3];
	if (!fcs_len || off + (size_t)fcs_len > size)
		return false;
	/* the 2-byte field holds the size minus 256 */
	put_le(buf + off, fcs_len, fcs_len == 2 ? v - 256 : v);
	return true;
}

/* An ELF64 section header's size or offset pointing past the file. */
static bool elf_lie(uint8_t *buf, size_t size, unsigned int which)
{
	uint64_t shoff, shnum, shentsize;
	uint8_t *sh;

	if (size < 64 || memcmp(buf, "\177ELF\2\1", 6) != 0)
		return false;
	shoff = get_le(buf + 0x28, 8);
	shentsize = get_le(buf + 0x3a, 2);
	shnum = get_le(buf + 0x3c, 2);
	if (shentsize != 64 || shnum < 2 || shoff > size || (size - shoff) / 64 < shnum)
		return false;
	sh = buf + shoff + 64 * (1 + which % (shnum - 1));
	if (which & 0x100)
		put_le(sh + 0x18, 8, size - 1);		/* sh_offset: the last byte */
	else
		put_le(sh + 0x20, 8, which & 0x200 ? ~0ull : size);	/* sh_size */
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *v;
	unsigned int seed = size ? data[size / 2] : 0;

	analyze(data, size);
	analyze_file(data, size);
	if (size < 8)
		return 0;
	v = malloc(size);
	if (!v)
		return 0;

	/* truncated: the kernel reads what the file has */
	analyze(data, size - 1);
	analyze(data, size / 2);

	/* gzip: ISIZE, the size mod 2^32, is only a hint */
	if (data[0] == 0x1f && data[1] == 0x8b) {
		static const uint32_t isize[] = { 0, 1, 0x7fffffff, 0xffffffff };

		for (size_t i = 0; i < sizeof(isize) / sizeof(isize[0]); i++) {
			memcpy(v, data, size);
			put_le(v + size - 4, 4, isize[i]);
			analyze(v, size);
		}
	}

	/* zstd: a frame header promising less, more, or far more than the frame holds */
	memcpy(v, data, size);
	if (zstd_lie(v, size, 0)) {
		static const uint64_t fcs[] = { 1, 300, 4096, 1u << 20, 0xffffffffu, ~0ull };

		analyze(v, size);
		for (size_t i = 0; i < sizeof(fcs) / sizeof(fcs[0]); i++) {
			memcpy(v, data, size);
			zstd_lie(v, size, fcs[i]);
			analyze(v, size);
		}
	}

	/* xz: an index that lies by a byte or a page, with a valid CRC */
	{
		static const int64_t delta[] = { -1, 1, -4096, 4096, 1 << 20 };

		for (size_t i = 0; i < sizeof(delta) / sizeof(delta[0]); i++) {
			memcpy(v, data, size);
			if (xz_lie(v, size, delta[i]))
				analyze(v, size);
		}
	}

	/* ELF: libelf meets section headers that reach past the file */
	for (unsigned int w = 0; w < 3; w++) {
		memcpy(v, data, size);
		if (elf_lie(v, size, seed | w << 8))
			analyze(v, size);
	}
	free(v);
	return 0;
}
