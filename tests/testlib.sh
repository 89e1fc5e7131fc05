# testlib.sh - shared by the live test scripts (sourced): a temp dir, skip with the reason
# (automake's 77, or a failure when WC_REQUIRE_RECORDING=1), and one line per check.
# WC_KEEP_TMP=1 keeps the temp dir (recordings, outputs) for a look after a failure.
tmp=$(mktemp -d)
if [ "${WC_KEEP_TMP:-0}" = 1 ]; then echo "temp dir kept: $tmp"; else trap 'rm -rf "$tmp"' EXIT; fi
fails=0

skip() {
	if [ "${WC_REQUIRE_RECORDING:-0}" = 1 ]; then
		echo "FAIL: cannot record here ($1) and WC_REQUIRE_RECORDING=1"
		exit 1
	fi
	echo "SKIP: $1"
	exit 77
}
[ "$(id -u)" = 0 ] || skip "recording needs root here (perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null))"
[ -e /proc/sys/kernel/perf_event_paranoid ] || skip "this kernel has no perf_event_open"

expect() { # expect DESCRIPTION TEST-EXPRESSION
	desc=$1
	shift
	if [ "$@" ]; then echo "ok   $desc"; else echo "FAIL $desc"; fails=$((fails + 1)); fi
}
