#!/bin/sh
# Load attempts from each capture's trace and kernel log, checked against the capture's
# own truths: capture/measured.json (what the kernel's tracepoints saw per STEP) and
# capture/workload.log (the workload's line for every syscall it made).
. "$TS_SRCDIR/lib/ts.sh"
ts_init ledger
ts_need jq

for fx in debian-6.1-plain debian-6.12-xz custom-6.12-modstats; do
	root=$FIXTURES/$fx
	ts_run --root "$root" report -j
	ts_expect_rc 0 "$fx: report -j" || continue
	json=$TS_TMP/$fx.json
	cp "$TS_TMP/out" "$json"
	m=$root/capture/measured.json

	# per step: the same number of calls and the same return-value histogram
	for step in $(jq -r '.steps | keys[]' "$m"); do
		want=$(jq -c --arg s "$step" '.steps[$s] | {calls, rets: (.rets | to_entries | sort_by(.key) | from_entries)}' "$m")
		got=$(jq -c --arg s "$step" '[.attempts[] | select(.step == $s)] |
			{calls: length, rets: (group_by(.ret) | map({key: (.[0].ret | tostring), value: length}) | sort_by(.key) | from_entries)}' "$json")
		[ "$want" = "$got" ] || ts_fail "$fx: step $step: want $want, got $got"
		# the steps table says the same
		got2=$(jq -c --arg s "$step" '.steps[] | select(.name == $s) | {calls, rets: (.rets | to_entries | sort_by(.key) | from_entries)}' "$json")
		[ "$want" = "$got2" ] || ts_fail "$fx: steps[] $step: want $want, got $got2"
		ts_ok
	done

	# the workload's own log: every finit/init it made, with its errno, in order per thread
	want=$(grep '^TRUTH \(finit\|init\) ' "$root/capture/workload.log" | wc -l)
	got=$(jq '[.attempts[] | select(.comm == "storm")] | length' "$json")
	[ "$want" = "$got" ] || ts_fail "$fx: workload made $want calls, report has $got from it"
	want=$(grep '^TRUTH \(finit\|init\) ' "$root/capture/workload.log" |
		sed -n 's/.* errno=\([0-9]*\).*/\1/p' | sort -n | uniq -c | awk '{print $2":"$1}' | tr '\n' ' ')
	got=$(jq -r '[.attempts[] | select(.comm == "storm") | (if .ret < 0 then -.ret else 0 end)] |
		group_by(.) | map("\(.[0]):\(length)") | join(" ")' "$json")
	[ "$want" = "$got " ] || ts_fail "$fx: workload errnos '$want', report '$got'"
	ts_ok

	# every attempt: a requester, an outcome, a start; a name only with its evidence
	bad=$(jq -r '.attempts[] | select(.requester.comm == null or .outcome == null or .start == null or
		((.module == null) != (.name_source == "none"))) | .start' "$json" | head -3)
	[ -z "$bad" ] || ts_fail "$fx: attempts without requester/outcome/name evidence at $bad"
	# the modules[] contract: name and attempts{total, loaded, duplicate, failed, by_errno}
	bad=$(jq -r '.modules[] | select(.attempts.total == null or .attempts.loaded == null or
		.attempts.duplicate == null or .attempts.failed == null or .attempts.by_errno == null) | .name' "$json")
	[ -z "$bad" ] || ts_fail "$fx: modules without the attempts contract: $bad"
	# per-module counts add up to the attempts list
	total=$(jq '[.modules[].attempts.total] | add' "$json")
	[ "$total" = "$(jq '.attempts | length' "$json")" ] || ts_fail "$fx: module totals $total"
	ts_ok

	# module_load names the successes: each module_load in the trace is one loaded attempt
	want=$(grep -c ': module_load: ' "$root/sys/kernel/tracing/trace")
	got=$(jq '[.attempts[] | select(.name_source == "module_load")] | length' "$json")
	[ "$want" = "$got" ] || ts_fail "$fx: $want module_load events, $got attempts named by them"

	# the storm steps are the storm process's; the SCTP storm belongs to the sockets'
	# task and inet_create, not to modprobe
	bad=$(jq -r '.attempts[] | select(.step == "storm-live-xfs" or .step == "storm-fresh-xfs" or
		.step == "missing-deps-nfs") | select(.requester.comm != "storm" or .requester.call_site != null) | .start' "$json" | head -1)
	[ -z "$bad" ] || ts_fail "$fx: storm step attempt at $bad attributed to someone else"
	moddir=$root/lib/modules/$(cat "$root/proc/sys/kernel/osrelease")
	if grep -q 'net-pf-2-proto-132 ' "$root/sys/kernel/tracing/trace" &&
		grep -q ' sctp$' "$moddir/modules.alias"; then
		bad=$(jq -r '.attempts[] | select(.step == "autoload-sctp-storm") |
			select(.requester.comm != "storm" or .requester.call_site != "inet_create" or
			.requester.alias != "net-pf-2-proto-132") | .start' "$json" | head -1)
		[ -z "$bad" ] || ts_fail "$fx: SCTP storm attempt at $bad not attributed to inet_create"
		[ "$(jq -r '.autoload[] | select(.alias == "net-pf-2-proto-132") | .module' "$json")" = sctp ] ||
			ts_fail "$fx: net-pf-2-proto-132 does not resolve to sctp"
		[ "$(jq -r '.autoload[] | select(.alias == "net-pf-2-proto-132-type-1") | .resolves' "$json")" = none ] ||
			ts_fail "$fx: net-pf-2-proto-132-type-1 should resolve to no module"
		n=$(grep -c 'module_request: net-pf-2-proto-132 ' "$root/sys/kernel/tracing/trace")
		[ "$(jq '.autoload[] | select(.alias == "net-pf-2-proto-132") | .requests' "$json")" = "$n" ] ||
			ts_fail "$fx: net-pf-2-proto-132 request count"
	fi
	if grep -q 'module_request: net-pf-15 ' "$root/sys/kernel/tracing/trace" &&
		grep -q ' af_key$' "$moddir/modules.alias"; then
		[ "$(jq -r '.autoload[] | select(.alias == "net-pf-15") | .module' "$json")" = af_key ] ||
			ts_fail "$fx: net-pf-15 does not resolve to af_key"
		bad=$(jq -r '.attempts[] | select(.step == "autoload-af-key") | select(.requester.alias != "net-pf-15") | .start' "$json" | head -1)
		[ -z "$bad" ] || ts_fail "$fx: AF_KEY attempt at $bad not linked to its request"
	fi
	if grep -q 'module_request: net-pf-31 ' "$root/sys/kernel/tracing/trace"; then
		[ "$(jq -r '.autoload[] | select(.alias == "net-pf-31") | .resolves' "$json")" = none ] ||
			ts_fail "$fx: Bluetooth (net-pf-31) should resolve to no module"
	fi
	bad=$(jq -r '.attempts[] | select(.step == "autoload-vfat") | select(.requester.call_site != "get_fs_type" or .requester.alias != "fs-vfat") | .start' "$json" | head -1)
	[ -z "$bad" ] || ts_fail "$fx: vfat attempt at $bad not linked to fs-vfat"
	ts_ok

	# leaders and waiters: with vmap events traced, a waiter allocated nothing, its
	# leader read the file; on kernels without idempotent finit_module there are none
	idem=$(jq -r .kernel.load_path.idempotent_finit_module "$json")
	waiters=$(jq '[.attempts[] | select(.outcome == "idempotent-waiter")] | length' "$json")
	if [ "$idem" = true ]; then
		[ "$waiters" -gt 0 ] || ts_fail "$fx: no idempotent waiters found"
		bad=$(jq -r '.attempts[] | select(.outcome == "idempotent-waiter") |
			select((.vmap | add) != 0) | .start' "$json" | head -1)
		[ -z "$bad" ] || ts_fail "$fx: waiter at $bad allocated vmap space"
		bad=$(jq -r '. as $d | .attempts[] | select(.outcome == "idempotent-waiter") |
			select($d.attempts[.leader].vmap.kread == 0) | .start' "$json" | head -1)
		[ -z "$bad" ] || ts_fail "$fx: waiter at $bad has a leader that read nothing"
		# the step's kread bytes come from its leaders only
		k=$(jq '[.attempts[] | select(.step == "storm-live-xfs") | select(.vmap.kread > 0)] | length' "$json")
		w=$(jq '[.attempts[] | select(.step == "storm-live-xfs" and .outcome == "idempotent-waiter")] | length' "$json")
		c=$(jq '.steps["storm-live-xfs"].calls' "$m")
		[ $((k + w)) = "$c" ] || ts_fail "$fx: storm-live-xfs: $k leaders + $w waiters != $c calls"
	else
		[ "$waiters" = 0 ] || ts_fail "$fx: waiters on a kernel without idempotent finit_module"
	fi
	ts_ok

	# the userspace-decompression fallback: ENOEXEC finit then init_module, same thread
	fb=$(jq '[.attempts[] | select(.outcome == "userspace-decompression-fallback")] | length' "$json")
	if [ "$(jq -r .kernel.in_kernel_decompression "$json")" = true ] &&
		jq -e '[.attempts[] | select(.step == "modprobe-xfs" and .syscall == "finit_module" and .ret == -8)] | length > 0' "$json" >/dev/null; then
		[ "$fb" -gt 0 ] || ts_fail "$fx: fallback not recognised"
		bad=$(jq -r '. as $d | .attempts | to_entries[] | select(.value.outcome == "userspace-decompression-fallback") |
			select($d.attempts[.key + 1].syscall != "init_module" or $d.attempts[.key + 1].pid != .value.pid) | .value.start' "$json" | head -1)
		[ -z "$bad" ] || ts_fail "$fx: fallback at $bad not followed by init_module on its thread"
	fi

	# missing dependencies: ENOENT attempts named from "Unknown symbol" lines
	bad=$(jq -r '.attempts[] | select(.step == "missing-deps-nfs" and .ret == -2 and .outcome != "idempotent-waiter") |
		select(.outcome != "missing-dependency" or .module != "nfs") | .start' "$json" | head -1)
	[ -z "$bad" ] || ts_fail "$fx: missing-deps-nfs attempt at $bad: not a missing dependency of nfs"
	ts_ok

	# a file of random bytes is no module: nothing may name it
	[ "$(jq -r '[.attempts[] | select(.step == "bad-garbage") | .module] | unique | join(",")' "$json")" = "" ] ||
		ts_fail "$fx: the garbage file was given a module name"

	# kernel log findings come with their lines
	n=$(grep -c 'Unknown symbol' "$root/capture/kmsg.raw")
	got=$(jq '[.findings[] | select(.kind == "unknown-symbol") | .count] | add' "$json")
	[ "$got" = "$n" ] || ts_fail "$fx: $n Unknown symbol lines, findings count $got"
	ts_ok
done

# malformed trace and log lines: counted, warned about with file and line, and later
# events are not shifted
r=$TS_TMP/badtrace
mkdir -p "$r/proc/sys/kernel" "$r/sys/kernel/tracing" "$r/capture"
echo "dummy 16384 0 - Live 0xffffffffc0000000" >"$r/proc/modules"
echo 6.12.0-test >"$r/proc/sys/kernel/osrelease"
{
	echo '# tracer: nop'
	echo '            init-1       [001] .....     4.000000: tracing_mark_write: STEP one'
	echo '        modprobe-157     [000] ...1.     4.100000: sys_finit_module(fd: 3, uargs: 5bfb41, flags: 0)'
	echo 'garbage line without structure'
	printf '        modprobe-157     [000] ...1.     4.1500\000: sys_finit_module(fd: 3\n'
	head -c 100000 /dev/zero | tr '\0' 'x'
	echo
	echo '        modprobe-157     [000] ...1.     4.200000: sys_finit_module -> 0xffffffffffffffef'
	printf '   e\033]52;c;aGk=\007vil-158     [000] ...1.     4.300000: sys_init_module(umod: 38e9dbe0, len: 2340, uargs: 5bfb41)\n'
	printf '   e\033]52;c;aGk=\007vil-158     [000] .....     4.310000: module_load: dummy \n'
	printf '   e\033]52;c;aGk=\007vil-158     [000] ...1.     4.400000: sys_init_module -> 0x0\n'
	echo '        modprobe-159     [000] ...1.     4.500000: sys_finit_module(fd: 3, uargs: 5bfb41, flags: 0)'
} >"$r/sys/kernel/tracing/trace"
printf '6,1,4000000,-;hello\nnot a kmsg line\n3,2,4100000,-;xfs: Unknown symbol foo (err -2)\n' >"$r/capture/kmsg.raw"
ts_run --root "$r" report -j
ts_expect_rc 0 "malformed trace"
grep -F "'sys/kernel/tracing/trace':4:" "$TS_TMP/err" >/dev/null || ts_fail "malformed trace: no warning for line 4: $(head -3 "$TS_TMP/err")"
[ "$(jq -r '[.attempts[] | "\(.syscall):\(.ret):\(.outcome)"] | join(" ")' "$TS_TMP/out")" = \
	"finit_module:-17:duplicate-live init_module:0:loaded finit_module:null:incomplete" ] ||
	ts_fail "malformed trace: attempts shifted: $(jq -c '[.attempts[] | [.syscall, .ret, .outcome]]' "$TS_TMP/out")"
[ "$(jq -r '.attempts[1].module' "$TS_TMP/out")" = dummy ] || ts_fail "malformed trace: module_load lost"
jq -e '.load_attempts.inputs.trace_malformed_lines >= 3' "$TS_TMP/out" >/dev/null ||
	ts_fail "malformed trace lines not counted: $(jq .load_attempts.inputs "$TS_TMP/out")"
ts_run --root "$r" report
if tr -d '\n' <"$TS_TMP/out" | grep "$(printf '\033')" >/dev/null; then
	ts_fail "raw ESC from a trace comm in text output"
fi
grep -F 'e\x1b]52;c;aGk=\x07vil' "$TS_TMP/out" >/dev/null || ts_fail "escaped comm not shown"

# lost events: "[LOST EVENTS]" (the kernel's non-consuming iterator: lost, count
# unknown) is reported as uncounted, never as 0, beside the counted ones
r=$TS_TMP/losttrace
mkdir -p "$r/proc/sys/kernel" "$r/sys/kernel/tracing"
echo "dummy 16384 0 - Live 0xffffffffc0000000" >"$r/proc/modules"
echo 6.12.0-test >"$r/proc/sys/kernel/osrelease"
{
	echo '# tracer: nop'
	echo '        modprobe-157     [000] ...1.     4.100000: sys_finit_module(fd: 3, uargs: 5bfb41, flags: 0)'
	echo 'CPU:1 [LOST EVENTS]'
	echo '        modprobe-157     [000] ...1.     4.200000: sys_finit_module -> 0xffffffffffffffef'
} >"$r/sys/kernel/tracing/trace"
ts_run --root "$r" report -j
ts_expect_rc 0 "uncounted lost events"
[ "$(jq -c '[.load_attempts.inputs.lost_events, .load_attempts.inputs.lost_events_uncounted, .load_attempts.inputs.trace_malformed_lines]' "$TS_TMP/out")" = '[0,1,0]' ] ||
	ts_fail "[LOST EVENTS]: $(jq -c .load_attempts "$TS_TMP/out")"
ts_run --root "$r" report
grep 'lost trace events: *0 and an unknown number more (1 CPU lines without a count)' "$TS_TMP/out" >/dev/null ||
	ts_fail "[LOST EVENTS] not shown in text: $(grep -i lost "$TS_TMP/out")"
grep 'the trace lost events' "$TS_TMP/out" >/dev/null || ts_fail "no note about lost events"
sed -i 's/^CPU:1 \[LOST EVENTS\]$/CPU:1 [LOST 3 EVENTS]/' "$r/sys/kernel/tracing/trace"
ts_run --root "$r" report -j
[ "$(jq -c '[.load_attempts.inputs.lost_events, .load_attempts.inputs.lost_events_uncounted]' "$TS_TMP/out")" = '[3,0]' ] ||
	ts_fail "[LOST 3 EVENTS]: $(jq -c .load_attempts "$TS_TMP/out")"
ts_ok

# live naming: a kmodtop_fd marker names a finit_module() only inside the call, with
# the call's fd; after the exit (the fd may be another file by then) it names nothing
r=$TS_TMP/fdmark
mkdir -p "$r/proc/sys/kernel" "$r/sys/kernel/tracing"
echo "dummy 16384 0 - Live 0xffffffffc0000000" >"$r/proc/modules"
echo 6.12.0-test >"$r/proc/sys/kernel/osrelease"
{
	echo '# tracer: nop'
	echo '            dkms-157     [000] ...1.     4.100000: sys_finit_module(fd: 3, uargs: 5bfb41, flags: 0)'
	echo '         kmodtop-99      [001] .....     4.100500: tracing_mark_write: kmodtop_fd pid=157 fd=3 path=/tmp/my-garbage.ko.xz'
	echo '            dkms-157     [000] ...1.     4.200000: sys_finit_module -> 0xfffffffffffffff8'
	echo '            dkms-158     [000] ...1.     4.300000: sys_finit_module(fd: 4, uargs: 5bfb41, flags: 0)'
	echo '            dkms-158     [000] ...1.     4.400000: sys_finit_module -> 0xfffffffffffffff8'
	echo '         kmodtop-99      [001] .....     4.400500: tracing_mark_write: kmodtop_fd pid=158 fd=4 path=/tmp/late.ko'
	echo '            dkms-159     [000] ...1.     4.500000: sys_finit_module(fd: 5, uargs: 5bfb41, flags: 0)'
	echo '         kmodtop-99      [001] .....     4.500500: tracing_mark_write: kmodtop_fd pid=159 fd=6 path=/tmp/other-fd.ko'
	echo '            dkms-159     [000] ...1.     4.600000: sys_finit_module -> 0xfffffffffffffff8'
	echo '        modprobe-160     [000] ...1.     4.700000: sys_finit_module(fd: 3, uargs: 5bfb41, flags: 0)'
	echo '         kmodtop-99      [001] .....     4.700500: tracing_mark_write: kmodtop_fd pid=160 fd=3 path=/lib/modules/x/dummy-file.ko'
	echo '        modprobe-160     [000] .....     4.750000: module_load: dummy'
	echo '        modprobe-160     [000] ...1.     4.800000: sys_finit_module -> 0x0'
} >"$r/sys/kernel/tracing/trace"
ts_run --root "$r" report -j
ts_expect_rc 0 "kmodtop_fd markers"
[ "$(jq -r '[.attempts[] | "\(.pid):\(.module):\(.name_source)"] | join(" ")' "$TS_TMP/out")" = \
	"157:my_garbage:live 158:null:none 159:null:none 160:dummy:module_load" ] ||
	ts_fail "kmodtop_fd markers: $(jq -c '[.attempts[] | [.pid, .module, .name_source]]' "$TS_TMP/out")"
ts_ok

# interrupted calls: the kernel's own codes by name, never "E?"; an unsized init_module
# whose trace has the naming probes: the note blames only what the trace lacks
r=$TS_TMP/intr
mkdir -p "$r/proc/sys/kernel" "$r/sys/kernel/tracing"
echo "dummy 16384 0 - Live 0xffffffffc0000000" >"$r/proc/modules"
echo 6.12.0-test >"$r/proc/sys/kernel/osrelease"
{
	echo '# tracer: nop'
	echo '            init-1       [000] .....     3.000000: tracing_mark_write: kmodtop_probes kread name'
	echo '       stress-ng-157     [000] ...1.     4.100000: sys_finit_module(fd: 3, uargs: 5bfb41, flags: 0)'
	echo '       stress-ng-157     [000] .....     4.100100: kmodtop_kread: (kernel_read_file+0x4/0x330) size=5120 id=2 path="dummy.ko"'
	echo '       stress-ng-157     [000] ...1.     4.200000: sys_finit_module -> 0xfffffffffffffe00'
	echo '         modprobe-158    [000] ...1.     4.300000: sys_init_module(umod: 38e9dbe0, len: 2340, uargs: 5bfb41)'
	echo '         modprobe-158    [000] ...1.     4.400000: sys_init_module -> 0xfffffffffffffdfc'
	echo '         modprobe-159    [000] ...1.     4.500000: sys_init_module(umod: 38e9dbe0, len: 2340, uargs: 5bfb41)'
	echo '         modprobe-159    [000] ...1.     4.600000: sys_init_module -> 0xfffffffffffffffe'
} >"$r/sys/kernel/tracing/trace"
ts_run --root "$r" report -j
ts_expect_rc 0 "interrupted calls"
[ "$(jq -r '[.attempts[] | "\(.errno):\(.outcome)"] | join(" ")' "$TS_TMP/out")" = \
	"ERESTARTSYS:interrupted ERESTART_RESTARTBLOCK:interrupted ENOENT:missing-dependency" ] ||
	ts_fail "interrupted calls: $(jq -c '[.attempts[] | [.ret, .errno, .outcome]]' "$TS_TMP/out")"
ts_run --root "$r" report
grep -F 'E?' "$TS_TMP/out" >/dev/null && ts_fail "E? in text: $(grep -F 'E?' "$TS_TMP/out")"
grep 'name no module file' "$TS_TMP/out" >/dev/null || ts_fail "no note on the unsized call"
grep 'naming probes' "$TS_TMP/out" >/dev/null && ts_fail "note blames the naming probes the trace has: $(grep 'naming probes' "$TS_TMP/out")"
grep 'name no module file.*kmodtop_layout' "$TS_TMP/out" >/dev/null || ts_fail "note does not name the layout probe: $(grep -A2 'name no module file' "$TS_TMP/out")"
ts_ok

# record's bundle: a call site its trace left raw, inside a module loaded during the
# recording, is named from the bundle's module symbols; a hostile symbols file is refused
r=$TS_TMP/rawsite
mkdir -p "$r/proc/sys/kernel" "$r/sys/kernel/tracing" "$r/capture"
echo "dummy 16384 0 - Live 0xffffffffc0000000" >"$r/proc/modules"
echo 6.12.0-test >"$r/proc/sys/kernel/osrelease"
{
	echo '# tracer: nop'
	echo '         kmodtop-1       [000] .....     8.000000: module_request: algif_hash wait=1 call_site=0xffffffffc05455a9'
} >"$r/sys/kernel/tracing/trace"
ts_run --root "$r" report -j
[ "$(jq -r '[.. | objects | select(has("call_site")) | .call_site] | unique | join(" ")' "$TS_TMP/out")" = 0xffffffffc05455a9 ] ||
	ts_fail "raw call site without symbols: $(jq -c '[.. | objects | select(has("call_site")) | .call_site]' "$TS_TMP/out")"
printf 'ffffffff81000000 T _stext\nffffffffc0545580 t alg_bind\t[af_alg]\n' >"$r/capture/module-symbols"
ts_run --root "$r" report -j
ts_expect_rc 0 "module symbols"
[ "$(jq -r '[.. | objects | select(has("call_site")) | .call_site] | unique | join(" ")' "$TS_TMP/out")" = alg_bind ] ||
	ts_fail "raw call site not resolved: $(jq -c '[.. | objects | select(has("call_site")) | .call_site]' "$TS_TMP/out")"
ln -sf /etc/passwd "$r/capture/module-symbols"
ts_run --root "$r" report -j
grep -F 'capture/module-symbols' "$TS_TMP/err" >/dev/null || ts_fail "symlink out of the root not refused: $(cat "$TS_TMP/err")"
ts_ok

# --trace/--log name files outside the root; --no-trace/--no-log turn them off
ts_run --root "$FIXTURES/debian-6.12-xz" report -j --no-trace --no-log
ts_expect_rc 0 "--no-trace --no-log"
jq -e '.attempts == null and .load_attempts == null' "$TS_TMP/out" >/dev/null || ts_fail "--no-trace still read a trace"
ts_run --root "$FIXTURES/debian-6.12-xz" report -j --no-trace --log "$FIXTURES/debian-6.12-xz/capture/dmesg.txt"
ts_expect_rc 0 "--log dmesg.txt"
[ "$(jq -r .load_attempts.inputs.kernel_log_format "$TS_TMP/out")" = dmesg ] || ts_fail "dmesg format not detected"
jq -e '[.findings[] | select(.kind == "unknown-symbol")] | length > 0' "$TS_TMP/out" >/dev/null ||
	ts_fail "dmesg.txt gave no findings"
ts_run --root "$FIXTURES/debian-6.12-xz" report --trace "$TS_TMP/nonexistent"
ts_expect_rc 1 "--trace of a missing file"
grep -F nonexistent "$TS_TMP/err" >/dev/null || ts_fail "missing --trace file not named"

ts_finalize
