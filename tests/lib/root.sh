# A minimal --root for the CLI tests, sourced after ts.sh and ts_init.
#
# mkroot NAME [--no-init]: sets R to $TS_TMP/root-NAME, made afresh: one good module
# (dummy) in proc/modules and its sysfs directory, the kernel files report reads, and
# an empty capture/ for a trace or a log. --no-init leaves out dummy's initsize and
# initstate (a kernel without them), for the tests whose roots never had them.
mkroot() {
	R=$TS_TMP/root-$1
	rm -rf "$R"
	mkdir -p "$R/proc/sys/kernel" "$R/sys/module/dummy" "$R/capture"
	echo "dummy 16384 0 - Live 0xffffffffc0000000" >"$R/proc/modules"
	echo "6.12.0-test" >"$R/proc/sys/kernel/osrelease"
	echo 0 >"$R/proc/sys/kernel/tainted"
	printf 'MemTotal:        2000000 kB\nVmallocTotal:   34359738367 kB\nVmallocUsed:        3476 kB\n' >"$R/proc/meminfo"
	echo "0xffffffffc0000000-0xffffffffc0005000   20480 load_module+0x857/0x2470 pages=4 vmalloc N0=4" >"$R/proc/vmallocinfo"
	echo 16384 >"$R/sys/module/dummy/coresize"
	[ "${2:-}" = --no-init ] && return
	echo 0 >"$R/sys/module/dummy/initsize"
	echo live >"$R/sys/module/dummy/initstate"
}
