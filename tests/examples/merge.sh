#!/bin/sh
# examples/merge-results.sh on small hand-made result files: one header, rows sorted by trace,
# cluster, load (as a number) and policy; a run found twice kept and named; other headers refused.
set -u
merge=$(cd "$(dirname "$0")/../../examples" && pwd)/merge-results.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C
h=policy,load,trace,cluster,jobs,avg_jct_s
printf '%s\nfifo,10,t.csv,c.yaml,4,40\n' "$h" > "$tmp/fifo-10.csv"
printf '%s\nfft,2,t.csv,c.yaml,4,20\ngavel,2,t.csv,c.yaml,4,25\n' "$h" > "$tmp/host2.csv"
printf '%s\nfifo,2,t.csv,c.yaml,4,30\n' "$h" > "$tmp/fifo-2.csv"
fail=0
check() { if [ "$1" != "$2" ]; then printf 'merge: %s\n--- expected\n%s\n--- got\n%s\n' "$3" "$2" "$1"; fail=1; fi; }

got=$("$merge" "$tmp/fifo-10.csv" "$tmp/host2.csv" "$tmp/fifo-2.csv" 2>"$tmp/err"); rc=$?
check "$rc" 0 "exit status of a clean merge"
check "$got" "$(printf '%s\nfft,2,t.csv,c.yaml,4,20\nfifo,2,t.csv,c.yaml,4,30\ngavel,2,t.csv,c.yaml,4,25\nfifo,10,t.csv,c.yaml,4,40' "$h")" "merged table"
check "$(cat "$tmp/err")" "" "stderr of a clean merge"

"$merge" "$tmp/fifo-2.csv" "$tmp/fifo-2.csv" >/dev/null 2>"$tmp/err"; rc=$?
check "$rc" 0 "exit status with a run twice"
grep -q 'policy fifo, load 2, trace t.csv, cluster c.yaml is also in' "$tmp/err" || { echo "merge: a run found twice was not named"; fail=1; }

printf 'policy,load,trace,cluster,jobs\nfft,1,t.csv,c.yaml,4\n' > "$tmp/other.csv"
"$merge" "$tmp/fifo-2.csv" "$tmp/other.csv" >/dev/null 2>&1; rc=$?
check "$rc" 65 "exit status with another header"
"$merge" "$tmp/missing.csv" >/dev/null 2>&1; rc=$?
check "$rc" 66 "exit status with a missing file"
[ $fail -eq 0 ] && echo "merge-results.sh: 5 cases pass"
exit $fail
