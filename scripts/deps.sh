#!/bin/sh
# deps.sh - install the Debian packages wcrec needs to build and test, those missing only.
# chromium, xmllint and python3-jsonschema are for the tests of the pictures and exports.
# Run as root (or through sudo).  Used by quickstart.sh and test.sh.
set -eu
PKGS="build-essential autoconf automake pkg-config
      libzstd-dev libxxhash-dev libtraceevent-dev libelf-dev libdw-dev libiberty-dev libcriterion-dev
      linux-perf bpftrace
      chromium libxml2-utils python3-jsonschema"
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
