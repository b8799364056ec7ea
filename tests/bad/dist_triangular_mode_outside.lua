-- expect-exit: 1
-- expect-error: FILE:4: podsim.dist.triangular: mode: must lie in [lo, hi] (got 2)
-- The mode lies within [lo, hi].
local d = podsim.dist.triangular{0, 2, 1}
