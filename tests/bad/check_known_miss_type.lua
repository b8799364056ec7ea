-- expect-exit: 1
-- expect-error: FILE:4: podsim.check: known_miss: expected a string saying why
-- known_miss takes the reason, not a flag.
podsim.check{id = "X4", name = "flag", published = 2.0, value = 1.0, tol_rel = 0.1,
  fit = false, known_miss = true}
