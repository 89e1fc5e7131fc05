#!/bin/sh
# perfdata-live.sh - one workload recorded by both tools at once: `perf record -e
# sched:sched_switch -e sched:sched_waking -g -a -B` running `wcrec -- tests/wall-workload`
# (pinned to CPU 0: on this project's VMs the kernel does not trace CPU 1's switches out of
# idle).  Checked: per workload thread (the tids wall-workload prints), the off-CPU total of
# `wcanalyze folded --mode off` on the perf.data within 0.5% of the same on the .wct, so the
# perf.data source and the .wct reader give the same intervals of the same run.  The perf.data
# is read as perf wrote it, build-id flag left on MMAP2 records by the other session included
# (source-perf.h: the flag is trusted only where the attr asked for build-ids).
# Needs root and perf; exits 77 with the reason elsewhere, or fails when WC_REQUIRE_RECORDING=1.
set -u
B=${builddir:-.}
WCREC="$B/wcrec"
WCA="$B/wcanalyze"
WL="$B/tests/wall-workload"
. "$(dirname "$0")/testlib.sh"

perf --version >/dev/null 2>&1 || skip "no perf"
[ -x "$WL" ] || skip "no $WL (make check builds it)"

# both recorders at once; the test holds the lock alone: no third recorder skews the stamps
alone_begin
perf record -q -e sched:sched_switch -e sched:sched_waking -g -a -B -o "$tmp/wl.perf" -- \
	"$WCREC" -q -o "$tmp/wl.wct" -- taskset -c 0 "$WL" 1.5 >"$tmp/wl.out" 2>"$tmp/err"
rc=$?
alone_end
expect "perf record -a -- wcrec -- wall-workload exits 0 ($(tail -1 "$tmp/err"))" $rc -eq 0
expect "five workload threads measured themselves" "$(wc -l <"$tmp/wl.out")" -eq 5

# off-CPU ns per tid, every comm of it together ("comm-tid;..." lines of --per-thread)
for x in perf wct; do
	f="$tmp/wl.$x"
	"$WCA" folded --mode off --per-thread --unit ns "$f" >"$tmp/folded.$x" 2>"$tmp/err.$x"
	rc=$?
	expect "folded --mode off on the $x file exits 0 ($(head -1 "$tmp/err.$x" | head -c 200))" $rc -eq 0
	awk '{ k = $1; sub(/;.*$/, "", k); n = split(k, p, "-"); s[p[n]] += $NF }
		END { for (t in s) print t, s[t] }' "$tmp/folded.$x" >"$tmp/sums.$x"
	while read -r _ tid _; do
		awk -v t="$tid" '$1 == t { v = $2 } END { printf "%s %.0f\n", t, v }' "$tmp/sums.$x"
	done <"$tmp/wl.out" >"$tmp/$x.off"
done
paste -d' ' "$tmp/wl.out" "$tmp/perf.off" "$tmp/wct.off" | while read -r _ tid comm _ _ _ t1 p t2 w; do
	[ "$tid" = "$t1" ] && [ "$tid" = "$t2" ] || continue
	within "$p" "$w" 0.5
	rc=$?
	expect "$comm: off-CPU from the perf.data $p ns within 0.5% of the .wct's $w ns ($(awk -v a="$p" -v b="$w" 'BEGIN { printf "%+.3f%%", b ? (a - b) * 100 / b : 0 }'))" \
		$rc -eq 0 -a "$w" -gt 0
done >"$tmp/checks"
cat "$tmp/checks"
fails=$((fails + $(grep -c '^FAIL' "$tmp/checks")))
expect "five threads compared" "$(grep -c '^ok \|^FAIL' "$tmp/checks")" -eq 5
"$WCA" info "$tmp/wl.perf" | sed -n 's/^\(records\|lost\|skipped\):/perf.data \1:/p'

echo "$fails failed"
[ $fails -eq 0 ]
