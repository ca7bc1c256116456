#!/bin/sh
# Runs one target of examples/Makefile in its small version (SMALL=1) on the built tools, into a
# fresh folder, then checks that each expected file is there and not empty (a .png must begin with
# the PNG signature; FILE=N must have N lines). Exits 77 (skipped) for plots when gnuplot is missing.
#   make-target.sh BUILD_DIR TARGET [FILE[=LINES]]...     (FILE relative to the output folder)
set -u
[ $# -ge 2 ] || { echo "usage: make-target.sh BUILD_DIR TARGET [FILE[=LINES]]..." >&2; exit 64; }
build=$(cd "$1" && pwd) || exit 66
target=$2; shift 2
root=$(cd "$(dirname "$0")/../.." && pwd)
export LC_ALL=C TZ=UTC NO_COLOR=1

command -v make >/dev/null 2>&1 || { echo "make-target.sh: make is not installed (scripts/install-deps.sh installs it)"; exit 1; }
if [ "$target" = plots ] && ! command -v gnuplot >/dev/null 2>&1; then
    echo "SKIPPED: gnuplot is not installed, so the plots cannot be drawn (apt-get install gnuplot-nox)"
    exit 77
fi

out=$build/tests/examples-out/$target
rm -rf "$out"
mkdir -p "$out" || exit 73
if ! make -C "$root/examples" --no-print-directory SMALL=1 OUT="$out" BIN="$build/tools" "$target"; then
    echo "make-target.sh: make $target failed"
    exit 1
fi

status=0
png=$(printf '\211PNG\r\n\032\n' | od -An -c)
for spec in "$@"; do
    f=${spec%%=*}; want=
    [ "$f" = "$spec" ] || want=${spec#*=}
    path=$out/$f
    if [ ! -s "$path" ]; then
        echo "make $target: $f is missing or empty"; status=1; continue
    fi
    case "$f" in
        *.png)
            if [ "$(head -c 8 "$path" | od -An -c)" != "$png" ]; then
                echo "make $target: $f is not a PNG image"; status=1
            fi ;;
    esac
    if [ -n "$want" ]; then
        lines=$(wc -l < "$path" | tr -d ' ')
        [ "$lines" = "$want" ] || { echo "make $target: $f has $lines lines, expected $want"; status=1; }
    fi
done
[ $status -eq 0 ] && echo "make $target: $# files checked in $out"
exit $status
