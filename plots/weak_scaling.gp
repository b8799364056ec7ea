# weak_scaling.gp: MFU against GPU count, podsim's lines beside the
# published points (scenarios/weak_scaling.lua).
# input: datafile (podsim: series_id,series,gpus,mfu_pct,tokens_per_s_per_gpu)
#        pubfile  (published: series_id,series,gpus,mfu_pct,tokens_per_s_per_gpu)
# Variables: datafile, pubfile, nseries, names (one word per series).
# vars: datafile:file pubfile:file nseries:number names:string
set title "Weak scaling: podsim (lines) against published figures (points)" noenhanced
set xlabel "GPUs"
set ylabel "MFU (%)"
set logscale x 2
set grid
set key outside right noenhanced
plot for [i=1:nseries] datafile every ::1 using ($1 == i ? $3 : 1/0):4 \
       with linespoints lw 2 lc i pt 6 title word(names, i), \
     for [i=1:nseries] pubfile every ::1 using ($1 == i ? $3 : 1/0):4 \
       with points lc i pt 7 ps 1.4 notitle
