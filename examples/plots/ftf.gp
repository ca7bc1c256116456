# Finish-time fairness, one CDF per policy: FTF = JCT / JCT on a 1/N share of the cluster; jobs
# right of the dashed line at 1 were treated worse than a fair share would treat them.
# Variables: dir (the sweep folder), load, policies, trace, out.
load "plots/common.gp"
jobs(p) = sprintf("%s/jobs/%s-%s.csv", dir, p, load)
set title sprintf("Finish-time fairness, %s at load %s", trace, load)
set xlabel "FTF (log scale)"
set ylabel "fraction of jobs"
set logscale x
set yrange [0:1]
set arrow from 1, graph 0 to 1, graph 1 nohead dt 2 lc rgb "#555555"
plot for [p in policies] jobs(p) using "ftf":(1) smooth cnormal with steps lw 2 title p
