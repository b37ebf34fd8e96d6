#!/bin/bash
# tests/vm/mkinitramfs.sh — build the test-bed initramfs for one kernel release.
#
# Usage: tests/vm/mkinitramfs.sh RELEASE OUT.cpio [STAGEDIR]
#
# The initramfs holds: busybox (static) with its applet links, Debian's kmod with
# modprobe/insmod/rmmod/lsmod/depmod/modinfo links and the shared libraries it needs,
# the modules the workload touches and their dependencies (from the unpacked kernel
# package, re-indexed with depmod), /boot/config-RELEASE, the static workload
# generator, the guest /init (tests/vm/init), and kmodtop with its libraries when
# $KMODTOP names an executable (default: src/kmodtop of the source tree, if built).
#
# Environment:
#   VM_CACHE            cache filled by fetch.sh (default tests/vm/.cache)
#   KMODTOP             kmodtop binary to include ("" or "none" to leave it out;
#                       unset: src/kmodtop or build/src/kmodtop when built)
#   KMODTOP_LIVE_ARGS   kmodtop arguments to run during the workload (default: none)
#   KMODTOP_POST_ARGS   kmodtop arguments to run after it (default "--root / report -j")
#   VM_EXTRA_MODULES    more module names to include
#   CC                  compiler for the workload (default gcc; needs static libc)
# STAGEDIR (default: OUT without .cpio, plus .d) keeps the unpacked tree; its
# lib/modules/RELEASE is what the capture's lib/modules/ is made of.
# Exit status: 0 ok, 77 prerequisite missing, 1 error.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
VM_CACHE=${VM_CACHE:-$here/.cache}

msg() { printf 'mkinitramfs: %s\n' "$*" >&2; }
skip() { msg "SKIP: $*"; exit 77; }
die() { msg "ERROR: $*"; exit 1; }

[ $# -ge 2 ] || die "usage: $0 RELEASE OUT.cpio [STAGEDIR]"
rel=$1
out=$2
stage=${3:-${out%.cpio}.d}

kdir=$VM_CACHE/kernel/$rel
udir=$VM_CACHE/userland
[ -f "$kdir/boot/vmlinuz-$rel" ] || skip "kernel $rel not in $VM_CACHE (run tests/vm/fetch.sh)"
[ -x "$udir/bin/busybox" ] && [ -x "$udir/bin/kmod" ] || skip "userland not in $VM_CACHE (run tests/vm/fetch.sh)"
for t in cpio readelf; do
	command -v "$t" >/dev/null 2>&1 || skip "$t not found (apt-get install cpio binutils)"
done
DEPMOD=$(command -v depmod || echo /sbin/depmod)
[ -x "$DEPMOD" ] || skip "depmod not found (apt-get install kmod)"
CC=${CC:-gcc}
command -v "$CC" >/dev/null 2>&1 || skip "$CC not found"

rm -rf "$stage"
mkdir -p "$stage"
cd "$stage"
mkdir -p bin sbin usr/bin usr/sbin lib/x86_64-linux-gnu lib64 etc proc sys dev tmp mnt run \
	capture boot "lib/modules/$rel"

# ---- busybox and kmod ------------------------------------------------------------
cp "$udir/bin/busybox" bin/busybox
for a in $("$udir/bin/busybox" --list); do
	case $a in
	busybox|modprobe|insmod|rmmod|lsmod|depmod|modinfo|init|linuxrc) continue ;;
	esac
	[ -e "bin/$a" ] || ln -s busybox "bin/$a"
done
# busybox's own module tools, for kmt.modprobe=busybox (comm "modprobe" via the link name)
mkdir -p usr/lib/kmt-busybox
for a in modprobe insmod rmmod; do
	ln -s ../../../bin/busybox "usr/lib/kmt-busybox/$a"
done
cp "$udir/bin/kmod" bin/kmod
for a in modprobe insmod rmmod lsmod depmod modinfo; do
	ln -s ../bin/kmod "sbin/$a"
done

# copy the shared libraries an ELF needs, looked up in the unpacked Debian packages
# first, then on the host (for kmodtop built here)
libpaths="$udir/lib/x86_64-linux-gnu $udir/usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /usr/local/lib"
copy_libs() {
	local elf=$1 n d found
	for n in $(readelf -d "$elf" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		[ -e "lib/x86_64-linux-gnu/$n" ] && continue
		found=
		for d in $libpaths; do
			if [ -e "$d/$n" ]; then
				found=$d/$n
				break
			fi
		done
		[ -n "$found" ] || die "$elf needs $n, not found"
		cp -L "$found" "lib/x86_64-linux-gnu/$n"
		copy_libs "lib/x86_64-linux-gnu/$n"
	done
}
ldso=
for d in $libpaths; do
	[ -e "$d/ld-linux-x86-64.so.2" ] && { ldso=$d/ld-linux-x86-64.so.2; break; }
done
[ -n "$ldso" ] || die "no ld-linux-x86-64.so.2"
cp -L "$ldso" lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
ln -s ../lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 lib64/ld-linux-x86-64.so.2
copy_libs bin/kmod

# ---- kmodtop (optional) ----------------------------------------------------------
KMODTOP=${KMODTOP-auto}
# named but not there: the guest would run without it, and every kmodtop check with it
# (they run when /bin/kmodtop is in the guest) would pass by not running
case $KMODTOP in
auto | none | '') ;;
*) [ -x "$KMODTOP" ] || die "KMODTOP=$KMODTOP is not an executable (build it, or KMODTOP=none)" ;;
esac
if [ "$KMODTOP" = auto ]; then
	KMODTOP=
	for k in "$top/src/kmodtop" "$top/build/src/kmodtop"; do
		[ -x "$k" ] && { KMODTOP=$k; break; }
	done
fi
if [ -n "$KMODTOP" ] && [ "$KMODTOP" != none ] && [ -x "$KMODTOP" ]; then
	# a libtool wrapper script is not the program: take the real one
	if head -c 2 "$KMODTOP" | grep -q '#!' && [ -x "$(dirname "$KMODTOP")/.libs/$(basename "$KMODTOP")" ]; then
		KMODTOP=$(dirname "$KMODTOP")/.libs/$(basename "$KMODTOP")
	fi
	cp "$KMODTOP" bin/kmodtop
	copy_libs bin/kmodtop
	msg "kmodtop: $KMODTOP"
else
	msg "kmodtop not built: the guest runs the workload only"
fi
# trace-cmd of the host (Debian's package), for the second workload's capture with the
# setup kmodtop prints (record --print-setup): a trace.dat taken without kmodtop
if tc=$(command -v trace-cmd 2>/dev/null) && [ -x "$tc" ]; then
	cp "$tc" bin/trace-cmd
	copy_libs bin/trace-cmd
	msg "trace-cmd: $tc"
else
	msg "no trace-cmd on the host (apt-get install trace-cmd): no trace.dat capture"
fi
{
	printf 'KMODTOP_LIVE_ARGS=%q\n' "${KMODTOP_LIVE_ARGS-}"
	printf 'KMODTOP_POST_ARGS=%q\n' "${KMODTOP_POST_ARGS---root / report -j}"
} >etc/kmt.conf

# ---- workload and init -------------------------------------------------------------
"$CC" -static -O2 -Wall -pthread -o bin/workload "$here/workload.c" ||
	skip "cannot build a static workload (libc6-dev with libc.a needed)"
"$CC" -static -O2 -Wall -o bin/kmt-ship "$here/ship.c" ||
	skip "cannot build the static capture sender"
# bench/live-vm.sh's storm of failed loads (kmt.bench=live)
"$CC" -static -O2 -Wall -o bin/kmt-initstorm "$here/initstorm.c" ||
	skip "cannot build kmt-initstorm"
# the boot storm's log of the modprobes' own calls (preloaded by workload -w boot),
# linked against the host's libc like kmodtop: Debian 12's, as the guest's
"$CC" -shared -fPIC -O2 -Wall -o lib/kmt-truth.so "$here/truth-preload.c" ||
	skip "cannot build kmt-truth.so"
cp "$here/init" init
# kmodtop top live during the workload (sourced by init)
cp "$here/top-live.sh" etc/kmt-top-live.sh
# live_ready (sourced by init and the test scripts)
cp "$here/live-ready.sh" etc/kmt-live-ready.sh
chmod 755 init
# kmt: the unprivileged user of tests/vm/nonroot.sh
cp "$here/nonroot.sh" bin/kmt-nonroot
cp "$here/mount-tracefs.sh" bin/kmt-mount-tracefs
# lost trace events, --since-boot, a bundle's names by size (run by init after the
# live suite)
cp "$here/lost-events.sh" bin/kmt-lost-events
cp "$here/since-boot.sh" bin/kmt-since-boot
cp "$here/bundle-names.sh" bin/kmt-bundle-names
# the boot storm, run first thing by init with kmt.boot=1
cp "$here/boot-storm.sh" bin/kmt-boot-storm
# kmodtop's live tracing against trace-cmd stream (kmt.bench=live)
cp "$here/live-bench.sh" bin/kmt-live-bench
chmod 755 bin/kmt-nonroot bin/kmt-mount-tracefs bin/kmt-lost-events bin/kmt-since-boot \
	bin/kmt-bundle-names bin/kmt-boot-storm bin/kmt-live-bench
printf 'root:x:0:0:root:/:/bin/sh\nkmt:x:1000:1000:kmt:/tmp:/bin/sh\n' >etc/passwd
printf 'root:x:0:\nkmt:x:1000:\n' >etc/group

# ---- modules -----------------------------------------------------------------------
mods="xfs libcrc32c crc32c_generic crc32c-intel nfs sctp af_key vfat fat nls_cp437
nls_iso8859-1 btrfs blake2b_generic loop isofs udf squashfs dm-crypt dummy tun ${VM_EXTRA_MODULES-}"
src=$kdir/lib/modules/$rel
[ -s "$src/modules.dep" ] || die "$src/modules.dep missing (fetch.sh runs depmod)"
want=$(
	for m in $mods; do
		# module name -> path, '-' and '_' being the same
		pat=$(echo "$m" | sed 's/[-_]/[-_]/g')
		p=$(sed -n "s@^\(\([^:]*/\)\?${pat}\.ko\(\.[a-z]*\)\?\):.*@\1@p" "$src/modules.dep" | head -n 1)
		if [ -z "$p" ]; then
			echo "mkinitramfs: note: no module $m in $rel" >&2
			continue
		fi
		echo "$p"
		# its dependencies, as depmod listed them
		sed -n "s@^${p}:@@p" "$src/modules.dep" | tr ' ' '\n' | sed '/^$/d'
	done | sort -u
)
n=0
for p in $want; do
	mkdir -p "lib/modules/$rel/$(dirname "$p")"
	cp "$src/$p" "lib/modules/$rel/$p"
	n=$((n + 1))
done
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[ -f "$src/$f" ] && cp "$src/$f" "lib/modules/$rel/$f"
done
"$DEPMOD" -b "$stage" "$rel"
[ -f "$kdir/boot/config-$rel" ] && cp "$kdir/boot/config-$rel" "boot/config-$rel"
msg "$n module files for $rel"

# ---- archive ---------------------------------------------------------------------
# uncompressed newc: nothing to decompress under emulation
find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0 >"$out.tmp"
mv "$out.tmp" "$out"
msg "wrote $out ($(du -h "$out" | cut -f1))"
