-- expect-exit: 1
-- expect-error: FILE:4: podsim.check: known_miss: a fitted row cannot be a known miss
-- A fitted row is inside its tolerance by construction.
podsim.check{id = "X5", name = "fit", published = 2.0, value = 1.0, tol_rel = 0.1,
  fit = true, known_miss = "no"}
