-- expect-exit: 1
-- expect-error: FILE:4: podsim.study: grid.ranks: expected a non-empty list of values
-- Grid axes are lists of values.
local s = podsim.study{params = {x = podsim.dist.uniform{0, 1}}, grid = {ranks = 8}, eval = function(p) return p.x end}
