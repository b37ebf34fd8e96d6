#!/usr/bin/env python3
"""Score `kmodtop ci` on the corpus of real kernel logs in tests/corpus/logs.

usage: score.py KMODTOP LOGDIR [--min-recall=PERCENT] [--refused=FILE] [--quiet]

Each NNN-name.log has a hand-written NNN-name.expect: one expected evidence line a row,
`class module line` ('-' for a line that names no module). kmodtop runs once per log
(`ci -j`); its findings are compared with the annotation per (class, module): a finding
is matched line by line: each line its "evidence" lists must be annotated under its
class and module, and each annotated line listed. One without the list (an older
kmodtop), or with "evidence_truncated", matches as many annotated lines as it counts,
and its first and last line must be annotated lines of that class and module.

Prints precision and recall per class and overall, each miss and false positive, and
exits 1 under 100% precision or under the minimum recall (default 95%).

--refused=FILE names logs (one a line) that kmodtop refuses today only because it does
not read their format yet (no timestamps, a localized month, dmesg -H): they are
scored and printed like the others but left out of the recall gate, and a listed log
that kmodtop reads fails the run until it is taken off the list.
"""
import json
import os
import subprocess
import sys
from collections import defaultdict


def norm_module(m):
    # kmod's rule: '-' and '_' are the same in a module name
    return "-" if m in (None, "", "-") else m.replace("-", "_")


def read_expect(path):
    want = defaultdict(set)        # (class, module) -> {line}
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            row = raw.split("#", 1)[0].split()
            if not row:
                continue
            if len(row) != 3 or not row[2].isdigit():
                raise SystemExit("%s:%d: want 'class module line': %r" % (path, n, raw))
            want[(row[0], norm_module(row[1]))].add(int(row[2]))
    return want


def evidence_list(f, path):
    """The finding's evidence lines of @path one by one, where kmodtop lists them:
    "evidence": [{"file": ..., "lines": [[first, last], ...]}]. None: not listed."""
    v = f.get("evidence")
    if not isinstance(v, list):
        return None
    out = set()
    for e in v:
        if not isinstance(e, dict) or e.get("file") != path:
            continue
        for a, b in e.get("lines", []):
            out.update(range(a, b + 1))
    return out


def run_ci(kmodtop, log):
    p = subprocess.run([kmodtop, "-j", "ci", log], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if p.returncode not in (0, 1, 4):
        raise SystemExit("%s: kmodtop ci exited %d: %s" %
                         (log, p.returncode, p.stderr.decode(errors="replace").strip()))
    doc = json.loads(p.stdout.decode("utf-8")) if p.stdout.strip() else {}
    return p.returncode, doc


def score_log(want, doc, path):
    """-> {class: [tp, fp, fn]}, [(kind, class, module, detail)]"""
    got = defaultdict(list)
    for f in doc.get("findings", []):
        got[(f["class"], norm_module(f.get("module")))].append(f)
    tally = defaultdict(lambda: [0, 0, 0])
    notes = []
    for key in sorted(set(want) | set(got), key=lambda k: (k[0], k[1])):
        cls, mod = key
        exp = want.get(key, set())
        tp = fp = 0
        unmatched = set(exp)
        for f in got.get(key, []):
            listed = evidence_list(f, path)
            if listed is not None and not f.get("evidence_truncated"):
                hit = listed & unmatched
                tp += len(hit)
                unmatched -= hit
                for n in sorted(listed - exp):
                    fp += 1
                    notes.append(("false positive", cls, mod, "line %d" % n))
                # the list is the lines the count counts: one without the other is a bug
                if len(listed) != f.get("evidence_lines", len(listed)):
                    fp += 1
                    notes.append(("false positive", cls, mod, "%d lines listed, %d counted"
                                  % (len(listed), f["evidence_lines"])))
                continue
            n = f.get("evidence_lines", f.get("count", 1))
            ends = {f["first_line"], f["last_line"]}
            bad = sorted(e for e in ends if e not in exp)
            for e in bad:
                notes.append(("false positive", cls, mod, "evidence line %d" % e))
            fp += len(bad)
            take = max(0, min(n - len(bad), len(unmatched)))
            # the ends first, then the rest in order: only the count says which
            order = sorted(unmatched & ends) + sorted(unmatched - ends)
            for e in order[:take]:
                unmatched.discard(e)
            tp += take
            extra = n - len(bad) - take
            if extra > 0:
                fp += extra
                notes.append(("false positive", cls, mod,
                              "%d evidence line(s) more than annotated" % extra))
        for e in sorted(unmatched):
            notes.append(("miss", cls, mod, "line %d" % e))
        t = tally[cls]
        t[0] += tp
        t[1] += fp
        t[2] += len(unmatched)
    return tally, notes


def pct(a, b):
    return 100.0 * a / b if b else 100.0


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    opts = dict(a[2:].split("=", 1) if "=" in a else (a[2:], "1")
                for a in argv[1:] if a.startswith("--"))
    if len(args) != 2:
        raise SystemExit(__doc__)
    kmodtop, logdir = args
    min_recall = float(opts.get("min-recall", "95"))
    quiet = "quiet" in opts
    known_refused = set()
    if "refused" in opts:
        with open(opts["refused"], encoding="utf-8") as f:
            known_refused = {l.split("#", 1)[0].strip() for l in f} - {""}

    total = defaultdict(lambda: [0, 0, 0])
    gated = defaultdict(lambda: [0, 0, 0])   # without the known-refused logs
    refused = []
    stale = []
    logs = sorted(f for f in os.listdir(logdir) if f.endswith(".log"))
    if not logs:
        raise SystemExit("no logs in %s" % logdir)
    for name in logs:
        path = os.path.join(logdir, name)
        exp = path[:-4] + ".expect"
        if not os.path.exists(exp):
            raise SystemExit("%s: no annotation %s" % (name, os.path.basename(exp)))
        want = read_expect(exp)
        rc, doc = run_ci(kmodtop, path)
        if rc == 4:
            refused.append(name)
        elif name in known_refused:
            stale.append(name)
        tally, notes = score_log(want, doc, path)
        for cls, t in tally.items():
            for i in range(3):
                total[cls][i] += t[i]
                if not (rc == 4 and name in known_refused):
                    gated[cls][i] += t[i]
        fmt = ",".join(sorted({i.get("format", "?") for i in doc.get("inputs", [])}))
        for kind, cls, mod, detail in notes:
            print("%-14s %s: %s %s %s" % (kind, name, cls, mod, detail))
        if not quiet and not notes:
            print("%-14s %s (%s)" % ("ok", name, fmt or "refused"))

    print()
    print("%-22s %5s %5s %5s %9s %7s" % ("class", "tp", "fp", "fn", "precision", "recall"))
    tp = fp = fn = 0
    for cls in sorted(total):
        a, b, c = total[cls]
        tp, fp, fn = tp + a, fp + b, fn + c
        print("%-22s %5d %5d %5d %8.1f%% %6.1f%%" % (cls, a, b, c, pct(a, a + b), pct(a, a + c)))
    prec, rec = pct(tp, tp + fp), pct(tp, tp + fn)
    print("%-22s %5d %5d %5d %8.1f%% %6.1f%%" % ("all", tp, fp, fn, prec, rec))
    print("%d logs, %d refused as nothing to analyse%s" %
          (len(logs), len(refused), (": " + " ".join(refused)) if refused else ""))
    gtp = sum(t[0] for t in gated.values())
    gfn = sum(t[2] for t in gated.values())
    grec = pct(gtp, gtp + gfn)
    if known_refused:
        print("recall without the %d logs refused for their format: %.1f%%" %
              (len(known_refused & set(refused)), grec))
    for name in sorted(known_refused - set(logs)):
        stale.append(name + " (no such log)")
    ok = fp == 0 and grec >= min_recall and not stale
    if not ok:
        print("FAIL: precision %.1f%% (want 100%%), recall %.1f%% (want >= %.1f%%)%s" %
              (prec, grec, min_recall,
               ("; read now, take off the refused list: " + " ".join(stale)) if stale else ""))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
