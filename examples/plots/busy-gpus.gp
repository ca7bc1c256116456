# Busy GPUs over time, one line per policy: the GPUs of every type held at each decision.
# Variables: dir (the sweep folder), load, policies, trace, out.
load "plots/common.gp"
rounds(p) = sprintf("%s/rounds/%s-%s.csv", dir, p, load)
# policy,time_s,queued,running,busy_<TYPE>...: the busy columns are the fifth to the last.
stats rounds(word(policies, 1)) using 2 nooutput
last = STATS_columns
busy(unused) = sum [i = 5:last] column(i)   # gnuplot functions take an argument
set title sprintf("Busy GPUs, %s at load %s", trace, load)
set xlabel "time since the first submission (days)"
set ylabel "busy GPUs"
set key top right
set yrange [0:*]
plot for [p in policies] rounds(p) using (column("time_s") / 86400):(busy(0)) with steps lw 1.5 title p
