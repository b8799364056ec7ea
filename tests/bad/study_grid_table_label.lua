-- expect-exit: 1
-- expect-error: FILE:4: podsim.study: grid.cfg[2]: a table as a grid value needs a string `label`
-- A table as a grid value would be named by its address (different every run).
podsim.study{name = "g", samples = 10, grid = {cfg = {{label = "a", x = 1}, {x = 2}}},
  params = {x = podsim.dist.uniform{0, 1}}, eval = function(p) return {v = p.x} end}
