-- expect-exit: 1
-- expect-error: FILE:11: done: 1.005
-- args: --threads 2
-- A cyclic table captured by eval crosses into workers without looping forever.
local t = {}
t.self = t
t.v = 2
local s = podsim.study{samples = 100, params = {x = podsim.dist.uniform{0, 1}}, metrics = {"y"},
  eval = function(p) return {y = t.self.self.v * p.x} end}
local r = s:run()
error("done: " .. string.format("%.3f", r.stats.y[1].mean))
