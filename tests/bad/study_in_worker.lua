-- expect-exit: 1
-- expect-error: FILE:10: study 'study': eval: FILE:7: podsim.study: studies cannot run inside a worker's evaluator
-- args: --threads 2
-- Studies cannot be nested inside a worker's evaluator.
local s = podsim.study{samples = 10, params = {x = podsim.dist.uniform{0, 1}}, metrics = {"y"},
  eval = function(p)
    local inner = podsim.study{samples = 2, params = {z = podsim.dist.uniform{0, 1}}, eval = function(q) return q.z end}
    return {y = p.x}
  end}
local r = s:run()
