# swing.gp: tornado in the metric's own units: for every sampled parameter,
# the metric with that parameter at its p5 and at its p95 (the others at
# their medians), widest swing on top; a dashed line at the all-medians
# value.  input: swing_*.csv (columns param,swing,at_p5,at_p95)
# Variables: datafile, metric, point (grid point label), base.
# vars: datafile:file metric:string point:string base:number
set title sprintf("What moves %s (%s): each input from its p5 to its p95", metric, point) noenhanced
set xlabel metric noenhanced
set grid x
set key off
set style fill solid 0.7
set ytics noenhanced
set offsets 0, 0, 0.5, 0.5
set arrow 1 from base, graph 0 to base, graph 1 nohead dt 2 lw 1.5 lc rgb "#444444"
plot datafile every ::1 using (($3 + $4) / 2):($0):($3 < $4 ? $3 : $4):($3 < $4 ? $4 : $3):($0 - 0.35):($0 + 0.35):ytic(1) \
     with boxxyerror lc rgb "#cc6633"
