#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/live-vm.sh — the CPU of kmodtop's live tracing against `trace-cmd stream` of
# the same events, on a real kernel (issue 20: at most 0.5x at 10,000 events/s).
#
#	bench/live-vm.sh [KERNEL...]	default: 6.12
#
# Boots each kernel in the test bed (tests/vm/run-qemu.sh with VM_BENCH=1: no workload,
# no checks; tests/vm/README.md) and runs tests/vm/live-bench.sh in the guest: a storm
# of failed init_module() calls, 5,000 a second for 20 s (10,000 syscall events a
# second), while `kmodtop top --batch` at its default delay, `kmodtop record`, then
# `trace-cmd stream` with the same events run, alone, twice each, interleaved. Their
# CPU over the storm (utime + stime, children included) is compared, median against
# median. The guest is emulated (TCG): absolute times are the emulator's, the ratios
# are what counts.
#
# Exit status 0 when kmodtop (top and record) takes at most half of trace-cmd's CPU,
# 1 otherwise, and when a program under test did not run (no kmodtop to ship, a run
# that was not found, exited early, or counted no CPU: no result is no pass), 77 when
# the test bed cannot run (no qemu). KMODTOP defaults to src/kmodtop of the build
# directory (the current one), else of the source tree.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
[ $# -gt 0 ] || set -- 6.12
export VM_BUILDDIR=${VM_BUILDDIR:-$top/build-vm}
if [ -z "${KMODTOP:-}" ]; then
	KMODTOP=$top/src/kmodtop
	[ -x "$PWD/src/kmodtop" ] && KMODTOP=$PWD/src/kmodtop
fi
export KMODTOP
# without it the guest has no /bin/kmodtop, and 0 ticks would read as a ratio of 0
[ -x "$KMODTOP" ] || { echo "bench/live-vm.sh: no kmodtop at '$KMODTOP' (build it, or set KMODTOP): NOT met (did not run)"; exit 1; }
status=0
for k in "$@"; do
	rc=0
	VM_BENCH=1 VM_QUIET=1 "$top/tests/vm/run-qemu.sh" "$k" || rc=$?
	[ $rc = 77 ] && exit 77
	[ $rc = 0 ] || { echo "bench/live-vm.sh: $k: the guest failed"; status=1; continue; }
	rel=$("$top/tests/vm/fetch.sh" --release "$k")
	res=$VM_BUILDDIR/vm-out/$rel/bench/result.txt
	echo "== $rel: $(cat "$VM_BUILDDIR/vm-out/$rel/bench/cmdline" 2>/dev/null | tr -d '\n')"
	cat "$res"
	awk -v rel="$rel" '
	{ t[$1, $2] = $3; hz = $4; calls[$1, $2] = $5; secs[$1, $2] = $6
	  us[$1, $2] = $7; ks[$1, $2] = $8; n[$1]++
	  # -1: not found or exited early; 0 ticks or no storm: nothing measured
	  if ($3 <= 0 || $5 <= 0) bad[$1] = bad[$1] " run " $2 }
	function med(a, name,   i, k, v, tmp) {
		k = 0
		for (i = 1; i <= n[name]; i++) v[++k] = a[name, i]
		for (i = 1; i < k; i++) if (v[i] > v[i + 1]) { tmp = v[i]; v[i] = v[i + 1]; v[i + 1] = tmp; i = 0 }
		return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
	}
	END {
		if (!n["kmodtop-top"] || !n["kmodtop-record"] || !n["trace-cmd"]) { print "no results"; exit 1 }
		split("kmodtop-top kmodtop-record trace-cmd", names, " ")
		for (i = 1; i <= 3; i++)
			if (names[i] in bad) {
				printf "  %-15s NOT met (did not run:%s; see the guest log)\n", names[i], bad[names[i]]
				failed = 1
			}
		if (failed) exit 1
		tc = med(t, "trace-cmd")
		if (tc <= 0) { print "trace-cmd used no measurable CPU"; exit 1 }
		ev = 2 * calls["trace-cmd", 1] / secs["trace-cmd", 1]
		printf "%s: %.0f events/s over %.0f s; CPU over the storm, median of %d runs:\n", rel, ev, secs["trace-cmd", 1], n["trace-cmd"]
		ok = 1
		split("kmodtop-top kmodtop-record trace-cmd", names, " ")
		for (i = 1; i <= 3; i++) {
			m = med(t, names[i])
			r = m / tc
			printf "  %-15s %6.2f s (user %.2f, system %.2f)  ratio %.2f%s\n", names[i], m / hz,
				med(us, names[i]) / hz, med(ks, names[i]) / hz, r,
				i < 3 ? (r <= 0.5 ? "  met (<= 0.5)" : "  NOT met (<= 0.5)") : ""
			if (i < 3 && r > 0.5) ok = 0
		}
		exit ok ? 0 : 1
	}' "$res" || status=1
done
exit $status
