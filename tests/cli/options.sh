#!/bin/sh
# The command line: help, version, exit codes, colour, JSON switches, and the man page
# agreeing with --help.
. "$TS_SRCDIR/lib/ts.sh"
ts_init options
ts_need jq

fx=$FIXTURES/debian-6.12-xz

ts_run --help
ts_expect_rc 0 "--help"
grep '^Usage: kmodtop' "$TS_TMP/out" >/dev/null || ts_fail "--help not on stdout"
[ -s "$TS_TMP/err" ] && ts_fail "--help wrote to stderr"
cp "$TS_TMP/out" "$TS_TMP/help"

ts_run -h
ts_expect_rc 0 "-h"
ts_run --version
ts_expect_rc 0 "--version"
grep -E '^kmodtop [0-9]+\.[0-9]+' "$TS_TMP/out" >/dev/null || ts_fail "--version output"
# what a bug report needs: the libraries built against and loaded, and where to report
for lib in libkmod libelf liblzma libzstd zlib json-c ncursesw libbpf libtracecmd libtraceevent libtracefs; do
	grep -E "^built with: .*\b$lib-[0-9]" "$TS_TMP/out" >/dev/null ||
		ts_fail "--version does not name $lib's version"
done
grep -E '^running with: json-c-[0-9].* zlib-[0-9].* liblzma-[0-9].* libzstd-[0-9].* libbpf-[0-9]' "$TS_TMP/out" >/dev/null ||
	ts_fail "--version does not name the libraries loaded"
grep -E '^Report bugs to: https?://' "$TS_TMP/out" >/dev/null || ts_fail "--version has no bug address"
ts_run -V
ts_expect_rc 0 "-V"
# output that cannot be written is a failure, said with the errno the write got
if [ -c /dev/full ]; then
	for a in --help -V 'report --help' 'boot-setup --help'; do
		# shellcheck disable=SC2086
		"$KMODTOP" $a >/dev/full 2>"$TS_TMP/err"
		TS_RC=$?
		ts_expect_rc 1 "$a to a full disk"
		grep -F 'No space left on device' "$TS_TMP/err" >/dev/null ||
			ts_fail "$a to a full disk: $(cat "$TS_TMP/err")"
	done
fi
ts_run report --help
ts_expect_rc 0 "report --help"
grep 'Usage: kmodtop .*report' "$TS_TMP/out" >/dev/null || ts_fail "report --help text"

# commands that do not exist yet are not offered
grep -E "^  record " "$TS_TMP/help" >/dev/null || ts_fail "--help does not list 'record'"
for c in ; do
	grep -E "^  $c " "$TS_TMP/help" >/dev/null && ts_fail "--help lists '$c' before it works"
done

ts_run --bogus
ts_expect_rc 2 "unknown option"
grep -- "--bogus" "$TS_TMP/err" >/dev/null || ts_fail "unknown option not named"

# kmodtop help [COMMAND]: the usage, or the command's own --help
ts_run help
ts_expect_rc 0 "help"
cmp -s "$TS_TMP/out" "$TS_TMP/help" || ts_fail "'kmodtop help' is not 'kmodtop --help'"
grep -E "^  help " "$TS_TMP/help" >/dev/null || ts_fail "--help does not list 'help'"
commands=$(sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p' "$TS_TMP/help" | grep -vx help)
[ -n "$commands" ] || ts_fail "no commands in --help"
for c in $commands; do
	"$KMODTOP" "$c" --help >"$TS_TMP/want" 2>&1
	ts_run help "$c"
	ts_expect_rc 0 "help $c"
	cmp -s "$TS_TMP/out" "$TS_TMP/want" || ts_fail "'kmodtop help $c' is not '$c --help'"
	# the same sections in every command's help
	tr '\n' ' ' <"$TS_TMP/out" >"$TS_TMP/flat"
	grep -q "^Usage: kmodtop .*$c" "$TS_TMP/out" || ts_fail "$c --help: no Usage line"
	grep -q "The global options (--" "$TS_TMP/flat" || ts_fail "$c --help: no global-options line"
	grep -q "Exit status: 0 " "$TS_TMP/flat" || ts_fail "$c --help: no exit-status line"
done
ts_run help reprot
ts_expect_rc 2 "help reprot"
grep -qF "kmodtop help: unknown command 'reprot'; did you mean 'report'?" "$TS_TMP/err" ||
	ts_fail "help reprot: $(head -2 "$TS_TMP/err")"
ts_run help report top
ts_expect_rc 2 "help with two commands"

# did you mean: commands and long options within two edits (a swap of neighbours is one)
for typo in reprot:report rpeort:report tpo:top ic:ci recrod:record boot-stup:boot-setup bootsetup:boot-setup; do
	ts_run "${typo%%:*}"
	ts_expect_rc 2 "${typo%%:*}"
	grep -qF "kmodtop: unknown command '${typo%%:*}'; did you mean '${typo#*:}'?" "$TS_TMP/err" ||
		ts_fail "${typo%%:*}: no suggestion of ${typo#*:}: $(head -2 "$TS_TMP/err")"
done
ts_run frobnicate
grep -q "did you mean" "$TS_TMP/err" && ts_fail "frobnicate: a suggestion too far: $(head -1 "$TS_TMP/err")"
ts_run --rot "$fx" report
ts_expect_rc 2 "--rot"
grep -qxF "kmodtop: did you mean '--root'?" "$TS_TMP/err" || ts_fail "--rot: $(cat "$TS_TMP/err")"
ts_run report --trce x
ts_expect_rc 2 "report --trce"
grep -qxF "kmodtop report: did you mean '--trace'?" "$TS_TMP/err" || ts_fail "report --trce: $(cat "$TS_TMP/err")"
ts_run ci --fial-on=unknown-symbol x
ts_expect_rc 2 "ci --fial-on="
grep -qxF "kmodtop ci: did you mean '--fail-on'?" "$TS_TMP/err" || ts_fail "ci --fial-on=: $(cat "$TS_TMP/err")"
ts_run top --bacth
grep -qxF "kmodtop top: did you mean '--batch'?" "$TS_TMP/err" || ts_fail "top --bacth: $(cat "$TS_TMP/err")"

# one error form: every line on stderr is "kmodtop COMMAND: message" or the "Try" line,
# whether getopt, the command or a library check wrote it
form() {
	what=$1 cmd=$2
	shift 2
	ts_run "$@"
	[ "$TS_RC" = 2 ] || [ "$TS_RC" = 1 ] || ts_fail "$what: exit status $TS_RC"
	[ -s "$TS_TMP/err" ] || ts_fail "$what: no message"
	grep -v -e "^kmodtop $cmd: " -e "^Try 'kmodtop $cmd --help' for more information\.\$" "$TS_TMP/err" >"$TS_TMP/odd" &&
		ts_fail "$what: not in the form 'kmodtop $cmd: ...': $(head -2 "$TS_TMP/odd")"
	grep -q "^kmodtop $cmd: " "$TS_TMP/err" || ts_fail "$what: no 'kmodtop $cmd:' line: $(head -2 "$TS_TMP/err")"
}
for c in report top ci record boot-setup; do
	form "$c --no-such-option" "$c" "$c" --no-such-option
	form "$c --color=sometimes" "$c" "$c" --color=sometimes
done
form "report -q" report report -q
form "top -d" top top -d
form "report extra" report report extra
form "report --root missing" report --root "$TS_TMP/no-such-root" report
form "ci with no input" ci ci
form "top --replay missing" top top --replay "$TS_TMP/no-such-root" --batch
ts_ok
ts_run frobnicate
ts_expect_rc 2 "unknown command"
ts_run report extra
ts_expect_rc 2 "stray argument"
ts_run --color=sometimes report
ts_expect_rc 2 "bad --color"
ts_run --root
ts_expect_rc 2 "--root without DIR"
# live mode watches the running kernel: not a captured root
ts_run --root "$fx" report --duration 1
ts_expect_rc 2 "--duration under --root"
ts_run report --measure
ts_expect_rc 2 "--measure without --duration"
ts_run report --duration soon
ts_expect_rc 2 "bad --duration"
grep -F "'soon': not a number of seconds" "$TS_TMP/err" >/dev/null || ts_fail "bad --duration: $(cat "$TS_TMP/err")"
ts_run record --duration soon -o "$TS_TMP/never"
ts_expect_rc 2 "record: bad --duration"
grep -F "'soon': not a number of seconds" "$TS_TMP/err" >/dev/null || ts_fail "record: bad --duration: $(cat "$TS_TMP/err")"
ts_run --root "$fx" record --duration 1
ts_expect_rc 2 "record under --root"

# -p implies -j; options also work after the command
ts_run --root "$fx" report -p
ts_expect_rc 0 "report -p"
jq -e .modules "$TS_TMP/out" >/dev/null || ts_fail "-p is not JSON"
[ "$(wc -l <"$TS_TMP/out")" -gt 10 ] || ts_fail "-p is not indented"
ts_run report --root "$fx" -j
ts_expect_rc 0 "global options after the command"
[ "$(wc -l <"$TS_TMP/out")" = 1 ] || ts_fail "-j is not one line"
ts_run --pretty --root "$fx"
ts_expect_rc 0 "no command means report"
jq -e .modules "$TS_TMP/out" >/dev/null || ts_fail "default command"

# colour: never on a pipe unless asked; NO_COLOR does not override an explicit --color
esc=$(printf '\033')
ts_run --root "$fx" report
grep "$esc" "$TS_TMP/out" >/dev/null && ts_fail "colour on a pipe"
ts_run --root "$fx" --color=always report
grep "$esc\[1m" "$TS_TMP/out" >/dev/null || ts_fail "--color=always gave no colour"
NO_COLOR=1 "$KMODTOP" --root "$fx" --color=never report >"$TS_TMP/out" 2>&1
grep "$esc" "$TS_TMP/out" >/dev/null && ts_fail "--color=never gave colour"
ts_run --root "$fx" --color=always report -j
grep "$esc" "$TS_TMP/out" >/dev/null && ts_fail "colour inside JSON"
if command -v script >/dev/null 2>&1; then
	NO_COLOR=1 script -qec "'$KMODTOP' --root '$fx' report" /dev/null >"$TS_TMP/tty" 2>&1
	grep "$esc\[1m" "$TS_TMP/tty" >/dev/null && ts_fail "NO_COLOR ignored on a terminal"
	env -u NO_COLOR TERM=xterm script -qec "'$KMODTOP' --root '$fx' report" /dev/null >"$TS_TMP/tty" 2>&1
	grep "$esc\[1m" "$TS_TMP/tty" >/dev/null || ts_fail "no colour on a terminal"
fi

# --kernel-release overrides the root's release; --moduledir the module tree
ts_run --root "$fx" --kernel-release 6.1.0-99-amd64 report -j
ts_expect_rc 0 "--kernel-release"
[ "$(jq -r '.kernel.release + " " + .kernel.load_path.era' "$TS_TMP/out")" = "6.1.0-99-amd64 B" ] ||
	ts_fail "--kernel-release not used for the load path"
ts_run --root "$fx" --moduledir "$FIXTURES/debian-6.1-plain/lib/modules/6.1.0-57-amd64" report -j
[ "$(jq -r .kernel.module_files_compression "$TS_TMP/out")" = none ] || ts_fail "--moduledir ignored"

# every long option in --help (and the commands' --help) is in the man page, and back
"$KMODTOP" report --help >>"$TS_TMP/help"
"$KMODTOP" record --help >>"$TS_TMP/help"
"$KMODTOP" ci --help >>"$TS_TMP/help"
"$KMODTOP" top --help >>"$TS_TMP/help"
"$KMODTOP" boot-setup --help >>"$TS_TMP/help"
: "${MAN_SCD:=$TS_SRCDIR/../man/kmodtop.8.scd}"
for o in $(grep -oE -- '--[a-z][a-z-]+' "$TS_TMP/help" | sort -u); do
	grep -F -- "*$o*" "$MAN_SCD" >/dev/null || ts_fail "man page lacks $o"
done
for o in $(grep -oE -- '^\*-(-[a-z][a-z-]+|[a-zA-Z])\*' "$MAN_SCD" | tr -d '*' | sort -u); do
	case $o in --*) grep -F -- "$o" "$TS_TMP/help" >/dev/null || ts_fail "man page has $o, --help does not" ;; esac
done
ts_finalize
