-- expect-exit: 1
-- expect-error: FILE:5: study:start: call it as study:start()
-- Methods are called with a colon.
local s = podsim.study{samples = 10, params = {x = podsim.dist.uniform{0, 1}}, metrics = {"y"}, eval = function(p) return {y = p.x} end}
local r = s.run()
