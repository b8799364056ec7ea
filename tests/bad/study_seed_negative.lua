-- expect-exit: 1
-- expect-error: FILE:4: podsim.study: seed: must be in [0, 9.007199255e+15] (got -1)
-- Seeds are non-negative integers.
local s = podsim.study{seed = -1, params = {x = podsim.dist.uniform{0, 1}}, eval = function(p) return p.x end}
