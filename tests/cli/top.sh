#!/bin/sh
# kmodtop top without a terminal: golden frames of each capture replayed (--batch), the
# replay clock and its snapshots, options, and kernel strings kept off the terminal.
. "$TS_SRCDIR/lib/ts.sh"
ts_init top
ts_need awk

# Golden frames: the end of each capture at 80x24 and 120x40, and one replay in steps
for fx in debian-6.1-plain debian-6.12-xz custom-6.12-modstats; do
	for size in 80x24 120x40; do
		ts_golden "top/$fx-$size.frame" top --replay "fixtures/$fx" --batch --iterations 1 \
			--speed 0 --size "$size"
	done
done
ts_golden "top/debian-6.12-xz-steps.frame" top --replay fixtures/debian-6.12-xz --batch \
	--iterations 4 --delay 20 --size 120x40

fx=$FIXTURES/debian-6.12-xz

# every frame is exactly the size asked for, and no line is wider
ts_run top --replay "$fx" --batch --iterations 3 --size 100x30
ts_expect_rc 0 "three frames"
[ "$(wc -l <"$TS_TMP/out")" = 90 ] || ts_fail "--iterations 3 at 100x30: $(wc -l <"$TS_TMP/out") lines, want 90"
awk '{ if (length($0) > 100) bad = 1 } END { exit bad }' "$TS_TMP/out" ||
	ts_fail "a line wider than --size"
[ -s "$TS_TMP/err" ] && ts_fail "--batch wrote to stderr: $(head -3 "$TS_TMP/err")"

# the replay follows the trace clock: frames 2 s of capture apart, ending at its end
ts_run top --replay "$fx" --batch --delay 20 --size 120x40
ts_expect_rc 0 "replay to the end"
first=$(awk '/^Replay/ { print $2; exit }' "$TS_TMP/out")
last=$(awk '/^Replay/ { t = $2 } END { print t }' "$TS_TMP/out")
end=$(awk '/^Replay/ { print $4; exit }' "$TS_TMP/out")
frames=$(grep -c '^Replay' "$TS_TMP/out")
want=$(awk -v a="$first" -v b="$end" 'BEGIN { n = int((b - a) / 2); if (a + 2 * n < b) n++; print n + 1 }')
[ "$frames" = "$want" ] || ts_fail "replay from $first to $end in 2 s steps: $frames frames, want $want"
[ "$last" = "$end" ] || ts_fail "replay did not end at the end of the capture ($last, $end)"
grep '(end of capture)' "$TS_TMP/out" >/dev/null || ts_fail "the last frame does not say the capture ended"
# the attempt count never goes down, and ends at the report's
awk '/^Attempts/ { if ($2 < prev) bad = 1; prev = $2 } END { exit bad }' "$TS_TMP/out" ||
	ts_fail "attempts went down during the replay"
attempts=$(awk '/^Attempts/ { n = $2 } END { print n }' "$TS_TMP/out")
if command -v jq >/dev/null 2>&1; then
	want=$("$KMODTOP" --root "$fx" report -j | jq '.load_attempts.total' 2>/dev/null)
	[ -z "$want" ] || [ "$attempts" = "$want" ] || ts_fail "replay ends with $attempts attempts, the report counts $want"
fi
# vmallocinfo steps from the boot snapshot through the one after the storm to the end
for from in 'from boot' 'from after-live-storm' 'from proc/vmallocinfo'; do
	grep "^Vmalloc.*$from" "$TS_TMP/out" >/dev/null || ts_fail "no frame with vmalloc $from"
done
ts_ok

# after the 6.12 capture, xfs tops the module table by wasted bytes
ts_run top --replay "$fx" --batch --speed 0 --size 120x40
row=$(awk '/^MODULE/ { getline; print $1; exit }' "$TS_TMP/out")
[ "$row" = xfs ] || ts_fail "the first module after replaying 6.12 is '$row', not xfs"
# --sort-key and --filter
ts_run top --replay "$fx" --batch --speed 0 --size 120x40 --sort-key module
row=$(awk '/^MODULE/ { getline; print $1; exit }' "$TS_TMP/out")
[ "$row" = af_key ] || ts_fail "--sort-key module: first row '$row'"
ts_run top --replay "$fx" --batch --speed 0 --size 120x40 -F 'sctp|vfat'
rows=$(awk '/^MODULE/ { on = 1; next } /^F1/ { on = 0 } on && NF { print $1 }' "$TS_TMP/out" | sort | tr '\n' ' ')
[ "$rows" = "sctp vfat " ] || ts_fail "--filter 'sctp|vfat': rows '$rows'"
# --root without --replay: the captured end state, proc read at every refresh
ts_run --root "$fx" top --batch --iterations 2 --size 120x40
ts_expect_rc 0 "--root polling"
grep '^Refresh' "$TS_TMP/out" >/dev/null || ts_fail "--root without --replay shows no refresh line"
grep '^xfs ' "$TS_TMP/out" >/dev/null || ts_fail "--root: the captured attempts are missing"
# ASCII only
ts_run top --replay "$fx" --batch --speed 0 --size 120x40 -U
LC_ALL=C grep -n "$(printf '[\200-\377]')" "$TS_TMP/out" >/dev/null && ts_fail "-U printed non-ASCII"
ts_ok

# Options
ts_run top --help
ts_expect_rc 0 "top --help"
grep 'Usage: kmodtop .*top' "$TS_TMP/out" >/dev/null || ts_fail "top --help text"
ts_run top --sort-key help
ts_expect_rc 0 "--sort-key help"
for k in module attempts wasted measured requester outcome; do
	grep "^$k " "$TS_TMP/out" >/dev/null || ts_fail "--sort-key help lacks $k"
done
ts_run top --replay "$fx" --batch --sort-key bogus
ts_expect_rc 2 "bad --sort-key"
ts_run top --replay "$fx" --batch --speed fast
ts_expect_rc 2 "bad --speed"
ts_run top --replay "$fx" --batch --size 10x5
ts_expect_rc 2 "--size too small"
ts_run top --replay "$fx" --batch --iterations 0
ts_expect_rc 2 "--iterations 0"
ts_run top --replay "$fx" --batch --delay x
ts_expect_rc 2 "bad --delay"
# 1 to 100 tenths, as the man page says: outside that refused, not clamped unsaid
for d in 0 101; do
	ts_run top --replay "$fx" --batch --iterations 1 -d "$d"
	ts_expect_rc 2 "-d $d"
	grep -F -- "--delay '$d'" "$TS_TMP/err" >/dev/null || ts_fail "-d $d: not said"
done
ts_run top --replay "$fx" --batch --iterations 1 --size 100x30 -d 100
ts_expect_rc 0 "-d 100"
ts_run top --replay "$fx"
ts_expect_rc 2 "top on a pipe without --batch"
grep 'terminal' "$TS_TMP/err" >/dev/null || ts_fail "no terminal: message does not say so"
ts_run top --replay "$TS_TMP/nonexistent" --batch
ts_expect_rc 1 "--replay of a missing directory"
# kmodtop with no command, not on a terminal: the report
ts_run --root "$fx"
ts_expect_rc 0 "no command on a pipe"
head -1 "$TS_TMP/out" | grep '^Summary' >/dev/null || ts_fail "no command on a pipe is not the report"

# A reader that goes away (| head -1): SIGPIPE is ignored and the failed write ends top,
# promptly and with 1, through the same path that tears a live instance down. The
# replay writes 190 KB of frames, past any pipe buffer, so the write fails every time.
t0=$(date +%s)
{
	timeout 60 "$KMODTOP" top --replay "$fx" --batch --delay 1 --size 120x40 2>"$TS_TMP/err"
	echo $? >"$TS_TMP/rc"
} | head -1 >"$TS_TMP/out"
t1=$(date +%s)
rc=$(cat "$TS_TMP/rc")
[ "$rc" = 1 ] || ts_fail "top --batch | head -1: exit status $rc, expected 1 (141: killed by SIGPIPE, 124: hung)"
[ $((t1 - t0)) -le 30 ] || ts_fail "top --batch | head -1 took $((t1 - t0)) s"
grep '^kmodtop ' "$TS_TMP/out" >/dev/null || ts_fail "top --batch | head -1: no first frame line"
printf 'kmodtop top: writing standard output: Broken pipe\n' | cmp -s - "$TS_TMP/err" ||
	{ ts_fail "top --batch | head -1: stderr is not the one line expected"; sed 's/^/  stderr: /' "$TS_TMP/err" | head -5; }
ts_ok

# Kernel strings reach the frame escaped: a module name and a comm with control bytes
r=$TS_TMP/hostile
mkdir -p "$r/proc/sys/kernel" "$r/sys/kernel/tracing"
printf 'ev\033]0;owned\007il 16384 0 - Live 0xffffffffc0000000\n' >"$r/proc/modules"
echo "6.12.0-test" >"$r/proc/sys/kernel/osrelease"
printf 'MemTotal:        2000000 kB\nVmallocTotal:   34359738367 kB\nVmallocUsed:        3476 kB\n' >"$r/proc/meminfo"
echo "0xffffffffc0000000-0xffffffffc0005000   20480 load_module+0x857/0x2470 pages=4 vmalloc N0=4" >"$r/proc/vmallocinfo"
{
	echo "# tracer: nop"
	printf '     bad\033[2Jcomm-157     [000] .....     4.500000: sys_finit_module(fd: 3, uargs: 5bfb41, flags: 0)\n'
	printf '     bad\033[2Jcomm-157     [000] .....     4.600000: module_load: ev\033]0;owned\007il\n'
	printf '     bad\033[2Jcomm-157     [000] .....     4.700000: sys_finit_module -> 0x0\n'
} >"$r/sys/kernel/tracing/trace"
ts_run top --replay "$r" --batch --speed 0 --size 120x40
ts_expect_rc 0 "hostile names"
if LC_ALL=C grep -n "$(printf '\033\|\007')" "$TS_TMP/out" >/dev/null; then
	ts_fail "a control character from the kernel reached the frame"
fi
grep -F 'ev\x1b]0;owned\x07il' "$TS_TMP/out" >/dev/null || ts_fail "the module name is not shown escaped"
ts_ok

# no_module_support_as_report: a root without proc/modules is a kernel without module
# support for top --replay as for report --root (exit 4, one line), not an empty replay
e=$TS_TMP/no-modules
mkdir -p "$e/proc/sys/kernel"
echo "6.12.0-test" >"$e/proc/sys/kernel/osrelease"
ts_run --root "$e" report
report_rc=$TS_RC
ts_run top --replay "$e" --batch --size 120x24
[ "$report_rc" = 4 ] && [ "$TS_RC" = "$report_rc" ] ||
	ts_fail "no proc/modules: report exits $report_rc, top --replay $TS_RC (both 4)"
grep -q 'no module support' "$TS_TMP/err" || ts_fail "no proc/modules: top does not say why"
ts_ok

# replay_skips_idle_stretches: one trace line far after the others costs a few frames,
# not one per refresh across the gap (666,665 at 999999 s, 6.7e8 at 999999999 s)
for far in 999999 999999999; do
	g=$TS_TMP/gap-$far
	mkdir -p "$g/proc/sys/kernel" "$g/sys/kernel/tracing"
	echo "6.12.0-test" >"$g/proc/sys/kernel/osrelease"
	: >"$g/proc/modules"
	{
		echo "# tracer: nop"
		echo "        modprobe-157     [000] .....     4.500000: sys_finit_module(fd: 3, uargs: 5bfb41, flags: 0)"
		echo "        modprobe-157     [000] .....     4.600000: module_load: gapmod"
		echo "        modprobe-157     [000] .....     4.700000: sys_finit_module -> 0x0"
		echo "        modprobe-158     [000] .....     $far.000000: sys_finit_module(fd: 3, uargs: 5bfb41, flags: 0)"
	} >"$g/sys/kernel/tracing/trace"
	timeout 60 "$KMODTOP" top --replay "$g" --batch --size 120x24 >"$TS_TMP/out" 2>"$TS_TMP/err"
	rc=$?
	[ "$rc" = 0 ] || ts_fail "replay with a line at $far s: exit status $rc (124: still printing frames)"
	frames=$(grep -c '^Replay' "$TS_TMP/out")
	[ "$frames" -le 20 ] || ts_fail "replay with a line at $far s: $frames frames, want a few"
	grep "^Replay *$far.00 / $far.00 s.*idle skipped.*(end of capture)" "$TS_TMP/out" >/dev/null ||
		ts_fail "replay with a line at $far s: no last frame at its end saying the idle time was skipped"
	grep '^Attempts 1 ' "$TS_TMP/out" >/dev/null || ts_fail "replay with a line at $far s: the attempt before the gap is not shown"
done
ts_ok

# first_frame_has_no_rate: --root without --replay reads the captured history before
# its first refresh; a rate over that near-zero interval (4,245,104 attempts/s) is none
ts_run --root "$fx" top --batch --iterations 2 --delay 1 --size 120x40
ts_expect_rc 0 "--root polling, two refreshes"
awk '/^Attempts/ { n++; if (n == 1) print }' "$TS_TMP/out" | grep '^Attempts [1-9][0-9]* (-/s)' >/dev/null ||
	ts_fail "the first --root frame has a rate: $(grep -m1 '^Attempts' "$TS_TMP/out")"
awk '/^Wasted/ { n++; if (n == 1) print }' "$TS_TMP/out" | grep 'est\. [^ ]* (-/s)' >/dev/null ||
	ts_fail "the first --root frame has a byte rate: $(grep -m1 '^Wasted' "$TS_TMP/out")"
awk '/^Attempts/ { n++; if (n == 2) print }' "$TS_TMP/out" | grep '^Attempts [1-9][0-9]* (0\.0/s)' >/dev/null ||
	ts_fail "the second --root frame is not a rate of 0: $(awk '/^Attempts/ { n++; if (n == 2) print }' "$TS_TMP/out")"
ts_ok

# batch_frames_have_no_key_bar: nothing can be pressed in --batch, so no F-key bar
ts_run top --replay "$fx" --batch --iterations 2 --size 100x30
ts_expect_rc 0 "batch frames"
grep -E 'F10Quit|F1Help' "$TS_TMP/out" >/dev/null && ts_fail "--batch frames carry the function-key bar"
ts_ok

# batch_json_lines: -j makes each frame one JSON line, with the text frame's numbers
ts_run -j top --replay "$fx" --batch --delay 20 --size 120x40
ts_expect_rc 0 "--batch -j"
"$KMODTOP" top --replay "$fx" --batch --delay 20 --size 120x40 >"$TS_TMP/text" 2>/dev/null
if command -v python3 >/dev/null 2>&1; then
	python3 - "$TS_TMP/out" "$TS_TMP/text" <<'PY' || ts_fail "--batch -j is not JSON Lines with the text frames' numbers"
import json, re, sys
frames = [json.loads(line) for line in open(sys.argv[1])]
text = open(sys.argv[2]).read()
att = [int(m) for m in re.findall(r"^Attempts (\d+)", text, re.M)]
fail = [int(m) for m in re.findall(r"  failed (\d+)", text, re.M)]
dup = [int(m) for m in re.findall(r"  duplicates (\d+)", text, re.M)]
assert len(frames) == len(att) > 2, (len(frames), len(att))
assert [f["attempts"] for f in frames] == att
assert [f["failed"] for f in frames] == fail
assert [f["duplicates"] for f in frames] == dup
last = frames[-1]
assert last["replay"]["finished"] is True
assert last["rows"][0]["module"] == "xfs", last["rows"][0]
# the last text frame's rows: MODULE STATE SIZE ATTEMPTS DUP FAIL, as the JSON says
rows = re.findall(r"^(\S+) +(?:live|-) +\S+ +(\d+) +(\d+) +(\d+) ", text.split("\nMODULE")[-1], re.M)
assert len(rows) > 3, rows
for (name, a, d, f), j in zip(rows, last["rows"]):
    assert (name, int(a), int(d), int(f)) == (j["module"], j["attempts"], j["dup"], j["fail"]), (name, j)
assert last["rows_total"] == len(last["rows"]) > 0
PY
fi
ts_run -j top --replay "$fx" --iterations 1
ts_expect_rc 2 "--json without --batch"
grep 'kmodtop top: .*--batch' "$TS_TMP/err" >/dev/null || ts_fail "--json without --batch: no message naming --batch"
ts_ok

# batch_color: --color=always colours the frame (SGR), never and a pipe do not
esc=$(printf '\033')
ts_run --color=always top --replay "$fx" --batch --iterations 1 --speed 0 --size 100x30
ts_expect_rc 0 "--batch --color=always"
grep "$esc\[[0-9;]*m" "$TS_TMP/out" >/dev/null || ts_fail "--color=always: no SGR in the frame"
[ "$(sed "s/$esc\[[0-9;]*m//g" "$TS_TMP/out" | grep -c "$esc")" = 0 ] || ts_fail "--color=always: an escape that is not SGR"
sed "s/$esc\[[0-9;]*m//g; s/ *\$//" "$TS_TMP/out" >"$TS_TMP/plain"
"$KMODTOP" top --replay "$fx" --batch --iterations 1 --speed 0 --size 100x30 >"$TS_TMP/nocolor" 2>/dev/null
cmp -s "$TS_TMP/plain" "$TS_TMP/nocolor" || ts_fail "--color=always: the frame without its SGR is not the plain frame"
for c in never auto; do
	ts_run --color=$c top --replay "$fx" --batch --iterations 1 --speed 0 --size 100x30
	grep "$esc" "$TS_TMP/out" >/dev/null && ts_fail "--color=$c to a pipe: escapes in the frame"
done
ts_run top --replay "$fx" --batch --iterations 1 --speed 0 --size 100x30 --color=always -C
grep "$esc" "$TS_TMP/out" >/dev/null && ts_fail "-C after --color=always: escapes in the frame"
ts_ok

ts_finalize
