#!/usr/bin/env bash
# The contract every tool keeps, checked from one list (run from the repository root or anywhere):
#   --help on stdout with exit 0; --version with exit 0; an unknown flag exits 64 with "TOOL:" on stderr;
#   a run that fails with -o FILE leaves no FILE; output to /dev/full exits 74, and so does a closed
#   stdout (no crash).
#   tests/contract/run.sh BUILD_DIR
set -u
build=$(cd "${1:?usage: run.sh BUILD_DIR}" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL $*"; failed=1; }

# TOOL and a command line that succeeds with output on stdout.
runs=(
  "memest|--model gpt2 --seq-len 1024 --global-batch 16 --micro-batch 4 --dp 2"
  "planalloc|--model espresso-llama-1.3b --seq-len 2048 --global-batch 64 --iterations 100 --catalog juchi --slo-s 300"
  "placestages|--model espresso-llama-1.3b --seq-len 2048 --global-batch 64 --catalog juchi --dp 2 --stages RTX-A6000,A30,A30,RTX-A4000"
  "fitthroughput|tests/data/fit/bert/placements-dgx.csv tests/data/fit/bert/scalability-dgx.csv"
  "schedround|examples/cluster-state.yaml"
  "replay|--trace examples/trace.csv --cluster V100=8,P100=8,K80=8 --throughputs examples/throughputs.csv --policy fifo --no-timings"
)
for entry in "${runs[@]}"; do
  tool=${entry%%|*}
  read -r -a args <<<"${entry#*|}"
  bin=$build/tools/$tool/$tool
  [ -x "$bin" ] || { fail "$tool: no binary at $bin"; continue; }

  "$bin" --help >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ $rc = 0 ] && [ -s "$tmp/out" ] && [ ! -s "$tmp/err" ] || fail "$tool --help: rc $rc, help on stdout expected"
  "$bin" --version >"$tmp/out" 2>&1; rc=$?
  [ $rc = 0 ] && [ -s "$tmp/out" ] || fail "$tool --version: rc $rc"

  "$bin" --no-such-flag >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ $rc = 64 ] && grep -q "^$tool: " "$tmp/err" || fail "$tool --no-such-flag: rc $rc (want 64), stderr: $(head -1 "$tmp/err")"

  "$bin" "${args[@]}" >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ $rc = 0 ] && [ -s "$tmp/out" ] || { fail "$tool ${args[*]}: rc $rc: $(head -1 "$tmp/err")"; continue; }

  # A run that fails (its input is missing) leaves no output file behind.
  rm -f "$tmp/result"
  "$bin" "${args[@]}" -o "$tmp/result" --no-such-flag >/dev/null 2>&1
  [ ! -e "$tmp/result" ] || fail "$tool: a usage error left -o's file"
  case $tool in
    schedround) bad=(does-not-exist.yaml) ;;
    fitthroughput) bad=(does-not-exist.csv) ;;
    replay) bad=(--trace does-not-exist.csv --cluster V100=8 --throughputs examples/throughputs.csv) ;;
    *) bad=(does-not-exist.yaml) ;;
  esac
  "$bin" "${bad[@]}" -o "$tmp/result" >/dev/null 2>"$tmp/err"; rc=$?
  [ $rc = 66 ] || fail "$tool ${bad[*]}: rc $rc (want 66): $(head -1 "$tmp/err")"
  [ ! -e "$tmp/result" ] || fail "$tool: a failed run left -o's file"

  # A run that fails on bad data (65) leaves none either.
  printf 'kind: job\nversion: 1\nmodel: {name: [\n' > "$tmp/bad.yaml"
  printf 'a,b\n1,2\n' > "$tmp/bad.csv"
  case $tool in
    fitthroughput) bad=("$tmp/bad.csv") ;;
    replay) bad=(--trace "$tmp/bad.csv" --cluster V100=8 --throughputs examples/throughputs.csv) ;;
    *) bad=("$tmp/bad.yaml") ;;
  esac
  "$bin" "${bad[@]}" -o "$tmp/result" >/dev/null 2>"$tmp/err"; rc=$?
  [ $rc = 65 ] || fail "$tool on bad data: rc $rc (want 65): $(head -1 "$tmp/err")"
  [ ! -e "$tmp/result" ] || fail "$tool: a run that failed on bad data left -o's file"

  if [ -w /dev/full ]; then
    "$bin" "${args[@]}" >/dev/full 2>"$tmp/err"; rc=$?
    [ $rc = 74 ] || fail "$tool > /dev/full: rc $rc (want 74): $(head -1 "$tmp/err")"
  fi

  # Standard output closed before the tool writes: an output error, not a crash.
  "$bin" "${args[@]}" >&- 2>"$tmp/err"; rc=$?
  [ $rc = 74 ] || fail "$tool with stdout closed: rc $rc (want 74): $(head -1 "$tmp/err")"
done
[ $failed = 0 ] && echo "contract: all ${#runs[@]} tools keep it"
exit $failed
