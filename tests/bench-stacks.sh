#!/bin/sh
# bench-stacks.sh - user stacks of servers built without frame pointers (Debian's redis-server
# and nginx), recorded by wcrec -g dwarf,SIZE and by perf record --call-graph dwarf on the same
# servers under the same load, one after the other.
#
# For each recording of each server's sched_switch events (DURATION seconds, -p):
#   events    sched_switch events of the server's threads with a callchain
#   frames    mean user frames per event (perf: from perf script; wcrec: tests/wct-stat)
#   trunc     wcrec: share of events whose user stack ends in [truncated]
#   complete  wcrec: share of the server's off-CPU time (wcanalyze folded --mode off) under
#             stacks that do not end in [truncated] (goal >= 90% at the default size)
#   bytes     the file, and bytes per event in it (wcrec records every CPU's events, the
#             target's and others': its bytes per event are over all of them; perf -p records
#             the target's threads only)
#   recorder  CPU seconds (user+sys) and peak RSS of the recorder; for wcrec, its -v figures
#             (cache hit rate, CPU per unwind that missed the cache); and the recorder's CPU
#             over the same recording without stacks copied (-g fp,0) per stack of the server
#             (the unwinding of every process's stacks, hits and misses, and the copies' bytes)
# and the ratios wcrec/perf of frames (goal >= 1) and of bytes per event.
#
# Needs root, perf, redis-server + redis-benchmark (Debian: redis-server, redis-tools), nginx and
# wrk, and a built tree.  A benchmark, not a test: run it by hand; make check never runs it.
# Servers bind 127.0.0.1 only; everything is stopped and removed at the end.
#
# usage: tests/bench-stacks.sh [BUILDDIR]     environment: DURATION=12, SIZES="4096 8192 16384",
#        PERF=perf
# shellcheck disable=SC2086
set -u
builddir=${1:-${builddir:-./build}}
DURATION=${DURATION:-12}
SIZES=${SIZES:-4096 8192 16384}
PERF=${PERF:-perf}
wcrec="$builddir/wcrec"
wca="$builddir/wcanalyze"
stat="$builddir/tests/wct-stat"

die() {
	echo "bench-stacks: $*" >&2
	exit 1
}
[ "$(id -u)" = 0 ] || die "needs root"
for c in "$PERF" redis-server redis-benchmark nginx wrk; do
	command -v "$c" >/dev/null 2>&1 || die "needs $c"
done
[ -x "$wcrec" ] && [ -x "$stat" ] || die "no built tree in $builddir (make, make check)"

tmp=$(mktemp -d)
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	sleep 0.5
	for p in $pids; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# redis: no persistence, 4 clients of redis-benchmark
rport=$(free_port)
redis-server --bind 127.0.0.1 --port "$rport" --save "" --appendonly no --daemonize no \
	>"$tmp/redis.log" 2>&1 &
redis=$!
pids="$pids $redis"
sleep 1
redis-benchmark -p "$rport" -c 4 -n 1000000000 -t get,set -q >/dev/null 2>&1 &
pids="$pids $!"

# nginx: a master and 2 workers, a constant reply; wrk's 4 connections
nport=$(free_port)
mkdir -p "$tmp/nginx"
sh "$(dirname "$0")/nginx-conf.sh" "$tmp" "$nport" >"$tmp/nginx.conf"
nginx -c "$tmp/nginx.conf" -p "$tmp/nginx" -e "$tmp/nginx-error.log" &
nginx=$!
pids="$pids $nginx"
sleep 1
workers=$(pgrep -P "$nginx" | tr '\n' ',')
wrk -t 1 -c 4 -d 3600s "http://127.0.0.1:$nport/" >/dev/null 2>&1 &
pids="$pids $!"
sleep 2

echo "# bench-stacks: user stacks of servers without frame pointers, wcrec -g dwarf against perf"
echo "machine:  $(uname -sr), $(nproc) CPUs; $($PERF version); wcrec $(git -C "$(dirname "$0")" describe --always --dirty 2>/dev/null)"
echo "servers:  redis-server $(redis-server --version | sed 's/.*v=\([^ ]*\).*/\1/') (redis-benchmark -c 4), nginx $(nginx -v 2>&1 | sed 's/.*\///') (wrk -c 4); $DURATION s each recording"
echo
printf '%-8s %-14s %9s %7s %7s %9s %12s %9s %9s %8s  %s\n' server recorder events frames trunc complete bytes "B/event" "cpu s" "rss MB" "wcrec -v"

# perf_run NAME PIDS: perf record --call-graph dwarf of PIDS; prints "events frames bytes B/ev"
perf_run() {
	/usr/bin/time -f '%U %S %M' -o "$tmp/time" \
		"$PERF" record -q -B -N -z -e sched:sched_switch --call-graph dwarf -p "$2" \
		-o "$tmp/$1.data" -- sleep "$DURATION" >/dev/null 2>&1
	"$PERF" script -i "$tmp/$1.data" -F comm,ip 2>/dev/null | awk -v c="$3" '
		/^[^ \t]/ { if (inside) n++; inside = ($1 == c); next }
		inside && NF && $1 !~ /^ffffffff/ { f++ }
		END { if (inside) n++; printf "%d %.2f\n", n, n ? f / n : 0 }' >"$tmp/perf.depth"
	set -- $(cat "$tmp/perf.depth") $(stat -c %s "$tmp/$1.data") $(cat "$tmp/time")
	awk -v n="$1" -v f="$2" -v b="$3" -v u="$4" -v s="$5" -v m="$6" 'BEGIN {
		printf "%9d %7.2f %7s %9s %12d %9.1f %9.2f %8.1f\n", n, f, "-", "-", b, n ? b / n : 0, u + s, m / 1024 }'
}

# wcrec_run NAME PIDS COMM SIZE: the same with wcrec -g dwarf,SIZE (or -g fp with SIZE fp)
wcrec_run() {
	g="dwarf,$4"
	[ "$4" = fp ] && g=fp
	[ "$4" = fp0 ] && g=fp,0
	/usr/bin/time -f '%U %S %M' -o "$tmp/time" \
		"$wcrec" -v -g "$g" --no-samples -p "$2" -d "$DURATION" -o "$tmp/$1.wct" 2>"$tmp/wcrec.err"
	mended=$(sed -n 's/.*mended by CFI: [0-9]* (\([0-9.]*%\) from the cache, \([0-9.]*\) us.*/\1 hits, \2 us\/miss/p' "$tmp/wcrec.err")
	"$stat" "$tmp/$1.wct" | awk -v c="$3" '$1 == "switch_stack" && $2 == c { n += $3; f += $3 * $4; t += $5 }
		$1 ~ /^events\./ { all += $2 }
		END { printf "%d %.2f %.1f %d\n", n, n ? f / n : 0, n ? 100 * t / n : 0, all }' >"$tmp/wc.depth"
	"$wca" folded --mode off "$tmp/$1.wct" 2>/dev/null | awk -v c="$3" '
		index($0, c ";") == 1 { v = $NF; t += v; if (!index($0, "[truncated]") && !index($0, "[unwind failed]")) k += v }
		END { printf "%.1f\n", t ? 100 * k / t : 0 }' >"$tmp/wc.complete"
	set -- $(cat "$tmp/wc.depth") $(cat "$tmp/wc.complete") $(stat -c %s "$tmp/$1.wct") $(cat "$tmp/time")
	awk -v n="$1" -v f="$2" -v t="$3" -v all="$4" -v k="$5" -v b="$6" -v u="$7" -v s="$8" -v m="$9" -v x="$mended" 'BEGIN {
		printf "%9d %7.2f %6.1f%% %8.1f%% %12d %9.1f %9.2f %8.1f  %s; %d events in the file (all CPUs)\n", n, f, t, k, b, all ? b / all : 0, u + s, m / 1024, x, all }'
}

for srv in redis nginx; do
	if [ $srv = redis ]; then target=$redis comm=redis-server; else target="$nginx,${workers%,}" comm=nginx; fi
	printf '%-8s %-14s ' $srv "perf dwarf"
	perf_run "perf-$srv" "$target" "$comm" | tee "$tmp/perf-$srv.row"
	for size in fp0 fp $SIZES; do
		label="wcrec dwarf,$size"
		[ $size = fp ] && label="wcrec fp"
		[ $size = fp0 ] && label="wcrec fp,0"
		printf '%-8s %-14s ' $srv "$label"
		wcrec_run "wc-$srv-$size" "$target" "$comm" "$size" | tee "$tmp/wc-$srv-$size.row"
	done
	set -- $(cat "$tmp/perf-$srv.row")
	pf=$2 pb=$6
	set -- $(cat "$tmp/wc-$srv-fp0.row")
	cpu0=$7 n0=$1
	for size in $SIZES; do
		set -- $(cat "$tmp/wc-$srv-$size.row")
		awk -v s="$size" -v f="$2" -v pf="$pf" -v b="$6" -v pb="$pb" -v k="$4" -v srv="$srv" \
			-v cpu="$7" -v cpu0="$cpu0" -v n="$1" 'BEGIN {
			printf "  %s dwarf,%s: frames %.2f / perf %.2f = %.2f (goal >= 1); bytes/event %.1f / perf %.1f = %.4f; complete %s; recorder CPU over fp,0: %.2f us per stack\n",
				srv, s, f, pf, pf ? f / pf : 0, b, pb, pb ? b / pb : 0, k, n ? (cpu - cpu0) * 1e6 / n : 0 }'
	done
done
