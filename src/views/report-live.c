/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The "live" section of a report on a live collection (report --duration): its
 * sources, the events the kernel lacked, what was lost, the measurement mode.
 */
#include <stdio.h>
#include <string.h>

#include "output/output.h"
#include "session/live.h"
#include "views/report.h"

static void out_err(struct out *o, int err, const char *why)
{
	out_bool(o, "ok", NULL, err == 0);
	if (err) {
		out_str(o, "error", NULL, strerrorname_np(-err));
		out_str(o, "reason", NULL, why);
	}
}

void report_render_live(const struct live_status *st, struct out *o)
{
	static const char *const measure_names[] = { "none", "tracepoint", "kprobe" };
	char buf[200];

	out_section_begin(o, "live", "Live collection");
	snprintf(buf, sizeof(buf), "%.1f s%s%s", st->seconds, st->ended_by ? ", ended by " : "",
		 st->ended_by ? st->ended_by : "");
	out_str(o, NULL, "collected:", buf);
	out_u64(o, "seconds_ms", NULL, (uint64_t)(st->seconds * 1000 + 0.5));
	out_str(o, "ended_by", NULL, st->ended_by ? st->ended_by : "duration");

	out_section_begin(o, "trace", NULL);
	out_str(o, "tracefs", "tracefs:", st->tracefs_path);
	out_bool(o, "tracefs_mounted_by_kmodtop", NULL, st->tracefs_mounted);
	out_str(o, "instance", "instance:", st->instance[0] ? st->instance : NULL);
	out_str(o, "clock", "trace clock:", st->clock[0] ? st->clock : NULL);
	out_err(o, st->trace_err, st->trace_why);
	if (st->trace_err) {
		snprintf(buf, sizeof(buf), "%s (%s)", st->trace_why ? st->trace_why : "failed",
			 strerror(-st->trace_err));
		out_str(o, NULL, "trace:", buf);
	}
	out_str(o, "read", "read from:", st->instance[0] ? (st->raw ? "trace_pipe_raw" : "trace_pipe")
							 : NULL);
	if (st->instance[0] && !st->raw)
		out_str(o, "read_text_reason", "  not raw:", st->raw_why);
	out_u64(o, "bytes", NULL, st->trace_bytes);
	out_u64(o, "raw_pages", NULL, st->raw_pages);
	out_u64(o, "comms_resolved", NULL, st->comms_resolved);
	out_u64(o, "comms_unknown", NULL, st->comms_unknown);
	out_u64(o, "finit_fds_marked", NULL, st->fds_marked);
	out_u64(o, "finit_fds_unread", NULL, st->fds_unread);
	out_section_begin(o, "missing_events", NULL);
	for (size_t i = 0; i < st->n_events; i++) {
		if (!st->events[i].err)
			continue;
		snprintf(buf, sizeof(buf), "missing %s:", st->events[i].name);
		out_str(o, st->events[i].name, buf, st->events[i].loses);
	}
	out_section_end(o);
	out_str(o, "measure", "vmap measurement:",
		st->measure_asked ? measure_names[st->measure] : "off");
	if (st->measure_asked && st->measure == KTRACE_MEASURE_NONE)
		out_str(o, "measure_reason", "  not measured:", st->measure_why);
	out_u64(o, "lost_events", "lost trace events:", st->lost_total);
	out_u64(o, "lost_events_uncounted", st->lost_uncounted ? "  lines without a count:" : NULL,
		st->lost_uncounted);
	if (st->lost_err)
		out_str(o, "lost_events_error", "  lost events unknown:", strerrorname_np(-st->lost_err));
	out_section_begin(o, "lost_by_cpu", NULL);
	for (unsigned int c = 0; c < st->ncpus; c++) {
		char key[16];

		snprintf(key, sizeof(key), "cpu%u", c);
		out_u64(o, key, NULL, st->lost[c]);
	}
	out_section_end(o);
	out_u64(o, "stale_instances_removed", NULL, st->stale.instances);
	out_u64(o, "stale_probes_removed", NULL, st->stale.probes);
	out_section_end(o);

	if (st->sampled)
		report_render_vmsample(&st->vs, LIVE_POLL_MS, st->vs_err, o);

	out_section_begin(o, "kmsg", NULL);
	out_str(o, "path", NULL, "/dev/kmsg");
	out_bool(o, "since_boot", NULL, st->since_boot);
	out_err(o, st->kmsg_err, st->kmsg_why);
	if (st->kmsg_err) {
		snprintf(buf, sizeof(buf), "%s (%s)", st->kmsg_why, strerror(-st->kmsg_err));
		out_str(o, NULL, "kernel log:", buf);
	}
	out_u64(o, "records", "kernel log records followed:", st->kmsg_records);
	out_u64(o, "overwritten", NULL, st->kstats.epipe);
	out_u64(o, "lost_records", "kernel log records lost:", st->kstats.lost);
	out_section_end(o);
	out_section_end(o);
}
