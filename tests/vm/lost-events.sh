#!/bin/sh
# tests/vm/lost-events.sh OUTDIR — run in the guest by /init (as root), after the live
# suite: kmodtop "report --duration 600 -j" and "record" are stopped (SIGSTOP) once
# their instances trace; their per-CPU buffers are lowered to the kernel's smallest
# (kmodtop has no option for it: the test shrinks the instance, as an operator could);
# a fork storm (sched_process_fork, task_rename, sched_process_exec: events of the
# instance) overruns them; the kernel's own count (per_cpu/cpuN/stats) is kept; then
# SIGCONT and SIGINT. Leaves report.*, record.*, bundle/ (its trace and notes) and
# stats.txt in OUTDIR for check-run.py (check_lost), which wants every lost event
# reported.
out=$1
T=/sys/kernel/tracing
[ -e $T/trace ] || T=/sys/kernel/debug/tracing
mkdir -p "$out"

. /etc/kmt-live-ready.sh

/bin/kmodtop report --duration 600 -j >$out/report.out 2>$out/report.err &
rp=$!
/bin/kmodtop record -o $out/bundle >$out/record.out 2>$out/record.err &
bp=$!
live_ready $rp
live_ready $bp
kill -STOP $rp $bp
for p in $rp $bp; do
	echo 1 >$T/instances/kmodtop-$p/buffer_size_kb
	echo "buffer_size_kb $p $(cat $T/instances/kmodtop-$p/buffer_size_kb)"
done >$out/stats.txt
# 300 fork+exec of busybox: about 900 events for two pages a CPU
i=0
while [ $i -lt 300 ]; do
	/bin/busybox true
	i=$((i + 1))
done
# what the kernel says each instance lost while its reader was stopped
for p in $rp $bp; do
	[ $p = $rp ] && n=report || n=record
	for s in $T/instances/kmodtop-$p/per_cpu/cpu*/stats; do
		c=${s%/stats}
		echo "$n ${c##*/} $(grep -E '^(overrun|dropped events):' $s | tr -d ' ' | tr '\n' ' ')"
	done
done >>$out/stats.txt
kill -CONT $rp $bp
kill -INT $rp $bp
wait $rp
echo $? >$out/report.rc
wait $bp
echo $? >$out/record.rc
# the checks read the bundle's trace and notes: the rest would only lengthen the capture
for f in sys/kernel/tracing/trace capture/record.txt; do
	mkdir -p $out/keep/${f%/*}
	mv $out/bundle/$f $out/keep/$f
done
rm -rf $out/bundle
mv $out/keep $out/bundle
