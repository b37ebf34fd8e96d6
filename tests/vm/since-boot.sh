#!/bin/sh
# tests/vm/since-boot.sh OUTDIR — run in the guest by /init (as root): kmodtop
# "report --duration 1 --since-boot -j", then the same without --since-boot, between
# two copies of every /dev/kmsg record the kernel holds (kmsg-before.raw,
# kmsg-after.raw, by the workload, which shares no code with kmodtop). check-run.py
# (check_since_boot): the first reads every record held before it started, the second
# only what came during its second.
out=$1
mkdir -p "$out"
/bin/workload -K $out/kmsg-before.raw
/bin/kmodtop report --duration 1 --since-boot -j >$out/since-boot.out 2>$out/since-boot.err
echo $? >$out/since-boot.rc
/bin/kmodtop report --duration 1 -j >$out/from-now.out 2>$out/from-now.err
echo $? >$out/from-now.rc
/bin/workload -K $out/kmsg-after.raw
