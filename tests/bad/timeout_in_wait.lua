-- expect-exit: 1
-- expect-error: podsim: time budget of 0.5 s exceeded (--timeout); stopping
-- args: --timeout 0.5
-- A study that outlives the time budget is stopped; the scenario is told.
local s = podsim.study{samples = 1e9, params = {x = podsim.dist.uniform{0, 1}}, metrics = {"y"},
  eval = function(p) local a = 0 for i = 1, 1000 do a = a + i end return {y = a * p.x} end}
local r = s:run()
error("returned, complete=" .. tostring(r.complete))
