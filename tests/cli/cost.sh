#!/bin/sh
# The vmap cost model against the kernel's own measurement of each capture: per STEP the
# estimated waste within 5% of the measured total and each class within 10%
# (capture/measured-corrected.json, see tests/fixtures/README.md); kmodtop's measured
# mode equal to it to the byte. A table of every step is printed for the log.
. "$TS_SRCDIR/lib/ts.sh"
ts_init cost
ts_need jq awk

for fx in debian-6.1-plain debian-6.12-xz custom-6.12-modstats; do
	root=$FIXTURES/$fx
	m=$root/capture/measured-corrected.json
	ts_run --root "$root" report -j
	ts_expect_rc 0 "$fx: report -j" || continue
	json=$TS_TMP/$fx.json
	cp "$TS_TMP/out" "$json"

	printf '%-22s %-24s %12s %12s %8s\n' kernel step estimated measured error
	for step in $(jq -r '.steps | keys[]' "$m"); do
		meas=$(jq --arg s "$step" '.steps[$s].wasted_vmap_total' "$m")
		est=$(jq --arg s "$step" '.steps[] | select(.name == $s) | .wasted_vmap.estimated' "$json")
		got_meas=$(jq --arg s "$step" '.steps[] | select(.name == $s) | .wasted_measured' "$json")
		[ "$got_meas" = "$meas" ] || ts_fail "$fx: $step: measured mode $got_meas, kernel measured $meas"
		err=$(awk -v e="$est" -v m="$meas" 'BEGIN { if (m == 0) print (e == 0 ? 0 : 100); else printf "%.2f", (e - m) * 100 / m }')
		printf '%-22s %-24s %12s %12s %7s%%\n' "$fx" "$step" "$est" "$meas" "$err"
		awk -v x="$err" 'BEGIN { exit !(x <= 5 && x >= -5) }' ||
			ts_fail "$fx: $step: estimated $est vs measured $meas ($err%)"
		for cls in kread decompress layout user-copy; do
			key=$(echo "$cls" | tr - _)
			mc=$(jq --arg s "$step" --arg c "$cls" '.steps[$s].wasted_vmap[$c] // 0' "$m")
			ec=$(jq --arg s "$step" --arg c "$key" '.steps[] | select(.name == $s) | .wasted_vmap.by_class[$c] // 0' "$json")
			awk -v e="$ec" -v m="$mc" 'BEGIN { if (m == 0) exit !(e == 0); d = (e - m) / m; exit !(d <= 0.10 && d >= -0.10) }' ||
				ts_fail "$fx: $step: class $cls estimated $ec vs measured $mc"
		done
		ts_ok
	done

	# the model sized every named call whose file is in the tree; the tracepoint's
	# count stands in only for calls with no module file (a garbage file, raw bytes)
	bad=$(jq -r '.attempts[] | select(.module != null and .estimated.source != "model") |
		"\(.module)@\(.start)"' "$json" | head -3)
	[ -z "$bad" ] || ts_fail "$fx: named attempts sized from the measurement: $bad"

	# per module and in total: the same sums, and MODULE_STATS beside the estimate
	total=$(jq '[.steps[].wasted_vmap.estimated] | add' "$json")
	[ "$(jq .load_attempts.wasted_vmap.estimated "$json")" = "$total" ] || ts_fail "$fx: total estimate"
	bymod=$(jq '[.modules[].wasted_vmap.estimated // 0] | add' "$json")
	[ "$bymod" = "$total" ] || ts_fail "$fx: module estimates add up to $bymod, not $total"
	if [ -f "$root/sys/kernel/debug/modules/stats" ]; then
		want=$(awk -F '\t' '/Virtual mem wasted bytes/ { print $2 }' "$root/sys/kernel/debug/modules/stats")
		[ "$(jq .load_attempts.wasted_vmap.module_stats "$json")" = "$want" ] ||
			ts_fail "$fx: MODULE_STATS figure not beside the estimate"
	fi
	# waiters cost nothing; the peak is no more than the total
	jq -e '[.attempts[] | select(.outcome == "idempotent-waiter") | .wasted_vmap // 0] | add // 0 | . == 0' "$json" >/dev/null ||
		ts_fail "$fx: an idempotent waiter was charged"
	jq -e '.load_attempts.wasted_vmap.peak_concurrent <= .load_attempts.wasted_vmap.estimated' "$json" >/dev/null ||
		ts_fail "$fx: peak above total"
	ts_ok
done
# per-CPU alias risk: every module with a cpu:type/ACPI0007/LNXCPU alias in the tree's
# modules.alias is listed, with its cost at N CPUs from the same model
for fx in debian-6.1-plain debian-6.12-xz; do
	root=$FIXTURES/$fx
	rel=$(cat "$root/proc/sys/kernel/osrelease")
	want=$(awk '$2 ~ /^cpu:type:x86,ven\*fam\*mod\*:/ || $2 ~ /ACPI0007|LNXCPU/ { print $3 }' \
		"$root/lib/modules/$rel/modules.alias" | sort -u | tr '\n' ' ')
	ts_run --root "$root" report -j --cpus 255
	ts_expect_rc 0 "$fx: --cpus 255" || continue
	got=$(jq -r '[.percpu_risk.modules[].name] | sort | join(" ")' "$TS_TMP/out")
	[ "$got " = "$want" ] || ts_fail "$fx: per-CPU modules '$got', modules.alias says '$want'"
	[ "$(jq .percpu_risk.ncpus "$TS_TMP/out")" = 255 ] || ts_fail "$fx: --cpus ignored"
	bad=$(jq -r '.percpu_risk.modules[] | select((.fails_here and .worst != 255 * .per_failure) or
		((.fails_here | not) and .worst != 254 * .per_duplicate)) | .name' "$TS_TMP/out")
	[ -z "$bad" ] || ts_fail "$fx: per-CPU cost at 255 CPUs wrong for $bad"
	ts_ok
done
ts_run --root "$FIXTURES/debian-6.12-xz" report --cpus 0
ts_expect_rc 2 "--cpus 0"

# layout_from_lying_section_headers: xfs.ko of the same size with 32 fixed pseudo-random
# bytes over its second section header (from sh_size on) is laid out in gigabytes, more
# than the module area: a warning names the file, and no attempt is priced by it
r=$TS_TMP/lying-headers
cp -a "$FIXTURES/debian-6.1-plain" "$r"
ko=$(find "$r/lib/modules" -name xfs.ko)
size=$(wc -c <"$ko")
shoff=$(od -An -t u8 -j 40 -N 8 "$ko" | tr -d ' ')
printf '\136\301\052\207\063\011\324\153\221\360\034\172\110\276\005\342\155\077\250\024\307\122\233\016\366\041\214\107\263\152\320\031' |
	dd of="$ko" bs=1 seek=$((shoff + 64 + 32)) conv=notrunc status=none
[ "$(wc -c <"$ko")" = "$size" ] || ts_fail "the corrupted xfs.ko changed size"
cmp -s "$ko" "$FIXTURES/debian-6.1-plain/${ko#"$r"/}" && ts_fail "xfs.ko was not corrupted"
ts_run --root "$r" report -j --no-cache
ts_expect_rc 0 "report of a module with lying section headers"
grep -F "'$ko': its section headers lay the module out in" "$TS_TMP/err" | grep 'not estimated' >/dev/null ||
	ts_fail "no warning naming the module file with lying section headers: $(cat "$TS_TMP/err")"
area=1056964608
bad=$(jq --argjson area "$area" '[.attempts[] | select(.module == "xfs" and
	(.estimated.source == "model" or .estimated.layout > $area))] | length' "$TS_TMP/out")
[ "$bad" = 0 ] || ts_fail "$bad xfs attempts priced by a layout larger than the module area"
peak=$(jq '.load_attempts.wasted_vmap.peak_concurrent' "$TS_TMP/out")
[ "$peak" -le "$area" ] || ts_fail "peak held at once $peak, more than the module area"
ts_ok

ts_finalize
