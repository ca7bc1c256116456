# Scales a trace's arrivals for the sweep: every submit time divided by `load` (2 = arrivals twice
# as dense), the rest of each row as it was; with `jobs` set, only the first that many jobs.
#   awk -F, -v load=0.2 [-v jobs=40] -f scale-trace.awk trace.csv
# Reads our CSV trace (submit_time_s) or a Sia/Pollux workload (time); fields must hold no commas.
BEGIN { OFS = FS }
NR == 1 {
    for (i = 1; i <= NF; i++) if ($i == "submit_time_s" || $i == "time") col = i
    if (!col) { print "scale-trace.awk: " FILENAME ": no submit_time_s or time column" > "/dev/stderr"; exit 65 }
    if (load + 0 <= 0) { print "scale-trace.awk: load must be a positive number, got '" load "'" > "/dev/stderr"; exit 64 }
    print; next
}
jobs != "" && NR > jobs + 1 { exit }
{ $col = sprintf("%.10g", $col / load); print }
