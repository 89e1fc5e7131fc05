#!/bin/sh
# bench-analyze.sh - wcanalyze folded --mode wall throughput and peak memory against perf
# script, on recordings of the same workload (perf bench sched pipe pinned to CPU 1, about a
# million scheduler events with callchains); then wcanalyze alone on a recording of about ten
# million events (BIG_LOOPS), for its rate and peak memory at that size (perf script is left
# out there: it would take minutes).  The first recording has perf's events (--no-runtime);
# the second wcrec's defaults, sched_stat_runtime included.  Prints figures and ratios; not a
# pass/fail test.
# usage: sudo tests/bench-analyze.sh [BUILDDIR] [LOOPS] [BIG_LOOPS]
#        (default ./build, 400000, 3400000; BIG_LOOPS 0 skips the second part)
set -eu
B=${1:-${builddir:-./build}}
loops=${2:-400000}
big_loops=${3:-3400000}
[ "$(id -u)" = 0 ] || { echo "bench-analyze: needs root (recording)" >&2; exit 1; }
[ -x "$B/wcanalyze" ] && [ -x "$B/wcrec" ] || { echo "bench-analyze: build first: no $B/wcanalyze" >&2; exit 1; }
command -v perf >/dev/null || { echo "bench-analyze: perf is not installed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
work="taskset -c 1 perf bench sched pipe -l $loops"

"$B/wcrec" -q --no-runtime -o "$tmp/w.wct" -- $work >/dev/null 2>&1 # perf's events
perf record -q -e sched:sched_switch -e sched:sched_waking -g -a -o "$tmp/perf.data" -- $work >/dev/null 2>&1
events=$("$B/wcanalyze" info "$tmp/w.wct" | sed -n 's/^records: *\([0-9]*\) tracepoint events.*/\1/p')
samples=$("$B/wcanalyze" info "$tmp/w.wct" | sed -n 's/.* \([0-9]*\) samples,.*/\1/p')
events=$((events + samples))

best() { # best COMMAND...: the best of three runs, "SECONDS KB"
	for _ in 1 2 3; do
		/usr/bin/time -f "%e %M" "$@" 2>&1 >/dev/null | tail -1
	done | sort -n | head -1
}
set -- $(best "$B/wcanalyze" folded --mode wall --all-tasks "$tmp/w.wct")
wa_s=$1 wa_kb=$2
perf_events=$(perf script -i "$tmp/perf.data" -F event 2>/dev/null | wc -l)
set -- $(best perf script -i "$tmp/perf.data")
ps_s=$1 ps_kb=$2
echo "machine: $(uname -r), $(nproc) CPUs; workload: $work"
echo "wcanalyze folded --mode wall: $events events in $wa_s s, peak RSS $((wa_kb / 1024)) MB"
echo "perf script:                  $perf_events events in $ps_s s, peak RSS $((ps_kb / 1024)) MB"
awk -v e="$events" -v s="$wa_s" -v pe="$perf_events" -v ps="$ps_s" 'BEGIN {
	w = e / (s > 0 ? s : 0.001); p = pe / (ps > 0 ? ps : 0.001)
	printf "rates: wcanalyze %.2f M events/s (goal >= 10), perf script %.2f M events/s\n", w / 1e6, p / 1e6
	printf "ratio: %.1fx perf script'"'"'s rate (goal >= 50)\n", w / p }'

[ "$big_loops" -gt 0 ] || exit 0
work="taskset -c 1 perf bench sched pipe -l $big_loops"
"$B/wcrec" -q -o "$tmp/big.wct" -- $work >/dev/null 2>&1
events=$("$B/wcanalyze" info "$tmp/big.wct" | sed -n 's/^records: *\([0-9]*\) tracepoint events.*/\1/p')
samples=$("$B/wcanalyze" info "$tmp/big.wct" | sed -n 's/.* \([0-9]*\) samples,.*/\1/p')
events=$((events + samples))
set -- $(best "$B/wcanalyze" folded --mode wall --all-tasks "$tmp/big.wct")
echo "large: $work"
awk -v e="$events" -v s="$1" -v kb="$2" 'BEGIN {
	printf "wcanalyze folded --mode wall: %d events in %s s: %.2f M events/s, peak RSS %d MB (goal < 200 MB at 10 M events)\n", e, s, e / (s > 0 ? s : 0.001) / 1e6, kb / 1024 }'
