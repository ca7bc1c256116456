#!/bin/sh
# How far memest's est_iteration_s (the rough time that ranks its plans) is from placestages' time of
# the same plan: every plan of up to 16 GPUs without tensor parallelism, each timed by
# `placestages --method optimal` (the best split) on its type. Prints the mean and max |est/placed - 1|
# and the three plans furthest each way, for three jobs: gpt3-1.3b on L40S, A100 and H100 (25 GB/s
# between nodes), gpt2-medium on the sia catalog, espresso-llama-1.3b on juchi's (0.3125 GB/s).
#   bench/eval_est_iteration.sh [BUILD_DIR]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
memest=$build/tools/memest/memest
placestages=$build/tools/placestages/placestages
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$memest" --list-gpus | awk -F, 'NR == 1 || $1 == "L40S" || $1 == "A100-80GB-SXM" || $1 == "H100-SXM"' > "$tmp/gpus.csv"

compare() {  # compare LABEL JOB-FLAGS...
    label=$1
    shift
    "$memest" "$@" --top 0 --format csv -q > "$tmp/plans.csv"
    : > "$tmp/rows"
    # rank,gpu,gpus,tp,pp,dp,micro_batch,peak_gib,usable_gib,est_iteration_s
    tail -n +2 "$tmp/plans.csv" | while IFS=, read -r rank gpu gpus tp pp dp mb peak usable est; do
        [ "$tp" -eq 1 ] && [ "$gpus" -le 16 ] || continue
        stages=$(awk -v g="$gpu" -v n="$pp" 'BEGIN { for (i = 1; i <= n; i++) printf "%s%s", (i > 1 ? "," : ""), g }')
        placed=$("$placestages" "$@" --micro-batch "$mb" --dp "$dp" --stages "$stages" --method optimal \
                     --search-limit 200000 --format csv -q 2>/dev/null | awk -F, 'NR == 2 { print $16 }') || continue
        [ -n "$placed" ] && echo "$gpu pp$pp dp$dp mb$mb $est $placed" >> "$tmp/rows"
    done
    awk -v label="$label" '{ e = $5 / $6 - 1; a = e < 0 ? -e : e; s += a; if (a > m) m = a; n++ }
        END { printf "%s: %d plans, mean |est/placed - 1| %.1f%%, max %.1f%%\n", label, n, 100 * s / n, 100 * m }' "$tmp/rows"
    awk '{ printf "%+.3f %s %s %s %s est %s placed %s\n", $5 / $6 - 1, $1, $2, $3, $4, $5, $6 }' "$tmp/rows" |
        sort -g | sed -n '1,3p;$p' | sed 's/^/  /'
}

compare "gpt3-1.3b, L40S/A100/H100" --model gpt3-1.3b --seq-len 2048 --global-batch 32 --catalog "$tmp/gpus.csv"
compare "gpt2-medium, sia" --model gpt2-medium --seq-len 1024 --global-batch 64 --catalog sia
compare "espresso-llama-1.3b, juchi" --model espresso-llama-1.3b --seq-len 2048 --global-batch 64 --catalog juchi
