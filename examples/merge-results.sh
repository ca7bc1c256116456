#!/bin/sh
# Merges sweep result files (examples/Makefile's $(OUT)/sweep/<policy>-<load>.csv, made here or
# fetched from other machines) into one CSV on stdout: one header, then the rows sorted by trace,
# cluster, load and policy. Every file must have the same header; a run (policy, load, trace,
# cluster) found twice is kept and named on stderr.
#   merge-results.sh FILE... > results.csv
set -eu
me=merge-results.sh
[ $# -gt 0 ] || { echo "usage: $me FILE... > results.csv" >&2; exit 64; }
for f in "$@"; do
    [ -r "$f" ] || { echo "$me: $f: cannot read it" >&2; exit 66; }
    [ -s "$f" ] || { echo "$me: $f: empty file" >&2; exit 65; }
done
header=$(head -n 1 "$1")
case "$header" in
    policy,load,trace,cluster,*) ;;
    *) echo "$me: $1:1: not a sweep result (expected a header starting policy,load,trace,cluster)" >&2; exit 65 ;;
esac
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
awk -v me="$me" -v header="$header" -v first="$1" '
    FNR == 1 {
        if ($0 != header) {
            printf "%s: %s:1: header differs from %s'"'"'s (other replay flags?)\n", me, FILENAME, first > "/dev/stderr"
            bad = 1; exit
        }
        next
    }
    /^[ \t\r]*$/ { next }
    {
        split($0, f, ",")
        key = f[1] "," f[2] "," f[3] "," f[4]
        if (key in seen)
            printf "%s: %s:%d: policy %s, load %s, trace %s, cluster %s is also in %s\n",
                   me, FILENAME, FNR, f[1], f[2], f[3], f[4], seen[key] > "/dev/stderr"
        else
            seen[key] = FILENAME
        print
    }
    END { exit bad ? 65 : 0 }
' "$@" > "$rows" || exit $?
printf '%s\n' "$header"
LC_ALL=C sort -t, -k3,3 -k4,4 -k2,2n -k1,1 "$rows"
