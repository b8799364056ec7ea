-- expect-exit: 1
-- expect-error: FILE:4: podsim.write: expected the results of study:run()
-- podsim.write takes a study's results.
podsim.write({})
