# tornado.gp: Spearman rank correlation of every sampled parameter with one
# metric, largest on top.  input: tornado_*.csv (columns param,spearman)
# Variables: datafile, metric, point (grid point label).
# vars: datafile:file metric:string point:string
set title sprintf("What drives %s (%s)", metric, point) noenhanced
set xlabel "Spearman rank correlation"
set xrange [-1:1]
set grid x
set key off
set style fill solid 0.7
set ytics noenhanced
plot datafile every ::1 using (0):($0):(0):2:($0-0.35):($0+0.35):ytic(1) \
     with boxxyerror lc rgb "#4477aa"
