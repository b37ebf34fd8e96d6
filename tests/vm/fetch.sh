#!/bin/bash
# tests/vm/fetch.sh — download and unpack what the VM test bed boots.
#
# Usage: tests/vm/fetch.sh [6.1|6.12|all|userland|RELEASE...]   (default: all)
#        tests/vm/fetch.sh --release 6.12                  print the cached release
# ("userland" fetches busybox and kmod only: for a kernel tree put in the cache by hand,
#  $VM_CACHE/kernel/RELEASE/{boot/vmlinuz-RELEASE,boot/config-RELEASE,lib/modules/RELEASE})
#
# Downloads with `apt-get download` (Debian archives only) into $VM_CACHE
# (default tests/vm/.cache, git-ignored):
#   - the newest linux-image-6.1.0-N-amd64-unsigned and
#     linux-image-6.12.X+deb12-amd64-unsigned (newest according to apt-cache),
#   - busybox-static, kmod, libkmod2 and the shared libraries kmod needs
#     (libc6, liblzma5, libzstd1, libssl3).
# Unpacks them with dpkg-deb -x, runs depmod on the kernels' module trees and
# records every package version in $VM_CACHE/versions.txt.
#
# Layout of the cache:
#   debs/*.deb
#   kernel/RELEASE/{boot/vmlinuz-RELEASE, lib/modules/RELEASE/...}
#   series-6.1, series-6.12      the release picked for each series
#   userland/                     busybox, kmod and libraries, unpacked
#   versions.txt                  "package version" of everything unpacked
#
# Exit status: 0 ok, 77 when a prerequisite is missing (no apt-get/dpkg-deb,
# no archive reachable and nothing cached), 1 on other errors.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
VM_CACHE=${VM_CACHE:-$here/.cache}
export VM_CACHE

msg() { printf 'fetch: %s\n' "$*" >&2; }
skip() { msg "SKIP: $*"; exit 77; }
die() { msg "ERROR: $*"; exit 1; }

for t in apt-get apt-cache dpkg-deb; do
	command -v "$t" >/dev/null 2>&1 || skip "$t not found (needs a Debian host)"
done

series_pattern() {
	case $1 in
	6.1)  echo '^linux-image-6\.1\.0-[0-9]+-amd64-unsigned$' ;;
	6.12) echo '^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$' ;;
	*) return 1 ;;
	esac
}

# release name from a linux-image package name
pkg_release() {
	echo "$1" | sed -e 's/^linux-image-//' -e 's/-unsigned$//'
}

release_series() {
	case $1 in
	6.1.*) echo 6.1 ;;
	6.12.*) echo 6.12 ;;
	*) echo "${1%%.*}" ;;
	esac
}

if [ "${1:-}" = "--release" ]; then
	[ $# -eq 2 ] || die "usage: $0 --release 6.1|6.12|RELEASE"
	case $2 in
	6.1|6.12)
		f=$VM_CACHE/series-$2
		[ -s "$f" ] || die "series $2 not fetched yet (run $0 $2)"
		cat "$f" ;;
	*) echo "$2" ;;
	esac
	exit 0
fi

mkdir -p "$VM_CACHE/debs" "$VM_CACHE/kernel" "$VM_CACHE/userland"
cd "$VM_CACHE/debs"

# download PKG [VERSION]: fetch the .deb unless already cached; prints its path
download() {
	pkg=$1
	ver=${2:-}
	if [ -z "$ver" ]; then
		ver=$(awk -v p="$pkg" '$1 == p {print $2; exit}' "$VM_CACHE/candidates" 2>/dev/null || true)
	fi
	if [ -z "$ver" ]; then
		ver=$(apt-cache policy "$pkg" 2>/dev/null | awk '/Candidate:/ {print $2; exit}')
	fi
	if [ -n "$ver" ] && [ "$ver" != "(none)" ]; then
		fver=$(echo "$ver" | sed 's/:/%3a/')
		for f in "$VM_CACHE"/debs/"${pkg}_${fver}"_*.deb; do
			[ -f "$f" ] && { echo "$f"; return 0; }
		done
		msg "downloading $pkg $ver"
		if apt-get download "$pkg=$ver" >&2; then
			for f in "$VM_CACHE"/debs/"${pkg}_${fver}"_*.deb; do
				[ -f "$f" ] && { echo "$f"; return 0; }
			done
		fi
	fi
	# offline or unknown to apt-cache: fall back to any cached version
	f=$(ls "$VM_CACHE"/debs/"${pkg}"_*.deb 2>/dev/null | sort -V | tail -n 1 || true)
	if [ -n "$f" ]; then
		msg "using cached $(basename "$f")"
		echo "$f"
		return 0
	fi
	return 1
}

record_version() {
	deb=$1
	p=$(dpkg-deb -f "$deb" Package)
	v=$(dpkg-deb -f "$deb" Version)
	touch "$VM_CACHE/versions.txt"
	grep -v "^$p " "$VM_CACHE/versions.txt" >"$VM_CACHE/versions.txt.new" || true
	echo "$p $v" >>"$VM_CACHE/versions.txt.new"
	sort "$VM_CACHE/versions.txt.new" >"$VM_CACHE/versions.txt"
	rm -f "$VM_CACHE/versions.txt.new"
}

fetch_kernel_pkg() {
	pkg=$1
	rel=$(pkg_release "$pkg")
	deb=$(download "$pkg") || skip "cannot download $pkg and none cached"
	kdir=$VM_CACHE/kernel/$rel
	stamp=$kdir/.unpacked-$(basename "$deb")
	if [ ! -f "$stamp" ]; then
		msg "unpacking $(basename "$deb")"
		rm -rf "$kdir"
		mkdir -p "$kdir"
		dpkg-deb -x "$deb" "$kdir"
		[ -f "$kdir/boot/vmlinuz-$rel" ] || die "$deb has no boot/vmlinuz-$rel"
		if [ ! -s "$kdir/lib/modules/$rel/modules.dep" ]; then
			command -v depmod >/dev/null 2>&1 || [ -x /sbin/depmod ] ||
				skip "depmod not found (apt-get install kmod)"
			msg "depmod -b $kdir $rel"
			PATH=$PATH:/sbin:/usr/sbin depmod -b "$kdir" "$rel"
		fi
		touch "$stamp"
	fi
	record_version "$deb"
	echo "$rel" >"$VM_CACHE/series-$(release_series "$rel")"
	msg "kernel $rel ready in $kdir"
}

fetch_series() {
	pat=$(series_pattern "$1") || die "unknown series $1"
	pkg=$(apt-cache search --names-only "$pat" 2>/dev/null | awk '{print $1}' | grep -E "$pat" | sort -V | tail -n 1 || true)
	if [ -z "$pkg" ]; then
		# apt lists unavailable: use the newest cached one
		f=$(ls "$VM_CACHE"/debs/ 2>/dev/null | sed 's/_.*//' | grep -E "$pat" | sort -V | tail -n 1 || true)
		[ -n "$f" ] || skip "no package matching $pat known to apt-cache (apt-get update?) nor cached"
		pkg=$f
	fi
	fetch_kernel_pkg "$pkg"
}

fetch_userland() {
	u=$VM_CACHE/userland
	debs=""
	pkgs="busybox-static kmod libkmod2 libc6 liblzma5 libzstd1 libssl3"
	# one apt-cache call for all candidates ("pkg version" lines)
	apt-cache policy $pkgs 2>/dev/null |
		awk '/^[^ ].*:$/ {p = substr($1, 1, length($1) - 1)} /Candidate:/ {print p, $2}' \
		>"$VM_CACHE/candidates" || true
	for p in $pkgs; do
		d=$(download "$p") || skip "cannot download $p and none cached"
		debs="$debs $d"
	done
	key=$(for d in $debs; do basename "$d"; done | sort | md5sum | cut -c1-12)
	if [ ! -f "$u/.unpacked-$key" ]; then
		rm -rf "$u"
		mkdir -p "$u"
		for d in $debs; do
			msg "unpacking $(basename "$d")"
			dpkg-deb -x "$d" "$u"
		done
		[ -x "$u/bin/busybox" ] || die "busybox-static has no bin/busybox"
		[ -x "$u/bin/kmod" ] || die "kmod has no bin/kmod"
		touch "$u/.unpacked-$key"
	fi
	for d in $debs; do record_version "$d"; done
}

[ $# -gt 0 ] || set -- all
fetch_userland
for what in "$@"; do
	case $what in
	all) fetch_series 6.1; fetch_series 6.12 ;;
	6.1|6.12) fetch_series "$what" ;;
	userland) ;;
	*) fetch_kernel_pkg "linux-image-$what-unsigned" ;;
	esac
done
msg "versions recorded in $VM_CACHE/versions.txt"
cat "$VM_CACHE/versions.txt" >&2
