#!/bin/sh
# A hostile --root: symlinks out of it are refused (nothing of the file they point at
# reaches stdout, stderr or a --textfile), a FIFO, /dev/zero or a directory in place of
# a file does not hang and is named in a warning, a sparse huge file is not read; an
# unreadable or directory default trace or kernel log is a warning, not a failure.
. "$TS_SRCDIR/lib/ts.sh"
ts_init root-escape
ts_need timeout mkfifo truncate python3
. "$TS_SRCDIR/lib/root.sh"

T=$TS_TMP
SECRET=kmodtop-secret-d41d8cd9

# outside every root: a file only its owner reads, and a log of its own
mkdir -p "$T/outside"
echo "$SECRET" >"$T/outside/secret"
chmod 600 "$T/outside/secret"
printf '6,1,1000000,-;%s: loading out-of-tree module taints kernel.\n' "$SECRET" >"$T/outside/kmsg"

# run WHAT ARGS...: kmodtop under timeout, stdout in $T/out, stderr in $T/err
run() {
	what=$1
	shift
	timeout -k 5 10 "$KMODTOP" "$@" >"$T/out" 2>"$T/err" </dev/null
	TS_RC=$?
	ts_ok
	[ "$TS_RC" = 124 ] && ts_fail "$what: hangs"
	[ "$TS_RC" -le 124 ] || ts_fail "$what: killed by a signal ($TS_RC)"
}

# no_leak WHAT FILE...: the outside file's text is in none of the files
no_leak() {
	what=$1
	shift
	ts_ok
	if grep -l "$SECRET" "$@" >/dev/null 2>&1; then
		ts_fail "$what: the file outside the root leaked: $(grep -h "$SECRET" "$@" | head -2)"
	fi
}

# warned WHAT TEXT: stderr has a warning with TEXT
warned() {
	ts_ok
	grep -F -- "$2" "$T/err" >/dev/null || {
		ts_fail "$1: no warning '$2'"
		sed 's/^/  stderr: /' "$T/err" | head -5
	}
}

# --- symlinks out of the root -----------------------------------------------------------
for link in rel abs; do
	mkroot "osrelease-$link" --no-init
	rm "$R/proc/sys/kernel/osrelease"
	if [ $link = rel ]; then
		ln -s ../../../../outside/secret "$R/proc/sys/kernel/osrelease"
	else
		ln -s "$T/outside/secret" "$R/proc/sys/kernel/osrelease"
	fi
	mkdir -p "$T/prom-$link"
	run "osrelease -> outside ($link): report" --root "$R" report
	no_leak "osrelease ($link): report" "$T/out" "$T/err"
	warned "osrelease ($link): report" "proc/sys/kernel/osrelease': a symlink leads out of the root"
	run "osrelease -> outside ($link): --textfile" --root "$R" report --openmetrics \
		--textfile "$T/prom-$link"
	no_leak "osrelease ($link): --openmetrics, --textfile" "$T/out" "$T/err" "$T/prom-$link"/*
	run "osrelease -> outside ($link): ci" --root "$R" ci "$T/outside/kmsg" -j
	grep -F '"release":"'"$SECRET" "$T/out" >/dev/null &&
		ts_fail "osrelease ($link): ci took the release from outside the root"
done

mkroot kmsg-out --no-init
ln -s "$T/outside/kmsg" "$R/capture/kmsg.raw"
run "capture/kmsg.raw -> outside: report" --root "$R" report
[ "$TS_RC" = 0 ] || ts_fail "capture/kmsg.raw -> outside: exit $TS_RC, not 0"
no_leak "capture/kmsg.raw -> outside" "$T/out" "$T/err"
warned "capture/kmsg.raw -> outside" "capture/kmsg.raw': a symlink leads out of the root"
run "capture/kmsg.raw -> outside: top --replay" top --replay "$R" --batch --speed 0 --size 160x40
no_leak "capture/kmsg.raw -> outside: top --replay" "$T/out" "$T/err"

# libkmod reads etc/modprobe.d and the module tree's indexes by path: a symlink out in
# either is not handed to it
printf 'alias %s-alias dummy\n%s bad line\n' "$SECRET" "$SECRET" >"$T/outside/evil.conf"
mkroot modprobe-out --no-init
mkdir -p "$R/etc/modprobe.d" "$R/lib/modules/6.12.0-test"
ln -s "$T/outside/evil.conf" "$R/etc/modprobe.d/evil.conf"
run "modprobe.d/evil.conf -> outside" --root "$R" report -j
no_leak "modprobe.d/evil.conf -> outside" "$T/out" "$T/err"
warned "modprobe.d/evil.conf -> outside" "etc/modprobe.d/evil.conf': a symlink leads out of the root"
rm "$R/etc/modprobe.d/evil.conf"
ln -s ../../../../outside/evil.conf "$R/lib/modules/6.12.0-test/modules.alias"
run "modules.alias -> outside" --root "$R" report -j
no_leak "modules.alias -> outside" "$T/out" "$T/err"
warned "modules.alias -> outside" "6.12.0-test/modules.alias': a symlink leads out of the root"

# a symlinked directory that climbs out, and one that stays inside (captured trees have
# them): the first refused, the second read
mkroot dir-out --no-init
mkdir -p "$T/outside/sys/module/dummy"
echo "$SECRET" >"$T/outside/sys/module/dummy/coresize"
rm -rf "$R/sys/module"
ln -s ../../outside/sys/module "$R/sys/module"
run "sys/module -> outside" --root "$R" report -j
no_leak "sys/module -> outside" "$T/out" "$T/err"
mkroot dir-in --no-init
mkdir -p "$R/data/kernel"
mv "$R/proc/sys/kernel/osrelease" "$R/data/kernel/osrelease"
ln -s ../../../data/kernel/osrelease "$R/proc/sys/kernel/osrelease"
run "osrelease -> inside" --root "$R" report -j
grep -F '"6.12.0-test"' "$T/out" >/dev/null || ts_fail "osrelease -> inside: release not read"
[ -s "$T/err" ] && { ts_fail "osrelease -> inside: stderr"; head -3 "$T/err"; }

# --- a FIFO, /dev/zero, a directory or a sparse huge file in place of a root file --------
for rel in proc/modules proc/vmallocinfo proc/meminfo proc/sys/kernel/osrelease \
	proc/sys/kernel/tainted sys/module/dummy/coresize capture/kmsg.raw \
	sys/kernel/tracing/trace; do
	for kind in fifo zero dir huge; do
		mkroot "$kind" --no-init
		mkdir -p "$(dirname "$R/$rel")"
		rm -f "$R/$rel"
		case $kind in
		fifo) mkfifo "$R/$rel"; want="not a regular file" ;;
		zero) ln -s /dev/zero "$R/$rel"; want="a symlink leads out of the root" ;;
		dir) mkdir "$R/$rel"; want="a directory" ;;
		huge) truncate -s 1T "$R/$rel"; want= ;;
		esac
		run "$rel as $kind: report" --root "$R" report
		case $rel in
		proc/modules)
			[ "$TS_RC" = 1 ] || ts_fail "$rel as $kind: exit $TS_RC, not 1"
			grep -F "proc/modules'" "$T/err" >/dev/null ||
				ts_fail "$rel as $kind: the error does not name the file"
			;;
		*) [ "$TS_RC" = 0 ] || ts_fail "$rel as $kind: exit $TS_RC, not 0" ;;
		esac
		[ -z "$want" ] || warned "$rel as $kind" "$rel': $want"
		if [ "$kind" = fifo ] || [ "$kind" = zero ]; then
			run "$rel as $kind: top --batch" --root "$R" top --batch --iterations 1 --size 160x40
			run "$rel as $kind: top --replay" top --replay "$R" --batch --speed 0 --size 160x40
		fi
	done
done

# explicit inputs: a FIFO without a writer reads as empty, a device is refused
mkfifo "$T/fifo"
mkroot explicit --no-init
run "--log FIFO" --root "$R" report --log "$T/fifo"
[ "$TS_RC" = 0 ] || ts_fail "--log FIFO: exit $TS_RC"
run "--trace /dev/zero" --root "$R" report --trace /dev/zero
[ "$TS_RC" = 1 ] || ts_fail "--trace /dev/zero: exit $TS_RC, not 1"
run "ci /dev/zero" ci /dev/zero
[ "$TS_RC" = 2 ] || ts_fail "ci /dev/zero: exit $TS_RC, not 2"
run "ci FIFO" ci "$T/fifo"
run "ci --config FIFO" ci --config "$T/fifo" "$T/outside/kmsg"
run "ci --baseline FIFO" ci --baseline "$T/fifo" "$T/outside/kmsg"
run "ci --baseline /dev/zero" ci --baseline /dev/zero "$T/outside/kmsg"
[ "$TS_RC" = 2 ] || ts_fail "ci --baseline /dev/zero: exit $TS_RC, not 2"
run "boot-setup --vmlinuz FIFO" boot-setup --vmlinuz "$T/fifo" --kernel-release 6.12.0-test
[ "$TS_RC" != 0 ] || ts_fail "boot-setup --vmlinuz FIFO: exit 0"

# --- an unreadable default trace or kernel log is an optional source --------------------
# (a file where the directory should be: not readable, for root too)
mkroot notdir --no-init
mkdir -p "$R/sys/kernel"
echo x >"$R/sys/kernel/tracing"
rm -rf "$R/capture"
echo x >"$R/capture"
run "trace and log under a file" --root "$R" report
[ "$TS_RC" = 0 ] || ts_fail "trace and log under a file: exit $TS_RC, not 0"
warned "trace under a file" "'sys/kernel/tracing/trace': Not a directory, ignoring"
warned "log under a file" "'capture/kmsg.raw': Not a directory, ignoring"
run "trace and log under a file: top --replay" top --replay "$R" --batch --speed 0 --size 160x40
warned "top --replay: trace under a file" "'sys/kernel/tracing/trace': Not a directory, ignoring"
if [ "$(id -u)" != 0 ]; then
	mkroot unreadable --no-init
	mkdir -p "$R/sys/kernel/tracing"
	echo '# tracer: nop' >"$R/sys/kernel/tracing/trace"
	echo '6,1,1000000,-;hello' >"$R/capture/kmsg.raw"
	chmod 000 "$R/sys/kernel/tracing/trace" "$R/capture/kmsg.raw"
	run "unreadable default trace and log" --root "$R" report
	[ "$TS_RC" = 0 ] || ts_fail "unreadable default trace and log: exit $TS_RC, not 0"
	warned "unreadable default trace" "sys/kernel/tracing/trace': Permission denied"
	warned "unreadable default log" "capture/kmsg.raw': Permission denied"
	run "unreadable default trace and log: top --replay" top --replay "$R" --batch --speed 0 \
		--size 160x40
	warned "top --replay: unreadable default trace" "sys/kernel/tracing/trace': Permission denied"
fi

# --- a root copied through a system with CRLF line ends ----------------------------------
mkroot crlf --no-init
mkdir -p "$R/boot"
printf '6.12.0-test\r\n' >"$R/proc/sys/kernel/osrelease"
printf '0\r\n' >"$R/proc/sys/kernel/tainted"
printf 'CONFIG_MODULES=y\n' >"$R/boot/config-6.12.0-test"
run "CRLF osrelease" --root "$R" report -j
ts_ok
python3 -c '
import json, sys
k = json.load(open(sys.argv[1]))["kernel"]
sys.exit(0 if k["release"] == "6.12.0-test" and k["config"] == "boot/config-6.12.0-test" else 1)
' "$T/out" || ts_fail "CRLF osrelease: release or config not found: $(head -c 300 "$T/out")"
grep -F tainted "$T/err" >/dev/null && ts_fail "CRLF tainted: $(cat "$T/err")"

# --- a table with a line pasted twice: warned about, counted once ------------------------
mkroot repeated --no-init
L1="0xffffffffc0000000-0xffffffffc0005000   20480 load_module+0x857/0x2470 pages=4 vmalloc N0=4"
L2="0xffffffffc0010000-0xffffffffc0013000   12288 load_module+0x857/0x2470 pages=2 vmalloc N0=2"
printf 'dummy 16384 0 - Live 0xffffffffc0000000\nxfs 8192 0 - Live 0xffffffffc0010000\n' \
	>"$R/proc/modules"
printf '%s\n%s\n' "$L1" "$L2" >"$R/proc/vmallocinfo"
run "tables once" --root "$R" report -j
cp "$T/out" "$T/once.json"
cat "$R/proc/modules" "$R/proc/modules" >"$T/x" && mv "$T/x" "$R/proc/modules"
printf '%s\n%s\n%s\n' "$L1" "$L2" "$L1" >"$R/proc/vmallocinfo"
run "tables twice" --root "$R" report -j
warned "proc/modules twice" "'proc/modules':3: listed before (2 repeated lines), counted once"
warned "vmallocinfo twice" "'proc/vmallocinfo':3: listed before (1 repeated line), counted once"
ts_ok
python3 -c '
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
def view(d):
    return ([(m["name"], m["vmalloc_bytes"], m["join"], m["confidence"]) for m in d["modules"]],
            {k: d["module_memory"][k] for k in ("module_areas", "module_bytes", "unjoined_areas", "confidence")})
if view(a) != view(b):
    print("once:  %r\ntwice: %r" % (view(a), view(b)))
    sys.exit(1)
' "$T/once.json" "$T/out" || ts_fail "repeated lines: counted again"

ts_finalize
