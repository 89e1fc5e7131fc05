#!/bin/sh
# initramfs-live.sh - the static recorder where nothing else is installed, on another kernel:
# a busybox-only initramfs (busybox-static, tests/wcrec-static, tests/wcdemo-static, an init
# script) booted under qemu with Debian's newest 6.1 cloud kernel (fetched with apt-get
# download, kept in the build tree for the next run).  Inside, `wcrec -- wcdemo 1`; the trace
# comes out on the serial console in base64 and is analysed here, on another kernel: that is
# the "analysis on another machine" case.  Checked: the guest ran the recording (exit 0, a
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
	if ldd "$B/wcrec" 2>/dev/null | grep -q 'libasan\|libubsan'; then
		echo "SKIP: a sanitizer build: no static recorder (ASan cannot link statically)"
		exit 77
	fi
	skip "configure could not link the recorder statically: apt-get install libelf-dev libzstd-dev libxxhash-dev zlib1g-dev"
fi
command -v qemu-system-x86_64 >/dev/null 2>&1 || skip "no qemu-system-x86_64: apt-get install qemu-system-x86"
BUSYBOX=/bin/busybox
[ -x "$BUSYBOX" ] && ! ldd "$BUSYBOX" >/dev/null 2>&1 ||
	skip "no static busybox at $BUSYBOX: apt-get install busybox-static"

# 1. the kernel: the newest linux-image-6.1.0-N-cloud-amd64-unsigned of the package lists
cache="$B/tests/vm-cache"
mkdir -p "$cache"
pkg=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-cloud-amd64-unsigned$' 2>/dev/null |
	awk '{ print $1 }' | sort -t- -k4,4n | tail -1)
[ -n "$pkg" ] || skip "no linux-image-6.1.0-*-cloud-amd64-unsigned in the package lists (apt-get update?)"
kernel=$(ls "$cache/$pkg"/boot/vmlinuz-* 2>/dev/null | head -1)
if [ -z "$kernel" ]; then
	(cd "$tmp" && apt-get download "$pkg" >"$tmp/apt.log" 2>&1) ||
		skip "apt-get download $pkg failed: $(tail -1 "$tmp/apt.log")"
	dpkg-deb -x "$tmp"/"$pkg"_*.deb "$cache/$pkg" || skip "cannot unpack $pkg"
	rm -f "$tmp"/*.deb
	kernel=$(ls "$cache/$pkg"/boot/vmlinuz-* 2>/dev/null | head -1)
fi
[ -n "$kernel" ] || skip "no vmlinuz in $pkg"
echo "note: kernel $pkg"

# 2. the initramfs: busybox, the two static programs, and an init that records, prints the
# trace in base64 between two markers, and powers off
root="$tmp/root"
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/tmp" "$root/dev"
cp "$BUSYBOX" "$root/bin/busybox"
strip -o "$root/wcrec" "$B/tests/wcrec-static"
cp "$B/tests/wcdemo-static" "$root/wcdemo"
cat >"$root/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t devtmpfs dev /dev 2>/dev/null
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t tmpfs tmpfs /tmp
echo "guest: $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs"
/wcrec -q -o /tmp/demo.wct -- /wcdemo 1 >/dev/null 2>/tmp/err
echo "guest: wcrec exit $? ($(cat /tmp/err))"
echo "=====BEGIN WCT"
base64 /tmp/demo.wct
echo "=====END WCT"
poweroff -f
EOF
chmod 755 "$root/init"
(cd "$root" && find . | "$BUSYBOX" cpio -o -H newc 2>/dev/null | gzip -1) >"$tmp/initrd.gz"
expect "the initramfs holds busybox, wcrec, wcdemo and init ($(cd "$root" && find . -type f | tr '\n' ' '))" \
	"$(cd "$root" && find . -type f | wc -l)" -eq 4

# 3. boot it (2 CPUs, 512 MiB; TCG unless WC_VM_KVM=1), 300 s at most
accel=tcg
[ "${WC_VM_KVM:-0}" = 1 ] && [ -w /dev/kvm ] && accel=kvm
start=$(date +%s)
timeout 300 qemu-system-x86_64 -accel "$accel" -smp 2 -m 512 -nographic -no-reboot \
	-kernel "$kernel" -initrd "$tmp/initrd.gz" \
	-append "console=ttyS0 quiet panic=-1 tsc=reliable" >"$tmp/console" 2>"$tmp/qemu.err" </dev/null
rc=$?
echo "note: the guest ran for $(($(date +%s) - start)) s ($accel)"
expect "qemu ends by itself (exit $rc: $(tail -1 "$tmp/qemu.err"))" $rc -eq 0
grep '^guest: ' "$tmp/console" | tr -d '\r' | sed 's/^/note: /'
expect "in the guest: wcrec exit 0" "$(tr -d '\r' <"$tmp/console" | grep -c '^guest: wcrec exit 0 ')" -eq 1
tr -d '\r' <"$tmp/console" | sed -n '/^=====BEGIN WCT$/,/^=====END WCT$/p' | sed '1d;$d' |
	base64 -d >"$tmp/demo.wct" 2>"$tmp/err"
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
