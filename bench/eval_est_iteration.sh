#!/bin/sh
# How far memest's est_iteration_s (the rough time that ranks its plans) is from placestages' time of
# the same plan: every plan of up to 16 GPUs, each timed by `placestages --method optimal` (the best
# split) on its type, tensor-parallel plans through a document's allocation (tp, dp, stages). Prints
# the mean and max |est/placed - 1| of all plans and of those with tp above 1, and the three plans
# furthest each way, for four jobs: gpt3-1.3b on L40S, A100 and H100 (25 GB/s between nodes),
# gpt2-medium on the sia catalog, espresso-llama-1.3b and espresso-llama-7b on juchi's (0.3125 GB/s).
#   bench/eval_est_iteration.sh [BUILD_DIR]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
memest=$build/tools/memest/memest
placestages=$build/tools/placestages/placestages
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$memest" --list-gpus | awk -F, 'NR == 1 || $1 == "L40S" || $1 == "A100-80GB-SXM" || $1 == "H100-SXM"' > "$tmp/gpus.csv"

compare() {  # compare LABEL CATALOG JOB-FLAGS...
    label=$1
    catalog=$2
    shift 2
    "$memest" "$@" --catalog "$catalog" --top 0 --format csv -q > "$tmp/plans.csv"
    "$memest" "$@" --catalog "$catalog" --top 1 -q | awk '/^memory:/ { exit } { print }' > "$tmp/job.yaml"
    : > "$tmp/rows"
    # rank,gpu,gpus,tp,pp,dp,micro_batch,peak_gib,usable_gib,est_iteration_s
    tail -n +2 "$tmp/plans.csv" | while IFS=, read -r rank gpu gpus tp pp dp mb peak usable est; do
        [ "$gpus" -le 16 ] || continue
        stages=$(awk -v g="$gpu" -v n="$pp" 'BEGIN { for (i = 1; i <= n; i++) printf "%s{gpu: %s}", (i > 1 ? ", " : ""), g }')
        { cat "$tmp/job.yaml"; echo "allocation: {tp: $tp, dp: $dp, stages: [$stages]}"; } > "$tmp/plan.yaml"
        placed=$("$placestages" "$tmp/plan.yaml" --catalog "$catalog" --micro-batch "$mb" --method optimal \
                     --search-limit 200000 --format csv -q 2>/dev/null | awk -F, 'NR == 2 { print $16 }') || continue
        [ -n "$placed" ] && echo "$gpu tp$tp pp$pp dp$dp mb$mb $est $placed" >> "$tmp/rows"
    done
    awk -v label="$label" '{ e = $6 / $7 - 1; a = e < 0 ? -e : e; s += a; if (a > m) m = a; n++
                             if ($2 != "tp1") { ts += a; if (a > tm) tm = a; tn++ } }
        END { printf "%s: %d plans, mean |est/placed - 1| %.1f%%, max %.1f%%", label, n, 100 * s / n, 100 * m
              if (tn) printf "; tp above 1: %d plans, %.1f%%, max %.1f%%", tn, 100 * ts / tn, 100 * tm
              printf "\n" }' "$tmp/rows"
    awk '{ printf "%+.3f %s %s %s %s %s est %s placed %s\n", $6 / $7 - 1, $1, $2, $3, $4, $5, $6, $7 }' "$tmp/rows" |
        sort -g | sed -n '1,3p;$p' | sed 's/^/  /'
}

compare "gpt3-1.3b, L40S/A100/H100" "$tmp/gpus.csv" --model gpt3-1.3b --seq-len 2048 --global-batch 32
compare "gpt2-medium, sia" sia --model gpt2-medium --seq-len 1024 --global-batch 64
compare "espresso-llama-1.3b, juchi" juchi --model espresso-llama-1.3b --seq-len 2048 --global-batch 64
compare "espresso-llama-7b, juchi" juchi --model espresso-llama-7b --seq-len 4096 --global-batch 32
