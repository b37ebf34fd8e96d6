#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/boot-time.sh — what the boot capture costs a real boot: Debian 12 (systemd,
# udev, Debian's kernel) in the test bed's image (tests/vm/userspace/), booted with the
# words of `kmodtop boot-setup --cmdline`, with the kmodtop units alone, and with
# neither; systemd-analyze's kernel, initrd, userspace and total times, when
# graphical.target was reached, and (units) how long systemd held udevd back for
# kmodtop-boot.service's READY=1, the median of N boots of each (default 5), the three
# kinds interleaved so that a change in the host's load spreads over all of them.
# "total" ends with the boot's last start job: under the units that is
# kmodtop-boot-settled.service, a oneshot that lasts until udev has settled and the
# bundle is written and moved, so it measures the capture's length as much as its cost;
# "target" is when the system is up.
#
#	bench/boot-time.sh [-k 6.12|6.1] [-n N]
#
# VM_LOCK=FILE: each boot under `flock FILE` (only one VM at a time on a shared machine).
# No truth words (VM_TRUTH=0): the boots are as a user has them. The guest is emulated
# (TCG, -smp 4 unless VM_SMP says otherwise): the absolute times are the emulator's,
# the differences between the three kinds are what counts. Results in
# $VM_BUILDDIR/userspace/RELEASE/boot-time.txt and on stdout. Not part of any check.
# Exit status: 0, 77 when the test bed cannot run, 1 when a boot gave no time.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
export VM_BUILDDIR=${VM_BUILDDIR:-$top/build-vm}
kernel=6.12
n=5
while getopts k:n: o; do
	case $o in
	k) kernel=$OPTARG ;;
	n) n=$OPTARG ;;
	*) echo "usage: $0 [-k KERNEL] [-n N]" >&2; exit 2 ;;
	esac
done
run=$top/tests/vm/userspace/run.sh

res=$(mktemp)
trap 'rm -f "$res"' EXIT
for i in $(seq 1 "$n"); do
	for mode in words units none; do
		rc=0
		# VM_LOCK: a lock file taken for each boot alone, so that other users of the
		# machine's VMs take turns with this one between boots
		VM_TRUTH=0 VM_CHECK=0 VM_QUIET=1 ${VM_LOCK:+flock "$VM_LOCK"} \
			"$run" -k "$kernel" -n "bench$i" "$mode" >&2 || rc=$?
		[ $rc -eq 77 ] && exit 77
		dir=$(ls -d "$VM_BUILDDIR"/userspace/*/"bench$i-$mode" 2>/dev/null | tail -1)
		# "Startup finished in 2.1s (kernel) + 5.0s (initrd) + 30.2s (userspace) = 37.3s"
		# "graphical.target reached after 20.1s in userspace"; and from the journal, how
		# long systemd waited for kmodtop-boot.service's READY=1 (units only)
		line=$(python3 - "$dir/out/analyze-time.txt" "$dir/out/journal.txt" <<'PY'
import re, sys
try:
    t = open(sys.argv[1]).read()
except OSError:
    sys.exit(1)
def sec(v):
    s = 0.0
    for num, unit in re.findall(r"([\d.]+)(min|ms|s)", v):
        s += float(num) * {"min": 60, "s": 1, "ms": 0.001}[unit]
    return s
first = t.strip().splitlines()[0] if t.strip() else ""
parts = dict((k, sec(v)) for v, k in re.findall(r"([\d.a-z ]+?) \((kernel|initrd|userspace)\)", first))
m = re.search(r"= ([\d.a-z ]+)$", first.strip())
if not m or "userspace" not in parts:
    sys.exit(1)
g = re.search(r"reached after ([\d.a-z ]+?) in userspace", t)
ready = -1.0
try:
    start = up = None
    for ln in open(sys.argv[2], errors="replace"):
        ts = re.match(r"\[\s*([\d.]+)\]", ln)
        if not ts or "kmodtop-boot.service - " not in ln:
            continue
        if " Starting kmodtop-boot.service" in ln and start is None:
            start = float(ts.group(1))
        elif " Started kmodtop-boot.service" in ln and up is None:
            up = float(ts.group(1))
    if start is not None and up is not None:
        ready = up - start
except OSError:
    pass
print("%.3f %.3f %.3f %.3f %.3f %.3f" % (parts.get("kernel", 0), parts.get("initrd", 0),
      parts["userspace"], sec(m.group(1)), sec(g.group(1)) if g else -1, ready))
PY
) || { echo "boot-time: $mode boot $i gave no time: $(head -1 "$dir/out/analyze-time.txt" 2>/dev/null)" >&2; exit 1; }
		echo "$mode $line" >>"$res"
		echo "boot-time: $mode boot $i: kernel initrd userspace total target ready = $line" >&2
	done
done
out=$(ls -d "$VM_BUILDDIR"/userspace/*/ | tail -1)boot-time.txt
python3 - "$res" "$n" <<'EOF' | tee "$out"
import statistics, sys
rows = {}
for ln in open(sys.argv[1]):
    p = ln.split()
    rows.setdefault(p[0], []).append([float(x) for x in p[1:]])
print('boot time, median of %s boots each (systemd-analyze time, seconds)' % sys.argv[2])
print('target: graphical.target reached, in userspace; ready: kmodtop-boot.service from')
print('starting to READY=1 (what udevd waited for); total: the last start job of the boot done')
print('%-6s %8s %8s %10s %8s %8s %8s' % ('', 'kernel', 'initrd', 'userspace', 'total',
                                         'target', 'ready'))
base = None
for mode in ('none', 'units', 'words'):
    v = rows.get(mode) or []
    if not v:
        continue
    med = [statistics.median(c) for c in zip(*v)]
    if mode == 'none':
        base = med
    extra = '' if base is None or mode == 'none' else \
        '  (%+.1f s total, %+.1f s target against none)' % (med[3] - base[3], med[4] - base[4])
    ready = '%8.2f' % med[5] if med[5] >= 0 else '%8s' % '-'
    print('%-6s %8.2f %8.2f %10.2f %8.2f %8.2f %s%s' % (mode, med[0], med[1], med[2], med[3],
                                                      med[4], ready, extra))
EOF
