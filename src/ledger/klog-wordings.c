/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The wordings kmodtop reads in a kernel log: the kernel's printk formats and module
 * loaders' messages, each with its source; klog-findings.c matches a line against them.
 */
#include <errno.h>
#include <stdint.h>

#include "util/macro.h"
#include "klog-findings.h"

/*
 * Every entry is a printk format string as the source has it, so a kernel line is
 * recognised by running the format backwards (match() below) rather than by
 * hand-written patterns that drift from the source. Where a prefix is added at run
 * time the entry spells the rendered form and says so: pr_fmt ("module: " in dups.c),
 * warn_alloc()'s "%s: %pV, mode:..." (comm first, more after), dev_err()'s
 * "%s %s: " (driver/bus name, device name).
 *
 * slots: one letter per conversion, in order:
 *   m module   s symbol   t text   u text2   n next number   - ignored
 */
#define MAIN "kernel/module/main.c"
#define E(kind_, fmt_, src_, err_, slots_, ...)                                          \
	{ .kind = KLOG_FINDING_##kind_, .format = fmt_, .source = src_, .err = err_,     \
	  .slots = slots_, __VA_ARGS__ }

const struct klog_format_entry klog_wordings[] = {
	/* symbol resolution (5.5) */
	E(UNKNOWN_SYMBOL, "%s: Unknown symbol %s (err %d)\n", MAIN, ENOENT, "msn"),
	/* 2.6 and 3.x print no error: after the line above, or it takes "(err -2)" */
	E(UNKNOWN_SYMBOL, "%s: Unknown symbol %s\n", "kernel/module.c", ENOENT, "ms",
	  .flags = KLOG_FORMAT_WORDS),
	E(SYMBOL_VERSION, "%s: disagrees about version of symbol %s\n",
	  "kernel/module/version.c", EINVAL, "ms"),
	E(NO_SYMBOL_VERSION, "%s: no symbol version for %s\n", "kernel/module/version.c", 0,
	  "ms"),
	E(SYMBOL_NAMESPACE,
	  "%s: module uses symbol (%s) from namespace %s, but does not import it.\n", MAIN,
	  EINVAL, "mst"),
	E(LOAD_ERROR, "%s: gave up waiting for init of module %s.\n", MAIN, 0, "mt"),
	E(BAD_ELF, "%s: please compile with -fno-common\n", MAIN, ENOEXEC, "m"),
	/* the load fails through the "Unknown symbol %s (err -22)" line of the same symbol
	 * that follows: this line only says why, and must not count the failure again */
	E(GPL_FROM_PROPRIETARY,
	  "%s: module using GPL-only symbols uses symbols %s from proprietary module %s.\n",
	  MAIN, 0, "mst"),
	/* 5.9 to 6.x, before the symbol was named */
	E(GPL_FROM_PROPRIETARY,
	  "%s: module using GPL-only symbols uses symbols from proprietary module %s.\n",
	  "kernel/module.c", 0, "mt"),
	E(TAINT, "%s: module uses symbols %s from proprietary module %s, inheriting taint.\n",
	  MAIN, 0, "mst"),
	/* 5.9 to 6.x (before the symbol name was added) */
	E(TAINT, "%s: module uses symbols from proprietary module %s, inheriting taint.\n",
	  "kernel/module.c", 0, "mt"),
	E(LOAD_ERROR, "%s: exports duplicate symbol %s (owned by %s)\n", MAIN, ENOEXEC, "mst"),
	E(LOAD_WARNING, "%s: per-cpu alignment %li > %li\n", MAIN, 0, "mnn"),
	E(LOAD_ERROR, "%s: Could not allocate %lu bytes percpu data\n", MAIN, ENOMEM, "mn"),
	E(LOAD_ERROR, "%s: has both .ctors and .init_array.\n", MAIN, EINVAL, "m"),
	E(LOAD_WARNING, "%s: Ignoring obsolete parameters\n", MAIN, 0, "m"),
	E(LOAD_WARNING, "%s: unknown parameter '%s' ignored\n", MAIN, 0, "mt"),
	E(LOAD_WARNING, "%s: parameters '%s' after `--' ignored\n", MAIN, 0, "mt"),
	/* parse_args() on the module's parameters: a value its setter refuses fails the
	 * load; an unknown name failed it too before 3.16 (then "unknown parameter '%s'
	 * ignored" above). At boot the same lines say "Booting kernel", no module. */
	E(LOAD_ERROR, "%s: `%s' invalid for parameter `%s'\n", "kernel/params.c", EINVAL, "m-t"),
	E(LOAD_ERROR, "%s: `%s' too large for parameter `%s'\n", "kernel/params.c", ENOSPC, "m-t"),
	E(LOAD_ERROR, "%s: Unknown parameter `%s'\n", "kernel/params.c", ENOENT, "mt"),
	E(ALREADY_LOADED, "%s: module is already loaded\n", "kernel/module/sysfs.c", EINVAL,
	  "m"),
	E(LOAD_ERROR, "%s: module sysfs not initialized\n", "kernel/module/sysfs.c", EINVAL,
	  "m"),
	/* the first %s is __func__ (do_init_module), then the module name */
	E(INIT_BAD_RETURN,
	  "%s: '%s'->init suspiciously returned %d, it should follow 0/-E convention\n"
	  "%s: loading module anyway...\n",
	  MAIN, 0, "-mn-"),
	E(INIT_BAD_RETURN, "%s: '%s'->init suspiciously returned %d: Overriding with %d\n",
	  MAIN, 0, "-mnn"),
	E(LOAD_WARNING,
	  "%s: module_enable_rodata_ro_after_init() returned %d, ro_after_init data might still be writable\n",
	  MAIN, 0, "mn"),
	E(LOAD_WARNING,
	  "%s: adding tainted module to the unloaded tainted modules list failed.\n",
	  "kernel/module/tracking.c", 0, "m"),

	/* request_module() throttling and duplicates (5.7); dups.c has pr_fmt "module: " */
	E(AUTOLOAD_DUPLICATE, "module: module-autoload: duplicate request for module %s\n",
	  "kernel/module/dups.c", 0, "m"),
	E(AUTOLOAD_DUPLICATE, "module-autoload: duplicate request for module %s\n",
	  "kernel/module/dups.c", 0, "m"),	/* WARN() with enable_dups_trace */
	E(KMOD_THROTTLED,
	  "request_module: kmod_concurrent_max (%u) close to 0 (max_modprobes: %u), for module %s, throttling...",
	  "kernel/module/kmod.c", 0, "nnm"),
	E(KMOD_BUSY,
	  "request_module: modprobe %s cannot be processed, kmod busy with %d threads for more than %d seconds now",
	  "kernel/module/kmod.c", ETIME, "mnn"),
	E(KMOD_GAVE_UP, "request_module: sigkill sent for modprobe %s, giving up",
	  "kernel/module/kmod.c", 0, "m"),
	E(KMOD_GAVE_UP, "request_module: runaway loop modprobe %s\n", "kernel/kmod.c", 0,
	  "m"),	/* before 4.13 */
	E(FS_STILL_MISSING, "request_module fs-%.*s succeeded, but still no fs?\n",
	  "fs/filesystems.c", 0, "m"),

	/* allocation failures (5.6) */
	E(VMAP_FAILED, "vmap allocation for size %lu failed: use vmalloc=<size> to increase size\n",
	  "mm/vmalloc.c", ENOMEM, "n"),
	E(VMAP_FAILED,
	  "vmap allocation for size %lu failed: use vmalloc=<size> to increase size.\n",
	  "mm/vmalloc.c", ENOMEM, "n"),	/* up to 4.4 */
	/* 6.11: the vmap area's range in place of the vmalloc= advice */
	E(VMAP_FAILED,
	  "vmalloc_node_range for size %lu failed: Address range restricted to %#lx - %#lx\n",
	  "mm/vmalloc.c", ENOMEM, "n--"),
	/* a paste rendered as HTML drops "<size>" as an unknown tag (the final '.' is
	 * optional, as in every wording) */
	E(VMAP_FAILED, "vmap allocation for size %lu failed: use vmalloc= to increase size.\n",
	  "mm/vmalloc.c", ENOMEM, "n"),
	E(VMALLOC_ERROR, "%s: vmalloc error: size %lu, vm_struct allocation failed%s",
	  "mm/vmalloc.c", ENOMEM, "tn-", .flags = KLOG_FORMAT_PREFIX),
	E(VMALLOC_ERROR, "%s: vmalloc error: size %lu, page order %u, failed to allocate pages",
	  "mm/vmalloc.c", ENOMEM, "tnn", .flags = KLOG_FORMAT_PREFIX),
	E(VMALLOC_ERROR, "%s: vmalloc error: size %lu, failed to allocate pages",
	  "mm/vmalloc.c", ENOMEM, "tn", .flags = KLOG_FORMAT_PREFIX),
	E(VMALLOC_ERROR, "%s: vmalloc error: size %lu, failed to allocated page array size %lu",
	  "mm/vmalloc.c", ENOMEM, "tnn", .flags = KLOG_FORMAT_PREFIX),
	E(VMALLOC_ERROR, "%s: vmalloc error: size %lu, failed to map pages", "mm/vmalloc.c",
	  ENOMEM, "tn", .flags = KLOG_FORMAT_PREFIX),
	E(VMALLOC_ERROR, "%s: vmalloc error: size %lu, exceeds total pages", "mm/vmalloc.c",
	  ENOMEM, "tn", .flags = KLOG_FORMAT_PREFIX),
	E(VMALLOC_ERROR, "%s: vmalloc size %lu allocation failure: vm_struct allocation failed",
	  "mm/vmalloc.c", ENOMEM, "tn", .flags = KLOG_FORMAT_PREFIX),	/* 5.13 at most */
	E(VMALLOC_ERROR, "%s: vmalloc: allocation failure: %lu bytes", "mm/vmalloc.c", ENOMEM,
	  "tn", .flags = KLOG_FORMAT_PREFIX),				/* 4.9 - 5.12 */
	E(VMALLOC_ERROR, "%s: vmalloc: allocation failure, allocated %ld of %ld bytes",
	  "mm/vmalloc.c", ENOMEM, "tnn", .flags = KLOG_FORMAT_PREFIX),	/* 4.9 - 5.12 */
	/* warn_alloc_failed() (3.x to at least 4.4; 4.9 has warn_alloc()) printed the
	 * message alone, then the comm on a line of its own ("modprobe: page allocation
	 * failure: order:0, ...") */
	E(VMALLOC_ERROR, "vmalloc: allocation failure: %lu bytes\n", "mm/vmalloc.c", ENOMEM,
	  "n"),
	E(VMALLOC_ERROR, "vmalloc: allocation failure, allocated %ld of %ld bytes\n",
	  "mm/vmalloc.c", ENOMEM, "nn"),
	E(EXECMEM_FAILED, "execmem: unable to allocate memory\n", "mm/execmem.c", ENOMEM, ""),
	E(EXECMEM_FAILED, "Invalid parameters for execmem allocator, module loading will fail",
	  "mm/execmem.c", ENOMEM, ""),

	/* driver probe (5.8): dev_err() renders "%s %s: " = driver or bus name, device */
	E(PROBE_FAILED, "%s: probe of %s failed with error %d\n", "drivers/base/dd.c", 0, "mtn"),
	E(PROBE_FAILED, "%s %s: probe with driver %s failed with error %d\n",
	  "drivers/base/dd.c", 0, "-tmn"),

	/* signatures, lockdown (5.1); the 5.4-era "%s is rejected\n" with "Loading of
	 * unsigned module" prints the same text as the current format */
	E(SIG_MISSING,
	  "%s: module verification failed: signature and/or required key missing - tainting kernel\n",
	  MAIN, 0, "m"),
	/* 3.13 to 3.19: two string literals that both had the space */
	E(SIG_MISSING,
	  "%s: module verification failed: signature and/or  required key missing - tainting kernel\n",
	  "kernel/module.c", 0, "m"),
	/* the same cut before " - tainting kernel": a hand copy that stopped at the reason
	 * (Mange/rtl8192eu-linux-driver#336) */
	E(SIG_MISSING, "%s: module verification failed: signature and/or required key missing\n",
	  MAIN, 0, "m"),
	E(SIG_REJECTED, "Loading of %s is rejected\n", "kernel/module/signing.c", EKEYREJECTED,
	  "t"),
	E(SIG_REJECTED, "%s: loading of %s is rejected\n", "kernel/module.c", EKEYREJECTED,
	  "mt"),
	/* 5.9: "%s: %s is rejected\n" with the 5.4 reasons, which start "Loading of" */
	E(SIG_REJECTED, "%s: Loading of %s is rejected\n", "kernel/module.c", EKEYREJECTED,
	  "mt"),
	E(SIG_REJECTED, "%s: not signed with expected PKCS#7 message\n",
	  "kernel/module_signature.c", ENOPKG, "-"),
	E(SIG_REJECTED, "%s: Module is not signed with expected PKCS#7 message\n",
	  "kernel/module_signing.c", ENOPKG, "-"),
	E(SIG_REJECTED, "%s: PKCS#7 signature info has unexpected non-zero params\n",
	  "kernel/module_signature.c", EBADMSG, "-"),
	E(SIG_REJECTED, "Lockdown: %s: %s is restricted; see man kernel_lockdown.7\n",
	  "security/lockdown/lockdown.c", EPERM, "tu", .text2_is = "unsigned module loading"),
	/* the distributions' lockdown patches before 5.4 (David Howells' series, Fedora,
	 * Ubuntu, Debian): kernel_is_locked_down("Loading of unsigned module") */
	E(SIG_REJECTED, "Lockdown: %s: Loading of %s is restricted; see man kernel_lockdown.7\n",
	  "kernel/module.c (distribution lockdown patch)", EPERM, "tu",
	  .text2_is = "unsigned module"),
	/* Chrome OS's LSM (security/chromiumos/lsm.c, pr_fmt "Chromium OS LSM: "): a module
	 * from outside the verified root it pinned is refused, its path quoted */
	E(SIG_REJECTED, "Chromium OS LSM: init_module denied module=\"%s\" pid=%d cmdline=%s",
	  "security/chromiumos/lsm.c", EPERM, "mn-", .flags = KLOG_FORMAT_MODULE_PATH),
	/* SELinux's lockdown hook (5.6 - 5.15) refusing the same, in its AVC record */
	E(SIG_REJECTED,
	  "audit: type=1400 audit(%s): avc:  denied  { %s } for  pid=%d comm=\"%s\" lockdown_reason=\"%s\" %s",
	  "security/selinux/hooks.c", EACCES, "--ntu-", .text2_is = "unsigned module loading"),

	/* ELF and format checks (5.2) */
	E(BAD_ELF, "Invalid ELF header len %lu\n", MAIN, ENOEXEC, "n"),
	E(BAD_ELF, "Invalid ELF header magic: != %s\n", MAIN, ENOEXEC, "-"),
	E(BAD_ELF, "Invalid ELF header type: %u != %u\n", MAIN, ENOEXEC, "nn"),
	E(BAD_ELF, "Invalid architecture in ELF header: %u\n", MAIN, ENOEXEC, "n"),
	E(BAD_ELF, "Invalid module architecture in ELF header: %u\n", MAIN, ENOEXEC, "n"),
	E(BAD_ELF, "Invalid ELF section header size\n", MAIN, ENOEXEC, ""),
	E(BAD_ELF, "Invalid ELF section header overflow\n", MAIN, ENOEXEC, ""),
	E(BAD_ELF, "ELF Spec violation: section 0 type(%d)!=SH_NULL or non-zero len or addr\n",
	  MAIN, ENOEXEC, "n"),
	E(BAD_ELF, "Invalid ELF section in module (section %u type %u)\n", MAIN, ENOEXEC, "nn"),
	E(BAD_ELF, "Invalid ELF section name index: %d || e_shstrndx (%d) >= e_shnum (%d)\n",
	  MAIN, ENOEXEC, "nnn"),
	E(BAD_ELF, "empty section name table\n", MAIN, ENOEXEC, ""),
	E(BAD_ELF, "ELF Spec violation: section name table isn't null terminated\n", MAIN,
	  ENOEXEC, ""),
	E(BAD_ELF, "Invalid ELF section name in module (section %u type %u)\n", MAIN, ENOEXEC,
	  "nn"),
	E(BAD_ELF, "Only one .modinfo section must exist.\n", MAIN, ENOEXEC, ""),
	E(BAD_ELF, "module %s: Exactly one .gnu.linkonce.this_module section must exist.\n",
	  MAIN, ENOEXEC, "m"),
	E(BAD_ELF, "module %s: .gnu.linkonce.this_module section must have a size set\n", MAIN,
	  ENOEXEC, "m"),
	E(BAD_ELF,
	  "module %s: .gnu.linkonce.this_module must occupy memory during process execution\n",
	  MAIN, ENOEXEC, "m"),
	E(THIS_MODULE_SIZE,
	  "module %s: .gnu.linkonce.this_module section size must match the kernel's built struct module size at run time\n",
	  MAIN, ENOEXEC, "m"),
	E(BAD_ELF, "%s: module has no symbols (stripped?)\n", MAIN, ENOEXEC, "m"),
	E(BAD_ELF, "Invalid ELF sh_link!=SHN_UNDEF(%d) or (sh_link(%d) >= hdr->e_shnum(%d)\n",
	  MAIN, ENOEXEC, "nnn"),
	E(BAD_ELF, "extended version crc+name presence does not match",
	  "kernel/module/version.c", ENOEXEC, ""),
	E(BAD_ELF, "more extended version crcs than names", "kernel/module/version.c", ENOEXEC,
	  ""),
	E(BAD_ELF, "empty symbol string table\n", MAIN, ENOEXEC, ""),
	E(BAD_ELF, "symbol string table missing leading NUL\n", MAIN, ENOEXEC, ""),
	E(BAD_ELF, "symbol string table isn't NUL terminated\n", MAIN, ENOEXEC, ""),
	E(BAD_ELF, "symbol name out of bounds in string table", MAIN, ENOEXEC, ""),
	E(BAD_ELF, "Invalid ELF section hdr(type %u)\n", MAIN, ENOEXEC, "n"),	/* 5.16-6.3 */
	E(BAD_ELF, "%s: No module found in object\n", MAIN, ENOEXEC, "m"),	/* <= 6.3 */
	/* 3.13's setup_load_info() named no module: there was none to name */
	E(BAD_ELF, "No module found in object\n", "kernel/module.c", ENOEXEC, ""),
	E(BAD_ELF, "Module has invalid ELF structures\n", "kernel/module.c", ENOEXEC, ""),
	E(BAD_ELF, "Module len %lu truncated\n", "kernel/module.c", ENOEXEC, "n"),
	/* module_frob_arch_sections() of arm, arm64 (PLT, symtab) and riscv (GOT): a module
	 * built without the sections the architecture's loader needs */
	E(BAD_ELF, "%s: module PLT section(s) missing\n", "arch/arm64/kernel/module-plts.c",
	  ENOEXEC, "m"),
	E(BAD_ELF, "%s: module symtab section missing\n", "arch/arm64/kernel/module-plts.c",
	  ENOEXEC, "m"),
	E(BAD_ELF, "%s: module GOT section(s) missing\n", "arch/riscv/kernel/module-sections.c",
	  ENOEXEC, "m"),

	/*
	 * a module's BTF that does not parse: btf_module_notify() fails the load from the
	 * MODULE_STATE_COMING notifier (since 5.19 only without
	 * CONFIG_MODULE_ALLOW_BTF_MISMATCH, the only case it prints this then)
	 */
	E(LOAD_ERROR, "failed to validate module [%s] BTF: %ld\n", "kernel/bpf/btf.c", 0, "mn"),
	/*
	 * x86's apply_relocate_add() (4.16+) finding a relocation's target already written
	 * (a module built against other headers or tools): the load fails with ENOEXEC
	 * and names no module; "module: " is the pr_fmt of arch/x86/kernel/module.c
	 */
	E(LOAD_ERROR,
	  "module: x86/modules: Skipping invalid relocation target, existing value is nonzero for type %d, loc %p, val %Lx\n",
	  "arch/x86/kernel/module.c", ENOEXEC, "n--"),
	/* riscv's, LoongArch's and MIPS's apply_relocate_add() meeting a relocation type
	 * they have no handler for (a module built by another toolchain) */
	E(LOAD_ERROR, "%s: Unknown relocation type %u\n", "arch/riscv/kernel/module.c", EINVAL,
	  "mn"),
	/* x86-64's apply_relocate_add() (a module built by another binutils), after its
	 * pr_fmt "module: " where it has one */
	E(LOAD_ERROR, "%s: Unknown rela relocation: %llu\n", "arch/x86/kernel/module.c",
	  ENOEXEC, "mn"),
	/* x86-64's apply_relocate_add() overflowing a 32-bit relocation (a module built
	 * without -mcmodel=kernel), then naming the module; both ENOEXEC. "module: " is
	 * the pr_fmt; 2.6-era kernels printed the overflow line without it */
	E(LOAD_ERROR, "module: overflow in relocation type %d val %Lx\n",
	  "arch/x86/kernel/module.c", ENOEXEC, "n-"),
	E(LOAD_ERROR, "overflow in relocation type %d val %Lx\n", "arch/x86/kernel/module.c",
	  ENOEXEC, "n-"),
	E(LOAD_ERROR, "module: `%s' likely not compiled with -mcmodel=kernel\n",
	  "arch/x86/kernel/module.c", ENOEXEC, "m"),
	/* riscv's apply_r_riscv_*_rela() (4.15+): a relocation's target further from the
	 * module than a 32-bit PC-relative offset reaches (a module's per-cpu data, or
	 * code without a PLT entry for it) */
	E(LOAD_ERROR, "%s: target %016llx can not be addressed by the 32-bit offset from PC = %p\n",
	  "arch/riscv/kernel/module.c", EINVAL, "m--"),

	/* modinfo, version magic, blacklist (5.3) */
	E(BLACKLISTED, "Module %s is blacklisted\n", MAIN, EPERM, "m"),
	E(VERMAGIC, "%s: version magic '%s' should be '%s'\n", MAIN, ENOEXEC, "mtu"),
	/* 2.6's load_module() and check_version() (before try_to_force_load(), 2.6.26) */
	E(FORCED_LOAD, "%s: no version magic, tainting kernel.\n", "kernel/module.c", 0, "m"),
	E(FORCED_LOAD, "%s: no version for \"%s\" found: kernel tainted.\n", "kernel/module.c",
	  0, "ms"),
	E(FORCED_LOAD, "%s: %s: kernel tainted.\n", MAIN, 0, "mt"),
	E(LOAD_ERROR,
	  "%s: module is marked as livepatch module, but livepatch support is disabled", MAIN,
	  ENOEXEC, "m"),
	E(LOAD_WARNING, "%s: loading module not compiled with retpoline compiler.\n", MAIN, 0,
	  "m"),

	/* taint notices of accepted loads (5.4) */
	E(TAINT, "%s: loading out-of-tree module taints kernel.\n", MAIN, 0, "m"),
	E(TAINT,
	  "%s: module is from the staging directory, the quality is unknown, you have been warned.\n",
	  MAIN, 0, "m"),
	E(TAINT, "%s: tainting kernel with TAINT_LIVEPATCH\n", MAIN, 0, "m"),
	E(TAINT, "%s: module license '%s' taints kernel.\n", MAIN, 0, "mt"),
	E(TAINT, "%s: module license taints kernel.\n", MAIN, 0, "m"),
	/* the same with a licence string holding a newline (AVM's "\n(C) Copyright 2012 by
	 * AVM\n"): printk ends the record after the quote, the rest are records of their own */
	E(TAINT, "%s: module license '\n", MAIN, 0, "m"),
	E(TAINT, "%s: loading test module taints kernel.\n", MAIN, 0, "m"),

	/* in-kernel decompression (1.3): no pr_fmt in decompress.c */
	E(DECOMPRESS_FAILED, "not a gzip compressed module\n", "kernel/module/decompress.c",
	  EINVAL, ""),
	E(DECOMPRESS_FAILED, "failed to initialize decompressor: %d\n",
	  "kernel/module/decompress.c", EINVAL, "n"),
	E(DECOMPRESS_FAILED, "decompression failed with status %d\n",
	  "kernel/module/decompress.c", EINVAL, "n"),
	E(DECOMPRESS_FAILED, "not an xz compressed module\n", "kernel/module/decompress.c",
	  EINVAL, ""),
	E(DECOMPRESS_FAILED, "not a zstd compressed module\n", "kernel/module/decompress.c",
	  EINVAL, ""),
	E(DECOMPRESS_FAILED, "ZSTD-compressed data has an incomplete frame header\n",
	  "kernel/module/decompress.c", EINVAL, ""),
	E(DECOMPRESS_FAILED, "ZSTD-compressed data has too large a window size\n",
	  "kernel/module/decompress.c", EINVAL, ""),
	E(DECOMPRESS_FAILED, "Can't initialize ZSTD stream\n", "kernel/module/decompress.c",
	  ENOMEM, ""),
	E(DECOMPRESS_FAILED, "ZSTD-decompression failed with status %d\n",
	  "kernel/module/decompress.c", EINVAL, "n"),

	/* userspace kmod (5.9): "%s: %s: %s" = program, priority, message */
	E(MODPROBE_ERROR, "modprobe: FATAL: Module %s not found in directory %s",
	  "kmod tools/modprobe.c", ENOENT, "mt"),
	/* the same LOG() at the priority modprobe -a sets, WARNING (Docker's "modprobe -va
	 * bridge br_netfilter": canonical/lxd#2321, moby/moby#48998) */
	E(MODPROBE_ERROR, "modprobe: WARNING: Module %s not found in directory %s",
	  "kmod tools/modprobe.c", ENOENT, "mt"),
	/* the same through syslog (modprobe -s): kmod's tools/log.c hands syslog() only
	 * "%s: %s", priority and message, and the ident is syslog's, so a log cut to the
	 * message (securedrop-workstation#590) starts at the priority */
	E(MODPROBE_ERROR, "FATAL: Module %s not found in directory %s", "kmod tools/modprobe.c",
	  ENOENT, "mt", .flags = KLOG_FORMAT_WORDS),
	E(MODPROBE_ERROR, "modprobe: FATAL: Failed to get module from path %s: %s",
	  "kmod tools/modprobe.c", 0, "mt"),
	E(MODPROBE_ERROR, "modprobe: ERROR: could not insert '%s': Module already in kernel",
	  "kmod tools/modprobe.c", EEXIST, "m"),
	E(MODPROBE_ERROR,
	  "modprobe: ERROR: could not insert '%s': Unknown symbol in module, or unknown parameter (see dmesg)",
	  "kmod tools/modprobe.c", ENOENT, "m"),
	E(MODPROBE_ERROR, "modprobe: ERROR: could not insert '%s': %s", "kmod tools/modprobe.c",
	  0, "mt", .flags = KLOG_FORMAT_ERRNO_TEXT),
	E(MODPROBE_ERROR, "modprobe: FATAL: Module %s not found.", "kmod tools/modprobe.c",
	  ENOENT, "m"),
	/* kmod modprobe's error retyped without "modprobe: ERROR: " (the quoted name and the
	 * colon after it are kmod's) */
	E(MODPROBE_ERROR, "could not insert '%s': %s", "kmod tools/modprobe.c", 0, "mt",
	  .flags = KLOG_FORMAT_ERRNO_TEXT | KLOG_FORMAT_WORDS),
	/* and kmod insmod's, without "insmod: ERROR: ": of a module file only */
	E(MODPROBE_ERROR, "could not insert module %s: %s", "kmod tools/insmod.c", 0, "mt",
	  .flags = KLOG_FORMAT_MODULE_PATH | KLOG_FORMAT_ERRNO_TEXT | KLOG_FORMAT_WORDS |
		   KLOG_FORMAT_KO_FILE),
	E(MODPROBE_ERROR, "modprobe: FATAL: Module %s is not in kernel.",
	  "kmod tools/modprobe.c", ENOENT, "m"),
	E(MODPROBE_ERROR, "modprobe: FATAL: Module %s is builtin.", "kmod tools/modprobe.c", 0,
	  "m"),
	E(MODPROBE_ERROR, "modprobe: FATAL: Module %s is in use.", "kmod tools/modprobe.c",
	  EBUSY, "m"),
	E(MODPROBE_ERROR, "modprobe: ERROR: could not remove '%s': %s", "kmod tools/modprobe.c",
	  0, "mt"),
	/* kmod's rmmod: check_module_inuse() finding the module held, then the removal's
	 * error; its "Module %s is not currently loaded" and "is builtin." say there was
	 * nothing to remove, no failure (the corpus's hand annotations agree) */
	E(MODPROBE_ERROR, "rmmod: ERROR: Module %s is in use by: %s", "kmod tools/rmmod.c", EBUSY,
	  "mt"),
	E(MODPROBE_ERROR, "rmmod: ERROR: Module %s is in use", "kmod tools/rmmod.c", EBUSY, "m"),
	E(MODPROBE_ERROR, "rmmod: ERROR: could not remove module %s: %s", "kmod tools/rmmod.c", 0,
	  "mt", .flags = KLOG_FORMAT_MODULE_PATH | KLOG_FORMAT_ERRNO_TEXT),
	/* module-init-tools' rmmod (2.6 era): error() says "ERROR: " and no program name */
	E(MODPROBE_ERROR, "ERROR: Module %s is in use by %s", "module-init-tools rmmod.c", EBUSY,
	  "mt", .flags = KLOG_FORMAT_WORDS),
	E(MODPROBE_ERROR, "ERROR: Module %s is in use", "module-init-tools rmmod.c", EBUSY, "m",
	  .flags = KLOG_FORMAT_WORDS),
	E(MODPROBE_ERROR, "ERROR: Module %s does not exist in /proc/modules",
	  "module-init-tools rmmod.c", ENOENT, "m", .flags = KLOG_FORMAT_WORDS),
	E(MODPROBE_ERROR, "insmod: ERROR: could not load module %s: %s", "kmod tools/insmod.c",
	  0, "mt", .flags = KLOG_FORMAT_MODULE_PATH | KLOG_FORMAT_ERRNO_TEXT),
	E(MODPROBE_ERROR, "insmod: ERROR: could not insert module %s: %s",
	  "kmod tools/insmod.c", 0, "mt",
	  .flags = KLOG_FORMAT_MODULE_PATH | KLOG_FORMAT_ERRNO_TEXT),
	/* kmod's first releases: tools' ERR() said "Error: " and no program name (kmod of
	 * Debian 7/8, openzfs/zfs#3274) */
	E(MODPROBE_ERROR, "Error: could not insert module %s: %s", "kmod tools/insmod.c", 0,
	  "mt", .flags = KLOG_FORMAT_MODULE_PATH | KLOG_FORMAT_ERRNO_TEXT | KLOG_FORMAT_WORDS),
	/* busybox: bb_error_msg_and_die("can't insert '%s': %s", filename, moderror(rc)) */
	E(MODPROBE_ERROR, "insmod: can't insert '%s': %s", "busybox modutils/insmod.c", 0, "mt",
	  .flags = KLOG_FORMAT_MODULE_PATH | KLOG_FORMAT_ERRNO_TEXT),
	/* toybox (Android's insmod): perror_exit("failed to load %s", file); common words,
	 * so only with the program's name in front and of a module file */
	E(MODPROBE_ERROR, "insmod: failed to load %s: %s", "toybox toys/other/insmod.c", 0, "mt",
	  .flags = KLOG_FORMAT_MODULE_PATH | KLOG_FORMAT_ERRNO_TEXT | KLOG_FORMAT_KO_FILE),
	/*
	 * busybox before 1.13 (its own 2.6 loader): insmod's "cannot insert `%s': %s (%li)"
	 * and modprobe's "module %s not found" / "failed to load module %s" (v1.00 to v1.5
	 * in OpenWrt boot logs); common words, so only with the program's name in front
	 */
	E(MODPROBE_ERROR, "insmod: cannot insert `%s': %s", "busybox modutils/insmod.c", 0,
	  "m-", .flags = KLOG_FORMAT_MODULE_PATH),
	/* since 1.13 modprobe quotes the name (or the alias it looked up) */
	E(MODPROBE_ERROR, "modprobe: module '%s' not found", "busybox modutils/modprobe.c",
	  ENOENT, "m", .flags = KLOG_FORMAT_WORDS),
	E(MODPROBE_ERROR, "modprobe: module %s not found", "busybox modutils/modprobe.c",
	  ENOENT, "m", .flags = KLOG_FORMAT_WORDS),
	E(MODPROBE_ERROR, "modprobe: failed to load module %s", "busybox modutils/modprobe.c", 0,
	  "m", .flags = KLOG_FORMAT_WORDS),
	/* since 1.13 modprobe's do_modprobe() of a module modules.dep lacks, and its
	 * bb_error_msg("can't load module %s (%s): %s", name, file, moderror(rc)) */
	E(MODPROBE_ERROR, "modprobe: module %s not found in modules.dep",
	  "busybox modutils/modprobe.c", ENOENT, "m", .flags = KLOG_FORMAT_WORDS),
	E(MODPROBE_ERROR, "modprobe: can't load module %s (%s): %s", "busybox modutils/modprobe.c",
	  0, "m-t", .flags = KLOG_FORMAT_ERRNO_TEXT),
	/* u-root's modprobe (Go, a LinuxBoot initramfs): log.Fatalf("modprobe: Could not
	 * load module %q: %v"), the name in Go's quotes, then the loader's Go error */
	E(MODPROBE_ERROR, "modprobe: Could not load module \"%s\": %s", "u-root cmds/core/modprobe",
	  0, "m-", .flags = KLOG_FORMAT_WORDS),
	/*
	 * modutils (2.4 and before, which linked a module in user space): obj_reloc.c's
	 * ERROR("%s: unresolved symbol %s", f->filename, sym->name), of the object file a
	 * 2.4 module is ("msdos.o", or its path); only of a "*.o" file, as the words are
	 * common
	 */
	E(UNKNOWN_SYMBOL, "%s: unresolved symbol %s", "modutils obj/obj_reloc.c", ENOENT, "ms",
	  .flags = KLOG_FORMAT_MODULE_PATH | KLOG_FORMAT_WORDS | KLOG_FORMAT_OBJ_FILE),
	/* and its insmod's refusal of an object with no kernel_version, and modprobe's
	 * error("insmod %s failed") of the module it meant, after the last object's name */
	E(MODPROBE_ERROR, "%s: couldn't find the kernel version the module was compiled for",
	  "modutils insmod/insmod.c", 0, "m",
	  .flags = KLOG_FORMAT_MODULE_PATH | KLOG_FORMAT_WORDS | KLOG_FORMAT_OBJ_FILE),
	E(MODPROBE_ERROR, "%s: insmod %s failed", "modutils insmod/modprobe.c", 0, "-m",
	  .flags = KLOG_FORMAT_MODULE_PATH | KLOG_FORMAT_WORDS | KLOG_FORMAT_OBJ_FILE),
	/* module-init-tools (before kmod, 2.6 era): insmod says "error inserting '%s': %li
	 * %s\n" (file, -1, moderror()) */
	E(MODPROBE_ERROR, "insmod: error inserting '%s': %d %s", "module-init-tools insmod.c",
	  0, "m-t", .flags = KLOG_FORMAT_MODULE_PATH | KLOG_FORMAT_ERRNO_TEXT),
	/* its first releases (0.8, 0.9, 2002) quoted the file `so' and named no program */
	E(MODPROBE_ERROR, "insmod: error inserting `%s': %d %s", "module-init-tools insmod.c",
	  0, "m-t", .flags = KLOG_FORMAT_MODULE_PATH | KLOG_FORMAT_ERRNO_TEXT),
	E(MODPROBE_ERROR, "Error inserting `%s': %d %s", "module-init-tools insmod.c", 0, "m-t",
	  .flags = KLOG_FORMAT_MODULE_PATH | KLOG_FORMAT_ERRNO_TEXT),
	/*
	 * module-init-tools' modprobe (2.6 era, before kmod): no program name, its error()
	 * says "WARNING: " or "FATAL: " (the last module of the command line)
	 */
	E(MODPROBE_ERROR, "FATAL: Error inserting %s (%s): %s", "module-init-tools modprobe.c",
	  0, "m-t", .flags = KLOG_FORMAT_ERRNO_TEXT | KLOG_FORMAT_WORDS),
	E(MODPROBE_ERROR, "WARNING: Error inserting %s (%s): %s", "module-init-tools modprobe.c",
	  0, "m-t", .flags = KLOG_FORMAT_ERRNO_TEXT | KLOG_FORMAT_WORDS),
	/* the same through syslog, whose ident is the program (a 2.6.14 boot console's
	 * hotplug next to its "modprobe: FATAL: Module %s not found.") */
	E(MODPROBE_ERROR, "modprobe: FATAL: Error inserting %s (%s): %s",
	  "module-init-tools modprobe.c", 0, "m-t",
	  .flags = KLOG_FORMAT_ERRNO_TEXT | KLOG_FORMAT_WORDS),
	E(MODPROBE_ERROR, "modprobe: WARNING: Error inserting %s (%s): %s",
	  "module-init-tools modprobe.c", 0, "m-t",
	  .flags = KLOG_FORMAT_ERRNO_TEXT | KLOG_FORMAT_WORDS),
	E(MODPROBE_ERROR, "FATAL: Module %s not found.", "module-init-tools modprobe.c", ENOENT,
	  "m", .flags = KLOG_FORMAT_WORDS),
	E(MODPROBE_ERROR, "FATAL: Error running install command for %s",
	  "module-init-tools modprobe.c", 0, "m", .flags = KLOG_FORMAT_WORDS),
	E(MODPROBE_ERROR, "WARNING: Error running install command for %s",
	  "module-init-tools modprobe.c", 0, "m", .flags = KLOG_FORMAT_WORDS),
	/*
	 * modutils' insmod again: set_tainted() prints "Warning: loading %s will taint the
	 * kernel: %s%s" (insmod.c, 2.4.10 on), "forced load" for insmod -f, else the
	 * licence's reason
	 */
	E(FORCED_LOAD, "Warning: loading %s will taint the kernel: forced load",
	  "modutils insmod.c", 0, "m", .flags = KLOG_FORMAT_MODULE_PATH | KLOG_FORMAT_WORDS),
	E(TAINT, "Warning: loading %s will taint the kernel: %s", "modutils insmod.c", 0, "mt",
	  .flags = KLOG_FORMAT_MODULE_PATH | KLOG_FORMAT_WORDS),
	/*
	 * libkmod's command_do(): "Error running install command '%s' for module %s:
	 * retcode %d" (before kmod 22: "... install command for %s"), through modprobe's
	 * "modprobe: ERROR: " or systemd's own logging (no prefix); kmod's debug builds put
	 * "../libkmod/libkmod-module.c:990 command_do() " before it.
	 */
	E(MODPROBE_ERROR,
	  "modprobe: ERROR: Error running install command '%s' for module %s: retcode %d",
	  "kmod libkmod/libkmod-module.c", 0, "tmn", .flags = KLOG_FORMAT_WORDS),
	E(MODPROBE_ERROR,
	  "modprobe: ERROR: %s() Error running install command '%s' for module %s: retcode %d",
	  "kmod libkmod/libkmod-module.c", 0, "-tmn"),
	E(MODPROBE_ERROR, "Error running install command '%s' for module %s: retcode %d",
	  "kmod libkmod/libkmod-module.c", 0, "tmn", .flags = KLOG_FORMAT_WORDS),
	E(MODPROBE_ERROR, "modprobe: ERROR: Error running install command for %s",
	  "kmod libkmod/libkmod-module.c", 0, "m", .flags = KLOG_FORMAT_WORDS),
	E(MODPROBE_ERROR, "modprobe: ERROR: %s() Error running install command for %s",
	  "kmod libkmod/libkmod-module.c", 0, "-m"),
	/* cut short where the module would be (a journal shown at a terminal's width) */
	E(MODPROBE_ERROR, "modprobe: ERROR: %s() Error running install command '%s",
	  "kmod libkmod/libkmod-module.c", 0, "-t"),
	E(MODPROBE_ERROR, "modprobe: ERROR: Error running install command '%s",
	  "kmod libkmod/libkmod-module.c", 0, "t"),
	/* systemd: module_load_and_warn() (PID 1's kmod-setup, systemd-modules-load),
	 * "%m" the strerror() text; the program's ident in front ("systemd[1]") */
	E(MODPROBE_ERROR, "%s: Failed to insert module '%s': %s",
	  "systemd src/shared/module-util.c", 0, "-mt", .flags = KLOG_FORMAT_ERRNO_TEXT),
	E(MODPROBE_ERROR, "Failed to insert module '%s': %s", "systemd src/shared/module-util.c",
	  0, "mt", .flags = KLOG_FORMAT_ERRNO_TEXT),
	/*
	 * older systemd-modules-load ("Failed to insert '%s': %s", strerror(-err); still in
	 * 2017's Arch):
	 * words any program might log, so only with systemd-modules-load's ident in front
	 * (a journal's "ident[pid]", journalctl JSON's SYSLOG_IDENTIFIER, the kernel log's
	 * copy of an early boot line)
	 */
	E(MODPROBE_ERROR, "systemd-modules-load[%d]: Failed to insert '%s': %s",
	  "systemd src/modules-load/modules-load.c", 0, "-mt",
	  .flags = KLOG_FORMAT_ERRNO_TEXT | KLOG_FORMAT_WORDS),
	E(MODPROBE_ERROR, "systemd-modules-load: Failed to insert '%s': %s",
	  "systemd src/modules-load/modules-load.c", 0, "mt",
	  .flags = KLOG_FORMAT_ERRNO_TEXT | KLOG_FORMAT_WORDS),
	/* the module is in no modules.alias/modules.dep of the release (logged at error
	 * level by systemd-modules-load since v243) */
	E(MODPROBE_ERROR, "%s: Failed to find module '%s'", "systemd src/shared/module-util.c",
	  ENOENT, "-m"),
	E(MODPROBE_ERROR, "Failed to find module '%s'", "systemd src/shared/module-util.c",
	  ENOENT, "m"),

	/*
	 * Android's libmodprobe (init's first stage, /system/bin/modprobe), through
	 * android-base's logging with the program's tag in front ("init: "): Insmod()'s
	 * LOG(ERROR) names the file, PLOG in later releases adds ": " and strerror();
	 * LoadWithAliases() names the module (or alias) none of whose files loaded.
	 */
	/* no options, the usual case: a "%s" takes one byte at least */
	E(MODPROBE_ERROR, "%s: Failed to insmod '%s' with args '': %s",
	  "android system/core libmodprobe/libmodprobe_ext.cpp", 0, "-mt",
	  .flags = KLOG_FORMAT_MODULE_PATH | KLOG_FORMAT_ERRNO_TEXT),
	E(MODPROBE_ERROR, "%s: Failed to insmod '%s' with args ''",
	  "android system/core libmodprobe/libmodprobe_ext.cpp", 0, "-m",
	  .flags = KLOG_FORMAT_MODULE_PATH),
	E(MODPROBE_ERROR, "%s: Failed to insmod '%s' with args '%s': %s",
	  "android system/core libmodprobe/libmodprobe_ext.cpp", 0, "-m-t",
	  .flags = KLOG_FORMAT_MODULE_PATH | KLOG_FORMAT_ERRNO_TEXT),
	E(MODPROBE_ERROR, "%s: Failed to insmod '%s' with args '%s'",
	  "android system/core libmodprobe/libmodprobe_ext.cpp", 0, "-m-",
	  .flags = KLOG_FORMAT_MODULE_PATH),
	/*
	 * Android 16's libmodprobe names the file and the names it tried, and its modprobe
	 * says which file failed and why (6.12 android16 logs: xingyang-maker/suspend_mvp)
	 */
	E(MODPROBE_ERROR, "%s: LoadWithAliases was unable to load %s, tried: %s",
	  "android system/core libmodprobe/libmodprobe.cpp", 0, "-m-",
	  .flags = KLOG_FORMAT_MODULE_PATH),
	E(MODPROBE_ERROR, "LoadWithAliases was unable to load %s, tried: %s",
	  "android system/core libmodprobe/libmodprobe.cpp", 0, "m-",
	  .flags = KLOG_FORMAT_MODULE_PATH),
	E(MODPROBE_ERROR, "%s: Failed to load module %s: %s", "android system/core toolbox/modprobe.cpp",
	  0, "-mt",
	  .flags = KLOG_FORMAT_MODULE_PATH | KLOG_FORMAT_ERRNO_TEXT | KLOG_FORMAT_KO_FILE),
	/*
	 * Android init's insmod builtin (init/builtins.cpp do_insmod(), ErrnoError() adds
	 * ": " and strerror()), logged after "Command '%s' ... failed: ", and first-stage
	 * init's and toolbox's PLOG of the same words
	 */
	E(MODPROBE_ERROR, "%s: finit_module for \"%s\" failed: %s",
	  "android system/core init/builtins.cpp", 0, "-mt",
	  .flags = KLOG_FORMAT_MODULE_PATH | KLOG_FORMAT_ERRNO_TEXT),
	E(MODPROBE_ERROR, "%s: LoadWithAliases was unable to load %s",
	  "android system/core libmodprobe/libmodprobe.cpp", 0, "-m",
	  .flags = KLOG_FORMAT_WORDS),
	E(MODPROBE_ERROR, "LoadWithAliases was unable to load %s",
	  "android system/core libmodprobe/libmodprobe.cpp", 0, "m",
	  .flags = KLOG_FORMAT_WORDS),

	/*
	 * OpenWrt's ubox loader (insmod, modprobe and kmodloader are one program), its
	 * ULOG_ERR() lines as the console shows them, or with the syslog ident ("kmod: ",
	 * "kmodloader: "); bare they are common words, so only of a file named *.ko
	 */
	E(MODPROBE_ERROR, "failed to insert %s", "ubox kmodloader.c", 0, "m",
	  .flags = KLOG_FORMAT_MODULE_PATH | KLOG_FORMAT_WORDS | KLOG_FORMAT_KO_FILE),
	E(MODPROBE_ERROR, "failed to read full module %s", "ubox kmodloader.c", 0, "m",
	  .flags = KLOG_FORMAT_MODULE_PATH | KLOG_FORMAT_WORDS | KLOG_FORMAT_KO_FILE),
	E(MODPROBE_ERROR, "failed to mmap %s", "ubox kmodloader.c", 0, "m",
	  .flags = KLOG_FORMAT_MODULE_PATH | KLOG_FORMAT_WORDS | KLOG_FORMAT_KO_FILE),
	E(MODPROBE_ERROR, "failed to load the .modinfo section from %s", "ubox kmodloader.c", 0,
	  "m", .flags = KLOG_FORMAT_MODULE_PATH | KLOG_FORMAT_WORDS | KLOG_FORMAT_KO_FILE),
	/* busybox modprobe without the module directory: xchdir()'s bb_perror_msg */
	E(MODPROBE_ERROR, "modprobe: can't change directory to '%s': %s",
	  "busybox libbb/xfuncs_printf.c", 0, "-t", .flags = KLOG_FORMAT_ERRNO_TEXT),

	/* systemd-udevd, logged with the device name in front ("cpu12: Worker ...") */
	E(UDEV_WORKER_TIMEOUT, "%s: Worker [%d] processing SEQNUM=%llu is taking a long time",
	  "systemd src/udev/udev-manager.c", 0, "tnn", .flags = KLOG_FORMAT_PREFIX),
	E(UDEV_WORKER_TIMEOUT, "%s: Worker [%d] processing SEQNUM=%llu killed",
	  "systemd src/udev/udev-manager.c", 0, "tnn", .flags = KLOG_FORMAT_PREFIX),
};

/* klog-findings.c's memo keeps an entry's index in a byte */
_Static_assert(ARRAY_SIZE(klog_wordings) < UINT8_MAX, "a wording's index fits a byte");

const size_t klog_wordings_n = ARRAY_SIZE(klog_wordings);

const struct klog_format_entry *klog_formats(size_t *ret_n)
{
	*ret_n = ARRAY_SIZE(klog_wordings);
	return klog_wordings;
}

const char *klog_finding_kind_name(enum klog_finding_kind kind)
{
	static const char *const names[KLOG_FINDING__MAX] = {
		[KLOG_FINDING_NONE] = "none",
		[KLOG_FINDING_UNKNOWN_SYMBOL] = "unknown-symbol",
		[KLOG_FINDING_SYMBOL_VERSION] = "symbol-version",
		[KLOG_FINDING_NO_SYMBOL_VERSION] = "no-symbol-version",
		[KLOG_FINDING_SYMBOL_NAMESPACE] = "symbol-namespace",
		[KLOG_FINDING_AUTOLOAD_DUPLICATE] = "autoload-duplicate",
		[KLOG_FINDING_KMOD_THROTTLED] = "kmod-throttled",
		[KLOG_FINDING_KMOD_BUSY] = "kmod-busy",
		[KLOG_FINDING_KMOD_GAVE_UP] = "kmod-gave-up",
		[KLOG_FINDING_FS_STILL_MISSING] = "fs-still-missing",
		[KLOG_FINDING_VMAP_FAILED] = "vmap-failed",
		[KLOG_FINDING_VMALLOC_ERROR] = "vmalloc-error",
		[KLOG_FINDING_EXECMEM_FAILED] = "execmem-failed",
		[KLOG_FINDING_PROBE_FAILED] = "probe-failed",
		[KLOG_FINDING_SIG_MISSING] = "signature-missing",
		[KLOG_FINDING_SIG_REJECTED] = "signature-rejected",
		[KLOG_FINDING_BAD_ELF] = "bad-elf",
		[KLOG_FINDING_THIS_MODULE_SIZE] = "this-module-size",
		[KLOG_FINDING_BLACKLISTED] = "blacklisted",
		[KLOG_FINDING_VERMAGIC] = "vermagic",
		[KLOG_FINDING_FORCED_LOAD] = "forced-load",
		[KLOG_FINDING_TAINT] = "taint",
		[KLOG_FINDING_ALREADY_LOADED] = "already-loaded",
		[KLOG_FINDING_INIT_BAD_RETURN] = "init-bad-return",
		[KLOG_FINDING_LOAD_ERROR] = "load-error",
		[KLOG_FINDING_LOAD_WARNING] = "load-warning",
		[KLOG_FINDING_DECOMPRESS_FAILED] = "decompress-failed",
		[KLOG_FINDING_MODPROBE_ERROR] = "modprobe-error",
		[KLOG_FINDING_UDEV_WORKER_TIMEOUT] = "udev-worker-timeout",
		[KLOG_FINDING_GPL_FROM_PROPRIETARY] = "gpl-from-proprietary",
		[KLOG_FINDING_VMALLOC_OTHER] = "vmalloc-error-other",
	};

	if ((unsigned int)kind >= KLOG_FINDING__MAX)
		return "invalid";
	return names[kind];
}
