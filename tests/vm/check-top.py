#!/usr/bin/env python3
"""tests/vm/check-top.py — check `kmodtop top` run live in the guest (issue 6).

Usage: check-top.py ROOT

ROOT is a test-bed capture (build-vm/vm-out/RELEASE/) whose kmodtop/ holds what
tests/vm/top-live.sh left: top.out (the frames `top --batch --measure` printed during
the workload, one a second), top.txt (how it and the signal runs ended, and what each
left in tracefs). Checks, on the last frame:

  sources    trace and kmsg are live, not missing
  modules    per module, ATTEMPTS, LOADED, DUP and FAIL equal the offline report of
             the same run (kmodtop/host.out: `report --root` on the plain global trace
             the guest captured), and xfs shows its duplicate storm
  header     the attempts, failed and duplicates totals equal the offline report's;
             no lost events
  measure    on kernels with vmap measurement the measured column is filled, and each
             module's measured waste equals the measured bytes of the offline report's
             failed attempts, within top's rounding (VM_LIVE_GATING=0: a WARN)
  teardown   top exited by SIGINT, SIGTERM and SIGHUP with 128+N, after --iterations
             with 0, and none left its instance or kprobe group (the global tracing
             files are compared by check-run.py over the whole live suite)
  nobody     run as uid 65534: proc/modules live, the trace missing with "needs root",
             kmsg live or missing with its reason

Exit status 0 when all pass, 1 when a check failed, 77 when top did not run.
"""
import json
import os
import re
import sys

sys.dont_write_bytecode = True

DUP = ('duplicate-live', 'duplicate-concurrent', 'idempotent-waiter')
SIGNALS = {'SIGINT': 2, 'SIGTERM': 15, 'SIGHUP': 1}


def read(path):
    try:
        with open(path, errors='replace') as f:
            return f.read()
    except OSError:
        return None


def attempts_of(doc):
    if isinstance(doc, dict):
        a = doc.get('attempts')
        if isinstance(a, list):
            return a
        for v in doc.values():
            r = attempts_of(v)
            if r is not None:
                return r
    return None


def last_frame(text):
    frames = re.split(r'(?m)^(?=kmodtop \S+  kernel )', text)
    frames = [f for f in frames if f.strip()]
    return frames[-1] if frames else ''


def size_bytes(s):
    """top's byte figures: 0, 512, 2.47M, 36.0K ... (1024-based)"""
    m = re.match(r'^([\d.]+)([KMGT]?)$', s)
    if not m:
        return None
    return float(m.group(1)) * 1024 ** ' KMGT'.index(m.group(2) or ' ')


def parse_frame(frame):
    lines = frame.splitlines()
    head = {}
    rows = {}
    cols = None
    for ln in lines:
        if ln.startswith('Sources'):
            head['sources'] = ln
        elif ln.startswith('Attempts'):
            head['attempts_line'] = ln
        elif ln.startswith('Wasted'):
            head['wasted_line'] = ln
        elif ln.startswith('MODULE'):
            cols = re.split(r'\s{1,}', ln.strip())
        elif cols and ln.strip() and not ln.startswith('F1'):
            p = ln.split()
            if len(p) < 10:
                continue
            # MODULE STATE SIZE ATTEMPTS LOADED DUP FAIL NEEDLESS WASTED WASTED ...
            rows[p[0]] = {'state': p[1], 'attempts': int(p[3]), 'loaded': int(p[4]),
                          'dup': int(p[5]), 'fail': int(p[6]), 'est': p[8], 'meas': p[9]}
    return head, rows


def offline_counts(atts):
    per = {}
    for a in atts:
        name = a.get('module') or '(unnamed)'
        c = per.setdefault(name, {'attempts': 0, 'loaded': 0, 'dup': 0, 'fail': 0,
                                  'meas': 0})
        out = a.get('outcome')
        err = a.get('errno')
        done = out != 'incomplete'
        c['attempts'] += 1
        c['dup'] += out in DUP
        c['fail'] += bool(done and err not in (None, 0, '', '0'))
        c['loaded'] += bool(done and err in (None, 0, '', '0') and out != 'idempotent-waiter')
        # top's WASTED (meas.): every measured byte of a failed call. The attempt's
        # wasted_vmap is the model's estimate, which leaves out the layout a duplicate
        # pays when it races the loader past the early check (6.4+)
        if done and err not in (None, 0, '', '0'):
            c['meas'] += sum((a.get('vmap') or {}).values())
    return per


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__.split('\n\n')[1] + '\n')
        return 2
    root = argv[1].rstrip('/')
    kd = root + '/kmodtop'
    out = read(kd + '/top.out')
    if out is None:
        print('check-top: %s: SKIP: top did not run (no kmodtop/top.out)' % root)
        return 77
    rows_bad, passed = [], []

    def check(ok, what, exp, got, soft=False):
        if not ok and soft and os.environ.get('VM_LIVE_GATING') == '0':
            print('check-top: %s: WARN (not gating): %s: expected %s, got %s'
                  % (root, what, exp, got))
            passed.append((what + ' (WARN)', exp, got))
            return
        (passed if ok else rows_bad).append((what, exp, got))

    frame = last_frame(out)
    check(bool(frame), 'top printed frames', '>0', 0 if not frame else 1)
    head, rows = parse_frame(frame)
    src = head.get('sources', '')
    live = src.split('missing:')[0]
    check(' trace' in live and ' kmsg' in live, 'trace and kmsg live', 'live: ... trace kmsg',
          src.strip())
    m = re.search(r'lost events (\d+)', head.get('attempts_line', ''))
    check(m is not None and m.group(1) == '0', 'lost events', 0, m and m.group(1))

    host = None
    try:
        host = json.loads(read(kd + '/host.out') or '')
    except ValueError:
        pass
    hatt = attempts_of(host) if host else None
    check(hatt is not None, 'offline report (host.out) has attempts', 'attempts[]', 'none')
    if hatt is not None:
        per = offline_counts(hatt)
        # modules top shows without attempts (loaded before, untouched) are not compared
        names = sorted(set(per) | set(n for n, r in rows.items() if r['attempts']))
        for n in names:
            exp = per.get(n)
            got = rows.get(n)
            e = (exp['attempts'], exp['loaded'], exp['dup'], exp['fail']) if exp else None
            g = (got['attempts'], got['loaded'], got['dup'], got['fail']) if got else None
            check(e == g, '%s attempts, loaded, dup, fail = offline' % n, e, g)
        x = rows.get('xfs')
        check(x is not None and x['dup'] >= 10, 'xfs shows the duplicate storm', 'DUP >= 10',
              x and x['dup'])
        am = re.search(r'Attempts (\d+) .*failed (\d+)\s+duplicates (\d+)',
                       head.get('attempts_line', ''))
        tot = (len(hatt), sum(c['fail'] for c in per.values()),
               sum(c['dup'] for c in per.values()))
        check(am is not None and tuple(int(v) for v in am.groups()) == tot,
              'header attempts, failed, duplicates = offline', tot, am and am.groups())
        steps = read(root + '/capture/steps.log') or ''
        mode = steps.split('\n')[0].strip()
        if mode in ('vmalloc-tracepoints', 'vmalloc-kprobes'):
            wl = head.get('wasted_line', '')
            check('meas. -' not in wl, 'measured waste shown (%s)' % mode, 'a figure', wl.strip())
            for n, got in rows.items():
                exp = per.get(n)
                if not exp or not got['attempts']:
                    continue
                b = size_bytes(got['meas'])
                want = exp['meas']
                # top prints 3 significant digits: equal within its rounding
                ok = b is not None and abs(b - want) <= max(0.006 * want, 1)
                check(ok, '%s measured waste = offline' % n, want, got['meas'], soft=True)

    td = read(kd + '/top.txt') or ''
    runs = {}
    for ln in td.splitlines():
        p = ln.split()
        if p:
            runs[p[0]] = dict(x.split('=', 1) for x in p[1:] if '=' in x)
    for what, rc in (('SIGINT', 128 + 2), ('SIGTERM', 128 + 15), ('SIGHUP', 128 + 1),
                     ('iterations', 0)):
        g = runs.get(what)
        check(g is not None and g.get('rc') == str(rc), 'top ended by %s: exit status' % what,
              rc, g and g.get('rc'))
        check(g is not None and g.get('instance') == 'yes', 'top had its instance (%s)' % what,
              'yes', g and g.get('instance'))
        check(g is not None and g.get('after_instance') == 'no' and g.get('after_probes') == '0',
              'nothing left after top ended by %s' % what, 'no instance, 0 probes',
              g and '%s, %s' % (g.get('after_instance'), g.get('after_probes')))
    # as nobody: /proc is read, the trace is missing because root is
    nr = read(kd + '/top-nonroot.out')
    if nr is not None:
        g = runs.get('nonroot')
        check(g is not None and g.get('rc') == '0', 'top as nobody: exit status', 0,
              g and g.get('rc'))
        src = parse_frame(last_frame(nr))[0].get('sources', '')
        live_part, _, missing = src.partition('missing:')
        check('trace (needs root)' in missing, 'top as nobody: trace missing (needs root)',
              'missing: trace (needs root)', src.strip())
        check(' kmsg' in live_part or re.search(r'kmsg \([^)]+\)', missing) is not None,
              'top as nobody: kmsg live, or missing with a reason', 'kmsg or kmsg (why)',
              src.strip())
        check('proc/modules' in live_part, 'top as nobody: proc/modules live', 'live',
              src.strip())
    err = read(kd + '/top.err') or ''
    check('could not be removed' not in err, 'top removed its instance', 'no error',
          err.strip()[:200])

    if rows_bad:
        print('check-top: %s: %d checks failed, %d passed' % (root, len(rows_bad), len(passed)))
        for r in rows_bad:
            print('  %-50s expected %-24s got %s' % (r[0], r[1], r[2]))
        return 1
    print('check-top: %s: all %d checks passed' % (root, len(passed)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
