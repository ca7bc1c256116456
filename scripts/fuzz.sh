#!/usr/bin/env bash
# Fuzzes one reader for a while: scripts/fuzz.sh TARGET [SECONDS] (default 600); TARGET "all" runs
# every target in turn. Builds build-fuzz/ with clang and libFuzzer (ASan and UBSan on), starts from
# the committed corpus (tests/fuzz/corpus/TARGET), keeps new inputs in build-fuzz/corpus/TARGET and
# writes crashes, timeouts (> 10 s) and out-of-memory cases (> 2 GiB) to build-fuzz/findings/TARGET/.
# To keep new coverage: scripts/fuzz.sh --merge TARGET (minimises into the committed corpus).
set -euo pipefail
cd "$(dirname "$0")/.."
merge=0
[ "${1:-}" = --merge ] && { merge=1; shift; }
target=${1:?usage: scripts/fuzz.sh [--merge] TARGET|all [SECONDS]}
seconds=${2:-600}
CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHETSCHED_FUZZ=ON >/dev/null
cmake --build build-fuzz -j"$(nproc)" >/dev/null
targets=$target
[ "$target" = all ] && targets=$(cd tests/fuzz && ls *_fuzz.cpp | sed 's/_fuzz.cpp$//')
for t in $targets; do
  bin=build-fuzz/tests/fuzz/${t}_fuzz
  [ -x "$bin" ] || { echo "fuzz.sh: no target '$t' (see FUZZ_TARGETS in tests/fuzz/CMakeLists.txt)" >&2; exit 64; }
  seeds=tests/fuzz/corpus/$t
  if [ $merge = 1 ]; then
    "$bin" -merge=1 "$seeds" "build-fuzz/corpus/$t"
    continue
  fi
  mkdir -p "build-fuzz/corpus/$t" "build-fuzz/findings/$t"
  log=build-fuzz/findings/$t/log
  rc=0
  "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
         -artifact_prefix="build-fuzz/findings/$t/" "build-fuzz/corpus/$t" "$seeds" >"$log" 2>&1 || rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log")
  echo "$t: exit $rc, ${runs:-?} executions, peak ${rss:-?} MiB in ${seconds}s (log: $log)"
  [ $rc = 0 ] || { grep -E "^(==[0-9]+==|SUMMARY|artifact_prefix|Test unit written)" "$log" | head -20; status=1; }
done
exit ${status:-0}
