#!/bin/sh
# The traces kmodtop's printed setup takes on a machine without kmodtop, through the
# real binary: a trace.dat and the tracefs text of the same run (the 6.1 guest's
# storms, tests/fixtures/tracedat/) give the same attempts; a broken trace.dat is an
# error naming the file; record --print-setup under a root with BTF prints the probes
# of that root's layout, as a script sh accepts; a trace without the naming evidence
# states a range, not a figure.
. "$TS_SRCDIR/lib/ts.sh"
ts_init probes
ts_need jq python3

FX=$FIXTURES/debian-6.1-plain
DAT=$FIXTURES/tracedat/debian-6.1-storms.dat
TXT=$FIXTURES/tracedat/debian-6.1-storms.txt

# --- trace.dat = its text ---------------------------------------------------------------
ts_run --root "$FX" report --trace "$DAT" --no-log -j
ts_expect_rc 0 "trace.dat" && cp "$TS_TMP/out" "$TS_TMP/dat.json"
ts_run --root "$FX" report --trace "$TXT" --no-log -j
ts_expect_rc 0 "tracefs text" && cp "$TS_TMP/out" "$TS_TMP/txt.json"
# (the text has microseconds, trace.dat nanoseconds: the times themselves differ)
for q in '.steps' '[.attempts[] | del(.comm, .start, .end)]' \
	'.load_attempts.wasted_vmap | del(.peak_at_us)' \
	'[.load_attempts | .total, .unnamed, .failed, .idempotent_waiters]'; do
	a=$(jq -c "$q" "$TS_TMP/dat.json") b=$(jq -c "$q" "$TS_TMP/txt.json")
	TS_CHECKS=$((TS_CHECKS + 1))
	[ -n "$a" ] && [ "$a" = "$b" ] || ts_fail "trace.dat and its text differ in $q"
done
# the storms as the guest ran them: 248 calls, every one named by the probes
[ "$(jq '.load_attempts.total' "$TS_TMP/dat.json")" = 248 ] || ts_fail "trace.dat: attempts"
[ "$(jq '.load_attempts.unnamed' "$TS_TMP/dat.json")" = 0 ] || ts_fail "trace.dat: unnamed attempts"
[ "$(jq '[.attempts[] | select(.name_source | startswith("kprobe"))] | length' "$TS_TMP/dat.json")" -gt 0 ] ||
	ts_fail "trace.dat: no attempt named by a probe"
# every one of those calls read its file (6.1: no idempotent waiters)
[ "$(jq '[.attempts[] | select(.syscall == "finit_module" and .kread_bytes == null)] | length' "$TS_TMP/dat.json")" = 0 ] ||
	ts_fail "trace.dat: a 6.1 finit_module without its read"
# the parents of the requesters came with the fork events
[ "$(jq -r '[.attempts[] | select(.requester.parents | length > 0)] | length' "$TS_TMP/dat.json")" -gt 0 ] ||
	ts_fail "trace.dat: no requester with parents"

# --- a broken trace.dat ------------------------------------------------------------------
head -c 70000 "$DAT" >"$TS_TMP/truncated.dat"
printf '\027\010\104tracing6\000garbage after the magic' >"$TS_TMP/garbage.dat"
for f in truncated garbage; do
	ts_run --root "$FX" report --trace "$TS_TMP/$f.dat" --no-log
	ts_expect_rc 1 "$f trace.dat"
	grep -F "$f.dat" "$TS_TMP/err" >/dev/null || ts_fail "$f trace.dat: stderr does not name it: $(cat "$TS_TMP/err")"
	grep -q 'Segmentation\|Aborted' "$TS_TMP/err" && ts_fail "$f trace.dat: crashed"
done

# --- record --print-setup under a root with BTF -----------------------------------------
R=$TS_TMP/btfroot
mkdir -p "$R/sys/kernel/btf" "$R/sys/kernel/tracing/events/module/module_load" \
	"$R/sys/kernel/tracing/events/syscalls/sys_enter_finit_module" "$R/proc/sys/kernel"
cp "$TS_SRCDIR/fuzz/seeds/btf/layout-6.12.btf" "$R/sys/kernel/btf/vmlinux"
echo "6.12.118+deb12-amd64" >"$R/proc/sys/kernel/osrelease"
printf 'kernel_read_file_from_fd\nkernel_read_file\nfind_module_all\n' \
	>"$R/sys/kernel/tracing/available_filter_functions"
echo 'local [global] counter' >"$R/sys/kernel/tracing/trace_clock"
ts_run --root "$R" record --print-setup
ts_expect_rc 0 "print-setup"
cp "$TS_TMP/out" "$TS_TMP/setup.sh"
ts_check "the setup is a shell script" sh -n "$TS_TMP/setup.sh"
# the layout's offsets (file: f_inode 40, f_path 64; dentry: d_name 32), from its BTF
grep -F 'kernel_read_file size=+80(+40(\$arg1)):s64 id=\$arg2:s32 path=+0(+40(+72(\$arg1))):string' \
	"$TS_TMP/setup.sh" >/dev/null || ts_fail "print-setup: kmodtop_kread not as the BTF lays it out"
grep -F 'find_module_all name=+0(\$arg1):string' "$TS_TMP/setup.sh" >/dev/null ||
	ts_fail "print-setup: no kmodtop_name"
grep -F -- '-C global' "$TS_TMP/setup.sh" >/dev/null || ts_fail "print-setup: not the root's clock"
# a root's clock is a word of the script: shell syntax in its place is no clock
echo 'local [$(touch${IFS}ran)] counter' >"$R/sys/kernel/tracing/trace_clock"
ts_run --root "$R" record --print-setup
ts_expect_rc 0 "print-setup, shell syntax as the clock"
grep -F '{IFS}ran' "$TS_TMP/out" >/dev/null && ts_fail "print-setup: the root's clock text in the script"
echo 'local [global] counter' >"$R/sys/kernel/tracing/trace_clock"
# nor is --kernel-release, which the script's first line names
ts_run --root "$R" --kernel-release "$(printf '6.12.118\nid')" record --print-setup
ts_expect_rc 2 "print-setup, a newline in --kernel-release"
grep -x 'id' "$TS_TMP/out" >/dev/null && ts_fail "print-setup: --kernel-release made a line of the script"
grep -F 'kernel-release' "$TS_TMP/err" >/dev/null || ts_fail "a bad --kernel-release not said"
# only the events the root's tracefs has
grep -F 'module:module_load' "$TS_TMP/setup.sh" >/dev/null || ts_fail "print-setup: module_load"
grep -F 'module_request' "$TS_TMP/setup.sh" >/dev/null && ts_fail "print-setup: an event the root lacks"
# find_module_all inlined away: left out, and said
printf 'kernel_read_file\n' >"$R/sys/kernel/tracing/available_filter_functions"
ts_run --root "$R" record --print-setup
ts_expect_rc 0 "print-setup, a probe missing"
grep -F 'find_module_all name' "$TS_TMP/out" >/dev/null && ts_fail "print-setup: a probe the kernel cannot have"
grep -F 'kmodtop_name' "$TS_TMP/err" >/dev/null || ts_fail "print-setup: the missing probe is not said"
# no BTF: no probes, the events still
rm "$R/sys/kernel/btf/vmlinux"
ts_run --root "$R" record --print-setup
ts_expect_rc 0 "print-setup without BTF"
grep -F 'kernel_read_file size' "$TS_TMP/out" >/dev/null && ts_fail "print-setup: a probe without BTF"
grep -F 'module_load' "$TS_TMP/out" >/dev/null || ts_fail "print-setup without BTF: no events"
# hostile: garbage for BTF is said, not a crash
head -c 4096 /dev/urandom >"$R/sys/kernel/btf/vmlinux"
ts_run --root "$R" record --print-setup
ts_expect_rc 0 "print-setup, BTF of garbage"
grep -F 'not BTF' "$TS_TMP/err" >/dev/null || ts_fail "print-setup: garbage BTF not said"
ts_run record --print-setup --instance 'bad name;rm'
ts_expect_rc 2 "print-setup --instance with a shell character"
ts_run record --print-setup -o /tmp/x
ts_expect_rc 2 "print-setup with -o"

# --- without the naming evidence: a range ---------------------------------------------
grep -v -E 'kmodtop_kread|kmodtop_name|kmodtop_probes' "$TXT" >"$TS_TMP/bare.txt"
ts_run --root "$FX" report --trace "$TS_TMP/bare.txt" --no-log -j
ts_expect_rc 0 "bare trace"
python3 - "$TS_TMP/dat.json" "$TS_TMP/out" <<'EOF' || ts_fail "bare trace: the range does not hold the probed figures"
import json, sys
probed, bare = (json.load(open(p)) for p in sys.argv[1:3])
pw = {s['name']: s['wasted_vmap']['estimated'] for s in probed['steps']}
bad = []
for s in bare['steps']:
    w = s['wasted_vmap']
    lo, hi = w['estimated_min'], w['estimated_max']
    if hi is None or not lo <= pw[s['name']] <= hi:
        bad.append((s['name'], lo, pw[s['name']], hi))
t = bare['load_attempts']['wasted_vmap']
if not (t['estimated_min'] < t['estimated_max']):
    bad.append(('total', t))
if not any('kmodtop_kread' in n for n in bare['load_attempts']['notes']):
    bad.append('no note naming the missing probes')
if bad:
    print(bad)
    sys.exit(1)
EOF
ts_run --root "$FX" report --trace "$TS_TMP/bare.txt" --no-log
grep -E 'vmap wasted \(estimated\): +at least .*, at most ' "$TS_TMP/out" >/dev/null ||
	ts_fail "bare trace: the headline is not a range"

ts_finalize
