#!/bin/sh
# bench-pprof.sh - export --format pprof on a trace of a million events or more: its time
# against folded's (the same replay), and the size of the .pb.gz against folded | gzip (in
# the default unit, us, and in ns per thread, the information the pprof profile holds).
# Figures and ratios; not a pass/fail test (the targets: under 1 s, at most 2x the size).
# usage: tests/bench-pprof.sh [BUILDDIR] [TRACE]
#        without TRACE, as root: a 10-second system-wide recording of stress-ng --switch 2
#        (about 2 million scheduler events on two CPUs), under the live tests' lock
set -eu
B=${1:-${builddir:-./build}}
[ -x "$B/wcanalyze" ] || { echo "bench-pprof: build first: no $B/wcanalyze" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trace=${2:-}
if [ -z "$trace" ]; then
	[ "$(id -u)" = 0 ] || { echo "bench-pprof: recording needs root (or give a TRACE)" >&2; exit 1; }
	command -v stress-ng >/dev/null || { echo "bench-pprof: no stress-ng (or give a TRACE)" >&2; exit 1; }
	trace="$tmp/big.wct"
	flock -s /tmp/wcrec-live-tests.lock "$B/wcrec" -q -a -d 10 -o "$trace" -- \
		stress-ng --switch 2 -t 10 >/dev/null 2>&1
fi
events=$("$B/wcanalyze" info "$trace" 2>/dev/null |
	sed -n 's/^records: *\([0-9]*\) tracepoint events.* \([0-9]*\) samples,.*/\1 \2/p')
best() { # best COMMAND...: the best of five runs, "ELAPSED s (USER s user)"
	for _ in 1 2 3 4 5; do
		/usr/bin/time -f "%e s (%U s user)" "$@" 2>&1 >/dev/null | tail -1
	done | sort -n | head -1
}
pp_s=$(best "$B/wcanalyze" export --format pprof -o "$tmp/p.pb.gz" "$trace")
fo_s=$(best "$B/wcanalyze" folded "$trace")
"$B/wcanalyze" folded "$trace" 2>/dev/null | gzip >"$tmp/f.gz"
"$B/wcanalyze" folded --unit ns --per-thread "$trace" 2>/dev/null | gzip >"$tmp/fn.gz"
pp=$(wc -c <"$tmp/p.pb.gz") fo=$(wc -c <"$tmp/f.gz") fn=$(wc -c <"$tmp/fn.gz")
# shellcheck disable=SC2086 # two numbers
echo "trace: $trace, $(set -- $events; echo "$1 tracepoint events, $2 samples")"
echo "export --format pprof: $pp_s; folded: $fo_s"
echo "size: .pb.gz $pp bytes; folded | gzip $fo bytes (ratio $(awk -v a="$pp" -v b="$fo" 'BEGIN { printf "%.2f", a / b }')); folded --unit ns --per-thread | gzip $fn bytes (ratio $(awk -v a="$pp" -v b="$fn" 'BEGIN { printf "%.2f", a / b }'))"
