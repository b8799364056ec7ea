-- expect-exit: 1
-- expect-error: FILE:4: podsim.check: fit: say whether the case fitted a parameter
-- Every validation row must say whether it was a fit or a prediction.
podsim.check{id = "X1", name = "no fit flag", published = 1.0, value = 1.0,
  tol_rel = 0.1}
