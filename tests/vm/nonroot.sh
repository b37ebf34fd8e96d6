#!/bin/sh
# tests/vm/nonroot.sh OUTDIR — run in the guest by /init (as root): kmodtop as the
# unprivileged user kmt (uid 1000, in the initramfs' /etc/passwd) for "report" and
# "report --duration 2", text and JSON, with kernel.dmesg_restrict as the kernel set it
# and then 0. Each run leaves NAME.out, NAME.err, NAME.rc in OUTDIR; state.txt holds
# what decides what the user may read. check-run.py (check_nonroot) reads them.
out=$1
T=/sys/kernel/tracing
mkdir -p "$out"
chmod 0777 "$out"

as_user() {
	name=$1
	shift
	# su runs "sh -c"; the user's HOME (/tmp) holds kmodtop's module file cache
	su -s /bin/sh kmt -c "/bin/kmodtop $* >$out/$name.out 2>$out/$name.err; echo \$? >$out/$name.rc"
}

dr=$(cat /proc/sys/kernel/dmesg_restrict)
{
	echo "id $(su -s /bin/sh kmt -c id)"
	echo "dmesg_restrict $dr"
	echo "kptr_restrict $(cat /proc/sys/kernel/kptr_restrict)"
	echo "perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)"
	echo "tracefs $(stat -c '%a %U' $T 2>/dev/null)"
	echo "vmallocinfo $(stat -c '%a %U' /proc/vmallocinfo)"
	echo "kmsg $(stat -c '%a %U' /dev/kmsg)"
	echo "instances-before $(ls $T/instances | grep -c '^kmodtop-')"
	echo "modules-line $(su -s /bin/sh kmt -c 'head -n 1 /proc/modules')"
} >"$out/state.txt"

as_user report report -j
as_user report-text report
as_user duration report --duration 2 -j
as_user duration-text report --duration 2
echo 0 >/proc/sys/kernel/dmesg_restrict
as_user duration-kmsg report --duration 2 -j
echo "$dr" >/proc/sys/kernel/dmesg_restrict
echo "instances-after $(ls $T/instances | grep -c '^kmodtop-')" >>"$out/state.txt"
