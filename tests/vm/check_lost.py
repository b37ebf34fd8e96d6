"""Lost trace events in the guest (tests/vm/lost-events.sh): what kmodtop reports
against what the kernel counted while its reader was stopped."""
import re

from vmfiles import read as _read, load_json as _json

LOST_LINE = re.compile(r'^CPU:(\d+) \[LOST (\d+) EVENTS\]', re.M)


def _kernel_lost(stats):
    """{run: {cpuN: overrun + dropped}} from stats.txt (the kernel's per_cpu stats,
    read while the readers were stopped)"""
    out = {}
    for ln in (stats or '').splitlines():
        p = ln.split()
        if len(p) < 2 or p[0] not in ('report', 'record'):
            continue
        kv = dict(x.split(':', 1) for x in p[2:] if ':' in x)
        try:
            n = int(kv.get('overrun', '')) + int(kv.get('droppedevents', ''))
        except ValueError:
            n = None
        out.setdefault(p[0], {})[p[1]] = n
    return out


def check_lost(root, check, passed):
    d = root + '/kmodtop/lost'
    stats = _read(d + '/stats.txt')
    check(stats is not None, '-', 'lost: lost-events.sh ran (kmodtop/lost/stats.txt)', 'present',
          'missing')
    if stats is None:
        return
    kern = _kernel_lost(stats)
    for run in ('report', 'record'):
        rc = (_read('%s/%s.rc' % (d, run)) or '').strip()
        check(rc == '0', '-', 'lost: kmodtop %s exit status' % run, 0, rc or None)
        k = kern.get(run) or {}
        check(bool(k) and None not in k.values() and sum(k.values()) > 0, '-',
              'lost: the storm overran the stopped %s\'s buffer (kernel stats)' % run, '> 0',
              k or 'no stats')
    k = kern.get('report') or {}
    rep = _json(d + '/report.out') or {}
    tr = (rep.get('live') or {}).get('trace') or {}
    by = tr.get('lost_by_cpu')
    lost = tr.get('lost_events')
    check(isinstance(by, dict) and set(k) <= set(by), '-', 'lost: report live.trace.lost_by_cpu',
          sorted(k), by)
    by = by if isinstance(by, dict) else {}
    short = [(c, n, by.get(c)) for c, n in sorted(k.items())
             if n is None or not isinstance(by.get(c), int) or by[c] < n]
    check(not short, '-', 'lost: report lost_by_cpu >= the kernel\'s count at the stop', 'none short',
          short)
    check(isinstance(lost, int) and lost > 0 and lost == sum(v for v in by.values()
                                                             if isinstance(v, int)),
          '-', 'lost: report live.trace.lost_events = sum of lost_by_cpu, > 0',
          sum(v for v in by.values() if isinstance(v, int)), lost)
    li = (rep.get('load_attempts') or {}).get('inputs') or {}
    check(li.get('lost_events') == lost, '-',
          'lost: report LOST lines in its trace = live.trace.lost_events', lost,
          li.get('lost_events'))
    err = _read(d + '/report.err') or ''
    for c, n in sorted(by.items()):
        if isinstance(n, int) and n > 0:
            want = '%d trace events lost on CPU %s' % (n, c[3:])
            check(want in err, '-', 'lost: report stderr warns about %s' % c, want,
                  err.strip()[:200] or 'nothing')
    # record: the bundle's trace has a LOST line for every event lost, per CPU
    notes = _read(d + '/bundle/capture/record.txt') or ''
    m = re.search(r'^lost trace events: (\d+)$', notes, re.M)
    total = int(m.group(1)) if m else None
    trace = _read(d + '/bundle/sys/kernel/tracing/trace') or ''
    lines = {}
    for cpu, n in LOST_LINE.findall(trace):
        lines['cpu' + cpu] = lines.get('cpu' + cpu, 0) + int(n)
    check(total is not None and total > 0 and sum(lines.values()) == total, '-',
          'lost: record bundle [LOST n EVENTS] lines = record.txt lost events, > 0', total,
          '%d in %d lines' % (sum(lines.values()), len(LOST_LINE.findall(trace))))
    kr = kern.get('record') or {}
    short = [(c, n, lines.get(c, 0)) for c, n in sorted(kr.items())
             if n is None or lines.get(c, 0) < n]
    check(not short, '-', 'lost: record LOST lines per CPU >= the kernel\'s count at the stop',
          'none short', short)
    err = _read(d + '/record.err') or ''
    check('trace events lost on CPU' in err, '-', 'lost: record stderr warns', 'warning',
          err.strip()[:200] or 'nothing')
    passed.append(('-', 'lost: kernel counted %s, report %s, record %s' % (
        {r: sum(v for v in c.values() if v) for r, c in kern.items()}, lost, total)))
