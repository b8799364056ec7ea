-- expect-exit: 1
-- expect-error: FILE:4: podsim.dist.lognormal: sigma: puts the values beyond the range of doubles (quantiles 1.10841e-138 to 9.05776e+137, mean inf)
-- Parameters whose values lie beyond the range of doubles are refused.
local d = podsim.dist.lognormal{0, 40}
