# heatmap.gp: a probability per cell of a grid (rows x columns), written
# as text in each cell.  input: CSV with columns row,col,label,gpus,p
# (p in [0,1]; -1 = no value).  Variables: datafile, title, nrows, ncols.
# vars: datafile:file title:string nrows:number ncols:number
set title title noenhanced
set xlabel "GPUs"
set cbrange [0:1]
set cblabel "probability"
set palette defined (0 "#b2182b", 0.5 "#f7f7f7", 1 "#2166ac")
set xrange [-0.5:ncols - 0.5]
set yrange [-0.5:nrows - 0.5]
set ytics noenhanced
set key off
plot datafile every ::1 using 2:1:5:xtic(4):ytic(3) with image, \
     datafile every ::1 using 2:1:($5 < 0 ? "n/a" : sprintf("%.2f", $5)) with labels
