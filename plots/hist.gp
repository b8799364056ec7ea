# hist.gp: histogram of one study metric, one translucent outline per grid
# point, as a probability density (share of samples per unit of the
# metric, so grid points with different bin widths compare), over the
# central 98% (p1 to p99 of all points) with a dashed zero line when the
# range crosses zero.
# input: histplot_*.csv (columns point,label,lo,hi,mid,width,density)
# Variables: datafile, metric, npoints, labels (one word per grid point),
# xlo, xhi (the range shown), zeroline (1: draw x = 0).
# vars: datafile:file metric:string npoints:number labels:string xlo:number xhi:number zeroline:number
set title sprintf("Histogram of %s (central 98%%: p1 to p99)", metric) noenhanced
set xrange [xlo:xhi]
set xlabel metric noenhanced
set ylabel "probability density (per unit of the metric)"
set yrange [0:*]
set grid
set key top right noenhanced
set style fill transparent solid 0.35 border
if (zeroline > 0) {
  set arrow 1 from 0, graph 0 to 0, graph 1 nohead dt 2 lw 1.5 lc rgb "#444444"
}
plot for [i=1:npoints] datafile every ::1 using ($1 == i ? $5 : 1/0):7:6 \
     with boxes title word(labels, i)
