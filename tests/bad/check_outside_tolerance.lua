-- expect-exit: 1
-- expect-error: FILE:4: podsim.check: X2: outside tolerance
-- A validation row outside its tolerance fails the run.
podsim.check{id = "X2", name = "off by half", published = 2.0, value = 1.0, tol_rel = 0.1, fit = false}
