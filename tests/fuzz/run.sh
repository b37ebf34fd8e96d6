#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Builds the fuzz targets and runs each for SECONDS (default 60), seeded from the
# fixture roots. Exits non-zero when any target crashes, leaks or times out; the input
# is kept in OUTDIR/artifacts/ (see build.sh for OUTDIR).
#
#	tests/fuzz/run.sh [SECONDS]
#
# Reproduce a crash: OUTDIR/fuzz-NAME OUTDIR/artifacts/fuzz-NAME-crash-...
set -eu

secs=${1:-60}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
fx=$top/tests/fixtures
out=${KMODTOP_FUZZ_OUT:-${TMPDIR:-/tmp}/kmodtop-fuzz}

case $secs in
'' | *[!0-9]*) echo "usage: $0 [SECONDS]" >&2; exit 2 ;;
esac

"$here/build.sh" "$out"

work=$(mktemp -d "${TMPDIR:-/tmp}/kmodtop-fuzz-corpus.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
mkdir -p "$out/artifacts"

# seed NAME FILE...: copies the existing files into a fresh corpus directory
seed() {
	name=$1
	shift
	mkdir -p "$work/$name"
	n=0
	for f in "$@"; do
		[ -f "$f" ] || continue
		n=$((n + 1))
		cp "$f" "$work/$name/seed-$n"
	done
}

seed fuzz-proc-modules "$fx"/*/proc/modules "$fx"/*/capture/snapshots/modules.*
seed fuzz-vmallocinfo "$fx"/*/proc/vmallocinfo "$fx"/*/capture/snapshots/vmallocinfo.*
# "proc/modules\n----\nvmallocinfo": the areas meet the modules they belong to
for d in "$fx"/*/; do
	[ -f "$d/proc/modules" ] && [ -f "$d/proc/vmallocinfo" ] || continue
	{ cat "$d/proc/modules"; printf -- '----\n'; cat "$d/proc/vmallocinfo"; } \
		>"$work/fuzz-vmallocinfo/pair-$(basename "$d")"
done
seed fuzz-modstats "$fx"/*/sys/kernel/debug/modules/stats
# the labels of the 20230328-module-alloc-opts branch
for f in "$fx"/*/sys/kernel/debug/modules/stats; do
	[ -f "$f" ] || continue
	sed -e 's/Mods ever loaded/Modules loaded/' -e 's/Duplicate failed modules:/Failed modules:/' \
		-e 's/Module-name/module-name/' -e 's/Becoming$/Becoming \& Load/' "$f" \
		>"$work/fuzz-modstats/old-labels"
done
# a whole .config is ~250 KiB: its head has every kind of line
mkdir -p "$work/fuzz-kconfig"
for f in "$fx"/*/boot/config-*; do
	[ -f "$f" ] || continue
	head -c 12000 "$f" >"$work/fuzz-kconfig/head-$(basename "$f")"
	grep -E '^(# )?CONFIG_MODULE' "$f" >"$work/fuzz-kconfig/module-$(basename "$f")" || true
done
seed fuzz-meminfo "$fx"/*/proc/meminfo "$fx"/*/proc/sys/kernel/tainted

fail=0
for t in fuzz-proc-modules fuzz-vmallocinfo fuzz-modstats fuzz-kconfig fuzz-meminfo; do
	max_len=16384
	[ "$t" = fuzz-vmallocinfo ] && max_len=32768
	log="$out/$t.log"
	printf '%-20s %ss ... ' "$t" "$secs"
	if "$out/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-max_len="$max_len" -print_final_stats=1 \
		-artifact_prefix="$out/artifacts/$t-" "$work/$t" >"$log" 2>&1; then
		execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
		cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
		echo "ok (${execs:-?} runs, ${cov:-cov: ?})"
	else
		echo "FAILED, see $log"
		grep -E '^(==[0-9]+==ERROR|SUMMARY|artifact_prefix|Test unit written)' "$log" | head -n 5
		fail=1
	fi
done
exit $fail
