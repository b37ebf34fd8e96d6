#!/bin/bash
# tests/vm/userspace/run.sh — boot the test bed's Debian 12 image (mkimage.sh) under
# qemu with many devices, bring back what the boot shows (collect.sh) and check it
# against the kernel's own trace of the same boot (check.py).
#
# Usage: tests/vm/userspace/run.sh [-k 6.12|6.1|RELEASE] [-n NAME] MODE...
#   MODE  words   the words of `kmodtop boot-setup --cmdline --vmlinuz`, the kmodtop
#                 units masked (systemd.mask=): `report --boot` reads the global buffer
#         units   the units alone, as installed and enabled: the bundle in
#                 /var/lib/kmodtop
#         none    neither, no truth either (bench/boot-time.sh; no check)
#         predict `words` at VM_SMP vCPUs and again at VM_PREDICT_SMP (default 16), as
#                 NAME-smpN-words, then `check.py predict` of the two: the small
#                 boot's per-CPU risk list against the big boot's waste (opt-in: not
#                 in `make check-vm`)
#   Each boot but `none` carries the truth: the kernel's top-level buffer tracing the
#   load syscalls and every vmap allocation with its stack (`vmalloc:alloc_vmap_area`
#   added to the trace_event= list, the kernel keeps only the last one, and
#   `trace_trigger=alloc_vmap_area.stacktrace`; before 6.2, which has neither, a kprobe
#   on alloc_vmap_area and the stacktrace option), with the naming probes of kmodtop's
#   words in a group of its own (kmtbed) under `units`, whose truth must not hold
#   module events (they are what makes `report --boot` read the command line's capture).
#
# Output: $VM_BUILDDIR/userspace/RELEASE/NAME-MODE/ (the guest's collection, out/),
#   NAME-MODE.console.log, .ttyS1, .cmdline. NAME defaults to "boot".
# Environment: VM_CACHE, VM_BUILDDIR, VM_SMP (vCPUs, default 4), VM_PREDICT_SMP
#   (predict's big boot, default 16), VM_MEM (default 3G),
#   VM_TIMEOUT (default 900 s), VM_TRUTH=0 (no truth words: bench/boot-time.sh),
#   VM_QUIET=1 (console only in the log), VM_CHECK=0 (no check.py), KMODTOP (the
#   host's kmodtop for boot-setup; default the build's).
# Exit status: 0 every check passed, 77 a prerequisite missing, 1 otherwise.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
vm=$(cd "$here/.." && pwd)
top=$(cd "$vm/../.." && pwd)
VM_BUILDDIR=${VM_BUILDDIR:-$top/build-vm}
VM_CACHE=${VM_CACHE:-$vm/.cache}
VM_TIMEOUT=${VM_TIMEOUT:-900}
VM_SMP=${VM_SMP:-4}
VM_MEM=${VM_MEM:-3G}
export VM_CACHE VM_BUILDDIR

msg() { printf 'userspace: %s\n' "$*" >&2; }
skip() { msg "SKIP: $*"; exit 77; }
die() { msg "ERROR: $*"; exit 1; }

want=6.12
name=boot
while getopts k:n: o; do
	case $o in
	k) want=$OPTARG ;;
	n) name=$OPTARG ;;
	*) die "usage: $0 [-k KERNEL] [-n NAME] words|units|none|predict..." ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || set -- words units
QEMU=${QEMU:-qemu-system-x86_64}
command -v "$QEMU" >/dev/null 2>&1 || skip "$QEMU not found (apt-get install qemu-system-x86)"
command -v python3 >/dev/null 2>&1 || skip "python3 not found"
k=${KMODTOP:-$top/src/kmodtop}
[ -x "$k" ] || skip "no kmodtop on the host ($k)"

t0=$(date +%s)
rc=0
out=$("$here/mkimage.sh" "$want") || rc=$?
[ $rc -eq 0 ] || { [ $rc -eq 77 ] && exit 77; die "mkimage.sh $want failed"; }
out=$(echo "$out" | tail -1)
rel=$(basename "$out")
msg "$rel: image ready in $(( $(date +%s) - t0 )) s"

# kmodtop's words for this kernel, one line
words=$("$k" boot-setup --cmdline --vmlinuz "$out/vmlinuz" --kernel-release "$rel" | tr '\n' ' ')
ev=$(printf '%s\n' $words | sed -n 's/^trace_event=//p')
kp=$(printf '%s\n' $words | sed -n 's/^kprobe_event=//p')
opts=$(printf '%s\n' $words | sed -n 's/^trace_options=//p')
[ -n "$ev" ] || die "boot-setup gave no trace_event=: $words"
# the truth's buffer: every vmap allocation of the boot has a stack under it (kernel
# stacks of every fork among them), far more than the load calls; nooverwrite keeps
# the oldest, so the buffer must hold the whole boot (the last trace_buf_size= counts)
truthbuf=${VM_TRUTH_BUF:-32M}
# The vmap allocations and their stacks: the vmalloc:alloc_vmap_area tracepoint and
# trace_trigger= came in 6.2. Before, a kprobe on alloc_vmap_area (the kernel enables
# the kprobe_event= probes at boot; it keeps only the last kprobe_event= and
# trace_options=, so they join kmodtop's) and the stacktrace option: a stack after
# every event of the top-level buffer, which measure.py matches to the allocations.
mm=$(echo "$rel" | sed -n 's/^\([0-9]*\.[0-9]*\).*/\1/p')
if [ -n "$mm" ] && [ "$(printf '%s\n' 6.2 "$mm" | sort -V | head -1)" != 6.2 ]; then
	truth_ev= truth_kp=';p:kmtbed/alloc_vmap_area,alloc_vmap_area,size=$arg1:u64'
	truth_opt=,stacktrace truth="trace_buf_size=$truthbuf"
else
	truth_ev=,vmalloc:alloc_vmap_area truth_kp= truth_opt=
	truth="trace_trigger=alloc_vmap_area.stacktrace trace_buf_size=$truthbuf"
fi

boot_one() {
	local mode=$1 append dir con ser units u
	dir=$out/$name-$mode
	con=$dir.console.log
	ser=$dir.ttyS1
	units=$(cat "$out/units.txt")
	append="root=/dev/vda rw console=ttyS0 panic=-1 no_timer_check"
	case $mode in
	words)
		append="$append $(printf '%s\n' $words |
			grep -v '^trace_event=\|^kprobe_event=\|^trace_options=' | tr '\n' ' ')"
		if [ "${VM_TRUTH:-1}" = 0 ]; then
			append="$append trace_event=$ev kprobe_event=$kp trace_options=$opts"
		else
			append="$append trace_event=$ev$truth_ev kprobe_event=$kp$truth_kp"
			append="$append trace_options=$opts$truth_opt $truth"
		fi
		for u in $units; do append="$append systemd.mask=$u"; done ;;
	units)
		# the load syscalls and vmap allocations, named by kmodtop's own probes moved
		# to a group of the test bed's (no module events: see above)
		if [ "${VM_TRUTH:-1}" != 0 ]; then
			local tev="syscalls:sys_enter_finit_module,syscalls:sys_exit_finit_module"
			tev="$tev,syscalls:sys_enter_init_module,syscalls:sys_exit_init_module"
			append="$append trace_event=$tev$truth_ev kprobe_event=$(printf '%s' "$kp" |
				sed 's/kmodtop\//kmtbed\//g; s/kmodtop_/kmtbed_/g')$truth_kp"
			append="$append trace_options=nooverwrite$truth_opt trace_clock=global $truth"
		fi ;;
	none)
		# the image has the units enabled: neither means masking them
		for u in $units; do append="$append systemd.mask=$u"; done ;;
	*) die "unknown mode $mode" ;;
	esac
	[ ${#append} -lt 2048 ] || die "$mode: kernel command line of ${#append} bytes (2047 at most)"
	rm -rf "$dir" "$ser" "$con"
	printf '%s\n' "$append" >"$dir.cmdline"
	msg "$rel: booting ($mode, -smp $VM_SMP, timeout ${VM_TIMEOUT}s); console in $con"
	local tb=$(date +%s) qrc=0
	# Debian's kernel and its initramfs from the image; the disk read-only for qemu
	# (-snapshot: each boot starts from the same image). The devices are a small
	# machine's worth of the kinds udev loads drivers for at coldplug.
	set +e
	timeout -k 10 "$VM_TIMEOUT" "$QEMU" -accel tcg,thread=single -M q35 -smp "$VM_SMP" -m "$VM_MEM" \
		-nographic -no-reboot -kernel "$out/vmlinuz" -initrd "$out/initrd.img" \
		-append "$append" -snapshot \
		-drive file="$out/disk.img",if=virtio,format=raw \
		-serial mon:stdio -serial "file:$ser" \
		-nic user,model=e1000 -nic user,model=e1000e -nic user,model=rtl8139 \
		-nic user,model=virtio-net-pci -nic user,model=ne2k_pci -nic user,model=vmxnet3 \
		-device qemu-xhci,id=xhci -device usb-tablet,bus=xhci.0 \
		-device usb-ehci,id=ehci -device piix3-usb-uhci,id=uhci \
		-audiodev none,id=snd0 -device intel-hda -device hda-duplex,audiodev=snd0 \
		-device AC97,audiodev=snd0 \
		-device virtio-rng-pci -device virtio-balloon-pci -device virtio-serial-pci \
		-device virtio-scsi-pci -device i6300esb \
		</dev/null >"$con" 2>&1 &
	local qpid=$!
	[ "${VM_QUIET:-0}" = 1 ] || tail -f "$con" --pid=$qpid &
	wait $qpid
	qrc=$?
	set -e
	msg "$rel: $mode guest ran $(( $(date +%s) - tb )) s (qemu exit $qrc)"
	[ $qrc -ne 124 ] && [ $qrc -ne 137 ] || { msg "$mode: guest did not finish in ${VM_TIMEOUT}s"; return 1; }
	[ $qrc -eq 0 ] || { msg "$mode: qemu exited with $qrc"; return 1; }
	# the capture: base64 between markers on the second serial port (tests/vm/init's way)
	local hdr size sum tgz=$dir.tar.gz
	hdr=$(tr -d '\r' <"$ser" | grep -a -m 1 '^=====KMT-CAPTURE-BEGIN ' || true)
	[ -n "$hdr" ] || { msg "$mode: no capture marker in $ser (console: $con)"; return 1; }
	grep -aq '^=====KMT-CAPTURE-END=====' "$ser" || { msg "$mode: capture truncated in $ser"; return 1; }
	size=$(echo "$hdr" | sed -n 's/.*size=\([0-9]*\).*/\1/p')
	sum=$(echo "$hdr" | sed -n 's/.*md5=\([0-9a-f]*\).*/\1/p')
	tr -d '\r' <"$ser" | sed -n '/^=====KMT-CAPTURE-BEGIN /,/^=====KMT-CAPTURE-END=====/p' |
		sed '1d;$d' | base64 -d >"$tgz" || { msg "$mode: capture does not decode"; return 1; }
	[ "$(wc -c <"$tgz")" = "$size" ] && [ "$(md5sum <"$tgz" | cut -d' ' -f1)" = "$sum" ] ||
		{ msg "$mode: capture size or checksum mismatch"; return 1; }
	mkdir -p "$dir"
	tar -C "$dir" -xzf "$tgz"
	# the bundles, unpacked, and each read again by the host's kmodtop with the
	# image's module tree
	local b
	for b in "$dir"/out/bundles/_*.tar; do
		[ -f "$b" ] || continue
		mkdir -p "${b%.tar}"
		tar -C "${b%.tar}" -xf "$b"
	done
	for b in "$dir"/out/bundles/*/boot-*; do
		[ -d "$b" ] || continue
		"$k" --root "$b" report -j >"$b.host.json" 2>"$b.host.err" || true
	done
	cp "$con" "$dir/out/console.log"
	cp "$dir.cmdline" "$dir/out/host-cmdline"
	[ "$mode" = none ] || [ "${VM_CHECK:-1}" = 0 ] && return 0
	local crc=0
	python3 "$here/check.py" "$mode" "$dir/out" || crc=1
	# report, top and ci count the same over each bundle the boot left (as over the
	# fixtures in tests/cli/agree.sh): the units' capture is a root like any other
	for b in "$dir"/out/bundles/*/boot-*; do
		[ -d "$b" ] || continue
		KMODTOP=$k "$vm/check-agree.sh" "$b" && continue
		[ $? = 77 ] || crc=1
	done
	return $crc
}

# the same image booted with the words on VM_SMP and on VM_PREDICT_SMP vCPUs; each boot
# is checked as `words` is, and the prediction is checked whatever those checks said
predict_boots() {
	local base=$name small=$VM_SMP big=${VM_PREDICT_SMP:-16} s rc=0
	[ "$big" -gt "$small" ] || die "predict: VM_PREDICT_SMP=$big is not more than VM_SMP=$small"
	for s in $small $big; do
		name=$base-smp$s VM_SMP=$s boot_one words || rc=1
	done
	[ "${VM_CHECK:-1}" = 0 ] && return $rc
	for s in $small $big; do
		[ -f "$out/$base-smp$s-words/out/tracing/trace" ] ||
			{ msg "predict: no trace of the $s-vCPU boot"; return 1; }
	done
	KMODTOP=$k python3 "$here/check.py" predict "$out/$base-smp$small-words/out" \
		"$out/$base-smp$big-words/out" --root "$out/root" || rc=1
	return $rc
}

status=0
for m in "$@"; do
	if [ "$m" = predict ]; then
		predict_boots || { status=1; msg "$rel: predict FAILED (artifacts in $out/$name-smp*-words)"; }
		continue
	fi
	boot_one "$m" || { status=1; msg "$rel: $m FAILED (artifacts in $out/$name-$m)"; }
done
msg "$rel: total $(( $(date +%s) - t0 )) s"
exit $status
