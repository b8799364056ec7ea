# sobol.gp: variance-based (Sobol) sensitivity of one metric: for every
# sampled parameter its first-order index (the share of the metric's
# variance it explains alone) and its total index (alone and through its
# interactions), largest first-order index on top.
# input: sobol_*.csv (columns param,first,total)
# Variables: datafile, metric, point (grid point label).
# vars: datafile:file metric:string point:string
set title sprintf("Share of the variance of %s (%s): Sobol indices", metric, point) noenhanced
set xlabel "share of variance"
set xrange [0:1.05]
set grid x
set key bottom right
set style fill solid 0.75
set ytics noenhanced
set offsets 0, 0, 0.5, 0.5
plot datafile every ::1 using ($3 / 2):($0 + 0.18):(0):3:($0):($0 + 0.36):ytic(1) \
       with boxxyerror lc rgb "#bbbbbb" title "total", \
     datafile every ::1 using ($2 / 2):($0 - 0.18):(0):2:($0 - 0.36):($0) \
       with boxxyerror lc rgb "#4477aa" title "first order"
