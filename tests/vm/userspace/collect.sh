#!/bin/sh
# tests/vm/userspace/collect.sh — /usr/local/sbin/kmt-bed-collect in the test bed's
# Debian image (kmt-bed-collect.service; the test bed's, not kmodtop's).
#
# Once the boot is over (systemd has no job left) and the kmodtop units have finished
# (none activating, active or deactivating; at most KMT_WAIT seconds), it keeps what
# the boot shows: the failed units, the kmodtop units' state and journal, the kernel's
# own trace of the boot (the top-level buffer the command line's trace_event= filled:
# the truth) with its per-CPU stats, the boot bundle directories, `kmodtop report
# --boot -j`, `kmodtop --root BUNDLE report -j` of each bundle of this boot, and
# systemd-analyze's times; ships them to the host as a base64'd tar.gz between
# =====KMT-CAPTURE-BEGIN size= md5= / END markers on the second serial port (as
# tests/vm/init does), and powers off.
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
umask 022
KMT_WAIT=${KMT_WAIT:-420}
C=/run/kmt-bed
rm -rf $C
mkdir -p $C/out
O=$C/out
log() { echo "kmt-bed: [$(cut -d' ' -f1 /proc/uptime)] $*" | tee -a $O/collect.log >/dev/console; }

log "waiting for the boot to finish"
# the boot's jobs (ours is done: Type=simple)
timeout 300 systemctl is-system-running --wait >$O/system-running.txt 2>&1
echo "rc=$?" >>$O/system-running.txt
units=$(systemctl list-unit-files --no-legend --plain 'kmodtop*' | awk '{ print $1 }')
echo "$units" >$O/units.txt
t=0
while :; do
	busy=
	for u in $units; do
		case $(systemctl is-active "$u") in
		active|activating|deactivating|reloading) busy="$busy $u" ;;
		esac
	done
	[ -z "$busy" ] && break
	if [ $t -ge $KMT_WAIT ]; then
		echo "still busy after ${KMT_WAIT}s:$busy" >$O/wait-timeout.txt
		log "kmodtop units still busy after ${KMT_WAIT}s:$busy"
		break
	fi
	sleep 2
	t=$((t + 2))
done
log "kmodtop units done after ${t}s of waiting"
# udev's workers go on loading after the boot counts as finished: wait until udev has
# settled and the kernel's trace has had no load call for 10 s (at most ~3 min), so
# that the report and the truth, read one after the other, see the same calls
T=/sys/kernel/tracing
[ -e $T/trace ] || mount -t tracefs tracefs $T 2>/dev/null
udevadm settle --timeout=120 >$O/udev-settle.txt 2>&1
prev=-1 same=0 q=0
while [ $same -lt 5 ] && [ $q -lt 90 ]; do
	cur=$(grep -c ': sys_f*init_module' $T/trace 2>/dev/null)
	if [ "$cur" = "$prev" ]; then same=$((same + 1)); else same=0; fi
	prev=$cur
	sleep 2
	q=$((q + 1))
done
echo "load calls in the trace: $prev, quiet after $((q * 2)) s" >$O/quiet.txt
log "$(cat $O/quiet.txt)"
uname -r >$O/uname-r
cat /proc/cmdline >$O/cmdline
cat /proc/sys/kernel/random/boot_id >$O/boot_id
nproc >$O/nproc
systemctl --failed --no-legend --plain >$O/failed.txt 2>&1
systemctl list-units --all --no-legend --plain >$O/units-all.txt 2>&1
for u in $units; do
	systemctl show "$u" -p ActiveState -p SubState -p Result -p ExecMainStatus \
		-p ExecMainCode -p LoadState -p UnitFileState -p NRestarts \
		-p ExecMainStartTimestampMonotonic -p ExecMainExitTimestampMonotonic \
		>$O/show-$u.txt 2>&1
done
systemctl show systemd-udevd.service -p ExecMainStartTimestampMonotonic \
	-p ActiveEnterTimestampMonotonic >$O/show-systemd-udevd.service.txt 2>&1
systemctl status --no-pager -l 'kmodtop*' >$O/status.txt 2>&1
journalctl -b --no-pager -o short-monotonic -u 'kmodtop*' >$O/journal-kmodtop.txt 2>&1
journalctl -b --no-pager -o short-monotonic >$O/journal.txt 2>&1
systemd-analyze time >$O/analyze-time.txt 2>&1
systemd-analyze blame --no-pager >$O/analyze-blame.txt 2>&1
systemd-analyze security --no-pager $units >$O/analyze-security.txt 2>&1
# the bundles: /var/lib/kmodtop as the units left it, /run/kmodtop if anything is there
mkdir -p $O/bundles
for d in /var/lib/kmodtop /run/kmodtop; do
	[ -d $d ] || continue
	n=$(echo $d | tr / _)
	ls -laR $d >$O/bundles/ls$n.txt 2>&1
	tar -C $d -cf $O/bundles/$n.tar . 2>>$O/bundles/tar.err
done
kmodtop report --boot -j >$O/report-boot.json 2>$O/report-boot.err
echo $? >$O/report-boot.rc
id=$(tr -d - </proc/sys/kernel/random/boot_id)
for b in /var/lib/kmodtop/boot-* /run/kmodtop/boot-*; do
	[ -d "$b" ] || continue
	n=$(echo "$b" | tr / _)
	kmodtop --root "$b" report -j >$O/report$n.json 2>$O/report$n.err
	echo $? >$O/report$n.rc
done
# the truth: the kernel's trace of the boot, read after the reports (the calls both saw)
mkdir -p $O/tracing
cp $T/trace $O/tracing/trace 2>/dev/null
for f in set_event kprobe_events trace_options buffer_size_kb trace_clock tracing_on; do
	cat $T/$f >$O/tracing/$f 2>&1
done
for d in $T/per_cpu/cpu*; do
	echo "== ${d##*/}"
	cat $d/stats
done >$O/tracing/per_cpu_stats.txt 2>&1
ls $T/instances >$O/tracing/instances.txt 2>&1
cat /proc/modules >$O/modules.txt
log "collected; shipping"
tar -C $C -czf $C/capture.tar.gz out
size=$(wc -c <$C/capture.tar.gz)
sum=$(md5sum <$C/capture.tar.gz | cut -d' ' -f1)
out=/dev/ttyS1
stty -F $out raw -echo 2>/dev/null || out=/dev/console
{
	echo
	echo "=====KMT-CAPTURE-BEGIN size=$size md5=$sum====="
	base64 <$C/capture.tar.gz
	echo "=====KMT-CAPTURE-END====="
} >$out
sync
log "shipped $size bytes; powering off"
systemctl poweroff --no-block
