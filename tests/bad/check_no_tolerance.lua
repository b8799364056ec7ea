-- expect-exit: 1
-- expect-error: FILE:4: podsim.check: tol_rel: give tol_rel, tol_abs or range
-- A validation row needs a tolerance.
podsim.check{id = "X3", name = "no tolerance", published = 1.0, value = 1.0, fit = false}
