#!/usr/bin/env python3
"""tests/vm/userspace/check.py — one real-userspace boot against the kernel's own trace.

Usage: check.py words|units OUT     OUT: the guest's collection (collect.sh's out/)
       check.py predict OUT_SMALL OUT_BIG [--root IMAGE_ROOT] [--kmodtop PATH]

The truth is OUT/tracing/trace: the kernel's top-level buffer, which the command line
made trace every finit_module/init_module call (enter and exit) and every vmap
allocation with its stack from the kernel's start (tests/vm/measure.py reads it: the
calls, their return values and the bytes each allocated, by the stack). A call's
module is named by what the same trace holds inside it: the module_load event
(`words`), the file the kernel read (the naming probe on kernel_read_file, path=...),
else the name the kernel looked up (the probe on find_module_all, name=...).

Checks (each reported, none loosened):
  units      no kmodtop unit failed (systemctl --failed, each unit's Result), none
             still running when the boot was over
  bundle     (units) a bundle of this boot in /var/lib/kmodtop/boot-ID
  truth      the truth is whole: no event lost on any CPU, every allocation in a call
             has its stack
  attempts   the report's attempts = the trace's calls, call by call: the multiset of
             (pid, syscall, return value, module); every attempt named; no `E?`
             errno; the outcome agrees with the return value (0: loaded, or an
             idempotent waiter of a load; else neither; never incomplete). A call the
             trace does not name (an idempotent waiter reads no file) matches by pid,
             call and return value alone
  coverage   (units) every load call from the first udev worker's on is in the bundle
  `units` compares the calls from systemd-udevd's start on (a unit of the root file
  system cannot see what the initramfs loaded), the estimate as the sum of those
  failed attempts' own estimates
  requests   (words) the report's autoload requests = the trace's module_request
             events (a name ending in a newline breaks its line: counted by its start)
  estimate   the report's estimate of the failed calls' vmap bytes within 2% of the
             trace's bytes of those calls
`words` checks `kmodtop report --boot -j` (the global buffer); `units` checks the
report of the bundle (`kmodtop --root BUNDLE report -j`, in the guest; the one left
in /run/kmodtop when /var/lib/kmodtop has none, the bundle check failing) and that
`report --boot` in the guest succeeded.

`predict` checks the per-CPU risk list of one `words` boot (OUT_SMALL, 4 vCPUs) against
another boot of the same image on more CPUs (OUT_BIG, 16 vCPUs). It lays out a root
from OUT_SMALL in a temporary directory (the trace, proc/modules, the release, the
kernel log as capture/dmesg.txt, one sys/devices/system/cpu/cpuN per vCPU, and the
image's lib/modules/RELEASE and boot/config-RELEASE, hard-linked where it can; the
image root defaults to OUT_SMALL/../../root, the layout run.sh makes), runs
`kmodtop --root TMP report -j --cpus <OUT_BIG's nproc>` (--kmodtop, else $KMODTOP,
else the build's src/kmodtop) and compares what it predicts with what OUT_BIG's boot
wasted, measured from OUT_BIG's trace by the truth code above (not by kmodtop).
  The prediction is of the boot's whole waste, the bytes of every failed call:
  percpu_risk.wasted_at_n (the storms at N CPUs) plus the rest of the capture's
  estimated waste (load_attempts.wasted_vmap.estimated less the storms' own wasted
  bytes), which does not grow with the CPUs. The whole waste, not the storms' share,
  because the whole is what the bigger machine pays and what a storm the list misses
  would show in; it must be within 20% of the truth's. The storms' share (each storm
  module's predicted bytes against the same module's failed calls in OUT_BIG) and
  the modules OUT_BIG tried once per CPU that the list does not name are printed,
  not checked.
Exit status: 0 all passed, 1 a check failed, 2 usage.
"""
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import measure  # noqa: E402  (tests/vm/measure.py: the truth's parser)

TOLERANCE = 0.02
PREDICT_TOLERANCE = 0.20   # the bound on the per-CPU risk list's prediction
KREAD = re.compile(r'^\w+_kread: .*\bid=(\d+)\b.*\bpath="?([^" ]+)"?')
NAME = re.compile(r'^\w+_name: .*\bname="?([^" ]+)"?')
LOAD = re.compile(r'^module_load: (\S+)')
ERRNO = {'EPERM': 1, 'ENOENT': 2, 'EINTR': 4, 'EIO': 5, 'ENOEXEC': 8, 'EBADF': 9,
         'EAGAIN': 11, 'ENOMEM': 12, 'EFAULT': 14, 'EBUSY': 16, 'EEXIST': 17, 'ENODEV': 19,
         'EINVAL': 22, 'ENOSPC': 28, 'ENOSYS': 38, 'EKEYREJECTED': 129,
         'ERESTARTSYS': 512, 'ERESTARTNOINTR': 513, 'ERESTARTNOHAND': 514,
         'ERESTART_RESTARTBLOCK': 516}
READING_MODULE = 2   # enum kernel_read_file_id: READING_UNKNOWN, _FIRMWARE, _MODULE

failures = []
passed = 0


def check(ok, what, want, got):
    global passed
    if ok:
        passed += 1
    else:
        failures.append((what, want, got))


def modname(path):
    b = os.path.basename(path)
    for suf in ('.xz', '.zst', '.gz'):
        if b.endswith(suf):
            b = b[:-len(suf)]
    if b.endswith('.ko'):
        b = b[:-3]
    return b.replace('-', '_')


class Truth(measure.Measure):
    """measure.py's calls, each with the module the trace names inside it"""

    def __init__(self):
        super().__init__()
        self.lost = 0
        self.requests_seen = 0

    def line(self, ln):
        m = measure.LINE.match(ln) if not ln.startswith(' => ') else None
        if m:
            pid = int(m.group('pid'))
            body = m.group('body')
            call = self.open.get(pid)
            if call is not None:
                x = LOAD.match(body)
                if x:
                    call['loaded'] = x.group(1)
                x = KREAD.match(body)
                if x and int(x.group(1)) == READING_MODULE and 'kread' not in call:
                    call['kread'] = modname(x.group(2))
                x = NAME.match(body)
                if x and 'lookup' not in call:
                    call['lookup'] = x.group(1)
        if m and m.group('body').startswith('module_request: '):
            # counted by the line's start: a name that ends in a newline breaks the
            # line, and the rest (wait=, call_site=) comes on the next one
            self.requests_seen += 1
        if 'LOST' in ln and 'EVENTS' in ln:
            self.lost += 1
        super().line(ln)


def truth_module(c):
    return c.get('loaded') or c.get('kread') or c.get('lookup')


def read(path, default=None):
    try:
        with open(path, errors='replace') as f:
            return f.read()
    except OSError:
        return default


def load_json(path):
    t = read(path)
    if not t:
        return None
    try:
        return json.loads(t)
    except ValueError:
        return None


def attempt_ret(a):
    e = a.get('errno')
    if a.get('ret') is not None:
        return a['ret']
    if e in (None, 0, '0', ''):
        return 0
    if isinstance(e, str):
        e = ERRNO.get(e, e)
    try:
        return -abs(int(e))
    except (TypeError, ValueError):
        return str(e)


def per_cpu_lost(text):
    lost = 0
    for ln in (text or '').splitlines():
        p = ln.split(':')
        if len(p) == 2 and p[0].strip() in ('overrun', 'dropped events'):
            try:
                lost += int(p[1])
            except ValueError:
                pass
    return lost


def read_truth(tpath):
    t = Truth()
    with open(tpath, errors='replace') as f:
        for ln in f:
            t.line(ln.rstrip('\n'))
    t.close_stack()
    return t


def link_or_copy(src, dst):
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def link_tree(src, dst):
    """src's files into dst: hard links (the module tree is large), copies across
    file systems; symbolic links as they are"""
    src = os.path.realpath(src)
    for d, dirs, files in os.walk(src):
        rel = os.path.relpath(d, src)
        out = os.path.join(dst, rel) if rel != '.' else dst
        os.makedirs(out, exist_ok=True)
        for f in files + [x for x in dirs if os.path.islink(os.path.join(d, x))]:
            s = os.path.join(d, f)
            if os.path.islink(s):
                os.symlink(os.readlink(s), os.path.join(out, f))
            else:
                link_or_copy(s, os.path.join(out, f))


def predict_root(tmp, small, image, rel, ncpus):
    """a root for `kmodtop --root` from a words boot's collection and its image"""
    def put(path, src=None, text=None):
        p = os.path.join(tmp, path)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        if src is not None:
            link_or_copy(src, p)
        else:
            with open(p, 'w') as f:
                f.write(text)
    put('proc/sys/kernel/osrelease', text=rel + '\n')
    put('proc/modules', src=os.path.join(small, 'modules.txt'))
    put('sys/kernel/tracing/trace', src=os.path.join(small, 'tracing', 'trace'))
    # the guest's kernel log (the journal: the report keeps its kernel lines)
    if os.path.exists(os.path.join(small, 'journal.txt')):
        put('capture/dmesg.txt', src=os.path.join(small, 'journal.txt'))
    # the CPU count as the guest's sysfs shows it, not left to the trace's header
    for n in range(ncpus):
        os.makedirs(os.path.join(tmp, 'sys/devices/system/cpu/cpu%d' % n), exist_ok=True)
    put('boot/config-' + rel, src=os.path.join(image, 'boot', 'config-' + rel))
    link_tree(os.path.join(image, 'lib', 'modules', rel),
              os.path.join(tmp, 'lib', 'modules', rel))


def as_int(text):
    try:
        return int((text or '').strip())
    except ValueError:
        return None


def predict(args):
    """check.py predict: see the module's docstring"""
    pos, image, kmodtop = [], None, os.environ.get('KMODTOP')
    while args:
        a = args.pop(0)
        if a in ('--root', '--kmodtop') and args:
            v = args.pop(0)
            if a == '--root':
                image = v
            else:
                kmodtop = v
        elif a.startswith('-'):
            pos = []
            break
        else:
            pos.append(a)
    if len(pos) != 2:
        sys.stderr.write(__doc__.split('\n\n')[1] + '\n')
        return 2
    small, big = pos
    here = os.path.dirname(os.path.abspath(__file__))
    kmodtop = kmodtop or os.path.join(here, '..', '..', '..', 'src', 'kmodtop')
    image = image or os.path.join(small, '..', '..', 'root')
    rel = (read(os.path.join(small, 'uname-r'), '') or '').strip()
    rel_big = (read(os.path.join(big, 'uname-r'), '') or '').strip()
    n_small = as_int(read(os.path.join(small, 'nproc')))
    n_big = as_int(read(os.path.join(big, 'nproc')))
    check(rel and rel == rel_big, 'both boots of one kernel', rel, rel_big)
    check(n_small and n_big and n_big > n_small, 'the second boot has more CPUs',
          '> %s' % n_small, n_big)
    for need in (os.path.join(small, 'tracing', 'trace'), os.path.join(small, 'modules.txt'),
                 os.path.join(big, 'tracing', 'trace'),
                 os.path.join(image, 'lib', 'modules', rel or '?'), kmodtop):
        check(os.path.exists(need), 'input %s' % need, 'present', 'missing')
    if failures:
        return report('predict', big)

    # ---- the prediction: kmodtop on the small boot's capture ----
    tmp = tempfile.mkdtemp(prefix='kmt-predict-')
    try:
        predict_root(tmp, small, image, rel, n_small)
        p = subprocess.run([kmodtop, '--root', tmp, 'report', '-j', '--cpus', str(n_big)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True)
    finally:
        if os.environ.get('KMT_PREDICT_KEEP') != '1':
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print('check: predict: root kept in %s' % tmp)
    try:
        rep = json.loads(p.stdout)
    except ValueError:
        rep = None
    check(isinstance(rep, dict), 'kmodtop report -j --cpus %s on the small boot' % n_big,
          'JSON', 'exit %d: %s' % (p.returncode, p.stderr.strip()[:300]))
    if not isinstance(rep, dict):
        return report('predict', big)
    risk = rep.get('percpu_risk') or {}
    storms = risk.get('storms') or []
    wv = (rep.get('load_attempts') or {}).get('wasted_vmap') or {}
    check(risk.get('from') == 'capture', 'the risk list from the capture', 'capture',
          risk.get('from'))
    check(risk.get('capture_ncpus') == n_small and risk.get('ncpus') == n_big,
          'capture_ncpus and ncpus', '%s, %s' % (n_small, n_big),
          '%s, %s' % (risk.get('capture_ncpus'), risk.get('ncpus')))
    check(bool(storms), 'the capture shows per-CPU storms', '>= 1', len(storms))
    check(not wv.get('unestimated') and wv.get('estimated') == wv.get('estimated_max'),
          'the small boot\'s waste estimated exactly', 'no range',
          '%s..%s, %s unestimated' % (wv.get('estimated'), wv.get('estimated_max'),
                                      wv.get('unestimated')))
    storms_small = sum(s.get('wasted') or 0 for s in storms)
    storms_at_n = risk.get('wasted_at_n') or 0
    rest = (wv.get('estimated') or 0) - storms_small
    predicted = storms_at_n + rest

    # ---- the truth: the big boot's own trace ----
    t = read_truth(os.path.join(big, 'tracing', 'trace'))
    stats_lost = per_cpu_lost(read(os.path.join(big, 'tracing', 'per_cpu_stats.txt'), ''))
    check(stats_lost == 0 and t.lost == 0, 'truth: no event lost (per_cpu stats, LOST lines)',
          0, '%d in stats, %d LOST lines' % (stats_lost, t.lost))
    check(t.unmatched == 0, 'truth: every allocation inside a call has its stack', 0,
          t.unmatched)
    by_mod = collections.defaultdict(lambda: [0, 0, 0])   # calls, failed, wasted bytes
    for c in t.calls:
        m = by_mod[truth_module(c) or '?']
        m[0] += 1
        if c['ret'] != 0:
            m[1] += 1
            m[2] += sum(c['vmap'].values())
    truth = sum(m[2] for m in by_mod.values())
    ratio = predicted / truth if truth else float('inf')
    check(truth and abs(predicted - truth) <= PREDICT_TOLERANCE * truth,
          'the risk list predicts the %s-CPU boot\'s waste within %d%%' % (
              n_big, PREDICT_TOLERANCE * 100), truth, '%d (ratio %.3f)' % (predicted, ratio))

    print('check: predict %s: %s vCPUs (%s) -> %s vCPUs (%s)' % (rel, n_small, small, n_big, big))
    print('  %-16s %-14s %5s %10s %12s %12s %12s' % ('storm', 'dependency of', 'tries',
                                                    'per try', 'at %s' % n_small,
                                                    'pred. at %s' % n_big,
                                                    'truth at %s' % n_big))
    truth_storms = 0
    for s in storms:
        m = by_mod.get(s.get('name'), [0, 0, 0])
        truth_storms += m[2]
        print('  %-16s %-14s %5s %10s %12s %12s %12s' % (
            s.get('name'), s.get('dependency_of') or '-', s.get('attempts'),
            s.get('per_attempt'), s.get('wasted'), s.get('wasted_at_n'), m[2]))
    print('  storms        predicted %12d  truth %12d  ratio %.3f' % (
        storms_at_n, truth_storms, storms_at_n / truth_storms if truth_storms else float('inf')))
    print('  other waste   at %-2s     %12d  truth %12d  (not scaled)' % (
        n_small, rest, truth - truth_storms))
    print('  whole waste   predicted %12d  truth %12d  ratio %.3f (checked: within %d%%)' % (
        predicted, truth, ratio, PREDICT_TOLERANCE * 100))
    names = set(s.get('name') for s in storms)
    missed = sorted((k, v) for k, v in by_mod.items()
                    if v[0] >= n_big and v[1] and k not in names)
    for k, v in missed:
        print('  not in the list: %s, %d calls in the %s-CPU boot, %d failed, %d bytes' % (
            k, v[0], n_big, v[1], v[2]))
    return report('predict', big)


def main(argv):
    if len(argv) >= 2 and argv[1] == 'predict':
        return predict(argv[2:])
    if len(argv) != 3 or argv[1] not in ('words', 'units'):
        sys.stderr.write(__doc__.split('\n\n')[1] + '\n')
        return 2
    mode, out = argv[1], argv[2]
    rel = (read(os.path.join(out, 'uname-r'), '?') or '?').strip()
    ncpu = (read(os.path.join(out, 'nproc'), '?') or '?').strip()

    # ---- the units ----
    units = (read(os.path.join(out, 'units.txt'), '') or '').split()
    failed = [ln.split()[0] for ln in (read(os.path.join(out, 'failed.txt'), '') or '').splitlines()
              if ln.strip()]
    check(not [u for u in failed if u.startswith('kmodtop')], 'no kmodtop unit failed '
          '(systemctl --failed)', 'none', [u for u in failed if u.startswith('kmodtop')])
    check(not os.path.exists(os.path.join(out, 'wait-timeout.txt')),
          'kmodtop units finished with the boot', 'finished',
          (read(os.path.join(out, 'wait-timeout.txt'), '') or '').strip())
    if mode == 'units':
        check(bool(units), 'kmodtop units installed', '>= 1', units)
        for u in units:
            show = dict(ln.split('=', 1) for ln in
                        (read(os.path.join(out, 'show-%s.txt' % u), '') or '').splitlines()
                        if '=' in ln)
            check(show.get('Result') == 'success', '%s Result' % u, 'success',
                  '%s (%s, status %s)' % (show.get('Result'), show.get('ExecMainCode'),
                                          show.get('ExecMainStatus')))
    # ---- the truth ----
    tpath = os.path.join(out, 'tracing', 'trace')
    if not os.path.exists(tpath):
        check(False, 'the kernel\'s trace of the boot', 'tracing/trace', 'missing')
        return report(mode, out)
    t = read_truth(tpath)
    stats_lost = per_cpu_lost(read(os.path.join(out, 'tracing', 'per_cpu_stats.txt'), ''))
    check(stats_lost == 0 and t.lost == 0, 'truth: no event lost (per_cpu stats, LOST lines)',
          0, '%d in stats, %d LOST lines' % (stats_lost, t.lost))
    check(t.unmatched == 0, 'truth: every allocation inside a call has its stack', 0, t.unmatched)
    calls = t.calls
    check(len(calls) > 0, 'truth: load calls traced', '> 0', len(calls))
    unnamed_truth = [c for c in calls if not truth_module(c)]
    truth_wasted = sum(sum(c['vmap'].values()) for c in calls if c['ret'] != 0)

    # ---- the report ----
    if mode == 'words':
        rpath = os.path.join(out, 'report-boot.json')
    else:
        rc = (read(os.path.join(out, 'report-boot.rc'), '?') or '?').strip()
        check(rc == '0', 'kmodtop report --boot in the guest exits 0', 0,
              '%s: %s' % (rc, (read(os.path.join(out, 'report-boot.err'), '') or '').strip()[:200]))
        bid = (read(os.path.join(out, 'boot_id'), '') or '').strip().replace('-', '')
        rpath = os.path.join(out, 'report_var_lib_kmodtop_boot-%s.json' % bid)
        check(os.path.exists(rpath), 'bundle of this boot in /var/lib/kmodtop',
              'boot-' + bid, sorted(f for f in os.listdir(out) if f.startswith('report_')
                                    and f.endswith('.json')))
        # a bundle left in /run (lost at reboot) is still compared with the truth, so
        # that what it holds is checked too
        if not os.path.exists(rpath):
            run = os.path.join(out, 'report_run_kmodtop_boot-%s.json' % bid)
            if os.path.exists(run):
                print('check: no bundle in /var/lib/kmodtop: checking the one in /run/kmodtop')
                rpath = run
    rep = load_json(rpath)
    check(isinstance(rep, dict), 'the report (%s) is JSON' % os.path.basename(rpath),
          'JSON', (read(rpath[:-5] + '.err', '') or 'missing')[:200])
    rows = []
    window = None
    if mode == 'units':
        # a unit of the root file system sees the boot from systemd-udevd's start on:
        # what the initramfs (its own udev workers among them) and systemd itself
        # loaded before that is the kernel log's, not the trace's (same clock: the
        # trace's global clock and CLOCK_MONOTONIC both count from boot)
        show = dict(ln.split('=', 1) for ln in
                    (read(os.path.join(out, 'show-systemd-udevd.service.txt'), '') or '')
                    .splitlines() if '=' in ln)
        try:
            window = int(show.get('ExecMainStartTimestampMonotonic')) / 1e6
        except (TypeError, ValueError):
            window = None
        check(bool(window), 'systemd-udevd\'s start time', 'a time', window)
        if window:
            calls = [c for c in calls if c['start'] >= window]
            truth_wasted = sum(sum(c['vmap'].values()) for c in calls if c['ret'] != 0)
    if isinstance(rep, dict):
        atts = rep.get('attempts') or []
        if window:
            atts = [a for a in atts if a.get('start') is None or a['start'] >= window]
        # calls the trace names must match by name too; the others (an idempotent
        # waiter reads no file and looks no name up) by pid, call and return value
        want = collections.Counter((c['pid'], c['syscall'] + '_module', c['ret'],
                                    truth_module(c)) for c in calls if truth_module(c))
        got = collections.Counter((a.get('pid'), a.get('syscall'), attempt_ret(a),
                                   a.get('module')) for a in atts)
        missing = list((want - got).elements())
        rest = got - want
        want3 = collections.Counter((c['pid'], c['syscall'] + '_module', c['ret'])
                                    for c in calls if not truth_module(c))
        got3 = collections.Counter(k[:3] for k in rest.elements())
        missing += list((want3 - got3).elements())
        extra = list((got3 - want3).elements())
        check(not missing and not extra, 'attempts = the trace\'s calls (pid, call, ret, module)',
              '%d calls' % len(calls), '%d attempts: %d missing %s, %d extra %s' % (
                  len(atts), len(missing), sorted(missing, key=str)[:4], len(extra),
                  sorted(extra, key=str)[:4]))
        un = [a for a in atts if not a.get('module')]
        check(not un, 'every attempt named', 0, len(un))
        eq = [a for a in atts if a.get('errno') == 'E?']
        check(not eq, 'no errno E?', 0, [(a.get('module'), a.get('ret')) for a in eq][:4])
        # a waiter returns its leader's result: 0 when the leader loaded the module
        bad = [(a.get('module'), a.get('ret'), a.get('outcome')) for a in atts
               if (attempt_ret(a) == 0 and a.get('outcome') not in ('loaded', 'idempotent-waiter'))
               or (attempt_ret(a) != 0 and a.get('outcome') == 'loaded')
               or a.get('outcome') == 'incomplete']
        check(not bad, 'outcome agrees with the return value', 'all', bad[:4])
        if mode == 'units':
            # from the first load call of the root file system's udev workers on,
            # every call is in the bundle
            first = min((c['start'] for c in calls if 'udev-worker' in c['comm']), default=None)
            late = collections.Counter((c['pid'], c['syscall'] + '_module', c['ret'])
                                       for c in calls if first is not None and c['start'] >= first)
            gotk = collections.Counter((a.get('pid'), a.get('syscall'), attempt_ret(a))
                                       for a in atts)
            miss = late - gotk
            tf = (rep.get('load_attempts') or {}).get('inputs', {}).get('trace_first')
            check(first is not None and not miss,
                  'bundle covers every call from the first udev worker\'s on',
                  '%d calls from %s s' % (sum(late.values()), first),
                  '%s missing (bundle\'s trace from %s s)' % (sum(miss.values()), tf))
        if mode == 'words':
            # the truth of `words` has the module events: every module_request kept
            got_req = (rep.get('load_attempts') or {}).get('autoload_requests')
            check(got_req == t.requests_seen, 'autoload requests = the trace\'s module_request '
                  'events', t.requests_seen, got_req)
        wv = (rep.get('load_attempts') or {}).get('wasted_vmap') or {}
        est = wv.get('estimated')
        if window:
            # the failed attempts' own estimates, inside the window
            est = sum((a.get('wasted_vmap') or 0) for a in atts if attempt_ret(a) != 0)
        ok = est is not None and (abs(est - truth_wasted) <= TOLERANCE * truth_wasted
                                  if truth_wasted else est == 0)
        check(ok, 'estimate within 2% of the trace\'s bytes of the failed calls',
              truth_wasted, '%s (unestimated %s)' % (est, wv.get('unestimated')))
        rows.append(('calls', len(calls), len(atts)))
        rows.append(('failed', sum(1 for c in calls if c['ret'] != 0),
                     sum(1 for a in atts if attempt_ret(a) != 0)))
        rows.append(('wasted bytes', truth_wasted, est))
    print('check: %s %s (%s vCPUs): truth %d calls%s (%d not named by the trace), '
          '%d bytes wasted' % (mode, rel, ncpu, len(calls),
                               ' from udevd\'s start at %.3f s' % window if window else '',
                               len(unnamed_truth), truth_wasted))
    for r in rows:
        print('  %-14s truth %-12s report %s' % r)
    # for the reader, not a check: what systemd-analyze security makes of the units
    for ln in (read(os.path.join(out, 'analyze-security.txt'), '') or '').splitlines():
        if 'Overall exposure level' in ln:
            print('  ' + ln.lstrip('→ ').strip())
    return report(mode, out)


def report(mode, out):
    if failures:
        print('check: %s %s: %d checks failed, %d passed' % (mode, out, len(failures), passed))
        print('  %-62s %-16s %s' % ('check', 'expected', 'got'))
        for f in failures:
            print('  %-62s %-16s %s' % tuple(str(x)[:400] for x in f))
        return 1
    print('check: %s %s: all %d checks passed' % (mode, out, passed))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
