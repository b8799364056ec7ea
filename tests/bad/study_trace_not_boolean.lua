-- expect-exit: 1
-- expect-error: FILE:4: podsim.study: trace: expected a boolean, got number
-- The study's trace option is a boolean.
local s = podsim.study{samples = 10, params = {x = podsim.dist.uniform{0, 1}}, trace = 1,
  eval = function(p) return {y = p.x} end}
