#!/bin/sh
# symbols-anywhere.sh - a trace names its user frames without the recording host's files
# (USYM records, format 1.8; of inlined calls, 1.9).  Two workloads built here with gcc -g from one source, each with
# functions of its own names: wl-sym keeps its .symtab; wl-dbg is stripped (objcopy
# --strip-all) with its symbols in a separate debug file beside it (--only-keep-debug,
# --add-gnu-debuglink).  One recording runs both; then, checked:
#  - the trace holds USYM records of both, wl-dbg's from its debug file (wcanalyze info
#    --symbols);
#  - folded, timehist -g and flamegraph analysed inside a mount namespace (unshare -m) where
#    the workloads, the debug file and /usr/lib/debug are hidden under a tmpfs give the same
#    bytes as on the recording host, and name the workloads' functions; so does folded
#    --inline, with the call inlined into nap where addr2line -i puts it;
#  - recorded with --no-symbols and analysed hidden: the frames are FILE+0xOFFSET, and
#    stderr has the footer line that counts them and says why ("no file");
#  - that trace analysed hidden with --debuginfod, a local debuginfod (Debian's package) in
#    a network namespace of its own serving the workloads and the debug files: the same bytes
#    as here (folded, timehist -g); without debuginfod, ip or curl that part is skipped, and
#    fails under WC_REQUIRE_RECORDING=1.
# Needs root, gcc, objcopy and unshare; exits 77 with the reason elsewhere, or fails when
# WC_REQUIRE_RECORDING=1.
set -u
B=${builddir:-.}
WCREC="$B/wcrec"
WCA=$(cd "$B" && pwd)/wcanalyze
. "$(dirname "$0")/testlib.sh"

for t in gcc objcopy unshare mount; do
	command -v $t >/dev/null 2>&1 || skip "no $t here"
done
unshare -m true 2>/dev/null || skip "unshare -m fails here (no CAP_SYS_ADMIN?)"

mkdir -p "$tmp/bin" "$tmp/out"
cat >"$tmp/wl.c" <<'SRC'
#include <stdlib.h>
#include <time.h>
#define NAME2(p, n) p##_##n
#define NAME(p, n) NAME2(p, n)
static volatile unsigned long sink;
__attribute__((noinline)) void NAME(TAG, spin)(void)
{
	for (unsigned long i = 0; i < 200000; i++)
		sink += i;
}
static inline __attribute__((always_inline)) void NAME(TAG, doze)(void)
{
	struct timespec ts = { 0, 1000000 };
	nanosleep(&ts, NULL);
	sink++;
}
__attribute__((noinline)) void NAME(TAG, nap)(void)
{
	NAME(TAG, doze)();
	sink++;
}
int main(int argc, char **argv)
{
	struct timespec now, end;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += argc > 1 ? atoi(argv[1]) : 1;
	do {
		NAME(TAG, spin)();
		NAME(TAG, nap)();
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec < end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
	return 0;
}
SRC
cc="gcc -g -O1 -fno-omit-frame-pointer"
$cc -DTAG=wlsym -o "$tmp/bin/wl-sym" "$tmp/wl.c" && $cc -DTAG=wldbg -o "$tmp/bin/wl-dbg" "$tmp/wl.c" ||
	skip "gcc cannot build the workload"
(cd "$tmp/bin" && objcopy --only-keep-debug wl-dbg wl-dbg.debug &&
	objcopy --strip-all --add-gnu-debuglink=wl-dbg.debug wl-dbg) || skip "objcopy failed"
readelf -S "$tmp/bin/wl-dbg" | grep -q '\.symtab' && skip "objcopy --strip-all left a .symtab"

run="$tmp/bin/wl-sym 2 & $tmp/bin/wl-dbg 2; wait"
"$WCREC" -q -o "$tmp/out/usym.wct" -- sh -c "$run" >"$tmp/rec.out" 2>"$tmp/rec.err"
rc=$?
if [ $rc -ne 0 ] && grep -q 'perf_event_open\|Permission' "$tmp/rec.err"; then
	skip "wcrec cannot record here: $(head -1 "$tmp/rec.err")"
fi
expect "wcrec exits 0 ($(head -1 "$tmp/rec.err"))" $rc -eq 0
"$WCREC" -q --no-symbols -o "$tmp/out/nosym.wct" -- sh -c "$run" >/dev/null 2>&1
expect "wcrec --no-symbols exits 0" $? -eq 0

"$WCA" info --symbols "$tmp/out/usym.wct" >"$tmp/info" 2>&1
expect "info --symbols names wl-sym from its symtab" \
	-n "$(grep 'wl-sym' "$tmp/info" | grep -w 'symtab')"
expect "info --symbols names wl-dbg from its debug file" \
	-n "$(grep 'wl-dbg' "$tmp/info" | grep 'debug file\|wl-dbg\.debug')"
sed 's/^/  /' "$tmp/info"

# analyse.sh WHERE: the three outputs of each trace into $tmp/WHERE.*
cat >"$tmp/analyse.sh" <<EOS
for t in usym nosym; do
	"$WCA" folded "$tmp/out/\$t.wct" >"$tmp/\$1.\$t.folded" 2>"$tmp/\$1.\$t.err"
	"$WCA" folded --inline "$tmp/out/\$t.wct" >"$tmp/\$1.\$t.inline" 2>/dev/null
	"$WCA" timehist -g --max-stack 16 "$tmp/out/\$t.wct" >"$tmp/\$1.\$t.timehist" 2>/dev/null
	"$WCA" flamegraph -o "$tmp/\$1.\$t.svg" "$tmp/out/\$t.wct" 2>/dev/null
done
EOS
sh "$tmp/analyse.sh" here
# hidden: a tmpfs over the workloads' directory and over /usr/lib/debug
hide="mount -t tmpfs none '$tmp/bin'"
[ -d /usr/lib/debug ] && hide="$hide && mount -t tmpfs none /usr/lib/debug"
unshare -m sh -c "$hide && [ ! -e '$tmp/bin/wl-sym' ] && [ ! -e '$tmp/bin/wl-dbg.debug' ] &&
	sh '$tmp/analyse.sh' hidden" >"$tmp/hidden.out" 2>&1
expect "the hidden analysis ran ($(head -1 "$tmp/hidden.out"))" -f "$tmp/hidden.usym.folded"

for f in usym.folded usym.timehist usym.svg usym.inline; do
	expect "$f: the same bytes with the files hidden" -f "$tmp/hidden.$f" -a -f "$tmp/here.$f"
	cmp -s "$tmp/here.$f" "$tmp/hidden.$f"
	expect "$f: identical ($(cmp "$tmp/here.$f" "$tmp/hidden.$f" 2>&1 | head -1))" $? -eq 0
done
for fn in wlsym_spin wlsym_nap wldbg_spin wldbg_nap; do
	expect "hidden folded names $fn" "$(grep -c ";$fn;\|;$fn " "$tmp/hidden.usym.folded")" -gt 0
done
# every nap's switch-out names its function below the kernel's frames; a spin's only when the
# spin was preempted, which an idle machine may never do (CI XD)
for fn in wlsym_nap wldbg_nap; do
	expect "hidden timehist -g names $fn" "$(grep -c "$fn" "$tmp/hidden.usym.timehist")" -gt 0
done
# --inline: the inlined doze between nap and nanosleep, where addr2line -i (binutils) puts the
# call that nap's frames return to (the byte before the instruction after its call of
# nanosleep, found by objdump), in wl-sym and in wl-dbg's debug file
for w in wl-sym wl-dbg; do
	t=$(echo "$w" | tr -d -- -); f="$tmp/bin/$w"; [ "$w" = wl-dbg ] && f="$f.debug"
	start=$(nm "$f" | awk -v fn="${t}_nap" '$3 == fn { print $1 }')
	ret=$(objdump -d --no-show-raw-insn --start-address="0x${start:-0}" "$tmp/bin/$w" | awk '
		after { sub(/:$/, "", $1); print $1; exit } $2 == "call" && /nanosleep/ { after = 1 }')
	a2l=$(addr2line -i -f -e "$f" "$(printf '0x%x' $((0x${ret:-0} - 1)))" | paste -sd' ')
	expect "addr2line -i: ${t}_doze inlined into ${t}_nap at 0x${ret:-?} - 1 ($a2l)" \
		-n "$(echo "$a2l" | grep "^${t}_doze .* ${t}_nap ")"
	expect "hidden folded --inline: ${t}_nap;${t}_doze;" \
		"$(grep -c ";${t}_nap;${t}_doze;" "$tmp/hidden.usym.inline")" -gt 0
	expect "folded without --inline: no ${t}_doze" "$(grep -c "${t}_doze" "$tmp/hidden.usym.folded")" -eq 0
done
expect "--no-symbols, hidden: wl-sym+0x frames" "$(grep -c 'wl-sym+0x' "$tmp/hidden.nosym.folded")" -gt 0
foot=$(grep 'left unsymbolized' "$tmp/hidden.nosym.err")
expect "--no-symbols, hidden: a footer line ($foot)" -n "$(echo "$foot" | grep 'no file')"

# debuginfod: the --no-symbols trace analysed with the workloads hidden, and /usr/lib/debug,
# while a local debuginfod serves them (and the debug files of libc and ld.so that
# /usr/lib/debug has), in a network namespace of its own (only its 127.0.0.1): the same
# bytes as here, where the files are found on disk
dbgd_part() {
	for t in debuginfod debuginfod-find ip curl; do
		command -v $t >/dev/null 2>&1 || { echo "no $t (Debian: debuginfod, iproute2, curl)"; return; }
	done
	unshare -mn true 2>/dev/null || { echo "unshare -mn fails here"; return; }
	mkdir -p "$tmp/srv" && cp "$tmp/bin/wl-sym" "$tmp/bin/wl-dbg" "$tmp/bin/wl-dbg.debug" "$tmp/srv/"
	for lib in /usr/lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2; do
		id=$(readelf -n "$lib" 2>/dev/null | sed -n 's/.*Build ID: *//p')
		d=/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
		[ -n "$id" ] && [ -f "$d" ] && cp "$d" "$tmp/srv/$(basename "$lib").debug" &&
			cp "$lib" "$tmp/srv/" && ids="${ids:-} $id"
	done
	ids="${ids:-} $(readelf -n "$tmp/bin/wl-dbg" | sed -n 's/.*Build ID: *//p')"
	port=$((20000 + $$ % 20000))
	unshare -mn sh -c "ip link set lo up || exit 1
		debuginfod -p $port -F '$tmp/srv' -d '$tmp/dbgd.sqlite' >'$tmp/dbgd.log' 2>&1 &
		s=\$!
		export DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_CACHE_PATH='$tmp/dbgd-cache'
		for id in $ids; do # until it serves each debug file (its first scan); a cache of
			# its own each time, as the client caches a miss for 10 minutes
			for i in \$(seq 300); do
				DEBUGINFOD_CACHE_PATH='$tmp'/wait.\$id.\$i debuginfod-find debuginfo \$id \
					>/dev/null 2>&1 && break
				sleep 0.2
			done
		done
		$hide && '$WCA' folded --debuginfod '$tmp/out/nosym.wct' >'$tmp/dbgd.nosym.folded' 2>'$tmp/dbgd.err'
		'$WCA' timehist -g --max-stack 16 --debuginfod '$tmp/out/nosym.wct' >'$tmp/dbgd.nosym.timehist' 2>/dev/null
		'$WCA' folded --inline --debuginfod '$tmp/out/nosym.wct' >'$tmp/dbgd.nosym.inline' 2>/dev/null
		kill \$s" >"$tmp/dbgd.out" 2>&1
}
why=$(dbgd_part)
if [ -n "$why" ]; then
	echo "SKIP the debuginfod part: $why"
	[ "${WC_REQUIRE_RECORDING:-0}" = 1 ] && expect "debuginfod part runs (WC_REQUIRE_RECORDING=1)" 0 = 1
else
	for f in nosym.folded nosym.timehist nosym.inline; do
		cmp -s "$tmp/here.$f" "$tmp/dbgd.$f"
		expect "$f: hidden, from debuginfod: identical ($(cmp "$tmp/here.$f" "$tmp/dbgd.$f" 2>&1 | head -1))" $? -eq 0
	done
	expect "from debuginfod: wldbg_spin named" "$(grep -c wldbg_spin "$tmp/dbgd.nosym.folded")" -gt 0
fi

[ $fails -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all passed"
