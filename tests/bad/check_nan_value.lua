-- expect-exit: 1
-- expect-error: FILE:4: podsim.check: value: must be a finite number (got nan)
-- A NaN model value never passes a check.
podsim.check{id = "X4", name = "nan", published = 1.0, value = 0/0, tol_rel = 0.5, fit = false}
