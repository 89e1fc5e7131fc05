#!/bin/sh
# initramfs-live.sh - the static recorder where nothing else is installed, on another kernel:
# a busybox-only initramfs (busybox-static, tests/wcrec-static, tests/wcdemo-static, an init
# script) booted under qemu with Debian's newest 6.1 cloud kernel (fetched with apt-get
# download, kept in the build tree for the next run).  Inside, `wcrec -- wcdemo 1`; the trace
# comes out on the serial console in base64 and is analysed here, on another kernel: that is
# the "analysis on another machine" case.  tests/vm/boot.sh does the fetching and booting.  Checked: the guest ran the recording (exit 0, a
# clean end), and here `info` shows the guest's kernel, nothing lost, scheduler events and
# samples; `threads` shows the demo's four workers; no switch-in is left to infer.
# qemu runs with TCG (a 2-CPU guest boots in a few seconds); WC_VM_KVM=1 uses KVM.
# A sanitizer build has no static recorder: a skip, whatever WC_REQUIRE_RECORDING says.
# Needs root, qemu-system-x86, busybox-static and the package registry (scripts/deps.sh);
# exits 77 with the reason elsewhere, or fails when WC_REQUIRE_RECORDING=1.
set -u
B=${builddir:-.}
WCA="$B/wcanalyze"
. "$(dirname "$0")/testlib.sh"

if [ ! -x "$B/tests/wcrec-static" ]; then
	if sanitizer_build; then
		echo "SKIP: a sanitizer build: no static recorder (ASan cannot link statically)"
		exit 77
	fi
	skip "configure could not link the recorder statically: apt-get install libelf-dev libzstd-dev libxxhash-dev zlib1g-dev"
fi
# 1-3. the newest 6.1 cloud kernel, an initramfs with busybox, the two static programs and an
# init that records and prints the trace, booted under qemu (tests/vm/boot.sh)
cat >"$tmp/init.sh" <<'EOF2'
/wcrec -q -o /tmp/demo.wct -- /wcdemo 1 >/dev/null 2>/tmp/err
echo "guest: wcrec exit $? ($(cat /tmp/err))"
out demo.wct /tmp/demo.wct
EOF2
strip -o "$tmp/wcrec" "$B/tests/wcrec-static"
alone_begin # as vm-matrix.sh: the guest's CPU would starve another live test's recorder
sh "$(dirname "$0")/vm/boot.sh" 6.1-cloud "$tmp/init.sh" "$tmp/vm" "$tmp/wcrec" \
	"$B/tests/wcdemo-static=wcdemo" >"$tmp/boot.out"
rc=$?
alone_end
[ $rc -eq 77 ] && skip "$(tail -1 "$tmp/boot.out")"
echo "note: kernel $(cat "$tmp/vm/kernel"); $(tail -1 "$tmp/vm/qemu.err")"
expect "qemu ends by itself (boot.sh exit $rc: $(tail -2 "$tmp/vm/qemu.err" | head -1))" $rc -eq 0
cp "$tmp/vm/console" "$tmp/console"
grep '^guest: ' "$tmp/console" | sed 's/^/note: /'
expect "in the guest: wcrec exit 0" "$(grep -c '^guest: wcrec exit 0 ' "$tmp/console")" -eq 1
cp "$tmp/vm/demo.wct" "$tmp/demo.wct" 2>"$tmp/err" || : >"$tmp/demo.wct"
expect "the trace comes out of the console ($(stat -c %s "$tmp/demo.wct") bytes; $(cat "$tmp/err"))" \
	"$(stat -c %s "$tmp/demo.wct")" -gt 1000

# 4. analysed here, on another kernel
"$WCA" info "$tmp/demo.wct" >"$tmp/info" 2>"$tmp/err"
expect "wcanalyze info exits 0 ($(cat "$tmp/err"))" $? -eq 0
sed 's/^/    /' "$tmp/info" | head -12
expect "info: ended cleanly" "$(grep -c '^file: .*ended cleanly' "$tmp/info")" -eq 1
expect "info: the guest's kernel ($(grep '^host:' "$tmp/info"))" \
	"$(grep -c '^host: .*Linux 6\.1\.' "$tmp/info")" -eq 1
expect "info: nothing lost" \
	"$(grep -c '^lost: *0 events (ring buffer full), 0 samples' "$tmp/info")" -eq 1
switches=$(sed -n 's/^records: .*(\([0-9]*\) switches.*/\1/p' "$tmp/info")
samples=$(sed -n 's/^records: .*), \([0-9]*\) samples.*/\1/p' "$tmp/info")
expect "info: scheduler events and samples (${switches:-no} switches, ${samples:-no} samples)" \
	"${switches:-0}" -gt 100 -a "${samples:-0}" -gt 10
info_of() { sed -n "s/^  $1  *//p" "$tmp/info" | head -1; }
# 6.1 traces every switch: a double switch-out can only come of an event dropped as late for
# its round (seen once, in UU-1: the guest's drain slowed by TCG), each dropping one
double=$(info_of 'two switch-outs, no switch-in between') late=$(info_of 'events late for their round (dropped)')
expect "info: no switch-in left to infer (${double:-?} double switch-outs, ${late:-?} events late, $(info_of 'switch-ins from context-switch records') from records)" \
	"${double:-1}" -le "${late:-0}"
"$WCA" threads "$tmp/demo.wct" >"$tmp/threads" 2>"$tmp/err"
expect "threads: the demo's four workers ($(grep -o ' demo-[a-z]*' "$tmp/threads" | sort -u | tr -d '\n'))" \
	"$(grep -o ' demo-[a-z]*' "$tmp/threads" | sort -u | wc -l)" -eq 4

[ $fails -eq 0 ] || { echo "$fails checks failed"; exit 1; }
