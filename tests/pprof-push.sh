#!/bin/sh
# pprof-push.sh - the push recipes of wcanalyze-export(1), EXAMPLES, run as printed there
# (taken from the man page, its roff escapes undone, the servers' addresses pointed at a test
# endpoint of a few lines of Python on 127.0.0.1): Pyroscope's /ingest gets name, from, until
# and format=pprof, from and until those of `wcanalyze info --span` (the recording's start and
# end as `info` prints them), and a multipart form whose profile field is the export, which
# go tool pprof parses, its wall total the folded one; Parca's writeraw gets JSON whose
# rawProfile decodes to the same export.
# Needs curl, python3 and go (Debian: golang-go); exits 77 with the reason where one is
# missing, or fails when WC_REQUIRE_RECORDING=1.
set -u
B=${builddir:-.}
S=${srcdir:-$(dirname "$0")/..}
WCA=$(cd "$B" && pwd)/wcanalyze
tmp=$(mktemp -d)
trap 'kill $srv 2>/dev/null; rm -rf "$tmp"' EXIT
fails=0
expect() {
	d=$1
	shift
	if [ "$@" ]; then echo "ok   $d"; else echo "FAIL $d"; fails=$((fails + 1)); fi
}
skip() {
	if [ "${WC_REQUIRE_RECORDING:-0}" = 1 ]; then
		echo "FAIL: $1 and WC_REQUIRE_RECORDING=1"
		exit 1
	fi
	echo "SKIP: $1"
	exit 77
}
for t in curl python3 go base64; do
	command -v $t >/dev/null 2>&1 || skip "no $t here (Debian: curl, python3, golang-go)"
done

# the endpoint: each request's path and query, content type and body into $tmp/req.N.*
cat >"$tmp/srv.py" <<'PY'
import http.server, sys
n = 0
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        global n
        n += 1
        body = self.rfile.read(int(self.headers.get('Content-Length', 0)))
        d = sys.argv[1]
        open('%s/req.%d.path' % (d, n), 'w').write(self.path)
        open('%s/req.%d.type' % (d, n), 'w').write(self.headers.get('Content-Type', ''))
        open('%s/req.%d.body' % (d, n), 'wb').write(body)
        self.send_response(200)
        self.end_headers()
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(('127.0.0.1', 0), H)
open(sys.argv[1] + '/port', 'w').write(str(s.server_address[1]))
s.serve_forever()
PY
python3 "$tmp/srv.py" "$tmp" &
srv=$!
for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
url="http://127.0.0.1:$(cat "$tmp/port")"

# the recipes, as the man page prints them: the roff of the first two .EX blocks after "Pushed"
sed -n '/^Pushed to Grafana Pyroscope/,/^Every file of a continuous/p' "$S/man/wcanalyze-export.1" |
	awk '/^\.EX/ { on = 1; next } /^\.EE/ { on = 0; print "" } on' |
	sed -e 's/\\-/-/g' -e 's/\\e/\\/g' -e 's/^\\&//' -e "s#http://pyroscope:4040#$url#" \
		-e "s#http://parca:7070#$url#" -e "s#^wcanalyze #'$WCA' #" -e "s#(wcanalyze #('$WCA' #" \
		>"$tmp/recipe.sh"
expect "the man page has both recipes ($(grep -c curl "$tmp/recipe.sh") curl commands)" \
	"$(grep -c curl "$tmp/recipe.sh")" -eq 2
cp "$S/testdata/golden/demo.wct" "$tmp/run.wct"
(cd "$tmp" && sh ./recipe.sh) >"$tmp/recipe.out" 2>&1
expect "the recipes run ($(tail -1 "$tmp/recipe.out"))" $? -eq 0

# Pyroscope
q=$(cat "$tmp/req.1.path" 2>/dev/null)
set -- $("$WCA" info --span "$tmp/run.wct")
expect "/ingest with name, from, until and format=pprof ($q)" \
	-n "$(echo "$q" | grep "^/ingest?name=wcrec%7Bhost%3D.*%7D&from=$1&until=$2&format=pprof$")"
expect "from, until: the start and end of info ($1 $2)" "$2" -ge "$1" -a "$1" -gt 1700000000
start=$("$WCA" info "$tmp/run.wct" | sed -n 's/.*started \([0-9-]* [0-9:]*\).*/\1/p')
expect "from is the start info prints ($start UTC)" "$(date -u -d "@$1" '+%Y-%m-%d %H:%M:%S')" = "$start"
expect "a multipart form ($(cat "$tmp/req.1.type"))" \
	-n "$(grep '^multipart/form-data' "$tmp/req.1.type" 2>/dev/null)"
python3 - "$tmp/req.1.body" "$(cat "$tmp/req.1.type")" "$tmp/pyro.pb.gz" <<'PY'
import sys, email
raw = open(sys.argv[1], 'rb').read()
msg = email.message_from_bytes(b'Content-Type: ' + sys.argv[2].encode() + b'\r\n\r\n' + raw)
for part in msg.get_payload():
    if part.get_param('name', header='content-disposition') == 'profile':
        open(sys.argv[3], 'wb').write(part.get_payload(decode=True))
PY
cmp -s "$tmp/pyro.pb.gz" "$tmp/run.wct.pb.gz"
expect "its profile field is the export, byte for byte" $? -eq 0
go tool pprof -raw "$tmp/pyro.pb.gz" >"$tmp/raw" 2>&1
expect "go tool pprof -raw parses it ($(grep -c '^Samples:' "$tmp/raw") Samples:)" "$(grep -c '^Samples:' "$tmp/raw")" -eq 1
wall=$(go tool pprof -sample_index=wall -unit=ns -top "$tmp/pyro.pb.gz" 2>/dev/null |
	sed -n 's/.* of \([0-9]*\)ns total$/\1/p')
folded=$("$WCA" folded --unit ns "$tmp/run.wct" 2>/dev/null | awk '{ s += $NF } END { print s + 0 }')
expect "its wall total (go tool pprof -top) $wall ns, folded's $folded" "${wall:-0}" -eq "$folded" -a "${wall:-0}" -gt 0

# Parca
python3 - "$tmp/req.2.body" "$tmp/parca.pb.gz" <<'PY' >"$tmp/parca.out" 2>&1
import sys, json, base64
r = json.load(open(sys.argv[1]))
s = r['series'][0]
labels = {l['name']: l['value'] for l in s['labels']['labels']}
assert labels['__name__'] == 'wall' and labels['host'], labels
open(sys.argv[2], 'wb').write(base64.b64decode(s['samples'][0]['rawProfile']))
PY
expect "writeraw gets JSON with __name__ wall and host ($(tail -1 "$tmp/parca.out"))" $? -eq 0
expect "on /profiles/writeraw ($(cat "$tmp/req.2.path" 2>/dev/null))" "$(cat "$tmp/req.2.path" 2>/dev/null)" = /profiles/writeraw
cmp -s "$tmp/parca.pb.gz" "$tmp/run.wct.pb.gz"
expect "its rawProfile is the export, byte for byte" $? -eq 0

[ $fails -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
exit 0
