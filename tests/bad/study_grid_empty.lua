-- expect-exit: 1
-- expect-error: FILE:4: podsim.study: grid.ranks: expected a non-empty list of values
-- A grid axis with no values has no points to run.
local s = podsim.study{params = {x = podsim.dist.uniform{0, 1}}, grid = {ranks = {}}, eval = function(p) return p.x end}
