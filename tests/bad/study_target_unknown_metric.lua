-- expect-exit: 1
-- expect-error: FILE:4: podsim.study: target.metric: expected one of the study's metrics
-- The stopping rule's metric must be one of the study's metrics.
local s = podsim.study{params = {x = podsim.dist.uniform{0, 1}}, metrics = {"y"}, target = {metric = "z", rel_ci95 = 0.01},
  eval = function(p) return {y = p.x} end}
