#!/bin/sh
# report, top and ci over the same capture count the same: for every fixture with a
# trace, `report -j`, `top --replay DIR --batch -j` (its last frame) and `ci --root DIR
# -j TRACE LOG` give the same load attempts, failed attempts, duplicate attempts and
# estimated waste, and one boot. Nothing is written down here: the three commands'
# outputs are compared with each other. A trace without a log (tracedat/, of the 6.1
# guest) is compared between report and ci. From the log alone, ci's attempts of a
# module that failed for missing symbols are loads, not lines: at most report's failed
# attempts of it less the idempotent waiters (which log nothing), far fewer than lines.
# A trace compressed, or on standard input, counts as the file does.
. "$TS_SRCDIR/lib/ts.sh"
ts_init agree
ts_need jq

# attempts failed duplicates wasted
R='[.load_attempts.total, .load_attempts.failed,
    ([.modules[]?.attempts.duplicate // empty] | add // 0),
    .load_attempts.wasted_vmap.estimated]'
T='[.attempts, .failed, .duplicates, .wasted_est_bytes]'
C='[.totals.attempts, .totals.failed, .totals.duplicates, .totals.wasted]'

n=0
for dir in "$FIXTURES"/*/; do
	dir=${dir%/}
	fx=${dir##*/}
	trace=$dir/sys/kernel/tracing/trace
	[ -f "$trace" ] || continue
	log=$dir/capture/kmsg.raw
	n=$((n + 1))
	ts_run --root "$dir" report -j
	ts_expect_rc 0 "$fx: report" || continue
	r=$(jq -c "$R" "$TS_TMP/out")
	jq -e '.load_attempts.inputs.kernel_log | test("kmsg.raw$")' "$TS_TMP/out" >/dev/null ||
		ts_fail "$fx: report did not read capture/kmsg.raw"
	cp "$TS_TMP/out" "$TS_TMP/$fx-report.json"
	ts_run top --replay "$dir" --speed 0 --batch -j
	ts_expect_rc 0 "$fx: top --replay" || continue
	t=$(tail -n 1 "$TS_TMP/out" | jq -c "$T")
	[ "$(tail -n 1 "$TS_TMP/out" | jq -r '.replay.finished')" = true ] ||
		ts_fail "$fx: top's last frame is not the replay's end"
	ts_run --root "$dir" ci -j "$trace" "$log"
	ts_expect_rc 0 "$fx: ci" || continue
	c=$(jq -c "$C" "$TS_TMP/out")
	boots=$(jq '.totals.boots' "$TS_TMP/out")
	[ "$r" = "$t" ] || ts_fail "$fx: report $r, top $t (attempts, failed, duplicates, wasted)"
	[ "$r" = "$c" ] || ts_fail "$fx: report $r, ci $c (attempts, failed, duplicates, wasted)"
	[ "$boots" = 1 ] || ts_fail "$fx: ci counts $boots boots in one capture"
	# the order they are given in does not matter
	ts_run --root "$dir" ci -j "$log" "$trace"
	[ "$(jq -c "$C + [.totals.boots]" "$TS_TMP/out")" = "$(echo "$c" | jq -c '. + [1]')" ] ||
		ts_fail "$fx: ci LOG TRACE differs from ci TRACE LOG"
	# a compressed trace (compressed here, by each tool that is installed) is read and
	# priced as report reads the file
	for z in zstd xz; do
		command -v $z >/dev/null 2>&1 || continue
		$z -c "$trace" >"$TS_TMP/trace.$z" || { ts_fail "$fx: $z failed"; continue; }
		ts_run --root "$dir" ci -j "$TS_TMP/trace.$z" "$log"
		ts_expect_rc 0 "$fx: ci over a $z trace" || continue
		[ "$(jq -c "$C + [.totals.boots]" "$TS_TMP/out")" = "$(echo "$r" | jq -c '. + [1]')" ] ||
			ts_fail "$fx: ci over a $z trace $(jq -c "$C" "$TS_TMP/out"), report $r"
		[ "$(jq -r '[.inputs[] | select(.format == "trace")][0].compression' "$TS_TMP/out")" = $z ] ||
			ts_fail "$fx: ci did not read the trace as $z"
	done
	# and a trace on standard input as the same file given by name
	ts_run --root "$dir" ci -j "$trace"
	named=$(jq -c "$C" "$TS_TMP/out")
	ts_run --root "$dir" ci -j - <"$trace"
	ts_expect_rc 0 "$fx: ci - <TRACE"
	[ "$(jq -c "$C" "$TS_TMP/out")" = "$named" ] ||
		ts_fail "$fx: ci - <TRACE $(jq -c "$C" "$TS_TMP/out"), ci TRACE $named"
	# a failing load gates on attempts: --max-failures at the figure passes, below fails
	failed=$(echo "$c" | jq '.[1]')
	ts_run --root "$dir" ci --max-failures="$failed" "$trace" "$log"
	ts_expect_rc 0 "$fx: --max-failures at report's failed attempts"
	ts_run --root "$dir" ci --max-failures=$((failed - 1)) "$trace" "$log"
	ts_expect_rc 1 "$fx: --max-failures one below report's failed attempts"

	# the log alone: loads of missing symbols as many as ran (report: failed - waiters)
	ts_run ci -j "$dir/capture/dmesg.txt"
	ts_expect_rc 0 "$fx: ci LOG" || continue
	for m in $(jq -r '.findings[] | select(.class == "unknown-symbol") | .module' "$TS_TMP/out"); do
		got=$(jq --arg m "$m" '[.findings[] | select(.class == "unknown-symbol" and .module == $m) | .attempts] | add' "$TS_TMP/out")
		want=$(jq --arg m "$m" '[.modules[]? | select(.name == $m) | .attempts | .failed - .idempotent_waiters] | add' \
			"$TS_TMP/$fx-report.json")
		lines=$(jq --arg m "$m" '[.findings[] | select(.class == "unknown-symbol" and .module == $m) | .evidence_lines] | add' "$TS_TMP/out")
		[ "$got" -ge 1 ] && [ "$got" -le "$want" ] && [ "$got" -lt "$lines" ] ||
			ts_fail "$fx: ci LOG says $got loads of $m in $lines lines, report's trace $want that ran"
	done
done
[ "$n" -ge 3 ] || ts_fail "only $n fixtures with a trace"

# a trace alone: report and ci
dat=$FIXTURES/tracedat/debian-6.1-storms.dat
if [ -f "$dat" ]; then
	ts_run --root "$FIXTURES/debian-6.1-plain" report -j --trace "$dat" --no-log
	ts_expect_rc 0 "tracedat: report" && r=$(jq -c "$R" "$TS_TMP/out")
	ts_run --root "$FIXTURES/debian-6.1-plain" ci -j "$dat"
	ts_expect_rc 0 "tracedat: ci" && c=$(jq -c "$C" "$TS_TMP/out")
	[ "$r" = "$c" ] || ts_fail "tracedat: report $r, ci $c (attempts, failed, duplicates, wasted)"
	[ "$(jq '.totals.boots' "$TS_TMP/out")" = 1 ] || ts_fail "tracedat: ci boots"
	ts_run --root "$FIXTURES/debian-6.1-plain" ci -j - <"$dat"
	ts_expect_rc 0 "tracedat: ci - <DAT" &&
		[ "$(jq -c "$C" "$TS_TMP/out")" = "$r" ] ||
		ts_fail "tracedat: report $r, ci - <DAT $(jq -c "$C" "$TS_TMP/out")"
fi

# one judgement of in-kernel decompression: a root with neither boot/config-R nor
# sys/module/compression (the kernel could decompress by its release: the attempts asked
# it to) is priced alike by the three
u=$TS_TMP/unconfigured
cp -r "$FIXTURES/debian-6.12-xz" "$u" && rm -f "$u"/boot/config-* "$u/sys/module/compression" ||
	ts_fail "copying debian-6.12-xz"
ts_run --root "$u" report -j
ts_expect_rc 0 "unconfigured: report" && r=$(jq -c "$R" "$TS_TMP/out")
ts_run top --replay "$u" --speed 0 --batch -j
ts_expect_rc 0 "unconfigured: top" && t=$(tail -n 1 "$TS_TMP/out" | jq -c "$T")
ts_run --root "$u" ci -j "$u/sys/kernel/tracing/trace" "$u/capture/kmsg.raw"
ts_expect_rc 0 "unconfigured: ci" && c=$(jq -c "$C" "$TS_TMP/out")
[ -n "$r" ] && [ "$r" = "$t" ] && [ "$r" = "$c" ] ||
	ts_fail "unconfigured root: report $r, top $t, ci $c (attempts, failed, duplicates, wasted)"
ts_ok
ts_finalize
