#!/bin/sh
# tests/vm/bundle-names.sh OUTDIR — run in the guest by /init (as root, after the
# global trace and the log are captured): "kmodtop record" while busybox's insmod loads
# a module that is already Live (the smallest one the tree has a file for; vfat is
# loaded first when none is). busybox tries finit_module (EEXIST, or ENOEXEC for a
# compressed file), then init_module with the file's bytes, decompressed (EEXIST): no
# module_load, no log line naming it, no request. Only init_module's length names it,
# against every file of the tree. The bundle must hold that file, so that the report
# on it, which knows only the files it holds, names the attempt alike. check-run.py
# (check_bundle_names) reads OUTDIR.
out=$1
T=/sys/kernel/tracing
[ -e $T/trace ] || T=/sys/kernel/debug/tracing
mkdir -p "$out"
. /etc/kmt-live-ready.sh

live_file() {
	sort -n -k 2 /proc/modules | while read -r name rest; do
		f=$(modinfo -F filename "$name" 2>/dev/null)
		case $f in /*) echo "$name $f"; return ;; esac
	done
}
m=$(live_file)
[ -n "$m" ] || { modprobe vfat; m=$(live_file); }
/bin/kmodtop record -o $out/bundle >$out/record.out 2>$out/record.err &
p=$!
live_ready $p
/usr/lib/kmt-busybox/insmod ${m#* } 2>$out/insmod.err
echo "module ${m%% *} file ${m#* } rc $?" >$out/insmod.txt
kill -INT $p
wait $p
echo $? >$out/record.rc
echo "left_instances=$(ls $T/instances | grep -c '^kmodtop-')" >>$out/insmod.txt
