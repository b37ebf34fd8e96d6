#!/bin/sh
# kmodtop record's bundle directory: written as DIR.partial with capture/INCOMPLETE in
# it, renamed to DIR when complete. What can be checked without a kernel to record:
# the -o that cannot be had (not empty, not a directory, not writable, a DIR.partial
# left by an earlier run) is refused at once, naming the path, and nothing is left;
# and a report on an unfinished bundle says so.
. "$TS_SRCDIR/lib/ts.sh"
ts_init record

cd "$TS_TMP" || exit 99
mkdir full && echo keep >full/file || exit 99
touch afile || exit 99

# listing LABEL: what is in the test's directory, but the test's own files
listing() {
	(cd "$TS_TMP" && find . -path ./out -prune -o -path ./err -prune -o -print | LC_ALL=C sort)
}
before=$(listing)

# expect_refused WHAT PATH-IN-MESSAGE ARGS...: exit 1, the path named, nothing made
expect_refused() {
	what=$1 path=$2
	shift 2
	ts_run record --duration 1 "$@"
	ts_expect_rc 1 "$what"
	grep -F "'$path'" "$TS_TMP/err" >/dev/null ||
		ts_fail "$what: the message does not name '$path': $(head -2 "$TS_TMP/err")"
	[ "$(listing)" = "$before" ] || ts_fail "$what: files were made or removed"
}

expect_refused "-o into a directory that is not empty" full -o full
grep 'new or empty directory' "$TS_TMP/err" >/dev/null || ts_fail "not empty: no hint"
[ "$(cat full/file)" = keep ] || ts_fail "not empty: its file was touched"
expect_refused "-o a file" afile -o afile
expect_refused "-o under a file" afile/sub -o afile/sub
expect_refused "-o under a missing directory" missing/dir.partial -o missing/dir

# an earlier record that did not finish: its DIR.partial is left as it is
mkdir -p old.partial/capture && echo stopped >old.partial/capture/INCOMPLETE || exit 99
before=$(listing)
expect_refused "-o with a DIR.partial left" old.partial -o old
grep 'did not finish' "$TS_TMP/err" >/dev/null || ts_fail "DIR.partial left: no hint"
[ "$(cat old.partial/capture/INCOMPLETE)" = stopped ] || ts_fail "DIR.partial left: touched"

# a parent kmodtop cannot write in
if [ "$(id -u)" != 0 ]; then
	mkdir ro && chmod 555 ro || exit 99
	before=$(listing)
	expect_refused "-o in a read-only directory" ro/b.partial -o ro/b
	chmod 755 ro
else
	# root writes anywhere but where the file system refuses: procfs makes no directory
	expect_refused "-o where no directory can be made" "/proc/kmodtop-test-$$.partial" \
		-o "/proc/kmodtop-test-$$"
fi
before=$(listing)

# -o '' names no directory: refused, not the bundle ./.partial
before=$(listing)
ts_run record --duration 1 -o ''
ts_expect_rc 2 "record -o ''"
[ "$(listing)" = "$before" ] || ts_fail "record -o '' left files: $(listing)"

# a -o that can be had: without module support nothing is recorded and nothing left;
# with it, DIR is complete (no DIR.partial, no marker), whatever the trace could do
mkdir empty || exit 99
before=$(listing)
for dir in new empty/; do
	ts_run record --duration 1 -o "$dir"
	d=${dir%/}
	if [ ! -e /proc/modules ]; then
		ts_expect_rc 4 "record -o $dir without module support"
		[ "$(listing)" = "$before" ] || ts_fail "record -o $dir without module support left files"
		continue
	fi
	case $TS_RC in
	0 | 1) ts_ok ;;
	*) ts_fail "record -o $dir: exit status $TS_RC" ;;
	esac
	[ ! -e "$d.partial" ] || ts_fail "record -o $dir left $d.partial"
	if [ "$TS_RC" = 0 ]; then
		[ -f "$d/capture/record.txt" ] || ts_fail "record -o $dir: no capture/record.txt"
		[ ! -e "$d/capture/INCOMPLETE" ] || ts_fail "record -o $dir: complete, with the marker"
	fi
	rm -rf "$d"
	mkdir -p empty
done

# a bundle that was not finished: the report says so, and still reads what is there
cp -r "$FIXTURES/debian-6.1-plain" partial || exit 99
echo "This kmodtop bundle is incomplete" >partial/capture/INCOMPLETE
ts_run --root "$TS_TMP/partial" report
ts_expect_rc 0 "report on an unfinished bundle"
grep "did not finish" "$TS_TMP/err" >/dev/null || ts_fail "report on an unfinished bundle: no warning"
rm partial/capture/INCOMPLETE
ts_run --root "$TS_TMP/partial" report
[ -s "$TS_TMP/err" ] && ts_fail "report on a complete bundle warns: $(head -1 "$TS_TMP/err")"
ts_ok

ts_finalize
