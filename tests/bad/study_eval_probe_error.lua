-- expect-exit: 1
-- expect-error: FILE:4: podsim.study: eval: failed on a probe call at the parameters' medians: FILE:5: attempt to index a nil value (field 'nope')
-- Without metrics, eval is probed at the medians; an error there is located.
local s = podsim.study{params = {x = podsim.dist.uniform{0, 1}},
  eval = function(p) return p.nope.y end}
