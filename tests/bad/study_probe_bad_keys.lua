-- expect-exit: 1
-- expect-error: FILE:5: podsim.study: eval: keys must be names (strings)
-- The metrics probe (eval without metrics=) checks eval's result in the
-- template state protected: a bad key is an error (it used to abort).
local s = podsim.study{name = "pr", samples = 10, params = {x = podsim.dist.uniform{0, 1}},
  eval = function(p) return {[1] = p.x} end}
