# sweep.gp: collective bus bandwidth against buffer size, one line per
# system and op (scenarios/alltoall_64gpu.lua).
# input: sweep.csv
# Columns: system, op, bytes, time_us, algbw_GBps, busbw_GBps (header row).
# Variables: datafile (set by podsim); systems and ops, space-separated
# lists of the series to draw (defaults: the flagship scenario's).
# vars: datafile:file systems:string ops:string plot_title:string
if (!exists("systems")) systems = "gb200_nvl72 hgx_h100"
if (!exists("ops")) ops = "all_to_all all_reduce"
if (!exists("plot_title")) plot_title = "64-GPU collectives: bus bandwidth by buffer size"

set title plot_title noenhanced
set xlabel "buffer size S (bytes, nccl-tests convention)"
set ylabel "busbw (GB/s, 1e9 B/s)"
set logscale x 2
set logscale y 10
set format x "%.0b%B"
set grid xtics ytics mytics
set key top left box opaque
set style data linespoints

plot for [s in systems] for [o in ops] datafile every ::1 \
     using ((strcol(1) eq s && strcol(2) eq o) ? $3 : NaN):6 \
     pointsize 0.6 title s." ".o noenhanced
