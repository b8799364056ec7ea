-- expect-exit: 1
-- expect-error: podsim: time budget of 1 s exceeded (--timeout); stopping
-- args: --threads 2 --timeout 1
-- An endless loop inside eval in a worker is stopped by the time budget.
local s = podsim.study{samples = 1000, params = {x = podsim.dist.uniform{0, 1}}, metrics = {"y"},
  eval = function(p) while true do end end}
local r = s:run()
