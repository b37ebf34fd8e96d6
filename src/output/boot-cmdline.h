/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdio.h>

#include "setup-script.h"

/*
 * `kmodtop boot-setup`: the kernel command line that traces module loads from the
 * kernel's start, in the global trace buffer:
 *
 *   trace_event=module:module_load,...  the events (trace_events.c, any version)
 *   kprobe_event=p:kmodtop/NAME,SYMBOL,ARGS;...  the naming probes (5.6+), which the
 *                                        kernel enables in the top-level buffer only
 *                                        (enable_boot_kprobe_events()): that is why the
 *                                        capture is the global buffer and not a
 *                                        trace_instance= (6.3+ for events)
 *   trace_buf_size=NK                    per CPU
 *   trace_options=nooverwrite            a full buffer keeps the boot's start and drops
 *                                        what comes later, counted in per_cpu stats
 *   trace_clock=global                   no switch of clock (and reset of the buffer) at
 *                                        late_initcall where sched_clock is unstable
 *
 * The probes' filters (kmodtop_kread's "id == READING_MODULE") cannot be given there;
 * the ledger takes a call's first read as its module file, so none is needed.
 */
#define BOOT_CMDLINE_BUF_KB 1024
/* x86's COMMAND_LINE_SIZE, the smallest of the architectures Debian builds for */
#define BOOT_CMDLINE_MAX 2048

/*
 * The words, space-separated, for @s's events and probes. 0; -EINVAL when a probe's
 * arguments hold a ',' or ';' (the kernel's separators there); -ENOMEM.
 */
int boot_cmdline_new(const struct setup_script *s, unsigned int buf_kb, char **ret);

/*
 * A grub drop-in (/etc/default/grub.d/kmodtop.cfg) adding @cmdline to
 * GRUB_CMDLINE_LINUX_DEFAULT: the file is sourced by sh, and grub.cfg is read by
 * GRUB's own shell, where ';' ends a command and '$' expands: the kprobe_event= word is
 * single-quoted for GRUB, its '$' escaped for sh. -EINVAL when a word holds a quote, a
 * backslash or a backquote; -EIO when @f failed.
 */
int boot_cmdline_write_grub(FILE *f, const char *cmdline, const char *release);


/* The marker line every drop-in kmodtop writes starts with (--remove checks it) */
#define BOOT_CMDLINE_GRUB_MARK "# kmodtop boot-setup"
