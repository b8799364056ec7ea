-- expect-exit: 1
-- expect-error: FILE:5: study:wait: study 'study' was not started (use study:run() or study:start())
-- wait needs a started study.
local s = podsim.study{samples = 10, params = {x = podsim.dist.uniform{0, 1}}, metrics = {"y"}, eval = function(p) return {y = p.x} end}
local r = s:wait()
