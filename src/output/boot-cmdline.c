/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "boot-cmdline.h"

int boot_cmdline_new(const struct setup_script *s, unsigned int buf_kb, char **ret)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	for (size_t i = 0; i < s->n_probes; i++)
		if (strpbrk(s->probes[i].args, ",;") || strpbrk(s->probes[i].symbol, ",; "))
			return -EINVAL;
	f = open_memstream(&text, &len);
	if (!f)
		return -ENOMEM;
	fputs("trace_event=", f);
	for (size_t i = 0; i < s->n_events; i++) {
		const char *slash = strchr(s->events[i], '/');

		/* "module/module_load" -> "module:module_load" */
		if (slash)
			fprintf(f, "%s%.*s:%s", i ? "," : "", (int)(slash - s->events[i]),
				s->events[i], slash + 1);
		else
			fprintf(f, "%s%s", i ? "," : "", s->events[i]);
	}
	for (size_t i = 0; i < s->n_probes; i++) {
		const struct setup_probe *p = &s->probes[i];

		fprintf(f, "%sp:%s/%s,%s", i ? ";" : " kprobe_event=", s->group, p->event,
			p->symbol);
		/* the kernel turns every ',' back into a space */
		for (const char *a = p->args; *a;) {
			size_t n = strcspn(a, " ");

			if (n)
				fprintf(f, ",%.*s", (int)n, a);
			a += n;
			a += strspn(a, " ");
		}
	}
	/*
	 * trace_clock=global: where sched_clock is unstable the kernel switches the
	 * trace clock at late_initcall_sync (tracing_set_default_clock()), and a switch
	 * resets the buffer, the boot's first seconds with it; one given here is kept
	 */
	fprintf(f, " trace_buf_size=%uK trace_options=nooverwrite trace_clock=global", buf_kb);
	if (ferror(f)) {
		fclose(f);
		free(text);
		return -ENOMEM;
	}
	if (fclose(f) != 0) {
		free(text);
		return -ENOMEM;
	}
	*ret = text;
	return 0;
}

int boot_cmdline_write_grub(FILE *f, const char *cmdline, const char *release)
{
	if (strpbrk(cmdline, "\"'\\`\n"))
		return -EINVAL;
	fprintf(f,
		BOOT_CMDLINE_GRUB_MARK " for %s: module loads traced from the kernel's start\n"
		"# into the global trace buffer, read by `kmodtop report --boot`.\n"
		"# `kmodtop boot-setup --remove` deletes this file; update-grub applies either.\n"
		"GRUB_CMDLINE_LINUX_DEFAULT=\"${GRUB_CMDLINE_LINUX_DEFAULT}",
		release ? release : "this kernel");
	for (const char *w = cmdline; *w;) {
		size_t n = strcspn(w, " ");
		bool quote = n > 13 && memcmp(w, "kprobe_event=", 13) == 0;

		if (n) {
			fputs(quote ? " '" : " ", f);
			for (size_t i = 0; i < n; i++) {
				if (w[i] == '$')
					fputc('\\', f);
				fputc(w[i], f);
			}
			if (quote)
				fputc('\'', f);
		}
		w += n;
		w += strspn(w, " ");
	}
	fputs("\"\n", f);
	return ferror(f) ? -EIO : 0;
}

