#!/bin/sh
# static-live.sh - the static recorder (configure --enable-static-recorder; make check builds
# tests/wcrec-static wherever it can be linked) where nothing else is installed: a chroot
# holding that one file and the /proc and /sys mounts.  Checked:
#  - it is static (no program interpreter) and its size is printed, stripped;
#  - inside the chroot, `wcrec -a -d 2` while wcdemo runs outside, and `wcrec -p` of that
#    wcdemo, end cleanly with nothing lost, and their traces analyse here as a normal build's:
#    the same `info` sections, wcdemo's threads in `threads`, its functions named in `folded`.
# A sanitizer build has no static recorder (ASan does not link statically): a skip, whatever
# WC_REQUIRE_RECORDING says.  Elsewhere, no static recorder is a failure under it (the -dev
# packages scripts/deps.sh installs carry the static archives).
# Needs root; exits 77 with the reason elsewhere, or fails when WC_REQUIRE_RECORDING=1.
set -u
B=${builddir:-.}
WCA="$B/wcanalyze"
DEMO="$B/demo/wcdemo"
. "$(dirname "$0")/testlib.sh"

if [ -x "$B/tests/wcrec-static" ]; then
	SREC="$B/tests/wcrec-static"
elif ! readelf -l "$B/wcrec" 2>/dev/null | grep -q 'INTERP'; then
	SREC="$B/wcrec" # configured with --enable-static-recorder
elif sanitizer_build; then
	echo "SKIP: a sanitizer build: no static recorder (ASan cannot link statically)"
	exit 77
else
	skip "configure could not link the recorder statically: apt-get install libdw-dev libelf-dev libzstd-dev libxxhash-dev zlib1g-dev libbz2-dev liblzma-dev"
fi

# 1. static, and how big
expect "$SREC has no program interpreter (statically linked)" \
	"$(readelf -l "$SREC" | grep -c 'INTERP')" -eq 0
strip -o "$tmp/wcrec" "$SREC"
echo "note: the static recorder is $(stat -c %s "$tmp/wcrec") bytes stripped ($(stat -c %s "$SREC") as built)"

# 2. a chroot with that file alone, and /proc and /sys; everything unmounted on the way out
root="$tmp/root"
mkdir -p "$root/proc" "$root/sys" "$root/tmp"
cp "$tmp/wcrec" "$root/wcrec"
demo_pid=
cleanup() {
	[ -z "$demo_pid" ] || kill "$demo_pid" 2>/dev/null
	for m in "$root/sys/kernel/tracing" "$root/sys/kernel/debug/tracing" "$root/sys/kernel/debug" \
		"$root/sys" "$root/proc"; do
		mountpoint -q "$m" 2>/dev/null && umount "$m"
	done
}
# the script's status through cleanup to keep_on_failure, which exits with it
trap 'rc=$?; cleanup; (exit $rc); keep_on_failure' EXIT
mount -t proc proc "$root/proc" && mount -t sysfs sysfs "$root/sys" ||
	skip "cannot mount /proc and /sys in a chroot here"
# (find -xdev: not into the mounts)
expect "the chroot holds one file: $(cd "$root" && find . -xdev -type f | tr '\n' ' ')" \
	"$(cd "$root" && find . -xdev -type f | wc -l)" -eq 1

# the lock held across both recordings, and taken before the demo starts: on CI, waiting for
# it before the second (while another test recorded alone) outlasted the demo's 60 s, and
# wcrec -p found no process
shared_begin
"$DEMO" 60 >/dev/null 2>&1 &
demo_pid=$!
dp=$demo_pid
sleep 0.5
chroot "$root" /wcrec -q -a -d 2 -o /tmp/all.wct 2>"$tmp/err"
expect "chroot: wcrec -a -d 2 exits 0 ($(cat "$tmp/err"))" $? -eq 0
chroot "$root" /wcrec -q -p "$demo_pid" -d 2 -o /tmp/pid.wct 2>"$tmp/err"
expect "chroot: wcrec -p WCDEMO -d 2 exits 0 ($(cat "$tmp/err"))" $? -eq 0
shared_end
kill "$demo_pid"
wait "$demo_pid" 2>/dev/null
demo_pid=

# 3. the traces analyse here as a normal build's: info's sections, nothing lost; the demo's
# threads and its functions named (its binary is here, at the path the maps recorded)
shared_run "$B/wcrec" -q -a -d 1 -o "$tmp/normal.wct" 2>/dev/null
"$WCA" info "$tmp/normal.wct" 2>/dev/null | sed -n 's/^\([a-z][a-z -]*\):.*/\1/p' >"$tmp/normal.sections"
for f in all pid; do
	w="$root/tmp/$f.wct"
	"$WCA" info "$w" >"$tmp/$f.info" 2>"$tmp/err"
	expect "$f: wcanalyze info exits 0 ($(cat "$tmp/err"))" $? -eq 0
	expect "$f: ended cleanly" "$(grep -c '^file: .*ended cleanly' "$tmp/$f.info")" -eq 1
	expect "$f: nothing lost ($(grep '^lost:' "$tmp/$f.info"))" \
		"$(grep -c '^lost: *0 events (ring buffer full), 0 samples' "$tmp/$f.info")" -eq 1
	sed -n 's/^\([a-z][a-z -]*\):.*/\1/p' "$tmp/$f.info" >"$tmp/$f.sections"
	expect "$f: info has a normal build's sections ($(tr '\n' ' ' <"$tmp/$f.sections"))" \
		"$(comm -13 "$tmp/$f.sections" "$tmp/normal.sections" | grep -cv '^target$')" -eq 0
	"$WCA" threads -p "$dp" "$w" >"$tmp/$f.threads" 2>"$tmp/err"
	expect "$f: wcdemo's four worker threads in threads ($(grep -c ' demo-' "$tmp/$f.threads"))" \
		"$(grep -c ' demo-' "$tmp/$f.threads")" -ge 4
	"$WCA" folded -p "$dp" "$w" >"$tmp/$f.folded" 2>"$tmp/err"
	expect "$f: wcdemo's functions named in folded ($(grep -o ';demo_[a-z]*;' "$tmp/$f.folded" | sort -u | tr -d ';' | tr '\n' ' '))" \
		"$(grep -o ';demo_[a-z]*;' "$tmp/$f.folded" | sort -u | wc -l)" -eq 4
done

[ $fails -eq 0 ] || { echo "$fails checks failed"; exit 1; }
