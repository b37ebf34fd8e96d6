#!/bin/sh
# Bad input through the real binary: every case gets a clear message naming the file
# and line, or is shown escaped; never a crash or a silently wrong number.
. "$TS_SRCDIR/lib/ts.sh"
ts_init errors
ts_need jq
. "$TS_SRCDIR/lib/root.sh"

# expect_error ROOT FILE:LINE WHAT: exit 1, and stderr names the place
expect_error() {
	ts_run --root "$1" report
	ts_expect_rc 1 "$2" || return
	grep -F "'$2" "$TS_TMP/err" >/dev/null || ts_fail "$2: stderr does not name file and line: $(cat "$TS_TMP/err")"
	grep -F "$3" "$TS_TMP/err" >/dev/null || ts_fail "$2: stderr lacks '$3': $(cat "$TS_TMP/err")"
	[ "$(wc -l <"$TS_TMP/err")" -le 2 ] || ts_fail "$2: more than one error line"
}

# A good minimal root works, and its output says so
mkroot good; r=$R
ts_run --root "$r" report -j
ts_expect_rc 0 "minimal root"
[ "$(jq -r '.modules[0].name + " " + .modules[0].confidence' "$TS_TMP/out")" = "dummy exact" ] ||
	ts_fail "minimal root: dummy not joined exactly"

# proc/modules problems are fatal: the report would be wrong without it
mkroot truncated; r=$R
printf 'dummy 16384 0 - Live 0xffffffffc0000000\nxfs 2375680 0\n' >"$r/proc/modules"
expect_error "$r" "proc/modules':2" "missing holders"

mkroot missing-state; r=$R
printf 'a 1 0 - Live 0x0\nb 1 0 -\n' >"$r/proc/modules"
expect_error "$r" "proc/modules':2" "missing state"

mkroot nonnumeric; r=$R
printf 'xfs 23x5680 0 - Live 0xffffffffc0000000\n' >"$r/proc/modules"
expect_error "$r" "proc/modules':1" "size is not a number"

mkroot badstate; r=$R
printf 'xfs 2375680 0 - Sleeping 0xffffffffc0000000\n' >"$r/proc/modules"
expect_error "$r" "proc/modules':1" "unknown module state"

mkroot nul; r=$R
printf 'dummy 16384 0 - Live 0x0\nxf\000s 2375680 0 - Live 0x0\n' >"$r/proc/modules"
expect_error "$r" "proc/modules':2" "NUL byte"

mkroot longline; r=$R
{ echo "dummy 16384 0 - Live 0x0"; head -c 1048576 /dev/zero | tr '\0' 'a'; echo; } >"$r/proc/modules"
expect_error "$r" "proc/modules':2" "line too long"

mkroot garbage; r=$R
head -c 4096 /dev/urandom | tr -d '\000' | tr -c 'a-zA-Z0-9 \n' 'x' >"$r/proc/modules"
ts_run --root "$r" report
ts_expect_rc 1 "garbage proc/modules"
grep -F "'proc/modules':" "$TS_TMP/err" >/dev/null || ts_fail "garbage: no file:line in '$(cat "$TS_TMP/err")'"

# an empty proc/modules is a kernel with modules but none loaded: not an error
mkroot empty; r=$R
: >"$r/proc/modules"
ts_run --root "$r" report -j
ts_expect_rc 0 "empty proc/modules"
[ "$(jq '.modules | length' "$TS_TMP/out")" = 0 ] || ts_fail "empty: modules not empty"

# other sources are optional: a broken one is a warning naming file and line,
# and the JSON says which source failed and why
mkroot badvmalloc; r=$R
printf '0xffffffffc0000000-0xffffffffc0005000   20480 load_module+0x857/0x2470 pages=4 vmalloc\n0xffffffffc0005000 oops\n' >"$r/proc/vmallocinfo"
ts_run --root "$r" report -j
ts_expect_rc 0 "bad vmallocinfo is not fatal"
grep -F "'proc/vmallocinfo':2: missing address range, ignoring" "$TS_TMP/err" >/dev/null ||
	ts_fail "bad vmallocinfo: warning: $(cat "$TS_TMP/err")"
[ "$(jq -r '.sources.vmallocinfo | "\(.ok) \(.line) \(.reason)"' "$TS_TMP/out")" = "false 2 missing address range" ] ||
	ts_fail "bad vmallocinfo: sources entry $(jq -c .sources.vmallocinfo "$TS_TMP/out")"

mkroot badmeminfo; r=$R
printf 'VmallocTotal:   lots kB\n' >"$r/proc/meminfo"
ts_run --root "$r" report -j
ts_expect_rc 0 "bad meminfo is not fatal"
grep -F "'proc/meminfo':1: value is not a number, ignoring" "$TS_TMP/err" >/dev/null ||
	ts_fail "bad meminfo: warning: $(cat "$TS_TMP/err")"

mkroot badsysfs; r=$R
echo "12k" >"$r/sys/module/dummy/coresize"
ts_run --root "$r" report -j
ts_expect_rc 0 "bad coresize is not fatal"
grep -F "'sys/module/dummy/coresize':1: value is not a number, ignoring" "$TS_TMP/err" >/dev/null ||
	ts_fail "bad coresize: warning: $(cat "$TS_TMP/err")"

mkroot badstats; r=$R
mkdir -p "$r/sys/kernel/debug/modules"
printf '         Mods ever loaded\t6\n     Mods failed on kread\tmany\n' >"$r/sys/kernel/debug/modules/stats"
ts_run --root "$r" report -j
ts_expect_rc 0 "bad MODULE_STATS is not fatal"
grep -F "'sys/kernel/debug/modules/stats':2: counter value is not a number, ignoring" "$TS_TMP/err" >/dev/null ||
	ts_fail "bad stats: warning: $(cat "$TS_TMP/err")"

mkroot badconfig; r=$R
mkdir -p "$r/boot"
printf 'CONFIG_MODULES=y\nthis is not a config\n' >"$r/boot/config-6.12.0-test"
ts_run --root "$r" report -j
ts_expect_rc 0 "bad config is not fatal"
grep -F "'boot/config-6.12.0-test':2: expected CONFIG_NAME=value, ignoring" "$TS_TMP/err" >/dev/null ||
	ts_fail "bad config: warning: $(cat "$TS_TMP/err")"

mkroot badgz; r=$R
mkdir -p "$r/proc"
printf 'not gzip at all' >"$r/proc/config.gz"
ts_run --root "$r" report -j
ts_expect_rc 0 "corrupt config.gz is not fatal"

# escape sequences in names never reach the terminal; JSON keeps them, escaped
mkroot escapes; r=$R
printf 'ev\033]52;c;aGk=\007il 16384 0 - Live 0xffffffffc0000000\nx\033[2Jy 8192 1 ev\033]52;c;aGk=\007il, Live 0x0\n' >"$r/proc/modules"
ts_run --root "$r" report
ts_expect_rc 0 "escape sequences in module names"
if tr -d '\n' <"$TS_TMP/out" | grep "$(printf '\033')" >/dev/null; then
	ts_fail "raw ESC byte in text output"
fi
grep -F 'ev\x1b]52;c;aGk=\x07il' "$TS_TMP/out" >/dev/null || ts_fail "escaped name not shown"
ts_run --root "$r" report -j
jq -e '.modules[0].name == "ev\u001b]52;c;aGk=\u0007il"' "$TS_TMP/out" >/dev/null ||
	ts_fail "JSON does not carry the exact name"

# no module support: one line, its own exit code
r=$TS_TMP/nomodules
mkdir -p "$r/proc"
ts_run --root "$r" report
ts_expect_rc 4 "no proc/modules"
[ "$(wc -l <"$TS_TMP/err")" = 1 ] && grep 'no module support' "$TS_TMP/err" >/dev/null ||
	ts_fail "no module support: message '$(cat "$TS_TMP/err")'"
[ -s "$TS_TMP/out" ] && ts_fail "no module support: stdout not empty"

# a root that is not there
ts_run --root "$TS_TMP/does-not-exist" report
ts_expect_rc 1 "missing root"
grep -F "does-not-exist" "$TS_TMP/err" >/dev/null || ts_fail "missing root: message"

# unreadable proc/modules (as a non-root user would see a 0400 file) is an error, not "no modules"
if [ "$(id -u)" != 0 ]; then
	mkroot unreadable; r=$R
	chmod 000 "$r/proc/modules"
	ts_run --root "$r" report
	ts_expect_rc 1 "unreadable proc/modules"
fi

# libkmod trusts a tree's binary indexes and writes past its buffers on damaged ones:
# kmodtop has libkmod read them whole in a child first, and a root whose indexes fail
# that is reported without them, with a warning; never a crash. Every seventh byte
# after each index's header scribbled over (python: a fixed seed, the same bytes each run)
if command -v python3 >/dev/null 2>&1; then
	r=$TS_TMP/badidx
	cp -R "$TS_SRCDIR/fixtures/debian-6.12-xz" "$r"
	chmod -R u+w "$r"
	python3 - "$r"/lib/modules/*/modules.dep.bin "$r"/lib/modules/*/modules.alias.bin \
		"$r"/lib/modules/*/modules.symbols.bin "$r"/lib/modules/*/modules.builtin.bin <<'PY'
import random, sys
random.seed(1)
for p in sys.argv[1:]:
    b = bytearray(open(p, 'rb').read())
    for i in range(12, len(b), 7):
        b[i] = random.randrange(256)
    open(p, 'wb').write(b)
PY
	# the child that reads the damaged indexes is meant to die: not under valgrind
	bin=$KMODTOP
	[ -n "${KMODTOP_VALGRIND:-}" ] && [ -n "${KMODTOP_NATIVE:-}" ] && bin=$KMODTOP_NATIVE
	"$bin" --root "$r" report -j >"$TS_TMP/out" 2>"$TS_TMP/err"
	TS_RC=$?
	ts_expect_rc 0 "damaged module indexes"
	grep -F "modules.*.bin': damaged (libkmod cannot read them)" "$TS_TMP/err" >/dev/null ||
		ts_fail "damaged module indexes: no warning: $(cat "$TS_TMP/err")"
	jq -e '.modules | length > 0' "$TS_TMP/out" >/dev/null ||
		ts_fail "damaged module indexes: the report lost its modules"
	# the fixture's own indexes are read (no warning), and name the autoload aliases
	"$bin" --root "$TS_SRCDIR/fixtures/debian-6.12-xz" report -j >"$TS_TMP/out" 2>"$TS_TMP/err"
	TS_RC=$?
	ts_expect_rc 0 "good module indexes"
	! grep -F "modules.*.bin" "$TS_TMP/err" >/dev/null ||
		ts_fail "good module indexes warned about: $(cat "$TS_TMP/err")"
fi

# nothing is ever written under --root
mkroot readonly; r=$R
find "$r" -exec touch -d '2000-01-01' {} +
before=$(find "$r" -newermt '2000-01-02' | wc -l)
ts_run --root "$r" report -j
after=$(find "$r" -newermt '2000-01-02' | wc -l)
[ "$before" = "$after" ] || ts_fail "report wrote under --root"

ts_finalize
