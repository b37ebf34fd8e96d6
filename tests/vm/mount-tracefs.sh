#!/bin/sh
# tests/vm/mount-tracefs.sh OUTDIR — run in the guest by /init (as root): kmodtop
# "report --duration 1" in a mount namespace without tracefs or debugfs, where it must
# mount tracefs itself (in a namespace of its own) and leave no mount behind.
# Leaves out/err/rc and mounts-{before,after}.txt in OUTDIR (check_nonroot.py).
out=$1
mkdir -p "$out"
unshare -m sh -c '
	umount -l /sys/kernel/tracing 2>/dev/null
	umount -l /sys/kernel/debug 2>/dev/null
	grep -E " (tracefs|debugfs) " /proc/self/mounts >'"$out"'/mounts-before.txt
	/bin/kmodtop report --duration 1 -j >'"$out"'/out 2>'"$out"'/err
	echo $? >'"$out"'/rc
	grep -E " (tracefs|debugfs) " /proc/self/mounts >'"$out"'/mounts-after.txt
'
