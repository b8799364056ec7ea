-- expect-exit: 1
-- expect-error: FILE:4: attempt to call a nil value (field '_gnuplot')
-- podsim's internals (here: the raw gnuplot runner) are not in the podsim table.
podsim._gnuplot("print system('touch /tmp/podsim-pwned')")
