#!/bin/bash
# tests/vm/check-run.sh ROOT... — check test-bed captures (see check-run.py).
# Exit status: 0 all pass, 1 a check failed, 77 no python3.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
command -v python3 >/dev/null 2>&1 || { echo "check-run: SKIP: python3 not found" >&2; exit 77; }
[ $# -gt 0 ] || { echo "usage: $0 ROOT..." >&2; exit 2; }
rc=0
for r in "$@"; do
	python3 "$here/check-run.py" "$r" || rc=1
	# kmodtop top live (tests/vm/top-live.sh), when it ran
	if [ -f "$r/kmodtop/top.out" ]; then
		python3 "$here/check-top.py" "$r" || rc=1
	fi
	# report, top and ci agree over the capture and over record's bundle of it
	if [ -n "${KMODTOP:-}" ] && [ -x "${KMODTOP:-}" ]; then
		"$here/check-agree.sh" "$r" || rc=1
		if [ -d "$r/kmodtop/bundle" ]; then
			"$here/check-agree.sh" "$r/kmodtop/bundle" || rc=1
		fi
	fi
	# the second workload (tests/vm/init), when it ran
	if [ -d "$r/kmodtop/storms" ]; then
		python3 "$here/check-storms.py" "$r" || rc=1
	fi
done
exit $rc
