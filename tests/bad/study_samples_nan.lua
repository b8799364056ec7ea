-- expect-exit: 1
-- expect-error: FILE:4: podsim.study: samples: must be a finite number (got nan)
-- NaN sample counts are refused.
local s = podsim.study{samples = 0/0, params = {x = podsim.dist.uniform{0, 1}}, eval = function(p) return p.x end}
