#!/bin/sh
# golden.sh - the whole wcanalyze CLI on the small traces checked in under testdata/golden:
# each command of testdata/golden/commands (every subcommand and its main options, and two
# bad option values) on each TRACE.wct there, its stdout, stderr and exit status diffed
# against testdata/golden/expected/TRACE.N.{out,err,rc} (N: the command's line number).
# Needs no root and records nothing: it reads $srcdir and writes only to a temp dir, so it
# runs under `make distcheck`.  testdata/golden/README says how the traces were recorded and
# what of the expected outputs was checked by other means than wcanalyze itself.
# GOLDEN_UPDATE=1 rewrites the expected files from this build's output (then review the diff
# with git diff before committing: a change there is a change of the CLI's output).
# usage (from the build directory): make check TESTS=tests/golden.sh
#        srcdir=SRC builddir=BUILD SRC/tests/golden.sh
set -u
srcdir=${srcdir:-$(dirname "$0")/..}
builddir=${builddir:-.}
WCANALYZE=${WCANALYZE:-$builddir/wcanalyze}
golden="$srcdir/testdata/golden"
# shellcheck source=tests/golden-lib.sh
. "$srcdir/tests/golden-lib.sh"

[ -x "$WCANALYZE" ] || { echo "FAIL: no $WCANALYZE (builddir=$builddir)"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/got"

fails=0 checked=0
for trace in "$golden"/*.wct; do
	name=$(basename "$trace" .wct)
	golden_run "$WCANALYZE" "$golden/commands" "$trace" "$tmp/got" ||
		{ echo "FAIL: $name: cannot run the commands"; fails=$((fails + 1)); continue; }
	# an update starts afresh: no file of a command since removed stays behind
	[ "${GOLDEN_UPDATE:-0}" != 1 ] || rm -f "$golden/expected/$name".*.rc \
		"$golden/expected/$name".*.out "$golden/expected/$name".*.err
	n=0
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		for ext in rc out err; do
			f="$name.$n.$ext"
			if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then
				cp "$tmp/got/$f" "$golden/expected/$f" || exit 1
				continue
			fi
			checked=$((checked + 1))
			if [ ! -f "$golden/expected/$f" ]; then
				echo "FAIL: $name $n ($line): no expected/$f (GOLDEN_UPDATE=1 makes it)"
				fails=$((fails + 1))
			elif ! cmp -s "$golden/expected/$f" "$tmp/got/$f"; then
				echo "FAIL: $name $n: wcanalyze $line $name.wct: $ext differs:"
				diff -u "$golden/expected/$f" "$tmp/got/$f" | head -20
				fails=$((fails + 1))
			fi
		done
	done <"$golden/commands"
done
if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then
	echo "updated $golden/expected from $WCANALYZE"
	exit 0
fi
echo "golden: $checked files compared, $fails differ"
[ $fails -eq 0 ]
