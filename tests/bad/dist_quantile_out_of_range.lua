-- expect-exit: 1
-- expect-error: FILE:5: dist:quantile: u: must be in (0, 1] (got 1.5)
-- Quantiles take a probability in [0, 1].
local d = podsim.dist.normal{0, 1}
local q = d:quantile(1.5)
