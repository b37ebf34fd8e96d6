#!/bin/sh
# The per-CPU risk from a capture: udev workers each loading crc32c_intel (its init fails
# under emulation) with libcrc32c first (a softdep here), once per CPU of a 2-CPU trace,
# then xfs (given an AMD-only CPU alias here: the capture's CPU modalias is unknown) and
# sctp (no CPU alias: a storm of devices, not CPUs). The list names the first three,
# prices them from the report's own attempts and predicts --cpus N; a dependency that
# failed on each CPU of a CPU-alias module udev never got to try is listed as that
# module's; without such a storm the modalias list stays, marked as such.
. "$TS_SRCDIR/lib/ts.sh"
ts_init percpu-risk
ts_need jq awk

root=$TS_TMP/root
cp -a "$FIXTURES/debian-6.12-xz" "$root"
mkdir -p "$root/etc/modprobe.d"
echo "softdep crc32c_intel pre: libcrc32c" >"$root/etc/modprobe.d/test.conf"
echo "alias cpu:type:x86,ven0002fam*mod*:feature:* xfs" \
	>>"$root/lib/modules/$(cat "$root/proc/sys/kernel/osrelease")/modules.alias"
t=$TS_TMP/udev.trace
{
	echo "# tracer: nop"
	echo "#"
	echo "# entries-in-buffer/entries-written: 24/24   #P:2"
	ts=20
	for w in 0 1; do
		comm=systemd-udevd
		[ $w = 1 ] && comm='(udev-worker)'
		pid=$((700 + w))
		printf '%16s-%-7d [%03d] ...1. %6d.000000: sys_finit_module(fd: 6, uargs: 4a8b95, flags: 4)\n' "$comm" $pid $w $ts
		printf '%16s-%-7d [%03d] ..... %6d.001000: kmodtop_name: (find_module_all+0x4/0xd0) name="libcrc32c"\n' "$comm" $pid $w $ts
		printf '%16s-%-7d [%03d] ...1. %6d.002000: sys_finit_module -> 0xffffffffffffffef\n' "$comm" $pid $w $ts
		printf '%16s-%-7d [%03d] ...1. %6d.100000: sys_finit_module(fd: 7, uargs: 4a8b95, flags: 4)\n' "$comm" $pid $w $ts
		printf '%16s-%-7d [%03d] ..... %6d.101000: module_load: crc32c_intel\n' "$comm" $pid $w $ts
		printf '%16s-%-7d [%03d] ...1. %6d.102000: sys_finit_module -> 0xffffffffffffffed\n' "$comm" $pid $w $ts
		for m in xfs sctp; do
			printf '%16s-%-7d [%03d] ...1. %6d.200000: sys_finit_module(fd: 8, uargs: 4a8b95, flags: 4)\n' "$comm" $pid $w $ts
			printf '%16s-%-7d [%03d] ..... %6d.201000: kmodtop_name: (find_module_all+0x4/0xd0) name="%s"\n' "$comm" $pid $w $ts $m
			printf '%16s-%-7d [%03d] ...1. %6d.202000: sys_finit_module -> 0xffffffffffffffef\n' "$comm" $pid $w $ts
			ts=$((ts + 1))
		done
		ts=$((ts + 1))
	done
} >"$t"

for n in 2 16; do
	ts_run --root "$root" report -j --no-log --trace "$t" --cpus $n
	ts_expect_rc 0 "udev storm, --cpus $n" || continue
	out=$TS_TMP/out
	[ "$(jq -r .percpu_risk.from "$out")" = capture ] || ts_fail "--cpus $n: not from the capture"
	[ "$(jq -r '[.percpu_risk.storms[] | "\(.name)<\(.dependency_of)"] | join(" ")' "$out")" = \
		"crc32c_intel<null xfs<null libcrc32c<crc32c_intel" ] ||
		ts_fail "--cpus $n: storms $(jq -c .percpu_risk.storms "$out")"
	[ "$(jq .percpu_risk.capture_ncpus "$out")" = 2 ] || ts_fail "--cpus $n: capture CPUs"
	# each priced from the attempts as the report priced them, and predicted at N
	bad=$(jq -r --argjson n $n '.attempts as $a | .percpu_risk.storms[] |
		. as $s | ([$a[] | select(.module == $s.name and .outcome != "loaded") |
			.wasted_vmap] | add) as $w |
		select($w == 0 or .wasted != $w or .per_attempt != ($w / .wasted_attempts) or
			.attempts_at_n != $n or .wasted_at_n != ($n - .loaded) * .per_attempt) |
		.name' "$out")
	[ -z "$bad" ] || ts_fail "--cpus $n: priced wrong: $bad"
	jq -e '.percpu_risk.wasted_at_n == ([.percpu_risk.storms[].wasted_at_n] | add)' \
		"$out" >/dev/null || ts_fail "--cpus $n: the total is not the sum"
	ts_ok
done

# the storm's file read and decompression, not the user copy of an init_module
ts_run --root "$root" report --no-log --trace "$t"
ts_expect_rc 0 "udev storm, text" &&
	ts_check "the path in text" grep -q "kread+decompress" "$TS_TMP/out"

# vfat and dm_crypt given a CPU alias; modprobe loads fat (modules.dep) first for vfat
# and fat's init fails on each CPU, so vfat is never tried: fat is vfat's storm. dm_mod
# loaded once, so modprobe went on past it: dm_crypt's dependency is no storm of its own.
root2=$TS_TMP/root2
cp -a "$FIXTURES/debian-6.12-xz" "$root2"
alias=$root2/lib/modules/$(cat "$root2/proc/sys/kernel/osrelease")/modules.alias
echo "alias cpu:type:x86,ven0002fam0017mod*:feature:* vfat" >>"$alias"
echo "alias cpu:type:x86,ven0000fam0006mod003E:feature:* dm_crypt" >>"$alias"
t2=$TS_TMP/untried.trace
{
	echo "# tracer: nop"
	echo "#"
	echo "# entries-in-buffer/entries-written: 12/12   #P:2"
	for w in 0 1; do
		comm=systemd-udevd
		[ $w = 1 ] && comm='(udev-worker)'
		pid=$((800 + w))
		ts=$((30 + w))
		printf '%16s-%-7d [%03d] ...1. %6d.000000: sys_finit_module(fd: 6, uargs: 4a8b95, flags: 4)\n' "$comm" $pid $w $ts
		printf '%16s-%-7d [%03d] ..... %6d.001000: module_load: fat\n' "$comm" $pid $w $ts
		printf '%16s-%-7d [%03d] ...1. %6d.002000: sys_finit_module -> 0xffffffffffffffed\n' "$comm" $pid $w $ts
		printf '%16s-%-7d [%03d] ...1. %6d.100000: sys_finit_module(fd: 7, uargs: 4a8b95, flags: 4)\n' "$comm" $pid $w $ts
		if [ $w = 0 ]; then
			printf '%16s-%-7d [%03d] ..... %6d.101000: module_load: dm_mod\n' "$comm" $pid $w $ts
			printf '%16s-%-7d [%03d] ...1. %6d.102000: sys_finit_module -> 0x0\n' "$comm" $pid $w $ts
		else
			printf '%16s-%-7d [%03d] ..... %6d.101000: kmodtop_name: (find_module_all+0x4/0xd0) name="dm_mod"\n' "$comm" $pid $w $ts
			printf '%16s-%-7d [%03d] ...1. %6d.102000: sys_finit_module -> 0xffffffffffffffef\n' "$comm" $pid $w $ts
		fi
	done
} >"$t2"
ts_run --root "$root2" report -j --no-log --trace "$t2" --cpus 8
if ts_expect_rc 0 "untried parent"; then
	out=$TS_TMP/out
	[ "$(jq -r '[.percpu_risk.storms[] | "\(.name)<\(.dependency_of)"] | join(" ")' "$out")" = \
		"fat<vfat" ] || ts_fail "untried parent: storms $(jq -c .percpu_risk.storms "$out")"
	# every try wasted: 8 failures at 8 CPUs, each as the capture paid it
	jq -e '.attempts as $a | .percpu_risk.storms[0] |
		([$a[] | select(.module == "fat") | .wasted_vmap] | add) as $w |
		$w > 0 and .wasted == $w and .loaded == 0 and .attempts_at_n == 8 and
		.wasted_at_n == 8 * ($w / ([$a[] | select(.module == "fat")] | length))' \
		"$out" >/dev/null || ts_fail "untried parent: fat priced wrong"
	ts_ok
fi

# the fixture's own trace has no udev: the modalias list, marked as such
ts_run --root "$FIXTURES/debian-6.12-xz" report -j
ts_expect_rc 0 "no storm" &&
	[ "$(jq -r '.percpu_risk | "\(.from) \(.storms) \(.modules | length > 0)"' "$TS_TMP/out")" = \
		"modalias null true" ] || ts_fail "no storm: not the modalias list"
ts_finalize
