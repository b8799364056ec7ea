-- expect-exit: 1
-- expect-error: FILE:7: study 'study': eval: eval must return a table of metrics (got string)
-- args: --threads 2
-- eval returns a table of metrics or a number.
local s = podsim.study{samples = 100, params = {x = podsim.dist.uniform{0, 1}}, metrics = {"y"},
  eval = function(p) return "fast" end}
local r = s:run()
