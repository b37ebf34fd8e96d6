#!/usr/bin/env python3
"""tests/vm/check-storms.py ROOT — the second workload's captures against the kernel.

The guest (tests/vm/init) ran the storms of `workload -w storms` with three captures
side by side, none of them measuring vmap allocations:
  kmodtop/storms/bundle           kmodtop record, no --measure (its naming probes),
                                  reading the raw ring buffers
  kmodtop/storms/bundle-text      the same record reading trace_pipe's text
  kmodtop/storms/setup-trace.txt  the tracefs commands of `kmodtop record --print-setup`
  kmodtop/storms/setup.dat        the trace-cmd record line of the same setup
while the test bed's own top-level trace measured every vmap allocation with its stack
(measure.py, which shares no code with kmodtop). Per storm step:
  - the bundle's report names every attempt;
  - its estimate of the failed calls' vmap bytes is within 2% of the measurement;
  - its payers (finit_module() calls that read the file) and waiters are the
    measurement's (a call that allocated nothing did not read);
  - the setup's text trace and its trace.dat give the same figures as the bundle;
  - the record read from trace_pipe gives the same attempts, byte for byte, as the one
    read from the raw buffers, but for start and end: each record has its own instance,
    which stamps its own copy of each event (see TIME_SKEW);
  - the top-level trace without the naming evidence (no probe, no vmalloc lines):
    the range the report states (estimated_min .. estimated_max) holds the measurement.
Exit status 0 when every check passes, 1 otherwise, 77 when the capture has no storms.
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure  # noqa: E402

STEPS = ('storm100-fresh-dummy', 'storm100-live-dummy', 'storm-missing-deps-btrfs',
         'modprobe-per-cpu-tun')
TOLERANCE = 0.02
# Seconds between two instances' stamps of one event: the kernel writes the copies one
# after the other, and under TCG an interrupt between them can take milliseconds. A
# decoding error (units, clock, offset) moves them all; the median catches that.
TIME_SKEW = 0.001
TIME_SKEW_MAX = 0.05
# what a trace without kmodtop's naming evidence lacks: the probes and the vmap events
STRIP = re.compile(r'kmodtop_kread:|kmodtop_name:|kmodtop_layout:|kmodtop_probes|alloc_vmap_area:|'
                   r'free_vmap_area|purge_vmap_area|<stack trace>|^\s*=> ')

failures = []
passed = 0


def check(ok, step, what, want, got):
    global passed
    if ok:
        passed += 1
    else:
        failures.append((step, what, want, got))


def kmodtop():
    k = os.environ.get('KMODTOP')
    if k and os.access(k, os.X_OK):
        return k
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return os.path.join(top, 'src', 'kmodtop')


def report(args):
    p = subprocess.run([kmodtop()] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, errors='replace')
    try:
        return json.loads(p.stdout), p.returncode, p.stderr
    except ValueError:
        return None, p.returncode, p.stderr


def first_diff(a, b):
    i = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), min(len(a), len(b)))
    return 'at %d: raw %r, text %r' % (i, a[max(0, i - 60):i + 60], b[max(0, i - 60):i + 60])


def untimed(attempts):
    """(the attempts as JSON without start/end, their times), in an order both
    records share: a task's own calls are sequential, so (pid, start) is stable."""
    att = sorted(attempts or [], key=lambda a: (a.get('pid') or 0, a.get('start') or 0))
    times = []
    bare = []
    for a in att:
        times += [a.get('start') or 0.0, a.get('end') or 0.0]
        bare.append({k: v for k, v in a.items() if k not in ('start', 'end')})
    return json.dumps(bare, sort_keys=True), times


def steps_of(doc):
    return {s['name']: s for s in (doc or {}).get('steps') or []}


def attempts_of(doc, step):
    return [a for a in (doc or {}).get('attempts') or [] if a.get('step') == step]


def figures(doc, step):
    s = steps_of(doc).get(step)
    if s is None:
        return None
    w = s.get('wasted_vmap') or {}
    return (s['calls'], tuple(sorted(s['rets'].items())), s['idempotent_waiters'],
            w.get('estimated'))


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    root = argv[1].rstrip('/')
    sd = root + '/kmodtop/storms'
    if not os.path.isdir(sd):
        print('check-storms: %s: no storms capture' % root)
        return 77
    m = measure.measure_file(root + '/sys/kernel/tracing/trace')
    meas = m.result()['steps']
    calls = {}
    for c in m.calls:
        calls.setdefault(c['step'], []).append(c)

    for f in ('record.rc', 'record-text.rc', 'trace-cmd.rc'):
        p = os.path.join(sd, f)
        if os.path.exists(p):
            rc = open(p).read().strip()
            check(rc == '0', '-', f, '0', rc)
    bundle, rc, err = report(['--root', sd + '/bundle', 'report', '-j'])
    check(rc == 0 and bundle, '-', 'report of the record bundle', 'exit 0',
          '%s %s' % (rc, err.strip()[:200]))
    # raw and text: how each record read the trace is in its notes
    for b, how in (('bundle', 'trace_pipe_raw'), ('bundle-text', 'trace_pipe ')):
        try:
            notes = open('%s/%s/capture/record.txt' % (sd, b), errors='replace').read()
        except OSError:
            notes = ''
        m_read = re.search(r'^trace read from: (.*)$', notes, re.M)
        got = m_read.group(1) if m_read else None
        check(got is not None and (got + ' ').startswith(how), '-', b + ' read from', how, got)
    btext, rc, err = report(['--root', sd + '/bundle-text', 'report', '-j'])
    check(rc == 0 and btext, '-', 'report of the text record bundle', 'exit 0',
          '%s %s' % (rc, err.strip()[:200]))
    # Each record has its own instance, and each instance stamps its own copy of an
    # event: start and end may differ by microseconds, nothing else may.
    ra, rt = untimed((bundle or {}).get('attempts'))
    ta, tt = untimed((btext or {}).get('attempts'))
    check(bundle is not None and ra == ta, '-', 'attempts raw = text, byte for byte '
          '(times aside)', '%d attempts' % len((btext or {}).get('attempts') or []),
          'differ: ' + first_diff(ra, ta) if ra != ta else 'same')
    skews = sorted(abs(a - b) for a, b in zip(rt, tt))
    worst = skews[-1] if skews else 0.0
    median = skews[len(skews) // 2] if skews else 0.0
    check(len(rt) == len(tt) and worst <= TIME_SKEW_MAX, '-', 'attempt times raw ~ text',
          '<= %g s apart' % TIME_SKEW_MAX, '%g s' % worst)
    check(median <= TIME_SKEW, '-', 'attempt times raw ~ text, the median',
          '<= %g s apart' % TIME_SKEW, '%g s' % median)
    rs = json.dumps((bundle or {}).get('steps'), sort_keys=True)
    ts = json.dumps((btext or {}).get('steps'), sort_keys=True)
    check(bundle is not None and rs == ts, '-', 'steps raw = text, byte for byte', 'same',
          'differ: ' + first_diff(rs, ts) if rs != ts else 'same')
    text, rc, err = report(['--root', root, 'report', '--trace', sd + '/setup-trace.txt', '-j'])
    check(rc == 0 and text, '-', 'report of the setup\'s tracefs trace', 'exit 0',
          '%s %s' % (rc, err.strip()[:200]))
    dat = None
    if os.path.exists(sd + '/setup.dat'):
        dat, rc, err = report(['--root', root, 'report', '--trace', sd + '/setup.dat', '-j'])
        check(rc == 0 and dat, '-', 'report of the setup\'s trace.dat', 'exit 0',
              '%s %s' % (rc, err.strip()[:200]))
    else:
        check(False, '-', 'trace-cmd\'s trace.dat', 'present', 'missing')
    # the top-level trace as a user without kmodtop's evidence has it
    bare = sd + '/bare-trace.txt'
    with open(root + '/sys/kernel/tracing/trace', errors='replace') as fi, \
            open(bare, 'w') as fo:
        for ln in fi:
            if not STRIP.search(ln):
                fo.write(ln)
    plain, rc, err = report(['--root', root, 'report', '--trace', bare, '-j'])
    check(rc == 0 and plain, '-', 'report of the trace without naming evidence', 'exit 0',
          '%s %s' % (rc, err.strip()[:200]))

    rows = []
    for step in STEPS:
        ms = meas.get(step)
        check(ms is not None, step, 'the step is in the measurement', 'present', 'missing')
        if ms is None:
            continue
        want = ms['wasted_vmap_total']
        mcalls = calls.get(step, [])
        m_payers = sum(1 for c in mcalls if c['syscall'] == 'finit' and c['vmap'].get('kread'))
        m_idle = sum(1 for c in mcalls if c['syscall'] == 'finit' and not c['vmap'])
        bs = steps_of(bundle).get(step)
        check(bs is not None, step, 'the bundle has the step', 'present', 'missing')
        if bs is None:
            continue
        att = attempts_of(bundle, step)
        unnamed = sum(1 for a in att if not a.get('module'))
        check(unnamed == 0, step, 'every attempt named (record)', 0, unnamed)
        check(bs['calls'] == ms['calls'], step, 'attempts = measured calls', ms['calls'],
              bs['calls'])
        est = (bs.get('wasted_vmap') or {}).get('estimated')
        ok = est is not None and (abs(est - want) <= TOLERANCE * want if want else est == 0)
        check(ok, step, 'estimate within 2%% of the measurement', want, est)
        payers = sum(1 for a in att if a.get('syscall') == 'finit_module' and
                     a.get('kread_bytes') is not None)
        check(payers == m_payers, step, 'payers (read the file) = measured', m_payers, payers)
        idle = sum(1 for a in att if a.get('syscall') == 'finit_module' and
                   a.get('kread_bytes') is None)
        check(idle == m_idle, step, 'finit calls that read nothing = measured', m_idle, idle)
        check(bs['idempotent_waiters'] <= m_idle, step, 'waiters among those', m_idle,
              bs['idempotent_waiters'])
        fb = figures(bundle, step)
        check(figures(text, step) == fb, step, 'setup tracefs text = bundle', fb,
              figures(text, step))
        if dat is not None:
            check(figures(dat, step) == fb, step, 'setup trace.dat = bundle', fb,
                  figures(dat, step))
        ps = steps_of(plain).get(step)
        lo = hi = None
        if ps is not None:
            w = ps.get('wasted_vmap') or {}
            lo, hi = w.get('estimated_min'), w.get('estimated_max')
        ok = lo is not None and hi is not None and lo <= want <= hi
        check(ok, step, 'without naming evidence: range holds the measurement', want,
              '%s .. %s' % (lo, hi))
        rows.append((step, ms['calls'], want, est, m_payers, payers, lo, hi))

    print('check-storms: %s:' % root)
    print('  %-26s %6s %12s %12s %7s %7s %12s %12s' % ('step', 'calls', 'measured',
          'estimated', 'paid', 'paid/km', 'bare min', 'bare max'))
    for r in rows:
        print('  %-26s %6d %12d %12s %7d %7d %12s %12s' % r)
    if failures:
        print('check-storms: %s: %d checks failed, %d passed' % (root, len(failures), passed))
        print('  %-26s %-52s %-16s %s' % ('step', 'check', 'expected', 'got'))
        for f in failures:
            print('  %-26s %-52s %-16s %s' % tuple(str(x)[:300] for x in f))
        return 1
    print('check-storms: %s: all %d checks passed' % (root, passed))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
