# cdf.gp: cumulative distribution of one study metric, one line per grid
# point.  input: cdf_*.csv (columns point,label,value,cdf)
# Variables: datafile, metric, npoints, labels (one word per grid point).
# vars: datafile:file metric:string npoints:number labels:string
set title sprintf("Distribution of %s", metric) noenhanced
set xlabel metric noenhanced
set ylabel "cumulative probability"
set yrange [0:1]
set grid
set key bottom right noenhanced
plot for [i=1:npoints] datafile every ::1 using ($1 == i ? $3 : 1/0):4 \
     with lines lw 2 title word(labels, i)
