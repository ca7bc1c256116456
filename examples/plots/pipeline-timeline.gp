# One iteration of a plan's 1F1B pipeline (placestages --timeline): a row per stage, its forward
# and backward passes as boxes, the transfers it sends as thin bars under them, then its gradient
# all-reduce and optimizer step. Variables: timeline (the CSV), plan, out.
load "plots/common.gp"
set title sprintf("Pipeline schedule of %s (placestages --timeline)", plan)
set xlabel "time in the iteration (s)"
set ylabel "stage and its GPU type"
stats timeline using "stage" nooutput
set yrange [STATS_max + 0.6 : -0.6]
set key outside bottom center horizontal nobox
set bmargin 6
set style fill solid 0.9 noborder
# Each box is x, y, half width, half height; x is NaN (no box) on rows of another kind.
x(k) = strcol("kind") eq k ? (column("start_s") + column("end_s")) / 2 : NaN
dx = 'column("end_s") - column("start_s")'
plot timeline using (x("forward")):"stage":((@dx) / 2):(0.3):ytic(sprintf("%d %s", column("stage"), strcol("gpu")))          with boxxyerror lc rgb "#4e79a7" title "forward", \
     ''       using (x("backward")):"stage":((@dx) / 2):(0.3)           with boxxyerror lc rgb "#f28e2b" title "backward", \
     ''       using (x("send_activation")):(column("stage") + 0.38):((@dx) / 2):(0.06) with boxxyerror lc rgb "#59a14f" title "send activation", \
     ''       using (x("send_gradient")):(column("stage") + 0.38):((@dx) / 2):(0.06)   with boxxyerror lc rgb "#e15759" title "send gradient", \
     ''       using (x("allreduce")):"stage":((@dx) / 2):(0.3)          with boxxyerror lc rgb "#b07aa1" title "all-reduce", \
     ''       using (x("optimizer_step")):"stage":((@dx) / 2):(0.3)     with boxxyerror lc rgb "#9c755f" title "optimizer step"
