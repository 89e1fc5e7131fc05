#!/bin/sh
# bench-record.sh - what recording costs a context-switch-heavy workload: wcrec against
# perf record, on `perf bench sched pipe` pinned to one CPU (two processes passing a token
# through pipes: about 2 sched_switch and 1 sched_waking per operation).
#
# It measures and prints:
#   overhead  usecs/op (perf bench's own figure) bare, under perf record and under wcrec, each
#             recording sched:sched_switch and sched:sched_waking system-wide with callchains;
#             the added cost (usecs/op - bare) of each, and wcrec's added cost / perf's
#             (goal <= 0.5).  Median of RUNS runs, min and max beside it; the configurations
#             are interleaved run by run so that drift of the machine hits them all alike.
#             Two pairs record exactly the same things: callchains on both events (perf's
#             -g default), and callchains on sched_switch only (wcrec's default).
#   floor     the same, under tests/bench-floor, a null recorder that opens exactly wcrec's
#             events and attrs and hands the ring buffers back to the kernel unread: what
#             the kernel's own per-event work costs (tracepoint, perf output, callchain
#             unwinding), which no recorder of these events can go below.  floor-sw has
#             callchains on switches (wcrec-sw's events), floor-g on both (perf -g's and
#             wcrec's); printed: floor-sw / perf (the best ratio any recorder of wcrec's
#             events can reach), wcrec-sw / floor-sw (wcrec's own share above the floor),
#             floor-g / perf (perf's own share).
#   size      bytes per scheduler event of wcrec's file and of `perf record -z` (zstd) on the
#             same run, and the ratio (goal <= 0.5): whole files, and net of each tool's fixed
#             per-file part (what a recording of `true` writes).
#   loss      events lost by wcrec with its default settings (0 expected), by perf, and in
#             every run above; and by the null recorder, in one run that counts its records.
# Event counts are exact: wcrec's from tests/wct-stat (tracepoint records in the file), perf's
# from `perf report --stats` (the SAMPLE events of each sched:* event).
#
# Needs root, perf (Debian: linux-perf), taskset, and a built tree (wcrec, tests/wct-stat,
# tests/bench-floor: `scripts/build.sh build && make -C build bench`).  A benchmark, not a
# test: run it by hand on a quiet machine; make check never runs it.  It takes two or three
# minutes with the defaults; temporary files go to a directory under $TMPDIR (/tmp), removed
# at the end.
#
# usage: tests/bench-record.sh [BUILDDIR]        BUILDDIR: else $builddir, else ./build
# environment: RUNS=5 (runs per configuration), LOOPS=100000 (perf bench sched pipe -l),
#              BENCH_CPU=1 (the CPU the benchmark is pinned to; 0 on a 1-CPU machine),
#              PERF=perf (the perf binary)
# example: sudo RUNS=9 tests/bench-record.sh build
# Commands, and results like "median min max", are split into words on purpose:
# shellcheck disable=SC2046,SC2086
set -u

die() {
	echo "bench-record: $*" >&2
	exit 1
}

case ${1:-} in
-h | --help)
	sed -n '2,/^# example/p' "$0" | sed 's/^# \{0,1\}//'
	exit 0
	;;
esac

builddir=${1:-${builddir:-./build}}
RUNS=${RUNS:-5}
LOOPS=${LOOPS:-100000}
PERF=${PERF:-perf}

case $RUNS in '' | *[!0-9]* | 0) die "RUNS must be a positive integer, not '$RUNS'" ;; esac
case $LOOPS in '' | *[!0-9]* | 0) die "LOOPS must be a positive integer, not '$LOOPS'" ;; esac
[ "$(id -u)" = 0 ] ||
	die "run as root: both recorders trace the whole system (sudo $0 ${1:-})"
command -v "$PERF" >/dev/null 2>&1 ||
	die "perf not found (Debian: apt-get install linux-perf; or set PERF=/path/to/perf)"
command -v taskset >/dev/null 2>&1 || die "taskset not found (Debian: apt-get install util-linux)"
[ -d "$builddir" ] || die "no build directory '$builddir': scripts/build.sh build, or give it as \$1"
builddir=$(cd "$builddir" && pwd) || die "cannot enter '$builddir'"
wcrec=$builddir/wcrec
wctstat=$builddir/tests/wct-stat
floor=$builddir/tests/bench-floor
[ -x "$wcrec" ] || die "$wcrec is not built: scripts/build.sh $builddir (or make -C $builddir)"
[ -x "$wctstat" ] || die "$wctstat is not built: make -C $builddir tests/wct-stat"
[ -x "$floor" ] || die "$floor is not built: make -C $builddir tests/bench-floor"

ncpu=$(nproc)
if [ -z "${BENCH_CPU:-}" ]; then
	BENCH_CPU=1
	[ "$ncpu" -ge 2 ] || BENCH_CPU=0
fi
taskset -c "$BENCH_CPU" true 2>/dev/null || die "cannot pin to CPU $BENCH_CPU (BENCH_CPU)"
"$PERF" bench sched pipe -l 10 >/dev/null 2>&1 || die "'$PERF bench sched pipe' does not run"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-record.XXXXXX") || die "cannot make a temporary directory"
trap 'rm -rf "$tmp"' EXIT
case $tmp$builddir$PERF in *[[:space:]]*) die "no spaces, please, in \$TMPDIR, the build directory or \$PERF" ;; esac
trap 'exit 130' INT
trap 'exit 143' TERM

bench="taskset -c $BENCH_CPU $PERF bench sched pipe -l $LOOPS"
# perf: -B skips the pass over the data after the workload that collects build-ids (perf 6.1
# on newer kernels can die in it: "assertion failed at util/build-id.c", stack smashing, and
# no usable file); it comes after the workload, so it changes no usecs/op, only leaves the
# build-id table (a few hundred bytes) out of the file.  -N: no build-ids into ~/.debug.
perf_rec="$PERF record -B -N -a -o $tmp/perf.data"
perf_g="-e sched:sched_switch -e sched:sched_waking -g"
perf_sw="-e sched:sched_switch/call-graph=fp/ -e sched:sched_waking/call-graph=no/"
perf_dw="-e sched:sched_switch/call-graph=dwarf/ -e sched:sched_waking/call-graph=no/"
wc_rec="$wcrec -a -o $tmp/wcrec.wct"
# perf's records only: no context-switch records (which perf record takes with --switch-events),
# no copy of the user stack (perf's -g takes none)
wc_same="$wc_rec --no-switch-records -g fp,0"

# The configurations, in the order they run in each round.
configs="bare perf wcrec floor-g perf-sw wcrec-sw floor-sw wcrec-rt wcrec-cs wcrec-fp0 wcrec-1k perf-dw wcrec-dw"
cmd_of() {
	case $1 in
	bare) echo "$bench" ;;
	perf) echo "$perf_rec $perf_g -- $bench" ;;
	wcrec) echo "$wc_same --no-samples --waker-stacks --no-runtime -- $bench" ;;
	perf-sw) echo "$perf_rec $perf_sw -- $bench" ;;
	wcrec-sw) echo "$wc_same --no-samples --no-runtime -- $bench" ;;
	wcrec-rt) echo "$wc_same --no-samples -- $bench" ;;
	wcrec-cs) echo "$wc_rec --no-samples -- $bench" ;;
	wcrec-fp0) echo "$wc_rec --no-samples -g fp,0 -- $bench" ;;
	wcrec-1k) echo "$wc_rec --no-samples -g fp,1024 -- $bench" ;;
	perf-dw) echo "$perf_rec $perf_dw -- $bench" ;;
	wcrec-dw) echo "$wc_rec --no-switch-records --no-samples --no-runtime -g dwarf -- $bench" ;;
	floor-g) echo "$floor --switch-stacks --waking-stacks -- $bench" ;;
	floor-sw) echo "$floor --switch-stacks -- $bench" ;;
	esac
}

# run LOG CMD...: run CMD with its output in LOG; stop the whole script when it fails.
run() {
	log=$1
	shift
	if ! "$@" >"$log" 2>&1; then
		echo "bench-record: failed: $*" >&2
		tail -n 20 "$log" >&2
		exit 1
	fi
}

# usecs LOG: perf bench's usecs/op
usecs() {
	awk '/usecs\/op/ { print $1; found = 1; exit } END { if (!found) exit 1 }' "$1" ||
		die "no usecs/op in the output of the benchmark: $(tail -n 5 "$1")"
}

# perf_facts DATA: "events lost" of a perf.data file: SAMPLE events of the sched:* events,
# and the samples lost (LOST_SAMPLES per event: the counts of LOST and LOST_SAMPLES records).
perf_facts() {
	"$PERF" report -i "$1" --stats >"$tmp/stats" 2>&1 || die "perf report --stats failed on $1"
	awk '/^[^ ].* stats:$/ { sec = $1 }
	     $1 == "SAMPLE" && sec ~ /^sched:/ { ev += $3 }
	     $1 == "LOST_SAMPLES" && sec != "Aggregated" { lost += $3 }
	     END { print ev + 0, lost + 0 }' "$tmp/stats"
}

# wcrec_facts FILE: "events lost" of a trace: tracepoint records of the sched:* events, lost.
wcrec_facts() {
	"$wctstat" "$1" >"$tmp/stats" 2>&1 || die "wct-stat: $1 does not read back cleanly: $(head -n 2 "$tmp/stats")"
	awk '/^events\.sched:/ { ev += $2 } $1 == "lost" { lost = $2 }
	     END { print ev + 0, lost + 0 }' "$tmp/stats"
}

# summary FILE: "median min max" of the numbers in FILE, one a line
summary() {
	sort -g "$1" | awk '{ v[NR] = $1 }
	END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
	      printf "%.3f %.3f %.3f\n", m, v[1], v[NR] }'
}

# calc EXPR: awk arithmetic, printed with 3 decimals ("n/a" when it divides by zero)
calc() {
	awk "BEGIN { printf \"%.3f\\n\", $1 }" 2>/dev/null || echo n/a
}
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "n/a"; else printf "%.3f\n", a / b }'
}
goal() { # goal RATIO: "met" when RATIO <= 0.5
	awk -v r="$1" 'BEGIN { if (r == "n/a") print "n/a"; else if (r + 0 <= 0.5) print "met"; else print "NOT met" }'
}
size_of() {
	wc -c <"$1" | tr -d ' '
}

src=$(sed -n 's/^abs_top_srcdir = //p' "$builddir/Makefile" 2>/dev/null)
version=$(sed -n 's/^PACKAGE_VERSION = //p' "$builddir/Makefile" 2>/dev/null)
commit=$(git -C "${src:-.}" describe --always --dirty 2>/dev/null || echo unknown)
echo "# bench-record: recording overhead, file size and loss, wcrec against perf record"
echo "machine:  $(uname -srm), $ncpu CPUs ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1))$(
	v=$(systemd-detect-virt 2>/dev/null) && [ "$v" != none ] && echo ", virtualized: $v")"
zstd=$(pkg-config --modversion libzstd 2>/dev/null || echo '?')
echo "versions: $("$PERF" --version), wcrec ${version:-?} (source $commit, $builddir), libzstd $zstd"
echo "workload: $bench; $RUNS runs per configuration, interleaved"
echo "load:     $(cut -d' ' -f1-3 /proc/loadavg) at the start (1, 5, 15 min)"
echo
echo "configurations (all system-wide, -a):"
echo "  bare      nothing recorded"
echo "  perf      sched_switch + sched_waking, callchains (fp, kernel+user) on both:"
echo "            perf record -g (perf's defaults otherwise; -B: see below)"
echo "  wcrec     sched_switch + sched_waking + sched_wakeup_new, callchains on all three:"
echo "            wcrec --no-samples --waker-stacks --no-runtime     (same records as perf;"
echo "            this and the next two with --no-switch-records: no context-switch records,"
echo "            which perf does not take here)"
echo "  perf-sw   sched_switch + sched_waking, callchains on sched_switch only:"
echo "            perf record -e sched:sched_switch/call-graph=fp/ -e sched:sched_waking/call-graph=no/"
echo "  wcrec-sw  sched_switch + sched_waking + sched_wakeup_new, callchains on sched_switch"
echo "            only: wcrec --no-samples --no-runtime (wcrec's default callchains; same"
echo "            records as perf-sw)"
echo "  wcrec-rt  wcrec-sw plus sched_stat_runtime, no callchain: wcrec --no-samples"
echo "            --no-switch-records (wcrec's default scheduler events without the records)"
echo "  wcrec-cs  wcrec-sw plus context-switch records (attr.context_switch) and a 512-byte copy"
echo "            of the user stack that mends the top of each callchain by CFI: wcrec --no-samples"
echo "            (wcrec's defaults, Linux 4.3+)"
echo "  wcrec-fp0 wcrec-cs without the copy: -g fp,0 (wcrec's -g fp before the mending)"
echo "  wcrec-1k  wcrec-cs with a 1024-byte copy: -g fp,1024"
echo "  perf-dw   perf-sw with DWARF user stacks (8192-byte copies) on sched_switch:"
echo "            perf record -e sched:sched_switch/call-graph=dwarf/ -e sched:sched_waking/call-graph=no/"
echo "  wcrec-dw  wcrec-sw with DWARF user stacks, unwound while recording: -g dwarf (8192 bytes)"
echo "  floor-g   the null recorder (tests/bench-floor: wcrec's events and attrs, the rings"
echo "            handed back unread), callchains on all three events: the kernel's cost of"
echo "            wcrec's and perf's records"
echo "  floor-sw  the null recorder, callchains on sched_switch only: the kernel's cost of"
echo "            wcrec-sw's records"
echo "  (sched_wakeup_new: wcrec always records it; it fires on fork only, a few per run.)"
echo "  (perf runs with -B -N: no build-id pass after the workload, which perf 6.1 can crash in"
echo "  on newer kernels; it comes after the workload, so no usecs/op changes.)"
echo

# Overhead: RUNS rounds of every configuration, after one warm-up of the benchmark.
run "$tmp/warm.log" $bench
for c in $configs; do
	: >"$tmp/$c.us"
	: >"$tmp/$c.facts"
done
i=1
while [ "$i" -le "$RUNS" ]; do
	printf 'run %d/%d:' "$i" "$RUNS" >&2
	for c in $configs; do
		rm -f "$tmp/perf.data" "$tmp/wcrec.wct"
		run "$tmp/$c.log" $(cmd_of "$c")
		us=$(usecs "$tmp/$c.log") || exit 1
		echo "$us" >>"$tmp/$c.us"
		case $c in
		perf*) perf_facts "$tmp/perf.data" >>"$tmp/$c.facts" ;;
		wcrec*)
			wcrec_facts "$tmp/wcrec.wct" >>"$tmp/$c.facts"
			cp "$tmp/wcrec.wct" "$tmp/last-$c.wct" # the last run's file, for the sizes
			;;
		esac
		printf ' %s %s' "$c" "$us" >&2
	done
	echo >&2
	i=$((i + 1))
done
rm -f "$tmp/perf.data" "$tmp/wcrec.wct"

echo "overhead: usecs/op of perf bench sched pipe (median, min-max of $RUNS)"
printf '  %-9s %9s %9s %9s %10s %12s %8s\n' config median min max "added" "events/run" "lost"
for c in $configs; do
	set -- $(summary "$tmp/$c.us")
	case $c in
	bare) med_bare=$1 ;;
	perf) med_perf=$1 ;;
	wcrec) med_wcrec=$1 ;;
	perf-sw) med_perf_sw=$1 ;;
	wcrec-sw) med_wcrec_sw=$1 ;;
	wcrec-rt) med_wcrec_rt=$1 ;;
	wcrec-cs) med_wcrec_cs=$1 ;;
	wcrec-fp0) med_wcrec_fp0=$1 ;;
	wcrec-1k) med_wcrec_1k=$1 ;;
	perf-dw) med_perf_dw=$1 ;;
	wcrec-dw) med_wcrec_dw=$1 ;;
	floor-g) med_floor_g=$1 ;;
	floor-sw) med_floor_sw=$1 ;;
	esac
	added=-
	[ "$c" = bare ] || added=$(calc "$1 - $med_bare")
	ev=- lost=-
	if [ -s "$tmp/$c.facts" ]; then
		ev=$(awk '{ s += $1 } END { printf "%.0f\n", s / NR }' "$tmp/$c.facts")
		lost=$(awk '{ s += $2 } END { print s }' "$tmp/$c.facts")
	fi
	printf '  %-9s %9s %9s %9s %10s %12s %8s\n' "$c" "$1" "$2" "$3" "$added" "$ev" "$lost"
done
a_perf=$(calc "$med_perf - $med_bare")
a_wcrec=$(calc "$med_wcrec - $med_bare")
a_perf_sw=$(calc "$med_perf_sw - $med_bare")
a_wcrec_sw=$(calc "$med_wcrec_sw - $med_bare")
a_wcrec_rt=$(calc "$med_wcrec_rt - $med_bare")
a_wcrec_cs=$(calc "$med_wcrec_cs - $med_bare")
a_wcrec_fp0=$(calc "$med_wcrec_fp0 - $med_bare")
a_wcrec_1k=$(calc "$med_wcrec_1k - $med_bare")
r_mend=$(ratio "$a_wcrec_cs" "$a_wcrec_fp0")
r_mend_1k=$(ratio "$a_wcrec_1k" "$a_wcrec_fp0")
a_perf_dw=$(calc "$med_perf_dw - $med_bare")
a_wcrec_dw=$(calc "$med_wcrec_dw - $med_bare")
r_dw=$(ratio "$a_wcrec_dw" "$a_perf_dw")
a_floor_g=$(calc "$med_floor_g - $med_bare")
a_floor_sw=$(calc "$med_floor_sw - $med_bare")
r_same=$(ratio "$a_wcrec" "$a_perf")
r_same_sw=$(ratio "$a_wcrec_sw" "$a_perf_sw")
r_defaults=$(ratio "$a_wcrec_sw" "$a_perf")
r_rt=$(ratio "$a_wcrec_rt" "$a_perf")
r_cs=$(ratio "$a_wcrec_cs" "$a_perf")
r_floor=$(ratio "$a_floor_sw" "$a_perf")
r_above=$(ratio "$a_wcrec_sw" "$a_floor_sw")
d_above=$(calc "$a_wcrec_sw - $a_floor_sw")
r_perf_floor=$(ratio "$a_floor_g" "$a_perf")
echo "  (events/run: scheduler events in the file, mean per run; lost: summed over the runs;"
echo "  the null recorder counts neither, so as to touch no record: see \"loss\" below)"
# A quiet machine gives runs within a few percent of each other; say so when it was not.
noisy=
for c in $configs; do
	set -- $(summary "$tmp/$c.us")
	if awk -v lo="$2" -v hi="$3" 'BEGIN { exit !(hi > 1.2 * lo) }'; then
		noisy="$noisy $c"
	fi
done
if [ -n "$noisy" ]; then
	echo "  WARNING: the slowest run is over 1.2 times the fastest in:$noisy; the machine was"
	echo "  not quiet (load now: $(cut -d' ' -f1-3 /proc/loadavg)): the figures below are not reliable"
fi
echo "  added cost, wcrec / perf, same records, callchains on both:      $a_wcrec / $a_perf = $r_same  (goal <= 0.5: $(goal "$r_same"))"
echo "  added cost, wcrec / perf, same records, callchains on switches:  $a_wcrec_sw / $a_perf_sw = $r_same_sw  (goal <= 0.5: $(goal "$r_same_sw"))"
echo "  added cost, wcrec-sw / perf (each tool's default callchains):    $a_wcrec_sw / $a_perf = $r_defaults  (goal <= 0.5: $(goal "$r_defaults"))"
echo "  added cost, wcrec-cs / perf (wcrec's default scheduler events):  $a_wcrec_cs / $a_perf = $r_cs"
echo "  added cost, wcrec-rt / perf (the same without context-switch records): $a_wcrec_rt / $a_perf = $r_rt"
echo "  added cost, wcrec-cs / wcrec-fp0 (the mended -g fp default / without the copy): $a_wcrec_cs / $a_wcrec_fp0 = $r_mend  (goal <= 1.15: $(awk -v r="$r_mend" 'BEGIN { print (r <= 1.15) ? "met" : "NOT met" }'))"
echo "  added cost, wcrec-1k / wcrec-fp0 (a 1024-byte copy):                  $a_wcrec_1k / $a_wcrec_fp0 = $r_mend_1k"
echo "  added cost, wcrec-dw / perf-dw (DWARF user stacks on switches):       $a_wcrec_dw / $a_perf_dw = $r_dw  (goal <= 1: $(awk -v r="$r_dw" 'BEGIN { print (r <= 1) ? "met" : "NOT met" }'))"
echo "  added cost, floor-sw / perf (no recorder of wcrec-sw's events can do better): $a_floor_sw / $a_perf = $r_floor"
echo "  added cost, wcrec-sw / floor-sw (wcrec's own share above the floor):           $a_wcrec_sw / $a_floor_sw = $r_above  ($d_above usecs/op above it)"
echo "  added cost, floor-g / perf (the kernel's share of perf's cost):                 $a_floor_g / $a_perf = $r_perf_floor"
echo

# Size: perf record -z on the same workload as perf and perf-sw; wcrec's files are the last
# overhead runs'.  The fixed part of a file: what each writes recording `true` (wcrec: host,
# formats, tasks and maps; since format 1.2 the kernel functions come with the callchains
# that need them, so they count per event; perf: header, synthesized tasks and mmaps).
echo "size: bytes per scheduler event (perf -z: zstd level 1, perf's default; wcrec: level 3)"
rm -f "$tmp/perf.data"
run "$tmp/z.log" $perf_rec -z $perf_g -- $bench
mv "$tmp/perf.data" "$tmp/perf-z.data"
run "$tmp/zsw.log" $perf_rec -z $perf_sw -- $bench
mv "$tmp/perf.data" "$tmp/perf-sw-z.data"
run "$tmp/zdw.log" $perf_rec -z $perf_dw -- $bench
mv "$tmp/perf.data" "$tmp/perf-dw-z.data"
run "$tmp/z0.log" $perf_rec -z $perf_g -- true
mv "$tmp/perf.data" "$tmp/perf-0.data"
run "$tmp/w0.log" $wc_rec --no-samples --waker-stacks --no-runtime -- true
mv "$tmp/wcrec.wct" "$tmp/wcrec-0.wct"
set -- $(perf_facts "$tmp/perf-0.data")
p0_size=$(size_of "$tmp/perf-0.data") p0_ev=$1
set -- $(wcrec_facts "$tmp/wcrec-0.wct")
w0_size=$(size_of "$tmp/wcrec-0.wct") w0_ev=$1
printf '  %-17s %10s %9s %11s %17s %6s\n' file bytes events bytes/event "net bytes/event" lost
# line NAME FILE EVENTS LOST FIXED_SIZE FIXED_EVENTS: print a row, set $per and $net
line() {
	size=$(size_of "$2")
	per=$(ratio "$size" "$3")
	net=$(ratio "$((size - $5))" "$(($3 - $6))")
	printf '  %-17s %10s %9s %11s %17s %6s\n' "$1" "$size" "$3" "$per" "$net" "$4"
}
set -- $(perf_facts "$tmp/perf-z.data")
line "perf -z" "$tmp/perf-z.data" "$1" "$2" "$p0_size" "$p0_ev"
p_per=$per p_net=$net
set -- $(wcrec_facts "$tmp/last-wcrec.wct")
line "wcrec" "$tmp/last-wcrec.wct" "$1" "$2" "$w0_size" "$w0_ev"
w_per=$per w_net=$net
set -- $(perf_facts "$tmp/perf-sw-z.data")
line "perf-sw -z" "$tmp/perf-sw-z.data" "$1" "$2" "$p0_size" "$p0_ev"
psw_per=$per psw_net=$net
set -- $(wcrec_facts "$tmp/last-wcrec-sw.wct")
line "wcrec-sw" "$tmp/last-wcrec-sw.wct" "$1" "$2" "$w0_size" "$w0_ev"
wsw_per=$per wsw_net=$net
set -- $(perf_facts "$tmp/perf-dw-z.data")
line "perf-dw -z" "$tmp/perf-dw-z.data" "$1" "$2" "$p0_size" "$p0_ev"
pdw_per=$per
set -- $(wcrec_facts "$tmp/last-wcrec-dw.wct")
line "wcrec-dw" "$tmp/last-wcrec-dw.wct" "$1" "$2" "$w0_size" "$w0_ev"
wdw_per=$per
echo "  fixed part (a recording of true): perf -z $p0_size bytes, wcrec $w0_size bytes (its kernel"
echo "  functions, KSYM records, come with the callchains that need them)"
echo "  (net bytes/event: (bytes - fixed part) / (events - events of the recording of true))"
rs=$(ratio "$w_per" "$p_per")
rn=$(ratio "$w_net" "$p_net")
rs_sw=$(ratio "$wsw_per" "$psw_per")
rn_sw=$(ratio "$wsw_net" "$psw_net")
echo "  bytes/event, wcrec / perf -z, callchains on both:      whole files $rs (goal <= 0.5: $(goal "$rs")), net $rn (goal: $(goal "$rn"))"
echo "  bytes/event, wcrec / perf -z, callchains on switches:  whole files $rs_sw (goal <= 0.5: $(goal "$rs_sw")), net $rn_sw (goal: $(goal "$rn_sw"))"
rs_dw=$(ratio "$wdw_per" "$pdw_per")
rs_dw_fp=$(ratio "$wdw_per" "$wsw_per")
echo "  bytes/event, wcrec-dw / perf-dw -z (DWARF user stacks on switches): whole files $rs_dw"
echo "  bytes/event, wcrec-dw / wcrec-sw (-g dwarf / -g fp,0, same records): $rs_dw_fp  (goal <= 2: $(awk -v r="$rs_dw_fp" 'BEGIN { print (r <= 2) ? "met" : "NOT met" }'))"
rm -f "$tmp"/*.data "$tmp"/*.wct
echo

# Loss: wcrec with nothing but -a and -o: CPU samples too, callchains on switches, -m 2048.
echo "loss: wcrec with its default settings (wcrec -a -o FILE -- $bench)"
run "$tmp/d.log" $wc_rec -- $bench
set -- $(wcrec_facts "$tmp/wcrec.wct")
d_lost=$2
echo "  $(usecs "$tmp/d.log") usecs/op; $(grep '^wcrec: .* lost' "$tmp/d.log" | sed 's/^wcrec: [^:]*: //')"
echo "  file: $1 scheduler events, $(awk '$1 == "records.sample" { print $2 }' "$tmp/stats") CPU samples, lost $d_lost"
p_lost=$(awk '{ s += $2 } END { print s }' "$tmp/perf.facts")
psw_lost=$(awk '{ s += $2 } END { print s }' "$tmp/perf-sw.facts")
echo

# The null recorder's timed runs touch no record; this run counts them (--count walks the
# record headers), to show that the floor runs lost nothing either.
echo "loss: the null recorder as floor-g, counting records ($floor --count ...)"
run "$tmp/f.log" $floor --switch-stacks --waking-stacks --count -- $bench
f_line=$(sed -n 's/^bench-floor: //p' "$tmp/f.log")
f_lost=$(echo "$f_line" | sed -n 's/.* \([0-9]*\) lost$/\1/p')
echo "  $(usecs "$tmp/f.log") usecs/op; $f_line"
echo

echo "figures:"
echo "  overhead, added usecs/op: perf $a_perf, wcrec $a_wcrec (same records); perf-sw $a_perf_sw, wcrec-sw $a_wcrec_sw"
echo "  overhead ratio wcrec/perf: $r_same (callchains on both), $r_same_sw (on switches), $r_defaults (wcrec-sw/perf)   goal <= 0.5"
echo "  with context-switch records (wcrec's default): added $a_wcrec_cs usecs/op, $r_cs of perf's"
echo "  with sched_stat_runtime instead (the default without them): added $a_wcrec_rt usecs/op, $r_rt of perf's"
echo "  floor (null recorder), added usecs/op: floor-sw $a_floor_sw, floor-g $a_floor_g"
echo "  floor ratios: floor-sw/perf $r_floor (best reachable for wcrec-sw/perf), wcrec-sw/floor-sw $r_above, floor-g/perf $r_perf_floor"
echo "  size ratio wcrec/perf -z:  $rs whole files, $rn net of the fixed part (callchains on both);"
echo "                             $rs_sw whole files, $rn_sw net (on switches)   goal <= 0.5"
echo "  lost: wcrec with defaults $d_lost; perf $p_lost over $RUNS runs, perf-sw $psw_lost; null recorder (floor-g) ${f_lost:-?}"
[ -z "$noisy" ] || echo "  (noisy runs:$noisy; load at the end: $(cut -d' ' -f1-3 /proc/loadavg))"
