-- expect-exit: 1
-- expect-error: FILE:7: study 'study': y: metric is not finite
-- args: --threads 2
-- A metric that comes out NaN is an error naming the sample, not a silent NaN in the summary.
local s = podsim.study{samples = 100, params = {x = podsim.dist.uniform{0, 1}}, metrics = {"y"},
  eval = function(p) return {y = 0/0} end}
local r = s:run()
