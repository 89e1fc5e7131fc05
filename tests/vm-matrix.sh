#!/bin/sh
# vm-matrix.sh - the recorder on other kernels: Debian's newest 6.1 cloud, 6.1 PREEMPT_RT and
# 6.12 cloud kernels, each booted once under qemu (tests/vm/boot.sh) with the static recorder,
# wcdemo and wall-workload; the traces are analysed here, with this host's wcanalyze.
# In each guest:
#   demo     wcrec -- wcdemo 1, the defaults
#   pid      wcrec -p PID of a running wcdemo, stopped by SIGINT
#   f-*      each forced fallback (WCREC_FORCE_NO_CLOCKID, _NO_BUILD_ID, _DEBUGFS,
#            _NO_SWITCH_RECORDS, _NO_SWITCH_RECORDS with _NO_RUNTIME) and --wakeup-event wakeup
#   kill     a recording SIGKILLed a second into its events: it reads up to the last flush
#   wl0, wl  wall-workload pinned to CPU 0, and unpinned: its threads measure themselves
#   formats  the sched tracepoints' format files (kept in testdata/formats/linux-*)
# Checked here: each recording reads, ends as it should and lost nothing; per workload
# thread, its CPU samples inside its runs, and on-CPU and off-CPU (lifetime minus CPU time)
# within 1% of its own clocks with KVM, 10% under TCG (see clock_checks), where these figures
# and "nothing lost" only warn (soft); the CPU clock less what the kernel charged the thread
# before its switch-ins, as its own sched_stat_runtime events say (kernel_charge: 6.1-rt);
# the fallbacks' NOTEs; info's edge-case counts and a timehist --state row of each state seen
# are printed.  WC_VM_KERNELS (default "6.1-cloud 6.1-rt 6.12-cloud") picks the kernels.
# Needs root, qemu-system-x86, busybox-static and the package registry (or the kernels in the
# build tree's tests/vm-cache); exits 77 with the reason elsewhere, or fails when
# WC_REQUIRE_RECORDING=1.
set -u
B=${builddir:-.}
WCA="$B/wcanalyze"
STAT="$B/tests/wct-stat"
. "$(dirname "$0")/testlib.sh"

for p in wcrec-static wcdemo-static wall-workload-static; do
	if [ ! -x "$B/tests/$p" ]; then
		if sanitizer_build; then
			echo "SKIP: a sanitizer build: no static recorder (ASan cannot link statically)"
			exit 77
		fi
		skip "no $B/tests/$p: configure could not link statically (apt-get install libelf-dev libzstd-dev libxxhash-dev zlib1g-dev)"
	fi
done

# what each guest runs
cat >"$tmp/init.sh" <<'GUEST'
cd /tmp
mkdir fmt
for e in sched_switch sched_waking sched_wakeup sched_wakeup_new sched_migrate_task \
	sched_stat_runtime; do
	cp /sys/kernel/tracing/events/sched/$e/format fmt/$e.format 2>/dev/null
done
tar -cf fmt.tar fmt && out formats.tar fmt.tar
run() { # run NAME CMD...: CMD, its exit status and stderr on the console, NAME.wct out
	name=$1
	shift
	"$@" >/dev/null 2>err
	echo "guest: $name exit $? ($(head -c 300 err | tr '\n' ' '))"
	out $name.wct $name.wct
	rm -f $name.wct
}
run demo /wcrec -q -o demo.wct -- /wcdemo 1
# grown() FILE: until FILE holds 30 KB (the events past the metadata, flushed; a TCG guest on
# a loaded host takes seconds to get there), 20 s at most, then one more second
grown() {
	i=0
	while [ $i -lt 200 ] && [ "$(stat -c %s $1 2>/dev/null || echo 0)" -lt 30000 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	sleep 1
}
/wcdemo 30 >/dev/null &
demo=$!
sleep 0.3
/wcrec -q -o pid.wct -p $demo 2>err &
rec=$!
grown pid.wct
kill -INT $rec
# a wcrec that does not stop is a failure to show, not a guest to time out: where it is
i=0
while [ $i -lt 300 ] && kill -0 $rec 2>/dev/null && ! grep -q '^State:.*Z' /proc/$rec/status; do
	sleep 0.1
	i=$((i + 1))
done
if [ $i -ge 300 ]; then
	echo "guest: pid: wcrec still running 30 s after SIGINT, file $(stat -c %s pid.wct) bytes:" \
		"$(grep -E '^(State|SigIgn|SigCgt)' /proc/$rec/status | tr '\n' ' ')" \
		"wchan $(cat /proc/$rec/wchan 2>/dev/null)" \
		"stack $(tr '\n' ' ' </proc/$rec/stack 2>/dev/null)"
	kill -9 $rec
fi
wait $rec
echo "guest: pid exit $? ($(head -c 300 err | tr '\n' ' '))"
kill $demo
wait $demo 2>/dev/null
out pid.wct pid.wct
rm -f pid.wct
WCREC_FORCE_NO_CLOCKID=1 run f-clockid /wcrec -q -o f-clockid.wct -- /wcdemo 0.5
WCREC_FORCE_NO_BUILD_ID=1 run f-buildid /wcrec -q -o f-buildid.wct -- /wcdemo 0.5
WCREC_FORCE_DEBUGFS=1 run f-debugfs /wcrec -q -o f-debugfs.wct -- /wcdemo 0.5
WCREC_FORCE_NO_SWITCH_RECORDS=1 run f-switchrec /wcrec -q -o f-switchrec.wct -- /wcdemo 0.5
WCREC_FORCE_NO_SWITCH_RECORDS=1 WCREC_FORCE_NO_RUNTIME=1 run f-runtime \
	/wcrec -q -o f-runtime.wct -- /wcdemo 0.5
run f-wakeup /wcrec -q --wakeup-event wakeup -o f-wakeup.wct -- /wcdemo 0.5
/wcrec -q -o kill.wct -- /wcdemo 30 >/dev/null 2>&1 &
rec=$!
grown kill.wct
kill -KILL $rec
wait $rec 2>/dev/null
echo "guest: kill exit $?"
killall wcdemo 2>/dev/null
out kill.wct kill.wct
rm -f kill.wct
/wcrec -q --runtime -F 999 -o wl0.wct -- taskset -c 0 /wall-workload 1.5 >wl0.out 2>err
echo "guest: wl0 exit $? ($(head -c 300 err | tr '\n' ' '))"
out wl0.wct wl0.wct
out wl0.out wl0.out
rm -f wl0.wct
/wcrec -q --runtime -o wl.wct -- /wall-workload 1.5 >wl.out 2>err
echo "guest: wl exit $? ($(head -c 300 err | tr '\n' ' '))"
out wl.wct wl.wct
out wl.out wl.out
GUEST
strip -o "$tmp/wcrec" "$B/tests/wcrec-static"

# soft DESCRIPTION TEST-EXPRESSION: a check of the figures (accuracy, nothing lost), enforced
# where the guest's time is its own (KVM, or WC_VM_STRICT=1); under TCG on a shared host a
# starved vCPU (seen: a 1.5 s workload taking 2.8 s, samples 80% short) moves them, so there
# it prints WARN and does not fail
soft() {
	if [ "$strict" = 1 ]; then
		expect "$@"
		return
	fi
	desc=$1
	shift
	if [ "$@" ]; then echo "ok   $desc"; else echo "WARN $desc"; fi
}
stat_of() { sed -n "s/^$1 //p" "$tmp/stat" | head -1; }
info_of() { sed -n "s/^  $1  *//p" "$tmp/info" | head -1; }
# readable K NAME: NAME.wct of kernel K's guest exists and info reads it (status in $info_rc)
readable() {
	rf="$tmp/$1/$2.wct"
	[ -s "$rf" ] || : >"$rf"
	"$WCA" info "$rf" >"$tmp/info" 2>"$tmp/err"
	info_rc=$?
	"$STAT" "$rf" >"$tmp/stat" 2>/dev/null
}
# kernel_charge TRACE: per thread "TID NS SAMPLES OUTSIDE".
#   NS       the CPU time the kernel charged the thread before its switch-ins: in a run whose
#            sched_stat_runtime event (wcrec --runtime keeps the first of a run) reports more
#            than the run had lasted by about its sch delay (within 25 us; sch delays over
#            50 us only, above the few us by which the switch's stamp, taken after its
#            callchain, trails the kernel's), that excess: the kernel charged the run-queue
#            wait since the wakeup to the thread's CPU clock (seen on 6.1-rt under TCG, where
#            it was 199 of 776 ms for one thread)
#   SAMPLES  its CPU samples, and OUTSIDE, those outside its runs: the check that the runs
#            are not cut short, which NS, worked out from them, could hide
kernel_charge() {
	"$WCA" timehist --all-tasks -G "$1" 2>/dev/null | awk 'NR > 3 {
		for (i = 3; i <= NF; i++) if ($i ~ /\[[0-9]+(\/[0-9]+)?\]$/) break
		if (i > NF || $(i + 3) !~ /^[0-9.]+$/) next
		tid = $i; sub(/.*\[/, "", tid); sub(/[\/\]].*/, "", tid)
		cpu = $2; gsub(/[^0-9]/, "", cpu)
		sch = $(i + 2) ~ /^[0-9.]+$/ ? $(i + 2) * 1e6 : -1
		printf "run %d %d %.0f %.0f %.0f\n", tid, cpu, ($1 - $(i + 3) / 1000) * 1e9, $1 * 1e9, sch
	}' >"$tmp/runs"
	"$STAT" --runtime "$1" | cat "$tmp/runs" - | awk '
		$1 == "run" {
			n = ++nr[$2]; rc[$2, n] = $3; ri[$2, n] = $4; ro[$2, n] = $5; sd[$2, n] = $6
			next
		}
		$1 == "runtime" || $1 == "sample" {
			t = $2; c = $3; tid = $4; hit = 0
			for (k = 1; k <= nr[tid] && !hit; k++)
				if (rc[tid, k] == c && ri[tid, k] <= t && t <= ro[tid, k] + 10000)
					hit = k
			seen[tid] = 1
			if ($1 == "sample") { ns[tid]++; out[tid] += !hit; next }
			if (!hit || sd[tid, hit] <= 50000) next
			x = $5 - (t - ri[tid, hit]); d = x - sd[tid, hit]
			if (x > 0 && d <= 25000 && d >= -25000) over[tid] += x
		}
		END { for (tid in seen) printf "%d %.0f %d %d\n", tid, over[tid], ns[tid], out[tid] }'
}

# clock_checks K NAME LABEL: per thread of NAME.out, its folded sums against its own clocks,
# its CPU clock less what kernel_charge finds the kernel charged it before its switch-ins.
# The bar is $bar% (WC_VM_PCT): 1% with KVM; under TCG, whose vCPUs are host threads that the
# host deschedules at will (2 cores shared with the rest of make check), runs of the cloud
# kernels came within 7.3%, so 10% there (a warning: see soft), and each thread past 1% is listed.
clock_checks() {
	"$WCA" folded --per-thread --unit ns "$tmp/$1/$2.wct" >"$tmp/folded" 2>"$tmp/err"
	soft "$1 $3: folded exits 0, none lost ($(tail -1 "$tmp/err"))" \
		"$(grep -c ": 0 events and 0 samples lost in recording" "$tmp/err")" -eq 1
	folded_sums "$tmp/folded" >"$tmp/sums"
	"$WCA" threads "$tmp/$1/$2.wct" >"$tmp/threads" 2>/dev/null
	kernel_charge "$tmp/$1/$2.wct" >"$tmp/charge"
	n=0
	while read -r _ tid comm life _ clock; do
		n=$((n + 1))
		# the reference: the thread's CPU clock less what the kernel charged it off-CPU
		charged=$(awk -v t="$tid" '$1 == t { print $2 }' "$tmp/charge")
		smp=$(awk -v t="$tid" '$1 == t { print $3 + 0, $4 + 0 }' "$tmp/charge")
		cpu=$((clock - ${charged:-0}))
		[ "${charged:-0}" -gt $((clock / 200)) ] &&
			echo "note: $1 $3 $comm: the kernel charged $charged ns of its CPU clock $clock ns before its switch-ins (sched_stat_runtime), taken off"
		expect "$1 $3 $comm: its samples lie in its runs (${smp:-no samples}: samples, outside)" \
			"$(echo "${smp:-0 0}" | awk '{ print ($2 <= 1 + $1 / 50) }')" = 1
		on=$(awk -v t="$comm-$tid" '$1 == t { print $2 }' "$tmp/sums")
		off=$(awk -v t="$comm-$tid" '$1 == t { print $3 }' "$tmp/sums")
		on=${on:-0} off=${off:-0}
		sampled=$(awk -v t="$tid" '$1 == t { print $6 * 1000000; exit }' "$tmp/threads")
		eon=$(awk -v a="$on" -v b="$cpu" 'BEGIN { printf "%+.2f", b ? (a - b) * 100 / b : 100 }')
		eoff=$(awk -v a="$off" -v b="$((life - cpu))" 'BEGIN { printf "%+.2f", b ? (a - b) * 100 / b : 100 }')
		esam=$(awk -v a="${sampled:-0}" -v b="$cpu" 'BEGIN { printf "%+.1f", b ? (a - b) * 100 / b : 100 }')
		echo "$1 $3 $comm $eon $eoff $esam" >>"$tmp/errors"
		soft "$1 $3 $comm: on-CPU $on ns within $bar% of its CPU time $cpu ns ($eon%)" \
			"$(within "$on" "$cpu" "$bar" && echo 1)" = 1
		soft "$1 $3 $comm: off-CPU $off ns within $bar% of lifetime - CPU time $((life - cpu)) ns ($eoff%)" \
			"$(within "$off" $((life - cpu)) "$bar" && echo 1)" = 1
		within "$on" "$cpu" 1 && within "$off" $((life - cpu)) 1 ||
			echo "note: $1 $3 $comm: past 1% (on-CPU $eon%, off-CPU $eoff%)"
	done <"$tmp/$1/$2.out"
	expect "$1 $3: the workload's five threads measured themselves" $n -eq 5
}

kernels=${WC_VM_KERNELS:-6.1-cloud 6.1-rt 6.12-cloud}
if [ "${WC_VM_KVM:-0}" = 1 ] && [ -w /dev/kvm ]; then
	bar=${WC_VM_PCT:-1} strict=${WC_VM_STRICT:-1}
else
	bar=${WC_VM_PCT:-10} strict=${WC_VM_STRICT:-0}
fi
t0=$(date +%s)
skipped=0
for k in $kernels; do
	start=$(date +%s)
	# alone: a TCG guest takes a whole CPU of the host for a minute, which starves the drain
	# of a live test's recorder beside it (seen in CI: servers-live's nginx -a lost 6,269
	# events and its coverage check failed), and the guest's own accuracy suffers as much
	alone_begin
	sh "$(dirname "$0")/vm/boot.sh" "$k" "$tmp/init.sh" "$tmp/$k" "$tmp/wcrec" \
		"$B/tests/wcdemo-static=wcdemo" "$B/tests/wall-workload-static=wall-workload" \
		>"$tmp/boot.out"
	rc=$?
	alone_end
	if [ $rc -eq 77 ]; then
		echo "note: $k: $(tail -1 "$tmp/boot.out")"
		skipped=$((skipped + 1))
		continue
	fi
	echo "note: $k: $(cat "$tmp/$k/kernel"); $(tail -1 "$tmp/$k/qemu.err"); $(($(date +%s) - start)) s in all"
	c="$tmp/$k/console"
	# Seen on 6.1 under TCG with the host loaded (1 boot in 3): the guest kernel stuck in
	# wcrec's context as wcrec is stopped or killed ("BUG: soft lockup - CPU#0 stuck for 26s!
	# [wcrec:242]", after the SIGKILL step), until the boot times out.  Not understood yet
	# (issue 21): shown, with the steps that did run, and the kernel's other checks left out.
	# Seen on 6.12 under TCG (CI XD): "Oops: int3" in __schedule while wcrec's
	# perf_event_open enabled the tracepoints (the kernel patching its own code: TCG's
	# cross-modifying code), then a panic: the same XFAIL.
	if grep -qE 'soft lockup|Oops: |Kernel panic' "$c"; then
		echo "XFAIL $k: the guest's kernel failed in wcrec after: $(grep '^guest: ' "$c" |
			tail -1) ($(grep -m1 -E 'soft lockup|Oops: |Kernel panic' "$c" | tr -d '\r')): issue 21"
		continue
	fi
	# Seen on 6.1-rt under TCG (CI YH): the guest silent from its first recording on until
	# the boot timed out (qemu exit 124), no kernel message: the same XFAIL, with the last
	# line the guest wrote.
	if [ $rc -ne 0 ] && grep -q 'qemu exit 124' "$tmp/$k/qemu.err"; then
		echo "XFAIL $k: the guest hung (boot timed out) after: $(grep -a '^guest: \|^=====END' "$c" |
			tail -1 | tr -d '\r'): issue 21"
		continue
	fi
	expect "$k: qemu ends by itself (boot.sh exit $rc)" $rc -eq 0
	grep '^guest: ' "$c" | sed "s/^/note: $k /"
	for r in demo pid f-clockid f-buildid f-debugfs f-switchrec f-runtime f-wakeup wl0 wl; do
		expect "$k: in the guest, $r exits 0" "$(grep -c "^guest: $r exit 0 " "$c")" -eq 1
	done
	expect "$k: the format files come out" "$(tar -tf "$tmp/$k/formats.tar" 2>/dev/null | grep -c '\.format$')" -ge 4
	tar -xf "$tmp/$k/formats.tar" -C "$tmp/$k" 2>/dev/null

	# the demo, with the defaults
	readable "$k" demo
	expect "$k demo: info exits 0 ($(cat "$tmp/err"))" $info_rc -eq 0
	expect "$k demo: ended cleanly" "$(grep -c '^file: .*ended cleanly' "$tmp/info")" -eq 1
	expect "$k demo: the guest's kernel ($(sed -n 's/^host: *//p' "$tmp/info"))" \
		"$(grep -c "^host: .*Linux $(cut -d- -f3 "$tmp/$k/kernel" | sed 's/+.*//; s/\.0$//')" "$tmp/info")" -eq 1
	soft "$k demo: nothing lost" "$(grep -c '^lost: *0 events (ring buffer full), 0 samples' "$tmp/info")" -eq 1
	echo "note: $k demo: $(grep '^records:' "$tmp/info")"
	echo "note: $k demo edge cases: $(sed -n '/^edge cases\|^sched/,$p' "$tmp/info" | grep '^  ' | sed 's/  */ /g' | tr '\n' ';')"
	"$WCA" threads "$tmp/$k/demo.wct" >"$tmp/threads" 2>"$tmp/err"
	expect "$k demo: threads shows the four workers" \
		"$(grep -o ' demo-[a-z]*' "$tmp/threads" | sort -u | wc -l)" -eq 4

	# -p PID
	readable "$k" pid
	expect "$k -p: info exits 0, a clean end ($(cat "$tmp/err"))" \
		"$info_rc$(grep -c '^file: .*ended cleanly' "$tmp/info")" = 01
	soft "$k -p: nothing lost" "$(grep -c '^lost: *0 events (ring buffer full), 0 samples' "$tmp/info")" -eq 1
	"$WCA" threads "$tmp/$k/pid.wct" >"$tmp/threads" 2>"$tmp/err"
	expect "$k -p: threads shows the four workers" \
		"$(grep -o ' demo-[a-z]*' "$tmp/threads" | sort -u | wc -l)" -eq 4

	# the fallbacks
	for f in f-clockid f-buildid f-debugfs f-switchrec f-runtime f-wakeup; do
		readable "$k" $f
		expect "$k $f: info exits 0, a clean end ($(cat "$tmp/err"))" \
			"$info_rc$(grep -c '^file: .*ended cleanly' "$tmp/info")" = 01
		lost=$(grep '^lost:' "$tmp/info" | sed 's/  */ /g')
		if [ $f = f-switchrec ] && ! grep -q '^lost: *0 events' "$tmp/info"; then
			# known (issue 21): sched_stat_runtime on top of the switches overflows
			# the ring buffer of a TCG guest now and then
			echo "XFAIL $k $f: nothing lost ($lost): issue 21"
		else
			soft "$k $f: nothing lost ($lost)" \
				"$(grep -c '^lost: *0 events (ring buffer full), 0 samples' "$tmp/info")" -eq 1
		fi
		case $f in
		f-clockid) expect "$k $f: perf's clock (-1), a NOTE" "$(stat_of clockid)$(grep -c '^note.fallback no use_clockid' "$tmp/stat")" = -11 ;;
		f-buildid) expect "$k $f: a NOTE" "$(grep -c '^note.fallback no build-id' "$tmp/stat")" -eq 1 ;;
		f-debugfs) expect "$k $f: formats recorded" "$(stat_of records.tp_format)" -ge 3 ;;
		f-switchrec) expect "$k $f: a NOTE, sched_stat_runtime instead ($(stat_of events.sched:sched_stat_runtime))" \
			"$(grep -c '^note.fallback no context-switch records' "$tmp/stat")$(stat_of records.switch_in)" = 10 -a \
			"$(stat_of events.sched:sched_stat_runtime)" -gt 0 ;;
		f-runtime) expect "$k $f: a NOTE, none recorded" \
			"$(grep -c '^note.fallback no sched_stat_runtime' "$tmp/stat")$(stat_of records.tp_inline)" = 10 ;;
		f-wakeup) expect "$k $f: sched_wakeup recorded ($(stat_of events.sched:sched_wakeup))" \
			"$(stat_of note.wakeup_event)" = sched_wakeup -a "$(stat_of events.sched:sched_wakeup)" -gt 100 ;;
		esac
		expect "$k $f: scheduler events ($(stat_of events.sched:sched_switch) switches)" "$(stat_of events.sched:sched_switch)" -gt 100
	done

	# SIGKILLed
	readable "$k" kill
	expect "$k SIGKILL: reads as truncated ($(stat_of ending))" "$(stat_of ending)" = truncated
	expect "$k SIGKILL: the events up to the cut ($(stat_of events.sched:sched_switch) switches)" \
		"$(stat_of events.sched:sched_switch)" -gt 100
	"$WCA" threads "$tmp/$k/kill.wct" >"$tmp/threads" 2>"$tmp/err"
	expect "$k SIGKILL: threads exits 3 with the workers up to the cut ($(tail -1 "$tmp/err"))" \
		"$?$(grep -o ' demo-[a-z]*' "$tmp/threads" | sort -u | wc -l)" = 34

	# the workload, pinned and not, against its own clocks
	clock_checks "$k" wl0 pinned
	clock_checks "$k" wl unpinned

	# each state seen, decoded from the guest's format
	"$WCA" timehist --state -G --all-tasks "$tmp/$k/wl.wct" >"$tmp/th" 2>"$tmp/err"
	"$WCA" timehist --state -G --all-tasks "$tmp/$k/demo.wct" >>"$tmp/th" 2>>"$tmp/err"
	states=$(awk '$1 ~ /^[0-9]+\.[0-9]+$/ { print $NF }' "$tmp/th" | sort | uniq -c | awk '{ printf "%s:%s ", $2, $1 }')
	echo "note: $k states seen: $states"
	for s in $(awk '$1 ~ /^[0-9]+\.[0-9]+$/ { print $NF }' "$tmp/th" | sort -u); do
		echo "    $(awk -v s="$s" '$1 ~ /^[0-9]+\.[0-9]+$/ && $NF == s { print; exit }' "$tmp/th")"
	done
	expect "$k: states decode to letters only (S, D, R, R+, I ...): $states" \
		"$(awk '$1 ~ /^[0-9]+\.[0-9]+$/ { print $NF }' "$tmp/th" | grep -cv '^[SDRITtXZPWKN+|]*$')" -eq 0
done
[ "$skipped" -lt "$(echo $kernels | wc -w)" ] || skip "no kernel could be booted ($(tail -1 "$tmp/boot.out"))"
[ "$skipped" -eq 0 ] || [ "${WC_REQUIRE_RECORDING:-0}" != 1 ] ||
	expect "every kernel booted, as WC_REQUIRE_RECORDING=1 asks ($skipped could not be)" "$skipped" -eq 0
if [ -s "$tmp/errors" ]; then
	echo "per-thread errors, % of the thread's own clocks: kernel, run, thread, on-CPU, off-CPU, sampled on-CPU:"
	sed 's/^/    /' "$tmp/errors"
fi

echo "note: the matrix took $(($(date +%s) - t0)) s"
[ $fails -eq 0 ] || { echo "$fails checks failed"; exit 1; }
