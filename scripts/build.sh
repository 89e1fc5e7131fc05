#!/bin/sh
# build.sh DIR [CONFIGURE-ARGS...] - configure (once) and build out of tree in DIR.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$1
shift
cd "$top"
[ -x configure ] && [ configure -nt configure.ac ] && [ configure -nt Makefile.am ] ||
	autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
mkdir -p "$dir"
cd "$dir"
[ -f Makefile ] && [ config.status -nt "$top/configure" ] || "$top/configure" -q "$@"
make -j"$(nproc)" >/dev/null
