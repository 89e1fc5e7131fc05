#!/bin/sh
# speedscope-schema.sh - print the path of speedscope's published JSON schema of its file
# format (https://www.speedscope.app/file-format-schema.json, also shipped in the npm package
# `speedscope` as package/dist/release/file-format-schema.json), fetching it into a cache the
# first time; with the reason on stderr and exit 77 when it cannot be had.  Not kept in the
# source tree: always speedscope's own copy.
#
# Looks, in order, at:
#   $SPEEDSCOPE_SCHEMA                                  a copy given by hand
#   /var/cache/wcanalyze-tests/speedscope-file-format-schema.json     (e.g. from deps.sh)
#   ${XDG_CACHE_HOME:-$HOME/.cache}/wcanalyze-tests/speedscope-file-format-schema.json
# then downloads it into the first of those two directories it can write to, with
# `npm pack speedscope` (the npm registry; $SPEEDSCOPE_NPM_SPEC picks a version, default
# "speedscope", the latest) or else curl from www.speedscope.app.
set -u
name=speedscope-file-format-schema.json
sys=/var/cache/wcanalyze-tests
user=${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/wcanalyze-tests

# usable FILE: JSON with the file format's definition in it
usable() {
	[ -s "$1" ] && /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if "FileFormat.File" in d.get("definitions", {}) else 1)' "$1" 2>/dev/null
}

[ -x /usr/bin/python3 ] || { echo "no /usr/bin/python3 to validate with" >&2; exit 77; }
if [ -n "${SPEEDSCOPE_SCHEMA:-}" ]; then
	usable "$SPEEDSCOPE_SCHEMA" && { echo "$SPEEDSCOPE_SCHEMA"; exit 0; }
	echo "SPEEDSCOPE_SCHEMA=$SPEEDSCOPE_SCHEMA is not speedscope's file format schema" >&2
	exit 77
fi
for d in "$sys" "$user"; do
	usable "$d/$name" && { echo "$d/$name"; exit 0; }
done

dir=
for d in "$sys" "$user"; do
	if mkdir -p "$d" 2>/dev/null && [ -w "$d" ]; then
		dir=$d
		break
	fi
done
[ -n "$dir" ] || { echo "no cache directory to write ($sys, $user)" >&2; exit 77; }
work=$(mktemp -d "$dir/.fetch.XXXXXX") || exit 77
trap 'rm -rf "$work"' EXIT
tried=
if command -v npm >/dev/null 2>&1; then
	spec=${SPEEDSCOPE_NPM_SPEC:-speedscope}
	if (cd "$work" && timeout 180 npm pack "$spec" --silent >npm.out 2>npm.err) &&
		tar -xzf "$work"/speedscope-*.tgz -C "$work" package/dist/release/file-format-schema.json \
			2>/dev/null &&
		usable "$work/package/dist/release/file-format-schema.json"; then
		mv "$work/package/dist/release/file-format-schema.json" "$dir/$name" &&
			{ echo "$dir/$name"; exit 0; }
	fi
	tried="npm pack $spec: $(tail -n 1 "$work/npm.err" 2>/dev/null)"
else
	tried="no npm"
fi
if command -v curl >/dev/null 2>&1; then
	if curl -fsSL --max-time 60 -o "$work/schema.json" \
		https://www.speedscope.app/file-format-schema.json 2>"$work/curl.err" &&
		usable "$work/schema.json"; then
		mv "$work/schema.json" "$dir/$name" && { echo "$dir/$name"; exit 0; }
	fi
	tried="$tried; curl: $(tail -n 1 "$work/curl.err" 2>/dev/null)"
else
	tried="$tried; no curl"
fi
echo "speedscope's schema is not available: not in \$SPEEDSCOPE_SCHEMA, $sys or $user," \
	"and fetching it failed ($tried)" >&2
exit 77
