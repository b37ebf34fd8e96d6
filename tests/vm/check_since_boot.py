"""--since-boot in the guest (tests/vm/since-boot.sh): the records kmodtop read against
the records the kernel held, as the workload copied them from /dev/kmsg."""
import re

from vmfiles import read as _read, load_json as _json


def _kmsg_records(text):
    """records of a /dev/kmsg copy: "prio,seq,usec,flags;msg" lines (continuation
    lines start with a space)"""
    return [ln for ln in (text or '').splitlines() if re.match(r'^\d+,\d+,\d+,', ln)]


def check_since_boot(root, check, passed):
    d = root + '/kmodtop/since-boot'
    before = _read(d + '/kmsg-before.raw')
    after = _read(d + '/kmsg-after.raw')
    check(before is not None and after is not None, '-',
          'since-boot: since-boot.sh ran (kmsg-before.raw, kmsg-after.raw)', 'present',
          'missing')
    if before is None or after is None:
        return
    nb, na = len(_kmsg_records(before)), len(_kmsg_records(after))
    first = (_kmsg_records(before) or [''])[0]
    check(';Linux version ' in first, '-', 'since-boot: the kernel still holds its boot banner',
          'Linux version ...', first[:80])
    runs = {}
    for run in ('since-boot', 'from-now'):
        rc = (_read('%s/%s.rc' % (d, run)) or '').strip()
        check(rc == '0', '-', 'since-boot: kmodtop %s exit status' % run, 0, rc or None)
        doc = _json('%s/%s.out' % (d, run)) or {}
        km = (doc.get('live') or {}).get('kmsg') or {}
        runs[run] = km
        check(km.get('ok') is True and km.get('since_boot') is (run == 'since-boot'), '-',
              'since-boot: %s live.kmsg ok, since_boot' % run, (True, run == 'since-boot'),
              (km.get('ok'), km.get('since_boot')))
        li = (doc.get('load_attempts') or {}).get('inputs') or {}
        check(li.get('kernel_log_records') == km.get('records'), '-',
              'since-boot: %s report read every record followed' % run, km.get('records'),
              li.get('kernel_log_records'))
    sb = runs['since-boot'].get('records')
    fn = runs['from-now'].get('records')
    # every record held before it started, and none that the kernel did not have after
    check(isinstance(sb, int) and nb <= sb <= na, '-',
          'since-boot: --since-boot read the records held from boot', '%d..%d' % (nb, na), sb)
    # without it: only what came while the two runs ran
    check(isinstance(fn, int) and fn <= na - nb < nb, '-',
          'since-boot: without --since-boot only the records of its run',
          '<= %d (of %d held before)' % (na - nb, nb), fn)
    passed.append(('-', 'since-boot: %s records held before, %s after; --since-boot %s, '
                   'without %s' % (nb, na, sb, fn)))
