#!/bin/sh
# Writes a cluster CSV of N nodes (default 5000) for timing `planalloc --cluster`: eight small GPUs per
# node (11-16 GiB, so memest's first plans do not fit and best-fit walks far down the ranking), one or
# none free, in a fixed pattern so every run sees the same cluster.
#   bench/gen_cluster.sh 5000 > /tmp/c5000.csv
#   memest --model llama-2-7b --seq-len 4096 --global-batch 32 --top 0 -q > plans.yaml
#   time planalloc --cluster /tmp/c5000.csv plans.yaml
set -eu
n=${1:-5000}
awk -v n="$n" 'BEGIN {
  split("T4 RTX-2080Ti V100-SXM2-16GB P100-PCIe-16GB RTX-A4000", t, " ")
  print "name,gpu,gpus,free"
  for (i = 1; i <= n; i++) printf "node-%05d,%s,8,%d\n", i, t[(i - 1) % 5 + 1], (i * 7) % 3 == 0 ? 0 : 1
}'
