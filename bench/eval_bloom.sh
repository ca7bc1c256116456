#!/bin/sh
# Compares `placestages --method given` (the compute model, no profile) with the iteration times of
# BLOOM's February 2022 topology benchmarks: 55 Megatron-DeepSpeed pipelines of 176-203B models on
# 48 nodes of 8 A100 80GB SXM, fp16 with ZeRO-1 or bf16 with DeepSpeed's BF16 optimizer, full
# activation checkpointing, unfused attention, sequence 2048, global batch about 2048, DeepSpeed's
# pipeline engine (tests/data/pipeline_timings/bloom_a100.csv, with its sources). Every stage type is
# the catalog's A100-80GB-SXM; links are the catalog's NVLink within a node and --inter-node-gb-s
# (default 25 GB/s, a 200 Gb/s NIC) between nodes, as the runs' network is not recorded.
# Prints one row a run and the mean and max |error| on stderr.
#   bench/eval_bloom.sh [BUILD_DIR] [SCHEDULE] [EFFICIENCY]   (SCHEDULE: blocking, DeepSpeed's, or overlapped)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
schedule=${2:-blocking}
efficiency=${3:-}
. "$root/bench/eval_lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "id,measured_s,predicted_s,error_pct"
tail -n +2 "$root/tests/data/pipeline_timings/bloom_a100.csv" |
while IFS=, read -r id layers hidden heads vocab seq gbs mbs tp pp dp zero precision split measured source; do
  # Without a recorded split, DeepSpeed's uniform partition: the first layers % pp stages one more.
  stages=$(awk -v l="$layers" -v pp="$pp" -v given="$split" 'BEGIN {
    n = split(given, c, " "); s = ""
    for (i = 1; i <= pp; i++) {
      k = n ? c[i] : int(l / pp) + (i <= l % pp ? 1 : 0)
      s = s (i > 1 ? ", " : "") "{gpu: A100-80GB-SXM, layers: " k "}"
    }
    print s }')
  cat > "$tmp/job.yaml" <<EOF
kind: job
version: 1
model: {name: $id, layers: $layers, hidden: $hidden, heads: $heads, kv_heads: $heads, ffn_hidden: $((4 * hidden)), gated_mlp: false, vocab: $vocab, tied_embeddings: true}
training: {seq_len: $seq, global_batch: $gbs, micro_batch: $mbs, precision: $precision, optimizer: adam, framework: deepspeed, zero_stage: $zero, recompute: full, flash_attention: false}
allocation:
  dp: $dp
  tp: $tp
  stages: [$stages]
EOF
  "$build/tools/placestages/placestages" "$tmp/job.yaml" --method given --schedule "$schedule" --format csv -q \
    ${efficiency:+--efficiency "$efficiency"} > "$tmp/out.csv" || { echo "eval_bloom: placestages failed on $id" >&2; exit 1; }
  error_row "$id" "$measured" "$(iteration_time "$tmp/out.csv")"
done > "$tmp/rows.csv"
cat "$tmp/rows.csv"
awk -F, -v schedule="$schedule" '
  { e = $4 < 0 ? -$4 : $4; n++; s += e; b += $4; if (e > x) x = e }
  END { printf "bloom a100 compute (%s): %d runs, mean |error| %.1f%% (mean %+.1f%%), max %.1f%%\n", schedule, n, s / n, b / n, x > "/dev/stderr" }
' "$tmp/rows.csv"
