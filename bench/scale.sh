#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/scale.sh — does kmodtop's time grow linearly with the number of modules (issue 9:
# "10^6 distinct module names")?
#
#	bench/scale.sh [SMALL [LARGE]]		default 100000 and 1000000 names
#
# For each size N it generates a root in $BENCH_DIR (default a temporary directory):
# proc/modules with N modules, proc/vmallocinfo with one module area each, a 6.12 trace
# with one finit_module() per name, and a kernel log (capture/dmesg.txt) with one line
# per name. Every other call is a udev worker's and loads its module (module_load inside
# it); the others are autoloads (a request_module(), then a modprobe process of their
# own) that fail with ENOENT and are named by their log line ("Unknown symbol", printed
# inside the call), so the names go through the trace, the log and proc/modules alike. Then, with
# GNU time:
#
#   report   kmodtop --root ROOT report --no-cache (proc, vmallocinfo join, trace, log)
#   ci       kmodtop ci over the kernel log
#   top      kmodtop --root ROOT top --batch --iterations 1 --no-cache (the same files,
#            into top's model, one frame)
#   replay   kmodtop top --replay ROOT --speed 0 --batch --iterations 1 --no-cache (the
#            capture replayed to its end, one frame)
#
# and prints LARGE/SMALL for the user+system time and the max RSS of each. With
# LARGE = 10 x SMALL, linear growth gives 10 and quadratic 100: a ratio above
# MAX_RATIO (default 20: n^1.3; at 10^6 names report holds 2.9 GB and its hash lookups
# miss the caches, so linear code measures x11 to x15 on a busy 2-core machine, with the
# same profile at both sizes) fails. Times under 0.05 s are rounded up to it, so that the
# start-up alone cannot make a ratio. Exit status 0 when every ratio is within
# MAX_RATIO, 1 when one is not, 77 when GNU time is missing.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
BUILDDIR=${BUILDDIR:-$top}
KMODTOP=${KMODTOP:-$BUILDDIR/src/kmodtop}
SMALL=${1:-100000}
LARGE=${2:-1000000}
MAX_RATIO=${MAX_RATIO:-20}

[ -x /usr/bin/time ] || { echo "SKIP: no GNU time at /usr/bin/time"; exit 77; }
[ -x "$KMODTOP" ] || { echo "SKIP: no $KMODTOP (build first, or set KMODTOP)"; exit 77; }

if [ -n "${BENCH_DIR:-}" ]; then
	work=$BENCH_DIR
	mkdir -p "$work"
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/kmodtop-scale.XXXXXX")
	trap 'rm -rf "$work"' EXIT
fi
export XDG_CACHE_HOME=$work/cache

# gen_root DIR N
gen_root() {
	d=$1
	n=$2
	rm -rf "$d"
	mkdir -p "$d/proc/sys/kernel" "$d/sys/kernel/tracing" "$d/capture"
	echo "6.12.0-scale" >"$d/proc/sys/kernel/osrelease"
	echo 0 >"$d/proc/sys/kernel/tainted"
	printf 'MemTotal:       263000000 kB\nVmallocTotal:   34359738367 kB\nVmallocUsed:      %d kB\nVmallocChunk:          0 kB\n' \
		$((n * 8)) >"$d/proc/meminfo"
	awk -v n="$n" -v d="$d" 'BEGIN {
		# awk numbers are doubles and printf %x stops at 32 bits: the addresses are
		# 0xffffff followed by 10 hex digits of 8 KiB steps, built in two parts
		for (i = 0; i < n; i++) {
			a = i * 8192
			b = a + 8192
			printf "mod%07d 4096 0 - Live 0xffffff%06x%04x\n", i, int(a / 65536), a % 65536 >(d "/proc/modules")
			printf "0xffffff%06x%04x-0xffffff%06x%04x %8d load_module+0x857/0x2470 pages=1 vmalloc N0=1\n",
				int(a / 65536), a % 65536, int(b / 65536), b % 65536, 8192 >(d "/proc/vmallocinfo")
		}
		trace = d "/sys/kernel/tracing/trace"
		klog = d "/capture/dmesg.txt"
		print "# tracer: nop" >trace
		print "#" >trace
		t = 100.0
		for (i = 0; i < n; i++) {
			if (i % 2 == 0) {
				task = sprintf("    udevd-worker-%d", 1000 + i % 128)
			} else {
				# an autoload: the request, then a modprobe of its own
				printf "         kworker-%d     [%03d] .....  %13.6f: module_request: mod%07d wait=1 call_site=inet_create+0x1c/0x50\n", 200 + i % 8, i % 64, t - 0.000005, i >trace
				task = sprintf("        modprobe-%d", 2000000 + i)
			}
			printf "%s     [%03d] .....  %13.6f: sys_finit_module(fd: 3, uargs: 5bfb41, flags: 0)\n", task, i % 64, t >trace
			if (i % 2 == 0) {
				printf "%s     [%03d] .....  %13.6f: module_load: mod%07d\n", task, i % 64, t + 0.000010, i >trace
				printf "%s     [%03d] .....  %13.6f: sys_finit_module -> 0x0\n", task, i % 64, t + 0.000020 >trace
				printf "[%13.6f] mod%07d: loading out-of-tree module taints kernel.\n", t + 0.000010, i >klog
			} else {
				printf "%s     [%03d] .....  %13.6f: sys_finit_module -> 0xfffffffffffffffe\n", task, i % 64, t + 0.000020 >trace
				printf "[%13.6f] mod%07d: Unknown symbol sym%07d (err -2)\n", t + 0.000010, i, i >klog
			}
			t += 0.0001
		}
	}'
}

# measure NAME N COMMAND...: user+system seconds and max RSS (KiB) into NAME.N
measure() {
	name=$1
	n=$2
	shift 2
	if ! /usr/bin/time -f '%U %S %M' -o "$work/$name.$n.time" "$@" >"$work/$name.$n.out" 2>"$work/$name.$n.err"; then
		echo "FAIL: $name over $n names exited non-zero:"
		tail -5 "$work/$name.$n.err"
		exit 1
	fi
	awk -v name="$name" -v n="$n" '{ printf "   %-7s %8d names: %7.2f s user+sys, %8d KiB max RSS\n", name, n, $1 + $2, $3 }' "$work/$name.$n.time"
}

# expect NAME N REGEX: the command's output shows it read the N names, or it did not
# run (a kmodtop that printed nothing takes no time at either size: a ratio of 1)
expect() {
	grep -q "$3" "$work/$1.$2.out" && return 0
	echo "FAIL: $1 over $2 names did not run: no '$3' in its output"
	exit 1
}

for n in "$SMALL" "$LARGE"; do
	echo "== $n names: generating"
	gen_root "$work/root-$n" "$n"
	# report: the ledger, the summary and the tables, all rows; ci: the log alone
	measure report "$n" "$KMODTOP" --root "$work/root-$n" report --no-cache
	measure ci "$n" "$KMODTOP" ci "$work/root-$n/capture/dmesg.txt"
	measure top "$n" "$KMODTOP" --root "$work/root-$n" top --batch --iterations 1 --no-cache
	measure replay "$n" "$KMODTOP" top --replay "$work/root-$n" --speed 0 --batch \
		--iterations 1 --no-cache
	expect report "$n" "^  attempts: *$n\$"
	expect ci "$n" "^  evidence lines *$n\$"
	expect top "$n" "^Attempts $n "
	expect replay "$n" "^Attempts $n "
done

status=0
echo "== $LARGE / $SMALL (linear: $((LARGE / SMALL)), fail above $MAX_RATIO)"
for name in report ci top replay; do
	set -- $(awk '{ t = $1 + $2; if (t < 0.05) t = 0.05; print t, $3 }' "$work/$name.$SMALL.time") \
		$(awk '{ t = $1 + $2; if (t < 0.05) t = 0.05; print t, $3 }' "$work/$name.$LARGE.time")
	line=$(awk -v name="$name" -v t1="$1" -v m1="$2" -v t2="$3" -v m2="$4" -v max="$MAX_RATIO" 'BEGIN {
		rt = t2 / t1; rm = m2 / m1
		printf "   %-7s time x%.1f, max RSS x%.1f", name, rt, rm
		if (rt > max || rm > max) printf "  FAIL"
		printf "\n"
	}')
	echo "$line"
	case $line in *FAIL) status=1 ;; esac
done
exit $status
