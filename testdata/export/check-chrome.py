#!/usr/bin/python3
"""check-chrome.py [--tile[=TID,...]] [--summary] FILE - check Chrome trace-event JSON.

The structure of the Trace Event Format's JSON Object Format, as Perfetto UI and
chrome://tracing read it:
  - a "traceEvents" array of objects, each with a "ph";
  - complete events (X) with a name, ts, dur >= 0, pid, tid (integers) and args an object;
    begin/end events (B/E) with ts, pid and tid, balanced and nested per thread;
  - metadata events (M) named process_name or thread_name, with args.name a string, and one
    thread_name per thread with slices, one process_name per process;
  - per thread, no two slices overlapping, both in whole ns (ts and dur read as exact
    decimals, rounded to the ns, as Perfetto reads them) and in binary floating point
    (ts + dur as JavaScript adds them in chrome://tracing and DevTools, where a slice that
    starts before the previous one's end is drawn nested in it).
With --tile, also: per thread (or for the threads listed), the slices add up to the time
from the first one's start to the last one's end (no gap), to the nanosecond.
With --summary, one line per thread:
  pid tid name running_ns off_cpu_ns span_ns slices gaps first_ns last_ns
Exit 0 when the file passes, 1 otherwise.
"""
import decimal
import json
import sys

MAX_ERRORS = 20


def ns(v):
    """microseconds (int or Decimal) to the nearest integer ns; None when not a number"""
    if isinstance(v, bool) or not isinstance(v, (int, decimal.Decimal)):
        return None
    return int((decimal.Decimal(v) * 1000).to_integral_value(decimal.ROUND_HALF_EVEN))


def check(doc, tile):
    errs = []
    threads = {}   # (pid, tid) -> [(start_ns, end_ns, name)]
    floats = {}    # (pid, tid) -> [(ts, dur)] of the X events, as doubles
    open_b = {}    # (pid, tid) -> [(name, ts)]
    tnames, pnames = {}, {}
    if isinstance(doc, dict):
        events = doc.get("traceEvents")
    else:
        events = doc
    if not isinstance(events, list):
        return ["no traceEvents array"], {}, {}
    for i, e in enumerate(events):
        where = "event %d" % i
        if not isinstance(e, dict) or not isinstance(e.get("ph"), str):
            errs.append("%s: not an object with a ph" % where)
            continue
        ph = e["ph"]
        if ph in ("X", "B", "E", "M"):
            if not isinstance(e.get("pid"), int) or isinstance(e.get("pid"), bool):
                errs.append("%s: ph %s without an integer pid" % (where, ph))
                continue
        if ph in ("X", "B", "E"):
            if not isinstance(e.get("tid"), int) or isinstance(e.get("tid"), bool):
                errs.append("%s: ph %s without an integer tid" % (where, ph))
                continue
            ts = ns(e.get("ts"))
            if ts is None or ts < 0:
                errs.append("%s: ph %s without a ts >= 0" % (where, ph))
                continue
            if "args" in e and not isinstance(e["args"], dict):
                errs.append("%s: args is not an object" % where)
        key = (e.get("pid"), e.get("tid"))
        if ph == "X":
            dur = ns(e.get("dur"))
            if not isinstance(e.get("name"), str) or dur is None or dur < 0:
                errs.append("%s: X without a name and a dur >= 0" % where)
                continue
            threads.setdefault(key, []).append((ts, ts + dur, e["name"]))
            floats.setdefault(key, []).append((float(e["ts"]), float(e["dur"])))
        elif ph == "B":
            if not isinstance(e.get("name"), str):
                errs.append("%s: B without a name" % where)
                continue
            open_b.setdefault(key, []).append((e["name"], ts))
        elif ph == "E":
            if not open_b.get(key):
                errs.append("%s: E without a B on thread %s" % (where, key))
                continue
            name, start = open_b[key].pop()
            if ts < start:
                errs.append("%s: E before its B" % where)
            threads.setdefault(key, []).append((start, ts, name))
        elif ph == "M":
            args = e.get("args")
            if e.get("name") not in ("process_name", "thread_name") or \
                    not isinstance(args, dict) or not isinstance(args.get("name"), str):
                errs.append("%s: metadata is not a process_name or thread_name with "
                            "args.name" % where)
                continue
            if e["name"] == "thread_name":
                if not isinstance(e.get("tid"), int):
                    errs.append("%s: thread_name without a tid" % where)
                    continue
                if key in tnames:
                    errs.append("%s: a second thread_name for %s" % (where, key))
                tnames[key] = args["name"]
            else:
                if e["pid"] in pnames:
                    errs.append("%s: a second process_name for %s" % (where, e["pid"]))
                pnames[e["pid"]] = args["name"]
        else:
            errs.append("%s: unexpected ph %r" % (where, ph))
    for key, stack in open_b.items():
        if stack:
            errs.append("thread %s: %d B events never ended" % (key, len(stack)))
    summary = {}
    for key, slices in sorted(threads.items()):
        if key not in tnames:
            errs.append("thread %s: slices but no thread_name" % (key,))
        if key[0] not in pnames:
            errs.append("process %s: slices but no process_name" % key[0])
        slices.sort()
        gaps = 0
        for a, b in zip(slices, slices[1:]):
            if b[0] < a[1]:
                errs.append("thread %s: %s [%d, %d) ns overlaps %s [%d, %d) ns" %
                            (key, a[2], a[0], a[1], b[2], b[0], b[1]))
            elif b[0] > a[1]:
                gaps += 1
                if tile(key[1]):
                    errs.append("thread %s: a gap [%d, %d) ns between %s and %s" %
                                (key, a[1], b[0], a[2], b[2]))
        total = sum(b - a for a, b, _ in slices)
        span = slices[-1][1] - slices[0][0]
        if tile(key[1]) and total != span:
            errs.append("thread %s: slices sum to %d ns over a span of %d ns" %
                        (key, total, span))
        nested = 0
        xs = sorted(floats.get(key, []))
        for a, b in zip(xs, xs[1:]):
            if b[0] < a[0] + a[1]:
                nested += 1
        if nested:
            errs.append("thread %s: %d slices start before the previous one ends in "
                        "floating point (ts + dur): drawn nested" % (key, nested))
        running = sum(b - a for a, b, n in slices if n == "Running")
        summary[key] = (tnames.get(key, "?"), running, total - running, span, len(slices),
                        gaps, slices[0][0], slices[-1][1])
    return errs, summary, pnames


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 1:
        print(__doc__)
        return 2
    try:
        with open(args[0], encoding="utf-8") as f:
            doc = json.load(f, parse_float=decimal.Decimal)
    except (OSError, ValueError) as e:
        print("FAIL %s: not JSON: %s" % (args[0], e))
        return 1
    tids = None
    for a in sys.argv[1:]:
        if a == "--tile":
            tids = "all"
        elif a.startswith("--tile="):
            tids = {int(t) for t in a[7:].split(",") if t}
    errs, summary, _ = check(doc, lambda tid: tids == "all" or (tids is not None and tid in tids))
    if "--summary" in sys.argv:
        for (pid, tid), fields in sorted(summary.items()):
            print(pid, tid, *fields)
    if errs:
        print("FAIL %s: %d problems" % (args[0], len(errs)))
        for e in errs[:MAX_ERRORS]:
            print("  " + e)
        return 1
    print("ok   %s: %d threads, %d slices" % (args[0], len(summary),
                                            sum(s[4] for s in summary.values())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
