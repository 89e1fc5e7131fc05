#!/bin/sh
# quickstart.sh - install what is missing, build, and record the bundled demo workload.
# usage: sudo scripts/quickstart.sh [SECONDS]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-3}
"$top/scripts/deps.sh"
"$top/scripts/build.sh" "$top/build"
cd "$top"
echo "quickstart: recording build/demo/wcdemo for $secs s"
build/wcrec -o demo.wct -- build/demo/wcdemo "$secs"
echo "quickstart: trace written to $top/demo.wct"
