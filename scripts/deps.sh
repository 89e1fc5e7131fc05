#!/bin/sh
# deps.sh - install the Debian packages wcrec needs to build and test, those missing only.
# chromium, xmllint, w3c-sgml-lib (the SVG 1.1 DTD) and python3-jsonschema are for the tests
# of the pictures and exports;
# nodejs and npm too, below.
# clang and libclang-rt-14-dev (libFuzzer, the sanitizers' runtimes) are for make fuzz, time
# (/usr/bin/time) for the RSS check of tests/fuzz-regressions.sh.
# Run as root (or through sudo).  Used by quickstart.sh and test.sh.
set -eu
PKGS="build-essential autoconf automake pkg-config
      libzstd-dev libxxhash-dev libtraceevent-dev libelf-dev libdw-dev libiberty-dev libcriterion-dev
      linux-perf bpftrace
      chromium libxml2-utils w3c-sgml-lib python3-jsonschema
      clang libclang-rt-14-dev time"
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
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
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
