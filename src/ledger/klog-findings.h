/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Kernel log messages that say something about module loads, recognised by the
 * printk format strings the kernel source uses (kernel/module/, kernel/kmod.c,
 * mm/vmalloc.c, drivers/base/dd.c, ...), plus kmod's own modprobe/insmod error lines,
 * which CI logs carry too. doc/log-messages.md lists each with its class and kernel
 * source place; the "(5.x)" marks in klog-findings.c's table are its sections.
 *
 * Which fields a kind fills (strings point into the message):
 *   UNKNOWN_SYMBOL       module, symbol, num[0] = err ("(err -2)")
 *   SYMBOL_VERSION       module, symbol ("disagrees about version of symbol")
 *   NO_SYMBOL_VERSION    module, symbol
 *   SYMBOL_NAMESPACE     module, symbol, text = namespace
 *   AUTOLOAD_DUPLICATE   module = the requested name (an alias or a module)
 *   KMOD_THROTTLED       module, num[0] = kmod_concurrent_max, num[1] = max_modprobes
 *   KMOD_BUSY            module, num[0] = threads, num[1] = seconds
 *   KMOD_GAVE_UP         module (sigkill sent / runaway loop)
 *   FS_STILL_MISSING     module = the filesystem name
 *   VMAP_FAILED          num[0] = size (with the guard page)
 *   VMALLOC_ERROR        text = comm, num[0] = size, num[1] = order/array size if printed
 *   EXECMEM_FAILED       -
 *   PROBE_FAILED         module = driver, text = device, num[0] = error
 *   SIG_MISSING          module (unsigned module accepted, kernel tainted)
 *   SIG_REJECTED         module if printed, text = reason
 *   BAD_ELF              module if printed, num[] per format
 *   THIS_MODULE_SIZE     module (struct module size mismatch)
 *   BLACKLISTED          module
 *   VERMAGIC             module, text = the module's magic, text2 = the kernel's
 *   FORCED_LOAD          module, text = reason
 *   TAINT                module, text = license / other module when printed
 *   ALREADY_LOADED       module
 *   INIT_BAD_RETURN      module, text = init function, num[0] = returned value
 *   LOAD_ERROR           module, symbol/text/num[] per format
 *   LOAD_WARNING         module, text per format
 *   DECOMPRESS_FAILED    num[0] = status when printed
 *   MODPROBE_ERROR       module, text = reason or directory (userspace kmod)
 *   UDEV_WORKER_TIMEOUT  text = device, num[0] = worker pid, num[1] = SEQNUM
 *   GPL_FROM_PROPRIETARY module, symbol, text = the proprietary module: why the
 *                        "Unknown symbol" line of the same symbol that follows failed
 *   VMALLOC_OTHER        as VMALLOC_ERROR, from a task that loads no modules (the BPF
 *                        JIT, a driver's buffer): not a module load's failure
 *
 * MODPROBE_ERROR also covers busybox's insmod and systemd's module loading; err is
 * mapped back from the strerror() text where the line ends with one.
 */
enum klog_finding_kind {
	KLOG_FINDING_NONE,
	KLOG_FINDING_UNKNOWN_SYMBOL,
	KLOG_FINDING_SYMBOL_VERSION,
	KLOG_FINDING_NO_SYMBOL_VERSION,
	KLOG_FINDING_SYMBOL_NAMESPACE,
	KLOG_FINDING_AUTOLOAD_DUPLICATE,
	KLOG_FINDING_KMOD_THROTTLED,
	KLOG_FINDING_KMOD_BUSY,
	KLOG_FINDING_KMOD_GAVE_UP,
	KLOG_FINDING_FS_STILL_MISSING,
	KLOG_FINDING_VMAP_FAILED,
	KLOG_FINDING_VMALLOC_ERROR,
	KLOG_FINDING_EXECMEM_FAILED,
	KLOG_FINDING_PROBE_FAILED,
	KLOG_FINDING_SIG_MISSING,
	KLOG_FINDING_SIG_REJECTED,
	KLOG_FINDING_BAD_ELF,
	KLOG_FINDING_THIS_MODULE_SIZE,
	KLOG_FINDING_BLACKLISTED,
	KLOG_FINDING_VERMAGIC,
	KLOG_FINDING_FORCED_LOAD,
	KLOG_FINDING_TAINT,
	KLOG_FINDING_ALREADY_LOADED,
	KLOG_FINDING_INIT_BAD_RETURN,
	KLOG_FINDING_LOAD_ERROR,
	KLOG_FINDING_LOAD_WARNING,
	KLOG_FINDING_DECOMPRESS_FAILED,
	KLOG_FINDING_MODPROBE_ERROR,
	KLOG_FINDING_UDEV_WORKER_TIMEOUT,
	KLOG_FINDING_GPL_FROM_PROPRIETARY,
	KLOG_FINDING_VMALLOC_OTHER,
	KLOG_FINDING__MAX
};

#define KLOG_FINDING_NUMS 3

struct klog_finding {
	enum klog_finding_kind kind;
	/* the source's format string that matched (static) */
	const char *format;
	/* where it is printed: "kernel/module/main.c" (static) */
	const char *source;
	/* errno the load fails with (ENOEXEC); 0 if none or not known */
	int err;
	/* into the message, not NUL-terminated; NULL if absent */
	const char *module;
	size_t module_len;
	const char *symbol;
	size_t symbol_len;
	const char *text;
	size_t text_len;
	const char *text2;
	size_t text2_len;
	int64_t num[KLOG_FINDING_NUMS];
	unsigned int n_num;
	/* into the message: where text is left that may hold one more finding (a second
	 * record run onto the line, prose after a quoted line); NULL if none */
	const char *rest;
};

/*
 * Classifies one kernel log message (as struct klog_rec's msg: no timestamp, raw
 * bytes, a trailing newline is ignored; kmsg's "\x7f" style escapes may be decoded or
 * not). Pure: no allocation, no state. 1 with *ret filled, or 0 when the message is
 * not a finding: then *ret is cleared to kind KLOG_FINDING_NONE. Messages over 4 KiB
 * are never findings: a printk record holds 1 KiB.
 */
/* @s past the markdown a paste puts around a log line; *@len updated */
const char *klog_skip_markup(const char *s, size_t *len);
/* The length of a "[...] " or "[…] " that a paste put in place of a record's time, or 0 */
size_t klog_elided_time(const char *s, size_t len);
int klog_classify(const char *msg, size_t len, struct klog_finding *ret);
/*
 * klog_classify() of the text a finding left (its ->rest): that, or a kernel wording
 * the text starts with, ended by a sentence after it ("module: x: Unknown rela
 * relocation: 4 The common cause ..."), as prose quotes one.
 */
int klog_classify_rest(const char *msg, size_t len, struct klog_finding *ret);

/*
 * klog_classify() with a memory of the messages it answered lately: logs repeat
 * themselves (each retry of a failing load prints the same lines), and a long log asks
 * the same few hundred messages millions of times. One memo per thread.
 */
struct klog_memo;

int klog_memo_new(struct klog_memo **ret);
struct klog_memo *klog_memo_free(struct klog_memo *m);
/*
 * As klog_classify(). *ret_user (may be NULL) points to a word the caller may keep with
 * this message's answer (0 at first; it goes with it), or is NULL when the message is
 * not remembered (too long).
 */
int klog_classify_memo(struct klog_memo *m, const char *msg, size_t len,
		       struct klog_finding *ret, uint64_t **ret_user);

/* Whether @msg is a kernel line about modules that is no finding (its wording known) */
bool klog_module_line(const char *msg, size_t len);

/*
 * Whether @msg is a line only a kernel prints that is no finding: klog_module_line()'s,
 * a stack dump's head ("CPU: %d PID: %d Comm: ...", "Call Trace:"), or a PCI device's
 * dev_printk() line. It makes a paste without timestamps or banner a kernel log.
 */
bool klog_kernel_line(const char *msg, size_t len);

/*
 * One line of a paste that a mail client, a quote or a terminal split in two, @a then
 * @b, joined into @buf (@size bytes, NUL-terminated): past mail quote marks ('>') and
 * indentation, with one space where the split took one, none after a quoted-printable
 * soft line break (a final '='). Its length, or 0 when a half is empty or it does not
 * fit. Whether the join is a line of a known wording is the caller's to ask.
 */
#define KLOG_JOIN_MAX 1024
size_t klog_join_cut(const char *a, size_t alen, const char *b, size_t blen, char *buf,
		     size_t size);

/*
 * The same join for a line a mail client broke after the minus sign of a negative
 * number ("... (err -" / "2)"): no space between the two halves. 0 unless @a ends in
 * " -" or "(-" and @b, past its quote marks, starts with a digit.
 */
size_t klog_join_cut_minus(const char *a, size_t alen, const char *b, size_t blen, char *buf,
			   size_t size);

/* "unknown-symbol", ...: stable names for JSON. */
const char *klog_finding_kind_name(enum klog_finding_kind kind);

enum {
	/* the message may go on (warn_alloc's ", mode:...") */
	KLOG_FORMAT_PREFIX = 1u << 0,
	/* module is a path or file name: kmod's rule makes it a name (basename, up to
	 * the first '.'; '-' and '_' compare the same anyway) */
	KLOG_FORMAT_MODULE_PATH = 1u << 1,
	/* text is a strerror() text: err is its errno when known */
	KLOG_FORMAT_ERRNO_TEXT = 1u << 2,
	/* module and symbol captures hold no space (a format ending in a bare "%s") */
	KLOG_FORMAT_WORDS = 1u << 3,
	/* the module capture is a module file's name ("*.ko", compressed or not) */
	KLOG_FORMAT_KO_FILE = 1u << 4,
	/* the first capture is a 2.4 module's object file ("*.o"): modutils' error() puts
	 * the file it works on before its messages */
	KLOG_FORMAT_OBJ_FILE = 1u << 5,
};

/* One recognised format; the table is static, for tests and documentation. */
struct klog_format_entry {
	enum klog_finding_kind kind;
	/* as in the source; rendered prefixes spelt out */
	const char *format;
	const char *source;
	int err;
	const char *slots;		/* per conversion: m module, s symbol, t text,
					 * u text2, n number, - ignored */
	unsigned int flags;
	const char *text2_is;		/* a finding only when text2 is exactly this */
};
/* *ret_n entries, tried in order; the first match wins. */
const struct klog_format_entry *klog_formats(size_t *ret_n);
/* The same, as klog_classify() reads them (klog-wordings.c) */
extern const struct klog_format_entry klog_wordings[];
extern const size_t klog_wordings_n;
