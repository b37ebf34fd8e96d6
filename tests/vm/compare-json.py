#!/usr/bin/env python3
"""tests/vm/compare-json.py — side-by-side comparison of two measured.json files.

Usage: compare-json.py EXPECTED.json GOT.json [EXPECTED-LABEL GOT-LABEL]

Compares per step: calls, each return value's count, each task name's count, and the
vmap bytes per class (all_vmap, wasted_vmap, wasted_vmap_total); then module_requests.
Prints a table of the differences (step, item, expected, got) and exits 1 when there
are any, 0 when the two agree.
"""
import json
import sys


def flat(doc):
    out = {}
    for step, s in doc.get('steps', {}).items():
        out[(step, 'calls')] = s.get('calls', 0)
        for k, v in s.get('rets', {}).items():
            out[(step, 'ret ' + k)] = v
        for k, v in s.get('comms', {}).items():
            out[(step, 'comm ' + k)] = v
        for k, v in s.get('all_vmap', {}).items():
            out[(step, 'all ' + k)] = v
        for k, v in s.get('wasted_vmap', {}).items():
            out[(step, 'wasted ' + k)] = v
        out[(step, 'wasted total')] = s.get('wasted_vmap_total', 0)
    for r in doc.get('module_requests', []):
        key = ('(requests)', '%s by %s at %s' % (r['name'], r['comm'], r['call_site']))
        out[key] = out.get(key, 0) + r['count']
    return out


def main(argv):
    if len(argv) not in (3, 5):
        sys.stderr.write(__doc__.split('\n\n')[1] + '\n')
        return 2
    a = flat(json.load(open(argv[1])))
    b = flat(json.load(open(argv[2])))
    la, lb = (argv[3], argv[4]) if len(argv) == 5 else ('expected', 'got')
    order = []
    for d in (a, b):
        for k in d:
            if k not in order:
                order.append(k)
    rows = [(k[0], k[1], a.get(k, 0), b.get(k, 0)) for k in order if a.get(k, 0) != b.get(k, 0)]
    if not rows:
        return 0
    w0 = max(len('step'), *(len(r[0]) for r in rows))
    w1 = max(len('item'), *(len(r[1]) for r in rows))
    w2 = max(len(la), *(len(str(r[2])) for r in rows))
    w3 = max(len(lb), *(len(str(r[3])) for r in rows))
    print('  %-*s  %-*s  %*s  %*s  %s' % (w0, 'step', w1, 'item', w2, la, w3, lb, 'diff'))
    for s, i, x, y in rows:
        print('  %-*s  %-*s  %*s  %*s  %+d' % (w0, s, w1, i, w2, x, w3, y, y - x))
    return 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
