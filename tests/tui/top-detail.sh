#!/bin/sh
# kmodtop top's module detail on a real terminal (tmux) at 80x24, on the 6.12 capture:
# the modules exporting the symbols nfs failed on, its dependencies, holders, and the
# .modinfo fields. What is expected comes from the fixture's own files (modules.symbols,
# modules.dep, proc/modules, and modinfo(8) when there is one), not from kmodtop.
. "$TS_SRCDIR/lib/ts.sh"
ts_init top-detail
ts_need tmux awk

FIX=$FIXTURES/debian-6.12-xz
REL=$(cat "$FIX/proc/sys/kernel/osrelease")
MD=$FIX/lib/modules/$REL
SOCK=$TS_TMP/tmux.sock
S=kmodtop
DEADLINE=${TUI_DEADLINE:-20}

T() {
	tmux -S "$SOCK" "$@"
}
trap 'T kill-server >/dev/null 2>&1; rm -rf "$TS_TMP"' EXIT

screen() {
	T capture-pane -p -t "$S"
}

# wait_for_screen FIXED-STRING: the pane shows it before the deadline
wait_for_screen() {
	end=$(($(date +%s) + DEADLINE))
	while [ "$(date +%s)" -le "$end" ]; do
		if screen | grep -F -- "$1" >/dev/null; then
			return 0
		fi
	done
	echo "--- screen, waiting for '$1':"
	screen | sed 's/^/  | /'
	return 1
}

key() {
	T send-keys -t "$S" "$@"
}

# detail MODULE: the search finds it, Enter opens its detail
detail() {
	key / "$1" Enter
	key Enter
	wait_for_screen "Detail: $1" || ts_fail "no detail of $1"
}

T new-session -d -s "$S" -x 80 -y 24 \
	"TERM=xterm '$KMODTOP' top --replay '$FIX' --speed 0 --delay 5; echo EXIT=\$?; exec cat" ||
	ts_skip "tmux cannot start a session here"
wait_for_screen 'F10Quit' || ts_fail "top never drawn"

# missing_dependency_names_the_exporters: each symbol the log says nfs lacked, once,
# counted under the module modules.symbols says exports it, the most first
want=$(awk '/nfs: Unknown symbol / {
		s = $0; sub(/.*nfs: Unknown symbol /, "", s); sub(/ .*/, "", s); print s
	}' "$FIX/capture/kmsg.raw" | sort -u |
	awk -v f="$MD/modules.symbols" '
		BEGIN { while ((getline l < f) > 0) { split(l, a, " "); sub(/^symbol:/, "", a[2]); by[a[2]] = a[3] } }
		{ n++; if ($1 in by) c[by[$1]]++; else none++ }
		END { for (m in c) print c[m], m; if (none) print none, "~" }' |
	sort -k1,1nr -k2,2 |
	awk '{ s = s (NR > 1 ? ", " : "") ($2 == "~" ? "no module" : $2) " (" $1 ")"; t += $1 }
		END { print "missing " t " symbols, exported by " s }')
case $want in
*"exported by sunrpc ("*) ;;
*) ts_fail "the fixture's truth is not what it was: $want" ;;
esac
detail nfs
wait_for_screen "$want" || ts_fail "nfs: the exporters of its missing symbols are not '$want'"
ts_ok

# detail_shows_depends: what modules.dep says nfs needs, each of them
deps=$(awk -F: '$1 ~ /\/nfs\.ko/ { print $2 }' "$MD/modules.dep" | tr ' ' '\n' |
	sed -n 's,.*/\([^/]*\)\.ko.*,\1,p')
[ -n "$deps" ] || ts_fail "no dependencies of nfs in the fixture's modules.dep"
line=$(screen | grep '^depends: ')
for d in $deps; do
	echo "$line" | grep -E "(: |, )$d(,| |\$)" >/dev/null || ts_fail "nfs: depends lacks $d: $line"
done
echo "$line" | grep -F 'holders: - (not loaded)' >/dev/null || ts_fail "nfs, not loaded: holders: $line"

# detail_shows_modinfo: the description, license and signer modinfo(8) reads from the file
if command -v modinfo >/dev/null 2>&1; then
	for f in description license signer; do
		v=$(modinfo -b "$FIX" -k "$REL" -F "$f" nfs 2>/dev/null | head -1)
		[ -n "$v" ] || continue
		case $f in
		description) wait_for_screen "modinfo: $v" ;;
		*) wait_for_screen "$f $v" ;;
		esac || ts_fail "nfs: modinfo $f '$v' not shown"
	done
fi
wait_for_screen 'missing-dep' || ts_fail "nfs: no attempt row left at 80x24"
[ "$(screen | awk 'length($0) > 80' | wc -l)" = 0 ] || ts_fail "detail lines wider than 80"
ts_ok

# detail_shows_holders: proc/modules' "used by" column of a loaded module
key Escape
holders=$(awk '$1 == "libcrc32c" { h = $4; sub(/,$/, "", h); gsub(/,/, ", ", h); print h }' \
	"$FIX/proc/modules")
[ -n "$holders" ] && [ "$holders" != "-" ] || ts_fail "libcrc32c has no holders in the fixture"
detail libcrc32c
wait_for_screen "holders: $holders" || ts_fail "libcrc32c: holders are not '$holders'"
ts_ok

# q quits, and the program ends (under valgrind: its leak check done)
key q
wait_for_screen 'EXIT=0' || ts_fail "q did not end top with 0"
ts_ok

# detail_of_a_module_not_in_the_tree: its dependencies are unknown ("-"), not "none"
r=$TS_TMP/root
mkdir -p "$r/proc/sys/kernel" "$r/lib/modules" || exit 99
cp -R "$MD" "$r/lib/modules/" || exit 99
echo "$REL" >"$r/proc/sys/kernel/osrelease"
printf 'notintree 16384 0 - Live 0xffffffffc0000000\n' >"$r/proc/modules"
# detail_of_a_fifo_module_file: libkmod would block opening it for its .modinfo
printf 'xfs 2592768 0 - Live 0xffffffffc0266000\n' >>"$r/proc/modules"
f=$(find "$r/lib/modules" -name 'xfs.ko*') && [ -n "$f" ] && rm "$f" && mkfifo "$f" || exit 99
# a server of its own: a dying one cannot take the new session down
T kill-server >/dev/null 2>&1
SOCK=$TS_TMP/tmux.2.sock
T new-session -d -s "$S" -x 80 -y 24 \
	"TERM=xterm '$KMODTOP' top --root '$r' --delay 5; echo EXIT=\$?; exec cat" ||
	ts_skip "tmux cannot start a session here"
wait_for_screen 'F10Quit' || ts_fail "top --root never drawn"
detail notintree
wait_for_screen 'file: not found in the module tree' || ts_fail "notintree: a file found"
wait_for_screen 'depends: -  holders: none' ||
	ts_fail "notintree: not 'depends: -  holders: none': $(screen | grep '^depends')"
key Escape
detail xfs
wait_for_screen 'modinfo: not read (not a regular file)' ||
	ts_fail "xfs as a FIFO: no 'modinfo: not read (not a regular file)'"
wait_for_screen 'depends: libcrc32c' || ts_fail "xfs as a FIFO: its dependencies not shown"
key q
wait_for_screen 'EXIT=0' || ts_fail "q did not end top --root with 0"
ts_ok
ts_finalize
