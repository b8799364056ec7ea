-- expect-exit: 1
-- expect-error: FILE:8: study 'study': y: metric is not finite
-- args: --threads 2
-- With nonfinite = "error", a metric that comes out NaN is an error naming the sample
-- (by default such samples are counted and left out, see tests/lua/study_traps.lua).
local s = podsim.study{samples = 100, params = {x = podsim.dist.uniform{0, 1}}, metrics = {"y"}, nonfinite = "error",
  eval = function(p) return {y = 0/0} end}
local r = s:run()
