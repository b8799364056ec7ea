# heatmap.gp: a value in [0, 1] (a probability, such as the probability
# that a system wins) per cell of a two-key grid, written as text in each
# cell; red below 0.5, blue above.
# input: CSV with columns row,col,rowlabel,collabel,value (value in
# [0,1]; -1 = no value), every (row, col) once.
# Variables: datafile, title, nrows, ncols; optional xname, yname,
# cbname (the axis and colour-bar labels).
# vars: datafile:file title:string nrows:number ncols:number xname:string yname:string cbname:string
set title title noenhanced
if (exists("xname")) { set xlabel xname noenhanced }
if (exists("yname")) { set ylabel yname noenhanced }
set cbrange [0:1]
if (exists("cbname")) { set cblabel cbname noenhanced } else { set cblabel "probability" }
set palette defined (0 "#b2182b", 0.5 "#f7f7f7", 1 "#2166ac")
set xrange [-0.5:ncols - 0.5]
set yrange [-0.5:nrows - 0.5]
set xtics noenhanced
set ytics noenhanced
set key off
plot datafile every ::1 using 2:1:5:xtic(4):ytic(3) with image pixels, \
     datafile every ::1 using 2:1:($5 < 0 ? "n/a" : sprintf("%.2f", $5)) with labels
