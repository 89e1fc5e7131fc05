#!/bin/sh
# threads-live.sh - `wcanalyze threads` on a live recording of tests/wall-workload, whose
# threads measure themselves (lifetime on CLOCK_MONOTONIC from their naming, CPU time on
# CLOCK_THREAD_CPUTIME_ID):
#  - per thread, ON-CPU within 1% of its CPU time and OFF-CPU within 1% of its lifetime minus
#    its CPU time, the CPU time as is, or taken onto CLOCK_MONOTONIC with the clock drift
#    bpftrace measures during its runs, or between (tests/sched-sums.bt); coverage 99-101%
#    and not flagged; the off-CPU columns summing to OFF-CPU; the named functions in its top
#    stacks; SAMPLED,
#    over all of them, within 10% of their CPU time (999 Hz cpu-clock samples);
#  - per tid, the voluntary and involuntary switch counts equal to those of bpftrace on the
#    same run, and ON-CPU and OFF-CPU within 0.5% of its sums of switch-in to switch-out and
#    switch-out to switch-in, plus the spans it could not pair (skipped with the reason
#    without bpftrace);
#  - --json valid against testdata/threads/threads.schema.json (skipped without Debian's
#    python3-jsonschema) and equal to the table; -t; a cut trace (exit 3, a warning with the
#    byte offset, a TRUNCATED header line), a corrupt one (exit 1), bad options (exit 2).
# The workload is pinned to CPU 0: on this project's VMs the idle task's events on CPU 1 are
# never traced (see NOTES in wcanalyze(1)).
# Needs root; exits 77 with the reason elsewhere, or fails when WC_REQUIRE_RECORDING=1.
set -u
B=${builddir:-.}
S=${srcdir:-$(dirname "$0")/..}
WCREC="$B/wcrec"
WCA="$B/wcanalyze"
WL="$B/tests/wall-workload"
. "$(dirname "$0")/testlib.sh"
col() { # col TID N: column N (1 = TID) of the table row of TID, columns split on 2+ spaces
	awk -v t="$1" -v n="$2" -F '  +' '/^#/ { next } { sub(/^ +/, "") } $1 == t { print $n; exit }' "$tmp/table"
}

# 1. one pinned recording, with bpftrace summing switches and times per tid on the side, and
# no other recorder of the live tests running (alone_begin, testlib.sh)
alone_begin
bt_start
"$WCREC" -q -F 999 -o "$tmp/wl.wct" -- taskset -c 0 "$WL" 1.5 >"$tmp/wl.out" 2>"$tmp/err"
expect "wcrec -- wall-workload exits 0 ($(cat "$tmp/err"))" $? -eq 0
bt_stop
alone_end

"$WCA" threads --unit us "$tmp/wl.wct" >"$tmp/table" 2>"$tmp/err"
expect "threads exits 0 ($(cat "$tmp/err"))" $? -eq 0
expect "threads writes nothing on stderr" "$(wc -c <"$tmp/err")" -eq 0
expect "the header gives the lost events" "$(grep -c '^# lost in recording: 0 events, 0 samples' "$tmp/table")" -eq 1
expect "the header gives the edge cases" "$(grep -c '^# edge cases: first event a switch-in [0-9]' "$tmp/table")" -eq 1
expect "the table has its column line" \
	"$(grep -c '^ *TID  *PID  COMM  *LIFETIME  *ON-CPU  *SAMPLED  *OFF-CPU  *SLEEP-S  *BLOCK-D  *OTHER  *PREEMPT-R  *RUNQ-WAKE  *UNKNOWN  *VOL  *INVOL  *COVER$' "$tmp/table")" -eq 1
# rows sorted by LIFETIME, largest first (the default --sort wall); and by OFF-CPU with --sort off
awk -F '  +' '/^#/ || /^ *TID/ { next } /^$/ { exit } { sub(/^ +/, ""); print $4 }' "$tmp/table" >"$tmp/life"
expect "rows are sorted by lifetime" "$(sort -rn "$tmp/life" | cmp -s - "$tmp/life" && echo y)" = y
"$WCA" threads --unit us --sort off "$tmp/wl.wct" |
	awk -F '  +' '/^#/ || /^ *TID/ { next } /^$/ { exit } { sub(/^ +/, ""); print $7 }' >"$tmp/off"
expect "--sort off: rows are sorted by off-CPU time" "$(sort -rn "$tmp/off" | cmp -s - "$tmp/off" && echo y)" = y

cpu_sum=0
sampled_sum=0
while read -r _ tid comm life cpu _; do # all its CPU time: ON-CPU is by tid, not comm
	row_comm=$(col "$tid" 3)
	expect "$comm: a row for tid $tid, comm $row_comm" "$row_comm" = "$comm"
	on=$(col "$tid" 5)
	off=$(col "$tid" 7)
	on_ns=$((${on:-0} * 1000))
	off_ns=$((${off:-0} * 1000))
	# its CPU time on CLOCK_MONOTONIC, the trace's clock: the thread CPU-time clock runs on
	# the scheduler's clock, which here drifts from CLOCK_MONOTONIC under load (bpftrace
	# measures by how much during the thread's runs; see sched-sums.bt)
	drift=$(bt_drift "$tid")
	# 2%: that clock leaves out steal time (CONFIG_PARAVIRT_TIME_ACCOUNTING), which
	# bpftrace's reading of rq->clock_task does not always catch: wl-reader's was 0.8 ms (1.2%)
	# under its switch-to-switch time in one ASan run under the parallel suite's load, where
	# ours and bpftrace's agreed within 0.1%.  The tight check is that side by side, below;
	# analyze-live.sh holds the 1% goal of wcanalyze(1) against these clocks.
	near_clock "$on_ns" "$cpu" "$drift" 2
	expect "$comm: ON-CPU $on_ns ns within 2% of its CPU time $cpu ns (+ clock drift $drift ns)" $? -eq 0
	# its lifetime in the recording starts before the thread measures (its wait for its first
	# run, its naming) and ends after (printing, its exit): in one ASan run under the parallel
	# suite's load, wl-writer's off-CPU time was 193 ms over its own lifetime - CPU time, and
	# bpftrace's agreed with ours
	rlife=$(($(col "$tid" 4) * 1000))
	expect "$comm: LIFETIME $rlife ns, at least its own $life ns" "$rlife" -ge $((life - life / 1000))
	near_clock "$off_ns" $((rlife - cpu)) $((-drift)) 1
	expect "$comm: OFF-CPU $off_ns ns within 1% of LIFETIME - CPU time $((rlife - cpu)) ns (- drift $drift ns)" $? -eq 0
	sum=$(($(col "$tid" 8) + $(col "$tid" 9) + $(col "$tid" 10) + $(col "$tid" 11) + $(col "$tid" 12)))
	# each cell is rounded to the us: the five may differ from the total by 3 us
	expect "$comm: SLEEP-S + BLOCK-D + OTHER + PREEMPT-R + RUNQ-WAKE = $sum, OFF-CPU $off (+-3 us)" \
		"$(awk -v a="$sum" -v b="$off" 'BEGIN { d = a - b; print (d <= 3 && d >= -3) }')" -eq 1
	expect "$comm: UNKNOWN $(col "$tid" 13) us, under 1% of its lifetime" \
		"$(col "$tid" 13)" -le $((rlife / 100000))
	cover=$(col "$tid" 16)
	expect "$comm: coverage $cover between 99% and 101%, not flagged" \
		"$(echo "$cover" | awk '/!/ { print 0; exit } { sub(/%/, ""); print ($1 >= 99 && $1 <= 101) }')" -eq 1
	cpu_sum=$((cpu_sum + cpu))
	sampled_sum=$((sampled_sum + $(col "$tid" 6) * 1000))
	if [ $have_bpftrace = 1 ]; then
		for kind in vol invol; do
			want=$(bt $kind "$tid")
			got=$(col "$tid" $([ $kind = vol ] && echo 14 || echo 15))
			expect "$comm: $kind switches $got, bpftrace counted $want" "$got" -eq "$want"
		done
		# bpftrace pairs the switches it saw; a span it could not pair (a switch the
		# kernel did not trace: PID 1's threads here) is ours to split
		un=$(bt unpaired "$tid")
		# and its runs summed on CLOCK_MONOTONIC and on the scheduler's task clock part by
		# the steal time under load (2.1 ms of 315 seen, ASan with a second suite running):
		# ON-CPU lies from the task clock's sum to the monotonic one's (+ unpaired)
		lo=$(bt on_task "$tid")
		[ "$lo" -le "$(bt on "$tid")" ] || lo=$(bt on "$tid")
		between "$on_ns" "$lo" $(($(bt on "$tid") - lo + un)) 0.5
		expect "$comm: ON-CPU $on_ns ns within 0.5% of bpftrace's $(bt on "$tid") ns, $lo ns on the task clock (+ unpaired $un ns)" $? -eq 0
		# OFF-CPU counts a new thread's wait for its first run (it has no switch-out; ten
		# ms of it were seen under load): bpftrace's @first
		first=$(bt first "$tid")
		between "$off_ns" $(($(bt off "$tid") + first)) "$un" 0.5
		expect "$comm: OFF-CPU $off_ns ns within 0.5% of bpftrace's $(bt off "$tid") ns + its first wait $first ns (+ unpaired $un ns)" $? -eq 0
	fi
done <"$tmp/wl.out"
expect "five workload threads measured themselves" "$(wc -l <"$tmp/wl.out")" -eq 5
within "$sampled_sum" "$cpu_sum" 10
expect "SAMPLED $sampled_sum ns, summed over the threads, within 10% of their CPU time $cpu_sum ns" $? -eq 0
[ $have_bpftrace = 1 ] || echo "SKIP bpftrace side-by-side and clock drift: bpftrace is not installed"

# 2. the named functions in the right kind of top stack
stacks() { # stacks COMM off|on: that thread's top stack lines of that kind
	awk -v c="$1" -v k="$2-CPU" '/^$/ { in_t = 0 } $2 == c && /\(pid / { in_t = 1; next }
		in_t && $1 == k { print }' "$tmp/table"
}
for check in "wl-alternate wl_spin on" "wl-alternate wl_sleep off" "wl-reader wl_read off" \
	"wl-reader wl_consume on" "wl-writer wl_sleep off" "wl-mutex-a wl_hold on" \
	"wl-mutex-b wl_hold on" "wl-mutex-a wl_lock off"; do
	set -- $check
	expect "a top $3-CPU stack of $1 holds $2" "$(stacks "$1" "$3" | grep -c ";$2;\|;$2\$")" -gt 0
done
expect "wl-reader's top off-CPU stack is its sleep in wl_read, state S" \
	"$(stacks wl-reader off | head -1 | grep -c '^  off-CPU S .*;wl_read;')" -eq 1

# 3. --json: valid, and the same figures as the table
"$WCA" threads --json "$tmp/wl.wct" >"$tmp/json" 2>"$tmp/err"
expect "threads --json exits 0 ($(cat "$tmp/err"))" $? -eq 0
if /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
	/usr/bin/python3 -m jsonschema -i "$tmp/json" "$S/testdata/threads/threads.schema.json" >"$tmp/err" 2>&1
	expect "the JSON is valid against threads.schema.json ($(head -c 300 "$tmp/err"))" $? -eq 0
else
	echo "SKIP JSON Schema validation: /usr/bin/python3 has no jsonschema (python3-jsonschema)"
fi
if command -v python3 >/dev/null 2>&1; then
	python3 - "$tmp/json" "$tmp/table" >"$tmp/err" 2>&1 <<'PY'
import json, re, sys
doc = json.load(open(sys.argv[1]))
rows = {}
for line in open(sys.argv[2]):
    if line.startswith('#') or not line.strip():
        if rows and not line.strip():
            break
        continue
    cells = re.split(r'  +', line.strip())
    if cells[0] != 'TID':
        rows[int(cells[0])] = cells
keys = ['lifetime_ns', 'on_cpu_ns', 'on_cpu_sampled_ns', 'off_cpu_ns', 'sleep_ns',
        'uninterruptible_ns', 'other_ns', 'preempted_ns', 'runqueue_ns']
assert len(doc['threads']) == len(rows), (len(doc['threads']), len(rows))
for i, t in enumerate(doc['threads']):
    c = rows[t['tid']]
    assert list(rows)[i] == t['tid'], 'order'
    assert int(c[1]) == t['pid'] and c[2] == t['comm'], c
    for k, cell in zip(keys, c[3:12]):
        assert (t[k] + 500) // 1000 == int(cell), (t['tid'], k, t[k], cell)
    assert (t['unknown_ns'] + 500) // 1000 == int(c[12]), (t['tid'], t['unknown_ns'], c[12])
    assert int(c[13]) == t['switches_voluntary'] and int(c[14]) == t['switches_involuntary']
    assert t['off_cpu_ns'] == sum(t[k] for k in keys[4:]), t
PY
	expect "the JSON has the table's rows, order and figures ($(tail -1 "$tmp/err"))" $? -eq 0
fi

# 4. a trace without scheduler events: sampled on-CPU time only, no coverage, no flag
"$WCREC" -q -F 999 --no-sched -o "$tmp/ns.wct" -- taskset -c 0 "$WL" 0.3 >"$tmp/ns.out" 2>"$tmp/err"
expect "wcrec --no-sched exits 0 ($(cat "$tmp/err"))" $? -eq 0
"$WCA" threads "$tmp/ns.wct" >"$tmp/table" 2>"$tmp/err"
expect "threads of a --no-sched trace exits 0 ($(cat "$tmp/err"))" $? -eq 0
expect "... the header says there is no sched_switch" "$(grep -c '^# no sched_switch' "$tmp/table")" -eq 1
tid=$(awk '$3 == "wl-alternate" { print $2 }' "$tmp/ns.out")
expect "... wl-alternate: SAMPLED > 0, ON-CPU and OFF-CPU 0, COVER -" \
	"$(col "$tid" 6 | awk '{ print ($1 > 0) }') $(col "$tid" 5) $(col "$tid" 7) $(col "$tid" 16)" = "1 0.000 0.000 -"
expect "... no row is flagged" "$(grep -c '%!' "$tmp/table")" -eq 0

# 5. -t; a cut file; a damaged file; bad options
tid=$(awk '$3 == "wl-writer" { print $2 }' "$tmp/wl.out")
"$WCA" threads -t "$tid" "$tmp/wl.wct" >"$tmp/one" 2>/dev/null
expect "-t $tid: one row" "$(awk '/^#/ || /^ *TID/ { next } /^$/ { exit } { n++ } END { print n + 0 }' "$tmp/one")" -eq 1
cut_run "$tmp/cut.out" threads
expect "a cut trace: the header says so" "$(grep -c '^# TRUNCATED at byte [0-9]' "$tmp/cut.out")" -eq 1
expect "a cut trace: what is before the cut is reported" "$(grep -c 'wl-' "$tmp/cut.out")" -gt 4
"$WCA" threads --json "$tmp/cut.wct" 2>/dev/null | grep -q '"truncated":true'
expect "a cut trace: --json says truncated" $? -eq 0
cp "$tmp/wl.wct" "$tmp/bad.wct"
printf 'XXXXXXXXXXXXXXXX' | dd of="$tmp/bad.wct" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
"$WCA" threads "$tmp/bad.wct" >"$tmp/bad.out" 2>"$tmp/err"
expect "a corrupt trace: exit 1 (got $?)" $? -eq 1
expect "a corrupt trace: one line on stderr ($(cat "$tmp/err")), nothing on stdout" \
	"$(wc -l <"$tmp/err")$(wc -c <"$tmp/bad.out")" = 10
"$WCA" threads /nonexistent.wct 2>"$tmp/err"
expect "a missing file: exit 1 and a line naming it" "$?$(grep -c nonexistent.wct "$tmp/err")" = 11
for args in "--unit s" "--unit" "--state S" "-m 5" "--mode on" "--time 5,1" "--per-thread" "--bogus" "--sort cpu" "--sort"; do
	# shellcheck disable=SC2086
	"$WCA" threads $args "$tmp/wl.wct" >/dev/null 2>"$tmp/err"
	rc=$?
	expect "wcanalyze threads $args exits 2 (got $rc) with a line on stderr" "$rc$(wc -l <"$tmp/err")" = 21
done
"$WCA" threads "$tmp/wl.wct" "$tmp/wl.wct" >"$tmp/two" 2>"$tmp/err"
rc=$?
expect "two FILEs: exit 0, each file's table under ==> FILE <== ($rc, $(grep -c '^==> ' "$tmp/two"))" \
	"$rc$(grep -c '^==> ' "$tmp/two")" = 02
"$WCA" threads "$tmp/wl.wct" --json >/dev/null 2>"$tmp/err"
rc=$?
expect "an option after the FILE: exit 2 ($rc: $(head -1 "$tmp/err"))" $rc -eq 2
"$WCA" threads --help >"$tmp/help"
expect "--help: exit 0, usage on stdout" "$?$(grep -c '^usage: wcanalyze threads' "$tmp/help")" = 01

# 6. threads asleep through the recording have rows for all of it: one asleep from before the
# start to after the end (sleep 30), known only from wcrec's /proc snapshot; one that sleeps
# from about 0.3 s on in an interval still open at the end (a sh that reads a FIFO, then
# sleeps 0.2 s, then execs sleep 30), seen in a window after its last switch.  Each row's figures against the header's duration (the
# times of a -p trace start at its snapshot).
# The second waits on a FIFO, asleep, until the recording has begun (its file holds the
# metadata written after the snapshot), then execs: a fixed delay was passed before a slow
# recorder's snapshot (ASan in CI ZB), which then saw it already exec'd and running.
mkfifo "$tmp/go"
sleep 30 &
sl=$!
sh -c "read x <'$tmp/go'; sleep 0.2; exec sleep 30" &
ex=$!
sleep 0.1 # both asleep before the snapshot
"$WCREC" -q -p "$sl,$ex" -d 1.5 -o "$tmp/sleep.wct" 2>"$tmp/err" &
rec=$!
i=0
while [ $i -lt 100 ] && [ "$(stat -c %s "$tmp/sleep.wct" 2>/dev/null || echo 0)" -lt 4096 ]; do
	sleep 0.05
	i=$((i + 1))
done
echo go >"$tmp/go"
wait "$rec"
rc=$?
kill "$sl" "$ex" 2>/dev/null
wait "$sl" "$ex" 2>/dev/null
expect "wcrec -p on two sleepers exits 0 ($(cat "$tmp/err"))" $rc -eq 0
"$WCA" threads --unit us "$tmp/sleep.wct" >"$tmp/table" 2>"$tmp/err"
expect "threads of the sleepers exits 0 ($(cat "$tmp/err"))" $? -eq 0
dur=$(sed -n 's/^# .* seen, \([0-9.]*\) s recorded.*/\1/p' "$tmp/table" | awk '{ printf "%d", $1 * 1e6 + 0.5 }')
expect "the recording lasted about 1.5 s (${dur} us)" "$dur" -ge 1400000
expect "sleep 30 (tid $sl) has a row: LIFETIME $(col "$sl" 4) us, the recording's $dur us (+-1)" \
	"$(awk -v a="$(col "$sl" 4)" -v b="$dur" 'BEGIN { d = a - b; print (d <= 1 && d >= -1) }')" -eq 1
expect "... all of it SLEEP-S ($(col "$sl" 8) us), none on a CPU ($(col "$sl" 5)), COVER 100.0%" \
	"$(col "$sl" 8) $(col "$sl" 5) $(col "$sl" 16)" = "$(col "$sl" 4) 0 100.0%"
expect "... its off-CPU stack says the state came from /proc" \
	"$(grep -A1 "^$sl sleep (pid $sl)" "$tmp/table" | grep -c '^  off-CPU S .*\[state from /proc at the start\]$')" -eq 1
# the exec'd sleeper's switch-in after its wakeup may go untraced (CPU 1's switches out of
# idle here): its run from the wakeup to its first traced switch-out (wait4's return, the exec,
# until sleep 30 sleeps) is then unknown, 4.3 ms of it in J-1 of issue 23's runs under load
expect "the exec'd sleeper (tid $ex) lives the whole recording, LIFETIME $(col "$ex" 4) us, UNKNOWN $(col "$ex" 13) us under 1% (COVER $(col "$ex" 16))" \
	"$(col "$ex" 4) $(($(col "$ex" 13) * 100 <= $(col "$ex" 4)))" = "$(col "$sl" 4) 1"
"$WCA" threads --json "$tmp/sleep.wct" >"$tmp/json" 2>/dev/null
expect "--json: sleep 30 first seen in /proc, in state S there" \
	"$(grep -c "{\"tid\":$sl,.*\"first_seen\":\"proc\",.*\"at_start\":true,\"proc_state\":\"S\"" "$tmp/json")" -eq 1
# the window 0.6-1.2 s: both asleep all of it, the second in its interval open at the end
"$WCA" threads --unit us --time 0.6,1.2 "$tmp/sleep.wct" >"$tmp/table" 2>"$tmp/err"
expect "--time 0.6,1.2: exit 0 ($(cat "$tmp/err"))" $? -eq 0
for t in "$sl" "$ex"; do
	expect "--time 0.6,1.2: tid $t is there, asleep all the window: $(col "$t" 4) $(col "$t" 8) $(col "$t" 16)" \
		"$(col "$t" 4) $(col "$t" 8) $(col "$t" 16)" = "600000 600000 100.0%"
done
expect "--time 0.6,1.2: only the two (the sleep 0.2 between exited before)" \
	"$(awk '/^#/ || /^ *TID/ { next } /^$/ { exit } { n++ } END { print n + 0 }' "$tmp/table")" -eq 2

[ $fails -eq 0 ] || { echo "$fails checks failed"; exit 1; }
