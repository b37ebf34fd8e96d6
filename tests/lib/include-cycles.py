#!/usr/bin/env python3
"""Include circles between the source files of src/: X.c, X.h and a private header
X-internal.h or X-private.h are one unit, an include of Y.h from any is an arrow X -> Y. A circle (sources/tracefs-events.c ->
tracedat.h, tracedat.c -> tep-decode.h, tep-decode.h -> tracefs-events.h, as there once
was) means no unit can be understood, tested or moved without the others. Prints each
circle and exits 1; exits 0 when there is none."""
import os
import re
import sys

src = sys.argv[1] if len(sys.argv) > 1 else 'src'
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def unit_of(name):
    return re.sub(r'-(internal|private)$', '', name)


units = {}
for d, _, files in os.walk(src):
    for f in files:
        if f.endswith(('.c', '.h')):
            path = os.path.join(d, f)
            units.setdefault(unit_of(os.path.relpath(path[:-2], src)), []).append(path)

edges = {u: set() for u in units}
for u, paths in units.items():
    for path in paths:
        with open(path, errors='replace') as fh:
            text = fh.read()
        for name in inc.findall(text):
            for base in (os.path.dirname(path), src):
                cand = os.path.normpath(os.path.join(base, name))
                if os.path.exists(cand):
                    v = unit_of(os.path.relpath(cand[:-2], src)) if cand.endswith('.h') else None
                    if v in units and v != u:
                        edges[u].add(v)
                    break

# Tarjan's strongly connected components: each with more than one unit is a circle
index, low, stack, on, sccs, n = {}, {}, [], set(), [], [0]
sys.setrecursionlimit(10000)


def visit(u):
    index[u] = low[u] = n[0]
    n[0] += 1
    stack.append(u)
    on.add(u)
    for v in sorted(edges[u]):
        if v not in index:
            visit(v)
            low[u] = min(low[u], low[v])
        elif v in on:
            low[u] = min(low[u], index[v])
    if low[u] == index[u]:
        scc = []
        while True:
            v = stack.pop()
            on.discard(v)
            scc.append(v)
            if v == u:
                break
        if len(scc) > 1:
            sccs.append(sorted(scc))


for u in sorted(units):
    if u not in index:
        visit(u)
for scc in sccs:
    print('include circle: ' + ' <-> '.join(scc))
sys.exit(1 if sccs else 0)
