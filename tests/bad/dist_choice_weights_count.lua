-- expect-exit: 1
-- expect-error: FILE:4: podsim.dist.choice: weights: expected a list of 3 weights, one per value
-- One weight per value.
local d = podsim.dist.choice{values = {1, 2, 3}, weights = {1, 1}}
