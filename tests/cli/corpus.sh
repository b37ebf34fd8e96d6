#!/bin/bash
# kmodtop ci on real kernel logs from public bug reports (tests/corpus): 100% precision
# and at least 95% recall against the hand annotations, per class and overall.
. "$TS_SRCDIR/lib/ts.sh"
ts_init corpus
ts_need python3

C=$TS_SRCDIR/corpus
python3 "$C/score.py" "$KMODTOP" "$C/logs" --quiet --refused="$C/refused-format" \
	>"$TS_OUTDIR/score" 2>&1 || { cat "$TS_OUTDIR/score"; ts_fail "corpus score"; }
cat "$TS_OUTDIR/score"

# the scorer itself: a finding the annotation lacks is a false positive, and fails
T=$TS_TMP
mkdir "$T/logs"
cp "$C/logs/003-smith-centos7.log" "$T/logs/"
grep -v '^taint ' "$C/logs/003-smith-centos7.expect" >"$T/logs/003-smith-centos7.expect"
python3 "$C/score.py" "$KMODTOP" "$T/logs" --quiet >"$T/out" 2>&1 &&
	ts_fail "score.py passed with an annotation that lacks a finding"
grep -q '^false positive.*taint smith' "$T/out" || ts_fail "score.py named no false positive"
# line by line: an annotation that moves one of a run's inner lines elsewhere (the
# count and the first and last line still agree) is a false positive and a miss
sed 's/^unknown-symbol smith 5$/unknown-symbol smith 8/' "$C/logs/003-smith-centos7.expect" \
	>"$T/logs/003-smith-centos7.expect"
python3 "$C/score.py" "$KMODTOP" "$T/logs" --quiet >"$T/out" 2>&1 &&
	ts_fail "score.py passed an annotation that names a line the finding does not list"
grep -q '^false positive.*unknown-symbol smith line 5$' "$T/out" &&
	grep -q '^miss.*unknown-symbol smith line 8$' "$T/out" ||
	ts_fail "score.py did not match the evidence line by line"
ts_finalize
