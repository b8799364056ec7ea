-- expect-exit: 1
-- expect-error: FILE:4: podsim.study: target.rel_ci95: must be > 0
-- The stopping rule's precision is positive.
local s = podsim.study{params = {x = podsim.dist.uniform{0, 1}}, metrics = {"y"}, target = {metric = "y", rel_ci95 = 0},
  eval = function(p) return {y = p.x} end}
