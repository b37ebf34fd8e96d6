/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "setup-script.h"

/* @s inside double quotes: $, `, " and \\ escaped (the fetch args hold $argN) */
static void put_dq(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '$' || *s == '`' || *s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
}

/* "module/module_load" -> "module:module_load", trace-cmd's spelling */
static void put_tc_event(FILE *f, const char *ev)
{
	const char *slash = strchr(ev, '/');

	if (slash)
		fprintf(f, " \\\n\t\t-e %.*s:%s", (int)(slash - ev), ev, slash + 1);
	else
		fprintf(f, " \\\n\t\t-e %s", ev);
}

static void put_probes(FILE *f, const struct setup_script *s)
{
	fputs("# The naming probes (offsets and argument positions from this kernel's BTF):\n",
	      f);
	for (size_t i = 0; i < s->n_probes; i++)
		fprintf(f, "#   %s: %s\n", s->probes[i].event, s->probes[i].gives);
	for (size_t i = 0; i < s->n_missing; i++)
		fprintf(f, "#   not placed: %s\n", s->missing[i]);
	fputs("kmodtop_probes_add() {\n", f);
	for (size_t i = 0; i < s->n_probes; i++) {
		fprintf(f, "\techo \"p:$G/%s %s ", s->probes[i].event, s->probes[i].symbol);
		put_dq(f, s->probes[i].args);
		fputs("\" >>\"$T/kprobe_events\"\n", f);
	}
	if (s->measure_kprobe_args) {
		fputs("\techo \"p:$G/alloc_vmap_area alloc_vmap_area ", f);
		put_dq(f, s->measure_kprobe_args);
		fputs("\" >>\"$T/kprobe_events\"\n", f);
	}
	fputs("\t:\n}\n", f);
	fputs("kmodtop_probes_remove() {\n", f);
	for (size_t i = 0; i < s->n_probes; i++)
		fprintf(f, "\techo \"-:$G/%s\" >>\"$T/kprobe_events\"\n", s->probes[i].event);
	if (s->measure_kprobe_args)
		fputs("\techo \"-:$G/alloc_vmap_area\" >>\"$T/kprobe_events\"\n", f);
	fputs("\t:\n}\n\n", f);
}

static void put_tracefs(FILE *f, const struct setup_script *s)
{
	char marker[64] = "kmodtop_probes";

	for (size_t i = 0; i < s->n_probes; i++) {
		if (strcmp(s->probes[i].event, "kmodtop_kread") == 0)
			strcat(marker, " kread");
		else if (strcmp(s->probes[i].event, "kmodtop_name") == 0)
			strcat(marker, " name");
		else if (strcmp(s->probes[i].event, "kmodtop_layout") == 0)
			strcat(marker, " layout");
	}
	fputs("# the events kmodtop reads, in the buffer $1: an instance, or $T itself\n"
	      "kmodtop_enable() {\n",
	      f);
	for (size_t i = 0; i < s->n_events; i++)
		fprintf(f, "\techo 1 >\"$1/events/%s/enable\"\n", s->events[i]);
	if (s->measure_tracepoint)
		fputs("\techo stacktrace >\"$1/events/vmalloc/alloc_vmap_area/trigger\"\n"
		      "\techo 1 >\"$1/events/vmalloc/alloc_vmap_area/enable\"\n",
		      f);
	if (s->measure_kprobe_args)
		fputs("\techo stacktrace >\"$1/events/$G/alloc_vmap_area/trigger\"\n"
		      "\techo 1 >\"$1/events/$G/alloc_vmap_area/enable\"\n", f);
	for (size_t i = 0; i < s->n_probes; i++) {
		if (s->probes[i].filter[0])
			fprintf(f, "\techo '%s' >\"$1/events/$G/%s/filter\"\n", s->probes[i].filter,
				s->probes[i].event);
		fprintf(f, "\techo 1 >\"$1/events/$G/%s/enable\"\n", s->probes[i].event);
	}
	fputs("}\n", f);
	if (s->n_probes)
		fprintf(f, "# once tracing: tells the report that a call without kmodtop_kread did not "
			   "read\nkmodtop_mark() {\n\techo '%s' >\"$1/trace_marker\"\n}\n", marker);
	else
		fputs("kmodtop_mark() {\n\t:\n}\n", f);
	fputs("\n# a) tracefs alone: an instance of its own, its trace_pipe into $KMODTOP_TRACE\n"
	      "kmodtop_tracefs_start() {\n"
	      "\tmkdir \"$B\" || return\n"
	      "\techo 0 >\"$B/tracing_on\"\n",
	      f);
	if (s->clock)
		fprintf(f, "\t# the top level's clock, which the kernel log's times compare with\n"
			   "\techo %s >\"$B/trace_clock\"\n", s->clock);
	if (s->buffer_kb)
		fprintf(f, "\techo %u >\"$B/buffer_size_kb\"\n", s->buffer_kb);
	fputs("\t# wake the reader at every event (6.1+ waits for half a buffer otherwise)\n"
	      "\techo 0 >\"$B/buffer_percent\" 2>/dev/null\n"
	      "\tkmodtop_enable \"$B\"\n"
	      "\techo 1 >\"$B/tracing_on\"\n"
	      "\tkmodtop_mark \"$B\"\n"
	      "\tcat \"$B/trace_pipe\" >\"$KMODTOP_TRACE\" &\n"
	      "\tKMODTOP_CAT=$!\n"
	      "}\n"
	      "kmodtop_tracefs_stop() {\n"
	      "\techo 0 >\"$B/tracing_on\"\n"
	      "\tsleep 1\n"
	      "\tkill \"$KMODTOP_CAT\"\n"
	      "\twait \"$KMODTOP_CAT\" 2>/dev/null\n"
	      "\t# what the pipe had not handed out yet\n"
	      "\tcat \"$B/trace\" >>\"$KMODTOP_TRACE\"\n"
	      "\trmdir \"$B\"\n"
	      "}\n\n",
	      f);
}

static void put_trace_cmd(FILE *f, const struct setup_script *s)
{
	fputs("# b) or trace-cmd: a buffer of its own into $KMODTOP_DAT, until Ctrl-C\n"
	      "kmodtop_trace_cmd() {\n",
	      f);
	fputs("\ttrace-cmd record -B \"$KMODTOP_BUFFER\"", f);
	if (s->clock)
		fprintf(f, " -C %s", s->clock);
	if (s->buffer_kb)
		fprintf(f, " -b %u", s->buffer_kb);
	for (size_t i = 0; i < s->n_events; i++)
		put_tc_event(f, s->events[i]);
	if (s->measure_tracepoint)
		fputs(" \\\n\t\t-e vmalloc:alloc_vmap_area -R stacktrace", f);
	if (s->measure_kprobe_args)
		fputs(" \\\n\t\t-e \"$G:alloc_vmap_area\" -R stacktrace", f);
	for (size_t i = 0; i < s->n_probes; i++) {
		fprintf(f, " \\\n\t\t-e \"$G:%s\"", s->probes[i].event);
		if (s->probes[i].filter[0])
			fprintf(f, " -f '%s'", s->probes[i].filter);
	}
	fputs(" \\\n\t\t-o \"$KMODTOP_DAT\"\n"
	      "}\n",
	      f);
}

int setup_script_write(FILE *f, const struct setup_script *s)
{
	fprintf(f, "# kmodtop record --print-setup: the tracing kmodtop needs, for Linux %s\n",
		s->release ? s->release : "(unknown release)");
	if (s->generation)
		fprintf(f, "# load path: %s\n", s->generation);
	fputs("#\n"
	      "# As root, source this file (. ./setup.sh), then\n"
	      "#   kmodtop_probes_add\n"
	      "#   kmodtop_tracefs_start; <the loads to study>; kmodtop_tracefs_stop\n"
	      "#     (or: kmodtop_trace_cmd, which runs trace-cmd record until Ctrl-C)\n"
	      "#   kmodtop_probes_remove; dmesg >\"$KMODTOP_LOG\"\n"
	      "#   kmodtop report --trace \"$KMODTOP_TRACE\" --log \"$KMODTOP_LOG\"\n"
	      "#     (or --trace \"$KMODTOP_DAT\" for trace-cmd's trace.dat)\n"
	      "# Each function is the list of commands it runs. None touches the global tracing\n"
	      "# state: the events go into a buffer of their own, the probes into their group.\n\n",
	      f);
	fprintf(f, "T=${T:-%s}\n", s->tracefs ? s->tracefs : "/sys/kernel/tracing");
	fprintf(f, "B=${B:-$T/instances/%s}\n", s->instance);
	fprintf(f, "KMODTOP_BUFFER=${KMODTOP_BUFFER:-%s}\n", s->instance);
	fprintf(f, "# the probes' group\nG=${G:-%s}\n", s->group);
	fputs("KMODTOP_TRACE=${KMODTOP_TRACE:-kmodtop-trace.txt}\n"
	      "KMODTOP_DAT=${KMODTOP_DAT:-kmodtop.dat}\n"
	      "KMODTOP_LOG=${KMODTOP_LOG:-kmodtop-dmesg.txt}\n\n",
	      f);
	put_probes(f, s);
	put_tracefs(f, s);
	put_trace_cmd(f, s);
	fflush(f);
	return ferror(f) ? -EIO : 0;
}
