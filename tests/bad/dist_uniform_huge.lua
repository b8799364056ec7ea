-- expect-exit: 1
-- expect-error: FILE:4: podsim.dist.uniform: hi: puts the values beyond the range of doubles (quantiles inf to inf, mean 0)
-- A range wider than the largest double cannot be sampled.
local d = podsim.dist.uniform{-1e308, 1e308}
