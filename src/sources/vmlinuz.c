/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/codec.h"
#include "vmlinuz.h"

#define IMAGE_MAX (256u << 20)
/* magic bytes found by chance in the setup code: tried, refused, searched past */
#define TRIES_MAX 32

/*
 * Where the payload may start. gzip's magic is followed by its one method byte
 * (deflate): fewer chance hits in the setup code than the two bytes alone.
 */
static const struct magic {
	enum codec_type type;
	const char *bytes;
	size_t len;
} magics[] = {
	{ CODEC_XZ, "\xfd" "7zXZ\0", 6 },
	{ CODEC_ZSTD, "\x28\xb5\x2f\xfd", 4 },
	{ CODEC_GZIP, "\x1f\x8b\x08", 3 },
};

struct out {
	uint8_t *p;
	size_t len;
};

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

/*
 * The largest zstd window worth accepting for @max_out bytes of output: a frame may
 * declare a window of up to 2 GiB, which libzstd allocates before a byte comes out,
 * while no back-reference of a stream capped at @max_out reaches further than that
 * (27, libzstd's default, at the least: --ultra -22 of a kernel uses it).
 */
static int zstd_window_log_for(uint64_t max_out)
{
	int n = 27;

	while (n < 31 && (UINT64_C(1) << n) < max_out)
		n++;
	return n;
}

int vmlinuz_btf_from_image(const void *data, size_t len, size_t max_vmlinux,
			   struct kernel_btf **ret, const char **ret_why)
{
	const uint8_t *p = data, *end = p + len, *at;
	const struct magic *m = NULL;
	struct out o = { 0 };
	/*
	 * The first stream only, as the boot decompressor reads it; the kernel's image is
	 * compressed with zstd --ultra -22, a window past libzstd's default.
	 */
	const uint64_t max_out = max_vmlinux < (2u << 20) ? (2u << 20) : max_vmlinux;
	const struct codec_options opts = {
		.max_out = max_out,
		.zstd_window_log_max = zstd_window_log_for(max_out),
	};
	int r = -ENOENT, tries = 0;

	*ret_why = "no xz, zstd or gzip stream in the image";
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOTSUP;
	while ((at = next_magic(p, end, &m)) && tries++ < TRIES_MAX) {
		free(o.p);
		o = (struct out){ 0 };
		r = codec_decode_buffer(m->type, &opts, at, (size_t)(end - at), &o.p, &o.len);
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
