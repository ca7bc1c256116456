#!/usr/bin/env bash
# Re-blesses golden cases (all, or those given as tests/golden/<tool>/<case>): review the diff after.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cases=("$@"); [ ${#cases[@]} -eq 0 ] && cases=("$root"/tests/golden/*/*/)
for c in "${cases[@]}"; do
  case "$c" in *negative-control*) continue ;; esac
  [ -f "$c/cmd" ] && "$root/tests/golden/run.sh" "$root/build" "$c" --bless
done
