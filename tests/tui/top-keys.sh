#!/bin/sh
# kmodtop top, the real binary on a real terminal (tmux): what the screen shows after
# keys, mouse clicks, a resize, and that every way out restores the terminal. Polls the
# screen against a deadline; never sleeps.
. "$TS_SRCDIR/lib/ts.sh"
ts_init top-keys
ts_need tmux awk

FIX=$FIXTURES/debian-6.12-xz
N=0
SOCK=$TS_TMP/tmux.$N.sock
S=kmodtop
DEADLINE=${TUI_DEADLINE:-20}

T() {
	tmux -S "$SOCK" "$@"
}
trap 'T kill-server >/dev/null 2>&1; rm -rf "$TS_TMP"' EXIT
# a clipboard write (OSC 52) from the program would land in a tmux paste buffer; the
# shell titles the pane before the program starts (OSC 2), for the program not to
echo 'set -g set-clipboard on' >"$TS_TMP/tmux.conf"
printf '\033]2;before-kmodtop\033\\' >"$TS_TMP/title"

screen() {
	T capture-pane -p -t "$S"
}

# wait_for_screen REGEX: the pane shows a line matching REGEX before the deadline
wait_for_screen() {
	end=$(($(date +%s) + DEADLINE))
	while [ "$(date +%s)" -le "$end" ]; do
		if screen | grep -E -- "$1" >/dev/null; then
			return 0
		fi
	done
	echo "--- screen, waiting for '$1':"
	screen | sed 's/^/  | /'
	return 1
}

# wait_gone REGEX: no line matches any more
wait_gone() {
	end=$(($(date +%s) + DEADLINE))
	while [ "$(date +%s)" -le "$end" ]; do
		if ! screen | grep -E -- "$1" >/dev/null; then
			return 0
		fi
	done
	echo "--- screen, waiting for '$1' to go:"
	screen | sed 's/^/  | /'
	return 1
}

# the first row under the column header
first_row() {
	screen | awk '/^(MODULE|REQUESTER|ALIAS) / { getline; print $1; exit }'
}

wait_first_row_not() {
	end=$(($(date +%s) + DEADLINE))
	while [ "$(date +%s)" -le "$end" ]; do
		r=$(first_row)
		[ -n "$r" ] && [ "$r" != "$1" ] && return 0
	done
	return 1
}

wait_first_row() {
	end=$(($(date +%s) + DEADLINE))
	while [ "$(date +%s)" -le "$end" ]; do
		[ "$(first_row)" = "$1" ] && return 0
	done
	echo "--- first row is '$(first_row)', want '$1':"
	screen | sed 's/^/  | /'
	return 1
}

# start W H ARGS...: kmodtop in a fresh session; the shell records the terminal modes
# before and after, and the exit status
start() {
	w=$1 h=$2
	shift 2
	# a server of its own each time: a dying one cannot take the new session down
	T kill-server >/dev/null 2>&1
	N=$((N + 1))
	SOCK=$TS_TMP/tmux.$N.sock
	rm -f "$TS_TMP/stty.before" "$TS_TMP/stty.after"
	printf '%s\n' "cat '$TS_TMP/title'" "stty -g >'$TS_TMP/stty.before'" "${PRE:-}'$KMODTOP' $*" \
		"echo EXIT=\$?" "stty -g >'$TS_TMP/stty.after'" "exec cat" >"$TS_TMP/run.sh"
	T -f "$TS_TMP/tmux.conf" new-session -d -s "$S" -x "$w" -y "$h" "sh '$TS_TMP/run.sh'" ||
		ts_skip "tmux cannot start a session here"
}

# restored: the program is gone and the terminal is as it was before
restored() {
	what=$1
	wait_for_screen "^EXIT=$2\$" || { ts_fail "$what: exit status $2 not seen"; return 1; }
	end=$(($(date +%s) + DEADLINE))
	while [ ! -s "$TS_TMP/stty.after" ] && [ "$(date +%s)" -le "$end" ]; do :; done
	[ "$(T display -p -t "$S" '#{alternate_on}')" = 0 ] || ts_fail "$what: still on the alternate screen"
	[ "$(T display -p -t "$S" '#{cursor_flag}')" = 1 ] || ts_fail "$what: cursor left hidden"
	[ "$(T display -p -t "$S" '#{mouse_any_flag}')" = 0 ] || ts_fail "$what: mouse reporting left on"
	[ "$(T display -p -t "$S" '#{keypad_cursor_flag}')" = 0 ] || ts_fail "$what: cursor keys left in application mode"
	[ "$(T display -p -t "$S" '#{keypad_flag}')" = 0 ] || ts_fail "$what: keypad left in application mode"
	cmp -s "$TS_TMP/stty.before" "$TS_TMP/stty.after" || {
		ts_fail "$what: terminal modes differ afterwards"
		diff "$TS_TMP/stty.before" "$TS_TMP/stty.after" | head -5
	}
	ts_ok
}

key() {
	T send-keys -t "$S" "$@"
}

# --- the 6.12 capture at 200x50, everything at once ---------------------------------
start 200 50 top --replay "'$FIX'" --speed 0 --delay 5
wait_for_screen '^MODULE +STATE +SIZE +ATTEMPTS +LOADED +DUP +FAIL +NEEDLESS' ||
	ts_fail "module table never drawn"
wait_for_screen 'F10Quit' || ts_fail "no function-key bar"
wait_first_row xfs || ts_fail "xfs does not top the table by wasted bytes"
ts_ok

# sort: invert, and step the sort column to MODULE with <
key I
wait_first_row_not xfs || ts_fail "I did not invert the order"
key I
wait_first_row xfs || ts_fail "I twice is not the original order"
for i in 1 2 3 4 5 6 7 8; do key '<'; done
wait_first_row af_key || ts_fail "< to the MODULE column does not sort by name"
key '>' '>' '>' '>' '>' '>' '>' '>'
wait_first_row xfs || ts_fail "> back to the wasted column"
ts_ok

# filter: typed live, shown in the tab bar, Esc clears it
key '\' s c t p
wait_for_screen '^Filter: sctp_' || ts_fail "filter line not shown"
key Enter
wait_for_screen 'Filter: sctp( |$)' || ts_fail "filter not shown after Enter"
wait_first_row sctp || ts_fail "filter did not keep sctp"
[ "$(screen | awk '/^MODULE/ { on = 1; next } /F10Quit/ { on = 0 } on && NF' | wc -l)" = 1 ] ||
	ts_fail "filter 'sctp' left more than one row"
key Escape
wait_gone 'Filter: sctp' || ts_fail "Esc did not clear the filter"
wait_first_row xfs || ts_fail "rows not back after the filter"
ts_ok

# search, then Enter: the detail of the match, with the duplicate storm
key / x f
wait_for_screen '^Search: xf_' || ts_fail "search line not shown"
key s Enter
wait_gone '^Search: xfs_' || ts_fail "Enter did not close the search"
key Enter
wait_for_screen 'Detail: xfs' || ts_fail "Enter did not open the detail of the search match"
wait_for_screen '^xfs +live +size 2\.47M' || ts_fail "detail header"
wait_for_screen '^ +TIME +PID +REQUESTER CHAIN +OUTCOME' || ts_fail "detail attempts table"
n=$(screen | grep -cE ' (dup-live|waiter) ')
[ "$n" -ge 8 ] || ts_fail "the xfs detail shows $n duplicates, not the storm"
key Escape
wait_gone 'Detail: xfs' || ts_fail "Esc did not leave the detail"
# a search that finds nothing says so
key / z z z z
wait_for_screen 'not found' || ts_fail "a failed search is not reported"
key Escape
ts_ok

# Tab cycles the views; t is the tree
key Tab
wait_for_screen '^REQUESTER +PID +PIDS' || ts_fail "Tab: no requesters view"
key Tab
wait_for_screen '^ALIAS +CALL SITE +REQUESTER' || ts_fail "Tab: no autoload view"
wait_for_screen '^net-pf-2-proto-132 ' || ts_fail "autoload view lacks the sctp alias"
key Tab
wait_for_screen '^ +TIME +EVENT +MODULE +REQUESTER +DETAIL' || ts_fail "Tab: no event log"
key Tab
wait_for_screen '^MODULE +STATE' || ts_fail "Tab: not back to the modules"
key t
wait_for_screen '^REQUESTER / MODULE / ATTEMPT' || ts_fail "t: no tree"
wait_for_screen '^(├─|\|-) xfs ' || ts_fail "tree: no module under its requester"
key t
wait_for_screen '^MODULE +STATE' || ts_fail "t again: not back"
ts_ok

# help, pause, redraw
key '?'
wait_for_screen 'any other key returns' || ts_fail "? shows no help"
wait_for_screen '^ F10 q +quit' || ts_fail "help lacks q"
key x
wait_for_screen '^MODULE +STATE' || ts_fail "a key did not leave the help"
key Z
wait_for_screen '\[PAUSED\]' || ts_fail "Z did not pause"
key Space
wait_gone '\[PAUSED\]' || ts_fail "space did not resume"
key C-l
wait_for_screen '^MODULE +STATE' || ts_fail "Ctrl-L lost the screen"
ts_ok

# the mouse: a click on the MODULE header sorts by it (X10 report: ESC [ M b x y)
hy=$(screen | awk '/^MODULE/ { print NR - 1; exit }')
key -l "$(printf '\033[M %s%s' "$(printf "\\$(printf '%03o' 34)")" "$(printf "\\$(printf '%03o' $((hy + 33)))")")"
key -l "$(printf '\033[M#%s%s' "$(printf "\\$(printf '%03o' 34)")" "$(printf "\\$(printf '%03o' $((hy + 33)))")")"
wait_first_row af_key || ts_fail "a click on MODULE did not sort by it"
ts_ok

# resize to 80x24 (SIGWINCH): the screen is redrawn to fit, rows kept
T resize-window -t "$S" -x 80 -y 24
wait_for_screen '^MODULE +ATTEMPTS' || ts_fail "not redrawn at 80x24"
wait_first_row af_key || ts_fail "rows lost after resize"
wait_for_screen '^F1Help' || ts_fail "no function keys at 80x24"
[ "$(screen | awk 'length($0) > 80' | wc -l)" = 0 ] || ts_fail "lines wider than 80 after resize"
[ "$(screen | grep -n 'F10Quit' | cut -d: -f1)" = 24 ] || ts_fail "function keys not on the last line"
ts_ok

# the help at 80x24: it scrolls to its end and back, and q returns from it, not quits
key '?'
wait_for_screen '^ F1 \? h +this help' || ts_fail "80x24: help not shown from its top"
wait_for_screen 'lines 1-21 of [0-9]+' || ts_fail "80x24: the help does not say it scrolls"
screen | grep -E '^ outcome ' >/dev/null && ts_fail "80x24: the help's end shown before scrolling"
key PageDown
wait_gone '^ F1 \? h +this help' || ts_fail "80x24: PgDn did not scroll the help"
key j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j
wait_for_screen '^ outcome +how the last attempt ended' || ts_fail "80x24: j did not reach the help's end"
[ "$(screen | grep -n 'any other key returns' | cut -d: -f1)" = 24 ] ||
	ts_fail "80x24: the help's key line is not the last line"
[ "$(screen | awk 'length($0) > 80' | wc -l)" = 0 ] || ts_fail "80x24: help lines wider than 80"
key PageUp PageUp k
wait_for_screen '^ F1 \? h +this help' || ts_fail "80x24: PgUp and k did not scroll back"
key q
wait_for_screen '^MODULE +ATTEMPTS' || ts_fail "80x24: q did not return from the help to the table"
wait_for_screen '^F1Help' || ts_fail "80x24: no function keys after the help"
screen | grep -E '^EXIT=' >/dev/null && ts_fail "80x24: q in the help quit top"
ts_ok

# q quits and restores the terminal
key q
restored "q" 0

# --- SIGTERM: the terminal is restored too -------------------------------------------
start 120 40 top --replay "'$FIX'" --speed 0
wait_for_screen '^MODULE' || ts_fail "SIGTERM run: not drawn"
pane=$(T display -p -t "$S" '#{pane_pid}')
pid=
end=$(($(date +%s) + DEADLINE))
while [ -z "$pid" ] && [ "$(date +%s)" -le "$end" ]; do
	pid=$(ps -o pid= --ppid "$pane" | tr -d ' ' | head -1)
done
if [ -n "$pid" ]; then
	kill -TERM "$pid"
	restored "SIGTERM" 143
else
	ts_fail "kmodtop's pid not found"
fi

# --- a replay runs on the capture's clock ------------------------------------------
start 120 40 top --replay "'$FIX'" --speed 4 --delay 2
wait_for_screen '^Replay +[0-9.]+ / 17\.66 s +speed x4' || ts_fail "replay line"
wait_for_screen 'step storm-live-xfs' || ts_fail "the replay never reached the storm"
wait_for_screen '\(end of capture\)' || ts_fail "the replay never reached the end"
wait_first_row xfs || ts_fail "xfs not on top at the end of the replay"
key F10
restored "F10" 0

# --- no command on a terminal is top; F-keys as the terminal sends them -----------------
start 100 30 --root "'$FIX'"
wait_for_screen '^ Modules [0-9]+ +Requesters' || ts_fail "kmodtop with no command on a terminal is not top"
key F1
wait_for_screen 'any other key returns' || ts_fail "F1 shows no help"
key Escape
key F4 x f s Enter
wait_for_screen 'Filter: xfs( |$)' || ts_fail "F4 filter"
key F10
restored "no command" 0

# --- a terminal curses cannot drive: refused with TERM named, no frame drawn -----------
PRE='TERM=dumb ' start 80 24 top --replay "'$FIX'" --speed 0
wait_for_screen '^EXIT=2$' || ts_fail "TERM=dumb: top did not refuse"
wait_for_screen 'kmodtop top: TERM=dumb: .*--batch' || ts_fail "TERM=dumb: no message naming TERM and --batch"
screen | grep -E 'MODULE|F10|Attempts' >/dev/null && ts_fail "TERM=dumb: a frame was drawn"
ts_ok

# --- module names with escape sequences reach the screen escaped ------------------------
# a clipboard write (OSC 52), a screen clear (CSI 2J) and a title (OSC 2) in proc/modules:
# no paste buffer, the pane title as it was, the names shown as \x1b...
r=$TS_TMP/hostile
mkdir -p "$r/proc/sys/kernel" || exit 99
printf 'ev\033]52;c;aGk=\007il 16384 0 - Live 0xffffffffc0000000\nx\033[2Jy 8192 0 - Live 0xffffffffc0010000\nti\033]2;owned\033\\tle 4096 0 - Live 0xffffffffc0020000\n' >"$r/proc/modules"
echo "6.12.0-test" >"$r/proc/sys/kernel/osrelease"
start 120 30 top --root "'$r'"
title=before-kmodtop
wait_for_screen '^ev\\x1b\]52;c;aGk=\\x07il ' || ts_fail "the OSC 52 name is not shown escaped"
wait_for_screen '^x\\x1b\[2Jy ' || ts_fail "the CSI name is not shown escaped"
wait_for_screen '^ti\\x1b\]2;owned' || ts_fail "the OSC 2 name is not shown escaped"
[ "$(T display -p -t "$S" '#{pane_title}')" = "$title" ] || ts_fail "a module name set the pane title"
[ -z "$(T list-buffers)" ] || ts_fail "a module name wrote the clipboard: $(T list-buffers)"
key q
restored "hostile names" 0
[ "$(T display -p -t "$S" '#{pane_title}')" = "$title" ] || ts_fail "the pane title changed by the end"
[ -z "$(T list-buffers)" ] || ts_fail "a paste buffer by the end"

ts_finalize
