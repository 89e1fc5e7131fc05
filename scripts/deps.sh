#!/bin/sh
# deps.sh - install the Debian packages wcrec needs to build and test, those missing only.
# chromium, xmllint, w3c-sgml-lib (the SVG 1.1 DTD) and python3-jsonschema are for the tests
# of the pictures and exports, golang-go (go tool pprof) for tests/pprof-export.sh;
# nodejs and npm too, below.
# clang-format is for make format-check (the style of .clang-format);
# clang and libclang-rt-14-dev (libFuzzer, the sanitizers' runtimes) are for make fuzz, time
# (/usr/bin/time) for the RSS check of tests/fuzz-regressions.sh.
# postgresql, redis-server (redis-tools: redis-benchmark, redis-cli), nginx and wrk are the
# real servers of tests/servers-live.sh and their load; procps gives it pgrep.  A package
# that starts its service on install (where the machine allows it) leaves it on its default
# port (nginx's on every address): so they are installed with their start refused (a
# policy-rc.d of our own for the time of apt-get, when the machine has none) and, under
# systemd, disabled; the test starts its own servers on 127.0.0.1, on free ports.
# qemu-system-x86 and busybox-static boot the busybox-only initramfs of tests/initramfs-live.sh
# and tests/vm-matrix.sh (tests/vm/boot.sh)
# (the static recorder on Debian's 6.1 kernel, which it fetches with apt-get download).
# debuginfod (the server) and iproute2 are for tests/symbols-anywhere.sh: a local server in a
# network namespace of its own; curl for it and for the push recipes (tests/pprof-push.sh).
# libc6-dbg (libc's debug file, with its DWARF) lets tests/inline-agree.sh,
# tests/symbols-anywhere.sh and tests/pprof-export.sh check inlined calls in libc too.
# stress-ng (its --switch futex ping-pong, 180,000 events a second here) is the busy machine of
# tests/rotate-live.sh and tests/bench-pprof.sh.
# debhelper and lintian build and check the Debian packages (scripts/package.sh).
# Run as root (or through sudo).  Used by quickstart.sh and test.sh.
set -eu
PKGS="build-essential autoconf automake pkg-config
      libzstd-dev libxxhash-dev libtraceevent-dev libelf-dev libdw-dev libdebuginfod-dev libiberty-dev libcriterion-dev
      libbz2-dev liblzma-dev zlib1g-dev
      linux-perf bpftrace
      chromium libxml2-utils w3c-sgml-lib python3-jsonschema golang-go
      clang clang-format libclang-rt-14-dev time
      postgresql redis-server redis-tools nginx wrk procps debuginfod iproute2 curl
      qemu-system-x86 busybox-static libc6-dbg stress-ng
      debhelper lintian"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "deps.sh: missing packages:$missing; run as root or with sudo" >&2
		exit 1
	fi
	echo "deps.sh: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	policy=
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		policy=/usr/sbin/policy-rc.d
		# removed however this script ends (dash runs no EXIT trap on a signal)
		trap 'rm -f "$policy"' EXIT
		trap 'exit 1' INT TERM HUP
		printf '#!/bin/sh\n# deps.sh: no service starts while it installs\nexit 101\n' \
			>"$policy"
		chmod 755 "$policy"
	fi
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
	[ -z "$policy" ] || rm -f "$policy"
	# nor at the next boot, where systemd runs: the servers it installed stay off
	if [ -d /run/systemd/system ]; then
		for p in $missing; do
			case $p in
			postgresql | redis-server | nginx)
				systemctl disable --now "$p" >/dev/null 2>&1 || true ;;
			esac
		done
	fi
fi
# Node.js and npm, for the export tests: DevTools' trace engine is driven from node, and
# speedscope's published schema comes from its npm package.  Checked by command, not by
# package: a NodeSource nodejs conflicts with Debian's npm package.
if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
	if [ "$(id -u)" != 0 ]; then
		echo "deps.sh: node and npm are missing; run as root or with sudo" >&2
		exit 1
	fi
	echo "deps.sh: installing nodejs npm"
	export DEBIAN_FRONTEND=noninteractive
	[ -n "$missing" ] || apt-get update -qq
	apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi
# speedscope's schema into /var/cache/wcanalyze-tests (the tests fetch it too when missing)
if [ "$(id -u)" = 0 ]; then
	sh "$(dirname "$0")/../testdata/export/speedscope-schema.sh" >/dev/null 2>&1 || true
fi
