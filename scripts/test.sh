#!/bin/sh
# test.sh - install what is missing, build, and run the whole test suite: make format-check,
# make check with warnings as errors, make check again under ASan+UBSan, the fuzz targets for
# 60 s each
# (a finding fails), make distcheck, and the Debian packages built from the release tarball,
# checked by lintian, installed and run (scripts/package.sh).
# Installing packages and the recording tests need root: run as a user, it asks sudo.
# usage: scripts/test.sh
set -eu
if [ "$(id -u)" != 0 ]; then
	if ! command -v sudo >/dev/null 2>&1; then
		echo "test.sh: installing packages and the recording tests need root, and there is" \
			"no sudo: run it as root" >&2
		exit 1
	fi
	exec sudo ${WC_REQUIRE_RECORDING:+WC_REQUIRE_RECORDING="$WC_REQUIRE_RECORDING"} sh "$0" "$@"
fi
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh"
echo "test.sh: build and make check"
"$top/scripts/build.sh" "$top/build" --enable-werror
echo "test.sh: the style of .clang-format (make format-check)"
make -C "$top/build" format-check
# after a failure: what each failing test printed, but its passing checks ("ok ...")
failed() {
	for trs in "$1"/tests/*.trs "$1"/tests/unit/*.trs; do
		grep -q '^:test-result: \(FAIL\|ERROR\)' "$trs" 2>/dev/null || continue
		echo "== ${trs%.trs}.log"
		grep -v '^ok ' "${trs%.trs}.log" | tail -60
	done
	exit 1
}
make -C "$top/build" -j"$(nproc)" check || failed "$top/build"
echo "test.sh: make check under AddressSanitizer and UndefinedBehaviorSanitizer"
"$top/scripts/build.sh" "$top/build-asan" --enable-werror --enable-sanitizers
make -C "$top/build-asan" -j"$(nproc)" check || failed "$top/build-asan"
echo "test.sh: the fuzz targets of tests/fuzz/, 60 s each (make fuzz)"
make -C "$top/build" fuzz FUZZ_SECONDS=60
echo "test.sh: make distcheck"
# its make check runs in the unpacked tarball: after a failure, its failing tests' logs
if ! make -C "$top/build" -j"$(nproc)" distcheck >"$top/build/distcheck.log" 2>&1; then
	tail -20 "$top/build/distcheck.log"
	for sub in "$top"/build/wcrec-*/_build/sub; do
		[ -d "$sub" ] && failed "$sub"
	done
	exit 1
fi
echo "test.sh: the Debian packages (scripts/package.sh)"
"$top/scripts/package.sh" "$top/build"
# one closing line: Criterion test cases, and the script tests, of the main build
summary() {
	crit=$(cat "$1"/tests/unit/*.log 2>/dev/null | sed -n 's/.*Synthesis: Tested: *\([0-9]*\) | Passing: *\([0-9]*\) | Failing: *\([0-9]*\).*/\2 \3/p' |
		awk '{p += $1; f += $2} END {print p + 0, f + 0}')
	scripts=$(cat "$1"/tests/*.trs 2>/dev/null | sed -n 's/^:test-result: //p' |
		awk '/^PASS/ {p++} /^FAIL|^ERROR/ {f++} /^SKIP/ {s++} END {print p + 0, f + 0, s + 0}')
	set -- $crit $scripts
	echo "$(($1 + $3)) passed, $(($2 + $4)) failed, $5 skipped"
}
summary "$top/build"
