-- expect-exit: 1
-- expect-error: FILE:4: podsim.dist.normal: sigma: unknown parameter (one of mean, sd)
-- Unknown parameter names suggest the nearest.
local d = podsim.dist.normal{mean = 1, sigma = 2}
