/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ledger/klog-findings.h"
#include "util/hindex.h"
#include "util/macro.h"
#include "ci/model.h"

/* --- classes --------------------------------------------------------------------------- */

#define KLOG_KIND(kind_) KLOG_FINDING_##kind_
/* sized by its entries: model.h's CI_CLASS_COUNT must agree, or this does not compile */
const struct ci_class ci_classes[] = {
	{ "unknown-symbol", CI_GROUP_FAILURE, CI_FMT_ERROR, KLOG_KIND(UNKNOWN_SYMBOL), -1,
	  OUTCOME_MISSING_DEP, "a module needs a symbol no loaded module exports" },
	{ "symbol-version", CI_GROUP_FAILURE, CI_FMT_ERROR, KLOG_KIND(SYMBOL_VERSION), -1,
	  OUTCOME_MISSING_DEP, "a module was built against another version of a symbol" },
	{ "no-symbol-version", CI_GROUP_NOTICE, CI_FMT_NOTE, KLOG_KIND(NO_SYMBOL_VERSION), -1, -1,
	  "a module uses a symbol without a version (CONFIG_MODVERSIONS)" },
	{ "symbol-namespace", CI_GROUP_FAILURE, CI_FMT_ERROR, KLOG_KIND(SYMBOL_NAMESPACE), -1,
	  OUTCOME_MISSING_DEP, "a module uses a symbol namespace it does not import" },
	{ "autoload-duplicate", CI_GROUP_DUPLICATE, CI_FMT_WARNING, KLOG_KIND(AUTOLOAD_DUPLICATE), -1, -1,
	  "request_module() asked again for a module being loaded (MODULE_DEBUG_AUTOLOAD_DUPS)" },
	{ "kmod-throttled", CI_GROUP_AUTOLOAD, CI_FMT_WARNING, KLOG_KIND(KMOD_THROTTLED), -1, -1,
	  "request_module() waited: too many modprobe processes at once" },
	{ "kmod-busy", CI_GROUP_FAILURE, CI_FMT_ERROR, KLOG_KIND(KMOD_BUSY), -1, -1,
	  "request_module() gave up waiting for a modprobe slot (ETIME)" },
	{ "kmod-gave-up", CI_GROUP_FAILURE, CI_FMT_ERROR, KLOG_KIND(KMOD_GAVE_UP), -1, -1,
	  "request_module() killed or stopped a modprobe loop" },
	{ "fs-still-missing", CI_GROUP_FAILURE, CI_FMT_ERROR, KLOG_KIND(FS_STILL_MISSING), -1, -1,
	  "a filesystem module loaded but did not register the filesystem" },
	{ "vmap-failed", CI_GROUP_FAILURE, CI_FMT_ERROR, KLOG_KIND(VMAP_FAILED), -1, -1,
	  "the vmalloc address space ran out" },
	{ "vmalloc-error", CI_GROUP_FAILURE, CI_FMT_ERROR, KLOG_KIND(VMALLOC_ERROR), -1, -1,
	  "a vmalloc() allocation failed" },
	{ "execmem-failed", CI_GROUP_FAILURE, CI_FMT_ERROR, KLOG_KIND(EXECMEM_FAILED), -1, -1,
	  "no executable memory for module text" },
	{ "probe-failed", CI_GROUP_FAILURE, CI_FMT_ERROR, KLOG_KIND(PROBE_FAILED), -1, -1,
	  "a driver's probe of a device failed" },
	{ "signature-missing", CI_GROUP_NOTICE, CI_FMT_NOTE, KLOG_KIND(SIG_MISSING), -1, -1,
	  "an unsigned module was loaded and tainted the kernel" },
	{ "signature-rejected", CI_GROUP_FAILURE, CI_FMT_ERROR, KLOG_KIND(SIG_REJECTED),
	  OUTCOME_SIG_REJECTED, OUTCOME_OTHER_ERROR,
	  "a module's signature or key was refused, or lockdown forbids unsigned modules" },
	{ "bad-elf", CI_GROUP_FAILURE, CI_FMT_ERROR, KLOG_KIND(BAD_ELF), -1, OUTCOME_BAD_FORMAT,
	  "the kernel was handed something that is not a valid module ELF file" },
	{ "this-module-size", CI_GROUP_FAILURE, CI_FMT_ERROR, KLOG_KIND(THIS_MODULE_SIZE), -1,
	  OUTCOME_OTHER_ERROR, "a module was built for another struct module layout" },
	{ "blacklisted", CI_GROUP_FAILURE, CI_FMT_ERROR, KLOG_KIND(BLACKLISTED), -1,
	  OUTCOME_OTHER_ERROR, "a load of a module on the kernel's blacklist was refused" },
	{ "vermagic", CI_GROUP_FAILURE, CI_FMT_ERROR, KLOG_KIND(VERMAGIC), -1, OUTCOME_OTHER_ERROR,
	  "a module was built for another kernel (version magic)" },
	{ "forced-load", CI_GROUP_NOTICE, CI_FMT_NOTE, KLOG_KIND(FORCED_LOAD), -1, -1,
	  "a module was force-loaded and tainted the kernel" },
	{ "taint", CI_GROUP_NOTICE, CI_FMT_NOTE, KLOG_KIND(TAINT), -1, -1,
	  "a module tainted the kernel (out of tree, staging, licence, livepatch)" },
	{ "already-loaded", CI_GROUP_DUPLICATE, CI_FMT_WARNING, KLOG_KIND(ALREADY_LOADED), -1,
	  OUTCOME_DUP_LIVE, "a module was loaded while a module of that name was live" },
	{ "init-bad-return", CI_GROUP_NOTICE, CI_FMT_WARNING, KLOG_KIND(INIT_BAD_RETURN), -1, -1,
	  "a module's init function returned a positive value" },
	{ "load-error", CI_GROUP_FAILURE, CI_FMT_ERROR, KLOG_KIND(LOAD_ERROR), -1, OUTCOME_OTHER_ERROR,
	  "the kernel refused a module (duplicate exports, percpu, sysfs, ...)" },
	{ "load-warning", CI_GROUP_NOTICE, CI_FMT_NOTE, KLOG_KIND(LOAD_WARNING), -1, -1,
	  "the kernel warned about a module it loaded (parameters, retpoline, ...)" },
	{ "decompress-failed", CI_GROUP_FAILURE, CI_FMT_ERROR, KLOG_KIND(DECOMPRESS_FAILED), -1,
	  OUTCOME_OTHER_ERROR, "in-kernel module decompression failed" },
	{ "modprobe-error", CI_GROUP_FAILURE, CI_FMT_ERROR, KLOG_KIND(MODPROBE_ERROR), -1, -1,
	  "modprobe or insmod reported an error" },
	{ "udev-worker-timeout", CI_GROUP_NOTICE, CI_FMT_WARNING, KLOG_KIND(UDEV_WORKER_TIMEOUT), -1, -1,
	  "a systemd-udevd worker took too long or was killed (often a slow module load)" },
	{ "gpl-from-proprietary", CI_GROUP_NOTICE, CI_FMT_NOTE, KLOG_KIND(GPL_FROM_PROPRIETARY), -1,
	  -1, "why an unknown-symbol failure: a GPL-only user of a proprietary module's symbol" },
	{ "vmalloc-error-other", CI_GROUP_NOTICE, CI_FMT_NOTE, KLOG_KIND(VMALLOC_OTHER), -1, -1,
	  "a vmalloc() allocation failed in a task that loads no modules (BPF JIT, a driver)" },
	/* from a trace's load attempts (ledger outcomes) */
	{ "duplicate-live", CI_GROUP_DUPLICATE, CI_FMT_WARNING, 0, OUTCOME_DUP_LIVE, -1,
	  "a load of a module that was already live (EEXIST)" },
	{ "duplicate-concurrent", CI_GROUP_DUPLICATE, CI_FMT_WARNING, 0, OUTCOME_DUP_CONCURRENT,
	  -1, "a load of a module that was being loaded or unloaded (EBUSY)" },
	{ "idempotent-waiter", CI_GROUP_DUPLICATE, CI_FMT_WARNING, 0, OUTCOME_WAITER, -1,
	  "a concurrent finit_module() of the same file that waited for another (6.5+)" },
	{ "missing-dependency", CI_GROUP_FAILURE, CI_FMT_ERROR, 0, OUTCOME_MISSING_DEP, -1,
	  "a load failed because a dependency was not loaded (ENOENT)" },
	{ "bad-format", CI_GROUP_FAILURE, CI_FMT_ERROR, 0, OUTCOME_BAD_FORMAT, -1,
	  "a load failed because the bytes were not a module (ENOEXEC)" },
	{ "userspace-decompression-fallback", CI_GROUP_FAILURE, CI_FMT_WARNING, 0,
	  OUTCOME_FALLBACK, -1,
	  "finit_module() of a compressed file failed and kmod retried with init_module()" },
	{ "init-failed", CI_GROUP_FAILURE, CI_FMT_ERROR, 0, OUTCOME_INIT_FAILED, -1,
	  "a module loaded but its init function failed" },
	{ "denied", CI_GROUP_FAILURE, CI_FMT_ERROR, 0, OUTCOME_DENIED, -1,
	  "a load was refused (EPERM: no CAP_SYS_MODULE, modules_disabled)" },
	{ "other-error", CI_GROUP_FAILURE, CI_FMT_ERROR, 0, OUTCOME_OTHER_ERROR, -1,
	  "a load failed for another reason" },
	{ "incomplete", CI_GROUP_NOTICE, CI_FMT_NOTE, 0, OUTCOME_INCOMPLETE, -1,
	  "a load was still running when the trace ended" },
	{ "interrupted", CI_GROUP_NOTICE, CI_FMT_NOTE, 0, OUTCOME_INTERRUPTED, -1,
	  "a signal ended a load (EINTR, ERESTARTSYS) that waited for no other load" },
	{ "needless-autoload", CI_GROUP_AUTOLOAD, CI_FMT_WARNING, 0, -1, -1,
	  "request_module() for a module that was already live: a modprobe for nothing" },
	{ "autoload-unresolved", CI_GROUP_AUTOLOAD, CI_FMT_WARNING, 0, -1, -1,
	  "request_module() for an alias no module provides: a modprobe for nothing" },
};
#undef KLOG_KIND

_Static_assert(CI_CLASS_COUNT <= 64, "--fail-on keeps one bit per class");


size_t ci_class_count(void)
{
	return CI_CLASS_COUNT;
}

const char *ci_class_name(size_t cls)
{
	return cls < CI_CLASS_COUNT ? ci_classes[cls].name : "?";
}

const char *ci_class_help(size_t cls)
{
	return cls < CI_CLASS_COUNT ? ci_classes[cls].help : "";
}

enum ci_group ci_class_group(size_t cls)
{
	return cls < CI_CLASS_COUNT ? ci_classes[cls].group : CI_GROUP_NOTICE;
}

const char *ci_group_name(enum ci_group g)
{
	static const char *const n[_CI_GROUP_MAX] = {
		[CI_GROUP_DUPLICATE] = "duplicates",
		[CI_GROUP_FAILURE] = "failures",
		[CI_GROUP_AUTOLOAD] = "autoload",
		[CI_GROUP_NOTICE] = "notices",
	};

	return (unsigned int)g < _CI_GROUP_MAX ? n[g] : "?";
}

int ci_class_find(const char *name)
{
	for (size_t i = 0; i < CI_CLASS_COUNT; i++)
		if (strcmp(ci_classes[i].name, name) == 0)
			return (int)i;
	return -1;
}

int ci_class_of_klog(int kind)
{
	for (size_t i = 0; i < CI_CLASS_COUNT; i++)
		if (ci_classes[i].klog == kind)
			return (int)i;
	return -1;
}

int ci_class_of_outcome(int outcome)
{
	for (size_t i = 0; i < CI_CLASS_COUNT; i++)
		if (ci_classes[i].outcome == outcome)
			return (int)i;
	return -1;
}

const char *ci_level_name(enum ci_fmt_level l)
{
	return l == CI_FMT_ERROR ? "error" : l == CI_FMT_WARNING ? "warning" : "note";
}

/*
 * The needles: literal text of the printk formats, chosen so that every format holds
 * one (tests/unit/test-ci.c checks each klog_formats() entry), so that they share
 * three-byte fingerprints (stream.c searches 16 of them exactly), and so that ordinary
 * boot chatter seldom has them. "version" also finds the "Linux version" banner.
 */
static const char *const needles[] = {
	"odule",		/* module, Module, request_module, insmod's "module" */
	"symbol",
	"ELF",
	"vmalloc",
	"vmap",
	"execmem",
	"probe of ",		/* driver probes */
	"probe with ",
	"modprobe: ",		/* kmod's own messages (not systemd's modprobe@ units) */
	"taint",
	"compress",		/* decompression, ZSTD-compressed */
	"-fno-common",
	"parameter",
	"->init ",
	".init_array",
	"initialize ZSTD",
	"percpu",
	"per-cpu",
	"rejected",
	"PKCS#7",
	"section",
	"version",		/* version magic, version crc, the banner */
	"Worker [",
	"insmod",		/* busybox's "insmod: can't insert", modutils' "insmod %s failed" */
	"Failed to insert",	/* systemd's (systemd-modules-load, PID 1) */
	"Error inserting",	/* module-init-tools' modprobe */
	"install command",	/* an install command of modprobe.d that failed */
	"to insmod '",		/* Android's libmodprobe: "Failed to insmod '%s' ..." */
	"LoadWithAliases",	/* and "LoadWithAliases was unable to load %s" */
	"failed to insert",	/* OpenWrt's ubox loader */
	"failed to mmap",	/* and its "failed to mmap %s" of a module file */
	"kmodloader: ",	/* and its list "- %s - %d" of modules not probed */
	"could not insert",	/* kmod's modprobe error retyped without "modprobe: " */
	"relocation",		/* riscv's, LoongArch's, MIPS's "Unknown relocation type %u",
				 * x86's "Unknown rela relocation: %llu" */
	"bit offset from",	/* riscv's "can not be addressed by the 32-bit offset from PC" */
};
const char *const *ci_needles(size_t *ret_n)
{
	*ret_n = ARRAY_SIZE(needles);
	return needles;
}

