#!/bin/bash
# kmodtop ci over a ~1 GiB console log, against `grep -c module` over the same file in
# the same run (issue 8: wall time <= 1.5x grep's, max RSS <= 32 MiB).
#
# The log is what a CI job keeps of a boot: the captures' real kernel logs
# (tests/fixtures/*/capture/dmesg.txt, each starting with its "Linux version" banner, so
# the file holds many boots), with ordinary console output between them: systemd
# status lines, a CI runner's output, test results, kernel lines that are no finding.
# NOISE lines of that per fixture line (default 19: the kernel log is 5% of the file).
#
#   bench/ci.sh [KMODTOP]        default: ./src/kmodtop of the build tree
#   BENCH_DIR=...  SIZE_MB=1024  NOISE=19  RUNS=5  bench/ci.sh
#
# The data goes to $BENCH_DIR (default: ${TMPDIR:-/tmp}/kmodtop-bench, outside the
# tree, so there is nothing to commit by mistake); it is reused while its parameters
# match. Needs python3 (to generate), hyperfine and GNU time (/usr/bin/time).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
KMODTOP=${1:-$PWD/src/kmodtop}
BENCH_DIR=${BENCH_DIR:-${TMPDIR:-/tmp}/kmodtop-bench}
SIZE_MB=${SIZE_MB:-1024}
NOISE=${NOISE:-19}
RUNS=${RUNS:-5}

[ -x "$KMODTOP" ] || { echo "bench/ci.sh: no kmodtop at '$KMODTOP' (build first)" >&2; exit 2; }
for p in python3 hyperfine /usr/bin/time grep; do
	command -v "$p" >/dev/null 2>&1 || { echo "bench/ci.sh: needs $p" >&2; exit 2; }
done

mkdir -p "$BENCH_DIR"
log=$BENCH_DIR/console-${SIZE_MB}M-noise$NOISE.log
if [ ! -s "$log" ]; then
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
fi

bytes=$(stat -c %s "$log")
lines=$(wc -l <"$log")
echo "log: $log, $((bytes >> 20)) MiB, $lines lines, $(grep -c 'Linux version' "$log") boots"
echo "host: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo

# warm the page cache; both commands read the same cached file. Their output goes to
# a file: GNU grep stops at the first match when its output is /dev/null.
cat "$log" >/dev/null
json=$BENCH_DIR/hyperfine.json
out=$BENCH_DIR/out
hyperfine --warmup 1 --runs "$RUNS" --export-json "$json" \
	--command-name "grep -c module" "grep -c module '$log' >'$out.grep'" \
	--command-name "kmodtop ci" "'$KMODTOP' ci '$log' >'$out.ci'"

echo
rss_of() {
	/usr/bin/time -v "$@" >"$out.time-stdout" 2>"$BENCH_DIR/time.txt" || true
	sed -n 's/.*Maximum resident set size (kbytes): //p' "$BENCH_DIR/time.txt"
}
grep_rss=$(rss_of grep -c module "$log")
kmodtop_rss=$(rss_of "$KMODTOP" ci "$log")
echo "max RSS: grep $((grep_rss / 1024)) MiB ($grep_rss KiB), kmodtop ci $((kmodtop_rss / 1024)) MiB ($kmodtop_rss KiB)"
echo "kmodtop ci found: $(grep -E '^  (boots|findings|evidence|failures|duplicates) ' "$out.ci" | tr -s ' ' | tr '\n' ';')"

python3 - "$json" "${kmodtop_rss:-0}" <<'EOF'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
g, k = r["grep -c module"]["median"], r["kmodtop ci"]["median"]
rss = int(sys.argv[2])
print("wall (median): grep %.3f s, kmodtop ci %.3f s, ratio %.2f (target <= 1.5)" % (g, k, k / g))
print("max RSS: kmodtop ci %.1f MiB (target <= 32)" % (rss / 1024))
ok = k / g <= 1.5 and rss <= 32 * 1024
print("targets: " + ("met" if ok else "NOT met"))
sys.exit(0 if ok else 1)
EOF
