-- expect-exit: 1
-- expect-error: FILE:4: podsim.gnuplot: vars.datafile: '/etc/passwd' is outside the scenario's folder and the output folder
-- gnuplot reads data files only through the sandbox's path check.
podsim.gnuplot("cdf", {datafile = "/etc/passwd", metric = "m", npoints = 1, labels = "a"})
