-- expect-exit: 1
-- expect-error: FILE:4: podsim.study: samples: must be in [1, 1e+12] (got 0)
-- A study needs at least one sample.
local s = podsim.study{samples = 0, params = {x = podsim.dist.uniform{0, 1}}, eval = function(p) return p.x end}
