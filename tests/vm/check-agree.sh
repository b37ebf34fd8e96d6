#!/bin/bash
# tests/vm/check-agree.sh ROOT... -- report, top and ci over one test-bed capture count
# the same (as tests/cli/agree.sh over the fixtures): `report -j`, `top --replay ROOT
# --batch -j` (its last frame) and `ci --root ROOT -j TRACE LOG` give the same load
# attempts, failed attempts, duplicate attempts and estimated waste, and ci one boot.
# The three outputs are compared with each other; nothing is written down here.
# Exit status: 0 all agree, 1 they do not (or a command failed), 77 no jq.
set -u
k=${KMODTOP:?KMODTOP: the kmodtop to check}
command -v jq >/dev/null 2>&1 || { echo "check-agree: SKIP: jq not found" >&2; exit 77; }
[ $# -gt 0 ] || { echo "usage: $0 ROOT..." >&2; exit 2; }
R='[.load_attempts.total, .load_attempts.failed,
    ([.modules[]?.attempts.duplicate // empty] | add // 0),
    .load_attempts.wasted_vmap.estimated]'
T='[.attempts, .failed, .duplicates, .wasted_est_bytes]'
C='[.totals.attempts, .totals.failed, .totals.duplicates, .totals.wasted]'
rc=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
for root in "$@"; do
	trace=$root/sys/kernel/tracing/trace
	log=$root/capture/kmsg.raw
	[ -f "$log" ] || log=$root/capture/dmesg.txt
	if [ ! -f "$trace" ] || [ ! -f "$log" ]; then
		echo "check-agree: $root: no trace and log to compare" >&2
		rc=1
		continue
	fi
	if ! "$k" --root "$root" report -j >"$tmp/report" 2>"$tmp/err" ||
	   ! "$k" top --replay "$root" --speed 0 --batch -j >"$tmp/top" 2>>"$tmp/err" ||
	   ! "$k" --root "$root" ci -j "$trace" "$log" >"$tmp/ci" 2>>"$tmp/err"; then
		echo "check-agree: $root: a command failed:" >&2
		sed 's/^/  /' "$tmp/err" >&2
		rc=1
		continue
	fi
	r=$(jq -c "$R" "$tmp/report") t=$(tail -n 1 "$tmp/top" | jq -c "$T")
	c=$(jq -c "$C" "$tmp/ci") boots=$(jq '.totals.boots' "$tmp/ci")
	if [ -z "$r" ] || [ "$r" != "$t" ] || [ "$r" != "$c" ] || [ "$boots" != 1 ]; then
		echo "check-agree: $root: report $r, top $t, ci $c (attempts, failed," \
			"duplicates, wasted), ci boots $boots" >&2
		rc=1
	else
		echo "check-agree: $root: report, top and ci agree: $r"
	fi
done
exit $rc
