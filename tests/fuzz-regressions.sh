#!/bin/sh
# fuzz-regressions.sh - every input the fuzzers found (testdata/fuzz-regressions/*.wct, saved
# by scripts/fuzz.sh) and every seed (testdata/fuzz-seeds/*.wct) through each wcanalyze
# command line of tests/fuzz/commands.h: each must end by itself (an exit status below 128,
# no sanitizer report), within 5 s, and within 512 MB of RSS.  What it prints and its exit
# status otherwise are not checked: a hostile file may well be refused.
# Then issue 14's reproducers, each one field of a seed's records changed
# (tests/hostile-craft.py), written with valid frames (tests/fuzz/wct-records): through each
# command line too, within 5 s and 100 MB, each with the exit status and the words its
# refusal must have.
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
# leaks of libraries we cannot fix (each with its reason there)
LSAN_OPTIONS="suppressions=$S/tests/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS
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

# check FILE ARGS...: one run (its exit status in $rc, its stderr in $tmp/err); prints why
# it failed, returns 1 then
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
# the reproducers: KIND, the exit status, words of stdout or stderr (a grep -e pattern)
WCT=$B/tests/fuzz/wct-records
LIMIT_KB=$((100 * 1024))
if [ -x "$WCT" ] && command -v python3 >/dev/null; then
	"$WCT" --to-records "$S/testdata/fuzz-seeds/demo.wct" "$tmp/seed.rec" ||
		{ echo "FAIL: wct-records --to-records"; exit 1; }
	printf '' >"$tmp/empty.wct"
	echo hello >"$tmp/hello.wct"
	while read -r kind want words; do
		case $kind in
		empty | hello) f=$tmp/$kind.wct ;;
		*)
			f=$tmp/$kind.wct
			python3 "$S/tests/hostile-craft.py" "$kind" "$tmp/seed.rec" "$tmp/$kind.rec" &&
				"$WCT" --to-wct "$tmp/$kind.rec" "$f" $((16 << 20)) ||
				{ echo "FAIL: crafting $kind"; fails=$((fails + 1)); continue; }
			;;
		esac
		size=$(wc -c <"$f")
		bad=0
		[ "$size" -le 65536 ] || { echo "FAIL: $kind: $size bytes, over 64 KB"; bad=1; }
		while read -r line; do
			# shellcheck disable=SC2086
			set -- $(echo "$line" | sed "s|@OUT|$tmp/out|g")
			runs=$((runs + 1))
			check "$f" "$@" || { bad=1; continue; }
			[ $rc -eq "$want" ] ||
				{ echo "exit $rc, not $want: wcanalyze $* ($kind)"; bad=1; continue; }
			[ "$want" -eq 0 ] || grep -q -e "$words" "$tmp/err" ||
				{ echo "no '$words': wcanalyze $* ($kind): $(head -1 "$tmp/err")"; bad=1; }
		done <"$tmp/commands"
		if [ "$want" -eq 0 ]; then # counted and skipped: info says so
			"$WCA" info "$f" 2>&1 | grep -q -e "$words" ||
				{ echo "no '$words' in wcanalyze info ($kind)"; bad=1; }
		fi
		if [ $bad -eq 1 ]; then
			echo "FAIL: crafted $kind"
			fails=$((fails + 1))
		else
			echo "ok: crafted $kind (exit $want, $size bytes)"
		fi
	done <<-EOF
		empty 1 not a wcrec trace file
		hello 1 not a wcrec trace file
		stack-id 1 STACK record .*id 150000000 out of sequence
		payload-id 1 PAYLOAD record .*id 268435456 out of sequence
		payload-again 1 PAYLOAD record .*id 1 defined again
		payload-event 0 events naming an undefined stack/payload *1$
		ncpus 1 HOST record: 10000000 CPUs configured
		ncpus-max 1 HOST record: 4294967295 CPUs configured
		zstd-bomb 1 frames decompress to more than 32 MiB
		stack-bomb 0 4043 callchains
	EOF
else
	echo "FAIL: no $WCT or no python3: the crafted inputs were not tried"
	fails=$((fails + 1))
fi

echo "$runs runs, $fails inputs failed"
[ $fails -eq 0 ]
