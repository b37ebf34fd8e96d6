#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Builds the fuzz targets (build.sh) and runs each for SECONDS (default 60), FUZZ_JOBS
# (default 2) at a time, seeded from tests/fuzz/seeds/NAME/, the fixture roots (and the
# cache packs $KMODTOP writes for them, when set) and the crashes kept in
# tests/fuzz/regressions/NAME/. Exits non-zero when any target crashes,
# leaks or times out; the input is kept in OUTDIR/artifacts/ (OUTDIR: see build.sh).
# Ends with a table of every target: its result, executions, and libFuzzer's final
# coverage (cov: edges, ft: features). With FUZZ_SAVE=1 (make fuzz-long) each input a
# target failed on is also copied to tests/fuzz/regressions/NAME/ as a regression file.
#
#	tests/fuzz/run.sh [SECONDS [TARGET...]]	or: make fuzz [FUZZ_SECONDS=N]
#	make fuzz-long [FUZZ_SECONDS=900] [FUZZ_JOBS=2] [FUZZ_TARGETS="kmsg dmesg"]
#
# Reproduce a crash:	OUTDIR/fuzz-NAME OUTDIR/artifacts/fuzz-NAME-crash-...
# or without clang:	make tests/fuzz/regress-NAME && tests/fuzz/regress-NAME FILE
# Keep it as a regression test: copy the file to tests/fuzz/regressions/NAME/ (make
# check runs every file there), then fix the parser.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
fx=$top/tests/fixtures
out=${KMODTOP_FUZZ_OUT:-${TMPDIR:-/tmp}/kmodtop-fuzz}
jobs=${FUZZ_JOBS:-2}

# one target, in the background of the main run: prints one line, fails on a finding
if [ "${1:-}" = --one ]; then
	t=$2 secs=$3 work=$4
	max_len=16384 timeout=20
	case $t in
	fuzz-vmallocinfo | fuzz-ci-input | fuzz-stream | fuzz-modfile) max_len=65536 ;;
	# its seeds: a trace.dat of two pages of events cut from the fixture's (32 KiB)
	# a trace.dat's trial read in a child (util/trial.c) has 60 s of its own for a hang
	fuzz-tracedat) max_len=32768 timeout=90 ;;
	esac
	log="$out/$t.log"
	# the artifacts of this run only: those left by an earlier one are not saved again
	mkdir -p "$out/summary" "$out/artifacts"
	before=$(ls "$out/artifacts" | grep -F -- "$t-" || true)
	rc=0
	"$out/$t" -max_total_time="$secs" -timeout="$timeout" -rss_limit_mb=2048 \
		-max_len="$max_len" -print_final_stats=1 \
		-artifact_prefix="$out/artifacts/$t-" "$work/$t" >"$log" 2>&1 || rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	# the last status line's coverage: "#N ... cov: C ft: F corp: ..."
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | sed 's/cov: //')
	ft=$(grep -o 'ft: [0-9]*' "$log" | tail -n 1 | sed 's/ft: //')
	result=ok
	[ $rc = 0 ] || result=FAILED
	printf '%s %s %s %s %s %s\n' "$t" "$secs" "$result" "${execs:-?}" "${cov:-?}" "${ft:-?}" \
		>"$out/summary/$t"
	if [ $rc = 0 ]; then
		printf '%-20s %ss ok (%s runs, cov: %s, ft: %s)\n' "$t" "$secs" "${execs:-?}" \
			"${cov:-?}" "${ft:-?}"
		exit 0
	fi
	printf '%-20s %ss FAILED, see %s\n' "$t" "$secs" "$log"
	grep -E '^(==[0-9]+==ERROR|SUMMARY|artifact_prefix|Test unit written)' "$log" | head -n 5
	if [ "${FUZZ_SAVE:-0}" = 1 ]; then
		reg="$here/regressions/${t#fuzz-}"
		found=$(ls "$out/artifacts" | grep -F -- "$t-" | grep -vxF -- "$before" || true)
		[ -n "$found" ] || echo "$t: no new input saved by libFuzzer (see $log)"
		for a in $found; do
			mkdir -p "$reg"
			# crash-SHA1, leak-SHA1, timeout-SHA1, oom-SHA1: the kind and the input's hash
			cp "$out/artifacts/$a" "$reg/${a#"$t"-}"
			echo "$t: saved $reg/${a#"$t"-}"
		done
	fi
	exit 1
fi

secs=${1:-60}
case $secs in
'' | *[!0-9]*) echo "usage: $0 [SECONDS [TARGET...]]" >&2; exit 2 ;;
esac
[ $# -gt 0 ] && shift

"$here/build.sh" "$out"

work=$(mktemp -d "${TMPDIR:-/tmp}/kmodtop-fuzz-corpus.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
mkdir -p "$out/artifacts"

# seed NAME FILE...: copies the existing files into the target's corpus directory
seed() {
	name=$1
	shift
	mkdir -p "$work/$name"
	for f in "$@"; do
		[ -f "$f" ] || continue
		cp "$f" "$work/$name/seed-$(ls "$work/$name" | wc -l)"
	done
}

# head16 NAME FILE...: the first 16 KiB of each (a whole capture is bigger than max_len)
head16() {
	name=$1
	shift
	mkdir -p "$work/$name"
	for f in "$@"; do
		[ -f "$f" ] || continue
		head -c 16000 "$f" >"$work/$name/head-$(ls "$work/$name" | wc -l)"
	done
}

for d in "$here"/seeds/*/ "$here"/regressions/*/; do
	[ -d "$d" ] || continue
	seed "fuzz-$(basename "$d")" "$d"*
done

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

# every module's sys/module attributes in the fixtures, as fuzz-sys-module takes them:
# a byte whose bit i says attribute i is absent, then coresize, initsize, refcnt,
# initstate, taint and the root's sys/module/compression, split by 0x1e, then the
# holders one a line
mkdir -p "$work/fuzz-sys-module"
for m in "$fx"/*/sys/module/*/; do
	[ -f "$m/coresize" ] || [ -f "$m/initstate" ] || continue
	root=${m%/sys/module/*}
	mask=0 i=0
	for a in "$m/coresize" "$m/initsize" "$m/refcnt" "$m/initstate" "$m/taint" \
		"$root/sys/module/compression"; do
		[ -f "$a" ] || mask=$((mask | (1 << i)))
		i=$((i + 1))
	done
	{
		printf "\\$(printf '%03o' "$mask")"
		i=0
		for a in "$m/coresize" "$m/initsize" "$m/refcnt" "$m/initstate" "$m/taint" \
			"$root/sys/module/compression"; do
			[ "$i" = 0 ] || printf '\036'
			[ -f "$a" ] && cat "$a"
			i=$((i + 1))
		done
		printf '\036'
		[ -d "$m/holders" ] && ls "$m/holders"
	} >"$work/fuzz-sys-module/$(basename "$root")-$(basename "$m")"
done

# the packs the real program writes: a report over each fixture into an empty cache
# (KMODTOP: the kmodtop binary, which make fuzz names)
if [ -x "${KMODTOP:-}" ]; then
	mkdir -p "$work/fuzz-modcache" "$work/cache"
	for d in "$fx"/*/; do
		XDG_CACHE_HOME="$work/cache" "$KMODTOP" --root "$d" report >/dev/null 2>&1 || true
	done
	for f in "$work"/cache/kmodtop/*.mfc; do
		[ -f "$f" ] && [ "$(wc -c <"$f")" -le 16384 ] && cp "$f" "$work/fuzz-modcache/written-$(basename "$f")"
	done
	rm -rf "$work/cache"
else
	echo "run.sh: no KMODTOP binary: fuzz-modcache has its hand-made seeds only" >&2
fi

# the captured kernel logs and traces, and the small module files
head16 fuzz-kmsg "$fx"/*/capture/kmsg.raw
head16 fuzz-dmesg "$fx"/*/capture/dmesg.txt
head16 fuzz-klog "$fx"/*/capture/dmesg.txt
head16 fuzz-tracefs "$fx"/*/sys/kernel/tracing/trace
head16 fuzz-ledger "$fx"/*/sys/kernel/tracing/trace
head16 fuzz-ci-input "$fx"/*/capture/kmsg.raw "$fx"/*/capture/dmesg.txt \
	"$fx"/*/sys/kernel/tracing/trace
head16 fuzz-stream "$fx"/*/capture/dmesg.txt
for f in "$fx"/*/lib/modules/*/kernel/*/*.ko*; do
	[ "$(wc -c <"$f")" -le 12000 ] && seed fuzz-modfile "$f"
done

targets=${*:-$(cd "$out" && ls fuzz-* | grep -v '\.log$')}
for t in $targets; do
	t=fuzz-${t#fuzz-}
	[ -x "$out/$t" ] || { echo "run.sh: no target $t" >&2; exit 2; }
	mkdir -p "$work/$t"
done
echo "fuzzing $(echo $targets | wc -w) targets for ${secs}s each, $jobs at a time"
rm -rf "$out/summary"
mkdir -p "$out/summary"
# xargs exits 123 when any run failed; every target still runs
rc=0
printf 'fuzz-%s\n' $(for t in $targets; do echo "${t#fuzz-}"; done) |
	KMODTOP_FUZZ_OUT=$out xargs -P "$jobs" -I{} "$0" --one {} "$secs" "$work" || rc=$?

# the table: a target with no row did not run to the end (killed, or not started)
echo
printf '%-20s %8s %-7s %12s %8s %8s\n' TARGET SECONDS RESULT EXECS COV FT
for t in $targets; do
	t=fuzz-${t#fuzz-}
	if [ -f "$out/summary/$t" ]; then
		read -r name s result execs cov ft <"$out/summary/$t"
		printf '%-20s %8s %-7s %12s %8s %8s\n' "$name" "$s" "$result" "$execs" "$cov" "$ft"
	else
		printf '%-20s %8s %-7s %12s %8s %8s\n' "$t" "$secs" "NO-RUN" - - -
		rc=1
	fi
done
exit $rc
