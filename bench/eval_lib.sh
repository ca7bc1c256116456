# Shared by the bench/eval_*.sh scripts, which source it.

# iteration_time CSV: the iteration_time_s of placestages' one-placement CSV output.
iteration_time() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "iteration_time_s") c = i } NR == 2 { print $c }' "$1"
}

# error_row ID MEASURED PREDICTED [COLUMNS]: the CSV row "ID,COLUMNS,MEASURED,PREDICTED,error %" (COLUMNS
# as given, commas and all; without it, "ID,MEASURED,PREDICTED,error %").
error_row() {
  awk -v id="$1" -v m="$2" -v p="$3" -v extra="${4:-}" 'BEGIN {
    printf "%s,%s%s,%s,%.1f\n", id, extra == "" ? "" : extra ",", m, p, 100 * (p - m) / m }'
}
