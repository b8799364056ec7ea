-- expect-exit: 1
-- expect-error: FILE:6: study:wait: must be called from the scenario's main flow, not from inside a coroutine
-- Waiting for a study is only possible from the scenario's main flow.
local s = podsim.study{samples = 10, params = {x = podsim.dist.uniform{0, 1}}, metrics = {"y"}, eval = function(p) return {y = p.x} end}
local co = coroutine.wrap(function() return s:run() end)
co()
