#!/bin/sh
# quickstart.sh - install what is missing, build, record the bundled demo workload, and show
# what wcanalyze makes of it: the per-thread table, a flame graph (demo.svg) and the folded
# stacks (demo.folded).  Installing and recording need root: run as a user, it asks sudo.
# usage: scripts/quickstart.sh [SECONDS]
set -eu
if [ "$(id -u)" != 0 ]; then
	if ! command -v sudo >/dev/null 2>&1; then
		echo "quickstart.sh: installing packages and recording need root, and there is no" \
			"sudo: run it as root" >&2
		exit 1
	fi
	exec sudo sh "$0" "$@"
fi
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-3}
"$top/scripts/deps.sh"
"$top/scripts/build.sh" "$top/build"
cd "$top"
echo "quickstart: recording build/demo/wcdemo for $secs s"
build/wcrec -o demo.wct -- build/demo/wcdemo "$secs"
build/wcanalyze info demo.wct
echo
build/wcanalyze threads demo.wct
build/wcanalyze flamegraph -o demo.svg demo.wct
build/wcanalyze folded demo.wct >demo.folded
echo
echo "quickstart: the trace is $top/demo.wct"
echo "quickstart: its wall-clock flame graph is $top/demo.svg (open it in a browser: on-CPU and"
echo "quickstart: off-CPU time of the same threads; click to zoom, Ctrl-F to search)"
echo "quickstart: folded stacks in $top/demo.folded; the five heaviest:"
sort -t' ' -k2 -rn demo.folded | head -5
