#!/bin/sh
# Hostile input, one table row per (input format, kind of damage), each with the
# behaviour it must get: the root's files, proc/modules, vmallocinfo, meminfo, the sysfs
# attributes, MODULE_STATS and kconfig, through report (traces and kernel logs are in
# hostile-logs.sh). For every run: the exit code, the warning or error naming
# file:line, no raw control character (C0, DEL, C1) nor invalid UTF-8 in text output or
# on stderr, and JSON read back by a real parser (python3 json) with the exact bytes
# kept where JSON can carry them (names with escape sequences).
. "$TS_SRCDIR/lib/ts.sh"
ts_init hostile
ts_need python3 timeout iconv

. "$TS_SRCDIR/lib/hostile.sh"
. "$TS_SRCDIR/lib/root.sh"

# --- generators: each writes one input with DAMAGE at a known line ---------------------
gen_procmod() {
	f=$R/proc/modules
	case $1 in
	nul) printf 'dummy 16384 0 - Live 0x0\nxf\000s 2375680 0 - Live 0x0\n' >"$f" ;;
	long) { echo "dummy 16384 0 - Live 0x0"; long $MIB; echo; } >"$f" ;;
	trunc) printf 'dummy 16384 0 - Live 0xffffffffc0000000\nxfs 2375680 0 - Live 0xffffffffc0010000' >"$f" ;;
	cut) printf 'dummy 16384 0 - Live 0xffffffffc0000000\nxfs 2375680 0 - Li' >"$f" ;;
	crlf) crlf "$f" ;;
	utf8) printf 'dummy 16384 0 %s, Live 0xffffffffc0000000\n%s 8192 1 - Live 0xffffffffc0010000\n' "$BADU" "$BADU" >"$f" ;;
	name) printf '%s 16384 0 - Live 0xffffffffc0000000\n%s 8192 1 %s, Live 0x0\n%s 4096 0 - Live 0x0\n' "$OSC52" "$CSI" "$OSC52" "$OSC" >"$f" ;;
	max) printf 'dummy %s 0 - Live 0xffffffffc0000000\nxfs %s 0 - Live 0xffffffffffffffff\n' $MAX $MAX >"$f" ;;
	over) printf 'dummy %s 0 - Live 0xffffffffc0000000\n' $OVER >"$f" ;;
	maxref) printf 'dummy 16384 %s - Live 0xffffffffc0000000\n' $MAX >"$f" ;;
	neg) printf 'dummy 16384 -1 - Live 0xffffffffc0000000\n' >"$f" ;;
	negsize) printf 'dummy -16384 0 - Live 0xffffffffc0000000\n' >"$f" ;;
	esac
}

gen_vmalloc() {
	f=$R/proc/vmallocinfo
	good="0xffffffffc0000000-0xffffffffc0005000   20480 load_module+0x857/0x2470 pages=4 vmalloc N0=4"
	case $1 in
	nul) printf '%s\n0xffffffffc0005000-0xffffffffc0006000 4096 lo\000ad pages=1 vmalloc\n' "$good" >"$f" ;;
	long) { echo "$good"; long $MIB; echo; } >"$f" ;;
	trunc) printf '%s' "$good" >"$f" ;;
	cut) printf '%s\n0xffffffffc0005000-0xffff' "$good" >"$f" ;;
	crlf) crlf "$f" ;;
	utf8) printf '%s\n0xffffffffc0005000-0xffffffffc0006000    4096 %s+0x1/0x2 [%s] pages=1 vmalloc\n' "$good" "$BADU" "$BADU" >"$f" ;;
	name) printf '%s\n0xffffffffc0005000-0xffffffffc0006000    4096 %s+0x1/0x2 [%s] pages=1 vmalloc\n' "$good" "$CSI" "$OSC52" >"$f" ;;
	max) printf '%s\n0xffffffffc0005000-0xffffffffc0006000 %s load_module+0x857/0x2470 pages=%s vmalloc\n0x1000-0x2000 %s x+0x0/0x1 vmalloc\n' "$good" $MAX $MAX $MAX >"$f" ;;
	neg) printf '%s\n0xffffffffc0005000-0xffffffffc0006000 -4096 load_module+0x857/0x2470 pages=-1 vmalloc\n' "$good" >"$f" ;;
	# sizes and ranges that do not hold together: end below start, more pages than the
	# size holds; %pK-hashed addresses say nothing of the size (an inverted range is
	# theirs to have), but a size beyond any area still does
	back) printf '%s\n0xffffffffc0006000-0xffffffffc0005000    4096 load_module+0x857/0x2470 pages=1 vmalloc\n' "$good" >"$f" ;;
	pages) printf '%s\n0xffffffffc0005000-0xffffffffc0007000    8192 load_module+0x857/0x2470 pages=3 vmalloc\n' "$good" >"$f" ;;
	hashed) printf '0x00000000c022163a-0x000000003d0faa57   20480 load_module+0x857/0x2470 pages=4 vmalloc N0=4\n' >"$f" ;;
	hashmax) printf '0x00000000c022163a-0x000000003d0faa57 %s load_module+0x857/0x2470 pages=4 vmalloc N0=4\n' $MAX >"$f" ;;
	esac
}

gen_meminfo() {
	f=$R/proc/meminfo
	case $1 in
	nul) printf 'MemTotal:        2000000 kB\nVmallocTo\000tal:   34359738367 kB\n' >"$f" ;;
	long) { echo 'MemTotal:        2000000 kB'; long $MIB; echo; } >"$f" ;;
	trunc) printf 'MemTotal:        2000000 kB\nVmallocTotal:   34359738367 kB' >"$f" ;;
	crlf) crlf "$f" ;;
	utf8) printf 'MemTotal:        2000000 kB\n%s:   1 kB\nVmallocTotal:   34359738367 kB\n' "$BADU" >"$f" ;;
	name) printf 'MemTotal:        2000000 kB\n%s:   1 kB\nVmallocTotal:   34359738367 kB\n' "$OSC52" >"$f" ;;
	max) printf 'MemTotal:        %s kB\nVmallocTotal:   %s kB\nVmallocUsed:   %s kB\n' $MAX $MAX $MAX >"$f" ;;
	neg) printf 'MemTotal:        2000000 kB\nVmallocTotal:   -1 kB\n' >"$f" ;;
	esac
}

gen_sysfs() {
	f=$R/sys/module/dummy/coresize
	case $1 in
	nul) printf '163\00084\n' >"$f" ;;
	long) { long $MIB; echo; } >"$f" ;;
	trunc) printf '16384' >"$f" ;;
	crlf) printf '16384\r\n' >"$f" ;;
	utf8) printf '%s\n' "$BADU" >"$R/sys/module/dummy/initstate" ;;
	name) printf '%s\n' "$OSC52" >"$R/sys/module/dummy/initstate" ;;
	max) printf '%s\n' $MAX >"$f" ;;
	over) printf '%s\n' $OVER >"$f" ;;
	neg) printf -- '-16384\n' >"$f" ;;
	esac
}

gen_modstats() {
	d=$R/sys/kernel/debug/modules
	mkdir -p "$d"
	f=$d/stats
	printf '         Mods ever loaded\t6\n     Mods failed on kread\t0\nDuplicate failed modules:\n              Module-name\t How-many-times\t                   Reason\n                      xfs\t              9\t                 Becoming\n' >"$f"
	case $1 in
	nul) printf '         Mods ever loaded\t6\n     Mods fa\000iled on kread\t0\n' >"$f" ;;
	long) { printf '         Mods ever loaded\t6\n'; long $MIB; echo; } >"$f" ;;
	trunc) chop "$f" ;;
	crlf) crlf "$f" ;;
	utf8) printf 'Duplicate failed modules:\n              Module-name\t How-many-times\t                   Reason\n%s\t 3\t Becoming\n' "$BADU" >"$f" ;;
	name) printf 'Duplicate failed modules:\n              Module-name\t How-many-times\t                   Reason\n%s\t 3\t Becoming\n%s\t 1\t %s\n' "$OSC52" "$CSI" "$OSC" >"$f" ;;
	max) printf '         Mods ever loaded\t%s\n       Failed kread bytes\t%s\nDuplicate failed modules:\n              Module-name\t How-many-times\t                   Reason\n                      xfs\t %s\t Becoming\n' $MAX $MAX $MAX >"$f" ;;
	neg) printf '         Mods ever loaded\t-6\nDuplicate failed modules:\n              Module-name\t How-many-times\t                   Reason\n                      xfs\t -9\t Becoming\n' >"$f" ;;
	esac
}

gen_kconfig() {
	mkdir -p "$R/boot"
	f=$R/boot/config-6.12.0-test
	printf 'CONFIG_MODULES=y\nCONFIG_MODULE_DECOMPRESS=y\nCONFIG_NR_CPUS=64\n' >"$f"
	case $1 in
	nul) printf 'CONFIG_MODULES=y\nCONFIG_MO\000DULE_DECOMPRESS=y\n' >"$f" ;;
	long) { echo CONFIG_MODULES=y; printf 'CONFIG_X="'; long $MIB; echo '"'; echo CONFIG_MODULE_DECOMPRESS=y; } >"$f" ;;
	trunc) chop "$f" ;;
	crlf) crlf "$f" ;;
	utf8) printf 'CONFIG_MODULES=y\nCONFIG_LOCALVERSION="%s"\n' "$BADU" >"$f" ;;
	name) printf 'CONFIG_MODULES=y\nCONFIG_LOCALVERSION="%s"\nCONFIG_%s=y\n' "$OSC52" "$CSI" >"$f" ;;
	max) printf 'CONFIG_MODULES=y\nCONFIG_NR_CPUS=%s\n' $MAX >"$f" ;;
	neg) printf 'CONFIG_MODULES=y\nCONFIG_NR_CPUS=-64\n' >"$f" ;;
	esac
}

# --- running a row ----------------------------------------------------------------------
# root_row FORMAT KIND RC ERR EXPR: report (text, then JSON with EXPR over d) on a root
root_row() {
	fmt=$1 kind=$2 rc=$3 err=$4 expr=$5
	vg_row 4
	mkroot "$fmt-$kind"
	"gen_$fmt" "$kind"
	if hrun --root "$R" report; then
		expect_run "$fmt/$kind: report" "$rc" "$err"
		[ "$TS_RC" = 0 ] && { clean "$T/out" || ts_fail "$fmt/$kind: report text not escaped"; }
	fi
	if hrun --root "$R" report -j; then
		expect_run "$fmt/$kind: report -j" "$rc" "$err"
		if [ "$TS_RC" = 0 ] && [ -z "${HOSTILE_PROBE:-}" ]; then
			py json "$T/out" "${expr:-True}" || ts_fail "$fmt/$kind: report -j"
		fi
	fi
	# top reads the same files but the sysfs attributes and MODULE_STATS, live and as a
	# replay (of a trace with one load, so that there is one): the same warning or
	# error, its frame escaped
	case $fmt in sysfs | modstats) terr=- ;; *) terr=$err ;; esac
	if hrun --root "$R" top --batch --iterations 1 --size 160x40; then
		expect_run "$fmt/$kind: top" "$rc" "$terr"
		top_frame "$fmt/$kind: top"
	fi
	mkdir -p "$R/sys/kernel/tracing"
	printf '# tracer: nop\n     modprobe-157     [000] .....     4.500000: module_load: dummy\n' \
		>"$R/sys/kernel/tracing/trace"
	if hrun top --replay "$R" --batch --speed 0 --size 160x40; then
		expect_run "$fmt/$kind: top --replay" "$rc" "$terr"
		top_frame "$fmt/$kind: top --replay"
	fi
	vg_row_end
}

# top_frame WHAT: top's frame in $T/out is escaped, and shows the hostile module names
# (procmod/name) escaped too
top_frame() {
	[ -z "${HOSTILE_PROBE:-}" ] || return 0
	clean "$T/out" || ts_fail "$1: frame not escaped"
	[ "$TS_RC" = 0 ] || return 0
	grep -F 'Sources' "$T/out" >/dev/null || ts_fail "$1: no frame"
	if [ "$fmt/$kind" = procmod/name ]; then
		grep -F 'ev\x1b]52;c;aGk=\x07il' "$T/out" >/dev/null &&
			grep -F 'x\x1b[2Jy' "$T/out" >/dev/null ||
			ts_fail "$1: the module names are not shown escaped"
	fi
}

# --- the table --------------------------------------------------------------------------
# root files: FORMAT KIND RC STDERR EXPR (over report -j's d)
while IFS='|' read -r fmt kind rc err expr; do
	[ -n "$fmt" ] || continue
	root_row "$fmt" "$kind" "$rc" "$err" "$expr"
done <<'EOF'
procmod|nul|1|'proc/modules':2: line contains a NUL byte|
procmod|long|1|'proc/modules':2: line too long|
procmod|trunc|0|-|[m["name"] for m in d["modules"]] == ["dummy", "xfs"]
procmod|cut|1|'proc/modules':2: unknown module state|
procmod|crlf|1|'proc/modules':1:|
procmod|utf8|0|-|[m["name"] for m in d["modules"]] == ["dummy", "b\ufffda\ufffdd"]
procmod|name|0|-|[m["name"] for m in d["modules"]] == ["ev\x1b]52;c;aGk=\x07il", "x\x1b[2Jy", "ti\x1b]0;owned\x1b\\tle"] and d["modules"][1]["used_by"] == ["ev\x1b]52;c;aGk=\x07il"]
procmod|max|0|-|[m["size"] for m in d["modules"]] == [2**64 - 1] * 2
procmod|over|1|'proc/modules':1: size is not a number|
procmod|maxref|1|'proc/modules':1: refcount is not a number|
procmod|neg|1|'proc/modules':1: refcount is negative|
procmod|negsize|1|'proc/modules':1: size is not a number|
vmalloc|nul|0|'proc/vmallocinfo':2: line contains a NUL byte, ignoring|d["sources"]["vmallocinfo"]["ok"] is False
vmalloc|long|0|'proc/vmallocinfo':2: line too long, ignoring|d["sources"]["vmallocinfo"]["line"] == 2
vmalloc|trunc|0|-|d["modules"][0]["vmalloc_bytes"] == 20480
vmalloc|cut|0|'proc/vmallocinfo':2: missing size, ignoring|d["sources"]["vmallocinfo"]["line"] == 2 and "module_bytes" not in d["module_memory"]
vmalloc|crlf|0|'proc/vmallocinfo':1: malformed N<node>= count, ignoring|d["sources"]["vmallocinfo"]["line"] == 1 and "module_bytes" not in d["module_memory"]
vmalloc|utf8|0|-|d["sources"]["vmallocinfo"]["ok"] and d["module_memory"]["module_areas"] == 1 and d["module_memory"]["module_bytes"] == 20480
vmalloc|name|0|-|d["sources"]["vmallocinfo"]["ok"] and d["module_memory"]["module_areas"] == 1 and d["module_memory"]["module_bytes"] == 20480
vmalloc|max|0|'proc/vmallocinfo':2: size larger than its address range, ignoring|d["sources"]["vmallocinfo"]["line"] == 2 and "module_bytes" not in d["module_memory"]
vmalloc|back|0|'proc/vmallocinfo':2: address range ends before it starts, ignoring|d["sources"]["vmallocinfo"]["ok"] is False
vmalloc|pages|0|'proc/vmallocinfo':2: pages= do not fit in the size, ignoring|d["sources"]["vmallocinfo"]["ok"] is False
vmalloc|hashed|0|-|d["module_memory"]["address_mode"] == "hashed" and d["module_memory"]["module_bytes"] == 20480
vmalloc|hashmax|0|'proc/vmallocinfo':1: size larger than any vmalloc area can be, ignoring|d["sources"]["vmallocinfo"]["ok"] is False
vmalloc|neg|0|'proc/vmallocinfo':2: size is not a number, ignoring|d["sources"]["vmallocinfo"]["line"] == 2 and "module_bytes" not in d["module_memory"]
meminfo|nul|0|'proc/meminfo':2: line contains a NUL byte, ignoring|d["sources"]["meminfo"]["line"] == 2 and "vmalloc_total" not in d["module_memory"]
meminfo|long|0|'proc/meminfo':2: line too long, ignoring|d["sources"]["meminfo"]["line"] == 2 and "vmalloc_total" not in d["module_memory"]
meminfo|trunc|0|-|d["module_memory"]["vmalloc_total"] == 34359738367 * 1024
meminfo|crlf|0|-|d["module_memory"]["vmalloc_total"] == 34359738367 * 1024
meminfo|utf8|0|-|d["module_memory"]["vmalloc_total"] == 34359738367 * 1024
meminfo|name|0|-|d["module_memory"]["vmalloc_total"] == 34359738367 * 1024
meminfo|max|0|'proc/meminfo':1: value out of range, ignoring|d["sources"]["meminfo"]["line"] == 1 and "vmalloc_total" not in d["module_memory"]
meminfo|neg|0|'proc/meminfo':2: value is not a number, ignoring|d["sources"]["meminfo"]["line"] == 2 and "vmalloc_total" not in d["module_memory"]
sysfs|nul|0|'sys/module/dummy/coresize':1: attribute contains a NUL byte, ignoring|d["modules"][0]["coresize"] is None
sysfs|long|0|'sys/module/dummy/coresize':1: attribute too long, ignoring|d["modules"][0]["coresize"] is None
sysfs|trunc|0|-|d["modules"][0]["coresize"] == 16384
sysfs|crlf|0|-|d["modules"][0]["coresize"] == 16384
sysfs|utf8|0|'sys/module/dummy/initstate':1: unknown initstate, ignoring|d["sources"]["sys_module"]["line"] == 1 and d["modules"][0]["initstate"] is None
sysfs|name|0|'sys/module/dummy/initstate':1: attribute too long, ignoring|d["sources"]["sys_module"]["line"] == 1 and d["modules"][0]["initstate"] is None
sysfs|max|0|-|d["modules"][0]["coresize"] == 2**64 - 1
sysfs|over|0|'sys/module/dummy/coresize':1: value is not a number, ignoring|d["modules"][0]["coresize"] is None
sysfs|neg|0|'sys/module/dummy/coresize':1: value is not a number, ignoring|d["modules"][0]["coresize"] is None
modstats|nul|0|'sys/kernel/debug/modules/stats':2: line contains a NUL byte, ignoring|d["sources"]["module_stats"]["line"] == 2 and d["module_stats"] is None and d["kernel"]["module_stats"] is False
modstats|long|0|'sys/kernel/debug/modules/stats': file larger than 1 MiB, ignoring|d["sources"]["module_stats"]["ok"] is False and d["module_stats"] is None
modstats|trunc|0|-|d["module_stats"]["mods_loaded"] == 6 and d["module_stats"]["duplicates"] == [{"name": "xfs", "count": 9, "reason": "Becoming"}]
modstats|crlf|0|-|d["module_stats"]["mods_loaded"] == 6 and d["module_stats"]["failed_kread"] == 0 and d["module_stats"]["duplicates"] == [{"name": "xfs", "count": 9, "reason": "Becoming"}]
modstats|utf8|0|'sys/kernel/debug/modules/stats':3: no module statistics counters found, ignoring|d["sources"]["module_stats"]["line"] == 3 and d["module_stats"] is None
modstats|name|0|'sys/kernel/debug/modules/stats':4: no module statistics counters found, ignoring|d["sources"]["module_stats"]["line"] == 4 and d["module_stats"] is None
modstats|max|0|-|d["module_stats"]["mods_loaded"] == 2**64 - 1 and d["module_stats"]["failed_kread_bytes"] == 2**64 - 1 and d["module_stats"]["duplicates"] == [{"name": "xfs", "count": 2**64 - 1, "reason": "Becoming"}]
modstats|neg|0|'sys/kernel/debug/modules/stats':1: counter value is not a number, ignoring|d["sources"]["module_stats"]["line"] == 1 and d["module_stats"] is None
kconfig|nul|0|'boot/config-6.12.0-test':2: line contains a NUL byte, ignoring|d["sources"]["kconfig"] == {"path": "boot/config-6.12.0-test", "ok": False, "error": "EINVAL", "reason": "line contains a NUL byte", "line": 2} and d["kernel"]["config"] is None
kconfig|long|0|-|d["kernel"]["config"] == "boot/config-6.12.0-test" and d["kernel"]["in_kernel_decompression"] is True
kconfig|trunc|0|-|d["kernel"]["config"] == "boot/config-6.12.0-test" and d["kernel"]["in_kernel_decompression"] is True and d["kernel"]["module_signing"] is False
kconfig|crlf|0|-|d["kernel"]["config"] == "boot/config-6.12.0-test" and d["kernel"]["in_kernel_decompression"] is True and d["kernel"]["module_signing"] is False
kconfig|utf8|0|-|d["kernel"]["config"] == "boot/config-6.12.0-test" and d["kernel"]["module_signing"] is False and d["kernel"]["in_kernel_decompression"] is False
kconfig|name|0|'boot/config-6.12.0-test':3: expected CONFIG_NAME=value, ignoring|d["sources"]["kconfig"]["path"] == "boot/config-6.12.0-test" and d["sources"]["kconfig"]["line"] == 3 and d["kernel"]["config"] is None
kconfig|max|0|-|d["kernel"]["config"] == "boot/config-6.12.0-test" and d["kernel"]["module_signing"] is False and d["kernel"]["in_kernel_decompression"] is False
kconfig|neg|0|-|d["kernel"]["config"] == "boot/config-6.12.0-test" and d["kernel"]["module_signing"] is False and d["kernel"]["in_kernel_decompression"] is False
EOF

ts_finalize
