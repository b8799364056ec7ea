-- expect-exit: 1
-- expect-error: FILE:6: study:start: study 'study' was already started
-- A study runs once.
local s = podsim.study{samples = 10, params = {x = podsim.dist.uniform{0, 1}}, metrics = {"y"}, eval = function(p) return {y = p.x} end}
s:start()
s:start()
