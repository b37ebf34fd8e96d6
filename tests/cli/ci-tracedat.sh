#!/bin/sh
# kmodtop ci on trace-cmd's binary trace.dat, told by its magic bytes as report tells
# it: the same boots, findings and totals as the tracefs text of the same run (the
# 6.1 guest's storms, tests/fixtures/tracedat/), no NUL-byte warnings, never "nothing
# to analyse"; one that libtracecmd cannot read, or that comes through a pipe or a
# decompressor (libtracecmd seeks), is an error naming the input.
. "$TS_SRCDIR/lib/ts.sh"
ts_init ci-tracedat
ts_need jq xz

DAT=$FIXTURES/tracedat/debian-6.1-storms.dat
TXT=$FIXTURES/tracedat/debian-6.1-storms.txt
# what does not depend on the input's name or numbering (lines in text, events in .dat)
Q='[(.totals | del(.inputs)), .result,
    [.findings[] | {c: .class, m: .module, n: .attempts, e: .evidence_lines, r: .requester, w: .wasted}],
    [.boots[] | {attempts, duplicates, failed, wasted, summary}]]'

ts_run ci -j "$DAT"
ts_expect_rc 0 "ci trace.dat" && cp "$TS_TMP/out" "$TS_TMP/dat.json"
[ -s "$TS_TMP/err" ] && ts_fail "ci trace.dat warned: $(head -3 "$TS_TMP/err")"
ts_run ci -j "$TXT"
ts_expect_rc 0 "ci tracefs text" && cp "$TS_TMP/out" "$TS_TMP/txt.json"
a=$(jq -c "$Q" "$TS_TMP/dat.json") b=$(jq -c "$Q" "$TS_TMP/txt.json")
[ -n "$a" ] && [ "$a" = "$b" ] || ts_fail "ci: trace.dat and its text differ: $a / $b"
[ "$(jq -r '.inputs[0].format' "$TS_TMP/dat.json")" = trace-dat ] ||
	ts_fail "ci trace.dat: format $(jq -r '.inputs[0].format' "$TS_TMP/dat.json")"
[ "$(jq '.totals.failed + .totals.duplicates' "$TS_TMP/dat.json")" -gt 0 ] ||
	ts_fail "ci trace.dat: no failed or duplicate load found"
[ "$(jq -r '.result' "$TS_TMP/dat.json")" != empty ] || ts_fail "ci trace.dat: nothing to analyse"
# the evidence of a trace.dat is its events, numbered from 1
bad=$(jq -r --argjson n "$(jq '.inputs[0].records' "$TS_TMP/dat.json")" \
	'.findings[] | select(.first_line < 1 or .last_line > $n or .first_line > .last_line) | .class' \
	"$TS_TMP/dat.json")
[ -z "$bad" ] || ts_fail "ci trace.dat: evidence outside its events: $bad"
ts_ok

# text output too, and the file named once among the inputs
ts_run ci "$DAT"
ts_expect_rc 0 "ci trace.dat (text)"
grep -q 'nothing to analyse\|NUL' "$TS_TMP/out" "$TS_TMP/err" && ts_fail "ci trace.dat (text): $(head -3 "$TS_TMP/out")"
grep -q "debian-6.1-storms.dat *trace-dat" "$TS_TMP/out" || ts_fail "ci trace.dat (text): no trace-dat input row"

# what libtracecmd cannot read: exit 2, the input named, no crash
head -c 70000 "$DAT" >"$TS_TMP/truncated.dat"
printf '\027\010\104tracing6\000garbage after the magic' >"$TS_TMP/garbage.dat"
for f in truncated garbage; do
	ts_run ci "$TS_TMP/$f.dat"
	ts_expect_rc 2 "ci $f trace.dat"
	grep -F "$f.dat" "$TS_TMP/err" >/dev/null || ts_fail "ci $f trace.dat: stderr does not name it: $(cat "$TS_TMP/err")"
	grep -q 'Segmentation\|Aborted' "$TS_TMP/err" && ts_fail "ci $f trace.dat: crashed"
done
# standard input redirected from the file is read; through a pipe or a decompressor
# it cannot be (libtracecmd seeks): said so, not read as text
ts_run ci -j - <"$DAT"
ts_expect_rc 0 "ci - <trace.dat"
[ "$(jq -c "$Q" "$TS_TMP/out")" = "$a" ] || ts_fail "ci - <trace.dat differs from ci trace.dat"
cat "$DAT" | "$KMODTOP" ci - >"$TS_TMP/out" 2>"$TS_TMP/err"
TS_RC=$?
ts_expect_rc 2 "ci trace.dat from a pipe"
grep -q "'-': a trace.dat .*pipe" "$TS_TMP/err" || ts_fail "ci trace.dat from a pipe: $(cat "$TS_TMP/err")"
xz -c "$DAT" >"$TS_TMP/storms.dat.xz"
ts_run ci "$TS_TMP/storms.dat.xz"
ts_expect_rc 2 "ci trace.dat.xz"
grep -q "storms.dat.xz': a trace.dat .*compressed" "$TS_TMP/err" ||
	ts_fail "ci trace.dat.xz: $(cat "$TS_TMP/err")"
ts_finalize
