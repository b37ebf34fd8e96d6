/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "boot-cmdline.h"

struct sb {
	char *p;
	size_t len, cap;
	bool oom;
};

static void sb_add(struct sb *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->len + n + 1) * 2;
		char *p = realloc(b->p, cap);

		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void sb_str(struct sb *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

int boot_cmdline_new(const struct setup_script *s, unsigned int buf_kb, char **ret)
{
	struct sb b = { 0 };
	char num[32];

	sb_str(&b, "trace_event=");
	for (size_t i = 0; i < s->n_events; i++) {
		const char *slash = strchr(s->events[i], '/');

		if (i)
			sb_str(&b, ",");
		if (slash) {
			/* "module/module_load" -> "module:module_load" */
			sb_add(&b, s->events[i], (size_t)(slash - s->events[i]));
			sb_str(&b, ":");
			sb_str(&b, slash + 1);
		} else {
			sb_str(&b, s->events[i]);
		}
	}
	for (size_t i = 0; i < s->n_probes; i++) {
		const struct setup_probe *p = &s->probes[i];

		if (strpbrk(p->args, ",;") || strpbrk(p->symbol, ",; ")) {
			free(b.p);
			return -EINVAL;
		}
		sb_str(&b, i ? ";" : " kprobe_event=");
		sb_str(&b, "p:");
		sb_str(&b, s->group);
		sb_str(&b, "/");
		sb_str(&b, p->event);
		sb_str(&b, ",");
		sb_str(&b, p->symbol);
		/* the kernel turns every ',' back into a space */
		for (const char *a = p->args; *a;) {
			size_t n = strcspn(a, " ");

			if (n) {
				sb_str(&b, ",");
				sb_add(&b, a, n);
			}
			a += n;
			a += strspn(a, " ");
		}
	}
	snprintf(num, sizeof(num), " trace_buf_size=%uK", buf_kb);
	sb_str(&b, num);
	sb_str(&b, " trace_options=nooverwrite");
	if (b.oom) {
		free(b.p);
		return -ENOMEM;
	}
	*ret = b.p;
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

bool boot_cmdline_traces_modules(const char *cmdline)
{
	/* trace_event=...module:module_load... (or module:* / module:) as a word */
	for (const char *p = cmdline; (p = strstr(p, "trace_event=")); p++) {
		const char *end;

		if (p != cmdline && p[-1] != ' ' && p[-1] != '\t' && p[-1] != '"')
			continue;
		end = p + strcspn(p, " \t\n");
		for (const char *q = p; (q = strstr(q, "module:")) && q < end; q++)
			if (q[-1] == '=' || q[-1] == ',')
				return true;
	}
	return false;
}
