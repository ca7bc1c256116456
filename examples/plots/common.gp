# Shared by every plot: a PNG terminal (cairo where gnuplot has it), CSV input, light grid.
# The caller sets out='FILE.png' with gnuplot -e.
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 900,560 font "sans,11" noenhanced
} else {
    set terminal png size 900,560 noenhanced
}
set output out
set datafile separator comma
set grid lc rgb "#dddddd"
set key bottom right box opaque
set border 3
set tics nomirror
