#!/bin/sh
# Memory bounds on hostile or merely large inputs: a module file that decompresses to
# more than a module can be is refused with a warning naming it, and one that is no ELF
# file is not kept in memory while it is decompressed. Peak memory is read with
# /usr/bin/time (skipped under the sanitizers and valgrind, whose own memory dwarfs the
# figures).
. "$TS_SRCDIR/lib/ts.sh"
ts_init memory
ts_need xz jq

T=$TS_TMP
export XDG_CACHE_HOME=$T/cache

# jq_true ARGS...: jq -e, its output discarded
jq_true() {
	jq -e "$@" >/dev/null
}

# maxrss_run ARGS...: runs kmodtop like ts_run and sets RSS to its peak in KiB ("" if unknown)
RSS=
maxrss_run() {
	RSS=
	if [ -x /usr/bin/time ] && [ -z "${KMODTOP_VALGRIND:-}" ] &&
	   ! ldd "$KMODTOP" 2>/dev/null | grep -q 'lib[at]san'; then
		/usr/bin/time -f %M -o "$T/rss" "$KMODTOP" "$@" >"$T/out" 2>"$T/err"
		TS_RC=$?
		RSS=$(tail -n 1 "$T/rss")
	else
		ts_run "$@"
	fi
}

# --- module files: a size cap, and no copy of what is no ELF image ----------------------
R=$T/bomb
cp -r "$FIXTURES/debian-6.12-xz" "$R"
chmod -R u+w "$R"
mod=$(find "$R/lib/modules" -name libcrc32c.ko.xz)
[ -n "$mod" ] || ts_fail "no libcrc32c.ko.xz in the fixture"

# 300 MiB of zeros in 45 KB: over the cap, refused by its xz index, named in a warning
head -c 300M /dev/zero | xz -0 -T1 >"$mod"
ts_run --root "$R" report -j
ts_expect_rc 0 "report with a module bomb over the cap"
ts_check "a module file over the cap is named in a warning" \
	grep -q "'$mod': decompresses to more than .* MiB.*left out of the estimate" "$T/err"
ts_check "the refused file prices none of its attempts" \
	jq_true '[.attempts[] | select(.module == "libcrc32c" and .estimated.source == "model")] | length == 0' "$T/out"

# 200 MiB of zeros, under the cap: decompressed to be laid out, but never kept
head -c 200M /dev/zero | xz -0 -T1 >"$mod"
maxrss_run --root "$R" report -j
ts_expect_rc 0 "report with a module bomb under the cap"
ts_check "no warning for a file under the cap" sh -c "! grep -q 'decompresses to more' '$T/err'"
if [ -n "$RSS" ]; then
	ts_check "a 200 MiB image of zeros costs less than 64 MiB (peak $RSS KiB)" \
		test "$RSS" -lt 65536
fi

# --- report -j: 64 MiB plus 2 KiB an attempt, whatever the input ------------------------
# gen_root DIR N: a root whose trace has N finit_module() calls, every other one failing
gen_root() {
	mkdir -p "$1/proc/sys/kernel" "$1/sys/kernel/tracing" "$1/capture"
	echo "6.12.0-memory" >"$1/proc/sys/kernel/osrelease"
	echo 0 >"$1/proc/sys/kernel/tainted"
	echo "mod0 4096 0 - Live 0xffffffffc0000000" >"$1/proc/modules"
	: >"$1/proc/vmallocinfo"
	awk -v n="$2" 'BEGIN {
		print "# tracer: nop"
		t = 100.0
		for (i = 0; i < n; i++) {
			task = sprintf("        modprobe-%d", 100000 + i)
			printf "%s     [%03d] .....  %13.6f: sys_finit_module(fd: 3, uargs: 5bfb41, flags: 0)\n", task, i % 64, t
			if (i % 2 == 0) {
				printf "%s     [%03d] .....  %13.6f: module_load: mod%07d\n", task, i % 64, t + 0.00001, i
				printf "%s     [%03d] .....  %13.6f: sys_finit_module -> 0x0\n", task, i % 64, t + 0.00002
			} else {
				printf "%s     [%03d] .....  %13.6f: sys_finit_module -> 0xfffffffffffffffe\n", task, i % 64, t + 0.00002
			}
			t += 0.0001
		}
	}' >"$1/sys/kernel/tracing/trace"
}

n=20000
gen_root "$T/attempts" $n
maxrss_run --root "$T/attempts" report -j --no-cache
ts_expect_rc 0 "report -j over $n attempts"
ts_check "report -j lists all $n attempts" \
	jq_true --argjson n $n '.attempts | length == $n' "$T/out"
if [ -n "$RSS" ]; then
	ts_check "report -j over $n attempts within 64 MiB + 2 KiB an attempt (peak $RSS KiB)" \
		test "$RSS" -le $((65536 + 2 * n))
fi

# a million equal kernel log lines: one finding, counted, not a million kept
n=1000000
mkdir -p "$T/loglines"
gen_root "$T/loglines" 0
awk -v n=$n 'BEGIN { for (i = 0; i < n; i++) printf "[%13.6f] mod0: Unknown symbol sym0 (err -2)\n", 100 + i * 0.0001 }' \
	>"$T/loglines/capture/dmesg.txt"
maxrss_run --root "$T/loglines" report -j --no-cache
ts_expect_rc 0 "report -j over $n equal log lines"
ts_check "report -j counts all $n equal log lines" \
	jq_true --argjson n $n '.findings | length == 1 and .[0].count == $n' "$T/out"
if [ -n "$RSS" ]; then
	ts_check "report -j over $n equal log lines within 64 MiB (peak $RSS KiB)" \
		test "$RSS" -le 65536
fi
rm -rf "$T/loglines"

# half a million load_module areas, none a loaded module's: more than a machine has. The
# first are kept and listed, the rest counted in exact totals, and both outputs say so
n=500000
gen_root "$T/vmalloc" 0
awk -v n=$n 'BEGIN { for (i = 0; i < n; i++)
	printf "0xffffc9%06x%04x-0xffffc9%06x%04x    8192 load_module+0x857/0x2470 pages=1 vmalloc N0=1\n",
		int(i / 8), (i % 8) * 8192, int((i + 1) / 8), ((i + 1) % 8) * 8192 }' \
	>"$T/vmalloc/proc/vmallocinfo"
maxrss_run --root "$T/vmalloc" report -j --no-cache
ts_expect_rc 0 "report -j over a $n-line vmallocinfo"
ts_check "report -j counts all $n module areas of a vmallocinfo and their bytes" \
	jq_true --argjson n $n '.module_memory | .module_areas == $n and
		.module_bytes == $n * 8192 and .unjoined_areas == $n' "$T/out"
ts_check "the module areas not listed are counted, and a note says so" \
	jq_true --argjson n $n '.module_memory | .unlisted_areas > 0 and
		(.areas | length) + .unlisted_areas == $n and any(.notes[]; test("not listed"))' \
	"$T/out"
ts_check "a warning names the vmallocinfo whose areas were not all kept" \
	grep -q "'proc/vmallocinfo': more areas than are kept" "$T/err"
if [ -n "$RSS" ]; then
	ts_check "report -j over a $n-line vmallocinfo within 64 MiB (peak $RSS KiB)" \
		test "$RSS" -le 65536
fi
rm -rf "$T/vmalloc"

# hashed addresses (kptr_restrict=0) of areas that touch, and 60 modules: one chain of
# all of them, placed on the module bases by counting placements, not by trying each
# placement against each area (n * n * 60 steps: twenty minutes)
n=65536
gen_root "$T/chain" 0
awk 'BEGIN { for (i = 1; i < 60; i++)
	printf "mod%d 4096 0 - Live 0xffffffffc%07x\n", i, i * 65536 }' >>"$T/chain/proc/modules"
awk -v n=$n 'BEGIN { for (i = 0; i < n; i++)
	printf "0x%08x-0x%08x    8192 load_module+0x857/0x2470 pages=1 vmalloc N0=1\n", 2 * i + 1, 2 * i + 3 }' \
	>"$T/chain/proc/vmallocinfo"
timeout 60 "$KMODTOP" --root "$T/chain" report -j --no-cache >"$T/out" 2>"$T/err"
TS_RC=$?
ts_expect_rc 0 "report -j over a chain of $n hashed areas and 60 modules, within a minute"
ts_check "the chain of $n hashed areas is found" \
	jq_true '.module_memory | .address_mode == "hashed" and .chains == 1' "$T/out"
rm -rf "$T/chain"

# --- ci: within 32 MiB whatever the boot count ------------------------------------------
# 300,000 boots: the first are listed, all counted; the note says so
n=300000
awk -v n=$n 'BEGIN { for (i = 0; i < n; i++) {
	printf "[    0.000000] Linux version 6.12.0-%d (b@h) (gcc) #1 SMP\n", i % 7
	printf "[    1.000000] mod%d: Unknown symbol sym0 (err -2)\n", i % 5 } }' >"$T/boots.log"
maxrss_run ci -j "$T/boots.log"
ts_expect_rc 0 "ci -j over $n boots"
ts_check "ci -j counts all $n boots and their findings" \
	jq_true --argjson n $n '.totals.boots == $n and ([.findings[].count] | add) == $n' "$T/out"
ts_check "ci -j says that not every boot is listed" \
	jq_true --argjson n $n '(.boots | length) < $n and any(.notes[]; test("only the first"))' "$T/out"
if [ -n "$RSS" ]; then
	ts_check "ci -j over $n boots within 32 MiB (peak $RSS KiB)" test "$RSS" -le 32768
fi
rm -f "$T/boots.log"

# 300,000 processes forked and gone: none of them kept
n=300000
awk -v n=$n 'BEGIN { print "# tracer: nop"; t = 100.0
	for (i = 0; i < n; i++) {
		pid = 100000 + i
		printf "         systemd-1       [000] .....  %13.6f: sched_process_fork: comm=systemd pid=1 child_comm=systemd child_pid=%d\n", t, pid
		printf "        modprobe-%d     [000] .....  %13.6f: sched_process_exit: comm=modprobe pid=%d prio=120\n", pid, t + 0.00005, pid
		t += 0.0001 } }' >"$T/forks.trace"
maxrss_run ci -j "$T/forks.trace"
ts_expect_rc 0 "ci -j over $n forks"
ts_check "ci -j over $n forks reads them as a trace" jq_true '.totals.inputs == 1' "$T/out"
if [ -n "$RSS" ]; then
	ts_check "ci -j over $n forks that exit within 32 MiB (peak $RSS KiB)" test "$RSS" -le 32768
fi
rm -f "$T/forks.trace"

# 300,000 forks and no exits (kmodtop record traces none): the oldest forgotten, said so
awk -v n=$n 'BEGIN { print "# tracer: nop"; t = 100.0
	for (i = 0; i < n; i++) {
		printf "         systemd-1       [000] .....  %13.6f: sched_process_fork: comm=systemd pid=1 child_comm=systemd child_pid=%d\n", t, 100000 + i
		t += 0.0001 } }' >"$T/forks.trace"
maxrss_run ci -j "$T/forks.trace"
ts_expect_rc 0 "ci -j over $n forks without exits"
ts_check "processes forgotten in a fork storm are warned about, the trace named" \
	grep -q "'$T/forks.trace': more processes at once than kept.* forgotten" "$T/err"
if [ -n "$RSS" ]; then
	ts_check "ci -j over $n forks without exits within 32 MiB (peak $RSS KiB)" test "$RSS" -le 32768
fi
rm -f "$T/forks.trace"

# a gate's worst boot among those not listed is still found and named
awk 'BEGIN { for (i = 1; i <= 1500; i++) {
	printf "[    0.000000] Linux version 6.12.0 (b@h) (gcc) #1 SMP\n"
	printf "[    1.000000] mod%d: Unknown symbol sym0 (err -2)\n", i % 5
	if (i == 1200)
		for (k = 0; k < 3; k++)
			printf "[    1.000000] modx%d: Unknown symbol sym0 (err -2)\n", k } }' >"$T/boots.log"
ts_run ci -j --max-failures 2 "$T/boots.log"
ts_expect_rc 1 "ci --max-failures over 1500 boots"
ts_check "the worst boot past the listed ones fails the gate, named" \
	jq_true '.gates[0].value == 4 and (.gates[0].detail | test(":2399 \\(boot 1200\\)"))' "$T/out"

ts_finalize
