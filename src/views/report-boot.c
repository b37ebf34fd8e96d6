/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "session/boot-capture.h"
#include "views/report.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * report --boot: the capture's source, when it began, and the Live modules it has no
 * load of (loaded before tracing started: an initramfs, a late service)
 */
int report_boot_describe(const struct boot_capture *bc, const struct report_data *d,
			 struct report_boot *rb, const char ***ret_untraced)
{
	const char **loaded = NULL;
	size_t n_loaded = 0;

	*rb = (struct report_boot){
		.source = bc->source == BOOT_SOURCE_CMDLINE ? "kernel command line (global "
							       "trace buffer)"
							     : "kmodtop-boot.service bundle",
		.trace = d->trace_path,
		.log = d->log_path,
		.boot_id = bc->boot_id[0] ? bc->boot_id : d->boot_id,
		.first_event = d->trace_first,
		.first_attempt = NAN,
		.has_lost = bc->has_lost,
		.log_partial = bc->log_partial,
		.changed = bc->changed[0] ? bc->changed : NULL,
		.lost = bc->lost,
	};
	if (!rb->has_lost && d->trace_stats && d->trace_stats->entries >= 0 &&
	    d->trace_stats->written >= d->trace_stats->entries) {
		/* the trace's own header: entries-in-buffer/entries-written */
		rb->has_lost = true;
		rb->lost = (uint64_t)(d->trace_stats->written - d->trace_stats->entries);
	}
	if (d->ledger) {
		loaded = calloc(d->ledger->n_attempts + 1, sizeof(*loaded));
		if (!loaded)
			return -ENOMEM;
		for (size_t i = 0; i < d->ledger->n_attempts; i++) {
			const struct attempt *a = &d->ledger->attempts[i];

			if (isnan(rb->first_attempt) || a->start < rb->first_attempt)
				rb->first_attempt = a->start;
			if (a->outcome == OUTCOME_LOADED && a->module)
				loaded[n_loaded++] = a->module;
		}
		array_sort(loaded, n_loaded, sizeof(*loaded), cmp_str);
	}
	if (d->pm && d->trace_path) {
		*ret_untraced = calloc(d->pm->n + 1, sizeof(**ret_untraced));
		if (!*ret_untraced) {
			free(loaded);
			return -ENOMEM;
		}
		for (size_t i = 0; i < d->pm->n; i++) {
			const char *name = d->pm->mods[i].name;

			if (d->pm->mods[i].state != MODULE_LIVE ||
			    (n_loaded && bsearch(&name, loaded, n_loaded, sizeof(*loaded), cmp_str)))
				continue;
			(*ret_untraced)[rb->n_untraced++] = name;
		}
		rb->untraced = *ret_untraced;
	}
	free(loaded);
	return 0;
}
