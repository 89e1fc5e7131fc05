#!/bin/sh
# tests/vm/stat-fixture.sh - record testdata/perf/stat.data again: the sched_stat recipe needs
# CONFIG_SCHEDSTATS, which this project's VM kernel lacks, so it runs in a guest of Debian's 6.1
# cloud kernel (tests/vm/boot.sh), with this host's perf (run through its own ld.so, its
# libraries beside it in the initramfs) and tests/blockers.c linked statically.
# usage: builddir=BUILD sh tests/vm/stat-fixture.sh OUT.data   (needs root, qemu, busybox-static)
set -eu
out=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/pl"
for l in $(ldd /usr/bin/perf | awk '/=>/ { print $3 } !/=>/ && /^\t\// { print $1 }'); do
	cp -L "$l" "$tmp/pl/"
done
cp /usr/bin/perf "$tmp/pl/"
(cd "$tmp" && tar -cf pl.tar pl)
gcc -static -O2 -g -fno-omit-frame-pointer -pthread "$top/tests/blockers.c" -o "$tmp/blockers"
cat >"$tmp/init.sh" <<'EOF'
cd /tmp
tar -xf /pl.tar -C /
P="/pl/ld-linux-x86-64.so.2 --library-path /pl /pl/perf"
old=$(cat /proc/sys/kernel/sched_schedstats)
echo 1 >/proc/sys/kernel/sched_schedstats
mkdir -p /tmp/d
/blockers 3 /tmp/d &
B=$!
sleep 1
$P record -B -N -e sched:sched_switch -e sched:sched_stat_sleep -e sched:sched_stat_blocked \
	-e sched:sched_stat_iowait -g -p $B -o stat.data -- sleep 0.1 2>perr
echo "guest: perf exit $? $(tail -3 perr | tr '\n' ' ')"
wait $B
echo $old >/proc/sys/kernel/sched_schedstats
out stat.data stat.data
EOF
WC_VM_TIMEOUT=${WC_VM_TIMEOUT:-300} sh "$top/tests/vm/boot.sh" 6.1-cloud "$tmp/init.sh" "$tmp/out" \
	"$tmp/pl.tar" "$tmp/blockers"
grep '^guest:' "$tmp/out/console"
cp "$tmp/out/stat.data" "$out"
