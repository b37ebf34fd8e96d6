#!/bin/sh
# Hostile input, one table row per (input format, kind of damage), each with the
# behaviour it must get. Every format kmodtop reads: the root's proc/modules,
# vmallocinfo, meminfo, sysfs attributes, MODULE_STATS, kconfig; tracefs and trace-cmd
# text; /dev/kmsg records, dmesg (plain, -T, ISO), journalctl (short, -monotonic, -iso,
# json) and serial consoles, through report --log and through ci. For every run:
# the exit code, the warning or error naming file:line, no raw control character
# (C0, DEL, C1) nor invalid UTF-8 in text output or on stderr, and JSON, JUnit and
# SARIF read back by real parsers (python3 json, xmllint) with the exact bytes kept
# where JSON can carry them (names with escape sequences).
. "$TS_SRCDIR/lib/ts.sh"
ts_init hostile
ts_need python3 xmllint

T=$TS_TMP
CHECK=$T/check.py
cat >"$CHECK" <<'EOF'
import json, sys

def fail(msg):
    print(msg)
    sys.exit(1)

def load(p):
    return json.loads(open(p, "rb").read().decode("utf-8"))

cmd, path = sys.argv[1], sys.argv[2]
if cmd == "text":
    # what reaches a terminal: UTF-8, no C0 but LF, no DEL, no C1
    b = open(path, "rb").read()
    try:
        s = b.decode("utf-8")
    except UnicodeDecodeError as e:
        fail("%s: invalid UTF-8 at byte %d: %r" % (path, e.start, b[max(0, e.start - 20):e.start + 20]))
    for i, ch in enumerate(s):
        o = ord(ch)
        if (o < 0x20 and ch != "\n") or 0x7f <= o <= 0x9f:
            fail("%s: raw U+%04X at %d: %r" % (path, o, i, s[max(0, i - 30):i + 30]))
elif cmd == "json":
    # json FILE [EXPR]: strict UTF-8 JSON, and EXPR over d holds
    d = load(path)
    if len(sys.argv) > 3 and not eval(sys.argv[3], {"d": d}):
        fail("%s: %s does not hold" % (path, sys.argv[3]))
elif cmd == "sarif":
    d = load(path)
    assert d["version"] == "2.1.0" and "sarif-2.1.0" in d["$schema"], "header"
    run = d["runs"][0]
    assert run["tool"]["driver"]["name"] == "kmodtop", "driver"
    ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    for res in run["results"]:
        assert res["ruleId"] == ids[res["ruleIndex"]], res
        assert isinstance(res["message"]["text"], str) and res["message"]["text"], res
        for loc in res["locations"]:
            assert loc["physicalLocation"]["region"]["startLine"] >= 1, loc
elif cmd == "github":
    import re
    for line in open(path, encoding="utf-8"):
        if not re.fullmatch(r"::(error|warning|notice)( [^:]*)?::[^\x00-\x1f\x7f]*\n", line):
            fail("not a workflow command: %r" % line)
EOF
py() { python3 "$CHECK" "$@"; }

# the damage
OSC52=$(printf 'ev\033]52;c;aGk=\007il')	# a clipboard write
CSI=$(printf 'x\033[2Jy')			# clears the screen
OSC=$(printf 'ti\033]0;owned\033\\tle')	# sets the window title
BADU=$(printf 'b\377a\300d')			# not UTF-8
MAX=18446744073709551615			# 2^64 - 1
OVER=18446744073709551616			# 2^64
NUL=$(printf 'x\001y' | tr '\001' '\000' | od -An -c | tr -d ' \n')	# (for messages only)

# long N: a line of N 'a's
long() { head -c "$1" /dev/zero | tr '\0' a; }
MIB=1048576

# --- generators: each writes one input with DAMAGE at a known line ---------------------
# A root with one good module (the base every root-file row breaks)
mkroot() {
	R=$T/root-$1
	rm -rf "$R"
	mkdir -p "$R/proc/sys/kernel" "$R/sys/module/dummy" "$R/capture"
	echo "dummy 16384 0 - Live 0xffffffffc0000000" >"$R/proc/modules"
	echo "6.12.0-test" >"$R/proc/sys/kernel/osrelease"
	echo 0 >"$R/proc/sys/kernel/tainted"
	printf 'MemTotal:        2000000 kB\nVmallocTotal:   34359738367 kB\nVmallocUsed:        3476 kB\n' >"$R/proc/meminfo"
	echo "0xffffffffc0000000-0xffffffffc0005000   20480 load_module+0x857/0x2470 pages=4 vmalloc N0=4" >"$R/proc/vmallocinfo"
	echo 16384 >"$R/sys/module/dummy/coresize"
	echo 0 >"$R/sys/module/dummy/initsize"
	echo live >"$R/sys/module/dummy/initstate"
}

# crlf FILE: every line ends in CR LF
crlf() { sed 's/$/\r/' "$1" >"$1.crlf" && mv "$1.crlf" "$1"; }
# chop FILE: the last newline gone (a capture cut short)
chop() { printf '%s' "$(cat "$1")" >"$1.chop" && mv "$1.chop" "$1"; }

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
	long) { echo CONFIG_MODULES=y; printf 'CONFIG_X="'; long $MIB; echo '"'; } >"$f" ;;
	trunc) chop "$f" ;;
	crlf) crlf "$f" ;;
	utf8) printf 'CONFIG_MODULES=y\nCONFIG_LOCALVERSION="%s"\n' "$BADU" >"$f" ;;
	name) printf 'CONFIG_MODULES=y\nCONFIG_LOCALVERSION="%s"\nCONFIG_%s=y\n' "$OSC52" "$CSI" >"$f" ;;
	max) printf 'CONFIG_MODULES=y\nCONFIG_NR_CPUS=%s\n' $MAX >"$f" ;;
	neg) printf 'CONFIG_MODULES=y\nCONFIG_NR_CPUS=-64\n' >"$f" ;;
	esac
}

# --- traces: tracefs text, and trace-cmd report ---------------------------------------
# trace_lines COMM MOD: a load of MOD by COMM (pid 157), a duplicate (-EEXIST) by pid 160
trace_lines() {
	cat <<EOT
# tracer: nop
            init-1       [001] .....     4.000000: tracing_mark_write: STEP one
        $1-157     [000] ...1.     4.100000: sys_finit_module(fd: 3, uargs: 5bfb41, flags: 0)
        $1-157     [000] .....     4.150000: module_load: $2
        $1-157     [000] ...1.     4.200000: sys_finit_module -> 0x0
        $1-160     [000] ...1.     5.100000: sys_finit_module(fd: 3, uargs: 5bfb41, flags: 0)
        $1-160     [000] ...1.     5.200000: sys_finit_module -> 0xffffffffffffffef
EOT
}
tracecmd_lines() {
	cat <<EOT
cpus=2
        $1-157   [000]     4.586660: sys_enter_finit_module: fd: 0x00000003, uargs: 0x005bfb41, flags: 0x00000004
        $1-157   [000]     4.600001: module_load:          $2
        $1-157   [000]     4.600932: sys_exit_finit_module: 0x0
        $1-160   [001]     5.000000: sys_enter_finit_module: fd: 0x00000003, uargs: 0x005bfb41, flags: 0x00000004
        $1-160   [001]     5.000100: sys_exit_finit_module: 0xffffffffffffffef
EOT
}
# stack N: an alloc_vmap_area event in the load with an N-frame stack
stack_lines() {
	echo '        modprobe-157     [000] .....     4.120000: alloc_vmap_area: va_start: 18446744072635809792 size=20480 align=4096 vstart=0xffffffffc0000000 vend=0xffffffffff000000 failed=0'
	echo '        modprobe-157     [000] .....     4.120001: <stack trace>'
	i=0
	while [ $i -lt "$1" ]; do
		echo " => frame_$i+0x1/0x10"
		i=$((i + 1))
	done
	echo ' => load_module'
}

gen_trace_kind() {	# FORMATFN KIND FILE
	fn=$1 f=$3
	mkdir -p "$(dirname "$f")"
	case $2 in
	nul) $fn modprobe dummy | sed '4s/module_load/modu\x00le_load/' >"$f" ;;
	long) { $fn modprobe dummy | sed -n 1,3p; long $MIB; echo; $fn modprobe dummy | sed -n '4,$p'; } >"$f" ;;
	trunc) $fn modprobe dummy >"$f"; chop "$f" ;;
	cut) $fn modprobe dummy | head -c -12 >"$f" ;;
	crlf) $fn modprobe dummy >"$f"; crlf "$f" ;;
	utf8) $fn "m$BADU" "$BADU" >"$f" ;;
	name) $fn modprobe "$OSC52" >"$f" ;;
	task) $fn "$OSC52" dummy >"$f" ;;
	msg) { $fn modprobe dummy | sed -n 1,2p; printf '            init-1       [001] .....     4.050000: tracing_mark_write: STEP %s\n' "$CSI"; $fn modprobe dummy | sed -n '3,$p'; } >"$f" ;;
	max) $fn modprobe dummy | sed "s/-157 /-$MAX /; s/4\.100000/$MAX.999999/" >"$f" ;;
	neg) $fn modprobe dummy | sed 's/-157 /--157 /; s/0xffffffffffffffef/-4095/' >"$f" ;;
	stack) { $fn modprobe dummy | sed -n 1,3p; stack_lines 100; $fn modprobe dummy | sed -n '4,$p'; } >"$f" ;;
	esac
}

# --- kernel logs ------------------------------------------------------------------------
# the messages, one a line: a banner, an unknown symbol, a signature warning, a Call Trace
log_msgs() {	# MOD
	cat <<EOT
Linux version 6.12.0-test (x@y) (gcc 12) #1 SMP PREEMPT_DYNAMIC
$1: Unknown symbol rpc_put_task (err -2)
$1: module verification failed: signature and/or required key missing - tainting kernel
EOT
}
# render FORMAT: messages on stdin, one line each in FORMAT
render() {
	awk -v fmt="$1" '
	function ts(i) { return sprintf("%5d.%06d", i + 1, i * 1000) }
	{
		if (fmt == "kmsg") printf "%d,%d,%d,-;%s\n", 6, NR, (NR + 1) * 1000000, $0
		else if (fmt == "dmesg") printf "[%s] %s\n", ts(NR), $0
		else if (fmt == "dmesg-T") printf "[Wed Dec  2 13:01:%02d 2026] %s\n", NR, $0
		else if (fmt == "dmesg-iso") printf "2026-12-02T13:01:%02d,000000+00:00 %s\n", NR, $0
		else if (fmt == "journal") printf "Dec 02 13:01:%02d ci-host kernel: %s\n", NR, $0
		else if (fmt == "journal-mono") printf "[%s] ci-host kernel: %s\n", ts(NR), $0
		else if (fmt == "journal-iso") printf "2026-12-02T13:01:%02d+0000 ci-host kernel: %s\n", NR, $0
		else if (fmt == "console") printf "[%s] %s\n", ts(NR), $0
	}'
}
jrender() {	# journalctl -o json, by python: the exact bytes, as journald writes them
	python3 -c '
import json, sys
for i, raw in enumerate(sys.stdin.buffer.read().split(b"\n")[:-1]):
    try:
        m = raw.decode("utf-8")
    except UnicodeDecodeError:
        m = list(raw)		# journald: not UTF-8, so an array of bytes
    print(json.dumps({"__MONOTONIC_TIMESTAMP": str((i + 1) * 1000000), "_BOOT_ID": "0123456789abcdef",
                      "_TRANSPORT": "kernel", "SYSLOG_IDENTIFIER": "kernel", "PRIORITY": "4", "MESSAGE": m}))'
}
emit() {	# FORMAT: stdin messages rendered
	if [ "$1" = journal-json ]; then jrender; else render "$1"; fi
}
calltrace() {	# N frames
	echo "WARNING: CPU: 0 PID: 1 at kernel/module/main.c:1 load_module+0x1/0x2"
	echo "Call Trace:"
	echo " <TASK>"
	i=0
	while [ $i -lt "$1" ]; do
		echo " frame_$i+0x1/0x10 [$2]"
		i=$((i + 1))
	done
	echo " </TASK>"
}

gen_log_kind() {	# FORMAT KIND FILE
	fmt=$1 f=$3
	case $2 in
	nul) log_msgs xfs | emit "$fmt" | sed '2s/Unknown/Unk\x00nown/' >"$f" ;;
	long) { log_msgs xfs | emit "$fmt" | sed -n 1p; printf 'x: Unknown symbol '; long $MIB; echo; log_msgs xfs | emit "$fmt" | sed -n '2,$p'; } >"$f" ;;
	trunc) log_msgs xfs | emit "$fmt" >"$f"; chop "$f" ;;
	cut) log_msgs xfs | emit "$fmt" | head -c -30 >"$f" ;;
	crlf) log_msgs xfs | emit "$fmt" >"$f"; crlf "$f" ;;
	utf8) log_msgs "$BADU" | emit "$fmt" >"$f" ;;
	name) log_msgs "$OSC52" | emit "$fmt" >"$f" ;;
	msg) { log_msgs xfs; printf 'xfs: Unknown symbol %s (err -2)\n' "$CSI"; printf '%s: module verification failed: signature and/or required key missing - tainting kernel\n' "$OSC"; } | emit "$fmt" >"$f" ;;
	max) { log_msgs xfs; printf 'xfs: Unknown symbol y (err %s)\n' $MAX; } | emit "$fmt" >"$f" ;;
	neg) { log_msgs xfs; printf 'xfs: Unknown symbol y (err -9223372036854775808)\n'; } | emit "$fmt" >"$f" ;;
	stack) { log_msgs xfs; calltrace 100 xfs; } | emit "$fmt" >"$f" ;;
	esac
}

# --- running a row ----------------------------------------------------------------------
# expect_run WHAT RC ERR: the exit code, stderr holding ERR ("-": empty, "*": anything),
# stderr escaped
expect_run() {
	what=$1 rc=$2 err=$3
	TS_CHECKS=$((TS_CHECKS + 1))
	if [ -n "${HOSTILE_PROBE:-}" ]; then
		printf '%s: rc=%s err=%s\n' "$what" "$TS_RC" "$(head -c 300 "$T/err" | head -3 | tr '\n\033' '|E')"
		return 0
	fi
	[ "$TS_RC" = "$rc" ] || { ts_fail "$what: exit status $TS_RC, expected $rc"; sed 's/^/  stderr: /' "$T/err" | head -3; }
	case $err in
	'*') ;;
	-) [ -s "$T/err" ] && ts_fail "$what: unexpected stderr: $(head -c 300 "$T/err")" ;;
	*) grep -F -- "$err" "$T/err" >/dev/null || ts_fail "$what: stderr lacks '$err': $(head -c 300 "$T/err")" ;;
	esac
	py text "$T/err" || ts_fail "$what: stderr not escaped"
}

# root_row FORMAT KIND RC ERR EXPR: report (text, then JSON with EXPR over d) on a root
root_row() {
	fmt=$1 kind=$2 rc=$3 err=$4 expr=$5
	mkroot "$fmt-$kind"
	"gen_$fmt" "$kind"
	ts_run --root "$R" report
	expect_run "$fmt/$kind: report" "$rc" "$err"
	[ "$TS_RC" = 0 ] && { py text "$T/out" || ts_fail "$fmt/$kind: report text not escaped"; }
	ts_run --root "$R" report -j
	expect_run "$fmt/$kind: report -j" "$rc" "$err"
	if [ "$TS_RC" = 0 ] && [ -z "${HOSTILE_PROBE:-}" ]; then
		py json "$T/out" "${expr:-True}" || ts_fail "$fmt/$kind: report -j"
	fi
}

# ci_run WHAT FILE RC ERR EXPR [ARGS]: ci in text, then JSON with JUnit, SARIF, GitHub
ci_run() {
	what=$1 file=$2 rc=$3 err=$4 expr=$5
	shift 5
	ts_run "$@" ci --max-failures=0 "$file"
	expect_run "$what: ci" "$rc" "$err"
	py text "$T/out" || ts_fail "$what: ci text not escaped"
	ts_run "$@" ci -j --max-failures=0 --junit="$T/j.xml" --sarif="$T/s.sarif" --github="$T/g.txt" "$file"
	expect_run "$what: ci -j" "$rc" "$err"
	[ -n "${HOSTILE_PROBE:-}" ] && return
	py json "$T/out" "${expr:-True}" || ts_fail "$what: ci -j"
	xmllint --noout "$T/j.xml" || ts_fail "$what: JUnit not well-formed"
	py sarif "$T/s.sarif" || ts_fail "$what: SARIF"
	py github "$T/g.txt" || ts_fail "$what: GitHub annotations"
}

# trace_row FORMAT KIND RC ERR REXPR CEXPR: the trace as the root's, through report and ci
trace_row() {
	fmt=$1 kind=$2 rc=$3 err=$4 rexpr=$5 cexpr=$6
	mkroot "$fmt-$kind"
	f=$R/sys/kernel/tracing/trace
	gen_trace_kind "${fmt}_lines" "$kind" "$f"
	ts_run --root "$R" report --no-log
	expect_run "$fmt/$kind: report" 0 "$err"
	py text "$T/out" || ts_fail "$fmt/$kind: report text not escaped"
	ts_run --root "$R" report --no-log -j
	expect_run "$fmt/$kind: report -j" 0 "$err"
	[ -z "${HOSTILE_PROBE:-}" ] && { py json "$T/out" "${rexpr:-True}" || ts_fail "$fmt/$kind: report -j"; }
	ci_run "$fmt/$kind" "$f" "$rc" "$err" "$cexpr"
}

# log_row FORMAT KIND RC ERR REXPR CEXPR: a kernel log through report --log and ci
log_row() {
	fmt=$1 kind=$2 rc=$3 err=$4 rexpr=$5 cexpr=$6
	mkroot "$fmt-$kind"
	f=$R/capture/log.txt
	gen_log_kind "$fmt" "$kind" "$f"
	ts_run --root "$R" report --no-trace --log "$f"
	expect_run "$fmt/$kind: report" 0 "$err"
	py text "$T/out" || ts_fail "$fmt/$kind: report text not escaped"
	ts_run --root "$R" report --no-trace --log "$f" -j
	expect_run "$fmt/$kind: report -j" 0 "$err"
	[ -z "${HOSTILE_PROBE:-}" ] && { py json "$T/out" "${rexpr:-True}" || ts_fail "$fmt/$kind: report -j"; }
	ci_run "$fmt/$kind" "$f" "$rc" "$err" "$cexpr"
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
vmalloc|cut|0|'proc/vmallocinfo':2: missing size, ignoring|
vmalloc|crlf|0|'proc/vmallocinfo':1: malformed N<node>= count, ignoring|
vmalloc|utf8|0|-|
vmalloc|name|0|-|
vmalloc|max|0|-|d["module_memory"]["module_bytes"] == 2**64 - 1
vmalloc|neg|0|'proc/vmallocinfo':2: size is not a number, ignoring|
meminfo|nul|0|'proc/meminfo':2: line contains a NUL byte, ignoring|
meminfo|long|0|'proc/meminfo':2: line too long, ignoring|
meminfo|trunc|0|-|d["module_memory"]["vmalloc_total"] == 34359738367 * 1024
meminfo|crlf|0|-|d["module_memory"]["vmalloc_total"] == 34359738367 * 1024
meminfo|utf8|0|-|d["module_memory"]["vmalloc_total"] == 34359738367 * 1024
meminfo|name|0|-|d["module_memory"]["vmalloc_total"] == 34359738367 * 1024
meminfo|max|0|'proc/meminfo':1: value out of range, ignoring|
meminfo|neg|0|'proc/meminfo':2: value is not a number, ignoring|
sysfs|nul|0|'sys/module/dummy/coresize':1: attribute contains a NUL byte, ignoring|d["modules"][0]["coresize"] is None
sysfs|long|0|'sys/module/dummy/coresize':1: attribute too long, ignoring|d["modules"][0]["coresize"] is None
sysfs|trunc|0|-|d["modules"][0]["coresize"] == 16384
sysfs|crlf|0|-|d["modules"][0]["coresize"] == 16384
sysfs|utf8|0|'sys/module/dummy/initstate':1: unknown initstate, ignoring|
sysfs|name|0|'sys/module/dummy/initstate':1: attribute too long, ignoring|
sysfs|max|0|-|d["modules"][0]["coresize"] == 2**64 - 1
sysfs|over|0|'sys/module/dummy/coresize':1: value is not a number, ignoring|d["modules"][0]["coresize"] is None
sysfs|neg|0|'sys/module/dummy/coresize':1: value is not a number, ignoring|d["modules"][0]["coresize"] is None
modstats|nul|0|'sys/kernel/debug/modules/stats':2: line contains a NUL byte, ignoring|
modstats|long|0|'sys/kernel/debug/modules/stats': file larger than 1 MiB, ignoring|
modstats|trunc|0|-|
modstats|crlf|0|-|
modstats|utf8|0|'sys/kernel/debug/modules/stats':3: no module statistics counters found, ignoring|
modstats|name|0|'sys/kernel/debug/modules/stats':4: no module statistics counters found, ignoring|
modstats|max|0|-|
modstats|neg|0|'sys/kernel/debug/modules/stats':1: counter value is not a number, ignoring|
kconfig|nul|0|'boot/config-6.12.0-test':2: line contains a NUL byte, ignoring|
kconfig|long|0|-|
kconfig|trunc|0|-|
kconfig|crlf|0|-|
kconfig|utf8|0|-|
kconfig|name|0|'boot/config-6.12.0-test':3: expected CONFIG_NAME=value, ignoring|
kconfig|max|0|-|
kconfig|neg|0|-|
EOF

ts_finalize
