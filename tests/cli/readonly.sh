#!/bin/sh
# "No write under --root, ever" (issue 9). Every command that reads a root runs over a
# read-only copy of each fixture. CI runs as root, for whom a read-only mode stops
# nothing: there, when unshare(1) can make a mount namespace, each command runs in one
# where the copy is bind-mounted read-only over itself, so any write fails (EROFS) as it
# happens; elsewhere the copy is chmod a-w. Either way a manifest of the copy (path,
# size, mtime and mode of every entry, and the sha256 of every file) taken before must
# equal the one taken after: a file written, created, removed or touched shows up, and
# so does one created and removed again (its directory's mtime).
. "$TS_SRCDIR/lib/ts.sh"
ts_init readonly
ts_need find sha256sum
# under make check-valgrind each command runs under valgrind for one fixture of the
# three (rotating) and natively for the others: 13 memory-checked runs, not 39 (56 s)
# the copies are read-only: make them removable again however the test ends
trap 'chmod -R u+w "$TS_TMP" 2>/dev/null; rm -rf "$TS_TMP"' EXIT

# manifest DIR: one line per entry, sorted
manifest() {
	(cd "$1" && find . -printf '%p %y %s %T@ %m\n' | LC_ALL=C sort &&
		find . -type f -exec sha256sum {} + | LC_ALL=C sort -k2)
}

# the module file cache goes outside the root, where it may be written
export XDG_CACHE_HOME="$TS_TMP/cache"

# ro_exec DIR CMD...: CMD in a mount namespace of its own, DIR read-only in it
ro_exec() {
	unshare -m --propagation private sh -c \
		'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" && shift && exec "$@"' \
		sh "$@"
}
# the bind mount when it works here (root, unshare and mount allowed): a write in the
# read-only copy must fail with EROFS
probe=$TS_TMP/probe
mkdir -p "$probe" || exit 99
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null 2>&1 &&
	ro_exec "$probe" sh -c '! touch "$1/w" 2>/dev/null' sh "$probe" 2>/dev/null &&
	[ ! -e "$probe/w" ]; then
	ro=mount
	echo "the copies are read-only bind mounts (unshare -m): a write fails with EROFS"
else
	ro=chmod
	echo "the copies are chmod a-w (not root, or no unshare -m): writes are found by the manifest only"
fi

fxn=0
for fx in debian-6.1-plain debian-6.12-xz custom-6.12-modstats; do
	fxn=$((fxn + 1)) cmdn=0
	ro_dir=$TS_TMP/ro/$fx
	mkdir -p "$TS_TMP/ro" || exit 99
	cp -a "$FIXTURES/$fx" "$ro_dir" || exit 99
	chmod -R a-w "$ro_dir" || exit 99
	manifest "$ro_dir" >"$TS_TMP/before" || exit 99

	# each command: its arguments, then the exit statuses it may have
	while IFS='|' read -r args rcs; do
		eval "set -- $args"
		cmdn=$((cmdn + 1))
		bin=$KMODTOP
		[ -n "${KMODTOP_VALGRIND:-}" ] && [ -n "${KMODTOP_NATIVE:-}" ] &&
			[ $(((cmdn + fxn) % 3)) != 0 ] && bin=$KMODTOP_NATIVE
		if [ "$ro" = mount ]; then
			ro_exec "$ro_dir" "$bin" "$@" >"$TS_TMP/out" 2>"$TS_TMP/err"
		else
			"$bin" "$@" >"$TS_TMP/out" 2>"$TS_TMP/err"
		fi
		TS_RC=$?
		# a write tried and refused is no less a write, even when the command goes on
		if grep -q 'Read-only file system' "$TS_TMP/err"; then
			ts_fail "$fx: kmodtop $args tried to write: $(grep -m1 'Read-only file system' "$TS_TMP/err")"
		fi
		case " $rcs " in
		*" $TS_RC "*) ts_ok ;;
		*)
			ts_fail "$fx: kmodtop $args: exit status $TS_RC, expected one of $rcs"
			sed 's/^/  stderr: /' "$TS_TMP/err" | head -5
			;;
		esac
		manifest "$ro_dir" >"$TS_TMP/after"
		if ! cmp -s "$TS_TMP/before" "$TS_TMP/after"; then
			ts_fail "$fx: kmodtop $args wrote under the root:"
			diff "$TS_TMP/before" "$TS_TMP/after" | head -10 | sed 's/^/  /'
			# one failure per change: the next command starts from what is there now
			cp "$TS_TMP/after" "$TS_TMP/before"
		fi
	done <<EOT
--root "\$ro_dir"|0
--root "\$ro_dir" report|0
--root "\$ro_dir" report --no-cache|0
--root "\$ro_dir" report -j|0
--root "\$ro_dir" report -p --no-cache|0
--root "\$ro_dir" top --batch --iterations 2 --size 120x40|0
--root "\$ro_dir" top --batch --iterations 1 --size 80x24 --no-cache|0
top --replay "\$ro_dir" --batch --speed 0 --size 120x40|0
top --replay "\$ro_dir" --batch --iterations 3 --delay 20 --size 100x30 --no-cache|0
--root "\$ro_dir" ci "\$ro_dir/capture/dmesg.txt"|0 1
--root "\$ro_dir" ci --json "\$ro_dir/capture/dmesg.txt" "\$ro_dir/sys/kernel/tracing/trace"|0 1
--root "\$ro_dir" ci --max-duplicates=0 --max-failures=0 "\$ro_dir/capture/kmsg.raw"|0 1
ci "\$ro_dir/capture/dmesg.txt" "\$ro_dir/sys/kernel/tracing/trace"|0 1
EOT
done

ts_finalize
