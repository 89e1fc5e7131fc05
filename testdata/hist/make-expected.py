#!/usr/bin/env python3
# make-expected.py - writes the expected outputs of tests/unit/test-hist.c into this directory.
# The slot counts are those worked out by hand in that file's comments (on the trace it
# builds); render() lays them out with the formats of BCC libbpf-tools' print_log2_hist()
# (trace_helpers.c), independently of analyzer/hist.c.  "@FILE@" stands for the trace's path.
# usage: python3 testdata/hist/make-expected.py   (from anywhere)
import os

D = os.path.dirname(os.path.abspath(__file__)) + "/"


def render(vals, vt):
    """print_log2_hist(vals, len(vals), vt): nothing when all are 0."""
    idx_max = max([i for i, v in enumerate(vals) if v] or [-1])
    if idx_max < 0:
        return ""
    vmax = max(vals)
    narrow = idx_max <= 32
    out = "%*s%-*s : count    distribution\n" % (5 if narrow else 15, "", 19 if narrow else 29, vt)
    for i in range(idx_max + 1):
        low = (1 << (i + 1)) >> 1
        high = (1 << (i + 1)) - 1
        if low == high:
            low -= 1
        w = 10 if narrow else 20
        st = 40 if narrow else 20
        n = min(vals[i], vmax) * st // vmax
        out += "%*d -> %-*d : %-8d |%s%s|\n" % (w, low, w, high, vals[i], "*" * n, " " * (st - n))
    return out


def vec(d, n=64):
    v = [0] * n
    for k, x in d.items():
        v[k] = x
    return v


HEAD = {
 "off": "Off-CPU interval lengths in @FILE@ (cpudist -O): switch-out to switch-in.\n",
 "runq": "Run queue latency in @FILE@ (runqlat): wakeup, or switch-out when preempted, to switch-in.\n",
 "on": "On-CPU run lengths in @FILE@ (cpudist): switch-in to switch-out.\n",
}
TRACE = "; trace: lost events 0, lost samples 0, late 0, undecodable 0, bad references 0, bad CPU 0"
OFFW = "; intervals not seen whole: start unknown %d, unknown 0, open at end %d\n"
ONW = "; runs not seen whole: start unknown 0, unknown 0, open at end 0, switch-in while on a CPU 0\n"
def foot(kind, c, inf, nw, new, su=3, op=4):
    if kind == "off": s = "intervals counted %d (inferred switch-in %d), left out: new-task waits %d" % (c, inf, new)
    elif kind == "runq": s = "latencies counted %d (new-task waits %d), left out: no wakeup %d, inferred switch-in %d" % (c, new, nw, inf)
    else: s = "runs counted %d (inferred switch-in %d)" % (c, inf)
    return s + TRACE + (ONW if kind == "on" else OFFW % (su, op))
def report(kind, hists, footer, vt="usecs"):
    out = HEAD[kind] + "\n"
    for h in hists:
        if h[0]: out += "\n%s\n" % h[0]
        out += render(vec(h[1]), vt)
    return out + "\n" + footer
def w(name, text): open(D + name, "w").write(text)
w("off.txt", report("off", [(None, {5:1, 6:1, 8:2, 9:2})], foot("off", 6, 1, 0, 1)))
w("off-P.txt", report("off", [("pid = 100 app", {5:1, 6:1, 8:1, 9:1}), ("pid = 200 db", {8:1, 9:1})], foot("off", 6, 1, 0, 1)))
w("runq-L.txt", report("runq", [("tid = 100 app", {3:1, 5:1, 6:1}), ("tid = 101 app-new", {0:1}), ("tid = 200 db", {8:1})], foot("runq", 5, 1, 1, 1)))
w("on.txt", report("on", [(None, {5:2, 6:3, 8:5})], foot("on", 10, 1, 0, 0)))
w("on-R-P.txt", report("on", [("pid = 100 app", {5:1})], foot("on", 1, 0, 0, 0)))
w("off-ms.txt", report("off", [(None, {0:6})], foot("off", 6, 1, 0, 1), "msecs"))
w("runq-ns.txt", report("runq", [(None, {10:1, 13:1, 15:1, 16:1, 18:1})], foot("runq", 5, 1, 1, 1), "nsecs"))
w("off-time.txt", report("off", [(None, {8:1, 9:1})], foot("off", 2, 0, 0, 1)))
w("off-cut.txt", report("off", [(None, {5:1, 6:1, 8:2})], foot("off", 4, 1, 0, 0, 3, 2)))
w("wide.txt", render(vec({0:3, 33:1}), "usecs"))


# runq -L as JSON: the buckets of the rows above, sum_ns from the exact lengths (ns)
def buckets(d, n):
    return ",\n".join('      {"low": %d, "high": %d, "count": %d}'
                      % (0 if i == 0 else 1 << i, (1 << (i + 1)) - 1, d.get(i, 0))
                      for i in range(n + 1))


hs = [("tid", 100, "app", 3, 10000 + 50000 + 100000, {3: 1, 5: 1, 6: 1}, 6),
      ("tid", 101, "app-new", 1, 1999, {0: 1}, 0),
      ("tid", 200, "db", 1, 298000, {8: 1}, 8)]
js = ('{\n  "file": "@FILE@",\n  "kind": "runq",\n  "unit": "usecs",\n  "per": "thread",\n'
      '  "truncated": false,\n  "histograms": [')
js += ",".join('\n    {"%s": %d, "comm": "%s", "count": %d, "sum_ns": %d, "buckets": [\n%s\n    ]}'
               % (k, i, c, n, s, buckets(d, m)) for k, i, c, n, s, d, m in hs)
js += ('\n  ],\n  "counts": {"counted": 5, "inferred": 1, "no_wakeup": 1, "new_task": 1,\n'
       '    "lost_events": 0, "lost_samples": 0, "late": 0, "undecodable": 0, "bad_refs": 0,'
       ' "bad_cpu": 0,\n'
       '    "start_unknown": 3, "run_start_unknown": 0, "unknown_dropped": 0,'
       ' "open_off_at_end": 4, "open_run_at_end": 0, "switch_in_running": 0,'
       ' "switch_in_records": 0}\n}\n')
w("runq-L.json", js)
