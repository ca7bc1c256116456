# JCT CDF, one line per policy: the share of jobs done within x hours of their submission.
# Variables: dir (the sweep folder), load, policies, trace, out.
load "plots/common.gp"
jobs(p) = sprintf("%s/jobs/%s-%s.csv", dir, p, load)
set title sprintf("Job completion time, %s at load %s", trace, load)
set xlabel "JCT (hours, log scale)"
set ylabel "fraction of jobs"
set logscale x
set yrange [0:1]
plot for [p in policies] jobs(p) using (column("jct_s") / 3600):(1) smooth cnormal with steps lw 2 title p
