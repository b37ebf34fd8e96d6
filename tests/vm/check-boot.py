#!/usr/bin/env python3
"""tests/vm/check-boot.py ROOT — `kmodtop report --boot` against the boot storm's truths.

The guest booted with the words of `kmodtop boot-setup --cmdline` (run-qemu.sh,
VM_BOOT=1): the top-level trace buffer traced module loads from the kernel's start.
First thing, its init (kmt.boot=1, tests/vm/boot-storm.sh) measured in an instance of
its own, ran the boot storm (`workload -w boot`: boot-coldplug, many concurrent kmod
modprobes of the same modules; boot-autoload, concurrent mounts whose fs types the
kernel autoloads, each from a requester of its own name), ran `kmodtop report --boot
-j` and kept everything in ROOT/boot/. Checks:

  kernel     the words run-qemu.sh gave qemu (boot/boot-cmdline.txt) reached
             /proc/cmdline whole; what they did: every trace_event= event enabled in the top
             level, every kprobe_event= probe placed and enabled, nooverwrite; no
             event lost in either buffer (per-CPU stats); the top-level trace holds
             the load syscalls of the storm (syscall events enabled at boot record)
  truth      per step, the load calls of the workload's log (kmt-truth.so's lines:
             pid, syscall, module, return value; the modprobes the kernel started
             included) equal the measurement instance's calls (test bed self-check)
  report     exit status 0, JSON with a "boot" section that names its source (the
             kernel command line, the global trace file, /dev/kmsg), nothing lost,
             no Live module it has no load of; per step its attempts equal the
             workload's log exactly: (pid, syscall, module, return value) as a
             multiset, every attempt named; the autoload step's attempts are tied to
             the fs-* aliases and the udev-worker-N requesters, its autoload table
             counts the kernel's module_request events per alias
  estimate   per step, the report's estimate of the failed calls' vmap bytes is within
             2% of the kernel's measurement (measure.py on the instance's trace)
Exit status 0 when every check passes, 1 otherwise, 77 when the capture has no boot
phase (ROOT/boot/capture missing: the guest did not run with kmt.boot=1).
"""
import json
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure  # noqa: E402
from vmfiles import read  # noqa: E402

STEPS = ('boot-coldplug', 'boot-autoload')
TOLERANCE = 0.02
TRUTH = re.compile(r'^TRUTH (\w+) (.*)$')
ERRNO = {'EPERM': 1, 'ENOENT': 2, 'EINTR': 4, 'ENOEXEC': 8, 'EBADF': 9, 'ENOMEM': 12,
         'EBUSY': 16, 'EEXIST': 17, 'ENODEV': 19, 'EINVAL': 22, 'ETXTBSY': 26, 'EFBIG': 27,
         'ENOTBLK': 15, 'EOPNOTSUPP': 95, 'EKEYREJECTED': 129,
         # the kernel's own, which the exit tracepoint sees before a signal is handled
         'ERESTARTSYS': 512, 'ERESTARTNOINTR': 513, 'ERESTARTNOHAND': 514,
         'ERESTART_RESTARTBLOCK': 516}
SYSCALL = {'finit': 'finit_module', 'init': 'init_module'}

failures = []
passed = 0


def check(ok, step, what, want, got):
    global passed
    if ok:
        passed += 1
    else:
        failures.append((step, what, want, got))


def hist(values):
    h = {}
    for v in values:
        h[v] = h.get(v, 0) + 1
    return h


def multiset_diff(want, got):
    """(missing, extra): what want has that got lacks, and the other way round"""
    hw, hg = hist(want), hist(got)
    missing = sorted((k for k in hw for _ in range(hw[k] - hg.get(k, 0))), key=str)
    extra = sorted((k for k in hg for _ in range(hg[k] - hw.get(k, 0))), key=str)
    return missing, extra


def truth_lines(path):
    out = []
    for ln in (read(path, '') or '').splitlines():
        m = TRUTH.match(ln)
        if not m:
            continue
        kv = dict(x.split('=', 1) for x in m.group(2).split() if '=' in x)
        kv['kind'] = m.group(1)
        try:
            kv['t'] = float(kv.get('t', 'nan'))
            kv['pid'] = int(kv.get('pid', '0'))
            ret = int(kv.get('ret', kv.get('status', '0')))
            err = int(kv.get('errno', '0'))
        except ValueError:
            continue
        kv['result'] = -err if ret < 0 else ret
        out.append(kv)
    return out


def step_windows(path):
    wins = []
    for ln in (read(path, '') or '').splitlines():
        p = ln.split()
        if len(p) == 4 and p[0] == 'STEP':
            wins.append((p[1], float(p[2].split('=')[1]), float(p[3].split('=')[1])))
    return wins


def step_of(t, wins):
    for name, a, b in wins:
        if a <= t <= b:
            return name
    return '(no step)'


def attempt_result(a):
    e = a.get('errno')
    if isinstance(e, str):
        e = ERRNO.get(e, e)
    if e in (None, 0, '0', ''):
        return 0 if a.get('ret') in (None, 0) else a.get('ret')
    try:
        return -abs(int(e))
    except (TypeError, ValueError):
        return str(e)


def stats_lost(text):
    """{(buffer, cpu): lost} from boot-storm.sh's stats lines"""
    lost = {}
    for ln in (text or '').splitlines():
        p = ln.split()
        if len(p) < 2:
            continue
        kv = dict(x.split(':', 1) for x in p[2:] if ':' in x)
        n = 0
        for k in ('overrun', 'droppedevents'):
            try:
                n += int(kv.get(k, '0'))
            except ValueError:
                pass
        lost[(p[0], p[1])] = n
    return lost


def section(text, name):
    m = re.search(r'^== %s\n(.*?)(?=^== |\Z)' % re.escape(name), text or '', re.M | re.S)
    return m.group(1) if m else None


def check_kernel(bd, cmdline):
    """what the boot words did, from global-boot.txt (kept before anything touched
    tracing) and the per-CPU stats"""
    gb = read(bd + '/global-boot.txt', '') or ''
    words = cmdline.split()
    ev = [w.split('=', 1)[1] for w in words if w.startswith('trace_event=')]
    kp = [w.split('=', 1)[1] for w in words if w.startswith('kprobe_event=')]
    check(bool(ev), '-', 'the command line has trace_event=', 'present', cmdline[:200])
    check(bool(kp), '-', 'the command line has kprobe_event=', 'present', cmdline[:200])
    set_event = (section(gb, 'set_event') or '').split()
    want = [e for w in ev for e in w.split(',') if e]
    missing = [e for e in want if e not in set_event]
    check(not missing and want, '-', 'trace_event= events enabled at boot (set_event)',
          '%d events' % len(want), 'missing %s' % missing if missing else 'all')
    kpe = section(gb, 'kprobe_events') or ''
    probes = []
    for w in kp:
        for d in w.split(';'):
            m = re.match(r'^[pr]:([^/,]+)/([^,]+),([^,]+)', d)
            if m:
                probes.append((m.group(1), m.group(2), m.group(3)))
    check(bool(probes), '-', 'kprobe_event= probes in the command line', '>0', len(probes))
    for grp, ev_, sym in probes:
        placed = re.search(r'^[pr]:%s/%s %s\b' % (re.escape(grp), re.escape(ev_), re.escape(sym)),
                           kpe, re.M)
        check(placed is not None, '-', 'kprobe %s/%s placed at boot (kprobe_events)' % (grp, ev_),
              sym, 'absent')
        en = re.search(r'events/%s/%s/enable:(\d)' % (re.escape(grp), re.escape(ev_)),
                       section(gb, 'kprobe events enabled') or '')
        check(en is not None and en.group(1) == '1', '-',
              'kprobe %s/%s enabled in the top level at boot' % (grp, ev_), 1,
              en.group(1) if en else 'no enable file')
    opts = (section(gb, 'trace_options') or '').split()
    if any(w.startswith('trace_options=') and 'nooverwrite' in w for w in words):
        check('nooverwrite' in opts, '-', 'trace_options=nooverwrite at boot', 'nooverwrite',
              'overwrite' if 'overwrite' in opts else 'unknown')
    lost = stats_lost(read(bd + '/stats.txt', ''))
    check(bool(lost), '-', 'per-CPU stats of both buffers', 'present', 'missing')
    bad = {'%s %s' % k: v for k, v in lost.items() if v}
    check(not bad, '-', 'events lost (overrun, dropped) in the measurement and the top level',
          0, bad or 0)
    clock = re.search(r'\[(\w+)\]', section(gb, 'trace_clock') or '')
    clock = clock.group(1) if clock else None
    # a clock given at boot is kept: no switch at late_initcall, so no reset of the buffer
    given = [w.split('=', 1)[1] for w in words if w.startswith('trace_clock=')]
    if given:
        check(clock == given[-1], '-', 'trace_clock= kept after boot', given[-1], clock)
    return clock


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    root = argv[1].rstrip('/')
    bd = root + '/boot'
    if not os.path.isdir(bd + '/capture'):
        print('check-boot: %s: no boot phase (%s/capture; kmt.boot=1 not on the guest\'s '
              'command line)' % (root, bd))
        return 77
    gb = read(bd + '/global-boot.txt', '') or ''
    cmdline = (section(gb, '/proc/cmdline') or '').strip()
    given = (read(bd + '/boot-cmdline.txt', '') or '').split()
    if given:
        # run-qemu.sh's words reached the kernel whole ($argN, ';' and '(' unquoted)
        lost = [w for w in given if w not in cmdline.split()]
        check(not lost, '-', 'the boot words given to qemu are in /proc/cmdline',
              '%d words' % len(given), 'missing %s' % lost if lost else 'all')
    clock = check_kernel(bd, cmdline)

    # ---- the truths: the workload's log and the kernel's measurement ----
    wins = step_windows(bd + '/capture/workload-steps.log')
    check([w[0] for w in wins] == list(STEPS), '-', 'boot steps ran (workload-steps.log)',
          list(STEPS), [w[0] for w in wins])
    truths = truth_lines(bd + '/capture/workload.log')
    calls = [t for t in truths if t['kind'] in SYSCALL]
    want = {}
    for t in calls:
        want.setdefault(step_of(t['t'], wins), []).append(
            (t['pid'], SYSCALL[t['kind']], t.get('module'), t['result']))
    unnamed = [t for t in calls if t.get('module') in (None, '?')]
    check(not unnamed, '-', 'every logged call names its module (kmt-truth.so)', 0,
          len(unnamed))
    probes = [t for t in truths if t['kind'] == 'modprobe']
    check(probes and all(t['result'] == 0 for t in probes), 'boot-coldplug',
          'the workload\'s modprobes exited 0', '%d x 0' % len(probes),
          hist(t['result'] for t in probes))
    mounts = [t for t in truths if t['kind'] == 'mount']
    mode = (read(bd + '/measure-mode.txt', '') or '').strip()
    check(mode in ('vmalloc-tracepoints', 'vmalloc-kprobes'), '-', 'measurement mode',
          'vmalloc-*', mode or 'none')
    mtrace = bd + '/measure-trace.txt'
    if not os.path.exists(mtrace):
        check(False, '-', 'measurement trace', 'present', 'missing')
        return report_out(root)
    mm = measure.measure_file(mtrace)
    meas = mm.result()['steps']
    check(mm.unmatched == 0, '-', 'allocations without a stack trace (measurement)', 0,
          mm.unmatched)
    mcalls = {}
    for c in mm.calls:
        mcalls.setdefault(c['step'], []).append(c)
    # the top level traced the storm's load syscalls with the events the boot enabled
    gm = measure.measure_file(bd + '/trace.txt')
    gcalls = {}
    for c in gm.calls:
        gcalls.setdefault(c['step'], []).append(c)
    for step in STEPS:
        exp = want.get(step, [])
        check(len(exp) > 0, step, 'load calls in the workload log', '>0', len(exp))
        got = [(c['pid'], c['syscall'] + '_module', c['ret']) for c in mcalls.get(step, [])]
        e3 = [(p, s, r) for p, s, m, r in exp]
        mis, ext = multiset_diff(e3, got)
        check(not mis and not ext, step, 'measurement calls = workload log (pid, call, ret)',
              '%d calls' % len(e3), 'missing %s extra %s' % (mis[:4], ext[:4]))
        got = [(c['pid'], c['syscall'] + '_module', c['ret']) for c in gcalls.get(step, [])]
        mis, ext = multiset_diff(e3, got)
        check(not mis and not ext, step,
              'top-level trace (boot\'s syscall events) = workload log', '%d calls' % len(e3),
              'missing %d extra %d, first %s' % (len(mis), len(ext), (mis + ext)[:2]))

    # ---- kmodtop report --boot ----
    rc = (read(bd + '/report.rc', '') or '').strip()
    err = (read(bd + '/report.err', '') or '').strip()
    check(rc == '0', '-', 'kmodtop report --boot exit status', 0,
          '%s %s' % (rc or 'none', err[:200]))
    try:
        rep = json.loads(read(bd + '/report.json', '') or '')
    except ValueError:
        rep = None
    check(rep is not None, '-', 'kmodtop report --boot JSON', 'JSON', 'not JSON')
    if rep is None:
        return report_out(root)
    boot = rep.get('boot')
    check(isinstance(boot, dict), '-', 'the report has a boot section', 'present',
          'missing')
    boot = boot if isinstance(boot, dict) else {}
    src = boot.get('source') or ''
    check('command line' in src and 'global' in src, '-',
          'boot source: the command line\'s global trace buffer', 'kernel command line '
          '(global trace buffer)', src or None)
    tr = boot.get('trace') or ''
    check(tr.endswith('/tracing/trace') and '/instances/' not in tr, '-',
          'boot trace: the top level\'s trace file', '.../tracing/trace', tr or None)
    check(boot.get('log') == '/dev/kmsg', '-', 'boot kernel log', '/dev/kmsg', boot.get('log'))
    check(boot.get('events_lost') == 0, '-', 'boot events lost (report)', 0,
          boot.get('events_lost'))
    check(boot.get('untraced_modules_count') == 0, '-',
          'Live modules without a load in the capture', 0,
          '%s %s' % (boot.get('untraced_modules_count'),
                     [r.get('module') for r in rep.get('boot_untraced_modules') or []]))
    fa = boot.get('first_attempt_s')
    t0 = min((c['start'] for c in gm.calls), default=None)
    check(fa is not None and t0 is not None and abs(fa - t0) < 0.001, '-',
          'first load attempt (s after kernel start) = the top-level trace\'s', t0, fa)
    atts = rep.get('attempts') or []
    steps = {s.get('name'): s for s in rep.get('steps') or [] if isinstance(s, dict)}
    rows = []
    for step in STEPS:
        exp = want.get(step, [])
        sa = [a for a in atts if a.get('step') == step]
        got = [(a.get('pid'), a.get('syscall'), a.get('module'), attempt_result(a)) for a in sa]
        mis, ext = multiset_diff(exp, got)
        check(not mis and not ext and len(exp) == len(got), step,
              'report attempts = workload log (pid, call, module, ret)', '%d attempts' % len(exp),
              '%d: missing %s extra %s' % (len(got), mis[:3], ext[:3]))
        un = [a for a in sa if not a.get('module')]
        check(not un, step, 'every attempt named', 0, len(un))
        if step == 'boot-autoload':
            bad = [(a.get('pid'), (a.get('requester') or {}).get('alias'),
                    (a.get('requester') or {}).get('comm')) for a in sa
                   if not str((a.get('requester') or {}).get('alias') or '').startswith('fs-')
                   or not str((a.get('requester') or {}).get('comm') or '').startswith('udev-worker-')]
            check(not bad, step, 'attempts tied to an fs-* request of a udev-worker-N', 'all',
                  bad[:3] or 'all')
            mreq = hist(r['alias'] for r in mm.request_list if r['step'] == step)
            rreq = {}
            for r in rep.get('autoload') or []:
                if str(r.get('alias')).startswith('fs-'):
                    rreq[r['alias']] = rreq.get(r['alias'], 0) + (r.get('requests') or 0)
            check(mreq == rreq and mreq, step, 'autoload requests per alias = the kernel\'s',
                  mreq, rreq)
            rt = set(r.get('type') for r in mounts)
            check(len(mounts) > 0 and rt == {'iso9660', 'squashfs'}, step,
                  'the workload\'s mounts (requesters)', 'iso9660 and squashfs',
                  '%d mounts %s' % (len(mounts), sorted(rt)))
        else:
            bad = [(a.get('pid'), (a.get('requester') or {}).get('alias')) for a in sa
                   if (a.get('requester') or {}).get('alias')]
            check(not bad, step, 'coldplug attempts are direct modprobe calls (no alias)',
                  'none', bad[:3] or 'none')
        ms = meas.get(step) or {}
        mw = ms.get('wasted_vmap_total')
        rs = steps.get(step)
        check(rs is not None, step, 'the report has the step', 'present', 'missing')
        est = ((rs or {}).get('wasted_vmap') or {}).get('estimated')
        ok = mw is not None and est is not None and (
            abs(est - mw) <= TOLERANCE * mw if mw else est == 0)
        check(ok, step, 'estimate within 2% of the measurement', mw, est)
        rows.append((step, len(exp), len(got), ms.get('calls'), mw, est,
                     '%.2f%%' % (100.0 * (est - mw) / mw) if mw and est is not None else '-'))

    print('check-boot: %s: trace clock %s, first event %s s, first attempt %s s' % (
        root, clock, boot.get('first_event_s'), boot.get('first_attempt_s')))
    print('  %-14s %6s %8s %9s %12s %12s %8s' % ('step', 'logged', 'reported', 'measured',
                                               'wasted meas', 'estimated', 'diff'))
    for r in rows:
        print('  %-14s %6d %8d %9s %12s %12s %8s' % r)
    return report_out(root)


def report_out(root):
    if failures:
        print('check-boot: %s: %d checks failed, %d passed' % (root, len(failures), passed))
        print('  %-14s %-58s %-16s %s' % ('step', 'check', 'expected', 'got'))
        for f in failures:
            print('  %-14s %-58s %-16s %s' % tuple(str(x)[:300] for x in f))
        return 1
    print('check-boot: %s: all %d checks passed' % (root, passed))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
