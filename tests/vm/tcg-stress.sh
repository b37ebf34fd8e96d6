#!/bin/sh
# tests/vm/tcg-stress.sh [RELEASE [RUNS]] — why the test bed runs TCG on one thread.
#
# Boots RELEASE (default the 6.12 of the cache) RUNS times (default 3) under each of
# multi-threaded and single-threaded TCG with a guest that only switches the
# finit_module syscall tracepoints on and off for 60 s while two processes make
# finit_module() calls without end: the kernel patches syscall_trace_enter()'s static
# branch with text_poke_bp() (an int3 over the site, then the new bytes) while the
# other vCPU runs through it. Under multi-threaded TCG a vCPU can still run its
# translation of the int3 after the patch is done, the int3 handler finds no patch in
# flight, and the guest dies with the test bed's old failure, "Oops: int3" in
# syscall_trace_enter. Prints per run: oopses, toggles done.
# Exit status 0 when single-threaded TCG never oopsed, 1 otherwise.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
VM_CACHE=${VM_CACHE:-$here/.cache}
rel=${1:-$(ls "$VM_CACHE/kernel" | grep '^6\.12' | head -n 1)}
runs=${2:-3}
kernel=$VM_CACHE/kernel/$rel/boot/vmlinuz-$rel
bb=$VM_CACHE/userland/bin/busybox
[ -f "$kernel" ] && [ -x "$bb" ] || { echo "tcg-stress: SKIP: run tests/vm/fetch.sh first" >&2; exit 77; }
command -v qemu-system-x86_64 >/dev/null || { echo "tcg-stress: SKIP: no qemu" >&2; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/kmt-tcg-stress.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/root/bin" "$work/root/proc" "$work/root/sys" "$work/root/dev"
cp "$bb" "$work/root/bin/busybox"
for a in sh mount echo cut poweroff cat; do ln -s busybox "$work/root/bin/$a"; done
cat >"$work/hammer.c" <<'EOF'
#define _GNU_SOURCE
#include <sys/syscall.h>
#include <unistd.h>
int main(void)
{
	for (;;)
		syscall(SYS_finit_module, -1, "", 0);
}
EOF
${CC:-gcc} -static -O2 -o "$work/root/bin/hammer" "$work/hammer.c"
cat >"$work/root/init" <<'EOF'
#!/bin/sh
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t tracefs tracefs /sys/kernel/tracing
E=/sys/kernel/tracing/events/syscalls/sys_enter_finit_module/enable
X=/sys/kernel/tracing/events/syscalls/sys_exit_finit_module/enable
/bin/hammer &
/bin/hammer &
i=0
end=$(($(cut -d. -f1 /proc/uptime) + 60))
while [ "$(cut -d. -f1 /proc/uptime)" -lt $end ]; do
	echo 1 >$E; echo 1 >$X; echo 0 >$E; echo 0 >$X
	i=$((i + 1))
done
echo "STRESS DONE $i"
poweroff -f
EOF
chmod 755 "$work/root/init"
(cd "$work/root" && find . | cpio -o -H newc --quiet) >"$work/initrd"

rc=0
for mode in multi single; do
	for n in $(seq "$runs"); do
		timeout 400 qemu-system-x86_64 -accel "tcg,thread=$mode" -nographic -no-reboot \
			-m 1G -smp 2 -kernel "$kernel" -initrd "$work/initrd" -net none \
			-append "console=ttyS0 quiet panic=-1" </dev/null >"$work/out" 2>&1 || true
		oops=$(grep -c 'Oops: int3' "$work/out" || true)
		done_=$(sed -n 's/.*STRESS DONE \([0-9]*\).*/\1/p' "$work/out")
		printf 'tcg-stress: %s %s thread=%s run %d: %s int3 oopses, %s toggles\n' \
			"$rel" "$(date +%T)" "$mode" "$n" "$oops" "${done_:-(died before the end)}"
		[ "$mode" = single ] && [ "$oops" != 0 ] && rc=1
	done
done
exit $rc
