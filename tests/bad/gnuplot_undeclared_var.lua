-- expect-exit: 1
-- expect-error: FILE:4: podsim.gnuplot: vars.evil: template 'cdf' has no such variable
-- Only the variables a template declares reach gnuplot.
podsim.gnuplot("cdf", {evil = "`touch /tmp/podsim-pwned`"})
