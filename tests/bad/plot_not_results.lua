-- expect-exit: 1
-- expect-error: FILE:4: podsim.plot: expected the results of study:run()
-- podsim.plot takes a study's results.
podsim.plot(42)
