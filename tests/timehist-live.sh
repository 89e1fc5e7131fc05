#!/bin/sh
# timehist-live.sh - wcanalyze timehist against perf sched timehist, side by side on one run of
# tests/wall-workload pinned to CPU 0, recorded by `perf sched record` (system-wide) and wcrec
# at the same time.  Per workload thread, from our rows and perf's (both with --state, whose
# columns are the same): the same runs (sched-in counts equal), and run time, wait time and
# the sch delay of the intervals that began with a sleep (S or D, the states perf 6.1 decodes
# right) within 1%.  Left out on both sides, as we differ on purpose there (NOTES in
# man/wcanalyze-timehist.1): the exit switch-out, and any run after the EXIT record (perf 6.1
# credits them to a thread ":-1" it makes then: checked as such), the first run's wait
# (perf: none; ours: the new task's wait for its first run), the sch delay of a preempted
# task (perf 6.1: from a wakeup if one came, else 0; ours: all of it).  Our summary's counts
# and run times are those of our rows.  Then the summaries: `perf sched timehist -s --state`
# against ours, per workload thread, with the exit row set apart (sched-in counts equal; run,
# wait and delay-after-wakeup totals within 1%), and the header lines byte for byte.
# Then, on the same recording: -I row for row against perf's -I (the idle rows and the rows of
# the tasks switched out to idle, these with 0.000 in their three columns); the summary's tasks
# that exited under "Terminated tasks:" as in perf 6.1's; the rows end after their last column
# as perf's do when the switch events have no callchains (-g none), with -g as without.
# Then: the rows hold the workload's functions in their callchains; -M rows (with wcrec
# --migrations); a cut trace (exit 3), a corrupt one (exit 1), one without sched_switch
# (exit 1).
# Two consumers of one tracepoint time-stamp it one after the other, and every consumer that
# sits between them (a recorder of a test running alongside, taking callchains) delays the
# later stamp by microseconds, differently for switches and wakeups: perf's sch delays of the
# mutex threads came out 2-6% longer than ours on such runs.  So the side-by-side checks
# compare perf's figures with ours computed from perf's own time stamps: each scheduler event
# of our trace is paired with the same firing in perf.data and takes its stamp
# (tests/wct-restamp.c, perf_stamps in testlib.sh); every one of ours must be in perf's
# recording, and how far the stamps were apart is printed.  The checks of ours alone run on
# our trace as recorded.  Neither side-by-side recorder takes callchains; they are checked on
# a recording of their own.  perf records on CLOCK_MONOTONIC (-k), wcrec's clock.
# Needs root; exits 77 with the reason elsewhere (a failure with WC_REQUIRE_RECORDING=1 when
# recording is impossible).  Without perf, the side-by-side checks are skipped with the reason
# and the others run on a recording by wcrec alone.
set -u
B=${builddir:-.}
WCREC="$B/wcrec"
WCA="$B/wcanalyze"
WL="$B/tests/wall-workload"
. "$(dirname "$0")/testlib.sh"
have_perf=1
command -v perf >/dev/null 2>&1 || have_perf=0
mig=
"$WCREC" --help 2>&1 | grep -q -- --migrations && mig=--migrations

# 1. one run, both recorders; perf's rows and ours.  Again (3 times at most) when either lost
# events or ours came too late for their round (a loaded machine): the rows would differ.
# Without perf, wcrec alone, for the checks of ours only.
[ $have_perf = 1 ] || echo "SKIP side-by-side with perf sched timehist: perf is not installed"
for attempt in 1 2 3; do
	if [ $have_perf = 0 ]; then
		taskset -c 1 "$WCREC" -q -g none $mig -o "$tmp/wl.wct" -- \
			taskset -c 0 "$WL" 1.5 >"$tmp/wl.out" 2>"$tmp/rec.err"
		rc=$?
		grep -q '^thread ' "$tmp/wl.out" ||
			skip "wcrec did not run the workload (rc $rc: $(tail -1 "$tmp/rec.err"))"
		"$WCA" timehist --state -G "$tmp/wl.wct" >"$tmp/rows" 2>"$tmp/err"
		wrc=$?
		: >"$tmp/perf.rows"
		prc=0 plost=0 clean=1
		break
	fi
	# wcrec on CPU 1, so that the workload starts there and its taskset moves it (-M)
	shared_run perf sched record -k CLOCK_MONOTONIC -B -o "$tmp/perf.data" -- taskset -c 1 "$WCREC" -q -g none $mig -o "$tmp/wl.wct" -- \
		taskset -c 0 "$WL" 1.5 >"$tmp/wl.out" 2>"$tmp/rec.err"
	rc=$?
	grep -q '^thread ' "$tmp/wl.out" ||
		skip "perf sched record did not run the workload (rc $rc: $(tail -1 "$tmp/rec.err"))"
	# perf reads its file without the build-id flags the kernel leaked into it (perf_stamps)
	/usr/bin/python3 "$(dirname "$0")/perf-unleak.py" "$tmp/perf.data" "$tmp/perf.data" >/dev/null
	perf sched timehist -i "$tmp/perf.data" --state >"$tmp/perf.rows" 2>"$tmp/perf.err"
	prc=$?
	"$WCA" timehist --state -G "$tmp/wl.wct" >"$tmp/rows" 2>"$tmp/err"
	wrc=$?
	plost=$(grep -c ' lost [0-9]* events on cpu' "$tmp/perf.rows")
	clean=$(tail -1 "$tmp/rows" | grep -c '^Events lost: 0, samples lost: 0, late: 0,')
	[ "$plost" -eq 0 ] && [ "$clean" -eq 1 ] && break
	echo "note: attempt $attempt lost events (perf: $plost lines; ours: $(tail -1 "$tmp/rows"))"
done
# PS: our trace with perf's time stamps, for the side-by-side checks (see the top)
PS="$tmp/wl.wct"
if [ $have_perf = 1 ]; then
	# a workload thread with an event perf's event missed has its comparisons with perf's
	# rows skipped below (ps_unpaired_of)
	perf_stamps_checked "$tmp/perf.data" "$tmp/wl.wct" "$tmp/wl.ps.wct"
	PS="$tmp/wl.ps.wct"
	"$WCA" timehist --state -G "$PS" >"$tmp/rows" 2>"$tmp/err"
	wrc=$?
fi
if [ $have_perf = 1 ]; then
	expect "perf sched record -- wcrec -- wall-workload exits 0 ($(tail -1 "$tmp/rec.err"))" $rc -eq 0
	expect "perf sched timehist --state runs ($(tail -1 "$tmp/perf.err"))" $prc -eq 0
else
	expect "wcrec -- wall-workload exits 0 ($(tail -1 "$tmp/rec.err"))" $rc -eq 0
fi
expect "wcanalyze timehist --state exits 0 ($(cat "$tmp/err"))" $wrc -eq 0
expect "the rows end with the footer of lost events and edge cases" \
	"$(tail -1 "$tmp/rows" | grep -c '^Events lost: [0-9]*, samples lost: [0-9]*, late: [0-9]*,')" -eq 1
"$WCA" timehist -s "$PS" >"$tmp/sum" 2>"$tmp/err"
expect "wcanalyze timehist -s exits 0 ($(cat "$tmp/err"))" $? -eq 0

# Per workload thread, its rows with a known run, but the exit rows (X, Z), in both outputs:
# perf's must be our first ones, one for one (the same run within 0.2 ms: an interrupt between
# the two recorders' time stamps of one switch moves it, by 60 us seen here); ours after are
# rows perf shows under ":-1[-1/PID]" at the same times, on the same CPU (its thread is gone
# after the EXIT record, and a preemption on the way out comes after it; perf has one such
# task for all threads that exited, whose PID is that of the first one, which on a busy
# machine need not be the workload's).  Sums over the rows paired: run; wait but the
# first row's; the sch delay of the rows whose interval began in S or D (the row before).
# A row whose switch-in neither recorder saw (the kernel does not trace the switch-outs of
# PID 1's threads here) pairs when its wait + run is perf's: perf counts the whole span since
# the switch-out as run time, we infer the switch-in between two sampling ticks (see
# wcanalyze(1), NOTES); such rows, and any whose run is shorter than perf's by more than the
# 60 us of timestamps' jitter with the same wait + run, are left out of the sums.
# Output: per tid "TID PERF-ROWS OUR-ROWS FIRST-UNPAIRED RUN RUN WAIT WAIT DELAY DELAY
# INFERRED" (perf's then ours; INFERRED counts the rows left out whose run is shorter by more
# than 0.2 ms), then ours less perf's over the rows left out: "RUN WAIT DELAY-AFTER-S-OR-D"
# (the summaries below leave them out too); and "after OUR-EXTRA-ROWS
# THOSE-PERF-HAS-UNDER-:-1".
awk -v tids="$(awk '{ printf "%s ", $2 }' "$tmp/wl.out")" '
	BEGIN { split(tids, a, " "); for (i in a) want[a[i]] = 1 }
	FNR == 1 { f++ }
	$3 ~ /\[[0-9]+\/[0-9]+\]$/ && $6 != "-" && $7 !~ /^[XZ]/ {
		t = $3; sub(/^.*\[/, "", t); p = t; sub(/\/.*/, "", t); sub(/^.*\//, "", p); sub(/\]/, "", p)
		if (!(t in want)) next
		k = ++n[f, t]; run[f, t, k] = $6; wait[f, t, k] = $4; del[f, t, k] = $5; st[f, t, k] = $7
		tm[f, t, k] = $1; cpu[f, t, k] = $2
	}
	f == 1 && $3 ~ /^:-1\[-1\/[0-9]+\]$/ && $7 !~ /^[XZ]/ { gt[++ng] = $1; gc[ng] = $2 }
	END {
		for (t in want) {
			np = n[1, t]; no = n[2, t]; bad = 0
			for (f = 1; f <= 2; f++) r[f] = w[f] = d[f] = 0
			for (k = 1; k <= np && k <= no; k++) {
				x = run[1, t, k] - run[2, t, k]
				y = x + wait[1, t, k] - wait[2, t, k]
				if (x > 0.02 && y <= 0.2 && y >= -0.2) { # a switch-in neither saw?
					inf[t] += x > 0.2
					xr[t] -= x; xw[t] += wait[2, t, k] - wait[1, t, k]
					if (st[2, t, k - 1] ~ /^[SD]/) xd[t] += del[2, t, k] - del[1, t, k]
					continue
				}
				if (!bad && (x > 0.2 || x < -0.2)) bad = k
				for (f = 1; f <= 2; f++) {
					r[f] += run[f, t, k]
					if (k > 1) w[f] += wait[f, t, k]
					if (st[f, t, k - 1] ~ /^[SD]/) d[f] += del[f, t, k]
				}
			}
			if (np > no && !bad) bad = no + 1
			extra += no - np
			for (k = np + 1; k <= no; k++) # the same run under ":-1" in perf
				for (g = 1; g <= ng; g++)
					if (!used[g] && gc[g] == cpu[2, t, k] && gt[g] - tm[2, t, k] < 0.0002 &&
					    tm[2, t, k] - gt[g] < 0.0002) {
						used[g] = 1; gone++
						break
					}
			printf "%s %d %d %d %.3f %.3f %.3f %.3f %.3f %.3f %d %.3f %.3f %.3f\n", t, np, no,
				bad, r[1], r[2], w[1], w[2], d[1], d[2], inf[t], xr[t], xw[t], xd[t]
		}
		printf "after %d %d\n", extra, gone
	}' "$tmp/perf.rows" "$tmp/rows" >"$tmp/cmp"
[ "$plost" -eq 0 ] && [ "$clean" -eq 1 ] ||
	{ echo "SKIP side-by-side: events lost in 3 recordings (a loaded machine)"; : >"$tmp/wl.out"; }
[ $have_perf = 1 ] || : >"$tmp/wl.out" # the checks below are against perf's rows
while read -r _ tid comm _; do
	missed=$(ps_unpaired_of "$tid")
	if [ "$missed" -gt 0 ]; then
		echo "SKIP $comm: its rows against perf's: perf has no record of $missed of its events that we have"
		continue
	fi
	set -- $(awk -v t="$tid" '$1 == t' "$tmp/cmp")
	[ "$2" -gt 0 ] 2>/dev/null || { expect "$comm: rows of tid $tid in perf's output" 0 -eq 1; continue; }
	expect "$comm: perf's $2 runs are our first $2 of $3, one for one (first apart: ${4}; switch-ins inferred: ${11})" "$4" -eq 0
	[ "$4" -eq 0 ] || for f in perf.rows rows; do # where they part
			awk -v t="$tid" -v k="$4" 'index($3, "[" t "/") && $6 != "-" && $7 !~ /^[XZ]/ &&
				++n >= k - 2 && n <= k + 2 { print "    '"$f"': " $0 }' "$tmp/$f"
	done
	within "$6" "$5" 1
	expect "$comm: run time $6 ms within 1% of perf's $5" $? -eq 0
	within "$8" "$7" 1
	expect "$comm: wait time $8 ms within 1% of perf's $7" $? -eq 0
	within "${10}" "$9" 1
	expect "$comm: sch delay after S and D ${10} ms within 1% of perf's $9" $? -eq 0
	set -- $(awk -v t="$tid" '$1 ~ "\\[" t "/" { print $3, $4 }' "$tmp/sum")
	set -- "$@" $(awk -v t="$tid" 'index($3, "[" t "/") && $6 != "-" { n++; s += $6 }
		END { printf "%d %.3f", n, s }' "$tmp/rows")
	# each row's value is truncated to the microsecond, the summary's total is not
	awk -v a="$2" -v b="$4" -v n="$3" 'BEGIN { exit !(a >= b && a - b <= n * 0.001) }'
	expect "$comm: our summary: $1 runs, $2 ms, as our rows ($3, $4)" $? -eq 0 -a "$1" -eq "$3"
done <"$tmp/wl.out"
set -- $(grep '^after ' "$tmp/cmp")
[ ! -s "$tmp/wl.out" ] ||
	expect "our $2 rows after perf's last of each thread are perf's rows of :-1 (after EXIT): $3" \
		"$2" -eq "$3"

# 1b. the summaries themselves: `perf sched timehist -s --state` (perf 6.1's wait-time summary:
# sched-in, run-time, sleep, iowait, preempt, delay) against ours, per workload thread.  Ours
# less the thread's exit rows (state X or Z in our rows, and any row after perf's last of the
# thread: perf counts them under ":-1", above): the same sched-in count; run time, and wait
# time (sleep + iowait + preempt; an exit row's wait goes by the state of the row before it),
# within 1%; perf 6.1's delay (after wakeups only) within 1% of our delay less our preempt (a
# preempted task's wait is all sch delay here, NOTES), less the exit rows' delay when they
# followed a sleep.  A new task's first wait counts in neither
# side's sleep, iowait or preempt (perf: no wait; ours: NOTES), and in both sides' delay.
# Needs perf's --state summary (perf 6.1 has it); skipped with the reason otherwise.
[ $have_perf = 1 ] && perf sched timehist -i "$tmp/perf.data" -s --state >"$tmp/perf.sum" 2>"$tmp/perf.err"
prc=$?
"$WCA" timehist -s --state "$PS" >"$tmp/sum.state" 2>"$tmp/err"
expect "wcanalyze timehist -s --state exits 0 ($(cat "$tmp/err"))" $? -eq 0
if [ $have_perf = 0 ] || [ ! -s "$tmp/wl.out" ]; then
	: >"$tmp/wl.out.sum" # said above
elif [ $prc -ne 0 ] || ! grep -q '^Wait-time summary' "$tmp/perf.sum"; then
	echo "SKIP summaries side by side: perf sched timehist -s --state gives no wait-time summary ($(tail -1 "$tmp/perf.err"))"
	: >"$tmp/wl.out.sum"
else
	cp "$tmp/wl.out" "$tmp/wl.out.sum"
fi
while read -r _ tid comm _; do
	missed=$(ps_unpaired_of "$tid")
	if [ "$missed" -gt 0 ]; then
		echo "SKIP $comm: its summary against perf's: perf has no record of $missed of its events that we have"
		continue
	fi
	# "N RUN SLEEP IOWAIT PREEMPT DELAY" of a summary line of tid, and of our exit rows
	line() { awk -v t="$tid" 'index($1, "[" t "/") { print $3, $4, $5, $6, $7, $8; exit }' "$1"; }
	set -- $(line "$tmp/perf.sum") $(line "$tmp/sum.state") $(awk -v t="$tid" 'FNR == 1 { f++ }
		f == 1 && index($3, "[" t "/") { last = $1 + 0 }
		f == 2 && index($3, "[" t "/") {
			if ($6 != "-" && ($7 ~ /^[XZ]/ || $1 > last + 0.000002)) { n++; r += $6
				if (prev ~ /^[SD]/) { s += $4; d += $5 } else if (prev ~ /^R/) p += $4 }
			prev = $7 }
		END { printf "%d %.3f %.3f %.3f %.3f", n, r, s, p, d }' "$tmp/perf.rows" "$tmp/rows")
	[ $# -eq 17 ] || { expect "$comm: summary lines in both outputs ($*)" 0 -eq 1; continue; }
	# perf: $1 runs, $2 run, $3 sleep, $4 iowait, $5 preempt, $6 delay; ours $7 .. $12;
	# our exit rows: $13 count, $14 run, $15 wait after S/D, $16 wait after R, $17 delay after S/D
	expect "$comm: sched-in $7, less ${13} exit row(s), is perf's $1" $(($7 - ${13})) -eq "$1"
	r=$(awk -v a="$8" -v b="${14}" 'BEGIN { printf "%.3f", a - b }')
	v=$(awk -v a="$9" -v b="${10}" -v c="${11}" -v x="${15}" -v y="${16}" 'BEGIN {
		printf "%.3f", a + b + c - x - y }')
	w=$(awk -v a="$3" -v b="$4" -v c="$5" 'BEGIN { printf "%.3f", a + b + c }')
	d=$(awk -v a="${12}" -v b="${11}" -v x="${17}" 'BEGIN { printf "%.3f", a - b - x }')
	# the rows left out of the pairs above (a switch-in neither saw, or moved): ours less
	# perf's taken off ours, so that both summaries cover the same runs
	set -- $(awk -v t="$tid" 'BEGIN { o = "0 0 0 0" } $1 == t { o = $11 " " $12 " " $13 " " $14 }
		END { print o }' "$tmp/cmp") "$@"
	inf=$1
	r=$(awk -v a="$r" -v b="$2" 'BEGIN { printf "%.3f", a - b }')
	v=$(awk -v a="$v" -v b="$3" 'BEGIN { printf "%.3f", a - b }')
	d=$(awk -v a="$d" -v b="$4" 'BEGIN { printf "%.3f", a - b }')
	shift 4
	if [ "${inf:-0}" -gt 0 ]; then
		# a switch-in the kernel did not trace: perf counts its whole span as run time,
		# we split it into wait and run (NOTES), so only their sum is the same; the rows
		# above are compared without it
		x=$(awk -v a="$r" -v b="$v" 'BEGIN { printf "%.3f", a + b }')
		y=$(awk -v a="$2" -v b="$w" 'BEGIN { printf "%.3f", a + b }')
		within "$x" "$y" 1
		expect "$comm: run + wait time $x ms within 1% of perf's $y ($inf switch-ins inferred)" $? -eq 0
		echo "SKIP $comm: run $r, wait $v, delay $d ms against perf's $2, $w, $6 one by one: $inf switch-ins inferred"
		continue
	fi
	within "$r" "$2" 1
	expect "$comm: run time $r ms (less the exit row) within 1% of perf's $2" $? -eq 0
	within "$v" "$w" 1
	expect "$comm: wait time (sleep + iowait + preempt) $v ms within 1% of perf's $w" $? -eq 0
	within "$d" "$6" 1
	expect "$comm: delay after wakeups $d ms within 1% of perf's $6" $? -eq 0
done <"$tmp/wl.out.sum"

# 1c. -I row for row: perf's -I rows (timehist_skip_sample keeps the switches to and from idle)
# and ours (--all-tasks: perf has no target), over the time ours cover on each CPU.  A pair:
# the same CPU and task, the same time (ours carry perf's stamps; 2 us for the printing).  perf's ":-1[-1/PID]" (":-1[-1]" where
# perf knew no PID of it: CI YC, a git of another test) stands for any thread that exited (NOTES: perf shows a thread's switch-outs after its EXIT record under one task of tid
# -1, whose PID is that of the first such thread); perf's rows of the recorder (the tid of
# the file's recorder_pid NOTE), which wcanalyze drops, are left out, but not those of another
# wcrec, such as one of a test running alongside.  A
# task's row must be perf's from its name on ("0.000 0.000 0.000 ", as perf keeps no times of
# tasks with -I, and no callchain here); idle rows differ where we say "-" (NOTES).
# Output: "PERF-ROWS OUR-ROWS PAIRED TASK-ROWS-PAIRED TASK-ROWS-THE-SAME", then the unpaired.
pair_rows() {
	awk -v rec="$("$B/tests/wct-stat" "$tmp/wl.wct" | sed -n 's/^note.recorder_pid //p')" \
		-v tol=0.000002 '
	FNR == 1 { f++ }
	$1 ~ /^[0-9]+\.[0-9]+$/ && $2 ~ /^\[[0-9]+\]$/ && $3 != "lost" {
		r = substr($0, index($0, "] ") + 3) # the name (it may hold spaces) and after
		if (r ~ /^<idle> /) { key = "idle"; sub(/^<idle> +/, "", r) }
		else if (match(r, /\[-?[0-9]+(\/[0-9]+)?\] /)) {
			key = substr(r, RSTART + 1, RLENGTH - 3); r = substr(r, RSTART + RLENGTH)
			sub(/^ +/, "", r)
		} else next
		if (f == 1 && key == rec) next
		if (f == 2) { if (!($2 in lo)) lo[$2] = $1; hi[$2] = $1 }
		n[f]++; t[f, n[f]] = $1; c[f, n[f]] = $2; k[f, n[f]] = key; rest[f, n[f]] = r
	}
	END {
		for (x = 1; x <= n[1]; x++)
			if ((c[1, x] in lo) && t[1, x] > lo[c[1, x]] - tol &&
			    t[1, x] < hi[c[1, x]] + tol) {
				m++; t[3, m] = t[1, x]; c[3, m] = c[1, x]; k[3, m] = k[1, x]
				rest[3, m] = rest[1, x]
			}
		i = j = 1
		while (i <= m || j <= n[2]) {
			if (i <= m && j <= n[2] && c[3, i] == c[2, j] && t[3, i] - t[2, j] < tol &&
			    t[2, j] - t[3, i] < tol && (k[3, i] == k[2, j] ||
			    (k[3, i] ~ /^-1(\/|$)/ && k[2, j] != "idle"))) {
				paired++
				if (k[2, j] != "idle") { tp++; ts += rest[3, i] == rest[2, j] }
				i++; j++
			} else if (i <= m && (j > n[2] || t[3, i] <= t[2, j])) {
				u[++nu] = "perf: " t[3, i] " " c[3, i] " " k[3, i]; i++
			} else {
				u[++nu] = "ours: " t[2, j] " " c[2, j] " " k[2, j]; j++
			}
		}
		print m + 0, n[2] + 0, paired + 0, tp + 0, ts + 0
		for (x = 1; x <= nu && x <= 10; x++) print "    " u[x]
	}' "$1" "$2"
}
if [ $have_perf = 1 ] && [ "$plost" -eq 0 ] && [ "$clean" -eq 1 ]; then
	perf sched timehist -i "$tmp/perf.data" -I >"$tmp/perf.idle" 2>"$tmp/perf.err"
	prc=$?
	"$WCA" timehist -I --all-tasks "$PS" >"$tmp/idle" 2>"$tmp/err"
	expect "wcanalyze timehist -I exits 0 ($(cat "$tmp/err"))" $? -eq 0
	pair_rows "$tmp/perf.idle" "$tmp/idle" >"$tmp/idle.cmp"
	set -- $(head -1 "$tmp/idle.cmp")
	expect "-I: perf's $1 rows (perf exit $prc) are our $2, one for one (paired $3)" \
		"$prc$1" = "0$2" -a "$2" -eq "$3"
	[ "$2" -eq "$3" ] || sed 1d "$tmp/idle.cmp"
	if [ "$1$2" = 00 ]; then
		# a busy machine (the parallel test suite) can keep CPU 0 from ever going idle
		echo "SKIP -I rows: CPU 0 never went idle in this recording, for perf nor for us"
	else
		expect "-I: the $4 rows of tasks switched out to idle are perf's (0.000 x 3, no more): $5" \
			"$4" -gt 0 -a "$4" -eq "$5"
	fi
else
	echo "SKIP -I side by side: no perf, or events lost (said above)"
fi

# 1d. perf 6.1's summary lists the tasks that exited apart, after the others, under
# "Terminated tasks:": each task in both summaries (-s; ours --all-tasks) is in the same part,
# and the workload's threads, which all exit, are in the second.  perf's ":-1" is left out,
# and so is a task that perf saw exit and that ran before our first event or after our last
# (perf records longer than wcrec, before and after: another test's process that ended after
# our recording is still there for us, one preempted inside its exit before our recording
# began and ending inside it has its EXIT record in perf's file only; perf shows the
# switch-outs after an EXIT record under ":-1", so the exit rows themselves do not tell).
# Output of parts(): "TID PART" (1 the tasks still there, 2 those that exited).
parts() {
	awk '/^(Runtime|Wait-time|Idle-time) summary$/ { p = 1; next }
		/^Terminated tasks:$/ { p = 2; next }
		/^Idle stats:$/ || /Total number of unique tasks/ { p = 0 }
		p && match($0, /\[-?[0-9]+(\/[0-9]+)?\]   /) {
			t = substr($0, RSTART + 1); sub(/[\/\]].*/, "", t)
			if (t != "-1") print t, p
		}' "$1" | sort
}
if [ $have_perf = 1 ] && [ "$plost" -eq 0 ] && [ "$clean" -eq 1 ]; then
	perf sched timehist -i "$tmp/perf.data" -s >"$tmp/perf.sum.all" 2>/dev/null
	"$WCA" timehist -s --all-tasks "$PS" >"$tmp/sum.all" 2>"$tmp/err"
	expect "wcanalyze timehist -s --all-tasks exits 0 ($(cat "$tmp/err"))" $? -eq 0
	# the tids perf has a row of before our first row on that CPU or after our last there:
	# wcrec stops its CPUs' events one after the other (M-2 of issue 23's runs: a basename
	# exited on CPU 0 after our last event there, 2 ms before our last on CPU 1)
	"$WCA" timehist -G --all-tasks "$PS" 2>/dev/null |
		awk '$1 ~ /^[0-9]+\.[0-9]+$/ { if (!($2 in s)) s[$2] = $1; e[$2] = $1 }
			END { for (c in s) print c, s[c], e[c] }' >"$tmp/spans"
	awk 'FNR == NR { s[$1] = $2; e[$1] = $3; next }
		(!($2 in s) || $1 < s[$2] - 0.0002 || $1 > e[$2] + 0.0002) &&
		match($3, /\[[0-9]+[\/\]]/) { print substr($3, RSTART + 1, RLENGTH - 2) }' \
		"$tmp/spans" "$tmp/perf.rows" >"$tmp/late.exits"
	# and those perf saw exit before our first event or after our last: a task whose last
	# switch-out comes after its EXIT has its row under ":-1" in perf's output, so its rows
	# alone do not tell (B-1 of issue 23's runs: a gcc of the parallel build exited 5.5 ms
	# after our recording ended; its final switch-out after the EXIT showed as -1)
	perf script -i "$tmp/perf.data" --show-task-events 2>/dev/null |
		awk -v s="$(awk '{ print $2 }' "$tmp/spans" | sort -n | head -1)" \
			-v e="$(awk '{ print $3 }' "$tmp/spans" | sort -n | tail -1)" '
			match($0, /PERF_RECORD_EXIT\([0-9]+:[0-9]+\)/) {
				split(substr($0, RSTART + 17, RLENGTH - 18), id, ":")
				t = ""
				for (i = 1; i <= NF; i++)
					if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i + 0; break }
				if (t != "" && (t < s - 0.0002 || t > e + 0.0002)) print id[2]
			}' >>"$tmp/late.exits"
	sort -u -o "$tmp/late.exits" "$tmp/late.exits"
	parts "$tmp/perf.sum.all" >"$tmp/perf.parts.all"
	awk 'FNR == NR { late[$1] = 1; next } !($2 == 2 && $1 in late)' "$tmp/late.exits" \
		"$tmp/perf.parts.all" >"$tmp/perf.parts"
	echo "note: left out of the parts, as perf saw them run outside our events on their CPU ($(tr '\n' ' ' <"$tmp/spans")) and exit: $(join "$tmp/late.exits" "$tmp/perf.parts.all" 2>/dev/null | awk '$2 == 2 { printf "%s ", $1 }')"
	parts "$tmp/sum.all" >"$tmp/parts"
	set -- $(join "$tmp/perf.parts" "$tmp/parts" | awk '{ n++; same += $2 == $3; ended += $2 == 2 }
		END { print n + 0, same + 0, ended + 0 }')
	expect "the $1 tasks in both summaries are in the same part ($2), $3 of them terminated" \
		"$1" -gt 0 -a "$1" -eq "$2" -a "$3" -gt 0
	[ "$1" -eq "$2" ] ||
		join "$tmp/perf.parts" "$tmp/parts" | awk '$2 != $3 { print "    tid, perf, ours: " $0 }'
	while read -r _ tid comm _; do
		part() { awk -v t="$tid" '$1 == t { printf "%s", $2 }' "$1"; }
		expect "$comm ($tid) is under Terminated tasks in both summaries" \
			"$(part "$tmp/perf.parts") $(part "$tmp/parts")" = "2 2"
	done <"$tmp/wl.out"
fi
expect "the summary: the tasks still there, a blank line, \"Terminated tasks:\", those that exited" \
	"$(grep -B1 -A1 '^Terminated tasks:$' "$tmp/sum" |
		awk '{ printf "%s|", NR == 3 ? ($0 ~ /\[/) : $0 }')" = "|Terminated tasks:|1|"

# 1e. the recording has no callchains (-g none): as perf, which says "Samples do not have
# callchains" and turns its -g off, no room is left for them at the end of the rows; the
# output is the one of -G byte for byte, and no row ends with two spaces (nor does perf's)
"$WCA" timehist --state "$PS" >"$tmp/rows.g" 2>"$tmp/err"
expect "timehist --state without callchains in the trace: the rows of -G ($(cat "$tmp/err"))" \
	"$(cmp -s "$tmp/rows" "$tmp/rows.g" && echo same)" = same
expect "timehist --state: no row ends with two spaces" \
	"$(grep -c '^ *[0-9]*\.[0-9]* \[[0-9]*\] .*  $' "$tmp/rows.g")" -eq 0
[ $have_perf = 1 ] && expect "perf sched timehist --state: no row ends with two spaces either" \
	"$(grep -c '^ *[0-9]*\.[0-9]* \[[0-9]*\] .*  $' "$tmp/perf.rows")" -eq 0

# the header lines are perf's, byte for byte (no -V: it has a column per CPU here, NOTES): the
# three of the rows, and the five that begin the summaries (a blank line, the title, three)
[ $have_perf = 1 ] && for opts in "" "--state" "-w -n --state" "-s" "-s --state" "-s -I"; do
	n=3
	case $opts in -s*) n=5 ;; esac
	# (but perf's "lost N events" lines, which can come first on a loaded machine)
	perf sched timehist -i "$tmp/perf.data" $opts 2>/dev/null | grep -v '^ *[0-9.]* lost [0-9]* events on cpu' |
		head -$n >"$tmp/perf.head"
	"$WCA" timehist -G $opts "$PS" 2>/dev/null | head -$n >"$tmp/head"
	cmp -s "$tmp/perf.head" "$tmp/head"
	expect "timehist${opts:+ $opts}: the $n header lines are perf's" $? -eq 0
done

# 2. the callchains hold the workload's functions (user frames past the kernel's)
"$WCREC" -q -o "$tmp/chains.wct" -- taskset -c 0 "$WL" 0.5 >/dev/null 2>"$tmp/err"
expect "wcrec with callchains exits 0 ($(cat "$tmp/err"))" $? -eq 0
"$WCA" timehist --max-stack 30 "$tmp/chains.wct" >"$tmp/chains" 2>/dev/null
for check in "wl-alternate wl_sleep" "wl-reader wl_read" "wl-writer wl_sleep" "wl-mutex-a wl_lock"; do
	set -- $check
	expect "a row of $1 has $2 in its callchain" \
		"$(grep -c "  $1\[.* <- $2 <-" "$tmp/chains")" -gt 0
done
expect "no row of the workload's threads has schedule or __schedule in its chain" \
	"$(grep '  wl-' "$tmp/chains" | grep -c ' __schedule <-\|   schedule <-\| <- schedule <-')" -eq 0

# 3. -M: taskset moves itself from CPU 1 to CPU 0
if [ -n "$mig" ]; then
	"$WCA" timehist -M "$tmp/wl.wct" >"$tmp/mig" 2>"$tmp/err"
	expect "-M: migration rows ($(cat "$tmp/err"))" "$(grep -c ' migrated: .* cpu [0-9]* => [0-9]*$' "$tmp/mig")" -gt 0
else
	echo "SKIP -M: wcrec --help lists no --migrations"
fi

# 4. a cut trace, a corrupt one, one without sched_switch
cut_run "$tmp/cut.rows" timehist
expect "a cut trace: the rows before the cut" "$(grep -c ' wl-' "$tmp/cut.rows")" -gt 100
cp "$tmp/wl.wct" "$tmp/bad.wct"
printf 'XXXXXXXXXXXXXXXX' | dd of="$tmp/bad.wct" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
"$WCA" timehist -s "$tmp/bad.wct" >/dev/null 2>"$tmp/err"
expect "a corrupt trace: exit 1 (got $?)" $? -eq 1
expect "a corrupt trace: one line on stderr ($(cat "$tmp/err"))" "$(wc -l <"$tmp/err")" -eq 1
"$WCREC" -q --no-sched -o "$tmp/nosched.wct" -- true >/dev/null 2>&1
"$WCA" timehist "$tmp/nosched.wct" >/dev/null 2>"$tmp/err"
rc=$?
expect "no sched_switch recorded: exit 1 (got $rc) and one line ($(cat "$tmp/err"))" \
	"$rc$(grep -c 'no sched_switch' "$tmp/err")$(wc -l <"$tmp/err")" = 111

[ $fails -eq 0 ] || { echo "$fails checks failed"; exit 1; }
