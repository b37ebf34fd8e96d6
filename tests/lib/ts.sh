# Helpers for the CLI tests (util-linux ts style). Sourced by tests/cli/*.sh.
# Each test appends commands and their output to one file and diffs it with
# tests/expected/; UPDATE_EXPECTED=1 rewrites the expected files instead.
# Exit codes follow automake: 0 pass, 1 fail, 77 skip, 99 hard error.

set -u

: "${KMODTOP:?KMODTOP must point to the kmodtop binary}"
: "${TS_SRCDIR:?TS_SRCDIR must point to the tests/ source directory}"
TS_BUILDDIR=${TS_BUILDDIR:-$PWD}
FIXTURES=$TS_SRCDIR/fixtures
# the report fits $COLUMNS when it is set: the expected text has no width limit
unset COLUMNS
TS_FAILED=0
TS_CHECKS=0

# The Python modules the tests need come from Debian's packages (python3-jsonschema,
# python3-prometheus-client), which only the system's interpreter has: one earlier in
# PATH (pyenv, a venv) would skip the test
if [ -x /usr/bin/python3 ]; then
	python3() { /usr/bin/python3 "$@"; }
fi

ts_init() {
	TS_NAME=$1
	TS_OUTDIR=$TS_BUILDDIR/output/$TS_NAME
	rm -rf "$TS_OUTDIR"
	mkdir -p "$TS_OUTDIR" || exit 99
	TS_TMP=$(mktemp -d "${TMPDIR:-/tmp}/kmodtop-$TS_NAME.XXXXXX") || exit 99
	trap 'rm -rf "$TS_TMP"' EXIT
}

ts_skip() {
	echo "SKIP: $*"
	exit 77
}

ts_need() {
	for p in "$@"; do
		command -v "$p" >/dev/null 2>&1 || ts_skip "$p not installed"
	done
}

# ts_need_py MODULE DEBIAN-PACKAGE: python3 can import MODULE, else the test is skipped
ts_need_py() {
	python3 -c "import $1" 2>/dev/null || ts_skip "python3 module $1 not installed ($2)"
}

ts_fail() {
	echo "FAIL: $*"
	TS_FAILED=$((TS_FAILED + 1))
}

ts_ok() {
	TS_CHECKS=$((TS_CHECKS + 1))
}

# ts_check DESCRIPTION COMMAND...: the command must succeed
ts_check() {
	local what=$1
	shift
	TS_CHECKS=$((TS_CHECKS + 1))
	if ! "$@"; then
		ts_fail "$what"
		return 1
	fi
	return 0
}

# ts_expect_rc RC DESCRIPTION -- ARGS...: runs kmodtop, stdout/stderr into $TS_TMP/out, err
ts_run() {
	"$KMODTOP" "$@" >"$TS_TMP/out" 2>"$TS_TMP/err"
	TS_RC=$?
	return 0
}

ts_expect_rc() {
	local want=$1 what=$2
	TS_CHECKS=$((TS_CHECKS + 1))
	if [ "$TS_RC" != "$want" ]; then
		ts_fail "$what: exit status $TS_RC, expected $want"
		sed 's/^/  stderr: /' "$TS_TMP/err" | head -5
		return 1
	fi
	return 0
}

# ts_golden NAME ARGS...: output of kmodtop ARGS must equal tests/expected/NAME
ts_golden() {
	local name=$1
	shift
	local exp=$TS_SRCDIR/expected/$name got=$TS_OUTDIR/$(echo "$name" | tr / _)
	TS_CHECKS=$((TS_CHECKS + 1))
	(cd "$TS_SRCDIR" && "$KMODTOP" "$@") >"$got" 2>"$got.err"
	local rc=$?
	if [ "$rc" != 0 ]; then
		ts_fail "$name: kmodtop $* exited $rc"
		sed 's/^/  stderr: /' "$got.err" | head -5
		return 1
	fi
	if [ -s "$got.err" ]; then
		ts_fail "$name: unexpected stderr"
		sed 's/^/  stderr: /' "$got.err" | head -5
	fi
	if [ "${UPDATE_EXPECTED:-0}" = 1 ]; then
		mkdir -p "$(dirname "$exp")"
		cp "$got" "$exp"
		return 0
	fi
	if ! diff -u "$exp" "$got"; then
		ts_fail "$name: output differs from tests/expected/$name (UPDATE_EXPECTED=1 to accept)"
		return 1
	fi
	return 0
}

ts_finalize() {
	if [ "$TS_FAILED" -gt 0 ]; then
		echo "$TS_NAME: $TS_FAILED of $TS_CHECKS checks failed"
		exit 1
	fi
	echo "$TS_NAME: $TS_CHECKS checks passed"
	exit 0
}
