#!/bin/sh
# compare-outputs.sh - the "before and after" check of a change to wcanalyze: runs every
# command of testdata/golden/commands with the wcanalyze of two build directories on each
# trace given, and reports any byte difference in stdout, stderr or exit status.
# usage: tests/compare-outputs.sh BUILD_A BUILD_B [TRACE.wct...]
#   BUILD_A, BUILD_B  build directories holding a built wcanalyze (e.g. one of the main
#                     branch, one of the refactored tree)
#   TRACE.wct         traces to run on (default: testdata/golden/*.wct); add fresh
#                     recordings, e.g. `wcrec -o fresh1.wct -- BUILD/demo/wcdemo 0.2`
#   COMMANDS=FILE     another command list (one wcanalyze argument list a line, the trace
#                     appended), default testdata/golden/commands beside this script
# Each command runs as tests/golden.sh runs it (tests/golden-lib.sh): the trace copied under
# its bare name, --symfs to an empty directory, so paths and local files do not differ.
# Exit status: 0 all identical; 1 a difference: the first differing command (by trace, then
# line) with a diff excerpt, and how many outputs differ in all; 2 bad usage.
# Not run by make check (it needs two builds).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/golden-lib.sh
. "$here/golden-lib.sh"
if [ $# -lt 2 ]; then
	sed -n '2,17s/^# \{0,1\}//p' "$0" >&2
	exit 2
fi
a=$1 b=$2
shift 2
[ $# -gt 0 ] || set -- "$here"/../testdata/golden/*.wct
commands=${COMMANDS:-$here/../testdata/golden/commands}
for d in "$a" "$b"; do
	[ -x "$d/wcanalyze" ] || { echo "compare-outputs: no $d/wcanalyze" >&2; exit 2; }
done
[ -r "$commands" ] || { echo "compare-outputs: cannot read $commands" >&2; exit 2; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/a" "$tmp/b"

first="" ndiff=0 ncmp=0
for trace in "$@"; do
	[ -r "$trace" ] || { echo "compare-outputs: cannot read $trace" >&2; exit 2; }
	name=$(basename "$trace" .wct)
	if ! golden_run "$a/wcanalyze" "$commands" "$trace" "$tmp/a" ||
		! golden_run "$b/wcanalyze" "$commands" "$trace" "$tmp/b"; then
		echo "compare-outputs: $name: cannot run the commands" >&2
		exit 2
	fi
	n=0
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		for ext in rc out err; do
			f="$name.$n.$ext"
			ncmp=$((ncmp + 1))
			cmp -s "$tmp/a/$f" "$tmp/b/$f" && continue
			ndiff=$((ndiff + 1))
			[ -z "$first" ] || continue
			first="$f"
			echo "DIFFERENT: $trace, line $n: wcanalyze $line $name.wct: $ext"
			diff -u --label "$a" --label "$b" "$tmp/a/$f" "$tmp/b/$f" | head -30
		done
	done <"$commands"
	rm -f "$tmp"/a/* "$tmp"/b/*
done
if [ $ndiff -gt 0 ]; then
	echo "compare-outputs: $ndiff of $ncmp outputs differ (first shown above)"
	exit 1
fi
echo "compare-outputs: $ncmp outputs identical ($# traces, $(wc -l <"$commands") commands)"
