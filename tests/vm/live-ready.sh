# tests/vm/live-ready.sh — sourced (busybox sh) by tests/vm/init and the scripts it runs,
# with T set to the tracefs mount.
#
# live_ready PID: waits (20 s at most) until kmodtop PID traces, or is gone. A new
# instance reads tracing_on 1 before kmodtop turns it off to set it up, so that alone
# says nothing; kmodtop opens the instance's trace_pipe (or its
# raw buffers) once the events are enabled,
# and then turns tracing on (ktrace_instance_start()): the pipe open and tracing_on 1
# after it mean it traces.
live_ready() {
	w=0
	while [ $w -lt 200 ] && kill -0 $1 2>/dev/null; do
		if ls -l /proc/$1/fd 2>/dev/null | grep -Eq "instances/kmodtop-$1/(trace_pipe|per_cpu/cpu0/trace_pipe_raw)" &&
			[ "$(cat $T/instances/kmodtop-$1/tracing_on 2>/dev/null)" = 1 ]; then
			return 0
		fi
		sleep 0.1
		w=$((w + 1))
	done
	return 1
}
