#!/bin/bash
# kmodtop ci: the captures' kernel logs and traces in every rendering and compression,
# a line for each kernel format string the ledger knows, multi-boot files, gates,
# config, baseline, every output format read back by a real parser (python3's json,
# xmllint, the official SARIF 2.1.0 schema and a structure check), and every exit code.
. "$TS_SRCDIR/lib/ts.sh"
ts_init ci
ts_need python3 gzip xz zstd xmllint
ts_need_py jsonschema python3-jsonschema

T=$TS_TMP
FX=$FIXTURES
CHECK=$T/check.py

# --- a JSON/XML/SARIF checker: python3 reads what kmodtop wrote -------------------------
cat >"$CHECK" <<'EOF'
import json, re, sys, os, xml.etree.ElementTree as ET
sys.path.insert(0, os.path.join(os.environ["TS_SRCDIR"], "lib"))
import sarifschema

def load(p):
    with open(p, encoding="utf-8") as f:
        return json.load(f)

def findings(doc):
    """(class, module) -> count, summed over inputs"""
    out = {}
    for f in doc["findings"]:
        k = (f["class"], f["module"])
        out[k] = out.get(k, 0) + f["count"]
    return out

def fail(msg):
    print(msg)
    sys.exit(1)

cmd = sys.argv[1]
if cmd == "get":
    # get FILE EXPR: a python expression over d (the document)
    d = load(sys.argv[2])
    v = eval(sys.argv[3], {"d": d, "findings": findings})
    print(json.dumps(v, sort_keys=True) if not isinstance(v, str) else v)
elif cmd == "same-findings":
    # same-findings A B: the same (class, module) counts
    a, b = findings(load(sys.argv[2])), findings(load(sys.argv[3]))
    if a != b:
        fail("findings differ:\n  %s\n  %s" % (sorted(a.items()), sorted(b.items())))
elif cmd == "same-doc":
    # same-doc A B: identical apart from what the inputs say about parsing (the boots
    # too: where one ends does not depend on the filter)
    a, b = load(sys.argv[2]), load(sys.argv[3])
    for d in (a, b):
        for i in d["inputs"]:
            i.pop("filtered", None)
            i.pop("records", None)
    if a != b:
        fail("documents differ")
elif cmd == "contract":
    # contract FILE: every finding row has the documented fields and types
    d = load(sys.argv[2])
    assert d["command"] == "ci" and d["schema_version"] == 2, "header"
    assert d["result"] in ("pass", "fail", "empty", "error"), d["result"]
    for k in ("inputs", "boots", "findings", "gates"):
        assert isinstance(d[k], list), k
    for f in d["findings"]:
        for k, t in (("class", str), ("group", str), ("level", str), ("count", int),
                     ("attempts", int), ("evidence_lines", int), ("boots", int), ("file", str), ("first_line", int), ("last_line", int),
                     ("allowed", bool), ("gated", bool)):
            assert isinstance(f[k], t), (k, f)
        assert f["module"] is None or isinstance(f["module"], str), f
        assert f["wasted"] is None or isinstance(f["wasted"], int), f
        assert 1 <= f["first_line"] <= f["last_line"], f
        assert f["level"] in ("error", "warning", "note"), f
    for b in d["boots"]:
        assert b["line"] >= 1 and b["end_line"] >= b["line"], b
    for g in d["gates"]:
        assert g["name"] and g["result"] in ("pass", "FAIL", "unknown"), g
elif cmd == "evidence":
    # evidence FILE LOG: first and last lines of every finding exist in LOG and carry its text
    d = load(sys.argv[2])
    lines = open(sys.argv[3], "rb").read().split(b"\n")
    for f in d["findings"]:
        for n in (f["first_line"], f["last_line"]):
            if n > len(lines):
                fail("line %d past the end" % n)
            line = lines[n - 1].decode("utf-8", "replace")
            words = {"unknown-symbol": "Unknown symbol", "bad-elf": "ELF",
                     "autoload-duplicate": "duplicate request"}
            w = words.get(f["class"])
            if w and w not in line:
                fail("%s line %d lacks %r: %s" % (f["class"], n, w, line))
            if f["module"] and f["class"] in ("unknown-symbol", "autoload-duplicate") and \
               f["module"] not in line:
                fail("%s line %d lacks %s" % (f["class"], n, f["module"]))
elif cmd == "junit":
    # junit FILE TESTS FAILURES: a testsuites document with those totals, consistent
    root = ET.parse(sys.argv[2]).getroot()
    assert root.tag == "testsuites", root.tag
    cases = root.findall("./testsuite/testcase")
    fails = [c for c in cases if c.find("failure") is not None]
    assert int(root.get("tests")) == len(cases), "tests attribute"
    assert int(root.get("failures")) == len(fails), "failures attribute"
    for s in root.findall("testsuite"):
        assert int(s.get("tests")) == len(s.findall("testcase")), s.get("name")
    for c in cases:
        assert c.get("classname") and c.get("name"), c.attrib
    want_tests, want_fails = int(sys.argv[3]), int(sys.argv[4])
    if len(cases) != want_tests or len(fails) != want_fails:
        fail("junit: %d testcases, %d failed; want %d, %d" % (len(cases), len(fails),
                                                             want_tests, want_fails))
    for extra in sys.argv[5:]:
        kind, name = extra.split("=", 1)
        hits = [c for c in cases if c.get("name") == name]
        if not hits:
            fail("junit: no testcase %s" % name)
        if (kind == "failed") != (hits[0].find("failure") is not None):
            fail("junit: testcase %s is not %s" % (name, kind))
elif cmd == "sarif":
    # sarif FILE LOG: valid against the SARIF 2.1.0 schema; its structure; every
    # location points at an evidence line
    d = load(sys.argv[2])
    errs = sarifschema.errors(d)
    if errs:
        fail("%s: not SARIF 2.1.0 by its schema:\n  %s" % (sys.argv[2], "\n  ".join(errs[:10])))
    assert d["version"] == "2.1.0", "version"
    assert "sarif-2.1.0" in d["$schema"], "$schema"
    assert isinstance(d["runs"], list) and len(d["runs"]) == 1, "runs"
    run = d["runs"][0]
    drv = run["tool"]["driver"]
    assert drv["name"] == "kmodtop" and drv["version"], "driver"
    ids = [r["id"] for r in drv["rules"]]
    assert len(ids) == len(set(ids)), "rule ids unique"
    for r in drv["rules"]:
        assert r["shortDescription"]["text"], r
        assert r["defaultConfiguration"]["level"] in ("note", "warning", "error"), r
    log = open(sys.argv[3], "rb").read().split(b"\n") if len(sys.argv) > 3 else None
    for res in run["results"]:
        assert res["ruleId"] == ids[res["ruleIndex"]], res
        assert res["level"] in ("none", "note", "warning", "error"), res
        assert res["message"]["text"], res
        assert len(res["locations"]) >= 1, res
        for loc in res["locations"] + res.get("relatedLocations", []):
            pl = loc["physicalLocation"]
            uri = pl["artifactLocation"]["uri"]
            assert re.fullmatch(r"[A-Za-z0-9\-._~/!$&'()*+,;=:@%]+", uri), uri
            line = pl["region"]["startLine"]
            assert isinstance(line, int) and line >= 1, loc
            if log is not None:
                assert line <= len(log), line
        assert isinstance(res["properties"]["count"], int), res
    print(len(run["results"]))
elif cmd == "github":
    # github FILE: every line a workflow command; print the error count
    n = 0
    for line in open(sys.argv[2], encoding="utf-8"):
        m = re.fullmatch(r"::(error|warning|notice)( ([a-zA-Z]+=[^,:]*)(,[a-zA-Z]+=[^,:]*)*)?::(.*)\n",
                         line)
        if not m:
            fail("not a workflow command: %r" % line)
        n += m.group(1) == "error"
    print(n)
EOF
py() { python3 "$CHECK" "$@"; }
json_of() { cp "$T/out" "$T/$1.json"; echo "$T/$1.json"; }

# --- the captures: every input the fixtures have --------------------------------------
for fx in debian-6.1-plain debian-6.12-xz custom-6.12-modstats; do
	root=$FX/$fx
	rel=$(cat "$root/capture/uname-r")
	for f in capture/dmesg.txt capture/kmsg.raw; do
		log=$root/$f
		ts_run ci -j "$log"
		ts_expect_rc 0 "$fx $f: no gates, exit 0" || continue
		j=$(json_of "$fx-$(basename "$f")")
		py contract "$j" || ts_fail "$fx $f: JSON contract"
		py evidence "$j" "$log" || ts_fail "$fx $f: evidence lines"
		want=$(case $f in *kmsg*) echo kmsg ;; *) echo kernel-log-text ;; esac)
		[ "$(py get "$j" 'd["inputs"][0]["format"]')" = "$want" ] || ts_fail "$fx $f: format not $want"
		[ "$(py get "$j" 'd["boots"][0]["release"]')" = "$rel" ] || ts_fail "$fx $f: release from the banner"
		[ "$(py get "$j" 'len(d["boots"])')" = 1 ] || ts_fail "$fx $f: one boot"
		# counts against the log itself
		n=$(grep -c ': Unknown symbol ' "$log")
		got=$(py get "$j" 'sum(f["count"] for f in d["findings"] if f["class"] == "unknown-symbol")')
		[ "$got" = "$n" ] || ts_fail "$fx $f: unknown-symbol $got, the log has $n"
		n=$(grep -c 'Invalid ELF\|ELF Spec' "$log")
		got=$(py get "$j" 'sum(f["count"] for f in d["findings"] if f["class"] == "bad-elf")')
		[ "$got" = "$n" ] || ts_fail "$fx $f: bad-elf $got, the log has $n"
		n=$(grep -c 'module-autoload: duplicate request' "$log")
		got=$(py get "$j" 'sum(f["count"] for f in d["findings"] if f["class"] == "autoload-duplicate")')
		[ "$got" = "$n" ] || ts_fail "$fx $f: autoload-duplicate $got, the log has $n"
		first=$(grep -n ': Unknown symbol ' "$log" | head -1 | cut -d: -f1)
		last=$(grep -n ': Unknown symbol ' "$log" | tail -1 | cut -d: -f1)
		got=$(py get "$j" '[(f["first_line"], f["last_line"]) for f in d["findings"] if f["class"] == "unknown-symbol"]')
		[ "$got" = "[[$first, $last]]" ] || ts_fail "$fx $f: unknown-symbol lines $got, want $first-$last"
		# the needle filter changes nothing but the speed
		ts_run ci -j --no-filter "$log"
		cp "$T/out" "$T/nofilter.json"
		py same-doc "$j" "$T/nofilter.json" || ts_fail "$fx $f: --no-filter differs"
		ts_ok
	done
	# dmesg.txt and kmsg.raw are the same boot: the same findings
	py same-findings "$T/$fx-dmesg.txt.json" "$T/$fx-kmsg.raw.json" || ts_fail "$fx: dmesg.txt and kmsg.raw disagree"

	# the trace: attempts from the ledger, as report counts them
	trace=$root/sys/kernel/tracing/trace
	ts_run --root "$root" ci -j "$trace"
	ts_expect_rc 0 "$fx trace" || continue
	j=$(json_of "$fx-trace")
	py contract "$j" || ts_fail "$fx trace: JSON contract"
	[ "$(py get "$j" 'd["inputs"][0]["format"]')" = trace ] || ts_fail "$fx trace: format"
	ts_run --root "$root" report -j
	cp "$T/out" "$T/$fx-report.json"
	for outcome in duplicate-live duplicate-concurrent idempotent-waiter missing-dependency bad-format \
		userspace-decompression-fallback init-failed; do
		want=$(python3 -c 'import json,sys; print(sum(1 for a in json.load(open(sys.argv[1]))["attempts"] if a["outcome"] == sys.argv[2]))' "$T/$fx-report.json" "$outcome")
		got=$(py get "$j" "sum(f['count'] for f in d['findings'] if f['class'] == '$outcome')")
		[ "$got" = "$want" ] || ts_fail "$fx trace: $outcome $got, report has $want attempts"
	done
	# every trace finding's lines are syscall or request events of the trace
	bad=$(python3 - "$j" "$trace" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
lines = open(sys.argv[2], encoding="utf-8", errors="replace").read().split("\n")
for f in d["findings"]:
    for n in (f["first_line"], f["last_line"]):
        l = lines[n - 1]
        if "init_module" not in l and "module_request" not in l:
            print(f["class"], n, l)
EOF
)
	[ -z "$bad" ] || ts_fail "$fx trace: evidence lines that are no syscall or request: $bad"
	ts_ok
done

# --- a trace's evidence lines, whichever way it comes ----------------------------------
# Read from a copy (compressed, standard input), a trace keeps its lines: blank lines
# before the first and an over-long line count as in the file. Each line cited is a
# syscall or request event of the file.
trace=$FX/debian-6.12-xz/sys/kernel/tracing/trace
{ echo; echo; head -n 3 "$trace"; head -c 70000 /dev/zero | tr '\0' a; echo; tail -n +4 "$trace"; } >"$T/lines.trace"
xz -c "$T/lines.trace" >"$T/lines.trace.xz"
LQ='sorted((f["class"], f["module"], f["first_line"], f["last_line"]) for f in d["findings"])'
ts_run ci -j "$T/lines.trace"
ts_expect_rc 0 "trace lines: plain"
cp "$T/out" "$T/lines.json"
want=$(py get "$T/lines.json" "$LQ")
bad=$(python3 - "$T/lines.json" "$T/lines.trace" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
lines = open(sys.argv[2], encoding="utf-8", errors="replace").read().split("\n")
for f in d["findings"]:
    for n in (f["first_line"], f["last_line"]):
        if "init_module" not in lines[n - 1] and "module_request" not in lines[n - 1]:
            print(f["class"], n)
EOF
)
[ -n "$want" ] && [ "$want" != "[]" ] || ts_fail "trace lines: no findings"
[ -z "$bad" ] || ts_fail "trace lines: evidence lines that are no syscall or request: $bad"
ts_run ci -j "$T/lines.trace.xz"
[ "$(py get "$T/out" "$LQ")" = "$want" ] || ts_fail "trace lines: an xz copy cites other lines"
"$KMODTOP" ci -j - <"$T/lines.trace" >"$T/out" 2>"$T/err"
[ "$(py get "$T/out" "$LQ")" = "$want" ] || ts_fail "trace lines: standard input cites other lines"
"$KMODTOP" ci -j - <"$T/lines.trace.xz" >"$T/out" 2>"$T/err"
[ "$(py get "$T/out" "$LQ")" = "$want" ] || ts_fail "trace lines: compressed standard input cites other lines"
ts_ok

# --- the same boot in every rendering --------------------------------------------------
# --- /dev/kmsg continuation records are joined to their line, as report --log joins them
# A 'c' of the same caller (5.1+) and a '+' (3.5 to 4.8): the fragments alone hold no
# finding; a 'c' of another caller stays a record of its own.
cat >"$T/cont.kmsg" <<'EOF'
6,1,0,-;Linux version 6.12.1 (x@y) #1
4,2,100,-,caller=T157;nfs: Unknown symbol 
 SUBSYSTEM=module
4,3,101,c,caller=T157;rpc_put_task (err -2)
4,4,102,-;xfs: Unknown symb
4,5,103,+;ol xfs_a (err -2)
4,6,104,-,caller=T158;ext4: Unknown symbol 
4,7,105,c,caller=T159;jbd2_x (err -2)
EOF
for nf in "" --no-filter; do
	ts_run ci -j $nf "$T/cont.kmsg"
	ts_expect_rc 0 "kmsg continuations $nf"
	[ "$(py get "$T/out" '[(f["class"], f["module"], f["count"], f["first_line"]) for f in d["findings"]]')" = \
		'[["unknown-symbol", "nfs", 1, 2], ["unknown-symbol", "xfs", 1, 5]]' ] ||
		ts_fail "kmsg continuations $nf: not joined: $(py get "$T/out" 'd["findings"]')"
done
ts_run --root "$FX/debian-6.12-xz" report --no-trace --log "$T/cont.kmsg" -j
ts_expect_rc 0 "kmsg continuations: report"
[ "$(py get "$T/out" 'sorted((f["module"], f["count"]) for f in d["findings"] if f["kind"] == "unknown-symbol")')" = \
	'[["nfs", 1], ["xfs", 1]]' ] || ts_fail "kmsg continuations: report --log joins otherwise"

kmsg=$FX/debian-6.12-xz/capture/kmsg.raw
python3 - "$kmsg" "$T" <<'EOF'
import json, re, sys, time
src, out = sys.argv[1], sys.argv[2]
recs = []
for line in open(src, encoding="utf-8", errors="surrogateescape"):
    line = line.rstrip("\n")
    if line.startswith(" "):
        continue
    head, msg = line.split(";", 1)
    prio, seq, usec = head.split(",")[:3]
    msg = re.sub(r"\\x([0-9a-f]{2})", lambda m: chr(int(m.group(1), 16)), msg)
    recs.append((int(prio), int(usec), msg))
base = 1796216481  # 2026-12-02 13:01:21 UTC
def w(name, fmt):
    with open(out + "/" + name, "w", encoding="utf-8", errors="surrogateescape") as f:
        for i, (prio, usec, msg) in enumerate(recs):
            f.write(fmt(i, prio, usec, msg))
w("dmesg-T.txt", lambda i, p, u, m: time.strftime("[%a %b %e %H:%M:%S %Y] ", time.gmtime(base + u // 10**6)) + m + "\n")
w("dmesg-notime.txt", lambda i, p, u, m: m + "\n")
w("journal-short.txt", lambda i, p, u, m: time.strftime("%b %d %H:%M:%S", time.gmtime(base + u // 10**6)) + " ci-host kernel: " + m + "\n"
  + ("%s ci-host systemd[1]: Started modprobe@drm.service - Load Kernel Module drm.\n" % time.strftime("%b %d %H:%M:%S", time.gmtime(base)) if i % 50 == 7 else ""))
w("journal-mono.txt", lambda i, p, u, m: "[%5d.%06d] ci-host kernel: %s\n" % (u // 10**6, u % 10**6, m))
w("journal-iso.txt", lambda i, p, u, m: time.strftime("%Y-%m-%dT%H:%M:%S+0000", time.gmtime(base + u // 10**6)) + " ci-host kernel: " + m + "\n")
w("console.txt", lambda i, p, u, m: ("login: " if i % 9 == 0 else "") + "[%5d.%06d] %s\n" % (u // 10**6, u % 10**6, m)
  + ("Welcome to Debian GNU/Linux 12 (bookworm)!\n[  OK  ] Started systemd-udevd.service\n" if i % 40 == 3 else ""))
def jline(i, p, u, m):
    s = json.dumps({"__REALTIME_TIMESTAMP": str((base * 10**6) + u), "__MONOTONIC_TIMESTAMP": str(u),
                    "_BOOT_ID": "0123456789abcdef0123456789abcdef", "_TRANSPORT": "kernel",
                    "SYSLOG_IDENTIFIER": "kernel", "PRIORITY": str(p & 7), "_HOSTNAME": "ci-host",
                    "MESSAGE": m}) + "\n"
    if i == 100:
        s += json.dumps({"_BOOT_ID": "0123456789abcdef0123456789abcdef", "_TRANSPORT": "stdout",
                         "SYSLOG_IDENTIFIER": "modprobe",
                         "MESSAGE": "FATAL: Module bluetooth not found in directory /lib/modules/6.12.118+deb12-amd64"}) + "\n"
    return s
w("journal.json", jline)
EOF
ts_run ci -j "$kmsg"
base_json=$(json_of base)
for f in dmesg-T.txt dmesg-notime.txt journal-short.txt journal-mono.txt journal-iso.txt console.txt journal.json; do
	ts_run ci -j "$T/$f"
	ts_expect_rc 0 "rendering $f" || continue
	j=$(json_of "render-$f")
	py contract "$j" || ts_fail "$f: JSON contract"
	if [ "$f" = journal.json ]; then
		# the journal also has modprobe's own line
		[ "$(py get "$j" 'findings(d).get(("modprobe-error", "bluetooth"))')" = 1 ] ||
			ts_fail "$f: modprobe's journal line not found"
		python3 - "$base_json" "$j" <<'EOF' || ts_fail "$f: findings differ from kmsg.raw"
import json, sys
def f(p):
    return {(x["class"], x["module"]): x["count"] for x in json.load(open(p))["findings"]
            if x["class"] != "modprobe-error"}
sys.exit(0 if f(sys.argv[1]) == f(sys.argv[2]) else 1)
EOF
	else
		py same-findings "$base_json" "$j" || ts_fail "$f: findings differ from kmsg.raw"
	fi
	[ "$(py get "$j" 'd["boots"][0]["release"]')" = "6.12.118+deb12-amd64" ] || ts_fail "$f: release"
	ts_ok
done
[ "$(py get "$T/render-dmesg-notime.txt.json" 'd["inputs"][0]["format"]')" = kernel-log-plain ] ||
	ts_fail "dmesg without timestamps not recognised"
[ "$(py get "$T/render-journal.json.json" 'd["inputs"][0]["format"]')" = journal-json ] ||
	ts_fail "journal json not recognised"

# trace-cmd report text: a duplicate, a missing dependency, a request for nothing
cat >"$T/report.txt" <<'EOF'
cpus=2
        modprobe-157   [000]     4.586660: sys_enter_finit_module: fd: 0x00000003, uargs: 0x005bfb41, flags: 0x00000004
        modprobe-157   [000]     4.600001: module_load:          dummy
        modprobe-157   [000]     4.600932: sys_exit_finit_module: 0x0
        modprobe-160   [001]     5.000000: sys_enter_finit_module: fd: 0x00000003, uargs: 0x005bfb41, flags: 0x00000004
        modprobe-160   [001]     5.000100: sys_exit_finit_module: 0xffffffffffffffef
        modprobe-161   [001]     6.000000: sys_enter_finit_module: fd: 0x00000003, uargs: 0x005bfb41, flags: 0x00000004
        modprobe-161   [001]     6.000100: sys_exit_finit_module: 0xfffffffffffffffe
EOF
ts_run ci -j --max-duplicates=0 "$T/report.txt"
ts_expect_rc 1 "trace-cmd report: a duplicate fails --max-duplicates=0"
j=$(json_of tracecmd)
[ "$(py get "$j" 'd["inputs"][0]["format"]')" = trace ] || ts_fail "trace-cmd report not recognised"
[ "$(py get "$j" 'sorted((f["class"], f["first_line"], f["last_line"]) for f in d["findings"])')" = \
	'[["duplicate-live", 5, 6], ["missing-dependency", 7, 8]]' ] ||
	ts_fail "trace-cmd report findings: $(py get "$j" 'd["findings"]')"

# --- a line for each kernel format string the ledger recognises -----------------------
unit=$TS_BUILDDIR/unit/test-ci
if [ -x "$unit" ]; then
	"$unit" --format-lines >"$T/formats.tsv"
	cut -f2- "$T/formats.tsv" >"$T/formats.log"
	[ "$(wc -l <"$T/formats.log")" -gt 80 ] || ts_fail "too few format lines"
	ts_run ci -j "$T/formats.log"
	ts_expect_rc 0 "format lines"
	j=$(json_of formats)
	python3 - "$T/formats.tsv" "$j" <<'EOF' || ts_fail "format lines: a format was not reported as its class"
import json, sys
want = {}
for n, line in enumerate(open(sys.argv[1], encoding="utf-8"), 1):
    cls = line.split("\t", 1)[0]
    want.setdefault(cls, []).append(n)
d = json.load(open(sys.argv[2]))
got = {}
for f in d["findings"]:
    got.setdefault(f["class"], []).append(f)
bad = 0
for cls, lines in want.items():
    rows = got.get(cls, [])
    if sum(r["count"] for r in rows) != len(lines):
        print("%s: %d lines, %d counted" % (cls, len(lines), sum(r["count"] for r in rows)))
        bad = 1
        continue
    if min(r["first_line"] for r in rows) != lines[0] or max(r["last_line"] for r in rows) != lines[-1]:
        print("%s: lines %s, rows %s" % (cls, lines, [(r["first_line"], r["last_line"]) for r in rows]))
        bad = 1
if set(got) - set(want):
    print("unexpected classes", set(got) - set(want))
    bad = 1
sys.exit(bad)
EOF
	ts_run ci -j --no-filter "$T/formats.log"
	cp "$T/out" "$T/formats-nf.json"
	py same-doc "$j" "$T/formats-nf.json" || ts_fail "format lines: --no-filter differs"
else
	echo "note: $unit not built (no cmocka): format lines skipped"
fi

# --- several boots in one file ----------------------------------------------------------
cat "$FX/debian-6.12-xz/capture/dmesg.txt" "$FX/debian-6.1-plain/capture/dmesg.txt" \
	"$FX/custom-6.12-modstats/capture/dmesg.txt" >"$T/boots.log"
ts_run ci -j "$T/boots.log"
ts_expect_rc 0 "multi-boot file"
j=$(json_of boots)
[ "$(py get "$j" '[b["release"] for b in d["boots"]]')" = '["6.12.118+deb12-amd64", "6.1.0-57-amd64", "6.12.118"]' ] ||
	ts_fail "multi-boot: releases $(py get "$j" '[b["release"] for b in d["boots"]]')"
l2=$(($(wc -l <"$FX/debian-6.12-xz/capture/dmesg.txt") + 1))
[ "$(py get "$j" 'd["boots"][1]["line"]')" = "$l2" ] || ts_fail "multi-boot: boot 2 does not start at line $l2"
# per boot: each boot's failed attempts are its own log's
for i in 0 1 2; do
	f=$(echo "debian-6.12-xz debian-6.1-plain custom-6.12-modstats" | cut -d' ' -f$((i + 1)))
	want=$(py get "$T/$f-dmesg.txt.json" 'd["totals"]["failed"]')
	[ "$(py get "$j" "d['boots'][$i]['failed']")" = "$want" ] || ts_fail "multi-boot: boot $((i + 1)) failed"
done
[ "$(py get "$j" '[f["boots"] for f in d["findings"] if f["class"] == "unknown-symbol"]')" = '[3]' ] ||
	ts_fail "multi-boot: unknown-symbol not seen in 3 boots"
# the worst boot decides: debian-6.1 has the most failures
worst=$(py get "$j" 'max(b["failed"] for b in d["boots"])')
ts_run ci --max-failures="$worst" "$T/boots.log"
ts_expect_rc 0 "--max-failures at the worst boot's count"
ts_run ci --max-failures=$((worst - 1)) "$T/boots.log"
ts_expect_rc 1 "--max-failures one below the worst boot's count"
grep -F "boots.log:$l2 (boot 2)" "$T/out" >/dev/null || ts_fail "the failed gate does not name boot 2"
# journalctl's boot separators split too
{ echo "-- Boot 1111 --"; sed -n '2,50p' "$T/journal-short.txt"; echo "-- Boot 2222 --"; sed -n '2,50p' "$T/journal-short.txt"; } >"$T/two-boots.txt"
ts_run ci -j "$T/two-boots.txt"
[ "$(py get "$T/out" '[b["boot_id"] for b in d["boots"]]')" = '["1111", "2222"]' ] ||
	ts_fail "journal boot markers: $(py get "$T/out" 'd["boots"]')"

# --- compressed inputs, by magic bytes -------------------------------------------------
log=$FX/debian-6.12-xz/capture/dmesg.txt
gzip -c "$log" >"$T/c.gz"
xz -c "$log" >"$T/c.xz"
zstd -q -c "$log" >"$T/c.zst"
cp "$T/c.xz" "$T/disguised.log"
{ head -300 "$log" | gzip -c; tail -n +301 "$log" | gzip -c; } >"$T/members.gz"
for f in c.gz c.xz c.zst disguised.log members.gz; do
	ts_run ci -j "$T/$f"
	ts_expect_rc 0 "compressed $f" || continue
	py same-findings "$T/debian-6.12-xz-dmesg.txt.json" "$T/out" || ts_fail "$f: findings differ from the plain log"
	want=$(case $f in *gz) echo gzip ;; c.zst) echo zstd ;; *) echo xz ;; esac)
	[ "$(py get "$T/out" 'd["inputs"][0]["compression"]')" = "$want" ] || ts_fail "$f: compression not $want"
	py evidence "$T/out" "$log" || ts_fail "$f: line numbers are not the decompressed text's"
	ts_ok
done
# standard input, compressed
"$KMODTOP" ci -j - <"$T/c.zst" >"$T/out" 2>"$T/err"
[ $? = 0 ] || ts_fail "ci - <c.zst"
py same-findings "$T/debian-6.12-xz-dmesg.txt.json" "$T/out" || ts_fail "stdin: findings differ"
[ "$(py get "$T/out" 'd["inputs"][0]["path"]')" = - ] || ts_fail "stdin is not named -"

# --- output formats, read back -------------------------------------------------------
ts_run ci -p --junit="$T/r.xml" --sarif="$T/r.sarif" --max-failures=0 --max-duplicates=100 \
	--fail-on=bad-elf "$log"
ts_expect_rc 1 "all formats at once"
j=$(json_of all)
[ "$(wc -l <"$j")" -gt 20 ] || ts_fail "-p is not indented"
py contract "$j" || ts_fail "all formats: JSON contract"
xmllint --noout "$T/r.xml" || ts_fail "JUnit is not well-formed XML"
# 3 gates (max-duplicates passes) + 2 offending modules: nfs and the unnamed bad-elf
py junit "$T/r.xml" 5 4 failed=max-failures failed=fail-on passed=max-duplicates failed=nfs \
	"failed=(unnamed)" ||
	ts_fail "JUnit testcases"
n=$(py sarif "$T/r.sarif" "$log") || ts_fail "SARIF structure"
[ "$n" = "$(py get "$j" 'len(d["findings"])')" ] || ts_fail "SARIF: $n results for $(py get "$j" 'len(d["findings"])') findings"
# locations: the log and the first evidence line of each finding
[ "$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["runs"][0]["results"]; print(sorted((x["ruleId"], x["locations"][0]["physicalLocation"]["region"]["startLine"]) for x in r))' "$T/r.sarif")" = \
	"$(py get "$j" 'sorted([f["class"], f["first_line"]] for f in d["findings"])' | tr '[]' '()' | sed 's/^(/[/;s/)$/]/;s/"/'"'"'/g')" ] ||
	ts_fail "SARIF locations are not the findings' first lines"
ts_run ci --github --max-failures=0 "$log"
ts_expect_rc 1 "--github"
grep '^::' "$T/out" >"$T/gh.txt"
n=$(py github "$T/gh.txt") || ts_fail "--github lines"
[ "$n" -ge 2 ] || ts_fail "--github: $n errors, want the gate and nfs"
grep -E "^::error file=[^,]*dmesg.txt,line=$(grep -n ': Unknown symbol ' "$log" | head -1 | cut -d: -f1),endLine=[0-9]+,title=unknown-symbol nfs::" "$T/gh.txt" >/dev/null ||
	ts_fail "--github: no error annotation at nfs's first line"
grep -E '^::error file=[^,]*dmesg.txt,line=[0-9]+,title=kmodtop ci%3A gate max-failures failed::[0-9]+ failed attempts' "$T/gh.txt" >/dev/null ||
	ts_fail "--github: the gate's annotation (title escaped)"
grep -A1000 '^kmodtop ci' "$T/out" | grep '^::' >/dev/null && ts_fail "--github: annotations inside the report"
ts_run ci --github="$T/gh2.txt" -j "$log"
ts_expect_rc 0 "--github=FILE with -j"
py github "$T/gh2.txt" >/dev/null || ts_fail "--github=FILE lines"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/out" || ts_fail "-j with --github=FILE is not JSON"
ts_run ci --github -j "$log"
ts_expect_rc 2 "--github and -j both on standard output"
# a symlink another user planted where a report goes is replaced, its target left as
# it was (only root can plant one of another user's here)
mkdir "$T/plant" || exit 99
if [ "$(id -u)" = 0 ]; then
	for o in junit sarif github; do
		echo "not kmodtop's" >"$T/plant/victim-$o"
		ln -s "$T/plant/victim-$o" "$T/plant/$o.out"
		chown -h 65534 "$T/plant/$o.out"
		ts_run ci -j --"$o"="$T/plant/$o.out" "$log"
		ts_expect_rc 0 "--$o=FILE over a planted symlink"
		[ "$(cat "$T/plant/victim-$o")" = "not kmodtop's" ] ||
			ts_fail "--$o wrote through a planted symlink"
		[ -f "$T/plant/$o.out" ] && [ ! -L "$T/plant/$o.out" ] && [ -s "$T/plant/$o.out" ] ||
			ts_fail "--$o=FILE over a planted symlink: no report in its place"
	done
fi
# the user's own symlink is followed, as the shell's > would; no temporaries left
ln -s "$T/plant/mine" "$T/plant/own.xml"
ts_run ci --junit="$T/plant/own.xml" "$log"
ts_expect_rc 0 "--junit=FILE, a symlink of the user's"
grep -F '<testsuites' "$T/plant/mine" >/dev/null || ts_fail "--junit: the user's own symlink not followed"
[ "$(find "$T/plant" -name '.*' | wc -l)" = 0 ] || ts_fail "temporaries left: $(ls -A "$T/plant")"
# so is standard output, a pipe here
"$KMODTOP" ci --junit=/dev/stdout "$log" | grep -F '<testsuites' >/dev/null ||
	ts_fail "--junit=/dev/stdout: not written there"
ts_ok
# hostile text survives every format
printf '[    1.000000] Linux version 6.1.0-x\n[    2.000000] e\001vil<&"\x27>\xff: Unknown symbol x (err -2)\n' >"$T/hostile.log"
ts_run ci -j --junit="$T/h.xml" --sarif="$T/h.sarif" --max-failures=0 "$T/hostile.log"
ts_expect_rc 1 "hostile names"
python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$T/out" || ts_fail "hostile: JSON"
xmllint --noout "$T/h.xml" || ts_fail "hostile: JUnit XML"
py sarif "$T/h.sarif" >/dev/null || ts_fail "hostile: SARIF"
ts_run ci "$T/hostile.log"
grep "$(printf '\001')" "$T/out" >/dev/null && ts_fail "hostile: a control character reached the text output"

# --- gates, config, allow ---------------------------------------------------------------
ts_run ci --fail-on=failures "$log"
ts_expect_rc 1 "--fail-on=failures (a group)"
# a full disk: said, with its errno, and the exit status of an unwritable report
if [ -c /dev/full ]; then
	for a in --help --fail-on=help "--github --max-failures=0 $log" "--max-failures=0 $log"; do
		# shellcheck disable=SC2086
		"$KMODTOP" ci $a >/dev/full 2>"$TS_TMP/err"
		TS_RC=$?
		ts_expect_rc 2 "ci $a to a full disk"
		grep -F 'No space left on device' "$TS_TMP/err" >/dev/null ||
			ts_fail "ci $a to a full disk: $(cat "$TS_TMP/err")"
	done
	for o in junit sarif github; do
		ts_run ci --"$o"=/dev/full "$log"
		ts_expect_rc 2 "--$o=/dev/full"
		grep -F "'/dev/full': No space left on device" "$TS_TMP/err" >/dev/null ||
			ts_fail "--$o=/dev/full: $(cat "$TS_TMP/err")"
	done
fi
ts_run ci --fail-on=autoload-duplicate,vermagic "$log"
ts_expect_rc 0 "--fail-on classes absent from the log"
ts_run ci --fail-on=autoload-duplicate "$FX/custom-6.12-modstats/capture/dmesg.txt"
ts_expect_rc 1 "--fail-on=autoload-duplicate on the log that has them"
ts_run ci --max-failures=5 --allow=nfs "$log"
ts_expect_rc 0 "--allow=nfs leaves the 5 bad-elf lines"
ts_run ci --max-failures=4 --allow=nfs "$log"
ts_expect_rc 1 "--allow=nfs, --max-failures=4"
ts_run ci -j --max-failures=0 --allow='n*' "$log"
[ "$(py get "$T/out" '[f["allowed"] for f in d["findings"] if f["module"] == "nfs"]')" = '[true]' ] ||
	ts_fail "--allow pattern not applied"
cat >"$T/ci.conf" <<'EOF'
# gates for the nightly run
max-failures = 5   # the bad-elf lines
allow = nfs
fail-on=vermagic
EOF
ts_run ci --config="$T/ci.conf" "$log"
ts_expect_rc 0 "--config"
ts_run ci --config="$T/ci.conf" --max-failures=1 "$log"
ts_expect_rc 1 "the command line wins over --config"
echo "max-fails = 3" >"$T/bad.conf"
ts_run ci --config="$T/bad.conf" "$log"
ts_expect_rc 2 "unknown config key"
grep -F "bad.conf':1: unknown key 'max-fails'" "$T/err" >/dev/null || ts_fail "config error does not name file and line"
printf 'max-failures = lots\n' >"$T/bad.conf"
ts_run ci --config="$T/bad.conf" "$log"
ts_expect_rc 2 "bad config value"

# --- estimated waste --------------------------------------------------------------------
root=$FX/debian-6.12-xz
ts_run ci -j "$log"
[ "$(py get "$T/out" 'd["totals"]["wasted"]')" = null ] || ts_fail "waste without module files"
grep -F 'no vmap waste estimate' "$T/out" >/dev/null || ts_fail "no note that only counts are shown"
ts_run --root "$root" ci -j "$log"
ts_expect_rc 0 "--root"
w=$(py get "$T/out" '[f["wasted"] for f in d["findings"] if f["class"] == "unknown-symbol"][0]')
# each failed nfs load the log shows at the cost model's estimate of its attempt in the trace
n=$(py get "$T/out" '[f["attempts"] for f in d["findings"] if f["class"] == "unknown-symbol"][0]')
want=$(py get "$T/debian-6.12-xz-trace.json" '[f["wasted"] // f["count"] * '"$n"' for f in d["findings"] if f["class"] == "missing-dependency" and f["module"] == "nfs"][0]')
[ "$w" = "$want" ] || ts_fail "estimated waste of the nfs failure $w, the trace's per attempt $want"
ts_run --moduledir "$root/lib/modules/6.12.118+deb12-amd64" ci -j "$log"
[ "$(py get "$T/out" '[f["wasted"] for f in d["findings"] if f["class"] == "unknown-symbol"][0]')" = "$w" ] ||
	ts_fail "--moduledir gives another estimate"
ts_run --root "$root" ci --max-wasted=1K "$log"
ts_expect_rc 1 "--max-wasted=1K"
ts_run --root "$root" ci --max-wasted=1G "$log"
ts_expect_rc 0 "--max-wasted=1G"
ts_run ci --max-wasted=1G "$log"
ts_expect_rc 2 "--max-wasted without module files"
grep -F -- '--max-wasted' "$T/err" >/dev/null || ts_fail "--max-wasted error message"

# --- baseline -------------------------------------------------------------------------
ts_run ci -j "$log"
cp "$T/out" "$T/old.json"
ts_run ci --baseline="$T/old.json" "$log"
ts_expect_rc 0 "baseline: the same log"
cat "$log" "$log" >"$T/twice.log"
ts_run ci -j --baseline="$T/old.json" "$T/twice.log"
ts_expect_rc 1 "baseline: the counts doubled"
[ "$(py get "$T/out" '[(x["class"], x["status"], x["delta"]) for x in d["baseline"]["deltas"] if x["status"] != "same"]')" = \
	'[["bad-elf", "increased", 5], ["unknown-symbol", "increased", 9]]' ] ||
	ts_fail "baseline deltas: $(py get "$T/out" 'd["baseline"]["deltas"]')"
ts_run ci --baseline="$T/old.json" --tolerance=100 "$T/twice.log"
ts_expect_rc 0 "baseline: doubled is within --tolerance=100"
ts_run ci --baseline="$T/old.json" --tolerance=99 "$T/twice.log"
ts_expect_rc 1 "baseline: doubled is beyond --tolerance=99"
ts_run ci -j --baseline="$T/old.json" "$FX/custom-6.12-modstats/capture/dmesg.txt"
ts_expect_rc 1 "baseline: new offending modules"
[ "$(py get "$T/out" '[g["name"] for g in d["gates"] if not g["passed"]]')" = '["baseline-new", "baseline-increase"]' ] ||
	ts_fail "baseline-new gate: $(py get "$T/out" 'd["gates"]')"
[ "$(py get "$T/out" 'sorted(x["module"] for x in d["baseline"]["deltas"] if x["status"] == "new")')" = \
	'["net-pf-15", "net-pf-2-proto-132", "net-pf-2-proto-132-type-1", "net-pf-31"]' ] ||
	ts_fail "baseline: new modules"
echo '{"command":"report"}' >"$T/notci.json"
ts_run ci --baseline="$T/notci.json" "$log"
ts_expect_rc 2 "baseline that is no ci output"

# --- exit codes and usage errors --------------------------------------------------------
ts_run ci
ts_expect_rc 2 "no input"
ts_run ci "$T/does-not-exist.log"
ts_expect_rc 2 "missing input"
grep -F "does-not-exist.log" "$T/err" >/dev/null || ts_fail "missing input not named"
ts_run ci "$T"
ts_expect_rc 2 "a directory"
ts_run ci --bogus "$log"
ts_expect_rc 2 "unknown option"
ts_run ci --max-failures=-1 "$log"
ts_expect_rc 2 "negative --max-failures"
ts_run ci --max-wasted=12Q "$log"
ts_expect_rc 2 "bad size"
ts_run ci --fail-on=no-such-class "$log"
ts_expect_rc 2 "unknown class"
grep -F "no-such-class" "$T/err" >/dev/null || ts_fail "unknown class not named"
ts_run ci --tolerance=-5 "$log"
ts_expect_rc 2 "negative tolerance"
ts_run ci - - <"$log"
ts_expect_rc 2 "stdin twice"
head -c $(($(stat -c %s "$T/c.xz") / 2)) "$T/c.xz" >"$T/cut.xz"
ts_run ci "$T/cut.xz"
ts_expect_rc 2 "truncated xz"
grep -F "cut.xz': corrupt or truncated xz" "$T/err" >/dev/null || ts_fail "truncated xz message: $(cat "$T/err")"
printf 'BZh91AY&SY\001\002' >"$T/b.bz2"
ts_run ci "$T/b.bz2"
ts_expect_rc 2 "bzip2 input"
: >"$T/empty.log"
ts_run ci "$T/empty.log"
ts_expect_rc 4 "empty input: nothing to analyse"
printf 'hello\nworld\n' >"$T/noise.log"
ts_run ci -j --junit="$T/e.xml" "$T/noise.log"
ts_expect_rc 4 "no kernel lines: nothing to analyse"
[ "$(py get "$T/out" 'd["result"]')" = empty ] || ts_fail "empty: result"
xmllint --noout "$T/e.xml" && py junit "$T/e.xml" 1 0 || ts_fail "empty: JUnit"
ts_run ci "$T/empty.log" "$log"
ts_expect_rc 0 "one empty input among others"
ts_run ci --help
ts_expect_rc 0 "ci --help"
grep '^Usage: kmodtop .*ci' "$T/out" >/dev/null || ts_fail "ci --help text"

# --- over-long lines and NUL bytes are skipped with their line number ---------------------
# With the filter only lines that may hold a finding are looked at; --no-filter sees all.
{ echo "[    0.000000] Linux version 6.12.1 (x@y)"; head -c 70000 /dev/zero | tr '\0' a; echo;
  printf '[    1.000000] nul\000here\n'; echo "[    2.000000] nfs: Unknown symbol a (err -2)";
  head -c 70000 /dev/zero | tr '\0' b; echo " module"; printf '[    3.000000] x: Unknown\000 symbol\n'; } >"$T/long.log"
ts_run ci -j --no-filter "$T/long.log"
ts_expect_rc 0 "over-long line"
grep -F "long.log':2: line too long, skipping" "$T/err" >/dev/null || ts_fail "over-long line not reported with its number"
grep -F "long.log':3: line contains a NUL byte, skipping" "$T/err" >/dev/null || ts_fail "NUL byte line not reported"
[ "$(py get "$T/out" '[(f["class"], f["first_line"]) for f in d["findings"]]')" = '[["unknown-symbol", 4]]' ] ||
	ts_fail "lines after the skipped ones"
[ "$(py get "$T/out" 'd["inputs"][0]["skipped_lines"]')" = 4 ] || ts_fail "--no-filter: 4 skipped lines"
ts_run ci -j "$T/long.log"
grep -F "long.log':5: line too long" "$T/err" >/dev/null || ts_fail "filtered: over-long line with a needle not reported"
grep -F "long.log':6: line contains a NUL byte" "$T/err" >/dev/null || ts_fail "filtered: NUL line with a needle not reported"
[ "$(py get "$T/out" '[(f["class"], f["first_line"]) for f in d["findings"]]')" = '[["unknown-symbol", 4]]' ] ||
	ts_fail "filtered: lines after the skipped ones"

# --- threads: the same report, whatever their number --------------------------------------
# Several boots of the real logs, with console chatter, over-long lines (with and without
# a needle), NUL bytes and a last line without newline: many 256 KiB blocks.
{
	for i in 1 2 3; do
		for fx in debian-6.1-plain debian-6.12-xz custom-6.12-modstats; do
			cat "$FX/$fx/capture/dmesg.txt"
			seq 1 2000 | sed 's/^/runner: step /'
		done
		head -c 150000 /dev/zero | tr '\0' x; echo " module"
		head -c 80000 /dev/zero | tr '\0' y; echo
		printf '[  %d.000000] nfs: Unknown\000 symbol z (err -2)\n' "$i"
	done
	printf '[  9.000000] nfs: Unknown symbol last (err -2)'
} >"$T/threads.log"
xz -T1 -c "$T/threads.log" >"$T/threads.log.xz"
zstd -q -c "$T/threads.log" >"$T/threads.log.zst"
for f in threads.log threads.log.xz threads.log.zst; do
	ts_run ci -j --threads=1 "$T/$f"
	ts_expect_rc 0 "$f: --threads=1"
	cp "$T/out" "$T/t1.json"
	cp "$T/err" "$T/t1.err"
	grep -F "line too long" "$T/t1.err" >/dev/null || ts_fail "$f: no over-long line reported"
	for n in 2 5; do
		ts_run ci -j --threads=$n "$T/$f"
		ts_expect_rc 0 "$f: --threads=$n"
		cmp -s "$T/out" "$T/t1.json" || ts_fail "$f: --threads=$n report differs from one thread's"
		cmp -s "$T/err" "$T/t1.err" || ts_fail "$f: --threads=$n messages differ from one thread's"
	done
	ts_ok
done
# and the findings of the serial reader's (--no-filter; it also refuses over-long lines
# without a needle)
ts_run ci -j --no-filter "$T/threads.log"
py same-findings "$T/out" "$T/t1.json" || ts_fail "threads: --no-filter differs"
n=$(grep -ac ': Unknown symbol ' "$T/threads.log")
got=$(py get "$T/t1.json" 'sum(f["count"] for f in d["findings"] if f["class"] == "unknown-symbol")')
[ "$got" = "$n" ] || ts_fail "threads: unknown-symbol $got, the log has $n"
[ "$(py get "$T/t1.json" 'd["inputs"][0]["lines"]')" = "$(($(wc -l <"$T/threads.log") + 1))" ] ||
	ts_fail "threads: line count"
# --- a dense log: the scan copies what it found of lines seen before (but for their time)
# and counts a run of one failure at once, and must say what reading every line says. Among the repeats, lines that differ from
# one seen before only in ways that matter: a \r, a NUL, the time's width or shape.
{
	for i in $(seq 1 12); do
		for fx in debian-6.1-plain debian-6.12-xz custom-6.12-modstats; do
			cat "$FX/$fx/capture/dmesg.txt"
		done
		printf '[    1.00000%d] nfs: Unknown symbol rpc_put_task (err -2)\r\n' "$((i % 10))"
		printf '[    2.000000] nfs: Unknown\000symbol rpc_put_task (err -2)\n'
		printf '[123456.000000] nfs: Unknown symbol rpc_put_task (err -2)\n'
		printf '[ 1 3.000000] nfs: Unknown symbol rpc_put_task (err -2)\n'
		printf '[    4.000000]nfs: Unknown symbol rpc_put_task (err -2)\n'
		printf '[    5.000000] [    6.000000] nfs: Unknown symbol rpc_put_task (err -2)\n'
		printf '[    7.000000] e1000e: Unknown symbol rpc_put_task (err -2)\n'
		printf '[    7.100000] \033[31mnfs\033[0m: Unknown symbol rpc_\033]0;x\007 (err -2)\n'
		printf '[    7.200000] \033[31mnfs\033[0m: Unknown symbol rpc_\033]0;x\007 (err -2)\n'
		printf '[    8.000000] xfs: module verification failed: signature and/or required key missing - tainting kernel\n'
		# runs of a failure once a journal's host is known ("vm"), and a line that is
		# another program's there
		printf '[    9.000000] vm kernel: nfs: Unknown symbol rpc_put_task (err -2)\n'
		printf '[    9.100000] nfs: Unknown symbol rpc_put_task (err -2)\n'
		printf '[    9.200000] nfs: Unknown symbol rpc_put_task (err -2)\n'
		printf '[    9.300000] vm nfs: Unknown symbol rpc_put_task (err -2)\n'
		printf '[    9.400000] nfs: Unknown symbol rpc_put_task (err -2)\n'
	done
} >"$T/dense.log"
ts_run ci -j --no-filter "$T/dense.log"
ts_expect_rc 0 "dense: --no-filter"
cp "$T/out" "$T/dense-all.json"
for n in 1 2 3; do
	ts_run ci -j --threads=$n "$T/dense.log"
	ts_expect_rc 0 "dense: --threads=$n"
	py same-doc "$T/out" "$T/dense-all.json" || ts_fail "dense: --threads=$n differs from reading every line"
done
n=$(grep -ac 'nfs: Unknown symbol rpc_put_task' "$T/dense.log")
got=$(py get "$T/out" 'sum(f["count"] for f in d["findings"] if f["class"] == "unknown-symbol" and f["module"] == "nfs")')
[ "$n" -gt 100 ] && [ "$got" -gt 100 ] || ts_fail "dense: $got of nfs's unknown symbols counted"
ts_ok

for bad in 0 65 x ""; do
	ts_run ci --threads="$bad" "$T/threads.log"
	ts_expect_rc 2 "--threads='$bad'"
	grep -F -- "--threads '$bad': expected 1 to 64" "$T/err" >/dev/null || ts_fail "--threads='$bad' message"
done

# --- valgrind, where installed (not over a sanitizer build, nor in make check-valgrind) --
if command -v valgrind >/dev/null 2>&1 && [ -z "${KMODTOP_VALGRIND:-}" ] &&
	! grep -c __asan_init "$KMODTOP" >/dev/null 2>&1; then
	valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
		"$KMODTOP" ci -j --junit="$T/v.xml" --sarif="$T/v.sarif" --github="$T/v.gh" \
		--baseline="$T/old.json" --max-failures=0 "$T/c.xz" "$FX/debian-6.12-xz/sys/kernel/tracing/trace" \
		"$T/journal.json" >/dev/null 2>"$T/vg.txt"
	[ $? = 1 ] || ts_fail "valgrind: $(head -20 "$T/vg.txt")"
	py sarif "$T/v.sarif" >/dev/null || ts_fail "valgrind run: SARIF"
fi
# systemd's own line in a journal (not the kernel's record): a load that failed, tied to
# its module (systemd src/shared/module-util.c "Failed to insert module '%s': %s")
printf 'Mar 29 18:37:56 host kernel: Linux version 6.1.0-13-amd64 (debian-kernel@lists.debian.org)\nMar 29 18:37:56 host systemd-modules-load[766]: Failed to insert module '"'"'kdbus'"'"': Function not implemented\n' >"$TS_TMP/journal.log"
ts_run ci -j "$TS_TMP/journal.log"
ts_expect_rc 0 "systemd-modules-load line"
[ "$(jq -c '[.findings[] | select(.module == "kdbus") | .class]' "$TS_TMP/out")" = '["modprobe-error"]' ] ||
	ts_fail "systemd-modules-load's 'Failed to insert module' is not a modprobe-error of kdbus"
# every evidence line in JSON: the listed lines of a finding are the lines with its
# wording (grep -n), a run of repeats and a line between included, per input
{
	echo '[    0.000000] Linux version 6.1.0-9-amd64 (x@y) #1'
	for i in 1 2 3; do echo '[    1.000000] nfs: Unknown symbol rpc_a (err -2)'; done
	echo '[    1.000000] random: crng init done'
	for i in 1 2; do echo '[    1.000000] nfs: Unknown symbol rpc_a (err -2)'; done
	echo '[    1.300000] xfs: Unknown symbol d (err -2)'
	echo '[    1.400000] nfs: Unknown symbol rpc_b (err -2)'
	echo '[    1.500000] EXT4-fs (vda1): mounted filesystem'
	echo '[    1.600000] nfs: Unknown symbol rpc_b (err -2)'
} >"$T/ev.log"
# 300 lines of one finding, each after another line: more runs than a finding keeps
for i in $(seq 300); do
	echo '[    2.000000] zfs: Unknown symbol vn_rdwr (err -2)'
	echo '[    2.000000] other'
done >"$T/ev2.log"
ts_run ci -j "$T/ev.log" "$T/ev2.log"
ts_expect_rc 0 "evidence lines"
lines_of() { # MODULE FILE: the listed lines, one a line; then the truncated flag
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for f in d["findings"]:
    if f["module"] != sys.argv[2] or f["file"] != sys.argv[3]:
        continue
    for e in f["evidence"]:
        assert e["file"] == sys.argv[3]
        for a, b in e["lines"]:
            for n in range(a, b + 1):
                print(n)
    print("truncated" if f["evidence_truncated"] else "complete")
' "$TS_TMP/out" "$@"
}
want=$(grep -n 'nfs: Unknown symbol' "$T/ev.log" | cut -d: -f1; echo complete)
[ "$(lines_of nfs "$T/ev.log")" = "$want" ] ||
	ts_fail "nfs's evidence lines: $(lines_of nfs "$T/ev.log" | tr '\n' ' ') want $(echo $want)"
[ "$(lines_of xfs "$T/ev.log")" = "$(grep -n 'xfs: ' "$T/ev.log" | cut -d: -f1; echo complete)" ] ||
	ts_fail "xfs's evidence lines"
# past the cap: the first runs listed, flagged truncated, and the count still whole
got=$(lines_of zfs "$T/ev2.log")
[ "$(echo "$got" | tail -1)" = truncated ] || ts_fail "300 scattered lines not truncated"
[ "$(echo "$got" | sed '$d')" = "$(grep -n 'zfs: ' "$T/ev2.log" | cut -d: -f1 | head -256)" ] ||
	ts_fail "a truncated finding's listed lines are not its first ones"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert [f["evidence_lines"] for f in d["findings"] if f["module"] == "zfs"] == [300]
' "$TS_TMP/out" || ts_fail "a truncated finding's count"
# --- a journal a paste indented, and ubox's loader lines alone (tests/corpus 100, 108) ---
printf '%s\n' "  avril 19 06:28:05 notebook kernel: thinkpad_acpi: Unknown symbol snd_ctl_add (err 0)" \
	"  avril 19 06:28:05 notebook systemd-modules-load[109]: Failed to insert 'thinkpad_acpi': No such file or directory" \
	>"$T/indented.log"
ts_run -j ci "$T/indented.log"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
got = sorted((f["class"], f["module"], f["first_line"]) for f in d["findings"])
assert got == [("modprobe-error", "thinkpad_acpi", 2), ("unknown-symbol", "thinkpad_acpi", 1)], got
' "$TS_TMP/out" || ts_fail "an indented journal's lines"
printf '%s\n' "root@OpenWrt:/# insmod mt7615" "kmod: failed to insert /lib/modules/3.10.14/mt7615.ko" \
	>"$T/ubox.log"
ts_run -j ci "$T/ubox.log"
[ "$TS_RC" != 4 ] || ts_fail "ubox's loader line refused as nothing to analyse"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert [(f["class"], f["module"]) for f in d["findings"]] == [("modprobe-error", "mt7615")]
' "$TS_TMP/out" || ts_fail "ubox's loader line"
# a journal of systemd-modules-load's successes alone is a loader's, read: no finding
printf '%s\n' "Jul 09 14:15:07 mint systemd[1]: Started Load Kernel Modules." \
	"Jul 09 14:15:07 mint systemd-modules-load[471]: Inserted module 'ppdev'" >"$T/inserted.log"
ts_run -j ci "$T/inserted.log"
[ "$TS_RC" = 0 ] || ts_fail "systemd-modules-load's 'Inserted module' lines: exit $TS_RC"
printf '%s\n' "Jul 09 14:15:07 mint systemd[1]: Started Load Kernel Modules." >"$T/started.log"
ts_run -j ci "$T/started.log"
[ "$TS_RC" = 4 ] || ts_fail "a journal without loader or kernel lines: exit $TS_RC, want 4"
# --- a loader's line a mail wrapped twice, read as one from its first line (tests/corpus
# 185); a fourth line is not joined to three ---
printf '%s\n' "Mkinitrd is used to create an initial ramdisk, but upon reboot I get:" \
	"insmod: error inserting" "'/lib/modules/2.6.8/kernel/fs/reiserfs/reiserfs.ko': -1" \
	"invalid module format" "Waiting for device /dev/hda3 to appear: ok" >"$T/wrap3.log"
ts_run -j ci "$T/wrap3.log"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
got = [(f["class"], f["module"], f["first_line"]) for f in d["findings"]]
assert got == [("modprobe-error", "reiserfs", 2)], got
' "$TS_TMP/out" || ts_fail "a loader's line wrapped over three lines"
printf '%s\n' "insmod: error inserting" "'/lib/modules/2.6.8/kernel/fs/reiserfs/reiserfs.ko':" \
	"-1" "Invalid module format" >"$T/wrap4.log"
ts_run -j ci "$T/wrap4.log"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert not d.get("findings"), d["findings"]
' "$TS_TMP/out" || ts_fail "a line joined from four"
# a line before it that only mentions a wording's word, or ends a sentence, is no
# part of a wrapped loader's line: the finding is on the loader's own first line
printf '%s\n' "Loading: DVB driver modules -> dst dvb-bt8xx" "WARNING: Error inserting bttv" \
	"(/lib/modules/2.6.26/kernel/drivers/media/video/bt8xx/bttv.ko):" \
	"Unknown symbol in module, or unknown parameter (see dmesg)" "WARNING: Error inserting bt878" \
	"(/lib/modules/2.6.26/kernel/drivers/media/dvb/bt8xx/bt878.ko):" \
	"Unknown symbol in module, or unknown parameter (see dmesg)" >"$T/wrapafter.log"
ts_run -j ci "$T/wrapafter.log"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
got = sorted((f["module"], f["first_line"]) for f in d["findings"])
assert got == [("bt878", 5), ("bttv", 2)], got
' "$TS_TMP/out" || ts_fail "a wrapped loader's line after a line that mentions modules"
# --- batch 8a (tests/corpus 337, 349, 359): whose "Failed to find module", Android init ---
# dracut-install says systemd's words while it builds an initramfs: no load, no finding;
# the words retyped without an ident, or after systemd-modules-load's, are a finding
printf '%s\n' "dracut-install: Failed to find module 'crc32c'" \
	"systemd-modules-load[222]: Failed to find module 'uinput'" \
	"Failed to find module 'xen-blkback'" >"$T/findmod.log"
ts_run -j ci "$T/findmod.log"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
got = sorted((f["class"], f["module"], f["first_line"]) for f in d["findings"])
assert got == [("modprobe-error", "uinput", 2), ("modprobe-error", "xen_blkback", 3)], got
' "$TS_TMP/out" || ts_fail "dracut-install's and systemd's 'Failed to find module'"
# Android init's insmod builtin in a logcat line: a loader's line, read
printf '%s\n' "Log about insmod:" \
	"01-01 10:12:48.522     1     1 I (6)[1:init]: Command 'insmod /vendor/lib/modules/fpsgo.ko' action=boot (/vendor/etc/init/hw/init.mt6765.rc:1226) took 1ms and failed: finit_module for \"/vendor/lib/modules/fpsgo.ko\" failed: Exec format error" \
	>"$T/logcat.log"
ts_run -j ci "$T/logcat.log"
[ "$TS_RC" != 4 ] || ts_fail "Android init's insmod line refused as nothing to analyse"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert [(f["class"], f["module"]) for f in d["findings"]] == [("modprobe-error", "fpsgo")]
' "$TS_TMP/out" || ts_fail "Android init's insmod line"
# --- two records run onto one line (tests/corpus 382): two findings, one evidence line ---
# a record whose message holds a bracketed number stays one record
printf '%s\n' "[    1.000000] Linux version 6.1.0-test (gcc) #1 SMP" \
	"[    7.369200] em28xx_dvb: disagrees about version of symbol dvb_dmxdev_init [    7.369228] em28xx_dvb: Unknown symbol dvb_dmxdev_init (err -22)" \
	"[    8.000000] foo: module license 'x [    8.100000]' taints kernel." \
	"[    9.000000] baz: Unknown symbol qux (err -2) [    9.000001] baz: Unknown symbol quux (err -2)" \
	>"$T/two.log"
ts_run -j ci "$T/two.log"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
got = sorted((f["class"], f["module"], f["first_line"], f["last_line"], f["evidence_lines"],
              f["evidence"][0]["lines"]) for f in d["findings"])
assert got == [("symbol-version", "em28xx_dvb", 2, 2, 1, [[2, 2]]),
               ("taint", "foo", 3, 3, 1, [[3, 3]]),
               ("unknown-symbol", "baz", 4, 4, 1, [[4, 4]]),
               ("unknown-symbol", "em28xx_dvb", 2, 2, 1, [[2, 2]])], got
assert d["totals"]["findings"] == 4 and d["totals"]["evidence_lines"] == 4, d["totals"]
' "$TS_TMP/out" || ts_fail "two records run onto one line"
# --- a quoted-printable mail body (tests/corpus 188, 205): read decoded, lines physical ----
# "=0A" ends a line inside a physical one, '=' at a line's end joins two; a finding's
# evidence is the physical line where its message starts (the time cut on the line before)
printf '%s\n' 'Hi,=0A=0A> the log:=0A> [   40.9475=' \
	'71] foo: loading out-of-tree module taints kernel.=0A> [   41.000000] =' \
	'bar: Unknown symbol baz (err -2)=0A> [   41.000001] =' \
	'bar: Unknown symbol baz (err -2)=0A> thanks=20' 'Jo' >"$T/qp.log"
ts_run -j ci "$T/qp.log"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
got = sorted((f["class"], f["module"], f["evidence"][0]["lines"]) for f in d["findings"])
assert got == [("taint", "foo", [[2, 2]]), ("unknown-symbol", "bar", [[3, 4]])], got
assert d["inputs"][0]["lines"] == 5, d["inputs"][0]
' "$TS_TMP/out" || ts_fail "a quoted-printable body: findings on their physical lines"
ts_run ci "$T/qp.log"
grep -q "qp.log:3-4" "$TS_TMP/out" || ts_fail "a quoted-printable body: text output's line"
ts_finalize
