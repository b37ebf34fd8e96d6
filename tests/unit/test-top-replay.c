/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ledger/ledger.h"
#include "sources/proc-modules.h"
#include "util/log.h"
#include "util/root.h"
#include "session/collect.h"
#include "session/top-replay.h"
#include "session/system.h"

#ifndef FIXTURES_DIR
#define FIXTURES_DIR "tests/fixtures"
#endif

static const char *const fixtures[] = { "debian-6.1-plain", "debian-6.12-xz",
					"custom-6.12-modstats" };

/* --- what the report reads under --root ------------------------------------------------ */

struct counts {
	size_t attempts, failed, duplicates;
};

/*
 * The same root as `report --root` reads it, done here without the replay: its trace
 * and kernel log into a ledger, with the root's modules standing for those Live before.
 */
static void report_counts(const struct kt_system *st, struct counts *ret)
{
	struct collect_lookup lk = { 0 };
	struct collect_input in = { .ledger_only = true };
	struct collect_result res = { 0 };
	struct proc_modules *pm = NULL;
	struct kt_err e = { 0 };

	assert_int_equal(proc_modules_read(st->root, &pm, &e), 0);
	assert_int_equal(root_fopen(st->root, "sys/kernel/tracing/trace", &in.trace), 0);
	assert_int_equal(root_fopen(st->root, "capture/kmsg.raw", &in.log), 0);
	in.trace_path = "sys/kernel/tracing/trace";
	in.log_path = "capture/kmsg.raw";
	lk.idx = st->idx;
	lk.pm = pm;
	lk.cat = st->cat;
	lk.k = &st->k;
	assert_int_equal(collect_read(&lk, st->lp.idempotent_finit, &in, &res), 0);
	memset(ret, 0, sizeof(*ret));
	for (size_t i = 0; i < res.ledger->n_attempts; i++) {
		ret->attempts++;
		ret->failed += attempt_is_failure(&res.ledger->attempts[i]);
		ret->duplicates += attempt_is_duplicate(&res.ledger->attempts[i]);
	}
	collect_result_done(&res);
	fclose(in.trace);
	fclose(in.log);
	proc_modules_free(pm);
}

/* --- warnings come to the caller ------------------------------------------------------ */

struct warnings {
	char text[8][256];
	size_t n;
};

static void collect_warning(void *userdata, const char *text)
{
	struct warnings *w = userdata;

	if (w->n < 8)
		snprintf(w->text[w->n], sizeof(w->text[0]), "%s", text);
	w->n++;
}

static bool warned(const struct warnings *w, const char *part)
{
	for (size_t i = 0; i < w->n && i < 8; i++)
		if (strstr(w->text[i], part))
			return true;
	return false;
}

/* --- tests ---------------------------------------------------------------------------- */

/*
 * A fixture replayed in steps: the attempts only grow, appear in the order they ended,
 * and the last sample holds every attempt, failure and duplicate the report counts.
 */
static void test_replay_counts_as_report(void **state)
{
	(void)state;
	for (size_t f = 0; f < sizeof(fixtures) / sizeof(fixtures[0]); f++) {
		char dir[512];
		struct kt_system st = { 0 };
		struct warnings w = { 0 };
		struct top_warn tw = { collect_warning, &w };
		struct top_failure fail = { 0 };
		struct top_replay *rp = NULL;
		const struct top_sample *s = NULL;
		struct counts want, got = { 0 };
		size_t prev = 0, samples = 0;

		snprintf(dir, sizeof(dir), "%s/%s", FIXTURES_DIR, fixtures[f]);
		assert_int_equal(kt_system_open(&(struct kt_system_opts){ .root = dir }, &st), 0);
		kt_system_open_module_tree(&st, false);
		report_counts(&st, &want);
		assert_true(want.attempts > 0);

		assert_int_equal(top_replay_new(&st, 1, &tw, &fail, &rp), 0);
		do {
			assert_int_equal(top_replay_sample(rp, 2.0, &s), 0);
			assert_true(s->n_done >= prev);
			prev = s->n_done;
			assert_true(++samples < 100000);
		} while (!s->finished);
		assert_true(samples > 1);
		assert_non_null(s->ledger);
		for (size_t i = 0; i < s->n_done; i++) {
			const struct attempt *a = &s->ledger->attempts[s->done[i]];
			const struct attempt *b =
				i ? &s->ledger->attempts[s->done[i - 1]] : NULL;

			/* in the order they ended (an unfinished one counts at the end) */
			if (b && a->complete && b->complete)
				assert_true(b->end <= a->end);
			got.attempts++;
			got.failed += attempt_is_failure(a);
			got.duplicates += attempt_is_duplicate(a);
		}
		/* each module once, found again by name whenever the trace or a snapshot names it */
		assert_true(s->n_mods > 0);
		for (size_t i = 0; i < s->n_mods; i++)
			for (size_t j = i + 1; j < s->n_mods; j++)
				assert_string_not_equal(s->mods[i].name, s->mods[j].name);
		assert_int_equal(got.attempts, want.attempts);
		assert_int_equal(got.failed, want.failed);
		assert_int_equal(got.duplicates, want.duplicates);
		/* a whole fixture: nothing it could not use */
		assert_int_equal(w.n, 0);
		top_replay_free(rp);
		kt_system_close(&st);
	}
}

static void write_file(const char *dir, const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void remove_tree(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* A root the replay cannot use all of: it tells the caller, and writes nothing itself */
static void test_replay_warns_caller(void **state)
{
	char dir[] = "/tmp/kmodtop-test-replay-XXXXXX", path[600];
	struct kt_system st = { 0 };
	struct warnings w = { 0 };
	struct top_warn tw = { collect_warning, &w };
	struct top_failure fail = { 0 };
	struct top_replay *rp = NULL;
	const struct top_sample *s = NULL;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/proc", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/capture", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/capture/snapshots", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	write_file(dir, "proc/modules", "xfs 2375680 0 - Live 0x0000000000000000\n");
	write_file(dir, "capture/snapshots/modules.after-nowhere", "");
	assert_int_equal(kt_system_open(&(struct kt_system_opts){ .root = dir, .release = "6.12.0" },
					&st),
			 0);
	kt_system_open_module_tree(&st, false);
	assert_int_equal(top_replay_new(&st, 0, &tw, &fail, &rp), 0);
	assert_true(warned(&w, "nothing to replay"));
	assert_true(warned(&w, "'capture/snapshots/modules.after-nowhere': no step named by"));
	assert_int_equal(top_replay_sample(rp, 1, &s), 0);
	assert_true(s->finished);
	assert_int_equal(s->n_done, 0);
	/* the module the root lists is there at the end */
	assert_int_equal(s->n_mods, 1);
	assert_true(s->mods[0].present);
	assert_string_equal(s->mods[0].name, "xfs");
	top_replay_free(rp);

	/* a proc/modules it cannot read: no replay, and the file and line to say why */
	write_file(dir, "proc/modules", "junk\n");
	memset(&fail, 0, sizeof(fail));
	rp = NULL;
	assert_true(top_replay_new(&st, 0, &tw, &fail, &rp) < 0);
	assert_null(rp);
	assert_true(fail.has_err);
	assert_string_equal(fail.err.path, "proc/modules");
	assert_int_equal(fail.err.line, 1);
	kt_system_close(&st);
	remove_tree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replay_counts_as_report),
		cmocka_unit_test(test_replay_warns_caller),
	};

	/* the replay says nothing on stderr: what it lacks goes to the caller's callback */
	log_set_quiet(1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
