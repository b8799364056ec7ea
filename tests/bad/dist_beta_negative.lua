-- expect-exit: 1
-- expect-error: FILE:4: podsim.dist.beta: a: must be in [0.001, 1e6] (got -1)
-- Beta shape parameters are positive.
local d = podsim.dist.beta{-1, 2}
