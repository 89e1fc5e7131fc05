#!/bin/sh
# folded-files.sh - wcanalyze folded with several FILEs, on the checked-in traces: each file
# analysed alone, the lines merged by text and summed.  Checked against the single-file
# outputs, merged here with awk: in ns, the sums exactly; in us, those sums rounded as one
# profile rounds (half up, lines of 0 left out); --per-file, each file's lines under its name
# (the base name less .wct); a file that cannot be read is named on stderr, the others'
# lines still written, exit 1.  flamegraph draws the merged lines, each frame the sum of the
# lines under it (export's are checked by tests/pprof-export.sh); export --format chrome puts
# each file's slices on one timeline by their wall clocks; timehist, threads, hist and info give each file's
# report in turn, as alone, each under a line "==> FILE <==" as head(1) has.
set -u
B=${builddir:-.}
S=${srcdir:-$(dirname "$0")/..}
WCA="$B/wcanalyze"
G="$S/testdata/golden"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
expect() {
	d=$1
	shift
	if [ "$@" ]; then echo "ok   $d"; else echo "FAIL $d"; fails=$((fails + 1)); fi
}
# merge UNIT_NS FILE...: folded lines (in ns) summed by text, then in the unit, sorted
merge() {
	u=$1
	shift
	cat "$@" | awk -v u="$u" '{ v = $NF; sub(/ [0-9]+$/, ""); s[$0] += v }
		END { for (k in s) { x = int((s[k] + int(u / 2)) / u); if (x) print k, x } }' |
		LC_ALL=C sort
}

a="$G/demo.wct" b="$G/waker-stacks.wct" c="$G/system-wide.wct"
for f in "$a" "$b" "$c"; do
	"$WCA" folded --unit ns "$f" >"$tmp/$(basename "$f" .wct).ns" 2>/dev/null
done
"$WCA" folded --unit ns "$a" "$b" "$c" 2>"$tmp/err" | LC_ALL=C sort >"$tmp/abc.ns"
expect "three files, ns: exit 0 ($(head -1 "$tmp/err"))" $? -eq 0
merge 1 "$tmp/demo.ns" "$tmp/waker-stacks.ns" "$tmp/system-wide.ns" >"$tmp/abc.want"
cmp -s "$tmp/abc.ns" "$tmp/abc.want"
expect "three files, ns: the single files' lines summed by text ($(wc -l <"$tmp/abc.want") lines; $(diff "$tmp/abc.ns" "$tmp/abc.want" | head -2 | tr '\n' ' '))" $? -eq 0
"$WCA" folded "$a" "$a" 2>/dev/null | LC_ALL=C sort >"$tmp/aa.us"
merge 1000 "$tmp/demo.ns" "$tmp/demo.ns" >"$tmp/aa.want"
cmp -s "$tmp/aa.us" "$tmp/aa.want"
expect "a file twice, us: each line twice its ns, then rounded ($(wc -l <"$tmp/aa.want") lines)" $? -eq 0

"$WCA" folded --unit ns --per-file "$a" "$b" 2>/dev/null | LC_ALL=C sort >"$tmp/per.ns"
{ sed 's/^/demo;/' "$tmp/demo.ns"; sed 's/^/waker-stacks;/' "$tmp/waker-stacks.ns"; } |
	LC_ALL=C sort >"$tmp/per.want"
cmp -s "$tmp/per.ns" "$tmp/per.want"
expect "--per-file: each file's lines under its name ($(cut -d';' -f1 "$tmp/per.ns" | sort -u | tr '\n' ' '))" $? -eq 0

"$WCA" folded --unit ns "$a" "$tmp/none.wct" >"$tmp/part.ns" 2>"$tmp/err"
rc=$?
expect "a missing file among them: exit 1 ($rc)" $rc -eq 1
expect "... named on stderr ($(grep -m1 none.wct "$tmp/err"))" -n "$(grep none.wct "$tmp/err")"
LC_ALL=C sort "$tmp/part.ns" | cmp -s - "$(merge 1 "$tmp/demo.ns" >"$tmp/a.want" && echo "$tmp/a.want")"
expect "... the others' lines still written" $? -eq 0

# flamegraph: the frames of the merged profile, each the sum of the lines under it (the
# single files' folded lines merged above, summed by prefix here)
"$WCA" flamegraph --unit ns --minwidth 0 -o "$tmp/abc.svg" "$a" "$b" "$c" 2>"$tmp/err"
expect "flamegraph with three files: exit 0 ($(head -1 "$tmp/err"))" $? -eq 0
sed -n 's/^<g><title>\(.*\) (\([0-9,]*\) ns, [0-9.]*%)<\/title>.*/\1 \2/p' "$tmp/abc.svg" |
	sed 's/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g; s/&amp;/\&/g' | tr -d ',' | grep -v '^all [0-9]*$' |
	LC_ALL=C sort >"$tmp/svg.frames"
awk '{ v = $NF; sub(/ [0-9]+$/, ""); n = split($0, f, ";"); p = ""
	for (i = 1; i <= n; i++) { p = p ";" f[i]; s[p] += v; name[p] = f[i] } }
	END { for (k in s) print name[k], s[k] }' "$tmp/abc.want" | LC_ALL=C sort >"$tmp/want.frames"
cmp -s "$tmp/svg.frames" "$tmp/want.frames"
expect "flamegraph with three files: its $(wc -l <"$tmp/svg.frames") frames the merged lines' ($(wc -l <"$tmp/want.frames"); $(diff "$tmp/svg.frames" "$tmp/want.frames" | head -3 | tr '\n' ' '))" $? -eq 0
"$WCA" flamegraph --per-file -o "$tmp/per.svg" "$a" "$b" 2>/dev/null
expect "flamegraph --per-file: a frame per file over all ($(grep -c '<title>demo (\|<title>waker-stacks (' "$tmp/per.svg"))" \
	"$(grep -c '<title>demo (\|<title>waker-stacks (' "$tmp/per.svg")" -eq 2
# export --format chrome: one timeline, each file's slices as alone, moved by the difference
# of the files' wall clocks (their ts_zero_utc); --per-file: ids raised by 10,000,000 a file
"$WCA" export --format chrome -o "$tmp/a.json" "$a" 2>/dev/null
"$WCA" export --format chrome -o "$tmp/b.json" "$b" 2>/dev/null
"$WCA" export --format chrome -o "$tmp/ab.json" "$a" "$b" 2>"$tmp/err"
expect "export --format chrome with two files: exit 0 ($(head -1 "$tmp/err"))" $? -eq 0
"$WCA" export --format chrome --per-file -o "$tmp/abp.json" "$a" "$b" 2>/dev/null
python3 "$S/testdata/export/check-chrome.py" --tile "$tmp/ab.json" >"$tmp/check" 2>&1
expect "export --format chrome with two files: well formed, each thread's slices tiling its time ($(tail -1 "$tmp/check"))" $? -eq 0
python3 - "$tmp" >"$tmp/chrome.check" 2>&1 <<'PY'
import json, sys
from datetime import datetime
d = sys.argv[1]
load = lambda n: json.load(open(d + "/" + n + ".json"))
a, b, ab, abp = load("a"), load("b"), load("ab"), load("abp")
def slices(doc):
    return sorted((e["ts"], e["dur"], e["pid"], e["tid"], e["name"])
                  for e in doc["traceEvents"] if e["ph"] == "X")
def wall(doc):
    t = doc["otherData"]["ts_zero_utc"]
    return datetime.strptime(t, "%Y-%m-%dT%H:%M:%S.%fZ").timestamp() * 1e6
off = wall(b) - wall(a)  # us, to the us of ts_zero_utc
def same(want, got):  # the same slices, ts within 2 us (the offset's rounding), dur 1 ns
    key = lambda x: (x[2], x[3], x[4], x[0])
    want, got = sorted(want, key=key), sorted(got, key=key)
    return len(want) == len(got) and all(
        w[2:] == g[2:] and abs(w[0] - g[0]) <= 2 and abs(w[1] - g[1]) <= 0.0015
        for w, g in zip(want, got))
sa, sb = slices(a), [(ts + off, dur, p, t, n) for ts, dur, p, t, n in slices(b)]
ok1 = same(sa + sb, slices(ab))
ok2 = same(sa + [(ts, dur, p + 10**7, t + 10**7, n) for ts, dur, p, t, n in sb],
           slices(abp))
names = [e["args"]["name"] for e in abp["traceEvents"]
         if e["ph"] == "M" and e["name"] == "process_name" and e["pid"] >= 10**7]
ok3 = bool(names) and all(x.endswith(" (waker-stacks)") for x in names)
print("the slices of both, the second's %.0f us later: %s; --per-file apart: %s, its processes named after the file: %s (%s)"
      % (off, ok1, ok2, ok3, names[:2]))
sys.exit(0 if ok1 and ok2 and ok3 else 1)
PY
rc=$?
expect "export --format chrome: $(cat "$tmp/chrome.check")" $rc -eq 0

# the reports of a recording's own: each file in turn, as alone, under head(1)'s "==> FILE <=="
for sub in timehist threads hist info; do
	"$WCA" $sub "$a" "$b" >"$tmp/two.out" 2>/dev/null
	rc=$?
	{ echo "==> $a <=="; "$WCA" $sub "$a" 2>/dev/null; echo; echo "==> $b <=="
		"$WCA" $sub "$b" 2>/dev/null; } >"$tmp/two.want"
	cmp -s "$tmp/two.out" "$tmp/two.want"
	expect "$sub with two files: exit $rc, each file's report in turn ($(wc -l <"$tmp/two.want") lines)" \
		$? -eq 0 -a $rc -eq 0
done
"$WCA" hist --per-file "$a" "$b" >/dev/null 2>"$tmp/err"
rc=$?
expect "hist --per-file: exit 2 ($rc: $(head -1 "$tmp/err"))" $rc -eq 2
for sub in "threads --json" "hist --json"; do
	"$WCA" $sub "$a" "$b" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	expect "$sub with two files: exit 2, no document ($rc: $(head -1 "$tmp/err"))" \
		$rc -eq 2 -a ! -s "$tmp/out"
done

# an option after a FILE is refused (getopt stops at the first FILE), not taken as a FILE
"$WCA" flamegraph "$a" -o "$tmp/late.svg" >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "flamegraph FILE -o SVG: exit 2, nothing written ($rc: $(head -1 "$tmp/err"))" \
	$rc -eq 2 -a ! -s "$tmp/out" -a ! -e "$tmp/late.svg"
"$WCA" hist "$a" "$b" --kind runq >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "hist FILE FILE --kind runq: exit 2 ($rc: $(head -1 "$tmp/err"))" $rc -eq 2 -a ! -s "$tmp/out"
cp "$a" "$tmp/-x.wct"
(cd "$tmp" && "$WCA" hist -- "$a" -x.wct) >"$tmp/out" 2>"$tmp/err"
expect "hist -- FILE -x.wct: a FILE after --, read ($? $(head -1 "$tmp/err"))" \
	"$(grep -c '^==> ' "$tmp/out")" -eq 2

# one FILE not read: the others' export written and kept, exit 1; a cut one with it: still 1
for f in pprof speedscope chrome; do
	"$WCA" export --format $f -o "$tmp/part.$f" "$a" "$tmp/none.wct" 2>/dev/null
	rc=$?
	expect "export --format $f, a missing FILE among two: exit 1, the other's kept ($rc)" \
		$rc -eq 1 -a -s "$tmp/part.$f"
done
"$WCA" folded "$G/sigkill.wct" "$tmp/none.wct" >/dev/null 2>&1
rc=$?
expect "folded of a cut FILE and a missing one: exit 1, the worse (not 3) ($rc)" $rc -eq 1

# --per-file: files of the same name told apart by their paths; speedscope's profiles too
mkdir -p "$tmp/h1" "$tmp/h2"
cp "$a" "$tmp/h1/trace.wct"
cp "$b" "$tmp/h2/trace.wct"
(cd "$tmp" && "$WCA" folded --per-file h1/trace.wct h2/trace.wct) 2>/dev/null |
	cut -d';' -f1 | sort -u >"$tmp/labels"
expect "--per-file, two trace.wct: labels h1/trace and h2/trace ($(tr '\n' ' ' <"$tmp/labels"))" \
	"$(tr '\n' ' ' <"$tmp/labels")" = "h1/trace h2/trace "
"$WCA" export --format speedscope --per-file -o "$tmp/ss.json" "$a" "$b" 2>/dev/null
set -- $(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
names = [p["name"] for p in d["profiles"]]
frames = [f["name"] for f in d["shared"]["frames"]]
print(sum(n.startswith("demo: ") for n in names), sum(n.startswith("waker-stacks: ") for n in names),
      len(names), sum(f in ("demo", "waker-stacks") for f in frames))' "$tmp/ss.json")
expect "speedscope --per-file: each profile named after its file ($1 demo, $2 waker-stacks of $3), no file frame in the stacks ($4)" \
	"$1" -ge 1 -a "$2" -ge 1 -a "$(($1 + $2))" -eq "$3" -a "$4" -eq 0

[ $fails -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
exit 0
