/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gelf.h>
#include <libelf.h>

#include "util/macro.h"
#include "modfile.h"
#include "modfile-internal.h"

/* What the kernel's layout works in (see modfile.h for the configuration assumed). */
#define KPAGE 4096u
/* include/linux/elf.h: the kernel-internal flag layout_and_allocate() sets */
#define KSHF_RO_AFTER_INIT 0x00200000ull
/* SH_ENTSIZE_TYPE_SHIFT is BITS_PER_LONG - 4: an unplaced section's ~0UL reads as type 15 */
#define KMEMT_UNPLACED 15

/* ---- the kernel's layout ------------------------------------------------------------- */

struct ksec {
	uint64_t flags;		/* as the kernel has rewritten them before layout */
	uint64_t size, align;
	const char *name;
	int type64;		/* 6.4+: mod_mem_type placed in, KMEMT_UNPLACED */
	bool placed_pre, init_pre;	/* <=6.3: sh_entsize set, INIT_OFFSET_MASK in it */
};

/* ALIGN() as the kernel computes it: in typeof(size), unsigned int. */
static uint32_t kalign(uint32_t x, uint64_t a)
{
	uint32_t mask = (uint32_t)(a ? a : 1) - 1;

	return (x + mask) & ~mask;
}

/* module_get_offset() / module_get_offset_and_type() with arch_mod_section_prepend() 0 */
static void kplace(uint32_t *size, const struct ksec *s)
{
	*size = (uint32_t)(kalign(*size, s->align) + s->size);
}

static bool module_init_layout_section(const char *name)
{
	/* CONFIG_MODULE_UNLOAD=y: .exit* is core; module_init_section() is ".init" */
	return name && strncmp(name, ".init", 5) == 0;
}

static const uint64_t layout_masks[5][2] = {
	/* executable code first: the text size finder depends on it */
	{ SHF_EXECINSTR | SHF_ALLOC, 0 },
	{ SHF_ALLOC, SHF_WRITE },
	{ KSHF_RO_AFTER_INIT | SHF_ALLOC, 0 },
	{ SHF_WRITE | SHF_ALLOC, 0 },
	{ SHF_ALLOC, 0 },	/* ARCH_SHF_SMALL | SHF_ALLOC, ARCH_SHF_SMALL being 0 */
};

static bool mask_matches(const struct ksec *s, unsigned int m)
{
	return (s->flags & layout_masks[m][0]) == layout_masks[m][0] &&
	       !(s->flags & layout_masks[m][1]);
}

/* 6.4+ __layout_sections() (ac3b43283923), both passes. */
static void layout_sections_64(struct ksec *sec, size_t n, uint32_t sz[_MEMT_MAX])
{
	static const int core_m_to_mem_type[] = {
		MEMT_TEXT, MEMT_RODATA, MEMT_RO_AFTER_INIT, MEMT_DATA, MEMT_DATA,
	};
	static const int init_m_to_mem_type[] = {
		MEMT_INIT_TEXT, MEMT_INIT_RODATA, -1, MEMT_INIT_DATA, MEMT_INIT_DATA,
	};

	for (int is_init = 0; is_init <= 1; is_init++) {
		for (unsigned int m = 0; m < ARRAY_SIZE(layout_masks); m++) {
			int type = is_init ? init_m_to_mem_type[m] : core_m_to_mem_type[m];

			for (size_t i = 0; i < n; i++) {
				struct ksec *s = &sec[i];

				if (!mask_matches(s, m) || s->type64 != KMEMT_UNPLACED ||
				    is_init != module_init_layout_section(s->name))
					continue;
				/* WARN_ON_ONCE(type == MOD_INVALID): left unplaced */
				if (type < 0)
					continue;
				kplace(&sz[type], s);
				s->type64 = type;
			}
		}
	}
}

static uint32_t strict_align(uint32_t x)
{
	return kalign(x, KPAGE);	/* CONFIG_STRICT_MODULE_RWX=y */
}

/*
 * <=6.3 layout_sections() (5.19-6.3 text; data_layout is core_layout without
 * CONFIG_ARCH_WANTS_MODULES_DATA_IN_VMALLOC): strict_align() after text, rodata,
 * ro_after_init and the whole, nothing after writable data.
 */
static void layout_sections_pre(struct ksec *sec, size_t n, uint32_t *core, uint32_t *init)
{
	for (int is_init = 0; is_init <= 1; is_init++) {
		uint32_t *size = is_init ? init : core;

		for (unsigned int m = 0; m < ARRAY_SIZE(layout_masks); m++) {
			for (size_t i = 0; i < n; i++) {
				struct ksec *s = &sec[i];

				if (!mask_matches(s, m) || s->placed_pre ||
				    is_init != module_init_layout_section(s->name))
					continue;
				kplace(size, s);
				s->placed_pre = true;
				s->init_pre = is_init;
			}
			/* case 2 of the init pass only copies ro_size: no alignment */
			if (m == 0 || m == 1 || (m == 2 && !is_init) || m == 4)
				*size = strict_align(*size);
		}
	}
}

static bool mem_type_is_init(int t)
{
	return t == MEMT_INIT_TEXT || t == MEMT_INIT_DATA || t == MEMT_INIT_RODATA;
}

/*
 * is_core_symbol() with CONFIG_KALLSYMS_ALL: defined in an allocated section that is
 * not init, or per-CPU. The generations differ for a section left unplaced (init
 * ro_after_init data): ~0UL has INIT_OFFSET_MASK (not core before 6.4), but reads as
 * type 15, not an init type, since 6.4.
 */
static void is_core_symbol(const GElf_Sym *sym, const struct ksec *sec, size_t shnum,
			   size_t pcpundx, bool *ret_64, bool *ret_pre)
{
	const struct ksec *s;

	*ret_64 = *ret_pre = false;
	if (sym->st_shndx == SHN_UNDEF || sym->st_shndx >= shnum || !sym->st_name)
		return;
	if (sym->st_shndx == pcpundx) {
		*ret_64 = *ret_pre = true;
		return;
	}
	s = &sec[sym->st_shndx];
	if (!(s->flags & SHF_ALLOC))
		return;
	*ret_64 = !mem_type_is_init(s->type64);
	*ret_pre = s->placed_pre && !s->init_pre;
}

/* get_modinfo(): the value of @tag in .modinfo, or NULL. */
static const char *modinfo_get(const char *p, size_t n, const char *tag)
{
	size_t tl = strlen(tag);
	const char *end = p + n;

	while (p < end) {
		const char *z = memchr(p, '\0', end - p);
		size_t l = z ? (size_t)(z - p) : (size_t)(end - p);

		if (z && l > tl && memcmp(p, tag, tl) == 0 && p[tl] == '=')
			return p + tl + 1;
		p += l + 1;
	}
	return NULL;
}

static Elf_Data *section_data(Elf *elf, size_t i)
{
	Elf_Scn *scn = elf_getscn(elf, i);

	return scn ? elf_getdata(scn, NULL) : NULL;
}

static void set_name(char *dst, const char *src, size_t max)
{
	size_t i;

	for (i = 0; i < max && i < 63 && src[i]; i++)
		dst[i] = src[i];
	dst[i] = '\0';
}

/*
 * The kernel's layout of the ELF image @img. The load checks that decide whether the
 * kernel lays the module out at all (elf_validity_cache_copy()) are mirrored as far
 * as they do not depend on the running kernel (struct module's size, vermagic, arch).
 *
 * Checked against sys/module/NAME/coresize of every loaded module of the three
 * fixtures (Debian 6.1 .ko, Debian 6.12 and a defconfig 6.12 .ko.xz) and against every
 * module memory area their traces allocate (alloc_vmap_area under module_alloc() or
 * execmem_alloc(), failed loads and duplicates included, init areas too): exact, no
 * difference to explain. What it does not model, because those kernels do not do it:
 * CONFIG_MEM_ALLOC_PROFILING on 6.13+ (alloc_tags sections go to separate memory,
 * codetag_needs_module_section()), later kernels' longer ro_after_init list
 * (module_mark_ro_after_init()), and architectures with module_frob_arch_sections()
 * or arch_mod_section_prepend() (PLTs, GOTs: not x86).
 */
int modfile_layout_image(uint8_t *img, size_t len, struct modfile_layout *ret, char *name,
			enum modfile_name_source *ret_source)
{
	size_t shnum, shstrndx, symidx = 0, stridx, modidx = 0, infoidx = 0, pcpuidx = 0;
	size_t nsym_secs = 0, nmod_secs = 0, nsrc, symsz, ksz, kalignment;
	uint32_t sz64[_MEMT_MAX] = { 0 }, core = 0, init = 0;
	uint32_t ndst64 = 0, ndst_pre = 0, str64 = 0, str_pre = 0, symoffs;
	const char *modinfo = NULL, *strtab = NULL;
	size_t modinfo_len = 0, strtab_len = 0;
	struct ksec *sec = NULL;
	Elf_Data *symdata, *d;
	GElf_Ehdr eh;
	bool livepatch;
	Elf *elf;
	int err = -ENOEXEC, cls;

	elf_version(EV_CURRENT);
	elf = elf_memory((char *)img, len);
	if (!elf)
		return -ENOEXEC;
	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) || eh.e_type != ET_REL)
		goto out;
	cls = gelf_getclass(elf);
	if (cls != ELFCLASS64 && cls != ELFCLASS32)
		goto out;
	/* sizeof(Elf_Sym), sizeof and __alignof__(struct mod_kallsyms) */
	symsz = cls == ELFCLASS64 ? 24 : 16;
	ksz = cls == ELFCLASS64 ? 32 : 16;
	kalignment = cls == ELFCLASS64 ? 8 : 4;
	if (elf_getshdrnum(elf, &shnum) < 0 || elf_getshdrstrndx(elf, &shstrndx) < 0 ||
	    shnum == 0 || shstrndx == SHN_UNDEF || shstrndx >= shnum)
		goto out;
	sec = calloc(shnum, sizeof(*sec));
	if (!sec) {
		err = -ENOMEM;
		goto out;
	}

	for (size_t i = 0; i < shnum; i++) {
		Elf_Scn *scn = elf_getscn(elf, i);
		GElf_Shdr sh;

		if (!scn || !gelf_getshdr(scn, &sh))
			goto out;
		sec[i].flags = sh.sh_flags;
		sec[i].size = sh.sh_size;
		sec[i].align = sh.sh_addralign;
		sec[i].type64 = KMEMT_UNPLACED;
		if (i == 0 || sh.sh_type == SHT_NULL || sh.sh_type == SHT_NOBITS) {
			if (i == 0 && (sh.sh_type != SHT_NULL || sh.sh_size || sh.sh_addr))
				goto out;
			sec[i].name = elf_strptr(elf, shstrndx, sh.sh_name);
			continue;
		}
		sec[i].name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!sec[i].name && (sh.sh_flags & SHF_ALLOC))
			goto out;	/* "Invalid ELF section name in module" */
		if (sh.sh_type == SHT_SYMTAB) {
			if (sh.sh_link == SHN_UNDEF || sh.sh_link >= shnum)
				goto out;
			nsym_secs++;
			symidx = i;
		}
		if (!sec[i].name)
			continue;
		if (strcmp(sec[i].name, ".gnu.linkonce.this_module") == 0) {
			nmod_secs++;
			modidx = i;
		} else if (strcmp(sec[i].name, ".modinfo") == 0) {
			infoidx = i;
		}
	}
	/* exactly one symbol table and one struct module, allocated (6.12's checks) */
	if (nsym_secs != 1 || nmod_secs != 1 || !(sec[modidx].flags & SHF_ALLOC))
		goto out;
	stridx = 0;
	{
		GElf_Shdr sh;

		if (!gelf_getshdr(elf_getscn(elf, symidx), &sh))
			goto out;
		stridx = sh.sh_link;
	}

	if (infoidx && (d = section_data(elf, infoidx)) && d->d_buf) {
		modinfo = d->d_buf;
		modinfo_len = d->d_size;
	}
	livepatch = modinfo && modinfo_get(modinfo, modinfo_len, "livepatch");

	if (name) {
		/* struct module { enum module_state state; struct list_head list; char name[]; } */
		size_t off = cls == ELFCLASS64 ? 24 : 12, max = cls == ELFCLASS64 ? 56 : 60;
		const char *mi;

		memset(name, 0, 64);
		d = section_data(elf, modidx);
		if (d && d->d_buf && d->d_size > off) {
			size_t avail = d->d_size - off;

			set_name(name, (const char *)d->d_buf + off, avail < max ? avail : max);
			if (ret_source)
				*ret_source = MODFILE_NAME_THIS_MODULE;
		}
		if (!name[0] && modinfo && (mi = modinfo_get(modinfo, modinfo_len, "name"))) {
			set_name(name, mi, (size_t)(modinfo + modinfo_len - mi));
			if (ret_source)
				*ret_source = MODFILE_NAME_MODINFO;
		}
	}

	/*
	 * rewrite_section_headers(): .modinfo and __versions are not kept (find_sec()
	 * needs SHF_ALLOC). layout_and_allocate(): per-CPU data is allocated apart;
	 * .data..ro_after_init and __jump_table become ro_after_init (6.12's list).
	 */
	for (size_t i = 1; i < shnum; i++) {
		const char *n = sec[i].name;

		if (!n || !(sec[i].flags & SHF_ALLOC))
			continue;
		if (strcmp(n, "__versions") == 0) {
			sec[i].flags &= ~(uint64_t)SHF_ALLOC;
			break;
		}
	}
	if (infoidx)
		sec[infoidx].flags &= ~(uint64_t)SHF_ALLOC;
	for (size_t i = 1; i < shnum; i++) {
		if (sec[i].name && (sec[i].flags & SHF_ALLOC) &&
		    strcmp(sec[i].name, ".data..percpu") == 0) {
			pcpuidx = i;
			sec[i].flags &= ~(uint64_t)SHF_ALLOC;
			break;
		}
	}
	{
		static const char *const ro_after_init[] = { ".data..ro_after_init", "__jump_table" };

		for (size_t k = 0; k < ARRAY_SIZE(ro_after_init); k++)
			for (size_t i = 1; i < shnum; i++)
				if (sec[i].name && (sec[i].flags & SHF_ALLOC) &&
				    strcmp(sec[i].name, ro_after_init[k]) == 0) {
					sec[i].flags |= KSHF_RO_AFTER_INIT;
					break;
				}
	}

	layout_sections_64(sec, shnum, sz64);
	layout_sections_pre(sec, shnum, &core, &init);

	/* layout_symtab(): the whole symbol table goes to the end of init (data) */
	sec[symidx].flags |= SHF_ALLOC;
	kplace(&sz64[MEMT_INIT_DATA], &sec[symidx]);
	sec[symidx].type64 = MEMT_INIT_DATA;
	kplace(&init, &sec[symidx]);
	sec[symidx].placed_pre = sec[symidx].init_pre = true;

	symdata = section_data(elf, symidx);
	if (!symdata)
		goto out;
	d = section_data(elf, stridx);
	if (d && d->d_buf) {
		strtab = d->d_buf;
		strtab_len = d->d_size;
	}
	nsrc = (uint32_t)(sec[symidx].size / symsz);
	for (size_t i = 0; i < nsrc; i++) {
		GElf_Sym sym;
		bool c64, cpre;
		uint32_t l = 1;

		if (!gelf_getsym(symdata, (int)i, &sym))
			goto out;
		if (strtab && sym.st_name < strtab_len)
			l += (uint32_t)strnlen(strtab + sym.st_name, strtab_len - sym.st_name);
		is_core_symbol(&sym, sec, shnum, pcpuidx, &c64, &cpre);
		if (i == 0 || livepatch || c64) {
			str64 += l;
			ndst64++;
		}
		if (i == 0 || livepatch || cpre) {
			str_pre += l;
			ndst_pre++;
		}
	}

	/* the core symbols, their names and types are appended to core data */
	symoffs = kalign(sz64[MEMT_DATA], sec[symidx].align);
	sz64[MEMT_DATA] = (uint32_t)(symoffs + ndst64 * symsz) + str64 + ndst64;
	symoffs = kalign(core, sec[symidx].align);
	core = (uint32_t)(symoffs + ndst_pre * symsz) + str_pre + ndst_pre;
	core = strict_align(core);

	/* then the string table, the temporary struct mod_kallsyms and all types to init */
	sec[stridx].flags |= SHF_ALLOC;
	kplace(&sz64[MEMT_INIT_DATA], &sec[stridx]);
	sz64[MEMT_INIT_DATA] = kalign(sz64[MEMT_INIT_DATA], kalignment) + (uint32_t)ksz;
	sz64[MEMT_INIT_DATA] += (uint32_t)nsrc;
	kplace(&init, &sec[stridx]);
	init = kalign(init, kalignment) + (uint32_t)ksz;
	init += (uint32_t)nsrc;
	init = strict_align(init);

	memset(ret, 0, sizeof(*ret));
	for (int t = 0; t < _MEMT_MAX; t++) {
		/* module_memory_alloc(): PAGE_ALIGN, written back to mod->mem[type].size */
		ret->mem[t] = kalign(sz64[t], KPAGE);
	}
	ret->core_size = core;
	ret->init_size = init;
	/*
	 * show_coresize() 6.4+: text plus the core data types (no
	 * CONFIG_ARCH_WANTS_MODULES_DATA_IN_VMALLOC); show_initsize(): the init types.
	 * Both are unsigned int sums of the page-aligned sizes. Before 6.4 they print
	 * core_layout.size and init_layout.size.
	 */
	ret->sysfs_coresize_64 = (uint32_t)(ret->mem[MEMT_TEXT] + ret->mem[MEMT_DATA] +
					    ret->mem[MEMT_RODATA] + ret->mem[MEMT_RO_AFTER_INIT]);
	ret->sysfs_initsize_64 = (uint32_t)(ret->mem[MEMT_INIT_TEXT] + ret->mem[MEMT_INIT_DATA] +
					    ret->mem[MEMT_INIT_RODATA]);
	ret->sysfs_coresize_pre64 = core;
	ret->sysfs_initsize_pre64 = init;
	err = 0;
out:
	free(sec);
	elf_end(elf);
	return err;
}

int modfile_layout_elf(const void *image, size_t len, struct modfile_layout *ret, char *name,
		       enum modfile_name_source *ret_source)
{
	struct modfile_layout l;
	char n[64] = { 0 };
	enum modfile_name_source src = MODFILE_NAME_FILE;
	uint8_t *copy;
	int err;

	/* libelf may convert a foreign-endian image in place: give it our own copy */
	copy = malloc(len ? len : 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, image, len);
	err = modfile_layout_image(copy, len, &l, n, &src);
	free(copy);
	if (err < 0)
		return err;
	*ret = l;
	if (name)
		memcpy(name, n, sizeof(n));
	if (ret_source)
		*ret_source = src;
	return 0;
}

const char *modfile_mem_type_name(enum mod_mem_type_idx t)
{
	static const char *const names[] = {
		"text", "data", "rodata", "ro_after_init", "init_text", "init_data", "init_rodata",
	};

	return (unsigned int)t < ARRAY_SIZE(names) ? names[t] : "unknown";
}
