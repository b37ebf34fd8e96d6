#!/bin/sh
# Shell completion: shell-completion/bash/kmodtop sourced in a real bash (complete -p,
# the function driven with COMP_WORDS/COMP_CWORD as bash splits a line, compgen -F,
# and a TAB typed into an interactive bash in tmux), checked against the program:
# every command of --help and every option of each command's --help is offered, and
# nothing else; the sort keys are top's, the finding classes ci's. The zsh function
# parses (zsh -n) and names the same options.
. "$TS_SRCDIR/lib/ts.sh"
ts_init completion
ts_need bash

T=$TS_TMP
BASH_COMP=$TS_SRCDIR/../shell-completion/bash/kmodtop
ZSH_COMP=$TS_SRCDIR/../shell-completion/zsh/_kmodtop
fx=$FIXTURES/debian-6.12-xz

# comp kmodtop WORD...: what the completion offers for the last word, one a line (the
# words as bash splits them: "--opt=val" is "--opt" "=" "val"), $KMODTOP as kmodtop
cat >"$T/drive.bash" <<'EOF'
source "$BASH_COMP" || exit 99
comp() {
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_kmodtop "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" 2>/dev/null
	printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | LC_ALL=C sort -u
}
EOF
comp() {
	shift
	BASH_COMP=$BASH_COMP bash --norc --noprofile -c '. "$0"; comp "$@"' "$T/drive.bash" "$KMODTOP" "$@"
}

out=$(BASH_COMP=$BASH_COMP bash --norc --noprofile -c '. "$BASH_COMP"; complete -p kmodtop')
[ "$out" = "complete -F _kmodtop kmodtop" ] || ts_fail "complete -p kmodtop: '$out'"
ts_ok
out=$(BASH_COMP=$BASH_COMP bash --norc --noprofile -c '. "$BASH_COMP"; compgen -F _kmodtop -- re 2>/dev/null')
[ "$(echo $out)" = "report record" ] || ts_fail "compgen -F _kmodtop -- re: '$out'"

# long options of a --help text: those that start a line of the option list, and those
# the "global options (...) may also follow" sentence names (-j and -p as --json, --pretty)
help_opts() {
	"$KMODTOP" "$@" --help >"$T/help" || ts_fail "$* --help"
	{
		sed -nE 's/^ +(-[a-zA-Z], )?(--[a-z][a-z-]+).*/\2/p' "$T/help"
		tr '\n' ' ' <"$T/help" | sed -nE 's/.*global options \(([^)]*)\).*/\1/p' |
			tr ',' '\n' | sed -E 's/^ *//; s/ .*//; s/^-j$/--json/; s/^-p$/--pretty/' | grep -- '^--'
	} | LC_ALL=C sort -u
}

# the commands: --help's, and nothing else
"$KMODTOP" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p' | LC_ALL=C sort >"$T/cmds"
[ -s "$T/cmds" ] || ts_fail "no commands in --help"
comp kmodtop "" >"$T/got"
diff -u "$T/cmds" "$T/got" >"$T/diff" || ts_fail "commands: $(cat "$T/diff")"
ts_ok

# options, before the command and after each: both ways
check_opts() {
	what=$1
	shift
	help_opts "$@" | grep -v '^--help$' >"$T/want"
	echo --help >>"$T/want"
	LC_ALL=C sort -u -o "$T/want" "$T/want"
	# --github is listed as --github[=FILE]: offered both ways
	comp kmodtop "$@" -- | sed 's/=$//' | LC_ALL=C sort -u >"$T/got"
	[ -s "$T/want" ] || ts_fail "$what: no options in --help"
	diff -u "$T/want" "$T/got" >"$T/diff" || ts_fail "$what: completion and --help differ: $(grep '^[-+]-' "$T/diff" | tr '\n' ' ')"
	ts_ok
}
check_opts "kmodtop"
for c in $(cat "$T/cmds"); do
	check_opts "kmodtop $c" "$c"
done
# the options' own values
[ "$(comp kmodtop report --dur)" = --duration ] || ts_fail "report --dur"
[ "$(comp kmodtop ci --jun)" = --junit= ] || ts_fail "ci --jun: $(comp kmodtop ci --jun)"
[ "$(comp kmodtop --color = | tr '\n' ' ')" = "always auto never " ] || ts_fail "--color="
[ "$(comp kmodtop --color = al | tr '\n' ' ')" = "always " ] || ts_fail "--color=al"
ts_ok

# sort keys: top's own list
"$KMODTOP" top --sort-key help | while read -r k _; do echo "$k"; done | LC_ALL=C sort >"$T/keys"
[ "$(wc -l <"$T/keys")" -gt 5 ] || ts_fail "top --sort-key help lists $(wc -l <"$T/keys") keys"
comp kmodtop top --sort-key "" >"$T/got"
diff -u "$T/keys" "$T/got" >/dev/null || ts_fail "--sort-key: $(diff "$T/keys" "$T/got" | head -3)"
comp kmodtop top -s "" >"$T/got"
diff -u "$T/keys" "$T/got" >/dev/null || ts_fail "-s"
[ "$(comp kmodtop top --sort-key = was)" = wasted ] || ts_fail "--sort-key=was"
ts_ok

# finding classes: ci's own list, a comma-separated one completed item by item
ts_run ci --fail-on=help
ts_expect_rc 0 "ci --fail-on=help"
while read -r k _; do echo "$k"; done <"$T/out" | LC_ALL=C sort >"$T/classes"
grep -qx unknown-symbol "$T/classes" && grep -qx failures "$T/classes" ||
	ts_fail "ci --fail-on=help: $(head -3 "$T/classes")"
comp kmodtop ci --fail-on = >"$T/got"
diff -u "$T/classes" "$T/got" >/dev/null || ts_fail "--fail-on=: $(diff "$T/classes" "$T/got" | head -3)"
comp kmodtop ci --fail-on = unknown-symbol,dup >"$T/got"
[ "$(tr '\n' ' ' <"$T/got")" = "unknown-symbol,duplicate-concurrent unknown-symbol,duplicate-live unknown-symbol,duplicates " ] ||
	ts_fail "--fail-on=unknown-symbol,dup: $(tr '\n' ' ' <"$T/got")"
# each class is documented (CI FINDINGS), each group too
: "${MAN_SCD:=$TS_SRCDIR/../man/kmodtop.8.scd}"
for c in $(cat "$T/classes"); do
	grep -qF -- "*$c*" "$MAN_SCD" || ts_fail "the man page lacks the class $c"
done
ts_ok

# file and directory arguments
mkdir -p "$T/files/sub.d" && touch "$T/files/trace.txt" "$T/files/a.prom" "$T/files/b.txt" || exit 99
[ "$(comp kmodtop report --trace "$T/files/tr")" = "$T/files/trace.txt" ] || ts_fail "--trace FILE"
[ "$(comp kmodtop --root "$T/files/s")" = "$T/files/sub.d" ] || ts_fail "--root DIR"
comp kmodtop report --textfile "$T/files/" >"$T/got"
[ "$(tr '\n' ' ' <"$T/got")" = "$T/files/a.prom $T/files/sub.d " ] || ts_fail "--textfile: $(tr '\n' ' ' <"$T/got")"
[ "$(comp kmodtop ci "$T/files/b")" = "$T/files/b.txt" ] || ts_fail "ci FILE"
[ "$(comp kmodtop --root "$fx" --kernel-release "")" = "6.12.118+deb12-amd64" ] ||
	ts_fail "--kernel-release under --root: $(comp kmodtop --root "$fx" --kernel-release "")"
[ "$(comp kmodtop report --label "")" = "host=" ] || ts_fail "--label"
ts_ok

# a TAB in an interactive bash
if command -v tmux >/dev/null 2>&1; then
	sock=kmodtop-comp-$$
	mkdir -p "$T/bin" && ln -s "$KMODTOP" "$T/bin/kmodtop" || exit 99
	tmux -L "$sock" -f /dev/null new-session -d -x 120 -y 20 \
		"env -i PATH='$T/bin:/usr/bin:/bin' TERM=xterm HOME='$T' PS1='$ ' bash --norc --noprofile -i"
	tmux -L "$sock" send-keys "source '$BASH_COMP'" Enter
	sleep 0.3
	tmux -L "$sock" send-keys "kmodtop rep" Tab
	sleep 0.3
	tmux -L "$sock" send-keys -- "--openm" Tab
	sleep 1
	tmux -L "$sock" capture-pane -p >"$T/pane"
	tmux -L "$sock" kill-server
	grep -q '^\$ kmodtop report --openmetrics' "$T/pane" || ts_fail "a TAB in bash gave: $(grep kmodtop "$T/pane" | tail -1)"
	ts_ok
fi

# zsh: it parses, and names every option the bash one does
if command -v zsh >/dev/null 2>&1; then
	zsh -n "$ZSH_COMP" || ts_fail "zsh -n _kmodtop"
fi
for c in "" $(cat "$T/cmds"); do
	# shellcheck disable=SC2086
	for o in $(help_opts $c); do
		grep -qF -- "$o" "$ZSH_COMP" || ts_fail "zsh: $c $o missing"
	done
done
for c in $(cat "$T/cmds"); do
	grep -q "^			'$c:" "$ZSH_COMP" || ts_fail "zsh: command $c missing"
done
ts_finalize
