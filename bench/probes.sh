#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/probes.sh — what kmodtop's naming probes add to live top at 10,000 module
# events a second (issue 17: under 1% of a core).
#
#	bench/probes.sh [SECONDS]	default 20 seconds of generated trace
#
# Two traces of the same finit_module storm (bench/storm-trace.awk: 2,000 modules,
# 10,000 module events a second), without and with the lines the probes add to each
# call (kmodtop_kread after the entry, kmodtop_name before the exit: two more lines a
# call). bench/livestream reads each as live top reads its trace_pipe, 1.5 s of events
# a refresh, and measures the CPU time of a refresh; five runs of each, interleaved,
# their medians compared. The difference, at a refresh every 1.5 s, is what the probes
# cost kmodtop. The kernel's side (a kprobe hit with its fetches, an event in the ring
# buffer) cannot be had here, where the kernel has no module support: tests/vm/README.md
# says how the test bed measures it in a guest.
#
# Exit status 0 when the probes add under 1% of a core, 1 otherwise.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
BUILDDIR=${BUILDDIR:-$top}
SECS=${1:-20}
RATE=10000
work=$(mktemp -d "${TMPDIR:-/tmp}/kmodtop-probes.XXXXXX")
trap 'rm -rf "$work"' EXIT

[ -x "$BUILDDIR/bench/livestream" ] || { echo "SKIP: no $BUILDDIR/bench/livestream (make bench/livestream)"; exit 77; }
awk -v secs="$SECS" -v rate=$RATE -v n=2000 -f "$here/storm-trace.awk" >"$work/plain"
awk -v secs="$SECS" -v rate=$RATE -v n=2000 -v probes=1 -f "$here/storm-trace.awk" >"$work/probed"
printf '== %s s of a storm at %s module events/s: %s lines, with the probes %s\n' "$SECS" "$RATE" \
	"$(wc -l <"$work/plain")" "$(wc -l <"$work/probed")"

# the refresh reads 1.5 s of the trace: the module events of 1.5 s, and their probe lines
plain_lines=$((RATE * 3 / 2))
probed_lines=$(awk -v n="$plain_lines" '{ if ($0 !~ /kmodtop_/) k++; if (k > n) { print NR - 1; exit } }' "$work/probed")
for i in 1 2 3 4 5; do
	"$BUILDDIR/bench/livestream" "$work/plain" "$plain_lines" | awk '/^cpu per refresh/ { print $4 }' >>"$work/plain.cpu"
	"$BUILDDIR/bench/livestream" "$work/probed" "$probed_lines" | awk '/^cpu per refresh/ { print $4 }' >>"$work/probed.cpu"
done
# five measured refreshes of each, or bench/livestream did not run: no result, no pass
for f in plain probed; do
	awk '$1 > 0 { n++ } END { exit n != 5 }' "$work/$f.cpu" || {
		echo "   NOT met: bench/livestream gave no CPU time for the $f trace (did not run)"
		exit 1
	}
done
p=$(sort -n "$work/plain.cpu" | sed -n 3p)
q=$(sort -n "$work/probed.cpu" | sed -n 3p)
awk -v p="$p" -v q="$q" -v pl="$(tr '\n' ' ' <"$work/plain.cpu")" -v ql="$(tr '\n' ' ' <"$work/probed.cpu")" 'BEGIN {
	printf "   a refresh without the probes: %.2f ms (runs: %s)\n", p * 1000, pl
	printf "   a refresh with the probes:    %.2f ms (runs: %s)\n", q * 1000, ql
	d = 100 * (q - p) / 1.5
	printf "   the probes add %.2f ms a refresh: %.3f%% of a core (target: under 1%%)\n", (q - p) * 1000, d
	exit d < 1.0 ? 0 : 1
}'
