#!/bin/sh
# The boot capture's systemd units as make install writes them: systemd-analyze verify
# accepts them (skipped where systemd is not installed), the capture starts before
# udev and tells systemd when it traces (Type=notify), its settling unit stops it
# without being bound to it (a stop would propagate to it and kill its systemctl),
# the bundle is moved to /var/lib/kmodtop by record, and the command line they run
# is one kmodtop takes. Each unit runs with what it needs only: systemd-analyze
# security rates it 5.0 or less (9.5 with no sandboxing), and the unit's comments
# say why each item it still counts is left open.
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
# udevd starts once record says READY=1, which only record itself may say
grep -q '^Type=notify$' "$U/kmodtop-boot.service" || ts_fail "not Type=notify"
grep -q '^NotifyAccess=main$' "$U/kmodtop-boot.service" || ts_fail "not NotifyAccess=main"
# stopped as Ctrl-C stops it: the bundle written, exit 0, the unit not failed
grep -q '^KillSignal=SIGINT$' "$U/kmodtop-boot.service" || ts_fail "not stopped by SIGINT"
case " $exec_start " in
*" -o /run/kmodtop/boot-%b "*"--move-to /var/lib/kmodtop "*) ;;
*) ts_fail "the bundle is not moved from /run to /var/lib/kmodtop: $exec_start" ;;
esac
# a dependency that propagates a stop from the recording to the unit that stops it
grep -E '^(Requires|Requisite|BindsTo|PartOf)=.*kmodtop-boot\.service' \
	"$U/kmodtop-boot-settled.service" && ts_fail "the settled unit is bound to the recording"
grep -q '^After=.*local-fs.target' "$U/kmodtop-boot-settled.service" ||
	ts_fail "the recording may be stopped before /var is mounted"
ts_ok
# --move-to is record's and asks for a directory
ts_run record --move-to ''
ts_expect_rc 2 "record --move-to ''"
ts_run record --print-setup --move-to "$TS_TMP/x"
ts_expect_rc 2 "record --print-setup --move-to"
if command -v systemd-analyze >/dev/null; then
	ts_check "systemd-analyze verify" systemd-analyze verify --man=no "$U/kmodtop-boot.service" \
		"$U/kmodtop-boot-settled.service"
	# and it does look: a unit it must refuse
	sed 's/^Type=oneshot/Type=simple/' "$U/kmodtop-boot-settled.service" >"$TS_TMP/bad.service"
	systemd-analyze verify --man=no "$TS_TMP/bad.service" >/dev/null 2>&1 &&
		ts_fail "systemd-analyze verify accepts a simple service with three ExecStart="
	ts_ok
	# --offline (systemd 250): the unit file as it is, not one loaded by a manager
	for unit in kmodtop-boot kmodtop-boot-settled; do
		if ! systemd-analyze security --offline=true "$U/$unit.service" >"$TS_TMP/sec" 2>&1; then
			echo "note: systemd-analyze security --offline not supported: exposure not checked"
			break
		fi
		level=$(sed -n "s/.*Overall exposure level for $unit.service: \([0-9.]*\).*/\1/p" "$TS_TMP/sec")
		[ -n "$level" ] || ts_fail "systemd-analyze security: no exposure level: $(tail -2 "$TS_TMP/sec")"
		awk -v l="${level:-99}" 'BEGIN { exit !(l <= 5.0) }' ||
			ts_fail "$unit.service: exposure $level, more than 5.0"
		# each item left open is named in a comment: "X=~Y" by Y (CAP_SYSLOG, @mount,
		# mnt), "X=" and "X=/Y=" by X=
		rm -f "$TS_TMP/unexplained"
		grep '^✗' "$TS_TMP/sec" | awk '{ print $2 }' | while read -r item; do
			case $item in
			*=~*) key=${item#*=~} ;;
			*) key=${item%%=*}= ;;
			esac
			grep '^#' "$U/$unit.service" | grep -qF -- "$key" ||
				echo "$item" >>"$TS_TMP/unexplained"
		done
		[ -s "$TS_TMP/unexplained" ] &&
			ts_fail "$unit.service: no comment on $(tr '\n' ' ' <"$TS_TMP/unexplained")"
		ts_ok
	done
else
	echo "note: no systemd-analyze: the units are not verified"
fi
ts_finalize
