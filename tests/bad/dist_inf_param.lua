-- expect-exit: 1
-- expect-error: FILE:4: podsim.dist.exponential: mean: must be a finite number (got inf)
-- Infinite parameters are refused.
local d = podsim.dist.exponential{math.huge}
