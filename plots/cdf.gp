# cdf.gp: cumulative distribution of one study metric, one line per grid
# point, over the central 98% (p1 to p99 of all points; the tails beyond
# are noted in the title), with each point's p5, p50 and p95 marked and a
# dashed zero line when the range crosses zero.
# input: cdf_*.csv (columns point,label,value,cdf) and cdfmarks_*.csv
# (columns point,value,cdf: three rows per grid point)
# Variables: datafile, markfile, metric, npoints, labels (one word per grid
# point); optional: markfile, xlo, xhi (the range shown), zeroline (1:
# draw x = 0).
# vars: datafile:file markfile:file metric:string npoints:number labels:string xlo:number xhi:number zeroline:number
if (exists("xlo") && exists("xhi")) {
  set title sprintf("Distribution of %s (central 98%%: p1 to p99; tails beyond not shown)", metric) noenhanced
  set xrange [xlo:xhi]
} else {
  set title sprintf("Distribution of %s", metric) noenhanced
}
set xlabel metric noenhanced
set ylabel "cumulative probability"
set yrange [0:1]
set grid
set key bottom right noenhanced
if (exists("zeroline") && zeroline > 0) {
  set arrow 1 from 0, graph 0 to 0, graph 1 nohead dt 2 lw 1.5 lc rgb "#444444"
}
if (exists("markfile")) {
  plot for [i=1:npoints] datafile every ::1 using ($1 == i ? $3 : 1/0):4 \
       with lines lw 2 title word(labels, i), \
       markfile every ::1 using 2:3 with points pt 7 ps 0.9 lc rgb "#222222" title "p5, p50, p95"
} else {
  plot for [i=1:npoints] datafile every ::1 using ($1 == i ? $3 : 1/0):4 \
       with lines lw 2 title word(labels, i)
}
