#!/bin/sh
# The module-file cache refuses a directory that is a symlink, writable by group or
# others, or owned by another user (src/cost/modfile.c). A refused cache is no error:
# report, top and ci give the same answer as with --no-cache, say once on stderr that
# the cache is off and why, and write nothing into the refused directory (nor where a
# symlink points).
. "$TS_SRCDIR/lib/ts.sh"
ts_init cache
ts_need find

fx=$FIXTURES/debian-6.12-xz
C=$TS_TMP

# the answers without a cache, and with a usable one (made on the first run, read on
# the second): the reference every refused cache must give too
# top's rates are over the time the frame took: not part of the answer
rates() { sed 's|([0-9.]*[A-Za-z]*/s)|(R/s)|g'; }

export XDG_CACHE_HOME="$C/none"
"$KMODTOP" --root "$fx" report --no-cache >"$C/ref.txt" 2>"$C/ref.err" || exit 99
"$KMODTOP" --root "$fx" top --batch --iterations 1 --size 120x40 --no-cache 2>>"$C/ref.err" |
	rates >"$C/ref.top" || exit 99
[ -s "$C/ref.err" ] && { ts_fail "--no-cache: unexpected stderr: $(head -c 300 "$C/ref.err")"; }
# --no-cache opens no cache directory, so nothing to say about one
[ -e "$C/none" ] && ts_fail "--no-cache created the cache directory"

export XDG_CACHE_HOME="$C/good"
for i in 1 2; do
	ts_run --root "$fx" report
	ts_expect_rc 0 "usable cache, run $i"
	cmp -s "$TS_TMP/out" "$C/ref.txt" || ts_fail "usable cache, run $i: report differs from --no-cache"
	[ -s "$TS_TMP/err" ] && ts_fail "usable cache, run $i: unexpected stderr: $(head -c 300 "$TS_TMP/err")"
done
# the control: a usable cache is written (else the checks below prove nothing)
[ -n "$(find "$C/good/kmodtop" -name '*.mfc' 2>/dev/null)" ] ||
	ts_fail "a usable cache directory got no pack"

# refused NAME WHY: XDG_CACHE_HOME=$C/NAME, whose kmodtop/ is set up to be refused;
# every command's answer as without a cache, one note naming the directory and WHY
refused() {
	name=$1 why=$2
	dir=$C/$name/kmodtop
	export XDG_CACHE_HOME="$C/$name"
	# "kmodtop COMMAND: ..." (the one error form)
	note="module-file cache off: '$dir' $why"

	ts_run --root "$fx" report
	ts_expect_rc 0 "$name: report"
	cmp -s "$TS_TMP/out" "$C/ref.txt" || ts_fail "$name: report differs from --no-cache"
	[ "$(cat "$TS_TMP/err")" = "kmodtop report: $note" ] ||
		ts_fail "$name: report: stderr is not the one note '$note': $(head -c 300 "$TS_TMP/err")"

	ts_run --root "$fx" top --batch --iterations 1 --size 120x40
	ts_expect_rc 0 "$name: top"
	rates <"$TS_TMP/out" | cmp -s - "$C/ref.top" || ts_fail "$name: top differs from --no-cache"
	[ "$(cat "$TS_TMP/err")" = "kmodtop top: $note" ] ||
		ts_fail "$name: top: stderr is not the one note: $(head -c 300 "$TS_TMP/err")"

	# ci prices the attempts from the module files too; its findings may fail it (1)
	ts_run --root "$fx" ci "$fx/capture/dmesg.txt" "$fx/sys/kernel/tracing/trace"
	case $TS_RC in 0 | 1) ts_ok ;; *) ts_fail "$name: ci: exit status $TS_RC" ;; esac
	[ "$(grep -c 'module-file cache off' "$TS_TMP/err")" = 1 ] && grep -qxF "kmodtop ci: $note" "$TS_TMP/err" ||
		ts_fail "$name: ci: not one note '$note': $(head -c 300 "$TS_TMP/err")"

	# --no-cache: nothing to say
	ts_run --root "$fx" report --no-cache
	[ -s "$TS_TMP/err" ] && ts_fail "$name: report --no-cache: unexpected stderr: $(head -c 300 "$TS_TMP/err")"
	ts_ok
}

# group- and other-writable
mkdir -p "$C/open/kmodtop" && chmod 0777 "$C/open/kmodtop" || exit 99
refused open "is writable by group or others"
[ -z "$(ls -A "$C/open/kmodtop")" ] || ts_fail "open: written into: $(ls -A "$C/open/kmodtop")"
[ "$(stat -c %a "$C/open/kmodtop")" = 777 ] || ts_fail "open: its mode was changed"

# a symlink to a directory of ours: neither the link nor its target is written
mkdir -p "$C/target" "$C/link" && ln -s "$C/target" "$C/link/kmodtop" || exit 99
refused link "is a symbolic link"
[ -L "$C/link/kmodtop" ] || ts_fail "link: the symlink was replaced"
[ -z "$(ls -A "$C/target")" ] || ts_fail "link: written through the symlink: $(ls -A "$C/target")"

# owned by another user (only root can make one)
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	mkdir -p "$C/foreign/kmodtop" && chmod 0700 "$C/foreign/kmodtop" &&
		chown nobody "$C/foreign/kmodtop" || exit 99
	refused foreign "is owned by another user"
	[ -z "$(ls -A "$C/foreign/kmodtop")" ] || ts_fail "foreign: written into"
else
	echo "not root: no foreign-owned cache directory"
fi

ts_finalize
