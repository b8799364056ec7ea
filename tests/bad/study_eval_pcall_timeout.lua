-- expect-exit: 1
-- expect-error: podsim: time budget of 0.5 s exceeded (--timeout); stopping
-- args: --timeout 0.5 --threads 2
-- An evaluator that wraps an endless loop in pcall cannot swallow the
-- stop a worker gets after the time budget; the study then fails at
-- line 9 (it used to keep the worker, and the process, alive).
local s = podsim.study{name = "spin", samples = 100, params = {x = podsim.dist.uniform{0, 1}},
  metrics = {"y"}, eval = function(p) while true do pcall(function() while true do end end) end end}
s:run()
