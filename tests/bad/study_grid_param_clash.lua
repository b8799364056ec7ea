-- expect-exit: 1
-- expect-error: FILE:6: podsim.study: grid.x: is also a sampled parameter (params.x)
-- A grid key named like a sampled parameter: before, the sample silently
-- replaced the grid value and the rows were still labelled x=1, x=2 (exit 0
-- with a wrong table).
local s = podsim.study{name = "clash", samples = 64,
  params = {x = podsim.dist.uniform{lo = 0, hi = 1}},
  grid = {x = {1, 2}},
  eval = function(p) return {y = p.x} end}
s:run()
