#!/bin/bash
# tests/vm/check-measure.sh — the test bed's checker against the fixtures (no qemu).
#
# Usage: tests/vm/check-measure.sh [FIXTURE_DIR...]   (default: tests/fixtures/*/)
#
# For every fixture root that has capture/measured.json:
#  1. measure.py --compat-adjacent on its sys/kernel/tracing/trace must reproduce
#     capture/measured.json byte for byte (the rule those files were made with);
#  2. measure.py (stacks matched to their allocation by task) is compared with it and
#     every difference is printed as a table (step, class, file, measured) — allocations
#     whose stack trace was separated from the event by another CPU's lines, which the
#     compat rule drops. Differences are reported, not failures, unless
#     CHECK_MEASURE_STRICT=1.
# Exit status: 0 ok, 1 mismatch, 77 no python3 or no fixtures.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
command -v python3 >/dev/null 2>&1 || { echo "check-measure: SKIP: python3 not found" >&2; exit 77; }

[ $# -gt 0 ] || set -- "$top"/tests/fixtures/*/
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0
for d in "$@"; do
	d=${d%/}
	[ -f "$d/capture/measured.json" ] && [ -f "$d/sys/kernel/tracing/trace" ] || continue
	name=$(basename "$d")
	n=$((n + 1))
	python3 "$here/measure.py" --compat-adjacent "$d" >"$tmp/$name.compat.json"
	if cmp -s "$tmp/$name.compat.json" "$d/capture/measured.json"; then
		echo "ok   $name: measure.py --compat-adjacent reproduces capture/measured.json"
	else
		echo "FAIL $name: measure.py --compat-adjacent differs from capture/measured.json"
		diff -u "$d/capture/measured.json" "$tmp/$name.compat.json" | head -40
		fail=1
	fi
	python3 "$here/measure.py" "$d" >"$tmp/$name.json" 2>"$tmp/$name.err" || fail=1
	if ! python3 "$here/compare-json.py" "$d/capture/measured.json" "$tmp/$name.json" \
		"capture/measured.json" "measure.py"; then
		if [ "${CHECK_MEASURE_STRICT:-0}" = 1 ]; then
			fail=1
		else
			echo "note $name: the differences above are allocations the file misses (stack matched by task here)"
		fi
	fi
done
[ $n -gt 0 ] || { echo "check-measure: SKIP: no fixture with capture/measured.json" >&2; exit 77; }
exit $fail
