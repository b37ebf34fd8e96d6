#!/usr/bin/env python3
"""tests/vm/measure.py — the kernel's own measurement of a test-bed run.

Usage: measure.py [--compat-adjacent] ROOT       print ROOT's measurement as JSON
       measure.py [--compat-adjacent] -t TRACE   the same from a trace file alone

Reads ROOT/sys/kernel/tracing/trace (tracefs text: module:*, syscalls:sys_{enter,exit}_
{finit,init}_module, `tracing_mark_write: STEP name` markers and vmap-area allocations
with a `<stack trace>` under each: vmalloc:alloc_vmap_area on 6.2+, the kprobe
kmt/alloc_vmap_area on older kernels) and prints, per STEP:

  calls             finit_module/init_module syscalls that entered during the step
  rets              histogram of their return values
  comms             task names that made them
  all_vmap          bytes of vmap area allocated inside those calls (the size the
                    allocator was asked for, guard page included), by the stack under
                    each allocation: kread (kernel_read_file), decompress
                    (module_decompress, xz dictionary included), layout (the module's
                    final memory: module_alloc / execmem_alloc / move_module /
                    module_memory_alloc), user-copy (init_module's copy of the user
                    buffer), other-load (anything else inside the call)
  wasted_vmap       the same, for the calls that failed; wasted_vmap_total its sum

and "module_requests": module_request events by (alias, task name, call site).

A `<stack trace>` entry is written on the same CPU right after the event that
triggered it, but `trace` merges the CPUs by time, so another CPU's lines can come
between an allocation and its stack. Stacks are therefore matched to the pending
allocation of the same task (pid). --compat-adjacent instead takes a stack to belong to
the allocation on the line just before it, whatever its task, and drops allocations
whose stack does not follow at once: the rule the first captures' measured.json files
were made with (tests/vm/check-measure.sh shows what it loses).

This is the test bed's independent truth: it shares no code with kmodtop and knows
nothing of kmodtop's cost model. Python 3 standard library only.
"""
import json
import re
import sys

LINE = re.compile(
    r'^\s*(?P<comm>.+?)-(?P<pid>\d+)\s+'
    r'(?:\(\s*(?:\d+|-+)\)\s+)?'          # record-tgid column
    r'\[(?P<cpu>\d+)\]\s+'
    r'(?:(?P<flags>\S{4,5})\s+)?'
    r'(?P<ts>\d+(?:\.\d+)?):\s+'
    r'(?P<body>.*)$')
ENTER = re.compile(r'^sys_(finit|init)_module\((.*)\)\s*$')
EXIT = re.compile(r'^sys_(finit|init)_module -> (0x[0-9a-fA-F]+|-?\d+)\s*$')
SIZE = re.compile(r'\bsize=(\d+)')
REQUEST = re.compile(r'^module_request: (\S+) wait=\d+ call_site=(\S+)')

KREAD = ('kernel_read_file',)
DECOMPRESS = ('module_decompress',)
LAYOUT = ('module_alloc', 'execmem_alloc', 'move_module', 'module_memory_alloc')
USER_COPY = ('copy_module_from_user', '__do_sys_init_module', '__se_sys_init_module',
             '__x64_sys_init_module')
LOAD = ('load_module',)


def classify(frames):
    """class of one vmap allocation made inside a load syscall, from its stack"""
    names = set(f.split('+')[0].split(' ')[0] for f in frames)
    if names & set(DECOMPRESS):
        return 'decompress'
    if names & set(KREAD):
        return 'kread'
    if names & set(LAYOUT):
        return 'layout'
    if names & set(LOAD):
        return 'other-load'
    if names & set(USER_COPY):
        return 'user-copy'
    return 'other-load'


def signed(v):
    x = int(v, 0)
    if x >= 1 << 63:
        x -= 1 << 64
    return x


class Measure:
    def __init__(self, compat_adjacent=False):
        self.compat = compat_adjacent
        self.last_alloc = None   # compat: allocation on the line before
        self.unmatched = 0       # allocations inside a call that never got a stack
        self.step = None
        self.steps = {}          # name -> dict, in marker order
        self.open = {}           # pid -> call dict
        self.pending = {}        # pid -> (call, size): allocation waiting for its stack
        self.frames = None       # frames of the stack being read
        self.frames_for = None
        self.requests = {}
        self.markers = []        # (timestamp, step name)
        self.calls = []          # every finished call: step, comm, pid, syscall, start, end, ret, vmap
        self.request_list = []   # every module_request: step, comm, pid, alias, call_site, ts
        self.unparsed = 0

    def close_stack(self):
        if self.frames_for is not None:
            call, size = self.frames_for
            cls = classify(self.frames)
            call['vmap'][cls] = call['vmap'].get(cls, 0) + size
        self.frames = None
        self.frames_for = None

    def line(self, ln):
        if ln.startswith('#') or not ln.strip():
            return
        if ln.startswith(' => '):
            if self.frames is not None:
                self.frames.append(ln[4:].strip())
            return
        self.close_stack()
        m = LINE.match(ln)
        if not m:
            self.unparsed += 1
            return
        pid = int(m.group('pid'))
        comm = m.group('comm').strip()
        body = m.group('body')

        if body.startswith('<stack trace>'):
            if self.compat:
                owner, self.last_alloc = self.last_alloc, None
            else:
                owner = self.pending.pop(pid, None)
            self.frames = []
            self.frames_for = owner
            return
        self.last_alloc = None
        ts = float(m.group('ts'))
        if body.startswith('tracing_mark_write: STEP '):
            self.step = body[len('tracing_mark_write: STEP '):].strip()
            self.markers.append((ts, self.step))
            return
        e = ENTER.match(body)
        if e:
            call = {'step': self.step, 'comm': comm, 'pid': pid, 'syscall': e.group(1),
                    'start': ts, 'end': None, 'vmap': {}, 'ret': None}
            self.open[pid] = call
            return
        x = EXIT.match(body)
        if x:
            if not self.compat and pid in self.pending:
                self.unmatched += 1     # its stack never came
                del self.pending[pid]
            call = self.open.pop(pid, None)
            if call is not None:
                call['ret'] = signed(x.group(2))
                call['end'] = ts
                self.calls.append(call)
                self.account(call)
            return
        if body.startswith('alloc_vmap_area:'):
            call = self.open.get(pid)
            s = SIZE.search(body)
            if call is not None and s:
                if self.compat:
                    self.last_alloc = (call, int(s.group(1)))
                else:
                    if pid in self.pending:
                        self.unmatched += 1
                    self.pending[pid] = (call, int(s.group(1)))
            return
        r = REQUEST.match(body)
        if r:
            key = (r.group(1), comm, r.group(2))
            self.requests[key] = self.requests.get(key, 0) + 1
            self.request_list.append({'step': self.step, 'comm': comm, 'pid': pid,
                                      'alias': r.group(1), 'call_site': r.group(2), 'ts': ts})
            return

    def account(self, call):
        name = call['step']
        if name is None:
            return
        st = self.steps.setdefault(name, {
            'calls': 0, 'rets': {}, 'comms': {}, 'wasted_vmap': {},
            'wasted_vmap_total': 0, 'all_vmap': {}})
        st['calls'] += 1
        r = str(call['ret'])
        st['rets'][r] = st['rets'].get(r, 0) + 1
        st['comms'][call['comm']] = st['comms'].get(call['comm'], 0) + 1
        for cls, n in call['vmap'].items():
            st['all_vmap'][cls] = st['all_vmap'].get(cls, 0) + n
            if call['ret'] != 0:
                st['wasted_vmap'][cls] = st['wasted_vmap'].get(cls, 0) + n
                st['wasted_vmap_total'] += n

    def result(self):
        self.close_stack()
        reqs = [{'name': n, 'comm': c, 'call_site': s, 'count': k}
                for (n, c, s), k in sorted(self.requests.items())]
        return {'steps': self.steps, 'module_requests': reqs}


def measure_file(path, compat_adjacent=False):
    """parse a trace file; returns the Measure (result(), calls, markers, ...)"""
    m = Measure(compat_adjacent)
    with open(path, errors='replace') as f:
        for ln in f:
            m.line(ln.rstrip('\n'))
    m.close_stack()
    return m


def main(argv):
    args = argv[1:]
    compat = False
    if args and args[0] == '--compat-adjacent':
        compat = True
        args = args[1:]
    if len(args) == 2 and args[0] == '-t':
        path = args[1]
    elif len(args) == 1 and not args[0].startswith('-'):
        path = args[0].rstrip('/') + '/sys/kernel/tracing/trace'
    else:
        sys.stderr.write(__doc__.split('\n\n')[1] + '\n')
        return 2
    m = measure_file(path, compat)
    if m.unparsed:
        sys.stderr.write('measure: %d trace lines not understood\n' % m.unparsed)
    if m.unmatched:
        sys.stderr.write('measure: %d allocations inside load calls had no stack trace '
                         '(not counted)\n' % m.unmatched)
    json.dump(m.result(), sys.stdout, indent=1)
    sys.stdout.write('\n')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
