# testlib.sh - shared by the live test scripts (sourced): a temp dir, skip with the reason
# (automake's 77, or a failure when WC_REQUIRE_RECORDING=1), and one line per check.
# A script that fails leaves its temp dir (recordings, perf.data, outputs) for inspection
# under the build tree, in tests/kept/SCRIPT.PID, and says so on its last line; one that
# passes or skips removes it.  WC_KEEP_TMP=1 keeps it in every case.
tmp=$(mktemp -d)
fails=0
keep_on_failure() {
	rc=$?
	[ -n "${bt_pid:-}" ] && kill -KILL "$bt_pid" 2>/dev/null # a bpftrace not stopped
	if [ "${WC_KEEP_TMP:-0}" = 1 ]; then
		echo "temp dir kept: $tmp"
		exit $rc
	elif [ $rc -ne 0 ] && [ $rc -ne 77 ] && [ -d "${builddir:-.}/tests" ]; then
		kept="${builddir:-.}/tests/kept/$(basename "$0" .sh).$$"
		mkdir -p "${kept%/*}" && mv "$tmp" "$kept" && echo "failed: its files are kept in $kept"
	fi
	rm -rf "$tmp"
	exit $rc
}
trap keep_on_failure EXIT

# Recorders skew one another's time stamps: the kernel calls the perf events of a tracepoint
# newest first and stamps each as its own output begins, so a recorder opened after ours that
# takes callchains delays our stamps, more for a task with a deep user stack than for idle: a
# run of wl-writer came out 5 us long on average (0.55% of its on-CPU) while another test's
# wcrec ran.  The checks against perf need nothing for it: they run on perf's own stamps
# (perf_stamps, below).  The checks against the threads' own clocks and against bpftrace,
# whose stamps come before every perf event's, cannot: the recordings they check are made
# with no other recorder of the live tests running, of this suite or of another copy on the
# host.  One lock file does it: every recorder holds it shared while it runs ($WCREC is a
# wrapper that takes it and execs wcrec, so $! is still wcrec's pid; shared_run for perf), and
# such a recording takes it alone between alone_begin and alone_end (5 minutes at most: then
# it goes on, and says so).
LOCK=/tmp/wcrec-live-tests.lock
# sanitizer_build: whether this build's wcrec has ASan or UBSan in it (asked of the binary:
# $WCREC becomes a wrapper script below)
WCREC_BINARY=${WCREC:-${builddir:-.}/wcrec}
sanitizer_build() { ldd "$WCREC_BINARY" 2>/dev/null | grep -q 'libasan\|libubsan'; }
have_lock=0
if command -v flock >/dev/null 2>&1 && exec 9>>"$LOCK"; then
	have_lock=1
	if [ -n "${WCREC:-}" ]; then
		printf '%s\n' '#!/bin/sh' \
			'# the live tests'"'"' lock, shared, while wcrec (and its command) runs; not when' \
			'# its test holds it already (alone, or shared for a timed recording)' \
			"exec 9>>\"$LOCK\"" \
			'[ -n "${WC_TEST_LOCKED:-}" ] || flock -s 9' \
			"exec \"$WCREC\" \"\$@\"" >"$tmp/wcrec"
		chmod +x "$tmp/wcrec"
		WCREC="$tmp/wcrec"
	fi
fi
shared_run() { # shared_run CMD...: CMD, a recorder, holding the lock shared (not if alone)
	if [ $have_lock = 1 ] && [ -z "${WC_TEST_LOCKED:-}" ]; then
		flock -s 9
		"$@"
		set -- $?
		flock -u 9
		return "$1"
	fi
	"$@"
}
# hold_lock -s|-x / release_lock: the test itself holds the lock, shared (shared_begin, for a
# timed recording: the wrapper's wait for the lock would count in its time) or alone
# (alone_begin, 5 minutes at most: then it goes on, and says so)
hold_lock() {
	[ $have_lock = 1 ] || return 0
	flock -w 300 "$1" 9 || echo "note: went on without the lock after 300 s (other recorders may skew these figures)"
	WC_TEST_LOCKED=1
	export WC_TEST_LOCKED
}
release_lock() {
	unset WC_TEST_LOCKED
	[ $have_lock = 0 ] || flock -u 9
}
shared_begin() { hold_lock -s; }
shared_end() { release_lock; }
alone_begin() { hold_lock -x; }
alone_end() { release_lock; }

skip() {
	if [ "${WC_REQUIRE_RECORDING:-0}" = 1 ]; then
		echo "FAIL: cannot record here ($1) and WC_REQUIRE_RECORDING=1"
		exit 1
	fi
	echo "SKIP: $1"
	exit 77
}
[ "$(id -u)" = 0 ] || skip "recording needs root here (perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null))"
[ -e /proc/sys/kernel/perf_event_paranoid ] || skip "this kernel has no perf_event_open"

expect() { # expect DESCRIPTION TEST-EXPRESSION
	desc=$1
	shift
	if [ "$@" ]; then echo "ok   $desc"; else echo "FAIL $desc"; fails=$((fails + 1)); fi
}

within() { # within A B PERCENT: |A - B| <= PERCENT% of B
	awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= b * p / 100) }'
}
between() { # between V LO EXTRA PERCENT: LO - PERCENT% <= V <= LO + EXTRA + PERCENT%
	awk -v v="$1" -v lo="$2" -v x="$3" -v p="$4" 'BEGIN { exit !(v >= lo * (1 - p / 100) && v <= (lo + x) * (1 + p / 100)) }'
}
# near_clock V BASE DRIFT PERCENT: V within PERCENT% of BASE, of BASE + DRIFT, or between: a
# thread's CPU time taken onto CLOCK_MONOTONIC (bt_drift) is known no closer than that, as
# bpftrace reads the scheduler's clock as of its last update, which can be a wakeup earlier
# A fifth argument SLACK (ns) widens the range by that much on each side.
near_clock() {
	nc_slack=${5:-0}
	if [ "$3" -lt 0 ]; then
		between "$1" $(($2 + $3 - nc_slack)) $((-$3 + 2 * nc_slack)) "$4"
	else
		between "$1" $(($2 - nc_slack)) $(($3 + 2 * nc_slack)) "$4"
	fi
}

# bpftrace on the side, for the workload tests: tests/sched-sums.bt (or bt_start's argument,
# a script under tests/) into $tmp/bt.out.
# bt_start returns once its probes are attached and sets have_bpftrace (0 without bpftrace);
# bt_stop ends it (its maps are printed then); bt MAP TID gives a value, 0 when it has none;
# bt_drift TID, how far CLOCK_MONOTONIC ran ahead of the scheduler's clock during TID's runs.
have_bpftrace=0
bt_start() {
	have_bpftrace=0
	command -v bpftrace >/dev/null 2>&1 || return 0
	# not holding the lock's descriptor: a bpftrace its test left behind (killed) held the
	# lock alone for 14 minutes, every recorder of every copy of the suite waiting on it
	bpftrace "${S:-$(dirname "$0")/..}/tests/${1:-sched-sums.bt}" >"$tmp/bt.out" 2>"$tmp/bt.err" 9>&- &
	bt_pid=$!
	bt_n=$((${bt_n:-0} + 1))
	for _ in $(seq 300); do # until "Attaching 2 probes..."
		grep -q '^Attaching' "$tmp/bt.out" 2>/dev/null && break
		sleep 0.1
	done
	sleep 1
	have_bpftrace=1
}
bt_stop() {
	[ $have_bpftrace = 1 ] || return 0
	# bpftrace prints its maps on SIGINT; once here (bpftrace 0.17, a loaded machine) the
	# signal was lost and it waited on for ever: ask again every 2 s, kill it after 20 s
	for i in $(seq 200); do
		[ $((i % 20)) = 1 ] && kill -INT $bt_pid 2>/dev/null
		kill -0 $bt_pid 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL $bt_pid 2>/dev/null
	wait $bt_pid
	bt_pid=
	cp "$tmp/bt.out" "$tmp/bt.$bt_n.out" # each run's, for a look after a failure
	if ! grep -q '^@' "$tmp/bt.out"; then
		echo "SKIP bpftrace side-by-side: bpftrace did not stop with its figures ($(tail -1 "$tmp/bt.err"))"
		have_bpftrace=0
	fi
}
bt() {
	v=$(sed -n "s/^@$1\[$2\]: //p" "$tmp/bt.out")
	echo "${v:-0}"
}
bt_drift() {
	if [ $have_bpftrace = 1 ]; then echo $(($(bt on "$1") - $(bt on_task "$1"))); else echo 0; fi
}

# folded_sums FILE: per first frame (comm-tid with --per-thread), "KEY ON-CPU OFF-CPU" of
# folded lines; a line is off-CPU by its leaf, and frames can hold spaces (C++ signatures)
folded_sums() {
	awk '{ split($1, f, ";"); k = f[1]
		if (substr($0, 1, length($0) - length($NF)) ~ /\[off-cpu|\[runqueue\]/) off[k] += $NF
		else on[k] += $NF }
		END { for (k in on) print k, on[k] + 0, off[k] + 0
			for (k in off) if (!(k in on)) print k, 0, off[k] }' "$1"
}

# cut_run OUT SUBCOMMAND [ARGS...]: wcanalyze SUBCOMMAND ARGS on $tmp/wl.wct cut inside its
# last frame ($tmp/cut.wct; $size is the whole file's), stdout in OUT: exit 3, and a warning
# naming the byte offset
cut_run() {
	out=$1
	shift
	size=$(stat -c %s "$tmp/wl.wct")
	head -c $((size - 3000)) "$tmp/wl.wct" >"$tmp/cut.wct"
	"$WCA" "$@" "$tmp/cut.wct" >"$out" 2>"$tmp/err"
	rc=$?
	expect "a cut trace: $1 exits 3 (got $rc)" $rc -eq 3
	expect "a cut trace: a warning with the byte offset ($(cat "$tmp/err"))" \
		"$(grep -c 'cut at byte [0-9]' "$tmp/err")" -eq 1
}

# ps_unpaired_of TID: how many events of TID's (switches in or out, wakeups) perf_stamps found
# no record of in perf's file.  perf's event misses a firing that ours records, rarely, with
# no LOST nor THROTTLE record (2 of 15,915 seen on a loaded machine): the checks of a thread
# that has any allow for them, or skip, and say so.
ps_unpaired_of() {
	awk -v t="$1" '$1 == "unpaired_event" && ($5 == t || $6 == t) { n++ } END { print n + 0 }' \
		"$tmp/ps.out" 2>/dev/null || echo 0
}

# perf_stamps_checked PERF.DATA IN.wct OUT.wct: perf_stamps, with the checks and the note of
# the side-by-side tests: it worked, and ours are in perf's recording but under 1 in 1000 of
# them (ps_unpaired_of).  Returns 1 when OUT is not to be used.
perf_stamps_checked() {
	perf_stamps "$@"
	expect "our trace takes perf's time stamps ($ps_why)" $? -eq 0
	expect "our $ps_paired scheduler events are in perf's recording but $ps_unpaired (under 1 in 1000)" \
		"$ps_paired" -gt 1000 -a "$((ps_unpaired * 1000))" -lt "$ps_paired"
	[ "$ps_unpaired" -eq 0 ] || grep '^unpaired_event' "$tmp/ps.out" | head -5 | sed 's/^/    /'
	echo "note: perf's stamps were later than ours by ${ps_offsets:-?} ns (min, median, 99th percentile, max)"
	[ -s "$tmp/perf.ev" ] && [ "$ps_paired" -gt 1000 ] && [ "$((ps_unpaired * 1000))" -lt "$ps_paired" ]
}

# perf_stamps PERF.DATA IN.wct OUT.wct: OUT is IN with perf's time stamps on the scheduler
# events both recorded; perf's events are left in $tmp/perf.ev, one a line, in time order:
# "CPU TIME_NS NAME A B [PREV_STATE]" (see tests/wct-restamp.c, PREV_STATE as perf prints it
# from the recorded format, for sched_switch) (tests/wct-restamp.c says why two consumers of one tracepoint stamp
# it microseconds apart, and by how much more when a third sits between them).  Sets
# ps_paired, ps_unpaired (events of ours that perf has no record of) and ps_offsets ("MIN P50
# P99 MAX" ns, perf's stamp minus ours); returns 1, with ps_why, when it could not be made.
# perf's MMAP2 records may carry a build-id flag the kernel leaked from another session
# (tests/perf-unleak.py), on which perf 6.1 aborts: perf reads a copy without it.
# ps_flags=--drop-unpaired leaves our events perf has no record of out of OUT (wct-restamp.c).
perf_stamps() {
	ps_paired=0 ps_unpaired=0 ps_offsets= ps_why=
	/usr/bin/python3 "${S:-$(dirname "$0")/..}/tests/perf-unleak.py" "$1" "$1.clean" \
		>/dev/null 2>"$tmp/ps.err" || { ps_why="perf-unleak.py: $(tail -1 "$tmp/ps.err")"; return 1; }
	perf script -i "$1.clean" --ns -F cpu,time,event,trace 2>"$tmp/ps.err" | awk '
	function num(key) { # the integer after " KEY=" in this line
		if (!match($0, " " key "=-?[0-9]+")) return 0
		return substr($0, RSTART + length(key) + 2, RLENGTH - length(key) - 2)
	}
	{
		cpu = substr($1, 2, length($1) - 2) + 0; t = $2; sub(/:$/, "", t); split(t, s, ".")
		ev = $3; sub(/^sched:/, "", ev); sub(/:$/, "", ev)
		st = ""
		if (ev == "sched_switch") { a = num("prev_pid"); b = num("next_pid")
			if (match($0, / prev_state=[^ ]+/)) st = " " substr($0, RSTART + 12, RLENGTH - 12) }
		else if (ev ~ /^sched_wak/) { a = num("pid"); b = 0 }
		else if (ev == "sched_stat_runtime") { a = num("pid"); b = num("runtime") }
		else next
		printf "%d %s%09d %s %s %s%s\n", cpu, s[1], s[2], ev, a, b, st
	}' >"$tmp/perf.ev"
	[ -s "$tmp/perf.ev" ] || { ps_why="perf script printed no events ($(tail -1 "$tmp/ps.err"))"; return 1; }
	# shellcheck disable=SC2086
	"${B:-.}/tests/wct-restamp" ${ps_flags:-} "$2" "$tmp/perf.ev" "$3" >"$tmp/ps.out" 2>"$tmp/ps.err" ||
		{ ps_why="wct-restamp: $(tail -1 "$tmp/ps.err")"; return 1; }
	ps_paired=$(sed -n 's/^paired //p' "$tmp/ps.out")
	ps_unpaired=$(sed -n 's/^unpaired //p' "$tmp/ps.out")
	ps_offsets=$(sed -n 's/^offset_ns //p' "$tmp/ps.out")
}
