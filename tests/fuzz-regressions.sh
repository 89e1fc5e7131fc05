#!/bin/sh
# fuzz-regressions.sh - every input the fuzzers found (testdata/fuzz-regressions/*.wct, saved
# by scripts/fuzz.sh) and every seed (testdata/fuzz-seeds/*.wct) through each wcanalyze
# command line of tests/fuzz/commands.h: each must end by itself (an exit status below 128,
# no sanitizer report), within 5 s, and within 512 MB of RSS.  What it prints and its exit
# status otherwise are not checked: a hostile file may well be refused.
# testdata/fuzz-regressions/XFAIL names the inputs whose bug is known and not fixed yet, one
# a line ("FILE  what it does"): their failure is reported and expected; once one passes the
# test fails until its line is removed.
set -u
B=${builddir:-.}
S=${srcdir:-$(dirname "$0")/..}
WCA=$B/wcanalyze
LIMIT_S=5
LIMIT_KB=$((512 * 1024))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

[ -x "$WCA" ] || { echo "FAIL: $WCA is not built"; exit 1; }
# a crash under the sanitizers aborts (exit 134), as it would without them
ASAN_OPTIONS="abort_on_error=1:quarantine_size_mb=16:hard_rss_limit_mb=2048\
${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
UBSAN_OPTIONS="abort_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export ASAN_OPTIONS UBSAN_OPTIONS
# without ASan (whose shadow memory is reserved address space), a bound on the address space
# keeps a memory bomb from taking the machine before it is measured
grep -q __asan_init "$WCA" 2>/dev/null || ulimit -v $((4 * 1024 * 1024)) 2>/dev/null || true
timer=
if [ -x /usr/bin/time ]; then
	timer="/usr/bin/time -f %M -o $tmp/rss"
else
	echo "note: /usr/bin/time is missing (apt-get install time): RSS not measured"
fi

# the command lines, "@OUT" for an output file
sed -n 's/^FZ_CMD([a-z_]*, \(.*\))$/\1/p' "$S/tests/fuzz/commands.h" | sed 's/"//g; s/,//g' \
	>"$tmp/commands"
[ -s "$tmp/commands" ] || { echo "FAIL: no command line read from tests/fuzz/commands.h"; exit 1; }

xfail() { # xfail NAME: is NAME in the XFAIL list
	[ -f "$S/testdata/fuzz-regressions/XFAIL" ] &&
		grep -q "^$1\([[:space:]]\|\$\)" "$S/testdata/fuzz-regressions/XFAIL"
}

# check FILE ARGS...: one run; prints why it failed, returns 1 then
check() {
	f=$1
	shift
	rm -f "$tmp/rss"
	start=$(date +%s%N)
	# shellcheck disable=SC2086
	$timer timeout -k 2 "$LIMIT_S" "$WCA" "$@" "$f" >/dev/null 2>"$tmp/err" </dev/null
	rc=$?
	ms=$((($(date +%s%N) - start) / 1000000))
	rss=$(tail -1 "$tmp/rss" 2>/dev/null)
	case $rss in '' | *[!0-9]*) rss=0 ;; esac
	rm -f "$tmp/out"*
	why=
	if [ $rc -eq 124 ] || { [ $rc -eq 137 ] && [ $ms -ge $((LIMIT_S * 1000)) ]; }; then
		why="over $LIMIT_S s"
	elif [ $rc -ge 128 ]; then
		why="exit $rc (signal $((rc - 128)))"
	elif grep -q 'ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:' "$tmp/err"; then
		why="a sanitizer report"
	elif [ "$rss" -gt $LIMIT_KB ]; then
		why="$((rss / 1024)) MB of RSS"
	fi
	[ -z "$why" ] && return 0
	echo "$why: wcanalyze $* $f ($ms ms)"
	grep -m 5 'ERROR: \|runtime error:\|^    #[0-4] ' "$tmp/err" | sed 's/^/    /'
	return 1
}

fails=0
runs=0
for f in "$S"/testdata/fuzz-regressions/*.wct "$S"/testdata/fuzz-seeds/*.wct; do
	[ -f "$f" ] || continue
	name=$(basename "$f")
	bad=0
	while read -r line; do
		# shellcheck disable=SC2086
		set -- $(echo "$line" | sed "s|@OUT|$tmp/out|g")
		runs=$((runs + 1))
		check "$f" "$@" || bad=1
	done <"$tmp/commands"
	if [ $bad -eq 1 ] && xfail "$name"; then
		echo "XFAIL: $name: a known bug (testdata/fuzz-regressions/XFAIL)"
	elif [ $bad -eq 1 ]; then
		echo "FAIL: $name"
		fails=$((fails + 1))
	elif xfail "$name"; then
		echo "XPASS: $name: fixed? then take its line off testdata/fuzz-regressions/XFAIL"
		fails=$((fails + 1))
	else
		echo "ok: $name"
	fi
done
echo "$runs runs, $fails inputs failed"
[ $fails -eq 0 ]
