#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/sizes.sh — how much sizing every module of a Debian 6.12 kernel costs
# (cost/modfile.c through bench/modsizes), against `xz -dc` over the same files.
#
#	bench/sizes.sh [PACKAGE]	default: the newest linux-image-6.12.*+deb12-amd64-unsigned
#
# Downloads the package with `apt-get download` into $BENCH_CACHE (default bench/.cache,
# git-ignored; a copy already in tests/vm/.cache/debs is reused), unpacks it with
# dpkg-deb, builds bench/modsizes (`make bench/modsizes` in $BUILDDIR, default the
# source tree) and times with hyperfine (apt-get install hyperfine):
#
#   xz -dc          every .ko.xz decompressed to /dev/null, one xz process per batch
#   sizes cold      decompressed size + xz dictionary of each file, empty cache
#   sizes warm      the same from the cache
#   layout cold     sizes + the kernel's memory layout (decompresses), empty cache
#   layout warm     the same from the cache
#
# Targets (issue 4): cold <= 1.1 x xz -dc, warm <= 50 ms. RUNS (default 3) sets the runs
# of the slow commands, WARM_RUNS (default 20) those of the warm ones. Exit status 0
# when every target is met, 1 when one is missed, 77 when a prerequisite is missing.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
BENCH_CACHE=${BENCH_CACHE:-$here/.cache}
BUILDDIR=${BUILDDIR:-$top}
VM_DEBS=${VM_CACHE:-$top/tests/vm/.cache}/debs
RUNS=${RUNS:-3}
WARM_RUNS=${WARM_RUNS:-20}

msg() { printf 'sizes: %s\n' "$*" >&2; }
skip() { msg "SKIP: $*"; exit 77; }

for t in apt-get apt-cache dpkg-deb xz find xargs awk; do
	command -v "$t" >/dev/null 2>&1 || skip "$t not found"
done
if ! command -v hyperfine >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ]; then
		apt-get install -y hyperfine >&2 || skip "could not install hyperfine"
	else
		skip "hyperfine not found (apt-get install hyperfine)"
	fi
fi

pkg=${1:-}
if [ -z "$pkg" ]; then
	pkg=$(apt-cache search --names-only '^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$' |
		awk '{ print $1 }' | sort -V | tail -n 1)
	[ -n "$pkg" ] || skip "no linux-image-6.12.*+deb12-amd64-unsigned known to apt (apt-get update?)"
fi

mkdir -p "$BENCH_CACHE/debs"
deb=$(ls "$BENCH_CACHE/debs/${pkg}_"*.deb 2>/dev/null | tail -n 1 || true)
if [ -z "$deb" ]; then
	vm=$(ls "$VM_DEBS/${pkg}_"*.deb 2>/dev/null | tail -n 1 || true)
	if [ -n "$vm" ]; then
		msg "reusing $vm"
		cp "$vm" "$BENCH_CACHE/debs/"
	else
		msg "downloading $pkg"
		(cd "$BENCH_CACHE/debs" && apt-get download "$pkg" >&2) ||
			skip "apt-get download $pkg failed"
	fi
	deb=$(ls "$BENCH_CACHE/debs/${pkg}_"*.deb | tail -n 1)
fi

tree=$BENCH_CACHE/tree/$pkg
if [ ! -d "$tree/lib/modules" ]; then
	msg "unpacking $(basename "$deb")"
	rm -rf "$tree.tmp"
	mkdir -p "$tree.tmp"
	dpkg-deb -x "$deb" "$tree.tmp"
	rm -rf "$tree"
	mv "$tree.tmp" "$tree"
fi
mods=$tree/lib/modules
list=$BENCH_CACHE/ko-xz.list
find "$mods" -name '*.ko.xz' -print0 >"$list"
nfiles=$(tr -cd '\0' <"$list" | wc -c)
[ "$nfiles" -gt 0 ] || skip "no .ko.xz in $pkg"

make -s -C "$BUILDDIR" bench/modsizes >&2
tool=$BUILDDIR/bench/modsizes
cache=$BENCH_CACHE/modsizes-cache

# the page cache holds the files for every command alike
xargs -0 cat <"$list" >/dev/null

# A tool that sized nothing is fast too: each mode must have sized every file, with no
# error, and found bytes, or the timings below measure nothing ("did not run").
sized() {
	# sized FLAGS...: runs the tool once, checks its summary line
	line=$("$tool" "$@" "$mods" | tail -n 1) || true
	printf '%s\n' "$line" >&2
	printf '%s\n' "$line" | awk -v n="$nfiles" -v layout="$1" '
		{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
		END { exit !(v["files"] == n && v["errors"] == 0 && v["image_bytes"] > 0 &&
			     (layout != "--layout" || v["layout_bytes"] > 0)) }' && return 0
	msg "NOT met: '$tool $* $mods' did not size the $nfiles files (did not run)"
	exit 1
}
sized --no-cache
sized --layout --no-cache

csv=$BENCH_CACHE/results
mkdir -p "$csv"
time_cmd() {
	# time_cmd NAME RUNS HYPERFINE-ARGS... -- COMMAND
	name=$1
	runs=$2
	shift 2
	hyperfine --style basic --runs "$runs" --export-csv "$csv/$name.csv" -n "$name" "$@" >&2
}

msg "$nfiles .ko.xz files of $pkg"
time_cmd xz-dc "$RUNS" "xargs -0 xz -dc <'$list' >/dev/null"
time_cmd sizes-cold "$RUNS" --prepare "rm -rf '$cache'" "'$tool' --cache '$cache' '$mods'"
time_cmd sizes-warm "$WARM_RUNS" --warmup 2 "'$tool' --cache '$cache' '$mods'"
time_cmd layout-cold "$RUNS" --prepare "rm -rf '$cache'" \
	"'$tool' --layout --cache '$cache' '$mods'"
time_cmd layout-warm "$WARM_RUNS" --warmup 2 "'$tool' --layout --cache '$cache' '$mods'"
# warm runs read the cache the cold ones wrote: without it they timed nothing
[ -n "$(ls -A "$cache" 2>/dev/null)" ] || { msg "NOT met: no cache written in $cache (did not run)"; exit 1; }
sized --layout --cache "$cache"
rm -rf "$cache"

# hyperfine's CSV: command,mean,stddev,median,user,system,min,max
col() { awk -F, -v c="$2" 'NR == 2 { print $c }' "$csv/$1.csv"; }
cpu() { awk -F, 'NR == 2 { print $5 + $6 }' "$csv/$1.csv"; }
xz_min=$(col xz-dc 7)
xz_cpu=$(cpu xz-dc)
fail=0
verdict() { awk -v v="$1" -v l="$2" 'BEGIN { print (v <= l) ? "ok" : "MISSED" }'; }
# The verdict uses the best run (the least disturbed by other load on the machine);
# mean and CPU time (user + system) are printed beside it.
report() {
	# report NAME ratio|ms LIMIT
	mn=$(col "$1" 7)
	me=$(col "$1" 2)
	c=$(cpu "$1")
	# no time at all is no measurement
	if ! awk -v a="${mn:-0}" -v b="${xz_min:-0}" 'BEGIN { exit !(a > 0 && b > 0) }'; then
		printf '%-12s no time measured  NOT met (did not run)\n' "$1"
		fail=1
		return
	fi
	case $2 in
	ratio)
		v=$(awk -v a="$mn" -v b="$xz_min" 'BEGIN { printf "%.3f", a / b }')
		vc=$(awk -v a="$c" -v b="$xz_cpu" 'BEGIN { printf "%.3f", a / b }')
		ok=$(verdict "$v" "$3")
		printf '%-12s best %8.3f s  mean %8.3f s  cpu %8.3f s  %6s x xz -dc (cpu %s x)  target <= %s  %s\n' \
			"$1" "$mn" "$me" "$c" "$v" "$vc" "$3" "$ok" ;;
	ms)
		v=$(awk -v a="$mn" 'BEGIN { printf "%.1f", a * 1000 }')
		ok=$(verdict "$v" "$3")
		printf '%-12s best %8.1f ms mean %8.1f ms cpu %8.1f ms  target <= %s ms  %s\n' "$1" "$v" \
			"$(awk -v a="$me" 'BEGIN { print a * 1000 }')" \
			"$(awk -v a="$c" 'BEGIN { print a * 1000 }')" "$3" "$ok" ;;
	esac
	[ "$ok" = ok ] || fail=1
}
printf '%s: %s .ko.xz, %s, %s runs (warm: %s)\n' "$pkg" "$nfiles" "$(du -sh "$mods" | cut -f1)" \
	"$RUNS" "$WARM_RUNS"
printf '%-12s best %8.3f s  mean %8.3f s  cpu %8.3f s\n' xz-dc "$xz_min" "$(col xz-dc 2)" "$xz_cpu"
report sizes-cold ratio 1.1
report sizes-warm ms 50
report layout-cold ratio 1.1
report layout-warm ms 50
exit $fail
