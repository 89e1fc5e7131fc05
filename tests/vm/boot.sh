#!/bin/sh
# tests/vm/boot.sh - boot a Debian kernel under qemu with a busybox initramfs that runs a
# script, and bring back the files it prints.
# usage: boot.sh SERIES INIT OUTDIR [FILE[=NAME]...]
#   SERIES  6.1-cloud, 6.1-rt or 6.12-cloud: the newest linux-image-...-unsigned package of
#           that series in the package lists, fetched once with apt-get download and unpacked
#           under $B/tests/vm-cache (the build tree), where the next run finds it
#   INIT    a busybox sh script run as root in the guest once /proc, /sys, /dev, /tmp and
#           tracefs are mounted (the shell function `out NAME PATH` prints PATH in base64
#           between markers); the guest powers off when it ends
#   OUTDIR  receives console (the serial console, CRs removed), kernel (the package's name)
#           and each file the guest sent with `out NAME`, decoded, as OUTDIR/NAME
#   FILE    copied into the initramfs as /NAME (default: its base name), e.g. static programs
# The initramfs holds /bin/busybox (busybox-static), /init and the FILEs.  qemu runs with 2
# CPUs and 512 MiB, TCG unless WC_VM_KVM=1 and /dev/kvm is writable, 180 s at most
# (WC_VM_TIMEOUT); WC_VM_APPEND adds to the kernel's command line (loglevel=7: the kernel's
# messages in full, interleaved with the files).  noirqdebug: under PREEMPT_RT the serial port's threaded handler falls
# behind a TCG guest's output, the kernel takes IRQ 4 for stuck ("nobody cared") and
# disables it, and the console stops.
# Exit status: 0 when the guest powered off by itself, 1 when qemu failed or timed out, 77
# (with the reason on stdout) when qemu, busybox-static or the package cannot be had.
set -u
B=${builddir:-.}
[ $# -ge 3 ] || { echo "usage: boot.sh SERIES INIT OUTDIR [FILE[=NAME]...]" >&2; exit 2; }
series=$1 init=$2 out=$3
shift 3
mkdir -p "$out"

command -v qemu-system-x86_64 >/dev/null 2>&1 || { echo "no qemu-system-x86_64: apt-get install qemu-system-x86"; exit 77; }
BUSYBOX=/bin/busybox
if [ ! -x "$BUSYBOX" ] || ldd "$BUSYBOX" >/dev/null 2>&1; then
	echo "no static busybox at $BUSYBOX: apt-get install busybox-static"
	exit 77
fi

# 1. the kernel: the newest package of the series, kept in the build tree
case $series in
6.1-cloud) re='^linux-image-6\.1\.0-[0-9]+-cloud-amd64-unsigned$' ;;
6.1-rt) re='^linux-image-6\.1\.0-[0-9]+-rt-amd64-unsigned$' ;;
6.12-cloud) re='^linux-image-6\.12\.[0-9]+\+deb[0-9]+-cloud-amd64-unsigned$' ;;
*) echo "boot.sh: unknown series $series" >&2; exit 2 ;;
esac
cache="$B/tests/vm-cache"
mkdir -p "$cache"
pkg=$(apt-cache search --names-only "$re" 2>/dev/null | awk '{ print $1 }' | sort -V | tail -1)
if [ -z "$pkg" ]; then
	# no package lists (no registry): a kernel of the series fetched earlier will do
	pkg=$(ls "$cache" 2>/dev/null | grep -E "$re" | sort -V | tail -1)
fi
[ -n "$pkg" ] || { echo "no package matching $re in the package lists (apt-get update?)"; exit 77; }
kernel=$(ls "$cache/$pkg"/boot/vmlinuz-* 2>/dev/null | head -1)
if [ -z "$kernel" ]; then
	dl=$(mktemp -d)
	if ! (cd "$dl" && apt-get download "$pkg" >"$dl/apt.log" 2>&1); then
		echo "apt-get download $pkg failed: $(tail -1 "$dl/apt.log")"
		rm -rf "$dl"
		exit 77
	fi
	dpkg-deb -x "$dl"/*.deb "$cache/$pkg.part" || { echo "cannot unpack $pkg"; rm -rf "$dl"; exit 77; }
	rm -rf "$dl"
	mv "$cache/$pkg.part" "$cache/$pkg"
	kernel=$(ls "$cache/$pkg"/boot/vmlinuz-* 2>/dev/null | head -1)
fi
[ -n "$kernel" ] || { echo "no vmlinuz in $pkg"; exit 77; }
echo "$pkg" >"$out/kernel"

# 2. the initramfs
root="$out/root"
rm -rf "$root"
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/tmp" "$root/dev"
cp "$BUSYBOX" "$root/bin/busybox"
for f in "$@"; do
	case $f in
	*=*) src=${f%%=*} name=${f#*=} ;;
	*) src=$f name=${f##*/} ;;
	esac
	cp "$src" "$root/$name" || exit 1
	chmod +x "$root/$name"
done
{
	cat <<'HEAD'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t devtmpfs dev /dev 2>/dev/null
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t tmpfs tmpfs /tmp
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
out() { # out NAME PATH: PATH to the host, as OUTDIR/NAME
	echo "=====BEGIN $1"
	base64 "$2"
	echo "=====END $1"
}
echo "guest: $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs"
HEAD
	cat "$init"
	echo 'poweroff -f'
} >"$root/init"
chmod 755 "$root/init"
(cd "$root" && find . | "$BUSYBOX" cpio -o -H newc 2>/dev/null | gzip -1) >"$out/initrd.gz"
rm -rf "$root"

# 3. boot
accel=tcg
[ "${WC_VM_KVM:-0}" = 1 ] && [ -w /dev/kvm ] && accel=kvm
start=$(date +%s)
timeout "${WC_VM_TIMEOUT:-180}" qemu-system-x86_64 -accel "$accel" -smp 2 -m 512 -nographic \
	-no-reboot -kernel "$kernel" -initrd "$out/initrd.gz" \
	-append "console=ttyS0 quiet panic=-1 tsc=reliable noirqdebug ${WC_VM_APPEND:-}" \
	</dev/null >"$out/console.raw" 2>"$out/qemu.err"
rc=$?
tr -d '\r' <"$out/console.raw" >"$out/console"
rm -f "$out/console.raw" "$out/initrd.gz"
echo "boot.sh: $pkg ran for $(($(date +%s) - start)) s ($accel), qemu exit $rc" >>"$out/qemu.err"

# 4. the files the guest printed
for name in $(sed -n 's/^=====BEGIN //p' "$out/console"); do
	sed -n "/^=====BEGIN $name\$/,/^=====END $name\$/p" "$out/console" | sed '1d;$d' |
		base64 -d >"$out/$name" 2>>"$out/qemu.err"
done
[ $rc -eq 0 ] || exit 1
exit 0
