#!/bin/sh
# The boot capture's systemd units as make install writes them: systemd-analyze verify
# accepts them (skipped where systemd is not installed), the capture starts before
# udev and its settling unit stops it, and the command line they run is one kmodtop
# takes.
. "$TS_SRCDIR/lib/ts.sh"
ts_init units
U=$TS_TMP/units
mkdir -p "$U"
for f in kmodtop-boot kmodtop-boot-settled; do
	sed "s|@bindir@|$(dirname "$KMODTOP")|g" "$TS_SRCDIR/../systemd/$f.service.in" >"$U/$f.service"
done
# the options of its ExecStart= are kmodtop's (a wrong one is exit status 2 before --help)
exec_start=$(sed -n 's/^ExecStart=//p' "$U/kmodtop-boot.service")
set -- $exec_start
shift
ts_run "$@" --help
ts_expect_rc 0 "kmodtop-boot.service's command line: $exec_start"
grep -q '^Before=.*systemd-udevd.service' "$U/kmodtop-boot.service" || ts_fail "not before systemd-udevd"
grep -q '^DefaultDependencies=no' "$U/kmodtop-boot.service" || ts_fail "default dependencies would order it after sysinit"
grep -q '^ExecStart=/bin/systemctl stop kmodtop-boot.service' "$U/kmodtop-boot-settled.service" ||
	ts_fail "the settled unit does not stop the capture"
ts_ok
if command -v systemd-analyze >/dev/null; then
	ts_check "systemd-analyze verify" systemd-analyze verify --man=no "$U/kmodtop-boot.service" \
		"$U/kmodtop-boot-settled.service"
	# and it does look: a unit it must refuse
	sed 's/^Type=oneshot/Type=simple/' "$U/kmodtop-boot-settled.service" >"$TS_TMP/bad.service"
	systemd-analyze verify --man=no "$TS_TMP/bad.service" >/dev/null 2>&1 &&
		ts_fail "systemd-analyze verify accepts a simple service with three ExecStart="
	ts_ok
else
	echo "note: no systemd-analyze: the units are not verified"
fi
ts_finalize
