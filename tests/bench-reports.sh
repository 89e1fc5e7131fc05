#!/bin/sh
# bench-reports.sh - throughput of the reports against perf: `wcanalyze timehist` and
# `wcanalyze hist` against `perf sched timehist`, on recordings of the same run: `perf sched
# record -g` (system-wide, with callchains) runs wcrec, which records the workload (perf bench
# sched pipe pinned to CPU 0: about 1.7 million events) with its callchains too.
# Each tool's rate is of the events in its own file: perf's samples (its sched_stat_runtime
# events among them, which timehist reads and does not use: also given apart, with the rate
# of the scheduler events it uses), wcanalyze's tracepoint events and samples.  As both files
# hold the same run, the ratio of the times is the ratio of the throughputs on that run; the
# ratio of the events/s figures is printed too.  Best of five runs each, output to /dev/null.
# Prints figures and ratios (goal: timehist at 5 times perf sched timehist's rate or more); not
# a pass/fail test, and not run by `make check`.
# usage: sudo tests/bench-reports.sh [BUILDDIR] [LOOPS]   (default ./build, 400000)
set -eu
B=${1:-${builddir:-./build}}
loops=${2:-400000}
[ "$(id -u)" = 0 ] || { echo "bench-reports: needs root (recording)" >&2; exit 1; }
[ -x "$B/wcanalyze" ] && [ -x "$B/wcrec" ] || { echo "bench-reports: build first: no $B/wcanalyze" >&2; exit 1; }
command -v perf >/dev/null || { echo "bench-reports: perf is not installed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
work="taskset -c 0 perf bench sched pipe -l $loops"

# -B: no build-id pass at the end (perf 6.1 aborts in it on this VM's large files)
perf sched record -g -B -o "$tmp/perf.data" -- \
	"$B/wcrec" -q -o "$tmp/w.wct" -- $work >/dev/null 2>"$tmp/err" ||
	{ echo "bench-reports: recording failed: $(tail -1 "$tmp/err")" >&2; exit 1; }
info=$("$B/wcanalyze" info "$tmp/w.wct")
events=$(echo "$info" | sed -n 's/^records: *\([0-9]*\) tracepoint events.*/\1/p')
samples=$(echo "$info" | sed -n 's/.* \([0-9]*\) samples,.*/\1/p')
events=$((events + ${samples:-0}))
stats=$(perf report -i "$tmp/perf.data" --stats 2>/dev/null)
perf_events=$(echo "$stats" | awk '/^Aggregated stats/ { a = 1 } a && /SAMPLE events:/ { print $3; exit }')
# the scheduler events perf sched timehist uses: switches, wakeups, migrations
perf_used=$(echo "$stats" | awk '/^sched:sched_(switch|wakeup|wakeup_new|waking|migrate_task) stats:/ { u = 1; next }
	/ stats:$/ { u = 0 } u && /SAMPLE events:/ { n += $3 } END { print n + 0 }')

now() { date +%s%N; }
best() { # best COMMAND...: the best of five runs, "SECONDS MB"
	for _ in 1 2 3 4 5; do
		t0=$(now)
		kb=$(/usr/bin/time -f "%M" "$@" 2>&1 >/dev/null | tail -1)
		t1=$(now)
		echo "$(((t1 - t0) / 1000)) $kb"
	done | sort -n | head -1 | awk '{ printf "%.3f %d\n", $1 / 1e6, $2 / 1024 }'
}
rate() { awk -v e="$1" -v s="$2" 'BEGIN { printf "%.2f", e / (s > 0 ? s : 0.001) / 1e6 }'; }

set -- $(best perf sched timehist -i "$tmp/perf.data")
p_s=$1 p_mb=$2
set -- $(best "$B/wcanalyze" timehist --all-tasks "$tmp/w.wct")
t_s=$1 t_mb=$2
set -- $(best "$B/wcanalyze" timehist --all-tasks -s "$tmp/w.wct")
ts_s=$1 ts_mb=$2
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / (b > 0 ? b : 0.001) }'; }
echo "machine: $(uname -r), $(nproc) CPUs; workload: $work"
echo "perf sched timehist (-g):         $perf_events events in $p_s s, $(rate "$perf_events" "$p_s") M events/s, peak RSS $p_mb MB"
echo "  of which the scheduler events it uses: $perf_used, $(rate "$perf_used" "$p_s") M/s"
echo "wcanalyze timehist (callchains):  $events events in $t_s s, $(rate "$events" "$t_s") M events/s, peak RSS $t_mb MB"
echo "wcanalyze timehist -s:            $events events in $ts_s s, $(rate "$events" "$ts_s") M events/s, peak RSS $ts_mb MB"
echo "ratio: timehist at $(ratio "$(rate "$events" "$t_s")" "$(rate "$perf_events" "$p_s")")x perf sched timehist's events/s, $(ratio "$p_s" "$t_s")x its speed on the same run (goal >= 5)"

if "$B/wcanalyze" hist "$tmp/w.wct" >/dev/null 2>"$tmp/err"; then
	set -- $(best "$B/wcanalyze" hist --all-tasks "$tmp/w.wct")
	echo "wcanalyze hist:                   $events events in $1 s, $(rate "$events" "$1") M events/s, peak RSS $2 MB"
	echo "ratio: hist at $(ratio "$(rate "$events" "$1")" "$(rate "$perf_events" "$p_s")")x perf sched timehist's events/s, $(ratio "$p_s" "$1")x its speed on the same run"
else
	echo "wcanalyze hist: not measured: it failed: $(head -1 "$tmp/err")"
fi
