-- expect-exit: 1
-- expect-error: FILE:4: podsim.study: params.x: expected a distribution (podsim.dist.<kind>{...}) or a number, got string
-- Parameters are distributions or numbers.
local s = podsim.study{params = {x = "uniform"}, eval = function(p) return p.x end}
