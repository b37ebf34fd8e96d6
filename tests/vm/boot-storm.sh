#!/bin/sh
# tests/vm/boot-storm.sh OUTDIR — /bin/kmt-boot-storm in the guest, run by /init first
# thing when the kernel command line has kmt.boot=1 (run-qemu.sh with VM_BOOT=1 adds it
# with the words of `kmodtop boot-setup --cmdline`: trace_event=, kprobe_event=,
# trace_buf_size=, trace_options=nooverwrite, so that the top-level buffer traces what
# kmodtop needs from boot on).
#
# 1. keeps the tracing state the kernel booted with (global-boot.txt, stats-boot.txt:
#    what the boot parameters did, and how much of the buffer the boot used up to init);
# 2. starts the test bed's own measurement in an instance of its own (kmtboot): the
#    module and load-syscall events, and every vmap-area allocation with a stack trace
#    (vmalloc:alloc_vmap_area on 6.2+, else a kprobe kmtboot/alloc_vmap_area enabled in
#    the instance only), for measure.py; the top level is left as the boot set it;
# 3. runs the boot storm, `workload -w boot -o OUTDIR/capture` (its own log of every
#    call, the modprobes' included, through kmt-truth.so);
# 4. `kmodtop report --boot -j` (report.json, report.err, report.rc): the load attempts
#    of this boot from the top-level buffer and /dev/kmsg;
# 5. saves the instance's trace (measure-trace.txt), the top-level trace (trace.txt),
#    the per-CPU stats of both (stats.txt) and the kernel log;
# 6. undoes the boot's tracing: the instance and its kprobe go, the top-level events
#    are disabled and the command line's kprobes (group kmodtop) deleted, trace_options back to
#    overwrite, the buffer emptied, the boot storm's modules unloaded: the rest of init
#    starts from the state it always had (undo.txt says what was left).
# tests/vm/check-boot.py reads OUTDIR (ROOT/boot on the host).
out=$1
T=/sys/kernel/tracing
[ -e $T/trace ] || T=/sys/kernel/debug/tracing
I=$T/instances/kmtboot
mkdir -p "$out"
up() { cut -d' ' -f1 /proc/uptime; }
say() { echo "kmt-boot: [$(up)] $*"; }
stats() {
	for s in $1/per_cpu/cpu*/stats; do
		c=${s%/stats}
		echo "$2 ${c##*/} $(tr -d ' ' <$s | tr '\n' ' ')"
	done
}
echo "start $(up)" >$out/times.txt

# ---- 1. what the boot parameters did ------------------------------------------
# the probes the command line placed (kprobe_event=: nothing else has run yet)
boot_probes=$(sed -n 's@^[pr]:\([^ ]*\) .*@\1@p' $T/kprobe_events)
# their events/ directories come from tracefs's own set-up, which can end after init
# has started (seen once on 6.1 under emulation: "no such file" for every probe's
# enable): wait for them, 10 s at most, before looking
for p in $boot_probes; do
	i=0
	while [ ! -e $T/events/$p/enable ] && [ $i -lt 100 ]; do
		sleep 0.1 2>/dev/null || sleep 1
		i=$((i + 1))
	done
done
{
	for f in tracing_on current_tracer trace_clock buffer_size_kb buffer_total_size_kb \
		trace_options set_event kprobe_events; do
		echo "== $f"
		cat $T/$f 2>&1
	done
	echo "== kprobe events enabled"
	for p in $boot_probes; do
		echo "events/$p/enable:$(cat $T/events/$p/enable 2>&1)"
	done
	echo "== /proc/cmdline"
	cat /proc/cmdline
} >$out/global-boot.txt
stats $T global >$out/stats-boot.txt

# ---- 2. the measurement, in an instance of its own -----------------------------
mode=none
if mkdir $I 2>/dev/null; then
	echo 0 >$I/tracing_on
	# the top level's clock (6.1 under TCG switched it to global at late_initcall; a
	# new instance has local): both traces' times then compare
	clk=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $T/trace_clock)
	[ -n "$clk" ] && echo $clk >$I/trace_clock
	echo 8192 >$I/buffer_size_kb
	echo 1 >$I/events/module/enable
	for s in finit_module init_module delete_module; do
		for d in enter exit; do
			e=$I/events/syscalls/sys_${d}_$s
			[ -d $e ] && echo 1 >$e/enable
		done
	done
	for e in sched/sched_process_fork sched/sched_process_exec task/task_rename; do
		[ -d $I/events/$e ] && echo 1 >$I/events/$e/enable
	done
	if [ -d $I/events/vmalloc/alloc_vmap_area ]; then
		echo stacktrace >$I/events/vmalloc/alloc_vmap_area/trigger
		echo 1 >$I/events/vmalloc/alloc_vmap_area/enable
		mode=vmalloc-tracepoints
	elif echo 'p:kmtboot/alloc_vmap_area alloc_vmap_area size=$arg1:u64' >>$T/kprobe_events 2>/dev/null ||
	     echo 'p:kmtboot/alloc_vmap_area alloc_vmap_area size=%di:u64' >>$T/kprobe_events 2>/dev/null; then
		echo stacktrace >$I/events/kmtboot/alloc_vmap_area/trigger
		echo 1 >$I/events/kmtboot/alloc_vmap_area/enable
		mode=vmalloc-kprobes
	fi
	echo 1 >$I/tracing_on
else
	say "cannot make the instance $I: no measurement"
fi
echo $mode >$out/measure-mode.txt
say "measurement $mode in $I; boot storm"

# ---- 3. the boot storm ------------------------------------------------------------
echo "workload $(up)" >>$out/times.txt
/bin/workload -w boot -o $out/capture || say "boot workload exit $?"
echo "workload-done $(up)" >>$out/times.txt

# ---- 4. kmodtop on this boot ------------------------------------------------------
if [ -x /bin/kmodtop ]; then
	/bin/kmodtop report --boot -j >$out/report.json 2>$out/report.err
	echo $? >$out/report.rc
	say "kmodtop report --boot: exit $(cat $out/report.rc)"
fi
echo "report-done $(up)" >>$out/times.txt

# ---- 5. the traces ------------------------------------------------------------------
[ -d $I ] && echo 0 >$I/tracing_on
echo 0 >$T/tracing_on
if [ -d $I ]; then
	cat $I/trace >$out/measure-trace.txt
	stats $I measure >$out/stats.txt
fi
cat $T/trace >$out/trace.txt
stats $T global >>$out/stats.txt
dmesg -s 1048576 >$out/dmesg.txt 2>/dev/null || dmesg >$out/dmesg.txt
/bin/workload -K $out/kmsg.raw || say "cannot read /dev/kmsg"
echo "saved $(up)" >>$out/times.txt

# ---- 6. back to the state init always starts from -------------------------------
{
	if [ -d $I ]; then
		echo 0 >$I/events/enable
		rmdir $I || echo "rmdir $I failed"
	fi
	if grep -q '^p:kmtboot/' $T/kprobe_events; then
		echo '-:kmtboot/alloc_vmap_area' >>$T/kprobe_events || echo "kmtboot probe not removed"
	fi
	# every event the boot enabled in the top level, then the command line's probes
	# (group kmodtop: -:kmodtop/kmodtop_kread ...)
	: >$T/set_event
	for p in $boot_probes; do
		[ -e $T/events/$p/enable ] && echo 0 >$T/events/$p/enable
		echo "-:$p" >>$T/kprobe_events || echo "$p not removed"
	done
	echo overwrite >$T/trace_options
	: >$T/trace
	echo 1 >$T/tracing_on
	modprobe -r udf isofs squashfs dm-crypt loop 2>&1
	echo "== left"
	echo "kprobe_events: $(cat $T/kprobe_events | tr '\n' ' ')"
	echo "set_event: $(cat $T/set_event | tr '\n' ' ')"
	echo "instances: $(ls $T/instances | tr '\n' ' ')"
	echo "overwrite: $(grep -c '^overwrite' $T/trace_options)"
	echo "modules: $(cut -d' ' -f1 /proc/modules | tr '\n' ' ')"
} >$out/undo.txt 2>&1
echo "done $(up)" >>$out/times.txt
say "done: $(tr '\n' ' ' <$out/times.txt)"
