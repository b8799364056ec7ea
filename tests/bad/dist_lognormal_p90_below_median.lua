-- expect-exit: 1
-- expect-error: FILE:4: podsim.dist.lognormal: p90: must be finite and > median (got 1)
-- p90 must lie above the median.
local d = podsim.dist.lognormal{median = 2, p90 = 1}
