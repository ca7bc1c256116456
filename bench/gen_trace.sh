#!/usr/bin/env bash
# Writes a trace of N copies of a real trace sample, each shifted by the sample's span, to stdout:
#   bench/gen_trace.sh TRACE.csv COPIES > big.csv
# (12 copies of ../shared/data/traces/philly_sample.csv: 20,304 jobs over 24 days.)
set -euo pipefail
trace=${1:?usage: gen_trace.sh TRACE.csv COPIES}; copies=${2:-12}
awk -F, -v OFS=, -v copies="$copies" '
  NR == 1 { print; next }
  { rows[++n] = $0; if ($2 + 0 > span) span = $2 + 0 }
  END {
    span = int(span / 86400 + 1) * 86400
    for (c = 0; c < copies; c++)
      for (i = 1; i <= n; i++) { split(rows[i], f, ","); f[1] = f[1] "-" c; f[2] = f[2] + c * span
        line = f[1]; for (k = 2; k <= length(f); k++) line = line "," f[k]; print line }
  }' "$trace"
