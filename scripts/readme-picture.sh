#!/bin/sh
# readme-picture.sh - the README's picture: the quick start's flame graph (demo.svg, made by
# scripts/quickstart.sh) rendered by headless Chromium into doc/demo-flamegraph.png.
# usage: scripts/readme-picture.sh [SVG]   (run scripts/quickstart.sh first)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
svg=$(cd "$(dirname "${1:-$top/demo.svg}")" && pwd)/$(basename "${1:-$top/demo.svg}")
[ -s "$svg" ] || { echo "readme-picture.sh: no $svg: run scripts/quickstart.sh first" >&2; exit 1; }
chromium=
for c in chromium chromium-browser google-chrome; do
	[ -n "$chromium" ] && break
	chromium=$(command -v $c 2>/dev/null || true)
done
[ -n "$chromium" ] || { echo "readme-picture.sh: no chromium (apt-get install chromium)" >&2; exit 1; }
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
mkdir -p "$top/doc"
timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run \
	--user-data-dir="$profile" --hide-scrollbars --virtual-time-budget=5000 \
	--window-size=1200,400 --screenshot="$top/doc/demo-flamegraph.png" "file://$svg" \
	>/dev/null 2>&1
echo "readme-picture.sh: $top/doc/demo-flamegraph.png ($(stat -c %s "$top/doc/demo-flamegraph.png") bytes)"
