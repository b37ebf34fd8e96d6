#!/bin/sh
# The man page's EXAMPLES as a reader copies them:
# - each example is a literal block (scdoc's ``` fence), so that man shows each command
#   on a line of its own (tab-indented lines are joined into one paragraph);
# - every example line that reads a root (--root DIR) runs against a fixture as it is
#   written, with DIR replaced by the fixture and any other absolute path moved under a
#   scratch directory (sudo dropped): exit 0, and a report on standard output.
. "$TS_SRCDIR/lib/ts.sh"
ts_init man-examples
ts_need jq

: "${MAN_SCD:=$TS_SRCDIR/../man/kmodtop.8.scd}"
T=$TS_TMP
fx=$FIXTURES/debian-6.12-xz

sed -n '/^# EXAMPLES$/,/^# /p' "$MAN_SCD" | sed '$d' >"$T/examples"
[ -s "$T/examples" ] || ts_fail "no EXAMPLES section in $MAN_SCD"

# outside the fences: prose only, no command lines left as indented text
grep -n "$(printf '^\t')" "$T/examples" >"$T/indented" &&
	ts_fail "EXAMPLES: indented lines outside a literal block (man joins them): $(head -2 "$T/indented")"
# the lines inside the fences
awk '/^```$/ { inside = !inside; next } inside' "$T/examples" >"$T/commands"
[ "$(grep -c '^```$' "$T/examples")" -ge 2 ] && [ $(($(grep -c '^```$' "$T/examples") % 2)) = 0 ] ||
	ts_fail "EXAMPLES: unbalanced or missing literal blocks"
ts_ok

# as man shows them: every command on a line of its own
if command -v scdoc >/dev/null 2>&1 && command -v man >/dev/null 2>&1; then
	scdoc <"$MAN_SCD" >"$T/kmodtop.8" || ts_fail "scdoc"
	LC_ALL=C MANWIDTH=250 man -l "$T/kmodtop.8" 2>/dev/null | sed 's/^ *//' >"$T/rendered"
	while IFS= read -r line; do
		grep -qxF -- "$line" "$T/rendered" || ts_fail "man does not show '$line' on a line of its own"
	done <"$T/commands"
	ts_ok
fi

# the examples that read a root, against the fixture
grep -- '--root ' "$T/commands" >"$T/rooted"
[ "$(wc -l <"$T/rooted")" -ge 3 ] || ts_fail "only $(wc -l <"$T/rooted") examples with --root"
# the files the examples name relative to where they run (report --trace trace.txt ...)
mkdir -p "$T/cwd" "$T/abs" || exit 99
cp "$fx/sys/kernel/tracing/trace" "$T/cwd/trace.txt" && cp "$fx/capture/dmesg.txt" "$T/cwd/dmesg.txt" || exit 99
n=0
while IFS= read -r line; do
	n=$((n + 1))
	# --root DIR: the fixture; other absolute paths: under $T/abs, made as directories
	cmd=$(printf '%s\n' "$line" | sed -e 's/^sudo //' -e 's/^kmodtop /"$KMODTOP" /' \
		-e 's/--root [^ ]*/--root "$fx"/' -e 's# /\([a-zA-Z]\)# "$T"/abs/\1#g')
	for p in $(printf '%s\n' "$cmd" | grep -o '"\$T"/abs/[^ ]*' | sed 's/^"\$T"//'); do
		mkdir -p "$T$p" || exit 99
	done
	(cd "$T/cwd" && KMODTOP=$KMODTOP fx=$fx T=$T sh -c "$cmd") >"$T/out.$n" 2>"$T/err.$n"
	rc=$?
	[ "$rc" = 0 ] || ts_fail "example '$line': exit status $rc: $(head -3 "$T/err.$n")"
	# a report on standard output (--textfile writes a file; a filter may find nothing)
	case $line in
	*'|'* | *--textfile*) ;;
	*) [ -s "$T/out.$n" ] || ts_fail "example '$line': no output" ;;
	esac
	ts_ok
done <"$T/rooted"
ts_finalize
