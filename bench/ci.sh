#!/bin/bash
# kmodtop ci over ~1 GiB console logs, against `grep -c module` over the same file in
# the same run, and over compressed logs against `xz -dc | grep -c module` (`zstd -dc`)
# (issue 20: wall time <= 0.5x grep's on the plain logs, <= 1.0x the decompressing
# pipeline's on compressed ones; max RSS <= 32 MiB everywhere).
#
# Two logs, what a CI job keeps of boots: the captures' real kernel logs
# (tests/fixtures/*/capture/dmesg.txt, each starting with its "Linux version" banner, so
# the file holds many boots),
#   sparse  with 19 lines of ordinary console output per kernel line (systemd status
#           lines, a CI runner's output, test results, kernel lines that are no
#           finding): the kernel log is 5% of the file
#   dense   the kernel logs alone: 11 of 16 lines are findings (failed loads)
# and the first COMP_MB of each, compressed with xz -6 and with zstd -3.
#
#   bench/ci.sh [KMODTOP]        default: ./src/kmodtop of the build tree
#   BENCH_DIR=...  SIZE_MB=1024  COMP_MB=256  RUNS=5  bench/ci.sh
#   CASES="sparse dense sparse.xz sparse.zst dense.xz dense.zst"  (the default: all)
#
# The data goes to $BENCH_DIR (default: ${TMPDIR:-/tmp}/kmodtop-bench, outside the
# tree, so there is nothing to commit by mistake); it is reused while its parameters
# match. Needs python3 (to generate and to time), GNU time (/usr/bin/time), xz, zstd.
#
# The two commands of a case run in turn, peer first on even rounds and kmodtop first on
# odd ones, after one warm-up run each: a shared, noisy machine slows both alike, and the
# ratio of their medians holds where either median alone moves by a third between runs.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
KMODTOP=${1:-$PWD/src/kmodtop}
BENCH_DIR=${BENCH_DIR:-${TMPDIR:-/tmp}/kmodtop-bench}
SIZE_MB=${SIZE_MB:-1024}
COMP_MB=${COMP_MB:-256}
RUNS=${RUNS:-5}
CASES=${CASES:-sparse dense sparse.xz sparse.zst dense.xz dense.zst}

[ -x "$KMODTOP" ] || { echo "bench/ci.sh: no kmodtop at '$KMODTOP' (build first)" >&2; exit 2; }
for p in python3 /usr/bin/time grep xz zstd; do
	command -v "$p" >/dev/null 2>&1 || { echo "bench/ci.sh: needs $p" >&2; exit 2; }
done
mkdir -p "$BENCH_DIR"

# generate LOG NOISE: kernel logs with NOISE lines of other output per kernel line
generate() {
	local log=$1 NOISE=$2
	[ -s "$log" ] && return
	echo "generating $log ..."
	python3 - "$log" "$SIZE_MB" "$NOISE" "$src/tests/fixtures" <<'EOF'
import os, random, sys

out, size_mb, noise, fixtures = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
random.seed(8)
logs = []
for d in sorted(os.listdir(fixtures)):
    p = os.path.join(fixtures, d, "capture", "dmesg.txt")
    if os.path.exists(p):
        logs.append(open(p, "rb").read().splitlines(keepends=True))
units = ["systemd-udevd", "networking", "ssh", "cron", "getty@tty1", "rsyslog", "docker",
         "containerd", "chrony", "systemd-journald", "modprobe@drm", "modprobe@loop"]
words = ("build test unit check compile link install fetch clone archive upload cache "
         "restore step job runner artifact report result pass fail skip retry").split()
def noise_line(t):
    k = random.randrange(10)
    u = random.choice(units)
    if k == 0:
        return "[  OK  ] Started %s.service - %s daemon.\n" % (u, u.title())
    if k == 1:
        return "         Starting %s.service - %s...\n" % (u, u.title())
    if k == 2:
        return "%s ##[group]Run make -j%d %s\n" % (t, random.randrange(1, 64), random.choice(words))
    if k == 3:
        return "PASS: tests/%s/test-%s %d - %s %s\n" % (random.choice(words), random.choice(words),
                random.randrange(1000), random.choice(words), random.choice(words))
    if k == 4:
        return "[%12.6f] e1000e 0000:00:%02x.0 eth0: NIC Link is Up 1000 Mbps Full Duplex, Flow Control: Rx/Tx\n" % (
                random.random() * 1000, random.randrange(32))
    if k == 5:
        return "[%12.6f] EXT4-fs (vda%d): mounted filesystem %08x-%04x r/w with ordered data mode.\n" % (
                random.random() * 1000, random.randrange(1, 9), random.getrandbits(32), random.getrandbits(16))
    if k == 6:
        return "%s: %s %s in %d.%03ds (%d files)\n" % (random.choice(words), random.choice(words),
                random.choice(words), random.randrange(100), random.randrange(1000), random.randrange(5000))
    if k == 7:
        return "%s.service: Deactivated successfully.\n" % u
    if k == 8:
        return "root@ci-%04d:~# ./run-tests.sh --shard %d/%d\n" % (random.randrange(10000),
                random.randrange(64), 64)
    return "%s ci-agent: uploading %d artifacts (%d KiB) to %s\n" % (t, random.randrange(100),
            random.randrange(100000), random.choice(words))

limit = size_mb << 20
n = 0
i = 0
with open(out + ".tmp", "w", encoding="utf-8", errors="surrogateescape") as f:
    while n < limit:
        fx = logs[i % len(logs)]
        i += 1
        for line in fx:
            s = line.decode("utf-8", "surrogateescape")
            f.write(s)
            n += len(line)
            for _ in range(noise):
                t = "2026-12-02T13:%02d:%02d.%07dZ" % (random.randrange(60), random.randrange(60),
                                                        random.randrange(10**7))
                s = noise_line(t)
                f.write(s)
                n += len(s)
os.rename(out + ".tmp", out)
EOF
}

# compressed LOG EXT: the name of the first COMP_MB of LOG, compressed
compressed() {
	local log=$1 ext=$2 out=${1%.log}-first${COMP_MB}M.log.$2
	if [ ! -s "$out" ]; then
		echo "compressing $out ..." >&2
		case $ext in
		xz) head -c $((COMP_MB << 20)) "$log" | xz -T0 -6 -c >"$out.tmp" ;;
		zst) head -c $((COMP_MB << 20)) "$log" | zstd -q -T0 -3 -c >"$out.tmp" ;;
		*) echo "bench/ci.sh: unknown compression '$ext'" >&2; exit 2 ;;
		esac
		mv "$out.tmp" "$out"
	fi
	echo "$out"
}

echo "host: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
json=$BENCH_DIR/timings.json
out=$BENCH_DIR/out
results=$BENCH_DIR/results.txt
: >"$results"
rss_of() {
	/usr/bin/time -v "$@" >"$out.time-stdout" 2>"$BENCH_DIR/time.txt" || true
	sed -n 's/.*Maximum resident set size (kbytes): //p' "$BENCH_DIR/time.txt"
}
for c in $CASES; do
	base=${c%%.*}
	ext=${c#"$base"}
	ext=${ext#.}
	case $base in
	sparse) noise=19 ;;
	dense) noise=0 ;;
	*) echo "bench/ci.sh: unknown case '$c'" >&2; exit 2 ;;
	esac
	log=$BENCH_DIR/console-${SIZE_MB}M-noise$noise.log
	generate "$log" "$noise"
	if [ -z "$ext" ]; then
		input=$log
		peer="grep -c module"
		peer_cmd="grep -c module '$input' >'$out.peer'"
		target=0.5
	else
		input=$(compressed "$log" "$ext")
		dc=$([ "$ext" = xz ] && echo "xz -dc" || echo "zstd -dc")
		peer="$dc | grep -c module"
		peer_cmd="$dc '$input' | grep -c module >'$out.peer'"
		target=1.0
	fi
	echo "== $c: $input, $(($(stat -c %s "$input") >> 20)) MiB"
	# warm the page cache; both commands read the same cached file. Their output goes
	# to a file: GNU grep stops at the first match when its output is /dev/null. The
	# compressed logs end inside a line: kmodtop's warning about it goes to a file too.
	cat "$input" >/dev/null
	python3 - "$RUNS" "$json" "$peer" "$peer_cmd" "kmodtop ci" \
		"'$KMODTOP' ci '$input' >'$out.ci' 2>'$out.ci-stderr'" <<'EOF'
import json, resource, statistics, subprocess, sys, time

runs, out = int(sys.argv[1]), sys.argv[2]
names, cmds = sys.argv[3::2], sys.argv[4::2]

def run(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    rc = subprocess.run(["bash", "-c", cmd]).returncode
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if rc != 0:
        sys.exit("bench/ci.sh: '%s' exited with %d" % (cmd, rc))
    return wall, after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime

for c in cmds:
    run(c)
res = [[] for _ in cmds]
for i in range(runs):
    for k in (range(len(cmds)) if i % 2 == 0 else reversed(range(len(cmds)))):
        res[k].append(run(cmds[k]))
med = statistics.median
results = []
for name, r in zip(names, res):
    wall = [x[0] for x in r]
    results.append({"command": name, "median": med(wall), "min": min(wall), "max": max(wall),
                    "user": med([x[1] for x in r]), "system": med([x[2] for x in r])})
    print("  %-28s median %.3f s (min %.3f, max %.3f; user %.3f, system %.3f) over %d runs" %
          (name, results[-1]["median"], min(wall), max(wall), results[-1]["user"],
           results[-1]["system"], len(r)))
json.dump({"results": results}, open(out, "w"))
EOF
	rss=$(rss_of "$KMODTOP" ci "$input")
	echo "found: $(grep -E '^  (boots|findings|evidence|failures|duplicates) ' "$out.ci" | tr -s ' ' | tr '\n' ';')"
	# a kmodtop that did not run (or read nothing) is fast and small: no result, not a pass
	ran=1
	grep -qE '^  boots +[1-9]' "$out.ci" ||
		{ echo "bench/ci.sh: $c: kmodtop ci found no boot in '$input': it did not run"; ran=0; }
	[ "${rss:-0}" -gt 0 ] 2>/dev/null || { echo "bench/ci.sh: $c: no RSS measured"; ran=0; }
	python3 - "$json" "$c" "$target" "${rss:-0}" "$ran" >>"$results" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
p, k = r[0]["median"], r[1]["median"]
print("%s\t%s\t%.3f\t%.3f\t%.2f\t%s\t%.1f\t%s" % (sys.argv[2], r[0]["command"], p, k,
                                                k / p if p > 0 else 0, sys.argv[3],
                                                int(sys.argv[4]) / 1024, sys.argv[5]))
EOF
	echo
done

python3 - "$results" <<'EOF'
import sys
ok = True
print("%-11s %-26s %9s %11s %6s %7s %8s" % ("case", "peer", "peer (s)", "kmodtop (s)", "ratio",
                                           "target", "RSS MiB"))
n = 0
for line in open(sys.argv[1]):
    c, peer, p, k, ratio, target, rss, ran = line.rstrip("\n").split("\t")
    n += 1
    # no output, no RSS or no time: kmodtop did not run, whatever the ratio says
    ran = ran == "1" and float(k) > 0 and float(p) > 0
    met = ran and float(ratio) <= float(target) and float(rss) <= 32
    ok = ok and met
    print("%-11s %-26s %9s %11s %6s %7s %8s  %s" % (c, peer, p, k, ratio, "<= " + target, rss,
                                                    "met" if met else
                                                    "NOT met" if ran else "NOT met (did not run)"))
ok = ok and n > 0
print("targets: " + ("met" if ok else "NOT met"))
sys.exit(0 if ok else 1)
EOF
