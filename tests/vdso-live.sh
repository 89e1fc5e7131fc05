#!/bin/sh
# vdso-live.sh - [vdso] frames named from the vdso image the trace carries (IMAGE record,
# format 1.7), here and elsewhere, on tests/vdso-clock: one thread that reads CLOCK_MONOTONIC
# in a loop from vc_read_clock(), so most of its samples lie in the vdso.  For wcrec -g dwarf
# and for the default mode (frame pointers mended by CFI), checked:
#  - the trace holds one IMAGE record (tests/wct-stat);
#  - of vc_read_clock's on-CPU time (wcanalyze folded --annotate, user frames only: kernel
#    frames, _[k], are left off the end), the share whose last user frame lies in the vdso
#    (named __vdso_*, or left as [vdso]+0xOFFSET or [unknown]) is at least a third: the loop
#    lives there, so the check below is about something;
#  - of that time, at least 90% has a last user frame named __vdso_* (perf names the vdso's
#    clock_gettime __vdso_clock_gettime, its global symbol, not the weak clock_gettime), or
#    left as [vdso]+0xOFFSET at an offset in no exported function of the vdso (readelf): a
#    kvm-clock guest's vdso reads the clock in a local function before them, which no
#    symbol of the image names;
#  - no frame reads [vdso]+0x at an offset inside an exported function;
#  - wcanalyze info has a vdso line whose size and build-id are those of this shell's vdso,
#    read here with dd from /proc/$$/mem and readelf -n (the same kernel: the same image);
#  - the trace copied elsewhere and analysed with --symfs an empty directory (no file of this
#    machine used): the same 90% of the vdso time named __vdso_*, no [vdso]+0x, and
#    vc_read_clock named from the trace's USYM records.
# Needs root; exits 77 with the reason elsewhere, or fails when WC_REQUIRE_RECORDING=1.
set -u
B=${builddir:-.}
WCREC="$B/wcrec"
WCA="$B/wcanalyze"
PROG="$B/tests/vdso-clock"
STAT="$B/tests/wct-stat"
. "$(dirname "$0")/testlib.sh"

[ -n "$(grep '\[vdso\]' /proc/self/maps)" ] || skip "processes here have no vdso"

# vdso_share FOLDED FUNC: "NAMED_PCT VDSO_US FUNC_US" over the stacks through ;FUNC; (or
# through any frame when FUNC is empty): FUNC_US their on-CPU time, VDSO_US that whose last
# user frame is in the vdso (__vdso_*, [vdso]+0x..., [unknown]), NAMED_PCT the share of
# VDSO_US named __vdso_*
vdso_share() {
	awk -v fn="$2" -v outside="$(outside_offsets "$1")" '
	BEGIN { n = split(outside, o, " "); for (i = 1; i <= n; i++) out["[vdso]+" o[i]] = 1 }
	{
		v = $NF; s = substr($0, 1, length($0) - length(v) - 1)
		if (fn != "" && !index(s, ";" fn ";") && substr(s, length(s) - length(fn)) != ";" fn)
			next
		n = split(s, f, ";")
		if (f[n] ~ /^\[(off-cpu|runqueue)/ || f[n] == "[scheduler]") next
		while (n > 1 && f[n] ~ /_\[k\]$/) n--
		tot += v
		if (f[n] ~ /^__vdso_/ || (f[n] in out)) named += v
		else if (f[n] ~ /^\[vdso\]/ || f[n] == "[unknown]") other += v
		else next
		vd += v
	}
	END { printf "%.2f %d %d\n", vd ? 100 * named / vd : 0, vd, tot }' "$1"
}

# outside_offsets FOLDED: the offsets (0x...) of the [vdso]+0x frames of FOLDED that lie in
# no function of this shell's vdso (readelf --dyn-syms of $tmp/vdso.so, the image the trace
# carries: the build-ids are checked equal below), where no name is the right answer: a
# local function such as the pvclock read of a kvm-clock guest (.text before the first
# exported function); a frame at an offset inside a function is a naming failure
outside_offsets() {
	[ -s "$tmp/vdso.so" ] || return 0
	readelf -W --dyn-syms "$tmp/vdso.so" 2>/dev/null |
		awk '$4 == "FUNC" { print $2, $3 }' >"$tmp/vdso.funcs"
	for off in $(grep -o '\[vdso\]+0x[0-9a-f]*' "$1" | sed 's/^\[vdso\]+//' | sort -u); do
		inside=0
		while read -r value size; do
			[ $((off)) -ge $((0x$value)) ] && [ $((off)) -lt $((0x$value + size)) ] &&
				inside=1
		done <"$tmp/vdso.funcs"
		[ $inside = 1 ] || printf '%s ' "$off"
	done
}

# check MODE TRACE FOLDED FUNC: the checks above on one analysis
check() {
	set -- "$@" $(vdso_share "$3" "$4")
	expect "$1: of ${4:-all} on-CPU ($7 us), at least a third lies in the vdso ($6 us)" \
		"$(awk -v a="$6" -v b="$7" 'BEGIN { print (b > 0 && 3 * a >= b) }')" = 1
	expect "$1: at least 90% of it under a __vdso_* frame, or at an offset in no function of the vdso ($5%)" \
		"$(awk -v p="$5" 'BEGIN { print (p >= 90) }')" = 1
	outs=$(outside_offsets "$3")
	: >"$tmp/vdso.outside"
	for off in $outs; do echo "[vdso]+$off" >>"$tmp/vdso.outside"; done
	bad=$(grep -o '\[vdso\]+0x[0-9a-f]*' "$3" | sort -u | grep -c -v -x -F -f "$tmp/vdso.outside")
	expect "$1: no [vdso]+0x frame inside a function of the vdso ($bad offsets; in none: ${outs:-none})" \
		"$bad" -eq 0
}

# this shell's vdso: "BYTES BUILD-ID", from its /proc/PID/maps line, dd and readelf
own_vdso() {
	set -- $(awk '/ \[vdso\]$/ { split($1, r, "-"); print r[1], r[2] }' /proc/$$/maps)
	[ $# -eq 2 ] || return 1
	len=$((0x$2 - 0x$1))
	dd if=/proc/$$/mem of="$tmp/vdso.so" bs=4096 skip=$((0x$1 / 4096)) count=$((len / 4096)) \
		2>/dev/null || return 1
	echo "$len $(readelf -n "$tmp/vdso.so" 2>/dev/null | sed -n 's/.*Build ID: *//p')"
}
own=$(own_vdso) || own=
echo "note: this shell's vdso: ${own:-not read} (bytes, build-id)"

for mode in dwarf default; do
	t="$tmp/$mode.wct"
	if [ $mode = dwarf ]; then
		"$WCREC" -q -F 999 -g dwarf -o "$t" -- "$PROG" 1 >"$tmp/$mode.out" 2>"$tmp/$mode.err"
	else
		"$WCREC" -q -F 999 -o "$t" -- "$PROG" 1 >"$tmp/$mode.out" 2>"$tmp/$mode.err"
	fi
	rc=$?
	if [ $rc -ne 0 ] && grep -q 'perf_event_open\|Permission' "$tmp/$mode.err"; then
		skip "wcrec cannot record here: $(head -1 "$tmp/$mode.err")"
	fi
	expect "$mode: wcrec exits 0 ($(head -1 "$tmp/$mode.err"))" $rc -eq 0
	expect "$mode: one IMAGE record in the trace" \
		"$("$STAT" "$t" | sed -n 's/^records.image //p')" = 1
	"$WCA" folded --annotate "$t" >"$tmp/$mode.folded" 2>"$tmp/$mode.aerr"
	expect "$mode: wcanalyze folded exits 0" $? -eq 0
	check "$mode" "$t" "$tmp/$mode.folded" vc_read_clock
	line=$("$WCA" info "$t" 2>/dev/null | grep '^vdso:')
	expect "$mode: info: $line" -n "$line"
	if [ -n "$own" ]; then
		got=$(echo "$line" | sed -n 's/^vdso: *\([0-9]*\) bytes.*build-id \([0-9a-f]*\).*/\1 \2/p')
		expect "$mode: info's vdso ($got) is this shell's ($own)" "$got" = "$own"
	fi
	grep 'vc_read_clock' "$tmp/$mode.folded" | sort -t' ' -k2 -nr | head -3 | sed 's/^/  /'

	# elsewhere: another directory, no file of this machine
	mkdir -p "$tmp/elsewhere/empty"
	cp "$t" "$tmp/elsewhere/$mode.wct"
	"$WCA" folded --annotate --symfs "$tmp/elsewhere/empty" "$tmp/elsewhere/$mode.wct" \
		>"$tmp/$mode.else.folded" 2>"$tmp/$mode.else.err"
	expect "$mode elsewhere: wcanalyze folded --symfs EMPTY exits 0" $? -eq 0
	# no file here, but the trace's USYM records (format 1.8) name the program's frames
	expect "$mode elsewhere: vc_read_clock named from the USYM records ($(grep -c 'vc_read_clock' "$tmp/$mode.else.folded") lines)" \
		"$(grep -c 'vc_read_clock' "$tmp/$mode.else.folded")" -gt 0
	check "$mode elsewhere" "$tmp/elsewhere/$mode.wct" "$tmp/$mode.else.folded" ""
done

[ $fails -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all passed"
