#!/bin/bash
# tests/vm/boot-loop.sh N KERNEL... — is the test bed dependable? Boots each kernel N
# times in a row (run-qemu.sh: workload, captures, every check), stops at the first
# failure and keeps its artifacts.
#
# One line per boot in $VM_BUILDDIR/boot-loop.log, and at the end "N passed, N failed".
# The live suite (top, report --duration, the teardown and non-root runs) is left out
# unless VM_APPEND says otherwise, so that a boot takes a third of the time: the
# workload's tracing, the storms and kmodtop record with its kprobes still run (and
# must have: check-storms must pass), and they are what patch kernel text while
# other CPUs execute it.
#
# Environment: VM_APPEND (default kmt.live=storms), and what run-qemu.sh reads.
# Exit status: 0 every boot passed, 1 one failed, 2 usage, 77 prerequisite missing.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
VM_BUILDDIR=${VM_BUILDDIR:-$top/build-vm}
export VM_BUILDDIR
export VM_APPEND=${VM_APPEND-kmt.live=storms}
export VM_QUIET=${VM_QUIET:-1}

case ${1:-} in
'' | *[!0-9]*) echo "usage: $0 N 6.1|6.12|RELEASE..." >&2; exit 2 ;;
esac
n=$1
shift
[ $# -ge 1 ] || { echo "usage: $0 N 6.1|6.12|RELEASE..." >&2; exit 2; }
mkdir -p "$VM_BUILDDIR"
log=$VM_BUILDDIR/boot-loop.log
: >"$log"
passed=0
failed=0
for k in "$@"; do
	for i in $(seq 1 "$n"); do
		start=$(date +%s)
		out=$VM_BUILDDIR/boot-loop-$k.out
		"$here/run-qemu.sh" "$k" >"$out" 2>&1
		rc=$?
		took=$(($(date +%s) - start))
		if [ $rc = 77 ]; then
			echo "boot-loop: $k: prerequisite missing (see $out)" | tee -a "$log" >&2
			exit 77
		fi
		# what the kernel said about itself, whatever the checks found
		rel=$(sed -n 's/^run-qemu: \([^:]*\): done in .*/\1/p; s/^run-qemu: \([^:]*\): check FAILED.*/\1/p' \
			"$out" | head -n 1)
		oops=0
		[ -n "$rel" ] && oops=$(grep -c -E 'Oops|BUG:|general protection|Kernel panic' \
			"$VM_BUILDDIR/vm-out/$rel.console.log" 2>/dev/null)
		# a boot whose storms did not run has not shown what it is meant to
		storms_ok=1
		case " $VM_APPEND " in
		*" kmt.live=storms "*)
			grep -E -q '^check-storms: .*: all [0-9]+ checks passed' "$out" || storms_ok=0 ;;
		esac
		if [ $rc = 0 ] && [ "${oops:-0}" = 0 ] && [ $storms_ok = 1 ]; then
			passed=$((passed + 1))
			echo "boot $i/$n $k ${rel:-?}: pass ($took s)" | tee -a "$log"
		else
			failed=$((failed + 1))
			echo "boot $i/$n $k ${rel:-?}: FAIL rc=$rc oops=$oops storms=$storms_ok ($took s; $out)" |
				tee -a "$log"
			grep -E 'checks failed|FAIL|ERROR|Oops' "$out" | head -n 20 | tee -a "$log"
			echo "$passed passed, $failed failed" | tee -a "$log"
			exit 1
		fi
	done
done
echo "$passed passed, $failed failed" | tee -a "$log"
