-- expect-exit: 1
-- expect-error: FILE:5: podsim.gnuplot: output: expected a file name ending in .svg (relative to the output folder), got number
-- The output argument is an SVG name, not a number.
local csv = podsim.write_csv("t.csv", {"param", "spearman"}, {{"a", 0.5}})
podsim.gnuplot("tornado", {datafile = csv, metric = "m", point = "p"}, 3)
