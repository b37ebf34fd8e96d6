#!/bin/sh
# "No write under --root, ever" (issue 9). Every command that reads a root runs over a
# read-only copy of each fixture. CI runs as root, for whom a read-only mode stops
# nothing, so a manifest of the copy (path, size, mtime and mode of every entry, and the
# sha256 of every file) taken before must equal the one taken after: a file written,
# created, removed or touched shows up, and so does one created and removed again (its
# directory's mtime).
. "$TS_SRCDIR/lib/ts.sh"
ts_init readonly
ts_need find sha256sum
# under make check-valgrind: the commands here are the ones report.sh, top.sh and ci.sh
# already run under valgrind; a write under the root is found without it, in 1/50 the time
[ -z "${KMODTOP_VALGRIND:-}" ] || ts_skip "no memory check of its own (run by make check)"
# the copies are read-only: make them removable again however the test ends
trap 'chmod -R u+w "$TS_TMP" 2>/dev/null; rm -rf "$TS_TMP"' EXIT

# manifest DIR: one line per entry, sorted
manifest() {
	(cd "$1" && find . -printf '%p %y %s %T@ %m\n' | LC_ALL=C sort &&
		find . -type f -exec sha256sum {} + | LC_ALL=C sort -k2)
}

# the module file cache goes outside the root, where it may be written
export XDG_CACHE_HOME="$TS_TMP/cache"

for fx in debian-6.1-plain debian-6.12-xz custom-6.12-modstats; do
	ro=$TS_TMP/ro/$fx
	mkdir -p "$TS_TMP/ro" || exit 99
	cp -a "$FIXTURES/$fx" "$ro" || exit 99
	chmod -R a-w "$ro" || exit 99
	manifest "$ro" >"$TS_TMP/before" || exit 99

	# each command: its arguments, then the exit statuses it may have
	while IFS='|' read -r args rcs; do
		eval "set -- $args"
		ts_run "$@"
		case " $rcs " in
		*" $TS_RC "*) ts_ok ;;
		*)
			ts_fail "$fx: kmodtop $args: exit status $TS_RC, expected one of $rcs"
			sed 's/^/  stderr: /' "$TS_TMP/err" | head -5
			;;
		esac
		manifest "$ro" >"$TS_TMP/after"
		if ! cmp -s "$TS_TMP/before" "$TS_TMP/after"; then
			ts_fail "$fx: kmodtop $args wrote under the root:"
			diff "$TS_TMP/before" "$TS_TMP/after" | head -10 | sed 's/^/  /'
			# one failure per change: the next command starts from what is there now
			cp "$TS_TMP/after" "$TS_TMP/before"
		fi
	done <<EOT
--root "\$ro"|0
--root "\$ro" report|0
--root "\$ro" report --no-cache|0
--root "\$ro" report -j|0
--root "\$ro" report -p --no-cache|0
--root "\$ro" top --batch --iterations 2 --size 120x40|0
--root "\$ro" top --batch --iterations 1 --size 80x24 --no-cache|0
top --replay "\$ro" --batch --speed 0 --size 120x40|0
top --replay "\$ro" --batch --iterations 3 --delay 20 --size 100x30 --no-cache|0
--root "\$ro" ci "\$ro/capture/dmesg.txt"|0 1
--root "\$ro" ci --json "\$ro/capture/dmesg.txt" "\$ro/sys/kernel/tracing/trace"|0 1
--root "\$ro" ci --max-duplicates=0 --max-failures=0 "\$ro/capture/kmsg.raw"|0 1
ci "\$ro/capture/dmesg.txt" "\$ro/sys/kernel/tracing/trace"|0 1
EOT
done

ts_finalize
