#!/bin/sh
# pprof-export.sh - `wcanalyze export --format pprof` checked by go tool pprof (Debian's
# golang-go), on the traces checked in under testdata/golden, with the option sets of
# testdata/golden/commands that the profile formats take.  For each export:
#   - go tool pprof -raw parses it;
#   - its samples, turned back into folded stacks (pprof's locations of each sample, root
#     first, joined by ";") with their wall values summed, are wcanalyze folded --unit ns's
#     lines, stack for stack and value for value;
#   - the totals go tool pprof -top gives for -sample_index=wall, cpu and off_cpu are those of
#     wcanalyze folded --unit ns in --mode wall, on and off;
#   - every sample has the labels pid, tid, comm, thread_comm and state (--fleet: no pid, tid),
#     and no two have the same locations and labels;
#   - the profile's time is the recording's start that wcanalyze info gives;
#   - the same export twice gives the same bytes.
# Needs no root and records nothing.  Without go it is skipped (exit 77), a failure under
# WC_REQUIRE_RECORDING=1 (CI installs golang-go: scripts/deps.sh).
# usage (from the build directory): make check TESTS=tests/pprof-export.sh
set -u
srcdir=${srcdir:-$(dirname "$0")/..}
builddir=${builddir:-.}
WCANALYZE=${WCANALYZE:-$builddir/wcanalyze}
case $WCANALYZE in /*) ;; *) WCANALYZE="$PWD/$WCANALYZE" ;; esac
srcdir=$(cd "$srcdir" && pwd) || exit 1

skip() {
	if [ "${WC_REQUIRE_RECORDING:-0}" = 1 ]; then
		echo "FAIL: $1, and WC_REQUIRE_RECORDING=1"
		exit 1
	fi
	echo "SKIP: $1"
	exit 77
}
[ -x "$WCANALYZE" ] || { echo "FAIL: no $WCANALYZE (builddir=$builddir)"; exit 1; }
command -v go >/dev/null 2>&1 || skip "no go tool pprof here (apt-get install golang-go)"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export HOME="${HOME:-$tmp}" PPROF_TMPDIR="$tmp" LC_ALL=C
unset DEBUGINFOD_URLS
go tool pprof -h >/dev/null 2>&1 || skip "go tool pprof does not run here"
mkdir "$tmp/symfs"
cd "$tmp" || exit 1

fails=0 checks=0
expect() { # expect DESCRIPTION TEST-EXPRESSION
	desc=$1
	shift
	checks=$((checks + 1))
	if [ "$@" ]; then :; else echo "FAIL $desc"; fails=$((fails + 1)); fi
}

# pprof's -raw text on stdin as folded lines "root;...;leaf WALL", summed by stack, sorted
raw_folded() {
	awk '
	/^Samples:/ { sec = "head"; next }
	/^Locations/ { sec = "loc"; next }
	/^Mappings/ { sec = "map"; next }
	sec == "head" {
		for (i = 1; i <= NF; i++) if ($i ~ /^wall\//) wall = i
		sec = "samples"; next
	}
	sec == "samples" && /^ *[0-9]+( +[0-9]+)*: / {
		split($0, part, ":")
		nv = split(part[1], v, " ")
		ns++; val[ns] = v[wall]; ids[ns] = part[2]
		next
	}
	sec == "loc" && /^ *[0-9]+: 0x/ {
		id = $1; sub(/:$/, "", id)
		name = $0
		sub(/^ *[0-9]+: 0x[0-9a-f]+ (M=[0-9]+ )?/, "", name)
		sub(/ :[0-9]+ s=[0-9]+(\(.*\))?$/, "", name) # (): the system name, none here
		loc[id] = name
		next
	}
	sec == "loc" && /^             [^ ]/ {
		# a further Line of the location: the function the lines before were inlined
		# into, so before them in a folded stack (root first)
		name = $0
		sub(/^ +/, "", name)
		sub(/ :[0-9]+ s=[0-9]+(\(.*\))?$/, "", name)
		loc[id] = name ";" loc[id]
	}
	END {
		for (s = 1; s <= ns; s++) {
			n = split(ids[s], l, " ")
			stack = ""
			for (i = n; i >= 1; i--) stack = stack (i < n ? ";" : "") loc[l[i]]
			sum[stack] += val[s]
		}
		for (k in sum) if (sum[k]) printf "%s %.0f\n", k, sum[k]
	}' | sort
}

# folded lines on stdin, summed by stack, sorted (folded --per-thread splits nothing pprof
# keeps apart, but the same text may come from several segments of one thread)
sum_folded() {
	awk '{ v = $NF; sub(/ [0-9]+$/, ""); sum[$0] += v } END { for (k in sum) printf "%s %.0f\n", k, sum[k] }' | sort
}

total() { awk '{ s += $NF } END { printf "%.0f\n", s }'; }

# the total go tool pprof gives for sample index $1 of profile $2, ns
pprof_total() {
	go tool pprof -sample_index="$1" -unit=ns -top "$2" 2>/dev/null |
		sed -n 's/.* of \([0-9]*\)ns total$/\1/p; s/^Showing nodes accounting for 0, 0% of 0 total$/0/p'
}

symfs="--symfs symfs" # the machine's files out of the user frames, as tests/golden.sh does
check_export() { # check_export TRACE OPTIONS...: one export against folded (with $symfs)
	ce_name=$(basename "$1" .wct)
	shift
	ce_what="$ce_name: export --format pprof $*"
	ce_fold=$(printf '%s\n' "$*" | sed 's/--fleet//')
	# shellcheck disable=SC2086 # an argument list
	"$WCANALYZE" export --format pprof $symfs -o "$ce_name.pb.gz" "$@" "$ce_name.wct" \
		2>/dev/null
	ce_rc=$?
	# shellcheck disable=SC2086
	"$WCANALYZE" folded $symfs --unit ns $ce_fold "$ce_name.wct" >fold.txt 2>/dev/null
	expect "$ce_what: exit status $ce_rc is folded's $?" "$ce_rc" = $?
	if ! go tool pprof -raw "$ce_name.pb.gz" >raw 2>raw.err || ! grep -q '^Samples:' raw; then
		echo "FAIL $ce_what: go tool pprof -raw does not parse it:"
		head -5 raw.err
		fails=$((fails + 1))
		return
	fi
	raw_folded <raw >got
	sum_folded <fold.txt >want
	checks=$((checks + 1))
	if ! cmp -s want got; then
		echo "FAIL $ce_what: pprof's stacks are not folded's ($(wc -l <want) lines):"
		diff want got | head -10
		fails=$((fails + 1))
	fi
	ce_wall=$(pprof_total wall "$ce_name.pb.gz")
	expect "$ce_what: wall total ${ce_wall:-none} ns = folded's $(total <fold.txt)" \
		"${ce_wall:-x}" = "$(total <fold.txt)"
	case " $* " in
	*" --mode "*) ;;
	*)
		# shellcheck disable=SC2086
		"$WCANALYZE" folded $symfs --unit ns --mode on $ce_fold "$ce_name.wct" \
			2>/dev/null >on.txt
		# shellcheck disable=SC2086
		"$WCANALYZE" folded $symfs --unit ns --mode off $ce_fold "$ce_name.wct" \
			2>/dev/null >off.txt
		ce_cpu=$(pprof_total cpu "$ce_name.pb.gz")
		ce_off=$(pprof_total off_cpu "$ce_name.pb.gz")
		expect "$ce_what: cpu total ${ce_cpu:-none} ns = folded --mode on's $(total <on.txt)" \
			"${ce_cpu:-x}" = "$(total <on.txt)"
		expect "$ce_what: off_cpu total ${ce_off:-none} ns = folded --mode off's $(total <off.txt)" \
			"${ce_off:-x}" = "$(total <off.txt)"
		;;
	esac
	# the labels: each sample's line of labels after it in -raw
	ce_keys="comm: pid: state: thread_comm: tid:"
	case " $* " in *" --fleet "*) ce_keys="comm: state: thread_comm:" ;; esac
	ce_bad=$(awk -v keys="$ce_keys" '
		/^Samples:/ { on = 1; next } /^Locations/ { on = 0 }
		on && /^ +[a-z_]+:\[/ {
			k = ""; for (i = 1; i <= NF; i++) { sub(/\[.*/, "", $i); k = k (k ? " " : "") $i }
			if (k != keys) bad++
		}
		END { print bad + 0 }' raw)
	expect "$ce_what: $ce_bad samples without the labels $ce_keys" "$ce_bad" = 0
	# no two samples with the same locations and labels (--fleet merges them)
	ce_dup=$(awk '
		/^Samples:/ { on = 1; next } /^Locations/ { on = 0 }
		on && /^ *[0-9]+( +[0-9]+)*: / { sub(/^[^:]*: /, ""); ids = $0; next }
		on && /^ +[a-z_]+:\[/ { if (seen[ids "|" $0]++) dup++ }
		END { print dup + 0 }' raw)
	expect "$ce_what: $ce_dup samples with the locations and labels of another" "$ce_dup" = 0
}

for trace in "$srcdir"/testdata/golden/*.wct; do
	name=$(basename "$trace" .wct)
	cp "$trace" "$name.wct" || exit 1
	check_export "$name.wct"
	check_export "$name.wct" --mode off
	check_export "$name.wct" --mode on --no-calibrate
	check_export "$name.wct" --per-thread --annotate
	check_export "$name.wct" --all-tasks -d --skid keep
	check_export "$name.wct" -U --state S --time 0.02,0.08 -m 50
	check_export "$name.wct" -K -M 1000
	check_export "$name.wct" --comm demo-ping
	check_export "$name.wct" --fleet
	# --inline needs the machine's files: where its libc is the one recorded and its debug
	# file is installed (libc6-dbg), inlined calls are frames, each function's one location
	symfs=
	check_export "$name.wct" --inline
	if ! "$WCANALYZE" folded --unit ns "$name.wct" 2>/dev/null | cmp -s - fold.txt; then
		expect "$name: --inline: some location has several lines" \
			"$(sed -n '/^Locations/,/^Mappings/p' raw | grep -c '^             [^ ]')" -gt 0
	fi
	symfs="--symfs symfs"
	# deterministic: the same bytes twice
	"$WCANALYZE" export --format pprof --symfs symfs -o again.pb.gz "$name.wct" 2>/dev/null
	"$WCANALYZE" export --format pprof --symfs symfs -o "$name.pb.gz" "$name.wct" 2>/dev/null
	expect "$name: the same export twice gives the same bytes" "$(cmp -s again.pb.gz "$name.pb.gz" && echo same)" = same
	# the profile's time: the recording's start, as wcanalyze info gives it (to the ms)
	started=$("$WCANALYZE" info "$name.wct" 2>/dev/null | sed -n 's/.*started \([0-9-]*\) \([0-9:.]*\) UTC.*/\1 \2/p')
	if [ -n "$started" ]; then
		# (Go writes the fraction of the second without its trailing zeros)
		ptime=$(go tool pprof -raw "$name.pb.gz" 2>/dev/null | sed -n 's/^Time: \([0-9-]* [0-9:.]*\) .*/\1/p' |
			awk '{ split($2, t, "."); printf "%s %s.%s\n", $1, t[1], substr(t[2] "000", 1, 3) }')
		expect "$name: the profile's time ${ptime:-none} is info's start $started" "$ptime" = "$started"
	fi
done

# several files: one profile, their lines merged (folded of the same files, which
# tests/folded-files.sh checks against each file's own lines), from the earliest start
multi_export() { # multi_export WHAT OPTIONS...: the export of the golden traces together
	me_what="several files: export --format pprof $1"
	shift
	# shellcheck disable=SC2086 # an argument list
	"$WCANALYZE" export --format pprof $symfs -o all.pb.gz "$@" ./*.wct 2>/dev/null
	expect "$me_what: exit 3, sigkill.wct's, a cut trace ($?)" $? -eq 3
	# shellcheck disable=SC2086
	"$WCANALYZE" folded $symfs --unit ns "$@" ./*.wct 2>/dev/null | sum_folded >want
	go tool pprof -raw all.pb.gz 2>/dev/null >raw
	raw_folded <raw >got
	expect "$me_what: pprof's stacks are folded's ($(wc -l <want) lines; $(diff want got | head -3 | tr '\n' ' '))" \
		"$(cmp -s want got && echo same)" = same
	me_wall=$(pprof_total wall all.pb.gz)
	expect "$me_what: wall total ${me_wall:-none} ns = folded's $(total <want)" \
		"${me_wall:-x}" = "$(total <want)"
}
multi_export ""
multi_export "--per-file" --per-file
expect "several files, --per-file: the stacks under the files' names ($(cut -d';' -f1 got | sort -u | tr '\n' ' '))" \
	"$(cut -d';' -f1 got | sort -u | tr '\n' ' ')" = "demo sigkill system-wide waker-stacks "
first=$(for f in ./*.wct; do "$WCANALYZE" info "$f" 2>/dev/null |
	sed -n 's/.*started \([0-9-]*\) \([0-9:.]*\) UTC.*/\1 \2/p'; done | sort | head -1)
ptime=$(sed -n 's/^Time: \([0-9-]* [0-9:.]*\) .*/\1/p' raw |
	awk '{ split($2, t, "."); printf "%s %s.%s\n", $1, t[1], substr(t[2] "000", 1, 3) }')
expect "several files: the profile's time ${ptime:-none} is the earliest start, $first" \
	"$ptime" = "$first"

echo "$checks checks, $fails failed"
[ $fails = 0 ]
