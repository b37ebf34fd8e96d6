# bench/storm-trace.awk: a tracefs trace of finit_module storms over N modules at RATE
# events a second for SECS seconds (bench/top.sh, bench/probes.sh). Every eighth call
# loads (module_load inside it), the others find the module Live (EEXIST); every
# sixteenth is caused by a request_module() of its alias. With PROBES=1 each call also
# has what kmodtop's naming probes print for it (kmodtop_kread after the entry,
# kmodtop_name before the exit), at the same rate of module events.
#
#	awk -v secs=20 -v rate=10000 -v n=2000 [-v probes=1] -f bench/storm-trace.awk
BEGIN {
	print "# tracer: nop"
	print "#"
	total = secs * rate
	dt = 1.0 / rate
	t = 100.0
	ev = 0; call = 0
	if (probes)
		printf "            init-1       [000] .....  %11.6f: tracing_mark_write: kmodtop_probes kread name\n", t - 1
	while (ev < total) {
		m = (call * 7919) % n
		pid = 1000 + call % 128
		cpu = call % 64
		if (call % 16 == 0) {
			printf "         kworker-%d     [%03d] .....  %11.6f: module_request: mod%04d wait=1 call_site=inet_create+0x1c/0x50\n", pid, cpu, t, m
			t += dt; ev++
		}
		printf "    udevd-worker-%d     [%03d] .....  %11.6f: sys_finit_module(fd: 3, uargs: 5bfb41, flags: 0)\n", pid, cpu, t
		if (probes)
			printf "    udevd-worker-%d     [%03d] .....  %11.6f: kmodtop_kread: (kernel_read_file+0x4/0x330) size=%d id=2 path=\"mod%04d.ko\"\n", pid, cpu, t + dt / 4, 20000 + m * 8, m
		t += dt; ev++
		if (probes)
			printf "    udevd-worker-%d     [%03d] .....  %11.6f: kmodtop_name: (find_module_all+0x4/0xd0) name=\"mod%04d\"\n", pid, cpu, t - dt / 4, m
		if (call % 8 == 0) {
			printf "    udevd-worker-%d     [%03d] .....  %11.6f: module_load: mod%04d\n", pid, cpu, t, m
			t += dt; ev++
			printf "    udevd-worker-%d     [%03d] .....  %11.6f: sys_finit_module -> 0x0\n", pid, cpu, t
		} else {
			printf "    udevd-worker-%d     [%03d] .....  %11.6f: sys_finit_module -> 0xffffffffffffffef\n", pid, cpu, t
		}
		t += dt; ev++
		call++
	}
}
