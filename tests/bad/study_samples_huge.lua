-- expect-exit: 1
-- expect-error: FILE:4: podsim.study: samples: must be in [1, 1e+12] (got 1e+300)
-- Absurd sample counts are out of range.
local s = podsim.study{samples = 1e300, params = {x = podsim.dist.uniform{0, 1}}, eval = function(p) return p.x end}
