# tests/vm/top-live.sh — sourced by tests/vm/init (busybox sh): `kmodtop top` live
# during the workload (issue 6). `top --batch --measure` prints a frame every second
# into kmodtop/top.out; it is stopped with SIGINT after the workload, like the live
# report. Then SIGTERM, SIGHUP and --iterations end short runs, and one runs as
# nobody. What each left in tracefs goes to kmodtop/top.txt for check-top.py.

# top_left T PID: "instance=yes|no probes=N" of kmodtop PID
top_left() {
	echo "instance=$(test -d $1/instances/kmodtop-$2 && echo yes || echo no)" \
		"probes=$(grep -c "kmodtop_$2/" $1/kprobe_events 2>/dev/null)"
}

# top_live_start T C: starts it; T the tracefs mount, C the capture directory
top_live_start() {
	top_pid=
	[ -x /bin/kmodtop ] || return 0
	log "kmodtop top --batch --measure (live)"
	/bin/kmodtop top --batch --measure -d 10 -s attempts --size 200x60 >$2/kmodtop/top.out \
		2>$2/kmodtop/top.err &
	top_pid=$!
	live_ready $top_pid
	top_during=$(top_left $1 $top_pid)
}

# top_live_stop T C: a last refresh after the workload's last event, then SIGINT
top_live_stop() {
	[ -n "$top_pid" ] || return 0
	# an attempt shows once settled, 1-3 s after it returned, at the next refresh: give it time
	sleep 12
	kill -INT $top_pid 2>/dev/null
	wait $top_pid
	echo "SIGINT rc=$? $top_during after_$(top_left $1 $top_pid | sed 's/ / after_/')" \
		>$2/kmodtop/top.txt
	for sig in TERM HUP; do
		/bin/kmodtop top --batch -d 10 >/dev/null 2>$2/kmodtop/top-$sig.err &
		p=$!
		live_ready $p
		during=$(top_left $1 $p)
		kill -$sig $p
		wait $p
		echo "SIG$sig rc=$? $during after_$(top_left $1 $p | sed 's/ / after_/')" \
			>>$2/kmodtop/top.txt
	done
	/bin/kmodtop top --batch -n 4 -d 10 >/dev/null 2>$2/kmodtop/top-iterations.err &
	p=$!
	live_ready $p
	during=$(top_left $1 $p)
	wait $p
	echo "iterations rc=$? $during after_$(top_left $1 $p | sed 's/ / after_/')" \
		>>$2/kmodtop/top.txt
	# without root: what is missing, and why (busybox su: root needs no password)
	grep -q '^nobody:' /etc/passwd || echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >>/etc/passwd
	grep -q '^nogroup:' /etc/group || echo 'nogroup:x:65534:' >>/etc/group
	su -s /bin/sh -c "/bin/kmodtop top --batch -n 2 -d 5 --size 200x30" nobody \
		>$2/kmodtop/top-nonroot.out 2>$2/kmodtop/top-nonroot.err
	echo "nonroot rc=$?" >>$2/kmodtop/top.txt
}
