#!/bin/sh
# Compares `placestages --method given` (the compute model, no profile) with the throughput torchtitan
# logged in pull-request descriptions: Llama 2 7B and Llama 3 8B trained with FSDP2 (some with TP 2 or
# 4) on one node of 8 H100s (96 GB) or A100s, eager or compiled, bf16 or float8, from March 2024 to
# August 2025 (tests/data/pipeline_timings/torchtitan_tps.csv, with their sources). torchtitan's tps is
# tokens a second per GPU, so a step takes local_batch x seq_len x grad_accum / (tps x tp) seconds.
# Links are the catalog's NVLink within the node. Runs with context parallelism are left out:
# placestages' allocations have none. Prints one row a run and, on stderr, the mean and max |error|
# by group (eager or compiled; float8 apart, which the compute model times as bf16).
#   bench/eval_torchtitan.sh [BUILD_DIR] [EFFICIENCY]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
efficiency=${2:-}
. "$root/bench/eval_lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The catalog with the 96 GB H100 of Meta's Grand Teton nodes (an H100 SXM with 95 GiB usable), on
# which the H100 runs logged their capacity.
"$build/tools/placestages/placestages" --list-gpus | awk -F, -v OFS=, '
  NR == 1 { for (i = 1; i <= NF; i++) if ($i == "memory_gib") c = i; print; next }
  { print } $1 == "H100-SXM" { $1 = "H100-SXM-96GB"; $c = 95; print }' > "$tmp/catalog.csv"

echo "id,date,group,measured_s,predicted_s,error_pct"
tail -n +2 "$root/tests/data/pipeline_timings/torchtitan_tps.csv" |
while IFS=, read -r id layers hidden heads kv ffn vocab seq batch accum dp tp cp ac compile float8 fp8_gather gpu tps mfu date version trust source; do
  [ "$cp" = 1 ] || continue
  precision=bf16; [ "$float8" = none ] || precision=fp8
  options=""
  [ "$compile" = none ] || options="$options, compile: $compile"
  [ "$fp8_gather" = 1 ] && options="$options, fp8_all_gather: true"
  [ -n "$version" ] && options="$options, framework_version: $version"
  sp=false; [ "$tp" -gt 1 ] && sp=true
  cat > "$tmp/job.yaml" <<EOF
kind: job
version: 1
model: {name: $id, layers: $layers, hidden: $hidden, heads: $heads, kv_heads: $kv, ffn_hidden: $ffn, gated_mlp: true, vocab: $vocab, tied_embeddings: false, rms_norm: true, linear_bias: false, dropout: 0}
training: {seq_len: $seq, global_batch: $((batch * dp * accum)), micro_batch: $batch, precision: $precision, optimizer: adamw, framework: fsdp, zero_stage: 3, recompute: $ac, flash_attention: true, seq_parallel: $sp$options}
allocation:
  dp: $dp
  tp: $tp
  stages: [{gpu: $gpu, layers: $layers}]
EOF
  "$build/tools/placestages/placestages" "$tmp/job.yaml" --catalog "$tmp/catalog.csv" --method given --format csv -q \
    ${efficiency:+--efficiency "$efficiency"} > "$tmp/out.csv" || { echo "eval_torchtitan: placestages failed on $id" >&2; exit 1; }
  group=$([ "$compile" = none ] && echo eager || echo compiled)
  [ "$float8" = none ] || group="$group float8"
  error_row "$id" "$(awk -v s="$((batch * seq * accum))" -v tps="$tps" -v tp="$tp" 'BEGIN { printf "%.3f", s / (tps * tp) }')" \
    "$(iteration_time "$tmp/out.csv")" "$date,$group"
done > "$tmp/rows.csv"
cat "$tmp/rows.csv"
awk -F, '
  function add(k, e) { a = e < 0 ? -e : e; n[k]++; s[k] += a; b[k] += e; if (a > x[k]) x[k] = a }
  { add("all", $6); add($3, $6); if ($2 >= "2025") add("2025 " $3, $6) }
  END { for (k in n) printf "torchtitan compute (%s): %d runs, mean |error| %.1f%% (mean %+.1f%%), max %.1f%%\n", k, n[k], s[k] / n[k], b[k] / n[k], x[k] | "sort >&2" }
' "$tmp/rows.csv"
