#!/bin/sh
# usym-formats.sh - traces of wcdemo whose user frames are named by their USYM records, checked
# in as recorded: testdata/usym/demo-1.9.wct (one record per function, format 1.9) and
# demo-1.10.wct (packed records, format 1.10); wcanalyze folded and folded --inline of each
# diffed against testdata/usym/TRACE.{folded,inline}.  The
# recording host's wcdemo is not here, and its libc's debug file may not be (a local libc of
# the recorded build with only its .dynsym loses to the records): where unshare -m can, again
# with /usr/lib/debug hidden.  Needs no recording.  testdata/usym/README says how the traces
# were made.
set -u
B=${builddir:-.}
S=${srcdir:-$(dirname "$0")/..}
WCA="$B/wcanalyze"
D="$S/testdata/usym"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
expect() {
	d=$1
	shift
	if [ "$@" ]; then echo "ok   $d"; else echo "FAIL $d"; fails=$((fails + 1)); fi
}

[ -x "$WCA" ] || { echo "FAIL: $WCA is not built"; exit 1; }
# analyse.sh WHERE: the two outputs of each trace into $tmp/WHERE.TRACE.*
cat >"$tmp/analyse.sh" <<EOS
for t in demo-1.9 demo-1.10; do
	"$WCA" folded "$D/\$t.wct" >"$tmp/\$1.\$t.folded" 2>"$tmp/\$1.\$t.err"
	"$WCA" folded --inline "$D/\$t.wct" >"$tmp/\$1.\$t.inline" 2>/dev/null
done
EOS
sh "$tmp/analyse.sh" here
hidden=
if [ -d /usr/lib/debug ] && [ "$(id -u)" = 0 ] && command -v unshare >/dev/null &&
	unshare -m sh -c "mount -t tmpfs none /usr/lib/debug && sh '$tmp/analyse.sh' hidden" \
		>"$tmp/hidden.out" 2>&1; then
	hidden=hidden
else
	echo "note: not analysed with /usr/lib/debug hidden (needs root and unshare -m)"
fi
for t in demo-1.9 demo-1.10; do
	expect "$t: no bad USYM record" -z "$(grep 'bad USYM' "$tmp/here.$t.err")"
	for o in folded inline; do
		for where in here $hidden; do
			if cmp -s "$D/$t.$o" "$tmp/$where.$t.$o"; then
				echo "ok   $t.$o ($where) as expected"
			else
				echo "FAIL $t.$o ($where) differs from $D/$t.$o:"
				diff "$D/$t.$o" "$tmp/$where.$t.$o" | head -20
				fails=$((fails + 1))
			fi
		done
	done
	# every frame named: wcdemo's by its functions, none as FILE+0xOFFSET of wcdemo
	expect "$t: wcdemo's frames named" -z "$(grep -o 'wcdemo+0x[0-9a-f]*' "$tmp/here.$t.folded")"
done
[ $fails -eq 0 ] || { echo "$fails failed"; exit 1; }
exit 0
