#!/bin/sh
# A module request whose name ends in a newline (snd_hda_codec asks for its modalias text,
# "hdaudio:v...\n"): the trace prints the name as it is, so the request's fields follow
# on a line of their own. The request is counted, its name kept with the newline, and
# every output escapes it.
. "$TS_SRCDIR/lib/ts.sh"
ts_init request-newline
ts_need python3 awk

FIX=$FIXTURES/debian-6.12-xz
ft=$FIX/sys/kernel/tracing/trace
awk '{ print } /crypto-crc32c-all wait=1/ && !done {
	print "     kworker/1:2-88      [001] .....     4.795100: module_request: hdaudio:v1AF40022r00100101a01"
	print " wait=1 call_site=hda_codec_driver_probe+0x8b/0x1c0 [snd_hda_codec]"
	done = 1 }' "$ft" >"$TS_TMP/nl.trace"
[ "$(($(wc -l <"$ft") + 2))" = "$(wc -l <"$TS_TMP/nl.trace")" ] || ts_fail "request not put in the trace"

ts_run --root "$FIX" report --no-log --trace "$ft" -j
ts_expect_rc 0 "report of the trace" || ts_finalize
cp "$TS_TMP/out" "$TS_TMP/base.json"
ts_run --root "$FIX" report --no-log --trace "$TS_TMP/nl.trace" -j
ts_expect_rc 0 "report -j" || ts_finalize
[ -s "$TS_TMP/err" ] && ts_fail "report -j: stderr: $(head -c 300 "$TS_TMP/err")"
python3 - "$TS_TMP/base.json" "$TS_TMP/out" <<'PY' || ts_fail "report -j: the request is not counted with its name"
import json, sys
base = json.load(open(sys.argv[1]))
d = json.load(open(sys.argv[2]))
rows = [a for a in d["autoload"] if a["alias"].startswith("hdaudio:")]
assert [(a["alias"], a["call_site"], a["requests"]) for a in rows] == \
    [("hdaudio:v1AF40022r00100101a01\n", "hda_codec_driver_probe", 1)], rows
assert d["load_attempts"]["autoload_requests"] == base["load_attempts"]["autoload_requests"] + 1
assert d["load_attempts"]["inputs"]["trace_malformed_lines"] == 0
PY
ts_ok

# the text report and OpenMetrics: the newline escaped, never a line break in a row
ts_run --root "$FIX" report --no-log --trace "$TS_TMP/nl.trace"
ts_expect_rc 0 "report" || ts_finalize
grep -F 'hdaudio:v1AF40022r00100101a01\x0a  hda_codec_driver_probe' "$TS_TMP/out" >/dev/null ||
	ts_fail "report: the name not escaped: $(grep -A1 hdaudio "$TS_TMP/out" | head -2)"
ts_ok
ts_run --root "$FIX" report --no-log --trace "$TS_TMP/nl.trace" --openmetrics
ts_expect_rc 0 "report --openmetrics" || ts_finalize
grep -F 'alias="hdaudio:v1AF40022r00100101a01\\x0a",call_site="hda_codec_driver_probe"' "$TS_TMP/out" >/dev/null ||
	ts_fail "openmetrics: the name not escaped: $(grep hdaudio "$TS_TMP/out" | head -2)"
grep -n '^ wait=' "$TS_TMP/out" >/dev/null && ts_fail "openmetrics: a label broke its line"
ts_ok

ts_finalize
