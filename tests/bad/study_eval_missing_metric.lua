-- expect-exit: 1
-- expect-error: FILE:7: study 'study': z: eval returned nil for metric 'z' (a number is needed)
-- args: --threads 2
-- Every declared metric must be returned.
local s = podsim.study{samples = 100, params = {x = podsim.dist.uniform{0, 1}}, metrics = {"y", "z"},
  eval = function(p) return {y = p.x} end}
local r = s:run()
