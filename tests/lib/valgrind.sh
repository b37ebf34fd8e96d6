#!/bin/sh
# make check-valgrind's log compiler: runs one test (a unit test program or a CLI test
# script) with every kmodtop it starts under valgrind memcheck. Each process writes its
# own log; any error or definite, indirect or possible leak in any of them fails the test, also from
# a kmodtop whose exit status the test does not look at (a pipe, a tmux pane).
set -u
: "${KMODTOP:?KMODTOP must point to the kmodtop binary}"
test=$1
shift
logs=$(mktemp -d "${TMPDIR:-/tmp}/kmodtop-vg.XXXXXX") || exit 99
trap 'rm -rf "$logs"' EXIT
# "possibly lost" counts too: a block reached only through a pointer into it is
# leaked as surely, unless the pointer is kept on purpose; ncurses' caches, the one such
# case, are suppressed in valgrind.supp
here=$(cd "$(dirname "$0")" && pwd)
# a forked child that does not exec (util/trial.c's trial read of a trace.dat, which
# its parent then does again under valgrind's eyes) ends in _exit(), leaving its heap
vg="valgrind -q --child-silent-after-fork=yes --leak-check=full --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible --suppressions=$here/valgrind.supp --error-exitcode=99"
# a wrapper in place of the binary: the tests run it as $KMODTOP, tmux panes too; the
# binary itself stays at hand as $KMODTOP_NATIVE (tests/cli/readonly.sh runs most of
# its commands natively)
cat >"$logs/kmodtop" <<EOW
#!/bin/sh
exec $vg --log-file='$logs/vg.%p' '$KMODTOP' "\$@"
EOW
chmod +x "$logs/kmodtop" || exit 99
case $test in
*.sh)
	native=$KMODTOP
	KMODTOP=$logs/kmodtop KMODTOP_NATIVE=$native KMODTOP_VALGRIND=1 ${SHELL:-/bin/sh} "$test" "$@"
	rc=$?
	;;
*)
	KMODTOP_VALGRIND=1 $vg --log-file="$logs/vg.%p" "$test" "$@"
	rc=$?
	;;
esac
for f in "$logs"/vg.*; do
	[ -e "$f" ] || continue
	# valgrind before 3.20 does not know openat2() (437): kmodtop gets ENOSYS and walks
	# a root by hand, as on kernels before 5.6; that note is no error
	sed -i '/WARNING: unhandled [a-z0-9_]*-linux syscall: 437$/,/valgrind.org\/support\/bug_reports.html\.$/d' "$f"
	[ -s "$f" ] || continue
	echo "valgrind found errors (process ${f##*.}):"
	cat "$f"
	[ "$rc" = 0 ] || [ "$rc" = 77 ] && rc=1
done
exit "$rc"
