#!/bin/sh
# kmodtop report on each captured root: golden text and JSON, then invariants
# checked against the root's own files (not against numbers copied into the test).
. "$TS_SRCDIR/lib/ts.sh"
ts_init report
ts_need jq awk

for fx in debian-6.1-plain debian-6.12-xz custom-6.12-modstats; do
	root=$FIXTURES/$fx
	ts_golden "report/$fx.txt" --root "fixtures/$fx" report
	ts_golden "report/$fx.json" --root "fixtures/$fx" report -p

	ts_run --root "$root" report -j
	ts_expect_rc 0 "$fx: report -j" || continue
	json=$TS_TMP/$fx.json
	cp "$TS_TMP/out" "$json"
	ts_check "$fx: JSON parses" jq -e . "$json" >/dev/null

	# every module of proc/modules, with its size, state, refcount and holders
	while read -r name size refs holders state addr rest; do
		want_holders=$(printf '%s' "$holders" | tr ',' '\n' | grep -v '^-$' | grep -v '^$' |
			grep -v '^\[permanent\]$' | sort | tr '\n' ' ')
		got=$(jq -r --arg n "$name" '.modules[] | select(.name == $n) |
			"\(.size) \(.status) \(.used) \(.location)"' "$json")
		want="$size $state $refs $(printf '0x%016x' "$addr")"
		[ "$got" = "$want" ] || ts_fail "$fx: module $name: got '$got', want '$want'"
		got_holders=$(jq -r --arg n "$name" '.modules[] | select(.name == $n) | .used_by[]?' \
			"$json" | sort | tr '\n' ' ')
		[ "$got_holders" = "$want_holders" ] ||
			ts_fail "$fx: module $name holders: got '$got_holders', want '$want_holders'"
		# sys/module attributes as the kernel wrote them
		core=$(cat "$root/sys/module/$name/coresize")
		init=$(cat "$root/sys/module/$name/initsize")
		got=$(jq -r --arg n "$name" '.modules[] | select(.name == $n) |
			"\(.coresize) \(.initsize) \(.initstate)"' "$json")
		[ "$got" = "$core $init $(cat "$root/sys/module/$name/initstate")" ] ||
			ts_fail "$fx: module $name sysfs: got '$got'"
		ts_ok
	done <"$root/proc/modules"
	n=$(wc -l <"$root/proc/modules")
	[ "$(jq '[.modules[] | select(.status != null)] | length' "$json")" = "$n" ] || ts_fail "$fx: module count"

	# module memory: every area vmallocinfo attributes to load_module is counted,
	# and the joined areas of each module add up to its proc/modules size
	want_areas=$(grep -c ' load_module+' "$root/proc/vmallocinfo")
	want_bytes=$(awk '$3 ~ /^load_module\+/ { s += $2 } END { print s + 0 }' "$root/proc/vmallocinfo")
	got=$(jq -r '"\(.module_memory.module_areas) \(.module_memory.module_bytes)"' "$json")
	[ "$got" = "$want_areas $want_bytes" ] ||
		ts_fail "$fx: module areas/bytes: got '$got', want '$want_areas $want_bytes'"
	[ "$(jq '.module_memory.unjoined_areas' "$json")" = 0 ] ||
		ts_fail "$fx: some module areas were joined to no module"
	bad=$(jq -r '.modules[] | select(.status != null) | select(.vmalloc_bytes - 4096 * .vmalloc_areas != .size) | .name' "$json")
	[ -z "$bad" ] || ts_fail "$fx: joined areas do not add up for: $bad"
	# areas listed per module agree with the per-module counts
	bad=$(jq -r '. as $r | $r.modules[] | select(.status != null) as $m |
		[$r.module_memory.areas[] | select(.module == $m.name)] |
		select(length != $m.vmalloc_areas) | $m.name' "$json") ||
		ts_fail "$fx: jq could not list the areas per module"
	[ -z "$bad" ] || ts_fail "$fx: area list disagrees with counts for: $bad"

	# the join used, and how sure it is, follow from how vmallocinfo prints addresses
	first=$(awk 'NR == 1 { split($1, a, "-"); print a[1] }' "$root/proc/vmallocinfo")
	case $first in
	0xffff*)
		[ "$(jq -r '.module_memory.address_mode + " " + .module_memory.join' "$json")" = "real address" ] ||
			ts_fail "$fx: expected an address join"
		bad=$(jq -r '.modules[] | select(.status != null and .confidence != "exact") | .name' "$json")
		[ -z "$bad" ] || ts_fail "$fx: address join not exact for: $bad"
		;;
	*)
		[ "$(jq -r '.module_memory.address_mode + " " + .module_memory.join' "$json")" = "hashed address-chain" ] ||
			ts_fail "$fx: expected an address-chain join"
		bad=$(jq -r '.modules[] | select(.status != null) | select(.confidence != "high" and .confidence != "medium") | .name' "$json")
		[ -z "$bad" ] || ts_fail "$fx: hashed join below medium for: $bad"
		;;
	esac
	ts_ok

	# kernel generation and decompression, from the release and the config
	rel=$(cat "$root/proc/sys/kernel/osrelease")
	[ "$(jq -r .kernel.release "$json")" = "$rel" ] || ts_fail "$fx: release"
	major=${rel%%.*}
	minor=${rel#*.}
	minor=${minor%%[!0-9]*}
	early=false idem=false
	[ "$major" -gt 6 ] || { [ "$major" = 6 ] && [ "$minor" -ge 4 ]; } && early=true
	[ "$major" -gt 6 ] || { [ "$major" = 6 ] && [ "$minor" -ge 5 ]; } && idem=true
	got=$(jq -r '"\(.kernel.load_path.early_duplicate_check) \(.kernel.load_path.idempotent_finit_module)"' "$json")
	[ "$got" = "$early $idem" ] || ts_fail "$fx: load path: got '$got', want '$early $idem'"
	decomp=false
	grep -qx 'CONFIG_MODULE_DECOMPRESS=y' "$root/boot/config-$rel" && decomp=true
	[ "$(jq -r .kernel.in_kernel_decompression "$json")" = "$decomp" ] ||
		ts_fail "$fx: in-kernel decompression should be $decomp"
	stats=false
	[ -f "$root/sys/kernel/debug/modules/stats" ] && stats=true
	[ "$(jq -r .kernel.module_stats "$json")" = "$stats" ] || ts_fail "$fx: module_stats flag"
	ts_ok

	# MODULE_STATS: every counter line of the file, by its label
	if [ "$stats" = true ]; then
		f=$root/sys/kernel/debug/modules/stats
		sed -n '/^Duplicate failed modules:/q;p' "$f" | while IFS="$(printf '\t')" read -r label value; do
			label=$(echo "$label" | sed 's/^ *//')
			case $label in
			"Mods ever loaded") key=mods_loaded ;;
			"Mods failed on kread") key=failed_kread ;;
			"Mods failed on decompress") key=failed_decompress ;;
			"Mods failed on becoming") key=failed_becoming ;;
			"Mods failed on load") key=failed_load ;;
			"Total module size") key=total_size ;;
			"Total mod text size") key=total_text_size ;;
			"Failed kread bytes") key=failed_kread_bytes ;;
			"Failed decompress bytes") key=failed_decompress_bytes ;;
			"Failed becoming bytes") key=failed_becoming_bytes ;;
			"Failed kmod bytes") key=failed_kmod_bytes ;;
			"Virtual mem wasted bytes") key=virtual_mem_wasted_bytes ;;
			"Average mod size") key=average_mod_size ;;
			"Average mod text size") key=average_mod_text_size ;;
			"Avg fail becoming bytes") key=avg_fail_becoming_bytes ;;
			"Average fail load bytes") key=average_fail_load_bytes ;;
			*) key= ;;
			esac
			[ -n "$key" ] || { echo "FAIL: $fx: unknown MODULE_STATS label '$label'"; continue; }
			got=$(jq -r ".module_stats.$key" "$json")
			[ "$got" = "$value" ] || echo "FAIL: $fx: MODULE_STATS $key: got $got, want $value"
		done >"$TS_TMP/stats.fail"
		if [ -s "$TS_TMP/stats.fail" ]; then
			cat "$TS_TMP/stats.fail"
			ts_fail "$fx: MODULE_STATS counters"
		fi
		sed -n '/^Duplicate failed modules:/,$p' "$f" | tail -n +3 | tr -s ' \t' ' ' |
			sed 's/^ //' | while read -r name count reason; do
			got=$(jq -r --arg n "$name" '.module_stats.duplicates[] | select(.name == $n) |
				"\(.count) \(.reason)"' "$json")
			[ "$got" = "$count $reason" ] || echo "FAIL: $fx: duplicate $name: got '$got'"
		done >"$TS_TMP/dups.fail"
		if [ -s "$TS_TMP/dups.fail" ]; then
			cat "$TS_TMP/dups.fail"
			ts_fail "$fx: MODULE_STATS duplicates"
		fi
		# the text report shows them too
		ts_run --root "$root" report
		grep "Virtual mem wasted bytes:" "$TS_TMP/out" >/dev/null ||
			ts_fail "$fx: text report lacks MODULE_STATS"
		ts_ok
	else
		[ "$(jq -r .module_stats "$json")" = null ] || ts_fail "$fx: module_stats should be null"
	fi

	# per attempt, what a failed call was seen to allocate: the sum of its vmap classes
	bad=$(jq -r '.attempts[] | select(.vmap != null) |
		select(.wasted_measured != (if .errno == null then 0 else ([.vmap[]] | add) end)) |
		"\(.module) \(.pid) \(.start)"' "$json")
	[ -z "$bad" ] || ts_fail "$fx: wasted_measured is not the failed call's vmap sum: $bad"
	# per module and in total, the same bytes as the attempts
	got=$(jq '[.attempts[].wasted_measured // 0] | add' "$json")
	[ "$got" = "$(jq .load_attempts.wasted_vmap.measured "$json")" ] ||
		ts_fail "$fx: attempts' wasted_measured add up to $got, not the total"
	ts_ok
done

# --attempts text: the MEASURED column beside the estimate, when vmap was traced
ts_golden "report/debian-6.12-xz-attempts.txt" --root fixtures/debian-6.12-xz report --attempts
# and none when it was not: the capture's trace without its alloc_vmap_area events
fx=$FIXTURES/debian-6.12-xz
awk '/: alloc_vmap_area: / { skip = 1; next }
	skip && (/: <stack trace>$/ || /^ => /) { next }
	{ skip = 0; print }' "$fx/sys/kernel/tracing/trace" >"$TS_TMP/novmap.trace"
ts_run --root "$fx" report --trace "$TS_TMP/novmap.trace" --attempts
ts_expect_rc 0 "--attempts without vmap events"
hdr=$(grep -A1 '^Attempts$' "$TS_TMP/out" | tail -1)
case $hdr in
*WASTED*MEASURED*) ts_fail "--attempts without vmap events shows MEASURED: $hdr" ;;
*WASTED) ;;
*) ts_fail "--attempts without vmap events: header '$hdr'" ;;
esac

# errno names everywhere: the Steps table's RETURNS names the errno as the ERRNO column
# does, and each name stands for the JSON's -errno key with the same count
ts_run --root "$fx" report
ts_expect_rc 0 "report for the Steps table"
steps=$(sed -n '/^Steps (trace markers)$/,/^$/p' "$TS_TMP/out" | tail -n +3)
[ -n "$steps" ] || ts_fail "no Steps table in the report"
if printf '%s\n' "$steps" | grep -E '(^| |,)-[0-9]+:' >/dev/null; then
	ts_fail "Steps RETURNS shows a -errno number: $(printf '%s\n' "$steps" | grep -E -- '-[0-9]+:' | head -1)"
fi
printf '%s\n' "$steps" | grep -E ' EEXIST:[0-9]+' >/dev/null ||
	ts_fail "Steps RETURNS names no EEXIST"
ts_run --root "$fx" report -j
want=$(jq -r '.steps[] | select(.name == "storm-live-xfs") | .rets["-17"]' "$TS_TMP/out")
got=$(printf '%s\n' "$steps" | awk '$1 == "storm-live-xfs" { print $3 }')
[ "$got" = "EEXIST:$want" ] || ts_fail "Steps storm-live-xfs RETURNS: got '$got', want 'EEXIST:$want'"
ts_ok

# the summary opens the text report: its figures are the JSON's, its worst modules the
# three whose failed calls the trace saw waste most, its hint one thing to do next
for sfx in debian-6.1-plain debian-6.12-xz custom-6.12-modstats; do
	ts_run --root "$FIXTURES/$sfx" report
	ts_expect_rc 0 "$sfx: report for the summary" || continue
	cp "$TS_TMP/out" "$TS_TMP/sum.txt"
	[ "$(head -1 "$TS_TMP/sum.txt")" = Summary ] || ts_fail "$sfx: the report does not open with Summary"
	sum=$(sed -n '2,/^$/p' "$TS_TMP/sum.txt")
	ts_run --root "$FIXTURES/$sfx" report -j
	j=$TS_TMP/out
	want=$(jq -r '"\(.load_attempts.total), \(.load_attempts.failed) failed, \([.modules[].attempts.duplicate // 0] | add) duplicates"' "$j")
	got=$(printf '%s\n' "$sum" | sed -n 's/^  load attempts: *//p')
	[ "$got" = "$want" ] || ts_fail "$sfx: summary attempts '$got', want '$want'"
	want=$(sed -n 's/^  vmap wasted (measured): *//p' "$TS_TMP/sum.txt")
	got=$(printf '%s\n' "$sum" | sed -n 's/^  vmap wasted: *\([^ ]* [^ ]*\) measured.*/\1/p')
	[ -n "$want" ] && [ "$got" = "$want" ] || ts_fail "$sfx: summary waste '$got', want '$want'"
	want=$(jq -r '[.modules[] | select(.wasted_vmap.measured > 0)] |
		sort_by(-.wasted_vmap.measured) | .[:3] | map(.name // "(unnamed attempts)") | join(" ")' "$j")
	got=$(printf '%s\n' "$sum" | sed -n 's/^  worst modules: *//p' | sed 's/ [0-9.]* [KMGT]*i*B//g; s/,//g')
	[ "$got" = "$want" ] || ts_fail "$sfx: summary worst modules '$got', want '$want'"
	printf '%s\n' "$sum" | grep '^  what next: .*duplicates.*(Requesters)' >/dev/null ||
		ts_fail "$sfx: summary hint does not point at the duplicates' requester: $sum"
	ts_ok
done
# without a trace, the hint says how to get one
ts_run --root "$fx" report --no-trace
grep "^  what next: .*kmodtop record --measure -o DIR" "$TS_TMP/out" >/dev/null ||
	ts_fail "summary without a trace: no hint to record one: $(head -6 "$TS_TMP/out")"
ts_run --root "$fx" report --no-trace --no-log
head -4 "$TS_TMP/out" | grep "^  what next: .*neither a trace nor a kernel log.*kmodtop record" >/dev/null ||
	ts_fail "summary without trace or log: no hint to record one: $(head -6 "$TS_TMP/out")"
# the JSON has no summary object
ts_run --root "$fx" report -j
[ "$(jq 'has("summary")' "$TS_TMP/out")" = false ] || ts_fail "JSON grew a summary object"
ts_ok

# JSON seconds keep their source's microseconds, not a double's binary noise
# (11.623710, not 11.623709999999999), and say what the text says
for sfx in debian-6.1-plain debian-6.12-xz custom-6.12-modstats; do
	ts_run --root "$FIXTURES/$sfx" report -j
	ts_expect_rc 0 "$sfx: report -j for seconds" || continue
	cp "$TS_TMP/out" "$TS_TMP/secs.json"
	noisy=$(grep -oE '"[a-z_]+": *-?[0-9]+\.[0-9]{7,}' "$TS_TMP/secs.json" | head -3 | tr '\n' ' ')
	[ -z "$noisy" ] || ts_fail "$sfx: JSON seconds with binary noise: $noisy"
	n=$(grep -oE '"(start|end|first|last|trace_first|trace_last)": *[0-9]+\.[0-9]{6}[,}]' "$TS_TMP/secs.json" | wc -l)
	[ "$n" -gt 0 ] || ts_fail "$sfx: no seconds with six decimals in the JSON"
	ts_check "$sfx: seconds are JSON numbers" jq -e '.load_attempts.inputs.trace_first | type == "number"' "$TS_TMP/secs.json" >/dev/null
	ts_run --root "$FIXTURES/$sfx" report
	want=$(sed -n 's/^  trace time span: *\([0-9.]*\) - \([0-9.]*\) s$/\1 \2/p' "$TS_TMP/out")
	got=$(printf '%s %s' "$(grep -oE '"trace_first": *[^,}]*' "$TS_TMP/secs.json" | sed 's/.*: *//')" \
		"$(grep -oE '"trace_last": *[^,}]*' "$TS_TMP/secs.json" | sed 's/.*: *//')")
	[ -n "$want" ] && [ "$got" = "$want" ] || ts_fail "$sfx: JSON trace span '$got', text '$want'"
	ts_ok
done

# the text fits --width (else $COLUMNS, else the terminal's): labelled values and notes
# wrapped at spaces with their words unchanged; a table that fits by cutting its text
# columns has them cut with "...", never its first column or a number; one that cannot
# fit is left whole; not a terminal and neither given: no limit (the golden files)
W=80
# a short path to the root: its "root:" line cannot wrap, and a build tree's path
# (make distcheck) is longer than the width
fxw=$TS_TMP/fx
ln -s "$fx" "$fxw"
ts_run --root "$fxw" report
cp "$TS_TMP/out" "$TS_TMP/wide.txt"
ts_run --root "$fxw" report --width $W
ts_expect_rc 0 "report --width $W"
cp "$TS_TMP/out" "$TS_TMP/w80.txt"
section() { sed -n "/^$1\$/,/^\$/p" "$2"; }
words() { tr -s ' \n' '  '; }
for s in Summary Kernel 'Load attempts'; do
	long=$(section "$s" "$TS_TMP/w80.txt" | awk -v w=$W 'length > w' | head -1)
	[ -z "$long" ] || ts_fail "--width $W: $s has a line of more than $W columns: $long"
	[ "$(section "$s" "$TS_TMP/w80.txt" | words)" = "$(section "$s" "$TS_TMP/wide.txt" | words)" ] ||
		ts_fail "--width $W: wrapping changed the words of $s"
done
[ "$(section Summary "$TS_TMP/w80.txt" | wc -l)" -gt "$(section Summary "$TS_TMP/wide.txt" | wc -l)" ] ||
	ts_fail "--width $W: the summary's hint was not wrapped"
# the findings' table: cut to fit, EXAMPLE ellipsized, COUNT and FIRST whole
f80=$(section 'Kernel log findings' "$TS_TMP/w80.txt")
fwide=$(section 'Kernel log findings' "$TS_TMP/wide.txt")
[ -z "$(printf '%s\n' "$f80" | awk -v w=$W 'length > w')" ] || ts_fail "--width $W: findings wider than $W"
printf '%s\n' "$f80" | grep -q '\.\.\.$' || ts_fail "--width $W: no findings example cut with ...: $f80"
[ "$(printf '%s\n' "$f80" | awk 'NR > 2 && NF { print $1, $2, $3, $4 }')" = \
  "$(printf '%s\n' "$fwide" | awk 'NR > 2 && NF { print $1, $2, $3, $4 }')" ] ||
	ts_fail "--width $W: the findings' names or numbers changed"
# the attempts by module hold more figures than fit: left whole, names not cut
[ "$(section 'Load attempts by module (-: unnamed)' "$TS_TMP/w80.txt")" = \
  "$(section 'Load attempts by module (-: unnamed)' "$TS_TMP/wide.txt")" ] ||
	ts_fail "--width $W: a table that cannot fit was cut"
# $COLUMNS is the default; --width 0 lifts it; JSON is never wrapped
COLUMNS=$W "$KMODTOP" --root "$fxw" report >"$TS_TMP/cols.txt" 2>/dev/null
cmp -s "$TS_TMP/cols.txt" "$TS_TMP/w80.txt" || ts_fail "COLUMNS=$W differs from --width $W"
COLUMNS=$W "$KMODTOP" --root "$fxw" report --width 0 >"$TS_TMP/cols0.txt" 2>/dev/null
cmp -s "$TS_TMP/cols0.txt" "$TS_TMP/wide.txt" || ts_fail "--width 0 under COLUMNS=$W is not unlimited"
COLUMNS=$W "$KMODTOP" --root "$fxw" report -j >"$TS_TMP/cols.json" 2>/dev/null
"$KMODTOP" --root "$fxw" report -j >"$TS_TMP/nocols.json" 2>/dev/null
cmp -s "$TS_TMP/cols.json" "$TS_TMP/nocols.json" || ts_fail "COLUMNS changed the JSON"
for bad in 30 abc -1; do
	ts_run --root "$fxw" report --width "$bad"
	ts_expect_rc 2 "--width $bad"
done
# on a terminal, its width (script(1) gives the report a pty of 90 columns)
if command -v script >/dev/null 2>&1; then
	script -qec "stty cols 90 rows 50; env -u COLUMNS '$KMODTOP' --root '$fxw' report --color=never 2>/dev/null" /dev/null \
		</dev/null 2>/dev/null | tr -d '\r' >"$TS_TMP/tty.txt"
	"$KMODTOP" --root "$fxw" report --width 90 >"$TS_TMP/w90.txt"
	cmp -s "$TS_TMP/tty.txt" "$TS_TMP/w90.txt" || ts_fail "on a 90-column terminal: not as --width 90: $(diff "$TS_TMP/w90.txt" "$TS_TMP/tty.txt" | head -5)"
fi
ts_ok

ts_finalize
