#!/bin/sh
# Hostile traces and kernel logs, one table row per (format, kind of damage), each with
# the behaviour it must get. The inputs are real lines of the debian-6.12-xz capture
# (its trace, its /dev/kmsg records) with the damage put into them, rendered in every
# format kmodtop reads: tracefs and trace-cmd report text; /dev/kmsg records, dmesg
# (plain, -T, ISO), journalctl -k (short, short-monotonic, short-iso, json) and a serial
# console. Each goes through report (a root's trace, or --log) in text and JSON, and
# through ci in text, JSON, JUnit, SARIF and GitHub annotations; the traces also through
# top --replay --batch. For every run: the exit code, never a hang or a signal, the
# warning naming file:line, no raw control character (C0, DEL, C1) nor invalid UTF-8 in
# text output or on stderr, JSON, SARIF and JUnit read back by real parsers (python3
# json, xmllint) and SARIF validated against the official SARIF 2.1.0 schema
# (python3-jsonschema), names exact in JSON, numbers that do not fit refused with a
# warning.
#
# HOSTILE_SHARD=K/N runs rows K, K+N, K+2N, ... only: make check runs it as two halves
# side by side (hostile-logs-0.sh, hostile-logs-1.sh), each with its own output dir.
. "$TS_SRCDIR/lib/ts.sh"
SHARD_K=${HOSTILE_SHARD%/*} SHARD_N=${HOSTILE_SHARD#*/}
[ -n "${HOSTILE_SHARD:-}" ] || SHARD_K=0 SHARD_N=1
ts_init "hostile-logs${HOSTILE_SHARD:+-$SHARD_K}"
ts_need python3 xmllint timeout iconv xz gzip zstd bzip2
ts_need_py jsonschema python3-jsonschema

. "$TS_SRCDIR/lib/hostile.sh"
. "$TS_SRCDIR/lib/root.sh"

FIX=$FIXTURES/debian-6.12-xz

# mine: this row is the shard's (every row is numbered, whoever runs it)
ROWS_SEEN=0
mine() {
	ROWS_SEEN=$((ROWS_SEEN + 1))
	[ $(((ROWS_SEEN - 1) % SHARD_N)) = "$SHARD_K" ]
}

# --- traces -----------------------------------------------------------------------------
# The base: the trace's header (lines 1-12) and its step modprobe-xfs up to the first
# load's exit (lines 72-364), 305 lines. In it: 13 the STEP marker; 25 modprobe-157's
# finit_module(libcrc32c), 26 its kernel_read_file area, 40 its ENOEXEC; 41 the
# init_module of the decompressed file, 109 module_load: libcrc32c, 110 a
# module_request, 305 its exit 0. In between modprobe-158 loads crc32c_intel (ENODEV)
# and crc32c_generic.
sed -n '1,12p; 72,364p' "$FIX/sys/kernel/tracing/trace" >"$T/base.trace"

# trace-cmd report renders the same events: no flags column, the syscall events by
# their names with hex fields, the stack trace as the kernel_stack event
tracecmd() {
	sed -E '/^#/d
		s/^( *[^ ].*-[0-9-]+ +\[[0-9]+\]) [^ ]{5} /\1 /
		s/: sys_finit_module\(fd: ([0-9a-f]+), uargs: ([0-9a-f]+), flags: ([0-9a-f]+)\)$/: sys_enter_finit_module: fd: 0x\1, uargs: 0x\2, flags: 0x\3/
		s/: sys_init_module\(umod: ([0-9a-f]+), len: ([0-9a-f]+), uargs: ([0-9a-f]+)\)$/: sys_enter_init_module: umod: 0x\1, len: 0x\2, uargs: 0x\3/
		s/: sys_(f?init)_module -> /: sys_exit_\1_module: /
		s/: <stack trace>$/: kernel_stack:         <stack trace >/
		s/^ => (.*)$/=> \1 (ffffffff81000000)/' | sed '1i cpus=2'
}

# stack N: a load_module area of modprobe-157 with an N-frame stack, after line 108
stack() {
	sed -n 1,108p "$T/base.trace"
	echo '        modprobe-157     [000] .....     4.622500: alloc_vmap_area: va_start: 18446744072638300160 size=8192 align=4096 vstart=0xffffffffc0055000 vend=0xffffffffff000000 failed=0'
	echo '        modprobe-157     [000] .....     4.622501: <stack trace>'
	i=0
	while [ $i -lt "$1" ]; do
		echo " => frame_$i"
		i=$((i + 1))
	done
	echo ' => load_module'
	sed -n '109,$p' "$T/base.trace"
}

# gen_trace FORMAT KIND FILE
gen_trace() {
	fmt=$1 f=$3
	mkdir -p "$(dirname "$f")"
	b=$T/base.trace
	case $2 in
	good) cat "$b" ;;
	nul) sed '109s/libcrc32c/libcr\x00c32c/' "$b" ;;
	long) { sed -n 1,108p "$b"; printf '        modprobe-157     [000] .....     4.622529: module_load: '; long $MIB; echo; sed -n '109,$p' "$b"; } ;;
	trunc) head -c -1 "$b" ;;
	cut) head -c -12 "$b" ;;
	crlf) sed 's/$/\r/' "$b" ;;
	utf8) sed "s/libcrc32c/$(sq "$BADU")/; s/modprobe-157/m$(sq "$BADU")e-157/" "$b" ;;
	name) sed "109,110s/libcrc32c/$(sq "$OSC52")/; 110s/crypto-crc32c/$(sq "$CSI")/" "$b" ;;
	task) sed "s/modprobe-157/$(sq "$OSC")-157/" "$b" ;;
	msg) sed "13s/modprobe-xfs/$(sq "$CSI$OSC52")/" "$b" ;;
	max) sed "26s/size=8192/size=$MAX/; 41s/len: 2340/len: ffffffffffffffff/" "$b" ;;
	over) sed "26s/size=8192/size=$OVER/; 41s/len: 2340/len: 10000000000000000/" "$b" ;;
	pid) sed "s/modprobe-157 /modprobe-$OVER /" "$b" ;;
	time) sed "25s/ 4\.586660:/ $OVER.586660:/" "$b" ;;
	neg) sed '26s/size=8192/size=-8192/; 25s/fd: 3/fd: -3/' "$b" ;;
	negpid) sed 's/modprobe-157 /modprobe--157 /' "$b" ;;
	stack) stack 100 ;;
	sum) { sed -n 1,25p "$b"; i=0; while [ $i -lt 300 ]; do sed -n '26,38p' "$b"; i=$((i + 1)); done |
		sed 's/size=8192 align=1 vstart=0x[0-9a-f]* vend=0x[0-9a-f]*/size=72057594037927936 align=1 vstart=0x0 vend=0xffffffffffffffff/'
		sed -n '39,$p' "$b"; } ;;
	esac | if [ "$fmt" = tracecmd ]; then tracecmd; else cat; fi >"$f"
}

# trace_row FORMAT KIND RERR CERR TEXT REXPR CEXPR: the trace as a root's, through
# report (stderr holding RERR, its --attempts text TEXT, its JSON d REXPR) and ci (CERR;
# the text TEXT too when the damage is in a name; CEXPR). ci's gate --max-failures=0
# fails on the slice's failures: exit status 1.
# Under make check-valgrind every row runs one of its commands, under valgrind, with
# its checks (vg_row in tests/lib/hostile.sh): all of them for all 150 rows took longer
# than the rest of a CI run; make check and its ASan run go through every command of
# every row.
trace_row() {
	fmt=$1 kind=$2 rerr=$3 cerr=$4 text=$5 rexpr=$6 cexpr=$7
	mine || return 0
	# report, report -j, ci, ci -j; and top --replay where a name is damaged
	case $kind in name | utf8 | task | msg | sum) vg_row 5 ;; *) vg_row 4 ;; esac
	mkroot "$fmt-$kind"
	f=$R/sys/kernel/tracing/trace
	gen_trace "$fmt" "$kind" "$f"
	if hrun --root "$R" report --no-log --attempts; then
		expect_run "$fmt/$kind: report" 0 "$rerr"
		clean "$T/out" || ts_fail "$fmt/$kind: report text not escaped"
		if [ -n "$text" ] && [ -z "${HOSTILE_PROBE:-}" ]; then
			grep -F -- "$text" "$T/out" >/dev/null || ts_fail "$fmt/$kind: report text lacks '$text'"
		fi
	fi
	if hrun --root "$R" report --no-log -j; then
		expect_run "$fmt/$kind: report -j" 0 "$rerr"
		if [ -n "${HOSTILE_PROBE:-}" ]; then py show "$T/out" 'A(d)'; else
			py json "$T/out" "${rexpr:-True}" || ts_fail "$fmt/$kind: report -j"
		fi
	fi
	case $kind in name | utf8 | task) CI_TEXT=$text ;; *) CI_TEXT= ;; esac
	ci_run "$fmt/$kind" "$f" 1 "$cerr" "$cexpr"
	# the escaped names in top's frame too
	case $kind in
	name | utf8 | task | msg | sum)
		if hrun top --replay "$R" --batch --speed 0 --size 160x40; then
			expect_run "$fmt/$kind: top --replay" 0 "$rerr"
			clean "$T/out" || ts_fail "$fmt/$kind: top frame not escaped"
			# the requester column cuts a comm to 16 cells
			case $kind in task) ft='ti\x1b]0;owned' ;; sum) ft='16.0E' ;; *) ft=$text ;; esac
			[ -z "${HOSTILE_PROBE:-}" ] && { grep -F -- "$ft" "$T/out" >/dev/null ||
				ts_fail "$fmt/$kind: top frame lacks '$ft'"; }
		fi
		;;
	esac
	vg_row_end
}

# FORMAT|KIND|REPORT STDERR|CI STDERR|TEXT|REPORT EXPR|CI EXPR ("-": no stderr)
while IFS='|' read -r fmt kind rerr cerr text rexpr cexpr; do
	[ -n "$fmt" ] || continue
	trace_row "$fmt" "$kind" "$rerr" "$cerr" "$text" "$rexpr" "$cexpr"
done <<'EOF'
tracefs|good|-|-||A(d) == BA|F(d) == f2((25, 40), (126, 201))
tracefs|nul|trace':109: line contains a NUL byte, skipping|trace':109: line contains a NUL byte, skipping||A(d) == rn(BA, None)|F(d) == f2((25, 40), (126, 201), None)
tracefs|long|trace':109: line too long, skipping|trace':109: line too long, skipping||A(d) == BA|F(d) == f2((25, 40), (127, 202))
tracefs|trunc|-|trace':305: the last line has no newline||A(d) == BA|F(d) == f2((25, 40), (126, 201))
tracefs|cut|-|trace':305: the last line has no newline||A(d) == [BA[0], ("libcrc32c", "incomplete")] + BA[2:]|F(d) == f2((25, 40), (126, 201), extra=[("incomplete", "libcrc32c", 1, 41, 41)])
tracefs|crlf|-|-||A(d) == BA|F(d) == f2((25, 40), (126, 201))
tracefs|utf8|-|-|b\xffa\xc0d|A(d) == rn(BA, BADU) and d["attempts"][0]["comm"] == "mb\ufffda\ufffdde"|F(d) == f2((25, 40), (126, 201), BADU)
tracefs|name|-|-|ev\x1b]52;c;aGk=\x07il|A(d) == rn(BA, O52) and d["autoload"][0]["alias"] == CSI|F(d) == f2((25, 40), (126, 201), O52)
tracefs|task|-|-|ti\x1b]0;owned\x1b\\tle|A(d) == BA and d["attempts"][0]["comm"] == OSC and d["requesters"][0]["comm"] == OSC|[f["requester"] for f in d["findings"] if f["module"] == "libcrc32c"] == [OSC]
tracefs|msg|-|-|x\x1b[2Jyev\x1b]52;c;aGk=\x07il|A(d) == BA and d["attempts"][0]["step"] == CSI + O52|F(d) == f2((25, 40), (126, 201))
tracefs|max|trace':26: alloc_vmap_area size larger than its range, skipping|trace':26: alloc_vmap_area size larger than its range||A(d) == BA and d["attempts"][1]["len"] == 2**64 - 1 and d["load_attempts"]["wasted_vmap"]["measured"] == 77824|F(d) == f2((25, 40), (126, 201)) and d["totals"]["wasted"] == 77824
tracefs|over|trace':26: malformed alloc_vmap_area fields && trace':41: syscall argument is not a hex number|trace':26: malformed alloc_vmap_area fields && trace':41: syscall argument is not a hex number||A(d) == [(None, "bad-format")] + BA[2:]|F(d) == sorted([("bad-format", None, 1, 25, 40), ("init-failed", "crc32c_intel", 1, 126, 201)])
tracefs|pid|trace':25: not a trace line|trace':25: not a trace line||A(d) == BA[2:]|F(d) == [("init-failed", "crc32c_intel", 1, 126, 201)]
tracefs|time|trace':25: not a trace line|trace':25: not a trace line||A(d) == BA[1:]|F(d) == [("init-failed", "crc32c_intel", 1, 126, 201)]
tracefs|neg|trace':25: syscall argument is not a hex number && trace':26: malformed alloc_vmap_area fields|trace':25: syscall argument is not a hex number && trace':26: malformed alloc_vmap_area fields||A(d) == BA[1:]|F(d) == [("init-failed", "crc32c_intel", 1, 126, 201)]
tracefs|negpid|-|-||A(d) == BA and d["attempts"][0]["comm"] == "modprobe-" and d["attempts"][0]["pid"] == 157|F(d) == f2((25, 40), (126, 201))
tracefs|stack|-|-||A(d) == BA|F(d) == f2((25, 40), (229, 304))
tracefs|sum|trace':39: the trace goes back in time here, 299 time(s) in all|-||A(d) == BA and d["attempts"][0]["wasted_vmap"] == 2**64 - 1 and d["load_attempts"]["wasted_vmap"]["measured"] == 2**64 - 1|F(d) == f2((25, 3927), (4013, 4088)) and d["totals"]["wasted"] == 2**64 - 1
tracecmd|good|-|-||A(d) == BA|F(d) == f2((14, 29), (115, 190))
tracecmd|nul|trace':98: line contains a NUL byte, skipping|trace':98: line contains a NUL byte, skipping||A(d) == rn(BA, None)|F(d) == f2((14, 29), (115, 190), None)
tracecmd|long|trace':98: line too long, skipping|trace':98: line too long, skipping||A(d) == BA|F(d) == f2((14, 29), (116, 191))
tracecmd|trunc|-|trace':294: the last line has no newline||A(d) == BA|F(d) == f2((14, 29), (115, 190))
tracecmd|cut|-|trace':294: the last line has no newline||A(d) == [BA[0], ("libcrc32c", "incomplete")] + BA[2:]|F(d) == f2((14, 29), (115, 190), extra=[("incomplete", "libcrc32c", 1, 30, 30)])
tracecmd|crlf|-|-||A(d) == BA|F(d) == f2((14, 29), (115, 190))
tracecmd|utf8|-|-|b\xffa\xc0d|A(d) == rn(BA, BADU) and d["attempts"][0]["comm"] == "mb\ufffda\ufffdde"|F(d) == f2((14, 29), (115, 190), BADU)
tracecmd|name|-|-|ev\x1b]52;c;aGk=\x07il|A(d) == rn(BA, O52) and d["autoload"][0]["alias"] == CSI|F(d) == f2((14, 29), (115, 190), O52)
tracecmd|task|-|-|ti\x1b]0;owned\x1b\\tle|A(d) == BA and d["attempts"][0]["comm"] == OSC|[f["requester"] for f in d["findings"] if f["module"] == "libcrc32c"] == [OSC]
tracecmd|msg|-|-|x\x1b[2Jyev\x1b]52;c;aGk=\x07il|A(d) == BA and d["attempts"][0]["step"] == CSI + O52|F(d) == f2((14, 29), (115, 190))
tracecmd|max|trace':15: alloc_vmap_area size larger than its range, skipping|trace':15: alloc_vmap_area size larger than its range||A(d) == BA and d["attempts"][1]["len"] == 2**64 - 1|F(d) == f2((14, 29), (115, 190)) and d["totals"]["wasted"] == 77824
tracecmd|over|trace':15: malformed alloc_vmap_area fields && trace':30: syscall argument is not a hex number|trace':15: malformed alloc_vmap_area fields && trace':30: syscall argument is not a hex number||A(d) == [(None, "bad-format")] + BA[2:]|F(d) == sorted([("bad-format", None, 1, 14, 29), ("init-failed", "crc32c_intel", 1, 115, 190)])
tracecmd|pid|trace':14: not a trace line|trace':14: not a trace line||A(d) == BA[2:]|F(d) == [("init-failed", "crc32c_intel", 1, 115, 190)]
tracecmd|time|trace':14: not a trace line|trace':14: not a trace line||A(d) == BA[1:]|F(d) == [("init-failed", "crc32c_intel", 1, 115, 190)]
tracecmd|neg|trace':14: syscall argument is not a hex number && trace':15: malformed alloc_vmap_area fields|trace':14: syscall argument is not a hex number && trace':15: malformed alloc_vmap_area fields||A(d) == BA[1:]|F(d) == [("init-failed", "crc32c_intel", 1, 115, 190)]
tracecmd|negpid|-|-||A(d) == BA and d["attempts"][0]["comm"] == "modprobe-"|F(d) == f2((14, 29), (115, 190))
tracecmd|stack|-|-||A(d) == BA|F(d) == f2((14, 29), (218, 293))
EOF

# --- kernel logs ------------------------------------------------------------------------
# The base: eight /dev/kmsg records of the capture (capture/kmsg.raw lines 1, 454, 460,
# 462, 464-466, 887): 1 the banner, 3 a bad ELF magic with its escaped DEL, 5-7 nfs's
# unknown symbols, 8 the last. Every other format is rendered from them as its tool
# renders /dev/kmsg: dmesg unescapes \xNN, journald keeps a message that is not UTF-8
# as an array of bytes; the clock of -T, ISO and the journal starts at 13:01:00.
sed -n '1p; 454p; 460p; 462p; 464,466p; 887p' "$FIX/capture/kmsg.raw" >"$T/base.kmsg"
RENDER=$T/render.py
cat >"$RENDER" <<'PY'
import datetime, json, re, sys

fmt = sys.argv[1]
boot = datetime.datetime(2026, 12, 2, 13, 1, 0)
out = sys.stdout.buffer
for i, rec in enumerate(sys.stdin.buffer.read().split(b"\n")[:-1]):
    if fmt == "kmsg":
        out.write(rec + b"\n")
        continue
    hdr, msg = rec.split(b";", 1)
    prio, seq, usec = (int(x) for x in hdr.split(b",")[:3])
    msg = re.sub(rb"\\x([0-9a-f]{2})", lambda m: bytes([int(m.group(1), 16)]), msg)
    mono = b"[%5d.%06d]" % (usec // 1000000, usec % 1000000)
    if fmt in ("dmesg-T", "dmesg-iso", "journal", "journal-iso"):
        t = boot + datetime.timedelta(microseconds=usec)
    if fmt == "dmesg":
        line = mono + b" " + msg
    elif fmt == "console":
        line = (b"login: " if i == 1 else b"") + mono + b" " + msg
    elif fmt == "dmesg-T":
        line = t.strftime("[%a %b %e %H:%M:%S %Y] ").encode() + msg
    elif fmt == "dmesg-iso":
        line = t.strftime("%Y-%m-%dT%H:%M:%S,%f+00:00 ").encode() + msg
    elif fmt == "journal":
        line = t.strftime("%b %d %H:%M:%S ci-host kernel: ").encode() + msg
    elif fmt == "journal-mono":
        line = mono + b" ci-host kernel: " + msg
    elif fmt == "journal-iso":
        line = t.strftime("%Y-%m-%dT%H:%M:%S+0000 ci-host kernel: ").encode() + msg
    elif fmt == "journal-json":
        try:
            m = msg.decode("utf-8")
        except UnicodeDecodeError:
            m = list(msg)
        line = json.dumps({"__MONOTONIC_TIMESTAMP": str(usec), "_BOOT_ID": "5f0c7e2b9a1d4e6f8a3b2c1d0e9f8a7b",
                           "_TRANSPORT": "kernel", "PRIORITY": str(prio & 7), "SYSLOG_FACILITY": str(prio >> 3),
                           "SYSLOG_IDENTIFIER": "kernel", "_HOSTNAME": "ci-host", "MESSAGE": m}).encode()
    out.write(line + b"\n")
PY

# warn_alloc's report of a vmalloc failure in modprobe (COMM) and its N-frame stack, as
# records after record 7
vmalloc_fail() {	# COMM N
	printf '4,378,11700600,-;%s: vmalloc error: size 8192, vm_struct allocation failed, mode:0xcc0(GFP_KERNEL), nodemask=(null),cpuset=/,mems_allowed=0\n' "$1"
	printf '4,379,11700601,-;CPU: 0 UID: 0 PID: 157 Comm: %s Not tainted 6.12.118+deb12-amd64 #1  Debian 6.12.118-1~deb12u1\n' "$1"
	echo '4,380,11700602,-;Call Trace:'
	echo '4,381,11700603,-; <TASK>'
	i=0
	while [ $i -lt "$2" ]; do
		echo "4,$((382 + i)),11700604,-; frame_$i+0x1/0x10"
		i=$((i + 1))
	done
	echo "4,$((382 + i)),11700605,-; </TASK>"
}

# gen_log FORMAT KIND FILE
gen_log() {
	fmt=$1 f=$3
	b=$T/base.kmsg
	case $2 in
	long) { sed -n 1,4p "$b"; printf '4,375,11700013,-;nfs: Unknown symbol '; long $MIB; echo ' (err -2)'; sed -n '5,$p' "$b"; } ;;
	utf8) sed "5,7s/;nfs:/;$(sq "$BADU"):/" "$b" ;;
	name) sed "5,7s/;nfs:/;$(sq "$OSC52"):/" "$b" ;;
	kesc) sed '5,7s/;nfs:/;ev\\x1b]52;c;aGk=\\x07il:/' "$b" ;;
	msg) sed "5s/rpc_put_task/$(sq "$CSI")/; 4s/SGI XFS/$(sq "$OSC")/" "$b" ;;
	task) { sed -n 1,7p "$b"; vmalloc_fail "$OSC52" 1; sed -n '8,$p' "$b"; } ;;
	stack) { sed -n 1,7p "$b"; vmalloc_fail modprobe 100; sed -n '8,$p' "$b"; } ;;
	max) sed "6s/,11700459,/,$MAX,/; 7s/^4,377,/4,$MAX,/" "$b" ;;
	over) sed "6s/,11700459,/,$OVER,/; 7s/^4,377,/4,$OVER,/" "$b" ;;
	neg) sed '6s/,11700459,/,-11700459,/; 7s/^4,/-4,/' "$b" ;;
	*) cat "$b" ;;
	esac | python3 "$RENDER" "$fmt" | case $2 in
	nul) sed '5s/Unknown/Unk\x00nown/' ;;
	tmax) sed "6s/\\[ *[0-9]*\\.[0-9]*\\]/[$MAX.999999]/" ;;
	tover) sed "6s/\\[ *[0-9]*\\.[0-9]*\\]/[$OVER.000000]/" ;;
	tneg) sed '6s/\[ *[0-9]*\.[0-9]*\]/[   -1.700459]/' ;;
	trunc) head -c -1 ;;
	cut) head -c -12 ;;
	crlf) sed 's/$/\r/' ;;
	*) cat ;;
	esac >"$f"
}

# log_row FORMAT KIND RERR CERR TEXT REXPR CEXPR: a kernel log through report --log
# (stderr RERR, text TEXT, JSON d REXPR) and ci (CERR, CEXPR; the text TEXT when the
# damage is in a name). The unknown symbols fail ci's --max-failures=0: exit status 1.
log_row() {
	fmt=$1 kind=$2 rerr=$3 cerr=$4 text=$5 rexpr=$6 cexpr=$7
	mine || return 0
	vg_row 4
	mkroot "$fmt-$kind"
	f=$R/capture/log.txt
	gen_log "$fmt" "$kind" "$f"
	if hrun --root "$R" report --no-trace --log "$f"; then
		expect_run "$fmt/$kind: report" 0 "$rerr"
		clean "$T/out" || ts_fail "$fmt/$kind: report text not escaped"
		if [ -n "$text" ] && [ "$fmt" != journal-json ] && [ -z "${HOSTILE_PROBE:-}" ]; then
			grep -F -- "$text" "$T/out" >/dev/null || ts_fail "$fmt/$kind: report text lacks '$text'"
		fi
	fi
	if hrun --root "$R" report --no-trace --log "$f" -j; then
		expect_run "$fmt/$kind: report -j" 0 "$rerr"
		if [ -n "${HOSTILE_PROBE:-}" ]; then py show "$T/out" 'K(d)'; else
			py json "$T/out" "${rexpr:-True}" || ts_fail "$fmt/$kind: report -j"
		fi
	fi
	case $kind in name | utf8 | kesc) CI_TEXT=$text ;; *) CI_TEXT= ;; esac
	ci_run "$fmt/$kind" "$f" 1 "$cerr" "$cexpr"
	vg_row_end
}

# KIND|FORMATS|REPORT STDERR|CI STDERR|TEXT|REPORT EXPR|CI EXPR, for each of FORMATS
# (all: every format; mono: those with "[seconds]" times). report --log does not read
# journalctl's json (the man page's list): its rows expect no records there.
LOGS="kmsg dmesg dmesg-T dmesg-iso journal journal-mono journal-iso journal-json console"
while IFS='|' read -r lk lfmts lrerr lcerr ltext lrexpr lcexpr; do
	[ -n "$lk" ] || continue
	case $lfmts in all) lfmts=$LOGS ;; mono) lfmts="dmesg journal-mono console" ;; esac
	for lf in $lfmts; do
		re=$lrexpr ce=$lcerr
		if [ "$lf" = journal-json ]; then
			re='K(d) == [] and d["load_attempts"]["inputs"]["kernel_log_records"] == 0'
			[ "$lk" = nul ] && ce="log.txt':5: not a JSON object, skipping"
		fi
		log_row "$lf" "$lk" "$lrerr" "$ce" "$ltext" "$re" "$lcexpr"
	done
done <<'EOF'
good|all|-|-||K(d) == KB()|F(d) == FB()
nul|all|log.txt':5: line contains a NUL byte, skipping|log.txt':5: line contains a NUL byte, skipping||K(d) == KB(2)|F(d) == FB((6, 7), 2)
long|all|log.txt':5: line too long, skipping|log.txt':5: line too long, skipping||K(d) == KB()|F(d) == FB((6, 8))
trunc|all|-|log.txt':8: the last line has no newline||K(d) == KB()|F(d) == FB()
cut|all|-|log.txt':8: the last line has no newline||K(d) == KB()|F(d) == FB()
crlf|all|-|-||K(d) == KB()|F(d) == FB()
utf8|all|-|-|b\xffa\xc0d|K(d) == KB(mod=BADU)|F(d) == FB(mod=BADU)
name|all|-|-|ev\x1b]52;c;aGk=\x07il|K(d) == KB(mod=O52)|F(d) == FB(mod=O52)
kesc|kmsg|-|-|ev\x1b]52;c;aGk=\x07il|K(d) == KB(mod=O52)|F(d) == FB(mod=O52)
msg|all|-|-|Unknown symbol x\x1b[2Jy (err -2)|K(d) == KB() and d["findings"][1]["lines"][0] == "nfs: Unknown symbol " + CSI + " (err -2)"|F(d) == FB() and sample(d, "unknown-symbol") == ["nfs: Unknown symbol " + CSI + " (err -2)"]
task|all|-|-||K(d) == KB(extra=[VKO])|F(d) == FB(extra=[VFO]) and sample(d, "vmalloc-error-other")[0].startswith(O52 + ": vmalloc error: size 8192")
stack|all|-|-||K(d) == KB(extra=[VK])|F(d) == FB(extra=[VF]) and d["inputs"][0]["lines"] == 113
max|kmsg journal-json|-|-||K(d) == KB()|F(d) == FB()
over|kmsg|log.txt':6: kmsg timestamp is not a number && log.txt':7: kmsg sequence number is not a number|log.txt':6: kmsg timestamp is not a number && log.txt':7: kmsg sequence number is not a number||K(d) == KB(1)|F(d) == FB((5, 5), 1)
over|journal-json|-|log.txt':6: bad __MONOTONIC_TIMESTAMP, skipping|||F(d) == FB((5, 7), 2)
neg|kmsg|log.txt':6: kmsg timestamp is not a number && log.txt':7: kmsg priority is not a number|log.txt':6: kmsg timestamp is not a number && log.txt':7: kmsg priority is not a number||K(d) == KB(1)|F(d) == FB((5, 5), 1)
neg|journal-json|-|log.txt':6: bad __MONOTONIC_TIMESTAMP, skipping|||F(d) == FB((5, 7), 2)
tmax|mono|log.txt':6: kernel timestamp out of range, skipping|log.txt':6: kernel timestamp out of range, skipping||K(d) == KB(2)|F(d) == FB((5, 7), 2)
tover|mono|log.txt':6: kernel timestamp out of range, skipping|log.txt':6: kernel timestamp out of range, skipping||K(d) == KB(2)|F(d) == FB((5, 7), 2)
tneg|mono|log.txt':6: kernel timestamp out of range, skipping|log.txt':6: kernel timestamp out of range, skipping||K(d) == KB(2)|F(d) == FB((5, 7), 2)
EOF

# top --replay of a root whose kernel log (capture/kmsg.raw) names a module with an OSC 52
if mine; then
	mkroot replay-kmsg
	gen_log kmsg name "$R/capture/kmsg.raw"
	gen_trace tracefs task "$R/sys/kernel/tracing/trace"
	hrun top --replay "$R" --batch --speed 0 --size 160x40
	expect_run "replay with a log: top" 0 -
	clean "$T/out" || ts_fail "replay with a log: top frame not escaped"
	grep -F 'ti\x1b]0;owned' "$T/out" >/dev/null || ts_fail "replay with a log: comm not shown escaped"
fi

# --- the escaping of what no table row reaches --------------------------------------

# an unknown counter in a root's modules/stats: its name is a label of the report text
if mine; then
	mkroot modstats-label
	mkdir -p "$R/sys/kernel/debug/modules"
	printf '         Mods ever loaded\t6\n%s\t7\n' "$OSC52" >"$R/sys/kernel/debug/modules/stats"
	hrun --root "$R" report --no-log --no-trace
	expect_run "modstats label: report" 0 '*'
	clean "$T/out" || ts_fail "modstats label: report text not escaped"
	grep -F 'ev\x1b]52;c;aGk=\x07il:' "$T/out" >/dev/null || ts_fail "modstats label: label not shown escaped"
fi

# a bad line in a root's modprobe.d: libkmod's message about it, escaped, naming the file
if mine; then
	mkroot modprobe-conf
	mkdir -p "$R/etc/modprobe.d" "$R/lib/modules/6.12.0-test/kernel"
	printf 'alias foo bar\n%s line\n' "$OSC52" >"$R/etc/modprobe.d/bad.conf"
	gen_log kmsg good "$R/capture/kmsg.raw"
	for cmd in "--root $R report --no-trace" "ci --root $R $R/capture/kmsg.raw" \
		"top --replay $R --batch --speed 0 --size 160x40"; do
		# shellcheck disable=SC2086
		hrun $cmd
		expect_run "modprobe.d: $cmd" 0 \
			"bad.conf line 2: ignoring bad line starting with 'ev\x1b]52;c;aGk=\x07il'"
	done
fi

# report reads a compressed log or trace as ci does: the same records as the plain file;
# a compression it has no library for refused by name
if mine; then
	mkroot compressed
	gen_log kmsg good "$T/c.kmsg"
	gen_log dmesg good "$T/c.dmesg"
	gen_trace tracefs good "$T/c.trace"
	xz -c "$T/c.kmsg" >"$T/c.kmsg.xz"
	gzip -c "$T/c.dmesg" >"$T/c.dmesg.gz"
	zstd -qc "$T/c.trace" >"$T/c.trace.zst"
	for f in c.kmsg.xz c.dmesg.gz; do
		hrun --root "$R" report --no-trace --log "$T/$f" -j
		expect_run "compressed: report --log $f" 0 -
		py json "$T/out" 'K(d) == KB() and d["load_attempts"]["inputs"]["kernel_log_records"] == 8' ||
			ts_fail "compressed: report --log $f"
	done
	hrun --root "$R" report --no-log --trace "$T/c.trace.zst" -j
	expect_run "compressed: report --trace" 0 -
	py json "$T/out" 'A(d) == BA' || ts_fail "compressed: report --trace c.trace.zst"
	bzip2 -c "$T/c.kmsg" >"$T/c.kmsg.bz2"
	hrun --root "$R" report --no-trace --log "$T/c.kmsg.bz2"
	expect_run "compressed: report --log bzip2" 1 "c.kmsg.bz2': bzip2 compressed input is not supported"
fi

# a trace out of time order: the capture's trace cut by CPU, CPU 0's events (with their
# stack frames) then CPU 1's, as per-CPU trace files put one after another. Read sorted
# by time with a warning naming the first place: the attempts, failures and waste of
# the trace as captured
if mine; then
	ft=$FIX/sys/kernel/tracing/trace
	awk -v dir="$T" '/^#/ && !n { next } { n = 1 }
		/^ *[^ ].*\[[0-9]+\] / && !/^ =>/ { cpu = $0; sub(/^[^[]*\[/, "", cpu); sub(/\].*/, "", cpu) }
		{ print > (dir "/cpu" (cpu + 0) ".part") }' "$ft"
	{ sed -n '/^#/p' "$ft" | head -12; cat "$T/cpu0.part" "$T/cpu1.part"; } >"$T/percpu.trace"
	[ "$(wc -l <"$T/percpu.trace")" = "$(wc -l <"$ft")" ] || ts_fail "per-CPU trace: lines lost in the split"
	sum='(len(d["attempts"]), sum(a["outcome"] != "loaded" for a in d["attempts"]), d["load_attempts"]["wasted_vmap"]["measured"])'
	hrun --root "$FIX" report --no-log --trace "$ft" -j
	expect_run "per-CPU trace: report of the trace" 0 '*'
	cp "$T/out" "$T/inorder.json"
	hrun --root "$FIX" report --no-log --trace "$T/percpu.trace" -j
	expect_run "per-CPU trace: report" 0 "percpu.trace':$(($(wc -l <"$T/cpu0.part") + 13)): the trace goes back in time here, 1 time(s) in all"
	want=$(py show "$T/inorder.json" "$sum")
	got=$(py show "$T/out" "$sum")
	[ "$got" = "$want" ] || ts_fail "per-CPU trace: attempts, failed, waste $got, in time order $want"
	# compressed it cannot be sorted before reading: the reader's window puts it in time
	# order, call by call as the trace sorted whole, and says so
	calls='[(a["module"], a["pid"], a["start"], a["ret"], a["outcome"]) for a in d["attempts"]]'
	want=$(py show "$T/out" "$calls")
	zstd -qc "$T/percpu.trace" >"$T/percpu.trace.zst"
	hrun --root "$FIX" report --no-log --trace "$T/percpu.trace.zst" -j
	expect_run "per-CPU trace, compressed: report" 0 \
		"percpu.trace.zst': the trace goes back in time 1 time(s) (per-CPU trace files one after another?): read in time order"
	got=$(py show "$T/out" "$calls")
	[ "$got" = "$want" ] || ts_fail "per-CPU trace, compressed: attempts differ from the trace sorted whole"
	# further back than the window holds (40000 later lines between): a warning with
	# the count and the first line, not a silent pairing
	awk 'BEGIN { for (i = 0; i < 40000; i++)
		printf "          filler-1       [000] .....    %d.%06d: tracing_mark_write: filler\n", 20 + int(i / 1000000), i % 1000000 }' >"$T/filler.part"
	{ sed -n '/^#/p' "$ft" | head -12; cat "$T/cpu0.part" "$T/filler.part" "$T/cpu1.part"; } | zstd -qc >"$T/far.trace.zst"
	n1=$(grep -c '^ *[^ ].*\[001\] .* [0-9]*\.[0-9]*: ' "$T/cpu1.part")
	hrun --root "$FIX" report --no-log --trace "$T/far.trace.zst" -j
	expect_run "per-CPU trace, far apart: report" 0 \
		"far.trace.zst':$(($(wc -l <"$T/cpu0.part") + 40013)): the trace goes back in time here further than the reader holds lines to put in order, $n1 time(s) in all"
	# ci reads it as it comes (its evidence lines are the file's): a warning
	hrun ci "$T/percpu.trace"
	expect_run "per-CPU trace: ci" 0 "percpu.trace':"
	grep -F "the trace goes back in time near here, 1 time(s) in all" "$T/err" >/dev/null ||
		ts_fail "per-CPU trace: ci does not warn"
fi

# a kmsg time of 2^64 - 1 us on the first of nfs's unknown symbols: a finding's first
# time is still no later than its last
if mine; then
	mkroot kmsg-time-max
	gen_log kmsg good "$T/tmax.kmsg"
	sed -i "5s/,11700013,/,$MAX,/" "$T/tmax.kmsg"
	hrun --root "$R" report --no-trace --log "$T/tmax.kmsg" -j
	expect_run "kmsg time 2^64-1: report" 0 -
	py json "$T/out" 'K(d) == KB() and all(f["first"] <= f["last"] for f in d["findings"])' ||
		ts_fail "kmsg time 2^64-1: a finding's first time after its last"
fi

# modules legally named "-" and "(unnamed)": text shows them as themselves, escaped, not
# as the unnamed row nor as no module; JSON has the names as they are
for nm in - '(unnamed)'; do
	mine || continue
	case $nm in -) esc='\x2d' r=dash ;; *) esc='\x28unnamed)' r=unnamed ;; esac
	mkroot "name-$r"
	mkdir -p "$R/sys/kernel/tracing"
	sed -n '1,12p; 72,364p' "$FIX/sys/kernel/tracing/trace" | sed "109s/module_load: libcrc32c/module_load: $nm/" >"$R/sys/kernel/tracing/trace"
	hrun --root "$R" report --no-log
	expect_run "module named $nm: report" 0 -
	grep -F -- "$esc " "$T/out" >/dev/null || ts_fail "module named $nm: report text lacks '$esc'"
	hrun --root "$R" report --no-log -j
	expect_run "module named $nm: report -j" 0 -
	py json "$T/out" "A(d) == rn(BA, '$nm')" || ts_fail "module named $nm: report -j"
	hrun top --replay "$R" --batch --speed 0 --size 160x40
	expect_run "module named $nm: top --replay" 0 -
	grep -F -- "$esc" "$T/out" >/dev/null || ts_fail "module named $nm: top frame lacks '$esc'"
done

ts_finalize
