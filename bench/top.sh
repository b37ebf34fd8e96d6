#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/top.sh — what one refresh of `kmodtop top` costs on a large machine (issue 6).
#
#	bench/top.sh [SECONDS]		default 20 seconds of generated trace
#
# Generates a root in $BENCH_DIR (default a temporary directory): 2,000 modules in
# proc/modules, 100,000 lines of proc/vmallocinfo (three areas per module, the rest
# stacks, ioremaps and vmalloc buffers), and a trace with 10,000 events per second
# (finit_module enters and exits, module_load, module_request) for SECONDS seconds.
# Then, with valgrind --tool=callgrind (user-space instructions; --dump-after splits
# them per refresh):
#
#   poll refresh     kmodtop --root GEN top --batch: proc/modules, proc/vmallocinfo and
#                    proc/meminfo read and parsed, the model updated, a 200x50 frame
#                    drawn (steady state: the 2nd and later refreshes)
#   changed refresh  the same when a module loaded since the previous refresh: a line
#                    more in proc/modules, three in proc/vmallocinfo (which is then
#                    re-parsed where it changed)
#   replay refresh   kmodtop top --replay GEN --batch --delay 15: 1.5 s of trace (15,000
#                    events) taken into the model, a frame drawn
#   trace parsing    the trace parsed into the ledger at start-up, per 1.5 s of events
#   cat              cat of proc/modules, proc/vmallocinfo, proc/meminfo and 1.5 s of
#                    trace, and the same with cat -v (which looks at every byte)
#
# A live refresh is the poll refresh + the live stream's refresh + the replay refresh.
# Live top reads only what the spools gained since the last refresh into one ledger
# (session/collect.c collect_stream, cmd/top.c live_update), and ledger_settle() decides again
# the attempts of the last second or three, not settled yet. bench/livestream does
# that without a kernel: the trace appended to an in-memory spool 1.5 s of events at a
# time, the stream fed and settled after each (one callgrind dump per refresh). Its
# first and last refresh show whether a refresh grows with the history. The "whole
# trace parsed" line is what a refresh cost before, when live top re-read the whole
# trace so far at every rebuild: it grows with SECONDS of this storm.
# When proc/modules changed, the changed refresh stands for the poll refresh.
# (The target of at most 2x the instructions of cat of the same files is shown but no
# longer counted: issue 20 replaced it with bench/live-vm.sh's.) Then the CPU time of
# the interactive view at the default delay (1.5 s) over CPU_SECONDS (default 30) in
# tmux with nothing coming, plus what the storm adds (the live stream's CPU time per
# refresh, measured natively by bench/livestream, and the model's), against the target
# of 1% of one core.
#
# Exit status 0 when the 1% target is met, 1 when it is missed, 77 when valgrind or
# tmux is missing.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
BUILDDIR=${BUILDDIR:-$top}
KMODTOP=${KMODTOP:-$BUILDDIR/src/kmodtop}
SECONDS_OF_TRACE=${1:-20}
CPU_SECONDS=${CPU_SECONDS:-30}
MODULES=2000
VMALLOC_LINES=100000
EVENTS_PER_S=10000

command -v valgrind >/dev/null 2>&1 || { echo "SKIP: valgrind not installed"; exit 77; }
command -v callgrind_annotate >/dev/null 2>&1 || { echo "SKIP: callgrind_annotate not installed"; exit 77; }
[ -x "$KMODTOP" ] || { echo "SKIP: no $KMODTOP (build first, or set KMODTOP)"; exit 77; }
[ -x "$BUILDDIR/bench/livestream" ] || { echo "SKIP: no $BUILDDIR/bench/livestream (make bench/livestream)"; exit 77; }

if [ -n "${BENCH_DIR:-}" ]; then
	work=$BENCH_DIR
	mkdir -p "$work"
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/kmodtop-bench.XXXXXX")
	trap 'rm -rf "$work"' EXIT
fi
gen=$work/root
export XDG_CACHE_HOME=$work/cache

# --- the generated root ------------------------------------------------------------
gen_root() {
	rm -rf "$gen"
	mkdir -p "$gen/proc/sys/kernel" "$gen/sys/kernel/tracing" "$gen/capture"
	# 6.1: before idempotent finit_module; the ledger's waiter search, quadratic in the
	# attempts, would otherwise dominate the start-up (not a refresh)
	echo "6.1.0-bench" >"$gen/proc/sys/kernel/osrelease"
	echo 0 >"$gen/proc/sys/kernel/tainted"
	awk -v n="$MODULES" 'BEGIN {
		base = 18446744072635809792	# 0xffffffffc0000000
		for (i = 0; i < n; i++)
			printf "mod%04d %d %d - Live 0x%x\n", i, 16384 + (i % 64) * 4096, i % 3, base + i * 1048576
	}' >"$gen/proc/modules"
	awk -v n="$MODULES" -v lines="$VMALLOC_LINES" 'BEGIN {
		srand(1)
		addr = 18446744072635809792
		for (i = 0; i < n; i++) {
			# text, data, rodata: one area each, plus the guard page
			for (k = 0; k < 3; k++) {
				pages = 1 + (i + k) % 8
				printf "0x%016x-0x%016x %8d load_module+0x857/0x2470 pages=%d vmalloc N0=%d\n",
					addr, addr + (pages + 1) * 4096, (pages + 1) * 4096, pages, pages
				addr += (pages + 1) * 4096
			}
		}
		v = 18446683600570023936	# 0xffffc90000000000
		for (j = n * 3; j < lines; j++) {
			r = j % 4
			if (r == 0)
				printf "0x%016x-0x%016x %8d alloc_thread_stack_node+0x1c6/0x2d0 pages=4 vmalloc N0=4\n", v, v + 20480, 20480
			else if (r == 1)
				printf "0x%016x-0x%016x %8d acpi_os_map_iomem+0x1a9/0x1e0 phys=0x%016x ioremap\n", v, v + 8192, 8192, 2147483648 + j * 4096
			else if (r == 2)
				printf "0x%016x-0x%016x %8d bpf_prog_alloc_no_stats+0x4c/0x2a0 pages=1 vmalloc N0=1\n", v, v + 8192, 8192
			else
				printf "0x%016x-0x%016x %8d kvmalloc_node_noprof+0x5b/0x120 pages=%d vmalloc vpages N0=%d\n", v, v + 69632, 69632, 16, 16
			v += 69632
		}
	}' >"$gen/proc/vmallocinfo"
	printf 'MemTotal:       263000000 kB\nVmallocTotal:   34359738367 kB\nVmallocUsed:      %d kB\nVmallocChunk:          0 kB\n' \
		"$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^pages=/) { split($i, a, "="); s += a[2] } } END { print s * 4 }' "$gen/proc/vmallocinfo")" \
		>"$gen/proc/meminfo"
	# The trace: finit_module storms over the 2,000 modules (bench/storm-trace.awk)
	awk -v secs="$SECONDS_OF_TRACE" -v rate="$EVENTS_PER_S" -v n="$MODULES" \
		-f "$here/storm-trace.awk" >"$gen/sys/kernel/tracing/trace"
	# a window of 1.5 s of it, for cat
	awk -v from=101 -v to=102.5 'NR > 2 { split($0, a, ": "); n = split(a[1], b, " "); ts = b[n] + 0; if (ts >= from && ts < to) print }' \
		"$gen/sys/kernel/tracing/trace" >"$work/trace-1.5s"
}

echo "== generating the root ($MODULES modules, $VMALLOC_LINES vmallocinfo lines, $SECONDS_OF_TRACE s at $EVENTS_PER_S events/s)"
gen_root
printf '   proc/modules %s lines, proc/vmallocinfo %s lines, trace %s lines (%s bytes), 1.5 s window %s lines\n' \
	"$(wc -l <"$gen/proc/modules")" "$(wc -l <"$gen/proc/vmallocinfo")" \
	"$(wc -l <"$gen/sys/kernel/tracing/trace")" "$(wc -c <"$gen/sys/kernel/tracing/trace")" \
	"$(wc -l <"$work/trace-1.5s")"

# ir FILE: total instructions of a callgrind output file
ir() {
	callgrind_annotate "$1" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }'
}

# frames PREFIX: the instructions of each dump (one per refresh), in order
frames() {
	for f in $(ls "$1".* 2>/dev/null | sort -V); do
		ir "$f"
	done
}

cg() {
	out=$1
	shift
	valgrind --tool=callgrind --callgrind-out-file="$out" "$@" >/dev/null 2>"$out.log"
}

# need WHAT VALUE...: each VALUE a positive number, or what was measured did not run (a
# kmodtop that exits at once costs nearly nothing: that is no pass)
need() {
	what=$1
	shift
	for v in "$@"; do
		awk -v v="${v:-0}" 'BEGIN { exit !(v + 0 > 0) }' && continue
		echo "   NOT met: $what: no result (did not run)"
		exit 1
	done
}

# dumps PREFIX N: at least N refreshes dumped, or top did not draw them
dumps() {
	[ "$(ls "$1".[0-9]* 2>/dev/null | wc -l)" -ge "$2" ] && return 0
	echo "   NOT met: $(basename "$1"): fewer than $2 refreshes (did not run; see $1.log)"
	exit 1
}

echo "== callgrind"
rm -f "$work"/cg.*
# poll: 4 refreshes, each dumped on its own
cg "$work/cg.poll" --dump-after=top_loop_batch_frame \
	"$KMODTOP" --root "$gen" top --batch --iterations 4 --size 200x50 --no-cache
dumps "$work/cg.poll" 4
poll=$(frames "$work/cg.poll" | sed -n '2,4p' | awk '{ s += $1; n++ } END { printf "%.0f", s / n }')
# replay: 1.5 s of trace per refresh (the first frame is the start: nothing yet)
cg "$work/cg.replay" --dump-after=top_loop_batch_frame --dump-before=top_loop_run \
	"$KMODTOP" top --replay "$gen" --batch --iterations 5 --delay 15 --size 200x50 --no-cache
dumps "$work/cg.replay" 5
set -- $(frames "$work/cg.replay")
startup=$1
shift 2
replay=$(printf '%s\n' "$@" | awk '{ s += $1; n++ } END { printf "%.0f", s / n }')
# the trace parser and the ledger, alone: what a live refresh spends on 1.5 s of events
cg "$work/cg.parse" --toggle-collect=ktrace_events_read_file \
	"$KMODTOP" top --replay "$gen" --batch --iterations 1 --speed 0 --size 200x50 --no-cache
parse=$(awk -v s="$(ir "$work/cg.parse")" -v secs="$SECONDS_OF_TRACE" 'BEGIN { printf "%.0f", s / secs * 1.5 }')
# proc/modules and proc/vmallocinfo parsed whole: the first refresh
cg "$work/cg.vm" --toggle-collect=vmallocinfo_reread \
	"$KMODTOP" --root "$gen" top --batch --iterations 1 --size 200x50 --no-cache
# proc_modules_read_file runs twice under --root: the history's copy, the first refresh
cg "$work/cg.pm" --toggle-collect=proc_modules_read_file \
	"$KMODTOP" --root "$gen" top --batch --iterations 1 --size 200x50 --no-cache
fullparse=$(awk -v v="$(ir "$work/cg.vm")" -v m="$(ir "$work/cg.pm")" 'BEGIN { printf "%.0f", v + m / 2 }')
# a poll refresh when proc/modules changed: between the 1st and the 2nd refresh a module
# loads (a line at the top of proc/modules, its three areas inside vmallocinfo)
cp "$gen/proc/modules" "$work/modules.orig"
cp "$gen/proc/vmallocinfo" "$work/vmallocinfo.orig"
valgrind --tool=callgrind --callgrind-out-file="$work/cg.change" --dump-after=top_loop_batch_frame \
	"$KMODTOP" --root "$gen" top --batch --iterations 3 --delay 50 --size 200x50 --no-cache \
	>"$work/change.out" 2>"$work/cg.change.log" &
cgpid=$!
end=$(($(date +%s) + 120))
until [ -s "$work/cg.change.1" ] || [ "$(date +%s)" -gt "$end" ]; do
	sleep 0.2
done
{ echo "modnew 16384 0 - Live 0xffffffffc7d00000"; cat "$work/modules.orig"; } >"$gen/proc/modules.new"
awk 'NR == 3001 {
	printf "0x%016x-0x%016x %8d load_module+0x857/0x2470 pages=3 vmalloc N0=3\n", 18446744072770027520, 18446744072770043904, 16384
	printf "0x%016x-0x%016x %8d load_module+0x857/0x2470 pages=1 vmalloc N0=1\n", 18446744072770043904, 18446744072770052096, 8192
	printf "0x%016x-0x%016x %8d load_module+0x857/0x2470 pages=1 vmalloc N0=1\n", 18446744072770052096, 18446744072770060288, 8192
} { print }' "$work/vmallocinfo.orig" >"$gen/proc/vmallocinfo.new"
mv "$gen/proc/vmallocinfo.new" "$gen/proc/vmallocinfo"
mv "$gen/proc/modules.new" "$gen/proc/modules"
wait "$cgpid" || true
dumps "$work/cg.change" 2
changed=$(ir "$work/cg.change.2")
cp "$work/modules.orig" "$gen/proc/modules"
cp "$work/vmallocinfo.orig" "$gen/proc/vmallocinfo"
cg "$work/cg.cat" cat "$gen/proc/modules" "$gen/proc/meminfo" "$work/trace-1.5s"
cat_ir=$(ir "$work/cg.cat")
cg "$work/cg.catall" cat "$gen/proc/modules" "$gen/proc/vmallocinfo" "$gen/proc/meminfo" "$work/trace-1.5s"
catall_ir=$(ir "$work/cg.catall")
cg "$work/cg.catv" cat -v "$gen/proc/modules" "$gen/proc/meminfo" "$work/trace-1.5s"
catv_ir=$(ir "$work/cg.catv")
# live top's stream: 1.5 s of events (15,000 lines) appended, fed and settled per refresh
cg "$work/cg.stream" --dump-after=bench_refresh \
	"$BUILDDIR/bench/livestream" "$gen/sys/kernel/tracing/trace" $((EVENTS_PER_S * 3 / 2))
set -- $(frames "$work/cg.stream")
stream_first=$1
stream_n=$#
# the steady state: every refresh but the first and the last (the rest of the trace)
stream=$(printf '%s\n' "$@" | sed '1d;$d' | awk '{ s += $1; n++ } END { printf "%.0f", n ? s / n : 0 }')
stream_max=$(printf '%s\n' "$@" | sed '1d;$d' | sort -n | tail -n 1)
stream_last=$(printf '%s\n' "$@" | sed '$d' | tail -n 1)
need "instructions (poll, replay, parse, changed, stream)" "$poll" "$replay" "$parse" \
	"$(ir "$work/cg.vm")" "$(ir "$work/cg.pm")" "$changed" "$stream" "$cat_ir"
live=$(awk -v a="$poll" -v b="$stream" -v c="$replay" 'BEGIN { printf "%.0f", a + b + c }')
live_changed=$(awk -v a="$changed" -v b="$stream" -v c="$replay" 'BEGIN { printf "%.0f", a + b + c }')

awk -v poll="$poll" -v parse="$parse" -v replay="$replay" -v live="$live" -v cat="$cat_ir" \
	-v catv="$catv_ir" -v startup="$startup" -v fullparse="$fullparse" -v changed="$changed" \
	-v livec="$live_changed" -v whole="$(ir "$work/cg.parse")" -v secs="$SECONDS_OF_TRACE" \
	-v stream="$stream" -v sfirst="$stream_first" -v slast="$stream_last" -v smax="$stream_max" \
	-v sn="$stream_n" \
	-v catall="$catall_ir" 'BEGIN {
	printf "   poll refresh, nothing changed:             %12.0f instructions\n", poll
	printf "     proc/modules and vmallocinfo parsed whole: %10.0f (the first refresh)\n", fullparse
	printf "   poll refresh, proc/modules changed:        %12.0f (a module loaded)\n", changed
	printf "   trace parsed, 1.5 s of events:             %12.0f\n", parse
	printf "   1.5 s of events into the model, a frame:   %12.0f\n", replay
	printf "   replay start-up (the whole trace, once):   %12.0f\n", startup
	printf "   live stream, 1.5 s of events fed, settled: %12.0f (mean of %d; the first %.0f, the last whole one %.0f, max %.0f)\n", stream, sn - 2, sfirst, slast, smax
	printf "   live refresh (poll + stream + model):      %12.0f\n", live
	printf "     cat of modules, meminfo, 1.5 s of trace: %12.0f   ratio %.1fx\n", cat, live / cat
	printf "     cat -v of the same:                      %12.0f   ratio %.2fx\n", catv, live / catv
	printf "   whole trace parsed after %3d s of storm:    %12.0f (a live refresh before it was incremental)\n", secs, whole
	printf "   live refresh when proc/modules changed:    %12.0f\n", livec
	printf "     cat of those and vmallocinfo:            %12.0f   ratio %.1fx\n", catall, livec / catall
}'
ok=0
# Issue 20 replaced the target of 2x cat's instructions, which no text parser meets:
# live tracing reads the raw ring buffers, held to 0.5x trace-cmd's CPU by
# bench/live-vm.sh. Shown, not counted.
awk -v l="$live" -v c="$cat_ir" 'BEGIN { exit !(l <= 2 * c) }' ||
	echo "   (live refresh > 2x cat: the old target, replaced by bench/live-vm.sh's)"

# --- CPU at the default delay ---------------------------------------------------------
if command -v tmux >/dev/null 2>&1; then
	echo "== CPU at the default delay, $CPU_SECONDS s in tmux (200x50)"
	sock=$work/tmux.sock
	tmux -S "$sock" -f /dev/null new-session -d -s bench -x 200 -y 50 \
		"'$KMODTOP' --root '$gen' top --no-cache; sleep 600"
	pid=
	end=$(($(date +%s) + 30))
	while [ -z "$pid" ] && [ "$(date +%s)" -le "$end" ]; do
		pid=$(ps -o pid= --ppid "$(tmux -S "$sock" display -p -t bench '#{pane_pid}')" | tr -d ' ' | head -1)
	done
	# wait until it shows its first frame: start-up (the trace history) is not the point
	until tmux -S "$sock" capture-pane -p -t bench | grep '^Refresh' >/dev/null; do
		[ "$(date +%s)" -le $((end + 120)) ] || break
	done
	# no process or no frame: the view did not run, and its CPU is no measurement
	if [ -z "$pid" ] || [ ! -r "/proc/$pid/stat" ] ||
		! tmux -S "$sock" capture-pane -p -t bench | grep '^Refresh' >/dev/null; then
		tmux -S "$sock" kill-server >/dev/null 2>&1 || true
		echo "   NOT met: the interactive view showed no frame (did not run)"
		exit 1
	fi
	hz=$(getconf CLK_TCK)
	t0=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
	w0=$(date +%s.%N)
	sleep "$CPU_SECONDS"
	t1=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
	w1=$(date +%s.%N)
	tmux -S "$sock" send-keys -t bench q
	tmux -S "$sock" kill-server >/dev/null 2>&1 || true
	idle=$(awk -v a="$t0" -v b="$t1" -v hz="$hz" -v w0="$w0" -v w1="$w1" 'BEGIN {
		cpu = (b - a) / hz; wall = w1 - w0
		printf "%.2f s of CPU in %.1f s: %.2f%% of a core\n", cpu, wall, 100 * cpu / wall
	}')
	echo "   nothing coming (poll refreshes, frames): $idle"
	idle_pct=$(echo "$idle" | sed 's/.*: \([0-9.]*\)% of a core/\1/')
else
	echo "== CPU: tmux not installed, the idle view not measured"
	idle_pct=
fi

# --- CPU under the storm ------------------------------------------------------------
# Live top's stream at 10,000 events/s: bench/livestream natively, the CPU time of each
# refresh (the spool's write, the feed, the settle) measured around it; the median of
# three runs of their means. Every refresh but the first counts, those that double the
# ledger's arrays too (a long run spreads those thinner). The model's share is its
# instructions at the stream's instructions per CPU second.
echo "== CPU under the storm ($EVENTS_PER_S events/s, a refresh every 1.5 s)"
for i in 1 2 3; do
	"$BUILDDIR/bench/livestream" "$gen/sys/kernel/tracing/trace" $((EVENTS_PER_S * 3 / 2)) |
		awk '/^cpu per refresh/ { print $4 }'
done | sort -n | sed -n 2p >"$work/stream-cpu"
stream_cpu=$(cat "$work/stream-cpu")
need "live stream CPU time" "$stream_cpu"
awk -v s="$stream_cpu" -v si="$stream" -v mi="$replay" -v idle="$idle_pct" 'BEGIN {
	sp = 100 * s / 1.5; mp = sp * mi / si
	printf "   live stream: %.4f s of CPU a refresh: %.2f%% of a core\n", s, sp
	printf "   model and frame (1.5 s of events, %.0f instructions): %.2f%% of a core\n", mi, mp
	if (idle == "") {
		printf "   total without the idle view: %.2f%% of a core\n", sp + mp
		exit (sp + mp < 1.0) ? 0 : 1
	}
	printf "   total with the idle view (%.2f%%): %.2f%% of a core\n", idle, idle + sp + mp
	exit (idle + sp + mp < 1.0) ? 0 : 1
}' || { echo "   target missed: 1% of a core"; ok=1; }
exit $ok
