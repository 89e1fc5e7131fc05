#!/bin/sh
# bench-perfdata.sh - wcanalyze folded on a perf.data against perf script on the same file:
# one recording by perf of perf bench sched pipe pinned to CPU 1 (about a million scheduler
# events with callchains, system-wide: perf record -e sched:sched_switch -e sched:sched_waking
# -g -a), then the wall time and peak RSS of `wcanalyze folded`, `perf script` and
# `perf script | stackcollapse-perf.pl` (FlameGraph's; its path from $STACKCOLLAPSE, else the
# PATH; left out, saying so, when there is none), with the ratios (targets, issue 18: 30x and
# 100x).  Prints figures; not a pass/fail test.
# usage: sudo [STACKCOLLAPSE=PATH] tests/bench-perfdata.sh [BUILDDIR] [LOOPS]
#        (default ./build, 400000)
set -eu
B=${1:-${builddir:-./build}}
loops=${2:-400000}
[ "$(id -u)" = 0 ] || { echo "bench-perfdata: needs root (recording)" >&2; exit 1; }
[ -x "$B/wcanalyze" ] || { echo "bench-perfdata: build first: no $B/wcanalyze" >&2; exit 1; }
command -v perf >/dev/null || { echo "bench-perfdata: perf is not installed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

perf record -q -e sched:sched_switch -e sched:sched_waking -g -a -o "$tmp/perf.data" -- \
	taskset -c 1 perf bench sched pipe -l "$loops" >/dev/null 2>&1
events=$("$B/wcanalyze" info "$tmp/perf.data" 2>/dev/null |
	sed -n 's/^records: *\([0-9]*\) tracepoint events.*/\1/p')
echo "perf.data: $(($(wc -c <"$tmp/perf.data") / 1000000)) MB, $events events"

# timed NAME CMD...: the wall time (s) and peak RSS (KB) of CMD, its output discarded
timed() {
	name=$1
	shift
	/usr/bin/time -f "%e %M" -o "$tmp/time" "$@" >/dev/null 2>&1 || true
	set -- $(cat "$tmp/time")
	printf '%-40s %8.2f s %8d KB peak RSS\n' "$name" "$1" "$2"
	eval "t_$(echo "$name" | tr -c 'a-z\n' '_')=$1"
}
cat "$tmp/perf.data" >/dev/null # in the page cache for all
timed "wcanalyze folded" "$B/wcanalyze" folded "$tmp/perf.data"
timed "perf script" perf script -i "$tmp/perf.data"
awk -v a="$t_wcanalyze_folded" -v b="$t_perf_script" \
	'BEGIN { printf "ratio: perf script / wcanalyze folded = %.0fx\n", b / (a > 0.005 ? a : 0.005) }'
sc=${STACKCOLLAPSE:-$(command -v stackcollapse-perf.pl || true)}
if [ -n "$sc" ] && [ -r "$sc" ]; then
	# the peak RSS is that of the larger of the two (wait4's rusage of sh and its children)
	timed "perf script | stackcollapse-perf.pl" sh -c \
		"perf script -i '$tmp/perf.data' | perl '$sc'"
	awk -v a="$t_wcanalyze_folded" -v b="$t_perf_script___stackcollapse_perf_pl" \
		'BEGIN { printf "ratio: perf script | stackcollapse-perf.pl / wcanalyze folded = %.0fx\n", b / (a > 0.005 ? a : 0.005) }'
else
	echo "stackcollapse-perf.pl: skipped: set STACKCOLLAPSE to FlameGraph's stackcollapse-perf.pl (none on the PATH)"
fi
