#!/bin/sh
# quickstart.sh - install what is missing, build, record the bundled demo workload, and turn
# the trace into a wall-clock profile (folded stacks) with wcanalyze.
# usage: sudo scripts/quickstart.sh [SECONDS]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-3}
"$top/scripts/deps.sh"
"$top/scripts/build.sh" "$top/build"
cd "$top"
echo "quickstart: recording build/demo/wcdemo for $secs s"
build/wcrec -o demo.wct -- build/demo/wcdemo "$secs"
build/wcanalyze info demo.wct
build/wcanalyze folded demo.wct >demo.folded
echo "quickstart: trace in $top/demo.wct, wall-clock profile in $top/demo.folded (folded stacks:"
echo "quickstart: flamegraph.pl demo.folded > demo.svg draws it); the five heaviest stacks:"
sort -t' ' -k2 -rn demo.folded | head -5
