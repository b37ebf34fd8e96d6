#!/usr/bin/env python3
"""tests/vm/check-run.py — check one test-bed capture against its two truths.

Usage: check-run.py ROOT

ROOT is a capture laid out like tests/fixtures/<name>/ (what run-qemu.sh leaves in
build-vm/vm-out/RELEASE/). Checks:

  truth      per step, the finit_module/init_module calls the trace shows for the
             workload's own processes equal the workload's log (capture/workload.log:
             one TRUTH line per syscall), in number and return values
  steps      every workload step has its STEP marker in the trace and in steps.log
  autoload   the autoload steps made module_request events from the requesting task
             with the expected call site
  lost       no trace events were lost (capture/trace-stats.txt)
  vmap       the vmap measurement exists (a stack under allocations inside calls)
  kmodtop    when kmodtop ran (ROOT/kmodtop/: live and post in the guest, host on the
             capture as a bundle): it exited 0, left no tracefs
             instance or kprobe group, and, when its JSON has attempts[] with start
             times, its attempts per step equal the trace's calls and return values

A failure prints a table (step, check, expected, got) and exits 1; 0 when all pass.
Uses measure.py (the kernel-measurement side), never kmodtop's code.
"""
import json
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure  # noqa: E402

LOADERS = ('modprobe', 'insmod', 'rmmod', 'kmod', 'busybox')
TRUTH = re.compile(r'^TRUTH (\w+) (.*)$')
STEPS = ['modprobe-xfs', 'modprobe-xfs-again', 'storm-live-xfs', 'rmmod-xfs',
         'storm-fresh-xfs', 'missing-deps-nfs', 'bad-garbage', 'bad-raw-compressed-init',
         'bad-compressed-noflag', 'autoload-sctp-storm', 'autoload-af-key',
         'autoload-missing-bt', 'autoload-vfat']
AUTOLOAD = {
    'autoload-sctp-storm': ('net-pf-2-proto-132', 'inet_create'),
    'autoload-af-key': ('net-pf-15', '__sock_create'),
    'autoload-missing-bt': ('net-pf-31', '__sock_create'),
    'autoload-vfat': ('fs-vfat', 'get_fs_type'),
}


def read(path, default=None):
    try:
        with open(path, errors='replace') as f:
            return f.read()
    except OSError:
        return default


def hist(values):
    h = {}
    for v in values:
        h[v] = h.get(v, 0) + 1
    return h


def fmt(h):
    if isinstance(h, dict):
        return ' '.join('%s:%s' % (k, h[k]) for k in sorted(h, key=str)) or '-'
    return str(h)


def truth_lines(root):
    out = []
    for ln in (read(root + '/capture/workload.log', '') or '').splitlines():
        m = TRUTH.match(ln)
        if not m:
            continue
        kv = dict(x.split('=', 1) for x in m.group(2).split() if '=' in x)
        kv['kind'] = m.group(1)
        try:
            kv['t'] = float(kv.get('t', 'nan'))
            ret = int(kv.get('ret', '0'))
            err = int(kv.get('errno', '0'))
        except ValueError:
            continue
        kv['result'] = -err if ret < 0 else 0
        out.append(kv)
    return out


def step_windows(root):
    """[(name, start, end)] in the clock of TRUTH t=, from workload-steps.log; else
    from steps.log (uptime, 10 ms resolution)"""
    wins = []
    for ln in (read(root + '/capture/workload-steps.log', '') or '').splitlines():
        p = ln.split()
        if len(p) == 4 and p[0] == 'STEP':
            wins.append((p[1], float(p[2].split('=')[1]), float(p[3].split('=')[1])))
    if wins:
        return wins
    marks = []
    for ln in (read(root + '/capture/steps.log', '') or '').splitlines():
        p = ln.split()
        if len(p) == 3 and p[0] == 'STEP':
            marks.append((p[2], float(p[1])))
    for i, (name, t) in enumerate(marks):
        end = marks[i + 1][1] if i + 1 < len(marks) else float('inf')
        wins.append((name, t, end + 0.01))
    return wins


def kmodtop_attempts(doc):
    if isinstance(doc, dict):
        a = doc.get('attempts')
        if isinstance(a, list):
            return a
        for v in doc.values():
            r = kmodtop_attempts(v)
            if r is not None:
                return r
    return None


ERRNO = {'EPERM': 1, 'ENOENT': 2, 'EINTR': 4, 'ENOEXEC': 8, 'EBADF': 9, 'ENOMEM': 12,
         'EBUSY': 16, 'EEXIST': 17, 'ENODEV': 19, 'EINVAL': 22, 'ETXTBSY': 26, 'EFBIG': 27,
         'EOPNOTSUPP': 95, 'EKEYREJECTED': 129}


def attempt_result(a):
    e = a.get('errno', 0)
    if isinstance(e, str):
        e = ERRNO.get(e, e)
    if e in (None, 0, '0', ''):
        return 0
    try:
        return -abs(int(e))
    except (TypeError, ValueError):
        return str(e)


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__.split('\n\n')[1] + '\n')
        return 2
    root = argv[1].rstrip('/')
    rows = []      # (step, check, expected, got)
    passed = []

    def check(ok, step, what, exp, got):
        if ok:
            passed.append((step, what))
        else:
            rows.append((step, what, fmt(exp), fmt(got)))

    trace = root + '/sys/kernel/tracing/trace'
    if not os.path.exists(trace):
        print('check-run: no trace in %s' % root)
        return 1
    m = measure.measure_file(trace)
    marker_steps = [n for _, n in m.markers]
    wanted = [s for s in STEPS if s in marker_steps] or STEPS
    ran = [w[0] for w in step_windows(root)]
    for s in (ran or wanted):
        check(s in marker_steps, s, 'STEP marker in trace', 'present',
              'present' if s in marker_steps else 'missing')
    if not ran:
        rows.append(('-', 'steps in capture/steps.log', 'steps', 'none'))

    # ---- truth: workload log vs trace ----
    truths = truth_lines(root)
    wins = step_windows(root)
    by_step = {}
    for t in truths:
        if t['kind'] not in ('finit', 'init'):
            continue
        for name, a, b in wins:
            if a <= t['t'] <= b:
                by_step.setdefault(name, []).append(t)
                break
        else:
            by_step.setdefault('(no step)', []).append(t)
    trace_own = {}
    for c in m.calls:
        if c['comm'] in LOADERS:
            continue
        trace_own.setdefault(c['step'], []).append(c)
    for step in sorted(set(by_step) | set(trace_own), key=lambda s: (s not in STEPS, STEPS.index(s) if s in STEPS else 0, str(s))):
        exp = by_step.get(step, [])
        got = trace_own.get(step, [])
        check(len(exp) == len(got), step, 'calls (workload log vs trace)', len(exp), len(got))
        he = hist(t['result'] for t in exp)
        hg = hist(c['ret'] for c in got)
        check(he == hg, step, 'return values', he, hg)
    # sockets: each TRUTH socket line is one call the workload made
    socks = [t for t in truths if t['kind'] == 'socket']
    for step, (alias, site) in AUTOLOAD.items():
        if step not in marker_steps:
            continue
        reqs = [r for r in m.request_list if r['step'] == step and r['comm'] not in LOADERS]
        hit = [r for r in reqs if r['alias'] == alias and r['call_site'] == site]
        check(len(hit) > 0, step, 'module_request %s at %s' % (alias, site), '>0',
              len(hit))
    if socks:
        passed.append(('-', '%d socket() calls logged' % len(socks)))

    # ---- lost events ----
    stats = read(root + '/capture/trace-stats.txt')
    if stats is not None:
        lost = re.findall(r'(?:overrun|dropped events): ([1-9]\d*)', stats)
        check(not lost, '-', 'trace events lost', 0, sum(int(x) for x in lost))

    # ---- vmap measurement ----
    mode = (read(root + '/capture/steps.log', '') or '').split('\n')[0].strip()
    if mode in ('vmalloc-tracepoints', 'vmalloc-kprobes'):
        total = sum(sum(c['vmap'].values()) for c in m.calls)
        check(total > 0, '-', 'vmap bytes measured inside load calls (%s)' % mode, '>0',
              total)
        check(m.unmatched == 0, '-', 'allocations without a stack trace', 0, m.unmatched)
    else:
        rows.append(('-', 'vmap measurement mode', 'vmalloc-*', mode or 'none'))

    # ---- kmodtop ----
    kd = root + '/kmodtop'
    if os.path.isdir(kd):
        for run in ('live', 'post', 'host'):
            rc = read('%s/%s.rc' % (kd, run))
            if rc is not None:
                check(rc.strip() == '0', '-', 'kmodtop %s exit status' % run, 0, rc.strip())
        inst = read(kd + '/instances-after.txt')
        if inst is not None:
            left = [x for x in inst.split() if x.startswith('kmodtop')]
            check(not left, '-', 'tracefs instances left by kmodtop', 'none', left or 'none')
        kp = read(kd + '/kprobe_events-after.txt')
        if kp is not None:
            left = [x for x in kp.splitlines() if 'kmodtop' in x]
            check(not left, '-', 'kprobe events left by kmodtop', 'none', len(left))
        for run in ('live', 'post', 'host'):
            out = read('%s/%s.out' % (kd, run))
            if not out:
                continue
            try:
                doc = json.loads(out)
            except ValueError:
                passed.append(('-', 'kmodtop %s output is not JSON: not compared' % run))
                continue
            att = kmodtop_attempts(doc)
            if not att or not all(isinstance(a, dict) and 'start' in a for a in att):
                passed.append(('-', 'kmodtop %s JSON has no attempts[] with start: not compared' % run))
                continue
            # by time only: two markers may share a microsecond, keep their order
            marks = sorted(m.markers, key=lambda x: x[0])
            per = {}
            for a in att:
                st = None
                for ts, name in marks:
                    if ts <= float(a['start']):
                        st = name
                per.setdefault(st, []).append(a)
            trace_all = {}
            for c in m.calls:
                trace_all.setdefault(c['step'], []).append(c)
            for step in [s for s in STEPS if s in trace_all or s in per]:
                exp = trace_all.get(step, [])
                got = per.get(step, [])
                check(len(exp) == len(got), step, 'kmodtop %s attempts' % run, len(exp), len(got))
                he = hist(c['ret'] for c in exp)
                hg = hist(attempt_result(a) for a in got)
                check(he == hg, step, 'kmodtop %s errno' % run, he, hg)
            # the cost model and measured mode against this checker's own measurement
            res = m.result()['steps']
            ksteps = {x.get('name'): x for x in doc.get('steps') or [] if isinstance(x, dict)}
            for step, st in sorted(res.items()):
                ks = ksteps.get(step)
                if ks is None or 'wasted_vmap' not in ks:
                    continue
                want = st['wasted_vmap_total']
                est = ks['wasted_vmap'].get('estimated')
                if 'wasted_measured' in ks:
                    check(ks['wasted_measured'] == want, step,
                          'kmodtop %s measured waste' % run, want, ks['wasted_measured'])
                # a duplicate that raced its module's load past the early check may have
                # paid the layout too; the trace can't tell, kmodtop gives the bound
                top = ks['wasted_vmap'].get('estimated_max', est)
                ok = est is not None and (est * 0.95 <= want <= top * 1.05 if want else est == 0)
                check(ok, step, 'kmodtop %s estimated waste (5%%)' % run, want,
                      est if top == est else '%s..%s' % (est, top))


    if rows:
        w = [max(len(str(r[i])) for r in rows + [('step', 'check', 'expected', 'got')]) for i in range(4)]
        print('check-run: %s: %d checks failed, %d passed' % (root, len(rows), len(passed)))
        print('  %-*s  %-*s  %-*s  %s' % (w[0], 'step', w[1], 'check', w[2], 'expected', 'got'))
        for r in rows:
            print('  %-*s  %-*s  %-*s  %s' % (w[0], r[0], w[1], r[1], w[2], r[2], r[3]))
        return 1
    print('check-run: %s: all %d checks passed' % (root, len(passed)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
