#!/bin/sh
# tests/vm/live-bench.sh OUTDIR [CALLS_PER_S] [SECONDS] — run by tests/vm/init with
# kmt.bench=live (bench/live-vm.sh): the CPU that kmodtop's live tracing takes against
# `trace-cmd stream` of the same events, under the same storm of failed loads
# (kmt-initstorm: two syscall events a call).
#
#   kmodtop-top     kmodtop top --batch at the default delay (its own tracefs instance,
#                   the events of ktrace_wanted_event() and its naming probes, the
#                   ring buffers read raw, /dev/kmsg, a frame every 1.5 s to /dev/null)
#   kmodtop-record  kmodtop record into /tmp: the same tracing, no frames
#   trace-cmd       trace-cmd stream -e of the same events, its text to /dev/null
#
# Each runs alone, twice, interleaved; its CPU is utime + stime of the process and its
# children (trace-cmd reads the per-CPU buffers in child processes) over the storm,
# from /proc/PID/stat, in clock ticks. One line a run in OUTDIR/result.txt:
# "NAME RUN TICKS HZ CALLS SECONDS UTIME STIME".
set -u
O=$1
RATE=${2:-5000}
SECS=${3:-20}
mkdir -p "$O"
T=/sys/kernel/tracing
HZ=$(getconf CLK_TCK 2>/dev/null || echo 100)
EVENTS="-e module -e syscalls:sys_enter_finit_module -e syscalls:sys_exit_finit_module
-e syscalls:sys_enter_init_module -e syscalls:sys_exit_init_module
-e syscalls:sys_enter_delete_module -e syscalls:sys_exit_delete_module
-e sched:sched_process_fork -e sched:sched_process_exec -e task:task_rename"

log() { echo "kmt-live-bench: $*" >&2; }

# ticks: "UTIME STIME" of $P and of its children
ticks() {
	u=0 k=0
	for f in /proc/[0-9]*/stat; do
		# comm may hold spaces: the fields after its ')'
		s=$(sed 's/^.*) //' "$f" 2>/dev/null) || continue
		set -- $s
		pid=${f#/proc/}
		pid=${pid%/stat}
		# $2 is the ppid; $12 utime, $13 stime
		if [ "$pid" = "$P" ] || [ "$2" = "$P" ]; then
			u=$((u + ${12}))
			k=$((k + ${13}))
		fi
	done
	echo "$u $k"
}

# run NAME RUN COMMAND...: start it, let it settle, storm, measure, stop it. A command
# that is not there or has already exited measures 0 ticks: its line says -1 ticks
# (did not run), which bench/live-vm.sh takes as no result, never as a cheap one.
run() {
	name=$1 n=$2
	shift 2
	if [ ! -x "$1" ]; then
		log "$name run $n: $1 not found: did not run"
		echo "$name $n -1 $HZ 0 0 0 0" >>"$O/result.txt"
		return
	fi
	"$@" >/dev/null 2>"$O/$name-$n.err" &
	P=$!
	sleep 5
	if ! kill -0 $P 2>/dev/null; then
		wait $P 2>/dev/null
		log "$name run $n: exited (status $?) before the storm: did not run: $(head -c 300 "$O/$name-$n.err")"
		echo "$name $n -1 $HZ 0 0 0 0" >>"$O/result.txt"
		return
	fi
	set -- $(ticks)
	u0=$1 k0=$2
	out=$(/bin/kmt-initstorm "$RATE" "$SECS")
	set -- $(ticks)
	u=$(($1 - u0)) k=$(($2 - k0))
	# still there at the end of the storm, or what it did is not the whole storm
	if ! kill -0 $P 2>/dev/null; then
		wait $P 2>/dev/null
		log "$name run $n: exited (status $?) during the storm: did not run: $(head -c 300 "$O/$name-$n.err")"
		echo "$name $n -1 $HZ 0 0 0 0" >>"$O/result.txt"
		return
	fi
	kill -INT $P 2>/dev/null
	sleep 2
	kill -TERM $P 2>/dev/null
	wait $P 2>/dev/null
	set -- $out
	echo "$name $n $((u + k)) $HZ $2 $4 $u $k" >>"$O/result.txt"
	log "$name run $n: $((u + k)) ticks ($u user, $k system) at $HZ Hz over the storm ($out)"
}

# no console output from the kernel: a serial console under emulation is slow
dmesg -n 1
: >"$O/result.txt"
for n in 1 2; do
	run kmodtop-top $n /bin/kmodtop top --batch --size 200x60
	run kmodtop-record $n /bin/kmodtop record -o /tmp/record-$n
	rm -rf /tmp/record-$n
	run trace-cmd $n /bin/trace-cmd stream $EVENTS
done
cat /proc/cmdline >"$O/cmdline"
uname -r >"$O/uname-r"
