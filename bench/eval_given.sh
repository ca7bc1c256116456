#!/bin/sh
# Compares `placestages --method given` with measured iteration times of real pipeline runs: AMP's
# GPT-2 medium (24 layers, hidden 1024, 16 heads, sequence 1024, tied embeddings, fp16, fp32 all-reduce)
# under DeepSpeed's pipeline engine on 12 V100s + 4 T4s (the T4 node hosting the last stages) and on
# 16 T4s, 4 GPUs a node
# (tests/data/pipeline_timings/, with their sources). Two estimates a run:
#   profile   AMP's measured per-layer forward times at micro-batch 1 and tp 1, 2 or 4 (backward taken
#             as twice, as AMP's cost model does): only the runs at micro-batch 1 the profiles cover;
#   compute   the compute model (roofline at --efficiency), every run.
# Prints one row a run and each estimate's mean and max |error| per cluster and schedule.
#   bench/eval_given.sh [BUILD_DIR] [SCHEDULE]     (SCHEDULE: blocking, DeepSpeed's, or overlapped)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
schedule=${2:-blocking}
. "$root/bench/eval_lib.sh"
data=$root/tests/data/pipeline_timings
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

estimate() {  # job.yaml [extra flags] -> iteration seconds; a failed run stops the evaluation
  job=$1
  shift
  "$build/tools/placestages/placestages" "$job" --catalog "$tmp/catalog.csv" --method given --schedule "$schedule" \
    --format csv -q "$@" \
    > "$tmp/out.csv" || { echo "eval_given: placestages failed on $id" >&2; exit 1; }
  iteration_time "$tmp/out.csv"
}

# The two types as the catalog has them, on AWS's 4-GPU nodes (p3.8xlarge, g4dn.12xlarge).
"$build/tools/placestages/placestages" --list-gpus | awk -F, -v OFS=, '
  NR == 1 { for (i = 1; i <= NF; i++) if ($i == "gpus_per_node") c = i; print; next }
  $1 == "V100-SXM2-16GB" || $1 == "T4" { $c = 4; print }' > "$tmp/catalog.csv"

echo "id,measured_s,profile_s,profile_error_pct,compute_s,compute_error_pct,amp_predicted_s"
tail -n +2 "$data/amp_gpt2_medium.csv" | while IFS=, read -r id cluster mb tp dp pp m split gpus measured amp source; do
  case $cluster in v100*) net=1.25 ;; *) net=6.25 ;; esac  # 10 and 50 Gb/s between nodes
  stages=$(printf '%s\n%s\n' "$gpus" "$split" | awk 'NR == 1 { n = split($0, g, " ") } NR == 2 {
    split($0, l, " "); s = ""; for (i = 1; i <= n; i++) s = s (i > 1 ? ", " : "") "{gpu: " g[i] ", layers: " l[i] "}"; print s }')
  cat > "$tmp/job.yaml" <<EOF
kind: job
version: 1
model: {name: gpt2-medium, layers: 24, hidden: 1024, heads: 16, kv_heads: 16, ffn_hidden: 4096, gated_mlp: false, vocab: 50257, tied_embeddings: true}
training: {seq_len: 1024, global_batch: 32, micro_batch: $mb, precision: fp16, optimizer: adam, framework: deepspeed, framework_version: 0.3.0, zero_stage: 0, fp32_allreduce: true, recompute: none, flash_attention: false}
network: {inter_node_gb_s: $net}
allocation:
  dp: $dp
  tp: $tp
  stages: [$stages]
EOF
  profile=""
  case $tp in 1) times=$data/amp_gpt2_medium_profile.csv ;; *) times=$data/amp_gpt2_medium_profile_tp$tp.csv ;; esac
  [ "$mb" = 1 ] && [ -f "$times" ] && profile=$(estimate "$tmp/job.yaml" --profile "$times")
  compute=$(estimate "$tmp/job.yaml")
  awk -v id="$id" -v m="$measured" -v p="$profile" -v c="$compute" -v a="$amp" 'BEGIN {
    pe = p == "" ? "" : sprintf("%.1f", 100 * (p - m) / m)
    printf "%s,%s,%s,%s,%s,%.1f,%s\n", id, m, p, pe, c, 100 * (c - m) / m, a }'
done > "$tmp/rows.csv"
cat "$tmp/rows.csv"
awk -F, -v schedule="$schedule" '
  function add(k, e) { if (e == "") return; e = e < 0 ? -e : e; n[k]++; s[k] += e; if (e > x[k]) x[k] = e }
  { c = $1 ~ /^amp-het/ ? "v100+t4" : "t4"; add(c ($1 ~ /-tp1-/ ? " profile" : " profile at tp 2-4"), $4); add(c " compute", $6)
    add(c " amp", 100 * ($7 - $2) / $2) }
  END { for (k in n) printf "%s (%s): %d runs, mean |error| %.1f%%, max %.1f%%\n", k, schedule, n[k], s[k] / n[k], x[k] | "sort >&2" }
' "$tmp/rows.csv"
