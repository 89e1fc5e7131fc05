#!/bin/sh
# export-live.sh - wcanalyze export on live recordings of tests/wall-workload, pinned to CPU 0
# (see NOTES in wcanalyze(1)), whose threads measure their own lifetime and CPU time:
#  - chrome: the structure check of testdata/export/check-chrome.py --tile (well-formed events,
#    names, no overlap in ns nor in floating point, each thread's slices tiling its time with
#    no gap); per thread, its Running and its off-CPU slices summing to its on-CPU and its
#    off-CPU lines of folded --per-thread (which analyze-live.sh checks against the thread's
#    own CPU time and lifetime), and spanning its lifetime; a --time window tiled exactly;
#    DevTools' trace engine (the Performance panel's parser) in a headless Chromium finding
#    every thread's slices flat (skipped with the reason without chromium or node);
#  - speedscope: valid against speedscope's published JSON schema (found or fetched by
#    testdata/export/speedscope-schema.sh); one profile per thread, each summing to the
#    thread's Chrome slices (the same intervals and runs);
#  - -o, stdout, a cut trace (exit 3, a complete document), a damaged one (exit 1, no file),
#    bad options (exit 2);
#  - the kernel's build-id in the file (info) and on pprof's kernel mapping, as perf
#    buildid-list -k reads it;
#  - the demo's 5 s of ping-pong: more than a million slices get a warning (fewer, none);
#    figures (time, sizes) printed, not checked.
# Needs root; exits 77 with the reason elsewhere, or fails when WC_REQUIRE_RECORDING=1.
# Without speedscope's schema (no cache and no network), the rest is checked and the script
# ends with 77 and the reason.
set -u
B=${builddir:-.}
WCREC="$B/wcrec"
WCA="$B/wcanalyze"
WL="$B/tests/wall-workload"
TD="$(cd "$(dirname "$0")/.." && pwd)/testdata/export"
PY=/usr/bin/python3
. "$(dirname "$0")/testlib.sh"
[ -x $PY ] || { echo "SKIP: no /usr/bin/python3 (Debian's python3) to read the JSON with"; exit 77; }
field() { # field TID N: field N of the line of TID in $tmp/summary
	awk -v t="$1" -v n="$2" '$2 == t { print $n }' "$tmp/summary"
}

# 1. one pinned recording
"$WCREC" -q -o "$tmp/wl.wct" -- taskset -c 0 "$WL" 1.5 >"$tmp/wl.out" 2>"$tmp/err"
rc=$?
expect "wcrec -- wall-workload exits 0 ($(cat "$tmp/err"))" $rc -eq 0
expect "wall-workload printed its threads" "$(grep -c '^thread ' "$tmp/wl.out")" -ge 5

# 1b. the kernel's build-id: in the file (info), and on pprof's [kernel.kallsyms] mapping, as
# perf reads it (perf buildid-list -k, from the same /sys/kernel/notes)
kbid=$(perf buildid-list -k 2>/dev/null)
ours=$("$WCA" info "$tmp/wl.wct" 2>/dev/null | sed -n 's/^kernel: *build-id //p')
if [ -n "$kbid" ]; then
	expect "info: the kernel's build-id ($ours), perf buildid-list -k's ($kbid)" "$ours" = "$kbid"
else
	echo "note: no perf buildid-list -k here: info says the kernel's build-id is '$ours'"
fi
if command -v go >/dev/null 2>&1 && go tool pprof -h >/dev/null 2>&1; then
	"$WCA" export --format pprof -o "$tmp/wl.pb.gz" "$tmp/wl.wct" 2>/dev/null
	kmap=$(go tool pprof -raw "$tmp/wl.pb.gz" 2>/dev/null | sed -n '/^Mappings/,$p' |
		awk '$3 == "[kernel.kallsyms]" { print $4 }')
	expect "pprof: [kernel.kallsyms]'s build-id ($kmap), the file's ($ours)" \
		"${kmap:-none}" = "${ours:-unknown}"
else
	echo "note: no go tool pprof here (apt-get install golang-go): the pprof mapping unchecked"
fi

# 2. chrome
"$WCA" export --format chrome -o "$tmp/wl.json" "$tmp/wl.wct" 2>"$tmp/err"
rc=$?
expect "export --format chrome exits 0 ($(cat "$tmp/err"))" $rc -eq 0
# the workload's threads tile their time; its main thread may have started on CPU 1 before
# taskset pinned it, where a switch-in can go untraced and its interval is dropped
tids=$(awk '{ printf "%s%s", (NR > 1 ? "," : ""), $2 }' "$tmp/wl.out")
$PY "$TD/check-chrome.py" --tile="$tids" --summary "$tmp/wl.json" >"$tmp/summary"
rc=$?
expect "the structure check passes, the workload threads' slices tiling their time ($(grep -v '^[0-9]' "$tmp/summary" | head -n 4 | tr '\n' ' '))" $rc -eq 0
# the same runs and intervals as folded --per-thread, summed over the thread's comms: its
# on-CPU lines add up to its run time, its off-CPU lines to its intervals
"$WCA" folded --per-thread --unit ns "$tmp/wl.wct" >"$tmp/folded" 2>/dev/null
folded_sums "$tmp/folded" | awk '{ n = split($1, k, "-"); on[k[n]] += $2; off[k[n]] += $3 }
	END { for (t in on) print t, on[t], off[t] + 0 }' >"$tmp/folded.sums"
# summary: pid tid name running off span slices gaps first last (ns)
while read -r _ tid comm life _; do
	run=$(field "$tid" 4)
	off=$(field "$tid" 5)
	fon=$(awk -v t="$tid" '$1 == t { print $2 }' "$tmp/folded.sums")
	foff=$(awk -v t="$tid" '$1 == t { print $3 }' "$tmp/folded.sums")
	expect "$comm: a thread_name of its own" "$(field "$tid" 3)" = "$comm"
	within "${run:-0}" "${fon:-0}" 0.001
	rc=$?
	expect "$comm: Running slices $run ns, its on-CPU lines ${fon:-?} ns" $rc -eq 0
	within "${off:-0}" "${foff:-0}" 0.001
	rc=$?
	expect "$comm: off-CPU slices $off ns, its off-CPU lines ${foff:-?} ns" $rc -eq 0
	expect "$comm: its slices span $(field "$tid" 6) ns, at least its lifetime $life ns less 1%" \
		"$(field "$tid" 6)" -ge $((life - life / 100))
done <"$tmp/wl.out"
# a window well inside the workload threads' lives
win=$(awk -v t=",$tids," 'index(t, "," $2 ",") { if ($9 > a) a = $9; if (!b || $10 < b) b = $10 }
	END { s = int(a / 1e8 + 2) / 10; printf "%.1f,%.1f", s, s + 0.5; exit !(s + 0.5 < b / 1e9) }' \
	"$tmp/summary")
rc=$?
expect "the workload threads live long enough for a 0.5 s window ($win)" $rc -eq 0
for state in "Running" "Sleeping S" "Runnable" "Preempted R"; do
	expect "slices named $state" "$(grep -c "\"name\":\"$state\"" "$tmp/wl.json")" -gt 0
done
expect "a sleep's stack names wl_sleep, and its waker is in args" \
	"$(grep '"name":"Sleeping S"' "$tmp/wl.json" | grep '"stack":\[[^]]*"wl_sleep"' | grep -c '"waker_tid":')" -gt 0
expect "wl-reader's sleeps are woken by wl-writer" \
	"$(grep '"name":"Sleeping S"' "$tmp/wl.json" | grep '"wl_read"' | grep -c '"waker":"wl-writer"')" -gt 0

"$WCA" export --format chrome --time "$win" -o "$tmp/win.json" "$tmp/wl.wct" 2>"$tmp/err"
rc=$?
expect "--time $win exits 0 ($(cat "$tmp/err"))" $rc -eq 0
$PY "$TD/check-chrome.py" --tile="$tids" --summary "$tmp/win.json" >"$tmp/summary"
rc=$?
expect "--time $win: the structure check passes ($(grep -v '^[0-9]' "$tmp/summary" | head -n 4 | tr '\n' ' '))" $rc -eq 0
want=$(echo "$win" | awk -F, '{ printf "%.0f-%.0f", $1 * 1e9, $2 * 1e9 }')
while read -r _ tid comm _ _; do
	expect "--time $win: $comm's slices tile the window ($(field "$tid" 9)-$(field "$tid" 10))" \
		"$(field "$tid" 9)-$(field "$tid" 10)" = "$want"
done <"$tmp/wl.out"

if ! command -v chromium >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
	echo "SKIP DevTools' trace engine: no chromium or node (apt-get install chromium nodejs)"
else
	node "$TD/devtools-check.mjs" "$tmp/wl.json" >"$tmp/devtools" 2>&1
	rc=$?
	if [ $rc = 77 ]; then
		echo "SKIP DevTools' trace engine: $(cat "$tmp/devtools")"
	else
		expect "DevTools' trace engine reads every thread's slices flat ($(tr '\n' ' ' <"$tmp/devtools"))" $rc -eq 0
	fi
fi

# 3. speedscope
schema=$(sh "$TD/speedscope-schema.sh" 2>"$tmp/schema.err")
have_schema=$?
"$WCA" export --format speedscope --unit ns -o "$tmp/wl.speedscope" "$tmp/wl.wct" 2>"$tmp/err"
rc=$?
expect "export --format speedscope exits 0 ($(cat "$tmp/err"))" $rc -eq 0
if [ $have_schema = 0 ]; then
	$PY "$TD/validate-speedscope.py" "$schema" "$tmp/wl.speedscope" >"$tmp/valid"
	rc=$?
	expect "valid against speedscope's schema: $(cat "$tmp/valid")" $rc -eq 0
else
	echo "SKIP speedscope's schema: $(cat "$tmp/schema.err")"
fi
$PY -c '
import json, sys
for p in json.load(open(sys.argv[1]))["profiles"]:
    print(p["name"].replace(" ", "_"), p["unit"], p["endValue"] - p["startValue"])
' "$tmp/wl.speedscope" >"$tmp/profiles"
$PY "$TD/check-chrome.py" --summary "$tmp/wl.json" >"$tmp/summary"
while read -r _ tid comm _ _; do
	total=$(awk -v k="$comm-$tid" 'index($1, k "_(pid_") == 1 && $2 == "nanoseconds" { print $3 }' "$tmp/profiles")
	expect "$comm: one speedscope profile named $comm-$tid (pid ...), in ns" "${total:+1}" = 1
	slices=$(($(field "$tid" 4) + $(field "$tid" 5)))
	within "${total:-0}" "$slices" 0.001
	rc=$?
	expect "$comm: its profile sums to ${total:-?} ns, its Chrome slices to $slices ns" $rc -eq 0
done <"$tmp/wl.out"

# 4. outputs and exit statuses
"$WCA" export --format speedscope "$tmp/wl.wct" >"$tmp/stdout.json" 2>/dev/null
expect "no -o: the document on stdout" "$(head -c 11 "$tmp/stdout.json")" = '{"$schema":'
"$WCA" export --format chrome -o - "$tmp/wl.wct" 2>/dev/null | head -c 16 >"$tmp/dash"
expect "-o -: stdout" "$(cat "$tmp/dash")" = '{"traceEvents":['
cut_run /dev/null export --format chrome -o "$tmp/cut.json"
$PY "$TD/check-chrome.py" "$tmp/cut.json" >"$tmp/valid"
rc=$?
expect "a cut trace: a complete document of what is before the cut ($(cat "$tmp/valid"))" $rc -eq 0
cp "$tmp/wl.wct" "$tmp/bad.wct"
printf 'XXXXXXXXXXXXXXXX' | dd of="$tmp/bad.wct" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
for fmt in chrome speedscope pprof; do
	"$WCA" export --format $fmt -o "$tmp/bad.json" "$tmp/bad.wct" 2>"$tmp/err"
	rc=$?
	expect "a damaged trace, $fmt: exit 1 (got $rc), no output file, errors on stderr ($(head -n 1 "$tmp/err"))" \
		"$rc$([ -e "$tmp/bad.json" ] && echo ' file left')" = 1
done
for args in "" "--format perf" "--format chrome --unit ms" "--format chrome --mode off" \
	"--format speedscope --time 2,1" "--format chrome -U -K" "--format chrome --bogus" \
	"--format pprof --unit ms" "--format speedscope --fleet"; do
	# shellcheck disable=SC2086
	"$WCA" export $args "$tmp/wl.wct" >/dev/null 2>"$tmp/err"
	rc=$?
	expect "wcanalyze export $args exits 2 (got $rc) with one line on stderr" "$rc$(wc -l <"$tmp/err")" = 21
done
# the profile rows of the output table (output.h): export --format writes the subcommand's bytes
for pair in folded:folded svg:flamegraph; do
	"$WCA" "${pair#*:}" "$tmp/wl.wct" >"$tmp/sub.out" 2>/dev/null
	"$WCA" export --format "${pair%%:*}" "$tmp/wl.wct" >"$tmp/exp.out" 2>/dev/null
	same=$(cmp -s "$tmp/sub.out" "$tmp/exp.out" && [ -s "$tmp/sub.out" ] && echo same)
	expect "export --format ${pair%%:*}: the bytes of wcanalyze ${pair#*:}" "$same" = same
done

# 5. many slices: the demo's ping-pong, 100k to 200k switches a second on this project's VMs
"$WCREC" -q -o "$tmp/demo.wct" -- "$B/demo/wcdemo" 5 >/dev/null 2>"$tmp/err"
rc=$?
expect "wcrec -- wcdemo 5 exits 0 ($(cat "$tmp/err"))" $rc -eq 0
t0=$(date +%s.%N)
"$WCA" export --format chrome -o "$tmp/demo.json" "$tmp/demo.wct" 2>"$tmp/err"
rc=$?
t1=$(date +%s.%N)
slices=$(grep -c '^{"ph":"X"' "$tmp/demo.json")
jsize=$(stat -c %s "$tmp/demo.json")
# to a file, the warning is by size: above 256 MiB a browser does not load it
if [ "$jsize" -gt $((256 << 20)) ]; then
	expect "demo: $jsize bytes, exit 0 and a warning with a --time window ($(grep browser "$tmp/err"))" \
		"$rc$(grep -c "warning: .*MB of JSON, more than a browser loads.*--time" "$tmp/err")" = 01
else
	expect "demo: $jsize bytes, exit 0 and no warning about its size" \
		"$rc$(grep -c 'browser\|slices' "$tmp/err")" = 00
fi
# to a pipe, whose size it cannot know, by the number of slices
"$WCA" export --format chrome "$tmp/demo.wct" 2>"$tmp/err" | cat >/dev/null
if [ "$slices" -gt 1000000 ]; then
	expect "demo to a pipe: $slices slices, a warning naming --time ($(grep slices "$tmp/err"))" \
		"$(grep -c "warning: $slices slices.*--time" "$tmp/err")" -eq 1
else
	expect "demo to a pipe: $slices slices, no warning about slices" "$(grep -c 'slices' "$tmp/err")" -eq 0
fi
# the size warning's window, with a limit of a quarter of this export (the test hook): that
# window's export is within the limit
limit=$((jsize / 4))
WCANALYZE_BROWSER_MAX_BYTES=$limit "$WCA" export --format chrome -o "$tmp/demo-big.json" \
	"$tmp/demo.wct" 2>"$tmp/err"
win=$(sed -n 's/.*e\.g\. --time \([0-9.e+-]*,[0-9.e+-]*\),.*/\1/p' "$tmp/err")
expect "demo over a limit of $limit bytes: a warning with a window ($(cat "$tmp/err"))" -n "$win"
"$WCA" export --format chrome --time "${win:-0,1}" -o "$tmp/demo-fit.json" "$tmp/demo.wct" 2>/dev/null
expect "demo --time $win: $(stat -c %s "$tmp/demo-fit.json") bytes, within the limit" \
	"$(stat -c %s "$tmp/demo-fit.json")" -le "$limit"
rm -f "$tmp/demo-big.json" "$tmp/demo-fit.json"
"$WCA" export --format chrome --time 1,1.5 -o "$tmp/demo-win.json" "$tmp/demo.wct" 2>"$tmp/err"
expect "demo --time 1,1.5: no warning about slices" "$(grep -c 'slices' "$tmp/err")" -eq 0
t2=$(date +%s.%N)
"$WCA" export --format speedscope -o "$tmp/demo.speedscope" "$tmp/demo.wct" 2>/dev/null
t3=$(date +%s.%N)
"$WCA" folded "$tmp/demo.wct" >/dev/null 2>&1
t4=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v e="$t4" -v n="$slices" \
	-v tb="$(stat -c %s "$tmp/demo.wct")" -v cb="$(stat -c %s "$tmp/demo.json")" \
	-v wb="$(stat -c %s "$tmp/demo-win.json")" -v sb="$(stat -c %s "$tmp/demo.speedscope")" \
	'BEGIN { printf "figures: wcdemo 5 s, trace %.1f MB: chrome %.2f s, %d slices, %.0f MB (%.0f bytes a slice; --time 1,1.5: %.1f MB); speedscope %.2f s, %.0f kB; folded %.2f s\n",
		tb / 1e6, b - a, n, cb / 1e6, cb / n, wb / 1e6, d - c, sb / 1e3, e - d }'

[ $fails -eq 0 ] || { echo "$fails checks failed"; exit 1; }
if [ $have_schema != 0 ]; then
	echo "SKIP: speedscope's schema is not available: $(cat "$tmp/schema.err")"
	exit 77
fi
exit 0
