#!/bin/sh
# report --openmetrics, --prometheus and --textfile, read by Prometheus' own parsers
# (prometheus_client's OpenMetrics and text parsers, always; promtool check metrics where
# it is installed: Debian ships it only with the prometheus server):
# - a fleet of 50 hosts: the three fixture roots, each under host labels and with the
#   inputs varied (the whole capture, the log only, the trace only, the trace cut short
#   at a different line for each host, dmesg text for the log), exported to one
#   textfile directory; every file parses, both formats hold the same samples, every
#   figure is the report -j figure of that host, and the waste summed per module over
#   the fleet is the sum of report -j's;
# - hostile names (backslashes, quotes, escape sequences, bytes that are not UTF-8, a
#   newline) in module names, aliases and --label values, escaped as documented;
# - the textfile: replaced atomically, mode 0644, nothing left beside it; bad paths and
#   labels refused before anything is read.
. "$TS_SRCDIR/lib/ts.sh"
ts_init openmetrics
ts_need python3
ts_need_py prometheus_client python3-prometheus-client
# promtool lints on top of the parsers, without making the server a test dependency
have_promtool() { command -v promtool >/dev/null 2>&1; }
have_promtool || echo "note: promtool not installed (package prometheus): its lint is skipped"

T=$TS_TMP
PY="python3 $TS_SRCDIR/lib/openmetrics.py"
# under make check-valgrind the first hosts (each kind of input once) run under
# valgrind, the rest natively: 100 runs under valgrind would take minutes
NATIVE=${KMODTOP_NATIVE:-$KMODTOP}

# --- the fleet ------------------------------------------------------------------------
set -- custom-6.12-modstats debian-6.1-plain debian-6.12-xz
mkdir -p "$T/fleet/textfile" "$T/cut" || exit 99
i=0
while [ $i -lt 50 ]; do
	h=$(printf 'host-%02d' $i)
	case $((i % 3)) in 0) fx=$1 ;; 1) fx=$2 ;; *) fx=$3 ;; esac
	# the host's bundle: the fixture with a boot id of its own (but every seventh
	# host, as a capture made by hand has none); the module tree is the fixture's
	root=$T/bundles/$h
	mkdir -p "$root" && cp -R "$FIXTURES/$fx/proc" "$root/" || exit 99
	# hard links to one copy, not symlinks: a root is read beneath itself
	[ -d "$T/fx/$fx" ] || { mkdir -p "$T/fx" && cp -R "$FIXTURES/$fx" "$T/fx/"; } || exit 99
	for e in boot capture lib sys; do cp -al "$T/fx/$fx/$e" "$root/$e" || exit 99; done
	if [ $((i % 7)) != 6 ]; then
		mkdir -p "$root/proc/sys/kernel/random" || exit 99
		printf '%08x-%04x-4000-8000-%012x\n' $((i * 2654435761 % 4294967296)) $i $i |
			tee "$T/fleet/$h.boot_id" >"$root/proc/sys/kernel/random/boot_id"
	fi
	rel=$(cat "$root/proc/sys/kernel/osrelease")
	mdir=$FIXTURES/$fx/lib/modules/$rel
	case $((i % 5)) in
	0) opts= ;;
	1) opts=--no-trace ;;
	2) opts=--no-log ;;
	3)
		# a trace that ends inside the run, at another line for each host
		head -n $((300 + i * 97)) "$FIXTURES/$fx/sys/kernel/tracing/trace" >"$T/cut/$h.trace"
		opts="--trace $T/cut/$h.trace"
		;;
	*) opts="--log $FIXTURES/$fx/capture/dmesg.txt" ;;
	esac
	k=$NATIVE
	[ $i -lt 5 ] && k=$KMODTOP
	# shellcheck disable=SC2086
	"$k" --root "$root" --moduledir "$mdir" report $opts -j --textfile "$T/fleet/textfile/$h.prom" --label host=$h \
		>"$T/fleet/$h.json" 2>"$T/err" || ts_fail "$h: report -j --textfile exited $?"
	[ -s "$T/err" ] && ts_fail "$h: stderr: $(head -2 "$T/err")"
	# shellcheck disable=SC2086
	"$k" --root "$root" --moduledir "$mdir" report $opts --openmetrics --label host=$h >"$T/fleet/$h.om" 2>"$T/err" ||
		ts_fail "$h: report --openmetrics exited $?"
	[ -s "$T/err" ] && ts_fail "$h: stderr: $(head -2 "$T/err")"
	i=$((i + 1))
done
ts_ok

# promtool: the textfiles as node_exporter would read them, and its lint
if have_promtool; then
	for f in "$T"/fleet/textfile/*; do
		promtool check metrics <"$f" >"$T/lint" 2>&1 || ts_fail "promtool check metrics $(basename "$f"): $(head -3 "$T/lint")"
	done
fi
ts_check "the OpenMetrics files parse" $PY om "$T"/fleet/*.om
ts_check "the textfiles parse" $PY prom "$T"/fleet/textfile/*
ts_check "the fleet adds up as report -j does" $PY fleet "$T/fleet"

# --prometheus on standard output is the textfile
"$NATIVE" --root "$T/bundles/host-00" --moduledir "$FIXTURES/$1/lib/modules/6.12.118" report \
	--prometheus --label host=host-00 >"$T/p.prom" ||
	ts_fail "--prometheus exited $?"
"$NATIVE" --root "$FIXTURES/$3" report --no-trace --no-log --prometheus >"$T/info.prom"
cmp -s "$T/p.prom" "$T/fleet/textfile/host-00.prom" || ts_fail "--prometheus differs from the textfile"
grep -q '^# EOF' "$T/p.prom" && ts_fail "# EOF in the Prometheus format"
grep -q '^# EOF$' "$T/fleet/host-00.om" || ts_fail "no # EOF in OpenMetrics"
grep -q '^# TYPE kmodtop_load_attempts counter$' "$T/fleet/host-00.om" ||
	ts_fail "OpenMetrics counter family named with _total"
grep -q '^# TYPE kmodtop_load_attempts_total counter$' "$T/p.prom" ||
	ts_fail "Prometheus counter family named without _total"
# without a trace or a log: the two info gauges alone
[ "$(grep -c '^kmodtop_' "$T/info.prom")" = 2 ] || ts_fail "no inputs: $(grep -c '^kmodtop_' "$T/info.prom") samples"
if have_promtool; then
	promtool check metrics <"$T/info.prom" >/dev/null 2>&1 || ts_fail "promtool: the info-only file"
fi

# --- hostile names ----------------------------------------------------------------------
# The 6.12 trace's first load (header, step modprobe-xfs): module_load of libcrc32c
# renamed, its module_request's alias too, and a kernel log whose findings name modules
# with an escape character (/dev/kmsg writes it as \x1b), a quote and a backslash. A
# newline reaches no name (a trace is lines, a log record with one is no finding):
# --label carries one
FIX=$FIXTURES/debian-6.12-xz
R=$T/hostile
mkdir -p "$R/proc/sys/kernel" "$R/sys/kernel/tracing" "$R/capture" || exit 99
cp "$FIX/proc/modules" "$FIX/proc/meminfo" "$R/proc/" && cp "$FIX/proc/sys/kernel/osrelease" "$R/proc/sys/kernel/" || exit 99
BS='a\b"q'                                    # a backslash and a double quote
CSI=$(printf 'x\033[2Jy')                     # clears the screen
BADU=$(printf 'b\377a\300d')                  # not UTF-8
sq() { printf '%s' "$1" | sed 's/[\\&/]/\\&/g'; }
sed -n '1,12p; 72,364p' "$FIX/sys/kernel/tracing/trace" |
	sed "109s/libcrc32c/$(sq "$BS")/; 110s/crypto-crc32c/$(sq "$CSI$BADU")/; s/module_load: crc32c_intel/module_load: $(sq "$BADU")/" \
		>"$R/sys/kernel/tracing/trace"
printf '6,1,1000000,-;Linux version 6.12.0\n3,2,2000000,-;a\\x1bb: Unknown symbol foo (err -2)\n3,3,2100000,-;%s: Unknown symbol bar (err -2)\n' \
	"$(printf 'q"\\u')" >"$R/capture/kmsg.raw"
NL='
'
"$KMODTOP" --root "$R" --moduledir "$FIX/lib/modules/6.12.118+deb12-amd64" report --openmetrics \
	--label "note=tab	quote\" back\\ nl${NL}end" >"$T/h.om" 2>"$T/err" || ts_fail "hostile: exited $?"
"$KMODTOP" --root "$R" --moduledir "$FIX/lib/modules/6.12.118+deb12-amd64" report -j >"$T/h.json" 2>/dev/null
ts_check "hostile names: the OpenMetrics parser takes them" $PY om "$T/h.om"
python3 - "$T/h.om" "$T/h.json" "$TS_SRCDIR/lib" <<'EOF' || ts_fail "hostile names"
import json, sys
sys.path.insert(0, sys.argv[3])
import openmetrics as om
ss = om.series(sys.argv[1])
mods = {dict(l)["module"] for n, l, v in ss if n == "kmodtop_load_attempts_total"}
aliases = {dict(l)["alias"] for n, l, v in ss if n == "kmodtop_autoload_requests_total"}
found = {dict(l)["module"] for n, l, v in ss if n == "kmodtop_kernel_log_findings_total"}
notes = {dict(l)["note"] for n, l, v in ss}
# as the text report shows them: \ doubled, control characters and bad bytes as \xNN
want_mods = {'a\\\\b"q', 'b\\xffa\\xc0d'}
if not want_mods <= mods:
    om.fail("modules %r, not %r" % (mods, want_mods))
if 'x\\x1b[2Jyb\\xffa\\xc0d' not in aliases:
    om.fail("aliases %r" % aliases)
if found != {'a\\x1bb', 'q"\\\\u'}:
    om.fail("finding modules %r" % found)
# --label is written as given
if notes != {'tab\tquote" back\\ nl\nend'}:
    om.fail("--label value %r" % notes)
# every name the JSON has is a series of its own
d = json.load(open(sys.argv[2], encoding="utf-8"))
if len([m for m in d["modules"] if m.get("attempts", {}).get("total")]) != \
        len({dict(l)["module"] for n, l, v in ss if n == "kmodtop_load_attempts_total"}):
    om.fail("a module was merged with another")
EOF
LC_ALL=C grep -q "$(printf '\033')" "$T/h.om" && ts_fail "hostile: a raw ESC in the metrics"
grep -q 'a\\\\\\\\b\\"q' "$T/h.om" || ts_fail "hostile: the backslash and quote not escaped: $(grep -a 'a\\' "$T/h.om" | head -1)"
grep -q 'note="tab	quote\\" back\\\\ nl\\nend"' "$T/h.om" || ts_fail "hostile: --label not escaped per the spec"

# --- the textfile ---------------------------------------------------------------------
D=$T/tf
mkdir -p "$D" || exit 99
"$NATIVE" --root "$FIX" report --textfile "$D" >"$T/out" 2>"$T/err" || ts_fail "--textfile DIR exited $?"
[ -s "$T/out" ] && ts_fail "--textfile printed the report too"
[ "$(ls -A "$D")" = kmodtop.prom ] || ts_fail "--textfile DIR made: $(ls -A "$D")"
[ "$(stat -c %a "$D/kmodtop.prom")" = 644 ] || ts_fail "mode $(stat -c %a "$D/kmodtop.prom")"
ino=$(stat -c %i "$D/kmodtop.prom")
"$NATIVE" --root "$FIXTURES/debian-6.1-plain" report --textfile "$D/" --label host=b || ts_fail "rewrite"
[ "$(ls -A "$D")" = kmodtop.prom ] || ts_fail "rewrite left: $(ls -A "$D")"
[ "$(stat -c %i "$D/kmodtop.prom")" != "$ino" ] || ts_fail "the file was written in place, not renamed over"
grep -q 'host="b"' "$D/kmodtop.prom" || ts_fail "the rewrite is not the new file"
# a reader holding the old file keeps reading the old one whole
exec 3<"$D/kmodtop.prom"
"$NATIVE" --root "$FIX" report --textfile "$D" --label host=c
grep -q 'host="b"' <&3 || ts_fail "an open reader lost the old file"
exec 3<&-

# expect_usage WHAT ARGS...: exit 2, nothing written anywhere
expect_rc() {
	rc=$1 what=$2
	shift 2
	ts_run --root "$FIX" report "$@"
	ts_expect_rc "$rc" "$what"
	[ -s "$T/out" ] && ts_fail "$what: wrote to standard output"
	[ "$(ls -A "$D")" = kmodtop.prom ] || ts_fail "$what: left $(ls -A "$D")"
}
expect_rc 2 "--textfile into a missing directory" --textfile "$D/no/such.prom"
grep -q "no/such.prom" "$T/err" || ts_fail "missing directory: not named"
expect_rc 2 "--textfile without .prom" --textfile "$D/kmodtop.txt"
expect_rc 2 "--label without =" --openmetrics --label host
expect_rc 2 "--label a bad name" --openmetrics --label 9x=1
expect_rc 2 "--label a reserved name" --openmetrics --label __name__=x
expect_rc 2 "--label one of kmodtop's" --openmetrics --label module=x
expect_rc 2 "--label empty" --openmetrics --label host=
expect_rc 2 "--label twice" --openmetrics --label host=a --label host=b
expect_rc 2 "--label not UTF-8" --openmetrics --label "host=$BADU"
expect_rc 2 "--label alone" --label host=a
expect_rc 2 "-j and --openmetrics" -j --openmetrics
expect_rc 2 "--openmetrics and --prometheus" --openmetrics --prometheus
ts_run --root "$FIX" report --textfile /proc/kmodtop-test.prom
ts_expect_rc 1 "--textfile where nothing can be written"
grep -q "/proc/kmodtop-test.prom" "$T/err" || ts_fail "unwritable textfile: not named"
# the directory is held to the cache's rules: not a symlink, not writable by others
ln -s "$D" "$T/tf-link"
mkdir -m 0777 "$T/tf-open" && chmod 0777 "$T/tf-open"
for p in "$T/tf-link" "$T/tf-link/" "$T/tf-link/x.prom" "$T/tf-open" "$T/tf-open/x.prom"; do
	ino=$(stat -c %i "$D/kmodtop.prom")
	ts_run --root "$FIX" report --textfile "$p"
	ts_expect_rc 1 "--textfile $p"
	grep -q "symbolic link\|writable by group or others" "$T/err" || ts_fail "--textfile $p: not said why"
	[ "$(stat -c %i "$D/kmodtop.prom")" = "$ino" ] && [ "$(ls -A "$D")" = kmodtop.prom ] ||
		ts_fail "--textfile $p: written through"
	[ -z "$(ls -A "$T/tf-open")" ] || ts_fail "--textfile $p: written into an open directory"
done
ts_finalize
