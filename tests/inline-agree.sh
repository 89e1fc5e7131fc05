#!/bin/sh
# inline-agree.sh - the inlined calls wcanalyze --inline and wcrec's USYM records name
# (analyzer/symbols/dwinline.h) are those binutils' addr2line -i names, at every 3rd byte of
# the code of wcanalyze itself (built with -g -O2: much inlined), and of libc's debug file where
# /usr/lib/debug has it (Debian: libc6-dbg; every 11th byte there): the same number of
# inlined calls at each address, by the same names (addr2line may give an alias of a name,
# as __GI___libc_read for __libc_read: one name ending with the other is taken as the same).
# Needs addr2line and readelf (binutils) and python3; exits 77 with the reason where one is missing.
set -u
B=${builddir:-.}
S=${srcdir:-.}
. "$(dirname "$0")/testlib.sh"

for t in addr2line readelf python3; do
	command -v $t >/dev/null 2>&1 || skip "no $t here"
done
# compare FILE START SIZE STEP: every STEPth address of [START, START + SIZE) (hex)
compare() {
	python3 -c "print('\n'.join('%x' % a for a in range(0x$2, 0x$2 + 0x$3, $4)))" >"$tmp/addrs"
	"$B/tests/dwinline-dump" "$1" <"$tmp/addrs" >"$tmp/ours" 2>"$tmp/err" || return 1
	addr2line -i -f -a -e "$1" <"$tmp/addrs" >"$tmp/theirs"
	python3 - "$tmp/theirs" "$tmp/ours" <<'PY'
import sys
theirs, cur, fns = {}, None, []
lines = open(sys.argv[1]).read().split('\n')
i = 0
while i < len(lines):
    l = lines[i]
    if l.startswith('0x'):
        if cur is not None:
            theirs[cur] = fns
        cur, fns = int(l, 16), []
        i += 1
    elif l:
        fns.append(l)  # a function name, then its file:line
        i += 2
    else:
        i += 1
if cur is not None:
    theirs[cur] = fns
ours = {int(l.split()[0], 16): l.split()[1:] for l in open(sys.argv[2])}
n = inl = bad = 0
for a, f in theirs.items():
    t = f[:-1]  # the inlined calls, innermost first; the last is the function
    o = ours.get(a, [])
    n += 1
    inl += len(t) > 0
    if len(t) != len(o) or any(x != y and not x.endswith(y) and not y.endswith(x) for x, y in zip(t, o)):
        bad += 1
        if bad <= 5:
            print('  0x%x: addr2line %s, ours %s' % (a, t, o))
print(n, inl, bad)
PY
}

# text_range FILE: the address and size of its .text (hex)
text_range() {
	readelf -SW "$1" 2>/dev/null | sed 's/^ *\[ *[0-9]*\]//' | awk '$1 == ".text" { print $3, $5 }'
}

files="$B/wcanalyze"
readelf -SW "$B/wcanalyze" | grep -q '\.debug_info' || skip "wcanalyze was built without -g"
id=$(readelf -n /usr/lib/x86_64-linux-gnu/libc.so.6 2>/dev/null | sed -n 's/.*Build ID: *//p')
libc_dbg=/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
if [ -n "$id" ] && [ -f "$libc_dbg" ]; then
	files="$files $libc_dbg"
else
	echo "note: no debug file of libc here (Debian: libc6-dbg): wcanalyze's DWARF alone"
fi
for f in $files; do
	set -- $(text_range "$f")
	[ $# -eq 2 ] || { expect "$f: a .text" 0 = 1; continue; }
	step=3
	[ "$f" = "$libc_dbg" ] && step=11 # 4 times the code: about as many addresses
	out=$(compare "$f" "$1" "$2" $step)
	res=$(echo "$out" | tail -1)
	echo "$out" | sed '$d'
	set -- $res
	expect "$f: $1 addresses, $2 of them in inlined calls (> 1000), $3 named otherwise than addr2line -i" \
		"${2:-0}" -gt 1000 -a "${3:-1}" -eq 0
done
