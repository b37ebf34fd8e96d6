#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/memory.sh - does kmodtop's memory stay within its targets whatever the input?
#
#	bench/memory.sh [SCALE]		SCALE (default 1) multiplies every input size
#	CASES="ci-stream ..." bench/memory.sh	only the cases named
#
# Generates synthetic inputs of growing size in $BENCH_DIR (default a temporary
# directory) and measures the max RSS of one kmodtop run each with GNU time:
#
#   report-attempts N   a root whose trace has N finit_module() attempts: report -j
#   report-loglines N   N identical kernel log lines: report -j
#   report-vmalloc N    an N-line vmallocinfo: report -j
#   ci-attempts N       a trace of N attempts (300k, 1M): ci -j; its module names cycle
#                       over 6000, as a machine has a few thousand modules (N distinct
#                       names would cost memory of their own)
#   ci-forks N          N sched_process_fork events (and exits): ci -j
#   ci-forks-noexit N   N sched_process_fork events, no exits (as kmodtop record traces): ci -j
#   ci-boots N          N boot banners in one log, a finding each: ci -j
#   ci-requests N       a trace of N attempts, each after an autoload request of a
#                       kernel thread (as a socket family asks): ci -j; it must count N
#                       attempts
#   ci-stream N         a trace of N attempts read as ci reads it a settled attempt at a
#                       time, then forgotten (bench/cistream, collect_read_each()); its
#                       module names cycle over 6000, as a machine has a few thousand
#                       modules (N distinct names would cost memory of their own);
#                       it must count N attempts, and prints the most it held at once
#
# Targets: report within 64 MiB plus 2 KiB per attempt, ci within 32 MiB. Each case
# prints its RSS, the bytes per attempt where it has attempts, and "met" or "NOT met";
# a run that exits non-zero or prints no valid JSON is "did not run". Exit status 0 when
# every case is met, 1 otherwise, 77 without GNU time or jq.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
BUILDDIR=${BUILDDIR:-$top}
KMODTOP=${KMODTOP:-$BUILDDIR/src/kmodtop}
SCALE=${1:-1}

[ -x /usr/bin/time ] || { echo "SKIP: no GNU time at /usr/bin/time"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: no jq"; exit 77; }
[ -x "$KMODTOP" ] || { echo "FAIL: no $KMODTOP (build first, or set KMODTOP)"; exit 1; }

if [ -n "${BENCH_DIR:-}" ]; then
	work=$BENCH_DIR
	mkdir -p "$work"
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/kmodtop-memory.XXXXXX")
	trap 'rm -rf "$work"' EXIT
fi
export XDG_CACHE_HOME=$work/cache
status=0

# want NAME: is the case asked for (CASES, default all)?
want() {
	[ -z "${CASES:-}" ] && return 0
	case " $CASES " in *" $1 "*) return 0 ;; esac
	return 1
}

# base_root DIR: a root with what report needs besides the input under test
base_root() {
	rm -rf "$1"
	mkdir -p "$1/proc/sys/kernel" "$1/sys/kernel/tracing" "$1/capture"
	echo "6.12.0-memory" >"$1/proc/sys/kernel/osrelease"
	echo 0 >"$1/proc/sys/kernel/tainted"
	printf 'MemTotal:       263000000 kB\nVmallocTotal:   34359738367 kB\nVmallocUsed:      8 kB\nVmallocChunk:          0 kB\n' >"$1/proc/meminfo"
	echo "mod0 4096 0 - Live 0xffffffffc0000000" >"$1/proc/modules"
	: >"$1/proc/vmallocinfo"
}

# gen_trace FILE N [FORKS [NAMES]]: N finit_module() calls, every other one loads
# (module_load), the others fail; with FORKS 1 N forks and exits of modprobe processes
# instead, with FORKS 2 N forks and no exits, with FORKS 3 the calls and before each a
# module_request; with NAMES the module names cycle over that many, else each load has
# its own
gen_trace() {
	awk -v n="$2" -v forks="${3:-0}" -v names="${4:-0}" 'BEGIN {
		print "# tracer: nop"
		print "#"
		t = 100.0
		for (i = 0; i < n; i++) {
			pid = 100000 + i % 4000000
			if (forks == 3)
				printf "     kworker/0:1-40      [001] .....  %13.6f: module_request: net-pf-%d wait=1 call_site=__sock_create\n", t - 0.00005, i % 6000
			if (forks == 1 || forks == 2) {
				printf "         systemd-1       [000] .....  %13.6f: sched_process_fork: comm=systemd pid=1 child_comm=systemd child_pid=%d\n", t, pid
				if (forks == 1)
					printf "        modprobe-%d     [000] .....  %13.6f: sched_process_exit: comm=modprobe pid=%d prio=120\n", pid, t + 0.00005, pid
				t += 0.0001
				continue
			}
			task = sprintf("        modprobe-%d", pid)
			printf "%s     [%03d] .....  %13.6f: sys_finit_module(fd: 3, uargs: 5bfb41, flags: 0)\n", task, i % 64, t
			if (i % 2 == 0) {
				printf "%s     [%03d] .....  %13.6f: module_load: mod%07d\n", task, i % 64, t + 0.000010, names ? i % names : i
				printf "%s     [%03d] .....  %13.6f: sys_finit_module -> 0x0\n", task, i % 64, t + 0.000020
			} else {
				printf "%s     [%03d] .....  %13.6f: sys_finit_module -> 0xfffffffffffffffe\n", task, i % 64, t + 0.000020
			}
			t += 0.0001
		}
	}' >"$1"
}

# measure NAME N TARGET_KIB PER_ATTEMPT_BYTES COMMAND...: one case
measure() {
	name=$1 n=$2 target=$3 per=$4
	shift 4
	out=$work/$name.$n.out
	if ! /usr/bin/time -f '%M %e' -o "$work/$name.$n.time" "$@" >"$out" 2>"$work/$name.$n.err" ||
	   ! [ -s "$out" ] || ! jq -e . "$out" >/dev/null 2>&1; then
		printf '   %-16s %9d: did not run (exit status or no JSON):\n' "$name" "$n"
		tail -3 "$work/$name.$n.err" | sed 's/^/      /'
		status=1
		return 0
	fi
	set -- $(cat "$work/$name.$n.time" | tail -n 1)
	rss=$1 secs=$2
	limit=$((target + per * n / 1024))
	verdict=met
	[ "$rss" -le "$limit" ] || { verdict="NOT met"; status=1; }
	if [ "$per" -gt 0 ]; then
		printf '   %-16s %9d: %8d KiB max RSS, %6d B/attempt, %6.1f s  %s (<= %d KiB)\n' \
			"$name" "$n" "$rss" $((rss * 1024 / n)) "$secs" "$verdict" "$limit"
	else
		printf '   %-16s %9d: %8d KiB max RSS, %6.1f s  %s (<= %d KiB)\n' \
			"$name" "$n" "$rss" "$secs" "$verdict" "$limit"
	fi
}

REPORT_KIB=65536	# 64 MiB, plus 2 KiB an attempt
CI_KIB=32768		# 32 MiB

for n in $((10000 * SCALE)) $((100000 * SCALE)) $((300000 * SCALE)); do
	want report-attempts || break
	r=$work/attempts-$n
	base_root "$r"
	gen_trace "$r/sys/kernel/tracing/trace" "$n"
	measure report-attempts "$n" $REPORT_KIB 2048 "$KMODTOP" --root "$r" report -j --no-cache
	rm -rf "$r"
done

for n in $((300000 * SCALE)) $((1000000 * SCALE)); do
	want ci-attempts || break
	gen_trace "$work/attempts.trace" "$n" 0 6000
	measure ci-attempts "$n" $CI_KIB 0 "$KMODTOP" ci -j "$work/attempts.trace"
	# a read that stopped early would be small for nothing
	out=$work/ci-attempts.$n.out
	if [ -s "$out" ] && jq -e . "$out" >/dev/null 2>&1; then
		got=$(jq .totals.attempts "$out")
		[ "$got" = "$n" ] || { echo "   ci-attempts $n: counted $got attempts, not $n: NOT met"; status=1; }
	fi
	rm -f "$work/attempts.trace"
done

CISTREAM=${CISTREAM:-$BUILDDIR/bench/cistream}
if ! want ci-stream; then
	:
elif [ -x "$CISTREAM" ]; then
	for n in $((100000 * SCALE)) $((300000 * SCALE)) $((1000000 * SCALE)); do
		gen_trace "$work/stream.trace" "$n" 0 6000
		measure ci-stream "$n" $CI_KIB 0 "$CISTREAM" "$work/stream.trace"
		out=$work/ci-stream.$n.out
		# a read that stopped early would be small for nothing
		if [ -s "$out" ] && jq -e . "$out" >/dev/null 2>&1; then
			got=$(jq .attempts "$out")
			printf '   %-16s %9d: %d attempts read, at most %d held at once, %d forgotten\n' \
				ci-stream "$n" "$got" "$(jq .most_kept "$out")" "$(jq .forgotten "$out")"
			[ "$got" = "$n" ] || { echo "   ci-stream $n: read $got attempts, not $n: NOT met"; status=1; }
		fi
		rm -f "$work/stream.trace"
	done
else
	echo "   ci-stream: no $CISTREAM (make bench/cistream): NOT met"
	status=1
fi

if want report-loglines; then
	n=$((1000000 * SCALE))
	r=$work/loglines
	base_root "$r"
	awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "[%13.6f] mod0: Unknown symbol sym0 (err -2)\n", 100 + i * 0.0001 }' >"$r/capture/dmesg.txt"
	measure report-loglines "$n" $REPORT_KIB 0 "$KMODTOP" --root "$r" report -j --no-cache
	rm -rf "$r"
fi

if want report-vmalloc; then
	n=$((1000000 * SCALE))
	r=$work/vmalloc
	base_root "$r"
	awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) {
		# 8 KiB areas; printf %x stops at 32 bits: the address in two parts
		printf "0xffffc9%06x%04x-0xffffc9%06x%04x    8192 load_module+0x857/0x2470 pages=1 vmalloc N0=1\n",
			int(i / 8), (i % 8) * 8192, int((i + 1) / 8), ((i + 1) % 8) * 8192 } }' >"$r/proc/vmallocinfo"
	measure report-vmalloc "$n" $REPORT_KIB 0 "$KMODTOP" --root "$r" report -j --no-cache
	rm -rf "$r"
fi

if want ci-forks; then
	n=$((1000000 * SCALE))
	gen_trace "$work/forks.trace" "$n" 1
	measure ci-forks "$n" $CI_KIB 0 "$KMODTOP" ci -j "$work/forks.trace"
	rm -f "$work/forks.trace"
fi

if want ci-forks-noexit; then
	n=$((1000000 * SCALE))
	gen_trace "$work/forks.trace" "$n" 2
	measure ci-forks-noexit "$n" $CI_KIB 0 "$KMODTOP" ci -j "$work/forks.trace"
	rm -f "$work/forks.trace"
fi

if want ci-boots; then
	n=$((1000000 * SCALE))
	awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) {
		printf "[    0.000000] Linux version 6.12.0-%d (b@h) (gcc) #1 SMP\n", i % 7
		printf "[    1.000000] mod%d: Unknown symbol sym0 (err -2)\n", i % 5 } }' >"$work/boots.log"
	measure ci-boots "$n" $CI_KIB 0 "$KMODTOP" ci -j "$work/boots.log"
	rm -f "$work/boots.log"
fi

if want ci-requests; then
	n=$((1000000 * SCALE))
	gen_trace "$work/requests.trace" "$n" 3 6000
	measure ci-requests "$n" $CI_KIB 0 "$KMODTOP" ci -j "$work/requests.trace"
	out=$work/ci-requests.$n.out
	if [ -s "$out" ] && jq -e . "$out" >/dev/null 2>&1; then
		got=$(jq .totals.attempts "$out")
		[ "$got" = "$n" ] || { echo "   ci-requests $n: counted $got attempts, not $n: NOT met"; status=1; }
	fi
	rm -f "$work/requests.trace"
fi

[ "$status" = 0 ] && echo "== all met" || echo "== NOT met"
exit $status
