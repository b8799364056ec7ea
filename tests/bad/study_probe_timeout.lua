-- expect-exit: 1
-- expect-error: FILE:5: podsim.study: eval: failed on a probe call at the parameters' medians: time budget of 0.5 s exceeded (--timeout)
-- args: --timeout 0.5
-- The metrics probe runs under the time budget (it used to hang).
local s = podsim.study{name = "pl", samples = 10, params = {x = podsim.dist.uniform{0, 1}},
  eval = function(p) while true do end end}
