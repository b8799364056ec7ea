-- expect-exit: 1
-- expect-error: FILE:6: podsim.study: grid: more than 1000000 grid points
-- A grid with millions of points is refused up front.
local big = {}
for i = 1, 2000 do big[i] = i end
local s = podsim.study{params = {x = podsim.dist.uniform{0, 1}}, grid = {a = big, b = big}, eval = function(p) return p.x end}
