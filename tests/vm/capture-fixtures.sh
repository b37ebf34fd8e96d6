#!/bin/bash
# tests/vm/capture-fixtures.sh — regenerate fixture roots from test-bed runs.
#
# Usage: tests/vm/capture-fixtures.sh [--legacy] [--no-run] [--dest DIR] [NAME=KERNEL ...]
#
#   NAME=KERNEL   fixture folder name and kernel (6.1, 6.12 or a release); default:
#                 debian-6.1-plain=6.1 debian-6.12-xz=6.12
#   --dest DIR    where the folders go (default: tests/fixtures); an existing folder
#                 of that name is replaced
#   --no-run      take the last run's output in $VM_BUILDDIR/vm-out/RELEASE/ instead of
#                 booting again
#   --legacy      run the workload as the first captures did: every requester named
#                 "storm" and busybox's modprobe for the modprobe-xfs steps
#                 (kmt.comm=storm kmt.modprobe=busybox)
#
# A fixture is the VM output (the root layout of tests/fixtures/README.md, with
# capture/measured.json from measure.py) without what only the test bed needs: the
# guest console, kmodtop's own outputs. The custom-6.12-modstats fixture needs a
# kernel built by hand: unpack it in $VM_CACHE/kernel/RELEASE/ (see run-qemu.sh) and
# pass custom-6.12-modstats=RELEASE.
# Exit status: 0 ok, 77 prerequisite missing, 1 error.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
VM_BUILDDIR=${VM_BUILDDIR:-$top/build-vm}
VM_CACHE=${VM_CACHE:-$here/.cache}
export VM_BUILDDIR VM_CACHE

msg() { printf 'capture-fixtures: %s\n' "$*" >&2; }
die() { msg "ERROR: $*"; exit 1; }

dest=$top/tests/fixtures
run=1
legacy=0
pairs=
while [ $# -gt 0 ]; do
	case $1 in
	--dest) [ $# -ge 2 ] || die "--dest needs a directory"; dest=$2; shift ;;
	--dest=*) dest=${1#*=} ;;
	--no-run) run=0 ;;
	--legacy) legacy=1 ;;
	-h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*=*) pairs="$pairs $1" ;;
	*) die "unknown argument $1 (see --help)" ;;
	esac
	shift
done
[ -n "$pairs" ] || pairs="debian-6.1-plain=6.1 debian-6.12-xz=6.12"

if [ $legacy = 1 ]; then
	VM_APPEND="${VM_APPEND-} kmt.comm=storm kmt.modprobe=busybox"
	export VM_APPEND
fi

mkdir -p "$dest"
for p in $pairs; do
	name=${p%%=*}
	kern=${p#*=}
	if [ $run = 1 ]; then
		rc=0
		"$here/run-qemu.sh" "$kern" || rc=$?
		[ $rc -eq 0 ] || { [ $rc -eq 77 ] && exit 77; die "run-qemu.sh $kern failed"; }
	fi
	rel=$("$here/fetch.sh" --release "$kern")
	src=$VM_BUILDDIR/vm-out/$rel
	[ -f "$src/capture/measured.json" ] || die "no capture for $rel in $src (run without --no-run)"
	tmp=$dest/.$name.new
	rm -rf "$tmp"
	mkdir -p "$tmp"
	(cd "$src" && tar --exclude=./kmodtop --exclude=./capture/console.log -cf - .) |
		(cd "$tmp" && tar -xf -)
	rm -rf "${dest:?}/$name"
	mv "$tmp" "$dest/$name"
	msg "$name: from $rel ($(du -sh "$dest/$name" | cut -f1)) -> $dest/$name"
done
