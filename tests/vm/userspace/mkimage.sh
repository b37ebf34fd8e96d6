#!/bin/bash
# tests/vm/userspace/mkimage.sh — a Debian 12 system disk for the real-userspace boots.
#
# Usage: tests/vm/userspace/mkimage.sh [6.12|6.1|RELEASE]   (default 6.12)
#
# 1. mmdebstrap (mode root or unshare) of bookworm, --variant=minbase, with systemd,
#    systemd-sysv, udev, kmod, initramfs-tools, the runtime libraries the built kmodtop
#    links (found with ldd and dpkg -S on the host, which is bookworm too) and the very
#    kernel packages tests/vm/fetch.sh cached, of 6.1 and 6.12 both and RELEASE when it
#    is another (linux-image-RELEASE-unsigned, whose postinst makes Debian's
#    initramfs): one image, one mmdebstrap, for every kernel. The tarball is cached in
#    $VM_CACHE/userspace/, named by a hash of everything that goes into it, so that a
#    second run (or another worktree) reuses it.
# 2. That tree unpacked in $VM_BUILDDIR/userspace/RELEASE/root, kmodtop put in with
#    `make install DESTDIR=` from the build tree (best configured --prefix=/usr
#    --sysconfdir=/etc, as a distribution builds it; /usr/local works too), its units enabled with
#    `systemctl --root` as `systemctl enable` would, and the test bed's collector unit
#    (collect.sh, kmt-bed-collect.service: not kmodtop's) enabled beside them.
# 3. An ext4 disk image made from the tree (mke2fs -d: no loop mount), and the image's
#    own vmlinuz and initrd copied out for qemu's -kernel/-initrd.
#
# Output: $VM_BUILDDIR/userspace/RELEASE/{disk.img,vmlinuz,initrd.img,units.txt}
#   units.txt: the kmodtop units the install enabled, one name a line.
# Environment: VM_CACHE, VM_BUILDDIR (as run-qemu.sh), KMODTOP_BUILD (the configured
#   build tree to `make install` from; default: the top of the source tree),
#   VM_MIRROR (default: the host's apt sources).
# Exit status: 0 ok, 77 a prerequisite is missing, 1 failure.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
vm=$(cd "$here/.." && pwd)
top=$(cd "$vm/../.." && pwd)
VM_BUILDDIR=${VM_BUILDDIR:-$top/build-vm}
VM_CACHE=${VM_CACHE:-$vm/.cache}
KMODTOP_BUILD=${KMODTOP_BUILD:-$top}
export VM_CACHE

msg() { printf 'mkimage: %s\n' "$*" >&2; }
skip() { msg "SKIP: $*"; exit 77; }
die() { msg "ERROR: $*"; exit 1; }

want=${1:-6.12}
for t in mmdebstrap mke2fs dpkg ldd sha256sum; do
	command -v $t >/dev/null 2>&1 || skip "$t not found (apt-get install mmdebstrap e2fsprogs)"
done
# mode root needs uid 0; unshare needs user namespaces
mode=root
[ "$(id -u)" = 0 ] || mode=unshare
bin=$KMODTOP_BUILD/src/kmodtop
[ -x "$bin" ] || skip "no built kmodtop in $KMODTOP_BUILD (configure --prefix=/usr --sysconfdir=/etc; make)"
# --prefix=/usr --sysconfdir=/etc is a distribution's layout; the default /usr/local
# works too (systemd looks for units in /usr/local/lib/systemd/system): what a user
# who runs `make install` gets
grep -q '^prefix = /usr$' "$KMODTOP_BUILD/Makefile" ||
	msg "note: $KMODTOP_BUILD is configured with $(sed -n 's/^prefix = //p' "$KMODTOP_BUILD/Makefile"), not --prefix=/usr"

# One image holds the kernels of both series (and WANT when it is another): a fresh
# machine pays one mmdebstrap for every kernel the test bed boots, and the image each
# boot gets differs only in the kernel it starts
mkdir -p "$VM_CACHE"
rel= debs=
for k in $(printf '%s\n' 6.1 6.12 "$want" | awk '!seen[$0]++'); do
	flock "$VM_CACHE/.fetch.lock" "$vm/fetch.sh" "$k" >&2 || {
		rc=$?; [ $rc -eq 77 ] && exit 77; die "fetch.sh $k failed"; }
	r=$(flock "$VM_CACHE/.fetch.lock" "$vm/fetch.sh" --release "$k")
	d=$(ls "$VM_CACHE"/debs/linux-image-"$r"-unsigned_*_amd64.deb 2>/dev/null | tail -1)
	[ -n "$d" ] || die "no linux-image-$r-unsigned .deb in $VM_CACHE/debs"
	debs="$debs,$d"
	[ "$k" = "$want" ] && rel=$r
done

# the packages kmodtop's libraries come from (bookworm host = bookworm guest)
libpkgs=$(ldd "$bin" | awk '$3 ~ /^\// { print $3 }' | while read -r so; do
	dpkg -S "$(readlink -f "$so")" 2>/dev/null || dpkg -S "$so" 2>/dev/null || true
done | cut -d: -f1 | sort -u | grep -v '^libc6$' | tr '\n' ' ')
[ -n "$libpkgs" ] || die "no library package found for $bin (ldd, dpkg -S)"
pkgs="systemd systemd-sysv udev kmod initramfs-tools $libpkgs"
pkgs=$(printf '%s\n' $pkgs | sort -u | tr '\n' ',' | sed 's/,$//')

# the cache key: the package list, the kernel package, this script's mmdebstrap line
key=$(printf '%s\n' "bookworm minbase v2" "$pkgs" $(printf '%s\n' ${debs//,/ } | xargs -n1 basename | sort) |
	sha256sum | cut -c1-16)
tarball=$VM_CACHE/userspace/bookworm-$key.tar
# mmdebstrap chooses its output format by the name: .tar for the part too
part=$VM_CACHE/userspace/.part-bookworm-$key.tar
mkdir -p "$VM_CACHE/userspace"
if [ -s "$tarball" ]; then
	msg "cached: $tarball"
else
	msg "mmdebstrap ($mode) bookworm minbase + $pkgs + $(printf '%s\n' ${debs//,/ } | xargs -n1 basename | tr '\n' ' ')"
	t0=$(date +%s)
	exec 9>"$VM_CACHE/userspace/.lock"
	flock 9
	if [ ! -s "$tarball" ]; then
		# the local .deb by its path: apt in the chroot needs to see it (the hook
		# mounts it there in the modes that would not)
		hooks=
		[ -d /usr/share/mmdebstrap/hooks/file-mirror-automount ] &&
			hooks=--hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount
		mmdebstrap --mode=$mode --variant=minbase $hooks --include="$pkgs$debs" \
			bookworm "$part" ${VM_MIRROR-} >&2 || { rm -f "$part"; die "mmdebstrap failed"; }
		mv "$part" "$tarball"
	fi
	flock -u 9
	msg "mmdebstrap took $(( $(date +%s) - t0 )) s"
fi

out=$VM_BUILDDIR/userspace/$rel
root=$out/root
# the disk of the last run when nothing that goes into it changed (the boots run from
# it with -snapshot and leave it as it was)
stamp=$( { echo "$tarball"; cat "$bin" "$here/collect.sh" "$here/kmt-bed-collect.service" "$0" \
	"$KMODTOP_BUILD"/systemd/*.service 2>/dev/null; } | sha256sum | cut -c1-32)
if [ -s "$out/disk.img" ] && [ "$(cat "$out/stamp" 2>/dev/null)" = "$stamp" ]; then
	msg "$rel: $out/disk.img is up to date"
	echo "$out"
	exit 0
fi
rm -f "$out/stamp"
rm -rf "$root"
mkdir -p "$root"
tar -C "$root" -xf "$tarball"
[ -f "$root/boot/vmlinuz-$rel" ] && [ -f "$root/boot/initrd.img-$rel" ] ||
	die "the image has no /boot/vmlinuz-$rel and initrd.img-$rel"

# kmodtop as `make install` puts it, its units enabled as a user would
make -C "$KMODTOP_BUILD" -s install DESTDIR="$root" >"$out/make-install.log" 2>&1 ||
	die "make install DESTDIR=$root failed (see $out/make-install.log)"
unitfiles=$(cd "$root" && find lib/systemd/system usr/lib/systemd/system usr/local/lib/systemd/system \
	-maxdepth 1 -name 'kmodtop*.service' 2>/dev/null | sort)
[ -n "$unitfiles" ] || die "make install put no kmodtop*.service in $root"
units=$(for f in $unitfiles; do basename "$f"; done | sort -u)
printf '%s\n' $units >"$out/units.txt"
# only the units with an [Install] section can be enabled (the others are pulled in)
for f in $unitfiles; do
	grep -q '^\[Install\]' "$root/$f" || continue
	systemctl --root="$root" enable "$(basename "$f")" >&2 ||
		die "systemctl --root enable $(basename "$f") failed"
done

# the test bed's collector (not kmodtop's): after the boot, ship what it shows
install -m 0755 "$here/collect.sh" "$root/usr/local/sbin/kmt-bed-collect"
install -m 0644 "$here/kmt-bed-collect.service" "$root/etc/systemd/system/"
systemctl --root="$root" enable kmt-bed-collect.service >&2
# a system of its own: root on the virtio disk, a name, no password prompt to wait for
echo '/dev/vda / ext4 rw,errors=remount-ro 0 1' >"$root/etc/fstab"
echo kmtbed >"$root/etc/hostname"
# the collector ends the boot; a getty on the console would only compete with it
systemctl --root="$root" mask serial-getty@ttyS0.service getty@tty1.service >&2 || true

cp "$root/boot/vmlinuz-$rel" "$out/vmlinuz"
cp "$root/boot/initrd.img-$rel" "$out/initrd.img"
rm -f "$out/disk.img"
mke2fs -q -t ext4 -L kmtbed -d "$root" "$out/disk.img" 3G || die "mke2fs -d failed"
echo "$stamp" >"$out/stamp"
msg "$rel: $out/disk.img, units: $(echo $units)"
echo "$out"
