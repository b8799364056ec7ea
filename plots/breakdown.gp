# breakdown.gp: stacked bars of a training step's time, one bar per
# system or layout: compute, then the exposed communication of every
# parallel dimension, the pipeline bubble, the optimizer, host launch
# time and the straggler wait; the bar's height is the step time.
# input: breakdown CSV (columns label,step_s, then the parts in seconds:
# compute,tp,cp,ep,pp,dp,bubble,optimizer,host,straggler)
# Variables: datafile, plot_title, nbars.
# vars: datafile:file plot_title:string nbars:number
set title plot_title noenhanced
set ylabel "seconds per training step"
set yrange [0:*]
set grid y
set key outside right top vertical noenhanced
set style data histograms
set style histogram rowstacked
set style fill solid 0.85 border -1
set boxwidth 0.6
set xtics noenhanced
set xrange [-0.6:nbars - 0.4]
parts = "compute exposed_TP exposed_CP exposed_EP exposed_PP exposed_DP bubble optimizer host straggler"
colors = "#4477aa #ee6677 #aa3377 #cc6633 #ccbb44 #66ccee #bbbbbb #228833 #999933 #555555"
plot for [i=3:12] datafile every ::1 using i:xtic(1) lc rgb word(colors, i - 2) title word(parts, i - 2)
