-- expect-exit: 1
-- expect-error: FILE:4: podsim.dist.choice: weights[2]: must be >= 0 (got -1)
-- Weights are non-negative.
local d = podsim.dist.choice{values = {1, 2}, weights = {1, -1}}
