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
  live       when the live suite ran (tests/vm/init): `report --duration` gives the
             attempts, outcomes and requesters of the offline analysis of the plain
             trace (host.out); with --measure each attempt's vmap bytes by class equal
             measure.py's for that call, to the byte; the global tracing files are
             byte-identical before and after; no instance or kprobe group is left after
             SIGINT, SIGTERM, SIGHUP, or kill -9 and a new start; the bundle `record`
             wrote reports on the host exactly as in the guest, with the live attempts;
             a stopped reader's lost events are reported (count per CPU, stderr, the
             bundle's LOST lines); --since-boot reads the log from boot; a bundle
             names its attempts from its own files as from the whole module tree.
             When the suite was to run (live_expected), every output it leaves must
             be there

A failure prints a table (step, check, expected, got) and exits 1; 0 when all pass.
Uses measure.py (the kernel-measurement side), never kmodtop's code; it runs the
kmodtop binary ($KMODTOP, else src/kmodtop) only to read the guest's bundle on the host.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure  # noqa: E402
import check_lost  # noqa: E402
import check_nonroot  # noqa: E402
import check_since_boot  # noqa: E402
from vmfiles import read, load_json_text, load_json  # noqa: E402

LOADERS = ('modprobe', 'insmod', 'rmmod', 'kmod', 'busybox')
TRUTH = re.compile(r'^TRUTH (\w+) (.*)$')
STEPS = ['modprobe-xfs', 'modprobe-xfs-again', 'storm-live-xfs', 'rmmod-xfs',
         'storm-fresh-xfs', 'missing-deps-nfs', 'bad-garbage', 'bad-raw-compressed-init',
         'bad-compressed-noflag', 'autoload-sctp-storm', 'autoload-af-key',
         'autoload-missing-bt', 'autoload-vfat', 'interrupted-waiters']
AUTOLOAD = {
    'autoload-sctp-storm': ('net-pf-2-proto-132', 'inet_create'),
    'autoload-af-key': ('net-pf-15', '__sock_create'),
    'autoload-missing-bt': ('net-pf-31', '__sock_create'),
    'autoload-vfat': ('fs-vfat', 'get_fs_type'),
}


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
         'EOPNOTSUPP': 95, 'EKEYREJECTED': 129,
         # the kernel's own, which the exit tracepoint sees before a signal is handled
         'ERESTARTSYS': 512, 'ERESTARTNOINTR': 513, 'ERESTARTNOHAND': 514,
         'ERESTART_RESTARTBLOCK': 516}


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


def attempt_key(a, offline=False):
    """what must agree; the requester's pid apart (see requester_pids). offline: as
    an analysis without live mode's kmodtop_fd markers would name it (unnamed)"""
    rq = a.get('requester') or {}
    module = None if offline and a.get('name_source') == 'live' else a.get('module')
    return (a.get('syscall'), a.get('comm'), a.get('pid'), attempt_result(a),
            a.get('outcome'), module, rq.get('comm'), rq.get('call_site'),
            rq.get('alias'))


def requester_pids(atts):
    """attempts per requester. A direct caller: per pid. Autoload: several tasks asking
    for one alias at once start as many modprobes, and which modprobe answers which
    request is not in the events (the usermode helper does not record who asked): the
    ledger ties them in time order, which two buffers may see a microsecond apart, and
    the modprobe that loads the module makes more calls than the ones that find it
    loaded. So per alias the counts are compared as a multiset, without the pids."""
    per = hist(((a.get('requester') or {}).get('pid'),
                (a.get('requester') or {}).get('alias')) for a in atts)
    direct = sorted(((pid, n) for (pid, alias), n in per.items() if alias is None), key=str)
    auto = {}
    for (pid, alias), n in per.items():
        if alias is not None:
            auto.setdefault(alias, []).append(n)
    return direct, sorted((alias, sorted(ns)) for alias, ns in auto.items())


def by_pid(items, pid='pid', start='start'):
    """calls in order per thread: the same order in every buffer that traced them"""
    return sorted(items, key=lambda a: (a.get(pid), float(a.get(start) or 0)))


def host_kmodtop():
    here = os.path.dirname(os.path.abspath(__file__))
    top = os.path.dirname(os.path.dirname(here))
    k = os.environ.get('KMODTOP', 'auto')
    if k in ('', 'none'):
        return None
    for c in ([k] if k != 'auto' else []) + [top + '/src/kmodtop', top + '/build/src/kmodtop']:
        if os.access(c, os.X_OK):
            return c
    return None


def bundle_report(k, bundle, moduledir=None):
    """(exit status, stdout) of the host kmodtop's report on a bundle; with moduledir:
    that module tree instead of the files the bundle holds"""
    args = [k, '--root', bundle] + (['--moduledir', moduledir] if moduledir else [])
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, XDG_CACHE_HOME=cache)
        res = subprocess.run(args + ['report', '-j'], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    return res.returncode, res.stdout.decode(errors='replace')


def naming_key(a):
    return (a.get('syscall'), a.get('pid'), a.get('start'), a.get('module'),
            a.get('name_source'), a.get('outcome'), attempt_result(a))


def check_bundle_tree(root, k, bundle, what, check):
    """a bundle names its attempts as the whole module tree of the guest does (the
    capture's lib/modules: the initramfs' tree): it holds every file that decides a name"""
    rel = (read(root + '/capture/uname-r', '') or '').strip()
    tree = root + '/lib/modules/' + rel
    rc1, own = bundle_report(k, bundle)
    rc2, full = bundle_report(k, bundle, tree)
    a = [naming_key(x) for x in kmodtop_attempts(load_json_text(own) or {}) or []]
    b = [naming_key(x) for x in kmodtop_attempts(load_json_text(full) or {}) or []]
    diff = [(x, y) for x, y in zip(a, b) if x != y]
    check(rc1 == 0 and rc2 == 0 and a and a == b, '-',
          '%s: attempts named from its files = from the whole tree' % what,
          '%d attempts' % len(b), 'rc %s/%s, %d vs %d, %d differ%s' % (
              rc1, rc2, len(a), len(b), len(diff), ', first %s vs %s' % diff[0] if diff else ''))
    return load_json_text(own)


def check_bundle_names(root, check, passed):
    """tests/vm/bundle-names.sh: a duplicate init_module of a Live module, which only
    its size names, is named in the bundle from the file the bundle holds"""
    d = root + '/kmodtop/bundle-names'
    txt = read(d + '/insmod.txt')
    check(txt is not None, '-', 'bundle names: bundle-names.sh ran (insmod.txt)', 'present',
          'missing')
    if txt is None:
        return
    m = re.match(r'module (\S+) file (\S+) rc (\d+)', txt)
    check(m is not None and m.group(3) != '0', '-',
          'bundle names: insmod of a Live module fails', 'rc != 0', txt.strip())
    left = re.search(r'left_instances=(\d+)', txt)
    check(left is not None and left.group(1) == '0', '-', 'bundle names: record left no instance',
          0, left and left.group(1))
    rc = (read(d + '/record.rc') or '').strip()
    check(rc == '0', '-', 'bundle names: kmodtop record exit status', 0, rc or None)
    k = host_kmodtop()
    check(k is not None, '-', 'bundle names: host kmodtop', 'src/kmodtop or $KMODTOP', None)
    if not m or not k:
        return
    doc = check_bundle_tree(root, k, d + '/bundle', 'bundle names', check) or {}
    mod = m.group(1).replace('-', '_')
    dup = [a for a in kmodtop_attempts(doc) or []
           if a.get('syscall') == 'init_module' and attempt_result(a) == -17]
    check(len(dup) == 1 and dup[0].get('module') == mod, '-',
          'bundle names: the EEXIST init_module is named %s' % mod, '1 named %s' % mod,
          [(a.get('module'), a.get('name_source')) for a in dup])
    passed.append(('-', 'bundle names: %s by %s' % (
        mod, [a.get('name_source') for a in dup])))


# Live = offline gates since both traces have the same naming events (task_rename,
# fork, exec) and the ledger names tasks from them rather than from the comm a line
# was printed with (which tracefs looks up when the line is read). The bundle's
# attempts against the live report's gate since record copies every module file the
# report's names need (size naming among the bundle's files then finds what the whole
# tree gave); they had been a warning after the two live collections (two buffers,
# each naming in flight from its own reads of /proc/PID/fd) differed once on a slow
# 6.12 guest in one xfs call's outcome (idempotent-waiter in one, duplicate-live in
# the other). VM_LIVE_GATING=0 turns these into warnings. Teardown, measurement and
# the offline checks always gate.
LIVE_GATING = ('live attempts, outcomes, requesters = offline',
               'live attempts per requester = offline',
               'bundle attempts = live attempts')


# what the live suite leaves in kmodtop/ (tests/vm/init, top-live.sh, nonroot.sh,
# mount-tracefs.sh, lost-events.sh, since-boot.sh, bundle-names.sh; host.out by
# run-qemu.sh)
LIVE_FILES = ('live.out', 'live.rc', 'record.rc', 'bundle', 'bundle-guest.out', 'host.out',
              'global-before.txt', 'global-after.txt', 'teardown.txt', 'instances-after.txt',
              'kprobe_events-after.txt', 'top.out', 'top.txt', 'nonroot/state.txt',
              'mount-tracefs/rc', 'lost/stats.txt', 'since-boot/kmsg-after.raw',
              'bundle-names/insmod.txt')


def live_expected(root):
    """Was the live suite to run? VM_EXPECT_LIVE=1|0 when set (run-qemu.sh: kmodtop in
    the initramfs, no kmt.live other than 1, KMODTOP_LIVE_ARGS not none); for a capture
    checked by hand: kmodtop ran in the guest (kmodtop/post.rc) and the kernel command
    line (capture/dmesg.txt) has no kmt.live other than 1."""
    e = os.environ.get('VM_EXPECT_LIVE')
    if e in ('0', '1'):
        return e == '1'
    cmd = re.search(r'Command line: (.*)', read(root + '/capture/dmesg.txt', '') or '')
    lv = [w.split('=', 1)[1] for w in (cmd.group(1).split() if cmd else [])
          if w.startswith('kmt.live=')]
    return os.path.exists(root + '/kmodtop/post.rc') and (not lv or lv[-1] == '1')


def live_soft(what):
    return what in LIVE_GATING and os.environ.get('VM_LIVE_GATING') == '0'


def check_live(root, m, check_hard, passed):
    """the live suite of tests/vm/init: live = offline, measurement, teardown, bundle"""
    def check(ok, step, what, exp, got):
        if not ok and live_soft(what):
            print('check-run: %s: WARN (not gating): %s: expected %.300s, got %.300s'
                  % (root, what, exp, got))
            passed.append((step, what + ' (WARN, not gating)'))
            return
        check_hard(ok, step, what, exp, got)

    kd = root + '/kmodtop'
    if live_expected(root):
        missing = [f for f in LIVE_FILES if not os.path.exists(kd + '/' + f)]
        check_hard(not missing, '-', 'live suite outputs present', 'all of %d' % len(LIVE_FILES),
                   'missing %s' % ' '.join(missing) if missing else 'all')
    live = load_json(kd + '/live.out')
    host = load_json(kd + '/host.out')
    if live is None:
        if os.path.exists(kd + '/live.out'):
            check(False, '-', 'kmodtop live output is JSON', 'JSON', 'not JSON')
        return
    latt = kmodtop_attempts(live) or []
    li = live.get('live') or {}
    tr = li.get('trace') or {}
    check(tr.get('ok') is True, '-', 'live trace collected', True, tr.get('reason') or tr.get('ok'))
    check(tr.get('lost_events') == 0, '-', 'live lost trace events', 0, tr.get('lost_events'))
    check((li.get('kmsg') or {}).get('ok') is True, '-', 'live /dev/kmsg followed', True,
          (li.get('kmsg') or {}).get('reason'))
    # vmallocinfo sampled during the run: the storm steps hold kernel_read_file areas
    # for as long as a decompress and a load take, far longer than the 200 ms interval
    vs = li.get('vmalloc_samples') or {}
    check((vs.get('samples') or 0) > 1, '-', 'live vmallocinfo sampled', '> 1',
          vs.get('samples'))
    check((vs.get('peak_inflight_bytes') or 0) > 0 and (vs.get('peak_inflight_areas') or 0) > 0,
          '-', 'live peak of loads in flight > 0', '> 0',
          (vs.get('peak_inflight_bytes'), vs.get('peak_inflight_areas')))
    check((vs.get('min_headroom_bytes') or 0) > 0, '-', 'live least vmalloc headroom known',
          '> 0', vs.get('min_headroom_bytes'))
    if vs:
        passed.append(('-', 'live vmalloc samples: %s, peak in flight %s bytes in %s areas, '
                       'least headroom %s' % (vs.get('samples'), vs.get('peak_inflight_bytes'),
                                              vs.get('peak_inflight_areas'),
                                              vs.get('min_headroom_bytes'))))
    # live = offline analysis of the plain trace of the same run
    if host is not None:
        hatt = kmodtop_attempts(host) or []
        lk = [attempt_key(a, offline=True) for a in by_pid(latt)]
        hk = [attempt_key(a) for a in by_pid(hatt)]
        check(len(lk) == len(hk), '-', 'live attempts = offline (count)', len(hk), len(lk))
        diff = [(h, g) for h, g in zip(hk, lk) if h != g]
        check(not diff and len(lk) == len(hk), '-',
              'live attempts, outcomes, requesters = offline', 'same',
              '%d differ, first %s vs %s' % (len(diff), diff[0][0], diff[0][1]) if diff else 'same')
        check(requester_pids(latt) == requester_pids(hatt), '-',
              'live attempts per requester = offline', requester_pids(hatt), requester_pids(latt))
        # naming in flight: what offline left unnamed, live named from the call's fd
        for name, atts in (('live', latt), ('record', kmodtop_attempts(load_json(kd + '/bundle-guest.out') or {}) or [])):
            un = [(h, a) for h, a in zip(by_pid(hatt), by_pid(atts))
                  if h.get('module') is None and h.get('syscall') == 'finit_module']
            named = [a.get('module') for h, a in un if a.get('name_source') == 'live']
            print('check-run: %s: naming in flight (%s): %d of %d finit attempts unnamed offline '
                  'named live %s' % (root, name, len(named), len(un), named))
            passed.append(('-', 'live naming (%s): %d of %d' % (name, len(named), len(un))))
        bad = [(h.get('module'), a.get('module')) for h, a in zip(by_pid(hatt), by_pid(latt))
               if a.get('name_source') == 'live' and h.get('module') is not None]
        check(not bad, '-', 'live names only what offline left unnamed', 'none', bad[:3])
    # --measure: each attempt's bytes by class = measure.py's, to the byte
    mode = tr.get('measure')
    if mode in ('tracepoint', 'kprobe'):
        calls = by_pid(m.calls)
        la = by_pid(latt)
        check(len(calls) == len(la), '-', 'live measured attempts = trace calls', len(calls), len(la))
        bad = []
        total = 0
        for c, a in zip(calls, la):
            exp = {k: v for k, v in c['vmap'].items() if v}
            got = {k: v for k, v in (a.get('vmap') or {}).items() if v}
            total += sum(exp.values())
            if exp != got or c['pid'] != a.get('pid'):
                bad.append((c['pid'], c['syscall'], exp, got))
        check(not bad, '-', 'live --measure (%s) = stack-trace measurement' % mode, 'same',
              '%d differ, first %s' % (len(bad), bad[0]) if bad else 'same')
        if not bad:
            passed.append(('-', 'live --measure matched %d bytes in %d calls' % (total, len(calls))))
    elif mode is not None:
        check(mode != 'none', '-', 'live --measure mode', 'tracepoint|kprobe',
              '%s (%s)' % (mode, tr.get('measure_reason')))
    # global tracing state
    before, after = read(kd + '/global-before.txt'), read(kd + '/global-after.txt')
    if before is not None:
        first = None
        # event systems of modules the workload loaded come and go: not kmodtop's doing
        sysre = re.compile(r'/events/([^/]+)/')

        def systems(text):
            return set(m_.group(1) for m_ in sysre.finditer(text or ''))

        moving = systems(before) ^ systems(after)

        def stable(text):
            return '\n'.join(ln for ln in (text or '').splitlines()
                             if not (sysre.search(ln) and sysre.search(ln).group(1) in moving))
        before, after = stable(before), stable(after)
        if before != after:
            bl, al = before.splitlines(), (after or '').splitlines()
            for i in range(max(len(bl), len(al))):
                x = bl[i] if i < len(bl) else '<none>'
                y = al[i] if i < len(al) else '<none>'
                if x != y:
                    first = '%s -> %s' % (x, y)
                    break
        check(before == after, '-', 'global tracing files unchanged', 'identical', first or 'identical')
    # teardown on each signal, and cleanup of a kill -9 by the next start
    td = read(kd + '/teardown.txt')
    if td is not None:
        got = {}
        for ln in td.splitlines():
            p = ln.split()
            if p:
                # "SIGINT rc=0 left_instances=0 left_probes=0 during:left_instances=1 ..."
                after_ = []
                for x in p[1:]:
                    if x.startswith('during:'):
                        break
                    after_.append(x)
                got[p[0]] = dict(x.split('=', 1) for x in after_ if '=' in x)
        for sig in ('SIGINT', 'SIGTERM', 'SIGHUP'):
            g = got.get(sig, {})
            check(g.get('rc') == '0', '-', 'kmodtop ended by %s exit status' % sig, 0, g.get('rc'))
            check(g.get('left_instances') == '0' and g.get('left_probes') == '0', '-',
                  'nothing left after %s' % sig, 'none', '%s instances, %s probes' % (
                      g.get('left_instances'), g.get('left_probes')))
        g = got.get('SIGKILL', {})
        check(g.get('left_instances', '0') != '0', '-', 'kill -9 leaves its instance (test is real)',
              '>0', g.get('left_instances'))
        g = got.get('restart', {})
        check(g.get('rc') == '0' and g.get('left_instances') == '0' and g.get('left_probes') == '0',
              '-', 'a new start removes what kill -9 left', 'rc=0, none left',
              'rc=%s, %s instances, %s probes' % (g.get('rc'), g.get('left_instances'),
                                                  g.get('left_probes')))
        err = read(kd + '/restart.err', '')
        check('removed 1 tracefs instance' in err, '-', 'the new start says what it removed',
              'removed 1 tracefs instance', err.strip().splitlines()[0] if err.strip() else 'nothing')
    # the bundle: the host reads what the guest read, and the live attempts
    bundle = kd + '/bundle'
    guest = read(kd + '/bundle-guest.out')
    if os.path.isdir(bundle) and guest:
        k = host_kmodtop()
        if not k:
            check_hard(not live_expected(root), '-', 'host kmodtop to read the bundle',
                       'src/kmodtop or $KMODTOP', 'none')
            return
        rc, out = bundle_report(k, bundle)
        check(rc == 0, '-', 'host kmodtop on the bundle exit status', 0, rc)
        hb = out.replace(bundle, 'BUNDLE')
        gb = guest.replace('/capture/kmodtop/bundle', 'BUNDLE')
        first = None
        if hb != gb:
            try:
                a, b = json.loads(gb), json.loads(hb)
                diffs = []

                def walk(x, y, path):
                    if type(x) is not type(y) or not isinstance(x, (dict, list)):
                        if x != y:
                            diffs.append('%s: %r vs %r' % (path, x, y))
                        return
                    if isinstance(x, dict):
                        for key in sorted(set(x) | set(y)):
                            walk(x.get(key), y.get(key), path + '.' + key)
                    else:
                        if len(x) != len(y):
                            diffs.append('%s: %d vs %d items' % (path, len(x), len(y)))
                        for i, (u, v) in enumerate(zip(x, y)):
                            walk(u, v, '%s[%d]' % (path, i))
                walk(a, b, '')
                first = '%d differences, first %s' % (len(diffs), diffs[0] if diffs else '?')
            except ValueError:
                first = 'not JSON'
        check(hb == gb, '-', 'bundle: host report = guest report', 'identical', first or 'identical')
        batt = kmodtop_attempts(load_json(kd + '/bundle-guest.out') or {}) or []
        # two collections, each naming from its own reads of /proc/PID/fd: compared
        # without those names
        lk = [attempt_key(a, offline=True) for a in by_pid(latt)]
        bk = [attempt_key(a, offline=True) for a in by_pid(batt)]
        diff = [(x, y) for x, y in zip(bk, lk) if x != y]
        check(lk == bk, '-', 'bundle attempts = live attempts', len(lk),
              'same' if lk == bk else '%d vs %d, %d differ, first %s vs %s' % (
                  len(bk), len(lk), len(diff), diff[0][0] if diff else '-',
                  diff[0][1] if diff else '-'))
        check(requester_pids(batt) == requester_pids(latt), '-',
              'bundle attempts per requester = live', requester_pids(latt), requester_pids(batt))
        check_bundle_tree(root, k, bundle, 'bundle', check)


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
        # a handler without SA_RESTART sees EINTR where the kernel returned ERESTART*
        hg = hist(-4 if c['ret'] in (-512, -513, -514, -516) else c['ret'] for c in got)
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
    if live_expected(root):
        check(os.path.isdir(kd), '-', 'kmodtop ran in the guest (kmodtop/)', 'present', 'missing')
    if os.path.isdir(kd):
        for run in ('live', 'post', 'host', 'record', 'bundle-guest'):
            rc = read('%s/%s.rc' % (kd, run))
            if rc is not None:
                check(rc.strip() == '0', '-', 'kmodtop %s exit status' % run, 0, rc.strip())
        inst = read(kd + '/instances-after.txt')
        if inst is not None:
            left = [x for x in inst.split() if x.startswith('kmodtop')]
            check(not left, '-', 'tracefs instances left by kmodtop', 'none', left or 'none')
        kp = read(kd + '/kprobe_events-after.txt')
        if kp is not None:
            # kmodtop's own groups are kmodtop_PID; the test bed's probes are group kmt
            left = [x for x in kp.splitlines() if re.search(r':kmodtop_[0-9]+/', x)]
            check(not left, '-', 'kprobe events left by kmodtop', 'none', len(left))
        for run in ('live', 'post', 'host'):
            out = read('%s/%s.out' % (kd, run))
            # it ran (its exit status is there) and printed nothing: no result, no pass
            if read('%s/%s.rc' % (kd, run)) is not None:
                check(bool(out and out.strip()), '-', 'kmodtop %s output' % run, 'output',
                      'empty' if out is not None else 'missing')
            if not out:
                continue
            try:
                doc = json.loads(out)
            except ValueError:
                passed.append(('-', 'kmodtop %s output is not JSON: not compared' % run))
                continue
            att = kmodtop_attempts(doc)
            # no attempts at all is compared (and fails where the trace has calls)
            if att is None or not all(isinstance(a, dict) and 'start' in a for a in att):
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
                if step == 'interrupted-waiters':
                    # every call a signal ended is named and its errno has a name
                    bad = [a for a in got if not a.get('module') or
                           (a.get('errno') and a.get('errno') not in ERRNO)]
                    check(not bad, step, 'kmodtop %s interrupted calls named' % run, 0,
                          ['%s %s %s' % (a.get('errno'), a.get('outcome'), a.get('module'))
                           for a in bad[:5]])
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

        # the live runs ended with the first workload: its part of the trace (run-qemu.sh)
        main = root + '/capture/trace-main.txt'
        check_live(root, measure.measure_file(main) if os.path.exists(main) else m, check,
                   passed)
        check_nonroot.check_nonroot(root, check, passed)
        check_nonroot.check_mount(root, check, passed)
        if live_expected(root) or os.path.isdir(kd + '/lost'):
            check_lost.check_lost(root, check, passed)
        if live_expected(root) or os.path.isdir(kd + '/since-boot'):
            check_since_boot.check_since_boot(root, check, passed)
        if live_expected(root) or os.path.isdir(kd + '/bundle-names'):
            check_bundle_names(root, check, passed)

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
