/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * One module file: how big it is on disk, how big it is once decompressed (without
 * decompressing where the format allows), the xz dictionary the kernel's decoder
 * vmallocs, and the memory the kernel allocates for the module, computed the way
 * kernel/module/main.c (layout_sections) and kallsyms.c (layout_symtab) do.
 *
 * The layout is the kernel's for x86-64 as Debian configures it: PAGE_SIZE 4096,
 * CONFIG_STRICT_MODULE_RWX=y (strict_align() is PAGE_ALIGN), CONFIG_KALLSYMS_ALL=y,
 * CONFIG_MODULE_UNLOAD=y (.exit* stays in core), ARCH_SHF_SMALL 0, no
 * CONFIG_ARCH_WANTS_MODULES_DATA_IN_VMALLOC, and a load without
 * MODULE_INIT_IGNORE_MODVERSIONS (__versions is dropped).
 */

enum modfile_comp { MODFILE_PLAIN, MODFILE_XZ, MODFILE_ZSTD, MODFILE_GZIP };

/* 6.4+ enum mod_mem_type, same order (ac3b43283923 "module: replace module_layout"). */
enum mod_mem_type_idx {
	MEMT_TEXT,
	MEMT_DATA,
	MEMT_RODATA,
	MEMT_RO_AFTER_INIT,
	MEMT_INIT_TEXT,
	MEMT_INIT_DATA,
	MEMT_INIT_RODATA,
	_MEMT_MAX
};

struct modfile_layout {
	/* 6.4+ (one module_memory_alloc()/execmem_alloc() each): PAGE_ALIGNed, 0 if empty */
	uint64_t mem[_MEMT_MAX];
	/* <=6.3: core_layout.size and init_layout.size (strict_align()ed, one area each) */
	uint64_t core_size, init_size;
	/*
	 * What sys/module/NAME/coresize and initsize read while the module is COMING;
	 * once it is live initsize reads 0 (the init memory is freed, both generations).
	 */
	uint64_t sysfs_coresize_64, sysfs_initsize_64;
	uint64_t sysfs_coresize_pre64, sysfs_initsize_pre64;
};

enum modfile_name_source {
	MODFILE_NAME_FILE,		/* no ELF read: the file name, kmod-normalised ('-' is '_') */
	MODFILE_NAME_THIS_MODULE,	/* struct module's name in .gnu.linkonce.this_module */
	MODFILE_NAME_MODINFO,		/* .modinfo name= */
};

struct modfile_info {
	uint64_t file_size;		/* st_size: what finit_module()'s kernel_read_file() reads */
	enum modfile_comp comp;		/* by magic, not by file name */
	uint64_t decompressed_size;	/* == file_size for plain */
	bool decompressed_exact;	/* xz index / zstd frame header / counted stream */
	/*
	 * Largest LZMA2 dictionary in the block headers of the first stream: the kernel's
	 * xz_dec (XZ_DYNALLOC) vmallocs exactly this in xz_dec_lzma2_reset(). 0 if not xz.
	 */
	uint64_t xz_dict_size;
	uint64_t zstd_window_size;	/* frame header Window_Size; 0 if not zstd */
	char name[64];
	enum modfile_name_source name_source;
	struct modfile_layout layout;
	bool has_layout;
	/*
	 * Why has_layout is false: 0 when the layout was not asked for, -ENOEXEC when the
	 * image is no module the kernel would lay out (not ELF, not ET_REL, no symbol
	 * table, no .gnu.linkonce.this_module): such a load fails before allocating.
	 */
	int layout_err;
};

/* Analysis flags */
#define MODFILE_SIZES 0u		/* sizes and dictionary only: no decompression for xz/zstd */
#define MODFILE_LAYOUT (1u << 0)	/* decompress and lay the image out (and read its name) */

/*
 * Largest decompressed image analysed: -EFBIG past it, before decompressing when the
 * format records the size. The kernel's own limit is memory; 256 MiB is over fifty
 * times the largest module of the fixtures' distribution trees (xfs.ko, 4 MiB) and
 * bounds what a bomb costs here. Only an unstripped module with its debug sections
 * comes near it, and its size is then reported, not priced.
 */
#define MODFILE_MAX_IMAGE (256ull << 20)

/*
 * MODFILE_SIZES trusts the size records the formats keep for that purpose: the xz
 * index (CRC-protected) and the zstd frame header. A record that lies is caught by
 * MODFILE_LAYOUT, which decodes (-EBADMSG), as the kernel's decoder would fail that
 * load. gzip is always inflated and counted: its ISIZE trailer is only a hint.
 *
 * Analyses the file at @path. 0 and *ret filled, or -errno from open/read, -EBADMSG
 * for corrupt or truncated compressed data (a file named .xz/.zst/.gz without that
 * magic is corrupt too), -EFBIG past MODFILE_MAX_IMAGE, -ENOMEM. *ret is written on
 * success only. modfile_analyze() is modfile_analyze_flags(path, MODFILE_LAYOUT, ret).
 */
int modfile_analyze(const char *path, struct modfile_info *ret);
int modfile_analyze_flags(const char *path, unsigned int flags, struct modfile_info *ret);

/*
 * The same for a file already in memory (@data is not modified and not kept). The
 * compression is sniffed from the magic; file_size is @len and name is empty unless
 * the layout reads it. @max_image bounds the decompressed size (0: MODFILE_MAX_IMAGE).
 */
int modfile_analyze_buffer(const void *data, size_t len, unsigned int flags,
			   uint64_t max_image, struct modfile_info *ret);

/*
 * Lays out an ELF image: 0, or -ENOEXEC when it is no module, -ENOMEM. @name (64
 * bytes) receives the module name and *ret_source where it came from; both may be NULL.
 */
int modfile_layout_elf(const void *image, size_t len, struct modfile_layout *ret,
		       char *name, enum modfile_name_source *ret_source);

/* ---- cache --------------------------------------------------------------------------- */

/*
 * Per-module analyses are cached in a directory, one file ("pack") per module
 * directory holding a record per module file, each keyed by the file's name, device,
 * inode, size and mtime; packs carry a magic, a format version, their directory's path
 * and a CRC. A corrupt, truncated or foreign pack (other magic, version or directory,
 * a symlink) is ignored and rewritten. Packs are written to a temporary file
 * (O_EXCL|O_NOFOLLOW) and renamed, so never through a symlink; a cache directory that
 * is a symlink, not ours, or writable by group or others is refused, and then nothing
 * is cached (the analysis itself still runs). A handle is not thread-safe.
 */
struct modfile_cache;

enum modfile_cache_status {
	MODFILE_CACHE_OFF,	/* no usable cache directory: analysed, not cached */
	MODFILE_CACHE_HIT,
	MODFILE_CACHE_MISS,	/* no record (or one without the layout asked for): stored */
	MODFILE_CACHE_STALE,	/* the file changed since: analysed again, replaced */
	MODFILE_CACHE_INVALID,	/* corrupt or foreign pack ignored: analysed, replaced */
};

/*
 * $XDG_CACHE_HOME/kmodtop, else $HOME/.cache/kmodtop (XDG_CACHE_HOME only when
 * absolute). Caller frees. -ENOENT when neither variable helps.
 */
int modfile_cache_default_dir(char **ret);

/*
 * Opens (creating it 0700 if missing, with missing parents) the cache directory @dir,
 * NULL for the default. Always returns 0 and a handle unless out of memory; a refused
 * directory yields a handle that caches nothing (modfile_cache_enabled() is false).
 * The caller owns the handle: modfile_cache_free() writes back what changed.
 */
int modfile_cache_open(const char *dir, struct modfile_cache **ret);
struct modfile_cache *modfile_cache_free(struct modfile_cache *c);
bool modfile_cache_enabled(const struct modfile_cache *c);
/* Why the directory was refused (-ELOOP symlink, -EPERM owner/mode, -errno); 0 if not. */
int modfile_cache_error(const struct modfile_cache *c);
/* The directory opened or refused, NULL when none was named (no $XDG_CACHE_HOME, $HOME). */
const char *modfile_cache_dir(const struct modfile_cache *c);
/*
 * The refusal in words when the error code alone does not say it ("is a symbolic
 * link", "is owned by another user", "is writable by group or others"); else NULL.
 */
const char *modfile_cache_why(const struct modfile_cache *c);
/* Writes the loaded pack back if it changed (also done when leaving its directory). */
int modfile_cache_flush(struct modfile_cache *c);

/*
 * For the fuzzer and tests: reads @buf (@len bytes) as the pack of directory @dir, as
 * a scan would, and encodes the records it read again into *@ret_buf (the caller frees
 * it). 1: read and encoded, 0: corrupt or foreign (nothing stored), -ENOMEM.
 */
int modfile_cache_pack_recode(const uint8_t *buf, size_t len, const char *dir,
			      uint8_t **ret_buf, size_t *ret_len);

/*
 * modfile_analyze_flags() through the cache. @ret_status may be NULL. Errors are those
 * of the analysis; failing to write the cache is not one. Failed analyses are not
 * cached. Scans are fastest directory by directory (one pack read per directory).
 */
int modfile_cache_analyze(struct modfile_cache *c, const char *path, unsigned int flags,
			  struct modfile_info *ret, enum modfile_cache_status *ret_status);

/*
 * The same with the file's stat() already at hand (a directory walk has it): a hit then
 * costs no system call beyond the pack read. @st NULL: stat(@path).
 */
struct stat;
int modfile_cache_analyze_stat(struct modfile_cache *c, const char *path,
			       const struct stat *st, unsigned int flags, struct modfile_info *ret,
			       enum modfile_cache_status *ret_status);

/*
 * One-shot: modfile_cache_open(@cache_dir) + modfile_cache_analyze(MODFILE_LAYOUT) +
 * modfile_cache_free(). For many files keep a handle instead.
 */
int modfile_analyze_cached(const char *path, const char *cache_dir, struct modfile_info *ret);

const char *modfile_comp_name(enum modfile_comp c);	/* "none", "xz", "zstd", "gzip" */
const char *modfile_mem_type_name(enum mod_mem_type_idx t);	/* "text", ..., "init_rodata" */
