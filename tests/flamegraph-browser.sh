#!/bin/sh
# flamegraph-browser.sh - `wcanalyze flamegraph` in a real browser: the hand-built trace of
# tests/flamegraph-browser.c drawn as SVG, checked by xmllint (well-formed, the structure of
# testdata/flamegraph/flamegraph.rng, and valid against the W3C's SVG 1.1 DTD when Debian's
# w3c-sgml-lib has it here), then loaded by headless Chromium through the driver
# tests/flamegraph-browser.html, which clicks a frame, searches, hovers, resets, and writes
# what it saw; the numbers below are worked out by hand from the trace.  The screenshot and
# the SVGs stay in the build directory (tests/flamegraph-browser*.png, *.svg).
#  - with FLAMEGRAPH_PL=path/to/flamegraph.pl, the same folded input through flamegraph.pl
#    gives the same frames: same titles (name, value, share), depth, x and width;
#  - as root, a live recording of demo/wcdemo is drawn and loaded too (skipped elsewhere).
# Needs chromium (Debian's package) and xmllint (libxml2-utils); exits 77 when either is
# missing.  Runs no network: the SVG and the driver are local files.
#
# With --bench (builddir=BUILD srcdir=SRC tests/flamegraph-browser.sh --bench) it checks
# nothing and prints figures instead: time and size of the SVG of 10k and 100k distinct
# stacks (against `folded` on the same trace), with and without the merging of narrow
# frames, and the time Chromium takes to load the graph, zoom and search.
set -u
# The W3C's SVG 1.1 DTD (Debian: w3c-sgml-lib), read from disk: xmllint --nonet fetches nothing
SVG11_DTD=${SVG11_DTD:-/usr/share/xml/w3c-sgml-lib/schema/dtd/REC-SVG11-20110816/svg11.dtd}
B=${builddir:-.}
S=${srcdir:-$(dirname "$0")/..}
WCA="$B/wcanalyze"
ART="$B/tests/flamegraph-browser" # artefacts: $ART.svg, $ART.png, ...
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
live_trace=

expect() { # expect DESCRIPTION TEST-EXPRESSION
	desc=$1
	shift
	if [ "$@" ]; then echo "ok   $desc"; else echo "FAIL $desc"; fails=$((fails + 1)); fi
}
skip() {
	echo "SKIP: $1"
	exit 77
}

chromium=${CHROMIUM:-}
for c in chromium chromium-browser google-chrome; do
	[ -n "$chromium" ] && break
	chromium=$(command -v $c 2>/dev/null)
done
[ -n "$chromium" ] || skip "no chromium to load the SVG in (apt-get install chromium, or set CHROMIUM)"
command -v xmllint >/dev/null 2>&1 || skip "no xmllint to check the SVG (apt-get install libxml2-utils)"

# browse URL OUT [ARGS...]: the driver's report (dump-dom) in OUT, or with --screenshot=...
browse() {
	url=$1
	out=$2
	shift 2
	[ $# -gt 0 ] || set -- --dump-dom
	timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$tmp/profile" --allow-file-access-from-files \
		--virtual-time-budget=10000 --hide-scrollbars "$@" "$url" >"$out" 2>>"$tmp/chromium.err"
}
# report FILE: the driver's lines out of the dumped DOM
report() {
	sed -n '/<pre id="result">/,/<\/pre>/p' "$1" | sed -e 's/<[^>]*>//g' -e '/^$/d'
}
# line REPORT PREFIX: the one line after PREFIX (the rest of it)
line() {
	grep -F -- "$2" "$1" | head -1 | cut -c$((${#2} + 2))-
}
# near A B [TOL]: two numbers within TOL (0.5 px)
near() {
	awk -v a="$1" -v b="$2" -v t="${3:-0.5}" \
		'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= t) }'
}
# clean REPORT: the driver ran to its end and saw no error
clean() {
	[ "$(tail -1 "$1")" = DONE ] && ! grep -q ERROR "$1"
}
# svg11 FILE WHAT: FILE is valid SVG 1.1 (against the DTD), or a SKIP line without the DTD
svg11() {
	if [ -f "$SVG11_DTD" ]; then
		xmllint --noout --nonet --dtdvalid "$SVG11_DTD" "$1" 2>"$tmp/dtd.err"
		expect "$2: valid against the SVG 1.1 DTD ($(head -c 300 "$tmp/dtd.err"))" $? -eq 0
	else
		echo "SKIP $2: SVG 1.1 DTD check: no $SVG11_DTD (apt-get install w3c-sgml-lib)"
	fi
}
# frame REPORT STEP NAME N: "CLASS X WIDTH FILL LABEL" of the Nth frame called NAME
frame() {
	grep "^$2 frame $3 " "$1" | sed -n "${4:-1}p" | cut -d' ' -f4-
}

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
if [ "${1:-}" = --bench ]; then
	cp "$S/tests/flamegraph-browser.html" "$tmp/driver.html"
	printf '%-34s %9s %9s %11s %7s\n' "input" "folded s" "svg s" "svg bytes" "frames"
	for n in 10000 100000; do
		"$B/tests/flamegraph-browser" --stacks $n "$tmp/b.wct" || exit 1
		t0=$(now)
		"$WCA" folded "$tmp/b.wct" >/dev/null 2>&1
		t1=$(now)
		for mw in 0.1 0; do
			t2=$(now)
			"$WCA" flamegraph --minwidth $mw -o "$tmp/b$n-$mw.svg" "$tmp/b.wct" 2>/dev/null
			t3=$(now)
			printf '%-34s %9.3f %9.3f %11d %7d\n' "$n stacks, --minwidth $mw" \
				"$(elapsed "$t0" "$t1")" "$(elapsed "$t2" "$t3")" \
				"$(wc -c <"$tmp/b$n-$mw.svg")" "$(grep -c '<g><title>' "$tmp/b$n-$mw.svg")"
		done
	done
	if [ -n "$chromium" ]; then
		for f in b100000-0.1 b100000-0; do
			t0=$(now)
			browse "file://$tmp/driver.html?svg=$f.svg&click=kfunc_2&search=kfunc_3&brief=1" \
				"$tmp/bd"
			t1=$(now)
			echo "chromium: load, zoom, search, reset of $f.svg: $(elapsed "$t0" "$t1") s" \
				"($(report "$tmp/bd" | tail -1))"
		done
	fi
	exit 0
fi

cp "$S/tests/flamegraph-browser.html" "$tmp/driver.html"

# 1. the trace and its SVG
"$B/tests/flamegraph-browser" "$tmp/app.wct"
expect "the hand-built trace is written" $? -eq 0
"$WCA" flamegraph -o "$ART.svg" "$tmp/app.wct" 2>"$tmp/err"
expect "flamegraph -o exits 0 ($(cat "$tmp/err"))" $? -eq 0
xmllint --noout --nonet "$ART.svg" 2>"$tmp/err"
expect "xmllint: the SVG is well-formed XML ($(head -c 300 "$tmp/err"))" $? -eq 0
xmllint --noout --nonet --relaxng "$S/testdata/flamegraph/flamegraph.rng" "$ART.svg" 2>"$tmp/err"
expect "xmllint: the SVG has flamegraph.pl's structure ($(head -c 300 "$tmp/err"))" $? -eq 0
svg11 "$ART.svg" "xmllint: the SVG"
"$WCA" flamegraph "$tmp/app.wct" >"$tmp/stdout.svg" 2>/dev/null
cmp -s "$tmp/stdout.svg" "$ART.svg"
expect "without -o the same SVG goes to stdout" $? -eq 0
grep -Eq 'href=|[^a-z-]src=|url\([^#]|@import|<!DOCTYPE' "$ART.svg"
expect "no external reference (href, src, url(), @import, DTD) in the SVG" $? -ne 0

# 2. in the browser: hover, zoom, search, ignore case, reset
# Worked out by hand: 6800 us over 1180 px (1200 - 2 * 10).  ksys_write spans 3000-6100 us:
# x = 10 + 3000 / 6800 * 1180 = 530.6, width = 3100 / 6800 * 1180 = 537.9.  Zoomed, it is
# 1180 px wide (ratio 1180 / 537.9): its callees io_schedule 600 us -> x 10, width 228.39,
# [off-cpu D] 500 us -> 190.32, [runqueue] 100 us -> x 200.32, width 38.06, and memcpy_orig
# 2500 us -> x 238.39, width 951.61.  memcpy_orig's share is 2500 / 6800 = 36.76%.
# "sys" matches do_syscall_64 (6100 us), ksys_read and ksys_write (inside it: not counted
# again): 6100 / 6800 = 89.71%, 3 frames; ignoring case entry_SYSCALL_64 too: 4 frames, the
# same 89.71%.
q="svg=flamegraph-browser.svg&click=ksys_write&search=sys&hover=memcpy_orig"
cp "$ART.svg" "$tmp/flamegraph-browser.svg"
browse "file://$tmp/driver.html?$q" "$tmp/dom"
report "$tmp/dom" >"$tmp/r"
cp "$tmp/r" "$ART.report"
expect "the driver ran to its end (tests/flamegraph-browser.report)" "$(tail -1 "$tmp/r")" = DONE
expect "no script error ($(grep ERROR "$tmp/r" | head -3))" -z "$(grep ERROR "$tmp/r")"
expect "16 frames (the distinct frames of the 7 lines, and all)" "$(line "$tmp/r" frames)" = 16
set -- $(line "$tmp/r" legend)
expect "the legend: one row, inside the 1200 px, no label over another ($*)" \
	"${2:-}" = 1 -a "${8:-}" = 0 -a "$(echo "${6:-9999}" | cut -d. -f1)" -lt 1200
set -- $(frame "$tmp/r" load ksys_write)
expect "ksys_write at x 530.6, 537.9 px wide ($*)" "${2:-}" = 530.6 -a "${3:-}" = 537.9
expect "the tooltip line: name, time in us and share" \
	"$(line "$tmp/r" "hover details")" = "Function: memcpy_orig (2,500 us, 36.76%)"
expect "the details line is cleared on mouseout" "$(line "$tmp/r" "hover after")" = '" "'
expect "the click lands on ksys_write (hit test at its middle)" "$(line "$tmp/r" "zoom hit ksys_write")" = yes
set -- $(frame "$tmp/r" zoom ksys_write)
expect "zoomed: ksys_write 1180 px wide at x 10 ($*)" "${1:-}" = - -a "${2:-}" = 10.00 -a "${3:-}" = 1180.00
for f in all app entry_SYSCALL_64 do_syscall_64; do
	set -- $(frame "$tmp/r" zoom $f)
	expect "zoomed: its caller $f stays, faded, full width ($*)" "${1:-}" = parent -a "${3:-}" = 1180
done
for f in ksys_read compute_crc schedule '\[off-cpu_S\]' logger '\[on-cpu_unsampled\]'; do
	expect "zoomed: $f (not on its path) is hidden" "$(frame "$tmp/r" zoom "$f" | cut -d' ' -f1)" = hide
done
expect "zoomed: the first [runqueue] (under schedule) is hidden" \
	"$(frame "$tmp/r" zoom '\[runqueue\]' 1 | cut -d' ' -f1)" = hide
set -- $(frame "$tmp/r" zoom io_schedule)
near "${2:-}" 10 && near "${3:-}" 228.39
expect "zoomed: io_schedule x 10, 228.39 px ($*)" $? -eq 0
set -- $(frame "$tmp/r" zoom '\[off-cpu_D\]')
near "${2:-}" 10 && near "${3:-}" 190.32 && [ "${5:-}" = "[off-cpu_D]" ]
expect "zoomed: [off-cpu D] x 10, 190.32 px, labelled in full ($*)" $? -eq 0
set -- $(frame "$tmp/r" zoom '\[runqueue\]' 2)
near "${2:-}" 200.32 && near "${3:-}" 38.06 && [ "${5:-}" = "[ru.." ]
expect "zoomed: [runqueue] x 200.32, 38.06 px, label cut to 5 characters ($*)" $? -eq 0
set -- $(frame "$tmp/r" zoom memcpy_orig)
near "${2:-}" 238.39 && near "${3:-}" 951.61
expect "zoomed: memcpy_orig x 238.39, 951.61 px ($*)" $? -eq 0
expect "zoomed: Reset Zoom is shown" "$(line "$tmp/r" "zoom unzoom")" = -
expect "search sys: 3 frames highlighted" "$(line "$tmp/r" "search highlighted")" = 3
expect "search sys: Matched 89.71%" "$(line "$tmp/r" "search matched")" = "Matched:_89.71%"
for f in do_syscall_64 ksys_read ksys_write; do
	expect "search sys: $f highlighted" "$(frame "$tmp/r" search $f | cut -d' ' -f4)" = "#e600e6"
done
expect "search sys, ignoring case: 4 frames" "$(line "$tmp/r" "ic highlighted")" = 4
expect "search sys, ignoring case: Matched 89.71% (nested matches once)" \
	"$(line "$tmp/r" "ic matched")" = "Matched:_89.71%"
expect "Reset Search: nothing highlighted" "$(line "$tmp/r" "unsearch highlighted")" = 0
grep '^load frame' "$tmp/r" | cut -d' ' -f3- >"$tmp/load"
grep '^unzoom frame' "$tmp/r" | cut -d' ' -f3- >"$tmp/unzoom"
cmp -s "$tmp/load" "$tmp/unzoom"
expect "Reset Zoom: every frame as loaded (x, width, fill, label, shown)" $? -eq 0
expect "Reset Zoom: its button is hidden again" "$(line "$tmp/r" "unzoom unzoom")" = hide

# the screenshot, zoomed on ksys_write with "schedule" searched (2 frames, 1100 / 6800 =
# 16.18%): the artefact to look at
browse "file://$tmp/driver.html?svg=flamegraph-browser.svg&click=ksys_write&search=schedule" \
	"$tmp/shot.out" --screenshot="$ART.png" --window-size=1200,220
expect "screenshot $ART.png" -s "$ART.png"

# 3. the icicle graph: the same zoom, from the top down
"$WCA" flamegraph --inverted -o "$ART-icicle.svg" "$tmp/app.wct" 2>"$tmp/err"
expect "flamegraph --inverted exits 0 ($(cat "$tmp/err"))" $? -eq 0
cp "$ART-icicle.svg" "$tmp/icicle.svg"
browse "file://$tmp/driver.html?svg=icicle.svg&click=ksys_write" "$tmp/dom2"
report "$tmp/dom2" >"$tmp/r2"
clean "$tmp/r2"
expect "icicle: the driver ran to its end, no error" $? -eq 0
grep '^zoom frame' "$tmp/r" >"$tmp/zoom1"
grep '^zoom frame' "$tmp/r2" >"$tmp/zoom2"
cmp -s "$tmp/zoom1" "$tmp/zoom2"
expect "icicle: the zoom on ksys_write gives the same frames, classes, x and widths" $? -eq 0
expect "icicle: the root is at the top (y 84, under the title, subtitle and legend)" \
	-n "$(grep -o '<title>all ([^<]*</title><rect x="10.0" y="84"' "$ART-icicle.svg")"

# 3b. narrow: at 600 px the legend's 7 entries take two rows (estimated at 7.08 px a
# character: 539.56 px for the first 5 with the gaps, 640.36 with [runqueue], over the 580
# px between the margins), seen in the browser with its real font inside the image and not
# overlapping; inverted, the frames start under them: y 36 + 24 (subtitle) + 2 * 24 = 108,
# and the zoom on ksys_write finds the same frames as at 1200 px (its 4 callers faded, 7
# frames hidden, the 4 and it as wide as the image less its margins).
"$WCA" flamegraph --inverted --width 600 -o "$ART-narrow.svg" "$tmp/app.wct" 2>"$tmp/err"
expect "--width 600 --inverted exits 0 ($(cat "$tmp/err"))" $? -eq 0
svg11 "$ART-narrow.svg" "--width 600"
expect "--width 600 --inverted: the root at y 108, under two legend rows" \
	-n "$(grep -o '<title>all ([^<]*</title><rect x="10.0" y="108"' "$ART-narrow.svg")"
cp "$ART-narrow.svg" "$tmp/narrow.svg"
browse "file://$tmp/driver.html?svg=narrow.svg&click=ksys_write&brief=1" "$tmp/dom6"
report "$tmp/dom6" >"$tmp/r6"
clean "$tmp/r6"
expect "--width 600: loaded and clicked without error" $? -eq 0
set -- $(line "$tmp/r6" legend)
expect "--width 600: the legend in 2 rows, inside the 600 px, no label over another ($*)" \
	"${2:-}" = 2 -a "${8:-}" = 0 -a "$(echo "${6:-9999}" | cut -d. -f1)" -lt 600
expect "--width 600: the click lands on ksys_write" "$(line "$tmp/r6" "zoom hit ksys_write")" = yes
expect "--width 600: zoomed as at 1200 px ($(line "$tmp/r6" "zoom count"))" \
	"$(line "$tmp/r6" "zoom count")" = "parents 4 hidden 7 full 5"

# 4. big graphs: 100,000 distinct stacks and a 3000-frame stack (tests/flamegraph-browser.c)
# 100k stacks of 10 us each, 1 s: bench;kfunc_0;kfunc_1;A;B;C[;...] with 50 A of 20000 us
# (23.6 px), under each 40 B of 500 us (0.59 px), under each 50 C of 10 us (0.0118 px, under
# the 0.1 px minimum) merged into one frame: 4 + 50 + 2000 + 2000 merged = 4054 frames.
# kfunc_2 and kfunc_3 are only A frames: searched, 2 frames, 40000 / 1000000 = 4.00%.
"$B/tests/flamegraph-browser" --stacks 100000 "$tmp/big.wct"
expect "the 100k-stack trace is written" $? -eq 0
"$WCA" flamegraph -o "$ART-big.svg" "$tmp/big.wct" 2>"$tmp/err"
expect "100k stacks: flamegraph exits 0 ($(cat "$tmp/err"))" $? -eq 0
size=$(wc -c <"$ART-big.svg")
expect "100k stacks: the SVG is $size bytes, under 1 MB" "$size" -lt 1000000
xmllint --noout --nonet --relaxng "$S/testdata/flamegraph/flamegraph.rng" "$ART-big.svg" 2>/dev/null
expect "100k stacks: the SVG validates" $? -eq 0
svg11 "$ART-big.svg" "100k stacks"
cp "$ART-big.svg" "$tmp/big.svg"
browse "file://$tmp/driver.html?svg=big.svg&click=kfunc_2&search=%5Ekfunc_%282%7C3%29%24&brief=1" "$tmp/dom4"
report "$tmp/dom4" >"$tmp/r4"
clean "$tmp/r4"
expect "100k stacks: loaded, clicked, searched without error" $? -eq 0
expect "100k stacks: 4054 frames ($(line "$tmp/r4" frames))" "$(line "$tmp/r4" frames)" = 4054
expect "100k stacks: 2 frames match ^kfunc_(2|3)\$" "$(line "$tmp/r4" "search highlighted")" = 2
expect "100k stacks: Matched 4.00%" "$(line "$tmp/r4" "search matched")" = "Matched:_4.00%"
# zoomed on kfunc_2: its 4 callers stay (parents), kfunc_2 is the only frame at full width
# with them, its 40 B and 40 merged frames are shown, the other 49 A and theirs are hidden:
# 4054 - 5 - 80 = 3969.
expect "100k stacks: zoom on kfunc_2 ($(line "$tmp/r4" "zoom count"))" \
	"$(line "$tmp/r4" "zoom count")" = "parents 4 hidden 3969 full 5"
# 3000 frames deep: all, deep, kfunc_0, kfunc_1 and kfunc_100 ... (4 in 5 samples, 1600 of
# 2000 us, 944 px).  kfunc_397 first appears 297 frames above kfunc_100 (depth 301): zoomed
# on it, its 301 callers are parents and it and the 2700 frames above it are 1180 px wide.
"$B/tests/flamegraph-browser" --depth 3000 "$tmp/deep.wct"
expect "the 3000-frame trace is written" $? -eq 0
"$WCA" flamegraph -o "$tmp/deep.svg" "$tmp/deep.wct" 2>"$tmp/err"
expect "3000 frames deep: flamegraph exits 0 ($(cat "$tmp/err"))" $? -eq 0
grep -q '<svg [^>]*height="48150"' "$tmp/deep.svg"
expect "3000 frames deep: 3002 frames, 3002 * 16 px high + 118 (title, subtitle, legend, details)" \
	$? -eq 0 -a "$(grep -c '<g><title>' "$tmp/deep.svg")" -eq 3002
browse "file://$tmp/driver.html?svg=deep.svg&click=kfunc_397&brief=1" "$tmp/dom5"
report "$tmp/dom5" >"$tmp/r5"
clean "$tmp/r5"
expect "3000 frames deep: loaded and clicked without error" $? -eq 0
expect "3000 frames deep: the click lands on kfunc_397" "$(line "$tmp/r5" "zoom hit kfunc_397")" = yes
expect "3000 frames deep: zoomed, 301 callers faded, it and the 2700 above it at full width" \
	"$(line "$tmp/r5" "zoom count")" = "parents 301 hidden 0 full 3002"

# 5. a live recording of the demo (root only): a real graph loads and searches
if [ "$(id -u)" = 0 ] && [ -x "$B/wcrec" ] && [ -x "$B/demo/wcdemo" ]; then
	# the live tests' lock, shared, while it records (tests/testlib.sh says why)
	{ command -v flock >/dev/null 2>&1 && exec 9>>/tmp/wcrec-live-tests.lock && flock -s 9; } ||
		true
	"$B/wcrec" -q -o "$tmp/demo.wct" -- "$B/demo/wcdemo" >/dev/null 2>"$tmp/err"
	expect "wcrec of the demo exits 0 ($(head -c 300 "$tmp/err"))" $? -eq 0
	command -v flock >/dev/null 2>&1 && flock -u 9 2>/dev/null
	"$WCA" flamegraph -o "$ART-demo.svg" "$tmp/demo.wct" 2>/dev/null
	expect "demo: flamegraph exits 0" $? -eq 0
	xmllint --noout --nonet --relaxng "$S/testdata/flamegraph/flamegraph.rng" "$ART-demo.svg" 2>/dev/null
	expect "demo: the SVG validates" $? -eq 0
	svg11 "$ART-demo.svg" "demo"
	cp "$ART-demo.svg" "$tmp/demo.svg"
	browse "file://$tmp/driver.html?svg=demo.svg&click=demo_sleep&search=schedule" "$tmp/dom3"
	report "$tmp/dom3" >"$tmp/r3"
	clean "$tmp/r3"
	expect "demo: loaded, clicked, searched without error" $? -eq 0
	expect "demo: more than 30 frames ($(line "$tmp/r3" frames))" "$(line "$tmp/r3" frames)" -gt 30
	expect "demo: schedule is found ($(line "$tmp/r3" "search matched"))" \
		"$(line "$tmp/r3" "search highlighted")" -gt 0
	set -- $(frame "$tmp/r3" zoom demo_sleep)
	expect "demo: the click on demo_sleep zooms it to 1180 px ($*)" "${2:-}" = 10.00 -a "${3:-}" = 1180.00
	live_trace="$tmp/demo.wct"
else
	echo "SKIP live demo graph: recording needs root"
fi

# 6. flamegraph.pl on the same folded input, when a copy is given
if [ -n "${FLAMEGRAPH_PL:-}" ] && [ -f "$FLAMEGRAPH_PL" ] && command -v perl >/dev/null 2>&1; then
	rect='<rect x="\([0-9.]*\)" y="\([0-9]*\)" width="\([0-9.]*\)"'
	frames() { # one line per frame: height - y|title|x|width, merged frames left out
		h=$(sed -n 's/^<svg [^>]*height="\([0-9]*\)".*/\1/p' "$1")
		tr -d '\n' <"$1" | sed 's/<g[ >]/\n&/g' |
			sed -n 's/^<g[^>]*>[[:space:]]*<title>\([^<]*\)<\/title>'"$rect"'.*/\3|\1|\2|\4/p' |
			awk -F'|' -v h="$h" '$2 !~ /^\[merged: / { print h - $1 "|" $2 "|" $3 "|" $4 }' | sort
	}
	for trace in "$tmp/app.wct" ${live_trace:-}; do
		"$WCA" folded --annotate "$trace" >"$tmp/folded" 2>/dev/null
		perl "$FLAMEGRAPH_PL" --countname us "$tmp/folded" >"$tmp/pl.svg" 2>/dev/null
		"$WCA" flamegraph "$trace" >"$tmp/ours.svg" 2>/dev/null
		frames "$tmp/pl.svg" >"$tmp/pl.frames"
		frames "$tmp/ours.svg" >"$tmp/ours.frames"
		# same title at the same depth (height - y); x within flamegraph.pl's rounding
		paste -d'|' "$tmp/pl.frames" "$tmp/ours.frames" | awk -F'|' '
			{ n++; d = $3 - $7; w = $4 - $8; if (d < 0) d = -d; if (w < 0) w = -w
			  if ($1 != $5 || $2 != $6 || d > 0.051 || w > 0.11) {
				  bad++
				  if (bad < 5) print "  differ:", $0
			  } }
			END { exit !(n > 0 && !bad) }' >"$tmp/diff"
		expect "flamegraph.pl: $(wc -l <"$tmp/pl.frames") frames in $(basename "$trace"), ours the same (titles, depth, x, width) $(cat "$tmp/diff")" \
			$? -eq 0 -a "$(wc -l <"$tmp/pl.frames")" -eq "$(wc -l <"$tmp/ours.frames")"
	done
else
	echo "SKIP flamegraph.pl side-by-side: set FLAMEGRAPH_PL to a copy of FlameGraph's flamegraph.pl"
fi

[ $fails -eq 0 ] || { echo "chromium's stderr:"; tail -5 "$tmp/chromium.err"; }
echo "$fails failed"
[ $fails -eq 0 ]
