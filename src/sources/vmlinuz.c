/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <lzma.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "vmlinuz.h"

#define IMAGE_MAX (256u << 20)
/* magic bytes found by chance in the setup code: tried, refused, searched past */
#define TRIES_MAX 32

enum kind { K_XZ, K_ZSTD, K_GZIP };

static const struct magic {
	enum kind kind;
	const char *bytes;
	size_t len;
} magics[] = {
	{ K_XZ, "\xfd" "7zXZ\0", 6 },
	{ K_ZSTD, "\x28\xb5\x2f\xfd", 4 },
	{ K_GZIP, "\x1f\x8b\x08", 3 },
};

struct out {
	uint8_t *p;
	size_t len, cap, max;
};

/* Room for at least 1 MiB more; -EFBIG past o->max */
static int out_grow(struct out *o)
{
	size_t cap;
	uint8_t *p;

	if (o->cap - o->len >= (1u << 20))
		return 0;
	if (o->cap >= o->max)
		return -EFBIG;
	cap = o->cap ? o->cap * 2 : (4u << 20);
	if (cap > o->max)
		cap = o->max;
	p = realloc(o->p, cap);
	if (!p)
		return -ENOMEM;
	o->p = p;
	o->cap = cap;
	return 0;
}

static int unxz(const uint8_t *in, size_t len, struct out *o)
{
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_ret lr;
	int r = 0;

	if (lzma_stream_decoder(&s, UINT64_MAX, 0) != LZMA_OK)
		return -ENOMEM;
	s.next_in = in;
	s.avail_in = len;
	for (;;) {
		r = out_grow(o);
		if (r < 0)
			break;
		s.next_out = o->p + o->len;
		s.avail_out = o->cap - o->len;
		lr = lzma_code(&s, LZMA_FINISH);
		o->len = o->cap - s.avail_out;
		if (lr == LZMA_STREAM_END)
			break;
		if (lr != LZMA_OK) {
			r = lr == LZMA_MEM_ERROR ? -ENOMEM : -EINVAL;
			break;
		}
	}
	lzma_end(&s);
	return r;
}

static int unzstd(const uint8_t *in, size_t len, struct out *o)
{
	ZSTD_DStream *z = ZSTD_createDStream();
	ZSTD_inBuffer ib = { in, len, 0 };
	int r = 0;

	if (!z)
		return -ENOMEM;
	/* the kernel's image is compressed with --ultra -22: windows past the default */
	ZSTD_DCtx_setParameter(z, ZSTD_d_windowLogMax, 31);
	for (;;) {
		ZSTD_outBuffer ob;
		size_t rc;

		r = out_grow(o);
		if (r < 0)
			break;
		ob = (ZSTD_outBuffer){ o->p + o->len, o->cap - o->len, 0 };
		rc = ZSTD_decompressStream(z, &ob, &ib);
		o->len += ob.pos;
		if (ZSTD_isError(rc)) {
			r = -EINVAL;
			break;
		}
		if (rc == 0)
			break;	/* the frame is complete */
		if (ib.pos == ib.size && ob.pos < ob.size) {
			r = -EINVAL;	/* truncated */
			break;
		}
	}
	ZSTD_freeDStream(z);
	return r;
}

static int gunzip(const uint8_t *in, size_t len, struct out *o)
{
	z_stream s = { 0 };
	int zr, r = 0;

	if (inflateInit2(&s, 16 + MAX_WBITS) != Z_OK)
		return -ENOMEM;
	s.next_in = (Bytef *)in;
	s.avail_in = len > UINT32_MAX ? UINT32_MAX : (uInt)len;
	for (;;) {
		size_t room;

		r = out_grow(o);
		if (r < 0)
			break;
		room = o->cap - o->len;
		s.next_out = o->p + o->len;
		s.avail_out = room > UINT32_MAX ? UINT32_MAX : (uInt)room;
		zr = inflate(&s, Z_NO_FLUSH);
		o->len = (size_t)(s.next_out - o->p);
		if (zr == Z_STREAM_END)
			break;
		if (zr != Z_OK) {
			r = zr == Z_MEM_ERROR ? -ENOMEM : -EINVAL;
			break;
		}
	}
	inflateEnd(&s);
	return r;
}

/* The .BTF section of the ELF image @o holds: 0, -ENOENT */
static int elf_btf(struct out *o, struct kernel_btf **ret, const char **ret_why)
{
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int r = -ENOENT;

	if (o->len < 4 || memcmp(o->p, ELFMAG, SELFMAG) != 0) {
		*ret_why = "the decompressed image is not an ELF file";
		return -ENOENT;
	}
	e = elf_memory((char *)o->p, o->len);
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getshdrstrndx(e, &shstrndx) < 0) {
		*ret_why = "the decompressed image is not an ELF file libelf can read";
		goto out;
	}
	*ret_why = "the kernel has no .BTF section (CONFIG_DEBUG_INFO_BTF is off)";
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".BTF") != 0)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf || !data->d_size) {
			*ret_why = "the kernel's .BTF section is empty or out of the file";
			break;
		}
		r = kernel_btf_new(data->d_buf, data->d_size, ret);
		if (r == -EINVAL)
			*ret_why = "the kernel's .BTF section is not BTF libbpf reads";
		break;
	}
out:
	if (e)
		elf_end(e);
	return r;
}

static const uint8_t *next_magic(const uint8_t *p, const uint8_t *end, const struct magic **ret)
{
	const uint8_t *best = NULL;

	for (size_t i = 0; i < sizeof(magics) / sizeof(magics[0]); i++) {
		const uint8_t *q = memmem(p, (size_t)(end - p), magics[i].bytes, magics[i].len);

		if (q && (!best || q < best)) {
			best = q;
			*ret = &magics[i];
		}
	}
	return best;
}

int vmlinuz_btf_from_image(const void *data, size_t len, size_t max_vmlinux,
			   struct kernel_btf **ret, const char **ret_why)
{
	const uint8_t *p = data, *end = p + len, *at;
	const struct magic *m = NULL;
	struct out o = { .max = max_vmlinux < (2u << 20) ? (2u << 20) : max_vmlinux };
	int r = -ENOENT, tries = 0;

	*ret_why = "no xz, zstd or gzip stream in the image";
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOTSUP;
	while ((at = next_magic(p, end, &m)) && tries++ < TRIES_MAX) {
		o.len = 0;
		switch (m->kind) {
		case K_XZ: r = unxz(at, (size_t)(end - at), &o); break;
		case K_ZSTD: r = unzstd(at, (size_t)(end - at), &o); break;
		case K_GZIP: r = gunzip(at, (size_t)(end - at), &o); break;
		}
		if (r == -ENOMEM || r == -EFBIG)
			break;
		if (r == 0) {
			r = elf_btf(&o, ret, ret_why);
			if (r != -ENOENT || (o.len >= SELFMAG && memcmp(o.p, ELFMAG, SELFMAG) == 0))
				break;
		} else {
			*ret_why = "the compressed stream in the image is corrupt or truncated";
			r = -ENOENT;
		}
		p = at + 1;
	}
	if (r == -EFBIG)
		*ret_why = "the decompressed image is larger than a kernel";
	free(o.p);
	return r;
}

int vmlinuz_btf_read(int fd, struct kernel_btf **ret, const char **ret_why)
{
	struct stat st;
	uint8_t *buf;
	size_t have = 0;
	int r;

	*ret_why = "cannot read the image";
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode)) {
		*ret_why = "not a regular file";
		return -EINVAL;
	}
	if ((uint64_t)st.st_size > IMAGE_MAX) {
		*ret_why = "larger than 256 MiB: not a kernel image";
		return -EFBIG;
	}
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf)
		return -ENOMEM;
	while (have < (size_t)st.st_size) {
		ssize_t n = pread(fd, buf + have, (size_t)st.st_size - have, (off_t)have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			free(buf);
			return r;
		}
		if (n == 0)
			break;
		have += (size_t)n;
	}
	r = vmlinuz_btf_from_image(buf, have, VMLINUZ_VMLINUX_MAX, ret, ret_why);
	free(buf);
	return r;
}
