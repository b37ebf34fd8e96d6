"""kmodtop without root in the guest (tests/vm/nonroot.sh): it runs on what is
readable, exits 0, and says which sources are missing and why."""
import json
import os

from vmfiles import read as _read, load_json as _json


def check_nonroot(root, check, passed):
    d = root + '/kmodtop/nonroot'
    state = _read(d + '/state.txt')
    if state is None:
        return
    st = {}
    for ln in state.splitlines():
        k, _, v = ln.partition(' ')
        st[k] = v
    check(st.get('id', '').startswith('uid=1000'), '-', 'nonroot: runs as uid 1000', 'uid=1000',
          st.get('id'))
    for run in ('report', 'report-text', 'duration', 'duration-text', 'duration-kmsg'):
        rc = (_read('%s/%s.rc' % (d, run)) or '').strip()
        check(rc == '0', '-', 'nonroot: kmodtop %s exit status (missing sources warn)' % run,
              0, rc or None)
    # report: vmallocinfo and MODULE_STATS refused, each said with what it needs
    rep = _json(d + '/report.out') or {}
    err = _read(d + '/report.err') or ''
    src = rep.get('sources') or {}
    vi = src.get('vmallocinfo') or {}
    check(vi.get('ok') is False and vi.get('error') == 'EACCES' and 'root' in (vi.get('reason') or ''),
          '-', 'nonroot: sources.vmallocinfo refused, reason says root', 'EACCES, needs root',
          '%s %s' % (vi.get('error'), vi.get('reason')))
    check("'proc/vmallocinfo': Permission denied: proc/vmallocinfo is readable by root only" in err,
          '-', 'nonroot: stderr says vmallocinfo needs root', 'warning', err.strip()[:200])
    ms = src.get('module_stats') or {}
    if ms.get('ok') is False:
        check('root' in (ms.get('reason') or '') and 'modules/stats' in err, '-',
              'nonroot: MODULE_STATS refusal explained', 'needs root', ms.get('reason'))
    check(bool(rep.get('modules')), '-', 'nonroot: modules reported from proc/modules', '>0',
          len(rep.get('modules') or []))
    # zero addresses in proc/modules: explained on stderr and in the report
    line = st.get('modules-line', '')
    if line.rstrip().endswith(' 0x0000000000000000'):
        check("every module address reads as 0" in err, '-',
              'nonroot: proc/modules zero addresses explained (stderr)', 'warning', err.strip()[:200])
        notes = json.dumps(rep.get('module_memory') or {})
        check('address join needs root' in notes, '-',
              'nonroot: proc/modules zero addresses noted in the report', 'note', notes[:200])
    else:
        passed.append(('-', 'nonroot: proc/modules shows addresses (%s)' % line[-20:]))
    txt = _read(d + '/report-text.out') or ''
    check('vmallocinfo not readable' in txt and 'readable by root only' in txt, '-',
          'nonroot: text report says vmallocinfo needs root', 'said', 'not said')
    # --duration: no trace (tracefs needs root), kmsg as dmesg_restrict allows
    for run, restrict in (('duration', st.get('dmesg_restrict')), ('duration-kmsg', '0')):
        doc = _json('%s/%s.out' % (d, run)) or {}
        li = doc.get('live') or {}
        tr = li.get('trace') or {}
        e = _read('%s/%s.err' % (d, run)) or ''
        check(tr.get('ok') is False and tr.get('error') == 'EACCES' and
              'needs root' in (tr.get('reason') or '') and 'no trace: ' in e, '-',
              'nonroot: %s: live.trace missing, needs root' % run, 'EACCES needs root',
              '%s %s' % (tr.get('error'), tr.get('reason')))
        km = li.get('kmsg') or {}
        if restrict == '1':
            check(km.get('ok') is False and 'dmesg_restrict=1' in (km.get('reason') or '') and
                  'dmesg_restrict=1' in e, '-',
                  'nonroot: %s: /dev/kmsg refused under dmesg_restrict=1, said' % run,
                  'refused, reason', '%s %s' % (km.get('ok'), km.get('reason')))
        else:
            check(km.get('ok') is True, '-', 'nonroot: %s: /dev/kmsg followed (dmesg_restrict=0)'
                  % run, True, km.get('reason'))
    check(st.get('instances-after') == '0', '-', 'nonroot: no instance left', '0',
          st.get('instances-after'))


def check_mount(root, check, passed):
    """tests/vm/mount-tracefs.sh: no tracefs mounted; kmodtop mounts its own, and
    nothing is left mounted after it"""
    d = root + '/kmodtop/mount-tracefs'
    if not os.path.isdir(d):
        return
    before = (_read(d + '/mounts-before.txt') or '').strip()
    after = (_read(d + '/mounts-after.txt') or '').strip()
    rc = (_read(d + '/rc') or '').strip()
    doc = _json(d + '/out') or {}
    tr = (doc.get('live') or {}).get('trace') or {}
    check(before == '', '-', 'mount-tracefs: the test namespace has no tracefs (test is real)',
          'none', before or 'none')
    check(rc == '0', '-', 'mount-tracefs: kmodtop exit status', 0, rc or None)
    check(tr.get('ok') is True and tr.get('tracefs_mounted_by_kmodtop') is True, '-',
          'mount-tracefs: kmodtop mounted tracefs and traced', 'mounted, ok',
          '%s %s' % (tr.get('tracefs_mounted_by_kmodtop'), tr.get('ok') or tr.get('reason')))
    check(after == '', '-', 'mount-tracefs: nothing left mounted', 'none', after or 'none')
