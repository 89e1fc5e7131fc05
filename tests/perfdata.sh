#!/bin/sh
# perfdata.sh - wcanalyze on the perf.data files checked in under testdata/perf (its README
# says how they were recorded).  On each: every subcommand exits 0; info names the format and
# the events, and says once what a report cannot give.  Where perf is installed, against perf
# on the same file: timehist's rows are perf sched timehist's (the same times, CPUs and
# threads, perf's ":-1" rows aside; the run times of CPU 0, where the workload ran, equal); the
# summary's context switches and CPU 0 idle time equal, and each workload thread's sched-in
# count is perf's or one more (its exit row, which perf 6.1 credits to ":-1"); each workload
# thread's off-CPU total of folded --mode off equals, to the ns, the sum of its intervals
# switch-out to switch-in (and wakeup_new to first switch-in) computed from `perf script`.
# A perf record -z file gives the outputs of the same file uncompressed.  Then damaged files: cut, flipped, byte-swapped, an attr size of 0, a data or feature
# section past the end: exit 1 or 3 with one line naming the file, never a crash.
# Needs no root and records nothing.
set -u
srcdir=${srcdir:-$(dirname "$0")/..}
builddir=${builddir:-.}
WCA=${WCANALYZE:-$builddir/wcanalyze}
D="$srcdir/testdata/perf"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
expect() { # expect DESCRIPTION TEST-EXPRESSION
	desc=$1
	shift
	if [ "$@" ]; then echo "ok   $desc"; else echo "FAIL $desc"; fails=$((fails + 1)); fi
}
have_perf=1
perf --version >/dev/null 2>&1 || { have_perf=0; echo "SKIP comparisons with perf: no perf"; }

# 1. every subcommand on every file
for f in "$D"/*.data; do
	n=$(basename "$f")
	for cmd in info folded "folded --mode off" "folded --waker" timehist "timehist -s" \
		"timehist -I --state" hist "hist --kind runq" threads "threads --json" flamegraph \
		"export --format speedscope" "export --format chrome"; do
		# shellcheck disable=SC2086
		"$WCA" $cmd "$f" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		# (no wakeups, no wakers: folded --waker prints nothing)
		[ "$cmd" != "folded --waker" ] || echo x >>"$tmp/out"
		expect "$n: wcanalyze $cmd exits 0 ($(head -n1 "$tmp/err" | head -c 200))" $rc -eq 0 -a -s "$tmp/out"
	done
	"$WCA" info "$f" >"$tmp/info" 2>&1
	expect "$n: info names the format" "$(grep -c '^format: *perf.data\(, pipe mode\)\?$' "$tmp/info")" -eq 1
	expect "$n: info names the events" "$(grep -c '^events: .*sched:sched_switch' "$tmp/info")" -eq 1
	expect "$n: info says once what a report cannot give, if anything" \
		"$(grep -c '^cannot give:' "$tmp/info")" -le 1
done
"$WCA" info "$D/nowake.data" 2>&1 | grep -q '^cannot give:.*no sched_waking or sched_wakeup: no run-queue split'
expect "nowake.data: info says there is no run-queue split" $? -eq 0
"$WCA" info "$D/g.data" >"$tmp/info" 2>&1
expect "g.data: no 'cannot give' (switches with stacks, wakeups, samples)" \
	"$(grep -c '^cannot give:' "$tmp/info")" -eq 0
expect "g.data: its cpu-clock samples are read" \
	"$(grep -c '^records: .* [1-9][0-9]* samples, [1-9][0-9]* callchains' "$tmp/info")" -eq 1

# 2. against perf on the same file: the rows of timehist, its summary, off-CPU per thread
S="$D/sched.data"
if [ $have_perf = 1 ]; then
	perf sched timehist -i "$S" >"$tmp/p.rows" 2>/dev/null
	"$WCA" timehist "$S" >"$tmp/w.rows" 2>/dev/null
	# both: time cpu tid run; perf's rows of ":-1[-1/PID]" (after an EXIT) as tid -1
	for x in p w; do
		awk 'NR > 3 && $2 ~ /^\[[0-9]+\]$/ { t = $3; sub(/^.*\[/, "", t); sub(/[\/\]].*$/, "", t)
			print $1, $2, t, $6 }' "$tmp/$x.rows" >"$tmp/$x.k"
	done
	np=$(wc -l <"$tmp/p.k")
	expect "sched.data: timehist rows as many as perf's ($(wc -l <"$tmp/w.k") of $np)" \
		"$(wc -l <"$tmp/w.k")" -eq "$np" -a "$np" -gt 100
	set -- $(paste -d' ' "$tmp/p.k" "$tmp/w.k" | awk '
		$1 != $5 || $2 != $6 || ($3 != $7 && $3 != -1) { id++ }
		$2 == "[0000]" && $8 != "-" && $4 != $8 { run++ }
		END { print id + 0, run + 0 }')
	expect "sched.data: each row's time, CPU and thread are perf's ($1 apart)" "$1" -eq 0
	expect "sched.data: each run time on CPU 0 is perf's ($2 apart)" "$2" -eq 0
	perf sched timehist -s -i "$S" >"$tmp/p.sum" 2>/dev/null
	"$WCA" timehist -s "$S" >"$tmp/w.sum" 2>/dev/null
	for l in 'Total number of context switches' 'CPU  0 idle for'; do
		expect "sched.data: summary line '$l' is perf's" \
			"$(grep "$l" "$tmp/w.sum")" = "$(grep "$l" "$tmp/p.sum")"
	done
	awk '$1 ~ /^(bl-|blockers)/ { print FILENAME, $1, $3 }' "$tmp/p.sum" "$tmp/w.sum" |
		awk '{ n[$2] = n[$2] " " $3; c[$2]++ } END { for (t in n) print t, c[t], n[t] }' >"$tmp/cnt"
	bad=$(awk '$2 != 2 || $4 - $3 < 0 || $4 - $3 > 1' "$tmp/cnt" | wc -l)
	expect "sched.data: each workload thread's sched-ins are perf's, or one more (its exit row): $(wc -l <"$tmp/cnt") threads, $bad not" \
		"$bad" -eq 0 -a "$(wc -l <"$tmp/cnt")" -ge 8
	perf script --ns -i "$S" -F comm,time,event,trace 2>/dev/null | awk '
		{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i; e = $(i + 1); break }
		  sub(/:$/, "", t) }
		e == "sched:sched_wakeup_new:" { for (i = 1; i <= NF; i++) if ($i ~ /^pid=/) {
			p = substr($i, 5); if (!(p in seen)) out[p] = t } }
		e == "sched:sched_switch:" {
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^prev_pid=/) p = substr($i, 10)
				if ($i ~ /^next_pid=/) n = substr($i, 10)
				if ($i ~ /^prev_comm=/) c[substr($i, 10)] = substr($i, 11) }
			seen[p] = seen[n] = 1
			if (p > 0) out[p] = t
			if (n in out) { off[n] += t - out[n]; delete out[n] } }
		END { for (x in off) printf "%s %.6f\n", x, off[x] * 1000 }' | sort >"$tmp/p.off"
	"$WCA" folded --mode off --per-thread --unit ns "$S" 2>/dev/null |
		awk '$1 ~ /^(bl-|blockers)/ { t = $1; sub(/;.*$/, "", t); sub(/^.*-/, "", t); s[t] += $NF }
		END { for (x in s) printf "%s %.6f\n", x, s[x] / 1e6 }' | sort >"$tmp/w.off"
	join "$tmp/p.off" "$tmp/w.off" >"$tmp/off"
	bad=$(awk '$2 != $3' "$tmp/off" | wc -l)
	expect "sched.data: off-CPU ms per workload thread equal perf script's to the ns: $(wc -l <"$tmp/off") threads, $bad not ($(awk '$2 != $3' "$tmp/off" | head -3 | tr '\n' ' '))" \
		"$bad" -eq 0 -a "$(wc -l <"$tmp/off")" -ge 8
fi

# 2a. every file mode fixture: timehist's rows at perf's times, CPUs and threads
if [ $have_perf = 1 ]; then
	for f in "$D"/g.data "$D"/nowake.data "$D"/z.data; do
		perf sched timehist -i "$f" 2>/dev/null | awk 'NR > 3 && $2 ~ /^\[[0-9]+\]$/ {
			t = $3; sub(/^.*\[/, "", t); sub(/[\/\]].*$/, "", t); print $1, $2, t }' >"$tmp/p.k"
		"$WCA" timehist "$f" 2>/dev/null | awk 'NR > 3 && $2 ~ /^\[[0-9]+\]$/ {
			t = $3; sub(/^.*\[/, "", t); sub(/[\/\]].*$/, "", t); print $1, $2, t }' >"$tmp/w.k"
		set -- $(wc -l <"$tmp/p.k") $(wc -l <"$tmp/w.k") $(paste -d' ' "$tmp/p.k" "$tmp/w.k" |
			awk '$1 != $4 || $2 != $5 || ($3 != $6 && $3 != -1) { n++ } END { print n + 0 }')
		expect "$(basename "$f"): $2 timehist rows at perf's times, CPUs, threads ($1 rows, $3 apart)" \
			"$1" -eq "$2" -a "$3" -eq 0 -a "$1" -gt 100
	done
fi

# 2b. pipe mode (perf record -o -): from stdin as from the file; as many switches as perf
# script shows (perf sched timehist 6.1 reads no pipe-mode file)
P="$D/pipe.data"
same=0
for cmd in info timehist "folded --mode off" threads hist "export --format chrome"; do
	# shellcheck disable=SC2086
	"$WCA" $cmd "$P" 2>&1 | sed "s|$P|IN|g; s|, 0\.1 MB,|,|" >"$tmp/a"
	# shellcheck disable=SC2086
	cat "$P" | "$WCA" $cmd - 2>&1 | sed "s|^file:         -, 0\.0 MB,|file:         IN,|;
		s|^# -:|# IN:|; s| in - (| in IN (|; s|^wcanalyze: -:|wcanalyze: IN:|;
		s|warning: -:|warning: IN:|; s|wcanalyze info -)|wcanalyze info IN)|" |
		sed 's|"trace":"-"|"trace":"IN"|' >"$tmp/b"
	cmp -s "$tmp/a" "$tmp/b" && same=$((same + 1))
	[ "$cmd" = info ] && cp "$tmp/a" "$tmp/info"
done
expect "pipe.data: 6 outputs from stdin as from the file ($same)" $same -eq 6
expect "pipe.data: info names pipe mode" "$(grep -c '^format: *perf.data, pipe mode$' "$tmp/info")" -eq 1
if [ $have_perf = 1 ]; then
	n=$(perf script -i "$P" -F event 2>/dev/null | grep -c 'sched:sched_switch')
	expect "pipe.data: our switches are perf script's $n" \
		"$(grep -c "^records: .* ($n switches," "$tmp/info")" -eq 1 -a "$n" -gt 100
fi

# 2c. perf record -z: the same outputs as the file rewritten uncompressed (perf-unzstd.py)
if /usr/bin/python3 "$srcdir/tests/perf-unzstd.py" "$D/z.data" "$tmp/unz.data"; then
	same=0
	for cmd in timehist "folded --mode off" "folded --waker" threads hist "export --format chrome"; do
		# shellcheck disable=SC2086
		"$WCA" $cmd "$D/z.data" >"$tmp/a" 2>&1
		# shellcheck disable=SC2086
		"$WCA" $cmd "$tmp/unz.data" 2>&1 | sed "s|$tmp/unz.data|$D/z.data|g" >"$tmp/b"
		cmp -s "$tmp/a" "$tmp/b" && same=$((same + 1))
	done
	expect "z.data (perf record -z, 294 COMPRESSED records): 6 outputs as uncompressed ($same)" \
		$same -eq 6
else
	echo "SKIP -z against uncompressed: perf-unzstd.py failed (no libzstd.so.1?)"
fi

# 2e. the sched_stat recipe (stat.data: -p PID, the task's own switch-outs; its switch-ins only
# where another thread of it switched to it): where a thread's switch-in was not recorded, its
# off-CPU interval is the sched_stat delay, as perf inject -s gives it.  Expected per thread, in
# S or D (--state S,D): the intervals switch-out to a recorded switch-in (perf script), plus,
# for each sleep whose next event is a switch-out of the thread again (or the end), the delay
# that `perf inject -s` gives its sched_stat event (its synthesized sample: that thread, that
# time, period = delay).  info and every report say once that intervals are sched_stat delays.
T="$D/stat.data"
"$WCA" info "$T" >"$tmp/info" 2>&1
expect "stat.data: info says once the intervals are sched_stat delays" \
	"$(grep -c 'switch-ins not recorded.* off-CPU intervals are sched_stat sleep/blocked delays' "$tmp/info")" -eq 1
for cmd in "folded --mode off" threads hist; do
	# shellcheck disable=SC2086
	"$WCA" $cmd "$T" 2>&1 | grep -c 'switch-ins not recorded' >"$tmp/n"
	expect "stat.data: $cmd says so once" "$(cat "$tmp/n")" -eq 1
done
"$WCA" info "$D/g.data" 2>&1 | grep -c 'switch-ins not recorded' >"$tmp/n"
expect "g.data (no sched_stat): no such note" "$(cat "$tmp/n")" -eq 0
if [ $have_perf = 1 ] && perf inject -s -i "$T" -o "$tmp/inj.data" 2>/dev/null; then
	expect "stat.data: no sched_stat_iowait (its delays repeat blocked's; perf inject -s counts both)" \
		"$(perf script -i "$T" -F event 2>/dev/null | grep -c sched_stat_iowait)" -eq 0
	perf script --ns -i "$tmp/inj.data" -F tid,time,period 2>/dev/null |
		awk '{ t = $2; sub(/:$/, "", t); sub(/\./, "", t); print "D", $1, t, $3 }' >"$tmp/inj"
	perf script --ns -i "$T" -F tid,time,event,trace 2>/dev/null | awk '
		{ t = $2; sub(/:$/, "", t); sub(/\./, "", t); print "E", t, $0 }' >"$tmp/ev"
	cat "$tmp/inj" "$tmp/ev" | awk '
		$1 == "D" { d[$2 " " $3] = $4; next }
		{ t = $2; e = $5; p = n = s = pid = ""
		  for (i = 6; i <= NF; i++) {
			if ($i ~ /^prev_pid=/) p = substr($i, 10)
			if ($i ~ /^next_pid=/) n = substr($i, 10)
			if ($i ~ /^prev_state=/) s = substr($i, 12)
			if ($i ~ /^pid=/) pid = substr($i, 5) } }
		e == "sched:sched_switch:" {
			if ((p in out) && (p in pend)) { off[p] += pend[p]; used++ }
			delete out[p]; delete pend[p]
			if (s ~ /^[SD]/) out[p] = t
			if (n in out) off[n] += t - out[n]
			delete out[n]; delete pend[n] }
		e ~ /^sched:sched_stat_(sleep|blocked):$/ && (pid in out) && !(pid in pend) {
			k = pid " " t; if (k in d) pend[pid] = d[k]; else nodelay++ }
		END { for (x in pend) if (x in out) { off[x] += pend[x]; used++ }
		      for (x in off) printf "%s %.0f\n", x, off[x]
		      printf "used %d\nnodelay %d\n", used, nodelay + 0 }' | sort >"$tmp/p.off"
	"$WCA" folded --mode off --per-thread --unit ns --state S,D "$T" 2>/dev/null |
		awk '{ t = $1; sub(/;.*$/, "", t); sub(/^.*-/, "", t); s[t] += $NF }
		END { for (x in s) printf "%s %.0f\n", x, s[x] }' | sort >"$tmp/w.off"
	used=$(awk '$1 == "used" { print $2 }' "$tmp/p.off")
	expect "stat.data: every sched_stat sleep taken has perf inject -s's delay ($(awk '$1 == "nodelay" { print $2 }' "$tmp/p.off") without)" \
		"$(awk '$1 == "nodelay" { print $2 }' "$tmp/p.off")" -eq 0
	expect "stat.data: $used intervals are sched_stat delays, as info counts them" \
		"$(grep -c "an interval's, its switch-in not recorded *$used\$" "$tmp/info")" -eq 1 -a "$used" -gt 10
	join "$tmp/p.off" "$tmp/w.off" >"$tmp/off"
	bad=$(awk '$2 != $3' "$tmp/off" | wc -l)
	expect "stat.data: S/D off-CPU ns per thread equal perf script's and perf inject -s's: $(wc -l <"$tmp/off") threads, $bad not ($(awk '$2 != $3' "$tmp/off" | head -3 | tr '\n' ' '))" \
		"$bad" -eq 0 -a "$(wc -l <"$tmp/off")" -ge 6
else
	echo "SKIP stat.data against perf inject -s: no perf, or perf inject -s failed"
fi

# 2d. --kallsyms FILE (testdata/perf/kallsyms: the functions the fixtures' callchains hit, and
# the next of each, from the recording host's /proc/kallsyms): kernel frames get their names,
# those perf script gives them with the same file
K="$D/kallsyms"
"$WCA" folded "$D/g.data" 2>/dev/null | grep -c '__schedule' >"$tmp/n0"
"$WCA" folded --kallsyms "$K" "$D/g.data" 2>/dev/null >"$tmp/kf"
expect "g.data: kernel frames unnamed without --kallsyms, __schedule with it ($(cat "$tmp/n0"), $(grep -c ';__schedule;' "$tmp/kf") lines)" \
	"$(cat "$tmp/n0")" -eq 0 -a "$(grep -c ';__schedule;' "$tmp/kf")" -gt 5
if [ $have_perf = 1 ]; then
	perf script -i "$D/g.data" --kallsyms "$K" -F ip,sym 2>/dev/null | awk '{ print $2 }' |
		sort -u >"$tmp/psyms"
	awk '{ print $3 }' "$K" | sort -u >"$tmp/ksyms"
	tr ';' '\n' <"$tmp/kf" | sed 's/ [0-9]*$//' | sort -u | comm -12 - "$tmp/ksyms" >"$tmp/ours"
	expect "g.data: our $(wc -l <"$tmp/ours") kernel function names are perf script's ($(comm -23 "$tmp/ours" "$tmp/psyms" | head -3 | tr '\n' ' '))" \
		"$(comm -23 "$tmp/ours" "$tmp/psyms" | wc -l)" -eq 0 -a "$(wc -l <"$tmp/ours")" -gt 10
fi

# 2f. --call-graph dwarf (dwarf.data, of testdata/perf/dwprog.c: no frame pointers, CFI only):
# its user stacks unwound with the program under --symfs (dwarf-root holds it at its recorded
# path), each nap's the program's own structure, _start to dw_inner; without the program
# (where it is not at its recorded path) its ip alone, marked [unwind failed]
R="$D/dwarf-root"
"$WCA" folded --mode off --symfs "$R" "$D/dwarf.data" 2>/dev/null | grep '^dwprog;' >"$tmp/dw"
set -- $(awk '{ t += $NF; if (index($0, "dwprog;_start;dw_main;dw_outer;dw_middle;dw_inner;") == 1) ok += $NF }
	END { printf "%d %d\n", ok, t }' "$tmp/dw")
expect "dwarf.data, --symfs: all of dwprog's off-CPU time ($2 us, 12 naps of 2 ms) under _start;dw_main;dw_outer;dw_middle;dw_inner ($1 us)" \
	"$1" -eq "$2" -a "$2" -ge 24000
n=$("$WCA" info --symfs "$R" "$D/dwarf.data" 2>/dev/null | sed -n 's/^ *unwound: *\([0-9]*\) to the outermost frame.*/\1/p')
expect "dwarf.data, --symfs: info counts its 12 switch-outs unwound to the outermost frame or more (${n:-none})" \
	"${n:-0}" -ge 12
# another build of the program at that path under --symfs: refused by its build-id, not used
mkdir -p "$tmp/other/tmp/wc-perf-dwarf"
if sed 's/2000000/3000000/' "$D/dwprog.c" >"$tmp/other/dwprog.c" &&
	${CC:-cc} -O1 -g0 -fomit-frame-pointer -fasynchronous-unwind-tables -nostdlib -static \
		-no-pie -fno-stack-protector -Wl,--build-id -Wl,-z,noseparate-code \
		-o "$tmp/other/tmp/wc-perf-dwarf/dwprog" "$tmp/other/dwprog.c" 2>"$tmp/cc.err"; then
	n=$("$WCA" info --symfs "$tmp/other" "$D/dwarf.data" 2>/dev/null | sed -n 's/.*refused (another build-id) \([0-9]*\).*/\1/p')
	"$WCA" folded --mode off --symfs "$tmp/other" "$D/dwarf.data" 2>/dev/null | grep '^dwprog;' >"$tmp/dw1"
	expect "dwarf.data, another build at the path: refused by its build-id (${n:-none}), no dw_main ($(head -1 "$tmp/dw1"))" \
		"${n:-0}" -ge 1 -a "$(grep -c dw_main "$tmp/dw1")" -eq 0
else
	echo "note: not checked: another build of dwprog ($(head -1 "$tmp/cc.err"))"
fi
if [ ! -e /tmp/wc-perf-dwarf/dwprog ]; then
	"$WCA" folded --mode off "$D/dwarf.data" 2>/dev/null | grep '^dwprog;' >"$tmp/dw0"
	expect "dwarf.data without the program: no dw_main, the ip and [unwind failed] ($(head -1 "$tmp/dw0"))" \
		"$(grep -c dw_main "$tmp/dw0")" -eq 0 -a "$(grep -c '^dwprog;\[unwind failed\];' "$tmp/dw0")" -ge 1
fi

# 3. damaged files: one line naming the file, exit 1 (damaged) or 3 (cut), never a crash
G="$D/g.data"
size=$(wc -c <"$G")
bad=0
crash=0
for off in 0 7 8 50 103 104 200 424 1000 4096 8000 $((size / 3)) $((size / 2)) $((size - 9)); do
	head -c "$off" "$G" >"$tmp/cut.data"
	"$WCA" folded "$tmp/cut.data" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -lt 128 ] || crash=$((crash + 1))
	[ $rc -eq 0 ] || [ $rc -eq 1 ] || [ $rc -eq 3 ] || bad=$((bad + 1))
done
expect "cut g.data at 14 offsets: no crash ($crash), exit 0, 1 or 3 ($bad others)" \
	$crash -eq 0 -a $bad -eq 0
/usr/bin/python3 - "$G" "$tmp" <<'EOF'
import random, struct, sys
src, tmp = sys.argv[1], sys.argv[2]
b = bytearray(open(src, 'rb').read())
def w(name, data):
    open(f'{tmp}/{name}.data', 'wb').write(data)
w('swapped', b'2ELIFREP' + b[8:])
w('attr0', b[:16] + struct.pack('<Q', 0) + b[24:])
data_off, data_size = struct.unpack_from('<QQ', b, 40)
w('datapast', b[:48] + struct.pack('<Q', len(b) * 4) + b[56:])
feat = data_off + data_size
w('featpast', b[:feat] + struct.pack('<QQ', len(b) + 100, 64) + b[feat + 16:])
# as perf record killed leaves it: a data size of 0, no features, records to the end
w('zerodata', b[:48] + struct.pack('<Q', 0) + b[56:72] + bytes(32) + b[104:feat])
random.seed(18)
for i in range(40):
    c = bytearray(b)
    for _ in range(8):
        c[random.randrange(len(c))] ^= 1 << random.randrange(8)
    w(f'flip{i}', c)
EOF
for x in swapped attr0 datapast featpast; do
	"$WCA" folded "$tmp/$x.data" >/dev/null 2>"$tmp/err"
	rc=$?
	expect "$x: exit 1 with one line naming the file ($(head -n1 "$tmp/err" | head -c 200))" \
		$rc -eq 1 -a "$(grep -c "$tmp/$x.data" "$tmp/err")" -eq 1
done
"$WCA" info "$tmp/swapped.data" 2>&1 | grep -q 'other byte order'
expect "swapped: the refusal says why" $? -eq 0
"$WCA" folded "$tmp/zerodata.data" >/dev/null 2>"$tmp/err"
expect "zerodata (perf killed before its header): exit 3, a warning ($(head -n1 "$tmp/err" | head -c 200))" \
	$? -eq 3
crash=0
for i in $(seq 0 39); do
	"$WCA" timehist "$tmp/flip$i.data" >/dev/null 2>&1
	[ $? -lt 128 ] || crash=$((crash + 1))
done
expect "40 files of 8 flipped bits: no crash ($crash)" $crash -eq 0

echo "$fails failed"
[ $fails -eq 0 ]
