"""The metrics files of tests/cli/openmetrics.sh, read by Prometheus' own Python parsers.

  openmetrics.py om FILE...       each parses as OpenMetrics 1.0.0 (strict)
  openmetrics.py prom FILE...     each parses as the Prometheus text format 0.0.4
  openmetrics.py same OM PROM     both hold the same samples
  openmetrics.py labels FILE NAME the values of label NAME, one a line (repr)
  openmetrics.py fleet DIR        the fleet's sums against its report -j outputs

Both parsers drop a repeated series without a word: every sample line must come out as
a sample of its own. Files are read as strict UTF-8 (the parsers do not check it).
"""
import glob
import json
import math
import os
import sys

from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse_om
from prometheus_client.parser import text_string_to_metric_families as parse_prom


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def read(path):
    try:
        return open(path, "rb").read().decode("utf-8")
    except UnicodeDecodeError as e:
        fail("%s: not UTF-8 at byte %d" % (path, e.start))


def samples(path, om):
    """(name, labels, value) of every sample, the families' types by name"""
    text = read(path)
    try:
        fams = list((parse_om if om else parse_prom)(text))
    except Exception as e:  # the parsers raise ValueError, and others on odd input
        fail("%s: %s parser refused it: %s" % (path, "OpenMetrics" if om else "Prometheus", e))
    out, types = [], {}
    for f in fams:
        types[f.name] = f.type
        for s in f.samples:
            out.append((s.name, tuple(sorted(s.labels.items())), s.value))
    lines = [l for l in text.split("\n") if l and not l.startswith("#")]
    if len(lines) != len(out):
        fail("%s: %d sample lines, %d samples parsed: a series is repeated" % (path, len(lines), len(out)))
    if len(set((n, l) for n, l, _ in out)) != len(out):
        fail("%s: a series is repeated" % path)
    for f in fams:
        if f.type == "unknown" or f.type == "untyped":
            fail("%s: %s has no type (a counter named for the wrong format?)" % (path, f.name))
    return out, types


def series(path, om=True):
    return samples(path, om)[0]


def by(ss, name, **want):
    """value of the samples named @name whose labels include @want, summed"""
    t = 0
    for n, labels, v in ss:
        d = dict(labels)
        if n == name and all(d.get(k) == val for k, val in want.items()):
            t += v
    return t


def check_host(om, rep, where):
    """one host: the metrics are report -j's figures"""
    la = rep.get("load_attempts")
    if la is None:
        if any(n.startswith("kmodtop_boot_") for n, _, _ in om):
            fail("%s: boot totals without load attempts" % where)
        return
    pairs = [
        ("kmodtop_boot_load_attempts_total", la["total"]),
        ("kmodtop_boot_failed_load_attempts_total", la["failed"]),
        ("kmodtop_boot_idempotent_waiters_total", la["idempotent_waiters"]),
        ("kmodtop_boot_decompression_fallbacks_total", la["fallbacks"]),
        ("kmodtop_boot_unnamed_load_attempts_total", la["unnamed"]),
        ("kmodtop_boot_incomplete_load_attempts_total", la["incomplete"]),
        ("kmodtop_boot_autoload_requests_total", la["autoload_requests"]),
    ]
    w = la.get("wasted_vmap", {})
    pairs.append(("kmodtop_boot_unestimated_load_attempts_total", w["unestimated"]))
    for name, want in pairs:
        if by(om, name) != want:
            fail("%s: %s is %s, the JSON says %s" % (where, name, by(om, name), want))
    for src in ("estimated", "measured"):
        got = [v for n, l, v in om if n == "kmodtop_boot_wasted_vmap_bytes" and dict(l)["source"] == src]
        if (src in w) != bool(got) or (got and got[0] != w[src]):
            fail("%s: boot %s waste %s, the JSON %s" % (where, src, got, w.get(src)))
    if by(om, "kmodtop_boot_wasted_vmap_max_bytes") != (w.get("estimated_max") or 0):
        fail("%s: the upper bound differs" % where)
    if by(om, "kmodtop_boot_wasted_vmap_min_bytes") != w.get("estimated_min", 0):
        fail("%s: the lower bound differs" % where)
    # the totals are the modules' sums: no double counting across the two families
    if by(om, "kmodtop_wasted_vmap_bytes", source="estimated") != w["estimated"]:
        fail("%s: per-module estimates add up to %s, the boot's is %s"
             % (where, by(om, "kmodtop_wasted_vmap_bytes", source="estimated"), w["estimated"]))
    if by(om, "kmodtop_load_attempts_total") != la["total"]:
        fail("%s: per-module attempts do not add up to the total" % where)
    # per module and outcome, and the classes of each module
    for m in rep["modules"]:
        a, mw = m.get("attempts"), m.get("wasted_vmap")
        name = m["name"] if m["name"] is not None else ""
        if a:
            for outcome, n in a["by_outcome"].items():
                if by(om, "kmodtop_load_attempts_total", module=name, outcome=outcome) != n:
                    fail("%s: %s %s attempts differ" % (where, name, outcome))
        if mw:
            for cls, n in mw["by_class"].items():
                got = by(om, "kmodtop_wasted_vmap_bytes", module=name, source="estimated", **{"class": cls})
                if got != n:
                    fail("%s: %s %s: %s, the JSON %s" % (where, name, cls, got, n))
    # autoload rows: the metric adds up the requesting tasks
    for a in rep["autoload"]:
        key = dict(alias=a["alias"], call_site=a["call_site"] or "", module=a["module"] or "")
        rows = [r for r in rep["autoload"] if dict(alias=r["alias"], call_site=r["call_site"] or "",
                                                     module=r["module"] or "") == key]
        if by(om, "kmodtop_autoload_requests_total", needless="true", **key) != sum(r["needless"] for r in rows):
            fail("%s: needless requests of %s differ" % (where, key))
        if by(om, "kmodtop_autoload_requests_total", **key) != sum(r["requests"] for r in rows):
            fail("%s: requests of %s differ" % (where, key))
    if by(om, "kmodtop_autoload_requests_total") != la["autoload_requests"]:
        fail("%s: autoload requests do not add up" % where)
    for f in rep.get("findings", []):
        if by(om, "kmodtop_kernel_log_findings_total", finding=f["kind"], module=f["module"] or "") != f["count"]:
            fail("%s: finding %s %s differs" % (where, f["kind"], f["module"]))
    # the capture window
    inp = la["inputs"]
    for key, name, inpt in (("trace_first", "kmodtop_capture_window_start_seconds", "trace"),
                            ("trace_last", "kmodtop_capture_window_end_seconds", "trace"),
                            ("kernel_log_first", "kmodtop_capture_window_start_seconds", "kernel_log"),
                            ("kernel_log_last", "kmodtop_capture_window_end_seconds", "kernel_log")):
        got = [v for n, l, v in om if n == name and dict(l)["input"] == inpt]
        want = inp.get(key)
        if (want is None) != (not got) or (got and got[0] != want):
            fail("%s: %s is %s, the JSON's %s %s" % (where, name, got, key, want))
    ki = [dict(l) for n, l, v in om if n == "kmodtop_kernel_info"]
    if len(ki) != 1 or ki[0]["release"] != rep["kernel"]["release"] or \
            ki[0]["boot_id"] != (rep["kernel"]["boot_id"] or ""):
        fail("%s: kernel_info %s" % (where, ki))


def fleet(d):
    """50 hosts: HOST.om, HOST.json and textfile/HOST.prom; the sums agree"""
    hosts = sorted(os.path.basename(p)[:-5] for p in glob.glob(os.path.join(d, "*.json")))
    if len(hosts) != 50:
        fail("%d hosts, not 50" % len(hosts))
    proms = sorted(glob.glob(os.path.join(d, "textfile", "*")))
    if [os.path.basename(p) for p in proms] != sorted(h + ".prom" for h in hosts):
        fail("the textfile directory holds %s" % [os.path.basename(p) for p in proms][:5])
    om_sum, json_sum = {}, {}
    om_meas, json_meas = {}, {}
    boot_om = boot_json = 0
    measured_hosts = 0
    booted = set()
    for h in hosts:
        om = series(os.path.join(d, h + ".om"))
        prom = series(os.path.join(d, "textfile", h + ".prom"), om=False)
        if sorted(om) != sorted(prom):
            fail("%s: the OpenMetrics and the textfile samples differ" % h)
        hl = set(dict(l).get("host") for _, l, _ in om)
        if hl != {h}:
            fail("%s: host labels %s" % (h, hl))
        rep = json.loads(read(os.path.join(d, h + ".json")))
        check_host(om, rep, h)
        # the bundle's boot id, or none
        bid = os.path.join(d, h + ".boot_id")
        want = read(bid).strip() if os.path.exists(bid) else None
        if rep["kernel"]["boot_id"] != want:
            fail("%s: boot_id %r, the bundle's %r" % (h, rep["kernel"]["boot_id"], want))
        booted.add(want)
        # the fleet's question: waste per module, summed over the hosts, by the metrics
        for n, labels, v in om:
            l = dict(labels)
            if n == "kmodtop_wasted_vmap_bytes":
                t = om_sum if l["source"] == "estimated" else om_meas
                t[l["module"]] = t.get(l["module"], 0) + v
            if n == "kmodtop_boot_wasted_vmap_bytes" and l["source"] == "estimated":
                boot_om += v
        # ... and by report -j
        for m in rep["modules"]:
            w = m.get("wasted_vmap")
            if not w:
                continue
            name = m["name"] if m["name"] is not None else ""
            if w["estimated"]:
                json_sum[name] = json_sum.get(name, 0) + w["estimated"]
            if w.get("measured"):
                json_meas[name] = json_meas.get(name, 0) + w["measured"]
        if "load_attempts" in rep:
            boot_json += rep["load_attempts"]["wasted_vmap"]["estimated"]
            measured_hosts += "measured" in rep["load_attempts"]["wasted_vmap"]
    if om_sum != json_sum:
        fail("estimated waste per module over the fleet: metrics %s, JSON %s" % (om_sum, json_sum))
    if om_meas != json_meas:
        fail("measured waste per module over the fleet: metrics %s, JSON %s" % (om_meas, json_meas))
    if boot_om != boot_json or boot_om != sum(om_sum.values()):
        fail("fleet total: boots %s, JSON %s, modules %s" % (boot_om, boot_json, sum(om_sum.values())))
    if not om_sum or not measured_hosts or measured_hosts == len(hosts):
        fail("the fleet is not varied: %d modules, %d of %d hosts measured"
             % (len(om_sum), measured_hosts, len(hosts)))
    if None not in booted or len(booted) < 40:
        fail("the boot ids are not varied: %d" % len(booted))
    print("fleet: %d hosts, %d modules, %d bytes estimated, %d hosts measured"
          % (len(hosts), len(om_sum), boot_om, measured_hosts))


def main(argv):
    cmd = argv[1]
    if cmd in ("om", "prom"):
        for p in argv[2:]:
            samples(p, cmd == "om")
    elif cmd == "same":
        a, b = series(argv[2]), series(argv[3], om=False)
        if sorted(a) != sorted(b):
            fail("%s and %s hold different samples: %s" % (argv[2], argv[3], set(a) ^ set(b)))
    elif cmd == "labels":
        vals = set()
        for n, labels, v in series(argv[2]):
            if argv[3] in dict(labels):
                vals.add(dict(labels)[argv[3]])
        for v in sorted(vals):
            print(repr(v))
    elif cmd == "fleet":
        fleet(argv[2])
    else:
        fail("unknown command " + cmd)


if __name__ == "__main__":
    main(sys.argv)
