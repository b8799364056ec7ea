-- expect-exit: 1
-- expect-error: FILE:4: podsim.study: samples: must be an integer
-- Sample counts are integers.
local s = podsim.study{samples = 10.5, params = {x = podsim.dist.uniform{0, 1}}, eval = function(p) return p.x end}
