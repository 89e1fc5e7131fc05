#!/bin/sh
# bench-pertask.sh - what recording one target costs the other tasks of the host and the target
# itself: wcrec -p and wcrec -- COMMAND (per-task events with inherit, issue 19) against the
# per-CPU way (WCREC_FORCE_PER_CPU=1: every CPU's events, whoever they are about), perf record
# -p, and a null recorder with tracepoint filters.  The figure is perf bench's usecs/op of
# `perf bench sched pipe` pinned to BENCH_CPU (two processes passing a token through pipes, an
# op a round trip): median of RUNS runs, min and max beside it, the configurations interleaved
# run by run so that drift of the machine hits them all alike.  Added cost: usecs/op - bare's.
#
# It measures and prints:
#   1 non-target  the benchmark (NT below), not recorded, while tests/wall-workload (five threads of known
#                 wall-clock profile, pinned to another CPU so as not to take the benchmark's)
#                 is the target of wcrec -p PID, wcrec -- COMMAND, both with
#                 WCREC_FORCE_PER_CPU=1, perf record -p PID, tests/bench-floor --only-tid (a
#                 null recorder: wcrec's scheduler events on every CPU, kernel filters keeping
#                 the target's threads, the rings handed back unread), or nothing (bare): what
#                 a switch of a task outside the target pays.
#                 Goal 1: wcrec's added cost for the non-target <= 0.5 usecs per round trip.
#   2 target      the benchmark as the target of wcrec -- COMMAND, wcrec -p, both with
#                 WCREC_FORCE_PER_CPU=1, perf record -p, perf record -- COMMAND, or nothing.
#                 Under -p it waits on a FIFO until the recorder is on, so that its child is
#                 forked under the recording.
#                 Goal 2: wcrec's added cost <= the per-CPU way's, and <= perf record -p's.
#   3 loss        events lost by each recording (tests/wct-stat's "lost"; perf report
#                 --stats' LOST_SAMPLES); the null recorder counts none.  Goal 3: 0 by wcrec.
# events/run: sched:* events in a file, mean per run: per-task events leave the non-target's
# out.  wcrec runs with its defaults; perf record takes the same events (not the 512-byte copy
# of the user stack wcrec takes with each callchain: tests/bench-record.sh measures that), with
# -B -N (no build-id pass at the end, which perf 6.1 can crash in on newer kernels) and, under
# -p, -D -1 --control: on once it acks "enable", before the benchmark starts.
#
# Needs root, perf (Debian: linux-perf), taskset, pgrep, and a built tree (wcrec,
# tests/wct-stat, tests/wall-workload, tests/bench-floor, tests/pipe-rt: make -C build bench).
# A benchmark, not a test: run it by hand on a quiet machine; make check never runs it.  About
# two minutes with the defaults; temporary files go to a directory under $TMPDIR (/tmp).
#
# usage: tests/bench-pertask.sh [BUILDDIR]       BUILDDIR: else $builddir, else ./build
# environment: RUNS=5 (runs per configuration), LOOPS=100000 (perf bench sched pipe -l),
#              BENCH_CPU=1 (the benchmark's CPU; 0 on a 1-CPU machine), PERF=perf,
#              WL_SECONDS (the target's run: 10 times the bare benchmark's, plus 3 s),
#              NT=pre (part 1's non-target: tests/pipe-rt, its processes made before the
#              recording, as a server's that was running) or NT=new (perf bench sched pipe,
#              started under it: a task made during the recording, which the per-task
#              wakeup filter takes until its next refresh, a second on)
# example: sudo RUNS=9 tests/bench-pertask.sh build
# Commands, and results like "median min max", are split into words on purpose:
# shellcheck disable=SC2046,SC2086
set -u

die() {
	echo "bench-pertask: $*" >&2
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
unset WCREC_FORCE_PER_CPU # set per configuration only

case $RUNS in '' | *[!0-9]* | 0) die "RUNS must be a positive integer, not '$RUNS'" ;; esac
case $LOOPS in '' | *[!0-9]* | 0) die "LOOPS must be a positive integer, not '$LOOPS'" ;; esac
[ "$(id -u)" = 0 ] || die "run as root: the recorders open scheduler tracepoints (sudo $0 ${1:-})"
command -v "$PERF" >/dev/null 2>&1 ||
	die "perf not found (Debian: apt-get install linux-perf; or set PERF=/path/to/perf)"
for p in taskset pgrep; do command -v $p >/dev/null 2>&1 || die "$p not found (util-linux, procps)"; done
[ -d "$builddir" ] || die "no build directory '$builddir': give it as \$1"
builddir=$(cd "$builddir" && pwd) || die "cannot enter '$builddir'"
wcrec=$builddir/wcrec
wctstat=$builddir/tests/wct-stat
floor=$builddir/tests/bench-floor
case ${NT:=pre} in pre | new) ;; *) die "NT must be pre or new, not '$NT'" ;; esac
for p in wcrec tests/wct-stat tests/wall-workload tests/bench-floor tests/pipe-rt; do
	[ -x "$builddir/$p" ] || die "$builddir/$p is not built: make -C $builddir bench"
done

ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || BENCH_CPU=${BENCH_CPU:-0}
BENCH_CPU=${BENCH_CPU:-1}
taskset -c "$BENCH_CPU" true 2>/dev/null || die "cannot pin to CPU $BENCH_CPU (BENCH_CPU)"
# the target's CPU: the first other online CPU (the same one on a 1-CPU machine)
wl_cpu=$(awk -v b="$BENCH_CPU" '/^processor/ { if ($3 != b) { print $3; f = 1; exit } }
	END { if (!f) print b }' /proc/cpuinfo)
"$PERF" bench sched pipe -l 10 >/dev/null 2>&1 || die "'$PERF bench sched pipe' does not run"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-pertask.XXXXXX") || die "cannot make a temporary directory"
case $tmp$builddir$PERF in *[[:space:]]*) die "no spaces, please, in \$TMPDIR, the build directory or \$PERF" ;; esac
# The processes started in the background, stopped by their own PIDs: rec (a recorder, SIGINT),
# wl (the target, SIGTERM).  The target runs through a link in $tmp, so that every process of
# ours has $tmp/ in its command line for the check at the end.
rec='' wl='' nt=''
cleanup() {
	[ -z "$rec" ] || kill -INT "$rec" 2>/dev/null
	[ -z "$wl" ] || kill -TERM "$wl" 2>/dev/null
	[ -z "$nt" ] || kill -TERM "$nt" 2>/dev/null
	wait $rec $wl $nt 2>/dev/null
	for p in $(pgrep -f -- "$tmp/"); do kill -TERM "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
ln -s "$builddir/tests/wall-workload" "$tmp/wall-workload"
mkfifo "$tmp/go" "$tmp/ctl" "$tmp/ack" "$tmp/nt-go" || die "cannot make FIFOs in $tmp"

bench="taskset -c $BENCH_CPU $PERF bench sched pipe -l $LOOPS"
nt_bench="taskset -c $BENCH_CPU $builddir/tests/pipe-rt $tmp/nt-go $LOOPS"
# wcrec's defaults: sched_switch with callchains (fp), sched_waking, sched_wakeup_new,
# context-switch records, samples at 99 Hz with callchains on cycles, else cpu-clock
samp=cycles
"$PERF" stat -x, -e cycles true 2>&1 | grep -q 'not supported' && samp=cpu-clock
perf_ev="-e sched:sched_switch/call-graph=fp/ -e sched:sched_waking/call-graph=no/"
perf_ev="$perf_ev -e sched:sched_wakeup_new/call-graph=no/ -e $samp/freq=99,call-graph=fp/ --switch-events"
perf_rec="$PERF record -B -N -o $tmp/perf.data $perf_ev"
wc_rec="$wcrec -q --per-task -o $tmp/out.wct"
nt_configs="bare wcrec-p wcrec-cmd percpu-p percpu-cmd perf-p floor-flt"
tg_configs="bare wcrec-cmd wcrec-p percpu-cmd percpu-p perf-p perf-cmd"
force_of() { # force_of CONFIG: env's arguments for it
	case $1 in percpu-*) echo WCREC_FORCE_PER_CPU=1 ;; esac
}

run() { # run LOG CMD...: run CMD with its output in LOG; stop the whole script when it fails
	log=$1
	shift
	"$@" >"$log" 2>&1 || die "failed: $*
$(tail -n 20 "$log")"
}
usecs() { # usecs LOG: perf bench's usecs/op
	awk '/usecs\/op/ { print $1; found = 1; exit } END { if (!found) exit 1 }' "$1" ||
		die "no usecs/op in the output of the benchmark: $(tail -n 5 "$1")"
}
# until_ok WHAT CMD...: poll CMD every 0.05 s, 30 s at most, while the recorder lives
until_ok() {
	what=$1
	shift
	for _ in $(seq 600); do
		"$@" && return 0
		[ -z "$rec" ] || kill -0 "$rec" 2>/dev/null || break
		sleep 0.05
	done
	die "$what: not within 30 s: $(tail -n 5 "$tmp/rec.log" 2>/dev/null)"
}
nt_forked() { # nt_forked: pipe-rt (taskset execs it, its pid $nt) has made its second process
	pgrep -P "$nt" >/dev/null
}
roles_named() { # roles_named PID: the target's five threads have their wl-* names
	[ "$(cat /proc/"$1"/task/*/comm 2>/dev/null | grep -c '^wl-')" -ge 5 ]
}
wl_child() { # wl_child: set wl to the recorder's child, the target, once it is wall-workload
	wl=$(pgrep -P "$rec" | head -n 1)
	[ -n "$wl" ] && [ "$(cat /proc/"$wl"/comm 2>/dev/null)" = wall-workload ]
}
file_begun() { # file_begun: wcrec -p wrote the metadata after its snapshot (threads-live.sh)
	[ "$(stat -c %s "$tmp/out.wct" 2>/dev/null || echo 0)" -ge 4096 ]
}
perf_on() { # perf_on: perf record started with -D -1 enables its events and acks
	exec 8<>"$tmp/ctl" 9<>"$tmp/ack"
	echo enable >&8
	a=$(timeout 30 head -n 1 <&9)
	exec 8>&- 9>&-
	[ "$a" = ack ] || die "perf record did not ack 'enable': $(tail -n 5 "$tmp/rec.log")"
}
# start_rec CONFIG PID: the -p recorder of CONFIG on PID, in the background, once on
start_rec() {
	case $1 in
	perf-p)
		$perf_rec -D -1 --control "fifo:$tmp/ctl,$tmp/ack" -p "$2" >"$tmp/rec.log" 2>&1 &
		rec=$!
		perf_on
		;;
	*)
		env $(force_of "$1") $wc_rec -p "$2" >"$tmp/rec.log" 2>&1 &
		rec=$!
		until_ok "wcrec -p began writing" file_begun
		;;
	esac
}
stop_rec() { # stop_rec: SIGINT to the recorder, and its exit (perf's 130 after it is fine)
	kill -INT "$rec" 2>/dev/null
	wait "$rec"
	rc=$? rec=
	case $rc in 0 | 130) ;; *) die "the recorder exited $rc: $(tail -n 5 "$tmp/rec.log")" ;; esac
}
# facts CONFIG: "events lost" of the run's file, appended to $tmp/PART-CONFIG.facts by callers
facts() {
	case $1 in
	perf*)
		"$PERF" report -i "$tmp/perf.data" --stats >"$tmp/stats" 2>&1 || die "perf report --stats failed"
		awk '/^[^ ].* stats:$/ { sec = $1 }
		     $1 == "SAMPLE" && sec ~ /^sched:/ { ev += $3 }
		     $1 == "LOST_SAMPLES" && sec != "Aggregated" { lost += $3 }
		     END { print ev + 0, lost + 0 }' "$tmp/stats"
		;;
	wcrec* | percpu*)
		"$wctstat" "$tmp/out.wct" >"$tmp/stats" 2>&1 || die "wct-stat: the file does not read back cleanly: $(head -n 2 "$tmp/stats")"
		awk '/^events\.sched:/ { ev += $2 } $1 == "lost" { lost = $2 } END { print ev + 0, lost + 0 }' "$tmp/stats"
		;;
	esac
}

# nt_run CONFIG: the pipe benchmark beside wall-workload recorded as CONFIG says; us: its
# usecs/op.  (Run in this shell, not in $(...), so that rec and wl stay known to cleanup.)
nt_run() {
	wl_cmd="taskset -c $wl_cpu $tmp/wall-workload $WL_SECONDS"
	if [ "$NT" != new ]; then # the non-target, made first, held on a FIFO
		$nt_bench >"$tmp/nt.log" 2>&1 &
		nt=$!
		until_ok "the non-target forked" nt_forked
	fi
	case $1 in
	*-cmd) # the target is the recorder's COMMAND, started once the events are on
		env $(force_of "$1") $wc_rec -- $wl_cmd >"$tmp/rec.log" 2>&1 &
		rec=$!
		until_ok "wcrec's COMMAND started" wl_child
		;;
	*)
		$wl_cmd >"$tmp/wl.log" 2>&1 &
		wl=$!
		;;
	esac
	until_ok "the target named its threads" roles_named "$wl"
	case $1 in
	*-p) start_rec "$1" "$wl" ;;
	floor-flt) tids=$(cd /proc/"$wl"/task && echo * | tr ' ' ,) ;;
	esac
	if [ "$NT" = new ]; then # made under the recording
		[ "$1" = floor-flt ] && run "$tmp/nt.log" $floor --switch-stacks --only-tid "$tids" -- $bench
		[ "$1" = floor-flt ] || run "$tmp/nt.log" $bench
	else # made before it: let go now, and waited for
		# shellcheck disable=SC2016
		let_go='echo go >"$0"; while kill -0 "$1" 2>/dev/null; do sleep 0.05; done'
		if [ "$1" = floor-flt ]; then
			run "$tmp/floor.log" $floor --switch-stacks --only-tid "$tids" -- \
				sh -c "$let_go" "$tmp/nt-go" "$nt"
		else
			sh -c "$let_go" "$tmp/nt-go" "$nt"
		fi
		wait "$nt" || die "the non-target benchmark failed: $(tail -n 5 "$tmp/nt.log")"
		nt=
	fi
	roles_named "$wl" || die "the target ended before the benchmark: raise WL_SECONDS"
	case $1 in
	*-cmd) stop_rec && wl= ;; # wcrec passes SIGINT on to its COMMAND, and reaps it
	*)
		[ -z "$rec" ] || stop_rec
		kill -TERM "$wl"
		wait "$wl" 2>/dev/null
		wl=
		;;
	esac
	us=$(usecs "$tmp/nt.log") || exit 1
}

# tg_run CONFIG: the pipe benchmark as CONFIG's target; us: its usecs/op
tg_run() {
	case $1 in
	bare) run "$tmp/tg.log" $bench ;;
	perf-cmd) run "$tmp/tg.log" $perf_rec -- $bench ;;
	*-cmd) run "$tmp/tg.log" env $(force_of "$1") $wc_rec -- $bench ;;
	*-p) # held on a FIFO until the recorder is on: its child is forked under the recording
		# shellcheck disable=SC2016
		sh -c 'read -r _ <"$0"; exec "$@"' "$tmp/go" $bench >"$tmp/tg.log" 2>&1 &
		wl=$!
		start_rec "$1" "$wl"
		echo go >"$tmp/go"
		wait "$wl"
		rc=$? wl=
		[ $rc = 0 ] || die "the benchmark failed: $(tail -n 5 "$tmp/tg.log")"
		stop_rec
		;;
	esac
	us=$(usecs "$tmp/tg.log") || exit 1
}

summary() { # summary FILE: "median min max" of the numbers in FILE, one a line
	sort -g "$1" | awk '{ v[NR] = $1 }
	END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
	      printf "%.3f %.3f %.3f\n", m, v[1], v[NR] }'
}
added() { # added PART CONFIG: median usecs/op - bare's
	awk -v a="$(summary "$tmp/$1-$2.us")" -v b="$(summary "$tmp/$1-bare.us")" \
		'BEGIN { split(a, x, " "); split(b, y, " "); printf "%.3f\n", x[1] - y[1] }'
}
lost() { # lost PART CONFIG: events lost, summed over the runs
	awk '{ s += $2 } END { print s + 0 }' "$tmp/$1-$2.facts"
}
verdict() { # verdict A B: PASS when A <= B
	awk -v a="$1" -v b="$2" 'BEGIN { print (a + 0 <= b + 0) ? "PASS" : "FAIL" }'
}

# rounds PART CONFIGS: RUNS rounds of PART's configurations, interleaved
rounds() {
	part=$1 configs=$2
	for c in $configs; do : >"$tmp/$part-$c.us" && : >"$tmp/$part-$c.facts"; done
	i=1
	while [ "$i" -le "$RUNS" ]; do
		printf '%s run %d/%d:' "$part" "$i" "$RUNS" >&2
		for c in $configs; do
			rm -f "$tmp/out.wct" "$tmp/perf.data"
			${part}_run "$c"
			echo "$us" >>"$tmp/$part-$c.us"
			facts "$c" >>"$tmp/$part-$c.facts"
			printf ' %s %s' "$c" "$us" >&2
		done
		echo >&2
		i=$((i + 1))
	done
}
# table PART CONFIGS: the figures; noisy gets the configurations whose slowest run is over 1.2
# times the fastest
table() {
	printf '  %-10s %9s %9s %9s %9s %11s %7s\n' config median min max added events/run lost
	for c in $2; do
		ev=- l=-
		if [ -s "$tmp/$1-$c.facts" ]; then
			ev=$(awk '{ s += $1 } END { printf "%.0f\n", s / NR }' "$tmp/$1-$c.facts")
			l=$(lost "$1" "$c")
		fi
		a=$(added "$1" "$c")
		set -- "$1" $(summary "$tmp/$1-$c.us")
		awk -v lo="$3" -v hi="$4" 'BEGIN { exit !(hi > 1.2 * lo) }' && noisy="$noisy $1:$c"
		printf '  %-10s %9s %9s %9s %9s %11s %7s\n' "$c" "$2" "$3" "$4" "$a" "$ev" "$l"
	done
}

src=$(sed -n 's/^abs_top_srcdir = //p' "$builddir/Makefile" 2>/dev/null)
commit=$(git -C "${src:-.}" describe --always --dirty 2>/dev/null || echo unknown)
echo "# bench-pertask: what recording one target costs the other tasks and the target"
echo "machine:  $(uname -srm), $ncpu CPUs ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1))"
echo "versions: $("$PERF" --version), wcrec source $commit ($builddir); samples on $samp"
echo "load:     $(cut -d' ' -f1-3 /proc/loadavg) at the start (1, 5, 15 min)"
run "$tmp/warm.log" $bench
warm=$(usecs "$tmp/warm.log") || exit 1
WL_SECONDS=${WL_SECONDS:-$(awk -v u="$warm" -v l="$LOOPS" 'BEGIN { printf "%d\n", 10 * u * l / 1e6 + 3 }')}
echo "workload: $bench, $RUNS runs per configuration, interleaved"
echo "target:   taskset -c $wl_cpu tests/wall-workload $WL_SECONDS (part 1; stopped after the benchmark)"
echo "configurations: bare (nothing recorded); wcrec-p, wcrec-cmd (wcrec -p PID, wcrec -- COMMAND,"
echo "  defaults); percpu-p, percpu-cmd (the same with WCREC_FORCE_PER_CPU=1); perf-p, perf-cmd"
echo "  (perf record -p PID, -- COMMAND: $perf_ev); floor-flt (bench-floor"
echo "  --switch-stacks --only-tid the target's threads: filtered null recorder, part 1 only)"
echo

noisy=
rounds nt "$nt_configs"
echo "1. non-target: usecs/op of the pipe benchmark while wall-workload is recorded (median, min-max of $RUNS)"
if [ "$NT" = new ]; then
	echo "   ($bench, started under the recording: NT=new)"
else
	echo "   (tests/pipe-rt: perf bench sched pipe's round trip, its two processes made before the recording: NT=pre)"
fi
table nt "$nt_configs"
for c in wcrec-p wcrec-cmd; do
	echo "  goal 1: $c's added cost <= 0.5 usecs/op: $(added nt $c)   $(verdict "$(added nt $c)" 0.5)"
done
echo "  (per-CPU way: $(added nt percpu-p), $(added nt percpu-cmd); perf record -p: $(added nt perf-p); filtered null recorder: $(added nt floor-flt))"
echo

rounds tg "$tg_configs"
echo "2. target: usecs/op of the pipe benchmark, recorded (median, min-max of $RUNS)"
table tg "$tg_configs"
for c in wcrec-cmd wcrec-p; do
	for o in percpu-${c#wcrec-} perf-p; do
		echo "  goal 2: $c's added cost <= $o's: $(added tg $c) <= $(added tg $o)   $(verdict "$(added tg $c)" "$(added tg $o)")"
	done
done
echo "  (perf record -- COMMAND: $(added tg perf-cmd))"
echo

w=0 p=0
for part in nt tg; do
	for c in wcrec-p wcrec-cmd percpu-p percpu-cmd; do w=$((w + $(lost $part $c))); done
	p=$((p + $(lost $part perf-p)))
done
p=$((p + $(lost tg perf-cmd)))
echo "3. loss: events lost by the recordings of parts 1 and 2, summed over the runs"
echo "  goal 3: wcrec (wcrec-*, percpu-*) lost 0: $w   $(verdict "$w" 0)   (perf record lost $p)"
if [ -n "$noisy" ]; then
	echo "WARNING: the slowest run is over 1.2 times the fastest in:$noisy; the machine was not"
	echo "quiet (load now: $(cut -d' ' -f1-3 /proc/loadavg)): the figures are not reliable"
fi
left=$(pgrep -f -- "$tmp/" | tr '\n' ' ')
[ -z "$left" ] || die "processes of this run left behind, stopped now: $left"
