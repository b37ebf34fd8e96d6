# Helpers of the hostile-input tests (tests/cli/hostile*.sh), sourced after ts.sh and
# ts_init: a checker of what reaches a terminal or a parser, the kinds of damage, and
# the runs every row makes. HOSTILE_PROBE=1 prints what each run did instead of
# checking it (to write a new row).

T=$TS_TMP
CHECK=$T/check.py
cat >"$CHECK" <<'EOF'
import json, os, re, sys

def fail(msg):
    print(msg)
    sys.exit(1)

def load(p):
    return json.loads(open(p, "rb").read().decode("utf-8"))

def clean(s, where):
    # what reaches a terminal: no C0 but LF, no DEL, no C1
    for i, ch in enumerate(s):
        o = ord(ch)
        if (o < 0x20 and ch != "\n") or 0x7f <= o <= 0x9f:
            fail("%s: raw U+%04X at %d: %r" % (where, o, i, s[max(0, i - 30):i + 30]))

# shorthands for the rows' expressions over d
def A(d):	# report: (module, outcome) of each load attempt
    return [(a["module"], a["outcome"]) for a in d["attempts"]]
def K(d):	# report: (kind, module, count) of each kernel log finding
    return sorted(((f["kind"], f["module"], f["count"]) for f in d["findings"]), key=repr)
def F(d):	# ci: (class, module, count, first line, last line) of each finding
    return sorted(((f["class"], f["module"], f["count"], f["first_line"], f["last_line"])
                  for f in d["findings"]), key=repr)
O52, CSI, OSC = "ev\x1b]52;c;aGk=\x07il", "x\x1b[2Jy", "ti\x1b]0;owned\x1b\\tle"
BADU = "b\ufffda\ufffdd"	# b\377a\300d as JSON (UTF-8) carries it
# the debian-6.12-xz trace slice of hostile-logs.sh: its attempts, and its ci findings
BA = [("libcrc32c", "userspace-decompression-fallback"), ("libcrc32c", "loaded"),
      ("crc32c_intel", "init-failed"), ("crc32c_generic", "loaded")]
def rn(l, new):	# l with libcrc32c renamed
    return [(new if t[0] == "libcrc32c" else t[0],) + tuple(t[1:]) for t in l]
def f2(fb, init, mod="libcrc32c", extra=()):
    return sorted([("init-failed", "crc32c_intel", 1) + tuple(init),
                   ("userspace-decompression-fallback", mod, 1) + tuple(fb)] + list(extra), key=repr)
# its kmsg records: report's kernel log findings, and ci's
VK, VF = ("vmalloc-error", None, 1), ("vmalloc-error", None, 1, 8, 8)
VKO, VFO = ("vmalloc-error-other", None, 1), ("vmalloc-error-other", None, 1, 8, 8)
def KB(n=3, mod="nfs", extra=()):
    return sorted([("bad-elf", None, 1), ("unknown-symbol", mod, n)] + list(extra), key=repr)
def FB(lines=(5, 7), n=3, mod="nfs", extra=()):
    return sorted([("bad-elf", None, 1, 3, 3), ("unknown-symbol", mod, n) + tuple(lines)]
                  + list(extra), key=repr)
def sample(d, cls):
    return [f["sample"] for f in d["findings"] if f["class"] == cls]
ENV = {"d": None, "A": A, "K": K, "F": F, "O52": O52, "CSI": CSI, "OSC": OSC, "BADU": BADU,
       "BA": BA, "rn": rn, "f2": f2, "VK": VK, "VF": VF, "VKO": VKO, "VFO": VFO, "KB": KB, "FB": FB, "sample": sample}

def check(argv):
    cmd, path = argv[1], argv[2]
    if cmd == "text":
        b = open(path, "rb").read()
        try:
            s = b.decode("utf-8")
        except UnicodeDecodeError as e:
            fail("%s: invalid UTF-8 at byte %d: %r" % (path, e.start, b[max(0, e.start - 20):e.start + 20]))
        clean(s, path)
    elif cmd == "json":
        # json FILE [EXPR]: strict UTF-8 JSON, and EXPR over d holds
        ENV["d"] = d = load(path)
        if len(argv) > 3 and not eval(argv[3], ENV):
            fail("%s: %s does not hold" % (path, argv[3]))
    elif cmd == "show":
        # show FILE EXPR: what EXPR gives (to write a row)
        ENV["d"] = load(path)
        print(repr(eval(argv[3], ENV)))
    elif cmd == "sarif":
        # valid by the official SARIF 2.1.0 schema, then what the schema cannot say
        sys.path.insert(0, os.path.join(os.environ["TS_SRCDIR"], "lib"))
        import sarifschema
        d = load(path)
        errs = sarifschema.errors(d)
        if errs:
            fail("%s: not SARIF 2.1.0 by its schema:\n  %s" % (path, "\n  ".join(errs[:10])))
        assert d["version"] == "2.1.0" and "sarif-2.1.0" in d["$schema"], "header"
        run = d["runs"][0]
        assert run["tool"]["driver"]["name"] == "kmodtop", "driver"
        ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
        for res in run["results"]:
            assert res["ruleId"] == ids[res["ruleIndex"]], res
            assert isinstance(res["message"]["text"], str) and res["message"]["text"], res
            for loc in res["locations"]:
                assert loc["physicalLocation"]["region"]["startLine"] >= 1, loc
        if len(argv) > 3 and not eval(argv[3], {"d": d}):
            fail("%s: %s does not hold" % (path, argv[3]))
    elif cmd == "github":
        # one workflow command a line; in the properties ',' and ':' only as separators
        for line in open(path, encoding="utf-8"):
            m = re.fullmatch(r"::(error|warning|notice)( ([^:]*))?::(.*)\n", line)
            if not m:
                fail("not a workflow command: %r" % line)
            for p in (m.group(3) or "").split(","):
                if not re.fullmatch(r"(file|line|endLine|col|endColumn|title)=[^,]*", p):
                    fail("bad property %r in %r" % (p, line))
            clean(line[:-1], path)

# several checks at once (one interpreter a run): CMD FILE [EXPR] -- CMD FILE [EXPR] ...
args, cur = [], [sys.argv[0]]
for a in sys.argv[1:] + ["--"]:
    if a == "--":
        args.append(cur)
        cur = [sys.argv[0]]
    else:
        cur.append(a)
for a in args:
    check(a)
EOF
py() { python3 "$CHECK" "$@"; }

# clean FILE: what may reach a terminal, checked without an interpreter (as "py text"):
# valid UTF-8, no C0 control but LF, no DEL, no C1 (U+0080-U+009F)
clean() {
	! LC_ALL=C grep -a -P '[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$1" >/dev/null &&
		iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1
}

# the damage (bytes, whatever the locale)
export LC_ALL=C
OSC52=$(printf 'ev\033]52;c;aGk=\007il')	# a clipboard write
CSI=$(printf 'x\033[2Jy')			# clears the screen
OSC=$(printf 'ti\033]0;owned\033\\tle')	# sets the window title
BADU=$(printf 'b\377a\300d')			# not UTF-8
MAX=18446744073709551615			# 2^64 - 1
OVER=18446744073709551616			# 2^64

# sq STR: STR for the right side of a sed s///
sq() { printf '%s' "$1" | sed 's/[\\&/]/\\&/g'; }

# long N: a line of N 'a's
long() { head -c "$1" /dev/zero | tr '\0' a; }
MIB=1048576

# crlf FILE: every line ends in CR LF
crlf() { sed 's/$/\r/' "$1" >"$1.crlf" && mv "$1.crlf" "$1"; }
# chop FILE: the last newline gone (a capture cut short)
chop() { printf '%s' "$(cat "$1")" >"$1.chop" && mv "$1.chop" "$1"; }

# Under make check-valgrind ($KMODTOP runs valgrind) a table row runs one of its K
# commands, under valgrind, with all of that command's checks: the row's number modulo
# K picks which, so that every row has one memory-checked run and each kind of command
# its share of the rows. The others are left to make check and the ASan run, which run
# every command of every row: hrun returns 1 for them, and a row checks a command's
# output only when its hrun ran. A row begins with vg_row K and ends with vg_row_end;
# hrun outside a row always runs. HOSTILE_VG_ALL=1: every command under valgrind
# (about 4 times longer).
ROWN=0 RUNI=0 VG_AT=
vg_row() {
	ROWN=$((ROWN + 1))
	RUNI=0
	VG_AT=$((ROWN % $1))
}
vg_row_end() {
	# the row must have reached the command picked: else it ran none under valgrind
	if [ -n "${KMODTOP_VALGRIND:-}" ] && [ "$RUNI" -le "${VG_AT:-0}" ]; then
		ts_fail "row $ROWN: $RUNI commands, none under valgrind (picked command $VG_AT)"
	fi
	VG_AT=
}

# hrun ARGS...: kmodtop ARGS under a timeout, stdout and stderr into $T/out, $T/err;
# 1 when it was not run (make check-valgrind, not the row's pick)
if [ -n "${KMODTOP_VALGRIND:-}" ]; then HOSTILE_TIMEOUT=600; else HOSTILE_TIMEOUT=60; fi
hrun() {
	RUNI=$((RUNI + 1))
	if [ -n "${KMODTOP_VALGRIND:-}" ] && [ -z "${HOSTILE_VG_ALL:-}" ] && [ -n "$VG_AT" ] &&
		[ $((RUNI - 1)) != "$VG_AT" ]; then
		return 1
	fi
	timeout -k 5 "$HOSTILE_TIMEOUT" "$KMODTOP" "$@" >"$T/out" 2>"$T/err"
	TS_RC=$?
	return 0
}

# expect_run WHAT RC ERR: the exit code, stderr holding ERR ("-": empty, "*": anything),
# stderr escaped; never a hang, a signal or a sanitizer's report
expect_run() {
	what=$1 rc=$2 err=$3
	TS_CHECKS=$((TS_CHECKS + 1))
	if [ -n "${HOSTILE_PROBE:-}" ]; then
		printf '%s: rc=%s err=%s\n' "$what" "$TS_RC" "$(head -c 300 "$T/err" | head -3 | tr '\n\033' '|E')"
		return 0
	fi
	case $TS_RC in
	124 | 137) ts_fail "$what: still running after ${HOSTILE_TIMEOUT}s" ;;
	13[0-9] | 1[4-9][0-9] | 2[0-9][0-9]) ts_fail "$what: killed by signal $((TS_RC - 128))" ;;
	esac
	[ "$TS_RC" = "$rc" ] || { ts_fail "$what: exit status $TS_RC, expected $rc"; sed 's/^/  stderr: /' "$T/err" | head -3; }
	grep -E 'Sanitizer|runtime error:' "$T/err" >/dev/null && ts_fail "$what: sanitizer: $(grep -m1 -E 'Sanitizer|runtime error:' "$T/err")"
	case $err in
	'*') ;;
	-) [ -s "$T/err" ] && ts_fail "$what: unexpected stderr: $(head -c 300 "$T/err")" ;;
	*)
		rest=$err
		while [ -n "$rest" ]; do
			one=${rest%%' && '*}
			[ "$one" = "$rest" ] && rest= || rest=${rest#*' && '}
			grep -F -- "$one" "$T/err" >/dev/null ||
				ts_fail "$what: stderr lacks '$one': $(head -c 300 "$T/err")"
		done
		;;
	esac
	clean "$T/err" || ts_fail "$what: stderr not escaped: $(head -c 300 "$T/err" | od -c | head -5)"
}

# ci_run WHAT FILE RC ERR EXPR [ARGS]: ci in text (holding $CI_TEXT if set), then JSON
# with JUnit, SARIF, GitHub; EXPR over ci -j's d
ci_run() {
	what=$1 file=$2 rc=$3 err=$4 expr=$5
	shift 5
	if hrun "$@" ci --max-failures=0 "$file"; then
		expect_run "$what: ci" "$rc" "$err"
		clean "$T/out" || ts_fail "$what: ci text not escaped"
		if [ -n "${CI_TEXT:-}" ] && [ -z "${HOSTILE_PROBE:-}" ]; then
			grep -F -- "$CI_TEXT" "$T/out" >/dev/null || ts_fail "$what: ci text lacks '$CI_TEXT'"
		fi
	fi
	rm -f "$T/j.xml" "$T/s.sarif" "$T/g.txt"
	hrun "$@" ci -j --max-failures=0 --junit="$T/j.xml" --sarif="$T/s.sarif" --github="$T/g.txt" "$file" ||
		return 0
	expect_run "$what: ci -j" "$rc" "$err"
	if [ -n "${HOSTILE_PROBE:-}" ]; then
		py show "$T/out" 'F(d)'
		return
	fi
	py json "$T/out" "${expr:-True}" -- sarif "$T/s.sarif" -- github "$T/g.txt" ||
		ts_fail "$what: ci -j, SARIF or GitHub annotations"
	xmllint --noout "$T/j.xml" || ts_fail "$what: JUnit not well-formed"
}
