#!/bin/sh
# hist-live.sh - `wcanalyze hist` on a live recording of tests/wall-workload (pinned to CPU 0:
# on this project's VMs the idle task's events on CPU 1 are never traced), checked against
# the same three things computed here, independently, from perf's recording of the same run:
#   off   switch-out to switch-in of a tid (cpudist -O);
#   runq  first sched_waking after a sleep, or the switch-out of a preempted task, or
#         sched_wakeup_new, to the switch-in (runqlat, with wcanalyze's first-wakeup rule);
#   on    switch-in to switch-out (cpudist).
# Each length counts in whole microseconds (ns / 1000, as BCC), per tid.  Both sides work
# from perf's time stamps (our trace takes them, event by event: perf_stamps in testlib.sh),
# so per workload thread and kind the histograms must be the same; the only slack is the
# values closed by a switch-in the kernel did not trace, which wcanalyze infers
# (counts.inferred) and the reference, as perf, cannot pair.  (The reference was a bpftrace
# script until its own time stamps proved unusable for this: a BPF program here takes 1 to
# 100 us, its map updates 0.3 to 2 us each, so its stamps ran ahead of perf's by a varying
# amount and the 11 us runs of the mutex threads crossed the 16 us slot boundary by dozens.)
# Without perf, that part is skipped with the reason.  Then: the sleeps of wl-alternate
# (10 ms) and wl-writer (20 ms) in their slots, text and JSON agreeing, the JSON against
# testdata/hist/hist.schema.json, a cut trace (exit 3 and the warning), a corrupt one
# (exit 1, no output), bad options (exit 2).
# Needs root; exits 77 with the reason elsewhere, or fails when WC_REQUIRE_RECORDING=1.
set -u
B=${builddir:-.}
S=$(cd "$(dirname "$0")/.." && pwd)
WCREC="$B/wcrec"
WCA="$B/wcanalyze"
WL="$B/tests/wall-workload"
. "$(dirname "$0")/testlib.sh"
PY=/usr/bin/python3
[ -x $PY ] || PY=python3
command -v $PY >/dev/null 2>&1 || skip "no python3 to compare the histograms"

# 1. one pinned recording, by wcrec (with its default callchains) inside a system-wide perf
#    recording of the same tracepoints, on wcrec's clock
have_perf=0
if command -v perf >/dev/null 2>&1; then
	shared_run perf record -q -B -a -k CLOCK_MONOTONIC -e sched:sched_switch -e sched:sched_waking \
		-e sched:sched_wakeup_new -o "$tmp/perf.data" -- \
		"$WCREC" -q -o "$tmp/wl.wct" -- taskset -c 0 "$WL" 1.5 >"$tmp/wl.out" 2>"$tmp/err"
	rc=$?
	expect "perf record -- wcrec -- wall-workload exits 0 ($(tail -1 "$tmp/err"))" $rc -eq 0
	# the events perf's event missed are each slack for their thread below (ps_unpaired_of)
	perf_stamps_checked "$tmp/perf.data" "$tmp/wl.wct" "$tmp/wl.ps.wct" && have_perf=1
else
	"$WCREC" -q -o "$tmp/wl.wct" -- taskset -c 0 "$WL" 1.5 >"$tmp/wl.out" 2>"$tmp/err"
	expect "wcrec -- wall-workload exits 0 ($(cat "$tmp/err"))" $? -eq 0
fi
PS="$tmp/wl.wct"
[ $have_perf = 1 ] && PS="$tmp/wl.ps.wct"
"$B/tests/wct-stat" "$PS" >"$tmp/wl.stat" 2>/dev/null

# 2. the three kinds, text and JSON
for k in off runq on; do
	"$WCA" hist --kind $k -L "$PS" >"$tmp/$k.txt" 2>"$tmp/err"
	expect "hist --kind $k -L exits 0 ($(cat "$tmp/err"))" $? -eq 0
	"$WCA" hist --kind $k -L --json "$PS" >"$tmp/$k.json" 2>"$tmp/err"
	expect "hist --kind $k -L --json exits 0 ($(cat "$tmp/err"))" $? -eq 0
done
lost=$(sed -n 's/.*lost events \([0-9]*\), lost samples.*/\1/p' "$tmp/off.txt")
expect "the footer gives the lost events (${lost:-none})" -n "${lost:-}"

# text rows and JSON buckets agree, histogram by histogram
for k in off runq on; do
	$PY - "$tmp/$k.txt" "$tmp/$k.json" <<'PY'
import json, re, sys
text = {}
cur = None
for line in open(sys.argv[1]):
    m = re.match(r'tid = (\d+) ', line)
    if m:
        cur = text.setdefault(int(m.group(1)), [])
    m = re.match(r'\s*(\d+) -> (\d+)\s*: (\d+)\s*\|', line)
    if m and cur is not None:
        cur.append((int(m.group(1)), int(m.group(2)), int(m.group(3))))
js = {g["tid"]: [(b["low"], b["high"], b["count"]) for b in g["buckets"]]
      for g in json.load(open(sys.argv[2]))["histograms"]}
sys.exit(text != js or not js)
PY
	expect "$k: the text rows are the JSON buckets" $? -eq 0
done

# the JSON against its schema (python3-jsonschema)
if $PY -c 'import jsonschema' 2>/dev/null; then
	for k in off runq on; do
		$PY -c 'import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' \
			"$tmp/$k.json" "$S/testdata/hist/hist.schema.json" 2>"$tmp/err"
		rc=$?
		expect "$k: the JSON is valid against its schema ($(tail -1 "$tmp/err"))" $rc -eq 0
	done
else
	echo "SKIP JSON schema: python3-jsonschema is not installed"
fi

# 3. the workload's known sleeps: wl-alternate sleeps 10 ms (slot 8192 -> 16383 us) and
#    wl-writer 20 ms (16384 -> 32767) about 1.5 s / 15 ms = 100 and 1.5 s / 21 ms = 70 times
row() { # row KIND TID LOW: the count of the row starting at LOW us
	$PY -c 'import json, sys
for g in json.load(open(sys.argv[1]))["histograms"]:
    if g["tid"] == int(sys.argv[2]):
        print(sum(b["count"] for b in g["buckets"] if b["low"] == int(sys.argv[3])))' \
		"$tmp/$1.json" "$2" "$3"
}
alt=$(awk '$3 == "wl-alternate" { print $2 }' "$tmp/wl.out")
wri=$(awk '$3 == "wl-writer" { print $2 }' "$tmp/wl.out")
n=$(row off "$alt" 8192)
expect "wl-alternate: ${n:-no} off-CPU intervals of 8192 -> 16383 us (its 10 ms sleeps), >= 40" \
	"${n:-0}" -ge 40
n=$(row off "$wri" 16384)
expect "wl-writer: ${n:-no} off-CPU intervals of 16384 -> 32767 us (its 20 ms sleeps), >= 30" \
	"${n:-0}" -ge 30

# 4. against the reference, from perf's events: "KIND TID US" per value, of every thread
if [ $have_perf = 1 ] && [ "${lost:-1}" = 0 ]; then
	$PY - "$tmp/perf.ev" >"$tmp/ref" <<'PY'
import sys
inn, out, q, asleep = {}, {}, {}, set()
for line in open(sys.argv[1]):
    f = line.split()
    t, ev, a, b = int(f[1]), f[2], int(f[3]), int(f[4])
    if ev == 'sched_switch':
        if a != 0:
            if a in inn:
                print('on', a, (t - inn.pop(a)) // 1000)
            out[a] = t
            if f[5].startswith('R'):  # preempted: runnable, waits from now
                q[a] = t
            else:
                q.pop(a, None)
                asleep.add(a)
        if b != 0:
            if b in out:
                print('off', b, (t - out.pop(b)) // 1000)
            if b in q:
                print('runq', b, (t - q.pop(b)) // 1000)
            asleep.discard(b)
            inn[b] = t
    elif ev == 'sched_waking' and a in asleep:
        q[a] = t
        asleep.discard(a)
    elif ev == 'sched_wakeup_new':
        q[a] = t
PY
	while read -r _ tid comm _; do
		for k in off runq on; do
			res=$($PY - "$tmp/ref" "$tmp/$k.json" "$k" "$tid" "$(ps_unpaired_of "$tid")" \
				"$(awk -v t="$tid" '$1 == "switch_in.tid" && $2 == t { n = $3 } END { print n + 0 }' "$tmp/wl.stat")" <<'PY'
import json, sys
ref, js, kind, tid, missed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
records = int(sys.argv[6])
theirs = [0] * 64
n = 0
for line in open(ref):
    k, t, us = line.split()
    if k == kind and int(t) == tid:
        theirs[max(int(us).bit_length() - 1, 0)] += 1
        n += 1
ours = [0] * 64
doc = json.load(open(js))
for g in doc["histograms"]:
    if g["tid"] == tid:
        for i, b in enumerate(g["buckets"]):
            ours[i] = b["count"]
# a value closed by a switch-in the kernel did not trace, which wcanalyze infers or takes from
# a context-switch record (PID 1's threads' switch-outs are untraced on every CPU here), has
# no pair in the reference, which misses the same switch-in: each such value is slack (the
# inferred ones of the whole trace, the records of this thread)
slack = (doc["counts"]["inferred"] if kind != "runq" else 0) + records
# an event of the thread's that perf missed ends or starts up to two values on either side
slack += 2 * missed
ca = cb = worst = 0
for k in range(64):
    ca += ours[k]
    cb += theirs[k]
    worst = max(worst, abs(ca - cb))
apart = [k for k in range(64) if ours[k] != theirs[k]]
print("%d values, the reference %d, cumulative counts %d apart at most (slack %d)%s: %s"
      % (sum(ours), n, worst, slack,
         "".join(" slot %d: %d against %d" % (1 << k, ours[k], theirs[k]) for k in apart[:3]),
         "ok" if n > 0 and worst <= slack else "BAD"))
PY
)
			case $res in *ok) r=0 ;; *) r=1 ;; esac
			expect "$comm: $k: $res" $r -eq 0
		done
	done <"$tmp/wl.out"
elif [ $have_perf = 1 ]; then
	echo "SKIP side by side with perf's events: $lost events were lost in the recording"
else
	echo "SKIP side by side with perf's events: perf is not installed, or its events could not be paired with ours"
fi

# 5. a cut trace, a corrupt one, bad options
size=$(stat -c %s "$tmp/wl.wct")
head -c $((size / 2)) "$tmp/wl.wct" >"$tmp/cut.wct"
"$WCA" hist "$tmp/cut.wct" >"$tmp/cut.txt" 2>"$tmp/err"
rc=$?
expect "a cut trace: exit 3 (got $rc)" $rc -eq 3
grep -q "the trace is cut at byte" "$tmp/err"
expect "a cut trace: the warning gives the offset ($(cat "$tmp/err"))" $? -eq 0
grep -q '^intervals counted [0-9]* (inferred switch-in [0-9]*), left out: new-' "$tmp/cut.txt"
expect "a cut trace: the report of what is before the cut, with its counts" $? -eq 0
cp "$tmp/wl.wct" "$tmp/bad.wct"
printf 'ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ' |
	dd of="$tmp/bad.wct" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
"$WCA" hist "$tmp/bad.wct" >"$tmp/bad.txt" 2>"$tmp/err"
rc=$?
expect "a corrupt trace: exit 1 (got $rc: $(cat "$tmp/err"))" $rc -eq 1
expect "a corrupt trace: nothing on stdout" ! -s "$tmp/bad.txt"
"$WCA" hist --kind wait "$tmp/wl.wct" >/dev/null 2>"$tmp/err"
expect "--kind wait: exit 2 ($(cat "$tmp/err"))" $? -eq 2
"$WCA" hist --kind on -M 5 "$tmp/wl.wct" >/dev/null 2>"$tmp/err"
expect "--kind on -M 5: exit 2 ($(cat "$tmp/err"))" $? -eq 2

[ $fails = 0 ] || exit 1
exit 0
