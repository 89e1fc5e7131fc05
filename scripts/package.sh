#!/bin/sh
# package.sh - the Debian packages, as a user builds them from the release tarball: make dist,
# unpack it, `dpkg-buildpackage -us -uc -b` there, lintian on the result (an error fails),
# then `dpkg -i` of both packages, a recording of /bin/true by /usr/bin/wcrec (which must be
# static) analysed by /usr/bin/wcanalyze, and the packages removed again.
# Needs root (dpkg -i), debhelper and lintian (scripts/deps.sh), and a configured build tree.
# usage: scripts/package.sh [BUILD-DIR]   (default: build/)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
make -C "$build" dist >"$work/dist.log" 2>&1 || { tail -20 "$work/dist.log"; exit 1; }
tarball=$(ls -t "$build"/wcrec-*.tar.gz | head -1)
tar -C "$work" -xzf "$tarball"
src=$(ls -d "$work"/wcrec-*/)
echo "package.sh: dpkg-buildpackage -us -uc -b in $(basename "$tarball")"
if ! (cd "$src" && dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1; then
	tail -40 "$work/build.log"
	exit 1
fi
ls "$work"/*.deb | sed 's|.*/|package.sh: built |'
echo "package.sh: lintian"
lintian --fail-on error "$work"/*.changes
# the packages are removed afterwards: not over ones installed before
if dpkg-query -W -f='${Status}' wcrec wcanalyze 2>/dev/null | grep -q 'install ok installed'; then
	echo "package.sh: wcrec or wcanalyze is installed already: not installing over it"
	exit 0
fi
echo "package.sh: dpkg -i, and the programs from /usr/bin"
dpkg -i "$work"/wcrec_*.deb "$work"/wcanalyze_*.deb >/dev/null
status=0
if ldd /usr/bin/wcrec >/dev/null 2>&1; then
	echo "package.sh: /usr/bin/wcrec is not static" >&2
	status=1
fi
/usr/bin/wcrec -q -o "$work/true.wct" -- /bin/true || status=1
/usr/bin/wcanalyze info "$work/true.wct" | head -4 || status=1
dpkg -r wcrec wcanalyze >/dev/null
exit $status
