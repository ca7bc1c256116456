#!/bin/sh
# Compares `placestages --method given` with Sailor's measured iteration times of OPT-350M pipelines,
# DeepSpeed's pipeline engine (Sailor's Megatron-DeepSpeed), fp32, no recomputation, with Sailor's own
# per-layer profiles at each tp (tests/data/pipeline_timings/sailor_*, with their sources), on two
# clusters:
#   mit       heterogeneous: RTX-3090, RTX-2080 and Titan-RTX nodes (8 GPUs each), micro-batch 1 or 2,
#             tp 2, 4 or 8, one type a stage. The catalog gets the two Turing types and each type's
#             network as Sailor measured it: about 0.115 GB/s from the RTX-3090 node to any other, 2.86
#             GB/s between the others (nic_gb_s). Memory is checked as allocated: the runs fit their
#             GPUs, and at the device level memest's model puts the RTX-2080 stage of two of them a
#             layer over its 8 GB.
#   clariden  homogeneous: Alps' GH200 nodes (4 GPUs each, tp 4 within a node), 1-32 nodes, pp 1-4,
#             dp 1-32, micro-batch 1-8, with the network Sailor measured between two of its nodes
#             (22.9 GB/s a GPU).
# Prints one row a run and, on stderr, each cluster's mean and max |error| over all its runs, over
# those with trust medium or high, and over its pipelines (pp > 1) where some runs have one stage.
#   bench/eval_sailor.sh [BUILD_DIR] [SCHEDULE]   (SCHEDULE: blocking, DeepSpeed's, or overlapped)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
schedule=${2:-blocking}
data=$root/tests/data/pipeline_timings
. "$root/bench/eval_lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One catalog for both clusters (the profiles hold every type's rows).
# Turing's figures from NVIDIA's Turing architecture whitepaper (Titan RTX: 24 GB, 16.3 FP32 TFLOPS,
# 672 GB/s; RTX 2080: 8 GB, 10.1 FP32 TFLOPS, 448 GB/s); fp32 training, so the FP32 peak. The
# profiles time the layers; these set memory and the optimizer step.
# The catalog's GH200-96GB, 4 a node as on Alps, gets the network Sailor measured between two of its
# nodes (sailor/providers/multizone_bandwidths_het.json: 22.9 GB/s between one GPU of each).
"$build/tools/placestages/placestages" --list-gpus | awk -F, -v OFS=, '
  NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "gpus_per_node") n = i; if ($i == "nic_gb_s") c = i } print; next }
  $1 == "RTX-3090" { $n = 8; $c = 0.115; print }
  $1 == "GH200-96GB" { $c = 22.93; print }
  END { print "RTX-2080,8,10.1,fp32,448,32,7.5,8,,USD,,2.86,,10.1,"; print "Titan-RTX,24,16.3,fp32,672,32,7.5,8,,USD,,2.86,,16.3," }' \
  > "$tmp/catalog.csv"

# evaluate CLUSTER RUNS TIED NETWORK_GB_S: one row a run of RUNS, the summary on stderr.
evaluate() {
  cluster=$1 runs=$2 tied=$3 net=$4
  tail -n +2 "$runs" | while IFS=, read -r id tp dp pp gbs mbs gpus split measured trust source; do
    stages=$(printf '%s\n%s\n' "$gpus" "$split" | awk 'NR == 1 { n = split($0, g, " ") } NR == 2 {
      split($0, l, " "); s = ""; for (i = 1; i <= n; i++) s = s (i > 1 ? ", " : "") "{gpu: " g[i] ", layers: " l[i] "}"; print s }')
    cat > "$tmp/job.yaml" <<YAML
kind: job
version: 1
model: {name: opt-350m, layers: 24, hidden: 1024, heads: 16, kv_heads: 16, ffn_hidden: 4096, gated_mlp: false, vocab: 50257, tied_embeddings: $tied}
training: {seq_len: 2048, global_batch: $gbs, micro_batch: $mbs, precision: fp32, optimizer: adamw, framework: deepspeed, deepspeed_model: megatron, zero_stage: 0, recompute: none, flash_attention: false}
network: {inter_node_gb_s: $net}
allocation:
  dp: $dp
  tp: $tp
  stages: [$stages]
YAML
    "$build/tools/placestages/placestages" "$tmp/job.yaml" --catalog "$tmp/catalog.csv" --method given \
      --schedule "$schedule" --profile "$data/sailor_opt350_profile_tp$tp.csv" --measure allocated --format csv -q \
      > "$tmp/out.csv" ||
      { echo "eval_sailor: placestages failed on $id" >&2; exit 1; }
    echo "$(error_row "$id" "$measured" "$(iteration_time "$tmp/out.csv")"),$trust,$pp"
  done > "$tmp/rows.csv"
  cut -d, -f1-4 "$tmp/rows.csv"
  awk -F, -v schedule="$schedule" -v cluster="$cluster" '
    { e = $4 < 0 ? -$4 : $4; n++; s += e; if (e > x) x = e
      if ($5 != "low") { tn++; ts += e; if (e > tx) tx = e }
      if ($6 > 1) { pn++; ps += e; if (e > px) px = e } }
    END { printf "sailor %s profile (%s): %d runs, mean |error| %.1f%%, max %.1f%%; trust medium or high: %d runs, %.1f%%, max %.1f%%",
                 cluster, schedule, n, s / n, x, tn, ts / tn, tx > "/dev/stderr"
          if (pn < n) printf "; pipelines (pp > 1): %d runs, %.1f%%, max %.1f%%", pn, ps / pn, px > "/dev/stderr"
          print "" > "/dev/stderr" }
  ' "$tmp/rows.csv"
}

echo "id,measured_s,predicted_s,error_pct"
evaluate mit "$data/sailor_mit.csv" true 2.86
# Sailor's OPT model (third_party/Megatron-DeepSpeed/megatron/model/opt_model.py) has its own LM head,
# not tied to the embedding.
evaluate clariden "$data/sailor_clariden.csv" false 22.93
