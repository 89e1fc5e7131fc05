#!/bin/sh
# fuzz.sh [SECONDS] - build the libFuzzer targets of tests/fuzz/ with clang, ASan and UBSan in
# their own tree, and run each for SECONDS (default 60) on the seeds of testdata/fuzz-seeds/,
# with at most 512 MB of RSS and 10 s per input.  A crash, leak, timeout or OOM fails it; its
# input is saved to testdata/fuzz-regressions/ (as a trace file, which tests/fuzz-regressions.sh
# replays in make check) and named on the last lines.  `make fuzz` runs it.
# Environment: FUZZ_CC (default clang), FUZZ_BUILD (the tree, default build-fuzz at the top),
# FUZZ_TARGETS (default "raw records").
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-60}
cc=${FUZZ_CC:-clang}
dir=${FUZZ_BUILD:-$top/build-fuzz}
regress=$top/testdata/fuzz-regressions

# the tree: configured once (again when configure changed), only the targets built
cd "$top"
[ -x configure ] && [ configure -nt configure.ac ] && [ configure -nt Makefile.am ] ||
	autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
mkdir -p "$dir"
cd "$dir"
if ! { [ -f Makefile ] && [ config.status -nt "$top/configure" ]; }; then
	CC=$cc "$top/configure" -q --enable-sanitizers --enable-fuzzing
fi
if ! make -j"$(nproc)" fuzz-targets >build.log 2>&1; then
	tail -30 build.log >&2
	echo "fuzz.sh: building the targets failed: $dir/build.log" >&2
	exit 1
fi

# fuzz-records takes record sequences: the seeds as such (wct-records --to-records)
mkdir -p seeds-records corpus/raw corpus/records
for f in "$top"/testdata/fuzz-seeds/*.wct; do
	out=seeds-records/$(basename "$f" .wct).rec
	[ "$out" -nt "$f" ] || tests/fuzz/wct-records --to-records "$f" "$out"
done

# leaks of libraries we cannot fix (each with its reason there)
LSAN_OPTIONS="suppressions=$top/tests/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
found=0
for t in ${FUZZ_TARGETS:-raw records}; do
	# fuzz-records: the first 16 KiB of each seed (its metadata and some hundred events)
	# replays several times faster than the whole, and a prefix of records is a trace too
	case $t in
	raw) seeds=$top/testdata/fuzz-seeds max_len= ;;
	records) seeds=$dir/seeds-records max_len=-max_len=16384 ;;
	*) echo "fuzz.sh: no target $t (raw, records)" >&2; exit 2 ;;
	esac
	art=$dir/artifacts/$t
	rm -rf "$art"
	mkdir -p "$art"
	echo "fuzz.sh: fuzz-$t for $secs s (log: $dir/fuzz-$t.log)"
	rc=0
	# the first corpus directory collects what libFuzzer finds new, run after run
	# shellcheck disable=SC2086
	tests/fuzz/fuzz-$t -max_total_time="$secs" -rss_limit_mb=512 -timeout=10 $max_len \
		-print_final_stats=1 -artifact_prefix="$art/" corpus/$t "$seeds" \
		>"fuzz-$t.log" 2>&1 || rc=$?
	grep -E '^#[0-9]+[[:space:]]+DONE' "fuzz-$t.log" | sed "s/^/fuzz.sh: fuzz-$t: /" || true
	grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' \
		"fuzz-$t.log" | tr '\n' ' ' | sed "s/^/fuzz.sh: fuzz-$t: /; s/ \$/\n/" || true
	n=0
	for a in "$art"/*; do
		[ -f "$a" ] || continue
		n=$((n + 1))
		name=$t-$(basename "$a").wct # crash-SHA1, leak-, timeout-, oom-, slow-unit-
		mkdir -p "$regress"
		if [ "$t" = records ]; then
			tests/fuzz/wct-records --to-wct "$a" "$regress/$name"
		else
			cp "$a" "$regress/$name"
		fi
		echo "fuzz.sh: fuzz-$t: a finding: testdata/fuzz-regressions/$name (the report:" \
			"$dir/fuzz-$t.log; the input as fuzzed: $a); rename it to say what it is"
	done
	if [ $rc -ne 0 ] && [ $n -eq 0 ]; then
		echo "fuzz.sh: fuzz-$t failed (exit $rc) with no finding saved: see $dir/fuzz-$t.log" >&2
		tail -20 "fuzz-$t.log" >&2
		found=1
	fi
	[ $n -eq 0 ] || found=1
done
if [ $found -ne 0 ]; then
	echo "fuzz.sh: findings above: reproduce with $dir/tests/fuzz/fuzz-TARGET FILE, or" \
		"wcanalyze on the saved trace" >&2
	exit 1
fi
echo "fuzz.sh: no finding in $secs s per target"
