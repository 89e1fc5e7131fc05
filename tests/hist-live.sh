#!/bin/sh
# hist-live.sh - `wcanalyze hist` on a live recording of tests/wall-workload (pinned to CPU 0:
# on this project's VMs the idle task's events on CPU 1 are never traced), checked against a
# bpftrace script that measures the same three things on the same run from the same
# tracepoints:
#   off   switch-out to switch-in of a tid (cpudist -O);
#   runq  first sched_waking after a sleep, or the switch-out of a preempted task, or
#         sched_wakeup_new, to the switch-in (runqlat, with wcanalyze's first-wakeup rule);
#   on    switch-in to switch-out (cpudist).
# bpftrace counts each length in whole microseconds (ns / 1000, as BCC), per tid.  Per
# workload thread and kind, the numbers of values must agree, and the histograms may differ
# only by values within $J us of a slot boundary: for every boundary 2^k, the cumulative
# counts below it differ by at most the number of bpftrace values in [2^k - J, 2^k + J)
# (bpftrace stamps each event before perf does, by the cost of its program: 2 us was the
# most seen).  Slack beyond that: values closed by a switch-in the kernel did not trace, which
# wcanalyze infers (counts.inferred), have no pair on bpftrace's side, which misses the same
# switch-in; and bpftrace misses the rare event that fires while one of its programs runs
# (bpf_prog_active): one value, and one more per 200.
# Without bpftrace, that part is skipped with the reason.  Then: the sleeps of wl-alternate
# (10 ms) and wl-writer (20 ms) in their slots, text and JSON agreeing, the JSON against
# testdata/hist/hist.schema.json, a cut trace (exit 3 and the warning), a corrupt one
# (exit 1, no output), bad options (exit 2).  The workload threads' comms are wl-*.
# Needs root; exits 77 with the reason elsewhere, or fails when WC_REQUIRE_RECORDING=1.
set -u
B=${builddir:-.}
S=$(cd "$(dirname "$0")/.." && pwd)
WCREC="$B/wcrec"
WCA="$B/wcanalyze"
WL="$B/tests/wall-workload"
J=4
. "$(dirname "$0")/testlib.sh"
PY=/usr/bin/python3
[ -x $PY ] || PY=python3
command -v $PY >/dev/null 2>&1 || skip "no python3 to compare the histograms"

# 1. one pinned recording; with bpftrace, run by bpftrace -c, which attaches its probes before
#    it starts the command and prints its maps when the command ends.  Its value maps keep the
#    workload's threads only (comm wall-workload or wl-*): other builds run on this machine.
cat >"$tmp/record.sh" <<EOF
#!/bin/sh
exec "$WCREC" -q -o "$tmp/wl.wct" -- taskset -c 0 "$WL" 1.5 >"$tmp/wl.out" 2>"$tmp/err"
EOF

have_bt=0
if command -v bpftrace >/dev/null 2>&1; then
	cat >"$tmp/hist.bt" <<'BT'
tracepoint:sched:sched_switch
{
	if (args->prev_pid != 0) {
		@out[args->prev_pid] = nsecs;
		if (@in[args->prev_pid]) {
			if (strncmp(args->prev_comm, "wl-", 3) == 0 ||
			    args->prev_comm == "wall-workload") {
				@on[args->prev_pid, (nsecs - @in[args->prev_pid]) / 1000] = count();
			}
			delete(@in[args->prev_pid]);
		}
		if ((args->prev_state & 0xff) == 0) { /* R or R+: runnable, waits from now */
			@q[args->prev_pid] = nsecs;
		} else {
			delete(@q[args->prev_pid]);
			@asleep[args->prev_pid] = 1;
		}
	}
	if (args->next_pid != 0) {
		$mine = strncmp(args->next_comm, "wl-", 3) == 0 ||
			args->next_comm == "wall-workload";
		if (@out[args->next_pid]) {
			if ($mine) {
				$d = (nsecs - @out[args->next_pid]) / 1000;
				@off[args->next_pid, $d] = count();
			}
			delete(@out[args->next_pid]);
		}
		if (@q[args->next_pid]) {
			if ($mine) {
				$d = (nsecs - @q[args->next_pid]) / 1000;
				@runq[args->next_pid, $d] = count();
			}
			delete(@q[args->next_pid]);
		}
		delete(@asleep[args->next_pid]);
		@in[args->next_pid] = nsecs;
	}
}
tracepoint:sched:sched_waking
/@asleep[args->pid]/
{
	@q[args->pid] = nsecs;
	delete(@asleep[args->pid]);
}
tracepoint:sched:sched_wakeup_new
{
	@q[args->pid] = nsecs;
}
END { clear(@out); clear(@in); clear(@q); clear(@asleep); }
BT
	BPFTRACE_MAP_KEYS_MAX=65536 timeout -s INT -k 10 120 \
		bpftrace -c "/bin/sh $tmp/record.sh" "$tmp/hist.bt" >"$tmp/bt.out" 2>"$tmp/bt.err"
	rc=$?
	why="$(cat "$tmp/err") $(grep -v RLIMIT_MEMLOCK "$tmp/bt.err" | head -c 300)"
	expect "bpftrace -c wcrec -- wall-workload exits 0 ($why)" $rc -eq 0
	grep -q '^@' "$tmp/bt.out" && have_bt=1
else
	sh "$tmp/record.sh"
	expect "wcrec -- wall-workload exits 0 ($(cat "$tmp/err"))" $? -eq 0
fi

# 2. the three kinds, text and JSON
for k in off runq on; do
	"$WCA" hist --kind $k -L "$tmp/wl.wct" >"$tmp/$k.txt" 2>"$tmp/err"
	expect "hist --kind $k -L exits 0 ($(cat "$tmp/err"))" $? -eq 0
	"$WCA" hist --kind $k -L --json "$tmp/wl.wct" >"$tmp/$k.json" 2>"$tmp/err"
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

# 4. against bpftrace
if [ $have_bt = 1 ] && [ "${lost:-1}" = 0 ]; then
	while read -r _ tid comm _; do
		for k in off runq on; do
			res=$($PY - "$tmp/bt.out" "$tmp/$k.json" "$k" "$tid" "$J" <<'PY'
import json, re, sys
bt, js, kind, tid, J = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
v = []
for line in open(bt):
    m = re.match(r'@(\w+)\[(\d+), (\d+)\]: (\d+)', line)
    if m and m.group(1) == kind and int(m.group(2)) == tid:
        v += [int(m.group(3))] * int(m.group(4))
ours = [0] * 64
doc = json.load(open(js))
# a value closed by a switch-in the kernel did not trace, inferred at the wakeup, has no pair
# in bpftrace, which missed the same switch-in: each such value is slack
slack = doc["counts"]["inferred"] if kind != "runq" else 0
# and a BPF program does not run when the tracepoint fires inside another one on the same CPU
# (bpf_prog_active), nor does an interrupt between the two tools' time stamps show in J: one
# value, and one more per 200, may be off
slack += 1 + len(v) // 200
for g in doc["histograms"]:
    if g["tid"] == tid:
        for i, b in enumerate(g["buckets"]):
            ours[i] = b["count"]
theirs = [0] * 64
for x in v:
    theirs[max(x.bit_length() - 1, 0)] += 1
ok = abs(sum(ours) - len(v)) <= slack and len(v) > 0
ca = cb = worst = 0
for k in range(63):
    ca += ours[k]
    cb += theirs[k]
    near = sum(1 for x in v if (2 << k) - J <= x < (2 << k) + J)
    ok = ok and abs(ca - cb) <= near + slack
    worst = max(worst, abs(ca - cb))
print("%d values, bpftrace %d, cumulative counts %d apart at most (slack %d): %s"
      % (sum(ours), len(v), worst, slack, "ok" if ok else "BAD"))
PY
)
			case $res in *ok) r=0 ;; *) r=1 ;; esac
			expect "$comm: $k: $res" $r -eq 0
		done
	done <"$tmp/wl.out"
elif [ $have_bt = 1 ]; then
	echo "SKIP bpftrace side-by-side: $lost events were lost in the recording"
else
	why=$(head -c 200 "$tmp/bt.err" 2>/dev/null)
	echo "SKIP bpftrace side-by-side: bpftrace is not installed or counted nothing ($why)"
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
