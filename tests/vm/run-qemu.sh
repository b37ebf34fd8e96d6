#!/bin/bash
# tests/vm/run-qemu.sh — boot one Debian kernel under qemu, run the workload, bring
# the capture back and check it.
#
# Usage: tests/vm/run-qemu.sh 6.1|6.12|all|KERNEL_RELEASE [more...]
#
# A KERNEL_RELEASE already unpacked in $VM_CACHE/kernel/RELEASE/ (boot/vmlinuz-RELEASE,
# boot/config-RELEASE, lib/modules/RELEASE with depmod's indexes) is used as it is, so a
# kernel built by hand can be tested too; anything else is fetched from Debian.
#
# For each kernel: fetch.sh (cached), mkinitramfs.sh, boot
#   qemu-system-x86_64 -nographic -no-reboot -m 2G -smp 2 (TCG; KVM when /dev/kvm works)
# with a timeout, decode the capture the guest sends on its second serial port, lay it
# out in $VM_BUILDDIR/vm-out/RELEASE/ (the layout of tests/fixtures/<name>/, plus
# lib/modules and boot/config from the initramfs), compute capture/measured.json with
# measure.py and compare the trace with the workload's own log (check-run.sh).
#
# Environment:
#   VM_BUILDDIR        output root (default: <top>/build-vm)
#   VM_BENCH=1         boot with kmt.bench=live: bench/live-vm.sh's measurement alone
#                      (tests/vm/live-bench.sh), its results in vm-out/RELEASE/bench/
#   VM_CACHE           download cache (default: tests/vm/.cache)
#   VM_TIMEOUT         seconds before the guest is killed (default 300; a run takes
#                      about 20-45 s under TCG on 2 host cores)
#   VM_APPEND          extra kernel command line (e.g. kmt.steps=... kmt.comm=storm)
#   VM_TCG_THREAD      single (default) or multi: TCG's threads (see the accel below)
#   VM_KPTR_RESTRICT   kptr_restrict in the guest (default 1 on 6.1, 0 otherwise)
#   VM_QUIET=1         do not copy the guest console to stdout (it is always in
#                      vm-out/RELEASE.console.log)
#   VM_CHECK=0         skip check-run.sh
#   VM_EXPECT_LIVE     1: the live suite must have run, 0: it need not (default: 1
#                      when kmodtop is in the initramfs, unless kmt.live=0 in VM_APPEND
#                      or KMODTOP_LIVE_ARGS=none)
#   VM_ACCEL           tcg (default: software emulation), kvm, or auto (KVM when
#                      /dev/kvm opens, else TCG)
#   VM_BOOT=1          the boot storm (make check-vm): the guest boots with the words
#                      of `$KMODTOP boot-setup --cmdline --vmlinuz VMLINUZ
#                      --kernel-release REL` and kmt.boot=1; its init runs the boot
#                      storm first (tests/vm/boot-storm.sh), and check-boot.py checks
#                      `kmodtop report --boot` against the workload's log and the
#                      kernel's measurement. Needs KMODTOP (or src/kmodtop) on the host.
#   VM_BOOT_CMDLINE_DIR  a directory of files named RELEASE, each the boot words to use
#                      for that kernel instead of boot-setup's (a hand-made command line)
#   KMODTOP, KMODTOP_LIVE_ARGS, KMODTOP_POST_ARGS: see mkinitramfs.sh
# Exit status: 0 ok, 77 prerequisite missing (qemu, packages), 1 failure.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
VM_BUILDDIR=${VM_BUILDDIR:-$top/build-vm}
VM_CACHE=${VM_CACHE:-$here/.cache}
VM_TIMEOUT=${VM_TIMEOUT:-300}
export VM_CACHE

msg() { printf 'run-qemu: %s\n' "$*" >&2; }
skip() { msg "SKIP: $*"; exit 77; }
die() { msg "ERROR: $*"; exit 1; }

[ $# -ge 1 ] || die "usage: $0 6.1|6.12|KERNEL_RELEASE [...]"
QEMU=${QEMU:-qemu-system-x86_64}
command -v "$QEMU" >/dev/null 2>&1 || skip "$QEMU not found (apt-get install qemu-system-x86)"
for t in timeout base64 md5sum tar flock; do
	command -v $t >/dev/null 2>&1 || skip "$t not found"
done

# TCG by default: a /dev/kvm that opens is not always one that runs a guest (this
# project's CI host spins at "Booting from ROM" until the timeout under -enable-kvm).
# One TCG thread for both vCPUs: under multi-threaded TCG a vCPU can run code another
# vCPU has just patched back (text_poke_bp()'s int3 removed, its translation not yet
# dropped), and the guest dies with "Oops: int3" in syscall_trace_enter when tracing
# is switched on during a load storm (tests/vm/README.md); VM_TCG_THREAD=multi for it
VM_TCG_THREAD=${VM_TCG_THREAD-single}
case ${VM_ACCEL:-tcg} in
tcg) accel="-accel tcg${VM_TCG_THREAD:+,thread=$VM_TCG_THREAD}" ;;
kvm) accel="-enable-kvm" ;;
auto) accel="-accel tcg${VM_TCG_THREAD:+,thread=$VM_TCG_THREAD}"
	if [ -w /dev/kvm ] && [ -r /dev/kvm ]; then
		accel="-enable-kvm"
	fi ;;
*) die "VM_ACCEL=$VM_ACCEL: expected auto, kvm or tcg" ;;
esac

run_one() {
	local want=$1 rel rc t0 t1 out con ser stage cpio kptr what
	t0=$(date +%s)
	rc=0
	case $want in
	6.1|6.12) what=$want ;;
	*) if [ -f "$VM_CACHE/kernel/$want/boot/vmlinuz-$want" ]; then what=userland; else what=$want; fi ;;
	esac
	# make check-vm runs two kernels at once: one fetch at a time fills the shared cache
	mkdir -p "$VM_CACHE"
	flock "$VM_CACHE/.fetch.lock" "$here/fetch.sh" "$what" || rc=$?
	[ $rc -eq 0 ] || { [ $rc -eq 77 ] && exit 77; die "fetch.sh $what failed"; }
	rel=$(flock "$VM_CACHE/.fetch.lock" "$here/fetch.sh" --release "$want")
	out=$VM_BUILDDIR/vm-out/$rel
	con=$VM_BUILDDIR/vm-out/$rel.console.log
	ser=$VM_BUILDDIR/vm-out/$rel.ttyS1
	dbg=$VM_BUILDDIR/vm-out/$rel.debugcon
	stage=$VM_BUILDDIR/vm-initramfs/$rel.d
	cpio=$VM_BUILDDIR/vm-initramfs/$rel.cpio
	mkdir -p "$VM_BUILDDIR/vm-out" "$VM_BUILDDIR/vm-initramfs"

	rc=0
	"$here/mkinitramfs.sh" "$rel" "$cpio" "$stage" || rc=$?
	[ $rc -eq 0 ] || { [ $rc -eq 77 ] && exit 77; die "mkinitramfs.sh $rel failed"; }

	case $rel in
	6.1.*) kptr=${VM_KPTR_RESTRICT:-1} ;;
	*) kptr=${VM_KPTR_RESTRICT:-0} ;;
	esac
	# kmodtop on the host: the boot words, and the capture read as a bundle
	local k=${KMODTOP-auto}
	if [ "$k" = auto ]; then
		k=
		for c in "$top/src/kmodtop" "$top/build/src/kmodtop"; do
			[ -x "$c" ] && { k=$c; break; }
		done
	fi
	# the boot storm: what kmodtop needs traced from boot on, in the top-level buffer.
	# The words hold $argN, ';' and '(': they stay in one variable, quoted, up to
	# qemu's argv (never through eval or an unquoted expansion)
	local bootargs=
	if [ "${VM_BOOT:-0}" = 1 ]; then
		local vmlinuz=$VM_CACHE/kernel/$rel/boot/vmlinuz-$rel
		if [ -n "${VM_BOOT_CMDLINE_DIR-}" ] && [ -f "$VM_BOOT_CMDLINE_DIR/$rel" ]; then
			bootargs=$(cat "$VM_BOOT_CMDLINE_DIR/$rel")
			msg "$rel: boot words from $VM_BOOT_CMDLINE_DIR/$rel"
		else
			[ -n "$k" ] && [ "$k" != none ] && [ -x "$k" ] ||
				die "VM_BOOT=1 needs kmodtop on the host (KMODTOP=$k)"
			bootargs=$("$k" boot-setup --cmdline --vmlinuz "$vmlinuz" --kernel-release "$rel") ||
				die "$rel: $k boot-setup --cmdline --vmlinuz $vmlinuz failed"
		fi
		bootargs=$(printf '%s' "$bootargs" | tr '\n' ' ')
		case $bootargs in
		*trace_event=*) ;;
		*) die "$rel: the boot words have no trace_event=: $bootargs" ;;
		esac
		bootargs="$bootargs kmt.boot=1"
		printf '%s\n' "$bootargs" >"$VM_BUILDDIR/vm-out/$rel.boot-cmdline"
		msg "$rel: boot words (${#bootargs} bytes) in $VM_BUILDDIR/vm-out/$rel.boot-cmdline"
	fi
	# bench/live-vm.sh: the measurement alone, no workload, no checks
	[ "${VM_BENCH:-0}" = 1 ] && bootargs="${bootargs:+$bootargs }kmt.bench=live"
	local append="console=ttyS0 quiet panic=-1 kmt.kptr_restrict=$kptr ${VM_APPEND-}${bootargs:+ $bootargs}"
	# x86's COMMAND_LINE_SIZE: the kernel cuts a longer one short, silently
	[ ${#append} -lt 2048 ] || die "$rel: kernel command line of ${#append} bytes (2047 at most)"
	rm -f "$ser" "$dbg" "$con"
	msg "booting $rel ($accel, timeout ${VM_TIMEOUT}s); console in $con"
	local t_boot=$(date +%s)
	set +e
	if [ "${VM_QUIET:-0}" = 1 ]; then
		timeout -k 10 "$VM_TIMEOUT" "$QEMU" $accel -nographic -no-reboot -m 2G -smp 2 \
			-kernel "$VM_CACHE/kernel/$rel/boot/vmlinuz-$rel" -initrd "$cpio" \
			-append "$append" \
			-serial mon:stdio -serial "file:$ser" -debugcon "file:$dbg" -net none </dev/null >"$con" 2>&1
		rc=$?
	else
		timeout -k 10 "$VM_TIMEOUT" "$QEMU" $accel -nographic -no-reboot -m 2G -smp 2 \
			-kernel "$VM_CACHE/kernel/$rel/boot/vmlinuz-$rel" -initrd "$cpio" \
			-append "$append" \
			-serial mon:stdio -serial "file:$ser" -debugcon "file:$dbg" -net none </dev/null 2>&1 | tee "$con"
		rc=${PIPESTATUS[0]}
	fi
	set -e
	t1=$(date +%s)
	[ $rc -ne 124 ] && [ $rc -ne 137 ] || die "$rel: guest did not finish in ${VM_TIMEOUT}s (console: $con)"
	[ $rc -eq 0 ] || die "$rel: qemu exited with $rc (console: $con)"
	msg "$rel: guest ran $((t1 - t_boot)) s"

	# ---- decode the capture: bytes on the debug console (kmt-ship), else base64 ----
	local hdr size sum tgz=$VM_BUILDDIR/vm-out/$rel.tar.gz
	if [ -s "$dbg" ] && grep -aq '^=====KMT-CAPTURE-BEGIN ' "$dbg"; then
		hdr=$(grep -a -m 1 '^=====KMT-CAPTURE-BEGIN ' "$dbg")
		size=$(echo "$hdr" | sed -n 's/.*size=\([0-9]*\).*/\1/p')
		sum=$(echo "$hdr" | sed -n 's/.*md5=\([0-9a-f]*\).*/\1/p')
		# the bytes right after the marker line
		local at
		at=$(grep -a -b -m 1 '^=====KMT-CAPTURE-BEGIN ' "$dbg" | cut -d: -f1)
		at=$((at + ${#hdr} + 1))
		tail -c +$((at + 1)) "$dbg" | head -c "$size" >"$tgz"
	else
		[ -s "$ser" ] || die "$rel: nothing on the debug console or the second serial port ($dbg, $ser); console: $con"
		hdr=$(tr -d '\r' <"$ser" | grep -a -m 1 '^=====KMT-CAPTURE-BEGIN ' || true)
		[ -n "$hdr" ] || die "$rel: no capture marker in $ser; console: $con"
		grep -aq '^=====KMT-CAPTURE-END=====' "$ser" || die "$rel: capture truncated (no end marker) in $ser"
		size=$(echo "$hdr" | sed -n 's/.*size=\([0-9]*\).*/\1/p')
		sum=$(echo "$hdr" | sed -n 's/.*md5=\([0-9a-f]*\).*/\1/p')
		tr -d '\r' <"$ser" | sed -n '/^=====KMT-CAPTURE-BEGIN /,/^=====KMT-CAPTURE-END=====/p' |
			sed '1d;$d' | base64 -d >"$tgz" || die "$rel: capture does not decode"
	fi
	[ "$(wc -c <"$tgz")" = "$size" ] || die "$rel: capture size mismatch"
	[ "$(md5sum <"$tgz" | cut -d' ' -f1)" = "$sum" ] || die "$rel: capture checksum mismatch"
	rm -rf "$out"
	mkdir -p "$out"
	tar -C "$out" -xzf "$VM_BUILDDIR/vm-out/$rel.tar.gz"
	if [ "${VM_BENCH:-0}" = 1 ]; then
		[ -s "$out/bench/result.txt" ] || die "$rel: no bench/result.txt in the capture (console: $con)"
		msg "$rel: bench results in $out/bench/result.txt"
		return 0
	fi
	# the module files the workload touched, with depmod's indexes, and the config
	mkdir -p "$out/lib/modules" "$out/boot"
	cp -a "$stage/lib/modules/$rel" "$out/lib/modules/"
	[ -f "$stage/boot/config-$rel" ] && cp "$stage/boot/config-$rel" "$out/boot/"
	grep -E "^(linux-image-$rel-unsigned|busybox-static|kmod) " "$VM_CACHE/versions.txt" \
		>"$out/capture/versions.txt" || true
	cp "$con" "$out/capture/console.log"
	# the boot words as given to qemu: check-boot.py finds them whole in /proc/cmdline
	[ -n "$bootargs" ] && [ -d "$out/boot" ] && printf '%s\n' "$bootargs" >"$out/boot/boot-cmdline.txt"

	if command -v python3 >/dev/null 2>&1; then
		python3 "$here/measure.py" "$out" >"$out/capture/measured.json" ||
			die "$rel: measure.py failed"
	else
		msg "python3 not found: no measured.json"
	fi
	# the same capture read on the host, as a bundle (kept as an artifact)
	if [ -n "$k" ] && [ "$k" != none ] && [ -x "$k" ]; then
		mkdir -p "$out/kmodtop"
		set +e
		# the first workload's part: the live runs it is compared with ended before the
		# second (the storms, tests/vm/check-storms.py) began
		local tr=$out/sys/kernel/tracing/trace
		if grep -q 'tracing_mark_write: STEP storm100-fresh-dummy' "$tr"; then
			sed '/tracing_mark_write: STEP storm100-fresh-dummy/,$d' "$tr" \
				>"$out/capture/trace-main.txt"
			tr=$out/capture/trace-main.txt
		fi
		"$k" --root "$out" report --trace "$tr" -j >"$out/kmodtop/host.out" \
			2>"$out/kmodtop/host.err"
		echo $? >"$out/kmodtop/host.rc"
		set -e
	fi
	msg "$rel: capture in $out"
	# the live suite was to run (tests/vm/init): its outputs must all be there
	local expect_live=0 a
	if [ -x "$stage/bin/kmodtop" ] && [ "${KMODTOP_LIVE_ARGS-}" != none ]; then
		expect_live=1
		for a in ${VM_APPEND-}; do
			case $a in kmt.live=1) expect_live=1 ;; kmt.live=*) expect_live=0 ;; esac
		done
	fi
	if [ "${VM_CHECK:-1}" != 0 ] && [ -x "$here/check-run.sh" ]; then
		KMODTOP=${k:-none} VM_EXPECT_LIVE=${VM_EXPECT_LIVE:-$expect_live} "$here/check-run.sh" "$out" ||
			{ msg "$rel: check FAILED (artifacts in $out)"; return 1; }
	fi
	# the boot storm: asked for, it must be there (check-boot.py's 77 is a failure here)
	if [ "${VM_BOOT:-0}" = 1 ] && [ "${VM_CHECK:-1}" != 0 ]; then
		KMODTOP=${k:-none} python3 "$here/check-boot.py" "$out" ||
			{ msg "$rel: boot check FAILED (artifacts in $out/boot)"; return 1; }
	fi
	msg "$rel: done in $(( $(date +%s) - t0 )) s (guest $((t1 - t_boot)) s)"
}

status=0
start=$(date +%s)
[ "$*" != all ] || set -- 6.1 6.12
for k in "$@"; do
	run_one "$k" || status=1
done
msg "total $(( $(date +%s) - start )) s"
exit $status
