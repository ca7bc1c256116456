# Adds the sweep's coordinates to replay's summary CSV: load, trace and cluster after the policy,
# so result files from any machine merge into one table (merge-results.sh).
#   awk -v load=0.2 -v trace=trace.csv -v cluster=cluster.yaml -f tag-results.awk summary.csv
BEGIN { FS = OFS = "," }
{
    first = $1; $1 = ""
    print first, (NR == 1 ? "load" OFS "trace" OFS "cluster" : load OFS trace OFS cluster) $0
}
