#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""golden-crosscheck.py - check the expected outputs of testdata/golden by other means than
the output itself: against the raw record counts of tests/wct-stat, against one another where
two subcommands compute the same figure by different code (folded against threads, the SVG
against folded, speedscope against folded, the timehist summary against threads, hist against
threads), and against Brendan Gregg's flamegraph.pl drawing the same folded stacks.

usage: tests/golden-crosscheck.py BUILDDIR [FLAMEGRAPH_PL]
  BUILDDIR        a build directory with wcanalyze and tests/wct-stat built
                  (make tests/wct-stat)
  FLAMEGRAPH_PL   flamegraph.pl of https://github.com/brendangregg/FlameGraph (perl runs
                  it); without it the SVG checks compare with folded's sums only
Reads testdata/golden beside this script; writes only to a temp dir.  One line a check;
exit status 0 when all hold, 1 otherwise.  A one-off aid to review the expected files after
GOLDEN_UPDATE=1 (testdata/golden/README), not part of make check.
"""
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "..", "testdata", "golden")
fails = 0


def check(ok, what):
    global fails
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        fails += 1


def expected(trace, cmd):
    """The expected stdout of the command line cmd (text of testdata/golden/commands)."""
    with open(os.path.join(GOLDEN, "commands")) as f:
        lines = f.read().splitlines()
    n = lines.index(cmd) + 1
    with open(os.path.join(GOLDEN, "expected", "%s.%d.out" % (trace, n))) as f:
        return f.read()


def wct_stat(build, path):
    """The "key value" lines of tests/wct-stat, and its switch_out lines as {tid: (pid, n)}."""
    out = subprocess.run([os.path.join(build, "tests", "wct-stat"), path],
                         capture_output=True, text=True).stdout
    kv, switch_out = {}, {}
    for line in out.splitlines():
        w = line.split()
        if w[0] == "switch_out":
            switch_out[int(w[1])] = (int(w[2]), int(w[3]))
        elif len(w) == 2:
            kv[w[0]] = w[1]
    return kv, switch_out


def folded_sums(text, by_tid=False):
    """{key (the first frame, or the tid ending it): sum}, the total and the lines of a
    folded text."""
    sums = collections.Counter()
    lines = text.splitlines()
    for line in lines:
        stack, value = line.rsplit(" ", 1)
        key = stack.split(";", 1)[0]
        sums[int(key.rsplit("-", 1)[1]) if by_tid else key] += int(value)
    return sums, sum(sums.values()), len(lines)


def check_info(trace, kv):
    """info's counts = tests/wct-stat's count of the records."""
    info = expected(trace, "info")
    m = re.search(r"records: +(\d+) tracepoint events \((\d+) switches, (\d+) wakeups, "
                  r"(\d+) runtime\), (\d+) samples, (\d+) callchains, (\d+) distinct payloads",
                  info)
    ev = lambda name: int(kv.get("events." + name, 0))
    wakeups = ev("sched:sched_waking") + ev("sched:sched_wakeup") + ev("sched:sched_wakeup_new")
    got = tuple(int(x) for x in m.groups())
    want = (int(kv["records.tracepoint"]), ev("sched:sched_switch"), wakeups,
            ev("sched:sched_stat_runtime"), int(kv["records.sample"]), int(kv["records.stack"]),
            int(kv["records.payload"]))
    check(got == want, "%s: info records line %s = wct-stat %s" % (trace, got, want))
    m = re.search(r"tasks: .* (\d+) forks, \d+ execs, (\d+) exits, (\d+) maps", info)
    got = tuple(int(x) for x in m.groups())
    want = (int(kv["records.fork"]), int(kv["records.exit"]), int(kv["records.mmap"]))
    check(got == want, "%s: info forks, exits, maps %s = wct-stat %s" % (trace, got, want))
    m = re.search(r"kallsyms: +(\d+) functions", info)
    check(int(m.group(1)) == int(kv["records.ksym"]),
          "%s: info kallsyms %s = wct-stat KSYM records %s" % (trace, m.group(1),
                                                              kv["records.ksym"]))
    cut = "ended TRUNCATED" in info
    check(cut == (kv["ending"] == "truncated"),
          "%s: info says cut: %s, wct-stat ending: %s" % (trace, cut, kv["ending"]))
    m = re.search(r"lost: +(\d+) events", info)
    check(int(m.group(1)) == int(kv["lost"]),
          "%s: info lost %s = wct-stat lost %s" % (trace, m.group(1), kv["lost"]))


def check_timehist(build, trace, tmp, kv, switch_out):
    """Every sched_switch record a row of timehist --all-tasks (run here on the whole trace)
    but those of wcrec's own threads (NOTE recorder_pid), which wcanalyze leaves out."""
    out = subprocess.run([os.path.join(build, "wcanalyze"), "timehist", "--symfs", "symfs",
                          "--all-tasks", "-G", trace + ".wct"], cwd=tmp,
                         capture_output=True, text=True).stdout
    rows = sum(1 for line in out.splitlines()
               if re.match(r"^ +\d+\.\d{6} \[\d{4}\] ", line))
    switches = int(kv["events.sched:sched_switch"])
    rec = int(kv.get("note.recorder_pid", -1))
    own = sum(n for pid, n in switch_out.values() if pid == rec)
    check(rows == switches - own, "%s: timehist --all-tasks rows %d = sched_switch records %d "
          "- %d of the recorder (pid %d)" % (trace, rows, switches, own, rec))
    out = subprocess.run([os.path.join(build, "wcanalyze"), "timehist", "--symfs", "symfs",
                          "--all-tasks", "-G", "-w", "-M", trace + ".wct"], cwd=tmp,
                         capture_output=True, text=True).stdout
    ev = lambda name: int(kv.get("events.sched:" + name, 0))
    got = (out.count(" awakened: "), out.count(" migrated: "))
    want = (ev("sched_waking") + ev("sched_wakeup") + ev("sched_wakeup_new"),
            ev("sched_migrate_task"))
    check(got == want, "%s: timehist --all-tasks -w -M awakened and migrated rows %s = "
          "wakeup and sched_migrate_task records %s" % (trace, got, want))


def check_folded_threads(trace):
    """folded against threads --json, per thread and in total; timehist -s and hist against
    threads."""
    th = json.loads(expected(trace, "threads --symfs symfs --json"))
    wall = expected(trace, "folded --symfs symfs --mode wall --per-thread --annotate --unit ns")
    per, _, _ = folded_sums(wall, by_tid=True)
    lines = collections.Counter(int(l.split(";", 1)[0].rsplit("-", 1)[1])
                                for l in wall.splitlines())
    full = bad = 0
    for t in th["threads"]:
        diff = t["on_cpu_ns"] + t["off_cpu_ns"] - per.get(t["tid"], 0)
        if t["first_seen"] == "wakeup_new" and t["exited"]:
            # its whole life in the recording: every run and interval is a line of folded,
            # but for the calibration's rounding (under a ns a line)
            full += 1
            bad += abs(diff) > lines[t["tid"]]
        else:
            # folded leaves out the time before the first switch-in (the /proc state), the
            # run before the first switch-out and what is open at the end; threads counts them
            bad += diff < t["proc_ns"]
    check(not bad, "%s: folded --per-thread ns = threads on+off-CPU for the %d threads born and "
          "dead in the recording (within 1 ns a line); at most on+off-CPU minus the /proc "
          "time for the other %d" % (trace, full, len(th["threads"]) - full))
    _, on, n = folded_sums(expected(trace, "folded --symfs symfs --mode on --no-calibrate"))
    want = sum(t["on_cpu_sampled_ns"] for t in th["threads"]) / 1000
    check(abs(on - want) <= n, "%s: folded --mode on --no-calibrate %d us = threads "
          "on_cpu_sampled_ns %.0f us (within one us a line, %d lines)" % (trace, on, want, n))
    summ = expected(trace, "timehist --symfs symfs -s")
    runs = {}
    for m in re.finditer(r"\[(\d+)(?:/\d+)?\] +-?\d+ +(\d+) ", summ):
        runs[int(m.group(1))] = int(m.group(2))
    diff = [t["runs"] - runs.get(t["tid"], 0) for t in th["threads"] if t["runs"]]
    ones = diff.count(1)
    check(all(d in (0, 1) for d in diff) and ones <= th["edge_cases"]["open_run_at_end"],
          "%s: timehist -s sched-in counts = threads runs for %d threads, one less for %d "
          "(threads counts a run open at the end: %d such)" %
          (trace, diff.count(0), ones, th["edge_cases"]["open_run_at_end"]))
    hist = json.loads(expected(trace, "hist --json"))
    count = sum(h["count"] for h in hist["histograms"])
    closed = sum(t["intervals"] for t in th["threads"])
    check(count <= closed, "%s: hist off-CPU intervals %d <= threads intervals %d" %
          (trace, count, closed))


def check_speedscope(trace):
    """The speedscope profile of each thread weighs what folded --per-thread gives it."""
    sp = json.loads(expected(trace, "export --symfs symfs --format speedscope"))
    per, _, _ = folded_sums(
        expected(trace, "folded --symfs symfs --mode wall --per-thread --annotate --unit ns"),
        by_tid=True)
    bad = []
    for p in sp["profiles"]:
        tid = int(re.match(r".*-(\d+) \(pid \d+\)$", p["name"]).group(1))
        us = sum(p["weights"])
        if abs(us - per.get(tid, 0) / 1000) > len(p["weights"]):
            bad.append((p["name"], us, per.get(tid, 0)))
    check(not bad and len(sp["profiles"]) == len(per),
          "%s: speedscope weights of each of %d threads = folded --per-thread (within 1 us a "
          "sample) %s" % (trace, len(sp["profiles"]), bad[:3]))


def svg_rects(text):
    """{(title, depth): [(x, width)...]} of a flame graph, depth counted from the root."""
    rects = [(m.group(1), float(m.group(2)), float(m.group(3)), float(m.group(4)))
             for m in re.finditer(r'<title>([^<]*)</title>\s*<rect x="([\d.]+)" '
                                  r'y="([\d.]+)" width="([\d.]+)"', text)]
    root_y = [y for t, x, y, w in rects if t.startswith("all (")][0]
    out = collections.defaultdict(list)
    for t, x, y, w in rects:
        out[(t, round(abs(root_y - y)))].append((x, w))
    return out


def same_svg(ours, theirs):
    """Same frames at the same depths, x and width within 0.15 px (both round to 0.1)."""
    a, b = svg_rects(ours), svg_rects(theirs)
    extra = sorted(k for k in a.keys() ^ b.keys() if not k[0].startswith("[merged: "))
    near = all(abs(x1 - x2) <= 0.15 and abs(w1 - w2) <= 0.15
               for k in a.keys() & b.keys() for (x1, w1), (x2, w2) in zip(sorted(a[k]),
                                                                           sorted(b[k])))
    merged = sorted(k[0] for k in a if k[0].startswith("[merged: "))
    return not extra and near, len(a), extra[:3], merged


def check_svg(trace, tmp, fgpl):
    folded = expected(trace, "folded --symfs symfs")
    _, total, _ = folded_sums(folded)
    svg = expected(trace, "flamegraph --symfs symfs")
    m = re.search(r"<title>all \(([\d,]+) us, 100%\)</title>", svg)
    check(int(m.group(1).replace(",", "")) == total,
          "%s: flamegraph total %s us = folded sum %d" % (trace, m.group(1), total))
    if not fgpl:
        return
    for cmd, fcmd, opts in (
            ("flamegraph --symfs symfs", "folded --symfs symfs", []),
            ("flamegraph --symfs symfs --mode off --inverted --colors io --width 800 "
             "--title golden", "folded --symfs symfs --mode off",
             ["--inverted", "--colors", "io", "--width", "800", "--title", "golden"])):
        theirs = subprocess.run(["perl", fgpl, "--countname", "us"] + opts,
                                input=expected(trace, fcmd), capture_output=True,
                                text=True).stdout
        ok, n, extra, merged = same_svg(expected(trace, cmd), theirs)
        check(ok, "%s: '%s' = flamegraph.pl %s on '%s': %d frames (title, depth, x, width)%s%s"
              % (trace, cmd, " ".join(opts), fcmd, n, " differ: %s" % extra if extra else "",
                 "; ours alone has %s" % merged if merged else ""))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    build = os.path.abspath(sys.argv[1])
    fgpl = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else None
    tmp = tempfile.mkdtemp()
    try:
        os.mkdir(os.path.join(tmp, "symfs"))
        for name in sorted(os.listdir(GOLDEN)):
            if not name.endswith(".wct"):
                continue
            trace = name[:-4]
            shutil.copy(os.path.join(GOLDEN, name), tmp)
            kv, switch_out = wct_stat(build, os.path.join(tmp, name))
            check_info(trace, kv)
            check_timehist(build, trace, tmp, kv, switch_out)
            check_folded_threads(trace)
            check_speedscope(trace)
            check_svg(trace, tmp, fgpl)
    finally:
        shutil.rmtree(tmp)
    print("golden-crosscheck: %d failed" % fails)
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
